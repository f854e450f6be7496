//! One call put to a person, what they answered, and who asks them.

use std::future::Future;
use std::pin::Pin;

use serde::{Deserialize, Serialize};
use svir::{ToolCall, ToolResult};

use crate::toolbox::arguments;

/// One call put to the caller.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct Question {
    /// The tool the model wants to call.
    pub tool: String,
    /// Its arguments, as the model wrote them.
    pub arguments: String,
    /// What the model wrote beside its calls, if anything.
    pub said: String,
    /// What the answer is filed under: a digest of the run, its turn, the tool's name and its
    /// canonical JSON arguments. An answer holds for this one call and no other.
    pub key: String,
}

impl Question {
    /// The question about `call`, the `turn`-th of the run `run`, next to the model's `said`.
    pub(crate) fn new(run: &str, turn: usize, call: &ToolCall, said: &str) -> Self {
        Self {
            tool: call.name.clone(),
            arguments: call.arguments.clone(),
            said: said.to_owned(),
            key: format!("ladoga/approve/{}", digest(run, turn, call)),
        }
    }

    /// The question as a person reads it.
    pub fn message(&self) -> String {
        let said = self.said.trim();
        let said = if said.is_empty() {
            String::new()
        } else {
            format!("\n\nThe model says: {said}")
        };
        format!(
            "The model wants to call `{}` with these arguments:\n{}{said}\n\nApprove this call?",
            self.tool,
            pretty(&self.arguments)
        )
    }
}

/// What the caller answered about one call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Decision {
    /// The person approved: the call runs.
    Approved,
    /// The person declined: the call does not run.
    Declined,
    /// The person dismissed the question: the call does not run.
    Cancelled,
    /// The caller cannot be asked (it declared no elicitation, or asking failed): the call
    /// never runs.
    Unavailable,
}

impl Decision {
    /// The name the report gives it: `approved`, `declined`, `cancelled` or `unavailable`.
    pub fn name(self) -> &'static str {
        match self {
            Self::Approved => "approved",
            Self::Declined => "declined",
            Self::Cancelled => "cancelled",
            Self::Unavailable => "unavailable",
        }
    }

    /// The result the model gets in place of a call that did not run, `None` for an approved
    /// one.
    pub(crate) fn refusal(self, call: &ToolCall) -> Option<ToolResult> {
        let why = match self {
            Self::Approved => return None,
            Self::Declined => "the person you work for declined this call",
            Self::Cancelled => "the person you work for dismissed the question about this call",
            Self::Unavailable => {
                "this call needs the approval of the person you work for, and they cannot be \
                 asked here"
            }
        };
        Some(ToolResult::error(
            &call.id,
            format!(
                "not run: {why}. Do not call `{}` again with these arguments; go on without it, \
                 or answer.",
                call.name
            ),
        ))
    }
}

/// A question asked and its answer, as a run's report lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Approval {
    /// The tool.
    pub tool: String,
    /// Its arguments, as the model wrote them.
    pub arguments: String,
    /// The answer.
    pub decision: Decision,
}

impl Approval {
    pub(crate) fn new(call: &ToolCall, decision: Decision) -> Self {
        Self {
            tool: call.name.clone(),
            arguments: call.arguments.clone(),
            decision,
        }
    }
}

/// Whether a question was answered now, or must wait for a later round of the request.
#[derive(Debug)]
pub enum Asked {
    /// The answer.
    Answered(Decision),
    /// The caller was sent the question with the request's result, and answers it when it
    /// calls again: the run pauses. Holds the error the tool handler returns for that (neva's
    /// `input_required`, under MCP 2026-07-28).
    Later(neva::error::Error),
}

/// The future an [`Approver`] answers with.
pub type AskFuture<'a> = Pin<Box<dyn Future<Output = Asked> + Send + 'a>>;

/// Whoever answers the [`Question`]s of a run. An [`Orchestrator`](crate::Orchestrator) asks
/// its MCP caller through elicitation; any `Fn(&Question) -> Decision` answers at once.
pub trait Approver: Send + Sync {
    /// Asks about one call.
    fn ask<'a>(&'a self, question: &'a Question) -> AskFuture<'a>;

    /// Whether a question it has no answer for yet is answered in a later round
    /// ([`Asked::Later`]): the run then keeps its state before it asks, so that a state that
    /// could not be kept ends the run without a question. `false` by default: an approver that
    /// answers at once.
    fn answers_later(&self) -> bool {
        false
    }
}

impl<F> Approver for F
where
    F: Fn(&Question) -> Decision + Send + Sync,
{
    fn ask<'a>(&'a self, question: &'a Question) -> AskFuture<'a> {
        let decision = self(question);
        Box::pin(std::future::ready(Asked::Answered(decision)))
    }
}

/// The hex SHA-256 of the run, the turn, the tool name and the canonical JSON arguments, each
/// length-prefixed so no two different calls write the same bytes.
pub(super) fn digest(run: &str, turn: usize, call: &ToolCall) -> String {
    let arguments = arguments::canonical(&call.arguments);
    crate::tree::digest(&[run, &turn.to_string(), &call.name, &arguments])
}

/// The arguments indented when they are JSON, as written when not.
fn pretty(arguments: &str) -> String {
    serde_json::from_str::<serde_json::Value>(arguments)
        .ok()
        .and_then(|value| serde_json::to_string_pretty(&value).ok())
        .unwrap_or_else(|| arguments.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, arguments: &str) -> ToolCall {
        ToolCall::new("c1", name, arguments)
    }

    #[test]
    fn a_key_holds_for_one_tool_one_set_of_arguments_one_run_and_one_turn() {
        let key =
            |run, turn, name, arguments| Question::new(run, turn, &call(name, arguments), "").key;
        let approved = key("r1", 2, "clear_board", r#"{"board": "a", "all": true}"#);
        assert_eq!(
            approved,
            key("r1", 2, "clear_board", r#"{"all":true,"board":"a"}"#)
        );
        assert_ne!(
            approved,
            key("r1", 2, "clear_board", r#"{"board": "b", "all": true}"#)
        );
        assert_ne!(
            approved,
            key("r1", 2, "wipe_board", r#"{"board": "a", "all": true}"#)
        );
        assert_ne!(
            approved,
            key("r2", 2, "clear_board", r#"{"board": "a", "all": true}"#)
        );
        assert_ne!(
            approved,
            key("r1", 3, "clear_board", r#"{"board": "a", "all": true}"#)
        );
        assert!(approved.starts_with("ladoga/approve/"));
    }

    #[test]
    fn the_question_names_the_tool_and_shows_the_arguments_and_the_models_words() {
        let question = Question::new(
            "r",
            1,
            &call("clear_board", r#"{"all":true}"#),
            "Clearing it.",
        );
        let message = question.message();
        assert!(message.contains("`clear_board`"), "{message}");
        assert!(message.contains("\"all\": true"), "{message}");
        assert!(
            message.contains("The model says: Clearing it."),
            "{message}"
        );
    }

    #[test]
    fn only_an_approved_call_runs() {
        let call = call("clear_board", "{}");
        assert!(Decision::Approved.refusal(&call).is_none());
        for decision in [
            Decision::Declined,
            Decision::Cancelled,
            Decision::Unavailable,
        ] {
            let refusal = decision.refusal(&call).expect("refused");
            assert!(refusal.is_error);
            assert_eq!(refusal.call_id, "c1");
        }
    }
}
