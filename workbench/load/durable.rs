//! `load --durable N`: N durable `plan_week` tasks through nginx to two boards sharing a real
//! restate-server and a SQLite board, while a replica is killed (`SIGKILL`) and started again
//! every `--kill-every`. Each task's run adds a task of its own, then answers naming it. Every
//! task must complete with its own answer, and every task must be on the board once: a call
//! made twice, or an answer lost, fails the run.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use ladoga::testing::{Reply, ScriptedModel, SeenRequest};
use serde_json::{Value, json};

use super::balancer::{Balancer, Routing};
use super::free_addr;
use super::latency::Latencies;
use super::replicas::{Board, Launch};
use super::restate::Restate;

/// The secret the boards seal their runs' calls with.
const STATE_SECRET: &str = "the load harness's shared request-state secret.";

/// How long the whole run may take before it counts as failed.
const LIMIT: Duration = Duration::from_secs(600);

/// What to run.
pub struct Durable {
    /// How many tasks.
    pub tasks: usize,
    /// The `board` binary.
    pub board: PathBuf,
    /// How often a replica is killed and started again.
    pub kill_every: Duration,
    /// How long each model answer takes.
    pub delay: Duration,
    /// How far apart the tasks start.
    pub spacing: Duration,
}

/// Runs it and prints its figures; `Ok(false)` when a task failed or a call ran twice.
pub async fn run(load: &Durable) -> Result<bool, Box<dyn std::error::Error>> {
    let delay = load.delay;
    let script = ScriptedModel::from_fn(move |request| reply(request).after(delay));
    let model = script.serve().await?;
    let restate = Restate::start().await;
    let (https, endpoints) = ([free_addr(), free_addr()], [free_addr(), free_addr()]);
    let nginx = Balancer::start_with_endpoints(&https, Routing::RoundRobin, &endpoints).await?;
    let uri = format!(
        "http://{}",
        nginx.restate.ok_or("nginx serves no endpoints")?
    );
    let db = std::env::temp_dir().join(format!("ladoga-load-durable-{}.db", std::process::id()));
    let launch = |endpoint: SocketAddr| Launch {
        binary: load.board.clone(),
        args: [
            "--model-url",
            &model.url(),
            "--model",
            "scripted",
            "--db",
            &db.display().to_string(),
            "--restate-endpoint",
            &endpoint.to_string(),
            "--restate-ingress",
            &restate.ingress(),
            "--restate-admin",
            &restate.admin(),
            "--restate-advertise",
            &uri,
        ]
        .map(str::to_owned)
        .to_vec(),
        env: vec![("LADOGA_STATE_SECRET".to_owned(), STATE_SECRET.to_owned())],
        token: None,
    };
    let launches = endpoints.map(launch);
    let mut boards = Vec::new();
    for (launch, http) in launches.iter().zip(https) {
        boards.push(Board::start(launch, http).await?);
    }
    restate.wait_for_service("LadogaRun").await;
    println!(
        "load --durable: {} tasks, one every {} ms, through nginx ({}) to 2 boards on one \
         restate-server; model answers after {} ms; a board killed and started again every {} s",
        load.tasks,
        load.spacing.as_millis(),
        nginx.url(),
        delay.as_millis(),
        load.kill_every.as_secs()
    );

    let began = Instant::now();
    let deadline = began + LIMIT;
    let mut started: Vec<(String, String, Instant)> = Vec::new();
    let mut ended: HashMap<String, (Value, Duration)> = HashMap::new();
    let mut kills = 0;
    let mut next_kill = began + load.kill_every;
    let mut errors = Vec::new();
    let mut next = 0;
    // One task starts every `spacing`, the started ones are followed, a board is killed when due;
    // until every task has ended.
    while (next < load.tasks || ended.len() < started.len()) && Instant::now() < deadline {
        if next < load.tasks {
            let focus = format!("task-{next}");
            match start(nginx.addr, &focus).await {
                Ok(id) => started.push((focus, id, Instant::now())),
                Err(error) => errors.push(format!("{focus} did not start: {error}")),
            }
            next += 1;
        }
        let open = started.iter().filter(|(_, id, _)| !ended.contains_key(id));
        let polls = open.map(|(_, id, at)| async move { (id, *at, get(nginx.addr, id).await) });
        for (id, at, task) in futures_util::future::join_all(polls).await {
            if let Ok(task) = task
                && ["completed", "failed", "cancelled"]
                    .contains(&task["status"].as_str().unwrap_or(""))
            {
                ended.insert(id.clone(), (task, at.elapsed()));
            }
        }
        if Instant::now() >= next_kill {
            kill_and_start(&mut boards, &launches, kills).await?;
            kills += 1;
            next_kill += load.kill_every;
        }
        tokio::time::sleep(load.spacing).await;
    }
    let took = began.elapsed();

    let mut times = Vec::new();
    for (focus, id, _) in &started {
        match ended.get(id) {
            None => errors.push(format!(
                "{focus} ({id}) did not end within {} s",
                LIMIT.as_secs()
            )),
            Some((task, time)) => {
                let text = task["result"]["content"][0]["text"]
                    .as_str()
                    .unwrap_or_default();
                if task["status"] != "completed" || text != answer(focus) {
                    errors.push(format!("{focus} ({id}) ended {}: {text}", task["status"]));
                } else {
                    times.push(*time);
                }
            }
        }
    }
    let board = list_tasks(nginx.addr).await?;
    let mut held = HashMap::<String, usize>::new();
    for line in board.lines() {
        if let Some((_, title)) = line.split_once("] ") {
            *held.entry(title.to_owned()).or_default() += 1;
        }
    }
    for (focus, _, _) in &started {
        match held.get(focus).copied().unwrap_or(0) {
            1 => {}
            count => errors.push(format!("{focus} is on the board {count} times")),
        }
    }
    for board in boards {
        board.kill().await?;
    }
    drop(nginx);
    for suffix in ["", "-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", db.display()));
    }

    let times = Latencies::new(times);
    let requests = script.requests().len();
    println!(
        "ended: {} of {} tasks completed with their own answer in {:.1} s, {kills} kills",
        times.count(),
        load.tasks,
        took.as_secs_f64()
    );
    println!(
        "task time (start to end seen): p50 {:.0} ms, p90 {:.0} ms, p99 {:.0} ms, max {:.0} ms",
        times.percentile_ms(50.0),
        times.percentile_ms(90.0),
        times.percentile_ms(99.0),
        times.max_ms()
    );
    println!(
        "model requests: {requests} for {} turns ({} asked again after a kill); every task on \
         the board once: {}",
        2 * load.tasks,
        requests.saturating_sub(2 * load.tasks),
        errors.iter().all(|error| !error.contains("on the board"))
    );
    for error in errors.iter().take(10) {
        println!("  error: {error}");
    }
    Ok(errors.is_empty())
}

/// Kills board `kills % 2` and starts it again where it was.
async fn kill_and_start(
    boards: &mut Vec<Board>,
    launches: &[Launch],
    kills: usize,
) -> Result<(), String> {
    let index = kills % boards.len();
    let killed = boards.remove(index);
    let addr = killed.addr;
    killed
        .kill()
        .await
        .map_err(|error| format!("cannot kill board {}: {error}", index + 1))?;
    boards.insert(index, Board::start(&launches[index], addr).await?);
    Ok(())
}

/// The scripted model: the run's first answer adds a task named by its brief's focus, the
/// second names it.
fn reply(request: &SeenRequest) -> Reply {
    let brief = request.first_user_text().unwrap_or_default();
    let focus = focus(&brief);
    match request.tool_results().len() {
        0 => Reply::call("add_task", json!({ "title": focus })),
        _ => Reply::text(answer(&focus)),
    }
}

/// The focus a brief plans around: `Plan my week around FOCUS. …`.
fn focus(brief: &str) -> String {
    let after = brief.split("around ").nth(1).unwrap_or_default();
    after.split('.').next().unwrap_or_default().to_owned()
}

/// The answer a task's run gives.
fn answer(focus: &str) -> String {
    format!("Planned {focus}.")
}

/// Starts `plan_week` around `focus` as a task at `addr`: its id.
async fn start(addr: SocketAddr, focus: &str) -> Result<String, String> {
    let params =
        json!({"name": "plan_week", "arguments": {"focus": focus}, "task": {"ttl": 600000}});
    let started = request(addr, "tools/call", params).await?;
    started["result"]["taskId"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("no task: {started}"))
}

/// `tasks/get` of `id` at `addr`: the task.
async fn get(addr: SocketAddr, id: &str) -> Result<Value, String> {
    let got = request(addr, "tasks/get", json!({"taskId": id})).await?;
    Ok(got["result"].clone())
}

/// The board's tasks, as `list_tasks` says them.
async fn list_tasks(addr: SocketAddr) -> Result<String, String> {
    let listed = request(
        addr,
        "tools/call",
        json!({"name": "list_tasks", "arguments": {}}),
    )
    .await?;
    Ok(listed["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned())
}

/// One bare MCP 2026-07-28 request to `addr`: its JSON-RPC answer.
async fn request(addr: SocketAddr, method: &str, mut params: Value) -> Result<Value, String> {
    params["_meta"] = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "load", "version": "1.0.0"},
        "io.modelcontextprotocol/clientCapabilities": {},
    });
    // MCP 2026-07-28 names the method, and the tool or task, in headers too.
    let name = ["name", "taskId"]
        .iter()
        .find_map(|key| params[key].as_str())
        .unwrap_or_default()
        .to_owned();
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let answer = reqwest::Client::new()
        .post(format!("http://{addr}/mcp"))
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", method)
        .header("Mcp-Name", name)
        .json(&body)
        .timeout(Duration::from_secs(30))
        .send()
        .await
        .map_err(|error| error.to_string())?;
    let text = answer.text().await.map_err(|error| error.to_string())?;
    if let Ok(value) = serde_json::from_str::<Value>(&text) {
        return Ok(value);
    }
    text.lines()
        .filter_map(|line| line.strip_prefix("data:"))
        .filter_map(|data| serde_json::from_str::<Value>(data.trim()).ok())
        .find(|message| message["id"] == 1)
        .ok_or_else(|| format!("no answer in {text}"))
}
