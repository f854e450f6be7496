//! The names Ladoga's MCP messages carry in `_meta`, in one place, for a server or a client that
//! talks to Ladoga's: the run's report on a result, and what a call may spend
//! ([`cost`](crate::cost)).

/// The `_meta` key the report is under: `{"stop": "answered", "turns": 2, "partial": false,
/// "usage": {"input_tokens": 25, "output_tokens": 10}, "model": "qwen3", "cost_usd": 0.00012,
/// "first_token_ms": 180}`. `stop` is one of `answered`, `turns`, `deadline`, `budget`,
/// `budget_usd`, `stuck`, `depth` and `steered` ([`Stop::name`](crate::Stop::name)); `model` is the model that answered the last request
/// ([`Outcome::model`](crate::Outcome::model)), absent when none did; `cost_usd` is what the run's requests cost in US
/// dollars, nested runs included, `null` when a model's price is unknown ([`Outcome::cost_usd`](crate::Outcome::cost_usd),
/// [`cost`](crate::cost));
/// `first_token_ms` is how long the first model request took to its first piece
/// ([`Outcome::first_token`](crate::Outcome::first_token)), absent for a model that does not stream; `approvals` lists each
/// call put to the caller, `{"tool": "clear_board", "arguments": {}, "decision": "approved"}`,
/// with `decision` one of `approved`, `declined`, `cancelled` and `unavailable`
/// ([`Outcome::approvals`](crate::Outcome::approvals)), absent when none was; `questions` lists each question the model
/// put to the caller's person with `ask_caller`, `{"question": "Which day?", "choices": ["Thu",
/// "Fri"], "reply": "answered", "answer": "Thu"}`, with `reply` one of `answered`, `declined`,
/// `cancelled` and `unavailable`, `choices` absent for a free answer and `answer` for no answer
/// ([`Outcome::inquiries`](crate::Outcome::inquiries)), absent when none was; `session` is the id a later call passes to
/// go on with the conversation ([`Outcome::session`](crate::Outcome::session)), absent without a session by id;
/// `unknown` lists the calls a crash cut in a durable run, to tools that may not run twice, not
/// made again (`[{"tool": "add_task", "arguments": {…}}]`, [`Outcome::unknown`](crate::Outcome::unknown)), absent when
/// none was; `compacted` says how often the conversation was compacted and what that removed, `{"times":
/// 2, "cleared": 9, "summarized": 6, "summaries": 1, "cut": 0, "removed_tokens": 23456}`, `cut`
/// counting the results of a turn not read yet cut to fit
/// ([`Outcome::compacted`](crate::Outcome::compacted)), absent when it never was; `runs` lists the
/// runs of the orchestrators the run's model called in process, `{"tool": "research", "turn": 1,
/// "report": {…}}`, each with its own report ([`Outcome::runs`](crate::Outcome::runs)), absent when
/// none reported; `steered` lists the messages its caller sent the run while it ran, `{"turn": 1,
/// "text": "…"}` ([`Outcome::steered`](crate::Outcome::steered)), absent when none was read.
pub const REPORT_KEY: &str = "io.github.ladoga-rs/run";

/// The request `_meta` key of the dollars a call may spend: a JSON number of US dollars
/// (see [`cost`](crate::cost)).
pub const BUDGET_KEY: &str = "io.github.ladoga-rs/budget_usd";

/// [`BUDGET_KEY`] as a member of the request's W3C `baggage`, which carries it to the handler.
pub const BAGGAGE_MEMBER: &str = "io.github.ladoga-rs.budget_usd";

/// The elicitation `_meta` key of the path of a question asked below the call it comes with:
/// the orchestrating tools from the one called down to the run that asks, then the tool the
/// question is about, as a JSON list of strings (`["plan_week", "research", "clear_board"]`).
/// The question's message opens with the same path, `[plan_week › research › clear_board]`.
///
/// A question another MCP server asks (a tool of a [`with`](crate::orchestrator#with) server, a
/// [`LiveTools`](crate::LiveTools)) is relayed up as that server put it: its path here ends at the
/// tool the call went to (`["near_boss", "remote_bottom"]`), and what the question is about
/// inside that server (its own path, such as `[bottom › wipe]` for a Ladoga server) is in the
/// message it wrote.
pub const PATH_KEY: &str = "io.github.ladoga-rs/path";

/// The request `_meta` key that makes a call of an orchestrator with sessions steer the run in
/// flight on its session rather than wait for it: `"io.github.ladoga-rs/steer": true` (see
/// [`Orchestrator::steer`](crate::Orchestrator::steer)).
pub const STEER_KEY: &str = "io.github.ladoga-rs/steer";

/// [`STEER_KEY`] as a member of the request's W3C `baggage`, `io.github.ladoga-rs.steer=1`,
/// which carries it to the handler.
pub const STEER_MEMBER: &str = "io.github.ladoga-rs.steer";
