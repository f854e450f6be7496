//! The second tier: the oldest turns, summarised by the model into one message that takes their
//! place after the brief.

use svir::{Message, Part, Request, Role, ToolChoice};

use crate::context::size::message_tokens;

/// What the summary message opens with, so the model, and a later summary, read it as one.
pub const SUMMARY_HEADING: &str =
    "[The earlier turns of this conversation, summarised to keep it within its context]";

/// The summariser's instructions.
const INSTRUCTIONS: &str = "You summarise the earlier part of an agent's work so that it can \
go on without it. Keep every fact, decision, name, identifier and number the rest of the work \
may need, what each tool call found or did, and what is still to do. Write the summary only, \
in plain sentences or a short list, with no preamble.";

/// The turns of `messages` written out as text: what the summariser reads.
pub(crate) fn transcript(messages: &[Message]) -> String {
    let mut written = String::new();
    for message in messages {
        let who = match message.role {
            Role::User => "User",
            Role::Assistant => "Assistant",
            _ => "Tool",
        };
        for part in &message.parts {
            let line = match part {
                Part::Text(text) => format!("{who}: {text}"),
                Part::ToolCall(call) => {
                    format!("{who} called `{}` with {}", call.name, call.arguments)
                }
                Part::ToolResult(result) if result.is_error => {
                    format!("{who} failed: {}", result.content)
                }
                Part::ToolResult(result) => format!("{who} answered: {}", result.content),
                Part::File(file) => format!("{who} attached the file {}", file.name),
                Part::Image(_) => format!("{who} attached an image"),
                _ => continue,
            };
            written.push_str(&line);
            written.push('\n');
        }
    }
    written
}

/// The request for the summary of `turns`, the task they worked on being `task`: no tool
/// offered, at most `max_tokens` written.
pub(crate) fn request(model: &str, task: &str, turns: &str, max_tokens: u64) -> Request {
    let ask =
        format!("The task:\n{task}\n\nThe turns to summarise:\n{turns}\nSummarise these turns.");
    Request::new(model)
        .system(INSTRUCTIONS)
        .user(ask)
        .tool_choice(ToolChoice::None)
        .max_tokens(max_tokens)
}

/// The text of the brief's user messages: the task, as the summariser is told it.
pub(crate) fn task(brief: &[Message]) -> String {
    let texts = (brief.iter())
        .filter(|message| message.role == Role::User)
        .flat_map(|message| &message.parts)
        .filter_map(|part| match part {
            Part::Text(text) => Some(text.as_str()),
            _ => None,
        });
    texts.collect::<Vec<_>>().join("\n")
}

/// The message `summary` becomes: a user message under [`SUMMARY_HEADING`].
pub(crate) fn message(summary: &str) -> Message {
    Message::user(format!("{SUMMARY_HEADING}\n{}", summary.trim()))
}

/// Where the kept turns begin: the first answer after `from` from which the rest of `messages`
/// is at most `room` tokens, and never past the last answer, whose results the model has not
/// read yet. `None` when there is no turn before the last to summarise.
pub(crate) fn cut(messages: &[Message], from: usize, room: u64) -> Option<usize> {
    let answers = || (from + 1..messages.len()).filter(|&at| messages[at].role == Role::Assistant);
    if messages[from..].iter().map(message_tokens).sum::<u64>() <= room {
        return None; // it all fits
    }
    let last = answers().next_back()?;
    let mut tail: u64 = messages[last..].iter().map(message_tokens).sum();
    let mut kept = last;
    // Walks back from the last answer, keeping each turn while the rest fits.
    for at in answers().rev().skip(1) {
        let turn: u64 = messages[at..kept].iter().map(message_tokens).sum();
        if tail + turn > room {
            break;
        }
        tail += turn;
        kept = at;
    }
    // A summary of a summary alone gains nothing: there must be a turn to summarise.
    let summarised = &messages[from..kept];
    (summarised.iter())
        .any(|message| message.role == Role::Assistant)
        .then_some(kept)
}

#[cfg(test)]
mod tests {
    use super::*;
    use svir::{Completion, FinishReason, ToolCall, ToolResult};

    fn turn(request: Request, at: usize, result: &str) -> Request {
        let mut done = Completion::new(FinishReason::ToolCalls);
        done.text = format!("Step {at}.");
        done.calls.push(ToolCall::new(
            format!("c{at}"),
            "add_task",
            r#"{"title":"x"}"#,
        ));
        request
            .assistant(done)
            .tool_results([ToolResult::new(format!("c{at}"), result)])
    }

    #[test]
    fn the_transcript_says_who_did_what() {
        let request = turn(Request::new("m").user("Plan."), 1, "added");
        let written = transcript(&request.messages);
        assert_eq!(
            written,
            "User: Plan.\nAssistant: Step 1.\nAssistant called `add_task` with \
             {\"title\":\"x\"}\nTool answered: added\n"
        );
    }

    #[test]
    fn the_cut_keeps_the_turns_that_fit_and_always_the_last() {
        let mut request = Request::new("m").user("Plan.");
        for at in 1..=6 {
            request = turn(request, at, &"r".repeat(400));
        }
        let messages = &request.messages;
        let turn_tokens: u64 = messages[1..3].iter().map(message_tokens).sum();
        // Room for two turns: the last two are kept.
        assert_eq!(cut(messages, 1, 2 * turn_tokens), Some(9));
        // No room at all: the last turn is kept anyway.
        assert_eq!(cut(messages, 1, 0), Some(11));
        // Room for everything: nothing to summarise.
        assert_eq!(cut(messages, 1, u64::MAX), None);
        // One turn only: nothing before the last.
        let one = turn(Request::new("m").user("Plan."), 1, "r");
        assert_eq!(cut(&one.messages, 1, 0), None);
    }

    #[test]
    fn the_summary_is_a_user_message_under_its_heading() {
        let message = message("  Added three tasks.\n");
        assert_eq!(message.role, Role::User);
        assert_eq!(
            message.parts,
            [Part::Text(format!("{SUMMARY_HEADING}\nAdded three tasks."))]
        );
    }
}
