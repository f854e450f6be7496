//! Under `legacy-spec` (MCP 2025-11-25 and older) Ladoga follows no MCP task: the twin of
//! `task.rs` says nothing, so the loop and the builders need no `cfg` of their own.

/// What a run that is an MCP task says of itself: nothing, in this generation.
#[derive(Debug)]
pub(crate) struct TaskLine;

impl TaskLine {
    /// The line of a durable run's task: there is none in this generation.
    #[cfg(feature = "restate")]
    pub(crate) fn durable(lines: crate::durable::Lines) -> Self {
        let _ = lines;
        Self
    }

    /// The run's progress now: not told.
    pub(crate) fn say(&self, line: String) {
        let _ = line;
    }
}

/// The id of the MCP task `ctx`'s tool call runs as: none, in this generation.
pub fn task_id(ctx: &neva::Context, meta: &neva::types::RequestParamsMeta) -> Option<String> {
    let _ = (ctx, meta);
    None
}
