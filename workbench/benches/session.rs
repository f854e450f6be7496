//! What a session costs per call: the same one-turn orchestrator without a session, starting a
//! session on each call, and going on with one (reset every [`RESET`] calls, so it holds one to
//! ten earlier exchanges), with the sessions kept in the process's memory and in a Redis
//! server of its own (Debian's `redis-server` on a free loopback port, when it is installed).
//! Plain measurements: the mean time of a call over [`CALLS`] calls after a warm-up, written to
//! `session.json` in the results folder.

#[allow(dead_code)]
mod common;

use std::net::TcpListener;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use common::memory::Memory;
use common::model::MemoryModel;
use common::script::Script;
use ladoga::orchestrator;
use ladoga::store::{RedisStore, Runs};
use neva::prelude::*;
use neva::svir::LocalTools;
use serde_json::{Value, json};
use svir::{ToolCall, Toolbox};

/// Calls timed per case.
const CALLS: usize = 2000;

/// Calls before the timed ones.
const WARMUP: usize = 200;

/// A continued session starts afresh every this many calls.
const RESET: usize = 10;

/// Answers in one turn.
#[orchestrator(model = MemoryModel, turns = 8)]
async fn bench_plain(task: String) -> String {
    task
}

/// Answers in one turn, keeping the conversation.
#[orchestrator(model = MemoryModel, turns = 8, session = true)]
async fn bench_session(task: String) -> String {
    task
}

/// The tools of this binary with the one-turn model, and `runs` as the session store if given.
async fn server(runs: Option<Runs>) -> LocalTools {
    let model = MemoryModel::new(Memory::new(Script::with_tool_turns(0)));
    let app = App::new().add_singleton(model);
    let app = match runs {
        Some(runs) => app.add_singleton(runs),
        None => app,
    };
    app.into_toolbox().load().await.expect("the tools load")
}

/// One call of `tool`, going on with `session` if given: the session its result names.
async fn call(tools: &LocalTools, tool: &str, session: Option<&str>) -> Option<String> {
    let arguments = match session {
        Some(id) => json!({"task": "Go on.", "session": id}),
        None => json!({"task": "Start."}),
    };
    let told = tools
        .call(&ToolCall::new("bench", tool, arguments.to_string()))
        .await;
    assert!(!told.is_error, "{tool} failed: {}", told.content);
    told.content
        .lines()
        .find_map(|line| line.strip_prefix("session: "))
        .map(str::to_owned)
}

/// The mean time of a call in microseconds: `tool` without a session, starting one each call
/// (`continued` false), or going on with one.
async fn mean_micros(tools: &LocalTools, tool: &str, continued: bool) -> f64 {
    let mut session = None;
    let mut timed = Duration::ZERO;
    for done in 0..WARMUP + CALLS {
        if continued && done % RESET == 0 {
            session = call(tools, tool, None).await;
        }
        let started = Instant::now();
        let named = call(
            tools,
            tool,
            if continued { session.as_deref() } else { None },
        )
        .await;
        if done >= WARMUP {
            timed += started.elapsed();
        }
        if continued {
            assert_eq!(named, session, "the same session goes on");
        }
    }
    timed.as_secs_f64() * 1e6 / CALLS as f64
}

/// The three cases over one store.
async fn cases(tools: &LocalTools) -> Value {
    let plain = mean_micros(tools, "bench_plain", false).await;
    let started = mean_micros(tools, "bench_session", false).await;
    let continued = mean_micros(tools, "bench_session", true).await;
    json!({
        "plain_us": plain,
        "session_started_us": started,
        "session_continued_us": continued,
        "started_cost_us": started - plain,
        "continued_cost_us": continued - plain,
    })
}

/// A `redis-server` of this benchmark's own on a free loopback port, keeping nothing on disk.
struct Redis {
    port: u16,
    child: Child,
}

impl Redis {
    fn start() -> Option<Self> {
        let port = TcpListener::bind("127.0.0.1:0")
            .ok()?
            .local_addr()
            .ok()?
            .port();
        let child = Command::new("redis-server")
            .args(["--bind", "127.0.0.1", "--port", &port.to_string()])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .spawn()
            .ok()?;
        for _ in 0..100 {
            if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
                return Some(Self { port, child });
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        None
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn main() {
    if !common::results::benching() {
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let memory = rt.block_on(async { cases(&server(None).await).await });
    println!("sessions in memory: {memory}");
    let redis = match Redis::start() {
        Some(redis) => rt.block_on(async {
            let url = format!("redis://127.0.0.1:{}/0", redis.port);
            let store = RedisStore::connect(&url).await.expect("a Redis URL");
            cases(&server(Some(Runs::new(store))).await).await
        }),
        None => {
            eprintln!("redis-server is not installed (scripts/services install): no Redis case");
            Value::Null
        }
    };
    println!("sessions on Redis: {redis}");
    common::results::write_json(
        "session.json",
        &json!({"calls": CALLS, "reset_every": RESET, "memory": memory, "redis": redis}),
    );
}
