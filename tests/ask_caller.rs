//! The model asking the caller's person (`ask = true`) through the real MCP path: a neva
//! server, neva's client answering the form with its elicitation handler, and the scripted
//! model behind real HTTP. Under MCP 2026-07-28 the question ends a round of the tool call and
//! the client calls again with the answer; under `legacy-spec` it is a request the run waits
//! for. Either way the answer is the call's result, and every model answer is asked for once.

mod common;

use std::sync::{Arc, Mutex};

use common::{Server, text};
use ladoga::testing::{Reply, ScriptedModel, ScriptedServer};
use ladoga::{REPORT_KEY, orchestrator};
use neva::prelude::*;
use neva::types::elicitation::{ElicitRequestParams, ElicitResult};
use serde_json::{Value, json};

#[tool(descr = "Moves the release to a day")]
async fn move_release(day: String) -> String {
    format!("the release is on {day}")
}

/// Plans, asking its caller's person what it must not guess.
#[orchestrator(ask = true)]
async fn planner(task: String) -> String {
    task
}

/// Plans, asking its caller's person, and asking before it moves the release.
#[orchestrator(ask = true, approve = ["move_release"])]
async fn careful_planner(task: String) -> String {
    task
}

/// The forms a client was shown, as JSON, and how its person answers them.
#[derive(Clone)]
struct Person {
    shown: Arc<Mutex<Vec<Value>>>,
    answer: Arc<dyn Fn(&Value) -> ElicitResult + Send + Sync>,
}

impl Person {
    fn answering(answer: impl Fn(&Value) -> ElicitResult + Send + Sync + 'static) -> Self {
        Self {
            shown: Arc::default(),
            answer: Arc::new(answer),
        }
    }

    fn shown(&self) -> Vec<Value> {
        self.shown.lock().unwrap().clone()
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
                let form = serde_json::to_value(&params).unwrap();
                person.shown.lock().unwrap().push(form.clone());
                (person.answer)(&form)
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
    async fn plan(&mut self) -> CallToolResponse {
        self.call("planner").await
    }

    async fn call(&mut self, tool: &str) -> CallToolResponse {
        self.client
            .tools()
            .call(tool, [("task", "Move the release")])
            .await
            .expect("the call answers")
    }

    async fn stop(self) {
        drop(self.client);
        self.server.stop().await;
    }
}

/// A model that asks `arguments` of `ask_caller` until it has a result, then moves the release
/// to the day it was told.
fn asking_model(arguments: Value) -> ScriptedModel {
    ScriptedModel::from_fn(move |seen| match seen.tool_results().first() {
        None => Reply::call("ask_caller", arguments.clone()).with_text("I need a day."),
        Some((_, result)) => Reply::text(format!("Told: {result}")),
    })
}

/// The run's report in a result's `_meta`.
fn report(result: &CallToolResponse) -> Value {
    let block = serde_json::to_value(&result.content[0]).unwrap();
    block["_meta"][REPORT_KEY].clone()
}

/// The one field of a form's schema.
fn answer_field(form: &Value) -> &Value {
    &form["requestedSchema"]["properties"]["answer"]
}

#[tokio::test]
async fn an_answered_question_is_the_calls_result_and_the_model_is_asked_once_per_turn() {
    let script = asking_model(json!({"question": "Which day should the release move to?"}));
    let person =
        Person::answering(|_| ElicitResult::accept().with_content(json!({"answer": "Thursday"})));
    let mut running = start(&script, Some(&person)).await;

    let result = running.plan().await;

    assert!(!result.is_error, "{}", text(&result));
    assert_eq!(text(&result), "Told: Thursday");
    let requests = script.requests();
    assert_eq!(requests.len(), 2, "each turn was asked for once");
    assert!(requests[0].tool_names().contains(&"ask_caller".to_owned()));
    assert_eq!(requests[1].tool_results()[0].1, "Thursday");
    let shown = person.shown();
    assert_eq!(shown.len(), 1, "asked once: {shown:?}");
    assert_eq!(shown[0]["message"], "Which day should the release move to?");
    assert_eq!(answer_field(&shown[0])["type"], "string");
    assert!(answer_field(&shown[0])["enum"].is_null(), "{}", shown[0]);
    assert_eq!(shown[0]["requestedSchema"]["required"], json!(["answer"]));
    assert_eq!(
        report(&result)["questions"],
        json!([{
            "question": "Which day should the release move to?",
            "reply": "answered",
            "answer": "Thursday",
        }])
    );
    running.stop().await;
}

#[tokio::test]
async fn a_declined_or_dismissed_question_says_so_as_the_calls_result() {
    for (answer, reply) in [
        (ElicitResult::decline(), "declined"),
        (ElicitResult::cancel(), "cancelled"),
    ] {
        let script = asking_model(json!({"question": "Which day?"}));
        let person = Person::answering(move |_| answer.clone());
        let mut running = start(&script, Some(&person)).await;

        let result = running.plan().await;

        assert!(!result.is_error, "{}", text(&result));
        let told = &script.requests()[1].tool_results()[0].1;
        assert!(told.starts_with(reply), "{reply}: {told}");
        assert_eq!(report(&result)["questions"][0]["reply"], reply);
        assert!(report(&result)["questions"][0]["answer"].is_null());
        assert_eq!(script.requests().len(), 2, "{reply}: each turn asked once");
        running.stop().await;
    }
}

#[tokio::test]
async fn a_choice_among_values_is_the_forms_enum_and_the_chosen_value_the_result() {
    let script = asking_model(json!({
        "question": "Which day?",
        "choices": ["Thursday", "Friday"],
    }));
    let person = Person::answering(|form| {
        let last = answer_field(form)["enum"][1].clone();
        ElicitResult::accept().with_content(json!({ "answer": last }))
    });
    let mut running = start(&script, Some(&person)).await;

    let result = running.plan().await;

    assert_eq!(text(&result), "Told: Friday");
    let shown = person.shown();
    assert_eq!(
        answer_field(&shown[0])["enum"],
        json!(["Thursday", "Friday"])
    );
    let asked = &report(&result)["questions"][0];
    assert_eq!(asked["choices"], json!(["Thursday", "Friday"]));
    assert_eq!(asked["answer"], "Friday");
    running.stop().await;
}

/// Under MCP 2026-07-28 each request says what its caller can answer: one that declares no
/// elicitation is never offered the tool.
#[cfg(not(feature = "legacy-spec"))]
#[tokio::test]
async fn a_caller_that_cannot_elicit_is_never_offered_the_tool() {
    let script = ScriptedModel::new([Reply::text("Thursday, I guess.")]);
    let mut running = start(&script, None).await;

    let result = running.plan().await;

    assert_eq!(text(&result), "Thursday, I guess.");
    let offered = script.requests()[0].tool_names();
    assert!(offered.contains(&"move_release".to_owned()), "{offered:?}");
    assert!(!offered.contains(&"ask_caller".to_owned()), "{offered:?}");
    assert!(report(&result)["questions"].is_null());
    running.stop().await;
}

/// Under `legacy-spec` neva keeps no client capabilities: the tool is offered, and asking a
/// client without an elicitation handler tells the model the person cannot be asked.
#[cfg(feature = "legacy-spec")]
#[tokio::test]
async fn a_caller_that_cannot_elicit_gets_the_model_told_it_cannot_be_asked() {
    let script = asking_model(json!({"question": "Which day?"}));
    let mut running = start(&script, None).await;

    let result = running.plan().await;

    assert!(!result.is_error, "{}", text(&result));
    let told = &script.requests()[1].tool_results()[0].1;
    assert!(told.contains("cannot be asked"), "{told}");
    assert_eq!(report(&result)["questions"][0]["reply"], "unavailable");
    running.stop().await;
}

/// Asks its caller's person, only ever as an MCP task.
#[cfg(not(feature = "legacy-spec"))]
#[orchestrator(ask = true, task_support = "required")]
async fn task_planner(task: String) -> String {
    task
}

/// `tasks/get` of the task `id` every 50 ms until its status is `status`: that answer.
#[cfg(not(feature = "legacy-spec"))]
async fn until(addr: std::net::SocketAddr, id: &str, status: &str) -> Value {
    for _ in 0..100 {
        let got = common::rounds::request(addr, "", "tasks/get", json!({"taskId": id})).await;
        if got["result"]["status"] == status {
            return got["result"].clone();
        }
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
    panic!("the task {id} never turned {status}");
}

/// A call that runs as an MCP task asks through its task: it turns `input_required` with the
/// form, and the caller answers with `tasks/update`.
#[cfg(not(feature = "legacy-spec"))]
#[tokio::test]
async fn as_a_task_the_question_is_the_tasks_and_tasks_update_answers_it() {
    use common::rounds::request;

    let script = asking_model(json!({"question": "Which day?", "choices": ["Thursday", "Friday"]}));
    let model = script.serve().await.expect("serves");
    let app = App::new()
        .with_options(|opt| opt.with_tasks())
        .add_singleton(model.model());
    let server = Server::start(ladoga::TaskProgress::new().serve(app)).await;
    let addr = server.addr;

    let params = json!({
        "name": "task_planner",
        "arguments": {"task": "Move the release"},
        "task": {},
    });
    let started = request(addr, "", "tools/call", params).await;
    assert_eq!(started["result"]["resultType"], "task", "{started}");
    let id = started["result"]["taskId"]
        .as_str()
        .expect("an id")
        .to_owned();
    let waiting = until(addr, &id, "input_required").await;
    let requests = waiting["inputRequests"].as_object().expect("the questions");
    assert_eq!(requests.len(), 1, "{waiting}");
    let (key, asked) = requests.iter().next().expect("one");
    let form = &asked["params"];
    assert_eq!(form["message"], "Which day?", "{waiting}");
    assert_eq!(answer_field(form)["enum"], json!(["Thursday", "Friday"]));

    let answers = json!({ key: {"action": "accept", "content": {"answer": "Friday"}} });
    let update = json!({"taskId": id, "inputResponses": answers});
    let updated = request(addr, "", "tasks/update", update).await;
    assert!(updated.get("error").is_none(), "{updated}");
    let done = until(addr, &id, "completed").await;

    assert_eq!(
        done["result"]["content"][0]["text"], "Told: Friday",
        "{done}"
    );
    assert_eq!(script.requests()[1].tool_results()[0].1, "Friday");
    assert_eq!(script.requests().len(), 2, "each turn was asked for once");
    server.stop().await;
}

#[tokio::test]
async fn a_question_and_an_approval_of_one_turn_are_asked_together_each_once() {
    let script = ScriptedModel::from_fn(|seen| match seen.tool_results().len() {
        0 => Reply::calls([
            ("ask_caller", json!({"question": "Which day?"})),
            ("move_release", json!({"day": "Thursday"})),
        ]),
        _ => Reply::text(format!("Done: {:?}", seen.tool_results())),
    });
    let person = Person::answering(
        |form| match form["requestedSchema"]["properties"]["answer"] {
            Value::Null => ElicitResult::accept(),
            _ => ElicitResult::accept().with_content(json!({"answer": "Thursday"})),
        },
    );
    let mut running = start(&script, Some(&person)).await;

    let result = running.call("careful_planner").await;

    assert!(!result.is_error, "{}", text(&result));
    let shown = person.shown();
    assert_eq!(shown.len(), 2, "each question once: {shown:?}");
    let requests = script.requests();
    assert_eq!(requests.len(), 2, "each turn was asked for once");
    let results = requests[1].tool_results();
    assert_eq!(results[0].1, "Thursday", "{results:?}");
    assert_eq!(results[1].1, "the release is on Thursday", "{results:?}");
    let report = report(&result);
    assert_eq!(report["questions"][0]["answer"], "Thursday", "{report}");
    assert_eq!(report["approvals"][0]["decision"], "approved", "{report}");
    running.stop().await;
}
