//! The scripted model: replies from a script or a function, and a log of what it was asked.

use std::collections::VecDeque;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use serde_json::Value;
use svir::openai::chat::{Decoder, Encoder};
use svir::{Completion, ErrorKind, Event, Request};

use super::{Reply, ScriptedServer, SeenRequest};
use crate::model::CompletionModel;

/// A model that answers from a script, for tests.
///
/// It answers each request with the next [`Reply`] of its script, or with what a function of
/// the request returns, and records every request it saw as the Chat Completions body svir
/// sends ([`Self::requests`]). Use it injected through `Dc` (it implements
/// [`CompletionModel`]), or behind a loopback HTTP server with [`Self::serve`], so svir's real
/// HTTP path runs. Clones share the script and the log.
///
/// When the script runs out, it answers HTTP 500 saying so.
#[derive(Clone)]
pub struct ScriptedModel {
    inner: Arc<Inner>,
}

struct Inner {
    name: String,
    script: Mutex<Script>,
    seen: Mutex<Vec<SeenRequest>>,
    logging: AtomicBool,
    received: AtomicUsize,
    /// Events of streamed answers written or handed over.
    events_sent: AtomicUsize,
    /// Streamed answers whose reader went away before their end.
    abandoned: AtomicUsize,
}

type Respond = dyn Fn(&SeenRequest) -> Reply + Send + Sync;

enum Script {
    Replies(VecDeque<Reply>),
    Function(Arc<Respond>),
}

impl ScriptedModel {
    /// Answers the requests with `replies`, one each, in order.
    pub fn new(replies: impl IntoIterator<Item = Reply>) -> Self {
        Self::with(Script::Replies(replies.into_iter().collect()))
    }

    /// Answers each request with what `respond` makes of it.
    pub fn from_fn(respond: impl Fn(&SeenRequest) -> Reply + Send + Sync + 'static) -> Self {
        Self::with(Script::Function(Arc::new(respond)))
    }

    fn with(script: Script) -> Self {
        Self {
            inner: Arc::new(Inner {
                name: "scripted".to_owned(),
                script: Mutex::new(script),
                seen: Mutex::new(Vec::new()),
                logging: AtomicBool::new(true),
                received: AtomicUsize::new(0),
                events_sent: AtomicUsize::new(0),
                abandoned: AtomicUsize::new(0),
            }),
        }
    }

    /// Stops recording requests: [`Self::requests`] returns only those received before, so a
    /// long run (a load test, a benchmark) does not grow a log nobody reads.
    ///
    /// # Examples
    /// ```
    /// use ladoga::CompletionModel;
    /// use ladoga::testing::{Reply, ScriptedModel};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), svir::Error> {
    /// let script = ScriptedModel::from_fn(|_| Reply::text("Hi.")).without_log();
    /// let answer = script.complete(&svir::Request::new("scripted").user("Hello")).await?;
    /// assert_eq!(answer.text, "Hi.");
    /// assert!(script.requests().is_empty());
    /// # Ok(())
    /// # }
    /// ```
    pub fn without_log(self) -> Self {
        self.inner.logging.store(false, Ordering::Relaxed);
        self
    }

    /// Every request received so far, in order.
    pub fn requests(&self) -> Vec<SeenRequest> {
        lock(&self.inner.seen).clone()
    }

    /// Serves the script as an OpenAI-compatible server on a free loopback port, until the
    /// returned server is dropped.
    pub async fn serve(&self) -> std::io::Result<ScriptedServer> {
        self.serve_at("127.0.0.1:0").await
    }

    /// Serves the script at `addr`, for a test that needs the model server to appear at an
    /// address known before it starts.
    pub async fn serve_at(
        &self,
        addr: impl tokio::net::ToSocketAddrs,
    ) -> std::io::Result<ScriptedServer> {
        ScriptedServer::start(self.clone(), addr).await
    }

    /// How many events of its [`streamed`](Reply::streamed) answers, and empty pieces of its
    /// [`endless`](Reply::endless) ones, it has sent so far.
    pub fn events_sent(&self) -> usize {
        self.inner.events_sent.load(Ordering::SeqCst)
    }

    /// How many of its [`streamed`](Reply::streamed) and [`endless`](Reply::endless) answers
    /// were dropped by their reader before their end: a client that stopped reading and went
    /// away.
    pub fn streams_abandoned(&self) -> usize {
        self.inner.abandoned.load(Ordering::SeqCst)
    }

    pub(crate) fn event_sent(&self) {
        self.inner.events_sent.fetch_add(1, Ordering::SeqCst);
    }

    /// A streamed answer begins: the note to drop when it is over, which counts it abandoned
    /// unless [`Unfinished::finished`] was called.
    pub(crate) fn stream_started(&self) -> Arc<Unfinished> {
        Arc::new(Unfinished {
            script: self.clone(),
            finished: AtomicBool::new(false),
        })
    }

    /// Records `body` and picks the reply, with the turn number it is the answer of.
    pub(crate) fn receive(&self, body: Value) -> (Reply, usize) {
        let seen = SeenRequest::new(body);
        // The function runs without the lock held, so it may look at the log itself.
        let scripted = match &mut *lock(&self.inner.script) {
            Script::Replies(replies) => Ok(replies.pop_front().unwrap_or_else(|| {
                Reply::failure(500, "the scripted model has no reply left in its script")
            })),
            Script::Function(respond) => Err(Arc::clone(respond)),
        };
        let reply = scripted.unwrap_or_else(|respond| respond(&seen));
        let turn = self.inner.received.fetch_add(1, Ordering::Relaxed) + 1;
        if self.inner.logging.load(Ordering::Relaxed) {
            lock(&self.inner.seen).push(seen);
        }
        (reply, turn)
    }
}

/// A streamed answer not yet at its end; dropped before [`finished`](Self::finished), it counts
/// as abandoned.
pub(crate) struct Unfinished {
    script: ScriptedModel,
    finished: AtomicBool,
}

impl Unfinished {
    /// The last event was sent.
    pub(crate) fn finished(&self) {
        self.finished.store(true, Ordering::SeqCst);
    }
}

impl Drop for Unfinished {
    fn drop(&mut self) {
        if !self.finished.load(Ordering::SeqCst) {
            self.script.inner.abandoned.fetch_add(1, Ordering::SeqCst);
        }
    }
}

impl fmt::Debug for ScriptedModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ScriptedModel")
            .field("name", &self.inner.name)
            .field("requests", &lock(&self.inner.seen).len())
            .finish_non_exhaustive()
    }
}

impl CompletionModel for ScriptedModel {
    fn name(&self) -> &str {
        &self.inner.name
    }

    /// Encodes `request` as svir would send it, answers it from the script, and decodes the
    /// answer as svir would read it: the same path as over HTTP, minus the socket.
    async fn complete(&self, request: &Request) -> Result<Completion, svir::Error> {
        self.complete_streaming(request, &|_| {}).await
    }

    /// Hands over the pieces of a [`streamed`](Reply::streamed) answer as they come, and of any
    /// other answer all at once.
    async fn complete_streaming(
        &self,
        request: &Request,
        heard: &(dyn Fn(&Event) + Sync),
    ) -> Result<Completion, svir::Error> {
        let body = Encoder::new().encode(request)?.into_bytes()?;
        let body = serde_json::from_slice(&body).map_err(|error| {
            svir::Error::new(ErrorKind::Protocol).with_detail(format!("unreadable body: {error}"))
        })?;
        let (reply, turn) = self.receive(body);
        tokio::time::sleep(reply.delay() + reply.pause()).await;
        if let Some(failure) = reply.failed() {
            let kind = match failure.status {
                401 | 403 => ErrorKind::Authentication,
                429 => ErrorKind::RateLimited,
                _ if failure.code == Some("context_length_exceeded") => ErrorKind::ContextOverflow,
                _ => ErrorKind::Transport,
            };
            let mut error = svir::Error::new(kind)
                .with_status(failure.status)
                .with_server_message(failure.message);
            if let Some(delay) = failure.retry_after {
                error = error.with_retry_after(delay);
            }
            return Err(error);
        }
        let mut answer = Answer::default();
        if reply.pace().is_zero() {
            answer.read(&reply.event_stream(&self.inner.name, turn), heard)?;
        } else {
            let unfinished = self.stream_started();
            for (index, event) in reply.events(&self.inner.name, turn).iter().enumerate() {
                if index > 0 {
                    tokio::time::sleep(reply.pace()).await;
                }
                self.event_sent();
                answer.read(event, heard)?;
            }
            unfinished.finished();
        }
        if let Some(every) = reply.endless_every() {
            // Never whole: an empty piece every `every`, which hands over nothing.
            loop {
                tokio::time::sleep(every).await;
                answer.read(&Reply::empty_piece(&self.inner.name), heard)?;
            }
        }
        answer.finish()
    }
}

/// An answer decoded as its wire comes.
struct Answer {
    decoder: Decoder,
    done: Option<Completion>,
}

impl Default for Answer {
    fn default() -> Self {
        Self {
            decoder: Decoder::strict(),
            done: None,
        }
    }
}

impl Answer {
    /// Decodes `wire`, handing each piece to `heard`.
    fn read(&mut self, wire: &str, heard: &(dyn Fn(&Event) + Sync)) -> Result<(), svir::Error> {
        for event in self.decoder.push(wire.as_bytes()) {
            match event? {
                Event::Completed(completion) => self.done = Some(completion),
                piece => heard(&piece),
            }
        }
        Ok(())
    }

    /// The whole answer, or why there is none.
    fn finish(self) -> Result<Completion, svir::Error> {
        self.decoder.finish()?;
        self.done
            .ok_or_else(|| svir::Error::new(ErrorKind::TruncatedStream))
    }
}

fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}
