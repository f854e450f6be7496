//! What a run costs, through a real neva server and client with the scripted model over HTTP
//! reporting usage: the report's `cost_usd` against genai-prices' own price for the model, a
//! price set by hand, a model with no known price (`null`, never `0`), and a nested run's cost
//! counted in its caller's; and a dollar budget at every depth (`cost/budget.rs`).

#[path = "cost/budget.rs"]
mod budget;
#[path = "cost/carried.rs"]
mod carried;
mod common;
#[path = "cost/quota.rs"]
mod quota;

use common::{Server, text};
use genai_prices::{PriceRequest, Usage, UsageKey};
use ladoga::testing::{Reply, ScriptedModel, ScriptedServer};
use ladoga::{Model, Price, REPORT_KEY, orchestrator};
use neva::prelude::*;

/// The tokens each answer of the scripted model reports.
const USAGE: (u64, u64) = (1_000, 200);

#[tool(descr = "Jots a line down")]
async fn jot(line: String) -> String {
    format!("jotted: {line}")
}

/// Plans with `jot`.
#[orchestrator(tools = ["jot"])]
async fn planner(focus: String) -> String {
    format!("Plan around {focus}.")
}

/// Plans with `jot`, each jot approved by the caller first.
#[orchestrator(tools = ["jot"], approve = ["jot"])]
async fn careful(focus: String) -> String {
    format!("Plan around {focus}.")
}

/// Plans by asking `researcher`, an orchestrator of its own.
#[orchestrator(tools = ["researcher"])]
async fn lead(focus: String) -> String {
    format!("Lead the plan around {focus}.")
}

/// Looks into what `lead` asks, with `jot`.
#[orchestrator(tools = ["jot"])]
async fn researcher(topic: String) -> String {
    format!("Research {topic}.")
}

/// A model that makes one call, then answers, each answer reporting [`USAGE`]; a run it is
/// nested in asks `researcher` first.
fn script() -> ScriptedModel {
    ScriptedModel::from_fn(|seen| {
        let brief = seen.first_user_text().unwrap_or_default();
        let reply = match (brief.starts_with("Lead"), seen.tool_results().len()) {
            (true, 0) => Reply::call("researcher", serde_json::json!({"topic": "the venue"})),
            (false, 0) => Reply::call("jot", serde_json::json!({"line": "a line"})),
            _ => Reply::text("Done."),
        };
        reply.with_usage(USAGE.0, USAGE.1)
    })
}

/// The report of a call of `tool` on a server whose model is `model`, talking to `server`.
async fn report(
    server: &ScriptedServer,
    model: &str,
    price: Option<Price>,
    tool: &str,
) -> serde_json::Value {
    let client = svir::Client::openai(server.url())
        .build()
        .expect("a loopback URL");
    let mut model = Model::new(client, model);
    if let Some(price) = price {
        model = model.with_price(price);
    }
    let running = Server::start(App::new().add_singleton(model)).await;
    let mut client = common::client_for(running.addr);
    // The person approves every call.
    client.map_elicitation(|_: neva::types::elicitation::ElicitRequestParams| async {
        neva::types::elicitation::ElicitResult::accept()
    });
    client.connect().await.expect("connects");
    let result = client
        .tools()
        .call(tool, [("focus", "the offsite")])
        .await
        .expect("tools/call");
    assert!(!result.is_error, "{}", text(&result));
    let block = serde_json::to_value(&result.content[0]).expect("JSON");
    client.disconnect().await.expect("disconnects");
    running.stop().await;
    block["_meta"][REPORT_KEY].clone()
}

fn cost(report: &serde_json::Value) -> f64 {
    report["cost_usd"]
        .as_f64()
        .unwrap_or_else(|| panic!("no cost: {report}"))
}

#[tokio::test]
async fn a_runs_cost_is_genai_prices_price_of_each_request() {
    let server = script().serve().await.expect("serves");
    let report = report(&server, "gpt-4o-mini", None, "planner").await;
    let usage = Usage::from([
        (UsageKey::INPUT_TOKENS, USAGE.0 as f64),
        (UsageKey::OUTPUT_TOKENS, USAGE.1 as f64),
    ]);
    let each = genai_prices::calculate(&PriceRequest::new("gpt-4o-mini", &usage))
        .expect("gpt-4o-mini has a price")
        .total_price;
    assert!(each > 0.0);
    // Two requests: the call, then the answer.
    assert_eq!(report["turns"], 2, "{report}");
    assert!(
        (cost(&report) - 2.0 * each).abs() < 1e-12,
        "{report} against {each} a request"
    );
}

#[tokio::test]
async fn a_price_set_by_hand_is_the_one_a_run_costs() {
    let server = script().serve().await.expect("serves");
    let price = Price::per_million_tokens(2.0, 8.0);
    let report = report(&server, "house-model", Some(price), "planner").await;
    // 1,000 tokens at $2 a million and 200 at $8, twice.
    assert!((cost(&report) - 0.0072).abs() < 1e-12, "{report}");
    let free = report_free(&server).await;
    assert_eq!(free["cost_usd"], 0.0, "{free}");
}

async fn report_free(server: &ScriptedServer) -> serde_json::Value {
    report(server, "smollm2", Some(Price::FREE), "planner").await
}

#[tokio::test]
async fn a_model_with_no_known_price_has_an_unknown_cost_never_zero() {
    let server = script().serve().await.expect("serves");
    let report = report(&server, "no-such-model-anywhere", None, "planner").await;
    assert!(report["cost_usd"].is_null(), "{report}");
    assert_eq!(report["usage"]["input_tokens"], 2 * USAGE.0, "{report}");
}

#[tokio::test]
async fn a_nested_runs_cost_counts_in_its_callers() {
    let script = script();
    let server = script.serve().await.expect("serves");
    let price = Price::per_million_tokens(2.0, 8.0);
    let report = report(&server, "house-model", Some(price), "lead").await;
    // The lead's two requests and the researcher's two, at $0.0036 each.
    assert_eq!(script.requests().len(), 4);
    assert!((cost(&report) - 4.0 * 0.0036).abs() < 1e-12, "{report}");
}

#[tokio::test]
async fn what_a_run_spent_before_it_paused_for_an_approval_counts_after() {
    let server = script().serve().await.expect("serves");
    let price = Price::per_million_tokens(2.0, 8.0);
    // The first request, then a round for the approval, then the second request.
    let report = report(&server, "house-model", Some(price), "careful").await;
    assert_eq!(report["approvals"][0]["decision"], "approved", "{report}");
    assert!((cost(&report) - 2.0 * 0.0036).abs() < 1e-12, "{report}");
}
