//! The metrics a Ladoga server records (work in progress: the recording lands with issue 19).

/// A store operation failed: `operation` is `put`, `take`, `ping`, `lock`, `get` or `commit`.
pub(crate) fn store_failed(operation: &'static str) {
    let _ = operation;
}
