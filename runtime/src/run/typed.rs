//! Typed answers: the model's final answer parsed as a type, asked for as JSON of its schema.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use svir::{Request, Schema, ToolChoice, Toolbox};
use tracing::Instrument;

use std::sync::Arc;

use crate::brief::IntoBrief;
use crate::error::RunError;
use crate::model::CompletionModel;
use crate::outcome::Outcome;
use crate::run::pause::Halt;
use crate::run::state::Finishing;
use crate::run::{Ended, Orchestration};
use crate::usage::SharedUsage;

impl<M, T> Orchestration<'_, M, T>
where
    M: CompletionModel + ?Sized,
    T: Toolbox + Sync + ?Sized,
{
    /// Runs the loop like [`run`](Self::run), and returns the final answer parsed as `O`.
    ///
    /// The turns run as usual. An answer that already parses as `O` is taken as it is; any
    /// other is followed by one more request, tools refused, asking for the answer as JSON of
    /// `O`'s schema (`response_format`, which servers that support it keep to). An answer that
    /// still does not parse is told back to the model with the parse error, up to
    /// [`Limits::retries`](crate::Limits::retries) times, then the run fails with
    /// [`RunError::Output`].
    ///
    /// # Examples
    /// ```
    /// use ladoga::Orchestration;
    /// use ladoga::testing::{Reply, ScriptedModel};
    ///
    /// #[derive(serde::Deserialize, schemars::JsonSchema)]
    /// struct Sum {
    ///     total: i64,
    /// }
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let model = ScriptedModel::new([Reply::text("It is 5."), Reply::text(r#"{"total": 5}"#)]);
    /// let (sum, outcome) = Orchestration::new(&model, &svir::Tools::new())
    ///     .run_as::<Sum>("Add 2 and 3.")
    ///     .await?;
    /// assert_eq!(sum.total, 5);
    /// assert_eq!(outcome.turns, 2);
    /// # Ok(())
    /// # }
    /// ```
    pub async fn run_as<O>(self, brief: impl IntoBrief) -> Result<(O, Outcome), RunError>
    where
        O: DeserializeOwned + JsonSchema,
    {
        let (span, watch, usage) = self.watch();
        let typed = self.typed::<O>(brief, usage).instrument(span).await;
        watch.ended(typed.as_ref().map(|(_, outcome)| outcome));
        typed
    }

    async fn typed<O: DeserializeOwned + JsonSchema>(
        &self,
        brief: impl IntoBrief,
        usage: Arc<SharedUsage>,
    ) -> Result<(O, Outcome), RunError> {
        let (ended, mut run) = self.drive(brief, usage).await?;
        let Ended::Answered(mut done, stop) = ended else {
            // At a bound there is no conversation left to ask again in: the policy's answer
            // parses or the run fails.
            let outcome = self.conclude(ended, run).await?;
            return match serde_json::from_str(&outcome.text) {
                Ok(value) => Ok((value, outcome)),
                Err(error) => Err(RunError::Output {
                    requests: 0,
                    error: error.to_string(),
                }),
            };
        };
        let schema = Schema::of::<O>();
        // A run paused in asking for its typed answer goes on counting its requests.
        let mut requests = match run.finishing.take() {
            Some(Finishing::Typed { requests }) => requests,
            _ => 0,
        };
        loop {
            let error = match serde_json::from_str(&done.text) {
                Ok(value) => {
                    self.leave(&run.request, Some(&done)); // sessions
                    return Ok((value, self.finished(done, run, stop)));
                }
                Err(error) if requests > self.settings.limits.retries => {
                    return Err(RunError::Output {
                        requests,
                        error: error.to_string(),
                    });
                }
                Err(error) => error,
            };
            let ask = if requests == 0 {
                format!(
                    "Give your final answer as JSON matching the `{}` schema, and nothing else.",
                    schema.name
                )
            } else {
                format!(
                    "That answer does not match the `{}` schema: {error}. Give it again as JSON \
                     matching the schema, and nothing else.",
                    schema.name
                )
            };
            requests += 1;
            let request = std::mem::replace(&mut run.request, Request::new(""));
            run.request = request
                .assistant(done)
                .user(ask)
                .response_format(schema.clone())
                .tool_choice(ToolChoice::None);
            done = match self.ask_by(run.deadline, &run.request, &run.usage).await {
                Ok(answer) => run.heard(answer),
                Err(Halt::Failed(error)) => return Err(error),
                // The caller's model answers in the next round: this request is asked again.
                Err(halt) => {
                    run.finishing = Some(Finishing::Typed { requests });
                    run.kept = false;
                    return Err(self.halted(halt, &run).await);
                }
            };
        }
    }
}
