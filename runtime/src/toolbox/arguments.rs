//! A tool call's arguments in one canonical form, so that the same arguments written in another
//! order or spacing are the same call: for the repeat bound, an approval's key and a sample's key.

use serde_json::Value;

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
