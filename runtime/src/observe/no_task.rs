//! Under `legacy-spec` (MCP 2025-11-25 and older) Ladoga follows no task neva keeps: the twin of
//! `task.rs` says nothing of one, so the loop and the builders need no `cfg` of their own. A
//! durable run's task is Restate's, and its lines are told there.

/// What a run that is an MCP task says of itself: nothing, in this generation, but for a durable
/// run's task, whose lines Restate keeps for its `tasks/get`.
#[derive(Debug)]
pub(crate) struct TaskLine(#[cfg(feature = "restate")] crate::durable::Lines);

impl TaskLine {
    /// The line of a durable run's task, told through `lines`.
    #[cfg(feature = "restate")]
    pub(crate) fn durable(lines: crate::durable::Lines) -> Self {
        Self(lines)
    }

    /// The run's progress now, `line`, which says `progress` of `total`: told only by a
    /// durable run's task.
    pub(crate) fn say(&self, line: String, progress: f64, total: f64) {
        #[cfg(feature = "restate")]
        self.0.say(line, progress, total);
        #[cfg(not(feature = "restate"))]
        let _ = (line, progress, total);
    }
}

/// The id of the MCP task `ctx`'s tool call runs as: none, in this generation, in which nothing
/// follows it. It is bound to its caller all the same ([`TaskOwners`](crate::TaskOwners)).
pub fn task_id(ctx: &neva::Context, meta: &neva::types::RequestParamsMeta) -> Option<String> {
    crate::access::task_owners::bind_task(ctx, meta);
    None
}
