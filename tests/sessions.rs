//! Sessions through the real MCP path: a neva server, its client, and the scripted model behind
//! real HTTP. A call without `session` starts a conversation and names its id; a call with it
//! goes on from it; a session is its caller's, lives for its time to live, and has one writer at
//! a time. `session = caller` keeps one conversation per caller.

mod common;

use std::time::Duration;

use common::auth::{client_with, now, token};
use common::{Server, text};
use ladoga::testing::{Reply, ScriptedModel, SeenRequest};
use ladoga::{Model, Orchestrator, REPORT_KEY, Session, orchestrator};
use neva::di::Dc;
use neva::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// The secret the guarded servers of this file check tokens with.
const SECRET: &str = "a secret for the session tests, 42 bytes..";

#[tool(descr = "Notes a fact down")]
async fn note(fact: String) -> String {
    format!("noted: {fact}")
}

/// Talks it over.
#[orchestrator(session = true)]
async fn chat(say: String) -> String {
    say
}

#[tool(descr = "Looks the calendar up, slowly")]
async fn slow_lookup(day: String) -> String {
    tokio::time::sleep(Duration::from_millis(1500)).await;
    format!("{day} is free")
}

/// Plans with the calendar, in a session its caller may steer.
#[orchestrator(session = true, tools = ["slow_lookup"])]
async fn planner(say: String) -> String {
    say
}

/// Talks it over, forgetting a minute after.
#[orchestrator(session = true, session_ttl = "1s")]
async fn brief_chat(say: String) -> String {
    say
}

/// Talks it over with each caller, one conversation each.
#[orchestrator(session = caller)]
async fn companion(say: String) -> String {
    say
}

/// A sum.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Sum {
    /// The total.
    total: i64,
}

/// Adds up, and goes on adding.
#[orchestrator(session = true, output = Sum)]
async fn tally(numbers: String) -> String {
    format!("Add {numbers}.")
}

/// Talks it over, waiting a fifth of a second at most for another call on its session: the
/// answer, then the session's id on a line of its own.
#[tool(descr = "Talks it over, impatiently")]
async fn impatient(
    ctx: Context,
    model: Dc<Model>,
    say: String,
    session: Option<String>,
) -> Result<String, Error> {
    let outcome = Orchestrator::new()
        .name("impatient")
        .session(Session::ById)
        .continuing(session)
        .session_wait(Duration::from_millis(200))
        .run(&ctx, &*model, say)
        .await
        .map_err(|error| Error::new(ErrorCode::InternalError, error.to_string()))?;
    Ok(format!(
        "{}\n{}",
        outcome.text,
        outcome.session.unwrap_or_default()
    ))
}

/// `impatient`'s answer and session id.
fn impatiently(result: &CallToolResponse) -> (String, String) {
    let text = answer(result);
    let (said, id) = text
        .rsplit_once('\n')
        .unwrap_or_else(|| panic!("{result:?}"));
    (said.to_owned(), id.to_owned())
}

#[tool(descr = "Wipes a board clean")]
async fn wipe(board: String) -> String {
    format!("wiped {board}")
}

/// Keeps boards, asking before it wipes one, and goes on with the conversation.
#[orchestrator(session = true, approve = ["wipe"])]
async fn tidy(say: String) -> String {
    say
}

/// Runs the tests of this file one at a time: each reads its model's requests in order.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The session id a result names, in its report; and that its last block names the same.
fn session_of(result: &CallToolResponse) -> String {
    let block = serde_json::to_value(&result.content[0]).unwrap();
    let id = block["_meta"][REPORT_KEY]["session"]
        .as_str()
        .unwrap_or_else(|| panic!("a session in the report: {result:?}"))
        .to_owned();
    let told = result
        .content
        .last()
        .and_then(|last| last.as_text())
        .unwrap();
    assert!(
        told.text.contains(&format!("\"session\": \"{id}\"")),
        "{told:?}"
    );
    id
}

/// A client of the guarded `server` whose token names `sub`, connected.
async fn caller(server: &Server, sub: &str) -> Client {
    let token = token(SECRET, json!({"sub": sub, "exp": now() + 3600}));
    let mut client = client_with(server.addr, Some(&token));
    client.connect().await.expect("connects");
    client
}

/// The text of the answer: the first block.
fn answer(result: &CallToolResponse) -> String {
    result.content[0].as_text().unwrap().text.clone()
}

/// The texts of the user and assistant messages `request` sent, in order.
fn said(request: &SeenRequest) -> Vec<String> {
    request
        .messages()
        .iter()
        .filter(|message| message["role"] != "tool")
        .map(|message| match &message["content"] {
            Value::String(text) => text.clone(),
            Value::Null => String::new(),
            other => other.to_string(),
        })
        .collect()
}

async fn call(
    client: &mut Client,
    tool: &str,
    say: &str,
    session: Option<&str>,
) -> CallToolResponse {
    let mut args = vec![("say", say.to_owned())];
    if let Some(session) = session {
        args.push(("session", session.to_owned()));
    }
    client
        .tools()
        .call(tool, args)
        .await
        .expect("the call answers")
}

#[tokio::test]
async fn a_session_goes_on_over_three_calls_and_the_model_sees_the_whole_conversation() {
    let _one = ONE_AT_A_TIME.lock().await;
    let script = ScriptedModel::new([
        Reply::call("note", json!({"fact": "the release is on Tuesday"})),
        Reply::text("Planned around Tuesday."),
        Reply::text("Moved to Thursday."),
        Reply::text("Thursday it is, with the note."),
        Reply::text("Something else, then."),
    ]);
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model())).await;
    let mut client = server.client().await;

    let listed = client.tools().list_all().await.unwrap();
    let chat = listed.iter().find(|tool| tool.name == "chat").unwrap();
    let schema = serde_json::to_value(&chat.input_schema).unwrap();
    assert_eq!(
        schema["properties"]["session"]["type"], "string",
        "{schema}"
    );
    assert!(
        !schema["required"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|name| name == "session"),
        "`session` is optional: {schema}"
    );
    assert!(
        chat.descr
            .as_deref()
            .unwrap_or_default()
            .contains("`session`")
    );

    let first = call(&mut client, "chat", "Plan the release.", None).await;
    assert!(!first.is_error, "{first:?}");
    assert_eq!(answer(&first), "Planned around Tuesday.");
    let id = session_of(&first);

    let second = call(&mut client, "chat", "Move it to Thursday.", Some(&id)).await;
    assert_eq!(answer(&second), "Moved to Thursday.", "{second:?}");
    assert_eq!(session_of(&second), id, "the same session goes on");
    let third = call(&mut client, "chat", "And the note?", Some(&id)).await;
    assert_eq!(
        answer(&third),
        "Thursday it is, with the note.",
        "{third:?}"
    );

    let requests = script.requests();
    assert_eq!(requests.len(), 4);
    let last = &requests[3];
    assert_eq!(
        said(last),
        [
            "Plan the release.",
            "",
            "Planned around Tuesday.",
            "Move it to Thursday.",
            "Moved to Thursday.",
            "And the note?",
        ],
        "{:?}",
        last.messages()
    );
    assert_eq!(
        last.tool_results()[0].1,
        "noted: the release is on Tuesday",
        "the earlier call's tool result goes on too"
    );
    // A call without the id starts afresh.
    let fresh = call(&mut client, "chat", "Something else.", None).await;
    assert_ne!(session_of(&fresh), id);
    assert_eq!(said(&script.requests()[4]), ["Something else."]);
    server.stop().await;
}

#[tokio::test]
async fn a_typed_answer_keeps_its_structured_content_and_its_json_block() {
    let _one = ONE_AT_A_TIME.lock().await;
    let script = ScriptedModel::new([
        Reply::text(r#"{"total": 5}"#),
        Reply::text(r#"{"total": 9}"#),
    ]);
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model())).await;
    let client = server.client().await;

    let first = client
        .tools()
        .call("tally", [("numbers", "2 and 3")])
        .await
        .unwrap();
    assert_eq!(first.struct_content, Some(json!({"total": 5})), "{first:?}");
    assert_eq!(
        answer(&first),
        r#"{"total":5}"#,
        "the first block is the JSON"
    );
    let id = session_of(&first);
    let second = client
        .tools()
        .call(
            "tally",
            [("numbers", "and 4 more"), ("session", id.as_str())],
        )
        .await
        .unwrap();
    assert_eq!(
        second.struct_content,
        Some(json!({"total": 9})),
        "{second:?}"
    );
    let seen = said(&script.requests()[1]);
    assert_eq!(seen, ["Add 2 and 3.", r#"{"total": 5}"#, "Add and 4 more."]);
    server.stop().await;
}

#[tokio::test]
async fn another_callers_session_an_unknown_one_and_an_expired_one_are_refused_alike() {
    let _one = ONE_AT_A_TIME.lock().await;
    let script = ScriptedModel::from_fn(|_| Reply::text("Fine."));
    let model = script.serve().await.expect("serves");
    let server = Server::start_guarded(App::new().add_singleton(model.model()), SECRET).await;
    let (mut alice, mut bob) = (caller(&server, "alice").await, caller(&server, "bob").await);

    let started = call(&mut alice, "chat", "Mine.", None).await;
    let id = session_of(&started);
    let asked = script.requests().len();

    let foreign = call(&mut bob, "chat", "Let me in.", Some(&id)).await;
    assert!(foreign.is_error, "{foreign:?}");
    let unknown = call(&mut bob, "chat", "Let me in.", Some("0123456789abcdef")).await;
    assert!(unknown.is_error, "{unknown:?}");
    assert_eq!(
        text(&foreign),
        text(&unknown),
        "nothing tells whether it exists"
    );
    assert!(
        text(&foreign).contains("no session with that id"),
        "{}",
        text(&foreign)
    );
    assert_eq!(script.requests().len(), asked, "no model was asked");

    // Its owner still goes on with it, untouched by the refusal.
    let again = call(&mut alice, "chat", "Still mine.", Some(&id)).await;
    assert!(!again.is_error, "{again:?}");
    assert_eq!(
        said(script.requests().last().unwrap()),
        ["Mine.", "Fine.", "Still mine."]
    );

    let short = call(&mut alice, "brief_chat", "Quick.", None).await;
    let short_id = session_of(&short);
    tokio::time::sleep(Duration::from_millis(1300)).await;
    let expired = call(&mut alice, "brief_chat", "Still there?", Some(&short_id)).await;
    assert!(expired.is_error, "{expired:?}");
    assert_eq!(text(&expired), text(&unknown));
    // A session of one tool is not another's.
    let elsewhere = call(&mut alice, "brief_chat", "Here?", Some(&id)).await;
    assert_eq!(text(&elsewhere), text(&unknown));
    drop((alice, bob));
    server.stop().await;
}

#[tokio::test]
async fn two_calls_on_one_session_go_one_after_the_other_never_both() {
    let _one = ONE_AT_A_TIME.lock().await;
    let script = ScriptedModel::new([
        Reply::text("Started."),
        Reply::text("Slow one.").after(Duration::from_millis(800)),
        Reply::text("Second one."),
    ]);
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model())).await;
    let mut client = server.client().await;
    let first = call(&mut client, "chat", "Start.", None).await;
    let id = session_of(&first);

    let mut other = server.client().await;
    let (slow, waiting) = tokio::join!(
        call(&mut client, "chat", "First of two.", Some(&id)),
        async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            call(&mut other, "chat", "Second of two.", Some(&id)).await
        }
    );
    assert_eq!(answer(&slow), "Slow one.", "{slow:?}");
    assert_eq!(answer(&waiting), "Second one.", "{waiting:?}");
    // The second went on from the first's conversation: it waited for it.
    assert_eq!(
        said(&script.requests()[2]),
        [
            "Start.",
            "Started.",
            "First of two.",
            "Slow one.",
            "Second of two."
        ]
    );
    server.stop().await;
}

#[tokio::test]
async fn a_call_that_cannot_wait_for_its_session_is_refused_and_loses_nothing() {
    let _one = ONE_AT_A_TIME.lock().await;
    let script = ScriptedModel::new([
        Reply::text("Begun."),
        Reply::text("Slowly.").after(Duration::from_millis(1000)),
        Reply::text("After it."),
    ]);
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model())).await;
    let client = server.client().await;
    let begun = client
        .tools()
        .call("impatient", [("say", "Begin.")])
        .await
        .unwrap();
    let (_, id) = impatiently(&begun);

    let other = server.client().await;
    let (slow, refused) = tokio::join!(
        async {
            client
                .tools()
                .call("impatient", [("say", "Slowly."), ("session", id.as_str())])
                .await
        },
        async {
            tokio::time::sleep(Duration::from_millis(200)).await;
            other
                .tools()
                .call("impatient", [("say", "Now!"), ("session", id.as_str())])
                .await
        }
    );
    let (slow, refused) = (slow.unwrap(), refused.unwrap());
    assert_eq!(impatiently(&slow), ("Slowly.".to_owned(), id.clone()));
    assert!(refused.is_error, "{refused:?}");
    assert!(
        text(&refused).contains("busy with another call"),
        "{}",
        text(&refused)
    );
    assert_eq!(
        script.requests().len(),
        2,
        "the refused call asked no model"
    );

    let after = client
        .tools()
        .call("impatient", [("say", "Again."), ("session", id.as_str())])
        .await
        .unwrap();
    assert_eq!(impatiently(&after).0, "After it.");
    assert_eq!(
        said(&script.requests()[2]),
        ["Begin.", "Begun.", "Slowly.", "Slowly.", "Again."]
    );
    server.stop().await;
}

#[tokio::test]
async fn a_session_per_caller_needs_no_id_and_keeps_callers_apart() {
    let _one = ONE_AT_A_TIME.lock().await;
    let script = ScriptedModel::from_fn(|_| Reply::text("Mm."));
    let model = script.serve().await.expect("serves");
    let server = Server::start_guarded(App::new().add_singleton(model.model()), SECRET).await;
    let (mut alice, mut bob) = (caller(&server, "alice").await, caller(&server, "bob").await);

    let listed = alice.tools().list_all().await.unwrap();
    let companion = listed.iter().find(|tool| tool.name == "companion").unwrap();
    let schema = serde_json::to_value(&companion.input_schema).unwrap();
    assert!(schema["properties"].get("session").is_none(), "{schema}");

    let first = call(&mut alice, "companion", "I am Alice.", None).await;
    assert_eq!(first.content.len(), 1, "no id to pass: {first:?}");
    call(&mut bob, "companion", "I am Bob.", None).await;
    call(&mut alice, "companion", "Who am I?", None).await;
    let requests = script.requests();
    assert_eq!(said(&requests[1]), ["I am Bob."]);
    assert_eq!(said(&requests[2]), ["I am Alice.", "Mm.", "Who am I?"]);
    drop((alice, bob));
    server.stop().await;
}

#[tokio::test]
async fn a_session_goes_on_through_an_approval_and_keeps_its_id_across_the_rounds() {
    let _one = ONE_AT_A_TIME.lock().await;
    let script = ScriptedModel::new([
        Reply::call("wipe", json!({"board": "a"})),
        Reply::text("Board a is clean."),
        Reply::text("You wiped board a."),
    ]);
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model())).await;
    let mut client = common::client_for(server.addr);
    client.map_elicitation(|_: neva::types::elicitation::ElicitRequestParams| async {
        neva::types::elicitation::ElicitResult::accept()
    });
    client.connect().await.expect("connects");

    let first = call(&mut client, "tidy", "Wipe board a.", None).await;
    assert_eq!(answer(&first), "Board a is clean.", "{first:?}");
    let id = session_of(&first);
    let second = call(&mut client, "tidy", "What did I do?", Some(&id)).await;
    assert_eq!(answer(&second), "You wiped board a.", "{second:?}");
    let last = script.requests().pop().unwrap();
    assert_eq!(
        said(&last),
        ["Wipe board a.", "", "Board a is clean.", "What did I do?"]
    );
    assert_eq!(last.tool_results()[0].1, "wiped a");
    drop(client);
    server.stop().await;
}

/// The model of `planner`: it looks Thursday up, then answers with the last thing its person
/// said.
fn steered_model() -> ScriptedModel {
    ScriptedModel::from_fn(|seen: &SeenRequest| {
        // The person's last words, a message sent to the run in flight included.
        let last = seen.last_user_text().unwrap_or_default();
        match seen.tool_results().len() {
            0 if last == "Plan the offsite." => {
                Reply::call("slow_lookup", json!({"day": "Thursday"}))
            }
            _ => Reply::text(format!("Planned, as you said last: {last}")),
        }
    })
}

/// A call on `server`'s `planner` session `id` (a new one when empty) saying `say`, with the
/// `_meta` that steers when `steer`, as a client writes it: the JSON-RPC answer.
async fn planner_call(addr: std::net::SocketAddr, id: &str, say: &str, steer: bool) -> Value {
    planner_call_as(addr, "", id, say, steer).await
}

/// [`planner_call`] as the holder of `token`.
async fn planner_call_as(
    addr: std::net::SocketAddr,
    token: &str,
    id: &str,
    say: &str,
    steer: bool,
) -> Value {
    let mut params = json!({"name": "planner", "arguments": {"say": say}});
    if !id.is_empty() {
        params["arguments"]["session"] = json!(id);
    }
    if steer {
        params["_meta"] = json!({ ladoga::session::STEER_KEY: true });
    }
    common::rounds::request(addr, token, "tools/call", params).await
}

/// A run in flight on `planner`'s session, at `running`, is steered through `steering`: the call
/// answers at once, naming no model, and the run reads the message before its next turn, as the
/// person's words, and lists it in its report.
async fn steer_through(
    running: std::net::SocketAddr,
    steering: std::net::SocketAddr,
    script: &ScriptedModel,
) {
    let begun = planner_call(running, "", "Begin.", false).await;
    let id = begun["result"]["content"][0]["_meta"][REPORT_KEY]["session"]
        .as_str()
        .unwrap_or_else(|| panic!("a session: {begun}"))
        .to_owned();
    let (run, steer) = tokio::join!(
        planner_call(running, &id, "Plan the offsite.", false),
        async {
            tokio::time::sleep(Duration::from_millis(500)).await;
            let started = std::time::Instant::now();
            let told = planner_call(steering, &id, "Make it Friday, not Thursday.", true).await;
            (told, started.elapsed())
        }
    );
    let (steer, took) = steer;

    let told = &steer["result"];
    assert_eq!(told["isError"], false, "{steer}");
    assert!(
        took < Duration::from_millis(1000),
        "answered at once: {took:?}"
    );
    let text = told["content"][0]["text"].as_str().unwrap_or_default();
    assert!(text.contains("given to the run in flight"), "{steer}");
    assert_eq!(
        told["content"][0]["_meta"][REPORT_KEY]["stop"], "steered",
        "{steer}"
    );
    let result = &run["result"];
    assert_eq!(result["isError"], false, "{run}");
    assert_eq!(
        result["content"][0]["text"], "Planned, as you said last: Make it Friday, not Thursday.",
        "{run}"
    );
    let report = &result["content"][0]["_meta"][REPORT_KEY];
    assert_eq!(
        report["steered"],
        json!([{"turn": 1, "text": "Make it Friday, not Thursday."}]),
        "{report}"
    );
    // The begun call's request, then the run's two: the steering call asked no model.
    assert_eq!(script.requests().len(), 3);
}

#[tokio::test]
async fn a_call_that_steers_gives_its_words_to_the_run_in_flight_on_its_session() {
    let _one = ONE_AT_A_TIME.lock().await;
    let script = steered_model();
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model())).await;

    steer_through(server.addr, server.addr, &script).await;
    server.stop().await;
}

/// The same through two replicas sharing a real Redis (Debian's `redis-server`, started and
/// stopped here): the run in flight on one, the steering call on the other.
#[tokio::test]
#[ignore = "needs redis-server: run by scripts/test"]
async fn a_call_that_steers_on_another_replica_reaches_the_run_in_flight() {
    let _one = ONE_AT_A_TIME.lock().await;
    let redis = common::redis::Redis::start().await;
    let script = steered_model();
    let model = script.serve().await.expect("serves");
    let replicas = redis
        .two_replicas(|| App::new().add_singleton(model.model()))
        .await;

    steer_through(replicas[0].addr, replicas[1].addr, &script).await;
    for replica in replicas {
        replica.stop().await;
    }
}

/// Another caller cannot steer a run: its call on a session it does not have is refused as a
/// call naming no session is, and the run never reads its words.
#[tokio::test]
async fn another_caller_cannot_steer_a_run_in_flight() {
    let _one = ONE_AT_A_TIME.lock().await;
    let script = steered_model();
    let model = script.serve().await.expect("serves");
    let server = Server::start_guarded(App::new().add_singleton(model.model()), SECRET).await;
    let alice = token(SECRET, json!({"sub": "alice", "exp": now() + 3600}));
    let bob = token(SECRET, json!({"sub": "bob", "exp": now() + 3600}));
    let begun = planner_call_as(server.addr, &alice, "", "Begin.", false).await;
    let id = begun["result"]["content"][0]["_meta"][REPORT_KEY]["session"]
        .as_str()
        .unwrap_or_else(|| panic!("a session: {begun}"))
        .to_owned();

    let (run, foreign) = tokio::join!(
        planner_call_as(server.addr, &alice, &id, "Plan the offsite.", false),
        async {
            tokio::time::sleep(Duration::from_millis(500)).await;
            planner_call_as(server.addr, &bob, &id, "Cancel everything.", true).await
        }
    );

    assert_eq!(foreign["result"]["isError"], true, "{foreign}");
    let told = foreign["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(told.contains("no session with that id"), "{foreign}");
    let result = &run["result"];
    assert_eq!(
        result["content"][0]["text"], "Planned, as you said last: Plan the offsite.",
        "{run}"
    );
    assert!(
        result["content"][0]["_meta"][REPORT_KEY]
            .get("steered")
            .is_none(),
        "{run}"
    );
    server.stop().await;
}
