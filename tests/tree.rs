//! Questions that travel up the agent tree, through the real MCP path: a neva server whose
//! `plan_week` orchestrator's model calls the `research` orchestrator in process, neva's client
//! answering with its elicitation handler, and the scripted model behind real HTTP. A question
//! `research` asks (an approval, a question of its model's) is put to the person at the top,
//! tagged with its path; under MCP 2026-07-28 it is a round of the top call, and every run on
//! the way pauses and goes on, nothing asked or run twice; under `legacy-spec` it is a request
//! the runs wait for. The top report nests `research`'s.

mod common;

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use common::durable::noted;
#[cfg(not(feature = "legacy-spec"))]
use common::tasks::task_at;
use common::{Server, text};
use ladoga::testing::{Reply, ScriptedModel, ScriptedServer, SeenRequest};
use ladoga::{REPORT_KEY, orchestrator};
use neva::prelude::*;
use neva::types::elicitation::{ElicitRequestParams, ElicitResult};
use serde_json::{Value, json};

static CLEARED: AtomicUsize = AtomicUsize::new(0);
static LISTED: AtomicUsize = AtomicUsize::new(0);

#[tool(descr = "Clears the board")]
async fn clear_board() -> String {
    CLEARED.fetch_add(1, Ordering::SeqCst);
    noted("clear_board");
    "the board is clear".to_owned()
}

#[tool(
    descr = "Lists the open tasks",
    annotations = r#"{"readOnlyHint": true}"#
)]
async fn list_tasks() -> String {
    LISTED.fetch_add(1, Ordering::SeqCst);
    noted("list_tasks");
    "1. Tag v1.0".to_owned()
}

/// Plans the week with the other tools, `research` among them.
#[orchestrator(
    system = "plan",
    tools = ["research", "list_tasks", "inquire", "deep", "sampled"]
)]
async fn plan_week(task: String) -> String {
    task
}

/// Researches, asking before it clears the board.
#[orchestrator(system = "research", approve = ["clear_board"], tools = ["clear_board"])]
async fn research(task: String) -> String {
    task
}

/// Researches, asking its person what it must not guess.
#[orchestrator(system = "inquire", ask = true, tools = ["list_tasks"])]
async fn inquire(task: String) -> String {
    task
}

/// Hands the task to `research`: a question two runs below the top.
#[orchestrator(system = "deep", tools = ["research"])]
async fn deep(task: String) -> String {
    task
}

/// Plans the week as an MCP task, with `research`.
#[cfg(not(feature = "legacy-spec"))]
#[orchestrator(system = "plan", tools = ["research", "list_tasks"], task_support = "required")]
async fn plan_as_task(task: String) -> String {
    task
}

/// Plans the week with `research`, as a durable run on Restate, called as an MCP task.
#[cfg(not(feature = "legacy-spec"))]
#[orchestrator(
    system = "plan",
    tools = ["research", "list_tasks"],
    durable = true,
    task_support = "optional"
)]
async fn plan_durably(task: String) -> String {
    task
}

/// Researches on the model of the caller at the top, which it samples.
#[orchestrator(system = "sampled", model = ladoga::CallerModel, tools = ["list_tasks"])]
async fn sampled(task: String) -> String {
    task
}

/// Runs the tests of this file one at a time: they share the tools' counts.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

/// The model of every run, told apart by its system prompt: `plan` calls `first` (and
/// `list_tasks` beside it) and then answers with what it heard; `research` clears the board;
/// `inquire` asks which day; `deep` calls `research`.
fn model(first: &'static str) -> ScriptedModel {
    ScriptedModel::from_fn(move |seen: &SeenRequest| reply(first, seen))
}

/// What [`model`] answers `seen`.
fn reply(first: &'static str, seen: &SeenRequest) -> Reply {
    {
        let heard = seen.tool_results();
        let said = |prefix: &str| {
            let results: Vec<String> = heard.iter().map(|(_, result)| result.clone()).collect();
            Reply::text(format!("{prefix}: {}", results.join(" | ")))
        };
        match (seen.system().unwrap_or_default(), heard.is_empty()) {
            ("plan", true) => Reply::calls([
                (first, json!({"task": "tidy up"})),
                ("list_tasks", json!({})),
            ]),
            ("plan", false) => said("planned"),
            ("research", true) => {
                Reply::call("clear_board", json!({})).with_text("The board is stale.")
            }
            ("research", false) => said("researched"),
            ("inquire", true) => Reply::call(
                "ask_caller",
                json!({"question": "Which day?", "choices": ["Thu", "Fri"]}),
            ),
            ("inquire", false) => said("inquired"),
            ("deep", true) => Reply::call("research", json!({"task": "tidy up"})),
            ("deep", false) => said("delegated"),
            ("sampled", true) => Reply::call("list_tasks", json!({})),
            ("sampled", false) => said("sampled"),
            (other, _) => Reply::text(format!("unexpected run {other}")),
        }
    }
}

/// The requests each run's model was sent, by system prompt.
fn requests(script: &ScriptedModel, system: &str) -> usize {
    let requests = script.requests();
    (requests.iter())
        .filter(|seen| seen.system() == Some(system))
        .count()
}

/// What the person at the top was asked: each message, and its path in `_meta`.
#[derive(Clone, Default)]
struct Person {
    asked: Arc<Mutex<Vec<(String, Value)>>>,
}

impl Person {
    fn asked(&self) -> Vec<(String, Value)> {
        self.asked.lock().unwrap().clone()
    }
}

struct Running {
    _model: ScriptedServer,
    server: Server,
    client: Client,
}

/// The server with `script`'s model, and a client: one whose person answers each question with
/// `answer`, or one that declares no elicitation.
async fn start(
    script: &ScriptedModel,
    answer: Option<fn(&ElicitRequestParams) -> ElicitResult>,
) -> (Running, Person) {
    let model = script.serve().await.expect("serves");
    let server = Server::start(App::new().add_singleton(model.model())).await;
    let mut client = common::client_for(server.addr);
    let person = Person::default();
    if let Some(answer) = answer {
        let asked = person.clone();
        client.map_elicitation(move |params: ElicitRequestParams| {
            let asked = asked.clone();
            async move {
                let json = serde_json::to_value(&params).unwrap();
                let message = json["message"].as_str().unwrap_or_default().to_owned();
                let path = json["_meta"][ladoga::approval::PATH_KEY].clone();
                asked.asked.lock().unwrap().push((message, path));
                answer(&params)
            }
        });
    }
    client.connect().await.expect("connects");
    let running = Running {
        _model: model,
        server,
        client,
    };
    (running, person)
}

impl Running {
    async fn plan(&mut self) -> CallToolResponse {
        self.client
            .tools()
            .call("plan_week", [("task", "Plan my week")])
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

fn counts() -> (usize, usize) {
    (
        CLEARED.load(Ordering::SeqCst),
        LISTED.load(Ordering::SeqCst),
    )
}

#[tokio::test]
async fn an_approval_asked_below_is_put_to_the_person_at_the_top_and_nothing_runs_twice() {
    let _one = ONE_AT_A_TIME.lock().await;
    let script = model("research");
    let (mut running, person) = start(&script, Some(|_| ElicitResult::accept())).await;
    let (cleared, listed) = counts();

    let result = running.plan().await;

    assert!(!result.is_error, "{}", text(&result));
    assert_eq!(
        text(&result),
        "planned: researched: the board is clear | 1. Tag v1.0"
    );
    assert_eq!(counts(), (cleared + 1, listed + 1), "each call ran once");
    assert_eq!(
        requests(&script, "plan"),
        2,
        "each top request was sent once"
    );
    assert_eq!(requests(&script, "research"), 2, "each request below too");
    let asked = person.asked();
    assert_eq!(asked.len(), 1, "{asked:?}");
    let (message, path) = &asked[0];
    assert!(
        message.starts_with("[plan_week › research › clear_board] "),
        "{message}"
    );
    assert!(message.contains("The board is stale."), "{message}");
    assert_eq!(path, &json!(["plan_week", "research", "clear_board"]));
    // The report nests: the run below, with the question it asked.
    let report = report(&result);
    assert!(report.get("approvals").is_none(), "{report}");
    let runs = report["runs"].as_array().expect("the runs below");
    assert_eq!(runs.len(), 1, "{report}");
    assert_eq!(runs[0]["tool"], "research");
    assert_eq!(runs[0]["turn"], 1);
    assert_eq!(runs[0]["report"]["approvals"][0]["tool"], "clear_board");
    assert_eq!(runs[0]["report"]["approvals"][0]["decision"], "approved");
    running.stop().await;
}

#[tokio::test]
async fn a_declined_question_below_never_has_the_call_run_and_its_model_is_told() {
    let _one = ONE_AT_A_TIME.lock().await;
    let script = model("research");
    let (mut running, person) = start(&script, Some(|_| ElicitResult::decline())).await;
    let (cleared, listed) = counts();

    let result = running.plan().await;

    assert!(!result.is_error, "{}", text(&result));
    assert_eq!(
        counts(),
        (cleared, listed + 1),
        "the declined call never ran"
    );
    assert_eq!(person.asked().len(), 1);
    let answer = text(&result);
    assert!(answer.contains("declined this call"), "{answer}");
    let report = report(&result);
    assert_eq!(
        report["runs"][0]["report"]["approvals"][0]["decision"],
        "declined"
    );
    running.stop().await;
}

/// A caller that declares no elicitation: the call below is declined as it would be for the
/// run's own caller, and the model told. (Under `legacy-spec` a caller counts as able until
/// asked, and asking fails.)
#[tokio::test]
async fn a_caller_that_cannot_be_asked_has_the_call_below_declined() {
    let _one = ONE_AT_A_TIME.lock().await;
    let script = model("research");
    let (mut running, _) = start(&script, None).await;
    let (cleared, listed) = counts();

    let result = running.plan().await;

    assert!(!result.is_error, "{}", text(&result));
    assert_eq!(counts(), (cleared, listed + 1), "the call below never ran");
    let answer = text(&result);
    assert!(answer.contains("cannot be asked here"), "{answer}");
    running.stop().await;
}

#[tokio::test]
async fn a_question_of_a_model_below_is_answered_at_the_top() {
    let _one = ONE_AT_A_TIME.lock().await;
    let script = model("inquire");
    let (mut running, person) = start(
        &script,
        Some(|_| ElicitResult::accept().with_content(json!({"answer": "Thu"}))),
    )
    .await;

    let result = running.plan().await;

    assert!(!result.is_error, "{}", text(&result));
    let answer = text(&result);
    assert!(answer.starts_with("planned: inquired: "), "{answer}");
    assert!(answer.contains("Thu"), "{answer}");
    assert_eq!(
        requests(&script, "inquire"),
        2,
        "each request below was sent once"
    );
    let asked = person.asked();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(
        asked[0].0.starts_with("[plan_week › inquire] Which day?"),
        "{asked:?}"
    );
    assert_eq!(asked[0].1, json!(["plan_week", "inquire"]));
    let report = report(&result);
    let below = &report["runs"][0]["report"];
    assert_eq!(below["questions"][0]["answer"], "Thu", "{report}");
    running.stop().await;
}

#[tokio::test]
async fn a_question_two_runs_below_travels_up_both() {
    let _one = ONE_AT_A_TIME.lock().await;
    let script = model("deep");
    let (mut running, person) = start(&script, Some(|_| ElicitResult::accept())).await;
    let (cleared, listed) = counts();

    let result = running.plan().await;

    assert!(!result.is_error, "{}", text(&result));
    assert_eq!(
        text(&result),
        "planned: delegated: researched: the board is clear | 1. Tag v1.0"
    );
    assert_eq!(counts(), (cleared + 1, listed + 1), "each call ran once");
    for run in ["plan", "deep", "research"] {
        assert_eq!(requests(&script, run), 2, "{run}'s requests were sent once");
    }
    let asked = person.asked();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert_eq!(
        asked[0].1,
        json!(["plan_week", "deep", "research", "clear_board"])
    );
    let report = report(&result);
    let deep = &report["runs"][0];
    assert_eq!(deep["tool"], "deep", "{report}");
    let research = &deep["report"]["runs"][0];
    assert_eq!(research["tool"], "research", "{report}");
    assert_eq!(research["report"]["approvals"][0]["decision"], "approved");
    running.stop().await;
}

#[tokio::test]
async fn a_caller_model_below_samples_the_caller_at_the_top() {
    let _one = ONE_AT_A_TIME.lock().await;
    let (script, host) = (model("sampled"), model("sampled"));
    let (model, host_model) = (
        script.serve().await.expect("serves"),
        host.serve().await.expect("serves"),
    );
    let app = App::new()
        .add_singleton(model.model())
        .add_singleton(ladoga::CallerModel::new());
    #[cfg(not(feature = "legacy-spec"))]
    let app = app.with_max_state_bytes(ladoga::CALLER_MODEL_STATE_BYTES);
    let server = Server::start(app).await;
    let mut client = common::client_for(server.addr);
    let samples = Arc::new(AtomicUsize::new(0));
    common::sampling::answer_with(&mut client, host_model.model(), samples.clone());
    client.connect().await.expect("connects");
    let (_, listed) = counts();

    let result = client
        .tools()
        .call("plan_week", [("task", "Plan my week")])
        .await
        .expect("the call answers");

    assert!(!result.is_error, "{}", text(&result));
    assert_eq!(text(&result), "planned: sampled: 1. Tag v1.0 | 1. Tag v1.0");
    assert_eq!(
        samples.load(Ordering::SeqCst),
        2,
        "each sample was asked for once"
    );
    assert_eq!(
        requests(&script, "plan"),
        2,
        "each top request was sent once"
    );
    assert_eq!(
        requests(&script, "sampled"),
        0,
        "the run below used no model of the server's"
    );
    assert_eq!(counts().1, listed + 2, "each call ran once");
    let report = report(&result);
    assert_eq!(report["runs"][0]["report"]["model"], "caller", "{report}");
    drop(client);
    server.stop().await;
}

/// Two replicas sharing a real Redis (Debian's `redis-server`, started and stopped here) and
/// the secret that seals a round: the question `research` asks comes from replica A, and the
/// answer goes to replica B, which takes both paused runs (`plan_week`'s and `research`'s) from
/// Redis and goes on; nothing is asked or run twice. Then the same through Debian's nginx in
/// front of both. Ignored by a plain `cargo test`: `scripts/test` installs Redis and nginx and
/// runs it with `--ignored`.
#[cfg(not(feature = "legacy-spec"))]
#[tokio::test]
#[ignore = "needs redis-server and nginx: run by scripts/test"]
async fn a_question_asked_below_on_one_replica_is_answered_on_the_other() {
    use common::rounds;

    let _one = ONE_AT_A_TIME.lock().await;
    let redis = common::redis::Redis::start().await;
    let script = model("research");
    let model = script.serve().await.expect("serves");
    let replicas = redis
        .two_replicas(|| App::new().add_singleton(model.model()))
        .await;
    let (cleared, listed) = counts();
    let call = |state: Option<&str>, answers: Option<Value>| {
        let mut params = json!({"name": "plan_week", "arguments": {"task": "Plan my week"}});
        if let Some(state) = state {
            params["requestState"] = json!(state);
        }
        if let Some(answers) = answers {
            params["inputResponses"] = answers;
        }
        params
    };

    let asked = rounds::request(replicas[0].addr, "", "tools/call", call(None, None)).await;
    let (key, state) = rounds::question(&asked);
    let message = &asked["result"]["inputRequests"][&key]["params"]["message"];
    assert!(
        message
            .as_str()
            .is_some_and(|text| text.starts_with("[plan_week › research › clear_board] ")),
        "{asked}"
    );
    assert_eq!(
        counts(),
        (cleared, listed + 1),
        "nothing ran but the other call"
    );
    let answered = rounds::request(
        replicas[1].addr,
        "",
        "tools/call",
        call(Some(&state), Some(rounds::approve(&key))),
    )
    .await;

    let result = &answered["result"];
    assert_eq!(result["isError"], false, "{answered}");
    assert_eq!(
        result["content"][0]["text"],
        "planned: researched: the board is clear | 1. Tag v1.0"
    );
    assert_eq!(counts(), (cleared + 1, listed + 1), "each call ran once");
    assert_eq!(
        requests(&script, "plan"),
        2,
        "each top request was sent once"
    );
    assert_eq!(requests(&script, "research"), 2, "each request below too");

    // The same through nginx in front of both, round robin: each round to the next replica.
    let addrs = [replicas[0].addr, replicas[1].addr];
    let nginx = common::nginx::Nginx::start(&addrs, common::nginx::Routing::RoundRobin)
        .await
        .expect("nginx (scripts/services install)");
    let asked = rounds::request(nginx.addr, "", "tools/call", call(None, None)).await;
    let (key, state) = rounds::question(&asked);
    let answered = rounds::request(
        nginx.addr,
        "",
        "tools/call",
        call(Some(&state), Some(rounds::approve(&key))),
    )
    .await;
    assert_eq!(
        answered["result"]["content"][0]["text"],
        "planned: researched: the board is clear | 1. Tag v1.0",
        "{answered}"
    );
    assert_eq!(
        counts(),
        (cleared + 2, listed + 2),
        "each call ran once more"
    );
    assert_eq!(
        requests_of(&script),
        (4, 4),
        "each request was sent once more"
    );
    drop(nginx);
    for replica in replicas {
        replica.stop().await;
    }
}

/// A top call that runs as an MCP task asks through its task: a question asked below turns the
/// task `input_required`, tagged with its path, the runs wait in place, and `tasks/update`
/// answers it.
#[cfg(not(feature = "legacy-spec"))]
#[tokio::test]
async fn a_question_asked_below_a_task_is_the_tasks_and_tasks_update_answers_it() {
    use common::tasks::{answer, only_question};

    let _one = ONE_AT_A_TIME.lock().await;
    let script = model("research");
    let model = script.serve().await.expect("serves");
    let app = App::new()
        .with_options(|opt| opt.with_tasks())
        .add_singleton(model.model());
    let server = Server::start(ladoga::TaskProgress::new().serve(app)).await;
    let addr = server.addr;
    let (cleared, listed) = counts();

    let id = common::tasks::start(addr, "plan_as_task", json!({"task": "Plan my week"})).await;
    let waiting = task_at(addr, &id, &["input_required"]).await;
    let (key, message) = only_question(&waiting);
    assert!(
        message.starts_with("[plan_as_task › research › clear_board] "),
        "{waiting}"
    );
    answer(addr, &id, &key, json!({"action": "accept", "content": {}})).await;
    let done = task_at(addr, &id, &["completed"]).await;

    assert_eq!(
        done["result"]["content"][0]["text"],
        "planned: researched: the board is clear | 1. Tag v1.0",
        "{done}"
    );
    assert_eq!(counts(), (cleared + 1, listed + 1), "each call ran once");
    assert_eq!(requests_of(&script), (2, 2), "each request was sent once");
    server.stop().await;
}

/// The requests `plan` and `research` were sent.
#[cfg(not(feature = "legacy-spec"))]
fn requests_of(script: &ScriptedModel) -> (usize, usize) {
    (requests(script, "plan"), requests(script, "research"))
}

/// Serves the durable `plan_durably` when this binary runs as a durable replica
/// ([`common::durable::Replica`]), else does nothing.
#[cfg(not(feature = "legacy-spec"))]
#[tokio::test]
async fn durable_replica() {
    common::durable::serve_replica(|app| app).await;
}

/// A durable run's question asked below it (an approval `research` needs, two runs down) is its
/// task's, tagged with its path; the replica is killed while it waits, and the run replayed on the
/// replica started again still waits on it, with the paused `research` kept in the journal
/// (the store is the replica's own memory, gone with it). Answered with `tasks/update`, the
/// runs go on: the person was asked once, and no call was made twice. The replica is killed
/// again while the top model writes the answer: `research`'s report, kept in the journal with the
/// turn's calls, is still nested in the top report, and only the cut request is sent again.
#[cfg(not(feature = "legacy-spec"))]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server: LADOGA_RESTATE (scripts/peers install)"]
async fn a_question_below_a_durable_run_waits_through_a_killed_replica() {
    use common::durable::Replica;
    use common::tasks::{answer, only_question, question_keys};

    let restate = common::restate::Restate::start().await;
    // The top model takes three seconds to write the answer: long enough to kill the replica.
    let script = ScriptedModel::from_fn(|seen: &SeenRequest| {
        let writes = seen.system() == Some("plan") && !seen.tool_results().is_empty();
        let reply = reply("research", seen);
        match writes {
            true => reply.after(std::time::Duration::from_secs(3)),
            false => reply,
        }
    });
    let model = script.serve().await.expect("serves");
    let calls = std::env::temp_dir().join(format!("ladoga-tree-durable-{}", std::process::id()));
    let _ = std::fs::remove_file(&calls);
    let made = || std::fs::read_to_string(&calls).unwrap_or_default();
    let (http, endpoint) = (common::free_addr(), common::free_addr());
    let url = model.url();
    let start = || Replica::start("durable_replica", (http, endpoint), &restate, &url, &calls);
    let replica = start().await;

    let id = common::tasks::start(http, "plan_durably", json!({"task": "Plan my week"})).await;
    let waiting = task_at(http, &id, &["input_required"]).await;
    let (key, message) = only_question(&waiting);
    assert!(
        message.starts_with("[plan_durably › research › clear_board] "),
        "{waiting}"
    );
    assert_eq!(
        waiting["inputRequests"][&key]["params"]["_meta"][ladoga::approval::PATH_KEY],
        json!(["plan_durably", "research", "clear_board"]),
        "{waiting}"
    );
    assert_eq!(made(), "list_tasks\n", "nothing ran but the other call");

    drop(replica);
    let replica = start().await;
    // Replayed: the same question waits, under the same key.
    tokio::time::sleep(std::time::Duration::from_secs(2)).await;
    let again = task_at(http, &id, &["input_required"]).await;
    assert_eq!(question_keys(&again), [key.as_str()], "{again}");

    answer(http, &id, &key, json!({"action": "accept", "content": {}})).await;
    // `research` ended; the top model writes the answer: killed meanwhile.
    for _ in 0..300 {
        if requests_of(&script).0 == 2 {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    assert_eq!(requests_of(&script), (2, 2), "{:?}", made());
    drop(replica);
    let replica = start().await;
    let done = task_at(http, &id, &["completed", "failed", "cancelled"]).await;

    assert_eq!(done["status"], "completed", "{done}");
    assert_eq!(
        done["result"]["content"][0]["text"],
        "planned: researched: the board is clear | 1. Tag v1.0",
        "{done}"
    );
    let lines = made();
    let mut made_calls: Vec<&str> = lines.lines().collect();
    made_calls.sort_unstable();
    assert_eq!(
        made_calls,
        ["clear_board", "list_tasks"],
        "each call ran once"
    );
    assert_eq!(
        requests_of(&script),
        (3, 2),
        "each request was sent once, but the top one cut by the kill"
    );
    let report = &done["result"]["content"][0]["_meta"][REPORT_KEY];
    assert_eq!(report["runs"].as_array().map(Vec::len), Some(1), "{report}");
    assert_eq!(report["runs"][0]["tool"], "research", "{report}");
    assert_eq!(
        report["runs"][0]["report"]["approvals"][0]["decision"], "approved",
        "{report}"
    );
    drop(replica);
    let _ = std::fs::remove_file(&calls);
}
