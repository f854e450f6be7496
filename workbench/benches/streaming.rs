//! Part 7: the cost of streaming. One orchestration whose model writes a 300-piece answer in
//! process, run without `stream` (each piece only times the first token) and with it (each
//! piece is also kept for the next line to the caller), timed with criterion, then the
//! allocations of one orchestration of each counted. The pieces come at once, so the cost is
//! Ladoga's own per piece, not the model's pace.

#[allow(dead_code)]
mod common;

use std::time::Duration;

use common::alloc::Count;
use criterion::{Criterion, criterion_group};
use ladoga::{CompletionModel, DEFAULT_STREAM_INTERVAL, Orchestration};
use serde_json::json;
use svir::{Completion, Event, FinishReason, Request};

/// The pieces of the answer.
const PIECES: usize = 300;

/// How many orchestrations the allocation count is averaged over.
const COUNTED: u64 = 100;

/// A model whose answer comes in [`PIECES`] pieces of text, one word each.
struct Writer;

impl Writer {
    fn answer() -> Completion {
        let mut done = Completion::new(FinishReason::Stop);
        done.text = "word ".repeat(PIECES);
        done
    }
}

impl CompletionModel for Writer {
    fn name(&self) -> &str {
        "writer"
    }

    async fn complete(&self, _request: &Request) -> Result<Completion, svir::Error> {
        Ok(Self::answer())
    }

    async fn complete_streaming(
        &self,
        _request: &Request,
        heard: &(dyn Fn(&Event) + Sync),
    ) -> Result<Completion, svir::Error> {
        let piece = Event::Text("word ".to_owned());
        for _ in 0..PIECES {
            heard(&piece);
        }
        Ok(Self::answer())
    }
}

/// One orchestration of `Writer`, streaming or not.
async fn run(streaming: bool) {
    let tools = svir::Tools::new();
    let run = Orchestration::new(&Writer, &tools);
    let run = if streaming {
        run.stream(DEFAULT_STREAM_INTERVAL)
    } else {
        run
    };
    let outcome = run.run("Write.").await.expect("an answer");
    assert_eq!(outcome.text.len(), 5 * PIECES);
}

const CASES: [(&str, bool); 2] = [("quiet", false), ("streamed", true)];

fn streaming(c: &mut Criterion) {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let mut group = c.benchmark_group("streaming");
    for (name, streaming) in CASES {
        group.bench_function(name, |b| b.to_async(&rt).iter(|| run(streaming)));
    }
    group.finish();
    if !common::results::benching() {
        return;
    }

    let mut counts = serde_json::Map::new();
    for (name, streaming) in CASES {
        rt.block_on(run(streaming));
        let before = Count::now();
        for _ in 0..COUNTED {
            rt.block_on(run(streaming));
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
        "streaming.json",
        &json!({"pieces": PIECES, "per_orchestration": counts}),
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
    targets = streaming
}

fn main() {
    benches();
    Criterion::default().configure_from_args().final_summary();
}
