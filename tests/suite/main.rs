//! The tests that run Ladoga as a user deploys it and as other software meets it, in one test
//! binary: each drives processes (the `board`, `ask` and `hello` examples, the official MCP
//! clients and servers, agent frameworks, nginx, Redis, Prometheus, restate-server, a model
//! server) or the runtime without its macros, and none defines a `#[tool]`, an
//! `#[orchestrator]`, a `#[prompt]` or a `#[resource]` in process.
//!
//! The tests that do stay one binary each (`tests/Cargo.toml`): neva registers every such item
//! of a binary, through `inventory`, in every `App` that binary runs, so two of those files in
//! one binary would each see the other's tools.
//!
//! A folder per axis; a test's path names it, and `scripts/test` filters by it:
//! `cargo test -p ladoga-tests --test suite -- --ignored peers::python_tasks::`.

#[path = "../common/mod.rs"]
mod common;

mod deployments;
mod peers;
