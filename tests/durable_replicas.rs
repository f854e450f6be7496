//! Two `board` replicas running `plan_week` durable, behind nginx (round robin for MCP, and for
//! restate-server's calls of their Restate endpoints, one deployment at one URI), sharing a
//! SQLite board and a real restate-server; the official Python SDK's tasks client
//! (`tests/peers/python_task.py`) as the caller, through nginx. The replica running the run is
//! killed (`SIGKILL`) while the model writes its second answer: the task completes on the
//! other, nothing recorded asked or called again.
//!
//! Ignored by a plain `cargo test`, since it needs restate-server, nginx and the SDK:
//! `scripts/test` runs it with `--ignored`.
#![cfg(not(feature = "legacy-spec"))]

mod common;

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use common::nginx::{Nginx, Routing};
use common::restate::Restate;
use common::scratch::Scratch;
use common::{answer, board_at, connect, free_addr, peer, unsessioned};
use ladoga::testing::{Reply, ScriptedModel};
use serde_json::{Value, json};

/// A model that adds one task, then answers after three seconds.
fn adding_then_answering() -> ScriptedModel {
    ScriptedModel::from_fn(|seen| match seen.tool_results().len() {
        0 => Reply::call("add_task", json!({"title": "Tag v1.0"})),
        _ => Reply::text("Planned: tag v1.0 first.").after(Duration::from_secs(3)),
    })
}

/// One replica: its MCP address, the board process, and its log.
struct Replica {
    http: SocketAddr,
    board: tokio::process::Child,
    log: PathBuf,
}

impl Replica {
    /// Whether this replica's run has `tool`'s answer, by its log: the replica that ran the
    /// call, or one that replayed it from the journal.
    fn ran(&self, tool: &str) -> bool {
        let log = std::fs::read_to_string(&self.log).unwrap_or_default();
        log.lines().any(|line| {
            line.contains("tool call answered") && line.contains(&format!("tool={tool}"))
        })
    }
}

/// A durable board at `http`, serving its Restate endpoint at `endpoint`, advertised as nginx's
/// `uri`, its log in `log`.
async fn replica(
    http: SocketAddr,
    endpoint: SocketAddr,
    uri: &str,
    restate: &Restate,
    model_url: &str,
    db: &Path,
    log: PathBuf,
) -> Replica {
    let (endpoint, db) = (endpoint.to_string(), db.display().to_string());
    let args = [
        "--restate-endpoint",
        &endpoint,
        "--restate-ingress",
        &restate.ingress(),
        "--restate-admin",
        &restate.admin(),
        "--restate-advertise",
        uri,
        "--db",
        &db,
    ];
    let stderr = std::fs::File::create(&log).expect("a log file");
    let (board, http) = board_at(
        http,
        model_url,
        "scripted",
        &args,
        &[
            ("RUST_LOG", "ladoga=debug"),
            (
                "LADOGA_STATE_SECRET",
                "the replicas' secret, 32 bytes or more",
            ),
        ],
        stderr.into(),
    )
    .await;
    Replica { http, board, log }
}

/// The Python tasks client, through nginx, with `args`: its JSON line, once the task ended.
fn python_task(nginx: &Nginx, args: &[&str]) -> tokio::task::JoinHandle<Value> {
    let args: Vec<String> = [nginx.url()]
        .into_iter()
        .chain(args.iter().map(|arg| arg.to_string()))
        .collect();
    tokio::spawn(async move {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        peer::python_as_admin("LADOGA_PYTHON", "python_task.py", &args).await
    })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server, nginx and the Python SDK: run by scripts/test"]
async fn the_replica_running_a_durable_task_killed_the_task_completes_on_the_other() {
    let restate = Restate::start().await;
    let script = adding_then_answering();
    let model = script.serve().await.expect("the model's server");
    let scratch = Scratch::new("durable-replicas");
    let (one_http, other_http) = (free_addr(), free_addr());
    let endpoints = [free_addr(), free_addr()];
    // nginx is started first: restate-server discovers the deployment through it.
    let nginx =
        Nginx::start_with_endpoints(&[one_http, other_http], Routing::RoundRobin, &endpoints)
            .await
            .expect("nginx");
    let uri = format!("http://{}", nginx.restate.expect("the endpoints' address"));
    let mut replicas = Vec::new();
    for (endpoint, http) in endpoints.into_iter().zip([one_http, other_http]) {
        let log = scratch.sibling(&format!("{}.log", http.port()));
        replicas.push(
            replica(
                http,
                endpoint,
                &uri,
                &restate,
                &model.url(),
                &scratch.path,
                log,
            )
            .await,
        );
    }
    restate.wait_for_service("LadogaRun").await;

    let caller = python_task(&nginx, &["accept"]);
    for _ in 0..300 {
        if script.requests().len() == 2 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(
        script.requests().len(),
        2,
        "the second model request was made"
    );
    // Before the kill, only the replica running the run has `add_task`'s answer.
    let running = replicas.iter().position(|replica| replica.ran("add_task"));
    let running = running.expect("a replica ran add_task");
    let mut killed = replicas.remove(running);
    killed.board.kill().await.expect("the replica is killed");

    let line = caller.await.expect("the caller");
    assert_eq!(line["status"], "completed", "{line}");
    let text = line["text"].as_str().unwrap_or_default();
    assert_eq!(unsessioned(text), "Planned: tag v1.0 first.", "{line}");
    assert_eq!(line["report"]["turns"], 2, "{line}");
    assert!(
        line["seen"]
            .as_array()
            .expect("seen")
            .iter()
            .all(|task| task["same_ttl"] == true),
        "{line}"
    );
    assert_eq!(
        script.requests().len(),
        3,
        "each model turn asked once, the cut one once more"
    );
    let client = connect(replicas[0].http).await;
    let listed = answer(
        &client
            .tools()
            .call("list_tasks", ())
            .await
            .expect("tools/call"),
    );
    assert_eq!(
        listed.matches("Tag v1.0").count(),
        1,
        "add_task ran once: {listed}"
    );
}
