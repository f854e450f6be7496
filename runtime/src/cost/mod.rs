//! What a run costs, in US dollars: each model request's price from its usage and its model's
//! price, added up over the run and the runs nested in it.
//!
//! A model's price is the one set by hand ([`Model::with_price`](crate::Model::with_price), a
//! [`CompletionModel::price`](crate::CompletionModel::price) of your own), else the one Pydantic's
//! [`genai-prices`](https://github.com/pydantic/genai-prices) database has for its name (and its
//! provider, [`Model::with_price_provider`](crate::Model::with_price_provider), when one name
//! could be several providers'). A model with no known price says so once, in the server's log at `debug`, and a run
//! that asked it has an unknown cost: the report's `"cost_usd"` is `null`, never `0`. A local
//! model is free when it is said to be: `Price::FREE`.
//!
//! svir 0.1.7's usage has no count of cached input tokens, so every input token is priced at the
//! input price: a provider that bills cached tokens for less costs less than reported.
//!
//! The cost goes where the tokens go: [`Outcome::cost_usd`](crate::Outcome::cost_usd), the
//! report's `"cost_usd"` (a nested run's cost in its caller's), the run's `invoke_agent` span
//! (`ladoga.cost_usd`), and the counter `ladoga_model_cost_microdollars_total` by model.

mod carried;
mod dollars;
mod noted;
mod price;
mod reckoned;
mod spent;

pub use self::carried::{BAGGAGE_MEMBER, BUDGET_KEY, caller_budget};
pub(crate) use self::carried::{spent_by, with_budget};
pub use self::dollars::Dollars;
pub(crate) use self::dollars::usd;
pub(crate) use self::noted::{Pricing, note, noted};
pub use self::price::Price;
pub(crate) use self::price::{cost, price_of};
pub(crate) use self::reckoned::{reckon, reckoned};
pub(crate) use self::spent::Spent;
