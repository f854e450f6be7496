//! The orchestrating MCP tool: an [`Orchestrator`] runs the loop inside a neva tool handler,
//! with the server's tools as the request may call them, its prompt and resources, the caller
//! asked for approvals, and the run kept between the rounds of its call.

mod answer;
mod briefing;
mod elicitation;
mod entered;
mod orchestrator;
mod prepare;
mod quota;
mod session;
mod stack;

pub use self::answer::{Output, Report, Typed, answer};
pub(crate) use self::briefing::Briefing;
pub(crate) use self::elicitation::Elicitation;
pub use self::orchestrator::{DEFAULT_DEPTH, Orchestrator};
