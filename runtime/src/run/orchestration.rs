//! The loop's builder: what a run is over, its settings, and its entry point.

use std::sync::{Arc, OnceLock};
use std::time::Duration;

use neva::types::ProgressToken;
use svir::{Completion, Toolbox};
use tracing::{Instrument, Span};

use crate::approval::{Approvals, Approver};
use crate::brief::IntoBrief;
use crate::error::RunError;
use crate::limits::Limits;
use crate::model::CompletionModel;
use crate::observe::{TaskLine, spans};
use crate::outcome::{Outcome, Stop};
use crate::run::{Drain, Gate, Settings};
use crate::store::Keeper;
use crate::usage::SharedUsage;

/// One run of the loop over any [`Toolbox`] and any [`CompletionModel`], without the macro.
///
/// Each turn sends the conversation with the tools, runs every call of the answer at once
/// through [`Toolbox::call_all`], then sends the assistant turn followed by one result per call,
/// in the order the calls were made. The loop ends when an answer has no calls (an answer cut by
/// the output limit included), or at a bound of its [`Limits`] (turns, time, tokens, repeated
/// calls), where [`OnLimit`](crate::OnLimit) decides.
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
    pub(super) tools: &'a T,
    pub(crate) settings: Settings,
    /// Nested this deep, at the depth bound: no call could be made, so no tool is offered.
    pub(super) at_depth_bound: Option<usize>,
    /// How long the run's first model request took to its first piece.
    pub(super) first_token: OnceLock<Duration>,
    /// Which calls need a person's approval, and who is asked.
    pub(super) gate: Gate<'a>,
    /// Keeps the run while its caller answers, and gives back a paused one.
    pub(super) keeper: Option<&'a Keeper>,
    /// The server's shutdown: at the end of its grace period the run stops.
    pub(super) drain: Option<Drain>,
    /// The MCP task this run is, told how it goes.
    pub(super) task: Option<Arc<TaskLine>>,
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
            settings: Settings::default(),
            at_depth_bound: None,
            first_token: OnceLock::new(),
            gate: Gate::none(),
            keeper: None,
            drain: None,
            task: None,
        }
    }

    /// These settings, as a whole: what an [`Orchestrator`](crate::Orchestrator) holds.
    pub(crate) fn settings(mut self, settings: Settings) -> Self {
        self.settings = settings;
        self
    }

    /// with each answer.
    ///
    /// An approver that answers later ([`Asked::Later`](crate::approval::Asked::Later)) pauses the run: without an
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
        self.gate = Gate::new(approvals, approver);
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

    /// Stops the run when `drain`'s grace period ends ([`Drain::stop_runs`]): its model request
    /// and calls in flight are dropped, and the run fails with [`RunError::Stopped`], naming the
    /// calls that had run. An [`Orchestrator`](crate::Orchestrator) finds the server's `Drain`
    /// in neva's DI.
    pub fn drain(mut self, drain: Drain) -> Self {
        self.drain = Some(drain);
        self
    }

    /// The system prompt, used unless the brief brings its own.
    pub fn system(mut self, prompt: impl Into<String>) -> Self {
        self.settings.system = Some(prompt.into());
        self
    }

    /// The bounds of the run and the policy at them.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.settings.limits = limits;
        self
    }

    /// Reports progress to `token`, the one the MCP caller's request carries, if any: a
    /// `notifications/progress` per turn and per tool call, out of the turn bound. Whether or
    /// not there is a token, each step is also an `info` event a person can read
    /// (`turn 2/8: add_task, list_tasks`), which neva sends as a log notification to a caller
    /// that asked for them.
    pub fn progress(mut self, token: Option<ProgressToken>) -> Self {
        self.settings.progress = token;
        self
    }

    /// Tells `task`, the MCP task this run is, each step of the run as its progress.
    pub(crate) fn telling(mut self, task: Option<Arc<TaskLine>>) -> Self {
        self.task = task;
        self
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
        self.settings.stream = Some(interval.max(Duration::from_millis(100)));
        self
    }

    /// The agent's name its `invoke_agent` span carries as `gen_ai.agent.name`; an
    /// `#[orchestrator]` names it after its tool.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.settings.name = Some(name.into());
        self
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
        let (span, watch, usage) = self.watch();
        let outcome = self.run_loop(brief, usage).instrument(span).await;
        watch.ended(outcome.as_ref());
        outcome
    }

    async fn run_loop(
        &self,
        brief: impl IntoBrief,
        usage: Arc<SharedUsage>,
    ) -> Result<Outcome, RunError> {
        let (ended, run) = self.drive(brief, usage).await?;
        self.conclude(ended, run).await
    }

    /// The run's `invoke_agent` span, the watch that records how it ends, and its usage counter.
    pub(super) fn watch(&self) -> (Span, spans::Watch, Arc<SharedUsage>) {
        let usage = SharedUsage::new();
        let span = spans::run(self.model.name(), self.settings.name.as_deref());
        let watch = spans::Watch::new(span.clone(), Arc::clone(&usage));
        (span, watch, usage)
    }
}
