//! Guards: what a run lets through of the text it reads and writes.
//!
//! A [`Guard`] sees the brief before the first request, each call the model makes before it
//! runs, each tool result before the model reads it, and the answer before the caller does;
//! and decides with a [`Verdict`]: let it through, rewrite or redact it, block it (the model is
//! told, the run goes on), have the caller approve a call, or trip (the run stops with
//! [`RunError::Tripped`](crate::RunError::Tripped), naming the guard and why). Guards run in
//! the order they were added, each on the text the one before let through; a run with none
//! checks nothing.
//!
//! Three are built in, for text that anyone may have written (prompt injection, OWASP's first
//! agentic risk): a [`Fence`] around the results of untrusted tools, [`Provenance`], which
//! asks the caller before a call that could act on such text, and [`Echo`], which takes out of
//! the answer what it repeats of such text word for word. What a guard held back is in the
//! run's report ([`Outcome::held`](crate::Outcome::held)).
//!
//! Which tools are untrusted, read-only or reach outside is what the run knows of them, their
//! [`ToolHints`]: an [`Orchestrator`](crate::Orchestrator) reads its own server's annotations
//! (`readOnlyHint`, `openWorldHint`) with MCP's defaults (a tool that does not say
//! `openWorldHint: false` reaches outside, and its text is untrusted) and counts every tool of
//! an added toolbox
//! ([`Orchestrator::with`](crate::Orchestrator::with)) as untrusted; [`Orchestrator::hints`]
//! (or [`Orchestration::hints`](crate::Orchestration::hints)) says the rest, for a server one
//! does not control.
//!
//! Guards hold down the agent tree: a run started by a guarded run's call (an orchestrator its
//! model called in process) is guarded by that run's guards too, counts its brief as the untrusted
//! text the run above had read, and tells the run above what it read, which then counts its
//! answer as untrusted, from `research › read_mail` say.
//!
//! # Examples
//! A guard of one's own: no result may carry an IBAN to the model.
//! ```
//! use ladoga::guard::{At, Guard, Seen, Verdict};
//!
//! struct NoIban;
//!
//! impl Guard for NoIban {
//!     fn name(&self) -> &str {
//!         "no_iban"
//!     }
//!
//!     fn check(&self, seen: &Seen<'_>) -> Verdict {
//!         let iban = |word: &str| {
//!             word.len() > 14
//!                 && word.starts_with(|c: char| c.is_ascii_uppercase())
//!                 && word.get(2..4).is_some_and(|d| d.chars().all(|c| c.is_ascii_digit()))
//!         };
//!         if seen.at != At::Result || !seen.text.split_whitespace().any(iban) {
//!             return Verdict::Pass;
//!         }
//!         let text = seen.text.split(' ').map(|word| if iban(word) { "[IBAN]" } else { word });
//!         Verdict::Redact { text: text.collect::<Vec<_>>().join(" "), why: "an IBAN".into() }
//!     }
//! }
//!
//! let seen = Seen::result("read_bill", "Pay 98.70 to DE89370400440532013000 by Friday");
//! assert_eq!(
//!     NoIban.check(&seen),
//!     Verdict::Redact { text: "Pay 98.70 to [IBAN] by Friday".into(), why: "an IBAN".into() }
//! );
//! assert_eq!(NoIban.check(&Seen::answer("Paid.")), Verdict::Pass);
//! ```
//!
//! [`Orchestrator::hints`]: crate::Orchestrator::hints

mod echo;
mod fence;
mod guards;
mod held;
mod hinted;
mod inherited;
mod provenance;
mod seen;

pub use self::echo::{ECHOED_WORDS, Echo};
pub use self::fence::{DEFAULT_FENCE_BOUND, FENCE_CLOSE, Fence};
pub(crate) use self::guards::{Checked, Guards};
pub use self::held::{Held, HeldAction};
pub(crate) use self::inherited::{Inherited, ReadBelow, passed_on};
pub use self::provenance::Provenance;
pub use self::seen::{At, Seen};
pub use crate::toolbox::ToolHints;

/// A check on what a run reads and writes: see the [module](self).
///
/// `check` is called on the run's task, between turns: it must be quick and must not block.
/// A guard registered in neva's DI container is named in `guard = [..]` of `#[orchestrator]`;
/// [`Orchestrator::guard`](crate::Orchestrator::guard) and
/// [`Orchestration::guard`](crate::Orchestration::guard) add one without.
pub trait Guard: Send + Sync {
    /// Its name, in the report and in errors.
    fn name(&self) -> &str;

    /// What it makes of `seen`.
    fn check(&self, seen: &Seen<'_>) -> Verdict;

    /// Whether it reads answers (`true` unless it says otherwise). A run streams its model's
    /// text ([`Orchestrator::stream`](crate::Orchestrator::stream)) only while none of its
    /// guards does: the caller reads nothing of an answer before its guards have.
    fn checks_answers(&self) -> bool {
        true
    }
}

impl<G: Guard + ?Sized> Guard for std::sync::Arc<G> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn checks_answers(&self) -> bool {
        (**self).checks_answers()
    }

    fn check(&self, seen: &Seen<'_>) -> Verdict {
        (**self).check(seen)
    }
}

/// What a [`Guard`] decides about what it [`Seen`].
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum Verdict {
    /// Let it through as it is.
    Pass,
    /// Let `0` through in its place, holding nothing back (the [`Fence`]'s wrapping).
    Rewrite(String),
    /// Let `text` through in its place: part of it held back, for the reason `why`, which the
    /// report lists. A call cannot be redacted: there it blocks.
    Redact {
        /// What goes on in its place.
        text: String,
        /// Why, for the report.
        why: String,
    },
    /// Hold it back for the reason given, and go on: a call does not run and a result is not
    /// read (the model is told, in their place, which guard held them back and why); an answer
    /// is not given, and the model is told so and asked again. A brief cannot be blocked: there
    /// it trips.
    Block(String),
    /// A call runs only if the caller approves it, asked as an approval is
    /// ([`Approvals`](crate::Approvals)); where the caller cannot be asked it does not run.
    /// Anywhere but at a call, it blocks.
    Ask(String),
    /// Stop the run, for the reason given: it fails with
    /// [`RunError::Tripped`](crate::RunError::Tripped).
    Trip(String),
}
