//! Asking the MCP caller of a tool handler to approve a call, or to answer the model's
//! question (`ask_caller`), through elicitation.
//!
//! Under MCP 2026-07-28 a question is part of the tool call itself: the call answers
//! `input_required` with the question and a sealed `requestState`, and the caller calls again
//! with the answer (neva's `ctx.elicit(key, params)`). A call that runs as an MCP task asks
//! through its task instead: the task turns `input_required`, the caller answers with
//! `tasks/update`, and the run waits for it in place (`ctx.task().elicit(params)`). Under
//! `legacy-spec` it is a request from the server to the client. Both wait within neva's request
//! timeout.

use std::sync::Arc;

use futures_util::future::BoxFuture;
use neva::Context;
use neva::types::elicitation::{ElicitRequestParams, ElicitResult, ElicitationAction};

use crate::approval::{
    Approver, AskFuture, Asked, Decision, Inquiry, Question, Replied, Reply, ReplyFuture,
    Respondent,
};
use crate::observe::TaskLine;
use crate::tree::{Site, Top};

/// The caller of `ctx`'s request, asked through elicitation; or, for a run nested in another's
/// call, the person at the top of the tree.
pub(crate) struct Elicitation<'a> {
    ctx: &'a Context,
    /// The MCP task the run is: waiting for an answer, it is neva's to tell.
    task: Option<Arc<TaskLine>>,
    /// The call of the run above, for a run started by another's model: its questions go up.
    site: Option<Site>,
}

impl<'a> Elicitation<'a> {
    /// The caller of `ctx`'s call, which runs as the MCP task `task` if it is one: a task the
    /// server follows ([`TaskProgress`](crate::TaskProgress)) is told how its run goes.
    pub(crate) fn of_call(ctx: &'a Context, task: Option<&str>) -> Self {
        #[cfg(not(feature = "legacy-spec"))]
        if let Some(id) = task
            && let Ok(tasks) = ctx.resolve_shared::<crate::observe::TaskProgress>()
            && let Ok(call) = ctx.resolve_shared::<crate::observe::TaskCall>()
        {
            let task = Some(Arc::new(tasks.follow(id.to_owned(), &call)));
            return Self {
                ctx,
                task,
                site: None,
            };
        }
        let _ = task;
        Self {
            ctx,
            task: None,
            site: None,
        }
    }

    /// Asks the person at the top of the tree instead, through `site`, the call of the run
    /// above, when there is one.
    pub(crate) fn below(mut self, site: Option<Site>) -> Self {
        self.site = site;
        self
    }

    /// Whether the caller of `ctx`'s request can answer a form: under MCP 2026-07-28, its
    /// request declares elicitation in form mode (or in no mode in particular). Under
    /// `legacy-spec` neva keeps no client capabilities, so it counts as able, and asking tells.
    pub(crate) fn can_answer_forms(ctx: &Context) -> bool {
        #[cfg(not(feature = "legacy-spec"))]
        {
            // Most callers declare none: no form is made to ask about then.
            let Some(modes) = ctx.client_capabilities().elicitation else {
                return false;
            };
            let params: ElicitRequestParams = ElicitRequestParams::form(String::new()).into();
            modes.allows(&params)
        }
        #[cfg(feature = "legacy-spec")]
        {
            let _ = ctx;
            true
        }
    }

    /// Whether the caller of `ctx`'s request can be asked anything: a form, or a sample.
    pub(crate) fn can_be_asked(ctx: &Context) -> bool {
        #[cfg(not(feature = "legacy-spec"))]
        return Self::can_answer_forms(ctx) || ctx.client_capabilities().sampling;
        #[cfg(feature = "legacy-spec")]
        Self::can_answer_forms(ctx)
    }

    /// Whether whoever this asks can answer a form.
    pub(crate) fn answers_forms(&self) -> bool {
        match &self.site {
            Some(site) => site.top().answers_forms(),
            None => Self::can_answer_forms(self.ctx),
        }
    }

    /// Whether a question this asks is answered in a later round.
    #[cfg(not(feature = "legacy-spec"))]
    fn later(&self) -> bool {
        match &self.site {
            Some(site) => site.top().answers_later() && site.top().answers_forms(),
            // A round that asks answers `input_required`; a task and a legacy caller are asked in
            // place. A caller that cannot be asked is never asked.
            None => !self.ctx.is_task() && Self::can_answer_forms(self.ctx),
        }
    }

    /// The answer to the form `params`, filed under `key`, about `asker` (a tool the run would
    /// call, or none for the run's own question): now, in a later round (the error that pauses
    /// the run), or none when it cannot be asked.
    async fn put(
        &self,
        key: &str,
        asker: Option<&str>,
        params: ElicitRequestParams,
    ) -> Result<Option<ElicitResult>, neva::error::Error> {
        if !self.answers_forms() {
            return Ok(None);
        }
        let asked = match &self.site {
            Some(site) => site.elicit(key, asker, params).await,
            None => elicit(self.ctx, self.task.as_deref(), key.to_owned(), params).await,
        };
        match asked {
            Ok(answer) => Ok(Some(answer)),
            #[cfg(not(feature = "legacy-spec"))]
            Err(error) if error.code() == neva::error::ErrorCode::InputRequired => Err(error),
            Err(error) => {
                tracing::warn!(target: "ladoga", error = %crate::toolbox::printable(&error.to_string()), "the caller could not be asked");
                Ok(None)
            }
        }
    }

    /// The line of the MCP task the run is, if it is one followed.
    pub(crate) fn task(&self) -> Option<Arc<TaskLine>> {
        self.task.clone()
    }
}

/// The answer of `ctx`'s caller to `params`: through the task the call runs as (its line told
/// it waits), the call's rounds, or, under `legacy-spec`, a request to the client.
async fn elicit(
    ctx: &Context,
    task: Option<&TaskLine>,
    key: String,
    params: ElicitRequestParams,
) -> Result<ElicitResult, neva::error::Error> {
    #[cfg(not(feature = "legacy-spec"))]
    {
        if !ctx.is_task() {
            return ctx.elicit(key, params).await;
        }
        if let Some(task) = task {
            task.asking(true);
        }
        let answer = ctx.task().elicit(params).await;
        if let Some(task) = task {
            task.asking(false);
        }
        answer
    }
    #[cfg(feature = "legacy-spec")]
    {
        let _ = (task, key);
        ctx.elicit(params).await
    }
}

/// The caller of the call at the top of a tree, which the runs below it ask.
pub(crate) struct TopCall {
    ctx: Context,
    task: Option<Arc<TaskLine>>,
}

impl TopCall {
    /// The caller of `ctx`'s call, which runs as the task whose line is `task`, if it is one.
    pub(crate) fn new(ctx: &Context, task: Option<Arc<TaskLine>>) -> Self {
        Self {
            ctx: ctx.clone(),
            task,
        }
    }
}

impl Top for TopCall {
    fn context(&self) -> &Context {
        &self.ctx
    }

    fn answers_forms(&self) -> bool {
        Elicitation::can_answer_forms(&self.ctx)
    }

    fn answers_later(&self) -> bool {
        #[cfg(not(feature = "legacy-spec"))]
        return !self.ctx.is_task();
        #[cfg(feature = "legacy-spec")]
        false
    }

    fn elicit(
        &self,
        key: String,
        params: ElicitRequestParams,
    ) -> BoxFuture<'_, Result<ElicitResult, neva::error::Error>> {
        Box::pin(elicit(&self.ctx, self.task.as_deref(), key, params))
    }
}

impl Approver for Elicitation<'_> {
    #[cfg(not(feature = "legacy-spec"))]
    fn answers_later(&self) -> bool {
        self.later()
    }

    fn ask<'a>(&'a self, question: &'a Question) -> AskFuture<'a> {
        Box::pin(async move {
            // A form with nothing to fill: accepting approves.
            let params: ElicitRequestParams = ElicitRequestParams::form(question.message()).into();
            match self.put(&question.key, Some(&question.tool), params).await {
                Ok(Some(answer)) => Asked::Answered(decision(&answer)),
                Ok(None) => {
                    tracing::info!(target: "ladoga", tool = %crate::toolbox::Escaped(&question.tool), "the caller cannot be asked to approve this call");
                    Asked::Answered(Decision::Unavailable)
                }
                Err(later) => Asked::Later(later),
            }
        })
    }
}

impl Respondent for Elicitation<'_> {
    #[cfg(not(feature = "legacy-spec"))]
    fn replies_later(&self) -> bool {
        // As for approvals: a round asks later, a task and a legacy caller in place.
        self.later()
    }

    fn reply<'a>(&'a self, inquiry: &'a Inquiry) -> ReplyFuture<'a> {
        Box::pin(async move {
            match self.put(&inquiry.key, None, inquiry.form()).await {
                Ok(Some(answer)) => Replied::Now(inquiry.reply(&answer)),
                Ok(None) => Replied::Now(Reply::Unavailable),
                Err(later) => Replied::Later(later),
            }
        })
    }
}

/// What an elicitation's answer decides.
fn decision(answer: &ElicitResult) -> Decision {
    match answer.action {
        ElicitationAction::Accept => Decision::Approved,
        ElicitationAction::Decline => Decision::Declined,
        ElicitationAction::Cancel => Decision::Cancelled,
    }
}
