//! Where a task kept outside neva is told how its run goes: a durable run's task, whose lines
//! Restate keeps. A trait, so that this folder names nothing of the one above it that keeps it.

/// Tells a task kept elsewhere each step of its run.
pub(crate) trait TaskSink: Send + Sync + std::fmt::Debug {
    /// The run's progress now: `line`, which says `progress` of `total`.
    fn say(&self, line: String, progress: f64, total: f64);
}
