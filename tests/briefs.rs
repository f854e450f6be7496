//! Briefs from the server's own prompts and resources, through the real MCP path: `prompt = "…"`
//! opens the conversation with a `#[prompt]`, `attach = […]` attaches `#[resource]`s, and a
//! prompt or resource that cannot be had is a tool error before any model request.

mod common;

use common::{Server, board_over_http, connect, text};
use ladoga::orchestrator;
use ladoga::testing::{Reply, ScriptedModel, SeenRequest};
use neva::{di::Dc, prelude::*};
use serde_json::{Value, json};

#[prompt(descr = "Asks for a review around a focus")]
async fn review_board(focus: String) -> PromptMessage {
    PromptMessage::user().with(format!("Review the board with {focus} in mind."))
}

#[resource(uri = "board://tasks/{status}", mime = "text/plain")]
async fn tasks(uri: Uri, status: String) -> Result<TextResourceContents, Error> {
    match status.as_str() {
        "open" => Ok(TextResourceContents::new(uri, "1. [ ] Tag v1.0")),
        "done" => Ok(TextResourceContents::new(uri, "2. [x] Write the notes")),
        other => Err(Error::new(
            ErrorCode::InvalidParams,
            format!("no tasks are {other}"),
        )),
    }
}

/// Reviews with the server's prompt.
#[orchestrator(prompt = "review_board")]
async fn reviewed(focus: String) -> String {
    format!("Keep it short, {focus} first.")
}

/// Answers with the tasks of a status attached.
#[orchestrator(attach = ["board://tasks/{status}"])]
async fn attached(status: String) -> String {
    format!("What is left among the {status} tasks?")
}

/// Both, with a whole request for a body.
#[orchestrator(prompt = "review_board", attach = ["board://tasks/open", "board://tasks/done"])]
async fn whole(focus: String) -> svir::Request {
    svir::Request::new("any")
        .temperature(0.2)
        .user(format!("Answer in one line about {focus}."))
}

/// Opens with a prompt the server does not have.
#[orchestrator(prompt = "no_such_prompt")]
async fn unknown_prompt(focus: String) -> String {
    focus
}

/// Opens with a prompt whose required argument it has no parameter for.
#[orchestrator(prompt = "review_board")]
async fn no_focus(topic: String) -> String {
    topic
}

/// Attaches a resource nothing serves.
#[orchestrator(attach = ["board://nowhere"])]
async fn nowhere() -> &'static str {
    "Read it."
}

/// The same as `whole`, by hand with the runtime API.
#[tool(descr = "Reviews, by hand")]
async fn by_hand(ctx: Context, model: Dc<ladoga::Model>, focus: String) -> Result<String, Error> {
    ladoga::Orchestrator::new()
        .prompt("review_board", [("focus", focus.as_str()), ("unused", "x")])
        .attach(format!("board://tasks/{}", "open"))
        .answer(&ctx, &*model, "Answer in one line.")
        .await
}

/// A server with the prompt, the resource and the orchestrators above, its model `script`.
async fn serve(script: &ScriptedModel) -> (Server, ladoga::testing::ScriptedServer) {
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model())).await;
    (server, model)
}

/// The user messages of a request, each as the text the model read.
fn user_texts(request: &SeenRequest) -> Vec<String> {
    request
        .messages()
        .iter()
        .filter(|message| message["role"] == "user")
        .map(|message| match &message["content"] {
            Value::String(text) => text.clone(),
            other => other.to_string(),
        })
        .collect()
}

#[tokio::test]
async fn a_prompt_opens_the_brief_and_the_body_continues_its_turn() {
    let script = ScriptedModel::new([Reply::text("Tag v1.0 first.")]);
    let (server, _model) = serve(&script).await;
    let client = server.client().await;

    let result = client
        .tools()
        .call("reviewed", [("focus", "the release")])
        .await
        .expect("tools/call");
    assert!(!result.is_error, "{result:?}");
    assert_eq!(text(&result), "Tag v1.0 first.");

    let requests = script.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(
        user_texts(&requests[0]),
        ["Review the board with the release in mind.\n\nKeep it short, the release first."],
        "{:?}",
        requests[0].messages()
    );
    server.stop().await;
}

#[tokio::test]
async fn an_attached_resource_is_a_file_named_by_its_uri() {
    let script = ScriptedModel::new([Reply::text("Tag v1.0.")]);
    let (server, _model) = serve(&script).await;
    let client = server.client().await;

    let result = client
        .tools()
        .call("attached", [("status", "open")])
        .await
        .expect("tools/call");
    assert!(!result.is_error, "{result:?}");

    let requests = script.requests();
    assert_eq!(
        user_texts(&requests[0]),
        ["What is left among the open tasks?\n\n\
             <file name=\"board://tasks/open\">\n1. [ ] Tag v1.0\n</file>"]
    );
    server.stop().await;
}

#[tokio::test]
async fn a_whole_request_keeps_its_settings_after_the_prompt_with_the_resources_in_order() {
    let script = ScriptedModel::new([Reply::text("Done."), Reply::text("Done.")]);
    let (server, _model) = serve(&script).await;
    let client = server.client().await;

    let result = client
        .tools()
        .call("whole", [("focus", "the release")])
        .await
        .expect("tools/call");
    assert!(!result.is_error, "{result:?}");
    let by_hand = client
        .tools()
        .call("by_hand", [("focus", "the release")])
        .await
        .expect("tools/call");
    assert!(!by_hand.is_error, "{by_hand:?}");

    let requests = script.requests();
    assert_eq!(requests[0].body()["temperature"], json!(0.2));
    assert_eq!(
        user_texts(&requests[0]),
        ["Review the board with the release in mind.\n\n\
             Answer in one line about the release.\n\n\
             <file name=\"board://tasks/open\">\n1. [ ] Tag v1.0\n</file>\n\n\
             <file name=\"board://tasks/done\">\n2. [x] Write the notes\n</file>"]
    );
    // The runtime API: only the arguments the prompt declares are passed.
    assert_eq!(
        user_texts(&requests[1]),
        ["Review the board with the release in mind.\n\n\
             Answer in one line.\n\n\
             <file name=\"board://tasks/open\">\n1. [ ] Tag v1.0\n</file>"]
    );
    server.stop().await;
}

/// Calls `tool` with `args`, expecting a tool error, and returns its text.
async fn tool_error(client: &Client, tool: &str, args: Value) -> String {
    let result = client
        .tools()
        .call(tool, args)
        .await
        .expect("tools/call answers");
    assert!(result.is_error, "{tool}: {result:?}");
    text(&result)
}

#[tokio::test]
async fn a_prompt_or_resource_that_cannot_be_had_fails_before_any_model_request() {
    let script = ScriptedModel::new([]);
    let (server, _model) = serve(&script).await;
    let client = server.client().await;

    let missing = tool_error(&client, "unknown_prompt", json!({"focus": "x"})).await;
    assert_eq!(
        missing,
        "the brief could not be built: this server has no prompt `no_such_prompt`"
    );

    let no_argument = tool_error(&client, "no_focus", json!({"topic": "x"})).await;
    assert_eq!(
        no_argument,
        "the brief could not be built: the prompt `review_board` needs the argument `focus`, \
         and none was given"
    );

    let failed = tool_error(&client, "attached", json!({"status": "lost"})).await;
    assert!(
        failed.starts_with(
            "the brief could not be built: the resource `board://tasks/lost` could not be read:"
        ),
        "{failed}"
    );
    assert!(failed.contains("no tasks are lost"), "{failed}");

    let unserved = tool_error(&client, "nowhere", json!({})).await;
    assert!(
        unserved.starts_with(
            "the brief could not be built: the resource `board://nowhere` could not be read:"
        ),
        "{unserved}"
    );

    assert!(script.requests().is_empty(), "no model request was made");
    server.stop().await;
}

#[tokio::test]
async fn the_board_review_opens_with_its_prompt_and_reads_the_board() {
    let script = ScriptedModel::new([Reply::text(
        r#"{"summary": "One task, open.", "open_tasks": ["Tag v1.0"]}"#,
    )]);
    let model = script.serve().await.expect("serves");
    let (_board, addr) = board_over_http(&model.url(), "scripted").await;
    let client = connect(addr).await;

    let prompts = client.prompts().list_all().await.expect("prompts/list");
    assert!(
        prompts.iter().any(|prompt| prompt.name == "review_board"),
        "the board lists its prompt"
    );
    let added = client
        .tools()
        .call("add_task", [("title", "Tag v1.0")])
        .await
        .expect("tools/call");
    assert!(!added.is_error, "{added:?}");
    let board = client
        .resources()
        .read("board://tasks")
        .await
        .expect("resources/read");
    assert_eq!(board.contents.len(), 1);

    let result = client
        .tools()
        .call("review", [("focus", "the release")])
        .await
        .expect("tools/call");
    assert!(!result.is_error, "{result:?}");
    assert_eq!(
        result.struct_content,
        Some(json!({"summary": "One task, open.", "open_tasks": ["Tag v1.0"]}))
    );

    let requests = script.requests();
    assert_eq!(requests.len(), 1, "an answer that parses is taken as it is");
    assert_eq!(
        user_texts(&requests[0]),
        [
            "Review my task board with the release in mind: summarize it and list the open \
             tasks.\n\n\
             The board as it stands is attached; keep the release first.\n\n\
             <file name=\"board://tasks\">\n1. [ ] Tag v1.0\n</file>"
        ]
    );
}
