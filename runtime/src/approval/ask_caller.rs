//! The model's own questions to the person it works for: the `ask_caller` tool it is offered,
//! the form a question is put as, the reply, and who replies.
//!
//! A call of `ask_caller` never reaches the toolbox. It is screened with the approvals, at the
//! same seam and in the same round ([`Gate`](crate::run)): the question goes to the caller as
//! an elicitation form, and the reply stands as the call's result.

use std::future::Future;
use std::pin::Pin;

use neva::types::Schema;
use neva::types::elicitation::{ElicitRequestParams, ElicitResult, ElicitationAction};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use svir::{ToolCall, ToolResult};

use crate::approval::question;

/// The name of the tool a run that may ask offers its model
/// ([`Orchestrator::ask`](crate::Orchestrator::ask)).
pub const ASK_CALLER: &str = "ask_caller";

/// The form field the person's answer is in.
const FIELD: &str = "answer";

/// The `ask_caller` tool as the model is offered it: a question, and the values to choose from
/// if the answer is one of them.
fn tool() -> svir::Tool {
    svir::Tool::new(
        ASK_CALLER,
        "Asks the person you work for one question and waits for their answer. Ask only what \
         you cannot find out with your other tools and must not guess, such as a date, a \
         preference or a choice. Give `choices` when the answer is one of a few values. The \
         result is the answer, or says the person declined, dismissed the question or cannot \
         be asked.",
    )
    .schema(json!({
        "type": "object",
        "properties": {
            "question": {
                "type": "string",
                "description": "The question, as the person will read it."
            },
            "choices": {
                "type": "array",
                "items": {"type": "string"},
                "description": "The values the person chooses among; leave out for a free answer."
            }
        },
        "required": ["question"]
    }))
}

/// `tools` with `ask_caller` after them; an error naming the clash when one of them is called
/// `ask_caller` already.
pub(crate) fn offer(mut tools: Vec<svir::Tool>) -> Result<Vec<svir::Tool>, String> {
    if tools.iter().any(|tool| tool.name == ASK_CALLER) {
        return Err(format!(
            "the toolbox has a tool named `{ASK_CALLER}`, the name of the tool that asks the \
             caller (`ask`): rename one, or do not ask"
        ));
    }
    tools.push(tool());
    Ok(tools)
}

/// One question the model puts to the caller's person, read from its `ask_caller` call.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Inquiry {
    /// The question.
    pub question: String,
    /// The values the answer is one of; empty for a free answer.
    pub choices: Vec<String>,
    /// What the reply is filed under: a digest of the run, its turn, and the call. A reply
    /// holds for this one call and no other.
    pub key: String,
}

impl Inquiry {
    /// The question of `call`, the `turn`-th of the run `run`; the error result the model gets
    /// instead when the call's arguments are not a question.
    pub(crate) fn new(run: &str, turn: usize, call: &ToolCall) -> Result<Self, ToolResult> {
        #[derive(Deserialize)]
        struct Arguments {
            question: String,
            #[serde(default)]
            choices: Option<Vec<String>>,
        }
        let refused = |why: &str| {
            ToolResult::error(
                &call.id,
                format!(
                    "not asked: {why}. Call `{ASK_CALLER}` with a `question` string, and \
                     `choices`, a list of strings, if the answer is one of them."
                ),
            )
        };
        let arguments: Arguments = serde_json::from_str(&call.arguments)
            .map_err(|error| refused(&format!("the arguments do not read: {error}")))?;
        let question = arguments.question.trim();
        if question.is_empty() {
            return Err(refused("the question is empty"));
        }
        let mut choices: Vec<String> = Vec::new();
        for choice in arguments.choices.unwrap_or_default() {
            let choice = choice.trim();
            if !choice.is_empty() && !choices.iter().any(|kept| kept == choice) {
                choices.push(choice.to_owned());
            }
        }
        Ok(Self {
            question: question.to_owned(),
            choices,
            key: format!("ladoga/ask/{}", question::digest(run, turn, call)),
        })
    }

    /// The elicitation form the question is put as: the question as its message, and one
    /// required field, `answer`, a string, or one of the choices (an `enum`).
    pub fn form(&self) -> ElicitRequestParams {
        let field = match self.choices.is_empty() {
            true => json!({"type": "string", "title": "Answer"}),
            false => json!({"type": "string", "title": "Answer", "enum": self.choices}),
        };
        ElicitRequestParams::form(&self.question)
            .with_required(FIELD, Schema::from(&field))
            .into()
    }

    /// The reply an elicitation's `answer` gives.
    pub fn reply(&self, answer: &ElicitResult) -> Reply {
        match answer.action {
            ElicitationAction::Accept => {
                let given = answer
                    .content
                    .as_ref()
                    .and_then(|content| content.get(FIELD));
                Reply::Answered(match given {
                    Some(Value::String(text)) => text.clone(),
                    Some(Value::Null) | None => String::new(),
                    Some(other) => other.to_string(),
                })
            }
            ElicitationAction::Decline => Reply::Declined,
            ElicitationAction::Cancel => Reply::Cancelled,
        }
    }
}

/// What the caller's person replied to one [`Inquiry`].
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum Reply {
    /// The person answered: their answer.
    Answered(String),
    /// The person declined to answer.
    Declined,
    /// The person dismissed the question.
    Cancelled,
    /// The person cannot be asked (the caller declared no form elicitation, or asking
    /// failed).
    Unavailable,
}

impl Reply {
    /// The name the report gives it: `answered`, `declined`, `cancelled` or `unavailable`.
    pub fn name(&self) -> &'static str {
        match self {
            Self::Answered(_) => "answered",
            Self::Declined => "declined",
            Self::Cancelled => "cancelled",
            Self::Unavailable => "unavailable",
        }
    }

    /// The answer, if the person gave one.
    pub fn answer(&self) -> Option<&str> {
        match self {
            Self::Answered(answer) => Some(answer),
            _ => None,
        }
    }

    /// The result of the `ask_caller` call `call`: the answer itself, or what became of the
    /// question.
    pub(crate) fn result(&self, call: &ToolCall) -> ToolResult {
        let said = match self {
            Self::Answered(answer) if answer.is_empty() => {
                "the person you work for answered with nothing"
            }
            Self::Answered(answer) => return ToolResult::new(&call.id, answer.clone()),
            Self::Declined => "declined: the person you work for chose not to answer",
            Self::Cancelled => "cancelled: the person you work for dismissed the question",
            Self::Unavailable => {
                return ToolResult::error(
                    &call.id,
                    format!(
                        "not asked: the person you work for cannot be asked here. Do not call \
                         `{ASK_CALLER}` again; go on without the answer, or answer."
                    ),
                );
            }
        };
        ToolResult::new(
            &call.id,
            format!("{said}. Go on without the answer, or answer."),
        )
    }
}

/// A question the model asked and the reply, as a run's report lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Inquired {
    /// The question.
    pub question: String,
    /// The values the answer was to be one of; empty for a free answer.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub choices: Vec<String>,
    /// The reply.
    pub reply: Reply,
}

impl Inquired {
    pub(crate) fn new(inquiry: Inquiry, reply: Reply) -> Self {
        Self {
            question: inquiry.question,
            choices: inquiry.choices,
            reply,
        }
    }
}

/// Whether a question was replied to now, or must wait for a later round of the request.
#[derive(Debug)]
pub enum Replied {
    /// The reply.
    Now(Reply),
    /// The caller was sent the question with the request's result, and replies when it calls
    /// again: the run pauses. Holds the error the tool handler returns for that (neva's
    /// `input_required`, under MCP 2026-07-28).
    Later(neva::error::Error),
}

/// The future a [`Respondent`] replies with.
pub type ReplyFuture<'a> = Pin<Box<dyn Future<Output = Replied> + Send + 'a>>;

/// Whoever replies to the model's [`Inquiry`]s. An [`Orchestrator`](crate::Orchestrator) asks
/// its MCP caller through elicitation; any `Fn(&Inquiry) -> Reply` replies at once.
pub trait Respondent: Send + Sync {
    /// Puts one question.
    fn reply<'a>(&'a self, inquiry: &'a Inquiry) -> ReplyFuture<'a>;

    /// Whether a question is replied to in a later round ([`Replied::Later`]): the run then
    /// keeps its state before it asks. `false` by default: a respondent that replies at once.
    fn replies_later(&self) -> bool {
        false
    }
}

impl<F> Respondent for F
where
    F: Fn(&Inquiry) -> Reply + Send + Sync,
{
    fn reply<'a>(&'a self, inquiry: &'a Inquiry) -> ReplyFuture<'a> {
        let reply = self(inquiry);
        Box::pin(std::future::ready(Replied::Now(reply)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(arguments: &str) -> ToolCall {
        ToolCall::new("c1", ASK_CALLER, arguments)
    }

    fn inquiry(arguments: &str) -> Inquiry {
        Inquiry::new("r1", 1, &call(arguments)).expect("a question")
    }

    #[test]
    fn ask_caller_is_offered_after_the_tools_and_never_twice() {
        let tools = offer(vec![svir::Tool::new("add_task", "Adds")]).expect("offered");
        let names: Vec<_> = tools.iter().map(|tool| tool.name.as_str()).collect();
        assert_eq!(names, ["add_task", ASK_CALLER]);
        assert_eq!(tools[1].input_schema["required"], json!(["question"]));
        let clash = offer(tools).expect_err("a clash");
        assert!(clash.contains("`ask_caller`"), "{clash}");
    }

    #[test]
    fn a_free_question_is_a_form_with_one_required_text_field() {
        let inquiry = inquiry(r#"{"question": " Which day? "}"#);
        assert_eq!(inquiry.question, "Which day?");
        let form = serde_json::to_value(inquiry.form()).unwrap();
        assert_eq!(form["message"], "Which day?");
        assert_eq!(
            form["requestedSchema"]["properties"]["answer"]["type"],
            "string"
        );
        assert!(form["requestedSchema"]["properties"]["answer"]["enum"].is_null());
        assert_eq!(form["requestedSchema"]["required"], json!(["answer"]));
    }

    #[test]
    fn choices_are_the_fields_enum_each_once() {
        let inquiry =
            inquiry(r#"{"question": "Which day?", "choices": ["Thu", "Fri", " Thu", ""]}"#);
        assert_eq!(inquiry.choices, ["Thu", "Fri"]);
        let form = serde_json::to_value(inquiry.form()).unwrap();
        let field = &form["requestedSchema"]["properties"]["answer"];
        assert_eq!(field["enum"], json!(["Thu", "Fri"]), "{form}");
    }

    #[test]
    fn arguments_that_are_no_question_are_not_asked_and_the_model_is_told() {
        for arguments in [
            "{}",
            r#"{"question": "  "}"#,
            "not json",
            r#"{"question": 3}"#,
        ] {
            let refused = Inquiry::new("r", 1, &call(arguments)).expect_err(arguments);
            assert!(refused.is_error, "{arguments}");
            assert!(
                refused.content.starts_with("not asked"),
                "{}",
                refused.content
            );
        }
    }

    #[test]
    fn a_key_holds_for_one_call_of_one_turn_of_one_run() {
        let key = |run, turn, arguments| Inquiry::new(run, turn, &call(arguments)).unwrap().key;
        let asked = key("r1", 1, r#"{"question": "Which day?"}"#);
        assert!(asked.starts_with("ladoga/ask/"));
        assert_eq!(asked, key("r1", 1, r#"{ "question":"Which day?" }"#));
        assert_ne!(asked, key("r2", 1, r#"{"question": "Which day?"}"#));
        assert_ne!(asked, key("r1", 2, r#"{"question": "Which day?"}"#));
        assert_ne!(asked, key("r1", 1, r#"{"question": "Which week?"}"#));
    }

    #[test]
    fn the_answer_is_the_result_and_a_refusal_says_what_became_of_the_question() {
        let inquiry = inquiry(r#"{"question": "Which day?"}"#);
        let accepted = ElicitResult::accept().with_content(json!({"answer": "Thursday"}));
        let reply = inquiry.reply(&accepted);
        assert_eq!(reply, Reply::Answered("Thursday".into()));
        let result = reply.result(&call("{}"));
        assert_eq!(
            (result.content.as_str(), result.is_error),
            ("Thursday", false)
        );

        assert_eq!(inquiry.reply(&ElicitResult::decline()), Reply::Declined);
        assert_eq!(inquiry.reply(&ElicitResult::cancel()), Reply::Cancelled);
        let declined = Reply::Declined.result(&call("{}"));
        assert!(
            declined.content.starts_with("declined"),
            "{}",
            declined.content
        );
        let cancelled = Reply::Cancelled.result(&call("{}"));
        assert!(
            cancelled.content.starts_with("cancelled"),
            "{}",
            cancelled.content
        );
        assert!(Reply::Unavailable.result(&call("{}")).is_error);
    }

    #[test]
    fn a_reply_reads_back_as_written() {
        let inquired = Inquired::new(
            inquiry(r#"{"question": "Which day?", "choices": ["Thu"]}"#),
            Reply::Answered("Thu".into()),
        );
        let written = serde_json::to_value(&inquired).unwrap();
        assert_eq!(
            written,
            json!({"question": "Which day?", "choices": ["Thu"], "reply": {"answered": "Thu"}})
        );
        assert_eq!(
            serde_json::from_value::<Inquired>(written).unwrap(),
            inquired
        );
    }
}
