//! Where raw results go: `target/bench-results/`, or `LADOGA_BENCH_RESULTS` when set.

use std::path::PathBuf;

/// The folder raw results are written to, created if needed.
pub fn folder() -> PathBuf {
    let folder = std::env::var_os("LADOGA_BENCH_RESULTS")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/bench-results")
        });
    std::fs::create_dir_all(&folder).expect("the results folder can be created");
    folder
}

/// Writes `value` as `name` in the results folder, and says where.
pub fn write_json(name: &str, value: &serde_json::Value) {
    let path = folder().join(name);
    let text = serde_json::to_string_pretty(value).expect("results serialize");
    std::fs::write(&path, text).expect("results can be written");
    eprintln!("wrote {}", path.display());
}

/// Whether this run is `cargo bench`'s (which passes `--bench`), not `cargo test`'s, which runs
/// every bench target once as a test: a measurement then does nothing.
pub fn benching() -> bool {
    std::env::args().any(|arg| arg == "--bench")
}
