//! The `board` example driven by the official MCP Python SDK (`mcp` 2.3.0, protocol
//! negotiation `auto`) over Streamable HTTP and over stdio, with the scripted model behind
//! real HTTP.
//!
//! Ignored by a plain `cargo test`, since it needs the SDK: `scripts/test` installs it with
//! `scripts/peers install` and runs these with `--ignored`, the venv's interpreter in
//! `LADOGA_PYTHON`.

mod common;

use std::process::Stdio;

use common::board_over_http;
use ladoga::testing::{Reply, ScriptedModel};
use serde_json::{Value, json};
use tokio::process::Command;

const BOARD: &str = env!("CARGO_BIN_EXE_board");
const CLIENT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/peers/python_client.py"
);

fn script() -> ScriptedModel {
    ScriptedModel::new([
        Reply::call("add_task", json!({"title": "Tag v1.0"})),
        Reply::text("Tag v1.0 is on the board."),
    ])
}

/// Runs the Python client with `args` and reads the JSON line it prints.
async fn python(args: &[&str]) -> Value {
    let python = std::env::var("LADOGA_PYTHON")
        .expect("LADOGA_PYTHON names a Python with the MCP SDK (see scripts/test)");
    let output = Command::new(python)
        .arg(CLIENT)
        .args(args)
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .expect("the Python client runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("one JSON line")
}

fn check(answer: &Value, script: &ScriptedModel) {
    assert_eq!(
        answer["tools"],
        json!([
            "add_task",
            "clear_board",
            "complete_task",
            "list_tasks",
            "plan_week"
        ])
    );
    assert_eq!(answer["is_error"], json!(false), "{answer}");
    assert_eq!(answer["text"], json!("Tag v1.0 is on the board."));
    let requests = script.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1].tool_results()[0].1, "Added task 1: Tag v1.0");
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK: run by scripts/test"]
async fn the_python_sdk_calls_plan_week_over_streamable_http() {
    let script = script();
    let model = script.serve().await.expect("serves");
    let (_board, addr) = board_over_http(&model.url(), "scripted").await;

    let answer = python(&["http", &format!("http://{addr}/mcp")]).await;
    check(&answer, &script);
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK: run by scripts/test"]
async fn the_python_sdk_calls_plan_week_over_stdio() {
    let script = script();
    let model = script.serve().await.expect("serves");

    let answer = python(&["stdio", BOARD, &model.url()]).await;
    check(&answer, &script);
}
