//! A generated handler's run, polled on a stack with room. A run nested in process (an
//! orchestrator called by another's model through the server's own toolbox) is polled inside its
//! parent's poll, so the frames of every run of the tree sit on one thread's stack at once. In a
//! debug build each level is about 300 KiB of them: nested to the default depth, a tree filled
//! the 2 MiB a tokio worker has, and one run with remote tools and guards overflowed it. Past
//! [`RED_ZONE`], a run is polled on a new stack segment instead, as rustc grows its own
//! (`stacker`); in a release build, whose frames are a fraction of that, a tree rarely gets there.

use std::future::Future;
use std::pin::Pin;

/// The stack a run must find left to be polled where it is: the frames of a level of nesting in
/// a debug build (about 300 KiB), of the model's HTTP request, and room to spare.
const RED_ZONE: usize = 1024 * 1024;

/// A new segment's size: room for several more levels, mapped and touched only as used.
const SEGMENT: usize = 4 * 1024 * 1024;

/// `run`, each poll of it on a new stack segment when less than [`RED_ZONE`] is left. `run` is
/// boxed (or as small), so that wrapping it moves nothing more than a pointer.
pub(super) fn with_room<F: Future + Unpin>(mut run: F) -> impl Future<Output = F::Output> {
    std::future::poll_fn(move |cx| {
        stacker::maybe_grow(RED_ZONE, SEGMENT, || Pin::new(&mut run).poll(cx))
    })
}
