//! Approvals through the real MCP path: a neva server, neva's client answering the questions
//! with its elicitation handler, and the scripted model behind real HTTP. Under MCP 2026-07-28
//! each question ends a round of the tool call and the client calls again with the answer;
//! under `legacy-spec` the question is a request the run waits for. Either way a call runs only
//! once approved, and runs once; every model answer is asked for once.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::{Server, text};
use ladoga::testing::{Reply, ScriptedModel, ScriptedServer};
use ladoga::{REPORT_KEY, orchestrator};
use neva::prelude::*;
use neva::types::elicitation::{ElicitRequestParams, ElicitResult};
use serde_json::{Value, json};

/// The boards wiped, by name, in order.
static WIPED: Mutex<Vec<String>> = Mutex::new(Vec::new());
static JOTTED: AtomicUsize = AtomicUsize::new(0);

#[tool(descr = "Wipes a board clean")]
async fn wipe(board: String) -> String {
    WIPED.lock().unwrap().push(board.clone());
    format!("wiped {board}")
}

#[tool(
    descr = "Jots a note down",
    annotations = r#"{"destructiveHint": false, "readOnlyHint": false}"#
)]
async fn jot(text: String) -> String {
    JOTTED.fetch_add(1, Ordering::SeqCst);
    format!("jotted: {text}")
}

#[tool(descr = "Reads a long page", annotations = r#"{"readOnlyHint": true}"#)]
async fn page(number: u32) -> String {
    format!("page {number}: {}", "lorem ipsum ".repeat(300))
}

/// Keeps boards, asking before it wipes one.
#[orchestrator(approve = ["wipe"], turns = 40)]
async fn keeper(task: String) -> String {
    task
}

/// Keeps boards, asking before any call that may destroy.
#[orchestrator(approve = destructive)]
async fn careful(task: String) -> String {
    task
}

/// Keeps boards within two seconds, asking before it wipes one.
#[orchestrator(approve = ["wipe"], timeout = "2s")]
async fn hurried(task: String) -> String {
    task
}

/// The questions a client was asked, and how it answers them.
#[derive(Clone)]
struct Person {
    asked: Arc<Mutex<Vec<String>>>,
    answer: Arc<dyn Fn(&str) -> ElicitResult + Send + Sync>,
    pause: Duration,
}

impl Person {
    fn answering(answer: impl Fn(&str) -> ElicitResult + Send + Sync + 'static) -> Self {
        Self {
            asked: Arc::default(),
            answer: Arc::new(answer),
            pause: Duration::ZERO,
        }
    }

    fn approving() -> Self {
        Self::answering(|_| ElicitResult::accept())
    }

    /// Takes `pause` to answer each question.
    #[cfg_attr(feature = "legacy-spec", allow(dead_code))]
    fn slow(mut self, pause: Duration) -> Self {
        self.pause = pause;
        self
    }

    fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }
}

/// The server with the scripted model, and a client; one with `person`'s elicitation handler
/// when there is one, else a client that declares no elicitation.
struct Running {
    _model: ScriptedServer,
    server: Server,
    client: Client,
}

async fn start(script: &ScriptedModel, person: Option<&Person>) -> Running {
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model())).await;
    let mut client = common::client_for(server.addr);
    if let Some(person) = person.cloned() {
        client.map_elicitation(move |params: ElicitRequestParams| {
            let person = person.clone();
            async move {
                let message = serde_json::to_value(&params).unwrap()["message"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned();
                person.asked.lock().unwrap().push(message.clone());
                tokio::time::sleep(person.pause).await;
                (person.answer)(&message)
            }
        });
    }
    client.connect().await.expect("connects");
    Running {
        _model: model,
        server,
        client,
    }
}

impl Running {
    async fn call(&mut self, tool: &str, task: &str) -> CallToolResponse {
        self.client
            .tools()
            .call(tool, [("task", task)])
            .await
            .expect("the call answers")
    }

    async fn stop(self) {
        drop(self.client);
        self.server.stop().await;
    }
}

/// The run's report in a result's `_meta`.
fn report(result: &CallToolResponse) -> Value {
    let block = serde_json::to_value(&result.content[0]).unwrap();
    block["_meta"][REPORT_KEY].clone()
}

/// The report's approvals, as (tool, decision) pairs.
fn decisions(result: &CallToolResponse) -> Vec<(String, String)> {
    report(result)["approvals"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|approval| {
            (
                approval["tool"].as_str().unwrap_or_default().to_owned(),
                approval["decision"].as_str().unwrap_or_default().to_owned(),
            )
        })
        .collect()
}

/// Runs the tests of this file one at a time: they share the tools' records.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

fn wiped() -> Vec<String> {
    WIPED.lock().unwrap().clone()
}

#[tokio::test]
async fn an_approved_call_runs_once_and_each_answer_is_asked_for_once() {
    let _one = ONE_AT_A_TIME.lock().await;
    WIPED.lock().unwrap().clear();
    let script = ScriptedModel::new([
        Reply::calls([
            ("jot", json!({"text": "before"})),
            ("wipe", json!({"board": "a"})),
        ])
        .with_text("Board a is stale: I will wipe it."),
        Reply::text("Board a is clean."),
    ]);
    let person = Person::approving();
    let mut running = start(&script, Some(&person)).await;
    let jotted = JOTTED.load(Ordering::SeqCst);

    let result = running.call("keeper", "Clean board a").await;

    assert!(!result.is_error, "{}", text(&result));
    assert_eq!(text(&result), "Board a is clean.");
    assert_eq!(wiped(), ["a"], "the approved call ran, once");
    assert_eq!(
        JOTTED.load(Ordering::SeqCst),
        jotted + 1,
        "the other call ran, once"
    );
    assert_eq!(
        script.requests().len(),
        2,
        "each turn's request was sent once"
    );
    let asked = person.asked();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(asked[0].contains("`wipe`"), "{}", asked[0]);
    assert!(asked[0].contains(r#""board": "a""#), "{}", asked[0]);
    assert!(
        asked[0].contains("Board a is stale: I will wipe it."),
        "the model's words are beside the call: {}",
        asked[0]
    );
    assert_eq!(decisions(&result), [("wipe".into(), "approved".into())]);
    let results = script.requests()[1].tool_results();
    assert_eq!(results.len(), 2, "{results:?}");
    assert!(results[1].1.contains("wiped a"), "{results:?}");
    running.stop().await;
}

#[tokio::test]
async fn a_declined_or_dismissed_call_never_runs_and_the_model_is_told() {
    let _one = ONE_AT_A_TIME.lock().await;
    for (answer, decision, told) in [
        (
            ElicitResult::decline as fn() -> ElicitResult,
            "declined",
            "declined",
        ),
        (ElicitResult::cancel, "cancelled", "dismissed"),
    ] {
        WIPED.lock().unwrap().clear();
        let script = ScriptedModel::new([
            Reply::call("wipe", json!({"board": "a"})),
            Reply::text("I left board a as it is."),
        ]);
        let person = Person::answering(move |_| answer());
        let mut running = start(&script, Some(&person)).await;

        let result = running.call("keeper", "Clean board a").await;

        assert!(!result.is_error, "{}", text(&result));
        assert_eq!(text(&result), "I left board a as it is.", "the run went on");
        assert!(wiped().is_empty(), "a {decision} call never runs");
        assert_eq!(person.asked().len(), 1);
        let results = script.requests()[1].tool_results();
        assert!(results[0].1.contains(told), "{results:?}");
        assert!(results[0].1.contains("not run"), "{results:?}");
        assert_eq!(decisions(&result), [("wipe".into(), decision.into())]);
        running.stop().await;
    }
}

#[tokio::test]
async fn a_caller_that_cannot_be_asked_never_has_the_call_run() {
    let _one = ONE_AT_A_TIME.lock().await;
    WIPED.lock().unwrap().clear();
    let script = ScriptedModel::new([
        Reply::call("wipe", json!({"board": "a"})),
        Reply::text("I could not wipe board a."),
    ]);
    let mut running = start(&script, None).await;

    let result = running.call("keeper", "Clean board a").await;

    assert!(!result.is_error, "{}", text(&result));
    assert!(wiped().is_empty());
    let results = script.requests()[1].tool_results();
    assert!(results[0].1.contains("cannot be asked"), "{results:?}");
    assert_eq!(decisions(&result), [("wipe".into(), "unavailable".into())]);
    running.stop().await;
}

#[tokio::test]
async fn an_approval_holds_for_its_own_arguments_only() {
    let _one = ONE_AT_A_TIME.lock().await;
    WIPED.lock().unwrap().clear();
    let script = ScriptedModel::new([
        Reply::call("wipe", json!({"board": "a"})),
        Reply::call("wipe", json!({"board": "b"})),
        Reply::call("wipe", json!({"board": "a"})),
        Reply::text("Done."),
    ]);
    // Approves board a, every time it is asked; declines anything else.
    let person = Person::answering(|message| {
        if message.contains(r#""board": "a""#) {
            ElicitResult::accept()
        } else {
            ElicitResult::decline()
        }
    });
    let mut running = start(&script, Some(&person)).await;

    let result = running.call("keeper", "Clean the boards").await;

    assert_eq!(text(&result), "Done.");
    assert_eq!(
        person.asked().len(),
        3,
        "each call was asked about: {:?}",
        person.asked()
    );
    assert_eq!(wiped(), ["a", "a"], "board b was never wiped");
    assert_eq!(
        decisions(&result),
        [
            ("wipe".into(), "approved".into()),
            ("wipe".into(), "declined".into()),
            ("wipe".into(), "approved".into()),
        ]
    );
    assert_eq!(
        script.requests().len(),
        4,
        "each turn's request was sent once"
    );
    running.stop().await;
}

#[tokio::test]
async fn destructive_asks_about_the_tools_not_annotated_as_safe() {
    let _one = ONE_AT_A_TIME.lock().await;
    WIPED.lock().unwrap().clear();
    let script = ScriptedModel::new([
        Reply::calls([
            ("jot", json!({"text": "note"})),
            ("page", json!({"number": 1})),
            ("wipe", json!({"board": "a"})),
        ]),
        Reply::text("Done."),
    ]);
    let person = Person::approving();
    let mut running = start(&script, Some(&person)).await;

    let result = running.call("careful", "Clean board a").await;

    assert_eq!(text(&result), "Done.");
    let asked = person.asked();
    assert_eq!(
        asked.len(),
        1,
        "only the unannotated tool is asked about: {asked:?}"
    );
    assert!(asked[0].contains("`wipe`"), "{}", asked[0]);
    assert_eq!(wiped(), ["a"]);
    running.stop().await;
}

/// 30 turns reading 100 KB, then a question: far more than the 8 KiB a sealed `requestState`
/// may hold, so the run waits in the server's store and only its id travels.
#[tokio::test]
async fn a_run_far_larger_than_the_request_state_pauses_and_goes_on() {
    let _one = ONE_AT_A_TIME.lock().await;
    WIPED.lock().unwrap().clear();
    let mut replies: Vec<Reply> = (1..=30)
        .map(|number| Reply::call("page", json!({"number": number})))
        .collect();
    replies.push(Reply::call("wipe", json!({"board": "read"})));
    replies.push(Reply::text("Read it all, and wiped the board."));
    let script = ScriptedModel::new(replies);
    let person = Person::approving();
    let mut running = start(&script, Some(&person)).await;

    let result = running.call("keeper", "Read, then wipe").await;

    assert_eq!(text(&result), "Read it all, and wiped the board.");
    assert_eq!(wiped(), ["read"]);
    let requests = script.requests();
    assert_eq!(requests.len(), 32, "each turn's request was sent once");
    let read: usize = requests[31]
        .tool_results()
        .iter()
        .map(|(_, result)| result.len())
        .sum();
    assert!(
        read > 100_000,
        "the conversation carried {read} bytes of results"
    );
    assert_eq!(report(&result)["turns"], 32);
    running.stop().await;
}

/// Under MCP 2026-07-28 the time a person takes to answer is between rounds: it counts against
/// neither the turns, nor the budget, nor the run's time bound. (Under `legacy-spec` the run
/// waits for the answer within its time bound.)
#[cfg(not(feature = "legacy-spec"))]
#[tokio::test]
async fn the_time_a_person_takes_does_not_count_against_the_time_bound() {
    let _one = ONE_AT_A_TIME.lock().await;
    WIPED.lock().unwrap().clear();
    let script = ScriptedModel::new([
        Reply::call("wipe", json!({"board": "slow"})),
        Reply::text("Wiped."),
    ]);
    let person = Person::approving().slow(Duration::from_millis(2500));
    let mut running = start(&script, Some(&person)).await;

    let result = running.call("hurried", "Wipe the slow board").await;

    assert!(!result.is_error, "{}", text(&result));
    assert_eq!(text(&result), "Wiped.");
    assert_eq!(wiped(), ["slow"]);
    running.stop().await;
}

#[tokio::test]
async fn a_call_of_a_tool_that_is_not_there_is_told_back_and_no_one_is_asked() {
    let _one = ONE_AT_A_TIME.lock().await;
    for person in [Some(Person::approving()), None] {
        let script = ScriptedModel::new([
            Reply::calls([
                ("no_such_tool", json!({})),
                ("careful", json!({"task": "again"})),
            ]),
            Reply::text("Nothing to do."),
        ]);
        let mut running = start(&script, person.as_ref()).await;

        let result = running.call("careful", "Clean up").await;

        assert_eq!(text(&result), "Nothing to do.", "{result:?}");
        if let Some(person) = &person {
            assert!(person.asked().is_empty(), "{:?}", person.asked());
        }
        assert!(decisions(&result).is_empty(), "{}", report(&result));
        let told = script.requests()[1].tool_results();
        assert_eq!(told.len(), 2, "{told:?}");
        for (_, said) in &told {
            assert!(said.to_lowercase().contains("no tool named"), "{told:?}");
            assert!(!said.contains("approval"), "{told:?}");
        }
        running.stop().await;
    }
}
