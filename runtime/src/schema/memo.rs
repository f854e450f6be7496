//! Schemas already normalized, kept for the next run: a server offers the same tools run after
//! run, and normalizing them again each time cost more than the rest of Ladoga's loop.
//!
//! Keyed by the profile and the tool's name, each entry holding the schema as the tool declared
//! it: a tool whose schema is the one kept (a comparison, no allocation) takes the normalized form
//! kept beside it, or keeps its own when normalizing left it as it was. A tool of the same name
//! with another schema (another server's, or one that changed) is normalized and replaces it.

use std::collections::HashMap;
use std::sync::{LazyLock, Mutex};

use serde_json::Value;

use super::{SchemaError, SchemaProfile};

/// Entries kept at most for a profile; past it they start again from none.
const CAPACITY: usize = 4096;

/// A schema as declared, and its normalized form unless that is the same.
struct Entry {
    declared: Value,
    normalized: Option<Value>,
}

/// The entries of each profile, by tool name.
type Memo = HashMap<SchemaProfile, HashMap<String, Entry>>;

static MEMO: LazyLock<Mutex<Memo>> = LazyLock::new(Mutex::default);

/// `schema`, the input schema of the tool `name`, normalized for `profile`: `None` when it is
/// already in that form.
pub(super) fn normalized(
    profile: SchemaProfile,
    name: &str,
    schema: &Value,
) -> Result<Option<Value>, SchemaError> {
    if let Some(entry) = lock().get(&profile).and_then(|entries| entries.get(name))
        && entry.declared == *schema
    {
        return Ok(entry.normalized.clone());
    }
    let normalized = profile.normalize(schema)?;
    let normalized = (normalized != *schema).then_some(normalized);
    let mut memo = lock();
    let entries = memo.entry(profile).or_default();
    if entries.len() >= CAPACITY {
        entries.clear();
    }
    entries.insert(
        name.to_owned(),
        Entry {
            declared: schema.clone(),
            normalized: normalized.clone(),
        },
    );
    Ok(normalized)
}

fn lock() -> std::sync::MutexGuard<'static, Memo> {
    MEMO.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}
