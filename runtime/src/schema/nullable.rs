//! Nullable values: read in any of the forms schemas write them, written in the target's.

use serde_json::{Map, Value, json};

use super::SchemaProfile;

/// Takes the `null` out of `schema`, saying whether there was one: `"type": [t, "null"]`,
/// `anyOf`/`oneOf` with a `{"type": "null"}` branch (a lone other branch merged in, the outer
/// keywords kept over its), `nullable: true`, or `null` among an `enum`'s values.
pub(super) fn split(schema: &mut Map<String, Value>) -> bool {
    let mut nullable = false;
    if schema.remove("nullable") == Some(Value::Bool(true)) {
        nullable = true;
    }
    if let Some(Value::Array(types)) = schema.get_mut("type")
        && types.iter().any(|t| t == "null")
    {
        types.retain(|t| t != "null");
        nullable = true;
        match types.len() {
            0 => {
                schema.insert("type".into(), json!("null"));
                return false;
            }
            1 => {
                let only = types.remove(0);
                schema.insert("type".into(), only);
            }
            _ => {}
        }
    }
    for union in ["anyOf", "oneOf"] {
        let Some(Value::Array(branches)) = schema.get_mut(union) else {
            continue;
        };
        let before = branches.len();
        branches.retain(|branch| !is_null(branch));
        if branches.len() == before {
            continue;
        }
        nullable = true;
        if branches.len() == 1 {
            let Some(Value::Array(mut branches)) = schema.remove(union) else {
                unreachable!("just read")
            };
            if let Value::Object(branch) = branches.remove(0) {
                for (key, value) in branch {
                    schema.entry(key).or_insert(value);
                }
            }
        }
    }
    if let Some(Value::Array(values)) = schema.get_mut("enum")
        && values.iter().any(Value::is_null)
    {
        values.retain(|value| !value.is_null());
        nullable = true;
    }
    nullable
}

/// Whether `schema` is the `null` branch of a union.
fn is_null(schema: &Value) -> bool {
    let Value::Object(map) = schema else {
        return false;
    };
    map.get("type") == Some(&json!("null"))
        && map
            .keys()
            .all(|key| matches!(key.as_str(), "type" | "description" | "title"))
}

/// `schema`, nullable as `profile` writes it.
pub(super) fn join(mut schema: Map<String, Value>, profile: SchemaProfile) -> Map<String, Value> {
    match profile {
        SchemaProfile::Gemini => {
            schema.insert("nullable".into(), Value::Bool(true));
            schema
        }
        SchemaProfile::OpenAiStrict | SchemaProfile::OpenAi | SchemaProfile::LlamaCpp
            if typed(&schema) =>
        {
            let Some(Value::String(kind)) = schema.remove("type") else {
                unreachable!("checked by typed")
            };
            schema.insert("type".into(), json!([kind, "null"]));
            if let Some(Value::Array(values)) = schema.get_mut("enum") {
                values.push(Value::Null);
            }
            schema
        }
        _ => {
            // The annotations stay outside, where a model reads them first.
            let mut outer = Map::new();
            for key in ["title", "description", "default"] {
                if let Some(value) = schema.remove(key) {
                    outer.insert(key.into(), value);
                }
            }
            outer.insert(
                "anyOf".into(),
                json!([Value::Object(schema), {"type": "null"}]),
            );
            outer
        }
    }
}

/// Whether `schema` has one scalar type, which `"type": [t, "null"]` can make nullable.
fn typed(schema: &Map<String, Value>) -> bool {
    matches!(schema.get("type"), Some(Value::String(kind))
        if matches!(kind.as_str(), "string" | "number" | "integer" | "boolean"))
        && !schema.contains_key("const")
        && !schema.contains_key("anyOf")
}
