//! `plan_week` on a real model: the local SmolLM2 server that `scripts/model-server` runs.
//!
//! Ignored by a plain `cargo test`, since it needs that server; `scripts/test` starts it and runs
//! this test with its base URL, as one can by hand:
//! `LADOGA_REAL_MODEL_URL=$(scripts/model-server start 18234) cargo test -p ladoga-tests
//! --test suite -- --ignored peers::real_model::`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use crate::common::{self, board_over_http, text};
use ladoga::{REPORT_KEY, STREAM_LOGGER};
use neva::prelude::*;
use neva::types::notification::Notification;

#[tokio::test]
#[ignore = "needs the local model server: see the README"]
async fn plan_week_on_a_real_model_calls_a_board_tool_and_streams_its_answer() {
    let url = std::env::var("LADOGA_REAL_MODEL_URL")
        .expect("LADOGA_REAL_MODEL_URL names the model server (scripts/model-server start)");
    let (_board, addr) = board_over_http(&url, "smollm2").await;
    #[allow(deprecated)] // request-scoped logging, which MCP 2026-07-28 marks deprecated
    let mut client = Client::new().with_options(|opt| {
        let opt = opt
            .with_http(|http| http.bind(addr.to_string()).with_endpoint("/mcp"))
            .with_timeout(Duration::from_secs(300));
        #[cfg(not(feature = "legacy-spec"))]
        let opt = opt.with_log_level(neva::types::notification::LoggingLevel::Info);
        opt
    });
    client.connect().await.expect("connects");
    // The text `plan_week` streams (it has `stream = true`), kept as it comes.
    let streamed = Arc::new(Mutex::new(String::new()));
    let kept = Arc::clone(&streamed);
    client.subscribe(
        "notifications/message",
        move |notification: Notification| {
            let kept = Arc::clone(&kept);
            async move {
                let params = notification.params.unwrap_or_default();
                if params["logger"] == STREAM_LOGGER {
                    let piece = params["data"]["message"].as_str().unwrap_or_default();
                    kept.lock().unwrap().push_str(piece);
                }
            }
        },
    );

    let result = client
        .tools()
        .call("plan_week", [("focus", "the release")])
        .await
        .expect("tools/call");
    assert!(!result.is_error, "{result:?}");
    // The answer is the first block; the second names the session the call started.
    let answer = common::answer(&result);
    assert!(!answer.trim().is_empty(), "the model answered");
    // Under MCP 2026-07-28, where the request asks for log lines; `scripts/test` runs this test
    // in that build.
    #[cfg(not(feature = "legacy-spec"))]
    {
        let streamed = streamed.lock().unwrap().clone();
        assert!(
            streamed.contains(answer.trim()),
            "the answer streamed to the caller before the result: {streamed:?}"
        );
    }
    let block = serde_json::to_value(&result.content[0]).unwrap();
    let first_token = &block["_meta"][REPORT_KEY]["first_token_ms"];
    assert!(first_token.as_u64().is_some(), "{block}");

    // A real call reached a board tool: the board is not empty any more.
    let board = client.tools().call("list_tasks", ()).await.expect("list");
    assert_ne!(text(&board), "The board is empty.", "{board:?}");
    client.disconnect().await.expect("disconnects");
}
