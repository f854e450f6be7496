//! `ladoga::Fallback` through the real MCP path, each model a scripted server behind real HTTP:
//! which failures move to the next model, which do not, what the caller gets when every model
//! fails, and that the run's report names the model that answered.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use common::{Server, free_addr, text};
use futures_util::future::join_all;
use ladoga::testing::{Reply, ScriptedModel, ScriptedServer};
use ladoga::{Fallback, Model, orchestrator};
use neva::prelude::*;
use serde_json::json;

static LOOKUPS: AtomicUsize = AtomicUsize::new(0);

#[tool(descr = "Looks up an order by its number")]
async fn lookup(id: i64) -> String {
    LOOKUPS.fetch_add(1, Ordering::SeqCst);
    format!("order {id} is shipped")
}

/// Answers questions about orders, through whichever model can.
#[orchestrator(model = ladoga::Fallback, system = "Answer questions about orders.")]
async fn support(question: String) -> String {
    question
}

const SECRET: &str = "quota exceeded for account acme-billing-7731";

/// The model `name` on `server`, which does not retry a rate-limited request.
fn named(server: &ScriptedServer, name: &str) -> Model {
    let client = svir::Client::openai(server.url())
        .build()
        .expect("a loopback URL");
    Model::new(client, name).with_retries(0)
}

/// The model `name` on a loopback port nobody listens on: every connection is refused.
fn refused(name: &str) -> Model {
    let client = svir::Client::openai(format!("http://{}", free_addr()))
        .build()
        .expect("a loopback URL");
    Model::new(client, name)
}

/// Calls `support` once on a server whose model is `fallback`.
async fn ask(fallback: Fallback) -> CallToolResponse {
    let server = Server::start(App::new().add_singleton(fallback)).await;
    let client = server.client().await;
    let result = client
        .tools()
        .call("support", [("question", "Where is order 7?")])
        .await
        .expect("tools/call");
    drop(client);
    server.stop().await;
    result
}

/// Asks `support` through a fallback from `primary` to `backup`, each served over HTTP under
/// its name.
async fn ask_primary_then_backup(
    primary: &ScriptedModel,
    backup: &ScriptedModel,
) -> CallToolResponse {
    let (primary_server, backup_server) = (
        primary.serve().await.unwrap(),
        backup.serve().await.unwrap(),
    );
    let models = [
        named(&primary_server, "primary"),
        named(&backup_server, "backup"),
    ];
    ask(Fallback::new(models)).await
}

/// The run's report in a result's `_meta`.
fn report(result: &CallToolResponse) -> serde_json::Value {
    let meta = result.content[0].as_text().unwrap().meta.clone();
    meta.map_or(serde_json::Value::Null, |meta| {
        meta[ladoga::REPORT_KEY].clone()
    })
}

/// `result` answered "Shipped." and its report names `model`.
fn answered_by(result: &CallToolResponse, model: &str) {
    assert!(!result.is_error, "{result:?}");
    assert_eq!(text(result), "Shipped.");
    let report = report(result);
    assert_eq!(report["model"], model, "{report}");
    assert_eq!(report["stop"], "answered", "{report}");
}

#[tokio::test]
async fn a_refused_connection_falls_back_to_the_next_model() {
    let backup = ScriptedModel::new([Reply::text("Shipped.")]);
    let backup_server = backup.serve().await.expect("serves");

    let result = ask(Fallback::new([
        refused("primary"),
        named(&backup_server, "backup"),
    ]))
    .await;
    answered_by(&result, "backup");
    assert_eq!(backup.requests().len(), 1);
    assert_eq!(backup.requests()[0].model(), "backup");
}

#[tokio::test]
async fn a_server_error_falls_back_to_the_next_model() {
    join_all([500, 502, 503, 504, 507].map(|status| async move {
        let primary = ScriptedModel::new([Reply::failure(status, SECRET)]);
        let backup = ScriptedModel::new([Reply::text("Shipped.")]);
        let result = ask_primary_then_backup(&primary, &backup).await;
        answered_by(&result, "backup");
        assert_eq!(primary.requests().len(), 1, "HTTP {status}");
        assert_eq!(backup.requests().len(), 1, "HTTP {status}");
    }))
    .await;
}

#[tokio::test]
async fn rate_limiting_falls_back_after_the_models_own_retries() {
    let primary = ScriptedModel::new([
        Reply::rate_limited(Duration::ZERO),
        Reply::rate_limited(Duration::ZERO),
    ]);
    let backup = ScriptedModel::new([Reply::text("Shipped.")]);
    let (primary_server, backup_server) = (
        primary.serve().await.unwrap(),
        backup.serve().await.unwrap(),
    );

    let models = [
        named(&primary_server, "primary").with_retries(1),
        named(&backup_server, "backup"),
    ];
    let result = ask(Fallback::new(models)).await;
    answered_by(&result, "backup");
    assert_eq!(primary.requests().len(), 2, "the request and its one retry");
    assert_eq!(backup.requests().len(), 1);
}

#[tokio::test]
async fn a_stream_cut_before_its_end_falls_back_and_none_of_its_calls_run() {
    let primary = ScriptedModel::new([Reply::call("lookup", json!({"id": 7})).cut()]);
    let backup = ScriptedModel::new([Reply::text("Shipped.")]);
    let result = ask_primary_then_backup(&primary, &backup).await;
    answered_by(&result, "backup");
    assert_eq!(
        LOOKUPS.load(Ordering::SeqCst),
        0,
        "the cut answer's call never ran"
    );
    assert_eq!(backup.requests().len(), 1);
}

#[tokio::test]
async fn every_request_starts_at_the_first_model_and_the_report_names_the_last_to_answer() {
    // The primary fails the first request; the backup calls a tool; the primary, back, answers.
    let primary = ScriptedModel::new([Reply::failure(503, SECRET), Reply::text("Shipped.")]);
    let backup = ScriptedModel::new([Reply::call("lookup", json!({"id": 7}))]);
    let result = ask_primary_then_backup(&primary, &backup).await;
    answered_by(&result, "primary");
    assert_eq!(report(&result)["turns"], 2);
    assert_eq!(primary.requests().len(), 2);
    assert_eq!(
        primary.requests()[1].tool_results()[0].1,
        "order 7 is shipped",
        "the primary is sent the backup's call and its result"
    );
}

#[tokio::test]
async fn a_request_the_server_rejects_never_falls_back() {
    join_all([400, 422, 401, 404, 408].map(|status| async move {
        let primary = ScriptedModel::from_fn(move |_| Reply::failure(status, SECRET));
        let backup = ScriptedModel::new([Reply::text("Shipped.")]);
        let result = ask_primary_then_backup(&primary, &backup).await;
        assert!(result.is_error, "HTTP {status}: {result:?}");
        let told = text(&result);
        assert!(told.starts_with("the model could not answer"), "{told}");
        assert!(told.contains(&format!("HTTP {status}")), "{told}");
        assert!(!told.contains("acme-billing-7731"), "{told}");
        // svir sends a 400 or 422 once more without its optional fields (`lean_retry`).
        let sent = if matches!(status, 400 | 422) { 2 } else { 1 };
        assert_eq!(primary.requests().len(), sent, "HTTP {status}");
        assert!(
            backup.requests().is_empty(),
            "HTTP {status}: the backup was asked"
        );
    }))
    .await;
}

#[tokio::test]
async fn when_every_model_fails_the_caller_is_told_so_without_their_messages() {
    let second = ScriptedModel::new([Reply::failure(500, SECRET)]);
    let third = ScriptedModel::new([Reply::failure(503, "node gpu-7 of account acme is down")]);
    let (second_server, third_server) =
        (second.serve().await.unwrap(), third.serve().await.unwrap());

    let models = [
        refused("primary"),
        named(&second_server, "second"),
        named(&third_server, "third"),
    ];
    let result = ask(Fallback::new(models)).await;
    assert!(result.is_error, "{result:?}");
    let told = text(&result);
    assert_eq!(
        told,
        "the model could not answer: could not reach the model server: all 3 models failed \
         (`primary`: could not reach the model server: client error (Connect): tcp connect error: \
         Connection refused (os error 111); `second`: could not reach the model server: HTTP \
         500); the last: HTTP 503"
    );
    assert_eq!(
        report(&result),
        serde_json::Value::Null,
        "a model failure has no report"
    );
    assert_eq!((second.requests().len(), third.requests().len()), (1, 1));
}
