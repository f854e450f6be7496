//! A long run kept within its context (`context = 20000`) through the real MCP path and the
//! scripted model over HTTP: fifty turns of 10 KB results, the notes and the summary the model
//! reads, the prefix it shares between compactions, and a request refused for its length.

mod common;

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use common::{Server, text};
use ladoga::context::{SUMMARY_HEADING, estimate_tokens};
use ladoga::orchestrator;
use ladoga::testing::{Reply, ScriptedModel, ScriptedServer, SeenRequest};
use neva::prelude::*;
use serde_json::{Value, json};
use tracing::field::{Field, Visit};
use tracing::span::{Id, Record};
use tracing_subscriber::layer::{Context as LayerContext, Layer};
use tracing_subscriber::prelude::*;

const CONTEXT: u64 = 20_000;

#[tool(descr = "Reads one page of the archive")]
async fn read_page(page: u64) -> String {
    let mut text = format!("Page {page}. ");
    while text.len() < 10_000 {
        text.push_str("The archive goes on about the release. ");
    }
    text.truncate(10_000);
    text
}

/// Reads the archive within a bounded context.
#[orchestrator(turns = 60, context = 20000, tools = ["read_page"])]
async fn reader(task: String) -> String {
    task
}

/// Reads the archive within a bounded context, over several calls of one session.
#[orchestrator(turns = 60, context = 20000, session = true, tools = ["read_page"])]
async fn session_reader(task: String) -> String {
    task
}

/// What each span recorded of its compactions: `ladoga.compactions`, `ladoga.compacted_tokens`.
type Compactions = Arc<Mutex<BTreeMap<u64, BTreeMap<String, u64>>>>;

/// Keeps the compaction fields each span records.
struct Recorder(Compactions);

struct Fields<'a>(&'a mut BTreeMap<String, u64>);

impl Visit for Fields<'_> {
    fn record_u64(&mut self, field: &Field, value: u64) {
        if field.name().starts_with("ladoga.compact") {
            self.0.insert(field.name().to_owned(), value);
        }
    }

    fn record_debug(&mut self, _: &Field, _: &dyn std::fmt::Debug) {}
}

impl<S: tracing::Subscriber> Layer<S> for Recorder {
    fn on_record(&self, id: &Id, values: &Record<'_>, _: LayerContext<'_, S>) {
        let mut spans = self.0.lock().unwrap();
        values.record(&mut Fields(spans.entry(id.into_u64()).or_default()));
    }
}

/// The compaction fields of every span of this test binary, recorded by one subscriber.
fn recorded() -> Compactions {
    static SPANS: OnceLock<Compactions> = OnceLock::new();
    SPANS
        .get_or_init(|| {
            let spans = Compactions::default();
            tracing_subscriber::registry()
                .with(Recorder(Arc::clone(&spans)))
                .init();
            spans
        })
        .clone()
}

/// Whether `seen` is a request for a summary, not one of the run's turns.
fn asks_for_summary(seen: &SeenRequest) -> bool {
    seen.tool_names().is_empty()
        && (seen.first_user_text()).is_some_and(|text| text.starts_with("The task:"))
}

/// The request's size in bytes, as it went on the wire.
fn bytes(seen: &SeenRequest) -> usize {
    seen.body().to_string().len()
}

/// `reply`, with the usage of a provider that counts a token every four bytes it reads.
fn counted(reply: Reply, seen: &SeenRequest, written: usize) -> Reply {
    reply.with_usage(bytes(seen) as u64 / 4, written as u64 / 4 + 8)
}

/// A model that reads `pages` pages, one a turn, thinking aloud for a kilobyte each time, then
/// answers; it summarises when asked to. `refuse` says which of its turns it refuses for their
/// length.
fn reading(pages: usize, refuse: impl Fn(usize) -> bool + Send + Sync + 'static) -> ScriptedModel {
    answering(move |turn| turn > pages, refuse)
}

/// [`reading`], answering at the turns `answers` says, reading a page at the others.
fn answering(
    answers: impl Fn(usize) -> bool + Send + Sync + 'static,
    refuse: impl Fn(usize) -> bool + Send + Sync + 'static,
) -> ScriptedModel {
    let turns = Arc::new(AtomicUsize::new(0));
    let summaries = Arc::new(AtomicUsize::new(0));
    ScriptedModel::from_fn(move |seen| {
        if asks_for_summary(seen) {
            let n = summaries.fetch_add(1, Ordering::SeqCst) + 1;
            let summary = format!("SUMMARY-{n}: the pages read so far all speak of the release.");
            return counted(Reply::text(&summary), seen, summary.len());
        }
        let turn = turns.fetch_add(1, Ordering::SeqCst) + 1;
        if refuse(turn) {
            return Reply::context_length_exceeded();
        }
        if answers(turn) {
            return counted(Reply::text("The archive is about the release."), seen, 40);
        }
        let thought = format!("Page {turn} next. {}", "I weigh what I read. ".repeat(50));
        let call = Reply::call("read_page", json!({ "page": turn })).with_text(&thought);
        counted(call, seen, thought.len() + 40)
    })
}

async fn start(script: &ScriptedModel) -> (Server, ScriptedServer) {
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model())).await;
    (server, model)
}

async fn call(server: &Server) -> CallToolResponse {
    let client = server.client().await;
    (client.tools())
        .call("reader", [("task", "Read the archive, page by page.")])
        .await
        .expect("tools/call")
}

/// The run's report in the result's `_meta`.
fn report(result: &CallToolResponse) -> Value {
    let meta = result.content[0].as_text().unwrap().meta.clone().unwrap();
    meta[ladoga::REPORT_KEY].clone()
}

/// The text of every message of `seen`, in order, as the model read it.
fn contents(seen: &SeenRequest) -> Vec<String> {
    (seen.messages().iter())
        .map(|message| message["content"].to_string())
        .collect()
}

#[tokio::test]
async fn fifty_turns_of_ten_kilobytes_stay_within_the_context() {
    let spans = recorded();
    let script = reading(50, |_| false);
    let (server, _model) = start(&script).await;

    let result = call(&server).await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(text(&result), "The archive is about the release.");
    let seen = script.requests();
    let (summaries, turns): (Vec<_>, Vec<_>) = seen.iter().partition(|seen| asks_for_summary(seen));
    assert_eq!(turns.len(), 51, "fifty pages read, then the answer");

    // Every request is within the bound: by the run's own estimate of it, and by its size on
    // the wire, four bytes a token (the counting of the scripted provider).
    let largest = seen.iter().map(bytes).max().unwrap();
    for request in &seen {
        let body = request.body().to_string();
        assert!(
            estimate_tokens(&body) <= CONTEXT,
            "{} tokens",
            estimate_tokens(&body)
        );
        assert!(body.len() as u64 <= 4 * CONTEXT, "{} bytes", body.len());
    }
    // Without the bound, the last request would carry fifty results: half a megabyte.
    assert!(largest < 80_000 && largest > 40_000, "{largest} bytes");

    // The model read the notes of the cleared results, and the summary of the oldest turns.
    let note = "[read_page's result, 10,000 characters, cleared]";
    assert!(
        turns
            .iter()
            .any(|seen| seen.tool_results().iter().any(|(_, result)| result == note)),
        "a note was seen"
    );
    let summarised = turns.iter().position(|seen| {
        (seen.messages().iter()).any(|message| {
            message["role"] == "user"
                && message["content"].as_str().is_some_and(|text| {
                    text.starts_with(SUMMARY_HEADING) && text.contains("SUMMARY-1")
                })
        })
    });
    assert!(summarised.is_some(), "the summary was seen");
    assert!(!summaries.is_empty(), "the oldest turns were summarised");
    // The brief is never compacted: every request opens with the task.
    for seen in &turns {
        assert_eq!(
            seen.first_user_text().as_deref(),
            Some("Read the archive, page by page.")
        );
    }

    // Between compactions each request only adds to the one before: the messages it shares
    // with it are the same, byte for byte. A compaction changes them, and is reported.
    let mut changed = 0;
    for pair in turns.windows(2) {
        let (before, after) = (contents(pair[0]), contents(pair[1]));
        if !after.starts_with(&before) {
            changed += 1;
        }
    }
    let compacted = &report(&result)["compacted"];
    assert_eq!(compacted["times"], json!(changed), "{compacted}");
    assert!(
        (3..=17).contains(&changed),
        "{changed} compactions in 50 turns"
    );
    assert!(compacted["cleared"].as_u64().unwrap() >= 40, "{compacted}");
    assert_eq!(
        compacted["summaries"],
        json!(summaries.len()),
        "{compacted}"
    );
    assert!(
        compacted["removed_tokens"].as_u64().unwrap() > 100_000,
        "{compacted}"
    );
    // The run's span says the same.
    let span = BTreeMap::from([
        (
            "ladoga.compacted_tokens".to_owned(),
            compacted["removed_tokens"].as_u64().unwrap(),
        ),
        ("ladoga.compactions".to_owned(), changed as u64),
    ]);
    assert!(
        spans.lock().unwrap().values().any(|fields| *fields == span),
        "{span:?}"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_request_refused_for_its_length_is_compacted_and_sent_once_more() {
    // The fourth turn is refused, once.
    let script = reading(4, |turn| turn == 4);
    let (server, _model) = start(&script).await;

    let result = call(&server).await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(text(&result), "The archive is about the release.");
    let seen = script.requests();
    let turns: Vec<_> = seen.iter().filter(|seen| !asks_for_summary(seen)).collect();
    // Read three pages, refused, the same compacted and answered.
    assert_eq!(turns.len(), 5);
    let (refused, retried) = (turns[3], turns[4]);
    assert!(
        bytes(retried) * 2 <= bytes(refused),
        "{} bytes, then {}",
        bytes(refused),
        bytes(retried)
    );
    let note = "[read_page's result, 10,000 characters, cleared]";
    let results: Vec<_> = retried
        .tool_results()
        .into_iter()
        .map(|(_, result)| result)
        .collect();
    assert_eq!(results[..2], [note, note], "the oldest two results cleared");
    assert!(
        results[2].starts_with("Page 3. "),
        "the last one, still to be read, kept"
    );
    assert_eq!(report(&result)["compacted"]["times"], json!(1));
    server.stop().await;
}

#[tokio::test]
async fn a_second_refusal_is_a_clear_tool_error() {
    let script = reading(3, |turn| turn >= 3);
    let (server, _model) = start(&script).await;

    let result = call(&server).await;
    assert!(result.is_error, "{result:?}");
    let told = text(&result);
    assert!(
        told.starts_with("the conversation does not fit in the model's context, even compacted"),
        "{told}"
    );
    assert!(
        told.contains("this tool's `context` bound must be well under the model's window"),
        "{told}"
    );
    let turns = script
        .requests()
        .into_iter()
        .filter(|seen| !asks_for_summary(seen));
    assert_eq!(
        turns.count(),
        4,
        "refused once, and once more compacted: never a third time"
    );
    server.stop().await;
}

/// The texts of the messages `seen` sent, but the tool results.
fn said(seen: &SeenRequest) -> Vec<String> {
    (seen.messages().iter())
        .filter(|message| message["role"] != "tool")
        .map(|message| message["content"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test]
async fn a_session_stays_within_the_context_its_earlier_calls_summarised_first() {
    // Thirty pages in each of two calls of one session: the answers at turns 31 and 62.
    let script = answering(|turn| turn == 31 || turn == 62, |_| false);
    let (server, _model) = start(&script).await;
    let client = server.client().await;
    let first = (client.tools())
        .call(
            "session_reader",
            [("task", "Read the archive, page by page.")],
        )
        .await
        .expect("tools/call");
    assert!(!first.is_error, "{first:?}");
    let block = serde_json::to_value(&first.content[0]).unwrap();
    let session = block["_meta"][ladoga::REPORT_KEY]["session"]
        .as_str()
        .unwrap()
        .to_owned();
    let calls_before = script.requests().len();
    let second = (client.tools())
        .call(
            "session_reader",
            [("task", "Go on reading."), ("session", session.as_str())],
        )
        .await
        .expect("tools/call");
    assert!(!second.is_error, "{second:?}");

    let seen = script.requests();
    for request in &seen {
        assert!(
            bytes(request) as u64 <= 4 * CONTEXT,
            "{} bytes",
            bytes(request)
        );
    }
    let turns: Vec<_> = seen[calls_before..]
        .iter()
        .filter(|seen| !asks_for_summary(seen))
        .collect();
    // The second call goes on from the first: its brief follows the first call's conversation.
    let opening = said(turns[0]);
    assert_eq!(opening[0], "Read the archive, page by page.");
    assert!(
        opening.contains(&"Go on reading.".to_owned()),
        "{opening:?}"
    );
    // Then the first call's conversation, the oldest, is summarised before this call's turns:
    // one summary first, this call's brief right after it.
    let last = said(turns.last().unwrap());
    assert!(last[0].starts_with(SUMMARY_HEADING), "{:?}", &last[..2]);
    assert_eq!(last[1], "Go on reading.");
    server.stop().await;
}

/// Reads ten pages at once, within a bounded context.
#[orchestrator(turns = 4, context = 20000, tools = ["read_page"])]
async fn wide_reader(task: String) -> String {
    task
}

#[tokio::test]
async fn ten_results_of_one_turn_past_the_context_are_cut_to_fit_and_reported() {
    let script = ScriptedModel::from_fn(|seen| {
        if seen.tool_results().is_empty() {
            let pages = (1..=10).map(|page| ("read_page", json!({ "page": page })));
            return counted(Reply::calls(pages), seen, 200);
        }
        counted(Reply::text("Ten pages read."), seen, 20)
    });
    let (server, _model) = start(&script).await;
    let client = server.client().await;
    let result = (client.tools())
        .call("wide_reader", [("task", "Read ten pages at once.")])
        .await
        .expect("tools/call");
    assert!(!result.is_error, "{result:?}");
    assert_eq!(text(&result), "Ten pages read.");

    let seen = script.requests();
    let last = seen.last().unwrap();
    let body = last.body().to_string();
    // Without the last tier: ten results of 10,000 characters, about 25,000 tokens.
    assert!(
        estimate_tokens(&body) <= CONTEXT,
        "{} tokens",
        estimate_tokens(&body)
    );
    let results = last.tool_results();
    assert_eq!(results.len(), 10, "every call still has its result");
    for (_, told) in &results {
        assert!(told.starts_with("Page "), "{told}");
        assert!(told.contains("cut to fit the context"), "{told}");
    }
    let compacted = &report(&result)["compacted"];
    assert_eq!(compacted["cut"], json!(10), "{compacted}");
    server.stop().await;
}

#[tool(descr = "Wipes the archive clean")]
async fn wipe_archive() -> String {
    "the archive is wiped".to_owned()
}

/// Reads the archive within a bounded context, asking before it wipes it.
#[orchestrator(turns = 60, context = 20000, approve = ["wipe_archive"])]
async fn careful_reader(task: String) -> String {
    task
}

#[tokio::test]
async fn compactions_before_an_approval_are_counted_with_those_after_it() {
    let turns = Arc::new(AtomicUsize::new(0));
    let script = ScriptedModel::from_fn(move |seen| {
        if asks_for_summary(seen) {
            let summary = "SUMMARY: the pages read so far all speak of the release.";
            return counted(Reply::text(summary), seen, summary.len());
        }
        let turn = turns.fetch_add(1, Ordering::SeqCst) + 1;
        let reply = match turn {
            16 => Reply::call("wipe_archive", json!({})),
            32.. => Reply::text("Read, and wiped."),
            page => {
                let thought = format!("Page {page} next. {}", "I weigh it. ".repeat(80));
                Reply::call("read_page", json!({ "page": page })).with_text(&thought)
            }
        };
        counted(reply, seen, 1_000)
    });
    let (server, _model) = start(&script).await;
    let mut client = common::client_for(server.addr);
    client.map_elicitation(|_: neva::types::elicitation::ElicitRequestParams| async {
        neva::types::elicitation::ElicitResult::accept()
    });
    client.connect().await.expect("connects");

    let result = (client.tools())
        .call(
            "careful_reader",
            [("task", "Read the archive, then wipe it.")],
        )
        .await
        .expect("tools/call");
    assert!(!result.is_error, "{result:?}");
    assert_eq!(text(&result), "Read, and wiped.");

    let seen = script.requests();
    let turns: Vec<&SeenRequest> = seen.iter().filter(|seen| !asks_for_summary(seen)).collect();
    let approved = (turns.iter())
        .position(|seen| (seen.tool_results().iter()).any(|(_, told)| told.contains("wiped")))
        .expect("the wipe's result was read");
    let changed_at: Vec<usize> = (1..turns.len())
        .filter(|&at| !contents(turns[at]).starts_with(&contents(turns[at - 1])))
        .collect();
    assert!(
        changed_at.iter().any(|&at| at < approved) && changed_at.iter().any(|&at| at > approved),
        "compacted before the approval and after it: {changed_at:?}, approved at {approved}"
    );
    let compacted = &report(&result)["compacted"];
    assert_eq!(compacted["times"], json!(changed_at.len()), "{compacted}");
    drop(client);
    server.stop().await;
}
