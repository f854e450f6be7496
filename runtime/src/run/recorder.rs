//! The seams a durable run records its steps at: a model request, and a turn's calls. The run is
//! handed a [`Recorder`] (a Restate journal, `durable/`); without one, each seam is the work
//! itself.

use std::pin::Pin;

use svir::{Completion, ToolCall, ToolResult, Toolbox};

use crate::model::CompletionModel;
use crate::run::Orchestration;

/// A model answer, and the fallback that gave it if one did.
pub(crate) type Answered = (Result<Completion, svir::Error>, Option<String>);

/// A step's work, or its record.
pub(crate) type Step<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// What records a run's steps, so that a run cut by a crash and started again goes on from its
/// record, asking and calling nothing it holds.
pub(crate) trait Recorder: Send + Sync {
    /// `answer`, recorded: run now, or read back.
    fn answer<'a>(&'a self, answer: Step<'a, Answered>) -> Step<'a, Answered>;

    /// Whether an earlier attempt of the run reached this turn's calls.
    fn cut_before(&self) -> Step<'_, bool>;

    /// Whether a call to `tool` may run again when a crash cut its turn.
    fn is_retry_safe(&self, tool: &str) -> bool;

    /// A turn's `results`, recorded: run now, or read back.
    fn calls<'a>(&'a self, results: Step<'a, Vec<ToolResult>>) -> Step<'a, Vec<ToolResult>>;
}

/// What a call cut by a crash, on a tool that may not run twice, answers the model.
const OUTCOME_UNKNOWN: &str = "the outcome of this call is unknown: the run was cut while it \
                               was being made, and it is not made again. Check before you \
                               call it again.";

impl<M, T> Orchestration<'_, M, T>
where
    M: CompletionModel + ?Sized,
    T: Toolbox + Sync + ?Sized,
{
    /// `answer`, recorded as a step of the run's record.
    pub(super) async fn recorded_answer(
        &self,
        answer: impl Future<Output = Answered> + Send,
    ) -> Answered {
        match self.seams.recorder {
            Some(recorder) => recorder.answer(Box::pin(answer)).await,
            None => answer.await,
        }
    }

    /// Whether an earlier attempt of the run reached this turn's calls: then a call to a tool
    /// that is not retry-safe may have been made, and is not made again.
    pub(super) async fn cut_before(&self) -> bool {
        match self.seams.recorder {
            Some(recorder) => recorder.cut_before().await,
            None => false,
        }
    }

    /// Whether `call`, a call of a turn an earlier attempt was `cut` in, is to a tool that may
    /// not run twice: then it is not made again, and answers [`unknown_outcome`].
    pub(super) fn not_again(&self, cut: bool, call: &ToolCall) -> bool {
        cut && (self.seams.recorder).is_some_and(|recorder| !recorder.is_retry_safe(&call.name))
    }

    /// A turn's `results`, recorded as one step of the run's record.
    pub(super) async fn recorded_calls(
        &self,
        results: impl Future<Output = Vec<ToolResult>> + Send,
    ) -> Vec<ToolResult> {
        match self.seams.recorder {
            Some(recorder) => recorder.calls(Box::pin(results)).await,
            None => results.await,
        }
    }
}

/// Whether `result` is that of a call cut by a crash and not made again.
pub(super) fn is_unknown(result: &ToolResult) -> bool {
    result.is_error && result.content == OUTCOME_UNKNOWN
}

/// The result of `call`, cut by a crash and not made again.
pub(super) fn unknown_outcome(call: &ToolCall) -> ToolResult {
    ToolResult::error(&call.id, OUTCOME_UNKNOWN)
}
