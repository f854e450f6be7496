//! The session of an [`Orchestrator`]'s call: opened before the run, closed after it.

use std::time::Duration;

use neva::Context;
use svir::{Part, Role};

use crate::error::RunError;
use crate::outcome::Outcome;
use crate::session::{Asked, Lease, Session, principal};
use crate::store::{Keeper, Runs, new_id};
use crate::tool::Orchestrator;

impl Orchestrator {
    /// The session of `ctx`'s call, locked for it, if the tool keeps sessions: the paused run
    /// `keeper` gives back holds it already.
    ///
    /// A durable run holds it under its key (`durable`), so that an attempt started again after a
    /// crash holds it as the cut one did.
    pub(super) async fn lease(
        &self,
        ctx: &Context,
        keeper: Option<&Keeper>,
        durable: Option<&str>,
    ) -> Result<Option<Box<Lease>>, RunError> {
        let Some(session) = self.session.kind else {
            return Ok(None);
        };
        let runs = ctx
            .resolve_shared::<Runs>()
            .map_or_else(|_| Runs::in_process(), |runs| (*runs).clone());
        let holder = match (durable, keeper) {
            (Some(durable), _) => format!("durable run {durable}"),
            (None, Some(keeper)) => keeper.id().to_owned(),
            (None, None) => new_id(),
        };
        // A new session's id is the same in each round of its first call: its run's, digested.
        let minted = keeper.map(|keeper| principal::digest(&format!("session of {}", keeper.id())));
        let asked = Asked {
            session,
            id: self.session.continuing.as_deref(),
            minted: minted.as_deref(),
            agent: self.settings.name.as_deref().unwrap_or("run"),
            holder: &holder,
            resuming: keeper.is_some_and(Keeper::resuming),
            ttl: self.session.ttl,
            wait: self.session.wait,
            run_timeout: self.settings.limits.timeout,
        };
        let starts = session == Session::ById && self.session.continuing.is_none();
        match Box::pin(Lease::open(ctx, runs, asked)).await {
            Ok(lease) => Ok(Some(Box::new(lease))),
            // A new conversation whose store does not answer: the call goes on as one without a
            // session would, and its result names none.
            Err(RunError::SessionStore) if starts => {
                tracing::warn!(target: "ladoga", "the session store did not answer: this call starts no session");
                Ok(None)
            }
            Err(error) => Err(error),
        }
    }
}

impl Orchestrator {
    /// Steering: a call that [`Self::steer`]s on a session a run is busy with gives that run
    /// `brief`'s words, which it reads before its next turn, and answers at once; `None` when
    /// the session is idle (or the call does not steer), and the call runs as any.
    pub(super) async fn steering(
        &self,
        ctx: &Context,
        brief: &svir::Request,
    ) -> Result<Option<Outcome>, RunError> {
        let Some(session) = self.session.kind.filter(|_| self.session.steer) else {
            return Ok(None);
        };
        // A call that starts a session has no run to steer.
        if session == Session::ById && self.session.continuing.is_none() {
            return Ok(None);
        }
        let runs = ctx
            .resolve_shared::<Runs>()
            .map_or_else(|_| Runs::in_process(), |runs| (*runs).clone());
        let holder = new_id();
        let asked = Asked {
            session,
            id: self.session.continuing.as_deref(),
            minted: None,
            agent: self.settings.name.as_deref().unwrap_or("run"),
            holder: &holder,
            resuming: false,
            ttl: self.session.ttl,
            wait: Duration::ZERO,
            run_timeout: self.settings.limits.timeout,
        };
        let Some(inbox) = Lease::busy(ctx, runs, asked).await? else {
            return Ok(None);
        };
        let said = said(brief);
        inbox.post(&said).await.map_err(|error| {
            tracing::warn!(target: "ladoga", %error, "a message to the run in flight could not be kept");
            RunError::SessionStore
        })?;
        tracing::info!(target: "ladoga", "a message is given to the run in flight on its session");
        Ok(Some(Outcome::of_steering(self.session.continuing.clone())))
    }
}

/// The words of `brief`'s user messages, as a person said them.
fn said(brief: &svir::Request) -> String {
    let texts = brief
        .messages
        .iter()
        .filter(|message| message.role == Role::User);
    let texts = texts
        .flat_map(|message| &message.parts)
        .filter_map(|part| match part {
            Part::Text(text) => Some(text.as_str()),
            _ => None,
        });
    texts.collect::<Vec<_>>().join("\n\n")
}

/// Ends the call's hold on its session once its run ended: the conversation it left kept, the
/// lock let go, or held for the next round of a run that `paused`. A conversation that cannot
/// be kept does not take the answer away: it is logged, and the session stays as it was.
pub(super) async fn close(lease: Box<Lease>, paused: bool) {
    if let Err(error) = lease.close(paused).await {
        tracing::warn!(target: "ladoga", %error, "the run's conversation was not kept in its session");
    }
}
