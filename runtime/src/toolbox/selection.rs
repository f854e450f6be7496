//! Which of the server's tools an orchestrator offers its model.

use std::fmt;

/// The longest tool name MCP allows.
const MAX_NAME: usize = 128;

/// A tool name pattern: letters, digits, `_`, `-` and `.` as MCP names have them, and `*`
/// for any run of characters.
///
/// # Examples
/// ```
/// use ladoga::ToolPattern;
///
/// let pattern = ToolPattern::new("board_*")?;
/// assert!(pattern.matches("board_add"));
/// assert!(!pattern.matches("admin_wipe"));
/// assert!(ToolPattern::new("add task").is_err());
/// # Ok::<(), ladoga::PatternError>(())
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct ToolPattern(String);

/// Why a [`ToolPattern`] can never match a tool name.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("`{pattern}` can never match a tool name: {reason}")]
pub struct PatternError {
    pattern: String,
    reason: &'static str,
}

impl ToolPattern {
    /// A pattern, or why no valid tool name can match it.
    pub fn new(pattern: impl Into<String>) -> Result<Self, PatternError> {
        let pattern = pattern.into();
        match why_never_matches(&pattern) {
            None => Ok(Self(pattern)),
            Some(reason) => Err(PatternError { pattern, reason }),
        }
    }

    /// Whether `name` matches: `*` stands for any run of characters, everything else for itself.
    pub fn matches(&self, name: &str) -> bool {
        let mut pieces = self.0.split('*');
        let first = pieces.next().unwrap_or_default();
        let Some(mut rest) = name.strip_prefix(first) else {
            return false;
        };
        let Some(last) = pieces.next_back() else {
            return rest.is_empty();
        };
        for piece in pieces {
            match rest.find(piece) {
                Some(at) => rest = &rest[at + piece.len()..],
                None => return false,
            }
        }
        rest.len() >= last.len() && rest.ends_with(last)
    }

    /// The pattern as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for ToolPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// Why `pattern` can match no MCP tool name (`[A-Za-z0-9_.-]{1,128}`), if it cannot.
///
/// The macro crate checks the same rule at compile time.
fn why_never_matches(pattern: &str) -> Option<&'static str> {
    let allowed = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.' | '*');
    if pattern.is_empty() {
        Some("it is empty")
    } else if !pattern.chars().all(allowed) {
        Some("tool names hold only letters, digits, `_`, `-` and `.`; `*` matches any run of them")
    } else if pattern.chars().filter(|&c| c != '*').count() > MAX_NAME {
        Some("tool names are at most 128 characters long")
    } else {
        None
    }
}

/// The tools an orchestrator offers: those matching one of the `only` patterns (all when there
/// are none), minus those matching an `except` pattern.
///
/// # Examples
/// ```
/// use ladoga::{ToolPattern, ToolSelection};
///
/// let selection = ToolSelection::all()
///     .only([ToolPattern::new("board_*")?])
///     .except([ToolPattern::new("*_wipe")?]);
/// assert!(selection.admits("board_add"));
/// assert!(!selection.admits("board_wipe"));
/// assert!(!selection.admits("mail_send"));
/// # Ok::<(), ladoga::PatternError>(())
/// ```
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ToolSelection {
    only: Vec<ToolPattern>,
    except: Vec<ToolPattern>,
}

impl ToolSelection {
    /// Every tool.
    pub fn all() -> Self {
        Self::default()
    }

    /// Offers only tools that match one of `patterns`. Adds to the patterns given before.
    pub fn only(mut self, patterns: impl IntoIterator<Item = ToolPattern>) -> Self {
        self.only.extend(patterns);
        self
    }

    /// Never offers tools that match one of `patterns`. Adds to the patterns given before.
    pub fn except(mut self, patterns: impl IntoIterator<Item = ToolPattern>) -> Self {
        self.except.extend(patterns);
        self
    }

    /// Whether every tool is offered.
    pub(crate) fn is_all(&self) -> bool {
        self.only.is_empty() && self.except.is_empty()
    }

    /// Whether the tool `name` is offered.
    pub fn admits(&self, name: &str) -> bool {
        let wanted = self.only.is_empty() || self.only.iter().any(|p| p.matches(name));
        wanted && !self.except.iter().any(|p| p.matches(name))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn matches(pattern: &str, name: &str) -> bool {
        ToolPattern::new(pattern).unwrap().matches(name)
    }

    #[test]
    fn a_pattern_without_a_star_is_the_name_itself() {
        assert!(matches("add_task", "add_task"));
        assert!(!matches("add_task", "add_tasks"));
        assert!(!matches("add_task", "xadd_task"));
    }

    #[test]
    fn a_star_matches_any_run_including_none() {
        assert!(matches("*", "anything"));
        assert!(matches("add_*", "add_"));
        assert!(matches("add_*", "add_task"));
        assert!(matches("*_task", "add_task"));
        assert!(matches("a*b*c", "abc"));
        assert!(matches("a*b*c", "a_x_b_y_c"));
        assert!(!matches("a*b*c", "a_c_b"));
        assert!(
            !matches("ab*ba", "aba"),
            "prefix and suffix may not overlap"
        );
        assert!(!matches("*_task", "add_tasks"));
    }

    #[test]
    fn patterns_no_tool_name_can_match_are_refused() {
        assert!(ToolPattern::new("").is_err());
        assert!(ToolPattern::new("add task").is_err());
        assert!(ToolPattern::new("add/task").is_err());
        assert!(ToolPattern::new("x".repeat(129)).is_err());
        assert!(ToolPattern::new(format!("{}*", "x".repeat(128))).is_ok());
        assert!(ToolPattern::new("board.add").is_ok());
    }

    #[test]
    fn except_wins_over_only() {
        let selection = ToolSelection::all()
            .only([ToolPattern::new("*").unwrap()])
            .except([ToolPattern::new("clear_*").unwrap()]);
        assert!(selection.admits("add_task"));
        assert!(!selection.admits("clear_board"));
    }
}
