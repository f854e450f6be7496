//! MCP 2025-11-25: the tools that log to their caller, and those that put a request to it in the
//! middle of a call (`sampling/createMessage`, `elicitation/create`) and answer with its answer.

use neva::prelude::*;
use neva::types::elicitation::{ElicitRequestParams, ElicitResult};
use neva::types::sampling::CreateMessageRequestParams;

/// `json`, a request's parameters as the suite describes them, as the type neva sends.
fn params<T: serde::de::DeserializeOwned>(json: serde_json::Value) -> T {
    serde_json::from_value(json).expect("valid parameters")
}

/// How an elicitation was answered, as the suite reads it back.
fn told(result: &ElicitResult) -> String {
    let action = serde_json::to_value(result.action).unwrap_or_default();
    let content = result
        .content
        .clone()
        .unwrap_or_else(|| serde_json::json!({}));
    format!(
        "action={}, content={content}",
        action.as_str().unwrap_or_default()
    )
}

/// Scenario `tools-call-with-logging`.
#[tool(descr = "Logs three lines at info, 50 ms apart, then answers")]
async fn test_tool_with_logging() -> &'static str {
    let lines = [
        "Tool execution started",
        "Tool processing data",
        "Tool execution completed",
    ];
    for line in lines {
        tracing::info!(target: crate::TO_CALLER, "{line}");
        tokio::time::sleep(crate::content::STEP).await;
    }
    "Tool with logging executed successfully"
}

/// Scenario `tools-call-sampling`.
#[tool(descr = "Asks the caller's model `prompt`, then answers with its answer")]
async fn test_sampling(ctx: Context, prompt: String) -> Result<String, Error> {
    let request: CreateMessageRequestParams = params(serde_json::json!({
        "messages": [{ "role": "user", "content": { "type": "text", "text": prompt } }],
        "maxTokens": 100,
    }));
    let answer = ctx.sample(request).await?;
    let text: Vec<&str> = answer
        .content
        .iter()
        .filter_map(|content| content.as_text())
        .map(|text| text.text.as_str())
        .collect();
    Ok(format!("LLM response: {}", text.join(" ")))
}

/// Scenario `tools-call-elicitation`.
#[tool(descr = "Asks the user `message` for a username and an email")]
async fn test_elicitation(ctx: Context, message: String) -> Result<String, Error> {
    let question: ElicitRequestParams = params(serde_json::json!({
        "mode": "form",
        "message": message,
        "requestedSchema": {
            "type": "object",
            "properties": {
                "username": { "type": "string", "description": "User's response" },
                "email": { "type": "string", "description": "User's email address" },
            },
            "required": ["username", "email"],
        },
    }));
    let answer = ctx.elicit(question).await?;
    Ok(format!("User response: {}", told(&answer)))
}

/// Scenario `elicitation-sep1034-defaults`.
#[tool(descr = "Asks for a form whose every field has a default (SEP-1034)")]
async fn test_elicitation_sep1034_defaults(ctx: Context) -> Result<String, Error> {
    let question: ElicitRequestParams = params(serde_json::json!({
        "mode": "form",
        "message": "Please review and update the form fields with defaults",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "name": { "type": "string", "description": "User name", "default": "John Doe" },
                "age": { "type": "integer", "description": "User age", "default": 30 },
                "score": { "type": "number", "description": "User score", "default": 95.5 },
                "status": {
                    "type": "string",
                    "description": "User status",
                    "enum": ["active", "inactive", "pending"],
                    "default": "active",
                },
                "verified": { "type": "boolean", "description": "Verification status", "default": true },
            },
            "required": [],
        },
    }));
    let answer = ctx.elicit(question).await?;
    Ok(format!("Elicitation completed: {}", told(&answer)))
}

/// Scenario `elicitation-sep1330-enums`.
#[tool(descr = "Asks for a form with the five kinds of enum (SEP-1330)")]
async fn test_elicitation_sep1330_enums(ctx: Context) -> Result<String, Error> {
    let question: ElicitRequestParams = params(serde_json::json!({
        "mode": "form",
        "message": "Please select options from the enum fields",
        "requestedSchema": {
            "type": "object",
            "properties": {
                "untitledSingle": {
                    "type": "string",
                    "description": "Select one option",
                    "enum": ["option1", "option2", "option3"],
                },
                "titledSingle": {
                    "type": "string",
                    "description": "Select one option with titles",
                    "oneOf": [
                        { "const": "value1", "title": "First Option" },
                        { "const": "value2", "title": "Second Option" },
                        { "const": "value3", "title": "Third Option" },
                    ],
                },
                "legacyEnum": {
                    "type": "string",
                    "description": "Select one option (legacy)",
                    "enum": ["opt1", "opt2", "opt3"],
                    "enumNames": ["Option One", "Option Two", "Option Three"],
                },
                "untitledMulti": {
                    "type": "array",
                    "description": "Select multiple options",
                    "minItems": 1,
                    "maxItems": 3,
                    "items": { "type": "string", "enum": ["option1", "option2", "option3"] },
                },
                "titledMulti": {
                    "type": "array",
                    "description": "Select multiple options with titles",
                    "minItems": 1,
                    "maxItems": 3,
                    "items": {
                        "anyOf": [
                            { "const": "value1", "title": "First Choice" },
                            { "const": "value2", "title": "Second Choice" },
                            { "const": "value3", "title": "Third Choice" },
                        ],
                    },
                },
            },
            "required": [],
        },
    }));
    let answer = ctx.elicit(question).await?;
    Ok(format!("Elicitation completed: {}", told(&answer)))
}
