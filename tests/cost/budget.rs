//! A dollar budget at every depth: `top` calls `middle`, which calls `bottom`, which jots; the
//! budget is `top`'s, which the runs nested in it share, sized to run out at the first request of
//! each level in turn, under each `on_limit`. Whatever the level and the policy, the call ends
//! with its policy's answer: never a hang, never a lost result; and the whole tree spends no
//! more than the budget, as its report says and as a server quota's counter in the run store
//! holds it.
//!
//! The model reads for free and writes at $10 a million tokens, and each answer reports 200
//! tokens written: $0.002 a request. A request goes when what is left pays for 256 tokens
//! written ($0.00256): the requests before the level's first each spend $0.002, so a budget of
//! $0.002, $0.004 and $0.006 runs out at the first request of `top`, `middle` and `bottom`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use ladoga::cost::{Per, Quota, ServerQuota};
use ladoga::orchestrator;
use ladoga::store::QUOTA_PREFIX;
use ladoga::testing::{Reply, ScriptedModel};
use ladoga::{MemoryRuns, Model, Price, REPORT_KEY, RunStore, Runs, StoreFuture};
use neva::prelude::*;
use serde_json::{Value, json};

use super::common::{Server, text};

/// What the model's answers cost.
pub(crate) const PRICE: Price = Price::per_million_tokens(0.0, 10.0);

/// One chain of three orchestrators under `on_limit = $policy`, the first with `budget_usd =
/// $budget`, each named in its brief so that the model knows whose request it answers.
macro_rules! chain {
    ($top:ident, $middle:ident = $middle_name:tt, $bottom:ident = $bottom_name:tt, $policy:tt, $budget:tt) => {
        #[orchestrator(tools = [$middle_name], on_limit = $policy, budget_usd = $budget)]
        async fn $top(focus: String) -> String {
            format!("Top: plan {focus}.")
        }

        #[orchestrator(tools = [$bottom_name], on_limit = $policy)]
        async fn $middle(topic: String) -> String {
            format!("Middle: look into {topic}.")
        }

        #[orchestrator(tools = ["jot"], on_limit = $policy)]
        async fn $bottom(topic: String) -> String {
            format!("Bottom: note {topic}.")
        }
    };
}

chain!(
    error_1,
    error_1_middle = "error_1_middle",
    error_1_bottom = "error_1_bottom",
    "error",
    0.002
);
chain!(
    error_2,
    error_2_middle = "error_2_middle",
    error_2_bottom = "error_2_bottom",
    "error",
    0.004
);
chain!(
    error_3,
    error_3_middle = "error_3_middle",
    error_3_bottom = "error_3_bottom",
    "error",
    0.006
);
chain!(
    partial_1,
    partial_1_middle = "partial_1_middle",
    partial_1_bottom = "partial_1_bottom",
    "partial",
    0.002
);
chain!(
    partial_2,
    partial_2_middle = "partial_2_middle",
    partial_2_bottom = "partial_2_bottom",
    "partial",
    0.004
);
chain!(
    partial_3,
    partial_3_middle = "partial_3_middle",
    partial_3_bottom = "partial_3_bottom",
    "partial",
    0.006
);
chain!(
    answer_1,
    answer_1_middle = "answer_1_middle",
    answer_1_bottom = "answer_1_bottom",
    "answer",
    0.002
);
chain!(
    answer_2,
    answer_2_middle = "answer_2_middle",
    answer_2_bottom = "answer_2_bottom",
    "answer",
    0.004
);
chain!(
    answer_3,
    answer_3_middle = "answer_3_middle",
    answer_3_bottom = "answer_3_bottom",
    "answer",
    0.006
);

/// Each level calls the next once (`top` its middle, `middle` its bottom, `bottom` jots), then
/// answers; asked for a last answer with no tool (`on_limit = "answer"`), it answers at once.
/// Every answer reports 200 tokens written.
pub(crate) fn script() -> ScriptedModel {
    ScriptedModel::from_fn(|seen| {
        let brief = seen.first_user_text().unwrap_or_default();
        let level = brief.split(':').next().unwrap_or_default().to_owned();
        let last = seen.tool_choice() == Some(&json!("none"));
        let offered = seen.tool_names();
        let reply = match (last, seen.tool_results().len(), offered.first()) {
            (false, 0, Some(next)) => {
                let arguments = match next.as_str() {
                    "jot" => json!({"line": "a line"}),
                    _ => json!({"topic": "the venue"}),
                };
                Reply::call(next.clone(), arguments)
            }
            _ => Reply::text(format!("{level} answered.")),
        };
        reply.with_usage(1_000, 200)
    })
}

/// The call of `tool` on a server whose model is priced at [`PRICE`]: its result's text, whether
/// it is an error, and its report; and what the model was asked. Each call's tree spends no more
/// than its budget, in its report and in the counter of a server quota every level books against.
async fn call(tool: &str) -> (String, bool, Value, Vec<ladoga::testing::SeenRequest>) {
    let budget = match tool.rsplit('_').next() {
        Some("1") => 0.002,
        Some("2") => 0.004,
        _ => 0.006,
    };
    let counted = Counted::default();
    let called = call_within(tool, Some(PRICE), Some(counted.clone())).await;
    let spent = called.2["cost_usd"].as_f64().unwrap_or_default();
    assert!(spent <= budget + 1e-12, "{tool}: {} of {budget}", called.2);
    // What the run store counts is what the report says was spent, to the billionth.
    let counter = counted.counter() as f64 / 1e9;
    assert!(
        (counter - spent).abs() < 2e-9,
        "{tool}: counted {counter}, spent {spent}"
    );
    called
}

/// A run store that notes the total of each quota counter it books: the process's memory, and
/// what it last counted.
#[derive(Clone, Default)]
struct Counted {
    store: Arc<MemoryRuns>,
    counter: Arc<Mutex<i64>>,
}

impl Counted {
    /// What the quota's counter last held, in billionths of a dollar.
    fn counter(&self) -> i64 {
        *self.counter.lock().unwrap()
    }
}

impl RunStore for Counted {
    fn put<'a>(&'a self, id: &'a str, run: Vec<u8>, ttl: Duration) -> StoreFuture<'a, ()> {
        self.store.put(id, run, ttl)
    }

    fn take<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<Vec<u8>>> {
        self.store.take(id)
    }

    fn book<'a>(
        &'a self,
        key: &'a str,
        amount: i64,
        limit: i64,
        ttl: Duration,
    ) -> StoreFuture<'a, (bool, i64)> {
        Box::pin(async move {
            let booked = self.store.book(key, amount, limit, ttl).await?;
            if key.starts_with(QUOTA_PREFIX) {
                *self.counter.lock().unwrap() = booked.1;
            }
            Ok(booked)
        })
    }
}

/// [`call`], the model priced at `price`, or at what genai-prices knows of it (nothing).
async fn call_priced(
    tool: &str,
    price: Option<Price>,
) -> (String, bool, Value, Vec<ladoga::testing::SeenRequest>) {
    call_within(tool, price, None).await
}

/// [`call_priced`], each run booking against a server quota of $1 a day counted in `counted`,
/// when given.
async fn call_within(
    tool: &str,
    price: Option<Price>,
    counted: Option<Counted>,
) -> (String, bool, Value, Vec<ladoga::testing::SeenRequest>) {
    let script = script();
    let served = script.serve().await.expect("serves");
    let mut model = served.model();
    if let Some(price) = price {
        model = model.with_price(price);
    }
    let mut app = App::new().add_singleton::<Model>(model);
    if let Some(counted) = counted {
        app = app
            .add_singleton(Runs::new(counted))
            .add_singleton(ServerQuota(Quota::new(1.0, Per::Day)));
    }
    let running = Server::start(app).await;
    let client = super::common::connect(running.addr).await;
    let tools = client.tools();
    let called = tools.call(tool, [("focus", "the offsite")]);
    let result = tokio::time::timeout(std::time::Duration::from_secs(30), called)
        .await
        .expect("the call ends: no hang")
        .expect("tools/call");
    let block = serde_json::to_value(&result.content[0]).expect("JSON");
    let outcome = (
        text(&result),
        result.is_error,
        block["_meta"][REPORT_KEY].clone(),
        script.requests(),
    );
    client.disconnect().await.expect("disconnects");
    running.stop().await;
    outcome
}

/// The levels whose requests the model answered, in order.
pub(crate) fn asked(requests: &[ladoga::testing::SeenRequest]) -> Vec<String> {
    requests
        .iter()
        .map(|seen| {
            let brief = seen.first_user_text().unwrap_or_default();
            brief.split(':').next().unwrap_or_default().to_owned()
        })
        .collect()
}

#[tokio::test]
async fn under_error_the_level_that_runs_out_fails_and_so_does_each_caller_above_it() {
    // Out at `top`'s first request: nothing is asked, the call fails saying why.
    let (text, error, _, requests) = call("error_1").await;
    assert!(error, "{text}");
    assert!(
        text.contains("dollar budget") && text.contains("$0.002"),
        "{text}"
    );
    assert!(requests.is_empty());
    // Out at `middle`'s: `top` asked once; `middle` fails, and `top`, with nothing left, too.
    let (text, error, _, requests) = call("error_2").await;
    assert!(error, "{text}");
    assert!(text.contains("the run spent $0.002"), "{text}");
    assert_eq!(asked(&requests), ["Top"]);
    // Out at `bottom`'s: the two above asked once each, and each fails in turn.
    let (text, error, _, requests) = call("error_3").await;
    assert!(error, "{text}");
    assert!(
        text.contains("the run spent $0.004") && text.contains("$0.006"),
        "{text}"
    );
    assert_eq!(asked(&requests), ["Top", "Middle"]);
}

#[tokio::test]
async fn under_partial_each_level_hands_up_the_work_it_did() {
    let (text, error, report, requests) = call("partial_1").await;
    assert!(!error, "{text}");
    assert!(
        text.starts_with("[partial: the run stopped at its budget_usd bound]"),
        "{text}"
    );
    assert_eq!(report["stop"], "budget_usd", "{report}");
    assert!(requests.is_empty());

    let (text, error, report, requests) = call("partial_2").await;
    assert!(!error, "{text}");
    assert_eq!(report["stop"], "budget_usd", "{report}");
    assert_eq!(asked(&requests), ["Top"]);
    // Near the bound, the request's output is limited to what is left: $0.004 pays for 400
    // tokens written.
    let body = requests[0].body();
    let limit = body.get("max_completion_tokens").or(body.get("max_tokens"));
    assert_eq!(limit, Some(&json!(400)), "{body}");
    // `middle`'s partial answer is `top`'s one tool result.
    assert_eq!(
        text.matches("[partial: the run stopped at its budget_usd bound]")
            .count(),
        2,
        "{text}"
    );
    assert!(
        report["cost_usd"].as_f64().unwrap() <= 0.004 + 1e-12,
        "{report}"
    );

    let (text, error, report, requests) = call("partial_3").await;
    assert!(!error, "{text}");
    assert_eq!(asked(&requests), ["Top", "Middle"]);
    // `bottom`'s partial inside `middle`'s inside `top`'s.
    assert_eq!(
        text.matches("[partial: the run stopped at its budget_usd bound]")
            .count(),
        3,
        "{text}"
    );
    assert!(
        report["cost_usd"].as_f64().unwrap() <= 0.006 + 1e-12,
        "{report}"
    );
}

#[tokio::test]
async fn under_answer_each_level_asks_once_more_within_what_is_left_or_hands_up_its_work() {
    // Out at `top`'s first request: not even a last answer is paid for, so none is asked for,
    // and the call ends as `partial` does, saying why.
    let (text, error, report, requests) = call("answer_1").await;
    assert!(!error, "{text}");
    assert!(
        text.starts_with(
            "[partial: the run stopped at its budget_usd bound]\nNo last answer was asked for: \
             what is left of its dollar budget pays for none."
        ),
        "{text}"
    );
    assert_eq!(report["stop"], "budget_usd", "{report}");
    assert!(requests.is_empty());

    // Out at `middle`'s: `top` asked once, and neither level's last answer is paid for.
    let (text, error, report, requests) = call("answer_2").await;
    assert!(!error, "{text}");
    assert_eq!(report["stop"], "budget_usd", "{report}");
    assert_eq!(asked(&requests), ["Top"]);
    assert_eq!(
        text.matches("No last answer was asked for").count(),
        2,
        "{text}"
    );

    // Out at `bottom`'s: the two above asked once each; no level passes the budget with a last
    // answer (three of them, $0.002 each, spent $0.010 of $0.006 before).
    let (text, error, report, requests) = call("answer_3").await;
    assert!(!error, "{text}");
    assert_eq!(asked(&requests), ["Top", "Middle"]);
    assert_eq!(
        text.matches("No last answer was asked for").count(),
        3,
        "{text}"
    );
    assert!(
        (report["cost_usd"].as_f64().unwrap() - 0.004).abs() < 1e-12,
        "{report}"
    );
}

#[tokio::test]
async fn a_model_with_no_known_price_is_not_asked_under_a_dollar_budget() {
    let (text, error, _, requests) = call_priced("partial_3", None).await;
    assert!(error, "{text}");
    assert!(
        text.contains("has no known price") && text.contains("with_price"),
        "{text}"
    );
    assert!(requests.is_empty());
}

/// A run of one turn under `on_limit = "answer"` and a budget of `budget`, without the macro:
/// it jots, reaches its turn bound, and asks for its last answer within what is left.
async fn one_turn(budget: f64) -> (ladoga::Outcome, Vec<ladoga::testing::SeenRequest>) {
    use ladoga::{Limits, OnLimit, Orchestration};

    let script = ScriptedModel::from_fn(|seen| {
        let reply = match seen.tool_choice() == Some(&json!("none")) {
            true => Reply::text("Jotted it."),
            false => Reply::call("jot", json!({"line": "a line"})),
        };
        reply.with_usage(1_000, 200)
    });
    let served = script.serve().await.expect("serves");
    let model = served.model().with_price(PRICE);
    let tools = svir::Tools::new().add_tool(svir::Tool::new("jot", "Jots"), |_: Value| async {
        "jotted"
    });
    let limits = Limits::new()
        .turns(std::num::NonZeroUsize::new(1).unwrap())
        .on_limit(OnLimit::Answer)
        .budget_usd(budget);
    let outcome = Orchestration::new(&model, &tools)
        .limits(limits)
        .run("Jot a line.")
        .await
        .expect("answers");
    (outcome, script.requests())
}

/// The output limit a request was sent with.
fn output_limit(seen: &ladoga::testing::SeenRequest) -> Option<Value> {
    let body = seen.body();
    body.get("max_completion_tokens")
        .or(body.get("max_tokens"))
        .cloned()
}

#[tokio::test]
async fn the_last_answer_at_a_bound_is_limited_to_what_the_budget_has_left() {
    // $0.005: the turn writes at most 500 tokens and spends $0.002; the last answer at the turn
    // bound at most the 300 that the $0.003 left pays for.
    let (outcome, requests) = one_turn(0.005).await;
    assert_eq!(outcome.text, "Jotted it.");
    assert_eq!(outcome.stop, ladoga::Stop::TurnLimit);
    let limits: Vec<_> = requests.iter().map(output_limit).collect();
    assert_eq!(limits, [Some(json!(500)), Some(json!(300))]);
    assert!(
        outcome.cost_usd.unwrap() <= 0.005 + 1e-12,
        "{:?}",
        outcome.cost_usd
    );

    // $0.004: the $0.002 left pays for fewer than 256 tokens: no last answer, the work so far.
    let (outcome, requests) = one_turn(0.004).await;
    assert_eq!(requests.len(), 1);
    assert!(outcome.partial);
    assert!(
        outcome.text.starts_with(
            "[partial: the run stopped at its turns bound]\nNo last answer was asked for: what \
             is left of its dollar budget pays for none.\n\nTool results so far:\n- jot: jotted"
        ),
        "{}",
        outcome.text
    );
}
