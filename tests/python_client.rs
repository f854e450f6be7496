//! The `board` example driven by the official MCP Python SDK (`mcp` 2.3.0, protocol
//! negotiation `auto`) over Streamable HTTP and over stdio, with the scripted model behind
//! real HTTP: the tools, `plan_week`'s answer, and its progress and log notifications.
//!
//! Ignored by a plain `cargo test`, since it needs the SDK: `scripts/test` installs it with
//! `scripts/peers install` and runs these with `--ignored`, the venv's interpreter in
//! `LADOGA_PYTHON`.

mod common;

use common::{board_over_http, peer};
use serde_json::Value;
use tokio::process::Command;

const CLIENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/peers/python_client.py"
);

/// Runs the Python client with `args` and reads the JSON line it prints.
async fn python(args: &[&str]) -> Value {
    let python = std::env::var("LADOGA_PYTHON")
        .expect("LADOGA_PYTHON names a Python with the MCP SDK (see scripts/test)");
    let mut client = Command::new(python);
    client.arg(CLIENT).args(args);
    peer::run(client).await
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK: run by scripts/test"]
async fn the_python_sdk_calls_plan_week_over_streamable_http() {
    let script = peer::script();
    let model = script.serve().await.expect("serves");
    let (_board, addr) = board_over_http(&model.url(), "scripted").await;

    let answer = python(&["http", &format!("http://{addr}/mcp")]).await;
    peer::check(&answer, &script);
    peer::check_progress(&answer);
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK: run by scripts/test"]
async fn the_python_sdk_calls_plan_week_over_stdio() {
    let script = peer::script();
    let model = script.serve().await.expect("serves");

    let board = env!("CARGO_BIN_EXE_board");
    let answer = python(&["stdio", board, &model.url()]).await;
    peer::check(&answer, &script);
    peer::check_progress(&answer);
}
