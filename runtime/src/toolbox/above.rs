//! A `with` server's questions, put to the person at the top of the run that called it.
//!
//! Under MCP 2026-07-28 a server whose tool asks for input answers the call `input_required`,
//! and neva's client fulfils each request with its elicitation handler, then calls again. The
//! handler here, which [`LiveTools::connect_url`](crate::LiveTools::connect_url) installs,
//! answers with the person at the top of the agent tree (see `tree.rs`), asked through the
//! call of the run that called the server: the question tagged with the run's path and the
//! server's tool. An answer that comes in a later round of the top call pauses the run; the call
//! is dropped, and made again when the run goes on, when the server asks again and this time
//! the answer is there.
//!
//! A server's sampling request goes up the same way ([`sample_above`]): the caller of the top call
//! samples it, in a later round under MCP 2026-07-28.

use neva::types::elicitation::{ElicitRequestParams, ElicitResult};
#[cfg(not(feature = "legacy-spec"))]
use neva::types::sampling::{CreateMessageRequestParams, CreateMessageResult};

use crate::toolbox::arguments;
use crate::tree::Site;

/// Answers a server's elicitation with the person at the top of the run whose call it is
/// answering, for a client of a `with` server: declined outside such a call, or when that person
/// cannot be asked. Give it to a client of your own with `client.map_elicitation(..)` before
/// [`LiveTools::connect`](crate::LiveTools::connect); [`LiveTools::connect_url`](crate::LiveTools::connect_url)
/// gives it to the client it makes.
///
/// Under `legacy-spec` neva's client answers a server's requests on a task of its own, outside
/// the call that made them: the relay [`LiveTools::connect_url`](crate::LiveTools::connect_url)
/// puts in front of the server ties the question to the call whose stream it came back on. A
/// client of your own has no such relay: its server's questions are declined.
///
/// # Examples
/// ```no_run
/// use neva::Client;
///
/// # async fn run() -> Result<(), neva::error::Error> {
/// let mut client = Client::new().with_options(|opt| {
///     opt.with_http(|http| http.bind("127.0.0.1:3001").with_endpoint("/mcp"))
/// });
/// client.map_elicitation(ladoga::toolbox::elicit_above);
/// let docs = ladoga::LiveTools::connect(client, |tools| tools.with_prefix("docs_")).await?;
/// # let _ = docs;
/// # Ok(())
/// # }
/// ```
pub async fn elicit_above(params: ElicitRequestParams) -> ElicitResult {
    let (lent_to, params) = lent(params);
    let Some(site) = Site::current().or(lent_to) else {
        tracing::info!(target: "ladoga", "a server's question outside a run that can ask its caller is declined");
        return ElicitResult::decline();
    };
    if !site.top().answers_forms() {
        return ElicitResult::decline();
    }
    // The same question in the next round is filed under the same key.
    let asked = serde_json::to_string(&params).unwrap_or_default();
    let key = arguments::digest(&arguments::canonical(&asked));
    match site.elicit(&key, None, params).await {
        Ok(answer) => answer,
        #[cfg(not(feature = "legacy-spec"))]
        Err(later) if later.code() == neva::error::ErrorCode::InputRequired => {
            // The run pauses, and drops this call as it does.
            site.pause();
            std::future::pending().await
        }
        Err(error) => {
            tracing::warn!(target: "ladoga", error = %crate::toolbox::printable(&error.to_string()), "a server's question could not be put to the person at the top");
            ElicitResult::decline()
        }
    }
}

/// Answers a server's sampling request with a sample of the caller at the top of the run whose
/// call it is answering, for a client of a `with` server (MCP 2026-07-28): the server's tool gets
/// the model of the person's host, as a [`CallerModel`](crate::CallerModel) below does. The
/// sample is made in a later round of the top call, which pauses the run, and the server's call
/// is made again with it. An error outside such a call, or when that caller cannot sample (it
/// declares no sampling, its call is an MCP task, or the run at the top is durable). Give it to a
/// client of your own with `client.map_sampling(..)`;
/// [`LiveTools::connect_url`](crate::LiveTools::connect_url) gives it to the client it makes.
///
/// # Examples
/// ```no_run
/// use neva::Client;
///
/// # async fn run() -> Result<(), neva::error::Error> {
/// let mut client = Client::new().with_options(|opt| {
///     opt.with_http(|http| http.bind("127.0.0.1:3001").with_endpoint("/mcp"))
/// });
/// #[allow(deprecated)] // sampling, kept in MCP 2026-07-28 for migration, through its rounds
/// client.map_sampling(ladoga::toolbox::sample_above);
/// let docs = ladoga::LiveTools::connect(client, |tools| tools.with_prefix("docs_")).await?;
/// # let _ = docs;
/// # Ok(())
/// # }
/// ```
#[cfg(not(feature = "legacy-spec"))]
pub async fn sample_above(
    params: CreateMessageRequestParams,
) -> Result<CreateMessageResult, neva::error::Error> {
    use neva::error::{Error, ErrorCode};

    let refused = |why: &str| Error::new(ErrorCode::InvalidRequest, why.to_owned());
    let Some(site) = Site::current() else {
        tracing::info!(target: "ladoga", "a server's sampling request outside a run that can ask its caller is refused");
        return Err(refused("no caller above this call can sample"));
    };
    let top = site.top();
    let ctx = top.context();
    if top.journaled().is_some() || ctx.is_task() || !ctx.client_capabilities().sampling {
        return Err(refused("the caller at the top of this run cannot sample"));
    }
    // The same request in the next round is filed under the same key.
    let asked = serde_json::to_string(&params).unwrap_or_default();
    let key = arguments::digest(&arguments::canonical(&asked));
    match site.sample(&key, params).await {
        Ok(sample) => Ok(sample),
        Err(later) if later.code() == ErrorCode::InputRequired => {
            // The run pauses, and drops this call as it does.
            site.pause();
            std::future::pending().await
        }
        Err(error) => {
            tracing::warn!(target: "ladoga", error = %crate::toolbox::printable(&error.to_string()), "a server's sampling request could not be put to the caller at the top");
            Err(refused("the caller at the top did not sample"))
        }
    }
}

/// The site of the call a server's question came back on, under `legacy-spec`: the relay in
/// front of the server wrote its token in the question's `_meta`, taken out here.
fn lent(params: ElicitRequestParams) -> (Option<Site>, ElicitRequestParams) {
    #[cfg(feature = "legacy-spec")]
    if let ElicitRequestParams::Form(mut form) = params {
        let token = (form.meta.as_mut())
            .and_then(serde_json::Value::as_object_mut)
            .and_then(|meta| meta.remove(crate::tree::LENT_KEY));
        let site = token
            .as_ref()
            .and_then(|token| crate::tree::lent(token.as_str()?));
        return (site, ElicitRequestParams::Form(form));
    }
    (None, params)
}
