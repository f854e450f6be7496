//! The scenario's server: three in-process tools, and the same loop twice, once as a Ladoga
//! `#[orchestrator]` and once written by hand as neva's guide shows it.

use ladoga::{CompletionModel, orchestrator};
use neva::di::Dc;
use neva::prelude::*;
use neva::svir::LocalTools;
use svir::{ToolCall, Toolbox};

use super::model::{MemoryModel, PricedModel};

/// The system prompt both loops send.
pub const SYSTEM: &str = "You answer with the tools you have.";

/// The name of the Ladoga orchestrator.
pub const LADOGA: &str = "loop_ladoga";

/// The name of the Ladoga orchestrator under a dollar budget.
pub const LADOGA_BUDGET: &str = "loop_ladoga_budget";

/// The name of the hand-written loop.
pub const BY_HAND: &str = "loop_byhand";

/// The turn bound of both loops: the long conversation of the growth benchmark fits.
const TURNS: usize = 64;

#[tool(descr = "Looks a key up")]
async fn lookup(key: String) -> String {
    format!("{key}: Friday")
}

#[tool(descr = "Adds two numbers")]
async fn add(a: i64, b: i64) -> i64 {
    a + b
}

#[tool(descr = "Says the text back")]
async fn echo(text: String) -> String {
    text
}

/// Runs the scenario.
#[orchestrator(system = "You answer with the tools you have.", model = MemoryModel, turns = 64)]
async fn loop_ladoga(task: String) -> String {
    task
}

/// The same, under a dollar budget it never reaches: what the check before each request costs.
#[orchestrator(
    system = "You answer with the tools you have.",
    model = PricedModel,
    turns = 64,
    budget_usd = 1000.0
)]
async fn loop_ladoga_budget(task: String) -> String {
    task
}

/// The seed's loop, written by hand over the same toolbox and the same svir client.
#[tool(descr = "Runs the scenario.")]
async fn loop_byhand(ctx: Context, model: Dc<MemoryModel>, task: String) -> Result<String, Error> {
    let tools = ctx.tools().toolbox().load().await?;
    let mut request = svir::Request::new(model.name())
        .system(SYSTEM)
        .tools(&tools)
        .user(task);
    for _ in 0..TURNS {
        let done = model
            .client()
            .complete(&request)
            .await
            .map_err(|error| Error::new(ErrorCode::InternalError, error.to_string()))?;
        if done.calls.is_empty() {
            return Ok(done.text);
        }
        let results = tools.call_all(&done.calls).await;
        request = request.assistant(done).tool_results(results);
    }
    Err(Error::new(
        ErrorCode::InternalError,
        "the model kept calling tools",
    ))
}

/// Every tool of this binary, in process, with `model` injected.
pub async fn server(model: MemoryModel) -> LocalTools {
    App::new()
        .add_singleton(PricedModel(model.clone()))
        .add_singleton(model)
        .into_toolbox()
        .load()
        .await
        .expect("the bench server's tools load")
}

/// A call of the loop `name`, as a client would make it.
pub fn start(name: &str) -> ToolCall {
    ToolCall::new("bench", name, r#"{"task":"When is the deadline?"}"#)
}

/// Runs the loop `name` once through `server` and checks it answered.
pub async fn run(server: &LocalTools, name: &str) {
    let told = server.call(&start(name)).await;
    assert!(!told.is_error, "{name} failed: {}", told.content);
}
