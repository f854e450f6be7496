//! Parts 2 and 3, Ladoga's side: the scenario over loopback HTTP, a Ladoga `#[orchestrator]` with
//! the default `ladoga::Model` (svir's own HTTP client) talking to the scripted server
//! `bench-server`, timed in closed loops at concurrency 1 and 64; and the raw svir request rate
//! to the same server, the physical limit. The other frameworks run against the same server.
//!
//! The server is `LADOGA_BENCH_SERVER` when set, else a `bench-server` this benchmark starts.
//! With `LADOGA_BENCH_REPEAT=COUNT` it only runs the scenario `COUNT` times, for callgrind.

#[allow(dead_code)]
mod common;

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;

use common::alloc::Count;
use common::closed_loop::{self, Load};
use common::scenario::{self, SYSTEM};
use ladoga::{CompletionModel, orchestrator};
use neva::prelude::*;
use serde_json::json;
use svir::Toolbox;

/// How many orchestrations, one after another, the allocations are counted over.
const COUNTED: u64 = 100;

/// The scenario, over HTTP, offered only the scenario's three tools.
#[orchestrator(
    system = "You answer with the tools you have.",
    tools = ["lookup", "add", "echo"],
    turns = 8
)]
async fn loop_wire(task: String) -> String {
    task
}

fn main() {
    let repeat = std::env::var("LADOGA_BENCH_REPEAT").ok();
    if repeat.is_none() && !common::results::benching() {
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let (url, _server) = server();
    let client = svir::Client::openai(&url).build().expect("a client");
    let model = ladoga::Model::new(client.clone(), "scripted");
    if let Some(count) = repeat {
        rt.block_on(repeat_runs(model, count.parse().expect("a count")));
        return;
    }

    rt.block_on(async {
        let tools = Arc::new(
            App::new()
                .add_singleton(model.clone())
                .into_toolbox()
                .load()
                .await
                .expect("the tools load"),
        );
        scenario::run(&tools, "loop_wire").await;
        let ladoga = |workers| {
            let tools = Arc::clone(&tools);
            closed_loop::measure(workers, move || {
                let tools = Arc::clone(&tools);
                async move { scenario::run(&tools, "loop_wire").await }
            })
        };
        let one = ladoga(1).await;
        let many = ladoga(64).await;
        let before = Count::now();
        for _ in 0..COUNTED {
            scenario::run(&tools, "loop_wire").await;
        }
        let spent = Count::now().since(before);

        // The first request of the scenario, as svir sends it, answered with three calls.
        let mut offered = svir::Tools::new();
        for tool in tools.tools() {
            if ["lookup", "add", "echo"].contains(&tool.name.as_str()) {
                offered = offered.add_tool(tool, |_: serde_json::Value| async { "" });
            }
        }
        assert_eq!(offered.tools().len(), 3);
        let request = Arc::new(
            svir::Request::new(model.name())
                .system(SYSTEM)
                .tools(&offered)
                .user("When is the deadline?"),
        );
        let raw = |workers| {
            let client = client.clone();
            let request = Arc::clone(&request);
            closed_loop::measure(workers, move || {
                let client = client.clone();
                let request = Arc::clone(&request);
                async move {
                    let done = client.complete(&*request).await.expect("an answer");
                    assert_eq!(done.calls.len(), 3);
                }
            })
        };
        let raw_one = raw(1).await;
        let raw_many = raw(64).await;

        let row = |load: Load, workers: usize| {
            json!({
                "per_second": load.per_second(),
                "mean_ns": load.mean_ns(workers),
                "allocations": load.allocations(),
            })
        };
        common::results::write_json(
            "wire.json",
            &json!({
                "requests_per_orchestration": 4,
                "ladoga": {"1": row(one, 1), "64": row(many, 64)},
                "ladoga_allocations": spent.allocations as f64 / COUNTED as f64,
                "ladoga_bytes": spent.bytes as f64 / COUNTED as f64,
                "svir_raw_request": {"1": row(raw_one, 1), "64": row(raw_many, 64)},
            }),
        );
    });
}

/// Runs the scenario once to warm up, then `count` times one after another: for an instruction
/// count under callgrind (`LADOGA_BENCH_REPEAT=COUNT`).
async fn repeat_runs(model: ladoga::Model, count: usize) {
    let tools = App::new()
        .add_singleton(model)
        .into_toolbox()
        .load()
        .await
        .expect("the tools load");
    scenario::run(&tools, "loop_wire").await;
    for _ in 0..count {
        scenario::run(&tools, "loop_wire").await;
    }
}

/// The scripted server's URL, and the server when this benchmark started it.
fn server() -> (String, Option<Stopped>) {
    if let Ok(url) = std::env::var("LADOGA_BENCH_SERVER") {
        return (url, None);
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_bench-server"))
        .stdout(Stdio::piped())
        .spawn()
        .expect("bench-server starts");
    let mut url = String::new();
    BufReader::new(child.stdout.take().expect("its stdout"))
        .read_line(&mut url)
        .expect("it prints its URL");
    (url.trim().to_owned(), Some(Stopped(child)))
}

/// A server process, killed when dropped.
struct Stopped(Child);

impl Drop for Stopped {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}
