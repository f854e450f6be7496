//! What a tool call's run spent, handed to the handler that answers the call: a failed run's
//! result says what it spent too, so that a caller counting a budget across servers loses
//! nothing ([`cost::BUDGET_KEY`](crate::cost::BUDGET_KEY)).

use std::cell::Cell;

use super::Spent;

tokio::task_local! {
    /// What the last run that ended on this task spent, nested runs included.
    static RECKONED: Cell<Option<Spent>>;
}

/// Tells the handler answering the call what its run spent, as the run ends.
pub(crate) fn reckon(spent: Spent) {
    let _ = RECKONED.try_with(|slot| slot.set(Some(spent)));
}

/// Runs `run`, a tool call's run, and returns with its end what it spent, when it started.
pub(crate) async fn reckoned<T>(run: impl Future<Output = T>) -> (T, Option<Spent>) {
    let mut scoped = std::pin::pin!(RECKONED.scope(Cell::new(None), run));
    let done = (&mut scoped).await;
    let spent = scoped.as_mut().take_value().and_then(Cell::into_inner);
    (done, spent)
}
