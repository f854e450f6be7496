//! The `null`s a strict profile made a model send for the optional arguments it left unset,
//! turned back into arguments left out, before the call reaches its tool.
//!
//! [`SchemaProfile::OpenAiStrict`](super::SchemaProfile::OpenAiStrict) lists every property as
//! required, an optional one made nullable: the model then sends `"count": null` for an
//! argument it means to leave unset. A tool whose own schema does not take `null` there (most
//! of them: an MCP server on zod or pydantic refuses it) is given the argument left out
//! instead, as its schema allows.

use serde_json::{Map, Value};

/// `arguments` (a call's JSON text) without each `null` its tool's own `schema` does not take
/// for a property it does not require, nested objects included; `None` if there is none to
/// leave out.
pub(crate) fn absent_nulls(arguments: &str, schema: &Value) -> Option<String> {
    if !arguments.contains("null") {
        return None;
    }
    let mut value: Value = serde_json::from_str(arguments).ok()?;
    let object = value.as_object_mut()?;
    if !leave_out(object, schema) {
        return None;
    }
    serde_json::to_string(&value).ok()
}

/// Leaves out of `object` the `null`s `schema` neither requires nor takes; whether it left any.
fn leave_out(object: &mut Map<String, Value>, schema: &Value) -> bool {
    let Some(properties) = schema.get("properties").and_then(Value::as_object) else {
        return false;
    };
    let required = |name: &str| {
        schema
            .get("required")
            .and_then(Value::as_array)
            .is_some_and(|required| required.iter().any(|item| item == name))
    };
    let before = object.len();
    object.retain(|name, value| {
        !(value.is_null()
            && !required(name)
            && properties
                .get(name)
                .is_some_and(|property| !takes_null(property)))
    });
    let mut left_out = object.len() < before;
    for (name, value) in object.iter_mut() {
        if let (Some(inner), Some(property)) = (value.as_object_mut(), properties.get(name)) {
            left_out |= leave_out(inner, property);
        }
    }
    left_out
}

/// Whether `schema` takes `null`: its type is or names `null`, one of its `anyOf`/`oneOf` does,
/// or it says `nullable`. A schema that says nothing of its type takes anything.
fn takes_null(schema: &Value) -> bool {
    let Some(schema) = schema.as_object() else {
        return true;
    };
    let typed_null = match schema.get("type") {
        Some(Value::String(kind)) => kind == "null",
        Some(Value::Array(kinds)) => kinds.iter().any(|kind| kind == "null"),
        _ => false,
    };
    let any_null = ["anyOf", "oneOf"].iter().any(|key| {
        schema
            .get(*key)
            .and_then(Value::as_array)
            .is_some_and(|choices| choices.iter().any(takes_null))
    });
    let untyped = !["type", "anyOf", "oneOf", "allOf", "$ref", "enum", "const"]
        .iter()
        .any(|key| schema.contains_key(*key));
    typed_null || any_null || untyped || schema.get("nullable") == Some(&Value::Bool(true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "city": {"type": "string"},
                "count": {"type": "number"},
                "note": {"type": ["string", "null"]},
                "where": {
                    "type": "object",
                    "properties": {"zip": {"type": "string"}, "street": {"type": "string"}},
                    "required": ["street"]
                }
            },
            "required": ["city"]
        })
    }

    #[test]
    fn an_optional_null_the_tool_does_not_take_is_left_out_nested_too() {
        let sent = r#"{"city":"Oslo","count":null,"note":null,"where":{"zip":null,"street":null}}"#;
        let given: Value = serde_json::from_str(&absent_nulls(sent, &schema()).unwrap()).unwrap();
        assert_eq!(
            given,
            json!({"city": "Oslo", "note": null, "where": {"street": null}}),
            "a null the tool takes, or one it requires, stays: the tool says what is wrong"
        );
    }

    #[test]
    fn arguments_without_such_a_null_are_left_as_they_are() {
        assert_eq!(
            absent_nulls(r#"{"city":"Oslo","count":3}"#, &schema()),
            None
        );
        assert_eq!(absent_nulls(r#"{"city":null}"#, &schema()), None);
        assert_eq!(absent_nulls("not json null", &schema()), None);
    }
}
