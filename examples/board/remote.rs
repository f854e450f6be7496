//! `--remote URL`: another MCP server whose tools `plan_week` offers beside the board's.

use ladoga::LiveTools;
use svir::{Tool, ToolCall, ToolResult, Toolbox};

/// What the tools of the remote server are offered as: `remote_` and their own name.
pub const PREFIX: &str = "remote_";

/// The tools of the server `--remote` names, none without it: a [`LiveTools`], listed when the
/// board starts and again when that server says its list changed.
#[derive(Default)]
pub struct Remote(Option<LiveTools>);

impl Remote {
    /// Connects to the MCP server at `url` (`http://HOST:PORT/PATH`, over Streamable HTTP), of
    /// either generation, and lists its tools.
    pub async fn connect(url: &str) -> Result<Self, String> {
        let tools = LiveTools::connect_url(url, |opt| opt, |tools| tools.with_prefix(PREFIX))
            .await
            .map_err(|error| error.to_string())?;
        tools.renew().await.map_err(|error| error.to_string())?;
        Ok(Self(Some(tools)))
    }
}

impl Toolbox for Remote {
    fn tools(&self) -> Vec<Tool> {
        self.0.as_ref().map(Toolbox::tools).unwrap_or_default()
    }

    async fn call(&self, call: &ToolCall) -> ToolResult {
        match &self.0 {
            Some(tools) => tools.call(call).await,
            None => ToolResult::error(&call.id, format!("There is no tool named `{}`", call.name)),
        }
    }
}
