//! A [`CompletionModel`] with its type erased: what [`Fallback`](crate::Fallback) holds, and
//! what the code `#[orchestrator]` generates runs on, so one handler serves any model type.

use std::future::Future;
use std::pin::Pin;

use svir::{Completion, Event, Request};

use crate::cost::Price;
use crate::model::CompletionModel;
use crate::schema::SchemaProfile;

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

    /// [`CompletionModel::asks_caller`].
    fn asks_caller(&self) -> bool;

    /// [`CompletionModel::price`].
    fn price(&self) -> Option<Price>;

    /// [`CompletionModel::price_provider`].
    fn price_provider(&self) -> Option<&str>;
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

    fn asks_caller(&self) -> bool {
        CompletionModel::asks_caller(self)
    }

    fn price(&self) -> Option<Price> {
        CompletionModel::price(self)
    }

    fn price_provider(&self) -> Option<&str> {
        CompletionModel::price_provider(self)
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

    fn asks_caller(&self) -> bool {
        DynModel::asks_caller(self)
    }

    fn price(&self) -> Option<Price> {
        DynModel::price(self)
    }

    fn price_provider(&self) -> Option<&str> {
        DynModel::price_provider(self)
    }
}
