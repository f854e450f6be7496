//! The `#[orchestrator]` attribute. Use it through the `ladoga` crate, which documents it and
//! holds everything the generated code calls.
//!
//! The work is split: `args` parses the attribute's arguments into typed values with their
//! spans, one row of its table per argument; `signature` checks the function; `valid` checks
//! the arguments together and against the function; and `expand` writes the neva tool handler
//! that calls the runtime. On any error the user's function is emitted unchanged beside every
//! error at once, so one mistake does not turn into many and IDEs keep working.

#![warn(missing_docs)]

use proc_macro::TokenStream;

mod args;
mod errors;
mod expand;
mod paths;
mod signature;
mod valid;

/// Turns an `async fn` that builds a brief into an MCP tool that hands the brief to a model,
/// with the server's other tools. See the `ladoga` crate's documentation.
#[proc_macro_attribute]
pub fn orchestrator(attr: TokenStream, item: TokenStream) -> TokenStream {
    expand::orchestrator(attr.into(), item.into()).into()
}
