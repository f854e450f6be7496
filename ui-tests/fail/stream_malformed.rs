use ladoga::orchestrator;

#[orchestrator(stream = "10ms")]
async fn too_often(focus: String) -> String {
    focus
}

#[orchestrator(stream = 250)]
async fn not_a_flag(focus: String) -> String {
    focus
}

#[orchestrator(stream = "fast")]
async fn not_a_duration(focus: String) -> String {
    focus
}

fn main() {}
