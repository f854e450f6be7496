//! A closed-loop load: `workers` concurrent loops, each starting the next run as soon as the last
//! one ended; the runs that end within a fixed time, after a second of warm-up, are counted. The
//! same procedure times every framework on the wire, Ladoga's and the others'.

use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::alloc::Count;

/// How long each measurement runs, after a second of warm-up.
pub const MEASURED: Duration = Duration::from_secs(5);

/// What one closed-loop measurement found.
#[derive(Debug, Clone, Copy)]
pub struct Load {
    /// How many runs ended within the measured time.
    pub runs: u64,
    /// Allocations over the measured time, every thread's.
    pub count: Count,
}

impl Load {
    /// Runs per second.
    pub fn per_second(&self) -> f64 {
        self.runs as f64 / MEASURED.as_secs_f64()
    }

    /// The mean time of one run, in nanoseconds, with `workers` loops at once.
    pub fn mean_ns(&self, workers: usize) -> f64 {
        MEASURED.as_nanos() as f64 * workers as f64 / self.runs as f64
    }

    /// Allocations per run.
    pub fn allocations(&self) -> f64 {
        self.count.allocations as f64 / self.runs as f64
    }
}

/// Runs `run` in `workers` concurrent loops.
pub async fn measure<F, Fut>(workers: usize, run: F) -> Load
where
    F: Fn() -> Fut + Send + Sync + 'static,
    Fut: Future<Output = ()> + Send,
{
    let run = Arc::new(run);
    let warm = Instant::now() + Duration::from_secs(1);
    let end = warm + MEASURED;
    let loops: Vec<_> = (0..workers)
        .map(|_| {
            let run = Arc::clone(&run);
            tokio::spawn(async move {
                let mut runs = 0;
                while Instant::now() < end {
                    run().await;
                    let ended = Instant::now();
                    if warm <= ended && ended <= end {
                        runs += 1;
                    }
                }
                runs
            })
        })
        .collect();
    tokio::time::sleep_until(warm.into()).await;
    let before = Count::now();
    let mut runs = 0;
    for each in loops {
        runs += each.await.expect("a loop ran");
    }
    Load {
        runs,
        count: Count::now().since(before),
    }
}
