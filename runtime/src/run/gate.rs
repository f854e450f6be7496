//! The gate a turn's calls pass before any runs: each call the approvals name is put to the
//! approver, all in one round, and a call not approved gets a refusal instead of running.

use svir::{Completion, ToolResult};

use crate::approval::{Approval, Approvals, Approver, Asked, Decision, Question};
use crate::observe::metrics;

/// Which calls need a person's approval, and who is asked. [`Gate::none`] asks nothing and
/// holds nothing but an empty rule.
pub(crate) struct Gate<'a> {
    approvals: Approvals,
    approver: Option<&'a dyn Approver>,
}

/// What the gate made of a turn's calls.
pub(crate) enum Screen {
    /// Every question answered now: the answers, and a refusal for each call not approved.
    Decided {
        approvals: Vec<Approval>,
        refusals: Vec<ToolResult>,
    },
    /// A question answered in a later round: the error that pauses the run until then.
    Later(neva::error::Error),
}

impl<'a> Gate<'a> {
    /// A gate that lets every call through.
    pub(crate) fn none() -> Self {
        Self {
            approvals: Approvals::none(),
            approver: None,
        }
    }

    /// A gate asking `approver` about each call `approvals` names.
    pub(crate) fn new(approvals: Approvals, approver: &'a dyn Approver) -> Self {
        Self {
            approvals,
            approver: Some(approver),
        }
    }

    /// Whether no call needs approval.
    pub(crate) fn is_none(&self) -> bool {
        self.approvals.is_none()
    }

    /// Whether `done` has a call to ask about whose answer comes in a later round.
    pub(crate) fn asks_later(&self, done: &Completion) -> bool {
        let Some(approver) = self.approver else {
            return false;
        };
        let asks = done
            .calls
            .iter()
            .any(|call| self.approvals.needs(&call.name));
        asks && approver.answers_later()
    }

    /// Asks about each call of `done` that needs approval, all in one round, for the run `run`
    /// at turn `turn`.
    pub(crate) async fn screen(&self, run: &str, turn: usize, done: &Completion) -> Screen {
        let (mut approvals, mut refusals) = (Vec::new(), Vec::new());
        if self.approvals.is_none() {
            return Screen::Decided {
                approvals,
                refusals,
            };
        }
        let mut later = None;
        let mut decided = Vec::new();
        for call in done
            .calls
            .iter()
            .filter(|call| self.approvals.needs(&call.name))
        {
            let question = Question::new(run, turn, call, &done.text);
            let asked = match self.approver {
                Some(approver) => approver.ask(&question).await,
                None => Asked::Answered(Decision::Unavailable),
            };
            match asked {
                Asked::Answered(decision) => decided.push((call, decision)),
                // Every question of the turn is asked before the run pauses: one round for all.
                Asked::Later(error) => later = later.or(Some(error)),
            }
        }
        if let Some(later) = later {
            return Screen::Later(later);
        }
        for (call, decision) in decided {
            tracing::info!(target: "ladoga", tool = %call.name, decision = decision.name(), "approval");
            metrics::approval(decision.name());
            approvals.push(Approval::new(call, decision));
            refusals.extend(decision.refusal(call));
        }
        Screen::Decided {
            approvals,
            refusals,
        }
    }
}
