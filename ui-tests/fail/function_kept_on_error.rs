//! The only error is the argument's: the function is still emitted, so calling it compiles.

use ladoga::orchestrator;

/// Plans.
#[orchestrator(turns = 0)]
async fn plan_week(focus: String) -> String {
    focus
}

fn main() {
    let _brief = plan_week("the release".to_owned());
}
