//! A scripted model for tests: it answers from a script or a function of the request, records
//! every request it saw, and works both injected through `Dc` and behind a loopback
//! OpenAI-compatible server, so svir's real HTTP path runs.
//!
//! # Examples
//! ```
//! use ladoga::testing::{Reply, ScriptedModel};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let script = ScriptedModel::new([Reply::call("add_task", serde_json::json!({"title": "Ship"})), Reply::text("Done.")]);
//! let server = script.serve().await?;
//! // `server.model()` is a `ladoga::Model` talking to it over HTTP: register it with
//! // `App::add_singleton`, call the orchestrator, then look at what the model was sent.
//! assert!(server.url().starts_with("http://127.0.0.1:"));
//! assert!(script.requests().is_empty());
//! # Ok(())
//! # }
//! ```

mod reply;
mod script;
mod seen;
mod server;

pub use reply::Reply;
pub use script::ScriptedModel;
pub use seen::SeenRequest;
pub use server::ScriptedServer;
