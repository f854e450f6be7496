//! What a guard is shown: where in the run, the text, and what the run knows around it.

use serde::{Deserialize, Serialize};
use svir::Message;

use crate::guard::ToolHints;

/// Where in a run a guard is asked.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum At {
    /// The brief's text, before the first request.
    Brief,
    /// A call the model made, before it runs: the text is its arguments, as JSON.
    Call,
    /// A tool's result, before the model reads it; or a resource the brief carries, as the
    /// result of a tool named `resource URI`.
    Result,
    /// The model's answer, before the caller reads it.
    Answer,
}

impl At {
    /// Its name in the report: `brief`, `call`, `result` or `answer`.
    pub fn name(self) -> &'static str {
        match self {
            At::Brief => "brief",
            At::Call => "call",
            At::Result => "result",
            At::Answer => "answer",
        }
    }
}

/// What a [`Guard`](crate::guard::Guard) is shown. Made by the run; the constructors are for a
/// guard's own tests.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub struct Seen<'a> {
    /// Where in the run.
    pub at: At,
    /// The text: the brief's, a call's arguments, a result's, the answer's.
    pub text: &'a str,
    /// The tool of a call or a result.
    pub tool: Option<&'a str>,
    /// What the run knows of that tool; the default for the brief and the answer.
    pub hints: ToolHints,
    /// Where the untrusted text that entered the run's conversation so far came from (a tool's
    /// name, or `resource <uri>` for an attached resource), first first; empty while none did.
    pub tainted: &'a [String],
    /// The conversation so far, at the answer (the brief, the calls and their results, as the
    /// model read them); empty elsewhere.
    pub conversation: &'a [Message],
}

impl<'a> Seen<'a> {
    fn new(at: At, text: &'a str, tool: Option<&'a str>) -> Self {
        Self {
            at,
            text,
            tool,
            hints: ToolHints::default(),
            tainted: &[],
            conversation: &[],
        }
    }

    /// The brief `text`.
    pub fn brief(text: &'a str) -> Self {
        Self::new(At::Brief, text, None)
    }

    /// A call of `tool` with `arguments` (JSON).
    pub fn call(tool: &'a str, arguments: &'a str) -> Self {
        Self::new(At::Call, arguments, Some(tool))
    }

    /// A result of `tool`.
    pub fn result(tool: &'a str, text: &'a str) -> Self {
        Self::new(At::Result, text, Some(tool))
    }

    /// The answer `text`.
    pub fn answer(text: &'a str) -> Self {
        Self::new(At::Answer, text, None)
    }

    /// With the tool's `hints`.
    pub fn hints(mut self, hints: ToolHints) -> Self {
        self.hints = hints;
        self
    }

    /// With the conversation so far.
    pub fn conversation(mut self, messages: &'a [Message]) -> Self {
        self.conversation = messages;
        self
    }

    /// Seen after the untrusted text of `sources` entered the run.
    pub fn tainted(mut self, sources: &'a [String]) -> Self {
        self.tainted = sources;
        self
    }
}
