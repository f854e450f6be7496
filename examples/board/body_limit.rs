//! The largest request body the board takes, answered by its front: neva's HTTP server (volga)
//! answers a body over its limit with `200` and an empty body, which says nothing of what
//! happened; the front answers `413 Payload Too Large` with a JSON-RPC error naming the limit.

use bytes::Bytes;
use http_body_util::{BodyExt, Full, Limited};
use hyper::body::Incoming;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};

use crate::front::Body;

/// The largest request body the board takes, in bytes: volga's default body limit (5 MiB,
/// `DEFAULT_BODY_SIZE` in volga 0.14's `request_body_limit.rs`), which neva's server keeps.
pub const MAX_BODY: usize = 5 * 1024 * 1024;

/// `request` with a body the board takes, or the answer to one over [`MAX_BODY`]: a POST whose
/// `Content-Length` says so is answered before any of its body is read; one without (chunked)
/// is read up to the limit, and passed on whole. Every other request passes as it is.
pub async fn within(request: Request<Incoming>) -> Result<Request<Body>, Response<Body>> {
    if request.method() != Method::POST {
        return Ok(request.map(BodyExt::boxed));
    }
    let length = request
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.trim().parse::<u64>().ok());
    match length {
        Some(length) if length > MAX_BODY as u64 => Err(too_large()),
        Some(_) => Ok(request.map(BodyExt::boxed)),
        None => {
            let (parts, body) = request.into_parts();
            match Limited::new(body, MAX_BODY).collect().await {
                Ok(body) => Ok(Request::from_parts(parts, full(body.to_bytes()))),
                Err(error) if error.is::<http_body_util::LengthLimitError>() => Err(too_large()),
                Err(_) => Err(unreadable()),
            }
        }
    }
}

/// The answer to a body over [`MAX_BODY`]: `413`, and a JSON-RPC error that names no request,
/// since none was read.
pub fn too_large() -> Response<Body> {
    let error = serde_json::json!({
        "jsonrpc": "2.0",
        "id": null,
        "error": {
            "code": -32600,
            "message": format!(
                "the request body is larger than this server takes: at most {MAX_BODY} bytes \
                 ({} MiB)",
                MAX_BODY >> 20
            ),
        },
    });
    let mut response = Response::new(full(Bytes::from(error.to_string())));
    *response.status_mut() = StatusCode::PAYLOAD_TOO_LARGE;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    // The rest of the body is not read: the connection cannot carry another request.
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// The answer to a body that broke off before its end.
fn unreadable() -> Response<Body> {
    let mut response = Response::new(full(Bytes::from_static(b"the request body is unreadable")));
    *response.status_mut() = StatusCode::BAD_REQUEST;
    response
}

/// `bytes` as a body.
fn full(bytes: Bytes) -> Body {
    Full::new(bytes).map_err(|never| match never {}).boxed()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_limit_is_volgas_default_and_its_answer_says_so() {
        assert_eq!(MAX_BODY, 5_242_880);
        let answer = too_large();
        assert_eq!(answer.status(), StatusCode::PAYLOAD_TOO_LARGE);
        assert_eq!(answer.headers()[header::CONTENT_TYPE], "application/json");
    }
}
