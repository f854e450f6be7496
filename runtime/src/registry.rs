//! What the macro registers when the program is linked, read by the runtime: the tools of
//! durable orchestrators.

/// The tool of an orchestrator with `durable = true`, which the macro submits: a server with
/// Restate starts its task-augmented calls there.
#[derive(Debug)]
pub struct DurableTool(pub &'static str);

inventory::collect!(DurableTool);

/// Whether `tool` is the tool of an orchestrator with `durable = true`.
pub fn is_durable(tool: &str) -> bool {
    inventory::iter::<DurableTool>().any(|durable| durable.0 == tool)
}
