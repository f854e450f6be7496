//! The model both orchestrators are given: svir's client over the in-memory backend.

use ladoga::CompletionModel;
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
