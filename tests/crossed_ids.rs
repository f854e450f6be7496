//! A hostile remote server behind `with = [LiveTools]`, reached with `LiveTools::connect_url`:
//! one on the official MCP Python SDK (`tests/peers/crossed_ids_server.py`) that answers the
//! POST of one call with another call's answer under that call's id, and has a tool that never
//! answers. neva 0.9's client matches answers by id alone (docs/neva-crossed-ids.md); the relay
//! in front of every server reached by URL gives each call its own answer or an error, and a
//! call that never answers ends at the run's call timeout, not at neva's 10 s.
//!
//! Ignored by a plain `cargo test`, since it needs the SDK: `scripts/test` runs it with
//! `--ignored`, the venv's interpreter in `LADOGA_PYTHON` (default build) or
//! `LADOGA_PYTHON_LEGACY` (`legacy-spec`).

mod common;

use std::net::SocketAddr;
use std::time::{Duration, Instant};

use common::{Server, text};
use ladoga::testing::{Reply, ScriptedModel};
use ladoga::{LiveTools, orchestrator};
use neva::prelude::*;
use serde_json::json;
use tokio::process::Child;

/// Asks with the hostile server's tools, each call bounded by the default call timeout (60 s).
#[orchestrator(tools = ["x_*"], with = [LiveTools])]
async fn ask(task: String) -> String {
    task
}

/// [`ask`], each call bounded by 15 s: past neva's 10 s request timeout.
#[orchestrator(tools = ["x_*"], with = [LiveTools], call_timeout = "15s")]
async fn ask_patiently(task: String) -> String {
    task
}

/// [`ask`], each call bounded by 2 s.
#[orchestrator(tools = ["x_*"], with = [LiveTools], call_timeout = "2s")]
async fn ask_briefly(task: String) -> String {
    task
}

/// The hostile server, listening on a free loopback port; killed when the child is dropped.
async fn hostile_server() -> (Child, SocketAddr) {
    common::python_server::start("crossed_ids_server.py", &[]).await
}

/// A model that calls the tool the task names (`alice`, `bob`: `x_whose` for them; `echo`,
/// `hang`), then answers with what it was told.
fn model() -> ScriptedModel {
    ScriptedModel::from_fn(|seen| {
        if let Some((_, told)) = seen.tool_results().first() {
            return Reply::text(format!("told: {told}"));
        }
        let task = seen.first_user_text().unwrap_or_default();
        match ["alice", "bob", "echo", "hang"]
            .into_iter()
            .find(|word| task.contains(word))
        {
            Some("echo") => Reply::call("x_echo", json!({"text": "healthy"})),
            Some("hang") => Reply::call("x_hang", json!({})),
            Some(owner) => Reply::call("x_whose", json!({"owner": owner})),
            None => Reply::text("no task"),
        }
    })
}

/// A neva server whose orchestrators offer the hostile server's tools, and its model.
async fn orchestrating(remote: SocketAddr) -> (Server, ladoga::testing::ScriptedServer) {
    let url = format!("http://{remote}/mcp");
    let tools = LiveTools::connect_url(&url, |opt| opt, |tools| tools.with_prefix("x_"))
        .await
        .expect("connects to the hostile server");
    let model = model().serve().await.expect("the scripted model serves");
    let app = App::new().add_singleton(model.model()).add_singleton(tools);
    (Server::start(app).await, model)
}

/// `orchestrator`'s answer to a caller of its own for `task`, and how long it took.
async fn answer(server: &Server, orchestrator: &str, task: &str) -> (String, Duration) {
    let client = server.client().await;
    let started = Instant::now();
    let result = client
        .tools()
        .call(orchestrator, [("task", task)])
        .await
        .expect("tools/call");
    assert!(!result.is_error, "{result:?}");
    (text(&result), started.elapsed())
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK: run by scripts/test"]
async fn an_answer_to_another_call_reaches_neither_caller() {
    let (_python, remote) = hostile_server().await;
    let (server, _model) = orchestrating(remote).await;

    let alice = answer(&server, "ask", "the secret of alice");
    let bob = async {
        // The second of the pair, a moment after the first.
        tokio::time::sleep(Duration::from_millis(300)).await;
        answer(&server, "ask", "the secret of bob").await
    };
    let healthy = async {
        tokio::time::sleep(Duration::from_millis(150)).await;
        answer(&server, "ask", "echo this").await
    };
    let ((alice, alice_took), (bob, bob_took), (healthy, _)) = tokio::join!(alice, bob, healthy);

    assert!(
        !alice.contains("bob"),
        "alice was told bob's answer: {alice}"
    );
    assert!(!bob.contains("alice"), "bob was told alice's answer: {bob}");
    let crossed = |told: &str| told.contains("answered another call");
    assert!(
        crossed(&alice) != crossed(&bob),
        "one caller is told its server answered another call: {alice} / {bob}"
    );
    assert!(
        alice.contains("the secret of alice") || bob.contains("the secret of bob"),
        "the other gets its own answer: {alice} / {bob}"
    );
    assert_eq!(healthy, "told: healthy");
    for took in [alice_took, bob_took] {
        assert!(
            took < Duration::from_secs(8),
            "no one waited for a timeout: {took:?}"
        );
    }
    server.stop().await;
}

#[tokio::test]
#[ignore = "needs the MCP Python SDK: run by scripts/test"]
async fn a_call_that_never_answers_ends_at_the_call_timeout_not_at_neva_s_ten_seconds() {
    let (_python, remote) = hostile_server().await;
    let (server, _model) = orchestrating(remote).await;

    let ((patient, patient_took), (brief, brief_took)) = tokio::join!(
        answer(&server, "ask_patiently", "hang"),
        answer(&server, "ask_briefly", "hang"),
    );

    assert!(
        patient_took > Duration::from_secs(12) && patient_took < Duration::from_secs(25),
        "{patient_took:?}"
    );
    assert!(
        patient.contains("did not answer the call to `x_hang` within 15s"),
        "{patient}"
    );
    assert!(
        brief_took >= Duration::from_secs(2) && brief_took < Duration::from_secs(6),
        "{brief_took:?}"
    );
    assert!(
        brief.contains("did not answer the call to `x_hang` within 2s"),
        "{brief}"
    );
    // The server is still answered after both gave up.
    assert_eq!(answer(&server, "ask", "echo").await.0, "told: healthy");
    server.stop().await;
}

/// The reproduction for neva's maintainers (docs/neva-crossed-ids.md): neva 0.9's own client,
/// with no relay, hands bob's call the answer the server gave to alice's POST under bob's id,
/// and drops bob's own; alice's call waits out the request timeout. Fails once neva matches an
/// answer to the POST it came back to: the relay's check may then go.
#[tokio::test]
#[ignore = "needs the MCP Python SDK: run by scripts/test"]
async fn nevas_own_client_hands_one_call_another_calls_answer() {
    let (_python, remote) = hostile_server().await;
    let mut client = Client::new().with_options(|opt| {
        opt.with_http(|http| http.bind(remote.to_string()).with_endpoint("/mcp"))
            .with_timeout(Duration::from_secs(3))
    });
    client
        .connect()
        .await
        .expect("connects to the hostile server");
    let whose = |owner: &'static str| {
        let client = &client;
        async move {
            let called = client.tools().call("whose", [("owner", owner)]).await;
            called
                .map(|result| text(&result))
                .map_err(|error| error.to_string())
        }
    };
    let bob = async {
        tokio::time::sleep(Duration::from_millis(300)).await;
        whose("bob").await
    };
    let (alice, bob) = tokio::join!(whose("alice"), bob);

    assert_eq!(
        bob.as_deref(),
        Ok("the secret of alice"),
        "alice: {alice:?}"
    );
    assert!(alice.is_err(), "{alice:?}");
}
