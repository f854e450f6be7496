//! What a run of an [`Orchestrator`] takes from its tool call: the server's tools as the call
//! may use them, the brief opened with the prompt and resources, the keeper of a run that asks,
//! and the loop with these settings.

use std::sync::Arc;

use neva::Context;

use crate::approval::Approvals;
use crate::brief::IntoBrief;
use crate::error::RunError;
use crate::guard::{Guards, Inherited, ToolHints};
use crate::model::CompletionModel;
use crate::model::caller::Caller;
use crate::run::booking::Booking;
use crate::run::{Drain, Gate, Orchestration, Seams, Settings};
use crate::schema::SchemaProfile;
use crate::session::{Lease, principal, task_inbox};
use crate::store::{Inbox, Keeper, Runs};
use crate::tool::elicitation::TopCall;
use crate::tool::entered::Entered;
use crate::tool::quota::QuotaBooks;
use crate::tool::{Elicitation, Orchestrator, session};
use crate::toolbox::ToolUnion;
use crate::tree::{Above, Site};
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
        let mut own = ctx.tools().toolbox().with_max_depth(self.plan.depth.get());
        // The door a durable run enters through is no tool of the model's.
        #[cfg(feature = "restate")]
        {
            own = own.filter(|tool| tool.name != crate::durable::DOOR);
        }
        if !self.plan.selection.is_all() {
            let selection = self.plan.selection.clone();
            own = own.filter(move |tool| selection.admits(&tool.name));
        }
        if self.plan.recurse {
            own = own.with_caller();
        }
        let own = own
            .load()
            .await
            .map_err(|error| RunError::Toolbox(error.to_string()))?;
        let union = self.plan.with.iter().cloned().fold(
            ToolUnion::with_parts(1 + self.plan.with.len())
                .with_own(own)
                .call_timeout(self.plan.call_timeout),
            ToolUnion::add,
        );
        let union = union.select(self.plan.selection.clone());
        match profile {
            Some(profile) => union.schema_profile(profile).load().await,
            None => union.load().await,
        }
    }

    /// What a run of `ctx`'s call takes, set up once for [`Self::run`] and [`Self::run_as`]:
    /// the journal of a durable run it enters, its keeper when it asks its caller (approvals,
    /// the model's questions, or its model the caller's), its tools (the added toolboxes'
    /// checked against `profile`, its model's), the approvals with the tools' annotations, its
    /// session and who answers its questions; and its brief.
    pub(super) async fn start<'c>(
        &self,
        ctx: &'c Context,
        brief: impl IntoBrief,
        asks_caller: bool,
        profile: SchemaProfile,
    ) -> Result<(Prepared<'c>, svir::Request), RunError> {
        // A caller who spent a quota is refused before anything else.
        let agent = self.settings.name.as_deref().unwrap_or("run");
        let quota = QuotaBooks::of(ctx, agent, self.quota).await?;
        let entered = Entered::take(self.durable, ctx).await;
        // The tree: a run another's model started asks the person at the top; a run whose
        // caller can be asked is the top of the runs its calls start.
        let site = Site::current();
        let approver = Elicitation::of_call(ctx, self.task.as_deref()).below(site.clone());
        let above = match &site {
            Some(site) => Some(site.above()),
            None if entered.is_durable() => entered.top(ctx, runs(ctx), agent),
            None if Elicitation::can_be_asked(ctx) => {
                let top = TopCall::new(ctx, approver.task());
                Some(Above::top(Arc::new(top), agent))
            }
            None => None,
        };
        let asks = self.asking.ask && approver.answers_forms();
        // A run is kept between rounds when it asks, or a run below it may.
        let kept_for_below = above
            .as_ref()
            .is_some_and(|above| above.top.answers_later());
        // Boxed, and only for a run that asks (its model too): a keeper is a kilobyte every run
        // would carry.
        // Guards: those of a guarded run whose call started this one hold here too.
        let inherited = Inherited::current();
        let guarded = !self.settings.guards.is_empty() || inherited.is_some();
        let keeper = match self.asking.approvals.is_none()
            && !asks
            && !asks_caller
            && !kept_for_below
            && !guarded
        {
            true => None,
            false => Box::pin(self.keeper(ctx, site.as_ref(), entered.key()))
                .await?
                .map(Box::new),
        };
        let brief = self.brief(ctx, brief, keeper.as_deref()).await?;
        let tools = self.toolbox_for(ctx, Some(profile)).await?;
        let approvals = self.annotated(ctx).await;
        let guards = match guarded {
            true => Some(self.guards(ctx, &tools, inherited.as_ref()).await),
            false => None,
        };
        let lease = self.lease(ctx, keeper.as_deref(), entered.key()).await?;
        let prepared = Prepared {
            guards,
            entered,
            keeper,
            tools,
            approvals,
            lease,
            approver,
            asks,
            quota,
            above,
        };
        Ok((prepared, brief))
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
    ///
    /// A run another's model started at `site` is kept under an id its caller's next round
    /// makes again, when the person at the top answers in a later round.
    ///
    /// The durable run `durable` is kept under an id made from its key, the same in every
    /// attempt of it.
    async fn keeper(
        &self,
        ctx: &Context,
        site: Option<&Site>,
        durable: Option<&str>,
    ) -> Result<Option<Keeper>, RunError> {
        let runs = runs(ctx);
        if let Some(site) = site.filter(|site| site.top().answers_later()) {
            return Ok(Some(
                Keeper::below(runs, site.run_id(), site.resumed()).await?,
            ));
        }
        if let Some(key) = durable {
            return Ok(Some(Keeper::durable(runs, key)));
        }
        let agent = self.settings.name.as_deref().unwrap_or("run");
        Ok(Some(Keeper::for_call(ctx, runs, agent).await?))
    }

    /// The guards, with what the run knows of its tools: the server's own tools' annotations,
    /// every tool of an added toolbox untrusted, and the attached resources untrusted text; and
    /// those of the run `above` whose call started this one, whose untrusted text the brief
    /// counts as holding.
    async fn guards(&self, ctx: &Context, tools: &ToolUnion, above: Option<&Inherited>) -> Guards {
        let mut guards = self.settings.guards.clone();
        if let Some(above) = above {
            guards.inherit(above.guards());
            for source in above.tainted() {
                guards.briefed(source.clone());
            }
        }
        for tool in ctx.tools().list().await {
            let hints = tool.annotations.as_ref();
            let mut known = ToolHints::default();
            if hints.and_then(|hints| hints.readonly) == Some(true) {
                known = known.read_only();
            }
            // MCP's default: a tool that does not say it stays inside reaches outside.
            if hints.and_then(|hints| hints.open_world) != Some(false) {
                known = known.open_world();
            }
            guards.annotate(tool.name, known);
        }
        for (name, hints) in tools.added_tools() {
            guards.annotate(name, hints);
        }
        for uri in self.briefing.attached() {
            guards.briefed(format!("resource {uri}"));
        }
        guards
    }

    /// The approvals, with the annotations of the server's own tools when they decide.
    async fn annotated(&self, ctx: &Context) -> Approvals {
        if !self.asking.approvals.reads_annotations() {
            return self.asking.approvals.clone();
        }
        ctx.tools().list().await.into_iter().fold(
            self.asking.approvals.clone(),
            |approvals, tool| {
                let hints = tool.annotations.as_ref();
                approvals.annotated(
                    tool.name,
                    hints.and_then(|hints| hints.readonly),
                    hints.and_then(|hints| hints.destructive),
                )
            },
        )
    }
}

/// What a run of an [`Orchestrator`] takes from its tool call.
pub(super) struct Prepared<'c> {
    /// The guards, with what the run knows of its tools, when it has any.
    guards: Option<Guards>,
    entered: Entered,
    keeper: Option<Box<Keeper>>,
    tools: ToolUnion,
    approvals: Approvals,
    lease: Option<Box<Lease>>,
    /// Who approves the run's calls and answers its questions: `ctx`'s caller, which tells the
    /// MCP task the run is, if it is one and the server follows tasks
    /// ([`TaskProgress`](crate::TaskProgress)).
    approver: Elicitation<'c>,
    /// Whether the model is offered `ask_caller`.
    asks: bool,
    /// The caller's quotas, which the run books what it spends against.
    quota: Option<QuotaBooks>,
    /// The run's place in the agent tree, when the person at its top can be asked.
    above: Option<Above>,
}

impl Prepared<'_> {
    /// The loop over the tools with `orchestrator`'s settings for `ctx`'s call, plugged into
    /// all it takes in one place.
    pub(super) fn orchestration<'a, M>(
        &'a self,
        orchestrator: &Orchestrator,
        ctx: &Context,
        model: &'a M,
    ) -> Orchestration<'a, M, ToolUnion>
    where
        M: CompletionModel + ?Sized,
    {
        let mut gate = Gate::none();
        // Approvals are asked only where the run can be kept while its caller answers.
        if self.keeper.is_some() {
            let approver = self.entered.approver().unwrap_or(&self.approver);
            gate.approve(self.approvals.clone(), approver);
        }
        if self.asks {
            gate.reply(&self.approver);
        }
        // Every call of a run this deep would be refused, so it is offered none.
        let nesting = SharedUsage::nesting();
        let run = Orchestration {
            model,
            tools: &self.tools,
            settings: match &self.guards {
                Some(guards) => Settings {
                    guards: guards.clone(),
                    ..orchestrator.settings.clone()
                },
                None => orchestrator.settings.clone(),
            },
            seams: Seams {
                at_depth_bound: (nesting >= orchestrator.plan.depth.get()).then_some(nesting),
                gate,
                keeper: self.keeper.as_deref(),
                // The server's shutdown, if it registered one, stops the run at its grace's end.
                drain: ctx.resolve::<Drain>().ok(),
                task: self.approver.task(),
                session: self.lease.as_deref(),
                recorder: None,
                booking: self.quota.as_ref().map(|book| book as &dyn Booking),
                // The tree: a caller's model below samples the top call's caller.
                caller: Some(Caller::of(match &self.above {
                    Some(above) => above.top.context(),
                    None => ctx,
                })),
                above: self.above.clone(),
                // Steering: a run on a session, or a task's, reads what its caller sends it.
                inbox: self.inbox(orchestrator, ctx),
            },
        };
        self.entered.enter(run)
    }

    /// Steering: the inbox of the run, when it has a session, or is an MCP task.
    fn inbox(&self, orchestrator: &Orchestrator, ctx: &Context) -> Option<Inbox> {
        if let Some(lease) = self.lease.as_deref() {
            return Some(lease.inbox());
        }
        let task = orchestrator.task.as_deref()?;
        Some(task_inbox(runs(ctx), task, principal::of(ctx).as_deref()))
    }

    /// Closes the run's session, if it has one: kept for the next call, or held for the next
    /// round of a `paused` one.
    pub(super) async fn close(self, paused: bool) {
        if let Some(lease) = self.lease {
            session::close(lease, paused).await;
        }
    }

    /// [`Self::close`], beside the run's answer: a typed answer is not held across an await,
    /// so it need not be `Send`.
    pub(super) fn close_beside(self, paused: bool) {
        if let Some(lease) = self.lease {
            tokio::spawn(session::close(lease, paused));
        }
    }
}

/// Where the server keeps its paused runs: the store it registered, else the process's own.
fn runs(ctx: &Context) -> Runs {
    ctx.resolve_shared::<Runs>()
        .map_or_else(|_| Runs::in_process(), |runs| (*runs).clone())
}
