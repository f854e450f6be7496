#![doc = include_str!("../docs/toolbox.md")]

pub(crate) mod arguments;
mod deferred;
mod live;
#[cfg(not(feature = "legacy-spec"))]
mod relay;
mod search;
mod selection;
mod union;

pub use self::deferred::{DEFAULT_SEARCH_LIMIT, SEARCH_TOOLS};
pub(crate) use self::deferred::{Deferral, answer as search_answer, search_tool};
pub use self::live::LiveTools;
pub(crate) use self::search::ToolIndex;
pub use self::selection::{PatternError, ToolPattern, ToolSelection};
pub(crate) use self::union::Source;
pub use self::union::{DEFAULT_CALL_TIMEOUT, ToolUnion};
