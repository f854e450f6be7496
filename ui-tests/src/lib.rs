//! Compile tests of `#[orchestrator]`: every file in `pass/` is an example of this crate, which
//! must compile (`cargo build -p ladoga-ui-tests --examples`, and every `--all-targets` build);
//! every file in `fail/` must fail with the `.stderr` beside it, checked by `tests/ui.rs` with
//! trybuild. `TRYBUILD=overwrite cargo test -p ladoga-ui-tests` rewrites the `.stderr` files.
