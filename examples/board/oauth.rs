//! `board --oauth ISSUER_URL`: the board as an OAuth 2.1 resource server, as MCP's authorization
//! spec has it.
//!
//! The board publishes its Protected Resource Metadata (RFC 9728) at
//! `/.well-known/oauth-protected-resource/mcp` (and at `/.well-known/oauth-protected-resource`,
//! which the front maps there), naming the issuer and the scopes it knows, and answers a request
//! without a valid token `401` with `WWW-Authenticate: Bearer resource_metadata="…"`, so an MCP
//! host finds the issuer, registers, signs its person in and comes back with a token.
//!
//! neva checks each token before the request is dispatched: its signature against the issuer's
//! JSON Web Key Set (RS256, ES256 and the other asymmetric algorithms; the set found through the
//! issuer's RFC 8414 or OpenID metadata, cached, and fetched again for a key id it does not know,
//! at most once per [`OAuth::cooldown`]); `iss` the issuer; `exp`, and `nbf` when present, with a
//! minute of leeway; and that `aud` names this board's resource (RFC 8707), so that a token the
//! same issuer made for another server is refused. The scopes then open the tools
//! ([`crate::access`]).

use std::fmt;
use std::time::Duration;

use neva::auth::DefaultClaims;
use neva::transport::HttpServer;
use neva::transport::http::VolgaEngine;

/// The least time between two fetches of the issuer's keys, unless `--jwks-cooldown` says.
pub const DEFAULT_COOLDOWN: Duration = Duration::from_secs(60);

/// The scopes the board knows, as its metadata lists them.
pub const SCOPES: [&str; 3] = ["board:read", "board:write", "board:admin"];

/// The authorization server the board takes tokens from, and what it is to them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OAuth {
    /// The issuer's identifier, exactly as its tokens' `iss` and its metadata name it (with
    /// Auth0's trailing `/`, say): what `iss` must be, and where its metadata is.
    pub issuer: String,
    /// The board's own canonical URL: what `aud` must name.
    pub resource: String,
    /// The least time between two fetches of the issuer's keys.
    pub cooldown: Duration,
}

/// Why the board does not start with `--oauth`.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// `--oauth` with `--stdio`: there is no bearer token over stdio.
    OverStdio,
    /// `--oauth` with `--auth`: one kind of token at a time.
    WithSecret,
    /// The issuer or the resource is not an absolute `http(s)` URL; which, and the value.
    NotAUrl(&'static str, String),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OverStdio => f.write_str(
                "--oauth needs HTTP: a bearer token cannot be sent over stdio; drop --stdio or --oauth",
            ),
            Self::WithSecret => f.write_str(
                "--oauth and --auth exclude each other: the board takes the issuer's tokens or \
                 tokens signed with LADOGA_AUTH_SECRET, not both",
            ),
            Self::NotAUrl(what, value) => write!(
                f,
                "the {what} `{value}` is not an absolute http:// or https:// URL"
            ),
        }
    }
}

impl std::error::Error for Refusal {}

impl OAuth {
    /// What the flags ask for: `None` without `--oauth`; else the issuer, the resource
    /// (`--resource`, else `http://` and `--http` and `/mcp`) and the cooldown.
    pub fn from_flags(
        issuer: Option<&str>,
        resource: Option<&str>,
        cooldown: Option<Duration>,
        http: &str,
        stdio: bool,
        auth: bool,
    ) -> Result<Option<Self>, Refusal> {
        let Some(issuer) = issuer else {
            return Ok(None);
        };
        if stdio {
            return Err(Refusal::OverStdio);
        }
        if auth {
            return Err(Refusal::WithSecret);
        }
        let resource = resource.map_or_else(|| format!("http://{http}/mcp"), str::to_owned);
        Ok(Some(Self {
            issuer: url("issuer", issuer)?,
            resource: url("resource", &resource)?,
            cooldown: cooldown.unwrap_or(DEFAULT_COOLDOWN),
        }))
    }

    /// Whether the issuer is reached over plain HTTP on this machine, which a development or
    /// test issuer may be; any other issuer's keys are fetched over HTTPS only.
    fn is_local_http(&self) -> bool {
        let Some(rest) = self.issuer.strip_prefix("http://") else {
            return false;
        };
        let authority = rest.split('/').next().unwrap_or_default();
        crate::front::is_loopback(authority)
    }
}

/// `--jwks-cooldown` as written: whole seconds (`10`), or a duration (`500ms`, `30s`, `2m`).
pub fn cooldown(text: &str) -> Result<Duration, String> {
    match text.parse() {
        Ok(seconds) => Ok(Duration::from_secs(seconds)),
        Err(_) => crate::grace::parse(text),
    }
}

/// `value`, when it is an absolute `http(s)` URL with a host; else why not.
fn url(what: &'static str, value: &str) -> Result<String, Refusal> {
    let host = value
        .strip_prefix("https://")
        .or_else(|| value.strip_prefix("http://"))
        .and_then(|rest| rest.split(['/', '?', '#']).next());
    match host {
        Some(host) if !host.is_empty() => Ok(value.to_owned()),
        _ => Err(Refusal::NotAUrl(what, value.to_owned())),
    }
}

/// Chooses the TLS provider the issuer's metadata and keys are fetched with, once per process.
///
/// rustls picks one by itself only when the build has one; a Ladoga server has two (svir's
/// `ring` and reqwest's `aws-lc-rs`), and without a choice the first fetch panics.
pub fn choose_tls_provider() {
    // An error means one is chosen already, which is as good.
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
}

/// `http`, taking only the issuer's tokens for this board, with its metadata published.
pub fn guard(
    oauth: &OAuth,
    http: HttpServer<DefaultClaims, VolgaEngine>,
) -> HttpServer<DefaultClaims, VolgaEngine> {
    let local = oauth.is_local_http();
    http.with_oauth_metadata(|metadata| {
        metadata
            .with_resource(&oauth.resource)
            .with_authorization_servers([&oauth.issuer])
            .with_scopes(SCOPES)
            .with_metadata(|document| document.with_resource_name("board"))
    })
    .with_auth(|auth| {
        auth.with_oauth(|issuer| {
            issuer
                .with_issuer(&oauth.issuer)
                .with_refresh_cooldown(oauth.cooldown)
                .with_config(|config| {
                    config.with_client_config(|client| client.require_https(!local))
                })
        })
        // The audience (RFC 8707) is the resource the metadata names: neva's default in this mode.
        .validate_nbf(true)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn flags(issuer: Option<&str>, resource: Option<&str>) -> Result<Option<OAuth>, Refusal> {
        OAuth::from_flags(issuer, resource, None, "127.0.0.1:3000", false, false)
    }

    #[test]
    fn without_the_flag_nothing_is_required() {
        assert_eq!(flags(None, None), Ok(None));
    }

    #[test]
    fn the_resource_is_the_boards_own_url_unless_told() {
        let oauth = flags(Some("https://id.example.com/"), None)
            .unwrap()
            .unwrap();
        assert_eq!(oauth.issuer, "https://id.example.com/", "as `iss` has it");
        assert_eq!(oauth.resource, "http://127.0.0.1:3000/mcp");
        assert_eq!(oauth.cooldown, DEFAULT_COOLDOWN);
        let told = flags(
            Some("https://id.example.com"),
            Some("https://board.example.com/mcp"),
        );
        assert_eq!(
            told.unwrap().unwrap().resource,
            "https://board.example.com/mcp"
        );
    }

    #[test]
    fn over_stdio_with_a_secret_or_with_no_url_it_is_refused() {
        let issuer = Some("https://id.example.com");
        let stdio = OAuth::from_flags(issuer, None, None, "127.0.0.1:3000", true, false);
        assert_eq!(stdio, Err(Refusal::OverStdio));
        let both = OAuth::from_flags(issuer, None, None, "127.0.0.1:3000", false, true);
        assert_eq!(both, Err(Refusal::WithSecret));
        assert_eq!(
            flags(Some("id.example.com"), None),
            Err(Refusal::NotAUrl("issuer", "id.example.com".into()))
        );
        assert_eq!(
            flags(issuer, Some("https:///mcp")),
            Err(Refusal::NotAUrl("resource", "https:///mcp".into()))
        );
    }

    #[test]
    fn the_cooldown_is_seconds_or_a_duration() {
        assert_eq!(cooldown("1"), Ok(Duration::from_secs(1)));
        assert_eq!(cooldown("500ms"), Ok(Duration::from_millis(500)));
        assert!(cooldown("soon").is_err());
    }

    #[test]
    fn only_a_loopback_issuer_is_fetched_over_plain_http() {
        let local = |issuer: &str| flags(Some(issuer), None).unwrap().unwrap().is_local_http();
        assert!(local("http://127.0.0.1:4000"));
        assert!(local("http://localhost:4000/realms/board"));
        assert!(!local("http://id.example.com"));
        assert!(!local("https://127.0.0.1:4000"));
    }
}
