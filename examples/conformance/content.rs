//! The tools of every protocol version whose answers the suite checks as they are: text, an
//! image, audio, embedded resources, a tool error, progress, and a JSON Schema 2020-12 input
//! schema that must reach the client untouched.

use base64::Engine;
use neva::prelude::*;
use neva::types::{AudioContent, ImageContent, Meta, ProgressToken};

/// A 1×1 red PNG, base64.
pub(crate) const PNG_BASE64: &str = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==";

/// A WAV file of one silent sample, base64.
const WAV_BASE64: &str = "UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=";

/// The bytes of a base64 constant of this file.
fn decoded(base64: &str) -> Vec<u8> {
    base64::engine::general_purpose::STANDARD
        .decode(base64)
        .expect("the constant is base64")
}

/// The red pixel, as image content.
pub(crate) fn red_pixel() -> ImageContent {
    ImageContent::new(decoded(PNG_BASE64)).with_mime("image/png")
}

/// Scenario `tools-call-simple-text`.
#[tool(descr = "Answers with one text content")]
fn test_simple_text() -> &'static str {
    "This is a simple text response for testing."
}

/// Scenario `tools-call-image`.
#[tool(descr = "Answers with one PNG image")]
fn test_image_content() -> Result<CallToolResponse, Error> {
    Ok(CallToolResponse::new(red_pixel()))
}

/// Scenario `tools-call-audio`.
#[tool(descr = "Answers with one WAV sound")]
fn test_audio_content() -> Result<CallToolResponse, Error> {
    Ok(CallToolResponse::new(
        AudioContent::new(decoded(WAV_BASE64)).with_mime("audio/wav"),
    ))
}

/// Scenario `tools-call-embedded-resource`.
#[tool(descr = "Answers with one embedded text resource")]
fn test_embedded_resource() -> Result<CallToolResponse, Error> {
    Ok(CallToolResponse::new(Content::resource(
        ResourceContents::new("test://embedded-resource")
            .with_mime("text/plain")
            .with_text("This is an embedded resource content."),
    )))
}

/// Scenario `tools-call-mixed-content`.
#[tool(descr = "Answers with text, an image and an embedded resource")]
fn test_multiple_content_types() -> Result<CallToolResponse, Error> {
    Ok(CallToolResponse::array(vec![
        Content::text("Multiple content types test:"),
        red_pixel().into(),
        Content::resource(
            ResourceContents::new("test://mixed-content-resource")
                .with_mime("application/json")
                .with_text(r#"{"test":"data","value":123}"#),
        ),
    ]))
}

/// Scenario `tools-call-error`: a tool error, in the result (`isError`).
#[tool(descr = "Always fails, with a tool error")]
fn test_error_handling() -> Result<String, Error> {
    Err(Error::new(
        ErrorCode::InternalError,
        "This tool intentionally returns an error for testing",
    ))
}

/// The pause between two reports of a tool, and after its last: under MCP 2025-11-25 neva sends
/// a request's notifications on the session's stream, apart from the call's answer, and a
/// client stops listening once it has the answer; the pause lets the last report arrive first.
pub(crate) const STEP: std::time::Duration = std::time::Duration::from_millis(50);

/// Scenario `tools-call-with-progress`.
#[tool(descr = "Reports progress 0, 50 and 100 of 100, 50 ms apart")]
async fn test_tool_with_progress(token: Meta<ProgressToken>) -> String {
    for value in [0, 50, 100] {
        report(&token, value);
        tokio::time::sleep(STEP).await;
    }
    format!("Progress reported to {}", *token)
}

/// Sends `value` of 100 as the progress of the request whose token is `token`.
fn report(token: &ProgressToken, value: u32) {
    match token {
        ProgressToken::Number(number) => {
            tracing::info!(target: "progress", token = number, value = value, total = 100)
        }
        other => {
            tracing::info!(target: "progress", token = %other, value = value, total = 100)
        }
    }
}

/// Scenario `json-schema-2020-12`: its input schema reaches `tools/list` as written.
#[tool(
    descr = "Tool with JSON Schema 2020-12 features",
    input_schema = r##"{
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {
                    "street": { "type": "string" },
                    "city": { "type": "string" }
                }
            }
        },
        "properties": {
            "name": { "type": "string" },
            "address": { "$ref": "#/$defs/address" },
            "contactMethod": { "type": "string", "enum": ["phone", "email"] },
            "phone": { "type": "string" },
            "email": { "type": "string" }
        },
        "allOf": [{ "anyOf": [{ "required": ["phone"] }, { "required": ["email"] }] }],
        "if": { "properties": { "contactMethod": { "const": "phone" } }, "required": ["contactMethod"] },
        "then": { "required": ["phone"] },
        "else": { "required": ["email"] },
        "additionalProperties": false
    }"##
)]
fn json_schema_2020_12_tool(name: Option<String>) -> String {
    format!("Called with name {}", name.unwrap_or_default())
}

/// Scenario `http-custom-header-server-validation`. Named to sort among the first ten tools:
/// neva lists tools ten a page, and the suite looks for a tool with an `x-mcp-header` argument on
/// the first page only.
#[tool(
    descr = "Echoes `region`, which the client also sends as the header `Mcp-Param-Region`",
    input_schema = r#"{
        "type": "object",
        "properties": {
            "region": { "type": "string", "description": "Where to run", "x-mcp-header": "Region" }
        },
        "required": ["region"]
    }"#
)]
fn echo_region(region: String) -> String {
    format!("Region: {region}")
}
