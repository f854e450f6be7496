//! The cost of `with`: the scenario (three turns of three calls, then the answer) run by the same
//! Ladoga loop over a [`ToolUnion`] of the scenario's three tools, once in process (neva's
//! `LocalTools`) and once on another neva server over loopback Streamable HTTP (neva's
//! `RemoteTools`), with the same svir client answered from memory. Closed loops at concurrency 1
//! and 64, as the other benchmarks; prints a table and writes `remote.json`.
//!
//! `cargo bench -p ladoga-workbench --bench remote`; a `cargo test` run does nothing.

#[allow(dead_code)]
mod common;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use common::closed_loop::{self, Load};
use common::memory::Memory;
use common::model::MemoryModel;
use common::scenario::SYSTEM;
use common::script::{ANSWER, Script};
use ladoga::{Orchestration, ToolUnion};
use neva::prelude::*;
use neva::svir::RemoteTools;
use serde_json::json;

/// The scenario's tools: each side is offered these three.
const TOOLS: [&str; 3] = ["lookup", "add", "echo"];

/// Tool calls in one orchestration.
const CALLS: f64 = 9.0;

fn main() {
    if !common::results::benching() {
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        let model = Arc::new(MemoryModel::new(Memory::new(Script::scenario())));
        let local = App::new()
            .into_toolbox()
            .filter(|tool| TOOLS.contains(&tool.name.as_str()))
            .load()
            .await
            .expect("the tools load");
        let local = Arc::new(union(local).await);
        let addr = serve().await;
        let remote =
            RemoteTools::new(client(addr).await).filter(|tool| TOOLS.contains(&tool.name.as_str()));
        let remote = Arc::new(union(remote).await);

        let mut rows = serde_json::Map::new();
        let mut means = Vec::new();
        for (name, tools) in [("local", local), ("remote", remote)] {
            run(&model, &tools).await;
            let measured = |workers| {
                let (model, tools) = (Arc::clone(&model), Arc::clone(&tools));
                closed_loop::measure(workers, move || {
                    let (model, tools) = (Arc::clone(&model), Arc::clone(&tools));
                    async move { run(&model, &tools).await }
                })
            };
            let one = measured(1).await;
            let many = measured(64).await;
            let row = |load: Load, workers: usize| {
                json!({
                    "per_second": load.per_second(),
                    "mean_ns": load.mean_ns(workers),
                    "allocations": load.allocations(),
                })
            };
            println!(
                "| {name} | {:.1} µs | {:.0} | {:.0} | {:.0} |",
                one.mean_ns(1) / 1e3,
                one.allocations(),
                one.per_second(),
                many.per_second()
            );
            means.push((one.mean_ns(1), one.allocations()));
            rows.insert(
                name.to_owned(),
                json!({"1": row(one, 1), "64": row(many, 64)}),
            );
        }
        let [(local, local_allocations), (remote, remote_allocations)] = means[..] else {
            unreachable!("two rows")
        };
        println!(
            "a remote call costs {:.1} µs and {:.0} allocations more than a local one",
            (remote - local) / CALLS / 1e3,
            (remote_allocations - local_allocations) / CALLS
        );
        common::results::write_json("remote.json", &json!({"tool_calls": CALLS, "loops": rows}));
    });
}

/// A union of `toolbox` alone, loaded.
async fn union<T: svir::Toolbox + Send + Sync + 'static>(toolbox: T) -> ToolUnion {
    ToolUnion::new()
        .with("tools", Arc::new(toolbox))
        .load()
        .await
        .expect("the union loads")
}

/// Runs the scenario once over `tools` and checks its answer.
async fn run(model: &MemoryModel, tools: &ToolUnion) {
    let outcome = Orchestration::new(model, tools)
        .system(SYSTEM)
        .run("When is the deadline?")
        .await
        .expect("the scenario runs");
    assert_eq!(outcome.text, ANSWER);
}

/// The scenario's tools on a neva server over Streamable HTTP on a free loopback port, running
/// until the process ends.
async fn serve() -> SocketAddr {
    let addr = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .expect("a free loopback port");
    let app = App::new().without_greeting().with_options(|opt| {
        opt.with_http(|http| http.bind(addr.to_string()).with_endpoint("/mcp"))
    });
    tokio::spawn(app.run());
    for _ in 0..100 {
        if tokio::net::TcpStream::connect(addr).await.is_ok() {
            return addr;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the tools' server does not listen at {addr}");
}

/// An MCP client connected to the server at `addr`.
async fn client(addr: SocketAddr) -> Client {
    let mut client = Client::new().with_options(|opt| {
        opt.with_http(|http| http.bind(addr.to_string()).with_endpoint("/mcp"))
    });
    client.connect().await.expect("the client connects");
    client
}
