//! restate-server for the durable tests, as the load harness runs it (`examples/load/restate.rs`).

#[path = "../../examples/load/restate.rs"]
mod server;

#[allow(unused_imports)] // used by the durable tests only
pub use server::Restate;
