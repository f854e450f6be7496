//! What durability costs: the scenario (three turns of three calls, then the answer: four model
//! requests, three turns of calls) run by the same Ladoga loop over the same tools and the same
//! svir client answered from memory, once plain and once inside a Restate workflow on a
//! [`Journal`], through a local restate-server's ingress; and, to tell the invocation's own cost
//! from the journal's, the same workflow doing nothing. A durable scenario takes 10 journal
//! steps: a model request is one, a turn of calls two (its intent and its results). Closed loops
//! at concurrency 1 and 16, as the other benchmarks; prints a table and writes `durable.json`.
//!
//! Needs restate-server: `LADOGA_RESTATE` names `.peers/restate` (`scripts/peers install`).
//! `cargo bench -p ladoga-workbench --bench durable`; a `cargo test` run does nothing.

#[allow(dead_code)]
mod common;
#[path = "../load/loopback.rs"]
mod loopback;
#[allow(dead_code)]
#[path = "../load/restate.rs"]
mod restate;

use loopback::free_addr;

use std::sync::Arc;

use common::closed_loop::{self, Load};
use common::memory::Memory;
use common::model::MemoryModel;
use common::scenario::SYSTEM;
use common::script::{ANSWER, Script};
use ladoga::durable::Journal;
use ladoga::{Orchestration, ToolUnion};
use neva::App;
use restate_sdk::prelude::*;
use serde_json::json;

/// The scenario's tools.
const TOOLS: [&str; 3] = ["lookup", "add", "echo"];

/// Journal steps in one durable scenario: four model requests, three turns of two steps.
const STEPS: f64 = 10.0;

/// Turns of one scenario, each a model request and its calls; the last answers.
const TURNS: f64 = 4.0;

/// The workflow the benchmark runs: the scenario on the journal, or nothing.
struct Bench {
    model: Arc<MemoryModel>,
    tools: Arc<ToolUnion>,
}

#[restate_sdk::workflow]
impl Bench {
    /// The scenario, each step journaled.
    #[handler]
    async fn run(&self, ctx: WorkflowContext<'_>) -> Result<String, HandlerError> {
        let journal = Journal::new(&ctx);
        let outcome = Orchestration::new(&*self.model, &*self.tools)
            .system(SYSTEM)
            .journal(&journal)
            .run("When is the deadline?")
            .await
            .map_err(|error| TerminalError::new(error.to_string()))?;
        Ok(outcome.text)
    }
}

/// The same workflow doing nothing: an invocation's own cost.
struct Nothing;

#[restate_sdk::workflow]
impl Nothing {
    /// Nothing.
    #[handler]
    async fn run(&self, _ctx: WorkflowContext<'_>) -> Result<String, HandlerError> {
        Ok(ANSWER.to_owned())
    }
}

fn main() {
    if !common::results::benching() {
        return;
    }
    if std::env::var_os("LADOGA_RESTATE").is_none() {
        eprintln!(
            "durable: LADOGA_RESTATE names no restate-server (scripts/peers install); skipped"
        );
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
        let tools = Arc::new(
            ToolUnion::new()
                .with("tools", Arc::new(local))
                .load()
                .await
                .expect("the union loads"),
        );
        let restate = restate::Restate::start().await;
        let endpoint = free_addr();
        let served = Endpoint::builder()
            .bind(Bench {
                model: Arc::clone(&model),
                tools: Arc::clone(&tools),
            })
            .bind(Nothing)
            .build();
        tokio::spawn(HttpServer::new(served).listen_and_serve(endpoint));
        restate.register(&format!("http://{endpoint}")).await;
        let ingress = Arc::new(restate.ingress());
        let client = reqwest::Client::new();

        let mut rows = serde_json::Map::new();
        let mut means = Vec::new();
        for name in ["plain", "durable", "invocation"] {
            let run = {
                let (model, tools, ingress, client) =
                    (Arc::clone(&model), Arc::clone(&tools), Arc::clone(&ingress), client.clone());
                move || {
                    let (model, tools, ingress, client) =
                        (Arc::clone(&model), Arc::clone(&tools), Arc::clone(&ingress), client.clone());
                    async move {
                        match name {
                            "plain" => plain(&model, &tools).await,
                            "durable" => invoke(&client, &ingress, "Bench").await,
                            _ => invoke(&client, &ingress, "Nothing").await,
                        }
                    }
                }
            };
            run().await;
            let one = closed_loop::measure(1, run.clone()).await;
            let many = closed_loop::measure(16, run).await;
            let row = |load: &Load, workers: usize| {
                json!({"per_second": load.per_second(), "mean_ns": load.mean_ns(workers)})
            };
            println!(
                "| {name} | {:.2} ms | {:.0} | {:.0} |",
                one.mean_ns(1) / 1e6,
                one.per_second(),
                many.per_second()
            );
            means.push(one.mean_ns(1));
            rows.insert(name.to_owned(), json!({"1": row(&one, 1), "16": row(&many, 16)}));
        }
        let [plain, durable, invocation] = means[..] else {
            unreachable!("three rows")
        };
        let journal = durable - invocation - plain;
        println!(
            "durable: {:.2} ms more per run than plain, of which the invocation {:.2} ms; the \
             journal {:.2} ms, {:.2} ms per step, {:.2} ms per turn",
            (durable - plain) / 1e6,
            invocation / 1e6,
            journal / 1e6,
            journal / STEPS / 1e6,
            journal / TURNS / 1e6,
        );
        common::results::write_json(
            "durable.json",
            &json!({"steps": STEPS, "turns": TURNS, "loops": rows}),
        );
    });
}

/// Runs the scenario once, plain, and checks its answer.
async fn plain(model: &MemoryModel, tools: &ToolUnion) {
    let outcome = Orchestration::new(model, tools)
        .system(SYSTEM)
        .run("When is the deadline?")
        .await
        .expect("the scenario runs");
    assert_eq!(outcome.text, ANSWER);
}

/// Runs the workflow `service` once under a new key, through the ingress, and checks its answer.
async fn invoke(client: &reqwest::Client, ingress: &str, service: &str) {
    let key = uuid::Uuid::new_v4();
    let answer = client
        .post(format!("{ingress}/{service}/{key}/run"))
        .send()
        .await
        .expect("the ingress answers");
    assert!(answer.status().is_success(), "{}", answer.status());
    let text: String = answer.json().await.expect("the answer");
    assert_eq!(text, ANSWER);
}
