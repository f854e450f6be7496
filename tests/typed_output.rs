//! Typed answers through the real MCP path: `output = T` publishes `T`'s schema as the tool's
//! `outputSchema`, asks the model for JSON of it, tells it when its answer does not parse, and
//! answers with `structuredContent`.

mod common;

use common::{Server, board_over_http, connect, text};
use ladoga::orchestrator;
use ladoga::testing::{Reply, ScriptedModel};
use neva::prelude::*;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

/// A sum.
#[derive(Serialize, Deserialize, JsonSchema)]
struct Sum {
    /// The total.
    total: i64,
}

/// Adds up, typed.
#[orchestrator(output = Sum, retries = 1)]
async fn add_up(numbers: String) -> String {
    format!("Add {numbers}.")
}

#[tokio::test]
async fn the_board_review_publishes_its_schema_and_answers_with_structured_content() {
    let script = ScriptedModel::new([
        Reply::call("list_tasks", json!({})),
        Reply::text("The board is empty, so nothing is open."),
        Reply::text(r#"{"summary": "Nothing is planned yet.", "open_tasks": []}"#),
    ]);
    let model = script.serve().await.expect("serves");
    let (_board, addr) = board_over_http(&model.url(), "scripted").await;
    let client = connect(addr).await;

    let tools = client.tools().list_all().await.expect("tools/list");
    let review = tools
        .iter()
        .find(|tool| tool.name == "review")
        .expect("review is listed");
    let schema = serde_json::to_value(&review.output_schema).unwrap();
    assert_eq!(
        schema["properties"]["open_tasks"]["type"],
        json!("array"),
        "{schema}"
    );
    // neva 0.9's legacy `ToolSchema` reads a schema's `required` list inverted, and keeps only
    // each property's type: a caller of the legacy build sees both fields as optional.
    let required = if cfg!(feature = "legacy-spec") {
        Value::Null
    } else {
        json!(["summary", "open_tasks"])
    };
    assert_eq!(schema["required"], required, "{schema}");

    let result = client
        .tools()
        .call("review", [("focus", "the release")])
        .await
        .expect("tools/call");
    assert!(!result.is_error, "{result:?}");
    assert_eq!(
        result.struct_content,
        Some(json!({"summary": "Nothing is planned yet.", "open_tasks": []}))
    );
    let asked = &script.requests()[2];
    assert_eq!(
        asked.body()["response_format"]["type"],
        json!("json_schema")
    );
    assert_eq!(
        asked.body()["response_format"]["json_schema"]["name"],
        json!("Review")
    );
    assert_eq!(asked.tool_choice(), Some(&json!("none")));
}

#[tokio::test]
async fn an_answer_that_does_not_parse_is_told_to_the_model_and_asked_again() {
    let script = ScriptedModel::new([
        Reply::text("Five."),
        Reply::text(r#"{"total": "five"}"#),
        Reply::text(r#"{"total": 5}"#),
    ]);
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model())).await;
    let client = server.client().await;

    let result = client
        .tools()
        .call("add_up", [("numbers", "2 and 3")])
        .await
        .unwrap();
    assert_eq!(
        result.struct_content,
        Some(json!({"total": 5})),
        "{result:?}"
    );
    let requests = script.requests();
    assert_eq!(requests.len(), 3);
    let told = requests[2].messages().last().unwrap()["content"].to_string();
    assert!(told.contains("does not match the `Sum` schema"), "{told}");
    assert!(told.contains("invalid type"), "{told}");
    server.stop().await;
}

#[tokio::test]
async fn an_answer_that_never_parses_is_a_tool_error_after_the_retries() {
    let script = ScriptedModel::from_fn(|_| Reply::text("I cannot count."));
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model())).await;
    let client = server.client().await;

    let result = client
        .tools()
        .call("add_up", [("numbers", "2 and 3")])
        .await
        .unwrap();
    assert!(result.is_error, "{result:?}");
    assert!(
        text(&result)
            .starts_with("the model's answer did not match the output type after 2 requests"),
        "{}",
        text(&result)
    );
    assert_eq!(
        script.requests().len(),
        3,
        "the answer, the ask for JSON, one retry"
    );
    server.stop().await;
}
