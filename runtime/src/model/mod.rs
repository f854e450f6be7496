#![doc = include_str!("../docs/model.md")]

pub(crate) mod caller;
mod client;
mod compact;
pub(crate) mod erased;
mod fallback;
mod sampling;

pub use self::caller::{CALLER_MODEL_STATE_BYTES, CallerModel};
pub use self::client::{CompletionModel, DEFAULT_RESPONSE_TIMEOUT, DEFAULT_RETRIES, Model};
pub(crate) use self::compact::CompactModel;
pub(crate) use self::fallback::AnsweredBy;
pub use self::fallback::Fallback;
