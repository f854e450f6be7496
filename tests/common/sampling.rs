//! A client that answers sampling with a model of its own, as a host does: through neva's
//! `sampling_request` and `sampling_result`.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use ladoga::CompletionModel;
use neva::types::sampling::CreateMessageRequestParams;

/// Makes `client` answer each sampling request with `model`, counting them in `sampled`.
pub fn answer_with(client: &mut neva::Client, model: ladoga::Model, sampled: Arc<AtomicUsize>) {
    let model = Arc::new(model);
    #[allow(deprecated)] // sampling, deprecated in MCP 2026-07-28
    client.map_sampling(move |params: CreateMessageRequestParams| {
        let (model, sampled) = (model.clone(), sampled.clone());
        async move {
            sampled.fetch_add(1, Ordering::SeqCst);
            let request = neva::svir::sampling_request(model.name(), params)?;
            let done = model.complete(&request).await.map_err(|error| {
                let code = neva::error::ErrorCode::InternalError;
                neva::error::Error::new(code, error.to_string())
            })?;
            neva::svir::sampling_result(&request, done)
        }
    });
}
