//! `hello`: the smallest Ladoga server. One tool, and one orchestrator that offers it to a model,
//! over streamable HTTP at `http://ADDR/mcp` (`127.0.0.1:3000` unless given). The model server
//! and its name are read as `board` reads them (the defaults shown):
//!
//! ```text
//! LADOGA_MODEL_URL=http://127.0.0.1:1234 LADOGA_MODEL=qwen3 \
//!     cargo run -p ladoga-examples --bin hello [-- ADDR]
//! ```

use ladoga::orchestrator;
use neva::prelude::*;

#[tool(descr = "Says how to greet someone in a language")]
async fn hello_in(language: String) -> String {
    match language.to_lowercase().as_str() {
        "finnish" => "Hei".to_owned(),
        "french" => "Bonjour".to_owned(),
        _ => "Hello".to_owned(),
    }
}

/// Greets someone in their language.
#[orchestrator(system = "You greet people. Ask the tools how.", turns = 4)]
async fn say_hello(name: String, language: String) -> String {
    format!("Say hello to {name} in {language}.")
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let env = |name, default: &str| std::env::var(name).unwrap_or(default.to_owned());
    let client = svir::Client::openai(env("LADOGA_MODEL_URL", "http://127.0.0.1:1234")).build()?;
    let model = ladoga::Model::new(client, env("LADOGA_MODEL", "qwen3"));
    let addr = std::env::args().nth(1);
    let addr = addr.as_deref().unwrap_or("127.0.0.1:3000");
    let app = App::new().with_options(|opt| opt.with_http(|http| http.bind(addr)));
    app.add_singleton(model).run().await;
    Ok(())
}
