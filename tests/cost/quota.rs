//! A quota per caller: what one caller may spend on a tool in a window, kept in the run store.
//! Through a real neva server and client, the scripted model over HTTP answering each request
//! with 200 tokens written, at $10 a million: $0.002 a request. A call is admitted with a whole
//! run's worth reserved (here its `budget_usd`), and gives back what it did not spend. The
//! servers keep their runs in the process's store, which the tests share: each tool is one
//! test's.

use ladoga::cost::{Per, Quota, ServerQuota};
use ladoga::testing::{Reply, ScriptedModel};
use ladoga::{Price, REPORT_KEY, orchestrator};
use neva::prelude::*;
use serde_json::Value;

use super::common::{Server, connect, text};

/// Answers with $0.005 a day for each caller, a run worth $0.003.
#[orchestrator(quota = "0.005 USD/day", budget_usd = 0.003)]
async fn metered(focus: String) -> String {
    format!("Plan {focus}.")
}

/// Jots a line down, then answers, with $0.05 a day for each caller: ten runs' worth of $0.005.
#[orchestrator(quota = "0.05 USD/day", budget_usd = 0.005)]
async fn rationed(focus: String) -> String {
    format!("Plan {focus}.")
}

/// Answers with $0.01 a day for each caller.
#[orchestrator(quota = "0.01 USD/day")]
async fn allowance(focus: String) -> String {
    format!("Plan {focus}.")
}

/// Plans, with no quota of its own, a run worth $0.003.
#[orchestrator(budget_usd = 0.003)]
async fn first_errand(focus: String) -> String {
    format!("Plan {focus}.")
}

/// Plans, with no quota of its own, a run worth $0.003.
#[orchestrator(budget_usd = 0.003)]
async fn second_errand(focus: String) -> String {
    format!("Plan {focus}.")
}

/// A model that answers at once, each answer 200 tokens written; and a server asking it at $10
/// a million tokens written.
async fn server() -> (ScriptedModel, ladoga::testing::ScriptedServer, Server) {
    server_with(|app| app).await
}

/// [`server`], with `more` registered.
async fn server_with(
    more: impl FnOnce(App) -> App,
) -> (ScriptedModel, ladoga::testing::ScriptedServer, Server) {
    let script = ScriptedModel::from_fn(|_| Reply::text("Planned.").with_usage(100, 200));
    serve(script, more).await
}

/// A model that jots a line down, then answers: two requests a run, 200 tokens written each.
fn jotting() -> ScriptedModel {
    ScriptedModel::from_fn(|seen| {
        let reply = match seen.tool_results().len() {
            0 => Reply::call("jot", serde_json::json!({"line": "a line"})),
            _ => Reply::text("Planned."),
        };
        reply.with_usage(100, 200)
    })
}

/// A server asking `script` at $10 a million tokens written, with `more` registered.
async fn serve(
    script: ScriptedModel,
    more: impl FnOnce(App) -> App,
) -> (ScriptedModel, ladoga::testing::ScriptedServer, Server) {
    let served = script.serve().await.expect("serves");
    let model = served
        .model()
        .with_price(Price::per_million_tokens(0.0, 10.0));
    let running = Server::start(more(App::new().add_singleton(model))).await;
    (script, served, running)
}

/// The result of a call of `tool`: whether it is an error, its text and its report.
async fn call(client: &neva::Client, tool: &str) -> (bool, String, Value) {
    let result = client
        .tools()
        .call(tool, [("focus", "the offsite")])
        .await
        .expect("tools/call");
    let block = serde_json::to_value(&result.content[0]).expect("JSON");
    (
        result.is_error,
        text(&result),
        block["_meta"][REPORT_KEY].clone(),
    )
}

#[tokio::test]
async fn a_caller_past_its_quota_is_refused_before_the_model_is_asked_and_told_when_it_frees_up() {
    let (script, _served, running) = server().await;
    let client = connect(running.addr).await;
    // $0.005: the first call reserves a run's worth, $0.003, for an answer of at most 300
    // tokens, spends $0.002 and gives back the rest; the second reserves $0.003 of the $0.003
    // left, and spends $0.002.
    for _ in 0..2 {
        let (error, text, report) = call(&client, "metered").await;
        assert!(!error, "{text}");
        assert_eq!(report["cost_usd"], 0.002, "{report}");
    }
    let limits: Vec<_> = script
        .requests()
        .iter()
        .map(|seen| {
            let body = seen.body();
            (body.get("max_completion_tokens").or(body.get("max_tokens")))
                .cloned()
                .unwrap_or_default()
        })
        .collect();
    assert_eq!(limits, [300, 300], "each answer limited to the run's worth");
    // $0.001 is left, less than a run's worth: refused, the model not asked.
    let (error, text, _) = call(&client, "metered").await;
    assert!(error, "{text}");
    assert!(
        text.starts_with(
            "this caller has spent its quota of $0.005 a day on this tool; it frees up at "
        ) && text.contains("T00:00:00Z (in "),
        "{text}"
    );
    assert_eq!(script.requests().len(), 2);
    // Another tool's quota is its own.
    let (error, text, _) = call(&client, "allowance").await;
    assert!(!error, "{text}");
    client.disconnect().await.expect("disconnects");
    running.stop().await;
}

#[tokio::test]
async fn a_server_quota_is_shared_by_every_orchestrator_of_the_server() {
    let quota = ServerQuota(Quota::new(0.005, Per::Day));
    let (script, _served, running) = server_with(|app| app.add_singleton(quota)).await;
    let client = connect(running.addr).await;
    // $0.002 on one tool, then $0.002 on another, of the same $0.005.
    for tool in ["first_errand", "second_errand"] {
        let (error, text, _) = call(&client, tool).await;
        assert!(!error, "{text}");
    }
    let (error, text, _) = call(&client, "first_errand").await;
    assert!(error, "{text}");
    assert!(
        text.starts_with("this caller has spent its quota of $0.005 a day on this server;"),
        "{text}"
    );
    assert_eq!(script.requests().len(), 2);
    client.disconnect().await.expect("disconnects");
    running.stop().await;
}

/// The calls of `ended` that were answered in full: with the model's answer, not stopped at a
/// bound. Every other one must have been refused up front, by the quota of `quota`.
fn answered_in_full(ended: &[(bool, String, Value)], quota: &str) -> usize {
    let mut answered = 0;
    for (error, text, report) in ended {
        if *error {
            assert!(text.contains(quota), "{text}");
        } else {
            assert_eq!(text, "Planned.", "answered in full: {report}");
            assert_eq!(report["stop"], "answered", "{report}");
            answered += 1;
        }
    }
    answered
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn fifty_calls_at_once_on_a_quota_worth_ten_runs_answer_nine_or_more_in_full() {
    let (script, _served, running) = serve(jotting(), |app| app).await;
    let client = connect(running.addr).await;
    let calls = (0..50).map(|_| call(&client, "rationed"));
    let ended = futures_util::future::join_all(calls).await;
    let answered = answered_in_full(&ended, "quota of $0.05 a day");
    // Each answered call made two requests, $0.004; a refused one asked nothing.
    assert_eq!(script.requests().len(), 2 * answered);
    assert!(answered >= 9, "{answered} of 50 answered in full");
    assert!(
        answered as f64 * 0.004 <= 0.05 + 1e-9,
        "{answered} calls answered"
    );
    eprintln!("{answered} of 50 calls at once answered in full, the rest refused up front");
    // Once they all ended, what they did not spend is given back: a call is admitted while a
    // run's worth, $0.005, is left.
    let left = 0.05 - answered as f64 * 0.004;
    let (error, text, _) = call(&client, "rationed").await;
    assert_eq!(error, left < 0.005 - 1e-9, "{answered} answered: {text}");
    client.disconnect().await.expect("disconnects");
    running.stop().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
#[ignore = "needs redis-server and nginx: run by scripts/test (scripts/services install)"]
async fn fifty_calls_through_nginx_to_two_replicas_sharing_redis_never_spend_more_than_the_quota() {
    use super::common::nginx::{Nginx, Routing};
    use super::common::redis::Redis;
    use ladoga::{RedisStore, Runs};

    let redis = Redis::start().await;
    let script = jotting();
    let served = script.serve().await.expect("serves");
    let model = served
        .model()
        .with_price(Price::per_million_tokens(0.0, 10.0));
    let mut replicas = Vec::new();
    for _ in 0..2 {
        let store = RedisStore::connect(&redis.url()).await.expect("connects");
        let runs = Runs::new(store).with_secret("the replicas' shared secret, 32 bytes or more");
        let app = App::new().add_singleton(model.clone()).add_singleton(runs);
        replicas.push(Server::start(app).await);
    }
    let addrs: Vec<_> = replicas.iter().map(|replica| replica.addr).collect();
    let nginx = Nginx::start(&addrs, Routing::RoundRobin)
        .await
        .expect("nginx in front");
    let client = connect(nginx.addr).await;
    let calls = (0..50).map(|_| call(&client, "shared_quota"));
    let ended = futures_util::future::join_all(calls).await;
    let answered = answered_in_full(&ended, "quota of $0.05 a day");
    assert_eq!(script.requests().len(), 2 * answered);
    assert!(answered >= 9, "{answered} of 50 answered in full");
    assert!(
        answered as f64 * 0.004 <= 0.05 + 1e-9,
        "{answered} calls answered"
    );
    eprintln!("{answered} of 50 calls at once through two replicas answered in full");
    client.disconnect().await.expect("disconnects");
    drop(nginx);
    for replica in replicas {
        replica.stop().await;
    }
}

/// Jots, then answers, with $0.05 a day for each caller, on replicas sharing Redis: ten runs'
/// worth of $0.005.
#[orchestrator(quota = "0.05 USD/day", budget_usd = 0.005)]
async fn shared_quota(focus: String) -> String {
    format!("Plan {focus}.")
}
