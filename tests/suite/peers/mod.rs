//! The software Ladoga meets, as its users run it: the official MCP clients, agent frameworks
//! and older servers against the `board` example, and a real model server.

/// PydanticAI, the OpenAI Agents SDK, FastMCP and the MCP Inspector's CLI calling `board`.
mod agent_hosts;
/// The official clients of MCP 2025-11-25 (Python SDK 1.x, TypeScript SDK 1.x) against the
/// `legacy-spec` build of `board`.
#[cfg(feature = "legacy-spec")]
mod legacy_clients;
/// `board --oauth` signed in to by the Python SDK's and the TypeScript client's OAuth, against
/// oidc-provider.
mod oauth_clients;
/// `board --oauth` of the `legacy-spec` build signed in to by the Python SDK 1.x's OAuth client.
#[cfg(feature = "legacy-spec")]
mod oauth_legacy;
/// Servers of the older generation (server-everything, the Python SDK 1.30's) behind `with`.
mod older_servers;
/// A span of a Python host's OpenTelemetry SDK, sent over OTLP to Arize Phoenix, found there and
/// shown in its web UI.
mod phoenix;
/// `plan_week` run as an MCP task by the official Python SDK.
mod python_tasks;
/// `plan_week` on the local SmolLM2 server of `scripts/model-server`.
mod real_model;
/// Every normalized schema of the corpus offered to that local llama.cpp server.
mod real_schemas;
/// A Python host's span, `plan_week`'s run, a run nested in it and a remote board's run as one
/// trace in Arize Phoenix.
mod traces;
/// `board` driven by the official MCP TypeScript client.
mod ts_client;
