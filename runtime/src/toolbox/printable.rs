//! Text another server chose, made safe for one log line.

/// The characters of remote text kept in a log line; the rest is counted, not shown.
const SHOWN: usize = 320;

/// `text` for a log line: each control character (`\0`, `\u{1b}`, `\n`, …) and each Unicode
/// bidirectional control escaped as [`char::escape_debug`] writes it, the rest as it is; cut
/// after its first 320 characters, saying how many more there were. A name or an error another
/// server chose cannot end the line, fake another, colour the terminal or reorder what follows.
pub(crate) fn printable(text: &str) -> String {
    let mut shown = String::with_capacity(text.len().min(SHOWN) + 16);
    let mut chars = text.chars();
    for char in chars.by_ref().take(SHOWN) {
        if char.is_control() || bidirectional(char) {
            shown.extend(char.escape_debug());
        } else {
            shown.push(char);
        }
    }
    let more = chars.count();
    if more > 0 {
        shown.push_str(&format!("… ({more} more characters)"));
    }
    shown
}

/// Whether `char` reorders the text around it (the embeddings, overrides and isolates).
fn bidirectional(char: char) -> bool {
    matches!(char, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
}

#[cfg(test)]
mod tests {
    use super::printable;

    #[test]
    fn control_characters_are_escaped_and_nothing_else_changes() {
        assert_eq!(printable("the tool `a`'s \"b\""), "the tool `a`'s \"b\"");
        assert_eq!(printable("a\0b\u{1b}[31mc\nd"), "a\\0b\\u{1b}[31mc\\nd");
        assert!(!printable("x\r\ny\u{7f}").chars().any(char::is_control));
        assert_eq!(printable("a\u{202e}b"), "a\\u{202e}b");
    }

    #[test]
    fn a_long_text_is_cut_and_says_how_much_was_left_out() {
        let shown = printable(&"a".repeat(1000));
        assert!(shown.starts_with(&"a".repeat(320)), "{shown}");
        assert!(shown.ends_with("… (680 more characters)"), "{shown}");
    }
}
