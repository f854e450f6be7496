//! The `board` example driven by the official MCP Python SDK (`mcp` 2.3.0, protocol
//! negotiation `auto`) over Streamable HTTP and over stdio, with the scripted model behind
//! real HTTP: the tools, `plan_week`'s answer, and its progress and log notifications; and the
//! model's question (`ask = true`) answered through the SDK's elicitation callback with a form;
//! and `board --caller-model`'s `plan_week` planned on the host's model, each turn a round the
//! SDK's sampling callback answers.
//!
//! Ignored by a plain `cargo test`, since it needs the SDK: `scripts/test` installs it with
//! `scripts/peers install` and runs these with `--ignored`, the venv's interpreter in
//! `LADOGA_PYTHON`.

mod common;

use common::{Server, board_over_http, peer};
use ladoga::orchestrator;
use ladoga::testing::{Reply, ScriptedModel};
use serde_json::{Value, json};
use tokio::process::Command;

/// Plans, asking its caller's person what it must not guess.
#[orchestrator(ask = true)]
async fn planner(task: String) -> String {
    task
}

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
    let text = line["text"].as_str().unwrap_or_default();
    assert_eq!(common::unsessioned(text), "Done: Removed 0 tasks", "{line}");
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

#[tokio::test]
#[ignore = "needs the MCP Python SDK: run by scripts/test"]
async fn the_python_sdks_elicitation_callback_answers_ask_caller_with_a_form() {
    let script = ScriptedModel::from_fn(|seen| match seen.tool_results().first() {
        None => Reply::call(
            "ask_caller",
            json!({"question": "Which day should the release move to?", "choices": ["Thursday", "Friday"]}),
        ),
        Some((_, result)) => Reply::text(format!("Moved to {result}.")),
    });
    let model = script.serve().await.expect("serves");
    let server = Server::start(neva::App::new().add_singleton(model.model())).await;
    let url = format!("http://{}/mcp", server.addr);
    let python = std::env::var("LADOGA_PYTHON")
        .expect("LADOGA_PYTHON names a Python with the MCP SDK (see scripts/test)");
    let mut client = Command::new(python);
    client
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/peers/python_ask.py"
        ))
        .args([url.as_str(), "planner"]);
    let line = peer::run(client).await;

    assert_eq!(line["is_error"], false, "{line}");
    assert_eq!(line["text"], "Moved to Friday.", "{line}");
    let shown = line["shown"].as_array().expect("forms");
    assert_eq!(shown.len(), 1, "asked once: {line}");
    assert_eq!(shown[0]["message"], "Which day should the release move to?");
    let field = &shown[0]["requestedSchema"]["properties"]["answer"];
    assert_eq!(field["enum"], json!(["Thursday", "Friday"]), "{line}");
    assert_eq!(line["report"]["questions"][0]["answer"], "Friday", "{line}");
    let requests = script.requests();
    assert_eq!(requests.len(), 2, "each turn was asked for once");
    assert_eq!(requests[1].tool_results()[0].1, "Friday");
    server.stop().await;
}

/// Hands the task to `planner`: the question `planner`'s model asks travels up to this call's
/// caller.
#[orchestrator(system = "delegate", tools = ["planner"])]
async fn delegating(task: String) -> String {
    task
}

/// The Python SDK as the top caller of `delegating`, which calls `planner` in process: the
/// question `planner`'s model asks is a round of the top call, tagged with its path, which the
/// SDK's elicitation callback answers; the report nests `planner`'s.
#[tokio::test]
#[ignore = "needs the MCP Python SDK: run by scripts/test"]
async fn the_python_sdk_answers_a_question_asked_below_the_tool_it_called() {
    let script = ScriptedModel::from_fn(|seen| {
        let heard = seen.tool_results();
        match (seen.system(), heard.first()) {
            (Some("delegate"), None) => Reply::call("planner", json!({"task": "Move the release"})),
            (Some("delegate"), Some((_, result))) => Reply::text(format!("Delegated: {result}")),
            (_, None) => Reply::call(
                "ask_caller",
                json!({"question": "Which day should the release move to?", "choices": ["Thursday", "Friday"]}),
            ),
            (_, Some((_, result))) => Reply::text(format!("Moved to {result}.")),
        }
    });
    let model = script.serve().await.expect("serves");
    let server = Server::start(neva::App::new().add_singleton(model.model())).await;
    let url = format!("http://{}/mcp", server.addr);
    let python = std::env::var("LADOGA_PYTHON")
        .expect("LADOGA_PYTHON names a Python with the MCP SDK (see scripts/test)");
    let mut client = Command::new(python);
    client
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/peers/python_ask.py"
        ))
        .args([url.as_str(), "delegating"]);
    let line = peer::run(client).await;

    assert_eq!(line["is_error"], false, "{line}");
    assert_eq!(line["text"], "Delegated: Moved to Friday.", "{line}");
    let shown = line["shown"].as_array().expect("forms");
    assert_eq!(shown.len(), 1, "asked once: {line}");
    assert_eq!(
        shown[0]["message"],
        "[delegating › planner] Which day should the release move to?"
    );
    let below = &line["report"]["runs"][0];
    assert_eq!(below["tool"], "planner", "{line}");
    assert_eq!(
        below["report"]["questions"][0]["answer"], "Friday",
        "{line}"
    );
    assert_eq!(script.requests().len(), 4, "each request was sent once");
    server.stop().await;
}

/// Plans with a budget of $1, asking a model priced at $10 a million tokens written.
#[orchestrator(budget_usd = 1.0, on_limit = "partial")]
async fn thrifty(task: String) -> String {
    task
}

/// The Python SDK's `call_tool` of `thrifty` with `meta` letting it spend `dollars`: its line,
/// and what the model was asked.
async fn python_capping(dollars: &str) -> (Value, usize) {
    let script = ScriptedModel::from_fn(|_| Reply::text("Moved.").with_usage(100, 200));
    let model = script.serve().await.expect("serves");
    let priced = model
        .model()
        .with_price(ladoga::Price::per_million_tokens(0.0, 10.0));
    let server = Server::start(neva::App::new().add_singleton(priced)).await;
    let url = format!("http://{}/mcp", server.addr);
    let python = std::env::var("LADOGA_PYTHON")
        .expect("LADOGA_PYTHON names a Python with the MCP SDK (see scripts/test)");
    let mut client = Command::new(python);
    client
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/peers/python_budget.py"
        ))
        .args([url.as_str(), "thrifty", dollars]);
    let line = peer::run(client).await;
    server.stop().await;
    (line, script.requests().len())
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK: run by scripts/test"]
async fn the_python_sdk_caps_what_a_call_spends_in_its_meta() {
    // $0.001 pays for no answer of 256 tokens at $10 a million: the model is not asked.
    let (line, asked) = python_capping("0.001").await;
    assert_eq!(line["is_error"], false, "{line}");
    assert_eq!(line["report"]["stop"], "budget_usd", "{line}");
    assert_eq!(asked, 0, "{line}");
    // A cap above the tool's own $1 leaves it its own: the run answers.
    let (line, asked) = python_capping("50").await;
    assert_eq!(line["text"], "Moved.", "{line}");
    assert_eq!(line["report"]["stop"], "answered", "{line}");
    assert!(
        (line["report"]["cost_usd"].as_f64().unwrap() - 0.002).abs() < 1e-12,
        "{line}"
    );
    assert_eq!(asked, 1);
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK: run by scripts/test"]
async fn the_python_sdk_goes_on_with_a_plan_week_session() {
    let script = ScriptedModel::from_fn(|seen| {
        let users = seen
            .messages()
            .iter()
            .filter(|message| message["role"] == "user")
            .count();
        Reply::text(format!("Answer {users}."))
    });
    let model = script.serve().await.expect("serves");
    let (_board, addr) = board_over_http(&model.url(), "scripted").await;
    let python = std::env::var("LADOGA_PYTHON")
        .expect("LADOGA_PYTHON names a Python with the MCP SDK (see scripts/test)");
    let mut client = Command::new(python);
    client
        .arg(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../tests/peers/python_session.py"
        ))
        .arg(format!("http://{addr}/mcp"));
    let line = peer::run(client).await;

    let session = line["session"]
        .as_str()
        .expect("the first result names a session");
    assert_eq!(line["first"]["texts"][0], "Answer 1.", "{line}");
    assert_eq!(line["second"]["is_error"], false, "{line}");
    assert_eq!(line["second"]["texts"][0], "Answer 2.", "{line}");
    assert!(
        line["second"]["texts"][1]
            .as_str()
            .unwrap_or_default()
            .contains(session),
        "the same session goes on: {line}"
    );
    let requests = script.requests();
    assert_eq!(requests.len(), 2);
    let said: Vec<_> = requests[1]
        .messages()
        .iter()
        .filter(|message| message["role"] != "system")
        .map(|message| message["content"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(
        said,
        [
            "Plan my week around the release. Add the tasks to my board.",
            "Answer 1.",
            "Plan my week around moving the release to Thursday. Add the tasks to my board.",
        ],
        "the second call's model saw the first's conversation"
    );
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK: run by scripts/test"]
async fn the_python_sdks_sampling_callback_plans_the_week_for_a_board_on_the_callers_model() {
    peer::check_sampled_by_python("LADOGA_PYTHON").await;
}
