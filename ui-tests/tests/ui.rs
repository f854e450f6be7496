//! Every `fail/` case fails with its checked-in `.stderr`. The `pass/` cases are examples of
//! this package (`Cargo.toml`): `cargo test --all-targets` and clippy build them.

#[test]
fn ui() {
    trybuild::TestCases::new().compile_fail("fail/*.rs");
}
