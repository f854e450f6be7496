//! A run's guards, applied in order to what it is shown.

use std::fmt;
use std::sync::Arc;

use crate::guard::hinted::Hinted;
use crate::guard::{At, Guard, Held, HeldAction, Seen, ToolHints, Verdict};
use crate::toolbox::ToolPattern;

/// A run's guards, in order, and what it knows of its tools. Empty, it checks nothing; and it
/// is one pointer, so that a run without guards carries and copies no more than that.
#[derive(Clone, Default)]
pub(crate) struct Guards(Option<Arc<Set>>);

/// The guards themselves, shared by the runs of one orchestrator until one run's differ.
#[derive(Clone, Default)]
struct Set {
    list: Vec<Arc<dyn Guard>>,
    hints: Hinted,
    /// Where untrusted text in the brief came from (attached resources), before any turn.
    briefed: Vec<String>,
}

impl fmt::Debug for Guards {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Some(set) = &self.0 else {
            return f.write_str("Guards(none)");
        };
        let names: Vec<&str> = set.list.iter().map(|guard| guard.name()).collect();
        f.debug_struct("Guards")
            .field("list", &names)
            .field("hints", &set.hints)
            .finish_non_exhaustive()
    }
}

/// What the guards made of what they were shown.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Checked {
    /// Let through: as it was, or as the text given.
    Through(Option<String>),
    /// Held back by `guard`, for `why`.
    Blocked { guard: String, why: String },
    /// A call `guard` has the caller approve, for `why`.
    Asked { guard: String, why: String },
    /// `guard` stops the run, for `why`.
    Tripped { guard: String, why: String },
}

impl Guards {
    /// Adds `guard`, after the others.
    pub(crate) fn add(&mut self, guard: Arc<dyn Guard>) {
        self.set().list.push(guard);
    }

    /// Adds the guards of `above` (a run above this one in the agent tree) that this run has
    /// none of the same name of, after its own.
    pub(crate) fn inherit(&mut self, above: &Guards) {
        for guard in above.list() {
            if !self.list().iter().any(|own| own.name() == guard.name()) {
                self.add(Arc::clone(guard));
            }
        }
    }

    /// The set, to change: this run's own from now on.
    fn set(&mut self) -> &mut Set {
        Arc::make_mut(self.0.get_or_insert_with(Arc::default))
    }

    /// The guards, in order.
    fn list(&self) -> &[Arc<dyn Guard>] {
        self.0.as_deref().map_or(&[], |set| &set.list)
    }

    /// Whether there is no guard.
    pub(crate) fn is_empty(&self) -> bool {
        self.list().is_empty()
    }

    /// Whether one of them reads answers ([`Guard::checks_answers`]).
    pub(crate) fn check_answers(&self) -> bool {
        self.list().iter().any(|guard| guard.checks_answers())
    }

    /// The tools `pattern` matches have `hints`.
    pub(crate) fn hint(&mut self, pattern: ToolPattern, hints: ToolHints) {
        self.set().hints.set(pattern, hints);
    }

    /// The tool `name` has `hints` (its annotations), unless a pattern says otherwise.
    pub(crate) fn annotate(&mut self, name: impl Into<String>, hints: ToolHints) {
        self.set().hints.name(name, hints);
    }

    /// The brief holds untrusted text from `source`.
    pub(crate) fn briefed(&mut self, source: String) {
        self.set().briefed.push(source);
    }

    /// Where the brief's untrusted text came from.
    pub(crate) fn briefed_from(&self) -> &[String] {
        self.0.as_deref().map_or(&[], |set| &set.briefed)
    }

    /// What the run knows of the tool `name`.
    pub(crate) fn hints_of(&self, name: &str) -> ToolHints {
        self.0
            .as_deref()
            .map(|set| set.hints.of(name))
            .unwrap_or_default()
    }

    /// `seen`, shown to each guard in turn, each on the text the one before let through; with
    /// what they held back, at `turn`.
    pub(crate) fn check(&self, seen: Seen<'_>, turn: usize) -> (Checked, Vec<Held>) {
        let mut held = Vec::new();
        let mut text: Option<String> = None;
        for guard in self.list() {
            let shown = Seen {
                text: text.as_deref().unwrap_or(seen.text),
                ..seen
            };
            let mut hold = |action, why: &str| {
                held.push(Held {
                    guard: guard.name().to_owned(),
                    at: seen.at,
                    tool: seen.tool.map(str::to_owned),
                    turn,
                    action,
                    why: why.to_owned(),
                });
            };
            let named = |why: String| (guard.name().to_owned(), why);
            let stop = match guard.check(&shown) {
                Verdict::Pass => continue,
                Verdict::Rewrite(new) => {
                    text = Some(new);
                    continue;
                }
                Verdict::Redact { text: new, why } if seen.at != At::Call => {
                    hold(HeldAction::Redacted, &why);
                    text = Some(new);
                    continue;
                }
                Verdict::Ask(why) if seen.at == At::Call => {
                    hold(HeldAction::Asked, &why);
                    let (guard, why) = named(why);
                    Checked::Asked { guard, why }
                }
                Verdict::Redact { why, .. } | Verdict::Block(why) | Verdict::Ask(why)
                    if seen.at != At::Brief =>
                {
                    hold(HeldAction::Blocked, &why);
                    let (guard, why) = named(why);
                    Checked::Blocked { guard, why }
                }
                Verdict::Trip(why)
                | Verdict::Redact { why, .. }
                | Verdict::Block(why)
                | Verdict::Ask(why) => {
                    let (guard, why) = named(why);
                    Checked::Tripped { guard, why }
                }
            };
            return (stop, held);
        }
        (Checked::Through(text), held)
    }
}
