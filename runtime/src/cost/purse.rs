//! What a run's tool calls may spend on other servers, and where what they spent is counted:
//! held around a run's tool calls, for a toolbox that calls another Ladoga server
//! ([`LiveTools`](crate::LiveTools)) to send what is left and count what its run spent.

use std::sync::Arc;

tokio::task_local! {
    /// The purse of the run whose tool calls run on this task.
    static PURSE: Arc<dyn Purse>;
}

/// A run's dollars, as its tool calls see them.
pub(crate) trait Purse: Send + Sync {
    /// What is left of the tightest dollar budget the run is within, if any.
    fn left(&self) -> Option<f64>;

    /// Counts what a call spent (`None`: at a price it did not know).
    fn spend(&self, cost: Option<f64>);
}

/// Runs `calls`, a run's tool calls, with `purse` as theirs.
pub(crate) async fn holding<F: Future>(purse: Arc<dyn Purse>, calls: F) -> F::Output {
    PURSE.scope(purse, calls).await
}

/// What the run whose tool calls run on this task has left to spend, if it is bounded.
pub(crate) fn left() -> Option<f64> {
    PURSE.try_with(|purse| purse.left()).ok().flatten()
}

/// Counts what a call made on this task spent in the run that made it.
pub(crate) fn spent(cost: Option<f64>) {
    let _ = PURSE.try_with(|purse| purse.spend(cost));
}
