//! The loop: one run of an orchestration over any toolbox and any model, from its opening
//! request to its outcome.
//!
//! [`Orchestration`] is the builder and the run's entry point. Each part of a run is its own
//! file, called from the turns at one named seam:
//!
//! - `turns.rs`: the loop itself (ask, screen, call, feed back);
//! - `state.rs`: where a run is, how it starts, pauses and resumes;
//! - `gate.rs`: the approvals, asked about a turn's calls before any runs, and the model's
//!   `ask_caller` questions, asked in the same round;
//! - `ask.rs`: one model request, the only way the run asks a model anything;
//! - `pause.rs`: a pause, handed up as a value and made the run's error in one place;
//! - `compact.rs`: compaction (`context`), before a request past the bound;
//! - `spend.rs`: the dollar budget, checked before each turn's request;
//! - `booking.rs`: a quota's bookings, each turn's request booked before it is made;
//! - `conclude.rs`: the outcome, and the policy at a bound;
//! - `typed.rs`: a typed answer (`output = T`);
//! - `guarded.rs`: the guards, shown the brief, the calls, the results and the answer;
//! - `drain.rs`: the server's shutdown;
//! - `search.rs`: tool search, the deferred tools found with `search_tools`;
//! - `steer.rs`: steering, the messages a caller sends a run in flight, read at each turn;
//! - `recorder.rs`: a durable run's steps, recorded by the recorder it is handed (a Restate
//!   journal, `durable/`);
//! - `seams.rs`: what the run is plugged into, filled once by whoever starts it.

mod ask;
pub(crate) mod booking;
mod compact;
mod conclude;
mod drain;
mod gate;
mod guarded;
mod orchestration;
mod pause;
pub(crate) mod recorder;
mod seams;
mod search;
mod settings;
mod spend;
mod state;
mod steer;
#[cfg(test)]
mod tests;
mod turns;
mod typed;

pub use self::drain::Drain;
pub(crate) use self::gate::{Gate, Screen};
pub(crate) use self::orchestration::Ended;
pub use self::orchestration::Orchestration;
pub(crate) use self::recorder::Recorder;
pub(crate) use self::seams::Seams;
pub(crate) use self::settings::Settings;
pub(crate) use self::state::Run;
