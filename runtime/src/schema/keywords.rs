//! Which keywords and formats each profile's target takes.

use super::SchemaProfile;

/// What describes the schema itself: of no use to a model, refused by Gemini and strict mode.
pub(super) const META: [&str; 8] = [
    "$schema",
    "$id",
    "$comment",
    "$anchor",
    "$dynamicAnchor",
    "$dynamicRef",
    "$vocabulary",
    "definitions",
];

/// The keywords both Gemini and OpenAI's strict mode take (`additionalProperties` aside, which
/// Gemini refuses), that the portable profile keeps. Gemini takes these and
/// [`GEMINI_BEYOND_PORTABLE`].
const PORTABLE: [&str; 13] = [
    "type",
    "description",
    "title",
    "properties",
    "required",
    "items",
    "enum",
    "anyOf",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "format",
];

/// Gemini's Schema fields beyond the portable ones (`nullable` added later).
const GEMINI_BEYOND_PORTABLE: [&str; 7] = [
    "minLength",
    "maxLength",
    "pattern",
    "minProperties",
    "maxProperties",
    "default",
    "example",
];

/// The keywords OpenAI's strict mode documents.
const STRICT: [&str; 20] = [
    "type",
    "description",
    "title",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "enum",
    "anyOf",
    "$ref",
    "$defs",
    "pattern",
    "format",
    "multipleOf",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "minItems",
    "maxItems",
];

/// Whether `profile`'s target takes the keyword `key`.
pub(super) fn kept(profile: SchemaProfile, key: &str) -> bool {
    match profile {
        SchemaProfile::Portable => PORTABLE.contains(&key),
        SchemaProfile::Gemini => PORTABLE.contains(&key) || GEMINI_BEYOND_PORTABLE.contains(&key),
        SchemaProfile::OpenAiStrict => STRICT.contains(&key),
        SchemaProfile::OpenAi | SchemaProfile::LlamaCpp => !META.contains(&key),
    }
}

/// Whether the profile restricts schemas to a subset of keywords, where unions are `anyOf`,
/// `allOf` is merged and `const` is a one-value `enum`.
pub(super) fn restricted(profile: SchemaProfile) -> bool {
    matches!(
        profile,
        SchemaProfile::Portable | SchemaProfile::Gemini | SchemaProfile::OpenAiStrict
    )
}

/// Whether `profile`'s target takes `format` on a value of type `kind`.
pub(super) fn format_kept(profile: SchemaProfile, kind: Option<&str>, format: &str) -> bool {
    match profile {
        SchemaProfile::Portable => kind == Some("string") && format == "date-time",
        SchemaProfile::Gemini => matches!(
            (kind, format),
            (Some("string"), "date-time" | "enum")
                | (Some("integer"), "int32" | "int64")
                | (Some("number"), "float" | "double")
        ),
        SchemaProfile::OpenAiStrict => {
            kind == Some("string")
                && matches!(
                    format,
                    "date-time"
                        | "time"
                        | "date"
                        | "duration"
                        | "email"
                        | "hostname"
                        | "ipv4"
                        | "ipv6"
                        | "uuid"
                )
        }
        SchemaProfile::OpenAi | SchemaProfile::LlamaCpp => true,
    }
}
