//! The benchmark scenario on rig's agent loop: a brief, three turns of three tool calls, then
//! the answer, with rig's OpenAI Chat Completions model talking to the scripted server
//! (`bench-server`) whose URL `LADOGA_BENCH_SERVER` holds. Prints one JSON object: the time per
//! orchestration at concurrency 1, orchestrations per second at 1 and 64, and the allocations
//! of one orchestration (over 100 in a row).

mod alloc;
mod tools;

use std::sync::Arc;
use std::time::{Duration, Instant};

use rig_agent::{Agent, AgentBuilder};
use rig_core::providers::openai::OpenAIConfig;
use serde_json::json;

/// The system prompt, the brief and the final answer, as on the Ladoga side.
const SYSTEM: &str = "You answer with the tools you have.";
const BRIEF: &str = "When is the deadline?";
const ANSWER: &str = "The deadline is Friday; 42 items; noted.";

/// How many orchestrations, one after another, the allocations are counted over.
const COUNTED: u64 = 100;

/// How long each measurement runs, after a warm-up of a second.
const MEASURED: Duration = Duration::from_secs(5);

#[tokio::main(worker_threads = 2)]
async fn main() {
    let url = std::env::var("LADOGA_BENCH_SERVER").expect("LADOGA_BENCH_SERVER is the server URL");
    let model = OpenAIConfig::new("unused")
        .with_base_url(format!("{url}/v1"))
        .client()
        .chat("scripted");
    let agent = Arc::new(
        AgentBuilder::new(model)
            .preamble(SYSTEM)
            .tool(tools::Lookup)
            .tool(tools::Add)
            .tool(tools::Echo)
            .build(),
    );
    orchestrate(&agent).await;
    // `LADOGA_BENCH_REPEAT=COUNT`: only that many orchestrations in a row, for callgrind.
    if let Ok(count) = std::env::var("LADOGA_BENCH_REPEAT") {
        for _ in 0..count.parse::<usize>().expect("a count") {
            orchestrate(&agent).await;
        }
        return;
    }

    let one = closed_loop(&agent, 1).await;
    let many = closed_loop(&agent, 64).await;
    let before = alloc::Count::now();
    for _ in 0..COUNTED {
        orchestrate(&agent).await;
    }
    let spent = alloc::Count::now().since(before);
    let report = json!({
        "framework": "rig",
        "version": "rig-core 0.46.0, rig-agent 0.46.0",
        "wire": "OpenAI Chat Completions over loopback HTTP (reqwest), not streamed",
        "mean_ns_per_orchestration": MEASURED.as_nanos() as f64 / one as f64,
        "allocations_per_orchestration": spent.allocations as f64 / COUNTED as f64,
        "bytes_per_orchestration": spent.bytes as f64 / COUNTED as f64,
        "per_second_1": one as f64 / MEASURED.as_secs_f64(),
        "per_second_64": many as f64 / MEASURED.as_secs_f64(),
    });
    println!("{report}");
}

/// One orchestration, checked.
async fn orchestrate(agent: &Agent) {
    let told = agent
        .prompt(BRIEF)
        .max_turns(8)
        .await
        .expect("the agent answers");
    assert_eq!(told.output(), ANSWER);
}

/// How many orchestrations `workers` concurrent loops end within [`MEASURED`], after a second of
/// warm-up: the procedure of the Ladoga side (`benches/common/closed_loop.rs`).
async fn closed_loop(agent: &Arc<Agent>, workers: usize) -> u64 {
    let warm = Instant::now() + Duration::from_secs(1);
    let end = warm + MEASURED;
    let tasks: Vec<_> = (0..workers)
        .map(|_| {
            let agent = Arc::clone(agent);
            tokio::spawn(async move {
                let mut done = 0;
                while Instant::now() < end {
                    orchestrate(&agent).await;
                    let ended = Instant::now();
                    if warm <= ended && ended <= end {
                        done += 1;
                    }
                }
                done
            })
        })
        .collect();
    let mut done = 0;
    for task in tasks {
        done += task.await.expect("a worker");
    }
    done
}
