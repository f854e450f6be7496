#![doc = include_str!("../docs/store.md")]

mod inbox;
mod keeper;
pub(crate) mod ledger;
mod ran;
#[cfg(feature = "redis")]
mod redis;
mod round_lock;
mod runs;
mod seal;
mod session_bounds;

pub(crate) use self::inbox::Inbox;
pub(crate) use self::keeper::{Keeper, new_id};
pub(crate) use self::ran::{Ran, named as ran_named};
#[cfg(feature = "redis")]
pub use self::redis::RedisStore;
pub use self::round_lock::round_unlocked;
#[cfg(all(feature = "redis", not(feature = "legacy-spec")))]
pub(crate) use self::round_lock::{Unlocked, clear_here, mark_here};
pub use self::runs::{
    MemoryRuns, PAUSED_RUN_TTL, QUOTA_PREFIX, RunStore, Runs, SESSION_PREFIX, StoreError,
    StoreFuture,
};
pub(crate) use self::seal::Seal;
pub use self::session_bounds::{
    DEFAULT_SESSION_BYTES, DEFAULT_SESSIONS, DEFAULT_SESSIONS_PER_CALLER, SessionBounds,
};
