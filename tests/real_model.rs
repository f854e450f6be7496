//! `plan_week` on a real model: the local SmolLM2 server that `scripts/model-server` runs.
//!
//! Ignored by a plain `cargo test`, since it needs that server: `scripts/test` starts it and runs
//! this test with `--ignored`, the server's base URL in `LADOGA_REAL_MODEL_URL`.

mod common;

use std::process::Stdio;
use std::time::Duration;

use common::{free_addr, text, wait_for};
use neva::prelude::*;
use tokio::process::Command;

#[tokio::test]
#[ignore = "needs the local model server: run by scripts/test"]
async fn plan_week_on_a_real_model_calls_a_board_tool_and_answers() {
    let url = std::env::var("LADOGA_REAL_MODEL_URL")
        .expect("LADOGA_REAL_MODEL_URL names the model server (scripts/model-server start)");
    let addr = free_addr();
    let _board = Command::new(env!("CARGO_BIN_EXE_board"))
        .args([
            "--http",
            &addr.to_string(),
            "--model-url",
            &url,
            "--model",
            "smollm2",
        ])
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the board binary starts");
    wait_for(addr).await;
    let mut client = Client::new().with_options(|opt| {
        opt.with_http(|http| http.bind(addr.to_string()).with_endpoint("/mcp"))
            .with_timeout(Duration::from_secs(300))
    });
    client.connect().await.expect("connects");

    let result = client
        .tools()
        .call("plan_week", [("focus", "the release")])
        .await
        .expect("tools/call");
    assert!(!result.is_error, "{result:?}");
    assert!(!text(&result).trim().is_empty(), "the model answered");

    // A real call reached a board tool: the board is not empty any more.
    let board = client.tools().call("list_tasks", ()).await.expect("list");
    assert_ne!(text(&board), "The board is empty.", "{board:?}");
    client.disconnect().await.expect("disconnects");
}
