//! A call that enters a durable run (`restate` feature): the run's journal, its task's lines and
//! who answers its questions, taken by the run's orchestrator. Nothing otherwise.

use neva::Context;
use svir::Toolbox;

use crate::model::CompletionModel;
use crate::run::Orchestration;

/// The journal of the durable run whose entry this call is (`restate` feature), taken by the
/// run's orchestrator; none otherwise.
pub(crate) struct Entered {
    /// The durable run's key, the same in every attempt of it.
    #[cfg(feature = "restate")]
    key: Option<String>,
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
                key,
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
                key: Some(key),
                journal: Some(journal.retry_safe(safe.map(|tool| tool.name))),
                line: lines
                    .map(|lines| std::sync::Arc::new(crate::observe::TaskLine::elsewhere(lines))),
                approver,
            };
        }
        let _ = (durable, ctx);
        Self {
            #[cfg(feature = "restate")]
            key: None,
            #[cfg(feature = "restate")]
            journal: None,
            #[cfg(feature = "restate")]
            line: None,
            #[cfg(feature = "restate")]
            approver: None,
        }
    }

    /// The durable run's key, the same in every attempt of it: a run started again after a
    /// crash holds its session as the attempt it replays did.
    pub(crate) fn key(&self) -> Option<&str> {
        #[cfg(feature = "restate")]
        return self.key.as_deref();
        #[cfg(not(feature = "restate"))]
        None
    }

    /// Whether this call is the entry of a durable run.
    pub(crate) fn is_durable(&self) -> bool {
        self.key().is_some()
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

    /// The top of the agent tree the durable run is, when it is an MCP task: the runs its calls
    /// start ask its caller through the task, between its turn's steps (MCP 2026-07-28; under
    /// `legacy-spec` a durable run asks nothing). Its runs below are kept in `runs`; `agent`
    /// is its orchestrator.
    pub(crate) fn top(
        &self,
        ctx: &Context,
        runs: crate::store::Runs,
        agent: &str,
    ) -> Option<crate::tree::Above> {
        #[cfg(all(feature = "restate", not(feature = "legacy-spec")))]
        if let Some(approver) = &self.approver {
            let top = crate::durable::DurableTop::new(ctx, approver.clone(), runs);
            return Some(crate::tree::Above::top(std::sync::Arc::new(top), agent));
        }
        let _ = (ctx, runs, agent);
        None
    }

    /// `run`, on the journal this holds, if it holds one: its task's lines told through the
    /// journal's, its caller's model not asked (a durable run cannot sample its caller).
    pub(crate) fn enter<'a, M, T>(&'a self, run: Orchestration<'a, M, T>) -> Orchestration<'a, M, T>
    where
        M: CompletionModel + ?Sized,
        T: Toolbox + Sync + ?Sized,
    {
        #[cfg(feature = "restate")]
        if let Some(journal) = &self.journal {
            let mut run = run.journal(journal);
            run.seams.caller = run.seams.caller.map(|caller| caller.in_durable_run());
            if run.seams.task.is_none() {
                run.seams.task = self.line.clone();
            }
            return run;
        }
        run
    }
}
