//! The resources of every protocol version: two static ones (text and a PNG), a template, and
//! the resource a client subscribes to.

use base64::Engine;
use neva::prelude::*;
use neva::types::ListResourcesRequestParams;

/// The resource the subscription scenarios watch.
const WATCHED: &str = "test://watched-resource";

/// Scenario `resources-list`: the static resources (the template is listed apart).
#[resources]
fn list_resources(_params: ListResourcesRequestParams) -> Vec<Resource> {
    vec![
        Resource::new("test://static-text", "static-text")
            .with_title("Static Text Resource")
            .with_descr("A static text resource for testing")
            .with_mime("text/plain"),
        Resource::new("test://static-binary", "static-binary")
            .with_title("Static Binary Resource")
            .with_descr("A static binary resource (image) for testing")
            .with_mime("image/png"),
        Resource::new(WATCHED, "watched-resource")
            .with_title("Watched Resource")
            .with_descr("A resource a client may subscribe to")
            .with_mime("text/plain"),
    ]
}

/// Scenario `resources-read-text`.
#[resource(
    uri = "test://static-text",
    descr = "A static text resource for testing",
    mime = "text/plain"
)]
fn static_text(uri: Uri) -> ResourceContents {
    ResourceContents::new(uri)
        .with_mime("text/plain")
        .with_text("This is the content of the static text resource.")
}

/// Scenario `resources-read-binary`.
#[resource(
    uri = "test://static-binary",
    descr = "A static binary resource (image) for testing",
    mime = "image/png"
)]
fn static_binary(uri: Uri) -> ResourceContents {
    let png = base64::engine::general_purpose::STANDARD
        .decode(crate::content::PNG_BASE64)
        .expect("the constant is base64");
    ResourceContents::new(uri)
        .with_blob(png)
        .with_mime("image/png")
}

/// Scenarios `resources-subscribe` and `resources-unsubscribe` (MCP 2025-11-25).
#[resource(
    uri = "test://watched-resource",
    descr = "A resource a client may subscribe to",
    mime = "text/plain"
)]
fn watched_resource(uri: Uri) -> ResourceContents {
    ResourceContents::new(uri)
        .with_mime("text/plain")
        .with_text("Watched resource content")
}

/// Scenario `resources-templates-read`.
#[resource(
    uri = "test://template/{id}/data",
    descr = "A resource template with parameter substitution",
    mime = "application/json"
)]
fn template_data(uri: Uri, id: String) -> ResourceContents {
    let data = serde_json::json!({
        "id": id,
        "templateTest": true,
        "data": format!("Data for ID: {id}"),
    });
    ResourceContents::new(uri)
        .with_mime("application/json")
        .with_text(data.to_string())
}
