//! A run's polls on a stack with room. A run nested in process (an orchestrator called by
//! another's model through the server's own toolbox) is polled inside its parent's poll, so the
//! frames of every run of the tree sit on one thread's stack at once. In a debug build each level
//! is about 300 KiB of them: nested to the default depth, a tree filled the 2 MiB a tokio worker
//! has, and one run with remote tools and guards overflowed it. Past [`RED_ZONE`], a run is
//! polled on a new stack segment instead, as rustc grows its own (`stacker`); in a release build,
//! whose frames are a fraction of that, a tree rarely gets there.

use std::future::Future;
use std::pin::pin;

/// The stack a run must find left to be polled where it is: the frames of a level of nesting in
/// a debug build (about 300 KiB), of the model's HTTP request, and room to spare.
const RED_ZONE: usize = 1024 * 1024;

/// A new segment's size: room for several more levels, mapped and touched only as used.
const SEGMENT: usize = 4 * 1024 * 1024;

/// `future`, each poll of it on a new stack segment when less than [`RED_ZONE`] is left.
pub(super) async fn with_room<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    std::future::poll_fn(|cx| stacker::maybe_grow(RED_ZONE, SEGMENT, || future.as_mut().poll(cx)))
        .await
}
