//! A durable run's journal as the recorder of its steps: each model request and each turn's
//! calls a step of the Restate handler the run is in.

use svir::{ToolResult, Toolbox};

use crate::durable::Journal;
use crate::model::CompletionModel;
use crate::run::Orchestration;
use crate::run::recorder::{Answered, Recorder, Step};

impl Recorder for Journal<'_> {
    fn answer<'a>(&'a self, answer: Step<'a, Answered>) -> Step<'a, Answered> {
        Box::pin(async move {
            let work = async {
                let (done, by) = answer.await;
                (done.map_err(|error| (error.kind(), error.status())), by)
            };
            match self.step("model request", work).await {
                Ok(((done, by), _)) => (done.map_err(failure), by),
                Err(error) => (
                    Err(svir::Error::new(svir::ErrorKind::Server).with_detail(error)),
                    None,
                ),
            }
        })
    }

    fn cut_before(&self) -> Step<'_, bool> {
        // The intent's step runs only in the first attempt that reaches it; a journal that
        // refuses it counts as cut, so nothing unsafe runs twice.
        Box::pin(async {
            self.step("intent", async {})
                .await
                .map_or(true, |((), ran)| !ran)
        })
    }

    fn is_retry_safe(&self, tool: &str) -> bool {
        Journal::is_retry_safe(self, tool)
    }

    fn calls<'a>(&'a self, results: Step<'a, Vec<ToolResult>>) -> Step<'a, Vec<ToolResult>> {
        Box::pin(async move {
            match self.step("tool calls", results).await {
                Ok((results, _)) => results,
                Err(error) => {
                    tracing::warn!(target: "ladoga", %error, "a turn's calls were not recorded");
                    Vec::new() // each call then answers that it got no result
                }
            }
        })
    }
}

impl<'a, M, T> Orchestration<'a, M, T>
where
    M: CompletionModel + ?Sized,
    T: Toolbox + Sync + ?Sized,
{
    /// Records each model request and each turn's calls in `journal`, the Restate handler's the
    /// run is in: a run cut by a crash and invoked again goes on from its journal, asking and
    /// calling nothing the journal holds. See [`durable`](crate::durable).
    pub fn journal(mut self, journal: &'a Journal<'a>) -> Self {
        self.seams.recorder = Some(journal);
        self
    }
}

/// The model failure a journal recorded.
fn failure((kind, status): (svir::ErrorKind, Option<u16>)) -> svir::Error {
    match status {
        Some(status) => svir::Error::new(kind).with_status(status),
        None => svir::Error::new(kind),
    }
}
