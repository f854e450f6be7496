//! Part 1: the scenario run by a Ladoga `#[orchestrator]` and by the same loop written by hand,
//! over the same neva toolbox and the same svir client answered from memory. Times each with
//! criterion, counts the allocations of one orchestration of each, then measures how many
//! orchestrations a second each runs alone and with 64 in flight, in interleaved rounds.
//!
//! With `LADOGA_BENCH_REPEAT=NAME:COUNT` it only runs the loop `NAME` `COUNT` times on one
//! thread, and exits: for an instruction count under `valgrind --tool=callgrind`, which a
//! loaded machine does not blur as it blurs time.

#[allow(dead_code)]
mod common;

use std::sync::Arc;
use std::time::Duration;

use common::alloc::Count;
use common::closed_loop;
use common::memory::Memory;
use common::model::MemoryModel;
use common::scenario::{self, BY_HAND, LADOGA};
use common::script::Script;
use criterion::{Criterion, criterion_group};
use neva::svir::LocalTools;
use serde_json::json;

/// How many orchestrations the allocation count is averaged over.
const COUNTED: u64 = 100;

/// How many rounds of closed-loop measurements, each loop in turn, the rates are the median of.
const ROUNDS: usize = 12;

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
}

fn overhead(c: &mut Criterion) {
    let rt = runtime();
    let script = Script::scenario();
    let turns = script.turns();
    let server = rt.block_on(scenario::server(MemoryModel::new(Memory::new(script))));

    let mut group = c.benchmark_group("orchestration");
    for name in [LADOGA, BY_HAND] {
        group.bench_function(name, |b| {
            b.to_async(&rt).iter(|| scenario::run(&server, name));
        });
    }
    group.finish();
    if !common::results::benching() {
        return;
    }

    let mut counts = serde_json::Map::new();
    for name in [LADOGA, BY_HAND] {
        rt.block_on(scenario::run(&server, name));
        let before = Count::now();
        for _ in 0..COUNTED {
            rt.block_on(scenario::run(&server, name));
        }
        let spent = Count::now().since(before);
        counts.insert(
            name.to_owned(),
            json!({
                "allocations": spent.allocations as f64 / COUNTED as f64,
                "bytes": spent.bytes as f64 / COUNTED as f64,
            }),
        );
    }
    let server = Arc::new(server);
    let concurrency = rt.block_on(async {
        let mut rates = serde_json::Map::new();
        for workers in [1, 64] {
            rates.insert(workers.to_string(), interleaved(&server, workers).await);
        }
        rates
    });
    common::results::write_json(
        "overhead.json",
        &json!({
            "turns": turns,
            "tool_calls": 9,
            "per_orchestration": counts,
            "concurrency": concurrency,
        }),
    );
}

/// Orchestrations a second of each loop with `workers` in flight: [`ROUNDS`] rounds, each
/// measuring both loops one after the other (the first of them alternating), so that the
/// machine's moods fall on both alike. The median rate of each, and the median of the rounds'
/// ratios, Ladoga's over the hand-written loop's.
async fn interleaved(server: &Arc<LocalTools>, workers: usize) -> serde_json::Value {
    let rate = |name: &'static str| {
        let server = Arc::clone(server);
        closed_loop::measure(workers, move || {
            let server = Arc::clone(&server);
            async move { scenario::run(&server, name).await }
        })
    };
    let (mut ladoga, mut by_hand, mut ratios) = (Vec::new(), Vec::new(), Vec::new());
    for round in 0..ROUNDS {
        let (ours, hand) = if round.is_multiple_of(2) {
            let ours = rate(LADOGA).await.per_second();
            (ours, rate(BY_HAND).await.per_second())
        } else {
            let hand = rate(BY_HAND).await.per_second();
            (rate(LADOGA).await.per_second(), hand)
        };
        ladoga.push(ours);
        by_hand.push(hand);
        ratios.push(ours / hand);
    }
    json!({
        "rounds": ROUNDS,
        "ladoga_per_second": median(ladoga),
        "by_hand_per_second": median(by_hand),
        "ratio": median(ratios),
    })
}

/// The median of `values`.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    let middle = values.len() / 2;
    if values.len().is_multiple_of(2) {
        (values[middle - 1] + values[middle]) / 2.0
    } else {
        values[middle]
    }
}

fn config() -> Criterion {
    Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5))
        .sample_size(50)
}

criterion_group! {
    name = benches;
    config = config();
    targets = overhead
}

fn main() {
    if let Ok(spec) = std::env::var("LADOGA_BENCH_REPEAT") {
        let (name, count) = spec.split_once(':').expect("NAME:COUNT");
        repeat(name, count.parse().expect("a count"));
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}

/// Runs the loop `name` once to warm up, then `count` times, on a single-threaded runtime. A
/// name ending in `+metrics` runs the loop it starts with, with a Prometheus recorder installed
/// (as `board --admin` installs it), so that `ladoga::metrics` records.
fn repeat(name: &str, count: usize) {
    let name = match name.strip_suffix("+metrics") {
        Some(name) => {
            record_metrics();
            name
        }
        None => name,
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let server = rt.block_on(async {
        let server = scenario::server(MemoryModel::new(Memory::new(Script::scenario()))).await;
        scenario::run(&server, name).await;
        server
    });
    orchestrations(&rt, &server, name, count);
}

/// Runs the loop `name` `count` times: what callgrind counts, with `--toggle-collect` naming
/// this function, leaving out the setup (a recorder's clock calibrates for as long as it takes,
/// a count no two runs share).
#[inline(never)]
fn orchestrations(rt: &tokio::runtime::Runtime, server: &LocalTools, name: &str, count: usize) {
    rt.block_on(async {
        for _ in 0..count {
            scenario::run(server, name).await;
        }
    });
}

/// Installs the process's Prometheus recorder, with the buckets of Ladoga's histograms.
fn record_metrics() {
    use metrics_exporter_prometheus::{Matcher, PrometheusBuilder};

    let mut builder = PrometheusBuilder::new();
    for (name, buckets) in ladoga::metrics::HISTOGRAM_BUCKETS {
        builder = builder
            .set_buckets_for_metric(Matcher::Full((*name).to_owned()), buckets)
            .expect("buckets");
    }
    builder.install_recorder().expect("the only recorder");
}
