//! Part 1: the scenario run by a Ladoga `#[orchestrator]` and by the same loop written by hand,
//! over the same neva toolbox and the same svir client answered from memory. Times each with
//! criterion, then counts the allocations of one orchestration of each.

#[allow(dead_code)]
mod common;

use std::time::Duration;

use common::alloc::Count;
use common::memory::Memory;
use common::model::MemoryModel;
use common::scenario::{self, BY_HAND, LADOGA};
use common::script::Script;
use criterion::{Criterion, criterion_group, criterion_main};
use serde_json::json;

/// How many orchestrations the allocation count is averaged over.
const COUNTED: u64 = 100;

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
    common::results::write_json(
        "overhead.json",
        &json!({"turns": turns, "tool_calls": 9, "per_orchestration": counts}),
    );
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
criterion_main!(benches);
