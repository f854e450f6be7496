//! A hostile remote server costs only its own bad tools: an orchestrator offering, with
//! `with = [LiveTools]`, the tools of a server on the official MCP Python SDK whose listing holds
//! a recursive `$ref`, a schema nested too deep, a 100,000-value enum, a 5 MB schema, names with
//! NUL, ESC and a newline, a name too long, a name listed twice, two names that one rename makes
//! one, and a name this server's own tool has (tests/peers/hostile_tools_server.py). The healthy
//! tool is offered and called; each bad one is left out, said once in the log, escaped; and of a
//! server listing 10,000 tools the model is offered the first `MAX_REMOTE_TOOLS`.
//!
//! The server is started on a free loopback port and killed when the test ends, however it ends.
//! Ignored by a plain `cargo test`, since it needs the SDK: `scripts/test` runs this with
//! `--ignored`, the venv's interpreter in `LADOGA_PYTHON` (default build) or
//! `LADOGA_PYTHON_LEGACY` (`legacy-spec`).

mod common;

use std::fmt::Write as _;
use std::net::SocketAddr;
use std::sync::{Mutex, OnceLock, PoisonError};

use common::{Server, client_for, text};
use ladoga::testing::{Reply, ScriptedModel};
use ladoga::{LiveTools, MAX_REMOTE_TOOL_BYTES, MAX_REMOTE_TOOLS, orchestrator};
use neva::prelude::*;
use serde_json::json;
use tokio::process::Child;
use tracing::field::{Field, Visit};
use tracing_subscriber::layer::{Context as LayerContext, Layer};
use tracing_subscriber::prelude::*;

/// Forecasts with the hostile server's tools.
#[orchestrator(tools = ["h_*"], with = [LiveTools])]
async fn forecast_with(task: String) -> String {
    task
}

/// This server's own clock, whose name the hostile server's `clock` takes once prefixed.
#[tool(descr = "Tells the time")]
async fn h_clock() -> String {
    "noon".to_owned()
}

/// The hostile server, listing `mode`'s tools on a free loopback port; killed when the child is
/// dropped.
async fn hostile_server(mode: &[&str]) -> (Child, SocketAddr) {
    common::python_server::start("hostile_tools_server.py", mode).await
}

/// Ladoga's log events, each its message and fields as they were recorded, before any
/// formatting: what a log line would carry.
fn events() -> &'static Mutex<Vec<String>> {
    static EVENTS: OnceLock<&'static Mutex<Vec<String>>> = OnceLock::new();
    EVENTS.get_or_init(|| {
        let events: &'static Mutex<Vec<String>> = Box::leak(Box::default());
        let subscriber = tracing_subscriber::registry().with(Recorder(events));
        tracing::subscriber::set_global_default(subscriber).expect("the first subscriber");
        events
    })
}

/// The events of ladoga recorded so far.
fn recorded() -> Vec<String> {
    events()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .clone()
}

/// The events of ladoga recorded so far that say a tool `tool` was left out.
fn left_out(tool: &str) -> Vec<String> {
    let field = format!("tool={tool} ");
    let events = recorded();
    let said = events
        .iter()
        .filter(|event| event.contains("not offered to the model"));
    said.filter(|event| event.contains(&field))
        .cloned()
        .collect()
}

/// Records each event of the `ladoga` target as `message field=value …`.
struct Recorder(&'static Mutex<Vec<String>>);

impl<S: tracing::Subscriber> Layer<S> for Recorder {
    fn on_event(&self, event: &tracing::Event<'_>, _: LayerContext<'_, S>) {
        if event.metadata().target() != "ladoga" {
            return;
        }
        let mut line = Line(String::new());
        event.record(&mut line);
        let mut events = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        events.push(line.0);
    }
}

struct Line(String);

impl Visit for Line {
    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        match field.name() {
            "message" => write!(self.0, "{value:?} "),
            name => write!(self.0, "{name}={value:?} "),
        }
        .expect("a string");
    }

    fn record_str(&mut self, field: &Field, value: &str) {
        write!(self.0, "{}={value} ", field.name()).expect("a string");
    }
}

/// Asks `forecast_with` on `a`, answering its text.
async fn ask(a: &Server) -> String {
    let result = a
        .client()
        .await
        .tools()
        .call("forecast_with", [("task", "Will it rain in Oslo?")])
        .await
        .expect("tools/call");
    assert!(!result.is_error, "{}", text(&result));
    text(&result)
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK: run by scripts/test"]
async fn a_bad_remote_tool_is_left_out_said_once_escaped_and_the_healthy_one_answers() {
    events();
    let (_python, addr) = hostile_server(&[]).await;
    let tools = LiveTools::connect(client_for(addr), |tools| {
        tools
            .rename(|name| name.replace('.', "_"))
            .with_prefix("h_")
    })
    .await
    .expect("connects to the hostile server");
    let script = ScriptedModel::new([
        Reply::call("h_forecast", json!({"city": "Oslo"})),
        Reply::text("Sunny in Oslo."),
        Reply::text("Still sunny."),
    ]);
    let model = script.serve().await.expect("serves");
    let app = App::new().add_singleton(model.model()).add_singleton(tools);
    let a = Server::start(app).await;

    assert_eq!(ask(&a).await, "Sunny in Oslo.");
    assert_eq!(
        ask(&a).await,
        "Still sunny.",
        "a second run, as well offered"
    );

    let requests = script.requests();
    for request in [&requests[0], &requests[2]] {
        assert_eq!(
            request.tool_names(),
            ["h_clock", "h_forecast", "h_notes_read"]
        );
    }
    assert_eq!(requests[1].tool_results()[0].1, "Sunny in Oslo tomorrow");
    let sent = &requests[0].body()["tools"];
    assert_eq!(
        sent[0]["function"]["description"], "Tells the time",
        "this server's own clock, not the remote one: {sent}"
    );
    let sent = sent.to_string();
    assert!(sent.len() < MAX_REMOTE_TOOL_BYTES, "{} bytes", sent.len());

    // Each bad tool said once, over two runs, its name escaped.
    let long = format!("long_{}", "x".repeat(70));
    let bad = [
        "nul\\0name",
        "esc\\u{1b}[31mred",
        "new\\nline",
        &long,
        "notes_read",
        "h_outline",
        "deep",
        "huge_enum",
        "huge_schema",
        "h_clock",
    ];
    for tool in bad {
        assert_eq!(left_out(tool).len(), 1, "{tool}: {:?}", left_out(tool));
    }
    assert!(left_out("forecast")[0].contains("lists it twice"));
    let events = recorded();
    for event in events.iter() {
        assert!(
            !event.chars().any(char::is_control),
            "a raw control character: {event:?}"
        );
    }
    a.stop().await;
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK: run by scripts/test"]
async fn of_a_server_listing_10000_tools_the_first_128_are_offered_and_that_is_said_once() {
    events();
    let (_python, addr) = hostile_server(&["many"]).await;
    let tools = LiveTools::connect(client_for(addr), |tools| tools.with_prefix("h_"))
        .await
        .expect("connects to the hostile server");
    let script = ScriptedModel::new([
        Reply::call("h_tool_0127", json!({})),
        Reply::text("Called."),
        Reply::text("Again."),
    ]);
    let model = script.serve().await.expect("serves");
    let app = App::new().add_singleton(model.model()).add_singleton(tools);
    let a = Server::start(app).await;

    assert_eq!(ask(&a).await, "Called.");
    assert_eq!(ask(&a).await, "Again.");

    let requests = script.requests();
    let names = requests[0].tool_names();
    assert_eq!(
        names.len(),
        1 + MAX_REMOTE_TOOLS,
        "this server's clock, and 128"
    );
    assert_eq!(names[..3], ["h_clock", "h_forecast", "h_tool_0001"]);
    assert_eq!(names.last().map(String::as_str), Some("h_tool_0127"));
    assert!(
        requests[1].tool_results()[0].1.contains("Unknown tool"),
        "the Python server lists it, but cannot call it: {:?}",
        requests[1].tool_results()
    );
    let events = recorded();
    let said: Vec<_> = events
        .iter()
        .filter(|event| event.contains("left_out=9872"))
        .collect();
    assert_eq!(said.len(), 1, "{said:?}");
    a.stop().await;
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK: run by scripts/test"]
async fn board_with_a_hostile_remote_starts_and_plans_with_its_healthy_tool() {
    let (_python, remote) = hostile_server(&[]).await;
    let script = ScriptedModel::new([
        Reply::call("remote_forecast", json!({"city": "Oslo"})),
        Reply::text("Plan outdoors: sunny."),
    ]);
    let model = script.serve().await.expect("the scripted model serves");
    let url = format!("http://{remote}/mcp");
    let args = ["--remote", url.as_str()];
    let (_board, addr) = common::board_over_http_with(&model.url(), "scripted", &args).await;
    // A remote tool says nothing of itself, so `plan_week` asks before calling it: approved.
    let mut client = client_for(addr);
    client.map_elicitation(|_: neva::types::elicitation::ElicitRequestParams| {
        neva::types::elicitation::ElicitResult::accept()
    });
    client.connect().await.expect("connects");

    assert_eq!(common::plan_week(&client).await, "Plan outdoors: sunny.");
    let requests = script.requests();
    let mut remote: Vec<String> = requests[0].tool_names();
    remote.retain(|name| name.starts_with("remote_"));
    // `notes.read` is left out under the board's plain prefix, `notes_read` offered.
    assert_eq!(
        remote,
        ["remote_forecast", "remote_notes_read", "remote_clock"]
    );
    assert_eq!(requests[1].tool_results()[0].1, "Sunny in Oslo tomorrow");
}
