//! Guards down the agent tree. A run started by a call of a guarded run (an orchestrator that
//! run's model called in process) is guarded by that run's guards as well as its own; its brief,
//! written by a model that read untrusted text, counts as that text; and it tells the run above
//! where the untrusted text it read came from, since its answer may carry it. So a sub-agent
//! cannot read an injection, or act on one, where its caller's guards would not let it.

use std::future::Future;
use std::sync::{Arc, Mutex, PoisonError};

use crate::guard::Guards;

tokio::task_local! {
    /// The guarded run whose turn's calls this task is making.
    static ABOVE: Inherited;
}

/// Where the untrusted text the runs a turn's calls started read came from: for each run that
/// read some, the tool that started it and the sources.
pub(crate) type ReadBelow = Vec<(String, Vec<String>)>;

/// What a run inherits from the guarded run whose call started it.
#[derive(Clone)]
pub(crate) struct Inherited {
    /// The guards of the run above.
    guards: Guards,
    /// Where the untrusted text the run above had read came from when its model made the call.
    tainted: Arc<[String]>,
    /// What the runs its turn's calls started read.
    read: Arc<Mutex<ReadBelow>>,
}

impl Inherited {
    /// What the guarded run whose call this task is making passes on, if one is.
    pub(crate) fn current() -> Option<Self> {
        ABOVE.try_with(Clone::clone).ok()
    }

    /// The guards of the run above.
    pub(crate) fn guards(&self) -> &Guards {
        &self.guards
    }

    /// Where the untrusted text the run above had read came from: the brief it wrote may carry
    /// it.
    pub(crate) fn tainted(&self) -> &[String] {
        &self.tainted
    }

    /// Tells the run above that the run its call of `tool` started read untrusted text from
    /// `sources`.
    pub(crate) fn read(&self, tool: &str, sources: &[String]) {
        if sources.is_empty() {
            return;
        }
        let mut read = self.read.lock().unwrap_or_else(PoisonError::into_inner);
        read.push((tool.to_owned(), sources.to_vec()));
    }
}

/// `calls`, a turn's calls of a run guarded by `guards` that has read untrusted text from
/// `tainted`: the runs they start inherit both, and what they read is added to `read`.
pub(crate) async fn passed_on<F: Future>(
    guards: &Guards,
    tainted: &[String],
    read: &Mutex<ReadBelow>,
    calls: F,
) -> F::Output {
    let above = Inherited {
        guards: guards.clone(),
        tainted: tainted.into(),
        read: Arc::default(),
    };
    let told = Arc::clone(&above.read);
    let output = ABOVE.scope(above, calls).await;
    let told = std::mem::take(&mut *told.lock().unwrap_or_else(PoisonError::into_inner));
    read.lock()
        .unwrap_or_else(PoisonError::into_inner)
        .extend(told);
    output
}
