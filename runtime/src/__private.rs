//! What the code `#[orchestrator]` generates names. Not a public API: it changes without notice.
//!
//! The generated handler checks the user's types once each, in calls spanned on the user's
//! tokens ([`model`] on `model = …`, [`brief`] on the return type), and both return concrete
//! types, so a type that does not fit is one error at the right place rather than a cascade.

pub use neva::Context;
pub use neva::error::Error;
pub use neva::tool;
pub use neva::types::{Meta, RequestParamsMeta};
pub use std::time::Duration;

pub use crate::approval::Approvals;
pub use crate::cost::{Per, Quota, caller_budget};
pub use crate::limits::{Limits, OnLimit};
pub use crate::model::Model;
pub use crate::model::erased::DynModel;
pub use crate::observe::task::task_id;
pub use crate::session::Session;
pub use crate::session::steers;
pub use crate::tool::{Orchestrator, Output, Report, Typed, answer};
pub use crate::toolbox::ToolSelection;

use std::num::{NonZeroU64, NonZeroUsize};

use serde::Serialize;
use svir::Request;

use crate::brief::IntoBrief;
use crate::model::CompletionModel;
use crate::toolbox::{Source, ToolPattern};

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

/// The model of type `M` the server registered (`App::add_singleton`), for
/// `compact_model = M`; a clear tool error when there is none. Compiles only for a
/// [`CompletionModel`], so a type that is none is one error, at it.
pub fn compact_model<M>(ctx: &Context) -> Result<CompactModel, Error>
where
    M: CompletionModel + 'static,
{
    let model = ctx.resolve_shared::<M>().map_err(|_| {
        Error::new(
            neva::error::ErrorCode::InternalError,
            format!(
                "this tool's `compact_model`, `{}`, is not registered with the server: add it \
                 with `App::add_singleton`",
                std::any::type_name::<M>()
            ),
        )
    })?;
    Ok(CompactModel(crate::model::CompactModel::new(model)))
}

/// A model [`compact_model`] resolved, for [`compacting`].
pub struct CompactModel(crate::model::CompactModel);

/// `orchestrator` with `model` writing its summaries: [`Orchestrator::compact_model`].
pub fn compacting(orchestrator: Orchestrator, model: CompactModel) -> Orchestrator {
    orchestrator.summarised_by(model.0)
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
    Ok(Toolbox(Source::new(std::any::type_name::<T>(), toolbox)))
}

/// The guard of type `G` the server registered (`App::add_singleton`), for `guard = [G]`; a
/// clear tool error when there is none. Returns a concrete type, so a `G` that is no guard is
/// one error, at `G`.
pub fn guard<G>(ctx: &Context) -> Result<GuardOf, Error>
where
    G: crate::guard::Guard + Send + Sync + 'static,
{
    let guard = ctx.resolve_shared::<G>().map_err(|_| {
        Error::new(
            neva::error::ErrorCode::InternalError,
            format!(
                "this tool's guard `{}` (`guard = [...]`) is not registered with the server: \
                 add it with `App::add_singleton`",
                std::any::type_name::<G>()
            ),
        )
    })?;
    Ok(GuardOf(guard))
}

/// A guard [`guard`] resolved, for [`guarded`].
pub struct GuardOf(std::sync::Arc<dyn crate::guard::Guard>);

/// `orchestrator` with `guard` after its other guards: [`Orchestrator::guard`].
pub fn guarded(orchestrator: Orchestrator, guard: GuardOf) -> Orchestrator {
    orchestrator.guarded_by(guard.0)
}

/// A toolbox [`toolbox`] resolved, for [`with`].
pub struct Toolbox(Source);

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

/// What `durable = true` needs: the `restate` feature of `ladoga`, which implements it for `()`.
#[diagnostic::on_unimplemented(
    message = "`durable = true` needs the `restate` feature of `ladoga`",
    label = "durable runs are built only with the `restate` feature",
    note = "enable it: `ladoga = {{ version = \"…\", features = [\"restate\"] }}`"
)]
pub trait Restate {}

#[cfg(feature = "restate")]
impl Restate for () {}

pub use crate::registry::{DurableTool, is_durable};
pub use inventory;

/// `orchestrator`, each call a durable run: [`Orchestrator::durable`]. Compiles only with the
/// `restate` feature.
pub fn durable<R: Restate>(orchestrator: Orchestrator) -> Orchestrator {
    #[cfg(feature = "restate")]
    return orchestrator.durable(true);
    #[cfg(not(feature = "restate"))]
    orchestrator
}
