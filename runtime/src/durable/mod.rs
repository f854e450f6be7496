//! Durable runs on [Restate](https://restate.dev): each model request and each turn's tool calls
//! a journaled step of a Restate invocation, so that a run cut by a crash goes on where it was on
//! a live replica, every step already taken returning its recorded result.
//!
//! Behind the `restate` feature. Its log lines have the target `ladoga::durable`, apart from the
//! runs' own (`ladoga`), so that what restate-server said is logged without reaching a caller
//! that is sent a run's lines. The deployment (restate-server, one URI in front of every
//! replica's endpoint, the secret, Kubernetes) and the guarantees are in `docs/durable.md`.
//!
//! # A durable orchestrator
//!
//! ```no_run
//! use ladoga::durable::Restate;
//! use ladoga::orchestrator;
//! use neva::App;
//!
//! #[orchestrator(descr = "Plans the week", durable = true, task_support = "optional")]
//! async fn plan_week(focus: String) -> String {
//!     format!("Plan my week around {focus}.")
//! }
//!
//! # async fn run(app: App) -> std::io::Result<()> {
//! let app = Restate::new("http://127.0.0.1:8080", "127.0.0.1:9080".parse().unwrap())
//!     .admin("http://127.0.0.1:9070")
//!     .secret(std::env::var("LADOGA_STATE_SECRET").unwrap_or_default())
//!     .serve(app)
//!     .await?;
//! app.run().await;
//! # Ok(())
//! # }
//! # fn main() {}
//! ```
//!
//! Each call of `plan_week` is an invocation of the workflow `LadogaRun`, keyed by a new run id,
//! its call sealed with the replicas' secret ([`Restate::secret`]), the caller's claims in it.
//! The replica that took the call starts it at restate-server's ingress; restate-server runs it
//! on a replica's endpoint, which calls `plan_week` in its own process, with those claims, on the
//! run's [`Journal`]:
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
//! # As an MCP task
//!
//! Called as a task, the call answers at once with a task named by the run's key, and every
//! replica answers `tasks/get` (the run's last line, the question it waits on, its result) and
//! `tasks/cancel` (the invocation cancelled) from restate-server; under MCP 2026-07-28
//! `tasks/update` too (an approval's answer, which resolves the durable promise the run waits
//! on), under 2025-11-25 (`legacy-spec`) `tasks/result`. Called without a task, the replica that
//! took the call waits for the run's answer, notifying the caller's progress token of the run's
//! lines as a plain run does: if that replica dies, its caller's connection does, while the run
//! goes on elsewhere. A task is the way to call it.
//!
//! # The caller's claims
//!
//! The run's tools are called with the roles, permissions and scopes of the caller who started
//! it, sealed in the invocation. The workflow enters the orchestrator through a tool of its
//! own, `ladoga_durable_entry`, which neva's in-process toolbox can call whatever the caller's
//! scopes are; the `tools/call` middleware makes that call the orchestrator's, with the claims,
//! and neva checks them as for any caller. That tool is no one else's: it is not in `tools/list`
//! nor in an orchestrator's toolbox, and refuses any other call.
//!
//! # A workflow of one's own
//!
//! A [`Journal`] also serves a Restate workflow one writes:
//! [`Orchestration::journal`](crate::Orchestration::journal) runs the loop on it.
//!
//! `tests/durable_journal.rs` kills such a workflow's worker in the middle of a run;
//! `tests/durable_board.rs` and `tests/durable_replicas.rs` the board serving a durable
//! `plan_week`, alone and behind nginx.
//!
//! Not yet: under `legacy-spec` a durable task asks nothing (MCP 2025-11-25 asks through a
//! request on the caller's session, which only the replica holding it can send): its calls that
//! need approval are not run. A caller without a task gets the run's progress but not its
//! streamed answer.

mod answer;
mod approval;
#[cfg(not(feature = "legacy-spec"))]
mod below;
mod door;
mod entry;
mod journal;
mod lines;
mod recorder;
mod registration;
mod relay;
mod restate;
mod sealed;
mod task_state;
mod tasks;
mod workflow;

pub(crate) use self::answer::answer;
pub(crate) use self::approval::Approver;
#[cfg(not(feature = "legacy-spec"))]
pub(crate) use self::below::DurableTop;
pub(crate) use self::door::DOOR;
pub(crate) use self::entry::{Taken, journal as entered};
pub use self::journal::Journal;
pub use self::registration::Registration;
pub use self::restate::Restate;
