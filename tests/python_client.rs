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

    let board = common::exe("board");
    let answer = python(&["stdio", board, &model.url()]).await;
    peer::check(&answer, &script);
    peer::check_progress(&answer);
}

/// `plan_week` on `board --auth` for an admin whose Python client answers every approval
/// question with `answer`, the model asking for `clear_board` once: the client's JSON line, and
/// the requests the model got.
async fn python_admin_answering(answer: &str) -> (Value, Vec<ladoga::testing::SeenRequest>) {
    let script =
        ladoga::testing::ScriptedModel::from_fn(|seen| match seen.tool_results().first() {
            None => ladoga::testing::Reply::call("clear_board", serde_json::json!({}))
                .with_text("The board is stale: I will clear it."),
            Some((_, result)) => ladoga::testing::Reply::text(format!("Done: {result}")),
        });
    let model = script.serve().await.expect("serves");
    let (_board, addr) = common::auth::board_with_auth(&model.url()).await;
    let url = format!("http://{addr}/mcp");
    let line = peer::python_as_admin("LADOGA_PYTHON", "python_approval.py", &[&url, answer]).await;
    (line, script.requests())
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK: run by scripts/test"]
async fn the_python_sdks_elicitation_callback_approves_clear_board_which_runs_once() {
    let (line, requests) = python_admin_answering("accept").await;

    assert_eq!(line["is_error"], false, "{line}");
    assert_eq!(line["text"], "Done: Removed 0 tasks", "{line}");
    let asked = line["asked"].as_array().expect("questions");
    assert_eq!(asked.len(), 1, "{line}");
    let question = asked[0].as_str().unwrap_or_default();
    assert!(question.contains("`clear_board`"), "{question}");
    assert!(
        question.contains("The board is stale: I will clear it."),
        "{question}"
    );
    assert_eq!(
        line["report"]["approvals"][0]["tool"], "clear_board",
        "{line}"
    );
    assert_eq!(
        line["report"]["approvals"][0]["decision"], "approved",
        "{line}"
    );
    assert_eq!(requests.len(), 2, "each turn was asked for once");
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK: run by scripts/test"]
async fn the_python_sdks_elicitation_callback_declines_and_clear_board_never_runs() {
    for (answer, decision) in [("decline", "declined"), ("cancel", "cancelled")] {
        let (line, requests) = python_admin_answering(answer).await;

        assert_eq!(line["is_error"], false, "{line}");
        let text = line["text"].as_str().unwrap_or_default();
        assert!(text.starts_with("Done: error: not run"), "{line}");
        assert_eq!(
            line["report"]["approvals"][0]["decision"], decision,
            "{line}"
        );
        assert_eq!(requests.len(), 2, "{answer}: each turn was asked for once");
    }
}
