#![doc = include_str!("../docs/testing.md")]

mod reply;
mod script;
mod seen;
mod server;

pub use reply::Reply;
pub use script::ScriptedModel;
pub use seen::SeenRequest;
pub use server::ScriptedServer;
