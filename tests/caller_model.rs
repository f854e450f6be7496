//! `ladoga::CallerModel` through the real MCP path: a neva server whose orchestrator has no
//! model of its own, and neva's client answering each `sampling/createMessage` with the scripted
//! model behind real HTTP, through neva's `sampling_request` and `sampling_result`, as a host
//! answers with its own model.
//!
//! Under MCP 2026-07-28 each model request is a round of the tool call: the call answers
//! `input_required` with the sampling request, neva's client samples and calls again, and the
//! run goes on from the run store. Under `legacy-spec` (MCP 2025-11-25) each model request is a
//! request to the client.

mod common;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use common::{Server, text};
use ladoga::testing::{Reply, ScriptedModel, ScriptedServer};
use ladoga::{CompletionModel, REPORT_KEY, orchestrator};
use neva::prelude::*;
use neva::types::elicitation::{ElicitRequestParams, ElicitResult};

static NOTED: AtomicUsize = AtomicUsize::new(0);

#[tool(descr = "Notes a line down")]
async fn note(line: String) -> String {
    NOTED.fetch_add(1, Ordering::SeqCst);
    format!("noted: {line}")
}

#[tool(descr = "Adds four numbers")]
async fn add(a: i64, b: i64, c: i64, d: i64) -> String {
    (a + b + c + d).to_string()
}

/// Plans on the caller's model.
#[orchestrator(model = ladoga::CallerModel, system = "Plan with the tools.")]
async fn plan(focus: String) -> String {
    format!("Plan around {focus}.")
}

/// Plans on the caller's model, else the server's own.
#[orchestrator(model = ladoga::Fallback)]
async fn plan_anyway(focus: String) -> String {
    format!("Plan around {focus}.")
}

/// Plans on the caller's model, each note approved by the caller first.
#[orchestrator(model = ladoga::CallerModel, approve = ["note"])]
async fn plan_approved(focus: String) -> String {
    format!("Plan around {focus}.")
}

/// Plans on the caller's model, asking the caller's person what it must not guess.
#[orchestrator(model = ladoga::CallerModel, ask = true)]
async fn plan_asking(focus: String) -> String {
    format!("Plan around {focus}.")
}

/// Plans on the caller's model within half a second.
#[orchestrator(model = ladoga::CallerModel, timeout = "500ms")]
async fn plan_in_time(focus: String) -> String {
    format!("Plan around {focus}.")
}

/// A count, the typed answer of [`count`].
#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]
struct Count {
    total: i64,
}

/// Counts on the caller's model, its answer typed.
#[orchestrator(model = ladoga::CallerModel, output = Count)]
async fn count(focus: String) -> String {
    format!("Count {focus}.")
}

/// Plans on the caller's model for one turn, then asks it for an answer.
#[orchestrator(model = ladoga::CallerModel, turns = 1, on_limit = "answer")]
async fn plan_briefly(focus: String) -> String {
    format!("Plan around {focus}.")
}

/// Reads on the caller's model, its conversation kept within 1,500 tokens.
#[orchestrator(model = ladoga::CallerModel, context = 1500, tools = ["read_page"])]
async fn read_compacting(focus: String) -> String {
    format!("Read about {focus}.")
}

#[tool(descr = "Reads the next page")]
async fn read_page() -> String {
    "p".repeat(400)
}

/// Jots on the caller's model for up to eight turns.
#[orchestrator(model = ladoga::CallerModel, turns = 8, tools = ["jot"])]
async fn jot_at_length(focus: String) -> String {
    format!("Jot down {focus}.")
}

static JOTTED: AtomicUsize = AtomicUsize::new(0);

#[tool(descr = "Jots a line down")]
async fn jot(line: String) -> String {
    JOTTED.fetch_add(1, Ordering::SeqCst);
    format!("jotted: {line}")
}

/// A model that notes two lines, a turn each, then answers.
fn noting_twice() -> ScriptedModel {
    ScriptedModel::from_fn(|seen| match seen.tool_results().len() {
        0 => Reply::call("note", serde_json::json!({"line": "first"})),
        1 => Reply::call("note", serde_json::json!({"line": "second"})),
        _ => Reply::text("Planned."),
    })
}

/// The server, and a client that answers sampling with `model` when there is one, counting
/// the samples in `sampled`.
async fn start(
    model: Option<&ScriptedServer>,
    sampled: Arc<AtomicUsize>,
) -> (Server, neva::Client) {
    start_with(model, sampled, None).await
}

/// [`start`], the client accepting every question when it counts them in `approved`: an
/// approval, or the model's question, answered "Friday".
async fn start_approving(
    model: Option<&ScriptedServer>,
    sampled: Arc<AtomicUsize>,
    approved: Option<Arc<AtomicUsize>>,
) -> (Server, neva::Client) {
    start_with_approving(model, sampled, None, approved).await
}

/// [`start`], the server's own model behind the caller's in a `Fallback` when `own` is given.
async fn start_with(
    model: Option<&ScriptedServer>,
    sampled: Arc<AtomicUsize>,
    own: Option<&ScriptedServer>,
) -> (Server, neva::Client) {
    start_with_approving(model, sampled, own, None).await
}

/// The server, and its client: see [`start_with`] and [`start_approving`].
async fn start_with_approving(
    model: Option<&ScriptedServer>,
    sampled: Arc<AtomicUsize>,
    own: Option<&ScriptedServer>,
    approved: Option<Arc<AtomicUsize>>,
) -> (Server, neva::Client) {
    // Under MCP 2026-07-28 neva seals every sample of a call into the state of each later
    // round: 8 KiB by default, a few samples of a long run (see the `CallerModel` docs).
    let mut app = App::new().add_singleton(ladoga::CallerModel::new());
    #[cfg(not(feature = "legacy-spec"))]
    {
        app = app.with_max_state_bytes(ladoga::CALLER_MODEL_STATE_BYTES);
    }
    if let Some(own) = own {
        app =
            app.add_singleton(ladoga::Fallback::new([ladoga::CallerModel::new()]).or(own.model()));
    }
    let server = Server::start(app).await;
    let mut client = common::client_for(server.addr);
    // Each model request is a round: more of them than neva's client allows by default (8).
    #[cfg(not(feature = "legacy-spec"))]
    {
        client = client.with_options(|opt| opt.with_max_mrtr_rounds(32));
    }
    if let Some(model) = model {
        common::sampling::answer_with(&mut client, model.model(), sampled);
    }
    if let Some(approved) = approved {
        client.map_elicitation(move |_: ElicitRequestParams| {
            let approved = approved.clone();
            async move {
                approved.fetch_add(1, Ordering::SeqCst);
                ElicitResult::accept().with_content(serde_json::json!({"answer": "Friday"}))
            }
        });
    }
    client.connect().await.expect("connects");
    (server, client)
}

/// The reply of `client`'s call of `tool`, its text, and its report.
async fn called(client: &mut neva::Client, tool: &str) -> (String, serde_json::Value) {
    let result = client
        .tools()
        .call(tool, [("focus", "the release")])
        .await
        .expect("tools/call");
    assert!(!result.is_error, "{result:?}");
    let block = serde_json::to_value(&result.content[0]).expect("JSON");
    let report = block["_meta"][REPORT_KEY].clone();
    (common::unsessioned(&text(&result)).to_owned(), report)
}

#[tokio::test]
async fn an_approval_inside_a_run_on_the_callers_model_is_a_round_of_its_own() {
    let script = ScriptedModel::from_fn(|seen| match seen.tool_results().len() {
        0 => Reply::call("note", serde_json::json!({"line": "approved"})),
        _ => Reply::text("Planned, approved."),
    });
    let model = script.serve().await.expect("serves");
    let (sampled, approved) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (server, mut client) =
        start_approving(Some(&model), sampled.clone(), Some(approved.clone())).await;
    let before = NOTED.load(Ordering::SeqCst);

    let (answer, report) = called(&mut client, "plan_approved").await;
    assert_eq!(answer, "Planned, approved.");
    // Two samples, one approval between them, the call run once: nothing asked twice.
    assert_eq!(sampled.load(Ordering::SeqCst), 2);
    assert_eq!(script.requests().len(), 2);
    assert_eq!(approved.load(Ordering::SeqCst), 1);
    assert_eq!(NOTED.load(Ordering::SeqCst) - before, 1);
    assert_eq!(report["model"], "caller", "{report}");
    assert_eq!(report["approvals"][0]["decision"], "approved", "{report}");
    server.stop().await;
}

#[tokio::test]
async fn the_models_question_inside_a_run_on_the_callers_model_is_a_round_of_its_own() {
    let script = ScriptedModel::from_fn(|seen| match seen.tool_results().first() {
        None => Reply::call(
            "ask_caller",
            serde_json::json!({"question": "Which day?", "choices": ["Thursday", "Friday"]}),
        ),
        Some((_, day)) => Reply::text(format!("Moved to {day}.")),
    });
    let model = script.serve().await.expect("serves");
    let (sampled, asked) = (Arc::new(AtomicUsize::new(0)), Arc::new(AtomicUsize::new(0)));
    let (server, mut client) =
        start_approving(Some(&model), sampled.clone(), Some(asked.clone())).await;

    let (answer, report) = called(&mut client, "plan_asking").await;
    assert_eq!(answer, "Moved to Friday.");
    assert_eq!(sampled.load(Ordering::SeqCst), 2, "each turn sampled once");
    assert_eq!(asked.load(Ordering::SeqCst), 1, "asked once");
    assert_eq!(script.requests().len(), 2);
    assert_eq!(report["questions"][0]["answer"], "Friday", "{report}");
    server.stop().await;
}

#[tokio::test]
async fn a_typed_answer_asked_for_again_is_sampled_in_a_round_of_its_own() {
    let script = ScriptedModel::new([
        Reply::text("There are four."),
        Reply::text(r#"{"total": 4}"#),
    ]);
    let model = script.serve().await.expect("serves");
    let sampled = Arc::new(AtomicUsize::new(0));
    let (server, client) = start(Some(&model), sampled.clone()).await;

    let result = client
        .tools()
        .call("count", [("focus", "the tasks")])
        .await
        .expect("tools/call");
    assert!(!result.is_error, "{result:?}");
    assert_eq!(result.struct_content, Some(serde_json::json!({"total": 4})));
    // The answer, then the request for it as JSON: each sampled once.
    assert_eq!(sampled.load(Ordering::SeqCst), 2);
    let requests = script.requests();
    assert_eq!(requests.len(), 2);
    let asked = requests[1].messages().last().expect("a message")["content"].to_string();
    assert!(asked.contains("`Count` schema"), "{asked}");
    server.stop().await;
}

#[tokio::test]
async fn the_answer_at_the_turn_limit_is_sampled_in_a_round_of_its_own() {
    let script = ScriptedModel::from_fn(|seen| match seen.tool_results().len() {
        0 => Reply::call("note", serde_json::json!({"line": "one turn"})),
        _ => Reply::text("Planned in one turn."),
    });
    let model = script.serve().await.expect("serves");
    let sampled = Arc::new(AtomicUsize::new(0));
    let (server, mut client) = start(Some(&model), sampled.clone()).await;
    let before = NOTED.load(Ordering::SeqCst);

    let (answer, report) = called(&mut client, "plan_briefly").await;
    assert_eq!(answer, "Planned in one turn.");
    assert_eq!(sampled.load(Ordering::SeqCst), 2);
    assert_eq!(NOTED.load(Ordering::SeqCst) - before, 1);
    assert_eq!(report["stop"], "turns", "{report}");
    server.stop().await;
}

#[tokio::test]
async fn each_turn_is_sampled_once_from_the_caller_and_its_calls_run_here() {
    let script = noting_twice();
    let model = script.serve().await.expect("serves");
    let sampled = Arc::new(AtomicUsize::new(0));
    let (server, client) = start(Some(&model), sampled.clone()).await;
    let before = NOTED.load(Ordering::SeqCst);

    let result = client
        .tools()
        .call("plan", [("focus", "the release")])
        .await
        .expect("tools/call");
    assert!(!result.is_error, "{result:?}");
    assert_eq!(common::unsessioned(&text(&result)), "Planned.");
    // Three turns, each one sample, and each sample one request to the caller's model.
    assert_eq!(sampled.load(Ordering::SeqCst), 3);
    let requests = script.requests();
    assert_eq!(requests.len(), 3);
    assert_eq!(NOTED.load(Ordering::SeqCst) - before, 2);
    // The caller's model saw the system prompt, the brief, the tools and the results.
    let offered = requests[0].tool_names();
    assert!(offered.contains(&"note".to_owned()), "{offered:?}");
    assert!(
        !offered.contains(&"plan".to_owned()),
        "the caller is left out: {offered:?}"
    );
    assert!(
        requests[2].tool_results()[1].1.contains("noted: second"),
        "{:?}",
        requests[2].tool_results()
    );
    let block = serde_json::to_value(&result.content[0]).expect("JSON");
    let report = &block["_meta"][REPORT_KEY];
    assert_eq!(report["model"], "caller", "{report}");
    assert_eq!(report["turns"], 3, "{report}");
    server.stop().await;
}

#[tokio::test]
async fn a_call_of_many_arguments_read_back_between_rounds_is_sampled_once() {
    // neva keeps a `tool_use` block's arguments in a `HashMap`: the request made again in the
    // next round may list them in another order, and is still the one the caller sampled.
    let script = ScriptedModel::from_fn(|seen| match seen.tool_results().first() {
        None => Reply::call("add", serde_json::json!({"a": 1, "b": 2, "c": 3, "d": 4})),
        Some((_, sum)) => Reply::text(format!("It is {sum}.")),
    });
    let model = script.serve().await.expect("serves");
    let sampled = Arc::new(AtomicUsize::new(0));
    let (server, mut client) = start(Some(&model), sampled.clone()).await;

    let (answer, _) = called(&mut client, "plan").await;
    assert_eq!(answer, "It is 10.");
    assert_eq!(
        sampled.load(Ordering::SeqCst),
        2,
        "each request sampled once"
    );
    assert_eq!(script.requests().len(), 2);
    server.stop().await;
}

#[tokio::test]
async fn a_caller_that_cannot_sample_gets_a_clear_tool_error_before_anything_runs() {
    let sampled = Arc::new(AtomicUsize::new(0));
    let (server, client) = start(None, sampled).await;
    let before = NOTED.load(Ordering::SeqCst);

    let result = client
        .tools()
        .call("plan", [("focus", "the release")])
        .await
        .expect("tools/call");
    assert!(result.is_error, "{result:?}");
    let told = text(&result);
    assert!(told.contains("sampling"), "{told}");
    assert_eq!(NOTED.load(Ordering::SeqCst), before, "no tool ran");
    server.stop().await;
}

/// `plan_anyway` called by a client that cannot sample, the server's own model `own` behind
/// the caller's: the result, and the server to stop.
async fn plan_anyway_without_sampling(own: &ScriptedModel) -> (CallToolResponse, Server) {
    let own_model = own.serve().await.expect("serves");
    let sampled = Arc::new(AtomicUsize::new(0));
    let (server, client) = start_with(None, sampled, Some(&own_model)).await;
    let result = client
        .tools()
        .call("plan_anyway", [("focus", "the release")])
        .await
        .expect("tools/call");
    (result, server)
}

#[tokio::test]
async fn a_fallback_asks_the_servers_own_model_when_the_caller_cannot_sample() {
    let own = ScriptedModel::new([Reply::text("Planned on the server's model.")]);
    let (result, server) = plan_anyway_without_sampling(&own).await;
    assert!(!result.is_error, "{result:?}");
    assert_eq!(
        common::unsessioned(&text(&result)),
        "Planned on the server's model."
    );
    assert_eq!(own.requests().len(), 1);
    let block = serde_json::to_value(&result.content[0]).expect("JSON");
    assert_eq!(block["_meta"][REPORT_KEY]["model"], own.name(), "{block}");
    server.stop().await;
}

#[tokio::test]
async fn ask_plans_the_week_on_its_own_model_for_a_board_on_the_callers_model() {
    let callers = ScriptedModel::from_fn(|seen| match seen.tool_results().len() {
        0 => Reply::call("add_task", serde_json::json!({"title": "Tag v1.0"})),
        _ => Reply::text("Planned with the caller's model."),
    });
    let own = ScriptedModel::new([Reply::text("The board's own model.")]);
    let (callers_model, own_model) = (
        callers.serve().await.expect("serves"),
        own.serve().await.expect("serves"),
    );
    let db = std::env::temp_dir().join(format!("ladoga-caller-model-{}.db", std::process::id()));
    let db_arg = db.display().to_string();
    let (_board, addr) = common::board_over_http_with(
        &own_model.url(),
        "scripted",
        &["--caller-model", "--db", &db_arg],
    )
    .await;

    let output = tokio::process::Command::new(common::exe("ask"))
        .args(["--url", &format!("http://{addr}/mcp")])
        .args(["--model-url", &callers_model.url(), "--model", "scripted"])
        .args(["plan_week", "focus=the release"])
        .env_remove("LADOGA_TOKEN")
        .stdin(std::process::Stdio::null())
        .kill_on_drop(true)
        .output()
        .await
        .expect("the ask binary runs");
    let printed = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{printed}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    assert!(
        printed.contains("Planned with the caller's model."),
        "{printed}"
    );
    // Each turn sampled from `ask`'s model; the board's own never asked; the call ran here.
    assert_eq!(callers.requests().len(), 2);
    assert!(own.requests().is_empty());
    assert!(
        callers.requests()[1].tool_results()[0]
            .1
            .contains("Added task"),
        "{:?}",
        callers.requests()[1].tool_results()
    );
    let _ = std::fs::remove_file(&db);
}

/// Under MCP 2025-11-25 a sample is a request to the client, which the run's `timeout` bounds.
#[cfg(feature = "legacy-spec")]
#[tokio::test]
async fn a_caller_that_samples_past_the_runs_timeout_fails_the_run_at_its_bound() {
    let server = Server::start(App::new().add_singleton(ladoga::CallerModel::new())).await;
    let mut client = common::client_for(server.addr);
    let sampled = Arc::new(AtomicUsize::new(0));
    let counted = sampled.clone();
    #[allow(deprecated)] // sampling, deprecated in MCP 2026-07-28
    client.map_sampling(
        move |_: neva::types::sampling::CreateMessageRequestParams| {
            counted.fetch_add(1, Ordering::SeqCst);
            async {
                tokio::time::sleep(std::time::Duration::from_secs(3)).await;
                let late = neva::error::Error::new(neva::error::ErrorCode::InternalError, "late");
                Err::<neva::types::sampling::CreateMessageResult, _>(late)
            }
        },
    );
    client.connect().await.expect("connects");
    let before = NOTED.load(Ordering::SeqCst);

    let result = client
        .tools()
        .call("plan_in_time", [("focus", "the release")])
        .await
        .expect("tools/call");
    assert!(result.is_error, "{result:?}");
    let told = text(&result);
    // The bound, not the sample's late error: the run stopped waiting at 500 ms (neva's client
    // reads the result only once its sampling handler has returned).
    assert!(told.contains("took longer than 500ms"), "{told}");
    assert_eq!(sampled.load(Ordering::SeqCst), 1);
    assert_eq!(NOTED.load(Ordering::SeqCst), before, "no tool ran");
    server.stop().await;
}

#[tokio::test]
async fn a_fallback_whose_every_model_fails_says_why_the_callers_was_passed_over() {
    let own = ScriptedModel::new([Reply::failure(503, "the server's own words")]);
    let (result, server) = plan_anyway_without_sampling(&own).await;
    assert!(result.is_error, "{result:?}");
    let told = text(&result);
    assert!(told.contains("all 2 models failed"), "{told}");
    assert!(
        told.contains("sampling"),
        "why the caller's was passed over: {told}"
    );
    assert!(told.contains("the last: HTTP 503"), "{told}");
    assert!(!told.contains("own words"), "no server's message: {told}");
    server.stop().await;
}

/// A summary request: it offers no tool.
fn summarising(seen: &ladoga::testing::SeenRequest) -> bool {
    seen.tool_names().is_empty()
}

#[tokio::test]
async fn a_run_on_the_callers_model_past_its_context_has_the_caller_write_the_summary() {
    let thought = "I weigh what the page says against the focus. ".repeat(30);
    // Counted by the model: a summary leaves fewer results in the conversation.
    let turns = AtomicUsize::new(0);
    let script = ScriptedModel::from_fn(move |seen| {
        if summarising(seen) {
            return Reply::text("Pages read so far: all of p.");
        }
        match turns.fetch_add(1, Ordering::SeqCst) {
            0..4 => Reply::call("read_page", serde_json::json!({})).with_text(&thought),
            _ => Reply::text("Read."),
        }
    });
    let model = script.serve().await.expect("serves");
    let sampled = Arc::new(AtomicUsize::new(0));
    let (server, mut client) = start(Some(&model), sampled.clone()).await;

    let (text, report) = called(&mut client, "read_compacting").await;
    assert_eq!(text, "Read.");
    let requests = script.requests();
    // Every request went to the caller, the summaries too: the run has no model of its own.
    assert_eq!(sampled.load(Ordering::SeqCst), requests.len());
    let summaries: Vec<_> = requests.iter().filter(|seen| summarising(seen)).collect();
    assert!(!summaries.is_empty(), "no summary was asked for");
    assert!(
        (summaries[0].first_user_text().unwrap()).starts_with("The task:\nRead about"),
        "{:?}",
        summaries[0].first_user_text()
    );
    assert_eq!(
        report["compacted"]["summaries"],
        summaries.len(),
        "{report}"
    );
    assert_eq!(report["turns"], 5, "{report}");
    // The turns after a summary read it in place of the oldest turns.
    let last = requests.iter().rfind(|seen| !summarising(seen)).unwrap();
    assert!(
        last.body()
            .to_string()
            .contains("Pages read so far: all of p."),
        "the summary is not in the last request"
    );
    server.stop().await;
}

#[tokio::test]
async fn a_run_on_the_callers_model_with_samples_of_four_thousand_characters_goes_on_for_eight_turns()
 {
    let thought = "x".repeat(4_000);
    let said = thought.clone();
    let script = ScriptedModel::from_fn(move |seen| match seen.tool_results().len() {
        0..7 => Reply::call("jot", serde_json::json!({"line": "a line"})).with_text(&said),
        _ => Reply::text(&said),
    });
    let model = script.serve().await.expect("serves");
    let sampled = Arc::new(AtomicUsize::new(0));
    let (server, mut client) = start(Some(&model), sampled.clone()).await;

    let (text, report) = called(&mut client, "jot_at_length").await;
    assert_eq!(text, thought);
    assert_eq!(report["turns"], 8, "{report}");
    assert_eq!(sampled.load(Ordering::SeqCst), 8, "each turn sampled once");
    assert_eq!(script.requests().len(), 8);
    assert_eq!(JOTTED.load(Ordering::SeqCst), 7, "each call made once");
    server.stop().await;
}
