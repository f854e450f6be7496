//! The turns: ask the model, screen its calls, run them at once, feed the results back, until
//! it answers or a bound is reached. Each feature is called at one seam, named where it is.

use std::sync::{Arc, Mutex, PoisonError};

use futures_util::future::{Either, join_all};
use svir::{ToolCall, ToolResult, Toolbox};
use tracing::{Instrument, Span};

use crate::brief::IntoBrief;
use crate::error::RunError;
use crate::guard::passed_on;
use crate::limits::{arguments, result};
use crate::metrics;
use crate::model::CompletionModel;
use crate::observe::spans;
use crate::outcome::{NestedRun, Stop, UnknownCall};
use crate::run::pause::{Halt, Pause};
use crate::run::recorder::{is_unknown, unknown_outcome};
use crate::run::spend::Funded;
use crate::run::state::{Finishing, Run};
use crate::run::{Ended, Orchestration, Screen};
use crate::schema::{SchemaProfile, absent_nulls};
use crate::store::{self, Ran};
use crate::toolbox::Escaped;
use crate::tree::{Heard, Journaled, Turn};
use crate::usage::SharedUsage;

impl<M, T> Orchestration<'_, M, T>
where
    M: CompletionModel + ?Sized,
    T: Toolbox + Sync + ?Sized,
{
    /// Runs the turns from `brief`, within the time bound, until an answer or a bound, counting
    /// tokens in `usage`.
    pub(crate) async fn drive(
        &self,
        brief: impl IntoBrief,
        usage: Arc<SharedUsage>,
    ) -> Result<(Ended, Run), RunError> {
        let mut run = self.begin(brief, usage)?; // rounds: a paused run, or a new one
        let deadline = run.deadline;
        let turns = async {
            match deadline {
                None => self.turns(&mut run).await,
                // At the deadline the request or the calls in flight are dropped; `run` keeps
                // what the turns before them added.
                Some(deadline) => tokio::time::timeout_at(deadline, self.turns(&mut run))
                    .await
                    .unwrap_or(Ok(Ended::Limit(Stop::Deadline))),
            }
        };
        let stopping = async {
            match &self.seams.drain {
                Some(drain) => drain.stopping().await,
                None => std::future::pending().await,
            }
        };
        // The server's grace period ending drops the turns the same way.
        let ended = tokio::select! {
            ended = turns => Some(ended),
            () = stopping => None,
        };
        let Some(ended) = ended else {
            let ran = store::ran_named(&run.ran);
            tracing::warn!(target: "ladoga", run = %run.id, ?ran, "the server stopped the run as it shut down");
            return Err(RunError::Stopped { ran });
        };
        match ended {
            Ok(ended) => Ok((ended, run)),
            Err(halt) => Err(self.halted(halt, &run).await),
        }
    }

    /// The turns, until an answer or a bound.
    async fn turns(&self, run: &mut Run) -> Result<Ended, Halt> {
        // The caller's model: a run paused after its turns asks that request again.
        match &run.finishing {
            Some(Finishing::Limit { stop }) => {
                return Ok(Ended::Limit(Stop::named(stop).unwrap_or(Stop::TurnLimit)));
            }
            Some(Finishing::Typed { stop, .. }) => {
                let stop = stop
                    .as_deref()
                    .and_then(Stop::named)
                    .unwrap_or(Stop::Answered);
                // typed: the request for the typed answer, within the budget as any
                return Ok(match self.turn_funded(run).await? {
                    Ok(done) => Ended::Answered(done, stop),
                    Err(unpaid) => Ended::Limit(unpaid),
                });
            }
            None => {}
        }
        if self.seams.at_depth_bound.is_some() {
            // depth: one request, no tool offered, within the budget as any
            let done = match self.turn_funded(run).await? {
                Ok(done) => done,
                Err(stop) => return Ok(Ended::Limit(stop)),
            };
            run.progress.answered(run.turns).await;
            return Ok(Ended::Answered(done, Stop::Depth));
        }
        let limits = &self.settings.limits;
        // A resumed run first runs the calls of the answer it paused at, its last turn's too.
        while run.turns < limits.turns.get() || run.pending.is_some() {
            // A new answer's questions are asked for the first time: none can have an answer.
            let asked_first = run.pending.is_none();
            let (done, settled) = match run.pending.take() {
                Some(done) => (done, run.settled.take()),
                None => {
                    self.read_inbox(run).await; // steering
                    if limits.spent(&run.usage.get()) {
                        return Ok(Ended::Limit(Stop::Budget)); // budget
                    }
                    self.compact(run).await?; // context
                    let mut done = match self.turn_funded(run).await? {
                        Ok(done) => done,
                        Err(stop) => return Ok(Ended::Limit(stop)), // budget_usd, quota
                    };
                    if done.calls.is_empty() {
                        // Guards: an answer held back is told to the model, which answers again.
                        if let Some((guard, why)) = self.guard_answer(&mut done, run)? {
                            self.answer_held(done, &guard, &why, run);
                            continue;
                        }
                        run.progress.answered(run.turns).await;
                        return Ok(Ended::Answered(done, Stop::Answered));
                    }
                    run.progress.turn(run.turns, &done.calls); // progress
                    (done, None)
                }
            };
            // The tree: a run paused among its calls has screened them, and made those settled.
            let resuming = settled.is_some();
            let refused = match settled {
                Some(settled) => settled,
                None => match self.screen(&done, asked_first, run).await? {
                    Some(refused) => refused,
                    None => return Ok(Ended::Limit(Stop::Stuck)),
                },
            };
            let (mut results, paused) = self.call(&done.calls, &refused, resuming, run).await;
            // Guards: what ran, before the model reads it (not what the run said itself).
            let unguarded = |call: &ToolCall| {
                paused.contains(&call.id)
                    || self.searches(call)
                    || refused.iter().any(|result| result.call_id == call.id)
            };
            self.guard_results(&done.calls, &mut results, unguarded, run)?;
            if !paused.is_empty() {
                // The tree: a question asked below a call waits for a later round.
                run.settled = Some(
                    results
                        .into_iter()
                        .filter(|result| !paused.contains(&result.call_id))
                        .collect(),
                );
                run.pending = Some(done);
                // A durable run asked in place, once the turn was recorded: made again now.
                if self.journaled_below().is_some() {
                    continue;
                }
                return Err(Pause(crate::tree::waiting()).into());
            }
            log_results(&done.calls, &results);
            run.answered(done, results);
        }
        Ok(Ended::Limit(Stop::TurnLimit))
    }

    /// The model request of a turn, within what the dollar budget and the quota have left
    /// (its output limited to what they pay for); the bound the run is at when they pay for
    /// none. A call whose first request finds the quota spent is refused.
    async fn turn_funded(&self, run: &mut Run) -> Result<Result<svir::Completion, Stop>, Halt> {
        let (cap, booked) = match self.fund(run).await? {
            Funded::Yes { cap, booked } => (cap, booked),
            Funded::No(Stop::Quota) if run.turns == 0 => return Err(self.quota_spent().into()),
            Funded::No(stop) => return Ok(Err(stop)),
        };
        let asked = self.ask_turn_within(run, cap).await; // the model request
        if let Some(worst) = booked {
            self.booked_request(run, worst).await; // quota
        }
        asked.map(Ok)
    }

    /// Screens `done`'s calls before any runs: the approvals and the model's questions, the
    /// arguments past their bound, the calls repeated. The results that stand for the calls
    /// that do not run; `None` for a model stuck on one call.
    async fn screen(
        &self,
        done: &svir::Completion,
        asked_first: bool,
        run: &mut Run,
    ) -> Result<Option<Vec<ToolResult>>, Halt> {
        let guarded = self.guard_calls(done, run)?; // guards: blocked, or put to the caller
        if asked_first && self.seams.keeper.is_some() {
            Box::pin(self.keep_before_asking(done, &guarded, run)).await?; // rounds
        }
        let gated = self.gated(done, &run.request.tools, &guarded.refusals);
        let mut refused = match self
            .seams
            .gate
            .screen(&run.id, run.turns, &gated, &guarded.asked)
            .await
        {
            Screen::Decided {
                approvals,
                refusals,
                inquiries,
            } => {
                self.settle(run).await;
                run.approvals.extend(approvals); // approvals
                run.inquiries.extend(inquiries); // ask_caller
                run.held.extend(guarded.held); // guards
                // A call the guards blocked stands refused by them, whatever else was asked.
                let mut refused = guarded.refusals;
                refused.extend(refusals);
                refused
            }
            Screen::Later(question) => {
                run.pending = Some(done.clone());
                return Err(Pause(question).into()); // rounds
            }
        };
        let limits = &self.settings.limits;
        refused.extend(arguments::refusals(&done.calls, limits.max_arguments)); // arguments
        if let Some(tool) = run.repeats.screen(limits.repeat, &done.calls, &mut refused) {
            run.stuck_on = Some(tool); // repeats
            return Ok(None);
        }
        Ok(Some(refused))
    }

    /// Runs a turn's calls, all at once, but for the `refused` ones, whose refusal stands as
    /// their result; each result bounded, in the order of the calls.
    ///
    /// Where the person at the run's top can be asked, each call is made at its
    /// [`Site`](crate::tree::Site): with the results, the ids of the calls that paused for a
    /// question asked below them, answered in a later round.
    async fn call(
        &self,
        calls: &[ToolCall],
        refused: &[ToolResult],
        resuming: bool,
        run: &mut Run,
    ) -> (Vec<ToolResult>, Vec<String>) {
        let refusal = |call: &ToolCall| refused.iter().find(|refusal| refusal.call_id == call.id);
        // A search is answered by the run: it does not go to the toolbox.
        // Gathered, so the futures below are gathered at their exact number: from a filter,
        // `join_all` would allocate room for one more and move them all as it shrinks it.
        let to_run: Vec<&ToolCall> = calls
            .iter()
            .filter(|call| refusal(call).is_none() && !self.searches(call))
            .collect();
        let turn = run.turns;
        // Noted for those who read them: a drained run's error, and a paused run's state.
        if self.seams.drain.is_some() || self.seams.keeper.is_some() {
            run.ran.extend(to_run.iter().map(|call| Ran {
                tool: call.name.clone(),
                turn,
            }));
        }
        let cut = self.cut_before().await; // durable
        // Each call on its own, all at once, so each reports when it is answered.
        let (progress, offered) = (&run.progress, &run.request.tools);
        let strict = self.model.schema_profile() == SchemaProfile::OpenAiStrict;
        // The tree: a run paused among its calls makes again only those that paused.
        let tree = self.seams.above.as_ref().map(|above| {
            let resumed = match resuming {
                true => to_run.iter().map(|call| call.id.clone()).collect(),
                false => Vec::new(),
            };
            Turn::new(above.clone(), &run.id, turn, resumed)
        });
        let tree = &tree;
        let ran = join_all(to_run.iter().map(|&call| {
            let made = async move {
                if self.not_again(cut, call) {
                    return unknown_outcome(call); // durable
                }
                // The nulls strict mode made the model send, as the tool's schema has them.
                let given = strict
                    .then(|| as_the_tool_takes(&*self.tools, call))
                    .flatten();
                let result = self.tools.call(given.as_ref().unwrap_or(call)).await;
                metrics::tool_called(offered, &call.name, result.is_error);
                if result.is_error {
                    spans::tool_failed(&Span::current());
                }
                progress.call_answered(turn, calls.len(), call, result.is_error);
                result
            };
            // Boxed at a site: a call's future is moved as the turn's are gathered, and one
            // that held a site's beside its own would be three times as large.
            match tree {
                Some(tree) => Either::Left(Box::pin(tree.call(call, made))),
                None => Either::Right(made),
            }
            .instrument(spans::tool(call))
        }));
        // The tree, in a durable run: what paused below is recorded with the turn's results.
        let below = tree.as_ref().zip(self.journaled_below());
        let ran = match below {
            Some((tree, journaled)) => Either::Left(async move {
                let mut results = ran.await;
                results.extend(journaled.recorded(tree).await);
                results
            }),
            None => Either::Right(ran),
        };
        // Guards: the runs a guarded run's calls start hold its guards, and say what they read.
        let (guards, read_below) = (&self.settings.guards, Mutex::new(Vec::new()));
        let ran = match guards.is_empty() {
            true => Either::Right(ran),
            false => Either::Left(Box::pin(passed_on(
                guards,
                &run.untrusted,
                &read_below,
                ran,
            ))),
        };
        let ran = run.usage.scope(ran);
        let mut results = match self.journals_inbox() {
            false => self.recorded_calls(ran).await,
            // Steering: a durable run's journal records what it read with the turn's calls.
            true => {
                let read = run.inbox_read;
                let mut results = Box::pin(self.recorded_calls(self.with_inbox(ran, read))).await;
                super::steer::held_from(&mut results, run);
                results
            }
        }; // durable
        let paused_below = match below {
            Some((_, journaled)) => Some(journaled.answered(&mut results).await),
            None => None,
        };
        run.read_below = read_below
            .into_inner()
            .unwrap_or_else(PoisonError::into_inner);
        let mut ran = results.into_iter();
        // Durable: the calls a crash cut, not made again; not those whose results the journal
        // holds, which an attempt made before the crash.
        if cut {
            let ran = to_run.iter().zip(ran.as_slice());
            let unknown =
                ran.filter(|(call, result)| self.not_again(cut, call) && is_unknown(result));
            run.unknown.extend(unknown.map(|(call, _)| {
                tracing::warn!(target: "ladoga", tool = %Escaped(&call.name), "a call cut by a crash is not made again");
                UnknownCall {
                    tool: call.name.clone(),
                    arguments: call.arguments.clone(),
                }
            }));
        }
        // A durable run's calls that paused, and the runs below that ended, are the recorded
        // ones: a replay made none.
        let heard = match (paused_below, tree) {
            (Some(recorded), _) => Some(recorded),
            (None, Some(tree)) => Some(tree.heard()),
            (None, None) => None,
        };
        let paused = match heard {
            Some(heard) => self.nest(heard, calls, run),
            None => Vec::new(),
        };
        let mut searched = self.search(calls, refused, run).into_iter(); // tool search
        let max = self.settings.limits.max_result;
        let results = calls.iter().map(|call| {
            let mut result = match refusal(call) {
                Some(refusal) => refusal.clone(),
                None if self.searches(call) => (searched.next())
                    .unwrap_or_else(|| ToolResult::error(&call.id, "the search got no result")),
                None => ran
                    .next()
                    .unwrap_or_else(|| ToolResult::error(&call.id, "the call got no result")),
            };
            result::bound(&mut result, max);
            result
        });
        (results.collect(), paused)
    }

    /// The tree, in a durable run: its top, which asks what its calls' runs below ask between
    /// its turn's recorded steps.
    fn journaled_below(&self) -> Option<&dyn Journaled> {
        self.seams.recorder?;
        self.seams.above.as_ref()?.top.journaled()
    }

    /// The tree: keeps the reports of the runs the turn's calls started that ended, and answers
    /// which calls paused.
    fn nest(&self, heard: Heard, calls: &[ToolCall], run: &mut Run) -> Vec<String> {
        for (id, report) in heard.reports {
            let tool = calls.iter().find(|call| call.id == id);
            run.runs.push(NestedRun {
                tool: tool.map(|call| call.name.clone()).unwrap_or_default(),
                turn: run.turns,
                report,
            });
        }
        heard.paused
    }
}

/// `call` without the `null`s a strict profile made the model send for optional arguments its
/// tool's own schema does not take; `None` if it has none.
fn as_the_tool_takes<T: Toolbox + ?Sized>(tools: &T, call: &ToolCall) -> Option<ToolCall> {
    if !call.arguments.contains("null") {
        return None;
    }
    let tools = tools.tools();
    let tool = tools.iter().find(|tool| tool.name == call.name)?;
    let arguments = absent_nulls(&call.arguments, &tool.input_schema)?;
    Some(ToolCall::new(&call.id, &call.name, arguments))
}

/// Each call with its arguments and result, at `debug`: they may hold the user's data.
fn log_results(calls: &[ToolCall], results: &[ToolResult]) {
    for (call, result) in calls.iter().zip(results) {
        tracing::debug!(
            target: "ladoga",
            tool = %Escaped(&call.name),
            arguments = %Escaped(&call.arguments),
            error = result.is_error,
            result = %Escaped(&result.content),
            "tool call answered"
        );
    }
}
