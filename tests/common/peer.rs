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

/// The host's own model of a `board --caller-model` run: a task added, the board listed, then
/// the answer, a turn each.
pub fn callers_script() -> ScriptedModel {
    ScriptedModel::from_fn(|seen| match seen.tool_results().len() {
        0 => Reply::call("add_task", json!({"title": "Tag v1.0"})),
        1 => Reply::call("list_tasks", json!({})),
        _ => Reply::text("Tag v1.0 is on the board, planned on the caller's model."),
    })
}

/// `plan_week` of `board --caller-model` called by the Python peer `python_sample.py`, run by
/// the Python the variable `python` names, its sampling callback answering with a scripted
/// model of the host's own: see [`check_sampled`].
pub async fn check_sampled_by_python(python: &str) {
    let (callers, own) = (
        callers_script(),
        ScriptedModel::new([Reply::text("The board's own model.")]),
    );
    let (callers_model, own_model) = (
        callers.serve().await.expect("serves"),
        own.serve().await.expect("serves"),
    );
    let db = super::scratch::Scratch::new("python-sample");
    let db_arg = db.path.display().to_string();
    let (_board, addr) = super::board_over_http_with(
        &own_model.url(),
        "scripted",
        &["--caller-model", "--db", &db_arg],
    )
    .await;
    let interpreter = std::env::var(python)
        .unwrap_or_else(|_| panic!("{python} names a Python with the MCP SDK (see scripts/test)"));
    let mut client = Command::new(interpreter);
    client
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/peers/python_sample.py"
        ))
        .args([format!("http://{addr}/mcp"), callers_model.url()]);
    check_sampled(&run(client).await, &callers, &own);
}

/// What `python_sample.py` printed for `plan_week` of `board --caller-model`, the host sampling
/// with [`callers_script`]: the run went three turns, each sampled once, on the host's model and
/// never the board's (`own`), the tools and their results carried both ways.
pub fn check_sampled(line: &Value, callers: &ScriptedModel, own: &ScriptedModel) {
    assert_eq!(line["is_error"], false, "{line}");
    let text = line["text"].as_str().unwrap_or_default();
    assert_eq!(
        super::unsessioned(text),
        "Tag v1.0 is on the board, planned on the caller's model.",
        "{line}"
    );
    assert_eq!(line["report"]["model"], "caller", "{line}");
    assert!(own.requests().is_empty(), "the board's own model was asked");
    let (sampled, requests) = (
        line["sampled"].as_array().expect("samples"),
        callers.requests(),
    );
    assert_eq!(sampled.len(), 3, "a sample a turn: {line}");
    assert_eq!(requests.len(), 3, "the host's model asked once a turn");
    // The first request: the system prompt, the task, the board's tools but `plan_week` itself.
    let first = &sampled[0];
    assert!(
        first["systemPrompt"]
            .as_str()
            .unwrap_or_default()
            .contains("task board"),
        "{first}"
    );
    let tools: Vec<_> = first["tools"]
        .as_array()
        .expect("the tools")
        .iter()
        .filter_map(|tool| tool["name"].as_str())
        .collect();
    assert!(
        tools.contains(&"add_task") && tools.contains(&"list_tasks"),
        "{tools:?}"
    );
    assert!(
        !tools.contains(&"plan_week"),
        "the caller is left out: {tools:?}"
    );
    // The last: each call as a `tool_use` block, each result as a `tool_result` block.
    let blocks: Vec<&Value> = sampled[2]["messages"]
        .as_array()
        .expect("messages")
        .iter()
        .flat_map(|message| match &message["content"] {
            Value::Array(blocks) => blocks.iter().collect::<Vec<_>>(),
            block => vec![block],
        })
        .collect();
    let used: Vec<_> = blocks
        .iter()
        .filter(|block| block["type"] == "tool_use")
        .map(|block| block["name"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(used, ["add_task", "list_tasks"], "{}", sampled[2]);
    let results = requests[2].tool_results();
    assert_eq!(results.len(), 2, "{results:?}");
    assert_eq!(results[0].1, "Added task 1: Tag v1.0");
    assert!(results[1].1.contains("Tag v1.0"), "{results:?}");
    assert_eq!(
        blocks
            .iter()
            .filter(|block| block["type"] == "tool_result")
            .count(),
        2,
        "{}",
        sampled[2]
    );
}
