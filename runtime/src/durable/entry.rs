//! The call a durable run's workflow makes of its orchestrator, in this process: the journal
//! the run records in, handed to the orchestrator's handler, and its answer handed back.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

use neva::auth::Claims;
use neva::types::CallToolResponse;

use super::Journal;
use super::approval::Approver;
use super::lines::Lines;

tokio::task_local! {
    /// The durable run this task's tool call is the workflow's entry into, if it is one.
    static ENTRY: Arc<Entry>;
}

/// A durable run's entry into its orchestrator: the journal, taken once by the run, and the
/// answer its handler gave.
pub(super) struct Entry {
    /// The run's orchestrator, which the workflow's call through the door is made of.
    tool: String,
    /// The run's key, the same in every attempt of it.
    key: String,
    /// Whether the workflow's call came through the door: once, for the run's own call.
    entered: AtomicBool,
    journal: Mutex<Option<Journal<'static>>>,
    /// Where the run's lines go, and who answers its questions, when it is an MCP task.
    lines: Option<Lines>,
    approver: Mutex<Option<Approver>>,
    /// The caller's claims, which the run's call is made with.
    claims: Option<Arc<dyn Claims>>,
    /// Whether an orchestrator took this call: the first one reached is the run's own; any
    /// other, called by it, runs as it would outside a durable run.
    claimed: AtomicBool,
    answer: Mutex<Option<CallToolResponse>>,
}

impl Entry {
    /// An entry recording in `journal`.
    pub(super) fn new(
        tool: String,
        key: String,
        journal: Journal<'static>,
        lines: Option<Lines>,
        approver: Option<Approver>,
        claims: Option<Arc<dyn Claims>>,
    ) -> Self {
        Self {
            tool,
            key,
            entered: AtomicBool::new(false),
            journal: Mutex::new(Some(journal)),
            lines,
            approver: Mutex::new(approver),
            claims,
            claimed: AtomicBool::new(false),
            answer: Mutex::new(None),
        }
    }

    /// Runs `call` as this entry: the orchestrator it reaches runs on the journal.
    pub(super) async fn scope<T>(self: Arc<Self>, call: impl Future<Output = T>) -> T {
        ENTRY.scope(self, call).await
    }

    /// The answer the run's orchestrator gave, once.
    pub(super) fn answer(&self) -> Option<CallToolResponse> {
        self.answer.lock().ok()?.take()
    }
}

/// What a tool call is to durable runs.
pub(super) enum Called {
    /// The entry of a durable run: the run's own call of its orchestrator.
    Entry(Arc<Entry>),
    /// A call made inside a durable run, by its model: it runs as any call does.
    Inside,
    /// A call from outside: an MCP caller's.
    Outside,
}

/// What this task's call is, claiming the entry for the orchestrator that asks first.
pub(super) fn called() -> Called {
    match ENTRY.try_with(Arc::clone) {
        Ok(entry) if !entry.claimed.swap(true, Ordering::AcqRel) => Called::Entry(entry),
        Ok(_) => Called::Inside,
        Err(_) => Called::Outside,
    }
}

/// The orchestrator the workflow's call through the door is made of, once: the run's own call.
/// Any other call of the door, inside the run or not, is none.
pub(super) fn entering() -> Option<String> {
    ENTRY
        .try_with(|entry| (!entry.entered.swap(true, Ordering::AcqRel)).then(|| entry.tool.clone()))
        .ok()
        .flatten()
}

/// The caller's claims, for a call made in a durable run: the run's own call and every call
/// inside it are made with them.
pub(super) fn claims() -> Option<Arc<dyn Claims>> {
    ENTRY.try_with(|entry| entry.claims.clone()).ok().flatten()
}

/// What the run's own orchestrator takes of the durable run this task's call is the entry of,
/// once: nothing it calls finds it.
pub(crate) struct Taken {
    /// The run's key, the same in every attempt of it: what holds its session.
    pub(crate) key: String,
    pub(crate) journal: Journal<'static>,
    pub(crate) lines: Option<Lines>,
    pub(crate) approver: Option<Approver>,
}

/// The journal of the durable run this task's call is the entry of, where its lines go and who
/// answers its questions, once.
pub(crate) fn journal() -> Option<Taken> {
    let entry = ENTRY.try_with(Arc::clone).ok()?;
    let journal = entry.journal.lock().ok()?.take()?;
    let approver = entry.approver.lock().ok()?.take();
    Some(Taken {
        key: entry.key.clone(),
        journal,
        lines: entry.lines.clone(),
        approver,
    })
}

impl Entry {
    /// Keeps `answer` for the workflow, which returns it as the run's result.
    pub(super) fn answered(&self, answer: &CallToolResponse) {
        if let Ok(mut slot) = self.answer.lock() {
            *slot = Some(answer.clone());
        }
    }
}
