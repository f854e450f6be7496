//! Tool schemas reach the model normalized for its provider, through the real MCP path: a neva
//! tool whose argument is a struct with nested options and enums, offered by an orchestrator to
//! a scripted model served over HTTP. A tool the model could not be offered is a tool error
//! before any model request.

mod common;

use common::{Server, text};
use ladoga::orchestrator;
use ladoga::testing::{Reply, ScriptedModel, ScriptedServer};
use ladoga::{CompletionModel, NormalizedTools, SchemaProfile};
use neva::prelude::*;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::{Value, json};

/// A trip to book.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Trip {
    /// Where to.
    city: String,
    /// Where to sleep, if booked already.
    stay: Option<Stay>,
    /// How to get there.
    mode: Mode,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Stay {
    hotel: String,
    nights: Option<u32>,
}

#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
enum Mode {
    Train,
    Car { seats: u8 },
}

/// A tree of sections: a recursive type.
#[derive(Deserialize, JsonSchema)]
#[allow(dead_code)]
struct Section {
    heading: String,
    children: Vec<Section>,
}

#[tool(descr = "Books a trip")]
async fn book_trip(trip: Json<Trip>) -> String {
    format!("booked {}", trip.into_inner().city)
}

#[tool(descr = "Walks an outline")]
async fn walk_outline(outline: Json<Section>) -> String {
    outline.into_inner().heading
}

/// Books trips.
#[orchestrator(tools = ["book_trip"])]
async fn travel_agent(task: String) -> String {
    task
}

/// Walks outlines.
#[orchestrator(tools = ["walk_outline"])]
async fn outliner(task: String) -> String {
    task
}

/// Reads files.
#[orchestrator(tools = ["files.read"])]
async fn reader(task: String) -> String {
    task
}

/// A server with the tools above, `files.read` among them, its model `script` served over HTTP
/// under `profile`.
async fn start(script: &ScriptedModel, profile: SchemaProfile) -> (Server, ScriptedServer) {
    let served = script.serve().await.expect("serves");
    let mut app = App::new().add_singleton(served.model().with_schema_profile(profile));
    app.map_tool("files.read", |path: String| async move { path });
    (Server::start(app).await, served)
}

/// Calls `tool` with a task and returns the result.
async fn call(server: &Server, tool: &str) -> CallToolResponse {
    server
        .client()
        .await
        .tools()
        .call(tool, [("task", "go")])
        .await
        .expect("tools/call")
}

/// The parameters of `name` in the first request the model received.
fn offered(script: &ScriptedModel, name: &str) -> Value {
    let body = script.requests()[0].body().clone();
    body["tools"]
        .as_array()
        .expect("tools")
        .iter()
        .find(|tool| tool["function"]["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not offered: {body}"))["function"]["parameters"]
        .clone()
}

#[tokio::test]
async fn the_model_is_offered_the_schema_normalized_for_its_profile() {
    for profile in [
        SchemaProfile::Portable,
        SchemaProfile::Gemini,
        SchemaProfile::OpenAiStrict,
    ] {
        let script = ScriptedModel::new([Reply::text("booked")]);
        let (server, _model) = start(&script, profile).await;
        let result = call(&server, "travel_agent").await;
        if cfg!(feature = "legacy-spec") && profile == SchemaProfile::OpenAiStrict {
            // neva 0.9's legacy schema type keeps only each property's type: the struct
            // argument is a bare, free-form object, which strict mode cannot express.
            assert!(result.is_error, "{}", text(&result));
            assert!(text(&result).contains("`book_trip`"), "{}", text(&result));
            assert!(
                text(&result).contains("free-form object"),
                "{}",
                text(&result)
            );
            assert!(script.requests().is_empty());
            server.stop().await;
            continue;
        }
        assert!(!result.is_error, "{profile}: {}", text(&result));
        let schema = offered(&script, "book_trip");
        let written = schema.to_string();
        if cfg!(feature = "legacy-spec") {
            // The same bare object reaches the other profiles' models, nothing to normalize.
            assert_eq!(schema["properties"]["trip"]["type"], "object", "{schema}");
            assert!(!written.contains("$ref"), "{profile}: {schema}");
            server.stop().await;
            continue;
        }
        for refused in ["$ref", "$defs", "$schema", "oneOf"] {
            assert!(
                !written.contains(refused),
                "{profile}: {refused} in {schema}"
            );
        }
        let trip = &schema["properties"]["trip"];
        assert_eq!(
            trip["properties"]["city"]["type"], "string",
            "{profile}: {schema}"
        );
        let stay = &trip["properties"]["stay"];
        let hotel = match profile {
            SchemaProfile::Gemini => {
                assert_eq!(stay["nullable"], true, "{schema}");
                &stay["properties"]["hotel"]
            }
            _ => {
                assert_eq!(
                    stay["anyOf"][1],
                    json!({"type": "null"}),
                    "{profile}: {schema}"
                );
                &stay["anyOf"][0]["properties"]["hotel"]
            }
        };
        assert_eq!(hotel["type"], "string", "{profile}: {schema}");
        let modes = trip["properties"]["mode"]["anyOf"]
            .as_array()
            .expect("a union");
        assert_eq!(
            modes[0],
            json!({"type": "string", "enum": ["Train"]}),
            "{profile}"
        );
        if profile == SchemaProfile::OpenAiStrict {
            assert_eq!(schema["additionalProperties"], false, "{schema}");
            assert_eq!(
                trip["required"],
                json!(["city", "mode", "stay"]),
                "{schema}"
            );
            assert_eq!(
                stay["anyOf"][0]["properties"]["nights"]["type"],
                json!(["integer", "null"]),
                "{schema}"
            );
        }
        server.stop().await;
    }
}

// Under `legacy-spec`, neva 0.9's schema type keeps only each property's type, so the
// recursive argument reaches the orchestrator as a bare object: nothing is left to refuse.
#[cfg(not(feature = "legacy-spec"))]
#[tokio::test]
async fn a_schema_the_target_cannot_express_is_a_tool_error_naming_the_tool_before_any_request() {
    let script = ScriptedModel::new([Reply::text("never asked")]);
    let (server, _model) = start(&script, SchemaProfile::Gemini).await;
    let result = call(&server, "outliner").await;
    assert!(result.is_error, "{result:?}");
    let told = text(&result);
    assert!(told.contains("`walk_outline`"), "{told}");
    assert!(told.contains("Gemini"), "{told}");
    assert!(
        told.contains(
            "the tool `walk_outline`'s input schema cannot be written for the Gemini profile: at \
             `/properties/outline/properties/children/items/properties/children/items`, the reference \"#/$defs/Section\" \
             is recursive"
        ),
        "{told}"
    );
    assert!(script.requests().is_empty(), "the model was asked");

    // Where the target can express recursion, the same tool is offered.
    let script = ScriptedModel::new([Reply::text("walked")]);
    let (server, _model) = start(&script, SchemaProfile::LlamaCpp).await;
    let result = call(&server, "outliner").await;
    assert!(!result.is_error, "{}", text(&result));
    let schema = offered(&script, "walk_outline");
    assert!(
        schema.to_string().contains("\"$ref\":\"#/$defs/"),
        "{schema}"
    );
}

#[tokio::test]
async fn a_tool_name_a_model_cannot_carry_is_a_tool_error_naming_it_before_any_request() {
    let script = ScriptedModel::new([Reply::text("never asked")]);
    let (server, _model) = start(&script, SchemaProfile::default()).await;
    let result = call(&server, "reader").await;
    assert!(result.is_error, "{result:?}");
    let told = text(&result);
    assert!(told.contains("`files.read`"), "{told}");
    assert!(script.requests().is_empty(), "the model was asked");
}

#[tokio::test]
async fn a_toolbox_without_neva_is_checked_the_same_way() {
    let tools = svir::Tools::new()
        .add_tool(svir::Tool::new("files.read", "Reads"), |_: Value| async {
            "text"
        });
    let told = NormalizedTools::new(&tools, SchemaProfile::OpenAi).unwrap_err();
    assert_eq!(told.tool(), Some("files.read"));
    let model = ScriptedModel::new([Reply::text("never asked")]);
    let error = ladoga::Orchestration::new(&model, &tools)
        .run("go")
        .await
        .unwrap_err();
    assert!(error.to_string().contains("`files.read`"), "{error}");
    assert!(model.requests().is_empty());
}

#[test]
fn a_fallback_offers_its_models_shared_profile_and_else_the_default() {
    let model = |profile| {
        let client = svir::Client::openai("http://127.0.0.1:9")
            .build()
            .expect("a client");
        ladoga::Model::new(client, "m").with_schema_profile(profile)
    };
    let same = ladoga::Fallback::new([
        model(SchemaProfile::LlamaCpp),
        model(SchemaProfile::LlamaCpp),
    ]);
    assert_eq!(same.schema_profile(), SchemaProfile::LlamaCpp);
    let mixed =
        ladoga::Fallback::new([model(SchemaProfile::LlamaCpp), model(SchemaProfile::Gemini)]);
    assert_eq!(mixed.schema_profile(), SchemaProfile::Portable);
}
