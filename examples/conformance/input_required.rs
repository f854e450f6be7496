//! MCP 2026-07-28: the tools and the prompt that ask their caller for input mid-call
//! (`InputRequiredResult`, SEP-2322). neva re-runs a handler on each round, with the answers so
//! far; a question not answered yet ends the round with that question, in a sealed
//! `requestState` with the answers already given.

use neva::prelude::*;
use neva::types::elicitation::{ElicitRequestParams, ElicitResult};
use neva::types::sampling::CreateMessageRequestParams;

/// A form asking for the string properties `fields`, every one required, with `message`.
fn form(message: &str, fields: &[&str]) -> ElicitRequestParams {
    fields
        .iter()
        .fold(ElicitRequestParams::form(message), |form, field| {
            form.with_required(field, "string")
        })
        .into()
}

/// The property `field` of an elicitation's answer, if it is a string.
fn answered(result: &ElicitResult, field: &str) -> String {
    result
        .content
        .as_ref()
        .and_then(|content| content.get(field))
        .and_then(|value| value.as_str())
        .unwrap_or("stranger")
        .to_owned()
}

/// A sampling request of one user message, `text`, of at most `max_tokens`.
fn sampling(text: &str, max_tokens: i32) -> CreateMessageRequestParams {
    serde_json::from_value(serde_json::json!({
        "messages": [{ "role": "user", "content": { "type": "text", "text": text } }],
        "maxTokens": max_tokens,
    }))
    .expect("a valid sampling request")
}

/// Scenarios `input-required-result-basic-elicitation`, `…-missing-input-response`, `…-result-
/// type`, `…-ignore-extra-params` and `…-validate-input`.
#[tool(descr = "Asks its caller's name, then greets it")]
async fn test_input_required_result_elicitation(ctx: Context) -> Result<String, Error> {
    let name = ctx
        .elicit("user_name", form("What is your name?", &["name"]))
        .await?;
    Ok(format!("Hello, {}!", answered(&name, "name")))
}

/// Scenario `input-required-result-basic-sampling`.
#[tool(descr = "Asks its caller's model the capital of France")]
async fn test_input_required_result_sampling(ctx: Context) -> Result<String, Error> {
    Ok(format!("The model answered: {}", capital(&ctx).await?))
}

/// What the caller's model says the capital of France is, asked under `capital_question`.
async fn capital(ctx: &Context) -> Result<String, Error> {
    #[allow(deprecated)] // sampling, kept in MCP 2026-07-28 as an input request
    let answer = ctx
        .sample(
            "capital_question",
            sampling("What is the capital of France?", 100),
        )
        .await?;
    Ok(text_of(&answer))
}

/// The text of a sampling answer.
fn text_of(answer: &neva::types::sampling::CreateMessageResult) -> String {
    answer
        .content
        .iter()
        .filter_map(|content| content.as_text())
        .map(|text| text.text.as_str())
        .collect::<Vec<_>>()
        .join(" ")
}

/// Scenario `input-required-result-basic-list-roots`.
#[tool(descr = "Asks its caller for its roots, then names them")]
async fn test_input_required_result_list_roots(ctx: Context) -> Result<String, Error> {
    #[allow(deprecated)] // roots, kept in MCP 2026-07-28 as an input request
    let roots = ctx.list_roots("client_roots").await?;
    let uris: Vec<String> = roots
        .roots
        .iter()
        .map(|root| root.uri.to_string())
        .collect();
    Ok(format!("The client's roots: {}", uris.join(", ")))
}

/// Scenario `input-required-result-request-state`: the answer says `state-ok`, read back from the
/// request state.
#[tool(descr = "Asks for a confirmation, keeping what it knows in the request state")]
async fn test_input_required_result_request_state(ctx: Context) -> Result<String, Error> {
    // Kept in the sealed request state between the rounds: the second reads it back.
    let started = ctx
        .memo("started", async { Ok::<_, Error>("state-ok".to_owned()) })
        .await?;
    ctx.elicit("confirm", confirmation()).await?;
    Ok(format!("Confirmed: {started}"))
}

/// A form asking for the boolean `ok`.
fn confirmation() -> ElicitRequestParams {
    serde_json::from_value(serde_json::json!({
        "message": "Please confirm",
        "requestedSchema": {
            "type": "object",
            "properties": { "ok": { "type": "boolean" } },
            "required": ["ok"],
        },
    }))
    .expect("a valid form")
}

/// Scenario `input-required-result-multiple-input-requests`.
#[tool(descr = "Asks for a name, a model's greeting and the roots, all in one round")]
async fn test_input_required_result_multiple_inputs(ctx: Context) -> Result<String, Error> {
    // Each question asked before any answer is awaited: the three travel in one round.
    let name = ctx
        .elicit("user_name", form("What is your name?", &["name"]))
        .await;
    #[allow(deprecated)] // sampling and roots, kept in MCP 2026-07-28 as input requests
    let greeting = ctx
        .sample("greeting", sampling("Generate a greeting", 50))
        .await;
    #[allow(deprecated)]
    let roots = ctx.list_roots("client_roots").await;
    let (name, greeting, roots) = (name?, greeting?, roots?);
    Ok(format!(
        "{} Hello, {}! ({} roots)",
        text_of(&greeting),
        answered(&name, "name"),
        roots.roots.len()
    ))
}

/// Scenario `input-required-result-multi-round`.
#[tool(descr = "Asks for a name, then for a favorite color")]
async fn test_input_required_result_multi_round(ctx: Context) -> Result<String, Error> {
    let name = ctx
        .elicit("step1", form("Step 1: What is your name?", &["name"]))
        .await?;
    let color = ctx
        .elicit(
            "step2",
            form("Step 2: What is your favorite color?", &["color"]),
        )
        .await?;
    Ok(format!(
        "{} likes {}",
        answered(&name, "name"),
        answered(&color, "color")
    ))
}

/// Scenario `input-required-result-tampered-state`: neva refuses a request state that is not the
/// one it sealed.
#[tool(descr = "Asks for a confirmation in a sealed request state")]
async fn test_input_required_result_tampered_state(ctx: Context) -> Result<String, Error> {
    let _ = ctx.memo("sealed", async { Ok::<_, Error>(true) }).await?;
    ctx.elicit("confirm", confirmation()).await?;
    Ok("The request state was intact".to_owned())
}

/// Scenario `input-required-result-capability-check`.
#[tool(descr = "Asks only what its caller declared it can answer")]
async fn test_input_required_result_capabilities(ctx: Context) -> Result<String, Error> {
    let declared = ctx.client_capabilities();
    let mut answers = Vec::new();
    if declared.sampling {
        answers.push(capital(&ctx).await?);
    }
    if declared.elicitation.is_some() {
        let name = ctx
            .elicit("user_name", form("What is your name?", &["name"]))
            .await?;
        answers.push(answered(&name, "name"));
    }
    Ok(format!("Answers: {}", answers.join(", ")))
}

/// Scenario `input-required-result-non-tool-request`.
#[prompt(descr = "A prompt that first asks its caller for the context to use")]
async fn test_input_required_result_prompt(ctx: Context) -> Result<PromptMessage, Error> {
    let context = ctx
        .elicit(
            "user_context",
            form("What context should the prompt use?", &["context"]),
        )
        .await?;
    Ok(PromptMessage::user().with(format!(
        "Use this context: {}",
        answered(&context, "context")
    )))
}
