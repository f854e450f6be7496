//! What a run has spent so far: the dollars of its priced requests, and whether any was not.

use serde::{Deserialize, Serialize};

/// The dollars a run's priced requests cost, and how many requests had no known price.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Spent {
    pub(crate) usd: f64,
    #[serde(default)]
    pub(crate) unpriced: u64,
}

impl Spent {
    /// Adds one request's `cost`: none when it had no known price.
    pub(crate) fn add(&mut self, cost: Option<f64>) {
        match cost {
            Some(usd) => self.usd += usd,
            None => self.unpriced += 1,
        }
    }

    /// Adds what another run spent.
    pub(crate) fn and(&mut self, other: Spent) {
        self.usd += other.usd;
        self.unpriced += other.unpriced;
    }

    /// The dollars spent, when every request was priced.
    pub(crate) fn usd(&self) -> Option<f64> {
        (self.unpriced == 0).then_some(self.usd)
    }
}
