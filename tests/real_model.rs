//! `plan_week` on a real model: the local SmolLM2 server that `scripts/model-server` runs.
//!
//! Ignored by a plain `cargo test`, since it needs that server; `scripts/test` starts it and runs
//! this test with its base URL, as one can by hand:
//! `LADOGA_REAL_MODEL_URL=$(scripts/model-server start 18234) cargo test -p ladoga-examples
//! --test real_model -- --ignored`.

mod common;

use std::time::Duration;

use common::{board_over_http, text};
use neva::prelude::*;

#[tokio::test]
#[ignore = "needs the local model server: see the README"]
async fn plan_week_on_a_real_model_calls_a_board_tool_and_answers() {
    let url = std::env::var("LADOGA_REAL_MODEL_URL")
        .expect("LADOGA_REAL_MODEL_URL names the model server (scripts/model-server start)");
    let (_board, addr) = board_over_http(&url, "smollm2").await;
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
