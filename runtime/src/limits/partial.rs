//! The work of a run that stopped at a bound, for [`OnLimit::Partial`](crate::OnLimit::Partial),
//! read from the conversation itself: the run keeps no second copy of its tool results.

use std::collections::HashMap;

use svir::{Message, Part, Role};

use crate::outcome::Stop;

/// The partial result of a run whose conversation is `messages`, the run's own beginning at
/// `from` (the brief's messages before it are not the run's work): a first line saying so and
/// why, the last text the model wrote beside its calls, and every call made with its result, in
/// order.
pub(crate) fn text(stop: Stop, messages: &[Message], from: usize) -> String {
    let messages = messages.get(from..).unwrap_or_default();
    let mut names = HashMap::new();
    let mut last_text = "";
    let mut results = Vec::new();
    for message in messages {
        for part in &message.parts {
            match (message.role, part) {
                (Role::Assistant, Part::Text(text)) if !text.trim().is_empty() => {
                    last_text = text;
                }
                (Role::Assistant, Part::ToolCall(call)) => {
                    names.insert(call.id.as_str(), call.name.as_str());
                }
                (_, Part::ToolResult(result)) => results.push(result),
                _ => {}
            }
        }
    }
    let mut text = format!("[partial: the run stopped at its {} bound]", stop.name());
    if !last_text.is_empty() {
        text.push_str("\n\n");
        text.push_str(last_text.trim());
    }
    if !results.is_empty() {
        text.push_str("\n\nTool results so far:");
        for result in results {
            let tool = names.get(result.call_id.as_str()).copied().unwrap_or("?");
            let error = if result.is_error { " (error)" } else { "" };
            text.push_str(&format!("\n- {tool}{error}: {}", result.content));
        }
    }
    text
}

/// Says in `text`, a partial result at `stop`, that no last answer was asked for because what
/// the bound `unpaid` left pays for none (`on_limit = "answer"` past a dollar budget or a quota):
/// a line after the first.
pub(crate) fn unpaid(text: &mut String, stop: Stop, unpaid: Stop) {
    let what = match unpaid {
        Stop::Quota => "its caller's quota",
        _ => "its dollar budget",
    };
    let first = format!("[partial: the run stopped at its {} bound]", stop.name());
    let at = text.find(&first).map_or(0, |at| at + first.len());
    text.insert_str(
        at,
        &format!("\nNo last answer was asked for: what is left of {what} pays for none."),
    );
}

#[cfg(test)]
mod tests {
    use svir::{Completion, FinishReason, Request, ToolCall, ToolResult};

    use super::*;

    #[test]
    fn says_why_and_keeps_the_last_text_and_every_result_of_the_run() {
        let mut answer = Completion::new(FinishReason::ToolCalls);
        answer.text = "Adding the tasks.".into();
        answer.calls = vec![
            ToolCall::new("c1", "add_task", "{}"),
            ToolCall::new("c2", "list_tasks", "{}"),
        ];
        let request = Request::new("m")
            .assistant(Completion::new(FinishReason::Stop))
            .tool_result("c0", "before the run")
            .user("Plan the week.")
            .assistant(answer)
            .tool_results([
                ToolResult::new("c1", "Added task 1"),
                ToolResult::error("c2", "no board"),
            ]);
        let text = text(Stop::Budget, &request.messages, 3);
        assert_eq!(
            text,
            "[partial: the run stopped at its budget bound]\n\nAdding the tasks.\n\n\
             Tool results so far:\n- add_task: Added task 1\n- list_tasks (error): no board"
        );
        assert_eq!(
            super::text(Stop::TurnLimit, &request.messages, 3 + 3),
            "[partial: the run stopped at its turns bound]"
        );
    }

    #[test]
    fn a_last_answer_not_paid_for_is_said_after_the_first_line() {
        let mut text = "[partial: the run stopped at its turns bound]\n\nAdding.".to_owned();
        unpaid(&mut text, Stop::TurnLimit, Stop::BudgetUsd);
        assert_eq!(
            text,
            "[partial: the run stopped at its turns bound]\nNo last answer was asked for: \
             what is left of its dollar budget pays for none.\n\nAdding."
        );
    }
}
