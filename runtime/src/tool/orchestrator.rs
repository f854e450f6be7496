//! An orchestrating tool's settings, and the run inside a neva tool handler.

use std::num::NonZeroUsize;
use std::sync::Arc;
use std::time::Duration;

use neva::Context;
use neva::error::{Error, ErrorCode};
use neva::types::ProgressToken;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::approval::Approvals;
use crate::brief::IntoBrief;
use crate::cost::{Dollars, Quota};
use crate::error::RunError;
use crate::guard::Inherited;
use crate::limits::Limits;
use crate::model::CompletionModel;
use crate::outcome::Outcome;
use crate::run::Settings;
use crate::session::{DEFAULT_SESSION_TTL, DEFAULT_SESSION_WAIT, Session};
use crate::tool::Briefing;
use crate::toolbox::{DEFAULT_CALL_TIMEOUT, Source, ToolPattern, ToolSelection};
use crate::tree::Site;

/// How deep in-process tool calls nest unless told otherwise: an orchestrator, a sub-agent it
/// calls, and two more.
pub const DEFAULT_DEPTH: NonZeroUsize = NonZeroUsize::new(4).expect("4 is not zero");

/// What an `#[orchestrator]` expands to, usable by hand inside any neva tool handler: which of
/// the server's tools the model is offered, how deep calls nest, and how the loop is bounded.
///
/// # Examples
/// The handler `#[orchestrator(system = "…", turns = 8)]` stands for:
/// ```no_run
/// use ladoga::{Model, Orchestrator};
/// use neva::{di::Dc, prelude::*};
///
/// #[tool(descr = "Plans the week, keeping the board up to date")]
/// async fn plan_week(ctx: Context, model: Dc<Model>, focus: String) -> Result<String, Error> {
///     Orchestrator::new()
///         .system("You keep the user's task board with the tools you have.")
///         .limits(ladoga::Limits::new().turns(std::num::NonZeroUsize::new(8).unwrap()))
///         .answer(&ctx, &*model, format!("Plan my week around {focus}."))
///         .await
/// }
/// # fn main() {}
/// ```
#[derive(Debug, Clone)]
pub struct Orchestrator {
    /// What each run takes as it is: its system prompt, limits, name, progress and streaming.
    pub(super) settings: Settings,
    /// Which tools a run is offered, and how their calls go.
    pub(super) plan: ToolPlan,
    /// Who is asked what: the approvals, and whether the model may ask the caller's person.
    pub(super) asking: Asking,
    /// Which conversation a call goes on with, if the tool keeps them.
    pub(super) session: SessionPlan,
    /// The prompt and resources a run's brief opens with.
    pub(super) briefing: Briefing,
    /// The MCP task the run is, if its call is one.
    pub(super) task: Option<String>,
    /// Whether each call is a durable run, on a server with Restate.
    pub(super) durable: bool,
    /// What one caller may spend on the tool in a window.
    pub(super) quota: Option<Quota>,
}

/// Which tools a run is offered, and how their calls go.
#[derive(Debug, Clone)]
pub(super) struct ToolPlan {
    /// How deep in-process calls nest.
    pub(super) depth: NonZeroUsize,
    /// Whether the orchestrator is offered its own tool.
    pub(super) recurse: bool,
    pub(super) selection: ToolSelection,
    /// Other servers' toolboxes, beside the server's own tools.
    pub(super) with: Vec<Source>,
    pub(super) call_timeout: Duration,
}

/// Who a run asks what.
#[derive(Debug, Clone)]
pub(super) struct Asking {
    pub(super) approvals: Approvals,
    /// Whether the model may ask the caller's person (`ask_caller`).
    pub(super) ask: bool,
}

/// Which conversation a call goes on with, and how long one is kept and waited for.
#[derive(Debug, Clone)]
pub(super) struct SessionPlan {
    /// The kind of session, if the tool keeps them.
    pub(super) kind: Option<Session>,
    /// The session id the call passed, for [`Session::ById`].
    pub(super) continuing: Option<String>,
    pub(super) ttl: Duration,
    pub(super) wait: Duration,
    /// Whether the call steers the run in flight on its session rather than waiting for it.
    pub(super) steer: bool,
}

impl Default for Orchestrator {
    fn default() -> Self {
        Self::new()
    }
}

impl Orchestrator {
    /// Eight turns, four calls deep, every tool but the calling one, failing at the bound.
    pub fn new() -> Self {
        Self {
            settings: Settings::default(),
            plan: ToolPlan {
                depth: DEFAULT_DEPTH,
                recurse: false,
                selection: ToolSelection::all(),
                with: Vec::new(),
                call_timeout: DEFAULT_CALL_TIMEOUT,
            },
            asking: Asking {
                approvals: Approvals::none(),
                ask: false,
            },
            session: SessionPlan {
                kind: None,
                continuing: None,
                ttl: DEFAULT_SESSION_TTL,
                wait: DEFAULT_SESSION_WAIT,
                steer: false,
            },
            briefing: Briefing::default(),
            task: None,
            durable: false,
            quota: None,
        }
    }

    /// The agent's name in spans, see [`Orchestration::name`](crate::Orchestration::name); `#[orchestrator]` gives its
    /// tool's name.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.settings.name = Some(name.into());
        self
    }

    /// The system prompt, used unless the brief brings its own.
    pub fn system(mut self, prompt: impl Into<String>) -> Self {
        self.settings.system = Some(prompt.into());
        self
    }

    /// In-process tool calls nest at most `depth` deep (neva's `with_max_depth`); a call past
    /// it is not made, and the model is told why. A run nested so deep that none of its calls
    /// could be made is offered no tool: it is told why and answers in one request, and stops
    /// as [`Stop::Depth`](crate::Stop::Depth).
    pub fn depth(mut self, depth: NonZeroUsize) -> Self {
        self.plan.depth = depth;
        self
    }

    /// Runs each call as a durable run (`restate` feature): on a server set up with
    /// [`durable::Restate::serve`](crate::durable::Restate::serve), the call is a Restate
    /// workflow invocation whose every model request and turn of tool calls is a journaled
    /// step, so a run cut by a crash goes on on a live replica; see [`crate::durable`]. On a
    /// server without Restate the run is a plain one.
    #[cfg(feature = "restate")]
    #[cfg_attr(docsrs, doc(cfg(feature = "restate")))]
    pub fn durable(mut self, durable: bool) -> Self {
        self.durable = durable;
        self
    }

    /// Keeps the calling tool in its own toolbox, for a tool that means to recurse.
    pub fn recurse(mut self, recurse: bool) -> Self {
        self.plan.recurse = recurse;
        self
    }

    /// Offers the model one more tool, `ask_caller(question, choices?)`, that asks the
    /// caller's person through elicitation: a form with one field, `answer`, a text field, or a
    /// choice among `choices` when the model gives them (an `enum` in the form's schema). The
    /// answer is the call's result; "declined" or "cancelled" when the person declined or
    /// dismissed the form. Each question and its reply is in the report
    /// ([`Outcome::inquiries`](crate::Outcome::inquiries)), and a resumed run never asks one
    /// twice.
    ///
    /// It rides what [`Self::approvals`] built: under MCP 2026-07-28 the question ends the
    /// call's round with `input_required` and the run waits in the server's
    /// [`Runs`](crate::store::Runs); a call that runs as an MCP task asks through its task
    /// (`tasks/update`); under `legacy-spec` it is a request to the client. A caller whose
    /// request declares no elicitation, or none in form mode, is not offered the tool. (Under
    /// `legacy-spec` neva keeps no client capabilities, so the tool is offered, and a client
    /// that cannot answer gets the model a result saying the person cannot be asked.)
    ///
    /// # Examples
    /// ```no_run
    /// use ladoga::{Model, Orchestrator};
    /// use neva::{di::Dc, prelude::*};
    ///
    /// #[tool(descr = "Plans the week, asking its person what it must not guess")]
    /// async fn plan_week(ctx: Context, model: Dc<Model>, focus: String) -> Result<String, Error> {
    ///     Orchestrator::new()
    ///         .ask(true)
    ///         .answer(&ctx, &*model, format!("Plan my week around {focus}."))
    ///         .await
    /// }
    /// # fn main() {}
    /// ```
    pub fn ask(mut self, ask: bool) -> Self {
        self.asking.ask = ask;
        self
    }

    /// The bounds of each run and the policy at them.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.settings.limits = limits;
        self
    }

    /// Streams the model's text to the caller as log lines, at most one every `interval`: see
    /// [`Orchestration::stream`](crate::Orchestration::stream).
    pub fn stream(mut self, interval: Duration) -> Self {
        self.settings.stream = Some(interval.max(Duration::from_millis(100)));
        self
    }

    /// Keeps each run's conversation within `tokens` (`context = 32000`), compacting it to half
    /// of that when a request would pass it: see [`Orchestration::context`](crate::Orchestration::context)
    /// and the [`context`](crate::context) module.
    ///
    /// # Examples
    /// ```no_run
    /// use std::num::NonZeroU64;
    ///
    /// use ladoga::{Model, Orchestrator};
    /// use neva::{di::Dc, prelude::*};
    ///
    /// #[tool(descr = "Researches a question over many pages")]
    /// async fn research(ctx: Context, model: Dc<Model>, question: String) -> Result<String, Error> {
    ///     Orchestrator::new()
    ///         .context(NonZeroU64::new(32_000).unwrap())
    ///         .answer(&ctx, &*model, question)
    ///         .await
    /// }
    /// # fn main() {}
    /// ```
    pub fn context(mut self, tokens: std::num::NonZeroU64) -> Self {
        self.settings.context = Some(tokens);
        self
    }

    /// The model that writes the summaries when a run's conversation is compacted
    /// ([`Self::context`]), instead of the run's own (`compact_model = Type` resolves it from
    /// neva's DI, like `model`): see
    /// [`Orchestration::compact_model`](crate::Orchestration::compact_model).
    pub fn compact_model<C: CompletionModel + 'static>(self, model: Arc<C>) -> Self {
        self.summarised_by(crate::model::CompactModel::new(model))
    }

    /// [`Self::compact_model`], erased.
    pub(crate) fn summarised_by(mut self, model: crate::model::CompactModel) -> Self {
        self.settings.compact_model = Some(model);
        self
    }

    /// Reports progress to the MCP caller's progress token, if its request carried one: see
    /// [`Orchestration::progress`](crate::Orchestration::progress).
    pub fn progress(mut self, token: Option<ProgressToken>) -> Self {
        self.settings.progress = token;
        self
    }

    /// What one caller (its token's issuer and subject; callers without a token together) may
    /// spend on this tool in a minute, an hour or a day, kept in the run store ([`Runs`](crate::Runs),
    /// shared by replicas on Redis). A call is refused before its model is asked once the caller
    /// has spent the quota, saying when it frees up; each request of a run is booked in the store
    /// before it is made, at its worst case, so that calls at once never spend more than the
    /// quota together, and its cost is booked when it is known.
    ///
    /// # Examples
    /// ```
    /// use ladoga::cost::Quota;
    ///
    /// let orchestrator = ladoga::Orchestrator::new().quota(Quota::parse("5 USD/day").unwrap());
    /// # let _ = orchestrator;
    /// ```
    pub fn quota(mut self, quota: Quota) -> Self {
        self.quota = Some(quota);
        self
    }

    /// Lowers each run's dollar budget to what the MCP caller let its call spend, when it said
    /// ([`cost::caller_budget`](crate::cost::caller_budget) reads it from the request's
    /// `_meta`; `#[orchestrator]` passes it): a caller can lower a tool's budget, never raise
    /// it, and gives one to a tool without its own.
    ///
    /// # Examples
    /// ```
    /// use ladoga::cost::Dollars;
    ///
    /// let orchestrator = ladoga::Orchestrator::new()
    ///     .limits(ladoga::Limits::new().budget_usd(0.50))
    ///     .caller_budget(Dollars::new(0.10));
    /// # let _ = orchestrator;
    /// ```
    pub fn caller_budget(mut self, budget: Option<Dollars>) -> Self {
        self.settings.caller_budget = budget;
        self
    }

    /// The id of the MCP task the run is, when its tool call runs as one (`#[orchestrator]`
    /// passes it). With a `ladoga::TaskProgress` registered, the task's `tasks/get` tells the
    /// run's progress as its `statusMessage`, and the run's question waits in the task (see
    /// [`Self::approvals`]). Nothing follows it under `legacy-spec`.
    pub fn task(mut self, id: Option<String>) -> Self {
        self.task = id;
        self
    }

    /// Opens the brief with the server's prompt `name` (`prompts/get`, through neva's
    /// `prompt_messages`): its messages come first, then the brief's, whose first user message
    /// continues the prompt's last one when that is the user's too.
    ///
    /// The prompt is given the values of `args` (anything neva's `IntoArgs` takes, such as
    /// `[("focus", "the release")]`) for the arguments it declares, each as a string (MCP's
    /// prompt arguments are strings: a value that is not one is its JSON) and the others left
    /// out. A prompt the server does not have, a required argument with no value, or a prompt
    /// that fails is a [`RunError::Brief`] naming the prompt, before any model request.
    ///
    /// # Examples
    /// ```no_run
    /// use ladoga::{Model, Orchestrator};
    /// use neva::{di::Dc, prelude::*};
    ///
    /// #[prompt(descr = "Reviews the board")]
    /// async fn review_board(focus: String) -> PromptMessage {
    ///     PromptMessage::user().with(format!("Review my board with {focus} in mind."))
    /// }
    ///
    /// #[resource(uri = "board://tasks", mime = "text/plain")]
    /// async fn tasks(uri: Uri) -> TextResourceContents {
    ///     TextResourceContents::new(uri, "1. [ ] Tag v1.0")
    /// }
    ///
    /// #[tool(descr = "Reviews the board")]
    /// async fn review(ctx: Context, model: Dc<Model>, focus: String) -> Result<String, Error> {
    ///     Orchestrator::new()
    ///         .prompt("review_board", [("focus", focus)])
    ///         .attach("board://tasks")
    ///         .answer(&ctx, &*model, "List the open tasks.")
    ///         .await
    /// }
    /// # fn main() {}
    /// ```
    pub fn prompt(mut self, name: impl Into<String>, args: impl neva::shared::IntoArgs) -> Self {
        self.briefing.prompt(name.into(), args);
        self
    }

    /// Attaches the server's resource at `uri` to the brief (`resources/read`, through neva's
    /// `resource_parts`: text as a file named by its URI, an image as an image), at the end of
    /// its last user message; each call adds one, in order. A resource that cannot be read or
    /// passed on is a [`RunError::Brief`] naming the URI, before any model request. See
    /// [`Self::prompt`] for an example.
    pub fn attach(mut self, uri: impl Into<String>) -> Self {
        self.briefing.attach(uri.into());
        self
    }

    /// Adds `guard`, after those added before: it sees the brief, each call, each result and
    /// the answer, and decides what goes through (see [`guard`](crate::guard)). `#[orchestrator]`
    /// adds the guards of its `guard = [..]`, each resolved from neva's DI container.
    ///
    /// With a guard, the run reads its own server's tools' annotations (`readOnlyHint`,
    /// `openWorldHint`, absent ones as MCP defaults them: a tool that does not say
    /// `openWorldHint: false` reaches outside), counts every tool of a toolbox added with [`Self::with`] as untrusted,
    /// and the resources of [`Self::attach`] as untrusted text in the brief; [`Self::hints`]
    /// says the rest. A call a guard has the caller approve is asked as an approval is, and is
    /// refused where the caller cannot be asked.
    ///
    /// # Examples
    /// ```no_run
    /// use ladoga::guard::{Fence, Provenance, ToolHints};
    /// use ladoga::{Model, Orchestrator, ToolPattern};
    /// use neva::{di::Dc, prelude::*, svir::RemoteTools};
    ///
    /// #[tool(descr = "Pays the bills in the mailbox")]
    /// async fn pay_bills(ctx: Context, model: Dc<Model>, mail: Dc<RemoteTools>) -> Result<String, Error> {
    ///     Orchestrator::new()
    ///         .with_named("the mail server", mail.into_inner())
    ///         // The mail server does not annotate its tools: its readers change nothing.
    ///         .hints(ToolPattern::new("mail_read_*").unwrap(), ToolHints::untrusted().read_only())
    ///         .guard(Fence::new())
    ///         .guard(Provenance)
    ///         .answer(&ctx, &*model, "Pay this month's bills.")
    ///         .await
    /// }
    /// ```
    pub fn guard(mut self, guard: impl crate::guard::Guard + 'static) -> Self {
        self.settings.guards.add(Arc::new(guard));
        self
    }

    /// The tools `pattern` matches have `hints`, for the guards, whatever their annotations say
    /// ([`ToolHints`](crate::guard::ToolHints)): how a user marks the tools of a server they do
    /// not control. The last one set that matches a tool wins.
    pub fn hints(mut self, pattern: ToolPattern, hints: crate::guard::ToolHints) -> Self {
        self.settings.guards.hint(pattern, hints);
        self
    }

    /// Adds a guard already shared: `guard = [..]`'s.
    pub(crate) fn guarded_by(mut self, guard: Arc<dyn crate::guard::Guard>) -> Self {
        self.settings.guards.add(guard);
        self
    }

    /// Which of the server's tools are offered.
    pub fn select(mut self, selection: ToolSelection) -> Self {
        self.plan.selection = selection;
        self
    }

    /// Defers the tools that match one of `patterns`, among the server's and those of the
    /// toolboxes added with [`Self::with`], once [`Self::select`] has chosen them: they are not
    /// offered up front, and the model finds them with `search_tools`. See
    /// [`Orchestration::defer`](crate::Orchestration::defer); `#[orchestrator(defer = […])]`
    /// writes this call.
    ///
    /// # Examples
    /// ```no_run
    /// use ladoga::{Model, Orchestrator, ToolPattern};
    /// use neva::{di::Dc, prelude::*, svir::RemoteTools};
    ///
    /// #[tool(descr = "Answers a customer with the CRM server's tools")]
    /// async fn support(ctx: Context, model: Dc<Model>, crm: Dc<RemoteTools>, question: String) -> Result<String, Error> {
    ///     let deferred = ToolPattern::new("crm_*").expect("a pattern");
    ///     Orchestrator::new()
    ///         .with_named("the CRM server", crm.into_inner())
    ///         .defer([deferred])
    ///         .answer(&ctx, &*model, question)
    ///         .await
    /// }
    /// # fn main() {}
    /// ```
    pub fn defer(mut self, patterns: impl IntoIterator<Item = ToolPattern>) -> Self {
        self.settings.defer.add(patterns);
        self
    }

    /// Offers the model `toolbox`'s tools beside the server's own, named by its type in errors
    /// (`std::any::type_name`); see [`Self::with_named`].
    pub fn with<T>(self, toolbox: Arc<T>) -> Self
    where
        T: svir::Toolbox + Send + Sync + 'static,
    {
        self.with_named(std::any::type_name::<T>(), toolbox)
    }

    /// Offers the model `toolbox`'s tools beside the server's own, typically a
    /// `neva::svir::RemoteTools` connected to another MCP server; `name` names it in errors.
    ///
    /// The model is offered the union ([`ToolUnion`](crate::toolbox::ToolUnion)): each toolbox keeps its own names (give a
    /// `RemoteTools` a prefix with its `with_prefix`), and the selection ([`Self::select`])
    /// applies to all of them. A tool name offered twice is a [`RunError::Toolbox`] naming both
    /// toolboxes, before any model request. A `RemoteTools` with no snapshot yet takes its first
    /// at the start of the run, and one whose server cannot list its tools is a
    /// [`RunError::Toolbox`] naming it. Each call to it is bounded by [`Self::call_timeout`] and
    /// by the run's; a call that fails or times out is an error result for the model, and the
    /// other calls of its turn still answer.
    ///
    /// # Examples
    /// ```no_run
    /// use ladoga::{Model, Orchestrator};
    /// use neva::{di::Dc, prelude::*, svir::RemoteTools};
    ///
    /// #[tool(descr = "Researches a question with this server's tools and the docs server's")]
    /// async fn research(ctx: Context, model: Dc<Model>, docs: Dc<RemoteTools>, question: String) -> Result<String, Error> {
    ///     Orchestrator::new()
    ///         .with_named("the docs server", docs.into_inner())
    ///         .call_timeout(std::time::Duration::from_secs(20))
    ///         .answer(&ctx, &*model, question)
    ///         .await
    /// }
    /// # fn main() {}
    /// ```
    pub fn with_named<T>(self, name: impl Into<String>, toolbox: Arc<T>) -> Self
    where
        T: svir::Toolbox + Send + Sync + 'static,
    {
        self.with_source(Source::new(name, toolbox))
    }

    /// Offers `source`'s tools beside the server's own.
    pub(crate) fn with_source(mut self, source: Source) -> Self {
        self.plan.with.push(source);
        self
    }

    /// Bounds each call to a toolbox added with [`Self::with`] ([`DEFAULT_CALL_TIMEOUT`] unless
    /// told); past it the model gets an error result for that call. The server's own tools are
    /// bounded by the run only. A remote server's client bounds its calls by its own request
    /// timeout too (neva's `with_timeout`, 10 s unless set), which ends a call first when it is
    /// shorter: [`LiveTools::connect_url`](crate::LiveTools::connect_url)'s client leaves the
    /// bound to this one unless told otherwise.
    pub fn call_timeout(mut self, timeout: Duration) -> Self {
        self.plan.call_timeout = timeout;
        self
    }

    /// The calls the MCP caller must approve before they run; see [`Approvals`].
    ///
    /// The caller is asked through elicitation. Under MCP 2026-07-28 a question ends the tool
    /// call's round with `input_required`, and the run goes on when the caller calls again with
    /// the answer: in between, the run waits in the server's [`Runs`](crate::store::Runs) (registered with
    /// `App::add_singleton`, else [`Runs::in_process`](crate::store::Runs::in_process)), at most [`PAUSED_RUN_TTL`]. The time a
    /// person takes counts against neither the turns, the budget nor the time bound. A call
    /// that runs as an MCP task (`task_support`) asks through its task, `input_required` until
    /// the caller answers with `tasks/update`; under `legacy-spec` the question is a request to
    /// the client. In both the run waits for the answer in place, within its time bound and
    /// neva's request timeout (`with_timeout`, 10 s unless set).
    ///
    /// [`PAUSED_RUN_TTL`]: crate::PAUSED_RUN_TTL
    pub fn approvals(mut self, approvals: Approvals) -> Self {
        self.asking.approvals = approvals;
        self
    }

    /// Keeps each call's conversation, and goes on from the earlier one: the one whose id the
    /// call passes ([`Session::ById`], see [`Self::continuing`]), or the caller's own
    /// ([`Session::PerCaller`]). See [`session`](crate::session) for where it is kept, whose it
    /// is, and what two calls at once get.
    ///
    /// # Examples
    /// ```no_run
    /// use ladoga::{Model, Orchestrator, Session};
    /// use neva::{di::Dc, prelude::*};
    ///
    /// #[tool(descr = "Plans the week; pass `session` to go on with an earlier plan")]
    /// async fn plan_week(ctx: Context, model: Dc<Model>, focus: String, session: Option<String>) -> Result<String, Error> {
    ///     Orchestrator::new()
    ///         .session(Session::ById)
    ///         .continuing(session)
    ///         .answer(&ctx, &*model, format!("Plan my week around {focus}."))
    ///         .await
    /// }
    /// # fn main() {}
    /// ```
    pub fn session(mut self, session: Session) -> Self {
        self.session.kind = Some(session);
        self
    }

    /// The session id the call passed, to go on with that conversation under
    /// [`Session::ById`]; `None` starts a new one, whose id the result gives.
    pub fn continuing(mut self, id: Option<String>) -> Self {
        self.session.continuing = id;
        self
    }

    /// How long a session is kept after its last call ([`DEFAULT_SESSION_TTL`] unless told).
    pub fn session_ttl(mut self, ttl: Duration) -> Self {
        self.session.ttl = ttl;
        self
    }

    /// Steering (`#[orchestrator]` passes it from the request's `_meta`, see
    /// [`STEER_KEY`](crate::session::STEER_KEY)): when the call's session is busy with a run, the
    /// call does not wait for it; its brief's words go to that run, which reads them before its
    /// next turn as the person's words and lists them in its report (`steered`), and the call
    /// answers at once with [`Stop::Steered`](crate::Stop::Steered). On an idle session, or a
    /// tool without sessions, the call runs as any. The message waits in the run store, so the
    /// run reads it on whichever replica it runs; a run that ends before its next turn does not
    /// read it.
    pub fn steer(mut self, steer: bool) -> Self {
        self.session.steer = steer;
        self
    }

    /// How long a call waits for another call on its session to end before it is refused
    /// ([`DEFAULT_SESSION_WAIT`] unless told).
    pub fn session_wait(mut self, wait: Duration) -> Self {
        self.session.wait = wait;
        self
    }

    /// Runs `model` on `brief` with the server's tools, inside the handler of `ctx`'s request.
    pub async fn run<M>(
        &self,
        ctx: &Context,
        model: &M,
        brief: impl IntoBrief,
    ) -> Result<Outcome, RunError>
    where
        M: CompletionModel + ?Sized,
    {
        // Steering: a message to the run in flight on the call's session, if one is.
        let brief = match self.session.steer {
            false => Brief::Given(brief),
            true => {
                let brief = brief.into_brief().map_err(RunError::Brief)?;
                if let Some(told) = self.steering(ctx, &brief).await? {
                    return Ok(told);
                }
                Brief::Built(Box::new(brief))
            }
        };
        let (prepared, brief) =
            (self.start(ctx, brief, model.asks_caller(), model.schema_profile())).await?;
        let run = prepared.orchestration(self, ctx, model).run(brief).await;
        prepared
            .close(matches!(run, Err(RunError::Paused(_))))
            .await;
        told_above(self.settings.name.as_deref(), run.as_ref());
        run
    }

    /// [`Self::run`] for a typed answer: the final answer parsed as `O`, see
    /// [`Orchestration::run_as`](crate::Orchestration::run_as).
    pub async fn run_as<M, O>(
        &self,
        ctx: &Context,
        model: &M,
        brief: impl IntoBrief,
    ) -> Result<(O, Outcome), RunError>
    where
        M: CompletionModel + ?Sized,
        O: DeserializeOwned + JsonSchema,
    {
        let (prepared, brief) =
            (self.start(ctx, brief, model.asks_caller(), model.schema_profile())).await?;
        let run = prepared.orchestration(self, ctx, model).run_as(brief).await;
        prepared.close_beside(matches!(run, Err(RunError::Paused(_))));
        told_above(
            self.settings.name.as_deref(),
            run.as_ref().map(|(_, outcome)| outcome),
        );
        run
    }

    /// [`Self::run`], answered as a tool answers: the final text, or an error the MCP caller is
    /// told as a tool error (`isError`), without the model server's own message.
    pub async fn answer<M>(
        &self,
        ctx: &Context,
        model: &M,
        brief: impl IntoBrief,
    ) -> Result<String, Error>
    where
        M: CompletionModel + ?Sized,
    {
        match self.run(ctx, model, brief).await {
            Ok(outcome) => Ok(outcome.text),
            // The question to the caller: neva answers the round with it.
            Err(RunError::Paused(error)) => Err(error),
            Err(error) => Err(Error::new(ErrorCode::InternalError, error.to_string())),
        }
    }
}

/// The tree: tells the call of the run above, if another's model started this run, how it went:
/// its report when it ended, or that it paused for a question answered in a later round; and a
/// guarded run above, where the untrusted text this one read came from, this run being `tool`'s.
/// Last, once the run let go of all it held: the call above may end the moment it hears of a
/// pause.
fn told_above(tool: Option<&str>, run: Result<&Outcome, &RunError>) {
    // Guards: the run above counts the untrusted text this one read, which its answer may carry.
    if let (Some(above), Ok(outcome)) = (Inherited::current(), run) {
        above.read(tool.unwrap_or_default(), &outcome.untrusted);
    }
    let Some(site) = Site::current() else {
        return;
    };
    match run {
        Ok(outcome) => site.report(outcome.report()),
        Err(RunError::Paused(_)) => site.pause(),
        Err(_) => {}
    }
}

/// A call's brief as its body gave it, or built already to read a steering call's words.
enum Brief<B> {
    Given(B),
    Built(Box<svir::Request>),
}

impl<B: IntoBrief> IntoBrief for Brief<B> {
    fn into_brief(self) -> Result<svir::Request, String> {
        match self {
            Self::Given(brief) => brief.into_brief(),
            Self::Built(brief) => Ok(*brief),
        }
    }
}
