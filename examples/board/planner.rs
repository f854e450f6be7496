//! The model `plan_week` plans with: the board's own, or with `--caller-model` the model of the
//! MCP client that called it (`ladoga::CallerModel`, through sampling), the board's own after it
//! for a caller that cannot sample.

use ladoga::{CallerModel, CompletionModel, Fallback, Model, Price, SchemaProfile};
use svir::{Completion, Event, Request};

/// `plan_week`'s model.
pub enum Planner {
    /// The board's own model.
    Own(Model),
    /// The caller's, then the board's own.
    Caller(Fallback),
}

impl Planner {
    /// The caller's model first when `caller` says so, else the board's `own` alone.
    pub fn new(own: Model, caller: bool) -> Self {
        match caller {
            true => Self::Caller(Fallback::new([CallerModel::new()]).or(own)),
            false => Self::Own(own),
        }
    }
}

impl CompletionModel for Planner {
    fn name(&self) -> &str {
        match self {
            Self::Own(model) => model.name(),
            Self::Caller(models) => models.name(),
        }
    }

    async fn complete(&self, request: &Request) -> Result<Completion, svir::Error> {
        match self {
            Self::Own(model) => model.complete(request).await,
            Self::Caller(models) => models.complete(request).await,
        }
    }

    async fn complete_streaming(
        &self,
        request: &Request,
        heard: &(dyn Fn(&Event) + Sync),
    ) -> Result<Completion, svir::Error> {
        match self {
            Self::Own(model) => model.complete_streaming(request, heard).await,
            Self::Caller(models) => models.complete_streaming(request, heard).await,
        }
    }

    fn schema_profile(&self) -> SchemaProfile {
        match self {
            Self::Own(model) => model.schema_profile(),
            Self::Caller(models) => models.schema_profile(),
        }
    }

    fn price(&self) -> Option<Price> {
        match self {
            Self::Own(model) => model.price(),
            Self::Caller(models) => models.price(),
        }
    }

    fn price_provider(&self) -> Option<&str> {
        match self {
            Self::Own(model) => model.price_provider(),
            Self::Caller(models) => models.price_provider(),
        }
    }

    fn asks_caller(&self) -> bool {
        matches!(self, Self::Caller(_))
    }
}
