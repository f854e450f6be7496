//! `$ref` references, inlined.

use std::collections::BTreeMap;

use serde_json::{Map, Value};

/// Where in the schema a problem is, and what it is.
pub(super) type Failure = (String, String);

/// Keywords whose values are data, not schemas: a `$ref` in them is not a reference.
const DATA: [&str; 5] = ["enum", "const", "default", "examples", "example"];

/// `root` with every local reference (`#`, `#/$defs/…`, `#/definitions/…`, any JSON pointer
/// into the document) replaced by what it points to, its sibling keywords kept over the
/// target's. A recursive reference stays one, to `#/$defs/<name>`, with its definition in the
/// result's `$defs`, when `keep_recursion`; otherwise it is an error. Each reference is
/// resolved once per place it is used: the work is the size of the inlined schema.
pub(super) fn inline(root: &Value, keep_recursion: bool) -> Result<Value, Failure> {
    let mut inliner = Inliner {
        root,
        keep_recursion,
        stack: Vec::new(),
        names: BTreeMap::new(),
    };
    let mut out = inliner.walk(root, "")?;
    if let Value::Object(map) = &mut out {
        map.remove("$defs");
        map.remove("definitions");
    }
    // The recursive definitions, each normalized with itself on the stack; one may name more.
    let mut defs = Map::new();
    while let Some((pointer, name)) = inliner
        .names
        .iter()
        .find(|(_, name)| !defs.contains_key(*name))
        .map(|(pointer, name)| (pointer.clone(), name.clone()))
    {
        let target = root.pointer(&pointer).unwrap_or(&Value::Null);
        inliner.stack.push(pointer.clone());
        let def = inliner.walk(target, &pointer)?;
        inliner.stack.pop();
        defs.insert(name, strip_defs(def));
    }
    if !defs.is_empty()
        && let Value::Object(map) = &mut out
    {
        map.insert("$defs".into(), Value::Object(defs));
    }
    Ok(out)
}

fn strip_defs(mut value: Value) -> Value {
    if let Value::Object(map) = &mut value {
        map.remove("$defs");
        map.remove("definitions");
    }
    value
}

struct Inliner<'a> {
    root: &'a Value,
    keep_recursion: bool,
    /// The references being expanded, outermost first, as JSON pointers.
    stack: Vec<String>,
    /// The recursive references kept: pointer -> name under `$defs`.
    names: BTreeMap<String, String>,
}

impl Inliner<'_> {
    fn walk(&mut self, value: &Value, at: &str) -> Result<Value, Failure> {
        let Value::Object(map) = value else {
            return Ok(match value {
                Value::Array(items) => Value::Array(
                    items
                        .iter()
                        .enumerate()
                        .map(|(i, item)| self.walk(item, &format!("{at}/{i}")))
                        .collect::<Result<_, _>>()?,
                ),
                other => other.clone(),
            });
        };
        if let Some(reference) = map.get("$ref") {
            return self.reference(reference, map, at);
        }
        let mut out = Map::with_capacity(map.len());
        for (key, child) in map {
            if key == "$defs" || key == "definitions" {
                continue;
            }
            let child = if DATA.contains(&key.as_str()) {
                child.clone()
            } else {
                self.walk(child, &format!("{at}/{key}"))?
            };
            out.insert(key.clone(), child);
        }
        Ok(Value::Object(out))
    }

    fn reference(
        &mut self,
        reference: &Value,
        map: &Map<String, Value>,
        at: &str,
    ) -> Result<Value, Failure> {
        let fail = |reason: String| Err((at.to_owned(), reason));
        let Some(pointer) = reference.as_str().and_then(|r| r.strip_prefix('#')) else {
            return fail(format!(
                "the reference {reference} is not local to the schema, and cannot be resolved"
            ));
        };
        let pointer = percent_decoded(pointer);
        let Some(target) = self.root.pointer(&pointer) else {
            return fail(format!("the reference {reference} points to nothing"));
        };
        let mut siblings = map.clone();
        siblings.remove("$ref");
        if pointer.is_empty() || self.stack.contains(&pointer) {
            if !self.keep_recursion {
                return fail(format!(
                    "the reference {reference} is recursive, which this target cannot express"
                ));
            }
            let name = self.name_for(&pointer);
            siblings.insert("$ref".into(), Value::String(format!("#/$defs/{name}")));
            return Ok(Value::Object(siblings));
        }
        self.stack.push(pointer.clone());
        let inlined = self.walk(target, at);
        self.stack.pop();
        let inlined = inlined?;
        let mut out = match inlined {
            Value::Object(out) => out,
            Value::Bool(true) => Map::new(),
            other => return Ok(other),
        };
        out.remove("$defs");
        out.remove("definitions");
        for (key, child) in siblings {
            let child = if DATA.contains(&key.as_str()) {
                child
            } else {
                self.walk(&child, &format!("{at}/{key}"))?
            };
            out.insert(key, child);
        }
        Ok(Value::Object(out))
    }

    /// The name under `$defs` of the definition at `pointer`: its last segment, made unique.
    fn name_for(&mut self, pointer: &str) -> String {
        if let Some(name) = self.names.get(pointer) {
            return name.clone();
        }
        let last = pointer.rsplit('/').next().unwrap_or_default();
        let base = match last.replace("~1", "/").replace("~0", "~") {
            base if base.is_empty() => "root".to_owned(),
            base => base.replace(|c: char| !c.is_ascii_alphanumeric() && c != '_', "_"),
        };
        let mut name = base.clone();
        let mut n = 1;
        while self.names.values().any(|taken| *taken == name) {
            n += 1;
            name = format!("{base}_{n}");
        }
        self.names.insert(pointer.to_owned(), name.clone());
        name
    }
}

/// A URI fragment's JSON pointer, `%xx` escapes decoded.
fn percent_decoded(pointer: &str) -> String {
    if !pointer.contains('%') {
        return pointer.to_owned();
    }
    let bytes = pointer.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}
