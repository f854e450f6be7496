//! `--remote URL`: another MCP server whose tools `plan_week` offers beside the board's.

use ladoga::LiveTools;
use neva::Client;
use svir::{Tool, ToolCall, ToolResult, Toolbox};

/// What the tools of the remote server are offered as: `remote_` and their own name.
pub const PREFIX: &str = "remote_";

/// The tools of the server `--remote` names, none without it: a [`LiveTools`], listed when the
/// board starts and again when that server says its list changed.
#[derive(Default)]
pub struct Remote(Option<LiveTools>);

impl Remote {
    /// Connects to the MCP server at `url` (`http://HOST:PORT/PATH`, over Streamable HTTP) and
    /// lists its tools.
    pub async fn connect(url: &str) -> Result<Self, String> {
        let (addr, endpoint) = split(url)?;
        let client = Client::new()
            .with_options(|opt| opt.with_http(|http| http.bind(addr).with_endpoint(endpoint)));
        let tools = LiveTools::connect(client, |tools| tools.with_prefix(PREFIX))
            .await
            .map_err(|error| error.to_string())?;
        tools.renew().await.map_err(|error| error.to_string())?;
        Ok(Self(Some(tools)))
    }
}

/// The address and the endpoint of an `http://` URL.
fn split(url: &str) -> Result<(&str, &str), String> {
    let rest = url
        .strip_prefix("http://")
        .ok_or_else(|| format!("`{url}` is not an http:// URL"))?;
    Ok(match rest.find('/') {
        Some(slash) => rest.split_at(slash),
        None => (rest, "/"),
    })
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
