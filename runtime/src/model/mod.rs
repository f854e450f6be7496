#![doc = include_str!("../docs/model.md")]

mod client;
pub(crate) mod erased;
mod fallback;

pub use self::client::{CompletionModel, DEFAULT_RETRIES, Model};
pub use self::fallback::Fallback;
pub(crate) use self::fallback::{AnsweredBy, answered_by};
