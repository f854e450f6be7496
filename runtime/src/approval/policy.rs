//! Which tool calls a person must approve before they run.

use std::collections::HashSet;

use crate::toolbox::ToolPattern;

/// Which of the tools offered to the model need the caller's approval before a call runs.
///
/// A call that needs one is put to the caller as an MCP elicitation naming the tool, showing
/// its arguments and the model's words beside the call. Approved, it runs; declined or
/// dismissed, the model gets an error result saying so and the run goes on; when the caller
/// cannot be asked, the call never runs and the model is told why. Every question and its
/// answer is listed in the run's report ([`Outcome::approvals`](crate::Outcome::approvals)).
///
/// # Examples
/// ```
/// use ladoga::{Approvals, ToolPattern};
///
/// let approvals = Approvals::tools([ToolPattern::new("clear_*")?]);
/// assert!(approvals.needs("clear_board"));
/// assert!(!approvals.needs("add_task"));
///
/// // MCP's defaults: a tool that does not say it is read-only or additive may destroy.
/// let destructive = Approvals::destructive().annotated("list_tasks", Some(true), None);
/// assert!(!destructive.needs("list_tasks"));
/// assert!(destructive.needs("clear_board"));
/// # Ok::<(), ladoga::PatternError>(())
/// ```
#[derive(Debug, Clone, Default)]
pub struct Approvals {
    rule: Rule,
}

#[derive(Debug, Clone, Default)]
enum Rule {
    /// No call needs one.
    #[default]
    None,
    /// The calls of the tools these patterns match.
    Tools(Vec<ToolPattern>),
    /// Every call but those of the tools whose annotations say they destroy nothing.
    Destructive { safe: HashSet<String> },
}

impl Approvals {
    /// No call needs approval: the default.
    pub fn none() -> Self {
        Self::default()
    }

    /// The calls of every tool one of `patterns` matches need approval.
    pub fn tools(patterns: impl IntoIterator<Item = ToolPattern>) -> Self {
        Self {
            rule: Rule::Tools(patterns.into_iter().collect()),
        }
    }

    /// The calls of every tool that may destroy need approval: every tool whose annotations do
    /// not say `readOnlyHint: true` or `destructiveHint: false`.
    ///
    /// This follows MCP's defaults, where a tool without annotations is neither read-only nor
    /// free of destructive updates: a tool nobody annotated needs approval. An
    /// [`Orchestrator`](crate::Orchestrator) reads the annotations of the server's own tools;
    /// tools from elsewhere ([`Orchestrator::with`](crate::Orchestrator::with)) count as
    /// unannotated unless [`Self::annotated`] says otherwise.
    pub fn destructive() -> Self {
        Self {
            rule: Rule::Destructive {
                safe: HashSet::new(),
            },
        }
    }

    /// Records the `readOnlyHint` and `destructiveHint` annotations of the tool `name`, for
    /// [`Self::destructive`]; other policies ignore them.
    pub fn annotated(
        mut self,
        name: impl Into<String>,
        read_only: Option<bool>,
        destructive: Option<bool>,
    ) -> Self {
        if let Rule::Destructive { safe } = &mut self.rule
            && (read_only == Some(true) || destructive == Some(false))
        {
            safe.insert(name.into());
        }
        self
    }

    /// Whether the policy asks anything at all.
    pub fn is_none(&self) -> bool {
        matches!(self.rule, Rule::None)
    }

    /// Whether the tools' annotations decide.
    pub(crate) fn reads_annotations(&self) -> bool {
        matches!(self.rule, Rule::Destructive { .. })
    }

    /// Whether a call of the tool `name` needs approval.
    pub fn needs(&self, name: &str) -> bool {
        match &self.rule {
            Rule::None => false,
            Rule::Tools(patterns) => patterns.iter().any(|pattern| pattern.matches(name)),
            Rule::Destructive { safe } => !safe.contains(name),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn destructive_follows_mcps_defaults() {
        let approvals = Approvals::destructive()
            .annotated("list", Some(true), None)
            .annotated("add", Some(false), Some(false))
            .annotated("clear", Some(false), Some(true))
            .annotated("said_nothing", None, None);
        assert!(!approvals.needs("list"));
        assert!(!approvals.needs("add"));
        assert!(approvals.needs("clear"));
        assert!(approvals.needs("said_nothing"));
        assert!(approvals.needs("unknown"));
        assert!(!Approvals::none().needs("clear"));
    }
}
