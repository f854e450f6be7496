//! Telling a request refused for its length from any other failure.
//!
//! svir reads most of them as `ErrorKind::ContextOverflow`: OpenAI's `context_length_exceeded`
//! code, and the words llama.cpp ("the request exceeds the available context size"), vLLM
//! ("This model's maximum context length is …") and the others use. Gemini's OpenAI-compatible
//! endpoint says neither, and is read here from its message.

use svir::ErrorKind;

/// What a server that svir does not read as an overflow says of one, in lowercase: Gemini's
/// "The input token count (…) exceeds the maximum number of tokens allowed (…)".
const PHRASES: [&str; 1] = ["exceeds the maximum number of tokens"];

/// Whether `error` is the provider refusing the request for its length.
pub(crate) fn for_length(error: &svir::Error) -> bool {
    if error.kind() == ErrorKind::ContextOverflow {
        return true;
    }
    let refused = matches!(error.status(), Some(400 | 413 | 422));
    let said = || {
        let message = error
            .server_message()
            .unwrap_or_default()
            .to_ascii_lowercase();
        PHRASES.iter().any(|phrase| message.contains(phrase))
    };
    refused && said()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_overflow_and_geminis_words_are_a_length_refusal() {
        assert!(for_length(&svir::Error::new(ErrorKind::ContextOverflow)));
        let gemini = svir::Error::new(ErrorKind::Unsupported)
            .with_status(400)
            .with_server_message(
                "The input token count (1200000) exceeds the maximum number of tokens allowed \
                 (1048576).",
            );
        assert!(for_length(&gemini));
    }

    #[test]
    fn any_other_failure_is_not() {
        let bad = svir::Error::new(ErrorKind::Unsupported)
            .with_status(400)
            .with_server_message("Invalid value for 'tool_choice'.");
        assert!(!for_length(&bad));
        let down = svir::Error::new(ErrorKind::Transport)
            .with_status(503)
            .with_server_message("exceeds the maximum number of tokens");
        assert!(!for_length(&down));
    }
}
