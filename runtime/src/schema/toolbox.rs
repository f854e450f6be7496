//! A toolbox whose tools are offered with their schemas normalized.

use std::future::Future;

use svir::{Tool, ToolCall, ToolResult, Toolbox};

use super::{SchemaError, SchemaProfile};

/// `T`'s tools with their input schemas normalized for a [`SchemaProfile`], read and checked
/// once when it is made; calls go to `T` unchanged. An [`Orchestration`](crate::Orchestration)
/// offers its tools through one, for its model's profile.
///
/// # Examples
/// ```
/// use ladoga::{NormalizedTools, SchemaProfile};
/// use svir::Toolbox;
///
/// let tools = svir::Tools::new().add_tool(
///     svir::Tool::new("now", "The time").schema(serde_json::json!({
///         "$schema": "https://json-schema.org/draft/2020-12/schema",
///         "type": "object",
///         "properties": {"zone": {"type": ["string", "null"]}},
///     })),
///     |_: serde_json::Value| async { "noon" },
/// );
/// let offered = NormalizedTools::new(&tools, SchemaProfile::OpenAiStrict)?;
/// let schema = &offered.tools()[0].input_schema;
/// assert_eq!(schema["additionalProperties"], false);
/// assert_eq!(schema["required"], serde_json::json!(["zone"]));
/// assert!(schema.get("$schema").is_none());
/// # Ok::<(), ladoga::SchemaError>(())
/// ```
#[derive(Debug)]
pub struct NormalizedTools<'a, T: ?Sized> {
    inner: &'a T,
    tools: Vec<Tool>,
}

impl<'a, T: Toolbox + ?Sized> NormalizedTools<'a, T> {
    /// `inner`'s tools normalized for `profile`, or the first that cannot be: a name model APIs
    /// cannot carry, or a schema the profile's target cannot express.
    pub fn new(inner: &'a T, profile: SchemaProfile) -> Result<Self, SchemaError> {
        let tools = profile.tools(inner.tools())?;
        Ok(Self { inner, tools })
    }
}

impl<T: Toolbox + Sync + ?Sized> Toolbox for NormalizedTools<'_, T> {
    fn tools(&self) -> Vec<Tool> {
        self.tools.clone()
    }

    fn call(&self, call: &ToolCall) -> impl Future<Output = ToolResult> + Send {
        self.inner.call(call)
    }

    fn call_all(&self, calls: &[ToolCall]) -> impl Future<Output = Vec<ToolResult>> + Send
    where
        Self: Sync,
    {
        self.inner.call_all(calls)
    }
}
