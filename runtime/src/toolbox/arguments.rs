//! A tool call's arguments in one canonical form, so that the same arguments written in another
//! order or spacing are the same call: for the repeat bound, an approval's key and a sample's key;
//! and as `tools/call` takes them.

use std::collections::HashMap;

use serde_json::Value;
use sha2::{Digest, Sha256};
use svir::ToolCall;

/// The arguments of `call`, as `tools/call` takes them, as neva's bridge reads them: an empty
/// string, `null` and `{}` are no arguments; anything else that is not a JSON object is the
/// model's mistake, told back to it.
pub(crate) fn object(call: &ToolCall) -> Result<HashMap<String, Value>, String> {
    let raw = call.arguments.trim();
    if raw.is_empty() {
        return Ok(HashMap::new());
    }
    match serde_json::from_str::<Option<HashMap<String, Value>>>(raw) {
        Ok(arguments) => Ok(arguments.unwrap_or_default()),
        Err(error) if error.is_data() => Err(format!(
            "The arguments of `{}` must be a JSON object",
            call.name
        )),
        Err(error) => Err(format!(
            "The arguments of `{}` are not valid JSON: {error}",
            call.name
        )),
    }
}

/// The arguments as JSON with every object's keys sorted, so that the same arguments written
/// in another order or spacing are the same call; text that is not JSON stays as it is.
pub(crate) fn canonical(arguments: &str) -> String {
    match serde_json::from_str::<Value>(arguments) {
        Ok(value) => sorted(value).to_string(),
        Err(_) => arguments.to_owned(),
    }
}

fn sorted(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<_> = map.into_iter().collect();
            entries.sort_by(|(a, _), (b, _)| a.cmp(b));
            Value::Object(entries.into_iter().map(|(k, v)| (k, sorted(v))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(sorted).collect()),
        other => other,
    }
}

/// `text`'s SHA-256, as hex: a store key that spells nothing of what it was made from (a
/// caller, a run's id, a request's arguments).
pub(crate) fn digest(text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    digest.iter().map(|byte| format!("{byte:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_arguments_in_another_order_are_the_same_call() {
        assert_eq!(
            canonical(r#"{"b": 1, "a": {"d": 2, "c": 3}}"#),
            canonical(r#"{"a":{"c":3,"d":2},"b":1}"#)
        );
        assert_ne!(canonical(r#"{"a": 1}"#), canonical(r#"{"a": 2}"#));
    }
}
