#![doc = include_str!("../docs/store.md")]

mod keeper;
mod ran;
#[cfg(feature = "redis")]
mod redis;
mod round_lock;
mod runs;
mod seal;

pub(crate) use self::keeper::{Keeper, new_id};
pub(crate) use self::ran::{Ran, named as ran_named};
#[cfg(feature = "redis")]
pub use self::redis::RedisStore;
pub use self::round_lock::round_unlocked;
#[cfg(all(feature = "redis", not(feature = "legacy-spec")))]
pub(crate) use self::round_lock::{Unlocked, clear_here, mark_here};
pub use self::runs::{
    MemoryRuns, PAUSED_RUN_TTL, RunStore, Runs, SESSION_PREFIX, StoreError, StoreFuture,
};
pub(crate) use self::seal::Seal;
