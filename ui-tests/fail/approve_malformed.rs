use ladoga::orchestrator;

#[orchestrator(approve = [])]
async fn empty(focus: String) -> String {
    focus
}

#[orchestrator(approve = ["clear board"])]
async fn never_matches(focus: String) -> String {
    focus
}

#[orchestrator(approve = "clear_*")]
async fn not_a_list(focus: String) -> String {
    focus
}

#[orchestrator(approve = everything)]
async fn unknown_policy(focus: String) -> String {
    focus
}

fn main() {}
