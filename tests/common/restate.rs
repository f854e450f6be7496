//! restate-server for the durable tests, as the load harness runs it (`workbench/load/restate.rs`).

use super::free_addr;

#[path = "../../workbench/load/restate.rs"]
mod server;

#[allow(unused_imports)] // used by the durable tests only
pub use server::Restate;
