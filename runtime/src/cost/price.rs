//! A model's price, set by hand or looked up in genai-prices, and one request's cost.

use std::collections::{HashMap, HashSet};
use std::sync::{LazyLock, Mutex};

use genai_prices::{PriceRequest, Usage, UsageKey};

/// What a model's tokens cost, in US dollars per million tokens.
///
/// # Examples
/// ```
/// use ladoga::cost::Price;
///
/// let price = Price::per_million_tokens(0.15, 0.60);
/// assert_eq!(price.input(), 0.15);
/// assert_eq!(Price::FREE.output(), 0.0);
/// ```
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Price {
    input: f64,
    output: f64,
}

impl Price {
    /// A model that costs nothing: a local one.
    pub const FREE: Price = Price {
        input: 0.0,
        output: 0.0,
    };

    /// `input` dollars a million tokens read, `output` dollars a million tokens written.
    pub const fn per_million_tokens(input: f64, output: f64) -> Self {
        Self { input, output }
    }

    /// Dollars a million tokens read.
    pub fn input(&self) -> f64 {
        self.input
    }

    /// Dollars a million tokens written.
    pub fn output(&self) -> f64 {
        self.output
    }

    /// What `usage` costs at this price, in dollars.
    pub(crate) fn of(&self, usage: svir::Usage) -> f64 {
        (usage.input as f64 * self.input + usage.output as f64 * self.output) / 1_000_000.0
    }
}

/// Prices genai-prices gives by model (`provider/name`), looked up once each.
static LOOKED_UP: LazyLock<Mutex<HashMap<String, Option<Price>>>> = LazyLock::new(Mutex::default);

/// The price of the model `name` before it answers: `price` when it has one, else
/// genai-prices' for `name` (of `provider`, when it is known); none when no price is known.
pub(crate) fn price_of(name: &str, price: Option<Price>, provider: Option<&str>) -> Option<Price> {
    if price.is_some() {
        return price;
    }
    let key = match provider {
        Some(provider) => format!("{provider}/{name}"),
        None => name.to_owned(),
    };
    let mut looked_up = LOOKED_UP
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    *looked_up.entry(key).or_insert_with(|| {
        let per_million = |key| {
            let tokens = Usage::from([(key, 1_000_000.0)]);
            let request = PriceRequest::new(name, &tokens);
            let request = match provider {
                Some(provider) => request.with_provider_id(provider),
                None => request,
            };
            genai_prices::calculate(&request)
                .ok()
                .map(|price| price.total_price)
        };
        let input = per_million(UsageKey::INPUT_TOKENS)?;
        let output = per_million(UsageKey::OUTPUT_TOKENS)?;
        Some(Price::per_million_tokens(input, output))
    })
}

/// The models genai-prices has no price for, each said once.
static UNKNOWN: LazyLock<Mutex<HashSet<String>>> = LazyLock::new(Mutex::default);

/// What one answer of the model `name` cost, in dollars, its usage `usage`: at `price` when it
/// has one, else at genai-prices' price for `name` (of `provider`, when it is known); none when
/// the answer has no usage or the model no known price.
pub(crate) fn cost(
    name: &str,
    price: Option<Price>,
    provider: Option<&str>,
    usage: Option<svir::Usage>,
) -> Option<f64> {
    let usage = usage?;
    if let Some(price) = price {
        return Some(price.of(usage));
    }
    // Known unknown: no lookup, and no allocation, again.
    let key = match provider {
        Some(provider) => std::borrow::Cow::Owned(format!("{provider}/{name}")),
        None => std::borrow::Cow::Borrowed(name),
    };
    if lock().contains(key.as_ref()) {
        return None;
    }
    let tokens = Usage::from([
        (UsageKey::INPUT_TOKENS, usage.input as f64),
        (UsageKey::OUTPUT_TOKENS, usage.output as f64),
    ]);
    let request = PriceRequest::new(name, &tokens);
    let request = match provider {
        Some(provider) => request.with_provider_id(provider),
        None => request,
    };
    match genai_prices::calculate(&request) {
        Ok(price) => Some(price.total_price),
        Err(error) => {
            // The server's operator is told, not the caller of the run: at `debug`, outside the
            // request's span, which neva would send a caller that asked for log messages.
            tracing::debug!(target: "ladoga", parent: None, model = name, provider, %error, "the model has no known price: the cost of its runs is unknown (set one with `Model::with_price`)");
            lock().insert(key.into_owned());
            None
        }
    }
}

fn lock() -> std::sync::MutexGuard<'static, HashSet<String>> {
    UNKNOWN
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}
