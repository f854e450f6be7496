#![doc = include_str!("../docs/approval.md")]

mod policy;
mod question;

pub use self::policy::Approvals;
pub use self::question::{Approval, Approver, AskFuture, Asked, Decision, Question};
