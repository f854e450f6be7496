#![doc = include_str!("../docs/approval.md")]

mod gate;
mod policy;

pub(crate) use self::gate::{Gate, Screen};
pub use self::policy::{Approval, Approvals, Approver, AskFuture, Asked, Decision, Question};
