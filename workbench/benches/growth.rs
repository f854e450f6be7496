//! Part 5: one long conversation, 50 turns of three calls then the answer, each request
//! resending the whole history. Records, for every turn, the time from one model request to the
//! next (decoding the answer, running the calls, encoding the next request), the allocations in
//! between and the size of the request, for both loops.

#[allow(dead_code)]
mod common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use common::memory::{Memory, Seen};
use common::model::MemoryModel;
use common::scenario::{self, BY_HAND, LADOGA};
use common::script::Script;
use serde_json::json;

/// The turns with tool calls.
const TOOL_TURNS: usize = 50;

/// How many conversations each turn's median is taken over.
const RUNS: usize = 40;

fn main() {
    if !common::results::benching() {
        return;
    }
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    let log: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let backend = Memory::new(Script::with_tool_turns(TOOL_TURNS)).recording(Arc::clone(&log));
    let server = rt.block_on(scenario::server(MemoryModel::new(backend)));

    let mut curves = serde_json::Map::new();
    for name in [LADOGA, BY_HAND] {
        let mut runs = Vec::with_capacity(RUNS);
        for run in 0..RUNS + 3 {
            log.lock().expect("unpoisoned").clear();
            rt.block_on(scenario::run(&server, name));
            let seen = std::mem::take(&mut *log.lock().expect("unpoisoned"));
            assert_eq!(seen.len(), TOOL_TURNS + 1, "one request per turn");
            // The first three conversations warm the caches up.
            if run >= 3 {
                runs.push(seen);
            }
        }
        curves.insert(name.to_owned(), json!(turns(&runs)));
        eprintln!("{name}: {RUNS} conversations of {} turns", TOOL_TURNS + 1);
    }
    common::results::write_json(
        "growth.json",
        &json!({"tool_turns": TOOL_TURNS, "runs": RUNS, "curves": curves}),
    );
}

/// Each tool turn's median time, its allocations and the size of the request that opened it.
fn turns(runs: &[Vec<Seen>]) -> Vec<serde_json::Value> {
    (0..TOOL_TURNS)
        .map(|turn| {
            let mut times: Vec<Duration> = runs
                .iter()
                .map(|seen| seen[turn + 1].at - seen[turn].at)
                .collect();
            times.sort();
            let last = &runs[runs.len() - 1];
            let spent = last[turn + 1].count.since(last[turn].count);
            json!({
                "turn": turn + 1,
                "median_ns": times[times.len() / 2].as_nanos() as u64,
                "allocations": spent.allocations,
                "request_bytes": last[turn].body_bytes,
            })
        })
        .collect()
}
