//! A run on a `ladoga::durable::Journal`, in a Restate workflow served by a worker process that
//! is killed in the middle of the run and started again: a real restate-server replays the
//! journal, and nothing the journal holds is asked or called twice.
//!
//! The worker is this test binary again, running `worker` with `LADOGA_WORKER` set. Its tools
//! write a line to a file for each call made, so the counts survive the kill.

use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::Arc;
use std::time::Duration;

use crate::common;
use crate::common::restate::Restate;
use ladoga::Orchestration;
use ladoga::durable::Journal;
use ladoga::testing::{Reply, ScriptedModel};
use restate_sdk::prelude::*;
use serde_json::json;

/// The worker's workflow: the model at `LADOGA_MODEL_URL`, two tools that note their calls.
struct Planner {
    model: ladoga::Model,
    tools: Arc<svir::Tools>,
}

#[restate_sdk::workflow]
impl Planner {
    #[handler]
    async fn run(&self, ctx: WorkflowContext<'_>, brief: String) -> Result<String, HandlerError> {
        let journal = Journal::new(&ctx).retry_safe(["list_tasks"]);
        let outcome = Orchestration::new(&self.model, &*self.tools)
            .journal(&journal)
            .run(brief)
            .await
            .map_err(|error| TerminalError::new(error.to_string()))?;
        Ok(outcome.text)
    }
}

/// Appends `tool` to the calls file: a call made.
fn note(calls: &Path, tool: &str) {
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(calls)
        .expect("the calls file");
    writeln!(file, "{tool}").expect("a call noted");
}

/// The calls made so far, one tool name each.
fn made(calls: &Path) -> Vec<String> {
    let text = std::fs::read_to_string(calls).unwrap_or_default();
    text.lines().map(str::to_owned).collect()
}

/// Serves the workflow when this binary runs as a worker, else does nothing.
#[tokio::test]
async fn worker() {
    let Ok(addr) = std::env::var("LADOGA_WORKER") else {
        return;
    };
    let calls = PathBuf::from(std::env::var("LADOGA_CALLS").expect("the calls file"));
    let model_url = std::env::var("LADOGA_MODEL_URL").expect("the model's URL");
    let client = svir::Client::openai(model_url).build().expect("a client");
    let (listed, added) = (calls.clone(), calls);
    let tools = svir::Tools::new()
        .add_tool(
            svir::Tool::new("list_tasks", "Lists the tasks"),
            move |_: serde_json::Value| {
                let calls = listed.clone();
                async move {
                    note(&calls, "list_tasks");
                    "1. [ ] Tag v1.0"
                }
            },
        )
        .add_tool(
            svir::Tool::new("add_task", "Adds a task"),
            move |_: serde_json::Value| {
                let calls = added.clone();
                async move {
                    note(&calls, "add_task");
                    // Long enough for the test to kill the worker while the call is in flight.
                    tokio::time::sleep(Duration::from_secs(3)).await;
                    "added"
                }
            },
        );
    let planner = Planner {
        model: ladoga::Model::new(client, "scripted"),
        tools: Arc::new(tools),
    };
    let endpoint = Endpoint::builder().bind(planner).build();
    HttpServer::new(endpoint)
        .listen_and_serve(addr.parse().expect("an address"))
        .await;
}

/// A worker process serving the workflow at `addr`, killed when dropped.
struct Worker(Child);

impl Worker {
    async fn start(addr: SocketAddr, model_url: &str, calls: &Path) -> Self {
        // The worker test's name in this binary: its module path without the crate's name.
        let worker = module_path!().split_once("::").map_or("", |(_, path)| path);
        let child = Command::new(std::env::current_exe().expect("this test binary"))
            .args(["--exact", &format!("{worker}::worker"), "--nocapture"])
            .env("LADOGA_WORKER", addr.to_string())
            .env("LADOGA_MODEL_URL", model_url)
            .env("LADOGA_CALLS", calls)
            .spawn()
            .expect("a worker");
        common::wait_for(addr).await;
        Self(child)
    }

    fn kill(mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// Starts the workflow `key` on `brief`, without waiting for it.
async fn send(restate: &Restate, key: &str, brief: &str) {
    let url = format!("{}/Planner/{key}/run/send", restate.ingress());
    let sent = reqwest::Client::new().post(url).json(&brief).send().await;
    let sent = sent.expect("the ingress answers");
    assert!(
        sent.status().is_success(),
        "{}",
        sent.text().await.unwrap_or_default()
    );
}

/// The workflow `key`'s answer, once it has one.
async fn output(restate: &Restate, key: &str) -> String {
    let url = format!(
        "{}/restate/workflow/Planner/{key}/attach",
        restate.ingress()
    );
    let answer = reqwest::Client::new()
        .get(url)
        .timeout(Duration::from_secs(90))
        .send();
    let answer = answer.await.expect("the run's answer");
    let status = answer.status();
    let body = answer.text().await.expect("a body");
    assert!(status.is_success(), "{status}: {body}");
    serde_json::from_str(&body).expect("a JSON string")
}

/// Waits, for at most 30 s, until `until` holds.
async fn wait_until(what: &str, until: impl Fn() -> bool) {
    for _ in 0..300 {
        if until() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    panic!("{what} did not happen within 30 s");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server: LADOGA_RESTATE (scripts/peers install)"]
async fn a_worker_killed_while_the_model_answers_goes_on_from_the_journal() {
    let restate = Restate::start().await;
    let script = ScriptedModel::from_fn(|seen| match seen.tool_results().len() {
        0 => Reply::call("list_tasks", json!({})),
        // The second answer takes long enough for the worker to be killed while it comes.
        _ => Reply::text("Planned.").after(Duration::from_secs(2)),
    });
    let model = script.serve().await.expect("the model's server");
    let calls = std::env::temp_dir().join(format!("ladoga-durable-{}-a", std::process::id()));
    let addr = common::free_addr();
    let worker = Worker::start(addr, &model.url(), &calls).await;
    restate.register(&format!("http://{addr}")).await;

    send(&restate, "plan-a", "Plan my week.").await;
    wait_until("the second model request", || script.requests().len() == 2).await;
    worker.kill();
    let _worker = Worker::start(addr, &model.url(), &calls).await;

    assert_eq!(output(&restate, "plan-a").await, "Planned.");
    assert_eq!(
        made(&calls),
        ["list_tasks"],
        "the call the journal holds is not made again"
    );
    let requests = script.requests();
    assert_eq!(
        requests.len(),
        3,
        "the first request once, the cut one once more"
    );
    assert!(requests[0].tool_results().is_empty());
    assert_eq!(requests[2].tool_results()[0].1, "1. [ ] Tag v1.0");
    let _ = std::fs::remove_file(calls);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server: LADOGA_RESTATE (scripts/peers install)"]
async fn a_call_cut_by_the_kill_runs_again_only_when_it_is_retry_safe() {
    let restate = Restate::start().await;
    let script = ScriptedModel::from_fn(|seen| match seen.tool_results().len() {
        0 => Reply::calls([
            ("list_tasks", json!({})),
            ("add_task", json!({"title": "A"})),
        ]),
        _ => Reply::text("Done."),
    });
    let model = script.serve().await.expect("the model's server");
    let calls = std::env::temp_dir().join(format!("ladoga-durable-{}-b", std::process::id()));
    let addr = common::free_addr();
    let worker = Worker::start(addr, &model.url(), &calls).await;
    restate.register(&format!("http://{addr}")).await;

    send(&restate, "plan-b", "Plan my week.").await;
    // `add_task` was made, and is still in flight.
    wait_until("the add_task call", || {
        made(&calls).contains(&"add_task".into())
    })
    .await;
    worker.kill();
    let _worker = Worker::start(addr, &model.url(), &calls).await;

    assert_eq!(output(&restate, "plan-b").await, "Done.");
    let made = made(&calls);
    let count = |tool: &str| made.iter().filter(|made| *made == tool).count();
    assert_eq!(
        count("add_task"),
        1,
        "a call that may not run twice is not made again"
    );
    assert_eq!(count("list_tasks"), 2, "a retry-safe call runs again");
    let requests = script.requests();
    assert_eq!(requests.len(), 2, "the first answer is not asked for again");
    let results = requests[1].tool_results();
    assert_eq!(results[0].1, "1. [ ] Tag v1.0");
    assert!(
        results[1].1.contains("outcome of this call is unknown"),
        "{results:?}"
    );
    let _ = std::fs::remove_file(calls);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server: LADOGA_RESTATE (scripts/peers install)"]
async fn a_run_goes_on_when_restate_server_is_killed_and_started_again() {
    let mut restate = Restate::start().await;
    let script = ScriptedModel::from_fn(|seen| match seen.tool_results().len() {
        0 => Reply::call("list_tasks", json!({})),
        _ => Reply::text("Planned.").after(Duration::from_secs(2)),
    });
    let model = script.serve().await.expect("the model's server");
    let calls = std::env::temp_dir().join(format!("ladoga-durable-{}-c", std::process::id()));
    let addr = common::free_addr();
    let _worker = Worker::start(addr, &model.url(), &calls).await;
    restate.register(&format!("http://{addr}")).await;

    send(&restate, "plan-c", "Plan my week.").await;
    wait_until("the second model request", || script.requests().len() == 2).await;
    restate.kill();
    restate.start_again().await;

    assert_eq!(output(&restate, "plan-c").await, "Planned.");
    assert_eq!(
        made(&calls),
        ["list_tasks"],
        "the call the journal holds is not made again"
    );
    let asked = script.requests().len();
    assert!(
        (2..=3).contains(&asked),
        "the cut request at most once more: {asked}"
    );
    let _ = std::fs::remove_file(calls);
}
