//! What a run of an [`Orchestrator`] takes from its tool call: the server's tools as the call
//! may use them, the brief opened with the prompt and resources, the keeper of a run that asks,
//! and the loop with these settings.

use neva::Context;

use crate::approval::Approvals;
use crate::brief::IntoBrief;
use crate::error::RunError;
use crate::model::CompletionModel;
use crate::run::{Drain, Orchestration};
use crate::schema::SchemaProfile;
use crate::store::{Keeper, Runs};
use crate::tool::{Elicitation, Orchestrator};
use crate::toolbox::ToolUnion;
use crate::usage::SharedUsage;

impl Orchestrator {
    /// The server's tools as the request of `ctx` may call them, bounded, with the toolboxes
    /// added by [`Self::with`], loaded and selected.
    ///
    /// A run of [`Self::run`] also leaves out each tool of an added toolbox whose schema its
    /// model's [`SchemaProfile`] cannot express ([`ToolUnion::schema_profile`]); this does not
    /// know the model, so a run over it fails on one.
    pub async fn toolbox(&self, ctx: &Context) -> Result<ToolUnion, RunError> {
        self.toolbox_for(ctx, None).await
    }

    /// [`Self::toolbox`], the added toolboxes' tools checked against `profile` if there is one.
    async fn toolbox_for(
        &self,
        ctx: &Context,
        profile: Option<SchemaProfile>,
    ) -> Result<ToolUnion, RunError> {
        // Selected before loading too: a tool left out need not have a name a model can carry.
        let mut own = ctx.tools().toolbox().with_max_depth(self.depth.get());
        // The door a durable run enters through is no tool of the model's.
        #[cfg(feature = "restate")]
        {
            own = own.filter(|tool| tool.name != crate::durable::DOOR);
        }
        if !self.selection.is_all() {
            let selection = self.selection.clone();
            own = own.filter(move |tool| selection.admits(&tool.name));
        }
        if self.recurse {
            own = own.with_caller();
        }
        let own = own
            .load()
            .await
            .map_err(|error| RunError::Toolbox(error.to_string()))?;
        let union = self.with.iter().cloned().fold(
            ToolUnion::with_parts(1 + self.with.len())
                .with_own(own)
                .call_timeout(self.call_timeout),
            ToolUnion::add,
        );
        let union = union.select(self.selection.clone());
        match profile {
            Some(profile) => union.schema_profile(profile).load().await,
            None => union.load().await,
        }
    }

    /// What a run takes from `ctx`: its keeper when it asks for approvals, its brief, its tools
    /// (the added toolboxes' checked against `profile`, its model's) and the approvals with the
    /// tools' annotations.
    pub(super) async fn prepare(
        &self,
        ctx: &Context,
        brief: impl IntoBrief,
        asks_caller: bool,
        profile: SchemaProfile,
    ) -> Result<Prepared, RunError> {
        // Boxed, and only for a run that asks (its model too): a keeper is a kilobyte every run
        // would carry.
        let keeper = match self.approvals.is_none() && !self.asks(ctx) && !asks_caller {
            true => None,
            false => Box::pin(self.keeper(ctx)).await?.map(Box::new),
        };
        let brief = self.brief(ctx, brief, keeper.as_deref()).await?;
        let tools = self.toolbox_for(ctx, Some(profile)).await?;
        let approvals = self.annotated(ctx).await;
        Ok(Prepared {
            keeper,
            brief,
            tools,
            approvals,
        })
    }

    /// `brief` built, opened with the prompt and given the resources (see [`Self::prompt`] and
    /// [`Self::attach`]); nothing for a run that goes on from a pause, which has its
    /// conversation.
    async fn brief(
        &self,
        ctx: &Context,
        brief: impl IntoBrief,
        keeper: Option<&Keeper>,
    ) -> Result<svir::Request, RunError> {
        if keeper.is_some_and(Keeper::resuming) {
            return Ok(svir::Request::new(""));
        }
        let brief = brief.into_brief().map_err(RunError::Brief)?;
        if self.briefing.is_empty() {
            return Ok(brief);
        }
        // Boxed: reading prompts and resources is a large future, which every run would carry.
        Box::pin(self.briefing.open(ctx, brief)).await
    }

    /// The keeper of a run that asks its caller (approvals, the model's questions, or its model
    /// the caller's): a new run, or the paused one this round of the tool call goes on with.
    async fn keeper(&self, ctx: &Context) -> Result<Option<Keeper>, RunError> {
        let runs = ctx
            .resolve_shared::<Runs>()
            .map_or_else(|_| Runs::in_process(), |runs| (*runs).clone());
        let agent = self.settings.name.as_deref().unwrap_or("run");
        Ok(Some(Keeper::for_call(ctx, runs, agent).await?))
    }

    /// The approvals, with the annotations of the server's own tools when they decide.
    async fn annotated(&self, ctx: &Context) -> Approvals {
        if !self.approvals.reads_annotations() {
            return self.approvals.clone();
        }
        ctx.tools()
            .list()
            .await
            .into_iter()
            .fold(self.approvals.clone(), |approvals, tool| {
                let hints = tool.annotations.as_ref();
                approvals.annotated(
                    tool.name,
                    hints.and_then(|hints| hints.readonly),
                    hints.and_then(|hints| hints.destructive),
                )
            })
    }

    /// Whether the model is offered `ask_caller` on `ctx`'s call: [`Self::ask`] said so, and
    /// the caller can answer a form (see [`Elicitation::can_answer_forms`]).
    pub(super) fn asks(&self, ctx: &Context) -> bool {
        self.ask && Elicitation::can_answer_forms(ctx)
    }

    /// Who approves the calls of a run for `ctx`'s caller, and tells the MCP task the run is,
    /// if it is one and the server follows tasks ([`TaskProgress`](crate::TaskProgress)).
    pub(super) fn approver<'a>(&self, ctx: &'a Context) -> Elicitation<'a> {
        Elicitation::of_call(ctx, self.task.as_deref())
    }

    /// The loop over `tools` with these settings for `ctx`'s call, telling the task `approver`
    /// tells.
    pub(super) fn orchestration<'a, M>(
        &self,
        ctx: &Context,
        model: &'a M,
        tools: &'a ToolUnion,
        approver: &Elicitation<'_>,
    ) -> Orchestration<'a, M, ToolUnion>
    where
        M: CompletionModel + ?Sized,
    {
        let mut run = Orchestration::new(model, tools)
            .settings(self.settings.clone())
            .telling(approver.task())
            .serving(ctx);
        // The server's shutdown, if it registered one, stops the run at the end of its grace.
        if let Ok(drain) = ctx.resolve::<Drain>() {
            run = run.drain(drain);
        }
        // Every call of a run this deep would be refused, so it is offered none.
        let nesting = SharedUsage::nesting();
        if nesting >= self.depth.get() {
            run = run.at_depth_bound(nesting);
        }
        run
    }
}

/// What a run of an [`Orchestrator`] takes from its tool call.
pub(super) struct Prepared {
    pub(super) keeper: Option<Box<Keeper>>,
    pub(super) brief: svir::Request,
    pub(super) tools: ToolUnion,
    pub(super) approvals: Approvals,
}
