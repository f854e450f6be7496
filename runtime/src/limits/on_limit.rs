//! What an orchestration does at a bound: turns, time, tokens or a stuck model.

use std::fmt;
use std::str::FromStr;

/// What happens when a run reaches a bound of its [`Limits`](crate::Limits): the model still
/// calling tools after the last turn, the time or the tokens used up, or a stuck model.
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
    /// Make one last request with tools refused (`ToolChoice::None`) and return its answer,
    /// with the bound in [`Outcome::stop`](crate::Outcome::stop). That request is not bounded
    /// by the time or the token budget that ran out. It is bounded by the dollars, as every
    /// request is: its output limited to what the dollar budget and the quota have left, and
    /// where that pays for no answer it is not made, and the run ends as [`Self::Partial`] does.
    Answer,
    /// Return the work so far instead of an answer: the last text the model wrote and every
    /// tool result, under a first line that says the result is partial and why
    /// ([`Outcome::partial`](crate::Outcome::partial)).
    Partial,
}

impl OnLimit {
    /// Every policy, by the name the macro argument `on_limit` takes.
    pub const NAMES: [&'static str; 3] = ["error", "answer", "partial"];
}

impl FromStr for OnLimit {
    type Err = String;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        match name {
            "error" => Ok(Self::Error),
            "answer" => Ok(Self::Answer),
            "partial" => Ok(Self::Partial),
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
            Self::Partial => "partial",
        })
    }
}
