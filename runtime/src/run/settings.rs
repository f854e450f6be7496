//! The settings a run takes from whoever builds it: one struct, held by both builders.

use std::time::Duration;

use neva::types::ProgressToken;

use crate::limits::Limits;
use crate::toolbox::Deferral;

/// What both [`Orchestration`](crate::Orchestration) and [`Orchestrator`](crate::Orchestrator)
/// set on a run, held once and handed over as a whole.
#[derive(Debug, Clone, Default)]
pub(crate) struct Settings {
    /// The system prompt, used unless the brief brings its own.
    pub(crate) system: Option<String>,
    /// The bounds of the run and the policy at them.
    pub(crate) limits: Limits,
    /// The agent's name in spans: the orchestrating tool's.
    pub(crate) name: Option<String>,
    /// The MCP caller's progress token, if its request carried one.
    pub(crate) progress: Option<ProgressToken>,
    /// Passes the model's text on as it streams, at most this often.
    pub(crate) stream: Option<Duration>,
    /// The most tokens a request may be: past it the conversation is compacted.
    pub(crate) context: Option<std::num::NonZeroU64>,
    /// The model that writes the summaries of compaction, when not the run's own.
    pub(crate) compact_model: Option<crate::model::CompactModel>,
    /// The tools not offered up front, found with `search_tools`.
    pub(crate) defer: Deferral,
    /// What the MCP caller let the call spend, which lowers the dollar budget.
    pub(crate) caller_budget: Option<crate::cost::Dollars>,
    /// What the run lets through of the text it reads and writes.
    pub(crate) guards: crate::guard::Guards,
}

impl Settings {
    /// The run's dollar budget: its own, or what its caller let it spend when that is less.
    pub(crate) fn budget_usd(&self) -> Option<crate::cost::Dollars> {
        match (self.limits.budget_usd, self.caller_budget) {
            (Some(own), Some(caller)) => Some(if caller < own { caller } else { own }),
            (own, caller) => own.or(caller),
        }
    }
}
