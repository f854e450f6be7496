//! An svir HTTP backend that answers from memory: svir encodes every request and decodes every
//! answer as over a socket, and the "server" costs a scan of the request body.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use futures_util::StreamExt;
use futures_util::stream::{self, Iter};
use memchr::memmem;
use svir::Error;
use svir::http::{Backend, HttpRequest, HttpResponse};

use super::alloc::Count;
use super::script::Script;

/// What the body of an answered request holds once per earlier assistant turn.
const ASSISTANT: &[u8] = br#"{"role":"assistant""#;

/// The answer body: the whole event stream in one chunk.
pub type Answer = Iter<std::array::IntoIter<Result<Bytes, Error>, 1>>;

/// One request as the backend saw it, when recording.
#[derive(Debug, Clone, Copy)]
pub struct Seen {
    /// When it arrived.
    pub at: Instant,
    /// The process's allocations when it arrived.
    pub count: Count,
    /// The size of its body.
    pub body_bytes: u64,
}

/// A scripted model server in the same process.
#[derive(Clone)]
pub struct Memory {
    script: Arc<Script>,
    delay: Duration,
    log: Option<Arc<Mutex<Vec<Seen>>>>,
}

impl Memory {
    /// Answers `script` at once.
    pub fn new(script: Script) -> Self {
        Self {
            script: Arc::new(script),
            delay: Duration::ZERO,
            log: None,
        }
    }

    /// Waits `delay` before every answer, as a slow model does.
    pub fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }

    /// Records when each request arrived, what it weighed and the allocations so far.
    pub fn recording(mut self, log: Arc<Mutex<Vec<Seen>>>) -> Self {
        self.log = Some(log);
        self
    }
}

impl Backend for Memory {
    type Body = Answer;

    async fn send(&self, request: HttpRequest) -> Result<HttpResponse<Answer>, Error> {
        let arrived = (Instant::now(), Count::now());
        let mut answered = 0;
        let mut body_bytes = 0;
        if let Some(body) = request.body {
            body_bytes = body.length;
            answered = count_assistant_turns(body.stream).await?;
        }
        if let Some(log) = &self.log {
            log.lock().expect("the log is never poisoned").push(Seen {
                at: arrived.0,
                count: arrived.1,
                body_bytes,
            });
        }
        if !self.delay.is_zero() {
            tokio::time::sleep(self.delay).await;
        }
        let answer = self.script.answer_after(answered);
        let headers = vec![("content-type".to_owned(), "text/event-stream".to_owned())];
        Ok(HttpResponse::new(200, headers, stream::iter([Ok(answer)])))
    }
}

/// How many assistant turns a request body holds, read chunk by chunk as a server would.
async fn count_assistant_turns(mut body: svir::body::BodyStream) -> Result<usize, Error> {
    let finder = memmem::Finder::new(ASSISTANT);
    // The end of the previous chunk, so a match across two chunks is seen.
    let mut carry = [0u8; 2 * ASSISTANT.len()];
    let mut carried = 0;
    let mut found = 0;
    while let Some(chunk) = body.next().await {
        let chunk = chunk?;
        let head = chunk.len().min(ASSISTANT.len() - 1);
        carry[carried..carried + head].copy_from_slice(&chunk[..head]);
        found += finder.find_iter(&carry[..carried + head]).count();
        found += finder.find_iter(&chunk).count();
        let tail = chunk.len().min(ASSISTANT.len() - 1);
        carry[..tail].copy_from_slice(&chunk[chunk.len() - tail..]);
        carried = tail;
    }
    Ok(found)
}
