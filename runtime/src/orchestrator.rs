//! An orchestrating tool's settings, and the run inside a neva tool handler.

use std::num::NonZeroUsize;

use neva::Context;
use neva::error::{Error, ErrorCode};
use neva::svir::LocalTools;
use neva::types::ProgressToken;
use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use crate::briefing::Briefing;
use crate::shared_usage::SharedUsage;
use crate::{CompletionModel, IntoBrief, Limits, Orchestration, Outcome, RunError, ToolSelection};

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
    name: Option<String>,
    system: Option<String>,
    depth: NonZeroUsize,
    recurse: bool,
    selection: ToolSelection,
    limits: Limits,
    progress: Option<ProgressToken>,
    briefing: Briefing,
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
            name: None,
            system: None,
            depth: DEFAULT_DEPTH,
            recurse: false,
            selection: ToolSelection::all(),
            limits: Limits::new(),
            progress: None,
            briefing: Briefing::default(),
        }
    }

    /// The agent's name in spans, see [`Orchestration::name`]; `#[orchestrator]` gives its
    /// tool's name.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The system prompt, used unless the brief brings its own.
    pub fn system(mut self, prompt: impl Into<String>) -> Self {
        self.system = Some(prompt.into());
        self
    }

    /// In-process tool calls nest at most `depth` deep (neva's `with_max_depth`); a call past
    /// it is not made, and the model is told why. A run nested so deep that none of its calls
    /// could be made is offered no tool: it is told why and answers in one request, and stops
    /// as [`Stop::Depth`](crate::Stop::Depth).
    pub fn depth(mut self, depth: NonZeroUsize) -> Self {
        self.depth = depth;
        self
    }

    /// Keeps the calling tool in its own toolbox, for a tool that means to recurse.
    pub fn recurse(mut self, recurse: bool) -> Self {
        self.recurse = recurse;
        self
    }

    /// The bounds of each run and the policy at them.
    pub fn limits(mut self, limits: Limits) -> Self {
        self.limits = limits;
        self
    }

    /// Reports progress to the MCP caller's progress token, if its request carried one: see
    /// [`Orchestration::progress`].
    pub fn progress(mut self, token: Option<ProgressToken>) -> Self {
        self.progress = token;
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

    /// Which of the server's tools are offered.
    pub fn select(mut self, selection: ToolSelection) -> Self {
        self.selection = selection;
        self
    }

    /// The server's tools as the request of `ctx` may call them, selected and bounded.
    pub async fn toolbox(&self, ctx: &Context) -> Result<LocalTools, RunError> {
        let selection = self.selection.clone();
        let mut tools = ctx
            .tools()
            .toolbox()
            .with_max_depth(self.depth.get())
            .filter(move |tool| selection.admits(&tool.name));
        if self.recurse {
            tools = tools.with_caller();
        }
        tools
            .load()
            .await
            .map_err(|error| RunError::Toolbox(error.to_string()))
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
        let brief = self.brief(ctx, brief).await?;
        let tools = self.toolbox(ctx).await?;
        self.orchestration(model, &tools).run(brief).await
    }

    /// [`Self::run`] for a typed answer: the final answer parsed as `O`, see
    /// [`Orchestration::run_as`].
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
        let brief = self.brief(ctx, brief).await?;
        let tools = self.toolbox(ctx).await?;
        self.orchestration(model, &tools).run_as(brief).await
    }

    /// `brief` built, opened with the prompt and given the resources (see [`Self::prompt`] and
    /// [`Self::attach`]).
    async fn brief(&self, ctx: &Context, brief: impl IntoBrief) -> Result<svir::Request, RunError> {
        let brief = brief.into_brief().map_err(RunError::Brief)?;
        self.briefing.open(ctx, brief).await
    }

    /// The loop over `tools` with these settings.
    fn orchestration<'a, M>(
        &self,
        model: &'a M,
        tools: &'a LocalTools,
    ) -> Orchestration<'a, M, LocalTools>
    where
        M: CompletionModel + ?Sized,
    {
        let mut run = Orchestration::new(model, tools)
            .limits(self.limits.clone())
            .progress(self.progress.clone());
        if let Some(name) = &self.name {
            run = run.name(name.clone());
        }
        // Every call of a run this deep would be refused, so it is offered none.
        let nesting = SharedUsage::nesting();
        if nesting >= self.depth.get() {
            run = run.at_depth_bound(nesting);
        }
        match &self.system {
            Some(system) => run.system(system.clone()),
            None => run,
        }
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
        self.run(ctx, model, brief)
            .await
            .map(|outcome| outcome.text)
            .map_err(|error| Error::new(ErrorCode::InternalError, error.to_string()))
    }
}
