//! The runtime's folders in one order, kept: a file imports only from its own folder and the
//! folders below it. A new feature that needs something from above has the wrong shape (move
//! the shared part down, or hand it in as a value), so the folders never import each other in a
//! circle again.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The runtime's folders and root files (`crate::<name>`), from the bottom up.
const ORDER: &[&str] = &[
    "wire",      // the names Ladoga's messages carry in `_meta`
    "trace",     // W3C trace context across MCP
    "tree",      // a call's place in the agent tree, and the way up
    "registry",  // what the macro registers at link time
    "schema",    // JSON Schema for a model's provider
    "cost",      // what a request costs, and what a run may spend
    "error",     // the run's errors
    "toolbox",   // toolboxes, their tools and calls
    "guard",     // what a run lets through of what it reads and writes
    "brief",     // what a run starts from
    "metrics",   // Prometheus names and records
    "approval",  // approvals and the model's questions
    "context",   // compaction's parts: sizes, notes, summaries
    "model",     // models, the caller's, fallbacks
    "testing",   // the scripted model
    "outcome",   // what a run ends with
    "usage",     // tokens counted
    "limits",    // the run's bounds
    "store",     // the run store
    "session",   // conversations that go on
    "access",    // who sees which task
    "observe",   // spans, progress, tasks, reports
    "run",       // the loop
    "durable",   // durable runs on Restate
    "tool",      // the loop as an MCP tool
    "__private", // what the macro's code names
    "lib",       // the crate root
    "doctests",  // the README's examples
];

#[test]
fn layers() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut wrong = Vec::new();
    for file in rust_files(&src) {
        let relative = file.strip_prefix(&src).expect("under src");
        let unit = unit_of(relative);
        let Some(own) = rank(&unit) else {
            wrong.push(format!("{}: `{unit}` is not in ORDER", relative.display()));
            continue;
        };
        let text = std::fs::read_to_string(&file).expect("reads");
        for (line, used) in crate_paths(&text) {
            match rank(&used) {
                Some(above) if above > own => wrong.push(format!(
                    "{}:{line}: `{unit}` imports `{used}`, which is above it",
                    relative.display()
                )),
                None => wrong.push(format!(
                    "{}:{line}: `crate::{used}` is not in ORDER",
                    relative.display()
                )),
                Some(_) => {}
            }
        }
    }
    assert!(
        wrong.is_empty(),
        "the folder order is broken:\n{}",
        wrong.join("\n")
    );
}

/// Where `name` is in [`ORDER`].
fn rank(name: &str) -> Option<usize> {
    ORDER.iter().position(|unit| *unit == name)
}

/// The folder, or root file, a file of `src` belongs to.
fn unit_of(relative: &Path) -> String {
    let first = relative.components().next().expect("a path");
    let first = first.as_os_str().to_string_lossy();
    first.strip_suffix(".rs").unwrap_or(&first).to_owned()
}

/// Each `crate::<name>` the code of `text` names, with its line: comments, and the unit tests
/// that end a file, are left out (a test may drive the file with anything).
fn crate_paths(text: &str) -> Vec<(usize, String)> {
    let code = match text.find("#[cfg(test)]\nmod tests") {
        Some(tests) => &text[..tests],
        None => text,
    };
    let mut used = Vec::new();
    for (number, line) in code.lines().enumerate() {
        let line = line.split("//").next().unwrap_or_default();
        let mut rest = line;
        while let Some(at) = rest.find("crate::") {
            rest = &rest[at + "crate::".len()..];
            let name: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            used.push((number + 1, name));
        }
    }
    used
}

/// Every `.rs` file under `dir` but the unit tests' own files (`tests.rs`).
fn rust_files(dir: &Path) -> BTreeSet<PathBuf> {
    let mut files = BTreeSet::new();
    for entry in std::fs::read_dir(dir).expect("reads the folder") {
        let path = entry.expect("an entry").path();
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|ext| ext == "rs")
            && path.file_name().is_some_and(|name| name != "tests.rs")
        {
            files.insert(path);
        }
    }
    files
}
