//! `plan_week` run as an MCP task by the official MCP Python SDK: the real `board` binary, the
//! scripted model over HTTP.
//!
//! Under MCP 2026-07-28 that is the tasks extension, which SDK 2.3.0 has no client for: the
//! client `tests/peers/python_task.py` writes one on the SDK's extension API. Under
//! `legacy-spec` it is MCP 2025-11-25's tasks, through SDK 1.x's own tasks client
//! (`tests/peers/python_legacy_task.py`).
//!
//! Ignored by a plain `cargo test`, since it needs the SDK: `scripts/test` runs it with
//! `--ignored`, the venv's interpreter in `LADOGA_PYTHON` (`LADOGA_PYTHON_LEGACY` for
//! `legacy-spec`).

use std::net::SocketAddr;
use std::time::Duration;

use crate::common::{self, peer};
use ladoga::testing::{Reply, ScriptedModel, SeenRequest};
use serde_json::{Value, json};

/// The client, and the variable naming the Python it runs on, for this build's generation.
#[cfg(not(feature = "legacy-spec"))]
const CLIENT: (&str, &str) = ("python_task.py", "LADOGA_PYTHON");
#[cfg(feature = "legacy-spec")]
const CLIENT: (&str, &str) = ("python_legacy_task.py", "LADOGA_PYTHON_LEGACY");

/// The Python tasks client run by an admin against the board at `addr` with `args`: its JSON
/// line.
pub async fn python_task(addr: SocketAddr, args: &[&str]) -> Value {
    let (client, python) = CLIENT;
    let url = format!("http://{addr}/mcp");
    peer::python_as_admin(python, client, &[&[url.as_str()], args].concat()).await
}

/// The statuses the client saw, a status seen twice in a row once.
fn statuses(line: &Value) -> Vec<String> {
    let mut seen: Vec<String> = Vec::new();
    for status in line["seen"].as_array().expect("seen").iter() {
        let status = status["status"].as_str().expect("a status").to_owned();
        if seen.last() != Some(&status) {
            seen.push(status);
        }
    }
    seen
}

/// The model adds a task, then, thinking for a second, asks to clear the board, then answers
/// with what it got.
fn adds_then_clears() -> ScriptedModel {
    ScriptedModel::from_fn(|seen| match seen.tool_results().len() {
        0 => Reply::call("add_task", json!({"title": "Draft the notes"})),
        1 => Reply::call("clear_board", json!({}))
            .with_text("Now the board can go.")
            .after(Duration::from_secs(1)),
        _ => Reply::text(format!("Done: {}", seen.tool_results()[1].1)),
    })
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK: run by scripts/test"]
async fn a_task_asks_its_caller_and_its_progress_and_report_reach_the_caller() {
    let script = adds_then_clears();
    let model = script.serve().await.expect("serves");
    let (_board, addr) = common::auth::board_with_auth(&model.url()).await;

    let line = python_task(addr, &["accept"]).await;

    assert!(line["task_id"].is_string(), "{line}");
    let statuses = statuses(&line);
    assert_eq!(statuses.first().map(String::as_str), Some("working"));
    assert_eq!(statuses.last().map(String::as_str), Some("completed"));
    #[cfg(not(feature = "legacy-spec"))]
    {
        // Working until the question, and again after the answer, which the next poll may
        // miss.
        assert_eq!(statuses[..2], ["working", "input_required"], "{line}");
        // While the model thought, `tasks/get` said where the run was; and every answer said
        // the task's `ttlMs` and `createdAt` as its creation did (to the millisecond: the run
        // reads them from the call).
        let seen = line["seen"].as_array().expect("seen");
        assert!(
            seen.iter().any(|poll| poll["status"] == "working"
                && poll["message"] == "turn 1/8: add_task answered"),
            "{line}"
        );
        for poll in seen {
            assert_eq!(poll["same_ttl"], json!(true), "{line}");
            assert!(poll["created_skew_ms"].as_u64().unwrap() <= 5, "{line}");
        }
    }
    let asked = line["asked"].as_array().expect("asked");
    assert_eq!(asked.len(), 1, "{line}");
    assert!(asked[0].as_str().unwrap().contains("clear_board"), "{line}");
    assert_eq!(line["is_error"], json!(false), "{line}");
    let text = line["text"].as_str().unwrap_or_default();
    assert_eq!(common::unsessioned(text), "Done: Removed 1 tasks", "{line}");
    let report = &line["report"];
    assert_eq!(report["turns"], json!(3), "{line}");
    assert_eq!(
        report["approvals"],
        json!([{"tool": "clear_board", "arguments": {}, "decision": "approved"}]),
        "{line}"
    );
    // Each turn asked the model once: the task waited for its answer in place.
    assert_eq!(script.requests().len(), 3);
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK: run by scripts/test"]
async fn tasks_cancel_stops_the_run_before_its_next_call_and_model_request() {
    // The second answer is slow: the caller cancels while the model is still writing it.
    let script = ScriptedModel::from_fn(|seen| match seen.tool_results().len() {
        0 => Reply::call("add_task", json!({"title": "one"})),
        1 => Reply::call("add_task", json!({"title": "two"})).after(Duration::from_secs(3)),
        _ => Reply::text("Both are on the board."),
    });
    let model = script.serve().await.expect("serves");
    let (_board, addr) = common::auth::board_with_auth(&model.url()).await;

    let line = python_task(addr, &["cancel", "1000"]).await;
    assert_eq!(line["status"], json!("cancelled"), "{line}");
    assert_eq!(statuses(&line).first().map(String::as_str), Some("working"));

    // Long past the slow answer: nothing of the run went on.
    tokio::time::sleep(Duration::from_secs(3)).await;
    let requests: Vec<SeenRequest> = script.requests();
    assert_eq!(requests.len(), 2, "no model request after the cancellation");
    assert_eq!(
        list_tasks(addr).await,
        "1. [ ] one",
        "the call the slow answer asked for never ran"
    );
}

/// The board's tasks, as `list_tasks` lists them.
async fn list_tasks(addr: SocketAddr) -> String {
    let mut client = common::auth::client_with(addr, Some(&common::auth::admin("alice")));
    client.connect().await.expect("connects");
    let listed = client.tools().call("list_tasks", ()).await.expect("lists");
    common::text(&listed)
}
