//! The seam in the loop: before each model request, a conversation past the run's bound is
//! compacted to half of it, in tiers; a request its provider refuses for its length is
//! compacted and sent once more.

use svir::{Message, Role, Toolbox};
use tracing::Span;

use crate::context::{Compacted, clear, refusal, size, summary};
use crate::cost;
use crate::error::RunError;
use crate::model::CompletionModel;
use crate::observe::spans;
use crate::run::ask::{Answer, Purpose};
use crate::run::pause::Halt;
use crate::run::{Orchestration, Run};

/// The least and the most a summary may be, in tokens: a quarter of what the conversation is
/// compacted to, within these.
const SUMMARY_TOKENS: (u64, u64) = (256, 4_096);

impl<M, T> Orchestration<'_, M, T>
where
    M: CompletionModel + ?Sized,
    T: Toolbox + Sync + ?Sized,
{
    /// Compacts `run`'s conversation before its next request, when it is past the bound
    /// ([`Self::context`]): to half of it, so that the requests until the next compaction
    /// only add to what this one sends. Nothing without a bound.
    pub(crate) async fn compact(&self, run: &mut Run) -> Result<(), Halt> {
        let Some(bound) = self.settings.context else {
            return Ok(());
        };
        let size = size::tokens(&run.request, run.window.counted());
        if size <= bound.get() {
            return Ok(());
        }
        // Boxed: only a run that compacts carries the summary request's future.
        Box::pin(self.compact_to(run, size, bound.get() / 2)).await
    }

    /// The answer to `run`'s request once more, after its provider refused it with `refused`:
    /// for a length refusal, with a bound, the conversation compacted to half of what it was
    /// counted as, and sent once more; refused again, [`RunError::TooLong`]. Any other error is
    /// the run's as it is.
    pub(crate) async fn ask_compacted(
        &self,
        run: &mut Run,
        refused: RunError,
    ) -> Result<Answer, Halt> {
        let Some(bound) = self.settings.context.filter(|_| for_length(&refused)) else {
            return Err(refused.into());
        };
        let size = size::tokens(&run.request, run.window.counted());
        tracing::info!(
            target: "ladoga",
            tokens = size,
            "the model refused the request for its length: compacting it, and asking once more"
        );
        Box::pin(self.compact_to(run, size, (bound.get() / 2).min(size / 2))).await?;
        match (self.ask(self.model, &run.request, &run.usage, Purpose::Turn)).await {
            Err(Halt::Failed(error)) if for_length(&error) => Err(RunError::TooLong {
                tokens: size::estimate(&run.request),
            }
            .into()),
            asked => asked,
        }
    }

    /// Compacts `run`'s conversation, counted as `size` tokens, to `goal`: the oldest tool
    /// results cleared first, then, if that is not enough, the oldest turns summarised.
    async fn compact_to(&self, run: &mut Run, size: u64, goal: u64) -> Result<(), Halt> {
        let before = size::estimate(&run.request);
        // The goal in the estimate's units: the provider may count more tokens, or fewer.
        let goal = (u128::from(goal) * u128::from(before) / u128::from(size.max(1))) as u64;
        let messages = &mut run.request.messages;
        // The last answer's results are still to be read: they are never compacted.
        let Some(last) = (messages.iter()).rposition(|message| message.role == Role::Assistant)
        else {
            tracing::warn!(target: "ladoga", tokens = size, "the brief alone is past the context");
            return Ok(());
        };
        let cleared = clear::oldest(&mut messages[..last], before.saturating_sub(goal));
        let mut compaction = Compacted {
            times: 1,
            cleared: cleared.results,
            ..Compacted::default()
        };
        if before - cleared.tokens > goal {
            // Sessions: the earlier calls' conversation is the oldest, summarised first.
            let earlier = self.summarise_history(run, goal).await?;
            let turns = match size::estimate(&run.request) > goal {
                true => self.summarise(run, goal).await?,
                false => 0,
            };
            compaction.summarized = earlier + turns;
            compaction.summaries = usize::from(earlier > 0) + usize::from(turns > 0);
        }
        // The last tier: a turn whose results alone pass the goal has them cut to fit, each
        // saying so, so that no request passes the context.
        let left = size::estimate(&run.request);
        let messages = &mut run.request.messages;
        if left > goal
            && let Some(last) =
                (messages.iter()).rposition(|message| message.role == Role::Assistant)
        {
            compaction.cut = clear::latest(&mut messages[last + 1..], left - goal).results;
        }
        let after = size::estimate(&run.request);
        if compaction.cleared + compaction.summarized + compaction.cut == 0 {
            // Only the brief and the last turn are left: the conversation is as it was.
            tracing::warn!(target: "ladoga", tokens = size, "nothing is left to compact");
            return Ok(());
        }
        compaction.removed = before.saturating_sub(after);
        let total = run.window.compacted(compaction);
        spans::compacted(&Span::current(), &total);
        tracing::info!(
            target: "ladoga",
            before,
            after,
            cleared = compaction.cleared,
            summarized = compaction.summarized,
            cut = compaction.cut,
            "the conversation was compacted"
        );
        if after > goal {
            tracing::warn!(target: "ladoga", after, goal, "the conversation is still past its goal");
        }
        Ok(())
    }

    /// Replaces the oldest turns after the brief by their summary, keeping the newest that fit
    /// in `goal` beside it; how many messages it replaced.
    async fn summarise(&self, run: &mut Run, goal: u64) -> Result<usize, Halt> {
        let messages = &run.request.messages;
        let opened = run.opened.min(messages.len());
        let most = (goal / 4).clamp(SUMMARY_TOKENS.0, SUMMARY_TOKENS.1);
        let brief: u64 = messages[..opened].iter().map(size::message_tokens).sum();
        let beside = size::fixed_tokens(&run.request) + brief + most;
        let Some(cut) = summary::cut(messages, opened, goal.saturating_sub(beside)) else {
            return Ok(0);
        };
        let task = summary::task(&messages[run.history.min(opened)..opened]);
        let turns = summary::transcript(&messages[opened..cut]);
        let Some(summary) = self.summary(run, &task, &turns, most).await? else {
            return Ok(0);
        };
        run.request.messages.splice(opened..cut, [summary]);
        Ok(cut - opened)
    }

    /// Sessions: replaces the earlier calls' conversation, before this call's brief, by its
    /// summary; how many messages it replaced. Nothing when it holds no turn (none, or only a
    /// summary).
    async fn summarise_history(&self, run: &mut Run, goal: u64) -> Result<usize, Halt> {
        let messages = &run.request.messages;
        let (history, opened) = (run.history.min(run.opened), run.opened.min(messages.len()));
        let earlier = &messages[..history];
        if !earlier
            .iter()
            .any(|message| message.role == Role::Assistant)
        {
            return Ok(0);
        }
        let most = (goal / 4).clamp(SUMMARY_TOKENS.0, SUMMARY_TOKENS.1);
        let task = summary::task(&messages[history..opened]);
        let turns = summary::transcript(earlier);
        let Some(summary) = self.summary(run, &task, &turns, most).await? else {
            return Ok(0);
        };
        run.request.messages.splice(..history, [summary]);
        run.opened -= history - 1;
        run.history = 1;
        Ok(history)
    }

    /// The summary of `turns` of the work on `task`, at most `most` tokens, written by the
    /// compact model if there is one, else the run's own, through the one model request
    /// ([`Self::ask`]); its tokens counted in the run's usage. `None` when what is left of the
    /// run's dollar budget pays for no summary.
    async fn summary(
        &self,
        run: &Run,
        task: &str,
        turns: &str,
        most: u64,
    ) -> Result<Option<Message>, Halt> {
        // Under a dollar budget, a summary is written within what is left, or not at all.
        let answer = match &self.settings.compact_model {
            Some(model) => {
                let model = model.model();
                let mut request = summary::request(model.name(), task, turns, most);
                let price = cost::price_of(model.name(), model.price(), model.price_provider());
                if !self.afford_summary(run, price, &mut request)? {
                    return Ok(None);
                }
                self.ask(model, &request, &run.usage, Purpose::Summary)
                    .await
            }
            None => {
                let mut request = summary::request(self.model.name(), task, turns, most);
                if !self.afford_summary(run, self.price().ok(), &mut request)? {
                    return Ok(None);
                }
                self.ask(self.model, &request, &run.usage, Purpose::Summary)
                    .await
            }
        };
        let answer = answer.inspect_err(|halt| {
            if let Halt::Failed(error) = halt {
                tracing::warn!(target: "ladoga", ?error, "the summary request failed");
            }
        })?;
        Ok(Some(summary::message(&answer.done.text)))
    }
}

/// Whether the provider refused the request for its length.
fn for_length(error: &RunError) -> bool {
    matches!(error, RunError::Model(error) if refusal::for_length(error))
}

#[cfg(test)]
mod tests {
    use std::num::NonZeroU64;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};

    use serde_json::json;
    use svir::{Tool, Tools};

    use crate::context::SUMMARY_HEADING;
    use crate::run::Orchestration;
    use crate::testing::{Reply, ScriptedModel, SeenRequest};

    /// `read` answers 4,000 characters: a thousand tokens.
    fn tools() -> Tools {
        Tools::new().add_tool(
            Tool::new("read", "Reads a page"),
            |_: serde_json::Value| async { "p".repeat(4_000) },
        )
    }

    fn summarising(seen: &SeenRequest) -> bool {
        seen.tool_names().is_empty()
    }

    /// Reads `pages` pages writing `thought` beside each call, then answers; summarises when
    /// asked. Its provider counts a token every four bytes.
    fn reading(pages: usize, thought: &'static str) -> ScriptedModel {
        let turns = Arc::new(AtomicUsize::new(0));
        ScriptedModel::from_fn(move |seen| {
            let reply = if summarising(seen) {
                Reply::text("Pages read, all of p.")
            } else if turns.fetch_add(1, Ordering::SeqCst) < pages {
                Reply::call("read", json!({})).with_text(thought)
            } else {
                Reply::text("Read.")
            };
            let bytes = seen.body().to_string().len() as u64;
            reply.with_usage(bytes / 4, thought.len() as u64 / 4 + 10)
        })
    }

    fn bound(tokens: u64) -> NonZeroU64 {
        NonZeroU64::new(tokens).expect("not zero")
    }

    /// The messages of `seen`, each as the JSON sent.
    fn messages(seen: &SeenRequest) -> Vec<String> {
        seen.messages().iter().map(ToString::to_string).collect()
    }

    #[tokio::test]
    async fn requests_stay_within_the_bound_and_share_their_prefix_between_compactions() {
        let model = reading(20, "");
        let tools = tools();
        let outcome = Orchestration::new(&model, &tools)
            .limits(crate::Limits::new().turns(std::num::NonZeroUsize::new(30).unwrap()))
            .context(bound(4_000))
            .run("Read twenty pages.")
            .await
            .expect("answers");
        assert_eq!(outcome.text, "Read.");
        let seen = model.requests();
        assert_eq!(seen.len(), 21);
        for request in &seen {
            let bytes = request.body().to_string().len();
            assert!(bytes <= 4 * 4_000, "{bytes} bytes");
        }
        let changed = (seen.windows(2))
            .filter(|pair| !messages(&pair[1]).starts_with(&messages(&pair[0])))
            .count();
        assert_eq!(changed, outcome.compacted.times);
        // Compacted to half the bound: a compaction every other turn at most, not every one.
        assert!((3..=10).contains(&changed), "{changed} compactions");
        assert_eq!(outcome.compacted.summaries, 0, "the notes were enough");
        assert!(outcome.compacted.cleared >= 15, "{:?}", outcome.compacted);
    }

    #[tokio::test]
    async fn without_a_bound_nothing_is_compacted() {
        let model = reading(5, "");
        let tools = tools();
        let outcome = Orchestration::new(&model, &tools)
            .run("Read five pages.")
            .await
            .expect("answers");
        assert!(outcome.compacted.is_none());
        let last = model.requests().pop().unwrap();
        assert!(
            last.tool_results()
                .iter()
                .all(|(_, result)| result.len() == 4_000)
        );
    }

    #[tokio::test]
    async fn the_compact_model_summarises_the_oldest_turns_after_the_brief() {
        let thought: &'static str = "I think about the page. ".repeat(40).leak();
        let model = reading(12, thought);
        let small = Arc::new(ScriptedModel::from_fn(|seen| {
            assert!(
                seen.first_user_text()
                    .unwrap()
                    .starts_with("The task:\nRead twelve")
            );
            Reply::text("Eleven pages read, all of p.")
        }));
        let tools = tools();
        let outcome = Orchestration::new(&model, &tools)
            .limits(crate::Limits::new().turns(std::num::NonZeroUsize::new(20).unwrap()))
            .context(bound(4_000))
            .compact_model(Arc::clone(&small))
            .run("Read twelve pages.")
            .await
            .expect("answers");
        assert_eq!(outcome.text, "Read.");
        let summaries = small.requests().len();
        assert!(summaries >= 1);
        assert_eq!(outcome.compacted.summaries, summaries);
        assert!(model.requests().iter().all(|seen| !summarising(seen)));
        let last = model.requests().pop().unwrap();
        let messages = last.messages();
        // The brief first, the summary in place of the oldest turns right after it.
        assert_eq!(messages[0]["content"], "Read twelve pages.");
        let summary = messages[1]["content"].as_str().unwrap();
        assert_eq!(
            summary,
            format!("{SUMMARY_HEADING}\nEleven pages read, all of p.")
        );
        assert_eq!(messages[2]["role"], "assistant");
    }

    #[tokio::test]
    async fn a_brief_past_the_bound_alone_is_sent_as_it_is() {
        let model = reading(0, "");
        let tools = tools();
        let outcome = Orchestration::new(&model, &tools)
            .context(bound(10))
            .run("x".repeat(400))
            .await
            .expect("answers");
        assert_eq!(outcome.text, "Read.");
        assert!(outcome.compacted.is_none(), "{:?}", outcome.compacted);
    }

    #[tokio::test]
    async fn without_a_bound_a_length_refusal_is_the_runs_error() {
        let model = ScriptedModel::new([Reply::context_length_exceeded()]);
        let tools = tools();
        let error = Orchestration::new(&model, &tools)
            .run("Read.")
            .await
            .expect_err("refused");
        assert!(
            matches!(&error, crate::RunError::Model(error) if error.kind() == svir::ErrorKind::ContextOverflow),
            "{error:?}"
        );
        assert_eq!(model.requests().len(), 1, "never sent again");
    }
}
