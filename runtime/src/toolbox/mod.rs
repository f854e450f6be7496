#![doc = include_str!("../docs/toolbox.md")]

mod above;
pub(crate) mod arguments;
mod bounds;
mod deferred;
mod events;
mod guard;
mod hints;
mod live;
mod printable;
mod relay;
mod said;
mod screen;
mod search;
mod selection;
mod told;
mod union;

pub use self::above::elicit_above;
#[cfg(not(feature = "legacy-spec"))]
pub use self::above::sample_above;
pub use self::bounds::{
    MAX_REMOTE_BYTES, MAX_REMOTE_SCHEMA_DEPTH, MAX_REMOTE_TOOL_BYTES, MAX_REMOTE_TOOLS,
};
pub use self::deferred::{DEFAULT_SEARCH_LIMIT, SEARCH_TOOLS};
pub(crate) use self::deferred::{Deferral, answer as search_answer, search_tool};
pub use self::hints::ToolHints;
pub use self::live::LiveTools;
pub(crate) use self::printable::{Escaped, printable};
pub(crate) use self::search::ToolIndex;
pub use self::selection::{PatternError, ToolPattern, ToolSelection};
pub(crate) use self::union::Source;
pub use self::union::{DEFAULT_CALL_TIMEOUT, ToolUnion};
