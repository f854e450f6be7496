//! Why an orchestration failed.

use std::time::Duration;

/// Why an orchestration did not produce an answer.
///
/// `Display` is written for the MCP caller: it never carries the model server's own message,
/// which can name an account or a deployment. That message stays in the [`svir::Error`] of
/// [`RunError::Model`], for logs the server operator reads.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RunError {
    /// The orchestrator's body failed to build the brief.
    #[error("the brief could not be built: {0}")]
    Brief(String),
    /// The server's tools could not be loaded into a toolbox.
    #[error("the tools could not be offered to the model: {0}")]
    Toolbox(String),
    /// A request to the model failed.
    #[error("the model could not answer: {0}")]
    Model(#[source] svir::Error),
    /// The model was still calling tools after the turn bound, under
    /// [`OnLimit::Error`](crate::OnLimit::Error).
    #[error("the model was still calling tools after {turns} turns, the bound of this tool")]
    TurnLimit {
        /// The bound that was reached.
        turns: usize,
    },
    /// The run took longer than its time bound, under [`OnLimit::Error`](crate::OnLimit::Error).
    #[error("the run took longer than {timeout:?}, the time bound of this tool")]
    Deadline {
        /// The bound that was reached.
        timeout: Duration,
    },
    /// The run used its token budget, under [`OnLimit::Error`](crate::OnLimit::Error).
    #[error("the run used {used} tokens, and the budget of this tool is {budget}")]
    Budget {
        /// The budget.
        budget: u64,
        /// The tokens used when the next request was due.
        used: u64,
    },
    /// The next request could have taken the run past its dollar budget, under
    /// [`OnLimit::Error`](crate::OnLimit::Error).
    #[error(
        "the run spent {spent}, and its next request could have taken it past {budget}, the \
         dollar budget it had"
    )]
    BudgetUsd {
        /// The budget: the tool's own, or less when its caller had less left.
        budget: crate::cost::Dollars,
        /// What the run had spent (nested runs included), as `$0.0123`.
        spent: String,
    },
    /// The caller has spent the tool's quota: the call is refused, or the run stopped before a
    /// request that could have passed it, under [`OnLimit::Error`](crate::OnLimit::Error).
    #[error(
        "this caller has spent its quota of {quota} on {on}; it frees up at {frees_at} \
         (in {frees_in})"
    )]
    OverQuota {
        /// The quota, as `$5.00 a day`.
        quota: String,
        /// What it is the quota of: `this tool`, or `this server` for a
        /// [`ServerQuota`](crate::cost::ServerQuota).
        on: String,
        /// When its window ends, in UTC (RFC 3339).
        frees_at: String,
        /// How long until then, as `3h 12m`.
        frees_in: String,
    },
    /// The run has a dollar budget and its model no known price, so the budget could not hold:
    /// no request was made to it.
    #[error(
        "the model `{model}` has no known price, so the dollar budget of this tool cannot hold: \
         give the model a price (`Model::with_price`)"
    )]
    Unpriced {
        /// The model's name.
        model: String,
    },
    /// The model kept making one call with the same arguments after it was told, under
    /// [`OnLimit::Error`](crate::OnLimit::Error).
    #[error("the model was stuck: it kept calling `{tool}` with the same arguments")]
    Stuck {
        /// The tool it kept calling.
        tool: String,
    },
    /// The run asked its caller a question ([`Approvals`](crate::Approvals)) that is answered
    /// in a later round of the tool call. Holds the error a tool handler returns as it is, for
    /// neva to answer the round with the question (`input_required`, MCP 2026-07-28).
    #[error("the run waits for its caller's answer")]
    Paused(neva::error::Error),
    /// The round carries the answer for a run that is no longer kept: its store lost it (a
    /// restart that kept nothing), or another retry of the same round took it. It is never run
    /// again. [`RunError::Lost`] when calls had already run.
    #[error(
        "this run can no longer go on: its paused state is gone (its store lost it, or another \
         retry of this round took it); call the tool again"
    )]
    Gone,
    /// [`RunError::Gone`], for a run whose calls had already run: `ran` names them (as
    /// `` `add_task` in turn 1 ``), so the person or agent calling can decide whether to call
    /// again.
    #[error(
        "this run can no longer go on: its paused state is gone (its store lost it, or another \
         retry of this round took it){}; calling the tool again may run them again",
        ran_note(ran)
    )]
    Lost {
        /// The calls that had run.
        ran: Vec<String>,
    },
    /// The run stopped for a question, but its state could not be kept (the store did not
    /// answer): the caller is not asked a question whose answer could not be used.
    #[error(
        "the run's state could not be kept (the store did not answer), so its caller was not \
         asked to approve{}; call the tool again",
        ran_note(ran)
    )]
    NotKept {
        /// The calls that had run.
        ran: Vec<String>,
    },
    /// The round carries an answer, but the paused run could not be read (the store did not
    /// answer). Nothing of it ran in this round; sending the same answer again retries.
    #[error(
        "the paused run could not be read (the store did not answer), so nothing ran in this \
         round{}; send the same answer again to retry",
        ran_note(ran)
    )]
    Unread {
        /// The calls that had run in earlier rounds.
        ran: Vec<String>,
    },
    /// The round could not be locked against its own retries (the store did not answer), so it
    /// did not run: two retries must never both run it. Sending the same answer again retries.
    #[error(
        "this round could not be locked against its retries (the store did not answer), so \
         nothing ran; send the same answer again to retry"
    )]
    Unlocked,
    /// The server stopped the run as it shut down: its grace period ([`Drain`](crate::Drain))
    /// ended while the run was going. `ran` names the calls that had run, if any, so the caller
    /// can decide whether to call again.
    #[error(
        "the server stopped this run as it shut down; call the tool again{}",
        ran_note(ran)
    )]
    Stopped {
        /// The calls that ran before it stopped, as `add_task (turn 1)`.
        ran: Vec<String>,
    },
    /// A [guard](crate::guard) stopped the run ([`Verdict::Trip`](crate::guard::Verdict::Trip)).
    #[error("the guard `{guard}` stopped this run: {why}")]
    Tripped {
        /// The guard's name.
        guard: String,
        /// Why, in its words.
        why: String,
    },
    /// A paused run could not be kept or read back.
    #[error("the paused run could not be kept: {0}")]
    Store(String),
    /// The model's provider refused the conversation for its length twice: once as it was, and
    /// once compacted to `tokens` (by the estimate) under its context bound
    /// ([`Orchestration::context`](crate::Orchestration::context)).
    #[error(
        "the conversation does not fit in the model's context, even compacted to about {tokens} \
         tokens: this tool's `context` bound must be well under the model's window"
    )]
    TooLong {
        /// The conversation's size after it was compacted, by the estimate.
        tokens: u64,
    },
    /// The session the call names is not one this caller may continue: it expired, was never
    /// started, or is another caller's. The words are the same for each, so a caller learns
    /// nothing of a session that is not theirs.
    #[error(
        "this caller has no session with that id: it expired, or it was never started by this \
         caller; call without `session` to start a new conversation"
    )]
    SessionUnknown,
    /// Another call on the same session did not end within `waited`: one call at a time goes
    /// on with a session.
    #[error(
        "the session is busy with another call, which did not end within {waited:?}; call again \
         once it has answered"
    )]
    SessionBusy {
        /// How long the call waited.
        waited: std::time::Duration,
    },
    /// A call would start a session while every session a bound counts (the caller's own, or
    /// every caller's: [`SessionBounds`](crate::session::SessionBounds)) is in use by a call,
    /// so none idle could be let go to make room. Nothing ran.
    #[error(
        "no session can be started now: {bound} are kept, the most there may be, and each is in \
         use by a call; call again once one of them has answered, or go on with one of them"
    )]
    SessionLimit {
        /// The bound reached: sessions per caller, or in all.
        bound: usize,
    },
    /// The session could not be read or kept: its store did not answer. Nothing ran.
    #[error("the session could not be read or kept: its store did not answer; call again")]
    SessionStore,
    /// A tool that keeps one conversation per caller was called by no caller it can tell: no
    /// token with a subject, and no MCP session.
    #[error(
        "this tool keeps one conversation per caller, and this call has none it can tell (no \
         access token with a subject, no MCP session)"
    )]
    NoCaller,
    /// The final answer of a typed run did not parse as its output type, after `requests`
    /// requests asking for it as JSON.
    #[error(
        "the model's answer did not match the output type after {requests} requests for JSON: {error}"
    )]
    Output {
        /// The requests made for a JSON answer after the first answer.
        requests: usize,
        /// Why the last answer did not parse.
        error: String,
    },
}

/// What a caller is told of the calls a run that did not finish had already made.
fn ran_note(ran: &[String]) -> String {
    if ran.is_empty() {
        String::new()
    } else {
        format!(" (these calls had already run: {})", ran.join(", "))
    }
}
