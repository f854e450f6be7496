//! Typed answers: the model's final answer parsed as a type, asked for as JSON of its schema.

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use svir::{Completion, Request, Schema, ToolChoice, Toolbox};
use tracing::Instrument;

use std::sync::Arc;

use crate::brief::IntoBrief;
use crate::error::RunError;
use crate::limits::OnLimit;
use crate::model::CompletionModel;
use crate::outcome::{Outcome, Stop};
use crate::run::pause::Halt;
use crate::run::state::{Finishing, Run};
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
    /// At a bound, [`OnLimit::Answer`]'s one request is this request for JSON of the schema,
    /// tools refused, retried the same way, and the outcome's stop is the bound's.
    /// [`OnLimit::Partial`] ends a typed run as [`OnLimit::Error`] does, with the bound's error:
    /// the work done so far is no `O`.
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
        let schema = Schema::of::<O>();
        // A run paused in asking for its typed answer goes on counting its requests.
        let mut requests = match run.finishing.take() {
            Some(Finishing::Typed { requests, .. }) => requests,
            _ => 0,
        };
        let (mut done, stop) = match ended {
            Ended::Answered(done, stop) => (done, stop),
            // At a bound, the answer policy's one request asks for JSON of the schema, tools
            // refused; a partial answer is no `O`, so that policy ends as the bound's error.
            Ended::Limit(stop) => match self.settings.limits.on_limit {
                OnLimit::Answer => {
                    tracing::info!(target: "ladoga", ?stop, "the run reached a bound: asking for its typed answer");
                    let ask = json_ask(&schema, None);
                    let request = std::mem::replace(&mut run.request, Request::new(""));
                    run.request = request.user(ask).response_format(schema.clone());
                    requests += 1;
                    (self.ask_typed(&mut run, requests, stop).await?, stop)
                }
                OnLimit::Error | OnLimit::Partial => return Err(self.limit_error(stop, &run)),
            },
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
            let ask = json_ask(&schema, (requests > 0).then_some(&error));
            requests += 1;
            let request = std::mem::replace(&mut run.request, Request::new(""));
            run.request = request
                .assistant(done)
                .user(ask)
                .response_format(schema.clone());
            done = self.ask_typed(&mut run, requests, stop).await?;
        }
    }

    /// The answer to `run`'s request for its typed answer, the `requests`th, tools refused; a
    /// caller's model that answers in the next round pauses the run here, and it goes on with
    /// this request.
    async fn ask_typed(
        &self,
        run: &mut Run,
        requests: usize,
        stop: Stop,
    ) -> Result<Completion, RunError> {
        let request = std::mem::replace(&mut run.request, Request::new(""));
        run.request = request.tool_choice(ToolChoice::None);
        // At the deadline itself the answer is asked for without one, as the bound's policy is.
        let deadline = run.deadline.filter(|_| stop != Stop::Deadline);
        match self.ask_funded(deadline, run).await {
            Ok(Ok(done)) => Ok(done),
            // What is left pays for no answer: a partial answer is no `O`, so the bound's error.
            Ok(Err(unpaid)) => Err(self.limit_error(unpaid, run)),
            Err(Halt::Failed(error)) => Err(error),
            Err(halt) => {
                let stop = Some(stop.name().to_owned()).filter(|_| stop != Stop::Answered);
                run.finishing = Some(Finishing::Typed { requests, stop });
                run.kept = false;
                Err(self.halted(halt, run).await)
            }
        }
    }
}

/// What the model is told to give its typed answer: as JSON of `schema`, the first time; again,
/// with why the last one did not parse, after.
fn json_ask(schema: &Schema, error: Option<&serde_json::Error>) -> String {
    match error {
        None => format!(
            "Give your final answer as JSON matching the `{}` schema, and nothing else.",
            schema.name
        ),
        Some(error) => format!(
            "That answer does not match the `{}` schema: {error}. Give it again as JSON matching \
             the schema, and nothing else.",
            schema.name
        ),
    }
}
