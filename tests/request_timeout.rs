//! neva's request timeout (10 s by default, `with_timeout`) bounds the requests a server sends
//! its client, not the handling of a client's call: an orchestration longer than that, nested
//! calls included, answers normally on a server with neva's default options.

mod common;

use std::time::{Duration, Instant};

use common::{Server, text};
use ladoga::orchestrator;
use ladoga::testing::{Reply, ScriptedModel, SeenRequest};
use neva::prelude::*;
use serde_json::json;

/// How long the model takes over each answer: four answers take longer than neva's 10 s.
const THINKING: Duration = Duration::from_secs(3);

/// Tells the time.
#[tool]
async fn clock() -> String {
    "09:00".to_owned()
}

/// Hands the question to `inner`.
#[orchestrator]
async fn outer(question: String) -> String {
    format!("outer: {question}")
}

/// Answers with the clock.
#[orchestrator]
async fn inner(question: String) -> String {
    format!("inner: {question}")
}

/// `outer` calls `inner`, `inner` calls `clock`, and each answers with the result it got: four
/// answers, each after `THINKING`.
fn slow_chain() -> ScriptedModel {
    ScriptedModel::from_fn(|request: &SeenRequest| {
        let reply = match request.tool_results().last() {
            Some((_, result)) => Reply::text(format!("got: {result}")),
            None if request
                .first_user_text()
                .is_some_and(|b| b.starts_with("outer")) =>
            {
                Reply::call("inner", json!({"question": "the time"}))
            }
            None => Reply::call("clock", json!({})),
        };
        reply.after(THINKING)
    })
}

#[tokio::test]
async fn an_orchestration_longer_than_nevas_request_timeout_answers_on_default_options() {
    let script = slow_chain();
    let model = script.serve().await.expect("serves");
    let server = Server::start_with_default_timeout(App::new().add_singleton(model.model())).await;
    let client = server.client().await;

    let started = Instant::now();
    let result = client
        .tools()
        .call("outer", [("question", "what time is it?")])
        .await
        .expect("the call is answered");
    let took = started.elapsed();

    assert!(!result.is_error, "{}", text(&result));
    assert_eq!(text(&result), "got: got: 09:00");
    assert_eq!(script.requests().len(), 4);
    assert!(
        took > Duration::from_secs(10),
        "the orchestration took {took:?}, not longer than neva's default request timeout"
    );
    server.stop().await;
}
