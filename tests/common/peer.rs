//! What the official-client tests share: the script `plan_week` runs on, how a peer's one JSON
//! line is read, and what it must say.

use ladoga::testing::{Reply, ScriptedModel};
use serde_json::{Value, json};
use tokio::process::Command;

/// One tool call, then the answer.
pub fn script() -> ScriptedModel {
    ScriptedModel::new([
        Reply::call("add_task", json!({"title": "Tag v1.0"})),
        Reply::text("Tag v1.0 is on the board."),
    ])
}

/// The Python peer `script` of `tests/peers/` run, as Alice the admin (`LADOGA_TOKEN`), by the
/// Python the variable `python` names, with `args`: the JSON line it prints.
pub async fn python_as_admin(python: &str, script: &str, args: &[&str]) -> Value {
    let interpreter = std::env::var(python)
        .unwrap_or_else(|_| panic!("{python} names a Python with the MCP SDK (see scripts/test)"));
    let mut client = Command::new(interpreter);
    client
        .arg(format!(
            "{}/../tests/peers/{script}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .args(args)
        .env("LADOGA_TOKEN", super::auth::admin("alice"));
    run(client).await
}

/// Runs the peer client and reads the JSON line it prints.
pub async fn run(mut client: Command) -> Value {
    let output = client
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .expect("the peer client runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("one JSON line")
}

/// The peer listed the board's tools and got `plan_week`'s answer, after one real tool call.
pub fn check(answer: &Value, script: &ScriptedModel) {
    assert_eq!(
        answer["tools"],
        json!([
            "add_task",
            "clear_board",
            "complete_task",
            "list_tasks",
            "plan_week",
            "review"
        ])
    );
    assert_eq!(answer["is_error"], json!(false), "{answer}");
    // The host reads every block: the answer, then the session it may go on with.
    let text = joined(answer["text"].as_str().unwrap_or_default());
    let text = text.as_str();
    assert_eq!(
        super::unsessioned(text),
        "Tag v1.0 is on the board.",
        "{answer}"
    );
    assert!(
        text.contains("\nsession: "),
        "the host sees the session: {answer}"
    );
    let requests = script.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1].tool_results()[0].1, "Added task 1: Tag v1.0");
}

/// The peer got a progress notification per turn and per tool call, out of the turn bound (8),
/// the readable line of each as a log message, and the answer's text as it streamed (`plan_week`
/// streams: one line here, since the scripted answer comes in one piece).
pub fn check_progress(answer: &Value) {
    assert_eq!(
        answer["progress"],
        json!([[0.5, 8.0], [1.0, 8.0], [2.0, 8.0]]),
        "{answer}"
    );
    assert_eq!(
        answer["logs"],
        json!([
            "turn 1/8: add_task",
            "turn 1/8: add_task answered",
            "Tag v1.0 is on the board.",
            "turn 2/8: answered"
        ]),
        "{answer}"
    );
}

/// A tool result's text as a host passed it on: its blocks joined by a newline, as most hosts
/// do, or read back from the JSON list of their texts PydanticAI makes of them.
fn joined(text: &str) -> String {
    match serde_json::from_str::<Vec<String>>(text) {
        Ok(blocks) => blocks.join("\n"),
        Err(_) => text.to_owned(),
    }
}
