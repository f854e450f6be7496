//! The bounded loop: offer tools, run the calls of a turn, feed the results back.

use std::num::NonZeroUsize;

use svir::{Completion, Request, ToolCall, ToolChoice, ToolResult, Toolbox};

use crate::result_limit::{self, DEFAULT_MAX_RESULT};
use crate::{CompletionModel, IntoBrief, OnLimit, Outcome, RunError, Stop, TokenUsage};

/// How many model answers a run takes unless told otherwise.
pub const DEFAULT_TURNS: NonZeroUsize = NonZeroUsize::new(8).expect("8 is not zero");

/// One run of the loop over any [`Toolbox`] and any [`CompletionModel`], without the macro.
///
/// Each turn sends the conversation with the tools, runs every call of the answer at once
/// through [`Toolbox::call_all`], then sends the assistant turn followed by one result per call,
/// in the order the calls were made. The loop ends when an answer has no calls (an answer cut by
/// the output limit included), or at the turn bound, where [`OnLimit`] decides.
///
/// # Examples
/// ```
/// use ladoga::Orchestration;
/// use ladoga::testing::{Reply, ScriptedModel};
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let tools = svir::Tools::new().add_tool(svir::Tool::new("now", "The time"), |_: serde_json::Value| async {
///     "noon"
/// });
/// let model = ScriptedModel::new([Reply::call("now", serde_json::json!({})), Reply::text("It is noon.")]);
///
/// let outcome = Orchestration::new(&model, &tools)
///     .system("Answer briefly.")
///     .run("What time is it?")
///     .await?;
/// assert_eq!(outcome.text, "It is noon.");
/// assert_eq!(outcome.turns, 2);
/// # Ok(())
/// # }
/// ```
#[must_use = "an orchestration does nothing until `run` is awaited"]
pub struct Orchestration<'a, M: ?Sized, T: ?Sized> {
    model: &'a M,
    tools: &'a T,
    system: Option<String>,
    turns: NonZeroUsize,
    on_limit: OnLimit,
    max_result: usize,
}

impl<'a, M, T> Orchestration<'a, M, T>
where
    M: CompletionModel + ?Sized,
    T: Toolbox + Sync + ?Sized,
{
    /// A run of `model` over `tools`, eight turns at most, failing at the bound.
    pub fn new(model: &'a M, tools: &'a T) -> Self {
        Self {
            model,
            tools,
            system: None,
            turns: DEFAULT_TURNS,
            on_limit: OnLimit::default(),
            max_result: DEFAULT_MAX_RESULT,
        }
    }

    /// The system prompt, used unless the brief brings its own.
    pub fn system(mut self, prompt: impl Into<String>) -> Self {
        self.system = Some(prompt.into());
        self
    }

    /// At most `turns` model answers, tool calls and final answer together.
    pub fn turns(mut self, turns: NonZeroUsize) -> Self {
        self.turns = turns;
        self
    }

    /// What happens when the model is still calling tools after the last turn.
    pub fn on_limit(mut self, policy: OnLimit) -> Self {
        self.on_limit = policy;
        self
    }

    /// At most `chars` characters of each tool result reach the model; a longer one is cut and
    /// ends with a note saying so. [`DEFAULT_MAX_RESULT`] unless set.
    pub fn max_result(mut self, chars: usize) -> Self {
        self.max_result = chars;
        self
    }

    /// Runs the loop from `brief` until the model answers or the bound is reached.
    pub async fn run(self, brief: impl IntoBrief) -> Result<Outcome, RunError> {
        let mut request = self.opening(brief)?;
        let mut usage = TokenUsage::default();
        let bound = self.turns.get();

        for turn in 1..=bound {
            let done = self.ask(&request, &mut usage).await?;
            if done.calls.is_empty() {
                return Ok(finished(done, turn, usage, Stop::Answered));
            }
            tracing::info!(
                target: "ladoga",
                turn,
                bound,
                calls = %names(&done.calls),
                "the model called tools"
            );
            let mut results = self.tools.call_all(&done.calls).await;
            for result in &mut results {
                result_limit::bound(result, self.max_result);
            }
            log_results(&done.calls, &results);
            request = request.assistant(done).tool_results(results);
        }

        match self.on_limit {
            OnLimit::Error => Err(RunError::TurnLimit { turns: bound }),
            OnLimit::Answer => {
                // The tools stay described, so the history of calls still makes sense, but the
                // model may not call one; a call it makes anyway is never run.
                request = request.tool_choice(ToolChoice::None);
                let done = self.ask(&request, &mut usage).await?;
                Ok(finished(done, bound + 1, usage, Stop::TurnLimit))
            }
        }
    }

    /// The first request: the brief, under the model's name, with the system prompt and tools.
    fn opening(&self, brief: impl IntoBrief) -> Result<Request, RunError> {
        let mut request = brief.into_brief().map_err(RunError::Brief)?;
        self.model.name().clone_into(&mut request.model);
        if request.system.is_none() {
            request.system.clone_from(&self.system);
        }
        Ok(request.tools(self.tools))
    }

    /// One model answer, its usage counted.
    async fn ask(&self, request: &Request, usage: &mut TokenUsage) -> Result<Completion, RunError> {
        let done = self.model.complete(request).await.map_err(|error| {
            tracing::warn!(target: "ladoga", ?error, "the model request failed");
            RunError::Model(error)
        })?;
        usage.add(done.usage);
        Ok(done)
    }
}

fn finished(done: Completion, turns: usize, usage: TokenUsage, stop: Stop) -> Outcome {
    tracing::info!(target: "ladoga", turns, ?stop, "the model answered");
    tracing::debug!(target: "ladoga", answer = %done.text, "the answer");
    Outcome {
        text: done.text,
        turns,
        usage,
        stop,
        finish: done.finish,
    }
}

/// The names of a turn's calls, for the log: `add_task, list_tasks`.
fn names(calls: &[ToolCall]) -> String {
    calls
        .iter()
        .map(|call| call.name.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

/// Each call with its arguments and result, at `debug`: they may hold the user's data.
fn log_results(calls: &[ToolCall], results: &[ToolResult]) {
    for (call, result) in calls.iter().zip(results) {
        tracing::debug!(
            target: "ladoga",
            tool = %call.name,
            arguments = %call.arguments,
            error = result.is_error,
            result = %result.content,
            "tool call answered"
        );
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    use serde_json::json;
    use svir::{Tool, Tools};

    use super::*;
    use crate::testing::{Reply, ScriptedModel};

    /// `slow` sleeps then answers, `fast` answers at once; both count their calls.
    fn tools(calls: Arc<AtomicUsize>) -> Tools {
        let slow_calls = Arc::clone(&calls);
        Tools::new()
            .add_tool(
                Tool::new("slow", "Answers late"),
                move |_: serde_json::Value| {
                    let calls = Arc::clone(&slow_calls);
                    async move {
                        tokio::time::sleep(Duration::from_millis(30)).await;
                        calls.fetch_add(1, Ordering::SeqCst);
                        "slow answer"
                    }
                },
            )
            .add_tool(
                Tool::new("fast", "Answers at once"),
                move |_: serde_json::Value| {
                    let calls = Arc::clone(&calls);
                    async move {
                        calls.fetch_add(1, Ordering::SeqCst);
                        "fast answer"
                    }
                },
            )
    }

    #[tokio::test]
    async fn results_follow_the_assistant_turn_in_the_order_of_the_calls() {
        let model = ScriptedModel::new([
            Reply::calls([("slow", json!({})), ("fast", json!({}))]),
            Reply::text("done").with_usage(7, 3),
        ]);
        let calls = Arc::new(AtomicUsize::new(0));
        let tools = tools(Arc::clone(&calls));

        let outcome = Orchestration::new(&model, &tools).run("go").await.unwrap();
        assert_eq!(outcome.text, "done");
        assert_eq!(outcome.turns, 2);
        assert_eq!(outcome.stop, Stop::Answered);
        assert_eq!(
            outcome.usage,
            TokenUsage {
                input: 17,
                output: 8
            }
        );
        assert_eq!(calls.load(Ordering::SeqCst), 2);

        let second = &model.requests()[1];
        let roles: Vec<_> = second
            .messages()
            .iter()
            .map(|m| m["role"].clone())
            .collect();
        assert_eq!(
            roles,
            [
                json!("user"),
                json!("assistant"),
                json!("tool"),
                json!("tool")
            ]
        );
        assert_eq!(
            second.tool_results(),
            [
                ("call_1_0".to_owned(), "slow answer".to_owned()),
                ("call_1_1".to_owned(), "fast answer".to_owned())
            ]
        );
    }

    #[tokio::test]
    async fn the_model_name_and_system_prompt_are_set_and_tools_offered() {
        let model = ScriptedModel::new([Reply::text("hi")]);
        let tools = tools(Arc::default());
        Orchestration::new(&model, &tools)
            .system("Be kind.")
            .run("hello")
            .await
            .unwrap();
        let first = &model.requests()[0];
        assert_eq!(first.model(), "scripted");
        assert_eq!(first.system(), Some("Be kind."));
        assert_eq!(first.tool_names(), ["slow", "fast"]);
    }

    #[tokio::test]
    async fn the_error_policy_fails_after_exactly_the_bound() {
        let model = ScriptedModel::from_fn(|_| Reply::call("fast", json!({})));
        let tools = tools(Arc::default());
        let error = Orchestration::new(&model, &tools)
            .turns(NonZeroUsize::new(2).unwrap())
            .run("loop")
            .await
            .unwrap_err();
        assert!(matches!(error, RunError::TurnLimit { turns: 2 }), "{error}");
        assert_eq!(model.requests().len(), 2);
    }

    #[tokio::test]
    async fn the_answer_policy_never_runs_a_call_made_against_it() {
        let model = ScriptedModel::from_fn(|_| Reply::call("fast", json!({})));
        let calls = Arc::new(AtomicUsize::new(0));
        let tools = tools(Arc::clone(&calls));
        let outcome = Orchestration::new(&model, &tools)
            .turns(NonZeroUsize::new(1).unwrap())
            .on_limit(OnLimit::Answer)
            .run("loop")
            .await
            .unwrap();
        assert_eq!(outcome.stop, Stop::TurnLimit);
        assert_eq!(outcome.turns, 2);
        assert_eq!(model.requests().len(), 2);
        assert_eq!(
            calls.load(Ordering::SeqCst),
            1,
            "the last answer's call did not run"
        );
    }

    #[tokio::test]
    async fn a_model_failure_keeps_the_servers_message_out_of_the_error_text() {
        let model = ScriptedModel::new([Reply::failure(503, "node gpu-7 of account acme is down")]);
        let tools = tools(Arc::default());
        let error = Orchestration::new(&model, &tools)
            .run("go")
            .await
            .unwrap_err();
        let told = error.to_string();
        assert!(told.starts_with("the model could not answer"), "{told}");
        assert!(!told.contains("acme"), "{told}");
        let RunError::Model(source) = error else {
            panic!("{told}")
        };
        assert_eq!(
            source.server_message(),
            Some("node gpu-7 of account acme is down")
        );
    }
}
