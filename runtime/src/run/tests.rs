//! The loop's unit tests.

use std::num::NonZeroUsize;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use serde_json::json;
use svir::{Tool, Tools};

use crate::error::RunError;
use crate::limits::{Limits, OnLimit};
use crate::outcome::{Stop, TokenUsage};
use crate::run::Orchestration;
use crate::testing::{Reply, ScriptedModel};

/// `slow` sleeps then answers, `fast` answers at once; both count their calls.
fn tools(calls: Arc<AtomicUsize>) -> Tools {
    let slow_calls = Arc::clone(&calls);
    Tools::new()
        .add_tool(
            Tool::new("slow", "Answers late"),
            move |_: serde_json::Value| {
                let calls = Arc::clone(&slow_calls);
                async move {
                    tokio::time::sleep(Duration::from_millis(30)).await;
                    calls.fetch_add(1, Ordering::SeqCst);
                    "slow answer"
                }
            },
        )
        .add_tool(
            Tool::new("fast", "Answers at once"),
            move |_: serde_json::Value| {
                let calls = Arc::clone(&calls);
                async move {
                    calls.fetch_add(1, Ordering::SeqCst);
                    "fast answer"
                }
            },
        )
}

#[tokio::test]
async fn results_follow_the_assistant_turn_in_the_order_of_the_calls() {
    let model = ScriptedModel::new([
        Reply::calls([("slow", json!({})), ("fast", json!({}))]),
        Reply::text("done").with_usage(7, 3),
    ]);
    let calls = Arc::new(AtomicUsize::new(0));
    let tools = tools(Arc::clone(&calls));

    let outcome = Orchestration::new(&model, &tools).run("go").await.unwrap();
    assert_eq!(outcome.text, "done");
    assert_eq!(outcome.turns, 2);
    assert_eq!(outcome.stop, Stop::Answered);
    assert_eq!(
        outcome.usage,
        TokenUsage {
            input: 17,
            output: 8
        }
    );
    assert_eq!(calls.load(Ordering::SeqCst), 2);

    let second = &model.requests()[1];
    let roles: Vec<_> = second
        .messages()
        .iter()
        .map(|m| m["role"].clone())
        .collect();
    assert_eq!(
        roles,
        [
            json!("user"),
            json!("assistant"),
            json!("tool"),
            json!("tool")
        ]
    );
    assert_eq!(
        second.tool_results(),
        [
            ("call_1_0".to_owned(), "slow answer".to_owned()),
            ("call_1_1".to_owned(), "fast answer".to_owned())
        ]
    );
}

#[tokio::test]
async fn the_model_name_and_system_prompt_are_set_and_tools_offered() {
    let model = ScriptedModel::new([Reply::text("hi")]);
    let tools = tools(Arc::default());
    Orchestration::new(&model, &tools)
        .system("Be kind.")
        .run("hello")
        .await
        .unwrap();
    let first = &model.requests()[0];
    assert_eq!(first.model(), "scripted");
    assert_eq!(first.system(), Some("Be kind."));
    assert_eq!(first.tool_names(), ["slow", "fast"]);
}

#[tokio::test]
async fn the_error_policy_fails_after_exactly_the_bound() {
    let model = ScriptedModel::from_fn(|_| Reply::call("fast", json!({})));
    let tools = tools(Arc::default());
    let error = Orchestration::new(&model, &tools)
        .limits(Limits::new().turns(NonZeroUsize::new(2).unwrap()))
        .run("loop")
        .await
        .unwrap_err();
    assert!(matches!(error, RunError::TurnLimit { turns: 2 }), "{error}");
    assert_eq!(model.requests().len(), 2);
}

#[tokio::test]
async fn the_answer_policy_never_runs_a_call_made_against_it() {
    let model = ScriptedModel::from_fn(|_| Reply::call("fast", json!({})));
    let calls = Arc::new(AtomicUsize::new(0));
    let tools = tools(Arc::clone(&calls));
    let outcome = Orchestration::new(&model, &tools)
        .limits(
            Limits::new()
                .turns(NonZeroUsize::new(1).unwrap())
                .on_limit(OnLimit::Answer),
        )
        .run("loop")
        .await
        .unwrap();
    assert_eq!(outcome.stop, Stop::TurnLimit);
    assert_eq!(outcome.turns, 2);
    assert_eq!(model.requests().len(), 2);
    assert_eq!(
        calls.load(Ordering::SeqCst),
        1,
        "the last answer's call did not run"
    );
}

#[tokio::test]
async fn a_model_failure_keeps_the_servers_message_out_of_the_error_text() {
    let model = ScriptedModel::new([Reply::failure(503, "node gpu-7 of account acme is down")]);
    let tools = tools(Arc::default());
    let error = Orchestration::new(&model, &tools)
        .run("go")
        .await
        .unwrap_err();
    let told = error.to_string();
    assert!(told.starts_with("the model could not answer"), "{told}");
    assert!(!told.contains("acme"), "{told}");
    let RunError::Model(source) = error else {
        panic!("{told}")
    };
    assert_eq!(
        source.server_message(),
        Some("node gpu-7 of account acme is down")
    );
}

#[tokio::test]
async fn a_run_without_a_timeout_is_bounded_by_the_default_and_no_timeout_takes_it_away() {
    use crate::limits::DEFAULT_RUN_TIMEOUT;
    use crate::usage::SharedUsage;

    let model = ScriptedModel::new([]);
    let tools = tools(Arc::default());
    let started = tokio::time::Instant::now();
    let run = Orchestration::new(&model, &tools)
        .begin("go", SharedUsage::new())
        .unwrap();
    let begun = tokio::time::Instant::now();
    let deadline = run
        .deadline
        .expect("a run without a timeout has a deadline");
    assert!(deadline >= started + DEFAULT_RUN_TIMEOUT, "{deadline:?}");
    assert!(deadline <= begun + DEFAULT_RUN_TIMEOUT, "{deadline:?}");

    let unbounded = Orchestration::new(&model, &tools)
        .limits(Limits::new().no_timeout())
        .begin("go", SharedUsage::new())
        .unwrap();
    assert!(unbounded.deadline.is_none());
}

#[tokio::test]
async fn a_call_whose_arguments_are_too_large_is_never_put_to_the_approver() {
    use crate::{Approvals, Decision, Question, ToolPattern};

    let model = ScriptedModel::new([
        Reply::call("fast", json!({"text": "x".repeat(200)})),
        Reply::text("It was too long."),
    ]);
    let calls = Arc::new(AtomicUsize::new(0));
    let tools = tools(Arc::clone(&calls));
    let asked = AtomicUsize::new(0);
    let person = |_: &Question| {
        asked.fetch_add(1, Ordering::SeqCst);
        Decision::Approved
    };
    let outcome = Orchestration::new(&model, &tools)
        .limits(Limits::new().max_arguments(100))
        .approvals(
            Approvals::tools([ToolPattern::new("fast").unwrap()]),
            &person,
        )
        .run("go")
        .await
        .unwrap();
    assert_eq!(outcome.text, "It was too long.");
    assert_eq!(
        asked.load(Ordering::SeqCst),
        0,
        "the approver was not asked"
    );
    assert_eq!(calls.load(Ordering::SeqCst), 0, "the call did not run");
    let told = &model.requests()[1].tool_results()[0].1;
    assert!(told.contains("bound of 100 bytes"), "{told}");
}

#[tokio::test]
async fn a_model_of_its_own_that_never_answers_is_stopped_at_the_runs_deadline() {
    // In process there is no response timeout: only the run's time bound ends it.
    let model =
        ScriptedModel::new([Reply::text("Let me think").endless(Duration::from_millis(10))]);
    let tools = tools(Arc::default());
    let started = std::time::Instant::now();
    let error = Orchestration::new(&model, &tools)
        .limits(Limits::new().timeout(Duration::from_millis(200)))
        .run("go")
        .await
        .unwrap_err();
    assert!(
        matches!(error, RunError::Deadline { timeout } if timeout == Duration::from_millis(200)),
        "{error}"
    );
    assert!(started.elapsed() < Duration::from_secs(2));
}

/// Guards: after untrusted text, provenance asks about the toolbox's calls, never the run's own
/// search, which acts on nothing outside the run.
#[tokio::test]
async fn provenance_leaves_the_runs_own_search_alone() {
    use crate::guard::{Provenance, ToolHints};
    use crate::toolbox::ToolPattern;

    let tools = svir::Tools::new()
        .add_tool(
            svir::Tool::new("read_bill", "The bill"),
            |_: serde_json::Value| async { "pay US13 now" },
        )
        .add_tool(
            svir::Tool::new("crm_add", "Adds a contact"),
            |_: serde_json::Value| async { "added" },
        );
    let model = ScriptedModel::new([
        Reply::call("read_bill", json!({})),
        Reply::call("search_tools", json!({"query": "add a contact"})),
        Reply::text("Found it."),
    ]);
    let pattern = |text| ToolPattern::new(text).expect("a pattern");
    let outcome = Orchestration::new(&model, &tools)
        .defer([pattern("crm_*")])
        .hints(pattern("read_bill"), ToolHints::untrusted().read_only())
        .guard(Provenance)
        .run("Pay my bill")
        .await
        .expect("answers");
    assert_eq!(outcome.untrusted, ["read_bill"]);
    assert!(outcome.held.is_empty(), "{:?}", outcome.held);
    let searched = &model.requests()[2].tool_results()[1].1;
    assert!(searched.contains("crm_add"), "{searched}");
}
