//! The trace backend the OpenTelemetry tests check against, checked itself: Arize Phoenix
//! (`common::phoenix`) stores a span a Python host's OpenTelemetry SDK exports over OTLP/HTTP
//! (`tests/peers/otel_span.py`), its REST API finds it by its trace, and headless Chromium takes
//! a screenshot of the trace in its web UI, into `target/phoenix/`.
//!
//! Ignored by a plain `cargo test`, since it needs Phoenix, the SDK and Chromium:
//! `scripts/peers install` and `scripts/services install` install them, and this runs with
//! `--ignored`, Phoenix's interpreter in `LADOGA_PHOENIX` and the Python SDK's in
//! `LADOGA_PYTHON`.

use std::path::Path;
use std::time::Duration;

use crate::common::peer;
use crate::common::phoenix::Phoenix;
use tokio::process::Command;

/// The screenshot `name` of `target/phoenix/`, in the workspace's target folder.
fn screenshot_path(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../target/phoenix")
        .join(format!("{name}.png"))
}

#[tokio::test]
#[ignore = "needs Phoenix, the OpenTelemetry SDK and Chromium: run with LADOGA_PHOENIX and LADOGA_PYTHON"]
async fn a_span_sent_over_otlp_is_found_by_its_trace_and_shown() {
    let phoenix = Phoenix::start().await;
    let python = std::env::var("LADOGA_PYTHON").expect(
        "LADOGA_PYTHON names the Python SDK's Python, with OpenTelemetry (see scripts/peers)",
    );
    let mut host = Command::new(python);
    host.arg(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../tests/peers/otel_span.py"
    ))
    .arg(phoenix.otlp_traces_url())
    .arg("ladoga.smoke");

    let sent = peer::run(host).await;

    let trace_id = sent["trace_id"].as_str().expect("a trace id");
    let span_id = sent["span_id"].as_str().expect("a span id");
    assert_eq!(trace_id.len(), 32, "{sent}");
    assert_eq!(span_id.len(), 16, "{sent}");
    let traceparent = sent["traceparent"].as_str().expect("a traceparent");
    assert!(
        traceparent.starts_with(&format!("00-{trace_id}-{span_id}-")),
        "{sent}"
    );
    let spans = phoenix
        .spans_of_trace(trace_id, 1, Duration::from_secs(30))
        .await;
    assert_eq!(spans.len(), 1, "{spans:?}");
    let span = &spans[0];
    assert_eq!(span["name"], "ladoga.smoke", "{span}");
    assert_eq!(span["context"]["trace_id"], trace_id, "{span}");
    assert_eq!(span["context"]["span_id"], span_id, "{span}");
    assert!(span["parent_id"].is_null(), "a root span: {span}");

    let png = screenshot_path("a_span_sent_over_otlp_is_found_by_its_trace_and_shown");
    phoenix
        .screenshot(&phoenix.trace_page_url(trace_id), &png)
        .await;
}
