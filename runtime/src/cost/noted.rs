//! The price of the model that answered a request, as it notes it: a `Model` inside any
//! wrapper, or a fallback's model, says its own price while the request runs, so a wrapper need
//! not pass it on.

use std::cell::RefCell;

use super::Price;

tokio::task_local! {
    /// How the model that answered the request running on this task is priced.
    static NOTED: RefCell<Option<Pricing>>;
}

/// How a model is priced: its own price, or the provider whose price genai-prices gives for its
/// name.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Pricing {
    pub(crate) price: Option<Price>,
    pub(crate) provider: Option<String>,
}

/// Notes how the model that just answered is priced, when a request is listening and no model
/// inside this one noted it first.
pub(crate) fn note(price: Option<Price>, provider: Option<&str>) {
    if price.is_none() && provider.is_none() {
        return;
    }
    let _ = NOTED.try_with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.is_none() {
            *slot = Some(Pricing {
                price,
                provider: provider.map(str::to_owned),
            });
        }
    });
}

/// Runs `answer`, one model request, and returns with it how the model that answered is
/// priced, when it noted it.
pub(crate) async fn noted<T>(answer: impl Future<Output = T>) -> (T, Option<Pricing>) {
    let mut scoped = std::pin::pin!(NOTED.scope(RefCell::new(None), answer));
    let done = (&mut scoped).await;
    let noted = scoped.as_mut().take_value().and_then(RefCell::into_inner);
    (done, noted)
}
