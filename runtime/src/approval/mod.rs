#![doc = include_str!("../docs/approval.md")]

mod gate;
mod policy;
mod question;

pub(crate) use self::gate::{Gate, Screen};
pub use self::policy::Approvals;
pub use self::question::{Approval, Approver, AskFuture, Asked, Decision, Question};
