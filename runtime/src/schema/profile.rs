//! Which provider a tool's schema is written for, and why a schema could not be.

use std::fmt;

use serde_json::Value;

use super::{memo, name, normalize};

/// The provider a tool's input schema is normalized for before the model is offered it.
///
/// A model type declares its profile ([`CompletionModel::schema_profile`], set on
/// [`Model`](crate::Model) with [`Model::with_schema_profile`](crate::Model::with_schema_profile)).
/// Every profile inlines `$ref` references and drops what describes the schema itself
/// (`$schema`, `$id`, `$comment`); the profiles differ in what else they accept.
///
/// [`CompletionModel::schema_profile`]: crate::CompletionModel::schema_profile
///
/// # Examples
/// ```
/// use ladoga::SchemaProfile;
/// use serde_json::json;
///
/// let declared = json!({
///     "type": "object",
///     "properties": {"note": {"type": ["string", "null"], "format": "uri"}},
/// });
/// let gemini = SchemaProfile::Gemini.normalize(&declared)?;
/// assert_eq!(
///     gemini["properties"]["note"],
///     json!({"type": "string", "nullable": true, "description": "Format: uri."})
/// );
/// # Ok::<(), ladoga::SchemaError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum SchemaProfile {
    /// The default: the form every other profile's target accepts, for a server not known in
    /// advance. References inlined (a recursive one is an error), nullable values as
    /// `anyOf: [schema, {"type": "null"}]`, `oneOf` as `anyOf`, `allOf` merged, `const` as a
    /// one-value `enum`, an `enum` of other values than strings told in the description, only
    /// the `date-time` format, and only the keywords Gemini and OpenAI's strict mode both take
    /// (type, description, title, properties, required, items, enum, anyOf, minimum, maximum,
    /// minItems, maxItems, format).
    #[default]
    Portable,
    /// OpenAI's strict mode (`"strict": true`): every object closed with
    /// `additionalProperties: false` and listing every property as required, an optional one
    /// made nullable (the model sends `null` for it, and the tool gets it left out, unless its
    /// own schema takes `null` there); maps and
    /// free-form objects are errors; only the keywords and formats strict mode documents.
    /// Recursive references are kept under `$defs`.
    OpenAiStrict,
    /// OpenAI and compatible servers without strict mode: the schema as declared but for
    /// references (inlined, recursive ones kept under `$defs`), nullable values as
    /// `"type": [t, "null"]`, and what describes the schema itself.
    OpenAi,
    /// Gemini (its OpenAPI subset of JSON Schema): as [`SchemaProfile::Portable`], with
    /// nullable values as `nullable: true` and the number formats Gemini takes
    /// (`int32`, `int64`, `float`, `double`).
    Gemini,
    /// llama.cpp's server, which turns each schema into a grammar: as
    /// [`SchemaProfile::OpenAi`], without a `pattern` that is not anchored with `^…$`, which its
    /// grammar refuses.
    LlamaCpp,
}

impl SchemaProfile {
    /// Every profile, for tests that try each.
    pub const ALL: [SchemaProfile; 5] = [
        Self::Portable,
        Self::OpenAiStrict,
        Self::OpenAi,
        Self::Gemini,
        Self::LlamaCpp,
    ];

    /// The profile's name as errors and logs give it.
    pub fn name(self) -> &'static str {
        match self {
            Self::Portable => "portable",
            Self::OpenAiStrict => "OpenAI strict",
            Self::OpenAi => "OpenAI",
            Self::Gemini => "Gemini",
            Self::LlamaCpp => "llama.cpp",
        }
    }

    /// `schema` in the form this profile's target accepts, or why it cannot be written so.
    pub fn normalize(self, schema: &Value) -> Result<Value, SchemaError> {
        normalize::schema(schema, self).map_err(|(at, reason)| SchemaError {
            tool: None,
            profile: self,
            problem: Problem::Schema { at, reason },
        })
    }

    /// `tool` with its input schema normalized, or an error naming it: for a name model APIs
    /// cannot carry (`[a-zA-Z0-9_-]{1,64}`), or a schema this profile's target cannot express.
    pub fn tool(self, mut tool: svir::Tool) -> Result<svir::Tool, SchemaError> {
        if !name::carried(&tool.name) {
            return Err(SchemaError {
                tool: Some(tool.name),
                profile: self,
                problem: Problem::Name,
            });
        }
        match memo::normalized(self, &tool.name, &tool.input_schema) {
            Ok(Some(schema)) => {
                tool.input_schema = schema;
                Ok(tool)
            }
            Ok(None) => Ok(tool),
            Err(error) => Err(SchemaError {
                tool: Some(tool.name),
                ..error
            }),
        }
    }

    /// Each of `tools` as [`tool`](Self::tool) gives it, or the first error.
    pub(crate) fn tools(self, tools: Vec<svir::Tool>) -> Result<Vec<svir::Tool>, SchemaError> {
        tools.into_iter().map(|tool| self.tool(tool)).collect()
    }

    /// Whether a recursive reference can stay one, under `$defs`.
    pub(super) fn keeps_recursion(self) -> bool {
        matches!(self, Self::OpenAiStrict | Self::OpenAi | Self::LlamaCpp)
    }
}

impl fmt::Display for SchemaProfile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Why a tool cannot be offered under a [`SchemaProfile`]: its name, or a part of its input
/// schema the profile's target cannot express.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SchemaError {
    tool: Option<String>,
    profile: SchemaProfile,
    problem: Problem,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Problem {
    Name,
    Schema { at: String, reason: String },
}

impl SchemaError {
    /// The tool, when the error came from [`SchemaProfile::tool`].
    pub fn tool(&self) -> Option<&str> {
        self.tool.as_deref()
    }

    /// The profile the schema was normalized for.
    pub fn profile(&self) -> SchemaProfile {
        self.profile
    }
}

impl fmt::Display for SchemaError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (&self.problem, &self.tool) {
            (Problem::Name, tool) => write!(
                f,
                "the tool `{}` cannot be offered to a model: a function name is 1 to {} of \
                 `a-z`, `A-Z`, `0-9`, `_` and `-`",
                tool.as_deref().unwrap_or_default(),
                name::MAX_NAME
            ),
            (Problem::Schema { at, reason }, tool) => {
                match tool {
                    Some(tool) => write!(f, "the tool `{tool}`'s input schema")?,
                    None => f.write_str("the schema")?,
                }
                let at = if at.is_empty() { "/" } else { at };
                write!(
                    f,
                    " cannot be written for the {} profile: at `{at}`, {reason}",
                    self.profile
                )
            }
        }
    }
}

impl std::error::Error for SchemaError {}
