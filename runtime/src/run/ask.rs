//! One model request: within the run's deadline, its text streamed, the model that answered
//! noted (the run's own or a fallback's), in a `chat` span, its usage counted, the arguments of
//! a call past their bound left out.

use svir::{Completion, Request, Toolbox};
use tracing::Instrument;

use crate::error::RunError;
use crate::limits::arguments;
use crate::model::{AnsweredBy, CompletionModel, answered_by};
use crate::observe::{Listener, metrics, spans};
use crate::run::Orchestration;
use crate::run::state::Run;
use crate::usage::SharedUsage;

impl<M, T> Orchestration<'_, M, T>
where
    M: CompletionModel + ?Sized,
    T: Toolbox + Sync + ?Sized,
{
    /// The next turn's answer to `run`'s conversation, counted as a turn.
    pub(super) async fn ask_turn(&self, run: &mut Run) -> Result<Completion, RunError> {
        let (done, by) = match self.ask(&run.request, &run.usage).await {
            Ok(asked) => asked,
            // Boxed: only a refused request carries the future of asking once more.
            Err(error) => Box::pin(self.ask_compacted(run, error)).await?, // context
        };
        self.counted(run, &done); // context
        run.answered_by = Some(by);
        run.turns += 1;
        Ok(done)
    }

    /// One model answer and the model that gave it, before `deadline` if there is one, else
    /// the run fails at its deadline.
    pub(crate) async fn ask_by(
        &self,
        deadline: Option<tokio::time::Instant>,
        request: &Request,
        usage: &SharedUsage,
    ) -> Result<(Completion, AnsweredBy), RunError> {
        let Some(deadline) = deadline else {
            return self.ask(request, usage).await;
        };
        tokio::time::timeout_at(deadline, self.ask(request, usage))
            .await
            .unwrap_or_else(|_| {
                Err(RunError::Deadline {
                    timeout: self.settings.limits.timeout.unwrap_or_default(),
                })
            })
    }

    /// One model answer, its usage counted, and the model that gave it: the model's own, or
    /// the one a [`Fallback`](crate::Fallback) within it noted.
    pub(crate) async fn ask(
        &self,
        request: &Request,
        usage: &SharedUsage,
    ) -> Result<(Completion, AnsweredBy), RunError> {
        let span = spans::chat(self.model.name());
        let sent = std::time::Instant::now();
        let listener = Listener::new(self.settings.stream);
        let heard = |event: &svir::Event| listener.hear(event);
        let answer = answered_by(self.model.complete_streaming(request, &heard));
        // Boxed and erased: the run's future is deep already, and a handler's holds it.
        let answer: std::pin::Pin<Box<dyn Future<Output = _> + Send + '_>> =
            Box::pin(crate::model::caller::serving(self.caller.as_ref(), answer));
        let (done, by) = self.recorded_answer(answer.instrument(span.clone())).await; // durable
        listener.finish();
        // The caller's model asks in the next round: the run pauses, nothing failed.
        if done.is_err()
            && let Some(question) = self.caller.as_ref().and_then(|caller| caller.take_pause())
        {
            return Err(RunError::Paused(question));
        }
        metrics::model_request(self.model.name(), sent, listener.first_piece(), &done);
        if let Some(first) = listener.first_piece() {
            spans::first_piece(&span, first);
            let _ = self.first_token.set(first);
        }
        let mut done = done.map_err(|error| {
            tracing::warn!(target: "ladoga", parent: &span, ?error, "the model request failed");
            RunError::Model(error)
        })?;
        // Arguments past the bound: never run, never sent again.
        arguments::leave_out(&mut done, self.settings.limits.max_arguments);
        let by = by.map_or(AnsweredBy::Own, AnsweredBy::Named);
        spans::answered(&span, &done, self.named(&by));
        usage.add(done.usage);
        Ok((done, by))
    }

    /// The name of the model that answered, for an outcome.
    pub(super) fn name_of(&self, by: AnsweredBy) -> String {
        match by {
            AnsweredBy::Own => self.model.name().to_owned(),
            AnsweredBy::Named(name) => name,
        }
    }

    /// The name of the model that answered.
    fn named<'n>(&'n self, by: &'n AnsweredBy) -> &'n str {
        match by {
            AnsweredBy::Own => self.model.name(),
            AnsweredBy::Named(name) => name,
        }
    }
}
