//! What the code `#[orchestrator]` generates names. Not a public API: it changes without notice.
//!
//! The generated handler checks the user's types once each, in calls spanned on the user's
//! tokens ([`model`] on `model = …`, [`brief`] on the return type), and both return concrete
//! types, so a type that does not fit is one error at the right place rather than a cascade.

pub use neva::Context;
pub use neva::error::Error;
pub use neva::tool;
pub use neva::types::{Meta, RequestParamsMeta};

use std::future::Future;
use std::num::{NonZeroU64, NonZeroUsize};
use std::pin::Pin;

use neva::types::{CallToolResponse, Content};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use svir::{Completion, Request};

use crate::{CompletionModel, IntoBrief, Outcome, RunError, ToolPattern};
pub use crate::{Limits, Model, OnLimit, Orchestrator, ToolSelection};
pub use std::time::Duration;

/// A bound the macro has already checked to be at least one.
pub const fn bound(value: usize) -> NonZeroUsize {
    match NonZeroUsize::new(value) {
        Some(value) => value,
        None => panic!("#[orchestrator] checks bounds at compile time"),
    }
}

/// A token budget the macro checked to be at least one.
pub const fn tokens(value: u64) -> NonZeroU64 {
    match NonZeroU64::new(value) {
        Some(value) => value,
        None => panic!("#[orchestrator] checks budgets at compile time"),
    }
}

/// The model of type `M` the server registered (`App::add_singleton`), from neva's DI
/// container; a clear tool error when there is none.
pub fn resolve<M: Send + Sync + 'static>(ctx: &Context) -> Result<std::sync::Arc<M>, Error> {
    ctx.resolve_shared::<M>().map_err(|_| {
        Error::new(
            neva::error::ErrorCode::InternalError,
            format!(
                "this tool's model, `{}`, is not registered with the server: add it with \
                 `App::add_singleton`",
                std::any::type_name::<M>()
            ),
        )
    })
}

/// A pattern the macro has already checked.
pub fn pattern(text: &str) -> ToolPattern {
    ToolPattern::new(text).expect("#[orchestrator] checks patterns at compile time")
}

/// The brief the body returned, built; compiles only for a brief.
pub fn brief<B: IntoBrief>(brief: B) -> Result<Request, String> {
    brief.into_brief()
}

/// The injected model, its type erased; compiles only for a [`CompletionModel`].
pub fn model<M: CompletionModel>(model: &M) -> &dyn DynModel {
    model
}

/// The one runtime entry point of a generated handler.
pub async fn answer(
    orchestrator: &Orchestrator,
    ctx: &Context,
    model: &dyn DynModel,
    brief: Result<Request, String>,
) -> Result<Report, Error> {
    Ok(Report(orchestrator.run(ctx, model, brief).await))
}

/// A run as a tool answers it: the text with the run's report in its `_meta`, or the error.
pub struct Report(pub Result<Outcome, RunError>);

impl From<Report> for CallToolResponse {
    fn from(report: Report) -> Self {
        crate::report::response(report.0)
    }
}

/// The typed answer of an orchestrator with `output = T`, as a tool answers: `T` as
/// `structuredContent` (and as JSON text, with the run's report in its `_meta`), or a tool
/// error. Its schema is `T`'s, which neva's `#[tool]` publishes as the tool's `outputSchema`.
pub struct Typed<T>(pub Result<(T, Outcome), Error>);

impl<T: JsonSchema> JsonSchema for Typed<T> {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        T::schema_name()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        T::json_schema(generator)
    }
}

impl<T: Serialize> From<Typed<T>> for CallToolResponse {
    fn from(typed: Typed<T>) -> Self {
        let (value, outcome) = match typed.0 {
            Ok(answered) => answered,
            Err(error) => return CallToolResponse::from(error),
        };
        match serde_json::to_value(&value) {
            Ok(structure) => {
                let text = Content::text(structure.to_string());
                let mut response = crate::report::reported(text, Some(outcome.report()), false);
                response.struct_content = Some(structure);
                response
            }
            Err(error) => CallToolResponse::from(Error::from(error)),
        }
    }
}

/// Runs the orchestrator for a typed answer, as the generated handler does.
pub async fn answer_as<T: DeserializeOwned + JsonSchema>(
    orchestrator: &Orchestrator,
    ctx: &Context,
    model: &dyn DynModel,
    brief: Result<Request, String>,
) -> Result<(T, Outcome), Error> {
    orchestrator
        .run_as(ctx, model, brief)
        .await
        .map_err(|error| Error::new(neva::error::ErrorCode::InternalError, error.to_string()))
}

/// A [`CompletionModel`] behind a pointer: one boxed future per model request, which is
/// nothing beside the request itself.
pub trait DynModel: Send + Sync {
    /// [`CompletionModel::name`].
    fn name(&self) -> &str;

    /// [`CompletionModel::complete`], boxed.
    fn complete<'a>(
        &'a self,
        request: &'a Request,
    ) -> Pin<Box<dyn Future<Output = Result<Completion, svir::Error>> + Send + 'a>>;
}

impl<M: CompletionModel> DynModel for M {
    fn name(&self) -> &str {
        CompletionModel::name(self)
    }

    fn complete<'a>(
        &'a self,
        request: &'a Request,
    ) -> Pin<Box<dyn Future<Output = Result<Completion, svir::Error>> + Send + 'a>> {
        Box::pin(CompletionModel::complete(self, request))
    }
}

#[diagnostic::do_not_recommend]
impl CompletionModel for dyn DynModel + '_ {
    fn name(&self) -> &str {
        DynModel::name(self)
    }

    async fn complete(&self, request: &Request) -> Result<Completion, svir::Error> {
        DynModel::complete(self, request).await
    }
}
