//! The report of a run that a tool result carries: how it ended, the requests it made and the
//! tokens it used.
//!
//! neva 0.9's tool result has no `_meta` of its own, so the report goes in the `_meta` of the
//! result's content block, under [`REPORT_KEY`].

use neva::types::{CallToolResponse, Content};
use serde::Serialize;
use serde_json::{Value, json};

use crate::approval::Inquired;
use crate::cost::Spent;
use crate::error::RunError;
use crate::outcome::{Outcome, Stop};
use crate::wire::REPORT_KEY;

impl Outcome {
    /// The report a tool result carries, as JSON.
    pub fn report(&self) -> Value {
        let mut report = json!({
            "stop": self.stop.name(),
            "turns": self.turns,
            "partial": self.partial,
            "usage": {
                "input_tokens": self.usage.input,
                "output_tokens": self.usage.output,
            },
        });
        if let Some(model) = &self.model {
            report["model"] = json!(model);
        }
        // `null` when a request's price was unknown: never `0` for what was not counted.
        report["cost_usd"] = json!(self.cost_usd);
        if let Some(first) = self.first_token {
            report["first_token_ms"] = json!(first.as_millis() as u64);
        }
        if !self.compacted.is_none() {
            let compacted = &self.compacted;
            report["compacted"] = json!({
                "times": compacted.times,
                "cleared": compacted.cleared,
                "summarized": compacted.summarized,
                "summaries": compacted.summaries,
                "cut": compacted.cut,
                "removed_tokens": compacted.removed,
            });
        }
        if let Some(session) = &self.session {
            report["session"] = json!(session);
        }
        if !self.unknown.is_empty() {
            report["unknown"] = self
                .unknown
                .iter()
                .map(|call| {
                    let arguments = serde_json::from_str(&call.arguments)
                        .unwrap_or_else(|_| json!(call.arguments));
                    json!({"tool": call.tool, "arguments": arguments})
                })
                .collect();
        }
        if !self.approvals.is_empty() {
            report["approvals"] = self
                .approvals
                .iter()
                .map(|approval| {
                    let arguments = serde_json::from_str(&approval.arguments)
                        .unwrap_or_else(|_| json!(approval.arguments));
                    json!({
                        "tool": approval.tool,
                        "arguments": arguments,
                        "decision": approval.decision.name(),
                    })
                })
                .collect();
        }
        if !self.inquiries.is_empty() {
            report["questions"] = self.inquiries.iter().map(asked).collect();
        }
        if !self.steered.is_empty() {
            report["steered"] = self
                .steered
                .iter()
                .map(|message| json!({"turn": message.turn, "text": message.text}))
                .collect();
        }
        if !self.runs.is_empty() {
            report["runs"] = self
                .runs
                .iter()
                .map(|run| json!({"tool": run.tool, "turn": run.turn, "report": run.report}))
                .collect();
        }
        if !self.held.is_empty() {
            report["held"] = json!(self.held);
        }
        if !self.untrusted.is_empty() {
            report["untrusted"] = json!(self.untrusted);
        }
        report
    }
}

/// One question the model asked, as the report lists it.
fn asked(inquired: &Inquired) -> Value {
    let mut asked = json!({"question": inquired.question, "reply": inquired.reply.name()});
    if !inquired.choices.is_empty() {
        asked["choices"] = json!(inquired.choices);
    }
    if let Some(answer) = inquired.reply.answer() {
        asked["answer"] = json!(answer);
    }
    asked
}

impl RunError {
    /// The bound the run stopped at, when that is why it failed.
    pub fn stop(&self) -> Option<Stop> {
        match self {
            Self::TurnLimit { .. } => Some(Stop::TurnLimit),
            Self::Deadline { .. } => Some(Stop::Deadline),
            Self::Budget { .. } => Some(Stop::Budget),
            Self::BudgetUsd { .. } => Some(Stop::BudgetUsd),
            Self::OverQuota { .. } => Some(Stop::Quota),
            Self::Stuck { .. } => Some(Stop::Stuck),
            _ => None,
        }
    }
}

/// A tool result of `content`, with `report` in its first block's `_meta`.
pub(crate) fn reported(
    mut content: Content,
    report: Option<Value>,
    is_error: bool,
) -> CallToolResponse {
    if let (Content::Text(text), Some(report)) = (&mut content, report) {
        // Moved in, not copied: `json!` would serialize the report into a value once more.
        let mut meta = serde_json::Map::new();
        meta.insert(REPORT_KEY.to_owned(), report);
        text.meta = Some(Value::Object(meta));
    }
    CallToolResponse {
        content: vec![content],
        struct_content: None,
        is_error,
    }
}

/// The tool result of a run: its text and report, or its error, with the bound it stopped at
/// when that is why.
pub(crate) fn response(run: Result<Outcome, RunError>, spent: Option<Spent>) -> CallToolResponse {
    match run {
        Ok(outcome) => {
            let report = outcome.report();
            let session = outcome.session.as_deref().map(session_block);
            let mut response = reported(Content::text(outcome.text), Some(report), false);
            response.content.extend(session);
            response
        }
        Err(error) => failed(&error, spent),
    }
}

/// The tool result of a typed run: the answer as `structuredContent` and as JSON text with the
/// report, or its error as [`response`] gives it.
pub(crate) fn typed_response<T: Serialize>(
    run: Result<(T, Outcome), RunError>,
    spent: Option<Spent>,
) -> CallToolResponse {
    let (value, outcome) = match run {
        Ok(answered) => answered,
        Err(error) => return failed(&error, spent),
    };
    match serde_json::to_value(&value) {
        Ok(structure) => {
            let text = Content::text(structure.to_string());
            let mut response = reported(text, Some(outcome.report()), false);
            response.struct_content = Some(structure);
            response
                .content
                .extend(outcome.session.as_deref().map(session_block));
            response
        }
        Err(error) => CallToolResponse::from(neva::error::Error::from(error)),
    }
}

/// The block that tells the calling model how to go on with the conversation: a block of its
/// own after the answer, so the answer's block (JSON for a typed one) stays as it is, and a
/// model reads it where it reads the answer, in the content.
fn session_block(id: &str) -> Content {
    Content::text(format!(
        "session: {id}\nTo go on with this conversation, call this tool again with \
         \"session\": \"{id}\"."
    ))
}

/// The tool error of a failed run, with the bound it stopped at when that is why, and what it
/// spent when it spent anything or stopped at a bound: `{"stop": "budget_usd", "cost_usd":
/// 0.0042}`.
fn failed(error: &RunError, spent: Option<Spent>) -> CallToolResponse {
    let mut report = error.stop().map(|stop| json!({"stop": stop.name()}));
    // What it spent, when it spent anything or stopped at a bound.
    if let Some(spent) = spent.filter(|spent| *spent != Spent::default() || report.is_some()) {
        report.get_or_insert_with(|| json!({}))["cost_usd"] = json!(spent.usd());
    }
    reported(Content::text(error.to_string()), report, true)
}
