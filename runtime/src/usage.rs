//! Token usage shared with the runs a run is nested in: an orchestrator called in-process by
//! another counts its tokens into its caller's totals as well (and its caller's caller's), so
//! a budget covers the nested runs and the caller's usage includes them.
//!
//! neva runs an in-process tool call on the caller's own task, so a task-local scope set around
//! a run's tool calls is what a nested run, started inside them, sees as its caller.

use std::sync::{Arc, Mutex};

use crate::cost::purse::{self, Purse};
use crate::cost::{Dollars, Spent};
use crate::outcome::TokenUsage;

tokio::task_local! {
    /// The usage of the run whose tool calls are running on this task.
    static CALLER: Arc<SharedUsage>;
}

/// The tokens a run and every run nested in it used, and what they cost.
#[derive(Debug, Default)]
pub(crate) struct SharedUsage {
    usage: Mutex<TokenUsage>,
    spent: Mutex<Spent>,
    /// The run's own dollar budget, if it has one.
    budget: Option<Dollars>,
    /// What of `spent` is booked against a quota.
    booked: Mutex<f64>,
    caller: Option<Arc<SharedUsage>>,
}

/// What is left of the tightest dollar budget of a run and the runs it is nested in.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Left {
    /// The budget.
    pub(crate) budget: Dollars,
    /// What the run that has it spent, the runs nested in it included.
    pub(crate) spent: f64,
}

impl Left {
    /// The dollars left.
    pub(crate) fn usd(&self) -> f64 {
        self.budget.get() - self.spent
    }
}

impl SharedUsage {
    /// The usage of a new run, nested in the run whose tool call this task runs, if any.
    pub(crate) fn new() -> Arc<Self> {
        Self::budgeted(None)
    }

    /// [`Self::new`], for a run with a dollar budget of its own.
    pub(crate) fn budgeted(budget: Option<Dollars>) -> Arc<Self> {
        Arc::new(Self {
            usage: Mutex::default(),
            spent: Mutex::default(),
            budget,
            booked: Mutex::default(),
            caller: CALLER.try_with(Arc::clone).ok(),
        })
    }

    /// What is left of the tightest dollar budget here and up the chain, when any has one: a
    /// nested run has at most what each run it is nested in has left.
    pub(crate) fn left(&self) -> Option<Left> {
        let mut tightest: Option<Left> = None;
        let mut run = Some(self);
        while let Some(shared) = run {
            if let Some(budget) = shared.budget {
                let here = Left {
                    budget,
                    spent: shared.spent().usd,
                };
                if tightest.is_none_or(|left| here.usd() < left.usd()) {
                    tightest = Some(here);
                }
            }
            run = shared.caller.as_deref();
        }
        tightest
    }

    /// Adds one answer's usage here and to every caller up the chain.
    pub(crate) fn add(&self, usage: Option<svir::Usage>) {
        let mut run = Some(self);
        while let Some(shared) = run {
            shared
                .usage
                .lock()
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .add(usage);
            run = shared.caller.as_deref();
        }
    }

    /// Adds what one answer cost (`None`: its model has no known price) here and to every
    /// caller up the chain, as it goes: a nested run's spend counts in its caller's at once.
    pub(crate) fn spend(&self, cost: Option<f64>) {
        let mut spent = Spent::default();
        spent.add(cost);
        self.spent_too(spent);
    }

    /// Adds `spent`, what a run had spent before it paused, here and up the chain.
    pub(crate) fn spent_too(&self, spent: Spent) {
        let mut run = Some(self);
        while let Some(shared) = run {
            (shared.spent.lock())
                .unwrap_or_else(|poisoned| poisoned.into_inner())
                .and(spent);
            run = shared.caller.as_deref();
        }
    }

    /// What the run spent (its nested runs included) that is not booked against a quota yet,
    /// all of it booked from now on.
    pub(crate) fn book_all(&self) -> f64 {
        let spent = self.spent().usd;
        let mut booked = (self.booked.lock()).unwrap_or_else(|poisoned| poisoned.into_inner());
        let unbooked = spent - *booked;
        *booked = spent;
        unbooked
    }

    /// What the run and its nested runs spent so far.
    pub(crate) fn spent(&self) -> Spent {
        *self
            .spent
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// How many runs the run starting on this task is nested in: 0 for one the MCP caller
    /// started, 1 for one an orchestrator's model called, and so on.
    ///
    /// Each is at least one in-process call, so neva's depth of the call is at least this.
    pub(crate) fn nesting() -> usize {
        CALLER
            .try_with(|caller| {
                let mut runs = 1;
                let mut run = caller.caller.as_deref();
                while let Some(shared) = run {
                    runs += 1;
                    run = shared.caller.as_deref();
                }
                runs
            })
            .unwrap_or(0)
    }

    /// The tokens used so far, nested runs included.
    pub(crate) fn get(&self) -> TokenUsage {
        *self
            .usage
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Runs `calls` (a run's tool calls) as this run's callees, its purse theirs.
    pub(crate) async fn scope<F: Future>(self: &Arc<Self>, calls: F) -> F::Output {
        let purse: Arc<dyn Purse> = Arc::clone(self) as _;
        CALLER
            .scope(Arc::clone(self), purse::holding(purse, calls))
            .await
    }
}

impl Purse for SharedUsage {
    fn left(&self) -> Option<f64> {
        SharedUsage::left(self).map(|left| left.usd())
    }

    fn spend(&self, cost: Option<f64>) {
        SharedUsage::spend(self, cost);
    }
}
