//! The turn bound, both policies, and what the body may take and return: through a real neva
//! server, a real MCP client and the scripted model behind real HTTP.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};

use common::{Server, text};
use ladoga::orchestrator;
use ladoga::testing::{Reply, ScriptedModel, SeenRequest};
use neva::{di::Dc, prelude::*};
use serde_json::json;

/// How many times `echo` ran.
static ECHOES: AtomicUsize = AtomicUsize::new(0);

#[tool(descr = "Says the text back")]
async fn echo(text: String) -> String {
    ECHOES.fetch_add(1, Ordering::SeqCst);
    text
}

/// Fails at its bound.
#[orchestrator(turns = 3)]
async fn bounded_error(task: String) -> String {
    task
}

/// Answers at its bound.
#[orchestrator(turns = 3, on_limit = "answer")]
async fn bounded_answer(task: String) -> String {
    task
}

/// Words its brief from the caller's context and an injected value.
#[orchestrator(system = "Be brief.")]
async fn greeter(ctx: Context, greeting: Dc<Greeting>, name: String) -> String {
    let tools = ctx.tools().list().await.len();
    format!("{} {name}; the server has {tools} tools", greeting.0)
}

/// Builds a whole request, with its own system prompt and temperature.
#[orchestrator(system = "The orchestrator's prompt")]
async fn with_request(topic: String) -> svir::Request {
    svir::Request::new("ignored")
        .system("The brief's own prompt")
        .temperature(0.25)
        .user(format!("Write about {topic}."))
}

/// Refuses some briefs.
#[orchestrator]
async fn picky(topic: String) -> Result<String, String> {
    if topic.is_empty() {
        return Err("say what the topic is".to_owned());
    }
    Ok(topic)
}

struct Greeting(&'static str);

/// A model that calls `echo` on every turn, and answers only when tools are refused.
fn keeps_calling() -> ScriptedModel {
    ScriptedModel::from_fn(|request: &SeenRequest| {
        if request.tool_choice() == Some(&json!("none")) {
            Reply::text("Stopped calling: here is what I have.")
        } else {
            Reply::call("echo", json!({"text": "again"}))
        }
    })
}

async fn server(script: &ScriptedModel) -> (Server, ladoga::testing::ScriptedServer) {
    let model = script.serve().await.expect("the scripted model serves");
    let app = App::new()
        .add_singleton(model.model())
        .add_singleton(Greeting("Hello"));
    (Server::start(app).await, model)
}

#[tokio::test]
async fn at_the_bound_the_error_policy_answers_a_tool_error_after_exactly_turns_requests() {
    let script = keeps_calling();
    let (server, _model) = server(&script).await;
    let client = server.client().await;

    let result = client
        .tools()
        .call("bounded_error", [("task", "loop")])
        .await
        .expect("tools/call");
    assert!(result.is_error, "{result:?}");
    assert!(text(&result).contains("after 3 turns"), "{}", text(&result));
    assert_eq!(script.requests().len(), 3);
    // Every call the model made ran, and its result went back.
    assert_eq!(script.requests()[2].tool_results().len(), 2);
    server.stop().await;
}

#[tokio::test]
async fn at_the_bound_the_answer_policy_asks_once_more_with_tools_refused() {
    let script = keeps_calling();
    let (server, _model) = server(&script).await;
    let client = server.client().await;
    let echoes_before = ECHOES.load(Ordering::SeqCst);

    let result = client
        .tools()
        .call("bounded_answer", [("task", "loop")])
        .await
        .expect("tools/call");
    assert!(!result.is_error, "{result:?}");
    assert_eq!(text(&result), "Stopped calling: here is what I have.");

    let requests = script.requests();
    assert_eq!(requests.len(), 4, "three turns, then the last request");
    assert!(requests[..3].iter().all(|r| r.tool_choice().is_none()));
    assert_eq!(requests[3].tool_choice(), Some(&json!("none")));
    assert_eq!(
        requests[3].tool_results().len(),
        3,
        "the work so far goes with it"
    );
    assert!(ECHOES.load(Ordering::SeqCst) - echoes_before >= 3);
    server.stop().await;
}

#[tokio::test]
async fn the_body_takes_the_context_and_injected_values_and_the_system_prompt_leads() {
    let script = ScriptedModel::new([Reply::text("Hi!")]);
    let (server, _model) = server(&script).await;
    let client = server.client().await;

    let result = client
        .tools()
        .call("greeter", [("name", "Ada")])
        .await
        .expect("tools/call");
    assert_eq!(text(&result), "Hi!");
    let request = &script.requests()[0];
    assert_eq!(request.system(), Some("Be brief."));
    let brief = request.first_user_text().unwrap();
    assert!(brief.starts_with("Hello Ada; the server has "), "{brief}");
    server.stop().await;
}

#[tokio::test]
async fn a_brief_may_be_a_whole_request_whose_own_settings_win() {
    let script = ScriptedModel::new([Reply::text("Written.")]);
    let (server, _model) = server(&script).await;
    let client = server.client().await;

    let result = client
        .tools()
        .call("with_request", [("topic", "rivers")])
        .await
        .expect("tools/call");
    assert_eq!(text(&result), "Written.");
    let request = &script.requests()[0];
    assert_eq!(
        request.model(),
        "scripted",
        "the injected model's name is used"
    );
    assert_eq!(request.system(), Some("The brief's own prompt"));
    assert_eq!(request.body()["temperature"], json!(0.25));
    assert_eq!(request.first_user_text().unwrap(), "Write about rivers.");
    server.stop().await;
}

#[tokio::test]
async fn a_brief_that_fails_is_a_tool_error_and_asks_no_model() {
    let script = ScriptedModel::new([Reply::text("unused")]);
    let (server, _model) = server(&script).await;
    let client = server.client().await;

    let result = client
        .tools()
        .call("picky", [("topic", "")])
        .await
        .expect("tools/call");
    assert!(result.is_error);
    assert!(
        text(&result).contains("say what the topic is"),
        "{result:?}"
    );
    assert!(script.requests().is_empty());
    server.stop().await;
}
