//! One schema, normalized for a profile: the walk over every place a schema can be.

use serde_json::{Map, Value, json};

use super::refs::{self, Failure};
use super::{SchemaProfile, keywords, nullable};

/// `root` in the form `profile`'s target accepts, or where and why it cannot be.
pub(super) fn schema(root: &Value, profile: SchemaProfile) -> Result<Value, Failure> {
    let inlined = refs::inline(root, profile.keeps_recursion())?;
    let mut root = match inlined {
        Value::Object(map) => map,
        Value::Bool(true) => Map::new(),
        _ => {
            return Err((
                String::new(),
                "the input schema is not an object schema".into(),
            ));
        }
    };
    let defs = root.remove("$defs");
    match root.get("type") {
        None => {
            root.insert("type".into(), json!("object"));
        }
        Some(kind) if kind != "object" => {
            return Err((
                String::new(),
                format!("the input must be an object, and this schema's type is {kind}"),
            ));
        }
        Some(_) => {}
    }
    let walk = Walk { profile };
    let Value::Object(mut out) = walk.node(Value::Object(root), "", true)? else {
        unreachable!("an object schema stays one")
    };
    if let Some(Value::Object(defs)) = defs {
        let mut normalized = Map::new();
        for (name, def) in defs {
            let at = format!("/$defs/{name}");
            normalized.insert(name, walk.node(def, &at, false)?);
        }
        out.insert("$defs".into(), Value::Object(normalized));
    }
    Ok(Value::Object(out))
}

struct Walk {
    profile: SchemaProfile,
}

impl Walk {
    fn restricted(&self) -> bool {
        keywords::restricted(self.profile)
    }

    /// One schema and everything under it. `root` is the input's schema, never nullable.
    fn node(&self, value: Value, at: &str, root: bool) -> Result<Value, Failure> {
        let fail = |reason: &str| Err((at.to_owned(), reason.to_owned()));
        let mut map = match value {
            Value::Object(map) => map,
            Value::Bool(true) => Map::new(),
            Value::Bool(false) => return fail("the schema `false` allows no value"),
            other => return Err((at.to_owned(), format!("{other} is not a schema"))),
        };
        for key in keywords::META {
            map.remove(key);
        }
        if map.contains_key("$ref") {
            // A recursive reference kept under `$defs`: its target is normalized there.
            map.retain(|key, _| matches!(key.as_str(), "$ref" | "description"));
            return Ok(Value::Object(map));
        }
        if self.restricted()
            && let Some(all) = map.remove("allOf")
        {
            merge_all(&mut map, all).map_err(|reason| (format!("{at}/allOf"), reason))?;
        }
        let nullable = nullable::split(&mut map) && !root;
        if self.restricted() {
            self.unions(&mut map)
                .map_err(|reason| (at.to_owned(), reason))?;
        }
        self.children(&mut map, at)?;
        if matches!(
            self.profile,
            SchemaProfile::Portable | SchemaProfile::Gemini
        ) {
            only_string_enums(&mut map);
        }
        self.keywords(&mut map);
        if self.profile == SchemaProfile::OpenAiStrict && is_object(&map) {
            self.close(&mut map, root)
                .map_err(|reason| (at.to_owned(), reason))?;
        }
        Ok(Value::Object(if nullable {
            nullable::join(map, self.profile)
        } else {
            map
        }))
    }

    /// `oneOf` as `anyOf`, `const` as a one-value `enum`, several types as an `anyOf`.
    fn unions(&self, map: &mut Map<String, Value>) -> Result<(), String> {
        if let Some(one) = map.remove("oneOf") {
            if map.contains_key("anyOf") {
                return Err("`anyOf` and `oneOf` together cannot be expressed".into());
            }
            map.insert("anyOf".into(), one);
        }
        if let Some(value) = map.remove("const") {
            map.insert("enum".into(), json!([value]));
        }
        if let Some(Value::Array(types)) = map.get("type")
            && types.len() > 1
        {
            if map.contains_key("anyOf") {
                return Err("several types and `anyOf` together cannot be expressed".into());
            }
            let branches: Vec<Value> = types.iter().map(|kind| json!({"type": kind})).collect();
            map.remove("type");
            map.insert("anyOf".into(), Value::Array(branches));
        } else if let Some(Value::Array(types)) = map.get_mut("type")
            && types.len() == 1
        {
            let only = types.remove(0);
            map.insert("type".into(), only);
        }
        Ok(())
    }

    /// Every schema under this one, normalized.
    fn children(&self, map: &mut Map<String, Value>, at: &str) -> Result<(), Failure> {
        if let Some(Value::Object(properties)) = map.get_mut("properties") {
            for (name, property) in properties.iter_mut() {
                let place = format!("{at}/properties/{name}");
                *property = self.node(property.take(), &place, false)?;
            }
        }
        for key in ["items", "additionalProperties", "not", "contains"] {
            let place = format!("{at}/{key}");
            match map.get_mut(key) {
                Some(value @ Value::Object(_)) => {
                    *value = self.node(value.take(), &place, false)?
                }
                Some(Value::Array(_)) if key == "items" && self.restricted() => {
                    return Err((
                        place,
                        "a tuple (`items` as a list) cannot be expressed".into(),
                    ));
                }
                Some(Value::Array(items)) if key == "items" => {
                    for (i, item) in items.iter_mut().enumerate() {
                        *item = self.node(item.take(), &format!("{place}/{i}"), false)?;
                    }
                }
                _ => {}
            }
        }
        for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
            let Some(Value::Array(branches)) = map.get_mut(key) else {
                continue;
            };
            let place = format!("{at}/{key}");
            if key == "prefixItems" && self.restricted() {
                return Err((place, "a tuple (`prefixItems`) cannot be expressed".into()));
            }
            for (i, branch) in branches.iter_mut().enumerate() {
                *branch = self.node(branch.take(), &format!("{place}/{i}"), false)?;
            }
        }
        Ok(())
    }

    /// Drops the keywords and formats the target refuses; what the model should still know
    /// (a format, a default, a pattern, a map's values) goes into the description.
    fn keywords(&self, map: &mut Map<String, Value>) {
        let kind = map.get("type").and_then(Value::as_str).map(str::to_owned);
        if let Some(Value::String(format)) = map.get("format")
            && !keywords::format_kept(self.profile, kind.as_deref(), format)
        {
            let told = format!("Format: {format}.");
            map.remove("format");
            note(map, &told);
        }
        if self.profile == SchemaProfile::LlamaCpp
            && let Some(Value::String(pattern)) = map.get("pattern")
            && !(pattern.starts_with('^') && pattern.ends_with('$'))
        {
            let told = format!("Pattern: {pattern}.");
            map.remove("pattern");
            note(map, &told);
        }
        let dropped: Vec<String> = map
            .keys()
            .filter(|key| !keywords::kept(self.profile, key))
            .cloned()
            .collect();
        for key in dropped {
            let Some(value) = map.remove(&key) else {
                continue;
            };
            match key.as_str() {
                "default" if !value.is_null() => note(map, &format!("Default: {value}.")),
                "pattern" => note(map, &format!("Pattern: {}.", text(&value))),
                "additionalProperties" if value.is_object() && !has_properties(map) => {
                    note(map, &format!("Any keys; each value: {value}."));
                }
                _ => {}
            }
        }
    }

    /// An object as strict mode wants it: closed, every property required, an optional one
    /// nullable. A map or a free-form object cannot be written so.
    fn close(&self, map: &mut Map<String, Value>, root: bool) -> Result<(), String> {
        match map.get("additionalProperties") {
            None | Some(Value::Bool(_)) => {}
            Some(_) => {
                return Err(
                    "a map (`additionalProperties` with a schema) cannot be expressed".into(),
                );
            }
        }
        if !map.contains_key("properties") {
            if !root && map.get("additionalProperties") != Some(&Value::Bool(false)) {
                return Err("a free-form object (no `properties`) cannot be expressed".into());
            }
            map.insert("properties".into(), json!({}));
        }
        map.insert("additionalProperties".into(), Value::Bool(false));
        let required: Vec<String> = map
            .get("required")
            .and_then(Value::as_array)
            .map(|names| {
                names
                    .iter()
                    .filter_map(|n| n.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default();
        let Some(Value::Object(properties)) = map.get_mut("properties") else {
            return Err("`properties` is not an object".into());
        };
        let mut all = Vec::with_capacity(properties.len());
        for (name, property) in properties.iter_mut() {
            if !required.contains(name)
                && let Value::Object(schema) = property
                && !accepts_null(schema)
            {
                *property = Value::Object(nullable::join(std::mem::take(schema), self.profile));
            }
            all.push(Value::String(name.clone()));
        }
        map.insert("required".into(), Value::Array(all));
        Ok(())
    }
}

/// `allOf`'s branches merged into `map`: properties and required names added up, any other
/// keyword the same in each branch that has it.
fn merge_all(map: &mut Map<String, Value>, all: Value) -> Result<(), String> {
    let Value::Array(branches) = all else {
        return Err("`allOf` is not a list".into());
    };
    for branch in branches {
        let branch = match branch {
            Value::Object(branch) => branch,
            Value::Bool(true) => continue,
            _ => return Err("a branch of `allOf` is not an object schema".into()),
        };
        for (key, value) in branch {
            match (key.as_str(), map.get_mut(&key), value) {
                ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => {
                    for (name, schema) in theirs {
                        match mine.get(&name) {
                            Some(held) if *held != schema => {
                                return Err(format!(
                                    "the branches of `allOf` disagree on the property `{name}`"
                                ));
                            }
                            _ => {
                                mine.insert(name, schema);
                            }
                        }
                    }
                }
                ("required", Some(Value::Array(mine)), Value::Array(theirs)) => {
                    for name in theirs {
                        if !mine.contains(&name) {
                            mine.push(name);
                        }
                    }
                }
                ("description" | "title", Some(_), _) => {}
                (_, Some(held), value) if *held != value => {
                    return Err(format!("the branches of `allOf` disagree on `{key}`"));
                }
                (_, _, value) => {
                    map.insert(key, value);
                }
            }
        }
    }
    Ok(())
}

/// An `enum` of other values than strings (which Gemini refuses) told in the description.
fn only_string_enums(map: &mut Map<String, Value>) {
    let Some(Value::Array(values)) = map.get("enum") else {
        return;
    };
    if values.iter().all(Value::is_string) {
        map.entry("type").or_insert_with(|| json!("string"));
        return;
    }
    let listed: Vec<String> = values.iter().map(Value::to_string).collect();
    let told = format!("One of: {}.", listed.join(", "));
    map.remove("enum");
    note(map, &told);
}

fn is_object(map: &Map<String, Value>) -> bool {
    map.get("type") == Some(&json!("object")) || has_properties(map)
}

fn has_properties(map: &Map<String, Value>) -> bool {
    map.get("properties")
        .and_then(Value::as_object)
        .is_some_and(|properties| !properties.is_empty())
}

/// Whether a normalized schema already accepts `null`.
fn accepts_null(schema: &Map<String, Value>) -> bool {
    let null_type = |value: &Value| match value {
        Value::String(kind) => kind == "null",
        Value::Array(kinds) => kinds.iter().any(|kind| kind == "null"),
        _ => false,
    };
    schema.get("type").is_some_and(null_type)
        || schema
            .get("anyOf")
            .and_then(Value::as_array)
            .is_some_and(|branches| {
                branches
                    .iter()
                    .any(|b| b.get("type").is_some_and(null_type))
            })
        || schema.is_empty()
}

/// Adds `told` to the description, as a sentence of its own.
fn note(map: &mut Map<String, Value>, told: &str) {
    let description = match map.get("description").and_then(Value::as_str) {
        Some(held) if !held.trim().is_empty() => {
            let held = held.trim_end();
            let stop = if held.ends_with(['.', '!', '?']) {
                ""
            } else {
                "."
            };
            format!("{held}{stop} {told}")
        }
        _ => told.to_owned(),
    };
    map.insert("description".into(), Value::String(description));
}

fn text(value: &Value) -> String {
    value
        .as_str()
        .map_or_else(|| value.to_string(), str::to_owned)
}
