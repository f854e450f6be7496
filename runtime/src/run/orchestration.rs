//! The bounded loop: offer tools, run the calls of a turn, feed the results back.

use svir::{Completion, Request, ToolCall, ToolChoice, ToolResult, Toolbox};

use futures_util::future::join_all;
use neva::types::ProgressToken;
use tracing::{Instrument, Span};

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use crate::approvals::{Approval, Approvals, Approver, Asked, Decision, Question};
use crate::paused::{Keeper, Paused};
use crate::progress::Progress;
use crate::ran::{self, Ran};
use crate::repeats::{self, Repeat, Repeats};
use crate::shared_usage::SharedUsage;
use crate::streaming::Listener;
use crate::{CompletionModel, IntoBrief, Limits, OnLimit, Outcome, RunError, Stop, TokenUsage};
use crate::{fallback, partial, result_limit, telemetry};

/// One run of the loop over any [`Toolbox`] and any [`CompletionModel`], without the macro.
///
/// Each turn sends the conversation with the tools, runs every call of the answer at once
/// through [`Toolbox::call_all`], then sends the assistant turn followed by one result per call,
/// in the order the calls were made. The loop ends when an answer has no calls (an answer cut by
/// the output limit included), or at a bound of its [`Limits`] (turns, time, tokens, repeated
/// calls), where [`OnLimit`] decides.
///
/// # Examples
/// ```
/// use ladoga::Orchestration;
/// use ladoga::testing::{Reply, ScriptedModel};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let tools = svir::Tools::new().add_tool(svir::Tool::new("now", "The time"), |_: serde_json::Value| async {
///     "noon"
/// });
/// let model = ScriptedModel::new([Reply::call("now", serde_json::json!({})), Reply::text("It is noon.")]);
///
/// let outcome = Orchestration::new(&model, &tools)
///     .system("Answer briefly.")
///     .run("What time is it?")
///     .await?;
/// assert_eq!(outcome.text, "It is noon.");
/// assert_eq!(outcome.turns, 2);
/// # Ok(())
/// # }
/// ```
#[must_use = "an orchestration does nothing until `run` is awaited"]
pub struct Orchestration<'a, M: ?Sized, T: ?Sized> {
    pub(crate) model: &'a M,
    tools: &'a T,
    system: Option<String>,
    pub(crate) limits: Limits,
    progress: Option<ProgressToken>,
    /// The agent's name in spans: the orchestrating tool's.
    name: Option<String>,
    /// Nested this deep, at the depth bound: no call could be made, so no tool is offered.
    at_depth_bound: Option<usize>,
    /// Passes the model's text on as it streams, at most this often.
    stream: Option<Duration>,
    /// How long the run's first model request took to its first piece.
    first_token: OnceLock<Duration>,
    /// Which calls need a person's approval, and who is asked.
    approvals: Approvals,
    approver: Option<&'a dyn Approver>,
    /// Keeps the run while its caller answers, and gives back a paused one.
    keeper: Option<&'a Keeper>,
    /// The server's shutdown: at the end of its grace period the run stops.
    drain: Option<crate::Drain>,
    /// The MCP task this run is, told how it goes.
    #[cfg(not(feature = "legacy-spec"))]
    task: Option<Arc<crate::task_progress::TaskLine>>,
}

/// Where a run is: what it has sent, used and seen so far.
pub(crate) struct Run {
    /// The run's id, which its approval questions are bound to.
    id: String,
    pub(crate) request: Request,
    pub(crate) turns: usize,
    /// Tokens used, nested runs included.
    pub(crate) usage: Arc<SharedUsage>,
    repeats: Repeats,
    progress: Progress,
    /// Where the run's own messages begin in `request`, after the brief's: a partial result
    /// reads the work done from there. The conversation is the run's one copy of its results.
    opened: usize,
    /// An answer whose calls wait for the caller's approval.
    pending: Option<Completion>,
    /// The approval questions answered.
    pub(crate) approvals: Vec<Approval>,
    /// The tool a stuck model kept calling.
    stuck_on: Option<String>,
    /// The model that answered the last request.
    pub(crate) answered_by: Option<AnsweredBy>,
    /// When the run's time is up, if it is bounded in time.
    pub(crate) deadline: Option<tokio::time::Instant>,
    /// The calls that ran, for a caller told that the run cannot go on.
    ran: Vec<Ran>,
    /// Whether its state was kept before the question it waits for was asked.
    kept: bool,
}

/// The model that answered a request: the run's own, or one a [`Fallback`](crate::Fallback)
/// within it named. Kept without its name until an outcome needs it: a request costs no copy.
#[derive(Debug, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) enum AnsweredBy {
    Own,
    Named(String),
}

/// How the turns ended.
pub(crate) enum Ended {
    /// With an answer: [`Stop::Answered`], or [`Stop::Depth`] for a run offered no tool.
    Answered(Completion, Stop),
    Limit(Stop),
    /// With a question to the caller, answered in a later round of the tool call: the error
    /// the handler returns for that.
    Paused(neva::error::Error),
}

impl<'a, M, T> Orchestration<'a, M, T>
where
    M: CompletionModel + ?Sized,
    T: Toolbox + Sync + ?Sized,
{
    /// A run of `model` over `tools` within the default [`Limits`].
    pub fn new(model: &'a M, tools: &'a T) -> Self {
        Self {
            model,
            tools,
            system: None,
            limits: Limits::new(),
            progress: None,
            name: None,
            at_depth_bound: None,
            stream: None,
            first_token: OnceLock::new(),
            approvals: Approvals::none(),
            approver: None,
            keeper: None,
            drain: None,
            #[cfg(not(feature = "legacy-spec"))]
            task: None,
        }
    }

    /// Asks `approver` before each call `approvals` names; see [`Approvals`] for what happens
    /// with each answer.
    ///
    /// An approver that answers later ([`Asked::Later`]) pauses the run: without an
    /// [`Orchestrator`](crate::Orchestrator) to keep it between rounds, the run then ends with
    /// [`RunError::Paused`].
    ///
    /// # Examples
    /// ```
    /// use ladoga::testing::{Reply, ScriptedModel};
    /// use ladoga::{Approvals, Decision, Orchestration, Question, ToolPattern};
    /// use serde_json::json;
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let tools = svir::Tools::new().add_tool(svir::Tool::new("wipe", "Wipes the board"), |_: serde_json::Value| async {
    ///     "wiped"
    /// });
    /// let model = ScriptedModel::new([Reply::call("wipe", json!({})), Reply::text("I left it.")]);
    /// // A person who declines every wipe.
    /// let person = |question: &Question| {
    ///     assert_eq!(question.tool, "wipe");
    ///     Decision::Declined
    /// };
    ///
    /// let outcome = Orchestration::new(&model, &tools)
    ///     .approvals(Approvals::tools([ToolPattern::new("wipe")?]), &person)
    ///     .run("Wipe the board")
    ///     .await?;
    /// assert_eq!(outcome.text, "I left it.");
    /// assert_eq!(outcome.approvals[0].decision, Decision::Declined);
    /// # Ok(())
    /// # }
    /// ```
    pub fn approvals(mut self, approvals: Approvals, approver: &'a dyn Approver) -> Self {
        self.approvals = approvals;
        self.approver = Some(approver);
        self
    }

    /// Asks `approver` before each call `approvals` names, when there is a `keeper` to keep
    /// the run while its caller answers, and to give back a paused one.
    pub(crate) fn asking(
        self,
        keeper: Option<&'a Keeper>,
        approvals: Approvals,
        approver: &'a dyn Approver,
    ) -> Self {
        match keeper {
            Some(keeper) => Self {
                keeper: Some(keeper),
                ..self.approvals(approvals, approver)
            },
            None => self,
        }
    }

    /// Stops the run when `drain`'s grace period ends ([`Drain::stop_runs`](crate::Drain::stop_runs)):
    /// its model request and calls in flight are dropped, and the run fails with
    /// [`RunError::Stopped`], naming the calls that had run. An
    /// [`Orchestrator`](crate::Orchestrator) finds the server's `Drain` in neva's DI.
    pub fn drain(mut self, drain: crate::Drain) -> Self {
        self.drain = Some(drain);
        self
    }

    /// The system prompt, used unless the brief brings its own.
    pub fn system(mut self, prompt: impl Into<String>) -> Self {
        self.system = Some(prompt.into());
        self
    }

    /// The bounds of the run and the policy at them.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Reports progress to `token`, the one the MCP caller's request carries, if any: a
    /// `notifications/progress` per turn and per tool call, out of the turn bound. Whether or
    /// not there is a token, each step is also an `info` event a person can read
    /// (`turn 2/8: add_task, list_tasks`), which neva sends as a log notification to a caller
    /// that asked for them.
    pub fn progress(mut self, token: Option<ProgressToken>) -> Self {
        self.progress = token;
        self
    }

    /// Tells `task`, the MCP task this run is, each step of the run as its progress.
    #[cfg(not(feature = "legacy-spec"))]
    pub(crate) fn telling(mut self, task: Option<Arc<crate::task_progress::TaskLine>>) -> Self {
        self.task = task;
        self
    }

    /// How the run reports its progress.
    fn reporting(&self) -> Progress {
        let progress = Progress::new(self.progress.clone(), self.limits.turns.get());
        #[cfg(not(feature = "legacy-spec"))]
        let progress = progress.telling(self.task.clone());
        progress
    }

    /// Streams the model's text to the caller while the model writes it: a log line
    /// (`notifications/message`, logger [`STREAM_LOGGER`](crate::STREAM_LOGGER), level `info`)
    /// at most every `interval` ([`DEFAULT_STREAM_INTERVAL`](crate::DEFAULT_STREAM_INTERVAL) is
    /// 250 ms), with the text written since the last one, and one with the rest when the answer
    /// is whole. Text the model writes beside its tool calls streams too. The outcome is the
    /// same as without it.
    ///
    /// A run stopped in the middle of an answer (its deadline, or the caller cancelling) drops
    /// the answer's stream: nothing more of it is read, and no call of a half-written answer
    /// runs, since calls run only from a whole answer.
    ///
    /// An `interval` under 100 ms counts as 100 ms: never a line per token.
    pub fn stream(mut self, interval: Duration) -> Self {
        self.stream = Some(interval.max(Duration::from_millis(100)));
        self
    }

    /// The agent's name its `invoke_agent` span carries as `gen_ai.agent.name`; an
    /// `#[orchestrator]` names it after its tool.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The agent's name, if it has one.
    pub(crate) fn agent_name(&self) -> Option<&str> {
        self.name.as_deref()
    }

    /// Marks the run as `nesting` in-process calls deep, where its depth bound refuses every
    /// call: the model is offered no tool, told why, and asked once for its answer, which ends
    /// the run as [`Stop::Depth`].
    pub(crate) fn at_depth_bound(mut self, nesting: usize) -> Self {
        self.at_depth_bound = Some(nesting);
        self
    }

    /// Runs the loop from `brief` until the model answers or a bound is reached.
    ///
    /// The run is a `tracing` span named `invoke_agent`, each model request a `chat` span and
    /// each tool call an `execute_tool` span, with the OpenTelemetry GenAI attributes
    /// (`gen_ai.request.model`, `gen_ai.usage.input_tokens`, `gen_ai.tool.name`, …). The run's
    /// span ends with `ladoga.stop` (see [`Stop::name`]), or `cancelled` when the run is dropped
    /// before it ends.
    pub async fn run(self, brief: impl IntoBrief) -> Result<Outcome, RunError> {
        let usage = SharedUsage::new();
        let span = telemetry::run(self.model.name(), self.name.as_deref());
        let watch = telemetry::Watch::new(span.clone(), Arc::clone(&usage));
        let outcome = self.run_loop(brief, usage).instrument(span).await;
        watch.ended(outcome.as_ref());
        outcome
    }

    async fn run_loop(
        self,
        brief: impl IntoBrief,
        usage: Arc<SharedUsage>,
    ) -> Result<Outcome, RunError> {
        let (ended, run) = self.drive(brief, usage).await?;
        self.conclude(ended, run).await
    }

    /// Runs the turns from `brief`, within the time bound, until an answer or a bound, counting
    /// tokens in `usage`.
    pub(crate) async fn drive(
        &self,
        brief: impl IntoBrief,
        usage: Arc<SharedUsage>,
    ) -> Result<(Ended, Run), RunError> {
        let mut run = match self.keeper.and_then(Keeper::take_resumed) {
            Some(paused) => self.resume(paused, usage),
            None => self.start(brief, usage)?,
        };
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
            match &self.drain {
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
            tracing::warn!(target: "ladoga", run = %run.id, ran = ?ran::named(&run.ran), "the server stopped the run as it shut down");
            return Err(RunError::Stopped {
                ran: ran::named(&run.ran),
            });
        };
        let ended = ended?;
        if let Ended::Paused(error) = ended {
            if let Some(keeper) = self.keeper
                && !run.kept
            {
                keeper.keep(&self.pause(&run)).await?;
            }
            return Err(RunError::Paused(error));
        }
        Ok((ended, run))
    }

    /// A new run from `brief`.
    fn start(&self, brief: impl IntoBrief, usage: Arc<SharedUsage>) -> Result<Run, RunError> {
        let request = self.opening(brief)?;
        Ok(Run {
            id: self.run_id(),
            opened: request.messages.len(),
            request,
            turns: 0,
            usage,
            repeats: Repeats::default(),
            progress: self.reporting(),
            pending: None,
            approvals: Vec::new(),
            stuck_on: None,
            answered_by: None,
            deadline: self
                .limits
                .timeout
                .map(|limit| tokio::time::Instant::now() + limit),
            ran: Vec::new(),
            kept: false,
        })
    }

    /// The id approval questions are bound to: the keeper's, else a new one for a run that
    /// asks, else none.
    fn run_id(&self) -> String {
        match self.keeper {
            Some(keeper) => keeper.id().to_owned(),
            None if self.approvals.is_none() => String::new(),
            None => crate::paused::new_id(),
        }
    }

    /// The run `paused` left, going on now: its time bound less the time it had used.
    fn resume(&self, paused: Paused, usage: Arc<SharedUsage>) -> Run {
        let (input, output) = paused.usage;
        usage.add(Some(svir::Usage::new(input, output)));
        let spent = paused.spent.unwrap_or_default();
        Run {
            id: self.run_id(),
            opened: paused.opened,
            request: paused.request,
            turns: paused.turns,
            usage,
            repeats: paused.repeats,
            progress: self.reporting(),
            pending: paused.pending,
            approvals: paused.approvals,
            stuck_on: None,
            answered_by: paused.answered_by,
            deadline: self
                .limits
                .timeout
                .map(|limit| tokio::time::Instant::now() + limit.saturating_sub(spent)),
            ran: paused.ran,
            kept: false,
        }
    }

    /// What `run`, stopped at a question, keeps for the next round.
    fn pause(&self, run: &Run) -> Paused {
        let usage = run.usage.get();
        let spent = self
            .limits
            .timeout
            .zip(run.deadline)
            .map(|(limit, deadline)| {
                limit
                    .saturating_sub(deadline.saturating_duration_since(tokio::time::Instant::now()))
            });
        Paused {
            request: run.request.clone(),
            opened: run.opened,
            turns: run.turns,
            usage: (usage.input, usage.output),
            repeats: run.repeats.clone(),
            pending: run.pending.clone(),
            approvals: run.approvals.clone(),
            spent,
            answered_by: run.answered_by.clone(),
            ran: run.ran.clone(),
        }
    }

    /// The outcome of the turns: the answer, or the policy at the bound.
    pub(crate) async fn conclude(&self, ended: Ended, run: Run) -> Result<Outcome, RunError> {
        match ended {
            Ended::Answered(done, stop) => {
                let outcome =
                    self.finished(done, run.answered_by, run.turns, run.usage.get(), stop);
                Ok(outcome.approved(run.approvals))
            }
            Ended::Limit(stop) => self.at_limit(stop, run).await,
            Ended::Paused(error) => Err(RunError::Paused(error)),
        }
    }

    /// The turns, until an answer or a bound.
    async fn turns(&self, run: &mut Run) -> Result<Ended, RunError> {
        if self.at_depth_bound.is_some() {
            let (done, by) = self.ask(&run.request, &run.usage).await?;
            run.answered_by = Some(by);
            run.turns = 1;
            run.progress.answered(run.turns).await;
            return Ok(Ended::Answered(done, Stop::Depth));
        }
        let bound = self.limits.turns.get();
        // A resumed run first runs the calls of the answer it paused at, its last turn's too.
        while run.turns < bound || run.pending.is_some() {
            // A new answer's questions are asked for the first time: none can have an answer.
            let asked_first = run.pending.is_none();
            let done = match run.pending.take() {
                Some(done) => done,
                None => {
                    if let Some(budget) = self.limits.budget
                        && run.usage.get().total() >= budget.get()
                    {
                        return Ok(Ended::Limit(Stop::Budget));
                    }
                    let (done, by) = self.ask(&run.request, &run.usage).await?;
                    run.answered_by = Some(by);
                    run.turns += 1;
                    if done.calls.is_empty() {
                        run.progress.answered(run.turns).await;
                        return Ok(Ended::Answered(done, Stop::Answered));
                    }
                    run.progress.turn(run.turns, &done.calls);
                    done
                }
            };
            if asked_first {
                self.keep_before_asking(&done, run).await?;
            }
            let denied = match self.approve(&done, run).await {
                Ok(denied) => {
                    if std::mem::take(&mut run.kept)
                        && let Some(keeper) = self.keeper
                    {
                        keeper.discard().await;
                    }
                    denied
                }
                Err(later) => {
                    run.pending = Some(done);
                    return Ok(Ended::Paused(later));
                }
            };
            let Some(results) = self.call(&done.calls, denied, run).await else {
                return Ok(Ended::Limit(Stop::Stuck));
            };
            log_results(&done.calls, &results);
            // No await from here on: a deadline never finds the request taken.
            let request = std::mem::replace(&mut run.request, Request::new(""));
            run.request = request.assistant(done).tool_results(results);
        }
        Ok(Ended::Limit(Stop::TurnLimit))
    }

    /// Keeps the run, paused at `done`, before its questions are put to a caller who answers in
    /// a later round: a state that cannot be kept ends the run ([`RunError::NotKept`]), and the
    /// caller is never asked a question whose answer could not be used.
    async fn keep_before_asking(&self, done: &Completion, run: &mut Run) -> Result<(), RunError> {
        let (Some(keeper), Some(approver)) = (self.keeper, self.approver) else {
            return Ok(());
        };
        let asks = done
            .calls
            .iter()
            .any(|call| self.approvals.needs(&call.name));
        if !asks || !approver.answers_later() {
            return Ok(());
        }
        run.pending = Some(done.clone());
        let kept = keeper.keep(&self.pause(run)).await;
        run.pending = None;
        kept?;
        run.kept = true;
        Ok(())
    }

    /// Asks about each call of `done` that needs approval, all in one round; the refusals of
    /// the calls not approved, or the error that pauses the run until the caller answers.
    async fn approve(
        &self,
        done: &Completion,
        run: &mut Run,
    ) -> Result<Vec<ToolResult>, neva::error::Error> {
        if self.approvals.is_none() {
            return Ok(Vec::new());
        }
        let mut later = None;
        let mut decided = Vec::new();
        for call in done
            .calls
            .iter()
            .filter(|call| self.approvals.needs(&call.name))
        {
            let question = Question::new(&run.id, run.turns, call, &done.text);
            let asked = match self.approver {
                Some(approver) => approver.ask(&question).await,
                None => Asked::Answered(Decision::Unavailable),
            };
            match asked {
                Asked::Answered(decision) => decided.push((call, decision)),
                // Every question of the turn is asked before the run pauses: one round for all.
                Asked::Later(error) => later = later.or(Some(error)),
            }
        }
        if let Some(later) = later {
            return Err(later);
        }
        let mut denied = Vec::new();
        for (call, decision) in decided {
            tracing::info!(target: "ladoga", tool = %call.name, decision = decision.name(), "approval");
            crate::metrics::approval(decision.name());
            run.approvals.push(Approval::new(call, decision));
            denied.extend(decision.refusal(call));
        }
        Ok(denied)
    }

    /// Runs a turn's calls, but for one `denied` a result, and a repeated one, which gets a
    /// refusal instead; `None` when the model repeats a call again after it was told.
    async fn call(
        &self,
        calls: &[ToolCall],
        denied: Vec<ToolResult>,
        run: &mut Run,
    ) -> Option<Vec<ToolResult>> {
        let mut refused = denied;
        if let Some(limit) = self.limits.repeat {
            let mut told = false;
            for call in calls {
                if refused.iter().any(|refusal| refusal.call_id == call.id) {
                    continue;
                }
                match run.repeats.count(call, limit.get()) {
                    Repeat::Fresh => {}
                    Repeat::Refused { times } => {
                        refused.push(repeats::refusal(call, times));
                        told = true;
                    }
                    Repeat::Stuck => {
                        tracing::info!(target: "ladoga", tool = %call.name, "the model is stuck");
                        run.stuck_on = Some(call.name.clone());
                        return None;
                    }
                }
            }
            if told {
                run.repeats.tell();
            }
        }
        // Each call on its own, all at once, so each reports when it is answered.
        let (progress, turn) = (&run.progress, run.turns);
        let offered = &run.request.tools;
        let to_run = calls
            .iter()
            .filter(|call| refused.iter().all(|refusal| refusal.call_id != call.id));
        run.ran.extend(to_run.clone().map(|call| Ran {
            tool: call.name.clone(),
            turn,
        }));
        let ran = join_all(to_run.map(|call| {
            let span = telemetry::tool(call);
            async move {
                let result = self.tools.call(call).await;
                crate::metrics::tool_called(offered, &call.name, result.is_error);
                if result.is_error {
                    telemetry::tool_failed(&Span::current());
                }
                progress.call_answered(turn, calls.len(), call, result.is_error);
                result
            }
            .instrument(span)
        }));
        let mut ran = run.usage.scope(ran).await.into_iter();
        let results = calls
            .iter()
            .map(|call| {
                let mut result = match refused.iter().find(|refusal| refusal.call_id == call.id) {
                    Some(refusal) => refusal.clone(),
                    None => ran
                        .next()
                        .unwrap_or_else(|| ToolResult::error(&call.id, "the call got no result")),
                };
                result_limit::bound(&mut result, self.limits.max_result);
                result
            })
            .collect();
        Some(results)
    }

    /// The policy at a bound.
    async fn at_limit(&self, stop: Stop, run: Run) -> Result<Outcome, RunError> {
        tracing::info!(target: "ladoga", ?stop, policy = %self.limits.on_limit, "the run reached a bound");
        match self.limits.on_limit {
            OnLimit::Error => Err(self.limit_error(stop, &run)),
            OnLimit::Answer => {
                // The tools stay described, so the history of calls still makes sense, but the
                // model may not call one; a call it makes anyway is never run. At any bound but
                // the deadline itself, the request is still within the deadline.
                let deadline = run.deadline.filter(|_| stop != Stop::Deadline);
                let request = run.request.tool_choice(ToolChoice::None);
                let (done, by) = self.ask_by(deadline, &request, &run.usage).await?;
                let outcome = self.finished(done, Some(by), run.turns + 1, run.usage.get(), stop);
                Ok(outcome.approved(run.approvals))
            }
            OnLimit::Partial => Ok(Outcome {
                text: partial::text(stop, &run.request.messages, run.opened),
                turns: run.turns,
                usage: run.usage.get(),
                stop,
                finish: svir::FinishReason::ToolCalls,
                partial: true,
                model: run.answered_by.map(|by| self.named(by)),
                first_token: self.first_token.get().copied(),
                approvals: run.approvals,
            }),
        }
    }

    fn limit_error(&self, stop: Stop, run: &Run) -> RunError {
        match stop {
            Stop::Deadline => RunError::Deadline {
                timeout: self.limits.timeout.unwrap_or_default(),
            },
            Stop::Budget => RunError::Budget {
                budget: self.limits.budget.map_or(0, |budget| budget.get()),
                used: run.usage.get().total(),
            },
            Stop::Stuck => RunError::Stuck {
                tool: run.stuck_on.clone().unwrap_or_default(),
            },
            Stop::Answered | Stop::Depth | Stop::TurnLimit => {
                RunError::TurnLimit { turns: run.turns }
            }
        }
    }

    /// The first request: the brief, under the model's name, with the system prompt and tools.
    fn opening(&self, brief: impl IntoBrief) -> Result<Request, RunError> {
        let mut request = brief.into_brief().map_err(RunError::Brief)?;
        self.model.name().clone_into(&mut request.model);
        if request.system.is_none() {
            request.system.clone_from(&self.system);
        }
        let Some(nesting) = self.at_depth_bound else {
            // Normalized for the model's provider, and checked, before any request.
            let offered = (self.model.schema_profile())
                .tools(self.tools.tools())
                .map_err(|error| RunError::Toolbox(error.to_string()))?;
            request.tools.extend(offered);
            return Ok(request);
        };
        tracing::info!(target: "ladoga", nesting, "at the depth bound: no tool is offered");
        let calls = if nesting == 1 { "call" } else { "calls" };
        let note = format!(
            "No tools are available: this task reached you {nesting} tool {calls} deep, as deep \
             as tool calls may nest here. Answer with what you have."
        );
        request.system = Some(match request.system.take() {
            Some(system) => format!("{system}\n\n{note}"),
            None => note,
        });
        Ok(request)
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
                    timeout: self.limits.timeout.unwrap_or_default(),
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
        let span = telemetry::chat(self.model.name());
        let sent = std::time::Instant::now();
        let listener = Listener::new(self.stream);
        let heard = |event: &svir::Event| listener.hear(event);
        let answer = fallback::answered_by(self.model.complete_streaming(request, &heard));
        let (done, by) = answer.instrument(span.clone()).await;
        listener.finish();
        crate::metrics::model_request(self.model.name(), sent, listener.first_piece(), &done);
        if let Some(first) = listener.first_piece() {
            telemetry::first_piece(&span, first);
            let _ = self.first_token.set(first);
        }
        let done = done.map_err(|error| {
            tracing::warn!(target: "ladoga", parent: &span, ?error, "the model request failed");
            RunError::Model(error)
        })?;
        let by = by.map_or(AnsweredBy::Own, AnsweredBy::Named);
        let name = match &by {
            AnsweredBy::Own => self.model.name(),
            AnsweredBy::Named(name) => name,
        };
        telemetry::answered(&span, &done, name);
        usage.add(done.usage);
        Ok((done, by))
    }

    /// The name of the model that answered.
    fn named(&self, by: AnsweredBy) -> String {
        match by {
            AnsweredBy::Own => self.model.name().to_owned(),
            AnsweredBy::Named(name) => name,
        }
    }

    /// The outcome of a run that ended with `done`, answered by `model`.
    pub(crate) fn finished(
        &self,
        done: Completion,
        model: Option<AnsweredBy>,
        turns: usize,
        usage: TokenUsage,
        stop: Stop,
    ) -> Outcome {
        tracing::debug!(target: "ladoga", turns, ?stop, "the model answered");
        tracing::debug!(target: "ladoga", answer = %done.text, "the answer");
        Outcome {
            text: done.text,
            turns,
            usage,
            stop,
            finish: done.finish,
            partial: false,
            model: model.map(|by| self.named(by)),
            first_token: self.first_token.get().copied(),
            approvals: Vec::new(),
        }
    }
}

/// Each call with its arguments and result, at `debug`: they may hold the user's data.
fn log_results(calls: &[ToolCall], results: &[ToolResult]) {
    for (call, result) in calls.iter().zip(results) {
        tracing::debug!(
            target: "ladoga",
            tool = %call.name,
            arguments = %call.arguments,
            error = result.is_error,
            result = %result.content,
            "tool call answered"
        );
    }
}

#[cfg(test)]
mod tests {
    use std::num::NonZeroUsize;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use serde_json::json;
    use svir::{Tool, Tools};

    use super::*;
    use crate::testing::{Reply, ScriptedModel};

    /// `slow` sleeps then answers, `fast` answers at once; both count their calls.
    fn tools(calls: Arc<AtomicUsize>) -> Tools {
        let slow_calls = Arc::clone(&calls);
        Tools::new()
            .add_tool(
                Tool::new("slow", "Answers late"),
                move |_: serde_json::Value| {
                    let calls = Arc::clone(&slow_calls);
                    async move {
                        tokio::time::sleep(Duration::from_millis(30)).await;
                        calls.fetch_add(1, Ordering::SeqCst);
                        "slow answer"
                    }
                },
            )
            .add_tool(
                Tool::new("fast", "Answers at once"),
                move |_: serde_json::Value| {
                    let calls = Arc::clone(&calls);
                    async move {
                        calls.fetch_add(1, Ordering::SeqCst);
                        "fast answer"
                    }
                },
            )
    }

    #[tokio::test]
    async fn results_follow_the_assistant_turn_in_the_order_of_the_calls() {
        let model = ScriptedModel::new([
            Reply::calls([("slow", json!({})), ("fast", json!({}))]),
            Reply::text("done").with_usage(7, 3),
        ]);
        let calls = Arc::new(AtomicUsize::new(0));
        let tools = tools(Arc::clone(&calls));

        let outcome = Orchestration::new(&model, &tools).run("go").await.unwrap();
        assert_eq!(outcome.text, "done");
        assert_eq!(outcome.turns, 2);
        assert_eq!(outcome.stop, Stop::Answered);
        assert_eq!(
            outcome.usage,
            TokenUsage {
                input: 17,
                output: 8
            }
        );
        assert_eq!(calls.load(Ordering::SeqCst), 2);

        let second = &model.requests()[1];
        let roles: Vec<_> = second
            .messages()
            .iter()
            .map(|m| m["role"].clone())
            .collect();
        assert_eq!(
            roles,
            [
                json!("user"),
                json!("assistant"),
                json!("tool"),
                json!("tool")
            ]
        );
        assert_eq!(
            second.tool_results(),
            [
                ("call_1_0".to_owned(), "slow answer".to_owned()),
                ("call_1_1".to_owned(), "fast answer".to_owned())
            ]
        );
    }

    #[tokio::test]
    async fn the_model_name_and_system_prompt_are_set_and_tools_offered() {
        let model = ScriptedModel::new([Reply::text("hi")]);
        let tools = tools(Arc::default());
        Orchestration::new(&model, &tools)
            .system("Be kind.")
            .run("hello")
            .await
            .unwrap();
        let first = &model.requests()[0];
        assert_eq!(first.model(), "scripted");
        assert_eq!(first.system(), Some("Be kind."));
        assert_eq!(first.tool_names(), ["slow", "fast"]);
    }

    #[tokio::test]
    async fn the_error_policy_fails_after_exactly_the_bound() {
        let model = ScriptedModel::from_fn(|_| Reply::call("fast", json!({})));
        let tools = tools(Arc::default());
        let error = Orchestration::new(&model, &tools)
            .limits(Limits::new().turns(NonZeroUsize::new(2).unwrap()))
            .run("loop")
            .await
            .unwrap_err();
        assert!(matches!(error, RunError::TurnLimit { turns: 2 }), "{error}");
        assert_eq!(model.requests().len(), 2);
    }

    #[tokio::test]
    async fn the_answer_policy_never_runs_a_call_made_against_it() {
        let model = ScriptedModel::from_fn(|_| Reply::call("fast", json!({})));
        let calls = Arc::new(AtomicUsize::new(0));
        let tools = tools(Arc::clone(&calls));
        let outcome = Orchestration::new(&model, &tools)
            .limits(
                Limits::new()
                    .turns(NonZeroUsize::new(1).unwrap())
                    .on_limit(OnLimit::Answer),
            )
            .run("loop")
            .await
            .unwrap();
        assert_eq!(outcome.stop, Stop::TurnLimit);
        assert_eq!(outcome.turns, 2);
        assert_eq!(model.requests().len(), 2);
        assert_eq!(
            calls.load(Ordering::SeqCst),
            1,
            "the last answer's call did not run"
        );
    }

    #[tokio::test]
    async fn a_model_failure_keeps_the_servers_message_out_of_the_error_text() {
        let model = ScriptedModel::new([Reply::failure(503, "node gpu-7 of account acme is down")]);
        let tools = tools(Arc::default());
        let error = Orchestration::new(&model, &tools)
            .run("go")
            .await
            .unwrap_err();
        let told = error.to_string();
        assert!(told.starts_with("the model could not answer"), "{told}");
        assert!(!told.contains("acme"), "{told}");
        let RunError::Model(source) = error else {
            panic!("{told}")
        };
        assert_eq!(
            source.server_message(),
            Some("node gpu-7 of account acme is down")
        );
    }
}
