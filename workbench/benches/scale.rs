//! Part 4: peak resident memory with 1, 1,000 and 10,000 orchestrations in flight at once, all
//! waiting on a slow scripted model. Each count runs in a fresh process (this binary again), so
//! each peak is its own.

#[allow(dead_code)]
mod common;

use std::process::Command;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use common::alloc;
use common::memory::Memory;
use common::model::MemoryModel;
use common::scenario::{self, BY_HAND, LADOGA};
use common::script::Script;
use serde_json::{Value, json};

/// How many orchestrations are in flight at once, one process each.
const IN_FLIGHT: [usize; 3] = [1, 1_000, 10_000];

/// How long the slow model takes over each answer.
const SLOW: Duration = Duration::from_millis(500);

/// The variables a child process is told what to run by.
const COUNT_VAR: &str = "LADOGA_SCALE_COUNT";
const LOOP_VAR: &str = "LADOGA_SCALE_LOOP";

fn main() {
    if let (Ok(count), Ok(name)) = (std::env::var(COUNT_VAR), std::env::var(LOOP_VAR)) {
        let count = count.parse().expect("a count");
        println!("{}", measure(&name, count));
        return;
    }
    if !common::results::benching() {
        return;
    }
    let exe = std::env::current_exe().expect("this binary's path");
    let mut rows = Vec::new();
    for name in [LADOGA, BY_HAND] {
        for count in IN_FLIGHT {
            let out = Command::new(&exe)
                .env(COUNT_VAR, count.to_string())
                .env(LOOP_VAR, name)
                .output()
                .expect("the measuring process runs");
            assert!(
                out.status.success(),
                "{}",
                String::from_utf8_lossy(&out.stderr)
            );
            let row: Value = serde_json::from_slice(&out.stdout).expect("a JSON row");
            eprintln!("{row}");
            rows.push(row);
        }
    }
    common::results::write_json(
        "scale.json",
        &json!({"slow_answer_ms": SLOW.as_millis() as u64, "rows": rows}),
    );
}

/// Runs `count` orchestrations of `name` at once; the peak resident memory above the resident
/// memory before they started, and the peak of live heap bytes (sampled every 10 ms) above the
/// live heap before.
fn measure(name: &str, count: usize) -> Value {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    rt.block_on(async {
        let backend = Memory::new(Script::scenario()).after(SLOW);
        let server = Arc::new(scenario::server(MemoryModel::new(backend)).await);
        // One orchestration first, so what is loaded once is not counted per orchestration.
        scenario::run(&server, name).await;
        let before = resident("VmRSS");
        let live_before = alloc::live();

        let peak = Arc::new(AtomicU64::new(before));
        let live_peak = Arc::new(AtomicU64::new(live_before));
        let sampler = tokio::spawn({
            let peak = Arc::clone(&peak);
            let live_peak = Arc::clone(&live_peak);
            async move {
                loop {
                    peak.fetch_max(resident("VmRSS"), Ordering::Relaxed);
                    live_peak.fetch_max(alloc::live(), Ordering::Relaxed);
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            }
        });
        let started = std::time::Instant::now();
        let runs: Vec<_> = (0..count)
            .map(|_| {
                let server = Arc::clone(&server);
                let name = name.to_owned();
                tokio::spawn(async move { scenario::run(&server, &name).await })
            })
            .collect();
        for run in runs {
            run.await.expect("the orchestration ran");
        }
        let took = started.elapsed();
        sampler.abort();
        let peak = peak.load(Ordering::Relaxed).max(resident("VmHWM"));
        let live_peak = live_peak.load(Ordering::Relaxed);
        json!({
            "loop": name,
            "in_flight": count,
            "rss_before_bytes": before,
            "peak_rss_bytes": peak,
            "bytes_per_orchestration": (peak.saturating_sub(before)) as f64 / count as f64,
            "heap_bytes_per_orchestration":
                (live_peak.saturating_sub(live_before)) as f64 / count as f64,
            "seconds": took.as_secs_f64(),
        })
    })
}

/// A `/proc/self/status` memory figure (`VmRSS`, `VmHWM`), in bytes.
fn resident(field: &str) -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").expect("/proc/self/status");
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.trim().strip_suffix("kB"))
        .and_then(|kib| kib.trim().parse::<u64>().ok())
        .map_or(0, |kib| kib * 1024)
}
