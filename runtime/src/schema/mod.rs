#![doc = include_str!("../docs/schema.md")]

mod absent;
mod keywords;
mod memo;
pub(crate) mod name;
mod normalize;
mod nullable;
mod profile;
mod refs;
mod toolbox;

#[cfg(test)]
mod tests;

pub(crate) use absent::absent_nulls;
pub use profile::{SchemaError, SchemaProfile};
pub use toolbox::NormalizedTools;
