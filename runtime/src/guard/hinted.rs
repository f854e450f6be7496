//! What a run knows of its tools, by name and by pattern.

use std::collections::HashMap;

use crate::toolbox::{ToolHints, ToolPattern};

/// The hints of a run's tools: those a server's annotations gave, by name, then those set by
/// pattern, the last one set that matches winning.
#[derive(Debug, Clone, Default)]
pub(crate) struct Hinted {
    named: HashMap<String, ToolHints>,
    set: Vec<(ToolPattern, ToolHints)>,
}

impl Hinted {
    /// The tool `name` has `hints`, as its annotations say.
    pub(crate) fn name(&mut self, name: impl Into<String>, hints: ToolHints) {
        self.named.insert(name.into(), hints);
    }

    /// The tools `pattern` matches have `hints`, whatever their annotations say.
    pub(crate) fn set(&mut self, pattern: ToolPattern, hints: ToolHints) {
        self.set.push((pattern, hints));
    }

    /// The hints of the tool `name`.
    pub(crate) fn of(&self, name: &str) -> ToolHints {
        let set = self.set.iter().rev();
        match set.into_iter().find(|(pattern, _)| pattern.matches(name)) {
            Some((_, hints)) => *hints,
            None => self.named.get(name).copied().unwrap_or_default(),
        }
    }
}
