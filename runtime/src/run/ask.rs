//! One model request, the only way a run asks a model anything (a turn, a typed answer's retry,
//! the answer at a bound, a compaction's summary): within the run's deadline, in a `chat` span,
//! recorded in a durable run's journal, put to the caller for a [`CallerModel`](crate::CallerModel),
//! its usage and time counted, its text streamed when it is the run's answer, the model that
//! answered noted (the run's own or a fallback's), the arguments of a call past their bound
//! left out.

use std::sync::{Mutex, PoisonError};
use std::time::Duration;

use svir::{Completion, Request, Toolbox};
use tracing::Instrument;

use crate::cost::{self, Pricing};
use crate::error::RunError;
use crate::limits::arguments;
use crate::metrics;
use crate::model::{AnsweredBy, CompletionModel};
use crate::observe::{Listener, spans};
use crate::run::pause::{Halt, Pause};
use crate::run::state::Run;
use crate::run::{Orchestration, Settings};
use crate::usage::SharedUsage;

/// A model's answer to one request.
pub(crate) struct Answer {
    pub(crate) done: Completion,
    /// The model that gave it: the run's own, or the one a [`Fallback`](crate::Fallback) noted.
    pub(crate) by: AnsweredBy,
    /// How long the request took to its first piece, for a model that streams.
    pub(crate) first_piece: Option<Duration>,
}

/// Who a request is for, and what it may do.
#[derive(Clone, Copy)]
pub(crate) enum Purpose {
    /// The run's answer: its text streams to the caller.
    Turn,
    /// A summary of the oldest turns: nothing of it streams.
    Summary,
}

impl<M, T> Orchestration<'_, M, T>
where
    M: CompletionModel + ?Sized,
    T: Toolbox + Sync + ?Sized,
{
    /// The next turn's answer to `run`'s conversation, counted as a turn.
    pub(super) async fn ask_turn(&self, run: &mut Run) -> Result<Completion, Halt> {
        let answer = match self
            .ask(self.model, &run.request, &run.usage, Purpose::Turn)
            .await
        {
            Err(Halt::Failed(error)) => Box::pin(self.ask_compacted(run, error)).await?, // context
            asked => asked?,
        };
        Ok(run.heard(answer))
    }

    /// [`Self::ask_turn`], its output limited to `cap` tokens when the dollar budget says so.
    pub(super) async fn ask_turn_within(
        &self,
        run: &mut Run,
        cap: Option<u64>,
    ) -> Result<Completion, Halt> {
        let Some(cap) = cap else {
            return self.ask_turn(run).await;
        };
        let own = run.request.max_tokens.replace(cap);
        let done = self.ask_turn(run).await;
        run.request.max_tokens = own;
        done
    }

    /// [`Self::ask`] of the run's own model, before `deadline` if there is one, else the run
    /// fails at its deadline.
    pub(crate) async fn ask_by(
        &self,
        deadline: Option<tokio::time::Instant>,
        request: &Request,
        usage: &SharedUsage,
    ) -> Result<Answer, Halt> {
        let asked = self.ask(self.model, request, usage, Purpose::Turn);
        let Some(deadline) = deadline else {
            return asked.await;
        };
        tokio::time::timeout_at(deadline, asked)
            .await
            .unwrap_or_else(|_| Err(deadline_passed(&self.settings).into()))
    }

    /// `model`'s answer to `request`, its usage counted in `usage`.
    pub(crate) async fn ask<S: CompletionModel + ?Sized>(
        &self,
        model: &S,
        request: &Request,
        usage: &SharedUsage,
        purpose: Purpose,
    ) -> Result<Answer, Halt> {
        let span = spans::chat(model.name());
        let sent = std::time::Instant::now();
        let stream = match purpose {
            // Guards: an answer a guard reads is not streamed before it is read.
            Purpose::Turn if self.settings.guards.check_answers() => None,
            Purpose::Turn => self.settings.stream,
            Purpose::Summary => None,
        };
        let listener = Listener::new(stream);
        let heard = |event: &svir::Event| listener.hear(event);
        // How the model that answered is priced, as it noted it: the journal of a durable run
        // keeps only the answer and the fallback's name.
        let noted: Mutex<Option<Pricing>> = Mutex::default();
        let answer = async {
            let (answered, note) = cost::noted(model.complete_streaming(request, &heard)).await;
            *noted.lock().unwrap_or_else(PoisonError::into_inner) = note.pricing;
            (answered, note.by)
        };
        // Boxed and erased: the run's future is deep already, and a handler's holds it.
        let answer: std::pin::Pin<Box<dyn Future<Output = _> + Send + '_>> = Box::pin(
            crate::model::caller::serving(self.seams.caller.as_ref(), answer),
        );
        let (done, by) = self.recorded_answer(answer.instrument(span.clone())).await; // durable
        listener.finish();
        // The caller's model asks in the next round: the run pauses, nothing failed.
        if done.is_err()
            && let Some(question) = self
                .seams
                .caller
                .as_ref()
                .and_then(|caller| caller.take_pause())
        {
            return Err(Pause(question).into());
        }
        metrics::model_request(model.name(), sent, listener.first_piece(), &done);
        let first_piece = listener.first_piece();
        if let Some(first) = first_piece {
            spans::first_piece(&span, first);
        }
        let mut done = done.map_err(|error| {
            tracing::warn!(target: "ladoga", parent: &span, ?error, "the model request failed");
            RunError::Model(error)
        })?;
        // Arguments past the bound: never run, never sent again.
        arguments::leave_out(&mut done, self.settings.limits.max_arguments);
        let by = by.map_or(AnsweredBy::Own, AnsweredBy::Named);
        let name = match &by {
            AnsweredBy::Own => model.name(),
            AnsweredBy::Named(name) => name,
        };
        spans::answered(&span, &done, name);
        usage.add(done.usage);
        let pricing =
            (noted.into_inner().unwrap_or_else(PoisonError::into_inner)).unwrap_or_else(|| {
                Pricing {
                    price: model.price(),
                    provider: model.price_provider().map(str::to_owned),
                }
            });
        let (price, provider) = (pricing.price, pricing.provider.as_deref());
        let cost = cost::cost(name, price, provider, done.usage);
        metrics::model_cost(name, cost);
        usage.spend(cost);
        Ok(Answer {
            done,
            by,
            first_piece,
        })
    }

    /// The name of the model that answered, for an outcome.
    pub(super) fn name_of(&self, by: AnsweredBy) -> String {
        match by {
            AnsweredBy::Own => self.model.name().to_owned(),
            AnsweredBy::Named(name) => name,
        }
    }
}

/// The run's error at its deadline.
fn deadline_passed(settings: &Settings) -> RunError {
    RunError::Deadline {
        timeout: settings.limits.timeout.unwrap_or_default(),
    }
}
