//! The gate a turn's calls pass before any runs: each call the approvals name is put to the
//! approver, and each `ask_caller` question to the respondent, all in one round; a call not
//! approved gets a refusal instead of running, and a question its reply.

use svir::{Completion, ToolResult};

use crate::approval::{
    ASK_CALLER, Approval, Approvals, Approver, Asked, Decision, Inquired, Inquiry, Question,
    Replied, Respondent,
};
use crate::metrics;

/// Which calls need a person's approval, and who is asked. [`Gate::none`] asks nothing and
/// holds nothing but an empty rule.
pub(crate) struct Gate<'a> {
    approvals: Approvals,
    approver: Option<&'a dyn Approver>,
    /// Who replies to the model's `ask_caller` questions, when it is offered the tool.
    respondent: Option<&'a dyn Respondent>,
}

/// What the gate made of a turn's calls.
pub(crate) enum Screen {
    /// Every question answered now: the answers, and a result standing for each call that
    /// does not run: a refusal for each call not approved, a reply for each question.
    Decided {
        approvals: Vec<Approval>,
        refusals: Vec<ToolResult>,
        inquiries: Vec<Inquired>,
    },
    /// A question answered in a later round: the error that pauses the run until then.
    Later(neva::error::Error),
}

impl Default for Gate<'_> {
    fn default() -> Self {
        Self::none()
    }
}

impl<'a> Gate<'a> {
    /// A gate that lets every call through.
    pub(crate) fn none() -> Self {
        Self {
            approvals: Approvals::none(),
            approver: None,
            respondent: None,
        }
    }

    /// Asks `approver` about each call `approvals` names.
    pub(crate) fn approve(&mut self, approvals: Approvals, approver: &'a dyn Approver) {
        self.approvals = approvals;
        self.approver = Some(approver);
    }

    /// Puts the model's `ask_caller` questions to `respondent`.
    pub(crate) fn reply(&mut self, respondent: &'a dyn Respondent) {
        self.respondent = Some(respondent);
    }

    /// Whether the model is offered `ask_caller`.
    pub(crate) fn asks_caller(&self) -> bool {
        self.respondent.is_some()
    }

    /// Whether no call needs approval and the model asks nothing.
    pub(crate) fn is_none(&self) -> bool {
        self.approvals.is_none() && self.respondent.is_none()
    }

    /// Whether `call` is a question of the model's, put to the respondent, never approved.
    pub(crate) fn inquires(&self, call: &svir::ToolCall) -> bool {
        self.respondent.is_some() && call.name == ASK_CALLER
    }

    /// Whether `call` needs approval: its tool's, or one of the calls a guard `asked` about.
    fn needs(&self, call: &svir::ToolCall, asked: &[String]) -> bool {
        !self.inquires(call) && (self.approvals.needs(&call.name) || asked.contains(&call.id))
    }

    /// Whether `done` has a call to ask about whose answer comes in a later round, the calls a
    /// guard `asked` about included.
    pub(crate) fn asks_later(&self, done: &Completion, asked: &[String]) -> bool {
        let approves = self
            .approver
            .is_some_and(|approver| approver.answers_later())
            && done.calls.iter().any(|call| self.needs(call, asked));
        let inquires = self
            .respondent
            .is_some_and(|respondent| respondent.replies_later())
            && done.calls.iter().any(|call| self.inquires(call));
        approves || inquires
    }

    /// Asks about each call of `done` that needs approval (the calls a guard `asked` about
    /// included), all in one round, for the run `run` at turn `turn`.
    pub(crate) async fn screen(
        &self,
        run: &str,
        turn: usize,
        done: &Completion,
        asked: &[String],
    ) -> Screen {
        let (mut approvals, mut refusals, mut inquiries) = (Vec::new(), Vec::new(), Vec::new());
        if self.is_none() && asked.is_empty() {
            return Screen::Decided {
                approvals,
                refusals,
                inquiries,
            };
        }
        let mut later = None;
        let mut decided = Vec::new();
        let mut replied = Vec::new();
        for call in done.calls.iter().filter(|call| self.inquires(call)) {
            let inquiry = match Inquiry::new(run, turn, call) {
                Ok(inquiry) => inquiry,
                Err(refusal) => {
                    refusals.push(refusal);
                    continue;
                }
            };
            let respondent = self.respondent.expect("a call inquires with a respondent");
            match respondent.reply(&inquiry).await {
                Replied::Now(reply) => replied.push((call, inquiry, reply)),
                Replied::Later(error) => later = later.or(Some(error)),
            }
        }
        for call in done.calls.iter().filter(|call| self.needs(call, asked)) {
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
        for (call, inquiry, reply) in replied {
            tracing::info!(target: "ladoga", reply = reply.name(), "the caller's person replied");
            refusals.push(reply.result(call));
            inquiries.push(Inquired::new(inquiry, reply));
        }
        for (call, decision) in decided {
            tracing::info!(target: "ladoga", tool = %crate::toolbox::Escaped(&call.name), decision = decision.name(), "approval");
            metrics::approval(decision.name());
            approvals.push(Approval::new(call, decision));
            refusals.extend(decision.refusal(call));
        }
        Screen::Decided {
            approvals,
            refusals,
            inquiries,
        }
    }
}
