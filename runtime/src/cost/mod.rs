//! What a run costs and what it may spend, in US dollars: each model request's price from its
//! usage and its model's price, added up over the run and the runs nested in it, and the budget
//! that bounds it, at every depth and across servers.
//!
//! # The price
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
//!
//! # Budgets
//!
//! A run's dollar budget is `#[orchestrator(budget_usd = 0.50)]`, or
//! [`Limits::budget_usd`](crate::Limits::budget_usd()) without the macro:
//!
//! ```
//! use ladoga::{Limits, Model, Orchestrator, Price};
//!
//! /// Plans the week on at most 50 cents a call.
//! #[ladoga::orchestrator(budget_usd = 0.50)]
//! async fn plan_week(focus: String) -> String {
//!     format!("Plan my week around {focus}.")
//! }
//!
//! // The same bound without the macro.
//! let orchestrator = Orchestrator::new().limits(Limits::new().budget_usd(0.50));
//! // A self-hosted model costs nothing, and says so: a budget needs a price.
//! let local = svir::Client::openai("http://127.0.0.1:1234").build()?;
//! let model = Model::new(local, "qwen3").with_price(Price::FREE);
//! # let _ = (orchestrator, model);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! Before each request (a turn, the answer at a bound or at the depth bound, a typed answer, a
//! summary) the run checks what it has left against the request's worst case: its
//! input tokens (estimated as for `context`) at the input price, and its output limit at the
//! output price. The output limit is the request's own `max_tokens`, else 4,096 tokens. When what
//! is left pays for fewer, the request goes with its output limited to what it pays for; when
//! that is fewer than 256 tokens, it does not go: the run stops as
//! [`Stop::BudgetUsd`](crate::Stop::BudgetUsd) (`"budget_usd"` in the report) and `on_limit`
//! decides ([`budget_usd`](crate::orchestrator#budget_usd)).
//!
//! Nested runs share the budget. An orchestrator called in-process has at most what each run it
//! is nested in has left (less, when its own budget is less), and what it spends counts in each
//! of them as it goes, request by request. The calls of one turn run concurrently, each nested
//! run checking against what is left when it asks, so together they can pass the budget by one
//! request's worst case each.
//!
//! A budget needs a price. Under one, a model with no known price is not asked: the run fails
//! with [`RunError::Unpriced`](crate::RunError::Unpriced). `Price::FREE` is a price, and a free
//! model runs while anything is left.
//!
//! # Quotas
//!
//! `#[orchestrator(quota = "5 USD/day")]` ([`Orchestrator::quota`](crate::Orchestrator::quota),
//! [`Quota`]) bounds what one caller spends on a tool in a fixed window of the clock (a minute,
//! an hour, a day from midnight UTC). The caller is its token's issuer and subject; callers
//! without a token count together. The counter of each caller's window is kept in the run store
//! ([`Runs`](crate::Runs)): with a [`RedisStore`](crate::RedisStore), replicas share it, each
//! booking one script that reads, checks and adds ([`RunStore::book`](crate::RunStore::book)).
//!
//! A [`ServerQuota`] registered in neva's DI bounds what one caller spends on all of the server's
//! orchestrators together: each books against it too, beside its own.
//!
//! **A call is admitted with a whole run's worth reserved.** Before its first request, a call's
//! run books its worth at once: what is left of its dollar budget (`budget_usd`, or the caller's
//! lower one) when it has one, else its turn bound's worth of requests as large as its first
//! (the first request's input at the input price, its output limit at the output price, times
//! `turns`). A worth larger than the whole quota reserves the whole quota: such a run runs only
//! alone. A call the quota cannot reserve that much for is refused before its model is asked,
//! with a tool error that says when the quota frees up
//! ([`RunError::OverQuota`](crate::RunError::OverQuota)). So with a quota worth N runs, N calls
//! at once are admitted and answered in full, and the rest refused up front, rather than every
//! call spending its first request and none answering. Give an orchestrator behind a quota a
//! `budget_usd`: it is both what a run may spend and what it reserves.
//!
//! Each request of the run is then booked, from its reservation first, at its worst case, as a
//! budget counts it; with less left than that, its output is limited to what is left, and with
//! less than 256 tokens' worth it is not made. Once answered, the booking is corrected to the
//! request's cost. What the run spends otherwise (its nested runs, a summary) is booked at its
//! next turn and as it ends. As it ends or pauses, the run gives back what it reserved and did
//! not spend (a run dropped mid-way too), so the quota's counter holds what was spent. Calls at
//! once never book more than the quota together; they may spend more only where a request costs
//! more than its estimate, or a run without a budget spends more than its reservation. A run
//! that finds the quota spent after its first turn stops at the `quota` bound, and `on_limit`
//! decides. An orchestrator called in process by another books its spend against its own tool's
//! quota, and the server's quota once, by the run at the top of the tree. A run that goes on in a
//! later round (an approval, a question) is not admitted again: it books request by request. So
//! does a durable run (`durable = true`): a replica killed mid-run could not give a reservation
//! back, and its run, replayed on another, would reserve again.
//!
//! # Across MCP
//!
//! A budget crosses servers in a call's request, and what the call spent comes back in its
//! result. Another MCP server takes part as a Ladoga server does: called, it reads the budget
//! from the request, keeps its run within the lower of it and its own, and reports `cost_usd`
//! in the result; calling, it sends what it has left and adds the `cost_usd` that comes back.
//!
//! **The request.** A `tools/call` request says what its call may spend under the `_meta` key
//! [`BUDGET_KEY`], `io.github.ladoga-rs/budget_usd`, a JSON number of US dollars:
//!
//! ```json
//! {"jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": {
//!   "name": "plan_week", "arguments": {"focus": "the offsite"},
//!   "_meta": {"io.github.ladoga-rs/budget_usd": 0.25}}}
//! ```
//!
//! The call's run then has the lower of the tool's own budget and this one, and a tool without a
//! budget of its own has this one: a caller lowers a budget, never raises it. `0` or less leaves
//! nothing to spend: the run is at its bound before its first request that costs anything. A
//! value that is not a number is ignored.
//!
//! The same amount may come as the member [`BAGGAGE_MEMBER`], `io.github.ladoga-rs.budget_usd`,
//! of the request's W3C baggage (`"_meta": {"baggage":
//! "io.github.ladoga-rs.budget_usd=0.25"}`). neva 0.9 keeps only the `_meta` keys it knows, so
//! a middleware every Ladoga server gets (through neva's inventory) copies the key into the
//! baggage as the request comes in, and the handler reads the baggage ([`caller_budget`]). A
//! caller may send either; when several amounts come, the lowest counts. `#[orchestrator]` hands
//! it to [`Orchestrator::caller_budget`](crate::Orchestrator::caller_budget); without the macro,
//! pass it yourself.
//!
//! **The result.** The result carries the run's report in the `_meta` of its first content block,
//! under [`REPORT_KEY`](crate::REPORT_KEY) (neva 0.9's tool result has no `_meta` of its own).
//! Its `cost_usd` is what the run spent, nested runs included: a number of dollars, or `null`
//! when a price was unknown. A failed result (`"isError": true`) carries it too, when the run
//! spent anything or stopped at a bound:
//!
//! ```json
//! {"content": [{"type": "text",
//!   "text": "the run spent $0.0042, and its next request could have taken it past $0.005, …",
//!   "_meta": {"io.github.ladoga-rs/run": {"stop": "budget_usd", "cost_usd": 0.0042}}}],
//!  "isError": true}
//! ```
//!
//! **A Ladoga run as the caller.** Only [`LiveTools`](crate::LiveTools) sends a budget: in a run
//! that has one, each call to its server carries what is left (as the baggage member), and the
//! `cost_usd` of the result's report counts in the run's spend and in each run it is nested in;
//! a `null` makes the run's cost unknown. A neva `RemoteTools` used directly (in `with`, or in a
//! [`ToolUnion`](crate::ToolUnion)) sends none, and its server's spend is not counted; nor is the
//! spend of a server whose results carry no report. A far run's spend counts when its result
//! comes back: each call to another server in one turn is sent what is left as it starts, the
//! others' spend not counted yet, so together they can spend that much each.

mod carried;
mod dollars;
mod noted;
mod price;
pub(crate) mod purse;
mod quota;
mod reckoned;
mod spent;

pub use self::carried::{BAGGAGE_MEMBER, BUDGET_KEY, caller_budget};
pub(crate) use self::carried::{spent_by, with_budget};
pub use self::dollars::Dollars;
pub(crate) use self::dollars::usd;
pub(crate) use self::noted::{Pricing, note, note_chosen, noted};
pub use self::price::Price;
pub(crate) use self::price::{cost, price_of};
pub use self::quota::{Per, Quota, ServerQuota};
pub(crate) use self::reckoned::{reckon, reckoned};
pub(crate) use self::spent::Spent;
