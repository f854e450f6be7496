//! The names a model API can carry.

/// The longest function name model APIs take.
pub(super) const MAX_NAME: usize = 64;

/// Whether `name` is a function name model APIs take: `[a-zA-Z0-9_-]{1,64}`.
pub(crate) fn carried(name: &str) -> bool {
    (1..=MAX_NAME).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}
