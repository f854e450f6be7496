//! The `board` example driven by the official MCP TypeScript client
//! (`@modelcontextprotocol/client` 2.4.0, `versionNegotiation: { mode: 'auto' }`) over
//! Streamable HTTP, with the scripted model behind real HTTP.
//!
//! Ignored by a plain `cargo test`, since it needs Node.js and the client: `scripts/test`
//! installs it with `scripts/peers install` and runs this with `--ignored`, the `node_modules`
//! folder in `LADOGA_TS_SDK`.

mod common;

use std::process::Stdio;

use common::board_over_http;
use ladoga::testing::{Reply, ScriptedModel};
use serde_json::{Value, json};
use tokio::process::Command;

const CLIENT: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/peers/ts_client.mjs");

#[tokio::test]
#[ignore = "needs Node.js and the MCP TypeScript client: run by scripts/test"]
async fn the_typescript_client_calls_plan_week_over_streamable_http() {
    let sdk = std::env::var("LADOGA_TS_SDK")
        .expect("LADOGA_TS_SDK names the node_modules holding the client (see scripts/test)");
    let script = ScriptedModel::new([
        Reply::call("add_task", json!({"title": "Tag v1.0"})),
        Reply::text("Tag v1.0 is on the board."),
    ]);
    let model = script.serve().await.expect("serves");
    let (_board, addr) = board_over_http(&model.url(), "scripted").await;

    let output = Command::new("node")
        .arg(CLIENT)
        .arg(format!("http://{addr}/mcp"))
        .env("LADOGA_TS_SDK", sdk)
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .expect("node runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let answer: Value = serde_json::from_slice(&output.stdout).expect("one JSON line");
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
    assert_eq!(script.requests().len(), 2);
    assert_eq!(
        script.requests()[1].tool_results()[0].1,
        "Added task 1: Tag v1.0"
    );
}
