//! A model that misbehaves on purpose, through the real path (a neva server, an MCP client, and
//! svir over HTTP to a scripted model server): whatever it sends, the run ends, and the server
//! goes on serving.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use common::{Server, text};
use ladoga::orchestrator;
use ladoga::testing::{Reply, ScriptedModel};
use neva::prelude::*;
use serde_json::json;

/// The `save` calls of more than 1,000 bytes that ran: none should.
static LONG_SAVES: AtomicUsize = AtomicUsize::new(0);

#[tool(descr = "Saves a note")]
async fn save(text: String) -> String {
    if text.len() > 1000 {
        LONG_SAVES.fetch_add(1, Ordering::SeqCst);
    }
    format!("saved {} bytes", text.len())
}

/// Answers questions about orders.
#[orchestrator(system = "Answer questions about orders.")]
async fn support(question: String) -> String {
    question
}

/// Keeps notes, each call's arguments at most 1 KiB.
#[orchestrator(max_arguments = 1024)]
async fn notes(question: String) -> String {
    question
}

async fn ask(server: &Server, tool: &str, question: &str) -> CallToolResponse {
    let client = server.client().await;
    client
        .tools()
        .call(tool, [("question", question)])
        .await
        .expect("tools/call")
}

#[tokio::test]
async fn an_endless_answer_is_a_clear_tool_error_at_the_response_timeout_and_a_call_beside_it_answers()
 {
    let script = ScriptedModel::from_fn(|seen| match seen.first_user_text().as_deref() {
        Some("hang") => Reply::text("Let me think").endless(Duration::from_millis(20)),
        _ => Reply::text("Order 7 is shipped.").after(Duration::from_millis(200)),
    });
    let served = script.serve().await.expect("serves");
    let model = served
        .model()
        .with_response_timeout(Duration::from_millis(800));
    let server = Server::start(App::new().add_singleton(model)).await;

    let started = Instant::now();
    let (hung, healthy) = tokio::join!(ask(&server, "support", "hang"), async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        ask(&server, "support", "Where is order 7?").await
    });
    let took = started.elapsed();

    assert!(hung.is_error, "{hung:?}");
    let told = text(&hung);
    assert!(told.contains("the model could not answer"), "{told}");
    assert!(told.contains("did not answer in time"), "{told}");
    assert!(told.contains("not whole within 800ms"), "{told}");
    assert!(took < Duration::from_secs(3), "{took:?}");
    assert!(
        script.events_sent() >= 10,
        "empty pieces kept coming, so svir's idle timeout never fired: {}",
        script.events_sent()
    );
    assert!(!healthy.is_error, "{healthy:?}");
    assert_eq!(text(&healthy), "Order 7 is shipped.");

    // The endless answer's connection was closed, not left streaming.
    let closing = Instant::now();
    while script.streams_abandoned() == 0 && closing.elapsed() < Duration::from_secs(2) {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(script.streams_abandoned(), 1);
    server.stop().await;
}

#[tokio::test]
async fn a_ten_megabyte_argument_is_refused_not_run_and_not_sent_again() {
    let huge = json!({"text": "x".repeat(10 * 1024 * 1024)});
    let huge_bytes = huge.to_string().len();
    let script = ScriptedModel::new([
        Reply::calls([("save", huge), ("save", json!({"text": "buy milk"}))]),
        Reply::text("Saved the short note; the long one was too large."),
    ]);
    let served = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(served.model())).await;

    let result = ask(&server, "support", "Save my notes").await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(
        text(&result),
        "Saved the short note; the long one was too large."
    );
    assert_eq!(
        LONG_SAVES.load(Ordering::SeqCst),
        0,
        "the long call did not run"
    );

    let next = &script.requests()[1];
    let sent = next.body().to_string().len();
    assert!(sent < 16 * 1024, "the next request is {sent} bytes");
    let results = next.tool_results();
    assert_eq!(results.len(), 2);
    let (id, refusal) = &results[0];
    assert!(refusal.contains("not run"), "{refusal}");
    assert!(
        refusal.contains(&format!("were {huge_bytes} bytes")),
        "{refusal}"
    );
    assert!(refusal.contains("bound of 65536 bytes"), "{refusal}");
    assert_eq!(
        results[1].1, "saved 8 bytes",
        "the short call beside it ran"
    );
    // The calls stay in the conversation, each paired with its result by id; only the long
    // one's arguments are left out.
    let asked = next
        .messages()
        .iter()
        .find(|message| message["role"] == "assistant")
        .expect("the answer with the calls");
    let calls = asked["tool_calls"].as_array().expect("its calls");
    assert_eq!(calls.len(), 2);
    assert_eq!(calls[0]["id"].as_str(), Some(id.as_str()));
    let left = calls[0]["function"]["arguments"].as_str().unwrap();
    assert_eq!(
        left,
        json!({"ladoga_omitted_bytes": huge_bytes}).to_string()
    );
    assert_eq!(
        calls[1]["function"]["arguments"].as_str(),
        Some(r#"{"text":"buy milk"}"#)
    );
    server.stop().await;
}

#[tokio::test]
async fn max_arguments_sets_the_bound_on_a_calls_arguments() {
    let script = ScriptedModel::new([
        Reply::call("save", json!({"text": "x".repeat(2000)})),
        Reply::text("Too long to save."),
    ]);
    let served = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(served.model())).await;

    let result = ask(&server, "notes", "Save this").await;
    assert_eq!(text(&result), "Too long to save.");
    assert_eq!(LONG_SAVES.load(Ordering::SeqCst), 0, "not run");
    let told = &script.requests()[1].tool_results()[0].1;
    assert!(told.contains("bound of 1024 bytes"), "{told}");
    server.stop().await;
}

/// What a hostile party puts in its text: NUL, BEL, a clear-screen, a window title, a
/// right-to-left override, and a newline that forges a whole log line.
const HOSTILE: &str =
    "\0\u{7}\u{1b}[2J\u{1b}]0;owned\u{7}\u{202e}gnp.exe\nFAKE LOG LINE: admin logged in";

#[tool(descr = "Recalls a note")]
async fn recall(key: String) -> Result<String, neva::error::Error> {
    let message = format!("no note {key}: {HOSTILE}");
    Err(neva::error::Error::new(
        neva::error::ErrorCode::InternalError,
        message,
    ))
}

#[tokio::test]
async fn no_log_line_of_the_board_carries_a_remote_tools_or_the_models_text_raw() {
    // `board` at its default `ladoga=debug`, its log in a file; `recall` on a remote server
    // fails with hostile text, and the model calls it, calls a tool with a hostile name, and
    // answers with hostile text.
    let remote = Server::start(App::new()).await;
    let script = ScriptedModel::from_fn(|seen| match seen.tool_results().len() {
        0 => Reply::calls([
            ("remote_recall", json!({"key": HOSTILE})),
            (&*format!("bogus{HOSTILE}"), json!({})),
        ]),
        _ => Reply::text(format!("Done. {HOSTILE}")),
    });
    let model = script.serve().await.expect("the scripted model serves");
    let log = std::env::temp_dir().join(format!("ladoga-board-log-{}.txt", std::process::id()));
    let file = std::fs::File::create(&log).expect("a log file");
    let url = format!("http://{}/mcp", remote.addr);
    let (mut board, addr) = common::board_at(
        common::free_addr(),
        &model.url(),
        "scripted",
        &["--remote", &url],
        &[("RUST_LOG", "ladoga=debug")],
        std::process::Stdio::from(file),
    )
    .await;
    let mut client = common::client_for(addr);
    client.map_elicitation(|_: neva::types::elicitation::ElicitRequestParams| async {
        neva::types::elicitation::ElicitResult::accept()
    });
    client.connect().await.expect("connects");
    let answer = common::plan_week(&client).await;
    assert!(answer.starts_with("Done."), "{answer}");
    // The model read the remote tool's error and the unknown tool's refusal.
    let results = script.requests()[1].tool_results();
    assert!(results[0].1.contains("FAKE LOG LINE"), "{results:?}");
    client.disconnect().await.expect("disconnects");
    board.kill().await.expect("stops");
    remote.stop().await;

    let written = std::fs::read_to_string(&log).expect("the log");
    let _ = std::fs::remove_file(&log);
    // The lines that carried them, escaped: the result, the refusal and the answer.
    for seen in ["tool call answered", "the answer", "bogus"] {
        assert!(written.contains(seen), "{seen} not logged:\n{written}");
    }
    assert!(written.contains("FAKE LOG LINE"), "{written}");
    for line in written.lines() {
        assert!(
            !line.starts_with("FAKE LOG LINE"),
            "a forged line:\n{written}"
        );
        let raw = line.chars().find(|char| {
            char.is_control() || matches!(char, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
        });
        assert!(raw.is_none(), "{raw:?} raw in the line {line:?}");
    }
}
