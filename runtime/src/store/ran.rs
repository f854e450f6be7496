//! The calls a run has made: what its caller is told when the run cannot go on, so that the
//! person or agent calling can decide whether to call again.

use serde::{Deserialize, Serialize};

/// One call that ran: its tool and the turn it ran in.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Ran {
    pub(crate) tool: String,
    pub(crate) turn: usize,
}

impl std::fmt::Display for Ran {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "`{}` in turn {}", self.tool, self.turn)
    }
}

/// The calls as a caller reads them: `` `add_task` in turn 1 ``.
pub(crate) fn named(ran: &[Ran]) -> Vec<String> {
    ran.iter().map(Ran::to_string).collect()
}

/// The most calls a round's sealed state notes: neva bounds the state (8 KiB by default), and
/// the note is for a person deciding whether to call again, not a log.
#[cfg_attr(feature = "legacy-spec", allow(dead_code))]
pub(crate) const NOTED: usize = 48;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_call_is_named_with_its_turn() {
        let ran = [
            Ran {
                tool: "add_task".into(),
                turn: 1,
            },
            Ran {
                tool: "list_tasks".into(),
                turn: 2,
            },
        ];
        assert_eq!(
            named(&ran),
            ["`add_task` in turn 1", "`list_tasks` in turn 2"]
        );
    }
}
