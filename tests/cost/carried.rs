//! A dollar budget across MCP: a call's `_meta` lowers a tool's budget and never raises it, and
//! a run that calls an orchestrator on another Ladoga server (`with`) sends it what it has left
//! and counts what it spent. The chains of `cost/budget.rs`, at the same prices.

use ladoga::cost::{BUDGET_KEY, Dollars};
use ladoga::{LiveTools, Model, REPORT_KEY, orchestrator};
use neva::prelude::*;
use serde_json::{Value, json};

use super::budget::{PRICE, asked, script};
use super::common::{Server, client_for, connect, text};

/// Plans with `partial_3_middle` of another server, offered as `far_partial_3_middle`, with
/// $0.005.
#[orchestrator(
    tools = ["far_partial_3_middle"],
    with = [LiveTools],
    on_limit = "partial",
    budget_usd = 0.005
)]
async fn far(focus: String) -> String {
    format!("Far: plan {focus}.")
}

/// A server whose model is the scripted one's at [`PRICE`], with `more` registered too.
async fn server(model: &Model, more: impl FnOnce(App) -> App) -> Server {
    Server::start(more(
        App::new().add_singleton(model.clone().with_price(PRICE)),
    ))
    .await
}

/// The call of `tool` at `addr` with `arguments`, by hand in the server's generation of MCP,
/// its `_meta` carrying `budget` dollars when given: the result's text and report.
async fn call_by_hand(
    addr: std::net::SocketAddr,
    tool: &str,
    arguments: Value,
    budget: Option<f64>,
) -> (String, Value) {
    let mut params = json!({"name": tool, "arguments": arguments});
    if let Some(budget) = budget {
        params["_meta"] = json!({ BUDGET_KEY: budget });
    }
    #[cfg(not(feature = "legacy-spec"))]
    let answer = super::common::rounds::request(addr, "", "tools/call", params).await;
    #[cfg(feature = "legacy-spec")]
    let answer = {
        use super::common::legacy_http::{ask, initialized};
        let session = initialized(addr, "").await;
        ask(addr, "", &session, "tools/call", params).await
    };
    let block = &answer["result"]["content"][0];
    let text = block["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text: {answer}"));
    (text.to_owned(), block["_meta"][REPORT_KEY].clone())
}

/// The arguments of a call of a `top`.
fn offsite() -> Value {
    json!({"focus": "the offsite"})
}

#[tokio::test]
async fn a_budget_in_the_calls_meta_lowers_the_tools_and_never_raises_it() {
    let script = script();
    let served = script.serve().await.expect("serves");
    let running = server(&served.model(), |app| app).await;
    // `partial_3` has $0.006, which lasts to `bottom`'s first request; its caller lets it
    // spend $0.002, which does not pay for `top`'s first.
    let (text, report) = call_by_hand(running.addr, "partial_3", offsite(), Some(0.002)).await;
    assert!(
        text.starts_with("[partial: the run stopped at its budget_usd bound]"),
        "{text}"
    );
    assert_eq!(report["cost_usd"], 0.0, "{report}");
    assert!(script.requests().is_empty());
    // A caller that lets it spend $1 does not give it more than its own $0.006.
    let (_, report) = call_by_hand(running.addr, "partial_3", offsite(), Some(1.0)).await;
    assert_eq!(asked(&script.requests()), ["Top", "Middle"], "{report}");
    assert!(
        (report["cost_usd"].as_f64().unwrap() - 0.004).abs() < 1e-12,
        "{report}"
    );
    // A tool without a budget of its own takes its caller's: $0.002 is not enough for `middle`.
    let (text, _) = call_by_hand(
        running.addr,
        "partial_3_middle",
        json!({"topic": "the venue"}),
        Some(0.002),
    )
    .await;
    assert!(
        text.starts_with("[partial: the run stopped at its budget_usd bound]"),
        "{text}"
    );
    assert_eq!(script.requests().len(), 2, "no request more");
    running.stop().await;
}

#[tokio::test]
async fn a_with_server_gets_what_the_run_has_left_and_its_spend_counts_in_the_run() {
    let script = script();
    let served = script.serve().await.expect("serves");
    let model = served.model();
    let far_server = server(&model, |app| app).await;
    let live = LiveTools::connect(client_for(far_server.addr), |tools| {
        tools
            .filter(|tool| tool.name == "partial_3_middle")
            .with_prefix("far_")
    })
    .await
    .expect("connects to the far server");
    let near = server(&model, |app| app.add_singleton(live)).await;
    let client = connect(near.addr).await;
    let result = client
        .tools()
        .call("far", [("focus", "the offsite")])
        .await
        .expect("tools/call");
    let answer = text(&result);
    let block = serde_json::to_value(&result.content[0]).expect("JSON");
    let report = &block["_meta"][REPORT_KEY];
    // `far` spent $0.002 on its call and had $0.003 left, which it sent: the far `middle`
    // spent $0.002 of it, and its `bottom` found $0.001, too little, as did `middle` after it.
    assert_eq!(asked(&script.requests()), ["Far", "Middle"], "{answer}");
    assert!(
        answer.contains("far_partial_3_middle: [partial"),
        "{answer}"
    );
    // The far run's $0.002 counted here: `far`, with $0.001 left, stops too.
    assert_eq!(report["stop"], "budget_usd", "{report}");
    assert!(
        (report["cost_usd"].as_f64().unwrap() - 0.004).abs() < 1e-12,
        "{report}"
    );
    client.disconnect().await.expect("disconnects");
    near.stop().await;
    far_server.stop().await;
}

#[test]
fn a_budget_travels_as_a_baggage_member_any_server_can_read() {
    let mut meta = neva::types::RequestParamsMeta::default();
    meta.baggage = Some("io.github.ladoga-rs.budget_usd=0.003".into());
    assert_eq!(ladoga::cost::caller_budget(&meta), Dollars::new(0.003));
}
