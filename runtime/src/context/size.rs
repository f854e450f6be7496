//! How big a conversation is, in tokens: the model's own count where its provider gave one, and
//! an estimate for what was added since.

use svir::{Message, Part, Request, Source};

/// Tokens an image is counted as: providers bill a picture by its size, which is not known here.
const IMAGE_TOKENS: u64 = 1_000;

/// Tokens each message costs beside its text: its role and the wire's framing.
const MESSAGE_TOKENS: u64 = 4;

/// An estimate of how many tokens `text` is: four ASCII characters a token, and a token for
/// every other character, which is what tokenizers of English and code and of other scripts
/// come to, slightly over rather than under.
///
/// # Examples
/// ```
/// assert_eq!(ladoga::context::estimate_tokens("four"), 1);
/// assert_eq!(ladoga::context::estimate_tokens(&"x".repeat(10_000)), 2_500);
/// assert_eq!(ladoga::context::estimate_tokens("日本語"), 3);
/// ```
pub fn estimate_tokens(text: &str) -> u64 {
    let ascii = text.bytes().filter(u8::is_ascii).count() as u64;
    let other = text.chars().filter(|c| !c.is_ascii()).count() as u64;
    ascii.div_ceil(4) + other
}

/// The estimate of one message: each part's text, and the message's framing.
pub(crate) fn message_tokens(message: &Message) -> u64 {
    let parts: u64 = message.parts.iter().map(part_tokens).sum();
    MESSAGE_TOKENS + parts
}

fn part_tokens(part: &Part) -> u64 {
    match part {
        Part::Text(text) => estimate_tokens(text),
        Part::Reasoning(reasoning) => estimate_tokens(&reasoning.text),
        Part::ToolCall(call) => {
            estimate_tokens(&call.id)
                + estimate_tokens(&call.name)
                + estimate_tokens(&call.arguments)
        }
        Part::ToolResult(result) => {
            estimate_tokens(&result.call_id) + estimate_tokens(&result.content)
        }
        Part::File(file) => {
            let bytes = match (&file.source, file.escaped_len) {
                (_, Some(escaped)) => escaped,
                (Source::Bytes(bytes), None) => bytes.len() as u64,
                _ => 4 * IMAGE_TOKENS,
            };
            bytes.div_ceil(4) + estimate_tokens(&file.name)
        }
        _ => IMAGE_TOKENS,
    }
}

/// The estimate of what every request of a conversation carries besides its messages: the
/// system prompt and the tools offered.
pub(crate) fn fixed_tokens(request: &Request) -> u64 {
    let system = request.system.as_deref().map_or(0, estimate_tokens);
    let tools: u64 = (request.tools.iter())
        .map(|tool| {
            estimate_tokens(&tool.name)
                + estimate_tokens(&tool.description)
                + estimate_tokens(&tool.input_schema.to_string())
        })
        .sum();
    system + tools
}

/// The estimate of the whole of `request`.
pub(crate) fn estimate(request: &Request) -> u64 {
    fixed_tokens(request) + request.messages.iter().map(message_tokens).sum::<u64>()
}

/// What the model's provider counted of the conversation: the tokens it read and wrote for
/// the first `messages` messages (the request it answered, and its answer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub(crate) struct Counted {
    /// Input and output tokens of the answered request.
    pub(crate) tokens: u64,
    /// How many messages those tokens cover.
    pub(crate) messages: usize,
}

/// The size of `request`, in tokens: what the provider `counted` of its first messages, if it
/// did and they are still those, and the estimate of the messages added since; else the
/// estimate of the whole.
pub(crate) fn tokens(request: &Request, counted: Option<Counted>) -> u64 {
    match counted {
        Some(counted) if counted.messages <= request.messages.len() => {
            let since = &request.messages[counted.messages..];
            counted.tokens + since.iter().map(message_tokens).sum::<u64>()
        }
        _ => estimate(request),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use svir::ToolResult;

    #[test]
    fn ascii_is_four_characters_a_token_and_other_scripts_a_character() {
        assert_eq!(estimate_tokens(""), 0);
        assert_eq!(estimate_tokens("abcde"), 2);
        assert_eq!(estimate_tokens("€€"), 2);
    }

    #[test]
    fn a_tool_result_counts_its_content() {
        let message = Message::tool_result(ToolResult::new("c1", "x".repeat(10_000)));
        assert_eq!(message_tokens(&message), MESSAGE_TOKENS + 1 + 2_500);
    }

    #[test]
    fn the_providers_count_stands_for_the_messages_it_covers() {
        let request = Request::new("m")
            .user("x".repeat(400))
            .tool_result("c1", "y".repeat(40));
        assert_eq!(tokens(&request, None), estimate(&request));
        let counted = Counted {
            tokens: 1_000,
            messages: 1,
        };
        let since = MESSAGE_TOKENS + 1 + 10;
        assert_eq!(tokens(&request, Some(counted)), 1_000 + since);
        // A count of messages that are no longer there (a compaction) is not used.
        let stale = Counted {
            tokens: 1_000,
            messages: 5,
        };
        assert_eq!(tokens(&request, Some(stale)), estimate(&request));
    }
}
