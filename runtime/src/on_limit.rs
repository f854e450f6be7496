//! What an orchestration does when the model is still calling tools at the turn bound.

use std::fmt;
use std::str::FromStr;

/// What happens when the model is still calling tools after the last allowed turn.
///
/// # Examples
/// ```
/// use ladoga::OnLimit;
///
/// assert_eq!("answer".parse::<OnLimit>(), Ok(OnLimit::Answer));
/// assert_eq!(OnLimit::default(), OnLimit::Error);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum OnLimit {
    /// Fail the run: the MCP caller gets a tool error saying the bound was reached.
    #[default]
    Error,
    /// Make one last request with tools refused (`ToolChoice::None`) and return its answer.
    Answer,
}

impl OnLimit {
    /// Every policy, by the name the macro argument `on_limit` takes.
    pub const NAMES: [&'static str; 2] = ["error", "answer"];
}

impl FromStr for OnLimit {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name {
            "error" => Ok(Self::Error),
            "answer" => Ok(Self::Answer),
            other => Err(format!(
                "unknown `on_limit` policy `{other}`, expected one of: {}",
                Self::NAMES.join(", ")
            )),
        }
    }
}

impl fmt::Display for OnLimit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Error => "error",
            Self::Answer => "answer",
        })
    }
}
