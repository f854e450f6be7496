//! What the benchmarks share: the scenario's tools and its two orchestrators, a scripted model
//! answering from memory behind svir's own client, an allocation counter, and where results go.
//!
//! Each benchmark uses part of it, hence `dead_code` allowed where it is declared.

pub mod alloc;
pub mod closed_loop;
pub mod memory;
pub mod model;
pub mod results;
pub mod scenario;
pub mod script;
