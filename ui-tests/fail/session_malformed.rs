use ladoga::orchestrator;

#[orchestrator(session = 3)]
async fn a_number(focus: String) -> String {
    focus
}

#[orchestrator(session = everyone)]
async fn unknown_scope(focus: String) -> String {
    focus
}

#[orchestrator(session = true, session_ttl = "forever")]
async fn ttl_malformed(focus: String) -> String {
    focus
}

#[orchestrator(session_ttl = "1h")]
async fn ttl_without_session(focus: String) -> String {
    focus
}

#[orchestrator(session = true)]
async fn own_session_parameter(focus: String, session: String) -> String {
    format!("{focus} {session}")
}

fn main() {}
