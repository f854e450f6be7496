#![doc = include_str!("../docs/approval.md")]

mod ask_caller;
mod policy;
mod question;

pub(crate) use self::ask_caller::offer as offer_ask_caller;
pub use self::ask_caller::{
    ASK_CALLER, Inquired, Inquiry, Replied, Reply, ReplyFuture, Respondent,
};
pub use self::policy::Approvals;
pub use self::question::{Approval, Approver, AskFuture, Asked, Decision, Question};
pub use crate::wire::PATH_KEY;
