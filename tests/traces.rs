//! One trace across MCP: a caller's `_meta.traceparent` makes a run's spans, a nested run's and
//! the run of a `with` server (another Ladoga server, over HTTP) one trace under the caller's
//! span, as `tracing-opentelemetry` exports them, here to OpenTelemetry's in-memory exporter.
//! Through a real trace backend and the `board` example: `suite/peers/traces.rs`.

mod common;

use std::sync::OnceLock;
use std::time::Duration;

use common::{Server, client_for, connect, text};
use ladoga::testing::{Reply, ScriptedModel};
use ladoga::{LiveTools, Model, orchestrator};
use neva::prelude::*;
use neva::types::{CallToolRequestParams, CallToolResponse, RequestParamsMeta};
use opentelemetry::trace::{SpanId, TraceId, TracerProvider};
use opentelemetry_sdk::trace::{InMemorySpanExporter, SdkTracerProvider, SpanData};
use serde_json::json;
use tracing_subscriber::prelude::*;

#[tool(descr = "Jots a line down")]
async fn jot(line: String) -> String {
    format!("jotted: {line}")
}

/// Looks into a topic, with `jot`.
#[orchestrator(tools = ["jot"])]
async fn researcher(topic: String) -> String {
    format!("Research {topic}.")
}

/// Leads the plan: asks `researcher` here and `far_researcher`, another server's, at once.
#[orchestrator(tools = ["researcher", "far_researcher"], with = [LiveTools])]
async fn lead(focus: String) -> String {
    format!("Lead the plan around {focus}.")
}

/// `lead` asks both researchers in one turn, then answers; a researcher jots, then answers.
fn script() -> ScriptedModel {
    ScriptedModel::from_fn(|seen| {
        let brief = seen.first_user_text().unwrap_or_default();
        match (brief.starts_with("Lead"), seen.tool_results().len()) {
            (true, 0) => Reply::calls([
                ("researcher", json!({"topic": "the venue"})),
                ("far_researcher", json!({"topic": "the catering"})),
            ]),
            (false, 0) => Reply::call("jot", json!({"line": "a line"})),
            _ => Reply::text("Done."),
        }
    })
}

/// The spans every test of this binary exports, through the one subscriber it installs: a
/// `tracing-opentelemetry` layer, as a server that exports its spans has.
fn exported() -> &'static InMemorySpanExporter {
    static EXPORTER: OnceLock<InMemorySpanExporter> = OnceLock::new();
    EXPORTER.get_or_init(|| {
        let exporter = InMemorySpanExporter::default();
        let provider = SdkTracerProvider::builder()
            .with_simple_exporter(exporter.clone())
            .build();
        let tracer = provider.tracer("ladoga-tests");
        tracing_subscriber::registry()
            .with(tracing_opentelemetry::layer().with_tracer(tracer))
            .init();
        exporter
    })
}

/// The spans of `trace` exported so far.
fn spans_of(trace: TraceId) -> Vec<SpanData> {
    let spans = exported().get_finished_spans().expect("the exported spans");
    spans
        .into_iter()
        .filter(|span| span.span_context.trace_id() == trace)
        .collect()
}

/// Waits, for at most 10 s, until `trace` has `count` spans named `name`; its spans then.
async fn until_spans(trace: TraceId, name: &str, count: usize) -> Vec<SpanData> {
    for _ in 0..100 {
        let spans = spans_of(trace);
        if spans.iter().filter(|span| span.name == name).count() >= count {
            return spans;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    spans_of(trace)
}

/// Calls `tool` with the one argument `argument`, `traceparent` in the call's `_meta`, and
/// checks it answered.
async fn traced_call(client: &Client, tool: &str, argument: (&str, &str), traceparent: &str) {
    let mut meta = RequestParamsMeta::default();
    meta.traceparent = Some(traceparent.to_owned());
    let params = CallToolRequestParams::new(tool)
        .with_args([argument])
        .with_meta(meta);
    let result = (client.tools().call_raw(params).await)
        .and_then(|response| response.into_result::<CallToolResponse>())
        .expect("tools/call");
    assert!(!result.is_error, "{}", text(&result));
}

#[tokio::test]
async fn a_callers_traceparent_makes_the_run_its_nested_run_and_a_with_servers_run_one_trace() {
    exported();
    let trace = TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4736").unwrap();
    let host_span = SpanId::from_hex("00f067aa0ba902b7").unwrap();
    let script = script();
    let served = script.serve().await.expect("serves");
    let model: Model = served.model();
    let far = Server::start(App::new().add_singleton(model.clone())).await;
    let live = LiveTools::connect(client_for(far.addr), |tools| {
        tools
            .filter(|tool| tool.name == "researcher")
            .with_prefix("far_")
    })
    .await
    .expect("connects to the far server");
    let near = Server::start(App::new().add_singleton(model).add_singleton(live)).await;
    let client = connect(near.addr).await;

    let traceparent = format!("00-{trace}-{host_span}-01");
    traced_call(&client, "lead", ("focus", "the offsite"), &traceparent).await;

    let spans = until_spans(trace, "invoke_agent researcher", 2).await;
    for span in exported().get_finished_spans().unwrap() {
        eprintln!(
            "TEMP {} {} {} {}",
            span.span_context.trace_id(),
            span.span_context.span_id(),
            span.parent_span_id,
            span.name
        );
    }
    let names: Vec<&str> = spans.iter().map(|span| span.name.as_ref()).collect();
    let count = |name: &str| names.iter().filter(|seen| **seen == name).count();
    // The run, the nested run here and the far server's run, each with its model request and
    // its tool calls, all in the caller's trace.
    assert_eq!(count("invoke_agent lead"), 1, "{names:?}");
    assert_eq!(count("invoke_agent researcher"), 2, "{names:?}");
    assert_eq!(count("execute_tool jot"), 2, "{names:?}");
    assert_eq!(count("execute_tool researcher"), 1, "{names:?}");
    assert_eq!(count("execute_tool far_researcher"), 1, "{names:?}");
    assert!(count("chat scripted") >= 6, "{names:?}");
    // One tree: every span's parent is a span of the trace, but the first, the caller's child.
    let ids: Vec<SpanId> = spans
        .iter()
        .map(|span| span.span_context.span_id())
        .collect();
    let roots: Vec<&SpanData> = spans
        .iter()
        .filter(|span| !ids.contains(&span.parent_span_id))
        .collect();
    assert_eq!(roots.len(), 1, "{names:?}");
    assert_eq!(roots[0].name, "tools/call lead", "{names:?}");
    assert_eq!(roots[0].parent_span_id, host_span, "{}", roots[0].name);
    // The far run is below the call that made it.
    let by_id = |id: SpanId| spans.iter().find(|span| span.span_context.span_id() == id);
    let far_call = spans
        .iter()
        .find(|span| span.name == "execute_tool far_researcher")
        .expect("the far call's span");
    let far_run = spans
        .iter()
        .filter(|span| span.name == "invoke_agent researcher")
        .find(|run| {
            let mut parent = by_id(run.parent_span_id);
            while let Some(span) = parent {
                if span.span_context.span_id() == far_call.span_context.span_id() {
                    return true;
                }
                parent = by_id(span.parent_span_id);
            }
            false
        });
    assert!(far_run.is_some(), "{names:?}");

    client.disconnect().await.expect("disconnects");
    near.stop().await;
    far.stop().await;
}

#[tokio::test]
async fn a_call_without_a_traceparent_is_a_trace_of_its_own() {
    exported();
    let script = script();
    let served = script.serve().await.expect("serves");
    let near = Server::start(App::new().add_singleton(served.model())).await;
    let client = connect(near.addr).await;
    // Not as W3C Trace Context writes it (upper case): ignored.
    let traceparent = "00-4BF92F3577B34DA6A3CE929D0E0E4737-00F067AA0BA902B7-01";
    traced_call(&client, "researcher", ("topic", "the venue"), traceparent).await;
    let ignored = TraceId::from_hex("4bf92f3577b34da6a3ce929d0e0e4737").unwrap();
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(
        spans_of(ignored).is_empty(),
        "a malformed traceparent was adopted"
    );
    client.disconnect().await.expect("disconnects");
    near.stop().await;
}
