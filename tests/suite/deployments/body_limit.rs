//! `board`'s front and a request body over neva's limit (volga's default, 5 MiB): neva's server
//! alone answers it `200` with an empty body; the front answers `413 Payload Too Large` and a
//! JSON-RPC error naming the limit, whether the body says its length or comes chunked, and the
//! board goes on answering.
//!
//! The bodies are written on a socket of the test's own: a client writing a body the server
//! will not read could be reset before it reads the answer.

use std::net::SocketAddr;

use crate::common::{board_over_http, connect};
use ladoga::testing::ScriptedModel;
use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// neva's limit, in bytes.
const LIMIT: usize = 5 * 1024 * 1024;

/// The head of a POST to the board's endpoint, with the header `length` (`Content-Length` or
/// `Transfer-Encoding`).
fn head(addr: SocketAddr, length: &str) -> String {
    format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nMCP-Protocol-Version: 2026-07-28\r\n\
         Mcp-Method: tools/call\r\n{length}\r\n\r\n"
    )
}

/// The status and the body of the answer read from `stream` until the board closes it.
async fn read_answer(mut stream: TcpStream) -> (u16, Value) {
    let mut answer = Vec::new();
    stream.read_to_end(&mut answer).await.expect("the answer");
    let answer = String::from_utf8_lossy(&answer);
    let status = answer
        .split(' ')
        .nth(1)
        .and_then(|status| status.parse().ok())
        .unwrap_or(0);
    let body = answer.split("\r\n\r\n").nth(1).unwrap_or_default();
    (status, serde_json::from_str(body).unwrap_or(Value::Null))
}

/// Asserts that `answer` is the front's refusal of a body over the limit.
fn assert_refused((status, body): (u16, Value)) {
    assert_eq!(status, 413, "{body}");
    assert_eq!(body["jsonrpc"], "2.0");
    assert!(body["id"].is_null(), "{body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains(&LIMIT.to_string()), "{message}");
}

#[tokio::test]
async fn a_body_over_nevas_limit_is_answered_413_and_the_board_still_answers() {
    let script = ScriptedModel::new([]);
    let model = script.serve().await.expect("the scripted model serves");
    let (_board, addr) = board_over_http(&model.url(), "scripted").await;

    // 6 MB said in `Content-Length`: answered before any of it is sent.
    let mut said = TcpStream::connect(addr).await.expect("connects");
    let length = format!("Content-Length: {}", 6 * 1024 * 1024);
    said.write_all(head(addr, &length).as_bytes())
        .await
        .unwrap();
    assert_refused(read_answer(said).await);

    // Chunked: read up to the limit, then answered.
    let mut chunked = TcpStream::connect(addr).await.expect("connects");
    chunked
        .write_all(head(addr, "Transfer-Encoding: chunked").as_bytes())
        .await
        .unwrap();
    let chunk = vec![b' '; 64 * 1024];
    for _ in 0..LIMIT / chunk.len() {
        chunked.write_all(b"10000\r\n").await.unwrap();
        chunked.write_all(&chunk).await.unwrap();
        chunked.write_all(b"\r\n").await.unwrap();
    }
    // One byte past the limit, and no end: the board must not wait for one.
    chunked.write_all(b"1\r\n \r\n").await.unwrap();
    assert_refused(read_answer(chunked).await);

    // A call of ordinary size still answers.
    let client = connect(addr).await;
    let board = client.tools().call("list_tasks", ()).await.expect("list");
    assert!(!board.is_error, "{board:?}");
}
