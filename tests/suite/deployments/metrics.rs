//! What a real Prometheus (Debian's `prometheus`, started here on a free loopback port and
//! stopped at the end) counts when it scrapes `board --admin` through a run of concurrent MCP
//! clients: the runs, the model's tool calls, the callers' tool calls and the model requests
//! the test made, asked through its HTTP API (`/api/v1/query`).
//!
//! Ignored by a plain `cargo test`, since it needs `prometheus`: `scripts/test` installs it with
//! `scripts/services install` and runs it with `--ignored`.

use std::time::Duration;

use crate::common::prometheus::Prometheus;
use crate::common::{self, board_over_http_with, connect, free_addr, wait_for};
use futures_util::future::join_all;
use ladoga::testing::{Reply, ScriptedModel};
use serde_json::json;

/// MCP clients calling at once.
const CLIENTS: usize = 8;
/// `plan_week` runs each client makes.
const RUNS: usize = 5;
/// Direct `add_task` calls each client makes.
const DIRECT_CALLS: usize = 3;

/// A model whose run adds two tasks, then answers.
fn planning_model() -> ScriptedModel {
    ScriptedModel::from_fn(|seen| match seen.tool_results().len() {
        0 => Reply::calls([
            ("add_task", json!({"title": "Tag v1.0"})),
            ("add_task", json!({"title": "Write the notes"})),
        ])
        .with_usage(100, 10),
        _ => Reply::text("Planned.").with_usage(150, 5),
    })
}

#[tokio::test]
#[ignore = "needs prometheus: run by scripts/test"]
async fn prometheus_counts_the_runs_and_calls_the_test_made() {
    let script = planning_model().without_log();
    let model = script.serve().await.expect("serves");
    let admin = free_addr();
    let (_board, addr) = board_over_http_with(
        &model.url(),
        "scripted",
        &["--admin", &admin.to_string(), "--model-price", "100,1000"],
    )
    .await;
    wait_for(admin).await;
    let prometheus = Prometheus::scraping(admin, "board").await;
    let scraped = prometheus
        .until("up{job=\"board\"}", 1.0, Duration::from_secs(30))
        .await;
    assert_eq!(scraped, Some(1.0), "prometheus scrapes the board");

    let clients = (0..CLIENTS).map(|client| async move {
        let client_of = connect(addr).await;
        for call in 0..RUNS.max(DIRECT_CALLS) {
            if call < DIRECT_CALLS {
                let title = format!("Client {client}, task {call}");
                let added = client_of
                    .tools()
                    .call("add_task", [("title", title.as_str())])
                    .await
                    .expect("tools/call");
                assert!(!added.is_error, "{added:?}");
            }
            if call < RUNS {
                assert_eq!(common::plan_week(&client_of).await, "Planned.");
            }
        }
    });
    join_all(clients).await;

    let runs = (CLIENTS * RUNS) as f64;
    let direct = (CLIENTS * DIRECT_CALLS) as f64;
    let within = Duration::from_secs(20);
    let expected = [
        (
            "sum(ladoga_runs_ended_total{ladoga_stop=\"answered\"})",
            runs,
        ),
        ("sum(ladoga_runs_ended_total)", runs),
        ("sum(ladoga_run_turns_sum)", 2.0 * runs),
        (
            "sum(ladoga_tool_calls_total{gen_ai_tool_name=\"add_task\",outcome=\"ok\"})",
            2.0 * runs,
        ),
        // Every `tools/call` the board answered: the callers' and the model's in-process ones.
        (
            "sum(mcp_server_operation_duration_seconds_count{gen_ai_tool_name=\"add_task\"})",
            direct + 2.0 * runs,
        ),
        (
            "sum(mcp_server_operation_duration_seconds_count{gen_ai_tool_name=\"plan_week\"})",
            runs,
        ),
        (
            "sum(gen_ai_client_operation_duration_seconds_count{gen_ai_request_model=\"scripted\"})",
            2.0 * runs,
        ),
        (
            "sum(gen_ai_client_operation_time_to_first_chunk_seconds_count)",
            2.0 * runs,
        ),
        (
            "sum(gen_ai_client_token_usage_sum{gen_ai_token_type=\"input\"})",
            250.0 * runs,
        ),
        (
            "sum(gen_ai_client_token_usage_sum{gen_ai_token_type=\"output\"})",
            15.0 * runs,
        ),
        // $100 a million tokens read, $1,000 written: 250 and 15 tokens a run, $0.04.
        (
            "sum(ladoga_model_cost_microdollars_total{gen_ai_request_model=\"scripted\"})",
            40_000.0 * runs,
        ),
        ("sum(ladoga_runs_in_flight)", 0.0),
    ];
    for (query, value) in expected {
        assert_eq!(
            prometheus.until(query, value, within).await,
            Some(value),
            "{query}"
        );
    }
}
