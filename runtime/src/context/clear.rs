//! The first tier: the oldest tool results, each replaced by a one-line note. Every call and
//! its result's place stay, so the conversation is still one a provider accepts, and the model
//! still reads what it did, only not what it got back.

use svir::{Message, Part, Role};

use crate::context::size::estimate_tokens;

/// What the first tier did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Cleared {
    /// How many results it replaced.
    pub(crate) results: usize,
    /// The tokens it removed, by the estimate.
    pub(crate) tokens: u64,
}

/// The note a cleared result becomes: `[add_task's result, 12,345 characters, cleared]`.
pub(crate) fn note(tool: &str, characters: usize) -> String {
    format!(
        "[{tool}'s result, {} characters, cleared]",
        thousands(characters)
    )
}

/// Replaces the results in `messages`, oldest first, by their notes until `enough` tokens are
/// removed or none is left to clear. A result already a note, or shorter than its note, stays.
pub(crate) fn oldest(messages: &mut [Message], enough: u64) -> Cleared {
    let mut cleared = Cleared::default();
    // The calls of the last answer seen: the results after it answer them.
    let mut calls: Vec<(String, String)> = Vec::new();
    for message in messages.iter_mut() {
        if cleared.tokens >= enough {
            break;
        }
        if message.role == Role::Assistant {
            calls = (message.parts.iter())
                .filter_map(|part| match part {
                    Part::ToolCall(call) => Some((call.id.clone(), call.name.clone())),
                    _ => None,
                })
                .collect();
            continue;
        }
        for part in &mut message.parts {
            let Part::ToolResult(result) = part else {
                continue;
            };
            if is_note(&result.content) {
                continue;
            }
            let tool = (calls.iter())
                .find(|(id, _)| *id == result.call_id)
                .map_or("a tool", |(_, name)| name.as_str());
            let note = note(tool, result.content.chars().count());
            let (was, is) = (estimate_tokens(&result.content), estimate_tokens(&note));
            if is >= was {
                continue;
            }
            result.content = note;
            cleared.results += 1;
            cleared.tokens += was - is;
        }
    }
    cleared
}

/// The least of each result kept when the last turn's results are cut, in tokens.
const LEAST_KEPT: u64 = 64;

/// Cuts the results in `messages` (the last turn's, which the model has not read yet) until
/// `enough` tokens are removed: each keeps an even share of what is left, its start, and says
/// how much of it was cut. The last tier, for a turn whose results alone pass the context.
pub(crate) fn latest(messages: &mut [Message], enough: u64) -> Cleared {
    let mut results: Vec<&mut String> = (messages.iter_mut())
        .flat_map(|message| message.parts.iter_mut())
        .filter_map(|part| match part {
            Part::ToolResult(result) => Some(&mut result.content),
            _ => None,
        })
        .collect();
    let total: u64 = results.iter().map(|content| estimate_tokens(content)).sum();
    let Some(count) = u64::try_from(results.len()).ok().filter(|count| *count > 0) else {
        return Cleared::default();
    };
    let share = (total.saturating_sub(enough) / count).max(LEAST_KEPT);
    let mut cut = Cleared::default();
    for content in &mut results {
        let was = estimate_tokens(content);
        if was <= share {
            continue;
        }
        let characters = content.chars().count();
        let kept: String = content
            .chars()
            .take(usize::try_from(share * 4).unwrap_or(usize::MAX))
            .collect();
        let kept_characters = kept.chars().count();
        **content = format!(
            "{kept}\n[… cut to fit the context: {} of {} characters kept]",
            thousands(kept_characters),
            thousands(characters)
        );
        cut.results += 1;
        cut.tokens += was.saturating_sub(estimate_tokens(content));
    }
    cut
}

/// Whether `content` is a result already cleared.
fn is_note(content: &str) -> bool {
    content.starts_with('[')
        && content.ends_with(" characters, cleared]")
        && !content.contains('\n')
}

/// `12345` as `12,345`.
fn thousands(number: usize) -> String {
    let digits = number.to_string();
    let mut written = String::with_capacity(digits.len() + digits.len() / 3);
    for (at, digit) in digits.chars().enumerate() {
        if at > 0 && (digits.len() - at).is_multiple_of(3) {
            written.push(',');
        }
        written.push(digit);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;
    use svir::{Completion, FinishReason, Request, ToolCall, ToolResult};

    fn turn(request: Request, id: &str, tool: &str, result: String) -> Request {
        let mut done = Completion::new(FinishReason::ToolCalls);
        done.calls.push(ToolCall::new(id, tool, "{}"));
        request
            .assistant(done)
            .tool_results([ToolResult::new(id, result)])
    }

    #[test]
    fn the_note_names_the_tool_and_the_size() {
        assert_eq!(
            note("add_task", 12_345),
            "[add_task's result, 12,345 characters, cleared]"
        );
        assert_eq!(thousands(7), "7");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }

    #[test]
    fn the_oldest_results_go_first_and_every_call_stays() {
        let request = Request::new("m").user("Plan the week.");
        let request = turn(request, "c1", "list_tasks", "a".repeat(4_000));
        let request = turn(request, "c2", "add_task", "b".repeat(4_000));
        let request = turn(request, "c3", "add_task", "c".repeat(4_000));
        let mut messages = request.messages;
        let before = messages.len();

        // A little more than one result: two are cleared, the third stays.
        let cleared = oldest(&mut messages, 1_100);
        assert_eq!(cleared.results, 2);
        assert!(cleared.tokens >= 1_100);
        assert_eq!(
            messages.len(),
            before,
            "every call and result keeps its place"
        );
        let content = |at: usize| match &messages[at].parts[0] {
            Part::ToolResult(result) => result.content.clone(),
            other => panic!("a result, not {other:?}"),
        };
        assert_eq!(
            content(2),
            "[list_tasks's result, 4,000 characters, cleared]"
        );
        assert_eq!(content(4), "[add_task's result, 4,000 characters, cleared]");
        assert_eq!(content(6), "c".repeat(4_000));
    }

    #[test]
    fn the_last_turns_results_are_cut_to_an_even_share_each_saying_so() {
        let mut request = Request::new("m").user("Read it all.");
        let mut done = Completion::new(FinishReason::ToolCalls);
        done.calls.push(ToolCall::new("c1", "read", "{}"));
        done.calls.push(ToolCall::new("c2", "read", "{}"));
        request = request.assistant(done).tool_results([
            ToolResult::new("c1", "a".repeat(40_000)),
            ToolResult::new("c2", "b".repeat(400)),
        ]);
        let mut messages = request.messages;
        let cut = latest(&mut messages[2..], 8_000);
        assert_eq!(cut.results, 1, "the short one stays whole");
        assert!(cut.tokens >= 7_000, "{cut:?}");
        let contents: Vec<String> = (messages[2..].iter())
            .flat_map(|message| message.parts.iter())
            .filter_map(|part| match part {
                Part::ToolResult(result) => Some(result.content.clone()),
                _ => None,
            })
            .collect();
        assert!(contents[0].starts_with("aaa"));
        assert!(
            contents[0].ends_with("[… cut to fit the context: 4,200 of 40,000 characters kept]"),
            "{}",
            &contents[0][contents[0].len() - 80..]
        );
        assert_eq!(contents[1], "b".repeat(400));
    }

    #[test]
    fn a_note_is_never_cleared_again() {
        let request = turn(Request::new("m"), "c1", "add_task", "a".repeat(4_000));
        let mut messages = request.messages;
        assert_eq!(oldest(&mut messages, u64::MAX).results, 1);
        let again = messages.clone();
        assert_eq!(oldest(&mut messages, u64::MAX), Cleared::default());
        assert_eq!(messages, again);
    }
}
