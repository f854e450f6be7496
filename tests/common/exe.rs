//! The example binaries the tests start (`board`, `ask`, `hello`), built as a user builds them.
//!
//! They belong to `ladoga-examples`, and cargo builds a package's binaries (and sets
//! `CARGO_BIN_EXE_*`) only for that package's own tests. So the first call in a test binary
//! runs `cargo build --workspace --bins`, with `--features legacy-spec` when this package has it,
//! in the profile of the test: a no-op when they are fresh, and never an old binary nor one of the
//! other MCP generation. The whole workspace, as `scripts/test` builds the tests: `-p` with one
//! package would resolve the dependencies' features otherwise, and build them all again. Cargo holds no lock on the target folder while the tests
//! run, so this does not wait on the `cargo test` that started them.

use std::collections::HashMap;
use std::path::Path;
use std::process::Command;
use std::sync::OnceLock;

/// The path of the `ladoga-examples` binary `name`, built with this test's feature set.
pub fn exe(name: &str) -> &'static str {
    static BUILT: OnceLock<Result<HashMap<String, String>, String>> = OnceLock::new();
    match BUILT.get_or_init(build) {
        Ok(binaries) => binaries.get(name).unwrap_or_else(|| {
            panic!("`ladoga-examples` has no binary `{name}`: it has {binaries:?}")
        }),
        Err(error) => panic!("{error}"),
    }
}

/// Builds the binaries of `ladoga-examples`: each one's name and path.
fn build() -> Result<HashMap<String, String>, String> {
    let mut args = vec!["build", "--workspace", "--bins"];
    if cfg!(feature = "legacy-spec") {
        args.extend(["--features", "legacy-spec"]);
    }
    let profile = profile();
    args.extend(["--profile", &profile]);
    let command = format!("cargo {}", args.join(" "));
    let mut cargo = Command::new(std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into()));
    cargo
        .args(&args)
        .arg("--message-format=json-render-diagnostics")
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join(".."));
    // Without the variables cargo sets for a test (`CARGO_PKG_NAME`, `CARGO_MANIFEST_DIR`, …):
    // build scripts watch some of them (ring's), and would run again here and then again in the
    // next `cargo test`, each time rebuilding all that depends on them.
    for (name, _) in std::env::vars_os() {
        if name.to_str().is_some_and(set_for_tests) {
            cargo.env_remove(name);
        }
    }
    let output = cargo
        .output()
        .map_err(|error| format!("`{command}` does not start: {error}"))?;
    if !output.status.success() {
        return Err(format!(
            "`{command}` failed ({}):\n{}",
            output.status,
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    let binaries: HashMap<String, String> = String::from_utf8_lossy(&output.stdout)
        .lines()
        .filter_map(|line| serde_json::from_str::<serde_json::Value>(line).ok())
        .filter(|message| message["reason"] == "compiler-artifact")
        .filter_map(|artifact| {
            let name = artifact["target"]["name"].as_str()?;
            let path = artifact["executable"].as_str()?;
            Some((name.to_owned(), path.to_owned()))
        })
        .collect();
    match binaries.is_empty() {
        true => Err(format!("`{command}` named no binary")),
        false => Ok(binaries),
    }
}

/// Whether cargo sets the environment variable `name` for a test it runs.
fn set_for_tests(name: &str) -> bool {
    const PREFIXES: [&str; 4] = [
        "CARGO_PKG_",
        "CARGO_MANIFEST_",
        "CARGO_BIN_",
        "CARGO_CRATE_",
    ];
    PREFIXES.iter().any(|prefix| name.starts_with(prefix))
        || ["CARGO_PRIMARY_PACKAGE", "CARGO_TARGET_TMPDIR"].contains(&name)
}

/// The profile this test was built in, from its folder (`target/debug/deps/board-…`): `dev`
/// for `debug`, else the folder's name (`release`, a custom profile).
fn profile() -> String {
    let exe = std::env::current_exe().expect("the test's own path");
    let folder = exe
        .parent()
        .filter(|deps| deps.ends_with("deps"))
        .and_then(Path::parent)
        .and_then(Path::file_name)
        .and_then(|name| name.to_str());
    match folder {
        Some("debug") => "dev".to_owned(),
        Some(name) => name.to_owned(),
        None if cfg!(debug_assertions) => "dev".to_owned(),
        None => "release".to_owned(),
    }
}
