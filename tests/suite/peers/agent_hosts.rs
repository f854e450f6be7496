//! The `board` example called by agent frameworks, as their users call an MCP tool, over
//! Streamable HTTP on the default build (MCP 2026-07-28), with the scripted model behind real
//! HTTP: PydanticAI (`MCPToolset`, an `Agent` on a scripted `FunctionModel`), the OpenAI Agents
//! SDK (`MCPServerStreamableHttp`, an `Agent` on a scripted local `Model`), FastMCP's `Client`
//! and the MCP Inspector's CLI. Each lists the tools and calls `plan_week`; the board's own model
//! makes one real `add_task` call before it answers.
//!
//! Ignored by a plain `cargo test`, since they need the frameworks: `scripts/peers install` puts
//! them, pinned, into `.peers/`, and `scripts/test` runs these with `--ignored`, the interpreter
//! of their venv in `LADOGA_AGENTS_PYTHON` and the Inspector's `node_modules` folder in
//! `LADOGA_INSPECTOR`.

use std::net::SocketAddr;

use crate::common::{board_over_http, peer};
use ladoga::testing::ScriptedModel;
use serde_json::{Value, json};
use tokio::process::Command;

/// A driver script of `tests/peers/`.
fn driver(name: &str) -> String {
    format!("{}/../tests/peers/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The Python driver `name`, run by the agent frameworks' venv against the board at `addr`.
fn python_host(name: &str, addr: SocketAddr) -> Command {
    let python = std::env::var("LADOGA_AGENTS_PYTHON")
        .expect("LADOGA_AGENTS_PYTHON names the agent frameworks' Python (see scripts/test)");
    let mut host = Command::new(python);
    host.arg(driver(name)).arg(format!("http://{addr}/mcp"));
    host
}

/// Starts the board on the scripted model, runs the host `make` builds for its address, and
/// returns the host's JSON line with the script, after the checks every host must pass.
async fn board_called_by(make: impl FnOnce(SocketAddr) -> Command) -> (Value, ScriptedModel) {
    let script = peer::script();
    let model = script.serve().await.expect("serves");
    let (_board, addr) = board_over_http(&model.url(), "scripted").await;
    let answer = peer::run(make(addr)).await;
    peer::check(&answer, &script);
    (answer, script)
}

/// A whole agent's model was offered the board's tools, asked for `plan_week` with the focus,
/// and the agent answered with the result that reached it.
fn check_agent(answer: &Value) {
    assert_eq!(
        answer["offered"], answer["tools"],
        "the model saw the tools: {answer}"
    );
    assert_eq!(answer["arguments"], json!({"focus": "the release"}));
    assert_eq!(answer["output"], answer["text"], "{answer}");
}

#[tokio::test]
#[ignore = "needs PydanticAI: run by scripts/test"]
async fn a_pydantic_ai_agent_calls_plan_week_through_its_mcp_toolset() {
    let (answer, _) = board_called_by(|addr| python_host("pydantic_ai_host.py", addr)).await;
    check_agent(&answer);
}

#[tokio::test]
#[ignore = "needs the OpenAI Agents SDK: run by scripts/test"]
async fn an_openai_agents_sdk_agent_calls_plan_week_through_its_mcp_server() {
    let (answer, _) = board_called_by(|addr| python_host("openai_agents_host.py", addr)).await;
    check_agent(&answer);
}

#[tokio::test]
#[ignore = "needs FastMCP: run by scripts/test"]
async fn the_fastmcp_client_calls_plan_week_with_a_progress_handler() {
    let (answer, _) = board_called_by(|addr| python_host("fastmcp_host.py", addr)).await;
    // A progress notification per turn and per tool call, out of the turn bound (8).
    assert_eq!(
        answer["progress"],
        json!([[0.5, 8.0], [1.0, 8.0], [2.0, 8.0]]),
        "{answer}"
    );
}

#[tokio::test]
#[ignore = "needs Node.js and the MCP Inspector: run by scripts/test"]
async fn the_mcp_inspector_cli_lists_the_tools_and_calls_plan_week() {
    let inspector = std::env::var("LADOGA_INSPECTOR")
        .expect("LADOGA_INSPECTOR names the node_modules holding the Inspector (see scripts/test)");
    board_called_by(|addr| {
        let mut host = Command::new("node");
        host.arg(driver("inspector_host.mjs"))
            .arg(format!("http://{addr}/mcp"))
            .env("LADOGA_INSPECTOR", inspector);
        host
    })
    .await;
}
