//! The normalized schemas against a real consumer: the local llama.cpp server that
//! `scripts/model-server` runs, which turns each tool's schema into a grammar and refuses a
//! request whose schema it cannot.
//!
//! Ignored by a plain `cargo test`, since it needs that server; `scripts/test` runs it beside
//! `real_model`, as one can by hand:
//! `LADOGA_REAL_MODEL_URL=$(scripts/model-server start 18234) cargo test -p ladoga-tests
//! --test suite -- --ignored peers::real_schemas::`, then `scripts/model-server stop 18234`.

use std::collections::{BTreeMap, HashMap};

use ladoga::SchemaProfile;
use schemars::JsonSchema;
use serde_json::Value;
use svir::{Request, Tool, ToolChoice};

/// Nested structs, enums of both kinds, options and maps.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct Trip {
    /// Where to.
    city: String,
    stay: Option<Stay>,
    mode: Mode,
    payment: Payment,
    budget: Option<f64>,
    notes: HashMap<String, String>,
    seats: BTreeMap<String, u32>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
struct Stay {
    hotel: String,
    breakfast: Option<bool>,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
enum Mode {
    Train,
    Plane,
}

#[derive(JsonSchema)]
#[allow(dead_code)]
enum Payment {
    Card {
        last4: String,
        holder: Option<String>,
    },
    Cash(u32),
    Invoice,
}

/// A recursive type.
#[derive(JsonSchema)]
#[allow(dead_code)]
struct Tree {
    label: String,
    children: Vec<Tree>,
}

/// The corpus: schemas of real MCP servers, and of schemars types.
fn corpus() -> Vec<(String, Value)> {
    let servers: serde_json::Map<String, Value> =
        serde_json::from_str(include_str!("../../schemas/mcp_servers.json")).expect("JSON");
    servers
        .into_iter()
        .chain([
            ("trip".to_owned(), schemars::schema_for!(Trip).to_value()),
            ("tree".to_owned(), schemars::schema_for!(Tree).to_value()),
        ])
        .collect()
}

#[tokio::test]
#[ignore = "needs the local model server: see the README"]
async fn llama_cpp_accepts_every_schema_normalized_for_it_and_for_the_default() {
    let url = std::env::var("LADOGA_REAL_MODEL_URL")
        .expect("LADOGA_REAL_MODEL_URL names the model server (scripts/model-server start)");
    let client = svir::Client::openai(url).build().expect("a client");
    let mut sent = 0;
    for profile in [SchemaProfile::LlamaCpp, SchemaProfile::default()] {
        for (name, declared) in corpus() {
            let Ok(schema) = profile.normalize(&declared) else {
                // Recursion, which the default cannot express: the unit tests check that.
                assert!(
                    profile != SchemaProfile::LlamaCpp,
                    "{name} is refused for llama.cpp"
                );
                continue;
            };
            let request = Request::new("smollm2")
                .tool(Tool::new(name.clone(), "A tool of the corpus").schema(schema.clone()))
                .tool_choice(ToolChoice::Required)
                .max_tokens(1)
                .user("Call the tool.");
            if let Err(error) = client.complete(&request).await {
                panic!(
                    "{profile}: llama.cpp refused `{name}` (HTTP {:?}): {:?}\n{schema}",
                    error.status(),
                    error.server_message()
                );
            }
            sent += 1;
        }
    }
    assert!(sent >= 15, "only {sent} schemas were sent");
}
