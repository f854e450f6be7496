//! What a compaction costs (`context = N`): one conversation of 50 turns of 10 KB results, in
//! process with the scripted model (svir's encoding and decoding, no socket), under
//! `context = 20000`. The model's provider is taken to count a token every four bytes it reads.
//!
//! - **The first tier.** The time from one model request to the next is measured at every
//!   turn; a turn with a compaction (its request smaller than the one before) takes longer than
//!   the others by what the compaction cost: the median of those turns less the median of the
//!   others. Against it, the whole run without a bound, whose requests grow to half a
//!   megabyte.
//! - **The second tier.** The same conversation with a kilobyte of the model's own text each
//!   turn, which the notes do not remove: the size of each summary request, beside the
//!   size of the request it compacted.
//!
//! Plain measurements, the medians over [`RUNS`] runs after a warm-up, written to
//! `compaction.json` in the results folder.

#[allow(dead_code)]
mod common;

use std::num::NonZeroU64;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ladoga::testing::{Reply, ScriptedModel, SeenRequest};
use ladoga::{Limits, Orchestration};
use serde_json::{Value, json};

/// The turns with a tool call, before the answer.
const TOOL_TURNS: usize = 50;

/// The bound, in tokens.
const CONTEXT: u64 = 20_000;

/// Runs measured per case.
const RUNS: usize = 20;

/// Runs before the measured ones.
const WARMUP: usize = 3;

/// What the model saw of one request: when, its size, and whether it asked for a summary.
#[derive(Clone, Copy)]
struct Seen {
    at: Instant,
    bytes: usize,
    summary: bool,
}

/// A model that reads a page a turn, writing `thought` beside each call, then answers; and
/// summarises when asked. Each request is noted in `log`.
fn model(thought: &'static str, log: Arc<Mutex<Vec<Seen>>>) -> ScriptedModel {
    ScriptedModel::from_fn(move |seen: &SeenRequest| {
        let at = Instant::now();
        let bytes = seen.body().to_string().len();
        let summary = seen.tool_names().is_empty();
        let mut log = log.lock().expect("unpoisoned");
        let turn = log.iter().filter(|seen| !seen.summary).count();
        log.push(Seen { at, bytes, summary });
        let reply = match (summary, turn) {
            (true, _) => Reply::text("The pages read so far all speak of the release."),
            (false, turn) if turn >= TOOL_TURNS => Reply::text("Read."),
            (false, turn) => Reply::call("read", json!({"page": turn})).with_text(thought),
        };
        reply.with_usage(bytes as u64 / 4, thought.len() as u64 / 4 + 10)
    })
    .without_log()
}

/// One run of the conversation, within `context` if given: what the model saw.
async fn run(thought: &'static str, context: Option<u64>) -> Vec<Seen> {
    let tools = svir::Tools::new()
        .add_tool(svir::Tool::new("read", "Reads a page"), |_: Value| async {
            "The archive goes on about the release. ".repeat(256)
        });
    let log = Arc::default();
    let model = model(thought, Arc::clone(&log));
    let limits = Limits::new().turns(std::num::NonZeroUsize::new(TOOL_TURNS + 1).expect("not 0"));
    let mut orchestration = Orchestration::new(&model, &tools).limits(limits);
    if let Some(context) = context {
        orchestration = orchestration.context(NonZeroU64::new(context).expect("not 0"));
    }
    let outcome = orchestration
        .run("Read the archive.")
        .await
        .expect("the run answers");
    assert_eq!(outcome.text, "Read.");
    log.lock().expect("unpoisoned").clone()
}

fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// The first tier: the run's time with and without the bound, and the time a compaction adds
/// to its turn.
async fn first_tier() -> Value {
    let mut unbounded = Vec::new();
    let mut bounded = Vec::new();
    let mut compacting = Vec::new();
    let mut plain = Vec::new();
    let mut compactions = 0;
    let mut largest = (0, 0);
    for done in 0..WARMUP + RUNS {
        let started = Instant::now();
        let all = run("", None).await;
        let without = started.elapsed();
        let started = Instant::now();
        let seen = run("", Some(CONTEXT)).await;
        let with = started.elapsed();
        if done < WARMUP {
            continue;
        }
        unbounded.push(without.as_secs_f64() * 1e3);
        bounded.push(with.as_secs_f64() * 1e3);
        largest = (
            all.iter().map(|seen| seen.bytes).max().unwrap_or_default(),
            seen.iter().map(|seen| seen.bytes).max().unwrap_or_default(),
        );
        compactions = 0;
        for pair in seen.windows(2) {
            let gap: Duration = pair[1].at - pair[0].at;
            // A request smaller than the one before: the conversation was compacted between.
            if pair[1].bytes < pair[0].bytes {
                compactions += 1;
                compacting.push(gap.as_secs_f64() * 1e6);
            } else {
                plain.push(gap.as_secs_f64() * 1e6);
            }
        }
    }
    let (compacting, plain) = (median(compacting), median(plain));
    json!({
        "turns": TOOL_TURNS + 1,
        "context": CONTEXT,
        "compactions": compactions,
        "run_without_context_ms": median(unbounded),
        "run_with_context_ms": median(bounded),
        "largest_request_without_context_bytes": largest.0,
        "largest_request_with_context_bytes": largest.1,
        "turn_with_compaction_us": compacting,
        "turn_without_us": plain,
        "compaction_us": compacting - plain,
    })
}

/// The second tier: each summary request's size, and the size of the request before it.
async fn second_tier() -> Value {
    const THOUGHT: &str = "I weigh what the page says against the pages before it, and note \
        what is new: the release, its date, who owns which part of it, and what is still to do \
        before it ships. Nothing here changes the plan yet, so I read the next page. ";
    let thought: &'static str = THOUGHT.repeat(4).leak();
    let seen = run(thought, Some(CONTEXT)).await;
    let summaries: Vec<Value> = (1..seen.len())
        .filter(|&at| seen[at].summary)
        .map(|at| json!({"summary_request_bytes": seen[at].bytes, "compacted_request_bytes": seen[at - 1].bytes}))
        .collect();
    json!({"thought_bytes": thought.len(), "summaries": summaries})
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
    let first = rt.block_on(first_tier());
    println!("the first tier: {first:#}");
    let second = rt.block_on(second_tier());
    println!("the second tier: {second:#}");
    common::results::write_json(
        "compaction.json",
        &json!({"first_tier": first, "second_tier": second}),
    );
}
