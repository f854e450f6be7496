//! Compile tests of `#[orchestrator]`, run by `tests/ui.rs` with trybuild: every file in
//! `pass/` must compile, every file in `fail/` must fail with the `.stderr` beside it.
//! `TRYBUILD=overwrite cargo test -p ladoga-ui-tests` rewrites the `.stderr` files.
