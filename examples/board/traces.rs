//! The board's spans sent to any OTLP backend (Jaeger, Tempo, Phoenix, an OpenTelemetry
//! collector), when `OTEL_EXPORTER_OTLP_ENDPOINT` (or `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`)
//! says where, over OTLP/HTTP in protobuf; the other `OTEL_*` variables of the OpenTelemetry SDK
//! apply (`OTEL_SERVICE_NAME`, `board` by default; `OTEL_BSP_SCHEDULE_DELAY`). A call whose
//! `_meta` carries a `traceparent` is a span of its caller's trace (ladoga's `otel` feature).

use std::sync::OnceLock;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};
use tracing_opentelemetry::OpenTelemetryLayer;
use tracing_subscriber::registry::LookupSpan;

/// The provider the spans go through, shut down (its last spans sent) as the board ends.
static PROVIDER: OnceLock<SdkTracerProvider> = OnceLock::new();

/// The layer that sends the spans, when the environment names an OTLP endpoint; `Err` says why
/// it cannot.
pub fn layer<S>() -> Result<Option<OpenTelemetryLayer<S, SdkTracer>>, String>
where
    S: tracing::Subscriber + for<'span> LookupSpan<'span>,
{
    let named = |var| std::env::var_os(var).is_some_and(|value| !value.is_empty());
    if !named("OTEL_EXPORTER_OTLP_ENDPOINT") && !named("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT") {
        return Ok(None);
    }
    let exporter = opentelemetry_otlp::SpanExporter::builder()
        .with_http()
        .build()
        .map_err(|error| format!("cannot send spans over OTLP: {error}"))?;
    let mut resource = Resource::builder();
    if !named("OTEL_SERVICE_NAME") {
        resource = resource.with_service_name("board");
    }
    let provider = SdkTracerProvider::builder()
        .with_batch_exporter(exporter)
        .with_resource(resource.build())
        .build();
    let tracer = provider.tracer("board");
    let _ = PROVIDER.set(provider);
    Ok(Some(tracing_opentelemetry::layer().with_tracer(tracer)))
}

/// Sends the spans not sent yet, as the board ends.
pub fn flush() {
    if let Some(provider) = PROVIDER.get()
        && let Err(error) = provider.shutdown()
    {
        eprintln!("board: the last spans were not sent: {error}");
    }
}
