//! What a run's compactions did, and what the run knows of its conversation's size between
//! two requests.

use serde::{Deserialize, Serialize};

use crate::context::size::Counted;

/// How often a run compacted its conversation to keep it within its context
/// ([`Orchestration::context`](crate::Orchestration::context)), and how much that removed:
/// [`Outcome::compacted`](crate::Outcome::compacted), and `compacted` in the run's report.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct Compacted {
    /// How many times the conversation was compacted.
    pub times: usize,
    /// How many tool results were replaced by a note (the first tier).
    pub cleared: usize,
    /// How many messages were replaced by a summary (the second tier), over all its summaries.
    pub summarized: usize,
    /// How many summaries were asked for.
    pub summaries: usize,
    /// How many results of a turn not read yet were cut to fit (the last tier): a turn whose
    /// results alone pass the context.
    pub cut: usize,
    /// The tokens removed, by the estimate ([`estimate_tokens`](crate::context::estimate_tokens)):
    /// the size before each compaction less the size after, summed.
    pub removed: u64,
}

impl Compacted {
    /// Whether the run never compacted.
    pub fn is_none(&self) -> bool {
        self.times == 0
    }
}

/// What a run knows of its conversation's size, and what its compactions did so far: a part
/// of the run's state.
#[derive(Debug, Default)]
pub(crate) struct Window {
    /// The provider's count of the last answered request and its answer.
    counted: Option<Counted>,
    compacted: Compacted,
}

impl Window {
    /// The window of a run that paused: the compactions of the rounds before this one, and the
    /// provider's last count, as the run kept them; a run that goes on sizes its conversation as
    /// it did, so it makes the same request it paused at.
    pub(crate) fn restored(before: Compacted, counted: Option<Counted>) -> Self {
        Self {
            counted,
            compacted: before,
        }
    }

    /// The provider's last count, if it gave one since the last compaction.
    pub(crate) fn counted(&self) -> Option<Counted> {
        self.counted
    }

    /// Notes the provider's count of the conversation's first `counted.messages` messages.
    pub(crate) fn count(&mut self, counted: Counted) {
        self.counted = Some(counted);
    }

    /// Adds one compaction; the conversation changed, so the provider's count no longer holds.
    pub(crate) fn compacted(&mut self, compaction: Compacted) -> Compacted {
        self.counted = None;
        let total = &mut self.compacted;
        total.times += compaction.times;
        total.cleared += compaction.cleared;
        total.summarized += compaction.summarized;
        total.summaries += compaction.summaries;
        total.cut += compaction.cut;
        total.removed += compaction.removed;
        *total
    }

    /// Every compaction of the run so far.
    pub(crate) fn so_far(&self) -> Compacted {
        self.compacted
    }
}
