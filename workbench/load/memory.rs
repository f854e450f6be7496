//! The resident memory of a process, sampled while the load runs (Linux `/proc`).

use std::time::{Duration, Instant};

use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// Samples a process's resident memory at a fixed period until stopped.
pub struct Sampler {
    stop: oneshot::Sender<()>,
    task: JoinHandle<Samples>,
}

/// Resident memory samples, in KiB, with when each was taken.
pub struct Samples(Vec<(Instant, f64)>);

impl Sampler {
    /// Starts sampling process `pid` every `period`.
    pub fn start(pid: u32, period: Duration) -> Self {
        let (stop, mut stopped) = oneshot::channel();
        let task = tokio::spawn(async move {
            let mut samples = Vec::new();
            let mut ticks = tokio::time::interval(period);
            loop {
                tokio::select! {
                    _ = ticks.tick() => {
                        if let Some(kib) = resident_kib(pid) {
                            samples.push((Instant::now(), kib));
                        }
                    }
                    _ = &mut stopped => return Samples(samples),
                }
            }
        });
        Self { stop, task }
    }

    /// Stops sampling and returns the samples.
    pub async fn stop(self) -> Samples {
        let _ = self.stop.send(());
        self.task.await.unwrap_or(Samples(Vec::new()))
    }
}

impl Samples {
    /// The mean of the samples taken in the first `window`.
    pub fn first_mean_kib(&self, window: Duration) -> f64 {
        let Some(&(start, _)) = self.0.first() else {
            return 0.0;
        };
        mean(self.0.iter().filter(|(at, _)| *at <= start + window))
    }

    /// The mean of the samples taken in the last `window`.
    pub fn last_mean_kib(&self, window: Duration) -> f64 {
        let Some(&(end, _)) = self.0.last() else {
            return 0.0;
        };
        mean(self.0.iter().filter(|(at, _)| *at + window >= end))
    }

    /// The mean of each successive `window`, from the first sample on.
    pub fn window_means_kib(&self, window: Duration) -> Vec<f64> {
        let Some(&(start, _)) = self.0.first() else {
            return Vec::new();
        };
        let mut means: Vec<(f64, usize)> = Vec::new();
        for &(at, kib) in &self.0 {
            let index = ((at - start).as_secs_f64() / window.as_secs_f64()) as usize;
            if means.len() <= index {
                means.resize(index + 1, (0.0, 0));
            }
            means[index].0 += kib;
            means[index].1 += 1;
        }
        means
            .into_iter()
            .filter(|&(_, count)| count > 0)
            .map(|(sum, count)| sum / count as f64)
            .collect()
    }

    /// The largest sample.
    pub fn peak_kib(&self) -> f64 {
        self.0.iter().map(|&(_, kib)| kib).fold(0.0, f64::max)
    }
}

fn mean<'a>(samples: impl Iterator<Item = &'a (Instant, f64)>) -> f64 {
    let (sum, count) = samples.fold((0.0, 0), |(sum, count), (_, kib)| (sum + kib, count + 1));
    if count == 0 { 0.0 } else { sum / count as f64 }
}

/// `VmRSS` of process `pid`, in KiB.
fn resident_kib(pid: u32) -> Option<f64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}
