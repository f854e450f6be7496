//! What the code `#[orchestrator]` generates names. Not a public API: it changes without notice.

pub use neva::Context;
pub use neva::di::Dc;
pub use neva::error::Error;
pub use neva::tool;

use std::num::NonZeroUsize;

use crate::ToolPattern;

/// A bound the macro has already checked to be at least one.
pub const fn bound(value: usize) -> NonZeroUsize {
    match NonZeroUsize::new(value) {
        Some(value) => value,
        None => panic!("#[orchestrator] checks bounds at compile time"),
    }
}

/// A pattern the macro has already checked.
pub fn pattern(text: &str) -> ToolPattern {
    ToolPattern::new(text).expect("#[orchestrator] checks patterns at compile time")
}

pub use crate::{OnLimit, Orchestrator, ToolSelection};

/// The one runtime entry point of a generated handler. The macro names `M` explicitly and
/// spans the call on `model = …`, so a type that is not a model is blamed there, once.
pub async fn answer<M: crate::CompletionModel>(
    orchestrator: &Orchestrator,
    ctx: &Context,
    model: &M,
    brief: impl crate::IntoBrief,
) -> Result<String, Error> {
    orchestrator.answer(ctx, model, brief).await
}

/// Passes a brief through; compiles only for one, and the macro spans it on the return type.
pub fn brief<B: crate::IntoBrief>(brief: B) -> B {
    brief
}
