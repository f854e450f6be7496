use ladoga::orchestrator;

/// Answers.
#[orchestrator(defer = [])]
async fn answer(question: String) -> String {
    question
}

fn main() {}
