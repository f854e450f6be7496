//! Durable runs on [Restate](https://restate.dev): each model request and each turn's tool calls
//! a journaled step of a Restate invocation, so that a run cut by a crash goes on where it was on
//! a live replica, every step already taken returning its recorded result.
//!
//! Behind the `restate` feature. An orchestrator made [`durable`](crate::Orchestrator::durable)
//! (`#[orchestrator(durable = true)]`) on a server set up with [`Restate::serve`] runs each
//! call as an invocation of the Restate workflow `LadogaRun`, keyed by a new run id: the
//! replica that took the call starts it at restate-server's ingress and waits for its answer;
//! restate-server runs it on a replica's endpoint, which calls the orchestrator in its own
//! process on the run's [`Journal`]. A [`Journal`] also serves a Restate workflow of one's own:
//! [`Orchestration::journal`](crate::Orchestration::journal) runs the loop on it.
//!
//! - each model request is one step, named `model request N`: on replay its recorded answer (or
//!   failure) comes back, and the model is not asked again;
//! - each turn's calls are two steps: an empty `intent` step, then one step that runs the turn's
//!   calls at once and records their results. Concurrent `ctx.run`s cannot be replayed after a
//!   crash in the middle of them (restate-sdk #72), so a turn's calls are one step;
//! - a turn cut by a crash after its intent was recorded runs again, but only its calls to the
//!   tools that are retry-safe (annotated `readOnlyHint` or `idempotentHint`, or named by
//!   [`Journal::retry_safe`]); every other call's result tells the model that its outcome is
//!   unknown, and it is not made again.
//!
//! `tests/durable_journal.rs` kills a workflow's worker in the middle of such a run, and
//! `tests/durable_board.rs` the board serving a durable `plan_week`.
//!
//! What it does not do yet: MCP tasks answered from Restate, approvals as durable promises, and
//! the caller's claims on another replica (neva 0.9 gives an in-process toolbox no claims but a
//! live request's), so a durable orchestrator and the tools it calls must not require any.

mod answer;
mod approval;
mod entry;
mod journal;
mod relay;
mod restate;
mod sealed;
mod task_state;
#[cfg(not(feature = "legacy-spec"))]
mod tasks;
mod workflow;

pub(crate) use self::answer::answer;
pub(crate) use self::approval::Approver;
pub(crate) use self::entry::{Taken, journal as entered};
pub use self::journal::Journal;
pub(crate) use self::restate::Lines;
pub use self::restate::Restate;
