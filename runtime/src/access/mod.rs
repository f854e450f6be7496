//! Who may reach what a caller started: each MCP task belongs to the principal that created it.
//!
//! neva keeps a task by its id alone: anyone who learns the id can read it (`tasks/get`,
//! `tasks/result`), answer its questions (`tasks/update`) and cancel it (`tasks/cancel`). MCP
//! 2025-11-25 says that where an authorization context exists, a server binds each task to it
//! and rejects every other; the 2026-07-28 tasks extension has each of those requests
//! authorized. [`TaskOwners`] does it for the tasks neva keeps, and a durable run's task
//! (`restate` feature) carries its owner in Restate, checked by whichever replica is asked.
//!
//! The principal is the caller's token: its issuer and subject (`iss`, `sub`), as a paused
//! run's `requestState` and a session are bound. Another principal asking for a task gets
//! exactly the answer neva gives for an id that does not exist, so an id tells nothing. A
//! token that names no subject cannot own a task: its task-augmented calls are refused
//! ([`NAMELESS`]), and it finds no task. A server that takes no token binds nothing: there,
//! as before, a task's id is its only key.

pub(crate) mod task_owners;

pub use self::task_owners::{NAMELESS, OWNER_RETENTION, TaskOwners};
