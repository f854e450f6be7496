//! Two models on one server: `model = Type` injects another `CompletionModel`.

mod common;

use common::{Server, text};
use ladoga::orchestrator;
use ladoga::testing::{Reply, ScriptedModel};
use neva::prelude::*;

/// A second model, kept apart from the default `ladoga::Model` by its type.
struct Reviewer(ladoga::Model);

impl ladoga::CompletionModel for Reviewer {
    fn name(&self) -> &str {
        "reviewer"
    }

    async fn complete(&self, request: &svir::Request) -> Result<svir::Completion, svir::Error> {
        self.0.complete(request).await
    }
}

/// Drafts with the default model.
#[orchestrator]
async fn draft(topic: String) -> String {
    format!("Draft {topic}.")
}

/// Reviews with the reviewer.
#[orchestrator(model = Reviewer)]
async fn review(text: String) -> String {
    format!("Review: {text}")
}

/// Talks to a scripted model injected as it is, with no HTTP in between.
#[orchestrator(model = ScriptedModel)]
async fn rehearse(line: String) -> String {
    format!("Say: {line}")
}

#[tokio::test]
async fn a_scripted_model_can_be_injected_directly() {
    let script = ScriptedModel::new([Reply::text("Hello, world")]);
    let server = Server::start(App::new().add_singleton(script.clone())).await;
    let client = server.client().await;

    let said = client
        .tools()
        .call("rehearse", [("line", "hello")])
        .await
        .unwrap();
    assert_eq!(text(&said), "Hello, world");
    let requests = script.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].first_user_text().unwrap(), "Say: hello");
    assert!(requests[0].tool_names().contains(&"draft".to_owned()));
    server.stop().await;
}

#[tokio::test]
async fn each_orchestrator_talks_to_the_model_it_names() {
    let writer = ScriptedModel::new([Reply::text("a draft")]);
    let reviewer = ScriptedModel::new([Reply::text("looks good")]);
    let writer_server = writer.serve().await.expect("serves");
    let reviewer_server = reviewer.serve().await.expect("serves");
    let app = App::new()
        .add_singleton(writer_server.model())
        .add_singleton(Reviewer(reviewer_server.model()));
    let server = Server::start(app).await;
    let client = server.client().await;

    let drafted = client
        .tools()
        .call("draft", [("topic", "rivers")])
        .await
        .unwrap();
    let reviewed = client
        .tools()
        .call("review", [("text", "rivers")])
        .await
        .unwrap();
    assert_eq!(text(&drafted), "a draft");
    assert_eq!(text(&reviewed), "looks good");
    assert_eq!(writer.requests().len(), 1);
    assert_eq!(reviewer.requests().len(), 1);
    assert_eq!(reviewer.requests()[0].model(), "reviewer");
    assert_eq!(
        writer.requests()[0].first_user_text().unwrap(),
        "Draft rivers."
    );
    server.stop().await;
}

#[tokio::test]
async fn a_model_the_server_did_not_register_is_a_clear_tool_error() {
    let script = ScriptedModel::new([Reply::text("unused")]);
    let served = script.serve().await.expect("serves");
    // Only the default model: `review` needs a `Reviewer`.
    let server = Server::start(App::new().add_singleton(served.model())).await;
    let client = server.client().await;

    let result = client
        .tools()
        .call("review", [("text", "a draft")])
        .await
        .unwrap();
    assert!(result.is_error, "{result:?}");
    let told = text(&result);
    assert!(
        told.contains("`models::Reviewer`, is not registered"),
        "{told}"
    );
    assert!(script.requests().is_empty(), "no model was asked");
    server.stop().await;
}
