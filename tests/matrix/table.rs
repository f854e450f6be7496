//! A row of the matrix, the macro that makes the table and a test of each row alone and of each
//! pair of rows, and the test they all run.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use super::checks::{Faults, invariants};
use super::env::{self, Case};
use super::setup::Setup;

/// A feature a run can have.
pub struct Row {
    /// Its name: the test of a pair is `pairs::<first>::<second>`.
    pub name: &'static str,
    /// What it sets on the orchestrator, adds to the model's turns and asks of the client.
    pub apply: fn(&mut Setup),
    /// What a user relies on when it is on, checked on what the case saw.
    pub check: fn(&Case, &mut Faults),
}

impl std::fmt::Debug for Row {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// The table of rows, and a test of each row alone (`alone::<row>`) and of each pair of rows
/// (`pairs::<first>::<second>`, the first before the second in the table). `features` combine
/// with every row; `policies` are values of one setting (`on_limit`), each combined with every
/// feature but not with one another. Each row is a module of `rows` with `apply` and `check`.
macro_rules! matrix {
    (features: [$($feature:ident),* $(,)?], policies: [$($policy:ident),* $(,)?] $(,)?) => {
        /// Every row, in the order a case applies them.
        pub static TABLE: &[table::Row] = &[
            $(table::Row {
                name: stringify!($feature),
                apply: rows::$feature::apply,
                check: rows::$feature::check,
            },)*
            $(table::Row {
                name: stringify!($policy),
                apply: rows::$policy::apply,
                check: rows::$policy::check,
            },)*
        ];

        /// Each row alone.
        mod alone {
            $(#[tokio::test]
            async fn $feature() {
                crate::table::case(&[stringify!($feature)]).await;
            })*
            $(#[tokio::test]
            async fn $policy() {
                crate::table::case(&[stringify!($policy)]).await;
            })*
        }

        /// Each pair of rows.
        mod pairs {
            matrix!(@pairs [$($feature),*] [$($policy),*]);
        }
    };
    (@pairs [$first:ident $(, $rest:ident)*] [$($policy:ident),*]) => {
        mod $first {
            $(#[tokio::test]
            async fn $rest() {
                crate::table::case(&[stringify!($first), stringify!($rest)]).await;
            })*
            $(#[tokio::test]
            async fn $policy() {
                crate::table::case(&[stringify!($first), stringify!($policy)]).await;
            })*
        }
        matrix!(@pairs [$($rest),*] [$($policy),*]);
    };
    (@pairs [] [$($policy:ident),*]) => {};
}

/// How long a case may take before it counts as hung.
const HUNG: Duration = Duration::from_secs(45);

/// Runs the case of the rows `names` and fails with every fault it found.
pub async fn case(names: &[&str]) {
    static CASES: AtomicUsize = AtomicUsize::new(0);
    let pair = names.join("+");
    let case = format!("{pair} #{}", CASES.fetch_add(1, Ordering::SeqCst));
    let setup = Setup::of(&pair, &case).expect("rows of the table");
    let Ok(case) = tokio::time::timeout(HUNG, env::run(setup)).await else {
        panic!("{pair}: the case did not end within {HUNG:?}");
    };
    let mut faults = Faults::default();
    invariants(&case, &mut faults);
    for row in &case.setup.rows {
        (row.check)(&case, &mut faults);
    }
    assert!(
        faults.0.is_empty(),
        "{pair}: {} fault(s):\n- {}\nfirst call: {:?}\nsecond call: {:?}",
        faults.0.len(),
        faults.0.join("\n- "),
        case.first.result,
        case.second.as_ref().map(|second| &second.result),
    );
}
