//! The repository's Markdown pages, compiled (and run, unless marked `no_run`) by the doc tests,
//! so that no page drifts from the API. The pages of the runtime's own docs
//! (`runtime/src/docs/`) are tested where they are included, as the docs of the crate, of
//! `#[orchestrator]` and of each module.

/// The README: the front page.
#[doc = include_str!("../../README.md")]
mod readme {}

/// The security page: bearer tokens, and what an approval is bound to.
#[doc = include_str!("../../docs/security.md")]
mod security {}

/// Running several replicas: nginx, Redis and SQLite.
#[doc = include_str!("../../docs/replicas.md")]
mod replicas {}

/// The operator's page.
#[doc = include_str!("../../docs/operating.md")]
mod operating {}

/// Durable runs on Restate.
#[cfg(feature = "restate")]
#[doc = include_str!("../../docs/durable.md")]
mod durable {}
