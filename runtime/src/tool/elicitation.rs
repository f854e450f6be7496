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

use neva::Context;
use neva::types::elicitation::{ElicitRequestParams, ElicitResult, ElicitationAction};

use crate::approval::{
    Approver, AskFuture, Asked, Decision, Inquiry, Question, Replied, Reply, ReplyFuture,
    Respondent,
};
use crate::observe::TaskLine;

/// The caller of `ctx`'s request, asked through elicitation.
pub(crate) struct Elicitation<'a> {
    ctx: &'a Context,
    /// The MCP task the run is: waiting for an answer, it is neva's to tell.
    task: Option<Arc<TaskLine>>,
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
            return Self { ctx, task };
        }
        let _ = task;
        Self { ctx, task: None }
    }

    /// Whether the caller of `ctx`'s request can answer a form: under MCP 2026-07-28, its
    /// request declares elicitation in form mode (or in no mode in particular). Under
    /// `legacy-spec` neva keeps no client capabilities, so it counts as able, and asking tells.
    pub(crate) fn can_answer_forms(ctx: &Context) -> bool {
        #[cfg(not(feature = "legacy-spec"))]
        {
            let params: ElicitRequestParams = ElicitRequestParams::form(String::new()).into();
            ctx.client_capabilities()
                .elicitation
                .is_some_and(|modes| modes.allows(&params))
        }
        #[cfg(feature = "legacy-spec")]
        {
            let _ = ctx;
            true
        }
    }

    /// The caller's answer to the form `params`, filed under `key`: now, in a later round
    /// (the error that pauses the run), or none when it cannot be asked.
    async fn put(
        &self,
        key: &str,
        params: ElicitRequestParams,
    ) -> Result<Option<ElicitResult>, neva::error::Error> {
        #[cfg(not(feature = "legacy-spec"))]
        let asked = {
            if !Self::can_answer_forms(self.ctx) {
                return Ok(None);
            }
            self.elicit(key, params).await
        };
        #[cfg(feature = "legacy-spec")]
        let asked = {
            let _ = key;
            self.ctx.elicit(params).await
        };
        match asked {
            Ok(answer) => Ok(Some(answer)),
            #[cfg(not(feature = "legacy-spec"))]
            Err(error) if error.code() == neva::error::ErrorCode::InputRequired => Err(error),
            Err(error) => {
                tracing::warn!(target: "ladoga", %error, "the caller could not be asked");
                Ok(None)
            }
        }
    }

    /// The line of the MCP task the run is, if it is one followed.
    pub(crate) fn task(&self) -> Option<Arc<TaskLine>> {
        self.task.clone()
    }

    /// The caller's answer to `params`: through the task the call runs as, or the call's
    /// rounds.
    #[cfg(not(feature = "legacy-spec"))]
    async fn elicit(
        &self,
        key: &str,
        params: ElicitRequestParams,
    ) -> Result<ElicitResult, neva::error::Error> {
        if !self.ctx.is_task() {
            return self.ctx.elicit(key.to_owned(), params).await;
        }
        if let Some(task) = &self.task {
            task.asking(true);
        }
        let answer = self.ctx.task().elicit(params).await;
        if let Some(task) = &self.task {
            task.asking(false);
        }
        answer
    }
}

impl Approver for Elicitation<'_> {
    #[cfg(not(feature = "legacy-spec"))]
    fn answers_later(&self) -> bool {
        // A round that asks answers `input_required`; a task and a legacy caller are asked in
        // place. A caller that cannot be asked is never asked.
        let params: ElicitRequestParams = ElicitRequestParams::form(String::new()).into();
        !self.ctx.is_task()
            && self
                .ctx
                .client_capabilities()
                .elicitation
                .is_some_and(|modes| modes.allows(&params))
    }

    fn ask<'a>(&'a self, question: &'a Question) -> AskFuture<'a> {
        Box::pin(async move {
            // A form with nothing to fill: accepting approves.
            let params: ElicitRequestParams = ElicitRequestParams::form(question.message()).into();
            #[cfg(not(feature = "legacy-spec"))]
            let asked = {
                let modes = self.ctx.client_capabilities().elicitation;
                if !modes.is_some_and(|modes| modes.allows(&params)) {
                    tracing::info!(target: "ladoga", tool = %question.tool, "the caller cannot be asked to approve this call");
                    return Asked::Answered(Decision::Unavailable);
                }
                self.elicit(&question.key, params).await
            };
            #[cfg(feature = "legacy-spec")]
            let asked = self.ctx.elicit(params).await;
            match asked {
                Ok(answer) => Asked::Answered(decision(&answer)),
                #[cfg(not(feature = "legacy-spec"))]
                Err(error) if error.code() == neva::error::ErrorCode::InputRequired => {
                    Asked::Later(error)
                }
                Err(error) => {
                    tracing::warn!(target: "ladoga", tool = %question.tool, %error, "the caller could not be asked to approve a call");
                    Asked::Answered(Decision::Unavailable)
                }
            }
        })
    }
}

impl Respondent for Elicitation<'_> {
    #[cfg(not(feature = "legacy-spec"))]
    fn replies_later(&self) -> bool {
        // As for approvals: a round asks later, a task and a legacy caller in place.
        !self.ctx.is_task() && Self::can_answer_forms(self.ctx)
    }

    fn reply<'a>(&'a self, inquiry: &'a Inquiry) -> ReplyFuture<'a> {
        Box::pin(async move {
            match self.put(&inquiry.key, inquiry.form()).await {
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
