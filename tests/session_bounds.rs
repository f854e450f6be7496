//! What callers can leave behind is bounded: sessions per caller and in all, through a real neva
//! server with bearer tokens, its client, and the scripted model behind real HTTP. Past a bound
//! the oldest idle session goes; a call that would start one while every session the bound
//! counts is in use is refused, and a healthy caller beside it still answers.

mod common;

use std::time::Duration;

use common::auth::{client_with, now, token};
use common::{Server, text};
use ladoga::session::SessionBounds;
use ladoga::store::{MemoryRuns, Runs};
use ladoga::testing::{Reply, ScriptedModel};
use ladoga::{REPORT_KEY, orchestrator};
use neva::prelude::*;
use serde_json::json;

/// The secret the servers of this file check tokens with.
const SECRET: &str = "a secret for the session bound tests, 43 b.";

/// Talks it over.
#[orchestrator(session = true)]
async fn chat(say: String) -> String {
    say
}

/// A server whose sessions are kept within `bounds`, its model answering `script`.
async fn server(script: &ladoga::testing::ScriptedServer, bounds: SessionBounds) -> Server {
    let runs = Runs::new(MemoryRuns::default()).with_session_bounds(bounds);
    let app = App::new().add_singleton(script.model()).add_singleton(runs);
    Server::start_guarded(app, SECRET).await
}

/// A client of `server` whose token names `sub`, connected.
async fn caller(server: &Server, sub: &str) -> Client {
    let token = token(SECRET, json!({"sub": sub, "exp": now() + 3600}));
    let mut client = client_with(server.addr, Some(&token));
    client.connect().await.expect("connects");
    client
}

/// `chat` with `say`, going on with `session` if given.
async fn chat_call(client: &Client, say: &str, session: Option<&str>) -> CallToolResponse {
    let mut args = vec![("say", say.to_owned())];
    if let Some(session) = session {
        args.push(("session", session.to_owned()));
    }
    client
        .tools()
        .call("chat", args)
        .await
        .expect("the call answers")
}

/// The session id a result names in its report.
fn session_of(result: &CallToolResponse) -> String {
    let block = serde_json::to_value(&result.content[0]).unwrap();
    block["_meta"][REPORT_KEY]["session"]
        .as_str()
        .unwrap_or_else(|| panic!("a session in the report: {result:?}"))
        .to_owned()
}

/// Whether `result` is the refusal of a session that is gone.
fn is_gone(result: &CallToolResponse) -> bool {
    result.is_error && text(result).contains("no session with that id")
}

#[tokio::test]
async fn past_a_callers_bound_their_oldest_idle_session_goes_and_no_one_elses() {
    let script = ScriptedModel::from_fn(|_| Reply::text("Fine.")).without_log();
    let model = script.serve().await.expect("serves");
    let server = server(&model, SessionBounds::default().per_caller(2)).await;
    let (alice, bob) = (caller(&server, "alice").await, caller(&server, "bob").await);

    let bobs = session_of(&chat_call(&bob, "Bob's.", None).await);
    let first = session_of(&chat_call(&alice, "One.", None).await);
    let second = session_of(&chat_call(&alice, "Two.", None).await);
    // The first is used again, so the second is now the oldest idle one.
    assert!(!chat_call(&alice, "One again.", Some(&first)).await.is_error);
    let third = session_of(&chat_call(&alice, "Three.", None).await);

    assert!(is_gone(&chat_call(&alice, "Two?", Some(&second)).await));
    for kept in [&first, &third] {
        let again = chat_call(&alice, "Still here?", Some(kept)).await;
        assert!(!again.is_error, "{again:?}");
    }
    let theirs = chat_call(&bob, "Still mine?", Some(&bobs)).await;
    assert!(
        !theirs.is_error,
        "another caller's session stays: {theirs:?}"
    );
    drop((alice, bob));
    server.stop().await;
}

#[tokio::test]
async fn when_every_session_a_bound_counts_is_in_use_a_new_one_is_refused_and_nothing_runs() {
    let script = ScriptedModel::from_fn(|request| match request.first_user_text() {
        Some(text) if text.starts_with("Slow") => {
            Reply::text("Slowly.").after(Duration::from_millis(1500))
        }
        _ => Reply::text("At once."),
    });
    let model = script.serve().await.expect("serves");
    let server = server(&model, SessionBounds::default().per_caller(2).total(3)).await;
    let (alice, bob) = (caller(&server, "alice").await, caller(&server, "bob").await);

    let (one, two, (refused, asked, beside)) = tokio::join!(
        chat_call(&alice, "Slow one.", None),
        chat_call(&alice, "Slow two.", None),
        async {
            tokio::time::sleep(Duration::from_millis(400)).await;
            let asked = script.requests().len();
            let refused = chat_call(&alice, "Three now.", None).await;
            let asked = script.requests().len() - asked;
            (refused, asked, chat_call(&bob, "Beside them.", None).await)
        },
    );
    assert!(refused.is_error, "{refused:?}");
    assert!(
        text(&refused).contains("no session can be started now: 2 are kept"),
        "{}",
        text(&refused)
    );
    assert_eq!(asked, 0, "the refused call asked no model");
    assert!(
        !beside.is_error,
        "a healthy caller still answers: {beside:?}"
    );
    for slow in [&one, &two] {
        assert!(!slow.is_error, "{slow:?}");
    }

    // The total bound: three kept, none in use now; Bob's, the oldest idle one, goes for Carol's.
    let carol = caller(&server, "carol").await;
    let carols = chat_call(&carol, "Carol's.", None).await;
    assert!(!carols.is_error, "{carols:?}");
    assert!(is_gone(
        &chat_call(&bob, "Mine?", Some(&session_of(&beside))).await
    ));
    assert!(
        !chat_call(&alice, "Mine?", Some(&session_of(&one)))
            .await
            .is_error
    );
    drop((alice, bob, carol));
    server.stop().await;
}

#[tokio::test]
async fn the_bytes_all_sessions_keep_stay_within_their_bound() {
    let big = "x".repeat(40_000);
    let script = ScriptedModel::from_fn(move |_| Reply::text(big.clone())).without_log();
    let model = script.serve().await.expect("serves");
    // About 40 KB each: room for three, not four.
    let bounds = SessionBounds::default().total_bytes(150_000);
    let server = server(&model, bounds).await;
    let mut ids = Vec::new();
    for caller_number in 0..5 {
        let client = caller(&server, &format!("caller {caller_number}")).await;
        ids.push((client, String::new()));
        let (client, id) = ids.last_mut().unwrap();
        *id = session_of(&chat_call(client, "Tell me everything.", None).await);
    }
    let mut kept = Vec::new();
    for (client, id) in &ids {
        kept.push(!is_gone(&chat_call(client, "Again?", Some(id)).await));
    }
    // The two oldest went when the fourth and the fifth were kept; going on with a session
    // keeps it larger, and lets older ones go in turn, so only the last ones are asked about.
    assert_eq!(kept[..2], [false, false], "{kept:?}");
    assert!(kept[4], "the newest stays: {kept:?}");
    server.stop().await;
}
