//! Text another party chose (a server, a model, a caller), made safe for one log line.

use std::fmt;

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
        push(&mut shown, char);
    }
    let more = chars.count();
    if more > 0 {
        shown.push_str(&format!("… ({more} more characters)"));
    }
    shown
}

/// `text` whole for a log line, its control characters and bidirectional controls escaped as
/// [`printable`] escapes them: for what a run logs at `debug` (a call's arguments and result,
/// the model's answer), which a person reads whole.
pub(crate) struct Escaped<'a>(pub(crate) &'a str);

impl fmt::Display for Escaped<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(at) = rest.find(|char: char| unsafe_in_a_line(char)) {
            f.write_str(&rest[..at])?;
            let char = rest[at..].chars().next().unwrap_or_default();
            for escaped in char.escape_debug() {
                fmt::Write::write_char(f, escaped)?;
            }
            rest = &rest[at + char.len_utf8()..];
        }
        f.write_str(rest)
    }
}

/// Pushes `char` onto `shown`, escaped when it is unsafe in a line.
fn push(shown: &mut String, char: char) {
    if unsafe_in_a_line(char) {
        shown.extend(char.escape_debug());
    } else {
        shown.push(char);
    }
}

/// Whether `char` would end a log line, act on a terminal or reorder what follows: a control
/// character (C0, DEL, C1), a line or paragraph separator, or a bidirectional control (the
/// embeddings, overrides, isolates and marks).
fn unsafe_in_a_line(char: char) -> bool {
    char.is_control()
        || matches!(
            char,
            '\u{200e}' | '\u{200f}' | '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}'
        )
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
    fn escaped_text_is_whole_and_has_no_character_that_breaks_a_line() {
        let hostile =
            "ok\0\u{7}\u{1b}[2J\u{1b}]0;owned\u{7}\u{202e}txt.exe\nFAKE LOG LINE: admin logged in";
        let shown = super::Escaped(hostile).to_string();
        assert_eq!(
            shown,
            "ok\\0\\u{7}\\u{1b}[2J\\u{1b}]0;owned\\u{7}\\u{202e}txt.exe\\nFAKE LOG LINE: admin logged in"
        );
        assert!(!shown.chars().any(super::unsafe_in_a_line));
        let long = "é".repeat(1000);
        assert_eq!(
            super::Escaped(&long).to_string(),
            long,
            "nothing cut, nothing else changed"
        );
    }

    #[test]
    fn a_long_text_is_cut_and_says_how_much_was_left_out() {
        let shown = printable(&"a".repeat(1000));
        assert!(shown.starts_with(&"a".repeat(320)), "{shown}");
        assert!(shown.ends_with("… (680 more characters)"), "{shown}");
    }
}
