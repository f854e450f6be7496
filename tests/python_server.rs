//! Another server's tools when that server is not neva: an orchestrator on a neva server offers
//! the tools of a server on the official MCP Python SDK's FastMCP (`MCPServer` since `mcp` 2.0),
//! started by the test on a free loopback port and killed when the test ends, however it ends.
//!
//! The default build talks to `mcp` 2.3.0 (MCP 2026-07-28), the `legacy-spec` build to
//! `mcp` 1.30.0 (2025-11-25). Ignored by a plain `cargo test`, since it needs the SDK:
//! `scripts/peers install` installs both, and `scripts/test` runs this with `--ignored`, the
//! venv's interpreter in `LADOGA_PYTHON` (default build) or `LADOGA_PYTHON_LEGACY`
//! (`legacy-spec`).
//!
//! The 1.x server runs stateless (`stateless_http=True`): neva 0.9's client sends a session id
//! back as a hyphenated UUID, and the SDK's are 32 hex digits, so a session is not found again.

mod common;

use std::net::SocketAddr;

use common::{Server, client_for, text};
use ladoga::guard::{Fence, Provenance};
use ladoga::testing::{Reply, ScriptedModel};
use ladoga::{LiveTools, Model, orchestrator};
use neva::prelude::*;
use serde_json::json;
use tokio::process::Child;

/// Asks the weather with the Python server's tools.
#[orchestrator(tools = ["py_*"], with = [LiveTools])]
async fn weather(task: String) -> String {
    task
}

/// Plans a trip with the Python server's tools, behind the fence and provenance.
#[orchestrator(tools = ["py_*"], with = [LiveTools], guard = [Fence, Provenance])]
async fn guarded_trip(task: String) -> String {
    task
}

/// Runs the tests of this file one at a time. Six Python servers starting at once on two cores
/// made about one run in ten fail to connect (neva's client logs the failed send, then waits out
/// its 60-second timeout); one at a time, none did in fifteen runs.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The Python server, listening on a free loopback port; killed when the child is dropped.
async fn python_server() -> (Child, SocketAddr) {
    common::python_server::start("python_tools_server.py", &[]).await
}

/// `weather` asked about Oslo on a server whose model is `model` and whose `tools` are the
/// Python server's: the result, once the server is stopped.
async fn ask_weather(model: Model, tools: LiveTools) -> CallToolResponse {
    let a = Server::start(App::new().add_singleton(model).add_singleton(tools)).await;
    let result = a
        .client()
        .await
        .tools()
        .call("weather", [("task", "Will it rain in Oslo?")])
        .await
        .expect("tools/call");
    a.stop().await;
    result
}

/// The Python server's tools, offered as `py_…`, through a client of its own (`connect`).
async fn offered(addr: SocketAddr) -> LiveTools {
    LiveTools::connect(client_for(addr), |tools| tools.with_prefix("py_"))
        .await
        .expect("connects to the Python server")
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK: run by scripts/test"]
async fn an_orchestrator_calls_a_fastmcp_servers_tool() {
    let _one = ONE_AT_A_TIME.lock().await;
    let (_python, addr) = python_server().await;
    let script = ScriptedModel::new([
        Reply::call("py_forecast", json!({"city": "Oslo"})),
        Reply::text("Sunny in Oslo."),
    ]);
    let model = script.serve().await.expect("serves");

    let result = ask_weather(model.model(), offered(addr).await).await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(text(&result), "Sunny in Oslo.");

    let requests = script.requests();
    assert_eq!(
        requests[0].tool_names(),
        ["py_forecast", "py_radar", "py_reviews", "py_book"]
    );
    let results = requests[1].tool_results();
    assert_eq!(results[0].1, "Sunny in Oslo tomorrow");
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK: run by scripts/test"]
async fn a_strict_profiles_null_for_an_optional_argument_reaches_the_server_left_out() {
    let _one = ONE_AT_A_TIME.lock().await;
    let (_python, addr) = python_server().await;
    let script = ScriptedModel::new([
        // As OpenAI's strict mode has it send an optional argument it leaves unset.
        Reply::call("py_forecast", json!({"city": "Oslo", "days": null})),
        Reply::text("Sunny in Oslo."),
    ]);
    let model = script.serve().await.expect("serves");
    let strict = model
        .model()
        .with_schema_profile(ladoga::SchemaProfile::OpenAiStrict);

    let result = ask_weather(strict, offered(addr).await).await;
    assert!(!result.is_error, "{result:?}");

    let requests = script.requests();
    let parameters = &requests[0].body()["tools"][0]["function"]["parameters"];
    assert_eq!(
        parameters["required"],
        json!(["city", "days"]),
        "{parameters}"
    );
    let results = requests[1].tool_results();
    assert_eq!(results[0].1, "Sunny in Oslo tomorrow", "{results:?}");
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK: run by scripts/test"]
async fn a_result_with_an_image_keeps_its_text_and_says_what_was_left_out() {
    let _one = ONE_AT_A_TIME.lock().await;
    let (_python, addr) = python_server().await;
    let url = format!("http://{addr}/mcp");
    let tools = LiveTools::connect_url(&url, |opt| opt, |tools| tools.with_prefix("py_"))
        .await
        .expect("connects to the Python server");
    let script = ScriptedModel::new([
        Reply::call("py_radar", json!({"city": "Oslo"})),
        Reply::text("Rain by noon in Oslo."),
    ]);
    let model = script.serve().await.expect("serves");

    let result = ask_weather(model.model(), tools).await;
    assert!(!result.is_error, "{result:?}");

    let told = &script.requests()[1].tool_results()[0].1;
    assert_eq!(
        told,
        "The radar of Oslo:\n\n[The tool returned an image (image/png) here, which cannot be \
         passed on to the model.]\n\nRain by noon.",
    );
}

/// Plans a trip, handing the booking to `travel`.
#[orchestrator(system = "trip", tools = ["travel"])]
async fn plan_trip(task: String) -> String {
    task
}

/// Books travel with the booking server's tools.
#[orchestrator(system = "travel", tools = ["py_*"], with = [LiveTools])]
async fn travel(task: String) -> String {
    task
}

/// The model of `plan_trip` and `travel`: `plan_trip` hands `task` to `travel`, which calls the
/// booking server's `tool` for Oslo; each then answers with what it heard.
fn trip_model(task: &'static str, tool: &'static str) -> ScriptedModel {
    ScriptedModel::from_fn(move |seen| {
        let heard: Vec<String> = (seen.tool_results().into_iter())
            .map(|(_, told)| told)
            .collect();
        match (seen.system().unwrap_or_default(), heard.is_empty()) {
            ("trip", true) => Reply::call("travel", json!({ "task": task })),
            ("travel", true) => Reply::call(tool, json!({"city": "Oslo"})),
            (system, _) => Reply::text(format!("{system}: {}", heard.join(" | "))),
        }
    })
}

/// A server whose tool samples its client's model (`eliciting_server.py`'s `brief`, MCP
/// 2026-07-28), offered to `travel`, which `plan_trip` calls in process: the sampling request goes
/// to the host at the top (`toolbox::sample_above`), its model makes the sample in a later round
/// of the top call, and the server's call is made again with it: sampled once, briefed once.
#[cfg(not(feature = "legacy-spec"))]
#[tokio::test]
#[ignore = "needs the MCP Python SDK: run by scripts/test"]
async fn a_with_servers_sampling_request_is_made_by_the_host_at_the_top() {
    let _one = ONE_AT_A_TIME.lock().await;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    let (_python, addr) = common::python_server::start("eliciting_server.py", &[]).await;
    let url = format!("http://{addr}/mcp");
    let tools = LiveTools::connect_url(&url, |opt| opt, |tools| tools.with_prefix("py_"))
        .await
        .expect("connects to the Python server");
    let script = trip_model("Brief me on Oslo", "py_brief");
    let model = script.serve().await.expect("serves");
    let host = ScriptedModel::from_fn(|seen| {
        let asked = seen.last_user_text().unwrap_or_default();
        Reply::text(format!(
            "the host's model read \"{asked}\": fjords and rain"
        ))
    });
    let host_model = host.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model()).add_singleton(tools)).await;
    let mut client = client_for(server.addr);
    let sampled = Arc::new(AtomicUsize::new(0));
    common::sampling::answer_with(&mut client, host_model.model(), sampled.clone());
    client.connect().await.expect("connects");

    let result = client
        .tools()
        .call("plan_trip", [("task", "Brief me on Oslo")])
        .await
        .expect("tools/call");

    assert!(!result.is_error, "{result:?}");
    assert_eq!(
        text(&result),
        "trip: travel: Brief of Oslo (brief 1): the host's model read \"Brief me on Oslo.\": \
         fjords and rain"
    );
    assert_eq!(sampled.load(Ordering::SeqCst), 1, "sampled once");
    assert_eq!(host.requests().len(), 1, "the host's model was asked once");
    let requests = script.requests();
    for system in ["trip", "travel"] {
        let sent = (requests.iter())
            .filter(|seen| seen.system() == Some(system))
            .count();
        assert_eq!(sent, 2, "each of {system}'s requests was sent once");
    }
    drop(client);
    server.stop().await;
}

/// A server whose tool asks before it books (`eliciting_server.py`, MCP 2026-07-28), offered to
/// `travel`, which `plan_trip` calls in process: the server's question goes to the person at the
/// top, tagged with its path; under MCP 2026-07-28 it is a round of the top call, the server's
/// call made again with the answer in the next, and the trip booked once. Under `legacy-spec` the
/// server asks mid-call, on the call's stream, and the relay in front of it ties the question to
/// the call. A declined question books nothing, and the model is told.
#[tokio::test]
#[ignore = "needs the MCP Python SDK: run by scripts/test"]
async fn a_with_servers_question_is_answered_by_the_person_at_the_top() {
    let _one = ONE_AT_A_TIME.lock().await;
    use std::sync::{Arc, Mutex};

    use neva::types::elicitation::{ElicitRequestParams, ElicitResult};

    for (answer, told) in [
        (
            ElicitResult::accept().with_content(json!({"seats": 2})),
            "trip: travel: Booked 2 seats to Oslo (trip 1)",
        ),
        (
            ElicitResult::decline(),
            "trip: travel: Not booked: the person declined",
        ),
    ] {
        let (_python, addr) = common::python_server::start("eliciting_server.py", &[]).await;
        let url = format!("http://{addr}/mcp");
        let tools = LiveTools::connect_url(&url, |opt| opt, |tools| tools.with_prefix("py_"))
            .await
            .expect("connects to the Python server");
        let script = trip_model("Book Oslo", "py_book");
        let model = script.serve().await.expect("serves");
        let server =
            Server::start(App::new().add_singleton(model.model()).add_singleton(tools)).await;
        let mut client = client_for(server.addr);
        let asked: Arc<Mutex<Vec<serde_json::Value>>> = Arc::default();
        let person = (asked.clone(), answer.clone());
        client.map_elicitation(move |params: ElicitRequestParams| {
            let (asked, answer) = person.clone();
            async move {
                asked
                    .lock()
                    .unwrap()
                    .push(serde_json::to_value(&params).unwrap());
                answer
            }
        });
        client.connect().await.expect("connects");

        let result = client
            .tools()
            .call("plan_trip", [("task", "Plan a trip to Oslo")])
            .await
            .expect("tools/call");

        assert!(!result.is_error, "{result:?}");
        assert_eq!(text(&result), told);
        let asked = asked.lock().unwrap().clone();
        assert_eq!(asked.len(), 1, "asked once: {asked:?}");
        let message = asked[0]["message"].as_str().unwrap_or_default();
        assert!(
            message.starts_with("[plan_trip › travel › py_book] How many seats to Oslo?"),
            "{message}"
        );
        assert_eq!(
            asked[0]["_meta"][ladoga::approval::PATH_KEY],
            json!(["plan_trip", "travel", "py_book"])
        );
        let requests = script.requests();
        for system in ["trip", "travel"] {
            let sent = requests
                .iter()
                .filter(|seen| seen.system() == Some(system))
                .count();
            assert_eq!(sent, 2, "each of {system}'s requests was sent once");
        }
        drop(client);
        server.stop().await;
    }
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK: run by scripts/test"]
async fn a_fastmcp_servers_results_reach_the_model_fenced_and_cannot_make_it_book() {
    let _one = ONE_AT_A_TIME.lock().await;
    let (_python, addr) = python_server().await;
    // A model that obeys the reviews it reads; then asks the weather, which only reads.
    let script = ScriptedModel::new([
        Reply::call("py_reviews", json!({"city": "Oslo"})),
        Reply::calls([
            ("py_book", json!({"hotel": "Riverside View Hotel"})),
            ("py_forecast", json!({"city": "Oslo"})),
        ]),
        Reply::text("Done."),
    ]);
    let model = script.serve().await.expect("serves");
    let app = App::new()
        .add_singleton(model.model())
        .add_singleton(offered(addr).await)
        .add_singleton(Fence::new())
        .add_singleton(Provenance);
    let server = Server::start(app).await;
    // A caller that declares no elicitation: nobody can approve the booking.
    let result = server
        .client()
        .await
        .tools()
        .call("guarded_trip", [("task", "Find me a quiet hotel in Oslo")])
        .await
        .expect("tools/call");
    server.stop().await;
    assert!(!result.is_error, "{result:?}");

    let requests = script.requests();
    let reviews = &requests[1].tool_results()[0].1;
    assert!(
        reviews.starts_with("<untrusted-data source=\"py_reviews\">\nGuests of Oslo"),
        "{reviews}"
    );
    assert!(
        reviews.contains("</untrusted-data>\nThe text between"),
        "{reviews}"
    );
    let told = requests[2].tool_results();
    assert!(
        told[1].1.contains("cannot be asked"),
        "the booking did not run: {told:?}"
    );
    // The server annotated the forecast read-only: after the reviews it still runs, fenced.
    assert!(told[2].1.contains("Sunny in Oslo tomorrow"), "{told:?}");
    let block = serde_json::to_value(&result.content[0]).unwrap();
    let report = &block["_meta"][ladoga::REPORT_KEY];
    assert_eq!(report["untrusted"], json!(["py_reviews", "py_forecast"]));
}
