//! The spans of a run, called through the real MCP path: `invoke_agent`, `chat` per model
//! request and `execute_tool` per call, with the OpenTelemetry GenAI attribute names, and how
//! each run ended, nested and cancelled runs included; and a run on the caller's model, a span a
//! round under MCP 2026-07-28.

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use common::{Server, text};
use ladoga::orchestrator;
use ladoga::testing::{Reply, ScriptedModel};
use neva::prelude::*;
use serde_json::json;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context as LayerContext, Layer};
use tracing_subscriber::prelude::*;

/// A span as recorded: its name, its parent's id and its fields.
#[derive(Debug, Clone)]
struct Recorded {
    name: String,
    parent: Option<u64>,
    fields: BTreeMap<String, String>,
}

/// Every span by id.
type Spans = Arc<Mutex<BTreeMap<u64, Recorded>>>;

/// Keeps every span with its parent and fields.
struct Recorder(Spans);

struct Fields<'a>(&'a mut BTreeMap<String, String>);

impl Visit for Fields<'_> {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        self.0.insert(field.name().to_owned(), format!("{value:?}"));
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        self.0.insert(field.name().to_owned(), value.to_owned());
    }
}

impl<S> Layer<S> for Recorder
where
    S: tracing::Subscriber + for<'a> tracing_subscriber::registry::LookupSpan<'a>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: LayerContext<'_, S>) {
        let mut fields = BTreeMap::new();
        attrs.record(&mut Fields(&mut fields));
        let parent = ctx.span_scope(id).and_then(|mut scope| {
            scope.next();
            scope.next().map(|parent| parent.id().into_u64())
        });
        let span = Recorded {
            name: attrs.metadata().name().to_owned(),
            parent,
            fields,
        };
        lock(&self.0).insert(id.into_u64(), span);
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _: LayerContext<'_, S>) {
        if let Some(span) = lock(&self.0).get_mut(&id.into_u64()) {
            values.record(&mut Fields(&mut span.fields));
        }
    }
}

fn lock(spans: &Spans) -> std::sync::MutexGuard<'_, BTreeMap<u64, Recorded>> {
    spans
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// Every span of this test binary (whose tests run at once), recorded by one subscriber.
fn recorded() -> Spans {
    static SPANS: OnceLock<Spans> = OnceLock::new();
    SPANS
        .get_or_init(|| {
            let spans = Spans::default();
            tracing_subscriber::registry()
                .with(Recorder(Arc::clone(&spans)))
                .init();
            spans
        })
        .clone()
}

/// The `invoke_agent` spans of the agent `name`, with their ids.
fn agent_spans(spans: &Spans, name: &str) -> Vec<(u64, BTreeMap<String, String>)> {
    lock(spans)
        .iter()
        .filter(|(_, span)| {
            span.name == "invoke_agent"
                && span.fields.get("gen_ai.agent.name").map(String::as_str) == Some(name)
        })
        .map(|(id, span)| (*id, span.fields.clone()))
        .collect()
}

/// The fields of the spans named `name` whose parent is `parent`, in the order they began.
fn children(spans: &Spans, parent: u64, name: &str) -> Vec<BTreeMap<String, String>> {
    lock(spans)
        .values()
        .filter(|span| span.parent == Some(parent) && span.name == name)
        .map(|span| span.fields.clone())
        .collect()
}

#[tool(descr = "Adds two numbers")]
async fn add(a: i64, b: i64) -> String {
    (a + b).to_string()
}

/// Adds up.
#[orchestrator]
async fn accountant(task: String) -> String {
    task
}

#[tokio::test]
async fn a_run_is_an_agent_span_with_chat_and_tool_spans() {
    let spans = recorded();

    let script = ScriptedModel::new([
        Reply::call("add", json!({"a": 2, "b": 3}))
            .with_usage(12, 4)
            .after(Duration::from_millis(150)),
        Reply::text("5").with_usage(20, 1),
    ]);
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model())).await;
    let client = server.client().await;
    let result = client
        .tools()
        .call("accountant", [("task", "2 + 3")])
        .await
        .unwrap();
    assert_eq!(text(&result), "5");
    server.stop().await;

    let agents = agent_spans(&spans, "accountant");
    assert_eq!(agents.len(), 1, "{agents:#?}");
    let (id, agent) = &agents[0];
    assert_eq!(agent["gen_ai.operation.name"], "invoke_agent");
    assert_eq!(agent["otel.name"], "invoke_agent accountant");
    assert_eq!(agent["gen_ai.request.model"], "scripted");
    assert_eq!(agent["gen_ai.usage.input_tokens"], "32");
    assert_eq!(agent["gen_ai.usage.output_tokens"], "5");
    assert_eq!(agent["ladoga.stop"], "answered");
    assert_eq!(agent["ladoga.turns"], "2");

    let chats = children(&spans, *id, "chat");
    assert_eq!(chats.len(), 2, "{chats:#?}");
    assert_eq!(chats[0]["otel.name"], "chat scripted");
    assert_eq!(chats[0]["otel.kind"], "client");
    assert_eq!(chats[0]["gen_ai.usage.input_tokens"], "12");
    assert_eq!(chats[0]["gen_ai.response.finish_reasons"], "ToolCalls");
    assert_eq!(chats[0]["gen_ai.response.model"], "scripted");
    assert_eq!(chats[1]["gen_ai.usage.output_tokens"], "1");
    let first_chunk = |chat: &BTreeMap<String, String>| -> f64 {
        chat["gen_ai.response.time_to_first_chunk"].parse().unwrap()
    };
    assert!(first_chunk(&chats[0]) >= 0.15, "{chats:#?}");
    assert!(first_chunk(&chats[1]) < 0.15, "{chats:#?}");

    let tools = children(&spans, *id, "execute_tool");
    assert_eq!(tools.len(), 1, "{tools:#?}");
    assert_eq!(tools[0]["gen_ai.tool.name"], "add");
    assert_eq!(tools[0]["otel.name"], "execute_tool add");
    assert_eq!(tools[0]["gen_ai.tool.call.id"], "call_1_0");
    assert!(!tools[0].contains_key("error.type"));
}

/// Hands its task to `deep_b`, one call deep at most.
#[orchestrator(depth = 1)]
async fn deep_a(task: String) -> String {
    format!("A: {task}")
}

/// Would hand its task back to `deep_a`.
#[orchestrator(depth = 1)]
async fn deep_b(task: String) -> String {
    format!("B: {task}")
}

#[tokio::test]
async fn a_run_at_its_depth_bound_ends_as_depth_and_its_tokens_count_for_its_caller() {
    let spans = recorded();
    let script = ScriptedModel::from_fn(|request| {
        if request.tool_names().is_empty() {
            return Reply::text("B, without tools").with_usage(7, 3);
        }
        if request.tool_results().is_empty() {
            return Reply::call("deep_b", json!({"task": "go"})).with_usage(5, 1);
        }
        Reply::text("A is done").with_usage(9, 2)
    });
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model())).await;
    let client = server.client().await;
    let result = client
        .tools()
        .call("deep_a", [("task", "plan")])
        .await
        .unwrap();
    assert_eq!(text(&result), "A is done");
    server.stop().await;

    let outer = agent_spans(&spans, "deep_a");
    let inner = agent_spans(&spans, "deep_b");
    assert_eq!((outer.len(), inner.len()), (1, 1), "{outer:#?} {inner:#?}");
    let (inner, outer) = (&inner[0].1, &outer[0].1);
    assert_eq!(inner["ladoga.stop"], "depth");
    assert_eq!(inner["ladoga.turns"], "1");
    assert_eq!(inner["gen_ai.usage.input_tokens"], "7");
    assert_eq!(outer["ladoga.stop"], "answered");
    assert_eq!(outer["gen_ai.usage.input_tokens"], "21", "5 + 7 + 9");
}

#[tool(descr = "Takes ten seconds")]
async fn ponder() -> String {
    tokio::time::sleep(Duration::from_secs(10)).await;
    "pondered".to_owned()
}

/// Thinks it over.
#[orchestrator]
async fn thinker(task: String) -> String {
    task
}

#[tokio::test]
async fn a_run_whose_caller_gives_up_ends_as_cancelled_with_its_usage() {
    let spans = recorded();
    let script = ScriptedModel::new([Reply::call("ponder", json!({})).with_usage(11, 2)]);
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model())).await;
    let mut client = Client::new().with_options(|opt| {
        opt.with_http(|http| http.bind(server.addr.to_string()).with_endpoint("/mcp"))
            .with_timeout(Duration::from_millis(700))
    });
    client.connect().await.expect("connects");

    let gave_up = client.tools().call("thinker", [("task", "why")]).await;
    assert!(gave_up.is_err(), "the client timed out: {gave_up:?}");
    // The client's cancellation reaches the server, which drops the run.
    let mut ended = Vec::new();
    for _ in 0..50 {
        ended = agent_spans(&spans, "thinker");
        if ended
            .iter()
            .any(|(_, fields)| fields.contains_key("ladoga.stop"))
        {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(ended.len(), 1, "{ended:#?}");
    assert_eq!(ended[0].1["ladoga.stop"], "cancelled", "{ended:#?}");
    assert_eq!(ended[0].1["gen_ai.usage.input_tokens"], "11");
    server.stop().await;
}

/// Adds up, through whichever model can.
#[orchestrator(model = ladoga::Fallback)]
async fn fallback_accountant(task: String) -> String {
    task
}

#[tokio::test]
async fn a_chat_span_names_the_model_asked_and_the_model_that_answered() {
    let spans = recorded();
    let primary = ScriptedModel::new([Reply::failure(503, "down")]);
    let backup = ScriptedModel::new([Reply::text("5")]);
    let (primary_server, backup_server) = (
        primary.serve().await.unwrap(),
        backup.serve().await.unwrap(),
    );
    let model = |server: &ladoga::testing::ScriptedServer, name: &str| {
        let client = svir::Client::openai(server.url()).build().unwrap();
        ladoga::Model::new(client, name)
    };
    let fallback = ladoga::Fallback::new([
        model(&primary_server, "primary"),
        model(&backup_server, "backup"),
    ]);
    let server = Server::start(App::new().add_singleton(fallback)).await;
    let client = server.client().await;
    let result = client
        .tools()
        .call("fallback_accountant", [("task", "2 + 3")])
        .await
        .unwrap();
    assert_eq!(text(&result), "5");
    server.stop().await;

    let agents = agent_spans(&spans, "fallback_accountant");
    assert_eq!(agents.len(), 1, "{agents:#?}");
    let (id, agent) = &agents[0];
    assert_eq!(agent["gen_ai.request.model"], "primary");
    let chats = children(&spans, *id, "chat");
    assert_eq!(chats.len(), 1, "{chats:#?}");
    assert_eq!(chats[0]["gen_ai.request.model"], "primary");
    assert_eq!(chats[0]["gen_ai.response.model"], "backup");
}

/// Adds up on its caller's model.
#[orchestrator(model = ladoga::CallerModel)]
async fn caller_accountant(task: String) -> String {
    task
}

#[tokio::test]
async fn a_run_on_the_callers_model_is_an_agent_span_a_round_with_a_chat_span_a_sample() {
    let spans = recorded();
    let script = ScriptedModel::new([
        Reply::call("add", json!({"a": 2, "b": 3})),
        Reply::text("5"),
    ]);
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(ladoga::CallerModel::new())).await;
    let mut client = common::client_for(server.addr);
    let sampled = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    common::sampling::answer_with(&mut client, model.model(), sampled.clone());
    client.connect().await.expect("connects");
    let result = client
        .tools()
        .call("caller_accountant", [("task", "2 + 3")])
        .await
        .unwrap();
    assert_eq!(text(&result), "5");
    assert_eq!(sampled.load(std::sync::atomic::Ordering::SeqCst), 2);
    server.stop().await;

    // Under MCP 2026-07-28 three rounds, the call, then one a sample, the first two paused for
    // the next sample; under 2025-11-25 one, each sample a request to the client.
    let rounds = if cfg!(feature = "legacy-spec") { 1 } else { 3 };
    let agents = agent_spans(&spans, "caller_accountant");
    assert_eq!(agents.len(), rounds, "{agents:#?}");
    let paused = agents
        .iter()
        .filter(|(_, agent)| agent.get("error.type").map(String::as_str) == Some("paused"))
        .count();
    assert_eq!(paused, rounds - 1, "{agents:#?}");
    let ended: Vec<_> = agents
        .iter()
        .filter(|(_, agent)| agent.contains_key("ladoga.stop"))
        .collect();
    assert_eq!(ended.len(), 1, "{agents:#?}");
    assert_eq!(ended[0].1["ladoga.stop"], "answered");
    assert_eq!(ended[0].1["ladoga.turns"], "2");
    assert!(
        agents
            .iter()
            .all(|(_, agent)| agent["gen_ai.request.model"] == "caller")
    );
    // A `chat caller` span per request asked; the two sampled ones say how they finished.
    let chats: Vec<_> = (agents.iter())
        .flat_map(|(id, _)| children(&spans, *id, "chat"))
        .collect();
    assert!(
        chats.iter().all(|chat| chat["otel.name"] == "chat caller"),
        "{chats:#?}"
    );
    let mut finished: Vec<_> = (chats.iter())
        .filter_map(|chat| chat.get("gen_ai.response.finish_reasons").cloned())
        .collect();
    finished.sort();
    assert_eq!(finished, ["Stop", "ToolCalls"], "{chats:#?}");
    // The call ran once, in the round that had its sample.
    let tools: Vec<_> = (agents.iter())
        .flat_map(|(id, _)| children(&spans, *id, "execute_tool"))
        .collect();
    assert_eq!(tools.len(), 1, "{tools:#?}");
    assert_eq!(tools[0]["gen_ai.tool.name"], "add");
}
