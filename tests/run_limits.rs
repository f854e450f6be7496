//! The bounds of a run through the real MCP path: time (`timeout`), tokens (`budget`), a stuck
//! model (`repeat`), and the `partial` policy at them.

mod common;

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::{Server, text};
use ladoga::orchestrator;
use ladoga::testing::{Reply, ScriptedModel};
use neva::prelude::*;
use serde_json::json;

static NOTES: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn notes_of(text: &str) -> usize {
    NOTES
        .lock()
        .unwrap()
        .iter()
        .filter(|note| *note == text)
        .count()
}

#[tool(descr = "Writes a note")]
async fn note(text: String) -> String {
    NOTES.lock().unwrap().push(text.clone());
    format!("noted {text}")
}

static DAWDLES_DONE: AtomicUsize = AtomicUsize::new(0);

#[tool(descr = "Takes two seconds")]
async fn dawdle() -> String {
    tokio::time::sleep(Duration::from_secs(2)).await;
    DAWDLES_DONE.fetch_add(1, Ordering::SeqCst);
    "done dawdling".to_owned()
}

/// Must finish fast.
#[orchestrator(timeout = "400ms")]
async fn hurried(task: String) -> String {
    task
}

/// Must finish fast, and keeps what it did.
#[orchestrator(timeout = "1s", on_limit = "partial")]
async fn hurried_partial(task: String) -> String {
    task
}

/// Spends at most 30 tokens.
#[orchestrator(budget = 30)]
async fn thrifty(task: String) -> String {
    task
}

/// Spends at most 30 tokens, then answers.
#[orchestrator(budget = 30, on_limit = "answer")]
async fn thrifty_answer(task: String) -> String {
    task
}

/// Stops a model that repeats itself.
#[orchestrator(repeat = 3)]
async fn patient(task: String) -> String {
    task
}

/// At most two turns, then the work so far.
#[orchestrator(turns = 2, on_limit = "partial")]
async fn brief_partial(task: String) -> String {
    task
}

/// Hands the work to `worker`, within 100 tokens, the worker's included.
#[orchestrator(budget = 100)]
async fn manager(task: String) -> String {
    format!("M: {task}")
}

/// Does the work.
#[orchestrator]
async fn worker(task: String) -> String {
    format!("W: {task}")
}

/// A typed answer.
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Verdict {
    ok: bool,
}

/// Must give its typed verdict fast.
#[orchestrator(output = Verdict, timeout = "400ms")]
async fn hurried_verdict(task: String) -> String {
    task
}

async fn start(script: &ScriptedModel) -> (Server, ladoga::testing::ScriptedServer) {
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model())).await;
    (server, model)
}

/// The run's report in the result's `_meta`.
fn report(result: &CallToolResponse) -> serde_json::Value {
    let meta = result.content[0].as_text().unwrap().meta.clone().unwrap();
    meta[ladoga::REPORT_KEY].clone()
}

async fn call(server: &Server, tool: &str) -> CallToolResponse {
    let client = server.client().await;
    client
        .tools()
        .call(tool, [("task", "go")])
        .await
        .expect("tools/call")
}

#[tokio::test]
async fn at_the_deadline_the_run_stops_its_running_calls_and_says_so() {
    let script = ScriptedModel::from_fn(|_| Reply::call("dawdle", json!({})));
    let (server, _model) = start(&script).await;
    let dawdles_before = DAWDLES_DONE.load(Ordering::SeqCst);

    let started = Instant::now();
    let result = call(&server, "hurried").await;
    let took = started.elapsed();
    assert!(result.is_error, "{result:?}");
    assert_eq!(
        text(&result),
        "the run took longer than 400ms, the time bound of this tool"
    );
    assert!(took < Duration::from_millis(1500), "{took:?}");
    tokio::time::sleep(Duration::from_millis(2500)).await;
    assert_eq!(
        DAWDLES_DONE.load(Ordering::SeqCst),
        dawdles_before,
        "the call in flight was dropped, not finished"
    );
    assert_eq!(script.requests().len(), 1, "no request after the deadline");
    server.stop().await;
}

#[tokio::test]
async fn the_deadline_bounds_the_requests_for_a_typed_answer_too() {
    let script = ScriptedModel::new([
        Reply::text("It looks fine."),
        Reply::text(r#"{"ok": true}"#).after(Duration::from_secs(2)),
    ]);
    let (server, _model) = start(&script).await;

    let started = Instant::now();
    let result = call(&server, "hurried_verdict").await;
    let took = started.elapsed();
    assert!(result.is_error, "{result:?}");
    assert_eq!(
        text(&result),
        "the run took longer than 400ms, the time bound of this tool"
    );
    // What it spent is said, `null`: the scripted model has no known price.
    assert_eq!(
        report(&result),
        json!({"stop": "deadline", "cost_usd": null})
    );
    assert!(took < Duration::from_millis(1500), "{took:?}");
    assert_eq!(
        script.requests().len(),
        2,
        "the answer, then the one for JSON"
    );
    server.stop().await;
}

#[tokio::test]
async fn the_partial_policy_returns_the_work_done_before_the_deadline() {
    let script = ScriptedModel::new([
        Reply::call("note", json!({"text": "before the deadline"})),
        Reply::calls([("dawdle", json!({}))]),
    ]);
    let (server, _model) = start(&script).await;

    let result = call(&server, "hurried_partial").await;
    assert!(!result.is_error, "{result:?}");
    let mut report = report(&result);
    let first_token = report.as_object_mut().unwrap().remove("first_token_ms");
    assert!(first_token.unwrap().is_u64(), "the first answer was timed");
    assert_eq!(
        report,
        json!({"stop": "deadline", "turns": 2, "partial": true,
               "usage": {"input_tokens": 20, "output_tokens": 10}, "model": "scripted",
               "cost_usd": null}),
        "two answers came back, the second one's call was running at the deadline"
    );
    assert_eq!(
        text(&result),
        "[partial: the run stopped at its deadline bound]\n\n\
         Tool results so far:\n- note: noted before the deadline"
    );
    server.stop().await;
}

#[tokio::test]
async fn the_budget_is_checked_before_each_request() {
    // Each scripted answer reports 10 input and 5 output tokens: two requests use the 30.
    let script = ScriptedModel::from_fn(|_| Reply::call("note", json!({"text": "budget"})));
    let (server, _model) = start(&script).await;

    let result = call(&server, "thrifty").await;
    assert!(result.is_error, "{result:?}");
    assert_eq!(report(&result), json!({"stop": "budget", "cost_usd": null}));
    assert_eq!(
        text(&result),
        "the run used 30 tokens, and the budget of this tool is 30"
    );
    assert_eq!(script.requests().len(), 2);
    server.stop().await;
}

#[tokio::test]
async fn at_the_budget_the_answer_policy_asks_once_more_with_tools_refused() {
    let script = ScriptedModel::from_fn(|request| {
        if request.tool_choice().is_some() {
            Reply::text("Here is what I have.")
        } else {
            Reply::call("note", json!({"text": "budget answer"}))
        }
    });
    let (server, _model) = start(&script).await;

    let result = call(&server, "thrifty_answer").await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(text(&result), "Here is what I have.");
    let requests = script.requests();
    assert_eq!(requests.len(), 3, "two within the budget, one to answer");
    assert_eq!(requests[2].tool_choice(), Some(&json!("none")));
    server.stop().await;
}

#[tokio::test]
async fn a_model_that_repeats_a_call_is_told_once_then_stopped_as_stuck() {
    let script = ScriptedModel::from_fn(|_| Reply::call("note", json!({"text": "again"})));
    let (server, _model) = start(&script).await;

    let result = call(&server, "patient").await;
    assert!(result.is_error, "{result:?}");
    assert_eq!(
        text(&result),
        "the model was stuck: it kept calling `note` with the same arguments"
    );
    let requests = script.requests();
    assert_eq!(requests.len(), 4, "two calls run, one refused, then stuck");
    assert_eq!(notes_of("again"), 2, "the refused call never ran");
    let told = requests[3].tool_results();
    assert!(
        told[2].1.contains("not run: this is call 3 of `note`"),
        "{told:?}"
    );
    server.stop().await;
}

#[tokio::test]
async fn the_same_arguments_in_another_order_are_a_repeat() {
    let script = ScriptedModel::new([
        Reply::raw_call("note", r#"{"text": "order"}"#),
        Reply::raw_call("note", r#"{ "text":"order" }"#),
        Reply::raw_call("note", r#"{"text":"order"}"#),
        Reply::text("I will stop."),
    ]);
    let (server, _model) = start(&script).await;

    let result = call(&server, "patient").await;
    assert_eq!(
        text(&result),
        "I will stop.",
        "told once, the model answered"
    );
    assert_eq!(notes_of("order"), 2);
    server.stop().await;
}

#[tokio::test]
async fn at_the_turn_bound_the_partial_policy_keeps_the_text_and_every_result() {
    let script = ScriptedModel::new([
        Reply::call("note", json!({"text": "one"})),
        Reply::call("note", json!({"text": "two"})).with_text("Two of three done."),
    ]);
    let (server, _model) = start(&script).await;

    let result = call(&server, "brief_partial").await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(
        text(&result),
        "[partial: the run stopped at its turns bound]\n\nTwo of three done.\n\n\
         Tool results so far:\n- note: noted one\n- note: noted two"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_nested_run_counts_its_tokens_into_its_callers_budget() {
    let script = ScriptedModel::from_fn(|request| {
        let brief = request.first_user_text().unwrap_or_default();
        if brief.starts_with("W:") {
            return Reply::text("worked").with_usage(100, 50);
        }
        if request.tool_results().is_empty() {
            Reply::call("worker", json!({"task": "the work"}))
        } else {
            Reply::text("managed")
        }
    });
    let (server, _model) = start(&script).await;

    let result = call(&server, "manager").await;
    assert!(result.is_error, "{result:?}");
    assert_eq!(
        text(&result),
        "the run used 165 tokens, and the budget of this tool is 100",
        "15 of the manager's own and 150 of the worker's"
    );
    assert_eq!(
        script.requests().len(),
        2,
        "the manager's first, the worker's"
    );
    server.stop().await;
}
