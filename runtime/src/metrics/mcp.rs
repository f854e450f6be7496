//! The MCP tool calls a server answers, as OpenTelemetry's `mcp.server.operation.duration`: a
//! client's, and the in-process calls of a run's model, which take the same pipeline.

use std::time::Instant;

use metrics::{Label, histogram};
use neva::App;
use neva::middleware::{MwContext, Next};
use neva::types::Response;

use super::handles::{self, Series};
use super::{MCP_OPERATION_DURATION, UNKNOWN_TOOL};

/// `app` with every `tools/call` it answers recorded in
/// [`MCP_OPERATION_DURATION`](super::MCP_OPERATION_DURATION), by `gen_ai_tool_name` and, for a
/// failure, `error_type`: `tool_error` for a tool's own error result, the JSON-RPC error code
/// (`-32602`) for a call neva refused, whose tool is then `unknown` (it may name no tool the
/// server has). The answer goes to its caller unchanged.
///
/// ```rust,no_run
/// let app = ladoga::metrics::serve(neva::App::new());
/// # let _ = app;
/// ```
pub fn serve(app: App) -> App {
    app.wrap_tools(record)
}

/// Times one `tools/call` and records how it was answered.
async fn record(ctx: MwContext, next: Next) -> Response {
    let asked = ctx.request().and_then(|request| {
        let name = request.params.as_ref()?.get("name")?.as_str()?;
        Some(name.to_owned())
    });
    let started = Instant::now();
    let response = next(ctx).await;
    let took = started.elapsed();
    let method = Label::from_static_parts("mcp_method_name", "tools/call");
    match &response {
        Response::Ok(ok) => {
            let tool = asked.as_deref().unwrap_or(UNKNOWN_TOOL);
            let failed = ok.result.get("isError").and_then(|value| value.as_bool()) == Some(true);
            let error_type = if failed { "tool_error" } else { "" };
            let series = Series {
                metric: MCP_OPERATION_DURATION,
                fixed: [error_type, ""],
                name: tool,
            };
            let answered = handles::histogram(series, || {
                let mut labels = vec![method, Label::new("gen_ai_tool_name", tool.to_owned())];
                if failed {
                    labels.push(Label::from_static_parts("error_type", error_type));
                }
                histogram!(MCP_OPERATION_DURATION, labels)
            });
            answered.record(took);
        }
        // Refused by neva: rare, and perhaps of no tool the server has.
        Response::Err(error) => {
            let code = i32::from(error.error.code).to_string();
            let labels = vec![
                method,
                Label::from_static_parts("gen_ai_tool_name", UNKNOWN_TOOL),
                Label::new("error_type", code),
            ];
            histogram!(MCP_OPERATION_DURATION, labels).record(took);
        }
    }
    response
}
