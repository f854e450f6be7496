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

/// Looks into a topic as a durable run on Restate, with `jot`.
#[orchestrator(tools = ["jot"], durable = true)]
async fn durable_researcher(topic: String) -> String {
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

/// The value of `key` among `span`'s attributes, as text.
fn attribute(span: &SpanData, key: &str) -> Option<String> {
    (span.attributes.iter())
        .find(|attribute| attribute.key.as_str() == key)
        .map(|attribute| attribute.value.to_string())
}

/// A durable run (on a real restate-server) is in its caller's trace: the attempt that runs it,
/// through the workflow, is a `tools/call` span whose parent is the caller's span, carried in the
/// run's sealed call, so an attempt replayed on another replica is too; and the call's spans
/// have OpenTelemetry's MCP attributes.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server: LADOGA_RESTATE (scripts/peers install)"]
async fn a_durable_runs_attempt_is_a_span_of_its_callers_trace() {
    exported();
    let restate = common::restate::Restate::start().await;
    let trace = TraceId::from_hex("5bf92f3577b34da6a3ce929d0e0e4736").unwrap();
    let host_span = SpanId::from_hex("10f067aa0ba902b7").unwrap();
    let script = script();
    let served = script.serve().await.expect("serves");
    let app = App::new().add_singleton(served.model());
    let app = ladoga::durable::Restate::new(restate.ingress(), common::free_addr())
        .admin(restate.admin())
        .secret("the replicas' secret, for this test")
        .serve(app)
        .await
        .expect("the Restate endpoint");
    let server = Server::start(app).await;
    restate.wait_for_service("LadogaRun").await;
    let client = connect(server.addr).await;

    let traceparent = format!("00-{trace}-{host_span}-01");
    traced_call(
        &client,
        "durable_researcher",
        ("topic", "the venue"),
        &traceparent,
    )
    .await;

    let spans = until_spans(trace, "invoke_agent durable_researcher", 1).await;
    let names: Vec<&str> = spans.iter().map(|span| span.name.as_ref()).collect();
    let count = |name: &str| names.iter().filter(|seen| **seen == name).count();
    assert_eq!(count("invoke_agent durable_researcher"), 1, "{names:?}");
    assert_eq!(count("execute_tool jot"), 1, "{names:?}");
    // The call the replica took, and the attempt that ran the run: both the caller's children.
    let calls: Vec<&SpanData> = (spans.iter())
        .filter(|span| span.name == "tools/call durable_researcher")
        .collect();
    assert_eq!(calls.len(), 2, "{names:?}");
    assert!(
        calls.iter().all(|call| call.parent_span_id == host_span),
        "{names:?}"
    );
    let run = (spans.iter())
        .find(|span| span.name == "invoke_agent durable_researcher")
        .expect("the run's span");
    let by_id = |id: SpanId| spans.iter().find(|span| span.span_context.span_id() == id);
    let mut above = Vec::new();
    let mut parent = by_id(run.parent_span_id);
    while let Some(span) = parent {
        above.push(span);
        parent = by_id(span.parent_span_id);
    }
    let top = above.last().expect("the run has a parent in the trace");
    assert_eq!(top.name, "tools/call durable_researcher", "{names:?}");
    // The attempt's call came through the workflow, not as a JSON-RPC request of the caller's.
    assert_eq!(attribute(top, "jsonrpc.request.id"), None, "{names:?}");
    // OpenTelemetry's MCP attributes, on the call the caller made.
    let taken = (calls.iter())
        .find(|call| attribute(call, "jsonrpc.request.id").is_some())
        .expect("the call with its request id");
    assert_eq!(
        attribute(taken, "gen_ai.operation.name").as_deref(),
        Some("execute_tool")
    );
    assert_eq!(
        attribute(taken, "gen_ai.tool.name").as_deref(),
        Some("durable_researcher")
    );
    assert_eq!(
        attribute(taken, "mcp.method.name").as_deref(),
        Some("tools/call")
    );
    #[cfg(not(feature = "legacy-spec"))]
    assert_eq!(
        attribute(taken, "mcp.protocol.version").as_deref(),
        Some("2026-07-28")
    );

    client.disconnect().await.expect("disconnects");
    server.stop().await;
}
