//! The price of the model that answered a request, as it notes it: a `Model` inside any
//! wrapper, or a fallback's model, says its own price while the request runs, so a wrapper need
//! not pass it on. A `Fallback` notes the name of the model it chose in the same place: one
//! task-local a request.

use std::cell::RefCell;

use futures_util::FutureExt;

use super::Price;

tokio::task_local! {
    /// What the model that answered the request running on this task noted of itself.
    static NOTED: RefCell<Noted>;
}

/// How a model is priced: its own price, or the provider whose price genai-prices gives for its
/// name.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Pricing {
    pub(crate) price: Option<Price>,
    pub(crate) provider: Option<String>,
}

/// What the model that answered a request noted of itself, the innermost note winning.
#[derive(Debug, Default)]
pub(crate) struct Noted {
    /// How it is priced.
    pub(crate) pricing: Option<Pricing>,
    /// Its name, when a [`Fallback`](crate::Fallback) chose it.
    pub(crate) by: Option<String>,
}

/// Notes `name` as the model a [`Fallback`](crate::Fallback) chose, when a request is listening
/// and no fallback inside this one noted its own first.
pub(crate) fn note_chosen(name: &str) {
    let _ = NOTED.try_with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.by.is_none() {
            slot.by = Some(name.to_owned());
        }
    });
}

/// Notes how the model that just answered is priced, when a request is listening and no model
/// inside this one noted it first.
pub(crate) fn note(price: Option<Price>, provider: Option<&str>) {
    if price.is_none() && provider.is_none() {
        return;
    }
    let _ = NOTED.try_with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.pricing.is_none() {
            slot.pricing = Some(Pricing {
                price,
                provider: provider.map(str::to_owned),
            });
        }
    });
}

/// Runs `answer`, one model request, and returns with it what the model that answered noted.
///
/// Not an `async fn`: one would hold `answer` twice, as its argument and as what it awaits.
pub(crate) fn noted<F: Future>(answer: F) -> impl Future<Output = (F::Output, Noted)> {
    let answered = answer.map(|done| (done, NOTED.with(RefCell::take)));
    NOTED.scope(RefCell::default(), answered)
}
