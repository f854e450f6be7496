//! Durable runs on [Restate](https://restate.dev): each model request and each turn's tool calls
//! a journaled step of a Restate invocation, so that a run cut by a crash goes on where it was on
//! a live replica, every step already taken returning its recorded result.
//!
//! Behind the `restate` feature. A [`Journal`] wraps the context of a Restate workflow's `run`
//! handler; [`Orchestration::journal`](crate::Orchestration::journal) runs the loop on it
//! (`tests/durable_journal.rs` kills the worker in the middle of such a run):
//!
//! - each model request is one step, named `model request N`: on replay its recorded answer (or
//!   failure) comes back, and the model is not asked again;
//! - each turn's calls are two steps: an empty `intent` step, then one step that runs the turn's
//!   calls at once and records their results. Concurrent `ctx.run`s cannot be replayed after a
//!   crash in the middle of them (restate-sdk #72), so a turn's calls are one step;
//! - a turn cut by a crash after its intent was recorded runs again, but only its calls to the
//!   tools named retry-safe ([`Journal::retry_safe`]: read-only or idempotent ones); every other
//!   call's result tells the model that its outcome is unknown, and it is not made again.
//!
//! What it does not do yet: MCP tasks answered from Restate, approvals as durable promises, and
//! the caller's claims on another replica (neva 0.9 gives an in-process toolbox no claims but a
//! live request's).

mod journal;

pub use self::journal::Journal;
