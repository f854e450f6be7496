//! The model that writes the summaries of a run's oldest turns, when it is not the run's own
//! (`compact_model = Type`): a smaller, cheaper one is enough.

use std::fmt;
use std::sync::Arc;

use crate::model::CompletionModel;
use crate::model::erased::DynModel;

/// A model for the summaries, its type erased.
#[derive(Clone)]
pub(crate) struct CompactModel(Arc<dyn DynModel>);

impl CompactModel {
    /// `model`, erased.
    pub(crate) fn new<M: CompletionModel + 'static>(model: Arc<M>) -> Self {
        Self(model)
    }

    /// The model, as one any request goes to.
    pub(crate) fn model(&self) -> &dyn DynModel {
        &*self.0
    }
}

impl fmt::Debug for CompactModel {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_tuple("CompactModel")
            .field(&self.0.name())
            .finish()
    }
}
