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
use std::marker::PhantomData;
use std::num::{NonZeroU64, NonZeroUsize};
use std::pin::Pin;

use neva::types::CallToolResponse;
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use svir::{Completion, Event, Request};

pub use crate::{Approvals, Limits, Model, OnLimit, Orchestrator, ToolSelection};
use crate::{CompletionModel, IntoBrief, Outcome, RunError, SchemaProfile, ToolPattern};
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

/// The id of the MCP task `ctx`'s tool call runs as, from its request's `_meta`; none for a call
/// that is no task.
pub fn task_id(ctx: &Context, meta: &RequestParamsMeta) -> Option<String> {
    #[cfg(not(feature = "legacy-spec"))]
    if ctx.is_task() {
        // neva keeps the field to itself: it is read from the `_meta` as it travels.
        let meta = serde_json::to_value(meta).ok()?;
        let id = meta
            .get("io.modelcontextprotocol/related-task")?
            .get("taskId")?;
        return id.as_str().map(str::to_owned);
    }
    let _ = (ctx, meta);
    None
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

/// The toolbox of type `T` the server registered (`App::add_singleton`), for `with = [T]`; a
/// clear tool error when there is none. Returns a concrete type, so a `T` that is no toolbox is
/// one error, at `T`.
pub fn toolbox<T>(ctx: &Context) -> Result<Toolbox, Error>
where
    T: svir::Toolbox + Send + Sync + 'static,
{
    let toolbox = ctx.resolve_shared::<T>().map_err(|_| {
        Error::new(
            neva::error::ErrorCode::InternalError,
            format!(
                "this tool's toolbox `{}` (`with = [...]`) is not registered with the server: \
                 add it with `App::add_singleton`",
                std::any::type_name::<T>()
            ),
        )
    })?;
    Ok(Toolbox(crate::union::Source::new(
        std::any::type_name::<T>(),
        toolbox,
    )))
}

/// A toolbox [`toolbox`] resolved, for [`with`].
pub struct Toolbox(crate::union::Source);

/// `orchestrator` offering `toolbox`'s tools too: [`Orchestrator::with`].
pub fn with(orchestrator: Orchestrator, toolbox: Toolbox) -> Orchestrator {
    orchestrator.with_source(toolbox.0)
}

/// A pattern the macro has already checked.
pub fn pattern(text: &str) -> ToolPattern {
    ToolPattern::new(text).expect("#[orchestrator] checks patterns at compile time")
}

/// The brief the body returned, built; compiles only for a brief.
pub fn brief<B: IntoBrief>(brief: B) -> Result<Request, String> {
    brief.into_brief()
}

/// One parameter of an orchestrator with `prompt = "…"`, offered as the prompt's argument of the
/// same name: its JSON when its type serializes ([`ByValue`]), else no value ([`NoValue`]). The
/// generated code calls `(&PromptArg(&param)).prompt_value()` with both traits in scope, so a
/// type that does not serialize (a `Dc<T>`, a `Json<T>` of a type only deserialized) is simply
/// not offered.
pub struct PromptArg<'a, T: ?Sized>(pub &'a T);

/// [`PromptArg`] of a type that serializes: its JSON.
pub trait ByValue {
    /// The parameter's value as JSON.
    fn prompt_value(&self) -> Option<serde_json::Value>;
}

impl<T: Serialize + ?Sized> ByValue for PromptArg<'_, T> {
    fn prompt_value(&self) -> Option<serde_json::Value> {
        serde_json::to_value(self.0).ok()
    }
}

/// [`PromptArg`] of any other type: no value.
pub trait NoValue {
    /// No value.
    fn prompt_value(&self) -> Option<serde_json::Value>;
}

impl<T: ?Sized> NoValue for &PromptArg<'_, T> {
    fn prompt_value(&self) -> Option<serde_json::Value> {
        None
    }
}

/// A value a `{placeholder}` of an `attach` URI stands for: any `Display`, written as it
/// displays.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be written into a resource URI",
    label = "a `{{…}}` placeholder in `attach` needs a parameter that implements `Display`",
    note = "use a `String` or a number parameter for the placeholder"
)]
pub trait UriPart {
    /// The text the placeholder is replaced with.
    fn uri_part(&self) -> String;
}

#[diagnostic::do_not_recommend]
impl<T: std::fmt::Display + ?Sized> UriPart for T {
    fn uri_part(&self) -> String {
        self.to_string()
    }
}

/// A placeholder's text; compiles only for a [`UriPart`].
pub fn uri_part<T: UriPart + ?Sized>(value: &T) -> String {
    value.uri_part()
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
    // The run is one heap allocation, polled where it is: neva moves a handler's future as it
    // wraps it, and the run's state is kilobytes, so a handler holds only a pointer to it.
    match Box::pin(orchestrator.run(ctx, model, brief)).await {
        // The question to the caller: neva answers the round with it.
        Err(RunError::Paused(error)) => Err(error),
        run => Ok(Report(run)),
    }
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
            let answered = orchestrator.run_as::<_, T>(ctx, model, brief).await;
            Typed {
                response: crate::report::typed_response(answered),
                output: PhantomData,
            }
        })
    }
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

    /// [`CompletionModel::complete_streaming`], boxed.
    fn complete_streaming<'a>(
        &'a self,
        request: &'a Request,
        heard: &'a (dyn Fn(&Event) + Sync),
    ) -> Pin<Box<dyn Future<Output = Result<Completion, svir::Error>> + Send + 'a>>;

    /// [`CompletionModel::schema_profile`].
    fn schema_profile(&self) -> SchemaProfile;
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

    fn complete_streaming<'a>(
        &'a self,
        request: &'a Request,
        heard: &'a (dyn Fn(&Event) + Sync),
    ) -> Pin<Box<dyn Future<Output = Result<Completion, svir::Error>> + Send + 'a>> {
        Box::pin(CompletionModel::complete_streaming(self, request, heard))
    }

    fn schema_profile(&self) -> SchemaProfile {
        CompletionModel::schema_profile(self)
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

    async fn complete_streaming(
        &self,
        request: &Request,
        heard: &(dyn Fn(&Event) + Sync),
    ) -> Result<Completion, svir::Error> {
        DynModel::complete_streaming(self, request, heard).await
    }

    fn schema_profile(&self) -> SchemaProfile {
        DynModel::schema_profile(self)
    }
}
