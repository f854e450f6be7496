//! Faults of the model server, the model's answers and the tools, each through the real MCP
//! path: what the caller gets, what the model is told, and that the server keeps serving.

mod common;

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::{Server, text};
use ladoga::orchestrator;
use ladoga::testing::{Reply, ScriptedModel};
use neva::prelude::*;
use serde_json::json;

/// Every note written, so that a test can tell whether its own note ran while the others run
/// beside it.
static NOTES: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn written(text: &str) -> bool {
    NOTES.lock().unwrap().iter().any(|note| note == text)
}

#[tool(descr = "Writes a note")]
async fn write_note(text: String) -> String {
    NOTES.lock().unwrap().push(text.clone());
    format!("noted: {text}")
}

static WAITS: AtomicUsize = AtomicUsize::new(0);

#[tool(descr = "Takes a while")]
async fn wait() -> String {
    WAITS.fetch_add(1, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_millis(200)).await;
    "waited".to_owned()
}

static LINGERS: AtomicUsize = AtomicUsize::new(0);
static LINGERED: AtomicUsize = AtomicUsize::new(0);

#[tool(descr = "Lingers a second")]
async fn linger() -> String {
    LINGERS.fetch_add(1, Ordering::SeqCst);
    tokio::time::sleep(Duration::from_secs(1)).await;
    LINGERED.fetch_add(1, Ordering::SeqCst);
    "lingered".to_owned()
}

#[tool(descr = "Always breaks")]
async fn broken() -> String {
    panic!("the broken tool broke")
}

#[tool(descr = "Returns ten megabytes")]
async fn huge() -> String {
    "x".repeat(10 * 1024 * 1024)
}

/// Works with the notes.
#[orchestrator]
async fn assistant(task: String) -> String {
    task
}

/// Sends the model at most 100 characters of a result.
#[orchestrator(max_result = 100)]
async fn terse(task: String) -> String {
    task
}

/// Calls `assistant` with `task`.
async fn ask_assistant(client: &Client, task: &str) -> CallToolResponse {
    client
        .tools()
        .call("assistant", [("task", task)])
        .await
        .expect("tools/call")
}

async fn start(script: &ScriptedModel) -> (Server, ladoga::testing::ScriptedServer) {
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model())).await;
    (server, model)
}

#[tokio::test]
async fn a_tool_that_panics_is_an_error_result_and_the_other_calls_still_answer() {
    let script = ScriptedModel::new([
        Reply::calls([("broken", json!({})), ("write_note", json!({"text": "a"}))]),
        Reply::text("One broke, one wrote."),
        Reply::text("Still here."),
    ]);
    let (server, _model) = start(&script).await;
    let client = server.client().await;

    let result = ask_assistant(&client, "go").await;
    assert_eq!(text(&result), "One broke, one wrote.");
    let told = script.requests()[1].tool_results();
    assert!(told[0].1.starts_with("error"), "{told:?}");
    assert_eq!(told[1].1, "noted: a");

    let again = ask_assistant(&client, "again").await;
    assert_eq!(text(&again), "Still here.", "the server keeps serving");
    server.stop().await;
}

#[tokio::test]
async fn a_huge_tool_result_is_cut_before_it_reaches_the_model_and_the_model_is_told() {
    let script = ScriptedModel::new([Reply::call("huge", json!({})), Reply::text("Too long.")]);
    let (server, _model) = start(&script).await;
    let client = server.client().await;

    let result = ask_assistant(&client, "go").await;
    assert_eq!(text(&result), "Too long.");
    let told = &script.requests()[1].tool_results()[0].1;
    let limit = ladoga::DEFAULT_MAX_RESULT;
    assert!(
        told.len() < limit + 200,
        "{} characters reached the model",
        told.len()
    );
    assert!(told.starts_with(&"x".repeat(1000)));
    assert!(told.contains("cut"), "{}", &told[told.len() - 200..]);
    server.stop().await;
}

#[tokio::test]
async fn max_result_sets_how_much_of_a_result_reaches_the_model() {
    let script = ScriptedModel::new([Reply::call("huge", json!({})), Reply::text("Cut.")]);
    let (server, _model) = start(&script).await;
    let client = server.client().await;

    let result = client
        .tools()
        .call("terse", [("task", "go")])
        .await
        .unwrap();
    assert_eq!(text(&result), "Cut.");
    let told = &script.requests()[1].tool_results()[0].1;
    assert!(
        told.starts_with(&format!("{}\n[cut: ", "x".repeat(100))),
        "{told}"
    );
    assert!(told.ends_with("only the first 100 are shown]"), "{told}");
    server.stop().await;
}

#[tokio::test]
async fn a_rate_limited_request_is_retried_after_the_servers_delay() {
    let script = ScriptedModel::new([
        Reply::rate_limited(Duration::from_secs(1)),
        Reply::text("Answered after waiting."),
    ]);
    let (server, _model) = start(&script).await;
    let client = server.client().await;

    let started = Instant::now();
    let result = ask_assistant(&client, "go").await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(text(&result), "Answered after waiting.");
    assert_eq!(script.requests().len(), 2);
    assert!(
        started.elapsed() >= Duration::from_secs(1),
        "{:?}",
        started.elapsed()
    );
    server.stop().await;
}

#[tokio::test]
async fn rate_limiting_that_lasts_is_a_tool_error_after_the_retries() {
    let script = ScriptedModel::from_fn(|_| Reply::rate_limited(Duration::from_millis(10)));
    let (server, _model) = start(&script).await;
    let client = server.client().await;

    let result = ask_assistant(&client, "go").await;
    assert!(result.is_error, "{result:?}");
    assert!(text(&result).contains("rate limiting"), "{}", text(&result));
    assert_eq!(
        script.requests().len(),
        1 + ladoga::DEFAULT_RETRIES as usize,
        "the first try and the retries"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_model_that_stalls_past_the_first_token_timeout_is_a_tool_error_naming_it() {
    let script = ScriptedModel::new([
        Reply::text("Too late.").after(Duration::from_secs(3)),
        Reply::text("In time."),
    ]);
    let served = script.serve().await.expect("serves");
    let model = served
        .model()
        .with_first_token_timeout(Duration::from_millis(300));
    let server = Server::start(App::new().add_singleton(model)).await;
    let client = server.client().await;

    let started = Instant::now();
    let result = ask_assistant(&client, "go").await;
    assert!(result.is_error, "{result:?}");
    let told = text(&result);
    assert!(told.contains("did not answer in time"), "{told}");
    assert!(told.contains("within 300ms"), "{told}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );

    let again = ask_assistant(&client, "again").await;
    assert_eq!(text(&again), "In time.", "the server keeps serving");
    server.stop().await;
}

#[tokio::test]
async fn an_answer_stream_cut_before_done_is_a_tool_error_and_none_of_its_calls_run() {
    let script = ScriptedModel::new([
        Reply::call("write_note", json!({"text": "cut"})).cut(),
        Reply::text("Recovered."),
    ]);
    let (server, _model) = start(&script).await;
    let client = server.client().await;

    let result = ask_assistant(&client, "go").await;
    assert!(result.is_error, "{result:?} after {:#?}", script.requests());
    assert!(text(&result).contains("stream ended"), "{}", text(&result));
    assert!(!written("cut"), "the call of the cut answer never ran");

    let again = ask_assistant(&client, "again").await;
    assert_eq!(text(&again), "Recovered.", "the server keeps serving");
    server.stop().await;
}

#[tokio::test]
async fn a_stream_that_stalls_after_its_first_event_is_a_tool_error_and_its_call_never_runs() {
    let script = ScriptedModel::new([
        Reply::call("write_note", json!({"text": "stalled"})).stall(Duration::from_secs(3)),
        Reply::text("Flowing again."),
    ]);
    let served = script.serve().await.expect("serves");
    let client = svir::Client::openai(served.url())
        .idle_timeout(Duration::from_millis(300))
        .build()
        .expect("a loopback URL");
    let model = ladoga::Model::new(client, ladoga::CompletionModel::name(&served.model()));
    let server = Server::start(App::new().add_singleton(model)).await;
    let client = server.client().await;

    let started = Instant::now();
    let result = ask_assistant(&client, "go").await;
    assert!(result.is_error, "{result:?}");
    let told = text(&result);
    assert!(told.contains("did not answer in time"), "{told}");
    assert!(told.contains("stalled"), "{told}");
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "{:?}",
        started.elapsed()
    );
    assert!(
        !written("stalled"),
        "the call of the stalled answer never ran"
    );

    let again = ask_assistant(&client, "again").await;
    assert_eq!(text(&again), "Flowing again.", "the server keeps serving");
    server.stop().await;
}

/// What the server did after a caller in its own process was killed mid-run, its connection
/// dropped with no cancellation sent: model requests and tool calls made while it ran, then 2.5 s
/// later, and how many `linger` calls had ended by each point.
struct AfterTheCallerDied {
    requests: (usize, usize),
    calls: (usize, usize),
    ended: (usize, usize),
}

/// Kills an `ask` caller while the second call of `linger` runs, and watches for 2.5 s.
async fn kill_the_caller_mid_run() -> AfterTheCallerDied {
    let script = ScriptedModel::from_fn(|_| Reply::call("linger", json!({})));
    let (server, _model) = start(&script).await;
    let mut caller = tokio::process::Command::new(common::exe("ask"))
        .args(["--url", &format!("http://{}/mcp", server.addr)])
        .args(["assistant", "task=forever"])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the ask binary starts");
    let started = Instant::now();
    while LINGERS.load(Ordering::SeqCst) < 2 {
        assert!(
            started.elapsed() < Duration::from_secs(30),
            "the run started"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    caller.kill().await.expect("the caller is killed");
    let at_kill = (
        script.requests().len(),
        LINGERS.load(Ordering::SeqCst),
        LINGERED.load(Ordering::SeqCst),
    );
    tokio::time::sleep(Duration::from_millis(2500)).await;
    let later = (
        script.requests().len(),
        LINGERS.load(Ordering::SeqCst),
        LINGERED.load(Ordering::SeqCst),
    );
    server.stop().await;
    AfterTheCallerDied {
        requests: (at_kill.0, later.0),
        calls: (at_kill.1, later.1),
        ended: (at_kill.2, later.2),
    }
}

/// MCP 2026-07-28: a request whose connection drops is cancelled.
#[cfg(not(feature = "legacy-spec"))]
#[tokio::test]
async fn when_the_caller_drops_its_connection_the_run_and_its_running_call_stop() {
    let seen = kill_the_caller_mid_run().await;
    assert_eq!(seen.ended.0, 1, "the first call ended");
    assert_eq!(
        seen.ended.1, 1,
        "the call running when the caller went away was dropped"
    );
    assert_eq!(
        seen.requests.1, seen.requests.0,
        "no model request after the caller went away"
    );
    assert_eq!(
        seen.calls.1, seen.calls.0,
        "no tool call after the caller went away"
    );
}

/// MCP 2025-11-25 and older: a dropped connection is not a cancellation (only
/// `notifications/cancelled` is), so the run goes on to its bounds.
#[cfg(feature = "legacy-spec")]
#[tokio::test]
async fn when_the_caller_drops_its_connection_without_cancelling_the_run_goes_on() {
    let seen = kill_the_caller_mid_run().await;
    assert_eq!(seen.ended.0, 1, "the first call ended");
    assert!(
        seen.ended.1 >= 2,
        "the call running when the caller went away finished"
    );
    assert!(
        seen.requests.1 > seen.requests.0,
        "the run went on asking the model"
    );
    assert!(seen.calls.1 > seen.calls.0, "the run went on calling tools");
}

#[tokio::test]
async fn when_the_caller_gives_up_the_run_stops_making_requests_and_calls() {
    let script = ScriptedModel::from_fn(|_| Reply::call("wait", json!({})));
    let (server, _model) = start(&script).await;
    let mut client = Client::new().with_options(|opt| {
        opt.with_http(|http| http.bind(server.addr.to_string()).with_endpoint("/mcp"))
            .with_timeout(Duration::from_millis(700))
    });
    client.connect().await.expect("connects");

    let gave_up = client
        .tools()
        .call("assistant", [("task", "forever")])
        .await;
    assert!(gave_up.is_err(), "the client timed out: {gave_up:?}");
    tokio::time::sleep(Duration::from_millis(500)).await;
    let (requests, waits) = (script.requests().len(), WAITS.load(Ordering::SeqCst));
    assert!(requests >= 1, "the run had started");
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(
        script.requests().len(),
        requests,
        "no model request after the caller left"
    );
    assert_eq!(
        WAITS.load(Ordering::SeqCst),
        waits,
        "no tool call after the caller left"
    );
    server.stop().await;
}
