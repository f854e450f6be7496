//! Keeping a long run's conversation within its context: `context = N` and
//! `compact_model = Type`.
//!
//! Without a bound a run's conversation only grows: fifty turns of 10 KB results send
//! requests of half a megabyte, which a provider refuses in the middle of the run.
//! [`Orchestration::context`](crate::Orchestration::context) (`context = 32000`) bounds it: a
//! request may not be more than that many tokens.
//!
//! - **Counting.** The size of the conversation is the model's own count where its provider
//!   gives one (the usage of the last answer: what it read and wrote) and, for what was added
//!   since, an estimate ([`estimate_tokens`]: four ASCII characters a token, a token for any
//!   other character). The tools offered and the system prompt count too.
//! - **When, and how far.** Right before a model request whose conversation is past the bound,
//!   it is compacted to half of the bound, not one message at a time: the requests until the
//!   next compaction only add to what this one sends, so consecutive requests share their
//!   prefix byte for byte (what a provider's prompt cache reuses) except at a compaction.
//! - **The first tier** replaces the oldest tool results by a one-line note,
//!   `[add_task's result, 12,345 characters, cleared]`, oldest first, until the conversation
//!   is at half its bound. Every call stays, and its result's place: the conversation is still
//!   one every provider accepts, and the model still reads what it did. The results of the
//!   last answer, which the model has not read yet, are never cleared.
//! - **The second tier**, when the notes are not enough (the turns' own text and calls add
//!   up), asks the model, or the one given by
//!   [`Orchestration::compact_model`](crate::Orchestration::compact_model), to summarise the
//!   oldest turns after the brief, and puts the summary in their place as one user message
//!   under [`SUMMARY_HEADING`]. The newest turns that fit beside it stay as they are. The
//!   brief, the messages before the run's own, is never compacted, so the task is never lost;
//!   an earlier summary is summarised again with the turns after it. The summary request is
//!   the task and the turns written out as text, no tool offered, at most a quarter of half
//!   the bound (256 to 4,096 tokens) written; its tokens count in the run's usage and budget.
//! - **A refusal.** A request the provider refuses for its length (svir's
//!   `ErrorKind::ContextOverflow`: OpenAI's `context_length_exceeded`, and what llama.cpp and
//!   vLLM answer; and Gemini's "exceeds the maximum number of tokens") is compacted to half of what it was counted
//!   as, and sent once more; a second refusal ends the run with
//!   [`RunError::TooLong`](crate::RunError::TooLong). Without a bound, a refusal is the run's
//!   error as before.
//! - **What it did** is [`Compacted`]: in [`Outcome::compacted`](crate::Outcome::compacted),
//!   in the report's `compacted` (`{"times": 2, "cleared": 9, "summarized": 0, "summaries": 0,
//!   "removed_tokens": 23456}`, absent when the run never compacted), and on the run's
//!   `invoke_agent` span as `ladoga.compactions` and `ladoga.compacted_tokens`.
//!
//! A conversation compacted is the one the run keeps: a paused run, or a session, keeps what
//! its compactions left. A call that goes on with a session starts from the earlier calls'
//! conversation: the first tier clears its results like any, and the second summarises it
//! first, being the oldest, into one message before this call's brief; this call's brief is
//! never compacted.
//!
//! # Examples
//! ```
//! use std::num::NonZeroU64;
//!
//! use ladoga::Orchestration;
//! use ladoga::testing::{Reply, ScriptedModel};
//! use serde_json::json;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let tools = svir::Tools::new().add_tool(svir::Tool::new("read", "Reads a page"), |_: serde_json::Value| async {
//!     "x".repeat(8_000)
//! });
//! // Three pages read, then the answer, from a model whose provider counts a token every four
//! // bytes of the request.
//! let model = ScriptedModel::from_fn(|seen| {
//!     let reply = match seen.tool_results().len() {
//!         3 => Reply::text("Read."),
//!         _ => Reply::call("read", json!({})),
//!     };
//!     reply.with_usage(seen.body().to_string().len() as u64 / 4, 5)
//! });
//!
//! let outcome = Orchestration::new(&model, &tools)
//!     .context(NonZeroU64::new(5_000).unwrap())
//!     .run("Read three pages.")
//!     .await?;
//! assert_eq!(outcome.text, "Read.");
//! assert_eq!((outcome.compacted.times, outcome.compacted.cleared), (1, 2));
//! let last = model.requests().pop().unwrap();
//! assert_eq!(last.tool_results()[0].1, "[read's result, 8,000 characters, cleared]");
//! assert_eq!(last.tool_results()[2].1, "x".repeat(8_000));
//! # Ok(())
//! # }
//! ```

pub(crate) mod clear;
mod compacted;
pub(crate) mod refusal;
pub(crate) mod size;
pub(crate) mod summary;

pub use self::compacted::Compacted;
pub(crate) use self::compacted::Window;
pub(crate) use self::size::Counted;
pub use self::size::estimate_tokens;
pub use self::summary::SUMMARY_HEADING;
