//! An orchestrator's answer as it streams, through the real MCP path: a neva server, its MCP
//! client asking for log messages, and the scripted model writing slowly behind real HTTP. The
//! text reaches the caller a few lines a second, before the result; a deadline or a caller that
//! gives up in the middle of an answer stops reading it and runs none of its calls; the report
//! times the first token.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use common::{Server, text};
use ladoga::testing::{Reply, ScriptedModel, ScriptedServer};
use ladoga::{REPORT_KEY, STREAM_LOGGER, orchestrator};
use neva::prelude::*;
use neva::types::notification::Notification;
use serde_json::{Value, json};

static NOTES: AtomicUsize = AtomicUsize::new(0);

#[tool(descr = "Notes something down")]
async fn note(text: String) -> String {
    NOTES.fetch_add(1, Ordering::SeqCst);
    format!("noted: {text}")
}

/// Writes a story, streaming it.
#[orchestrator(stream = "200ms", exclude = ["note"])]
async fn storyteller(topic: String) -> String {
    format!("Tell a story about {topic}.")
}

/// Notes things down within a second, streaming what it writes.
#[orchestrator(stream = true, timeout = "1s")]
async fn hurried(task: String) -> String {
    task
}

/// Notes things down, taking its time, streaming what it writes.
#[orchestrator(stream = true)]
async fn patient(task: String) -> String {
    task
}

/// Writes a story without streaming it.
#[orchestrator(exclude = ["note"])]
async fn quiet(topic: String) -> String {
    topic
}

/// A log line the caller got: when, from which logger, saying what.
#[derive(Debug, Clone)]
// Read by the tests of the MCP 2026-07-28 build only, where the caller gets log lines.
#[cfg_attr(feature = "legacy-spec", allow(dead_code))]
struct Line {
    at: Instant,
    logger: String,
    text: String,
}

/// Log lines a client got, in order.
#[derive(Clone, Default)]
struct Lines(Arc<Mutex<Vec<Line>>>);

impl Lines {
    /// The text of the lines from `logger`, with when each came.
    fn from(&self, logger: &str) -> Vec<Line> {
        let lines = self.0.lock().unwrap();
        lines
            .iter()
            .filter(|line| line.logger == logger)
            .cloned()
            .collect()
    }
}

/// A story of `words` words.
fn story(words: usize) -> String {
    (1..=words)
        .map(|word| format!("word{word}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// What a test runs on: the scripted model's HTTP server, the neva server, and its client.
struct Running {
    _model: ScriptedServer,
    server: Server,
    client: Client,
    lines: Lines,
}

impl Running {
    /// Calls `tool` with the one argument `name` = `value`.
    async fn call(
        &self,
        tool: &str,
        (name, value): (&str, &str),
    ) -> Result<CallToolResponse, Error> {
        self.client.tools().call(tool, [(name, value)]).await
    }

    /// Disconnects the client, then stops the server.
    async fn stop(self) {
        drop(self.client);
        self.server.stop().await;
    }
}

/// Sends the orchestrators' lines to the MCP caller that asked for them, as a server does with
/// neva's layer (see the `board` example): once for the whole test binary.
fn send_log_lines_to_callers() {
    use tracing_subscriber::filter::filter_fn;
    use tracing_subscriber::prelude::*;

    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let for_caller = filter_fn(|event| {
            event.is_span()
                || (event.target() == "ladoga" && *event.level() <= tracing::Level::INFO)
        });
        tracing_subscriber::registry()
            .with(neva::types::notification::fmt::layer().with_filter(for_caller))
            .init();
    });
}

/// A server with the scripted model behind HTTP, and a client that asks for `info` log
/// messages (under MCP 2026-07-28, where a request asks for them) and keeps them; its requests
/// time out after `timeout`.
async fn start(script: &ScriptedModel, timeout: Duration) -> Running {
    send_log_lines_to_callers();
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model())).await;
    let lines = Lines::default();
    let kept = lines.clone();
    let addr = server.addr;
    #[allow(deprecated)] // request-scoped logging, which MCP 2026-07-28 marks deprecated
    let mut client = Client::new().with_options(|opt| {
        let opt = opt
            .with_http(|http| http.bind(addr.to_string()).with_endpoint("/mcp"))
            .with_timeout(timeout);
        #[cfg(not(feature = "legacy-spec"))]
        let opt = opt.with_log_level(neva::types::notification::LoggingLevel::Info);
        opt
    });
    client.connect().await.expect("connects");
    // After `connect`, which puts its own handler of log messages in place.
    client.subscribe(
        "notifications/message",
        move |notification: Notification| {
            let kept = kept.clone();
            async move {
                let params = notification.params.unwrap_or_default();
                kept.0.lock().unwrap().push(Line {
                    at: Instant::now(),
                    logger: params["logger"].as_str().unwrap_or_default().to_owned(),
                    text: params["data"]["message"]
                        .as_str()
                        .unwrap_or_default()
                        .to_owned(),
                });
            }
        },
    );
    Running {
        _model: model,
        server,
        client,
        lines,
    }
}

/// The run's report in a result's `_meta`.
fn report(result: &CallToolResponse) -> Value {
    let block = serde_json::to_value(&result.content[0]).unwrap();
    block["_meta"][REPORT_KEY].clone()
}

/// The log lines come with the request under MCP 2026-07-28; the `legacy-spec` build's log lines
/// are checked with the official clients of that generation (`tests/legacy_clients.rs`).
#[cfg(not(feature = "legacy-spec"))]
#[tokio::test]
async fn the_answer_reaches_the_caller_a_few_lines_a_second_while_the_model_writes_it() {
    // 30 words, 40 ms apart: some 1.2 s of writing.
    let written = story(30);
    let script =
        ScriptedModel::new([Reply::text(written.clone()).streamed(Duration::from_millis(40))]);
    let running = start(&script, Duration::from_secs(30)).await;

    let result = running
        .call("storyteller", ("topic", "a lighthouse"))
        .await
        .expect("tools/call");
    let answered = Instant::now();
    assert_eq!(text(&result), written, "the result is the whole answer");

    let streamed = running.lines.from(STREAM_LOGGER);
    let joined: String = streamed.iter().map(|line| line.text.as_str()).collect();
    assert_eq!(joined, written, "every piece of the text, once, in order");
    assert!(
        (4..=8).contains(&streamed.len()),
        "about one line each 200 ms of 1.2 s, never one per word: {streamed:#?}"
    );
    eprintln!(
        "{} lines; the first {:?} before the result",
        streamed.len(),
        answered.duration_since(streamed[0].at)
    );
    for pair in streamed.windows(2) {
        let gap = pair[1].at.duration_since(pair[0].at);
        // The last line comes when the answer is whole, whenever that is.
        if !std::ptr::eq(&pair[1], streamed.last().unwrap()) {
            assert!(gap >= Duration::from_millis(150), "{gap:?}: {streamed:#?}");
        }
    }
    assert!(
        answered.duration_since(streamed[0].at) >= Duration::from_millis(700),
        "the first line came while the model was still writing"
    );
    assert!(
        report(&result)["first_token_ms"].as_u64().unwrap() < 500,
        "{}",
        report(&result)
    );
    running.stop().await;
}

#[tokio::test]
async fn an_orchestrator_that_does_not_stream_sends_no_text_but_still_times_the_first_token() {
    let script =
        ScriptedModel::new([Reply::text("Once upon a time.").after(Duration::from_millis(300))]);
    let running = start(&script, Duration::from_secs(30)).await;

    let result = running
        .call("quiet", ("topic", "a lighthouse"))
        .await
        .expect("tools/call");
    assert_eq!(text(&result), "Once upon a time.");
    assert!(running.lines.from(STREAM_LOGGER).is_empty());
    let first = report(&result)["first_token_ms"].as_u64().unwrap();
    assert!(first >= 300, "the answer began after 300 ms: {first}");
    running.stop().await;
}

/// The model writes a long text, then a call of `note`, 100 ms a word: 3 s in all.
fn slow_call() -> ScriptedModel {
    ScriptedModel::new([Reply::call("note", json!({"text": "never"}))
        .with_text(story(30))
        .streamed(Duration::from_millis(100))])
}

/// After the run stopped in the middle of `script`'s answer: the answer's stream was dropped,
/// nothing more of it was sent, and the call it was writing never ran.
async fn stopped_mid_answer(script: &ScriptedModel, notes_before: usize) {
    let mut abandoned = false;
    for _ in 0..50 {
        if script.streams_abandoned() == 1 {
            abandoned = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(abandoned, "the answer's stream was dropped before its end");
    let sent = script.events_sent();
    assert!(
        sent < 20,
        "the stream stopped near where the run did: {sent} events"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(script.events_sent(), sent, "nothing more was sent");
    assert_eq!(
        NOTES.load(Ordering::SeqCst),
        notes_before,
        "no call of a half-written answer ran"
    );
}

#[tokio::test]
async fn a_deadline_in_the_middle_of_an_answer_stops_reading_it_and_runs_none_of_its_calls() {
    let script = slow_call();
    let running = start(&script, Duration::from_secs(30)).await;
    let notes_before = NOTES.load(Ordering::SeqCst);

    let result = running
        .call("hurried", ("task", "note it"))
        .await
        .expect("tools/call");
    assert!(result.is_error, "{result:?}");
    assert!(text(&result).contains("time"), "{}", text(&result));
    stopped_mid_answer(&script, notes_before).await;
    #[cfg(not(feature = "legacy-spec"))]
    assert!(
        !running.lines.from(STREAM_LOGGER).is_empty(),
        "the text written before the deadline streamed"
    );
    running.stop().await;
}

#[tokio::test]
async fn a_caller_that_gives_up_in_the_middle_of_an_answer_stops_its_stream() {
    let script = slow_call();
    let running = start(&script, Duration::from_millis(800)).await;
    let notes_before = NOTES.load(Ordering::SeqCst);

    let gave_up = running.call("patient", ("task", "note it")).await;
    assert!(gave_up.is_err(), "the client timed out: {gave_up:?}");
    stopped_mid_answer(&script, notes_before).await;
    running.stop().await;
}
