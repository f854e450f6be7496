//! What a guard held back, as the run's report lists it.

use serde::{Deserialize, Serialize};

use crate::guard::At;

/// What a guard held back of a run, and why ([`Outcome::held`](crate::Outcome::held)).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Held {
    /// The guard's name.
    pub guard: String,
    /// Where in the run.
    pub at: At,
    /// The tool of the call or result, if it was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<String>,
    /// The turn it was seen in (0: the brief).
    pub turn: usize,
    /// What the guard did.
    pub action: HeldAction,
    /// Why, in the guard's words.
    pub why: String,
}

/// What a guard did with what it held back.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum HeldAction {
    /// Part of it was replaced.
    Redacted,
    /// It was held back whole: a call not made, a result not read, an answer not given.
    Blocked,
    /// A call was put to the caller for approval ([`Outcome::approvals`](crate::Outcome::approvals)
    /// has the answer).
    Asked,
}

impl HeldAction {
    /// Its name in the report: `redacted`, `blocked` or `asked`.
    pub fn name(self) -> &'static str {
        match self {
            HeldAction::Redacted => "redacted",
            HeldAction::Blocked => "blocked",
            HeldAction::Asked => "asked",
        }
    }
}
