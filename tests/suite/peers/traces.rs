//! One trace in a real trace backend: a Python host traced with OpenTelemetry calls `plan_week`
//! on a `board` with the official MCP SDK, the host span's `traceparent` in the call's `_meta`;
//! the run asks `review` (an orchestrator nested in process) and `remote_review`, the `review`
//! of a second `board` behind `--remote`, which the person approves first. Both boards send their spans over OTLP to Arize Phoenix
//! (`common::phoenix`), whose API then holds them all as one trace under the host's span, and
//! headless Chromium keeps a screenshot of that trace in Phoenix's UI (`target/phoenix/`).
//!
//! Ignored by a plain `cargo test`: `scripts/peers install` and `scripts/services install`
//! install Phoenix, the SDK with OpenTelemetry and Chromium; run with `--ignored`,
//! `LADOGA_PHOENIX` and `LADOGA_PYTHON`.

use std::path::Path;
use std::time::Duration;

use ladoga::testing::{Reply, ScriptedModel};
use serde_json::{Value, json};
use tokio::process::Command;

use crate::common::phoenix::Phoenix;
use crate::common::{board_over_http_with_env, peer};

/// `plan_week` asks both reviews in one turn, then answers; a review lists the tasks, then
/// answers with its typed review.
fn script() -> ScriptedModel {
    ScriptedModel::from_fn(|seen| {
        let brief = seen.first_user_text().unwrap_or_default();
        let answered = seen.tool_results().len();
        match (brief.starts_with("Review"), answered) {
            (false, 0) => Reply::calls([
                ("review", json!({"focus": "the offsite"})),
                ("remote_review", json!({"focus": "the catering"})),
            ]),
            (false, _) => Reply::text("The week is planned."),
            (true, 0) => Reply::call("list_tasks", json!({})),
            (true, _) => Reply::text(r#"{"summary": "Nothing is planned yet.", "open_tasks": []}"#),
        }
    })
}

/// The names of `spans`, and how often each.
fn count(spans: &[Value], name: &str) -> usize {
    spans.iter().filter(|span| span["name"] == name).count()
}

#[tokio::test]
#[ignore = "needs Phoenix, the Python SDK with OpenTelemetry and Chromium: LADOGA_PHOENIX, LADOGA_PYTHON"]
async fn a_hosts_span_its_run_a_nested_run_and_a_remote_servers_run_are_one_trace_in_phoenix() {
    let phoenix = Phoenix::start().await;
    let python = std::env::var("LADOGA_PYTHON")
        .expect("LADOGA_PYTHON names the Python SDK's Python, with OpenTelemetry (scripts/peers)");
    let script = script();
    let model = script.serve().await.expect("serves");
    let otlp = phoenix.otlp_traces_url();
    let exported = |service: &'static str| {
        [
            ("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", otlp.clone()),
            ("OTEL_SERVICE_NAME", service.to_owned()),
            // Sent within a tenth of a second, not at the SDK's five.
            ("OTEL_BSP_SCHEDULE_DELAY", "100".to_owned()),
        ]
    };
    let far_env = exported("board-far");
    let far_env: Vec<(&str, &str)> = far_env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (mut far, far_addr) =
        board_over_http_with_env(&model.url(), "scripted", &[], &far_env).await;
    let remote = format!("http://{far_addr}/mcp");
    let near_env = exported("board-near");
    let near_env: Vec<(&str, &str)> = near_env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let (mut near, near_addr) =
        board_over_http_with_env(&model.url(), "scripted", &["--remote", &remote], &near_env).await;

    let mut host = Command::new(python);
    host.arg(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/peers/traced_host.py"
    ))
    .arg(&otlp)
    .arg(format!("http://{near_addr}/mcp"))
    .arg("plan_week")
    .arg("the offsite");
    let answer = peer::run(host).await;
    assert_eq!(answer["is_error"], false, "{answer}");
    let text = answer["text"].as_str().unwrap_or_default();
    assert!(text.starts_with("The week is planned."), "{answer}");
    // A remote tool says nothing of itself: the person approved `remote_review` first.
    assert_eq!(
        answer["asked"].as_array().map(Vec::len),
        Some(1),
        "{answer}"
    );
    let trace = answer["trace_id"].as_str().expect("the host's trace");
    let host_span = answer["span_id"].as_str().expect("the host's span");

    // The host's span, the call on each board, the three runs, each with its model requests and
    // tool calls.
    let spans = phoenix
        .spans_of_trace(trace, 20, Duration::from_secs(30))
        .await;
    let names: Vec<&str> = spans
        .iter()
        .filter_map(|span| span["name"].as_str())
        .collect();
    assert_eq!(count(&spans, "host asks plan_week"), 1, "{names:?}");
    // Under MCP 2026-07-28 the approval is a round of the call: a request, and a run span, each.
    assert!(count(&spans, "tools/call plan_week") >= 1, "{names:?}");
    assert!(count(&spans, "invoke_agent plan_week") >= 1, "{names:?}");
    assert_eq!(count(&spans, "execute_tool review"), 1, "{names:?}");
    assert_eq!(count(&spans, "execute_tool remote_review"), 1, "{names:?}");
    assert_eq!(count(&spans, "tools/call review"), 1, "{names:?}");
    assert_eq!(count(&spans, "invoke_agent review"), 2, "{names:?}");
    assert_eq!(count(&spans, "execute_tool list_tasks"), 2, "{names:?}");
    assert!(count(&spans, "chat scripted") >= 6, "{names:?}");
    // One tree: the host's span its root, every other span's parent in the trace.
    let ids: Vec<&str> = spans
        .iter()
        .filter_map(|span| span["context"]["span_id"].as_str())
        .collect();
    let roots: Vec<&Value> = spans
        .iter()
        .filter(|span| {
            !span["parent_id"]
                .as_str()
                .is_some_and(|parent| ids.contains(&parent))
        })
        .collect();
    assert_eq!(roots.len(), 1, "{names:?}");
    assert_eq!(roots[0]["context"]["span_id"], host_span, "{}", roots[0]);

    let png = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target/phoenix/one_trace_host_board_nested_and_remote_runs.png");
    phoenix
        .screenshot(&phoenix.trace_page_url(trace), &png)
        .await;
    let _ = near.kill().await;
    let _ = far.kill().await;
}
