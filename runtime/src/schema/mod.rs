//! Tool input schemas in the form the model's provider accepts.
//!
//! MCP tools declare their input as any JSON Schema; model providers accept only part of it, and
//! each a different part: OpenAI's strict mode wants `additionalProperties: false` and every
//! property required, Gemini refuses `$ref`, `const` and most formats, llama.cpp turns each
//! schema into a grammar and refuses what it cannot. A [`SchemaProfile`] names the target, and
//! every tool is normalized for it before the model is offered it: references inlined, nullable
//! unions written as the target writes them, keywords the target refuses dropped, the meaning
//! kept. What the target cannot express at all is an error naming the tool, before any request.

mod keywords;
mod memo;
mod name;
mod normalize;
mod nullable;
mod profile;
mod refs;
mod toolbox;

#[cfg(test)]
mod tests;

pub use profile::{SchemaError, SchemaProfile};
pub use toolbox::NormalizedTools;
