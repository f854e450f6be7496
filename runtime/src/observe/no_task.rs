//! Under `legacy-spec` (MCP 2025-11-25 and older) Ladoga follows no task neva keeps: the twin of
//! `task.rs` says nothing of one, so the loop and the builders need no `cfg` of their own. A
//! task kept elsewhere (a durable run's, by Restate) is told through its sink.

use super::TaskSink;

/// What a run that is an MCP task says of itself: nothing, in this generation, but for a task
/// kept elsewhere (a durable run's, whose lines Restate keeps for its `tasks/get`).
#[derive(Debug)]
#[cfg_attr(not(feature = "restate"), allow(dead_code))]
pub(crate) struct TaskLine(Box<dyn TaskSink>);

impl TaskLine {
    /// The line of a task kept elsewhere, told through `sink`.
    #[cfg_attr(not(feature = "restate"), allow(dead_code))]
    pub(crate) fn elsewhere(sink: impl TaskSink + 'static) -> Self {
        Self(Box::new(sink))
    }

    /// The run's progress now, `line`, which says `progress` of `total`: told only by a task
    /// kept elsewhere.
    pub(crate) fn say(&self, line: String, progress: f64, total: f64) {
        self.0.say(line, progress, total);
    }
}

/// The id of the MCP task `ctx`'s tool call runs as: none, in this generation, in which nothing
/// follows it. It is bound to its caller all the same ([`TaskOwners`](crate::TaskOwners)).
pub fn task_id(ctx: &neva::Context, meta: &neva::types::RequestParamsMeta) -> Option<String> {
    crate::access::task_owners::bind_task(ctx, meta);
    None
}
