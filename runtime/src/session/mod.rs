//! Conversations that go on: a call that continues an earlier call's conversation.
//!
//! An orchestrator with a session ([`Orchestrator::session`](crate::Orchestrator::session),
//! `#[orchestrator(session = true)]` or `session = caller`) keeps each call's conversation (the
//! brief, the model's answers and the tool results) after the call, and a later call goes on
//! from it: the model is sent the earlier conversation, then the new brief.
//!
//! - [`Session::ById`] gives the tool an optional `session` parameter. A call without it starts
//!   a conversation, and its result names the session's id in a second text block after the
//!   answer, where the calling model reads it (a model reads content, not `_meta`; the first
//!   block and `structuredContent` stay as they are without sessions), and in the report under
//!   `session`. A call that passes it goes on from that conversation.
//! - [`Session::PerCaller`] keeps one conversation per caller and tool, with no id to pass: the
//!   caller is the token's issuer and subject (`iss`, `sub`); under `legacy-spec`, a caller
//!   with no token is its MCP session (`Mcp-Session-Id`). MCP 2026-07-28 has no session, so
//!   there a call with no token is refused ([`RunError::NoCaller`](crate::RunError::NoCaller)).
//!
//! A session is kept in the server's [`Runs`](crate::store::Runs) (in the process by default,
//! in Redis with `RedisStore`, so any replica continues it), sealed like a paused run and bound
//! to its key, for [`DEFAULT_SESSION_TTL`] after its last call unless told otherwise. It belongs
//! to the caller that started it: a session id from another caller is refused with the same
//! words as one that expired, never saying whether it exists. A session started by a call with
//! no token is continued by anyone holding its id, as a Codex conversation id is.
//!
//! One call at a time writes a session: a second call waits for the first up to
//! [`DEFAULT_SESSION_WAIT`], then is refused ([`RunError::SessionBusy`](crate::RunError::SessionBusy)).
//! A call that fails leaves the session as it was; one that pauses for an approval holds it
//! until its last round ends. A call that would start a conversation while the store does not
//! answer goes on without one, as a call of a tool without sessions would, and its result names
//! no session; a call that goes on with one is refused
//! ([`RunError::SessionStore`](crate::RunError::SessionStore)), since its conversation cannot be
//! read.
//!
//! A call that steers ([`Orchestrator::steer`](crate::Orchestrator::steer), a request whose
//! `_meta` says [`STEER_KEY`]`: true`) does not wait for a busy session: its words go to the run
//! in flight, which reads them before its next turn, and the call answers at once
//! ([`Stop::Steered`](crate::Stop::Steered)).
//!
//! What callers leave behind is bounded ([`SessionBounds`]): at most
//! [`DEFAULT_SESSIONS_PER_CALLER`] sessions per caller, [`DEFAULT_SESSIONS`] and
//! [`DEFAULT_SESSION_BYTES`] in all, each at most [`MAX_SESSION_BYTES`]. Past a bound the oldest
//! idle session is let go to make room (its caller then hears, as for one that expired, that
//! it has no session with that id); a call that would start one while every session the bound
//! counts is in use is refused ([`RunError::SessionLimit`](crate::RunError::SessionLimit)).
//!
//! # Examples
//! ```no_run
//! use ladoga::orchestrator;
//!
//! /// Plans the week; pass the `session` a result gave to go on with it.
//! #[orchestrator(session = true, session_ttl = "2h")]
//! async fn plan_week(focus: String) -> String {
//!     format!("Plan my week around {focus}.")
//! }
//! # fn main() {}
//! ```

mod kept;
mod lease;
pub(crate) mod principal;

use std::time::Duration;

// Kept with the runs they bound, in the store: named here, where a session's reader looks.
pub(crate) use self::lease::{Asked, Lease};
pub use crate::store::{
    DEFAULT_SESSION_BYTES, DEFAULT_SESSIONS, DEFAULT_SESSIONS_PER_CALLER, SessionBounds,
};
pub use crate::wire::{STEER_KEY, STEER_MEMBER};

/// Steering: the inbox of the MCP task `task`'s run for the caller `principal` (`None` for one
/// without a token), kept in `runs`' store for a [`DEFAULT_SESSION_TTL`] from its last use.
pub(crate) fn task_inbox(
    runs: crate::store::Runs,
    task: &str,
    principal: Option<&str>,
) -> crate::store::Inbox {
    let from = principal.map(principal::digest);
    let key = format!(
        "{}inbox/task/{}/{}",
        crate::store::SESSION_PREFIX,
        principal::digest(task),
        from.as_deref().unwrap_or("anyone")
    );
    crate::store::Inbox::new(runs, key, DEFAULT_SESSION_TTL)
}

/// Whether the request whose `_meta` is `meta` steers the run in flight on its session
/// ([`Orchestrator::steer`](crate::Orchestrator::steer)): its baggage has
/// [`STEER_MEMBER`]`=1`, which a [`STEER_KEY`] of `true` in its `_meta` becomes.
///
/// # Examples
/// ```
/// let mut meta = neva::types::RequestParamsMeta::default();
/// meta.baggage = Some("userId=7,io.github.ladoga-rs.steer=1".into());
/// assert!(ladoga::session::steers(&meta));
/// ```
pub fn steers(meta: &neva::types::RequestParamsMeta) -> bool {
    let Some(baggage) = meta.baggage.as_deref() else {
        return false;
    };
    baggage.split(',').any(|member| {
        member.split_once('=').is_some_and(|(key, value)| {
            key.trim() == STEER_MEMBER && value.split(';').next().map(str::trim) == Some("1")
        })
    })
}

/// How long a session is kept after its last call, unless told otherwise.
pub const DEFAULT_SESSION_TTL: Duration = Duration::from_secs(60 * 60);

/// The most a session keeps, in bytes of its conversation's JSON: past it, its oldest calls'
/// exchanges are dropped whole (the last call's is always kept). An orchestrator with
/// `context = N` keeps its conversation far smaller than this (see [`crate::context`]).
pub const MAX_SESSION_BYTES: usize = 1 << 20;

/// How long a call waits for another call on its session to end before it is refused.
pub const DEFAULT_SESSION_WAIT: Duration = Duration::from_secs(30);

/// Which conversation a call of an orchestrator goes on with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Session {
    /// The one whose id the call passes as its `session` argument; a call without one starts
    /// one (`session = true`).
    ById,
    /// The caller's own: one conversation per caller and tool (`session = caller`).
    PerCaller,
}
