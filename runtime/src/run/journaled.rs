//! The seams of a durable run (`restate` feature): a model request and a turn's calls recorded
//! in the run's [`Journal`](crate::durable::Journal), when it has one. Without one, or without
//! the feature, each seam is the work itself.

use neva::Context;
use svir::{Completion, ToolResult, Toolbox};

use crate::model::CompletionModel;
use crate::run::Orchestration;

/// A model answer, and the fallback that gave it if one did.
pub(super) type Answer = (Result<Completion, svir::Error>, Option<String>);

/// What a call cut by a crash, on a tool that may not run twice, answers the model.
const OUTCOME_UNKNOWN: &str = "the outcome of this call is unknown: the run was cut while it \
                               was being made, and it is not made again. Check before you \
                               call it again.";

/// The journal of the durable run whose entry this call is (`restate` feature), taken by the
/// run's orchestrator; none otherwise.
pub(crate) struct Entered {
    #[cfg(feature = "restate")]
    journal: Option<crate::durable::Journal<'static>>,
    /// What the run says of itself, and who answers its questions, when it is an MCP task.
    #[cfg(feature = "restate")]
    line: Option<std::sync::Arc<crate::observe::TaskLine>>,
    #[cfg(feature = "restate")]
    approver: Option<crate::durable::Approver>,
}

impl Entered {
    /// The journal, if `durable` and this call is the entry of a durable run: retry-safe for
    /// the server's tools annotated read-only or idempotent.
    pub(crate) async fn take(durable: bool, ctx: &Context) -> Self {
        #[cfg(feature = "restate")]
        if durable
            && let Some(crate::durable::Taken {
                journal,
                lines,
                approver,
            }) = crate::durable::entered()
        {
            let tools = ctx.tools().list().await.into_iter();
            let safe = tools.filter(|tool| {
                tool.annotations.as_ref().is_some_and(|hints| {
                    hints.readonly == Some(true) || hints.idempotent == Some(true)
                })
            });
            return Self {
                journal: Some(journal.retry_safe(safe.map(|tool| tool.name))),
                line: lines
                    .map(|lines| std::sync::Arc::new(crate::observe::TaskLine::elsewhere(lines))),
                approver,
            };
        }
        let _ = (durable, ctx);
        Self {
            #[cfg(feature = "restate")]
            journal: None,
            #[cfg(feature = "restate")]
            line: None,
            #[cfg(feature = "restate")]
            approver: None,
        }
    }

    /// Who answers the run's questions, when it is a durable run's task: its caller, through
    /// durable promises; none otherwise.
    pub(crate) fn approver(&self) -> Option<&dyn crate::approval::Approver> {
        #[cfg(feature = "restate")]
        if let Some(approver) = &self.approver {
            return Some(approver);
        }
        None
    }
}

impl<'a, M, T> Orchestration<'a, M, T>
where
    M: CompletionModel + ?Sized,
    T: Toolbox + Sync + ?Sized,
{
    /// This run, on the journal `entered` holds, if it holds one.
    pub(crate) fn entered(self, entered: &'a Entered) -> Self {
        #[cfg(feature = "restate")]
        if let Some(journal) = &entered.journal {
            let mut run = self.journal(journal);
            run.caller = run.caller.map(|caller| caller.in_durable_run());
            return match &entered.line {
                Some(line) if run.task.is_none() => run.telling(Some(line.clone())),
                _ => run,
            };
        }
        let _ = entered;
        self
    }
}

impl<M, T> Orchestration<'_, M, T>
where
    M: CompletionModel + ?Sized,
    T: Toolbox + Sync + ?Sized,
{
    /// `answer`, recorded as a step of the run's journal.
    pub(super) async fn recorded_answer(&self, answer: impl Future<Output = Answer>) -> Answer {
        #[cfg(feature = "restate")]
        if let Some(journal) = self.journal {
            let work = async {
                let (done, by) = answer.await;
                (done.map_err(|error| (error.kind(), error.status())), by)
            };
            return match journal.step("model request", work).await {
                Ok(((done, by), _)) => (done.map_err(failure), by),
                Err(error) => (
                    Err(svir::Error::new(svir::ErrorKind::Server).with_detail(error)),
                    None,
                ),
            };
        }
        answer.await
    }

    /// Whether an earlier attempt of the run reached this turn's calls: then a call to a tool
    /// that is not retry-safe may have been made, and is not made again.
    pub(super) async fn cut_before(&self) -> bool {
        #[cfg(feature = "restate")]
        if let Some(journal) = self.journal {
            // The intent's step runs only in the first attempt that reaches it; a journal that
            // refuses it counts as cut, so nothing unsafe runs twice.
            return journal
                .step("intent", async {})
                .await
                .map_or(true, |((), ran)| !ran);
        }
        false
    }

    /// Whether `call`, a call of a turn an earlier attempt was `cut` in, is to a tool that may
    /// not run twice: then it is not made again, and answers [`unknown_outcome`].
    pub(super) fn not_again(&self, cut: bool, call: &svir::ToolCall) -> bool {
        #[cfg(feature = "restate")]
        if let Some(journal) = self.journal
            && cut
            && !journal.is_retry_safe(&call.name)
        {
            return true;
        }
        let _ = (cut, call);
        false
    }

    /// A turn's `results`, recorded as one step of the run's journal.
    pub(super) async fn recorded_calls(
        &self,
        results: impl Future<Output = Vec<ToolResult>>,
    ) -> Vec<ToolResult> {
        #[cfg(feature = "restate")]
        if let Some(journal) = self.journal {
            return match journal.step("tool calls", results).await {
                Ok((results, _)) => results,
                Err(error) => {
                    tracing::warn!(target: "ladoga", %error, "a turn's calls were not recorded");
                    Vec::new() // each call then answers that it got no result
                }
            };
        }
        results.await
    }
}

/// The model failure a journal recorded.
#[cfg(feature = "restate")]
fn failure((kind, status): (svir::ErrorKind, Option<u16>)) -> svir::Error {
    match status {
        Some(status) => svir::Error::new(kind).with_status(status),
        None => svir::Error::new(kind),
    }
}

/// The result of `call`, cut by a crash and not made again.
pub(super) fn unknown_outcome(call: &svir::ToolCall) -> ToolResult {
    ToolResult::error(&call.id, OUTCOME_UNKNOWN)
}
