//! What a generated handler answers: the run's text with its report, or a typed answer
//! (`output = T`) as `structuredContent`, or a tool error.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;

use neva::Context;
use neva::error::Error;
use neva::types::CallToolResponse;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use svir::Request;

use crate::cost;
use crate::error::RunError;
use crate::model::erased::DynModel;
use crate::observe::{response, typed_response};
use crate::tool::Orchestrator;
use crate::tool::stack::with_room;

/// The one runtime entry point of a generated handler.
pub async fn answer(
    orchestrator: &Orchestrator,
    ctx: &Context,
    model: &dyn DynModel,
    brief: Result<Request, String>,
) -> Result<Report, Error> {
    // Steering: a call that gives its words to the run in flight on its session answers here,
    // before a durable run would start; the run it otherwise is does not look again.
    let unsteered;
    let orchestrator = match (orchestrator.session.steer, &brief) {
        (true, Ok(request)) => {
            match Box::pin(orchestrator.steering(ctx, request)).await {
                Ok(Some(told)) => return Ok(Report(response(Ok(told), None))),
                Ok(None) => {}
                Err(error) => return Ok(Report(response(Err(error), None))),
            }
            unsteered = orchestrator.clone().steer(false);
            &unsteered
        }
        _ => orchestrator,
    };
    // The run is one heap allocation, polled where it is: neva moves a handler's future as it
    // wraps it, and the run's state is kilobytes, so a handler holds only a pointer to it. A run
    // nested deep in process polls on a stack segment of its own.
    let run = async {
        let run = with_room(Box::pin(orchestrator.run(ctx, model, brief)));
        match cost::reckoned(run).await {
            // The question to the caller: neva answers the round with it.
            (Err(RunError::Paused(error)), _) => Err(error),
            (run, spent) => Ok(response(run, spent)),
        }
    };
    durably(orchestrator, ctx, run).await.map(Report)
}

/// `run`'s answer, or, for a durable orchestrator, its durable run's (`restate` feature).
async fn durably(
    orchestrator: &Orchestrator,
    ctx: &Context,
    run: impl Future<Output = Result<CallToolResponse, Error>>,
) -> Result<CallToolResponse, Error> {
    #[cfg(feature = "restate")]
    if orchestrator.durable {
        let progress = orchestrator.settings.progress.clone();
        // Boxed: a durable answer's future (the ingress request, the task's state) is
        // kilobytes, which every handler's future would carry.
        return Box::pin(crate::durable::answer(ctx, progress, run)).await;
    }
    let _ = (orchestrator, ctx);
    run.await
}

/// A run as a tool answers it: the text with the run's report in its `_meta`, or the error.
pub struct Report(CallToolResponse);

impl From<Report> for CallToolResponse {
    fn from(report: Report) -> Self {
        report.0
    }
}

/// The typed answer of an orchestrator with `output = T`, as a tool answers: `T` as
/// `structuredContent` (and as JSON text, with the run's report in its `_meta`), or a tool
/// error. Its schema is `T`'s, which neva's `#[tool]` publishes as the tool's `outputSchema`.
pub struct Typed<T> {
    response: CallToolResponse,
    output: PhantomData<fn() -> T>,
}

impl<T> Typed<T> {
    /// The tool error of a run that could not start.
    pub fn failed(error: Error) -> Self {
        Self {
            response: CallToolResponse::from(error),
            output: PhantomData,
        }
    }
}

impl<T: Output> JsonSchema for Typed<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        T::schema(generator)
    }
}

impl<T> From<Typed<T>> for CallToolResponse {
    fn from(typed: Typed<T>) -> Self {
        typed.response
    }
}

/// A type an orchestrator can answer with (`output = T`): one the model's JSON parses into,
/// with a schema to ask for and publish, that serializes into `structuredContent`.
///
/// The generated handler and the tool's schema need only this of `T`, so a `T` that does not
/// fit is told in these words, first on the user's `T`, rather than once per missing bound.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be an orchestrator's output",
    label = "an `output` type needs `Serialize`, `Deserialize` and `JsonSchema`",
    note = "derive them: `#[derive(serde::Serialize, serde::Deserialize, schemars::JsonSchema)]`"
)]
pub trait Output: Sized {
    /// The name of its schema.
    fn schema_name() -> std::borrow::Cow<'static, str>;

    /// Its schema, which the tool publishes as its `outputSchema`.
    fn schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema;

    /// Runs the orchestrator for a typed answer, as the generated handler does.
    fn answer<'a>(
        orchestrator: &'a Orchestrator,
        ctx: &'a Context,
        model: &'a dyn DynModel,
        brief: Result<Request, String>,
    ) -> Pin<Box<dyn Future<Output = Typed<Self>> + Send + 'a>>;
}

#[diagnostic::do_not_recommend]
impl<T: Serialize + DeserializeOwned + JsonSchema> Output for T {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        <T as JsonSchema>::schema_name()
    }

    fn schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        T::json_schema(generator)
    }

    fn answer<'a>(
        orchestrator: &'a Orchestrator,
        ctx: &'a Context,
        model: &'a dyn DynModel,
        brief: Result<Request, String>,
    ) -> Pin<Box<dyn Future<Output = Typed<T>> + Send + 'a>> {
        Box::pin(async move {
            let run = async {
                let run = with_room(Box::pin(orchestrator.run_as::<_, T>(ctx, model, brief)));
                let (answered, spent) = cost::reckoned(run).await;
                Ok(typed_response(answered, spent))
            };
            Typed {
                response: durably(orchestrator, ctx, run)
                    .await
                    .unwrap_or_else(CallToolResponse::from),
                output: PhantomData,
            }
        })
    }
}
