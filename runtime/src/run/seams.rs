//! What a run is plugged into: filled once by whoever starts it (an
//! [`Orchestrator`](crate::Orchestrator) for a tool call, in one struct literal; the builder's
//! methods without one), and called by the loop, each at its seam.

use std::sync::Arc;

use crate::model::caller::Caller;
use crate::observe::TaskLine;
use crate::run::booking::Booking;
use crate::run::{Drain, Gate, Recorder};
use crate::session::Lease;
use crate::store::{Inbox, Keeper};
use crate::tree::Above;

/// Everything a run is plugged into. None of it is the run's state, which is [`Run`](super::Run)'s.
#[derive(Default)]
pub(crate) struct Seams<'a> {
    /// Nested this deep, at the depth bound: no call could be made, so no tool is offered.
    pub(crate) at_depth_bound: Option<usize>,
    /// Which calls need a person's approval, and who is asked; and who answers the model's
    /// questions.
    pub(crate) gate: Gate<'a>,
    /// Keeps the run while its caller answers, and gives back a paused one.
    pub(crate) keeper: Option<&'a Keeper>,
    /// The server's shutdown: at the end of its grace period the run stops.
    pub(crate) drain: Option<Drain>,
    /// The MCP task this run is, told how it goes.
    pub(crate) task: Option<Arc<TaskLine>>,
    /// The session the run goes on with, and leaves its conversation to.
    pub(crate) session: Option<&'a Lease>,
    /// What records a durable run's steps.
    pub(crate) recorder: Option<&'a dyn Recorder>,
    /// The tool call the run answers, whose caller a [`CallerModel`](crate::CallerModel) asks.
    pub(crate) caller: Option<Arc<Caller>>,
    /// Where the run books what it spends against its caller's quota.
    pub(crate) booking: Option<&'a dyn Booking>,
    /// The run's place in the agent tree, when the person at its top can be asked: each call it
    /// makes is a [`Site`](crate::tree::Site) a run below asks up from.
    pub(crate) above: Option<Above>,
    /// Steering: where its caller's messages to the run in flight wait, read at each turn.
    pub(crate) inbox: Option<Inbox>,
}
