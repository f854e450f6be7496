//! The spans of a run, called through the real MCP path: `invoke_agent`, `chat` per model
//! request and `execute_tool` per call, with the OpenTelemetry GenAI attribute names.

mod common;

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use common::{Server, text};
use ladoga::orchestrator;
use ladoga::testing::{Reply, ScriptedModel};
use neva::prelude::*;
use serde_json::json;
use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing_subscriber::layer::{Context as LayerContext, Layer};
use tracing_subscriber::prelude::*;

/// A span's name and its fields, as recorded.
type Spans = Arc<Mutex<BTreeMap<u64, (String, BTreeMap<String, String>)>>>;

/// Keeps every span with its fields.
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

impl<S: tracing::Subscriber> Layer<S> for Recorder {
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, _: LayerContext<'_, S>) {
        let mut fields = BTreeMap::new();
        attrs.record(&mut Fields(&mut fields));
        let name = attrs.metadata().name().to_owned();
        self.0.lock().unwrap().insert(id.into_u64(), (name, fields));
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, _: LayerContext<'_, S>) {
        if let Some((_, fields)) = self.0.lock().unwrap().get_mut(&id.into_u64()) {
            values.record(&mut Fields(fields));
        }
    }
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
    let spans = Spans::default();
    tracing_subscriber::registry()
        .with(Recorder(Arc::clone(&spans)))
        .init();

    let script = ScriptedModel::new([
        Reply::call("add", json!({"a": 2, "b": 3})).with_usage(12, 4),
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

    let spans = spans.lock().unwrap();
    let named = |name: &str| -> Vec<&BTreeMap<String, String>> {
        spans
            .values()
            .filter(|(span, _)| span == name)
            .map(|(_, fields)| fields)
            .collect()
    };
    let agent = named("invoke_agent");
    assert_eq!(agent.len(), 1, "{spans:#?}");
    assert_eq!(agent[0]["gen_ai.operation.name"], "invoke_agent");
    assert_eq!(agent[0]["gen_ai.request.model"], "scripted");
    assert_eq!(agent[0]["gen_ai.usage.input_tokens"], "32");
    assert_eq!(agent[0]["gen_ai.usage.output_tokens"], "5");
    assert_eq!(agent[0]["ladoga.stop"], "answered");

    let chats = named("chat");
    assert_eq!(chats.len(), 2, "{spans:#?}");
    assert_eq!(chats[0]["gen_ai.usage.input_tokens"], "12");
    assert_eq!(chats[0]["gen_ai.response.finish_reasons"], "ToolCalls");
    assert_eq!(chats[1]["gen_ai.usage.output_tokens"], "1");

    let tools = named("execute_tool");
    assert_eq!(tools.len(), 1, "{spans:#?}");
    assert_eq!(tools[0]["gen_ai.tool.name"], "add");
    assert_eq!(tools[0]["gen_ai.tool.call.id"], "call_1_0");
    assert!(!tools[0].contains_key("error.type"));
}
