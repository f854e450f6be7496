//! Latency percentiles of the answered calls.

use std::time::Duration;

/// The latencies of every answered call, sorted.
pub struct Latencies(Vec<Duration>);

impl Latencies {
    /// Sorts `latencies` for the percentiles.
    pub fn new(mut latencies: Vec<Duration>) -> Self {
        latencies.sort_unstable();
        Self(latencies)
    }

    /// How many calls were answered.
    pub fn count(&self) -> usize {
        self.0.len()
    }

    /// The latency below which `percent` of the calls were answered (nearest rank), in ms.
    pub fn percentile_ms(&self, percent: f64) -> f64 {
        if self.0.is_empty() {
            return 0.0;
        }
        let rank = (percent / 100.0 * self.0.len() as f64).ceil() as usize;
        ms(self.0[rank.clamp(1, self.0.len()) - 1])
    }

    /// The slowest call, in ms.
    pub fn max_ms(&self) -> f64 {
        self.0.last().copied().map_or(0.0, ms)
    }
}

fn ms(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let latencies = Latencies::new((1..=100).rev().map(Duration::from_millis).collect());
        assert_eq!(latencies.count(), 100);
        assert_eq!(latencies.percentile_ms(50.0), 50.0);
        assert_eq!(latencies.percentile_ms(99.0), 99.0);
        assert_eq!(latencies.max_ms(), 100.0);
        assert_eq!(Latencies::new(Vec::new()).percentile_ms(50.0), 0.0);
    }
}
