#![doc = include_str!("../docs/observe.md")]

/// The Prometheus metrics, a folder of their own below the store and the sessions that count
/// in them: here too, where they were first.
pub use crate::metrics;
mod progress;
mod report;
mod sink;
pub(crate) mod spans;
// Steering a task's run through `tasks/update`, a 2026-07-28 request.
#[cfg(not(feature = "legacy-spec"))]
mod steer;
mod stream;
// The MCP task a run is: told its progress under 2026-07-28, a silent twin under `legacy-spec`.
#[cfg(not(feature = "legacy-spec"))]
pub(crate) mod task;
#[cfg(feature = "legacy-spec")]
#[path = "no_task.rs"]
pub(crate) mod task;

pub(crate) use self::progress::Progress;
#[cfg(feature = "restate")]
pub(crate) use self::progress::notify;
pub(crate) use self::report::{response, typed_response};
pub(crate) use self::sink::TaskSink;
pub(crate) use self::stream::Listener;
pub use self::stream::{DEFAULT_STREAM_INTERVAL, STREAM_LOGGER};
#[cfg(not(feature = "legacy-spec"))]
pub(crate) use self::task::TaskCall;
pub(crate) use self::task::TaskLine;
#[cfg(not(feature = "legacy-spec"))]
pub use self::task::TaskProgress;
pub use crate::wire::REPORT_KEY;
