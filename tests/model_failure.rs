//! What the MCP caller and the model are told when the model, or its answer, goes wrong.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use common::{Server, free_addr, text};
use ladoga::orchestrator;
use ladoga::testing::{Reply, ScriptedModel};
use neva::prelude::*;
use serde_json::json;

static LOOKUPS: AtomicUsize = AtomicUsize::new(0);

#[tool(descr = "Looks up an order by its number")]
async fn lookup(id: i64) -> String {
    LOOKUPS.fetch_add(1, Ordering::SeqCst);
    format!("order {id} is shipped")
}

/// Answers questions about orders.
#[orchestrator(system = "Answer questions about orders.")]
async fn support(question: String) -> String {
    question
}

const SECRET: &str = "quota exceeded for account acme-billing-7731";

#[tokio::test]
async fn a_failing_model_server_is_a_clear_tool_error_without_its_message() {
    let script = ScriptedModel::new([Reply::failure(500, SECRET), Reply::text("Shipped.")]);
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model())).await;
    let client = server.client().await;

    let failed = client
        .tools()
        .call("support", [("question", "Where is order 7?")])
        .await
        .expect("tools/call");
    assert!(failed.is_error, "{failed:?}");
    let told = text(&failed);
    assert!(told.contains("the model could not answer"), "{told}");
    assert!(!told.contains("acme-billing-7731"), "{told}");
    assert!(!told.contains("quota"), "{told}");

    // The server keeps serving: the next call gets the next answer.
    let answered = client
        .tools()
        .call("support", [("question", "And now?")])
        .await
        .expect("tools/call");
    assert!(!answered.is_error, "{answered:?}");
    assert_eq!(text(&answered), "Shipped.");
    server.stop().await;
}

#[tokio::test]
async fn an_unreachable_model_server_is_a_clear_tool_error_and_the_next_call_works_once_it_is_up() {
    let nobody = free_addr();
    let client = svir::Client::openai(format!("http://{nobody}"))
        .build()
        .unwrap();
    let app = App::new().add_singleton(ladoga::Model::new(client, "absent"));
    let server = Server::start(app).await;
    let client = server.client().await;

    let failed = client
        .tools()
        .call("support", [("question", "Where is order 7?")])
        .await
        .expect("tools/call");
    assert!(failed.is_error, "{failed:?}");
    assert!(
        text(&failed).contains("could not reach the model server"),
        "{}",
        text(&failed)
    );

    // The model server comes up where it was expected: the next call goes through.
    let script = ScriptedModel::new([Reply::text("Up now.")]);
    let _up = script.serve_at(nobody).await.expect("serves");
    let answered = client
        .tools()
        .call("support", [("question", "Where is order 7?")])
        .await
        .expect("tools/call");
    assert_eq!(text(&answered), "Up now.");
    server.stop().await;
}

#[tokio::test]
async fn bad_calls_are_told_back_to_the_model_and_the_loop_goes_on() {
    let script = ScriptedModel::new([
        Reply::raw_call("lookup", "{\"id\": 7"),
        Reply::call("lookup", json!({"order": 7})),
        Reply::call("refund", json!({"id": 7})),
        Reply::call("lookup", json!({"id": 7})),
        Reply::text("Order 7 is shipped."),
    ]);
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model())).await;
    let client = server.client().await;
    let lookups_before = LOOKUPS.load(Ordering::SeqCst);

    let result = client
        .tools()
        .call("support", [("question", "Where is order 7?")])
        .await
        .expect("tools/call");
    assert_eq!(text(&result), "Order 7 is shipped.");

    let told = script.requests()[4].tool_results();
    assert_eq!(told.len(), 4);
    assert!(told[0].1.starts_with("error"), "not JSON: {told:?}");
    assert!(told[1].1.starts_with("error"), "missing `id`: {told:?}");
    assert!(told[2].1.contains("no tool named `refund`"), "{told:?}");
    assert_eq!(told[3].1, "order 7 is shipped");
    assert_eq!(
        LOOKUPS.load(Ordering::SeqCst) - lookups_before,
        1,
        "only the good call ran"
    );
    server.stop().await;
}
