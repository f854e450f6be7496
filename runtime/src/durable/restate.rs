//! A server's Restate: where its durable runs start, and the endpoint every replica serves for
//! restate-server to run them on.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use neva::App;
use neva::error::{Error, ErrorCode};
use neva::middleware::{MwContext, Next};
use neva::types::CallToolResponse;
use restate_sdk::prelude::{Endpoint, HttpServer};
use tokio::net::TcpListener;

use super::workflow::{Call, Runs, SERVICE};

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
#[derive(Debug)]
pub struct Restate {
    ingress: String,
    endpoint: SocketAddr,
    advertised: Option<String>,
    admin: Option<String>,
    client: reqwest::Client,
}

impl Restate {
    /// Runs started at the restate-server whose ingress is at `ingress` (its base URL), this
    /// server serving its Restate endpoint at `endpoint`.
    pub fn new(ingress: impl Into<String>, endpoint: SocketAddr) -> Self {
        Self {
            ingress: ingress.into().trim_end_matches('/').to_owned(),
            endpoint,
            advertised: None,
            admin: None,
            client: reqwest::Client::new(),
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
        self
    }

    /// `app`, running its durable orchestrators on this Restate: serves the endpoint (the
    /// workflow `LadogaRun`, which calls the orchestrator in this process), registers it if
    /// told where ([`Self::admin`]), and makes the server's calls of a durable orchestrator
    /// start their runs at the ingress and answer with what the runs answer.
    ///
    /// Fails if the endpoint's address cannot be bound.
    pub async fn serve(mut self, app: App) -> std::io::Result<App> {
        let listener = TcpListener::bind(self.endpoint).await?;
        self.endpoint = listener.local_addr()?;
        let (app, tools) = app.with_toolbox();
        let endpoint = Endpoint::builder()
            .bind(Runs {
                tools: Arc::new(tools),
            })
            .build();
        // The endpoint serves as long as the process does; a drain ends the runs' calls.
        tokio::spawn(
            HttpServer::new(endpoint).serve_with_cancel(listener, std::future::pending::<()>()),
        );
        if let Some(admin) = &self.admin {
            tokio::spawn(register(self.client.clone(), admin.clone(), self.uri()));
        }
        Ok(app.add_singleton(self).wrap_tools(remember))
    }

    /// The URI restate-server reaches the endpoint at.
    fn uri(&self) -> String {
        self.advertised
            .clone()
            .unwrap_or_else(|| format!("http://{}", self.endpoint))
    }

    /// Starts the durable run `key` of the call this task answers, and waits for its answer.
    pub(super) async fn run(&self, key: &str) -> Result<CallToolResponse, Error> {
        let call = CALLED.try_with(Arc::clone).map_err(|_| {
            failure("a durable run needs its tool call: serve the app with `Restate::serve`")
        })?;
        let url = format!("{}/{SERVICE}/{key}/run", self.ingress);
        let sent = self.client.post(url).json(&*call).send().await;
        let answer = sent.map_err(|error| {
            tracing::error!(target: "ladoga", %error, "restate-server's ingress did not answer");
            failure("the durable run could not be started: restate-server did not answer")
        })?;
        let status = answer.status();
        let body = answer.bytes().await.map_err(|error| {
            tracing::error!(target: "ladoga", %error, run = key, "a durable run's answer was cut");
            failure("the durable run's answer was cut")
        })?;
        if !status.is_success() {
            let told = String::from_utf8_lossy(&body);
            tracing::error!(target: "ladoga", %status, run = key, %told, "a durable run failed");
            return Err(failure(format!(
                "the durable run `{key}` failed ({status})"
            )));
        }
        serde_json::from_slice(&body).map_err(|error| {
            tracing::error!(target: "ladoga", %error, run = key, "a durable run's answer does not read");
            failure("the durable run's answer does not read")
        })
    }
}

/// A tool error saying `what`.
fn failure(what: impl Into<String>) -> Error {
    Error::new(ErrorCode::InternalError, what.into())
}

/// Keeps each `tools/call` as it came for the task answering it, for [`Restate::run`].
async fn remember(ctx: MwContext, next: Next) -> neva::types::Response {
    let call = ctx
        .request()
        .and_then(|request| request.params.as_ref())
        .map(|params| Call {
            tool: params["name"].as_str().unwrap_or_default().to_owned(),
            arguments: params["arguments"].as_object().cloned().unwrap_or_default(),
        });
    match call {
        Some(call) => CALLED.scope(Arc::new(call), next(ctx)).await,
        None => next(ctx).await,
    }
}

/// Registers the deployment at `uri` with the admin API at `admin`, trying for a minute while
/// restate-server is not there yet.
async fn register(client: reqwest::Client, admin: String, uri: String) {
    let mut last = String::new();
    for _ in 0..120 {
        let sent = client
            .post(format!("{admin}/deployments"))
            .json(&serde_json::json!({ "uri": uri }))
            .send()
            .await;
        match sent {
            Ok(answer) if answer.status().is_success() => {
                tracing::info!(target: "ladoga", %uri, "the Restate deployment is registered");
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
    tracing::error!(target: "ladoga", %uri, %last, "the Restate deployment could not be registered");
}
