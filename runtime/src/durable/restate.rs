//! A server's Restate: where its durable runs start, and the endpoint every replica serves for
//! restate-server to run them on.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use neva::App;
use neva::error::{Error, ErrorCode};
use neva::middleware::{MwContext, Next};
use neva::types::{CallToolResponse, ProgressToken};
use restate_sdk::prelude::Endpoint;
use tokio::net::TcpListener;

use super::registration::Registration;
use super::sealed::{Carried, Sealed};
use super::task_state::{OBJECT, Tasks};
use super::workflow::{Call, Runs, SERVICE};
use crate::store::Seal;

tokio::task_local! {
    /// The `tools/call` this task answers, as it came: the invocation of a durable run carries it.
    static CALLED: Arc<Call>;
}

/// Durable runs on a restate-server: each call of an orchestrator that is
/// [`durable`](crate::Orchestrator::durable) is started as a Restate workflow invocation at the
/// server's ingress, and run, on whichever replica restate-server picks, through the endpoint
/// each replica serves. [`Self::serve`] sets a server up for it.
///
/// # Examples
/// ```no_run
/// use ladoga::durable::Restate;
/// use neva::App;
///
/// # async fn run(app: App) -> std::io::Result<()> {
/// let app = Restate::new("http://127.0.0.1:8080", "127.0.0.1:9080".parse().unwrap())
///     .admin("http://127.0.0.1:9070")
///     .serve(app)
///     .await?;
/// app.run().await;
/// # Ok(())
/// # }
/// ```
pub struct Restate {
    pub(super) ingress: Arc<Ingress>,
    endpoint: SocketAddr,
    advertised: Option<String>,
    pub(super) admin: Option<String>,
    /// What each run's call is sealed with; `None` until set, a key of this process's own.
    seal: Option<Arc<Seal>>,
    /// What this server's `tools/list` is read from, once it runs.
    pub(super) lister: super::door::Lister,
    /// The public keys of the restate-servers whose requests the endpoint takes.
    identity_keys: Vec<String>,
}

impl std::fmt::Debug for Restate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Restate")
            .field("ingress", &self.ingress.url)
            .field("endpoint", &self.endpoint)
            .field("advertised", &self.advertised)
            .field("admin", &self.admin)
            .finish_non_exhaustive()
    }
}

/// restate-server's ingress, and the client that reaches it.
#[derive(Debug)]
pub(super) struct Ingress {
    pub(super) url: String,
    pub(super) client: reqwest::Client,
    /// Whether restate-server knows the deployment: a run is started only once it does.
    pub(super) registration: Registration,
}

/// How long a run waits for its deployment to be registered: as long as registering tries.
const REGISTERING: Duration = Duration::from_secs(60);

/// How long a request restate-server refuses for a service it does not know yet is sent again:
/// a deployment just registered takes a moment to reach its ingress.
const LEARNING: Duration = Duration::from_secs(10);

impl Restate {
    /// Runs started at the restate-server whose ingress is at `ingress` (its base URL), this
    /// server serving its Restate endpoint at `endpoint`.
    pub fn new(ingress: impl Into<String>, endpoint: SocketAddr) -> Self {
        Self {
            ingress: Arc::new(Ingress {
                url: ingress.into().trim_end_matches('/').to_owned(),
                client: reqwest::Client::new(),
                registration: Registration::new(true),
            }),
            endpoint,
            advertised: None,
            admin: None,
            seal: None,
            lister: Default::default(),
            identity_keys: Vec::new(),
        }
    }

    /// The URI restate-server reaches the endpoint at, when it is not `http://` and the
    /// endpoint's address: a load balancer in front of the replicas, say. Every replica of a
    /// service is one deployment, behind one URI: restate-server runs an invocation on the
    /// deployment it started on.
    pub fn advertise(mut self, uri: impl Into<String>) -> Self {
        self.advertised = Some(uri.into());
        self
    }

    /// Registers the endpoint with the restate-server whose admin API is at `admin` (its base
    /// URL) once it serves; without it, the deployment is registered by hand (`restate
    /// deployments register URI`).
    pub fn admin(mut self, admin: impl Into<String>) -> Self {
        self.admin = Some(admin.into().trim_end_matches('/').to_owned());
        if let Some(ingress) = Arc::get_mut(&mut self.ingress) {
            ingress.registration = Registration::new(false);
        }
        self
    }

    /// Whether restate-server knows this server's deployment yet: for a readiness probe, which
    /// should say the server is not ready until it does (see [`Registration`]).
    pub fn registration(&self) -> Registration {
        self.ingress.registration.clone()
    }

    /// Takes only the requests restate-server signs with the private key whose public key is
    /// `key` (`publickeyv1_…`, Restate's request identity: restate-server's
    /// `worker.invoker.request-identity-private-key-pem-file`). May be given more than once, for
    /// a key being rotated. Without it the endpoint takes any request that reaches it, and must
    /// be reachable by restate-server only.
    ///
    /// [`Self::serve`] fails if a key does not read.
    pub fn identity_key(mut self, key: impl Into<String>) -> Self {
        self.identity_keys.push(key.into());
        self
    }

    /// Seals each run's call, the caller's claims in it, with a key derived from `secret`, which
    /// every replica must be given (at least 32 random bytes): a run one of them started then
    /// goes on on any other, and after a restart. Without it, a key of this process's own: a
    /// run cut by a crash cannot go on, since no other process opens its call.
    pub fn secret(mut self, secret: impl AsRef<[u8]>) -> Self {
        self.seal = Some(Arc::new(Seal::from_secret(secret.as_ref())));
        self
    }

    /// What each run's call is sealed with.
    pub(super) fn seal(&self) -> &Seal {
        self.seal
            .as_deref()
            .expect("`Restate::serve` sets the seal")
    }

    /// `app`, running its durable orchestrators on this Restate: serves the endpoint (the
    /// workflow `LadogaRun`, which calls the orchestrator in this process), registers it if
    /// told where ([`Self::admin`]), and makes the server's calls of a durable orchestrator
    /// start their runs at the ingress and answer with what the runs answer.
    ///
    /// Fails if the endpoint's address cannot be bound, or an [identity key](Self::identity_key)
    /// does not read.
    pub async fn serve(mut self, app: App) -> std::io::Result<App> {
        let listener = TcpListener::bind(self.endpoint).await?;
        let seal = self.seal.get_or_insert_with(|| {
            tracing::warn!(
                target: "ladoga::durable",
                "durable runs are sealed with a key of this process's own: a run cut by a crash \
                 cannot go on (`Restate::secret`)"
            );
            Arc::new(Seal::random())
        });
        let seal = seal.clone();
        self.endpoint = listener.local_addr()?;
        let (app, tools) = super::door::install(app).with_toolbox();
        let tools = Arc::new(tools);
        let mut endpoint = Endpoint::builder()
            .bind(Runs {
                tools: tools.clone(),
                ingress: self.ingress.clone(),
                seal,
            })
            .bind(Tasks);
        for key in &self.identity_keys {
            endpoint = endpoint.identity_key(key).map_err(|error| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    format!("the Restate identity key `{key}` does not read: {error}"),
                )
            })?;
        }
        let endpoint = endpoint.build();
        tokio::spawn(async move { super::door::keep(&tools).await });
        // The endpoint serves as long as the process does; a drain ends the runs' calls.
        tokio::spawn(serve_endpoint(listener, endpoint));
        if let Some(admin) = &self.admin {
            let client = self.ingress.client.clone();
            let registration = self.ingress.registration.clone();
            tokio::spawn(register(client, admin.clone(), self.uri(), registration));
        }
        let mut app = app.add_singleton(self).wrap_tools(remember);
        use neva::types::task::commands::{CANCEL, GET};
        app.wrap_command(GET, super::tasks::get);
        app.wrap_command(CANCEL, super::tasks::cancel);
        #[cfg(not(feature = "legacy-spec"))]
        app.wrap_command(neva::types::task::commands::UPDATE, super::tasks::update);
        #[cfg(feature = "legacy-spec")]
        app.wrap_command(neva::types::task::commands::RESULT, super::tasks::result);
        Ok(app)
    }

    /// The URI restate-server reaches the endpoint at.
    fn uri(&self) -> String {
        self.advertised
            .clone()
            .unwrap_or_else(|| format!("http://{}", self.endpoint))
    }

    /// Runs `call` as the durable run `key`, and waits for its answer; meanwhile notifies
    /// `progress`, if the caller asked for it, of the run's lines.
    pub(super) async fn run(
        &self,
        key: &str,
        call: &Call,
        progress: Option<ProgressToken>,
    ) -> Result<CallToolResponse, Error> {
        let mut call = call.clone();
        call.progress = progress.is_some();
        let sealed = Sealed::new(self.seal(), key, &call).map_err(failure)?;
        let path = format!("{SERVICE}/{key}/run");
        let answer = self.ingress.post(&path, &sealed);
        let answer = match &progress {
            None => answer.await?,
            Some(token) => {
                let answer = self.notifying(key, token, answer).await;
                let forget = format!("{OBJECT}/{key}/forget/send");
                if let Err(error) = self.ingress.post(&forget, &()).await {
                    tracing::debug!(target: "ladoga::durable", %error, "a run's lines were not forgotten");
                }
                answer?
            }
        };
        serde_json::from_value(answer).map_err(|error| {
            tracing::error!(target: "ladoga::durable", %error, run = key, "a durable run's answer does not read");
            failure("the durable run's answer does not read")
        })
    }

    /// The call this task answers, as it came, if the server keeps it ([`Self::serve`]).
    pub(super) fn called() -> Option<Arc<Call>> {
        CALLED.try_with(Arc::clone).ok()
    }
}

impl Ingress {
    /// Posts `body` to `path`: the JSON answer, or a tool error that does not repeat what
    /// restate-server said (it is logged).
    pub(super) async fn post(
        &self,
        path: &str,
        body: &impl serde::Serialize,
    ) -> Result<serde_json::Value, Error> {
        // A call made as the server starts waits until restate-server knows its deployment.
        if !self.registration.is_done() && !self.registration.wait(REGISTERING).await {
            tracing::warn!(target: "ladoga::durable", %path, "the Restate deployment is not registered yet: trying all the same");
        }
        let learning = tokio::time::Instant::now() + LEARNING;
        let (status, bytes) = loop {
            let request = self.client.post(format!("{}/{path}", self.url));
            // A handler that takes nothing is sent no body.
            let request = match serde_json::to_value(body) {
                Ok(serde_json::Value::Null) => request,
                _ => request.json(body),
            };
            let answer = request.send().await.map_err(unreachable)?;
            let status = answer.status();
            let bytes = answer.bytes().await.map_err(unreachable)?;
            // Not started: a service restate-server does not know yet, asked again shortly.
            if status == reqwest::StatusCode::NOT_FOUND
                && unknown_service(&bytes)
                && tokio::time::Instant::now() < learning
            {
                tokio::time::sleep(Duration::from_millis(250)).await;
                continue;
            }
            break (status, bytes);
        };
        if !status.is_success() {
            let told = String::from_utf8_lossy(&bytes);
            tracing::error!(target: "ladoga::durable", %status, %path, %told, "restate-server refused");
            return Err(failure(format!("the durable run failed ({status})")));
        }
        if bytes.is_empty() {
            return Ok(serde_json::Value::Null);
        }
        serde_json::from_slice(&bytes).map_err(|error| {
            tracing::error!(target: "ladoga::durable", %error, %path, "restate-server's answer does not read");
            failure("restate-server's answer does not read")
        })
    }
}
/// Whether restate-server's refusal `body` says it does not know the service asked for: a
/// deployment not registered yet, or not yet seen by the ingress.
fn unknown_service(body: &[u8]) -> bool {
    let said = String::from_utf8_lossy(body).to_lowercase();
    said.contains("not found") && (said.contains("service") || said.contains("handler"))
}

/// The tool error of a restate-server that did not answer (the reason is logged).
pub(super) fn unreachable(error: reqwest::Error) -> Error {
    tracing::error!(target: "ladoga::durable", %error, "restate-server did not answer");
    failure("the durable run failed: restate-server did not answer")
}

/// A tool error saying `what`.
pub(super) fn failure(what: impl Into<String>) -> Error {
    Error::new(ErrorCode::InternalError, what.into())
}

/// Keeps a durable orchestrator's `tools/call` as it came for the task answering it, for
/// [`Restate::run`], or starts it on Restate when it asks for a task; gives a call made in a
/// durable run its caller's claims.
async fn remember(mut ctx: MwContext, next: Next) -> neva::types::Response {
    if let Some(request) = ctx.request_mut() {
        // A call made in a durable run is made with its caller's claims.
        if let Some(claims) = super::entry::claims()
            && request.claims.is_none()
        {
            request.claims = Some(claims);
        }
        // The workflow's call through the door is the call of the run's orchestrator.
        if let Some(params) = request.params.as_mut()
            && params["name"] == super::door::DOOR
            && let Some(tool) = super::entry::entering()
        {
            params["name"] = tool.into();
            return next(ctx).await;
        }
    }
    // Only a durable orchestrator's call is kept: every other goes on as it came.
    let Some(params) = ctx.request().and_then(|request| request.params.as_ref()) else {
        return next(ctx).await;
    };
    let tool = params["name"].as_str().unwrap_or_default();
    if !crate::registry::is_durable(tool) {
        return next(ctx).await;
    }
    let mut call = Call {
        tool: tool.to_owned(),
        arguments: params["arguments"].as_object().cloned().unwrap_or_default(),
        task: false,
        claims: ctx.claims().map(Carried::of),
        progress: false,
        trace: traced(params),
    };
    if let Some(task) = params.get("task")
        && let Ok(restate) = ctx.resolve_shared::<Restate>()
    {
        let ttl = task["ttl"]
            .as_u64()
            .and_then(|ttl| usize::try_from(ttl).ok());
        call.task = true;
        return super::tasks::call(restate, ctx, call, ttl).await;
    }
    CALLED.scope(Arc::new(call), next(ctx)).await
}

/// The caller's trace context, in a call's `params._meta`, if it carries one.
fn traced(params: &serde_json::Value) -> Option<super::workflow::Trace> {
    let meta = params.get("_meta")?;
    Some(super::workflow::Trace {
        parent: meta.get("traceparent")?.as_str()?.to_owned(),
        state: meta
            .get("tracestate")
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned),
    })
}

/// Registers the deployment at `uri` with the admin API at `admin`, trying for a minute while
/// restate-server is not there yet; `registration` done once it is.
async fn register(client: reqwest::Client, admin: String, uri: String, registration: Registration) {
    let mut last = String::new();
    for _ in 0..120 {
        let sent = client
            .post(format!("{admin}/deployments"))
            .json(&serde_json::json!({ "uri": uri }))
            .send()
            .await;
        match sent {
            Ok(answer) if answer.status().is_success() => {
                tracing::info!(target: "ladoga::durable", %uri, "the Restate deployment is registered");
                registration.done();
                return;
            }
            Ok(answer) => {
                last = format!(
                    "{}: {}",
                    answer.status(),
                    answer.text().await.unwrap_or_default()
                )
            }
            Err(error) => last = error.to_string(),
        }
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    tracing::error!(target: "ladoga::durable", %uri, %last, "the Restate deployment could not be registered");
}

/// Serves the Restate `endpoint` on `listener`, for as long as the process runs: HTTP/2 without
/// TLS, as restate-server calls it, and HTTP/1.1 too, so that a request of anyone else (a probe,
/// a proxy, curl) gets the endpoint's own answer (`401` without restate-server's signature)
/// instead of a reset connection, which restate-sdk's own server gives it.
async fn serve_endpoint(listener: TcpListener, endpoint: Endpoint) {
    let endpoint = restate_sdk::hyper::HyperEndpoint::new(endpoint);
    loop {
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(error) => {
                tracing::warn!(target: "ladoga::durable", %error, "the Restate endpoint cannot accept a connection");
                tokio::time::sleep(std::time::Duration::from_millis(50)).await;
                continue;
            }
        };
        let endpoint = endpoint.clone();
        tokio::spawn(async move {
            let executor = hyper_util::rt::TokioExecutor::new();
            let served = hyper_util::server::conn::auto::Builder::new(executor)
                .serve_connection(hyper_util::rt::TokioIo::new(stream), endpoint)
                .await;
            if let Err(error) = served {
                tracing::debug!(target: "ladoga::durable", %error, "a connection to the Restate endpoint ended");
            }
        });
    }
}
