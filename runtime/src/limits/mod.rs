#![doc = include_str!("../docs/limits.md")]

pub(crate) mod arguments;
mod bounds;
mod on_limit;
pub(crate) mod partial;
pub(crate) mod repeats;
pub(crate) mod result;

pub use self::arguments::DEFAULT_MAX_ARGUMENTS;
pub use self::bounds::{DEFAULT_OUTPUT_RETRIES, DEFAULT_RUN_TIMEOUT, DEFAULT_TURNS, Limits};
pub use self::on_limit::OnLimit;
pub use self::result::DEFAULT_MAX_RESULT;
