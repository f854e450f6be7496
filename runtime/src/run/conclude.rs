//! The outcome of the turns: the answer, or the policy at the bound they reached.

use svir::{Completion, Message, Request, ToolChoice, Toolbox};

use crate::cost;
use crate::error::RunError;
use crate::limits::{OnLimit, partial};
use crate::model::CompletionModel;
use crate::outcome::{Outcome, Stop};
use crate::run::pause::Halt;
use crate::run::state::{Finishing, Run};
use crate::run::{Ended, Orchestration};
use crate::toolbox::Escaped;

impl<M, T> Orchestration<'_, M, T>
where
    M: CompletionModel + ?Sized,
    T: Toolbox + Sync + ?Sized,
{
    /// The outcome of the turns: the answer, or the policy at the bound.
    pub(crate) async fn conclude(&self, ended: Ended, run: Run) -> Result<Outcome, RunError> {
        let usage = std::sync::Arc::clone(&run.usage);
        let concluded = self.concluded(ended, run).await;
        self.book_last(&usage).await; // quota: what the run spent, booked as it ends
        concluded
    }

    /// [`Self::conclude`], before the quota's last booking.
    async fn concluded(&self, ended: Ended, run: Run) -> Result<Outcome, RunError> {
        match ended {
            Ended::Answered(mut done, stop) => {
                let mut run = run;
                self.held_back(&mut done, &mut run)?; // guards
                self.leave(&run.request, Some(&done)); // sessions
                Ok(self.finished(done, run, stop))
            }
            // Boxed: only a run at a bound asks once more, and every run would carry its future.
            Ended::Limit(stop) => Box::pin(self.at_limit(stop, run)).await,
        }
    }

    /// The policy at a bound.
    async fn at_limit(&self, stop: Stop, mut run: Run) -> Result<Outcome, RunError> {
        let policy = self.settings.limits.on_limit;
        tracing::info!(target: "ladoga", ?stop, %policy, "the run reached a bound");
        match policy {
            OnLimit::Error => Err(self.limit_error(stop, &run)),
            OnLimit::Answer => {
                // The tools stay described, so the history of calls still makes sense, but the
                // model may not call one; a call it makes anyway is never run. At any bound but
                // the deadline itself, the request is still within the deadline; at every
                // bound, within what the dollar budget and the quota have left.
                let deadline = run.deadline.filter(|_| stop != Stop::Deadline);
                let request = std::mem::replace(&mut run.request, Request::new(""));
                run.request = request.tool_choice(ToolChoice::None);
                let mut done = match self.ask_funded(deadline, &mut run).await {
                    Ok(Ok(done)) => done,
                    // Not even a short answer is paid for: the work so far, as `partial` ends.
                    Ok(Err(unpaid)) => return Ok(self.partial(stop, Some(unpaid), run)),
                    Err(Halt::Failed(error)) => return Err(error),
                    // The caller's model answers in the next round: this request is asked again.
                    Err(halt) => {
                        let stop = stop.name().to_owned();
                        run.finishing = Some(Finishing::Limit { stop });
                        run.kept = false;
                        return Err(self.halted(halt, &run).await);
                    }
                };
                self.held_back(&mut done, &mut run)?; // guards
                self.leave(&run.request, Some(&done)); // sessions
                Ok(self.finished(done, run, stop))
            }
            OnLimit::Partial => Ok(self.partial(stop, None, run)),
        }
    }

    /// The outcome of `run` stopped at `stop` under [`OnLimit::Partial`], or under
    /// [`OnLimit::Answer`] where the bound `unpaid` paid for no last answer: the work so far.
    fn partial(&self, stop: Stop, unpaid: Option<Stop>, run: Run) -> Outcome {
        let mut text = partial::text(stop, &run.request.messages, run.opened);
        if let Some(unpaid) = unpaid {
            partial::unpaid(&mut text, stop, unpaid);
        }
        Outcome {
            session: self.leave(&run.request, None),
            text,
            turns: run.turns,
            usage: run.usage.get(),
            stop,
            finish: svir::FinishReason::ToolCalls,
            partial: true,
            model: run.answered_by.map(|by| self.name_of(by)),
            first_token: run.first_token,
            approvals: run.approvals,
            inquiries: run.inquiries,
            unknown: run.unknown,
            compacted: run.window.so_far(),
            cost_usd: run.usage.spent().usd(),
            runs: run.runs,
            steered: run.steered,
            held: run.held,
            untrusted: run.untrusted,
        }
    }

    /// Guards: an answer the turns did not show them (at the depth bound, a typed answer, an
    /// answer at a bound), shown now. There is no turn left to ask again in, so an answer held
    /// back is replaced by a line saying so.
    fn held_back(&self, done: &mut Completion, run: &mut Run) -> Result<(), RunError> {
        if let Some((guard, why)) = self.guard_answer(done, run)? {
            done.text = format!("[The guard `{guard}` held this answer back: {why}.]");
        }
        Ok(())
    }

    /// Sessions: leaves the session the conversation of `request`, then `answer`; the id a
    /// caller passes to go on with it.
    pub(crate) fn leave(&self, request: &Request, answer: Option<&Completion>) -> Option<String> {
        let lease = self.seams.session?;
        match answer {
            Some(answer) => {
                let mut messages = request.messages.clone();
                messages.push(Message::from(answer.clone()));
                lease.leave(&messages);
            }
            None => lease.leave(&request.messages),
        }
        lease.id().map(str::to_owned)
    }

    pub(super) fn limit_error(&self, stop: Stop, run: &Run) -> RunError {
        let limits = &self.settings.limits;
        match stop {
            Stop::Deadline => RunError::Deadline {
                timeout: limits.timeout.unwrap_or_default(),
            },
            Stop::Budget => RunError::Budget {
                budget: limits.budget.map_or(0, |budget| budget.get()),
                used: run.usage.get().total(),
            },
            Stop::BudgetUsd => match run.usage.left() {
                Some(left) => RunError::BudgetUsd {
                    budget: left.budget,
                    spent: cost::usd(left.spent),
                },
                None => RunError::TurnLimit { turns: run.turns },
            },
            Stop::Quota => self.quota_spent(),
            Stop::Stuck => RunError::Stuck {
                tool: run.stuck_on.clone().unwrap_or_default(),
            },
            Stop::Answered | Stop::Depth | Stop::TurnLimit | Stop::Steered => {
                RunError::TurnLimit { turns: run.turns }
            }
        }
    }

    /// The outcome of `run`, ended with `done`.
    pub(crate) fn finished(&self, done: Completion, run: Run, stop: Stop) -> Outcome {
        tracing::debug!(target: "ladoga", turns = run.turns, ?stop, "the model answered");
        tracing::debug!(target: "ladoga", answer = %Escaped(&done.text), "the answer");
        Outcome {
            text: done.text,
            turns: run.turns,
            usage: run.usage.get(),
            stop,
            finish: done.finish,
            partial: false,
            model: run.answered_by.map(|by| self.name_of(by)),
            first_token: run.first_token,
            approvals: run.approvals,
            inquiries: run.inquiries,
            unknown: run.unknown,
            compacted: run.window.so_far(),
            session: self
                .seams
                .session
                .and_then(|lease| lease.id().map(str::to_owned)),
            cost_usd: run.usage.spent().usd(),
            runs: run.runs,
            steered: run.steered,
            held: run.held,
            untrusted: run.untrusted,
        }
    }
}
