//! How much of a tool result reaches the model.

use svir::ToolResult;

/// The most characters of one tool result a model is sent unless told otherwise: about 5,000
/// tokens, so a tool that answers with a file or a table cannot fill the context by itself.
pub const DEFAULT_MAX_RESULT: usize = 20_000;

/// Cuts `result` to `max` characters, on a character boundary, and says so at the end, so the
/// model knows there was more.
pub(crate) fn bound(result: &mut ToolResult, max: usize) {
    let Some((end, _)) = result.content.char_indices().nth(max) else {
        return;
    };
    let total = max + result.content[end..].chars().count();
    result.content.truncate(end);
    result.content.push_str(&format!(
        "\n[cut: the result had {total} characters; only the first {max} are shown]"
    ));
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_result_is_left_alone() {
        let mut result = ToolResult::new("c1", "short");
        bound(&mut result, 5);
        assert_eq!(result.content, "short");
    }

    #[test]
    fn a_long_result_is_cut_on_a_character_boundary_and_says_so() {
        let mut result = ToolResult::new("c1", "\u{20ac}".repeat(10));
        bound(&mut result, 4);
        assert!(result.content.starts_with(&"\u{20ac}".repeat(4)));
        assert!(!result.content.starts_with(&"\u{20ac}".repeat(5)));
        assert!(
            result
                .content
                .ends_with("the result had 10 characters; only the first 4 are shown]")
        );
    }
}
