//! The model both orchestrators are given: svir's client over the in-memory backend.

use ladoga::{CompletionModel, Price};
use svir::{Client, Completion, Request};

use super::memory::Memory;

/// An svir client answered from memory, under the model name `scripted`.
#[derive(Clone)]
pub struct MemoryModel {
    client: Client<Memory>,
}

impl MemoryModel {
    /// A client whose requests `backend` answers.
    pub fn new(backend: Memory) -> Self {
        let client = Client::openai("http://scripted.invalid")
            .allow_http()
            .http(backend)
            .build()
            .expect("the client configuration is valid");
        Self { client }
    }

    /// The svir client, for the hand-written loop.
    pub fn client(&self) -> &Client<Memory> {
        &self.client
    }
}

impl CompletionModel for MemoryModel {
    fn name(&self) -> &str {
        "scripted"
    }

    async fn complete(&self, request: &Request) -> Result<Completion, svir::Error> {
        self.client.complete(request).await
    }
}

/// [`MemoryModel`] with a price, $0.15 and $0.60 a million tokens: what a run under a dollar
/// budget asks.
#[derive(Clone)]
pub struct PricedModel(pub MemoryModel);

impl CompletionModel for PricedModel {
    fn name(&self) -> &str {
        "scripted"
    }

    fn price(&self) -> Option<Price> {
        Some(Price::per_million_tokens(0.15, 0.60))
    }

    async fn complete(&self, request: &Request) -> Result<Completion, svir::Error> {
        self.0.complete(request).await
    }
}
