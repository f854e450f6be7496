//! Spotting a model that calls the same tool with the same arguments again and again.

use std::collections::HashMap;
use std::num::NonZeroUsize;

use svir::{ToolCall, ToolResult};

use crate::toolbox::arguments;

/// What one call is, given the calls made before it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Repeat {
    /// Not repeated too often: run it.
    Fresh,
    /// Repeated `times` times: do not run it, tell the model.
    Refused { times: usize },
    /// Repeated again after the model was told: the run is stuck.
    Stuck,
}

/// How often each call (tool and canonical arguments) was made in a run.
#[derive(Debug, Default, Clone, serde::Serialize, serde::Deserialize)]
pub(crate) struct Repeats {
    /// By the tool's name and its canonical arguments, a line apart.
    counts: HashMap<String, usize>,
    told: bool,
}

impl Repeats {
    /// Counts `call` and says what to do with it under the bound `limit`.
    pub(crate) fn count(&mut self, call: &ToolCall, limit: usize) -> Repeat {
        let key = format!("{}\n{}", call.name, arguments::canonical(&call.arguments));
        let times = self.counts.entry(key).or_default();
        *times += 1;
        match (*times >= limit, self.told) {
            (false, _) => Repeat::Fresh,
            (true, false) => Repeat::Refused { times: *times },
            (true, true) => Repeat::Stuck,
        }
    }

    /// Records that the model was told about a repeated call.
    pub(crate) fn tell(&mut self) {
        self.told = true;
    }

    /// Screens a turn's `calls` not already `refused` against the bound `limit` (none: no
    /// bound): a call repeated too often gets a refusal in `refused` instead of running. The
    /// tool of a call repeated again after the model was told: the run is stuck.
    pub(crate) fn screen(
        &mut self,
        limit: Option<NonZeroUsize>,
        calls: &[ToolCall],
        refused: &mut Vec<ToolResult>,
    ) -> Option<String> {
        let limit = limit?;
        let mut told = false;
        for call in calls {
            if refused.iter().any(|refusal| refusal.call_id == call.id) {
                continue;
            }
            match self.count(call, limit.get()) {
                Repeat::Fresh => {}
                Repeat::Refused { times } => {
                    refused.push(refusal(call, times));
                    told = true;
                }
                Repeat::Stuck => {
                    tracing::info!(target: "ladoga", tool = %crate::toolbox::Escaped(&call.name), "the model is stuck");
                    return Some(call.name.clone());
                }
            }
        }
        if told {
            self.tell();
        }
        None
    }
}

/// What the model is told instead of running the `times`-th identical call.
pub(crate) fn refusal(call: &ToolCall, times: usize) -> ToolResult {
    ToolResult::error(
        &call.id,
        format!(
            "not run: this is call {times} of `{}` with these same arguments, and its result will \
             not change. Use the results you have, call something else, or answer; one more \
             such call ends the run.",
            call.name
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(name: &str, arguments: &str) -> ToolCall {
        ToolCall::new("c", name, arguments)
    }

    #[test]
    fn the_bound_refuses_once_then_the_run_is_stuck() {
        let mut repeats = Repeats::default();
        let same = call("list", r#"{"page": 1}"#);
        assert_eq!(repeats.count(&same, 3), Repeat::Fresh);
        assert_eq!(
            repeats.count(&call("list", r#"{"page": 2}"#), 3),
            Repeat::Fresh
        );
        assert_eq!(repeats.count(&same, 3), Repeat::Fresh);
        assert_eq!(repeats.count(&same, 3), Repeat::Refused { times: 3 });
        repeats.tell();
        assert_eq!(repeats.count(&same, 3), Repeat::Stuck);
    }
}
