//! A real OAuth 2.1 authorization server of the tests' own: oidc-provider, run by Node (from
//! `PATH`) as `tests/peers/issuer/issuer.mjs`, with the packages in the folder `LADOGA_ISSUER`
//! names (`scripts/peers install` puts them in `.peers/issuer`), on a free loopback port, killed
//! when dropped; the private keys it signs with, to forge tokens; and a person signing in to it
//! over plain HTTP, as a client's browser would.

use std::path::PathBuf;
use std::time::Duration;

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

const SCRIPT: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../tests/peers/issuer/issuer.mjs"
);

/// Where `sign_in` says the authorization ends: nothing listens there, the code is read from
/// the issuer's redirect.
const REDIRECT_URI: &str = "http://127.0.0.1:9/callback";

/// The issuer's one account, and its password.
pub const LOGIN: &str = "alice";
pub const PASSWORD: &str = "wonderland";

/// Every scope the issuer grants for a resource.
pub const SCOPES: [&str; 3] = ["board:read", "board:write", "board:admin"];

/// How an issuer is started.
#[derive(Clone, Debug)]
pub struct IssuerOptions {
    /// How long its access tokens last.
    pub access_token_ttl: Duration,
    /// What it signs access tokens with: RS256 or ES256.
    pub alg: Algorithm,
}

impl Default for IssuerOptions {
    fn default() -> Self {
        Self {
            access_token_ttl: Duration::from_secs(300),
            alg: Algorithm::RS256,
        }
    }
}

/// A running issuer, killed (and its state folder removed) when dropped.
pub struct Issuer {
    port: u16,
    state: PathBuf,
    http: reqwest::Client,
    child: tokio::process::Child,
}

/// One of the issuer's private signing keys, as it wrote it to its state folder.
#[derive(Clone, Debug)]
pub struct SigningKey {
    pub kid: String,
    pub alg: Algorithm,
    /// PKCS#8 PEM.
    pub pem: String,
}

impl SigningKey {
    /// The key, to sign a token with as the issuer would.
    pub fn encoding_key(&self) -> EncodingKey {
        match self.alg {
            Algorithm::ES256 => EncodingKey::from_ec_pem(self.pem.as_bytes()),
            _ => EncodingKey::from_rsa_pem(self.pem.as_bytes()),
        }
        .expect("the issuer's PEM")
    }

    /// A JWT header naming this key (`alg`, `kid`), as the issuer's access tokens have.
    pub fn header(&self) -> Header {
        let mut header = Header::new(self.alg);
        header.kid = Some(self.kid.clone());
        header.typ = Some("at+jwt".into());
        header
    }

    /// `claims` signed with this key.
    pub fn sign(&self, claims: &Value) -> String {
        jsonwebtoken::encode(&self.header(), claims, &self.encoding_key()).expect("a token")
    }
}

/// What a sign-in got from the token endpoint.
#[derive(Clone, Debug)]
pub struct Tokens {
    pub access_token: String,
    pub refresh_token: Option<String>,
    /// The scopes granted, as the token response named them.
    pub scope: String,
    /// The client the sign-in registered.
    pub client_id: String,
}

impl Issuer {
    /// Starts one with access tokens of 300 s signed RS256; see [`Issuer::start_with`].
    pub async fn start() -> Self {
        Self::start_with(IssuerOptions::default()).await
    }

    /// Starts one with `options`, and waits until it serves its metadata. Fails, saying what
    /// to do, when `LADOGA_ISSUER` is not set or Node does not start. A Node that has not
    /// listened after a minute (seen once on a loaded two-core machine, its log empty past
    /// oidc-provider's import) is killed and started once more before the test fails.
    pub async fn start_with(options: IssuerOptions) -> Self {
        let packages = std::env::var("LADOGA_ISSUER").expect(
            "LADOGA_ISSUER names the folder oidc-provider is installed in (see scripts/test)",
        );
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(Duration::from_secs(30))
            .build()
            .expect("an HTTP client");
        let mut attempts = 2;
        loop {
            attempts -= 1;
            let (state, child) = spawn(&packages, &options);
            match bound_port(&state).await {
                Ok(port) => {
                    let issuer = Self {
                        port,
                        state,
                        http,
                        child,
                    };
                    issuer.wait_for_metadata().await;
                    return issuer;
                }
                Err(log) if attempts > 0 => {
                    eprintln!("the issuer did not listen after 60 s, starting it again: {log}");
                    drop(child);
                    let _ = std::fs::remove_dir_all(&state);
                }
                Err(log) => panic!("the issuer does not listen after 60 s: {log}"),
            }
        }
    }

    /// Waits, for at most a minute, until it serves its metadata.
    async fn wait_for_metadata(&self) {
        let metadata = format!("{}/.well-known/openid-configuration", self.url());
        for _ in 0..600 {
            if let Ok(response) = self.http.get(&metadata).send().await
                && response.status().is_success()
            {
                return;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        let log = std::fs::read_to_string(self.state.join("issuer.log")).unwrap_or_default();
        panic!("the issuer serves no metadata after 60 s: {log}");
    }

    /// Its issuer identifier, which is also its base URL: `http://127.0.0.1:PORT`.
    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}", self.port)
    }

    /// Replaces both its keys by new ones with new kids: its JWKS then publishes only those,
    /// and it signs with them from now on. The new kids.
    pub async fn rotate(&self) -> Vec<String> {
        let answer = self
            .post_json(&format!("{}/test/rotate", self.url()), &json!({}))
            .await;
        serde_json::from_value(answer["kids"].clone()).expect("the new kids")
    }

    /// Its current private keys: the RSA one (RS256), then the P-256 one (ES256).
    pub fn keys(&self) -> Vec<SigningKey> {
        let file = std::fs::read(self.state.join("keys.json")).expect("the issuer's keys.json");
        let keys: Value = serde_json::from_slice(&file).expect("keys.json is JSON");
        keys["keys"]
            .as_array()
            .expect("a list of keys")
            .iter()
            .map(|key| SigningKey {
                kid: key["kid"].as_str().expect("a kid").to_owned(),
                alg: key["alg"]
                    .as_str()
                    .expect("an alg")
                    .parse()
                    .expect("RS256 or ES256"),
                pem: key["pem"].as_str().expect("a PEM").to_owned(),
            })
            .collect()
    }

    /// Its current key for `alg`.
    pub fn key(&self, alg: Algorithm) -> SigningKey {
        self.keys()
            .into_iter()
            .find(|key| key.alg == alg)
            .expect("a key for the algorithm")
    }

    /// What happened so far, in order: `{"event": "registration" | "login" | "consent" |
    /// "token" | "rotate" | "jwks", ...}`; a token event names its `grant_type`, `scope`, `aud`, `kid`,
    /// `alg` and whether a `refresh_token` came with it.
    pub async fn log(&self) -> Vec<Value> {
        let response = self
            .http
            .get(format!("{}/test/log", self.url()))
            .send()
            .await
            .expect("GET /test/log");
        let log: Value = response.json().await.expect("the log is JSON");
        log["events"].as_array().expect("events").clone()
    }

    /// The events of the log whose `event` is `kind`.
    pub async fn events(&self, kind: &str) -> Vec<Value> {
        self.log()
            .await
            .into_iter()
            .filter(|event| event["event"] == kind)
            .collect()
    }

    /// The token events of the log for `grant_type`.
    pub async fn grants(&self, grant_type: &str) -> Vec<Value> {
        self.events("token")
            .await
            .into_iter()
            .filter(|event| event["grant_type"] == grant_type)
            .collect()
    }

    /// Signs in as a client would for `resource`, asking for every scope and granting
    /// `scopes_granted`: registers a public client, sends the authorization request (PKCE S256,
    /// `resource`), logs in as alice and consents, then exchanges the code (with `resource`).
    pub async fn sign_in(&self, resource: &str, scopes_granted: &[&str]) -> Tokens {
        let registration = self
            .post_json(
                &format!("{}/reg", self.url()),
                &json!({
                    "client_name": "ladoga-tests",
                    "redirect_uris": [REDIRECT_URI],
                    "grant_types": ["authorization_code", "refresh_token"],
                    "response_types": ["code"],
                    "token_endpoint_auth_method": "none",
                }),
            )
            .await;
        let client_id = registration["client_id"]
            .as_str()
            .unwrap_or_else(|| panic!("registered: {registration}"))
            .to_owned();
        let verifier = URL_SAFE_NO_PAD.encode(rand::random::<[u8; 32]>());
        let challenge = URL_SAFE_NO_PAD.encode(Sha256::digest(verifier.as_bytes()));
        let state = URL_SAFE_NO_PAD.encode(rand::random::<[u8; 16]>());
        let authorization = reqwest::Url::parse_with_params(
            &format!("{}/auth", self.url()),
            [
                ("response_type", "code"),
                ("client_id", &client_id),
                ("redirect_uri", REDIRECT_URI),
                ("scope", &SCOPES.join(" ")),
                ("resource", resource),
                ("state", &state),
                ("code_challenge", &challenge),
                ("code_challenge_method", "S256"),
            ],
        )
        .expect("the authorization URL");
        let redirect = Person::default()
            .authorize(&self.http, authorization, scopes_granted)
            .await;
        let query: std::collections::HashMap<_, _> = redirect.query_pairs().into_owned().collect();
        assert_eq!(query.get("state"), Some(&state), "{redirect}");
        let code = query
            .get("code")
            .unwrap_or_else(|| panic!("no code: {redirect}"));
        let form = [
            ("grant_type", "authorization_code"),
            ("code", code.as_str()),
            ("redirect_uri", REDIRECT_URI),
            ("client_id", &client_id),
            ("code_verifier", &verifier),
            ("resource", resource),
        ];
        self.exchange(&form, client_id.clone()).await
    }

    /// What the token endpoint gives `client_id` for `form`.
    async fn exchange(&self, form: &[(&str, &str)], client_id: String) -> Tokens {
        let response = self
            .http
            .post(format!("{}/token", self.url()))
            .form(form)
            .send()
            .await
            .expect("POST /token");
        let tokens: Value = response.json().await.expect("the token response is JSON");
        Tokens {
            access_token: tokens["access_token"]
                .as_str()
                .unwrap_or_else(|| panic!("no access token: {tokens}"))
                .to_owned(),
            refresh_token: tokens["refresh_token"].as_str().map(str::to_owned),
            scope: tokens["scope"].as_str().unwrap_or_default().to_owned(),
            client_id,
        }
    }

    async fn post_json(&self, url: &str, body: &Value) -> Value {
        let response = self
            .http
            .post(url)
            .json(body)
            .send()
            .await
            .unwrap_or_else(|error| panic!("POST {url}: {error}"));
        response.json().await.expect("a JSON answer")
    }
}

impl Drop for Issuer {
    fn drop(&mut self) {
        let _ = self.child.start_kill();
        let _ = std::fs::remove_dir_all(&self.state);
    }
}

/// The person at the browser: its cookies (by name; the issuer's paths never overlap).
#[derive(Default)]
struct Person {
    cookies: std::collections::BTreeMap<String, String>,
}

impl Person {
    /// Follows `url` through the issuer's redirects and interactions (login as alice, consent
    /// to `granted`) until the redirect to `REDIRECT_URI`, which it returns.
    async fn authorize(
        &mut self,
        http: &reqwest::Client,
        mut url: reqwest::Url,
        granted: &[&str],
    ) -> reqwest::Url {
        let mut response = self.send(http.get(url.clone())).await;
        for _ in 0..20 {
            if response.status().is_redirection() {
                let location = response.headers()[reqwest::header::LOCATION]
                    .to_str()
                    .expect("an ASCII location");
                url = url.join(location).expect("a location URL");
                if url.as_str().starts_with(REDIRECT_URI) {
                    return url;
                }
                response = self.send(http.get(url.clone())).await;
                continue;
            }
            let status = response.status();
            let prompt: Value = response.json().await.expect("an interaction in JSON");
            let (action, body) = match prompt["prompt"].as_str() {
                Some("login") => ("login", json!({"login": LOGIN, "password": PASSWORD})),
                Some("consent") => ("consent", json!({"scopes": granted})),
                _ => panic!("{url}: {status} {prompt}"),
            };
            let answer = http.post(format!("{url}/{action}")).json(&body);
            response = self.send(answer).await;
        }
        panic!("no redirect to the client after 20 steps: {url}");
    }

    /// Sends `request` with the cookies, and keeps the ones the answer sets.
    async fn send(&mut self, request: reqwest::RequestBuilder) -> reqwest::Response {
        let cookie = self
            .cookies
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect::<Vec<_>>()
            .join("; ");
        let response = request
            .header(reqwest::header::COOKIE, cookie)
            .send()
            .await
            .expect("the issuer answers");
        for set in response.headers().get_all(reqwest::header::SET_COOKIE) {
            let set = set.to_str().expect("an ASCII cookie");
            let pair = set.split(';').next().unwrap_or_default();
            if let Some((name, value)) = pair.split_once('=') {
                if value.is_empty() || set.contains("expires=Thu, 01 Jan 1970") {
                    self.cookies.remove(name);
                } else {
                    self.cookies.insert(name.to_owned(), value.to_owned());
                }
            }
        }
        response
    }
}

/// A Node running the issuer with `options` in a new state folder of its own: the folder and
/// the process, killed when dropped.
fn spawn(packages: &str, options: &IssuerOptions) -> (std::path::PathBuf, tokio::process::Child) {
    let state = std::env::temp_dir().join(format!(
        "ladoga-issuer-{}-{}",
        std::process::id(),
        rand::random::<u64>()
    ));
    std::fs::create_dir_all(&state).expect("a folder for the issuer's keys");
    let log = std::fs::File::create(state.join("issuer.log")).expect("the issuer's log");
    let alg = match options.alg {
        Algorithm::ES256 => "ES256",
        _ => "RS256",
    };
    let child = tokio::process::Command::new("node")
        .arg(SCRIPT)
        .arg("0") // a port the system picks, which no other process can take meanwhile
        .arg(&state)
        .args(["--ttl", &options.access_token_ttl.as_secs().to_string()])
        .args(["--alg", alg, "--password", PASSWORD])
        .env("LADOGA_ISSUER", packages)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(log)
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|error| panic!("cannot start node ({error}): Node must be on PATH"));
    (state, child)
}

/// The port the issuer whose state folder is `state` listens on, once it does (it writes it
/// there), for at most a minute; else what it logged.
async fn bound_port(state: &std::path::Path) -> Result<u16, String> {
    for _ in 0..600 {
        if let Some(port) = std::fs::read_to_string(state.join("port"))
            .ok()
            .and_then(|port| port.trim().parse().ok())
        {
            return Ok(port);
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    Err(std::fs::read_to_string(state.join("issuer.log")).unwrap_or_default())
}
