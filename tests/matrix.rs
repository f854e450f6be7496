//! Every pair of the features a run can have, tested together (issue 37), through a real neva
//! server, a real neva client and the scripted model behind loopback HTTP.
//!
//! The table below has one row per feature. A row says what the feature sets on the run, what it
//! adds to the model's turns, what the client must do for it, and what a user relies on when it
//! is on (`matrix/rows.rs`); the macro makes a test of each row alone (`alone::<row>`) and of
//! each pair (`pairs::<first>::<second>`). A new feature is one more row, tested with every other.
//!
//! Each case calls one tool, `matrix_run`, an orchestrator built by hand from the case's rows
//! (`matrix/tools.rs`), and every case checks what any run must show (`matrix/checks.rs`): no
//! request asked twice, every call answered once and run once, the call ending as its rows say
//! (at a bound, under the policy the case has), and the report telling what the model saw.
//!
//! Under MCP 2026-07-28 only: a round of a call, a task's questions and a sample are this
//! generation's; each feature's own tests run in the `legacy-spec` build too.
#![cfg(not(feature = "legacy-spec"))]

mod common;

#[path = "matrix/checks.rs"]
mod checks;
#[path = "matrix/env.rs"]
mod env;
#[path = "matrix/rows.rs"]
mod rows;
#[path = "matrix/script.rs"]
mod script;
#[path = "matrix/setup.rs"]
mod setup;
#[macro_use]
#[path = "matrix/table.rs"]
mod table;
#[path = "matrix/tools.rs"]
mod tools;

matrix! {
    features: [
        session,
        context,
        defer,
        ask,
        approve,
        output,
        stream,
        with,
        caller_model,
        fallback,
        task,
        nested,
        budget,
        timeout,
        repeat,
    ],
    policies: [turns_error, turns_answer, turns_partial],
}
