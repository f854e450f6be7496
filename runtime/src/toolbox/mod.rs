#![doc = include_str!("../docs/toolbox.md")]

pub(crate) mod arguments;
mod live;
mod selection;
mod union;

pub use self::live::LiveTools;
pub use self::selection::{PatternError, ToolPattern, ToolSelection};
pub(crate) use self::union::Source;
pub use self::union::{DEFAULT_CALL_TIMEOUT, ToolUnion};
