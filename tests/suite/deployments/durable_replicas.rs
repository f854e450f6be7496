//! Two `board` replicas running `plan_week` durable, behind nginx (round robin for MCP, and for
//! restate-server's calls of their Restate endpoints, one deployment at one URI), sharing a
//! SQLite board and a real restate-server; the official Python SDK's tasks client
//! (`tests/peers/python_task.py`) as the caller, through nginx. The replica running the run is
//! killed (`SIGKILL`) while the model writes its second answer: the task completes on the
//! other, nothing recorded asked or called again.
//!
//! Ignored by a plain `cargo test`, since it needs restate-server, nginx and the SDK:
//! `scripts/test` runs it with `--ignored`.
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::common::durable::{
    PLANNED, STATE_SECRET, adding_then_answering, adding_then_clearing, asked,
};
use crate::common::nginx::{Nginx, Routing};
use crate::common::restate::Restate;
use crate::common::scratch::Scratch;
use crate::common::{self, board_at, free_addr, peer, unsessioned};
use serde_json::{Value, json};

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
/// `uri`, its log in `log`, with the other arguments `more`.
async fn replica(
    (http, endpoint): (SocketAddr, SocketAddr),
    uri: &str,
    restate: &Restate,
    model_url: &str,
    (db, log): (&Path, PathBuf),
    more: &[&str],
) -> Replica {
    let (endpoint, db) = (endpoint.to_string(), db.display().to_string());
    let (ingress, admin) = (restate.ingress(), restate.admin());
    let mut args = vec![
        "--restate-endpoint",
        &endpoint,
        "--restate-ingress",
        &ingress,
        "--restate-admin",
        &admin,
        "--restate-advertise",
        uri,
        "--db",
        &db,
    ];
    args.extend(more);
    let stderr = std::fs::File::create(&log).expect("a log file");
    let (board, http) = board_at(
        http,
        model_url,
        "scripted",
        &args,
        &[
            ("RUST_LOG", "ladoga=debug"),
            STATE_SECRET,
            (common::auth::SECRET_VAR, common::auth::SECRET),
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

/// Two durable boards behind nginx on one restate-server, sharing a SQLite board.
struct Cluster {
    restate: Restate,
    nginx: Nginx,
    replicas: Vec<Replica>,
    _scratch: Scratch,
}

impl Cluster {
    /// The boards, asking the model at `model_url`, with the other arguments `more`; once
    /// restate-server knows their service.
    async fn start(name: &str, model_url: &str, more: &[&str]) -> Self {
        let restate = Restate::start().await;
        let scratch = Scratch::new(name);
        let https = [free_addr(), free_addr()];
        let endpoints = [free_addr(), free_addr()];
        // nginx is started first: restate-server discovers the deployment through it.
        let nginx = Nginx::start_with_endpoints(&https, Routing::RoundRobin, &endpoints)
            .await
            .expect("nginx");
        let uri = format!("http://{}", nginx.restate.expect("the endpoints' address"));
        let mut replicas = Vec::new();
        for addrs in https.into_iter().zip(endpoints) {
            let log = scratch.sibling(&format!("{}.log", addrs.0.port()));
            let files = (scratch.path.as_path(), log);
            replicas.push(replica(addrs, &uri, &restate, model_url, files, more).await);
        }
        restate.wait_for_service("LadogaRun").await;
        Self {
            restate,
            nginx,
            replicas,
            _scratch: scratch,
        }
    }

    /// The board's tasks, as `list_tasks` says them to an admin.
    async fn tasks(&self) -> String {
        let params = json!({"name": "list_tasks", "arguments": {}});
        let listed = common::rounds::request(
            self.replicas[0].http,
            &common::auth::admin("alice"),
            "tools/call",
            params,
        )
        .await;
        listed["result"]["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server, nginx and the Python SDK: run by scripts/test"]
async fn the_replica_running_a_durable_task_killed_the_task_completes_on_the_other() {
    let script = adding_then_answering(Duration::from_secs(3));
    let model = script.serve().await.expect("the model's server");
    let Cluster {
        restate: _restate,
        nginx,
        mut replicas,
        _scratch,
    } = Cluster::start("durable-replicas", &model.url(), &[]).await;

    let caller = python_task(&nginx, &["accept"]);
    asked(&script, 2).await;
    // Before the kill, only the replica running the run has `add_task`'s answer.
    let running = replicas.iter().position(|replica| replica.ran("add_task"));
    let running = running.expect("a replica ran add_task");
    let mut killed = replicas.remove(running);
    killed.board.kill().await.expect("the replica is killed");

    let line = caller.await.expect("the caller");
    assert_eq!(line["status"], "completed", "{line}");
    let text = line["text"].as_str().unwrap_or_default();
    assert_eq!(unsessioned(text), PLANNED, "{line}");
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
    let client = common::connect(replicas[0].http).await;
    let listed = common::answer(
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server, nginx and the Python SDK: run by scripts/test"]
async fn through_nginx_the_python_sdk_approves_a_durable_tasks_call_and_it_runs_once() {
    let script = adding_then_clearing();
    let model = script.serve().await.expect("the model's server");
    // `--auth`: the Python client is Alice the admin, whose role opens `clear_board`.
    let cluster = Cluster::start("durable-replicas-approval", &model.url(), &["--auth"]).await;

    let line = python_task(&cluster.nginx, &["accept"])
        .await
        .expect("the caller");
    assert_eq!(line["status"], "completed", "{line}");
    let asked = line["asked"].as_array().expect("the questions");
    assert_eq!(asked.len(), 1, "{line}");
    assert!(
        asked[0]
            .as_str()
            .unwrap_or_default()
            .contains("clear_board"),
        "{line}"
    );
    assert!(
        line["seen"]
            .as_array()
            .expect("seen")
            .iter()
            .any(|task| task["status"] == "input_required"),
        "{line}"
    );
    assert_eq!(
        line["report"]["approvals"][0]["decision"], "approved",
        "{line}"
    );
    assert_eq!(script.requests().len(), 3, "each turn asked once");
    assert!(
        !cluster.tasks().await.contains("Tag v1.0"),
        "clear_board ran"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs restate-server, nginx and the Python SDK: run by scripts/test"]
async fn through_nginx_the_python_sdk_cancels_a_durable_task_and_its_run_stops() {
    let script = adding_then_answering(Duration::from_secs(3));
    let model = script.serve().await.expect("the model's server");
    let cluster = Cluster::start("durable-replicas-cancel", &model.url(), &[]).await;

    // Cancelled while the model writes its second answer, 3 s long.
    let caller = python_task(&cluster.nginx, &["cancel", "1500"]);
    asked(&script, 2).await;
    let line = caller.await.expect("the caller");
    assert_eq!(line["status"], "cancelled", "{line}");
    tokio::time::sleep(Duration::from_secs(4)).await;
    assert_eq!(
        script.requests().len(),
        2,
        "no model request after the cancel"
    );
    assert_eq!(
        cluster.tasks().await.matches("Tag v1.0").count(),
        1,
        "add_task ran once"
    );
}
