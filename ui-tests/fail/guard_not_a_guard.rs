use ladoga::orchestrator;

/// Reads the mail.
#[orchestrator(guard = [String])]
async fn read_mail(task: String) -> String {
    task
}

fn main() {}
