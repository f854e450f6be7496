//! Bearer tokens for `board --auth`: the secret the tests start it with, and JWTs signed with it.

use std::time::{SystemTime, UNIX_EPOCH};

use jsonwebtoken::{Algorithm, EncodingKey, Header};
use serde_json::{Value, json};

/// The variable the board reads its secret from.
pub const SECRET_VAR: &str = "LADOGA_AUTH_SECRET";

/// The board's secret in the tests: 42 bytes.
pub const SECRET: &str = "a secret for the tests only, 42 bytes long";

/// Seconds since the epoch.
pub fn now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("the clock is past 1970")
        .as_secs()
}

/// A JWT with `claims`, signed HS256 with `secret`.
pub fn token(secret: &str, claims: Value) -> String {
    jsonwebtoken::encode(
        &Header::new(Algorithm::HS256),
        &claims,
        &EncodingKey::from_secret(secret.as_bytes()),
    )
    .expect("a token")
}

/// A token of the board's secret for `sub`, with the claims `roles` (`role` and/or `roles`),
/// valid for an hour.
pub fn valid_token(sub: &str, roles: Value) -> String {
    let mut claims = json!({"sub": sub, "exp": now() + 3600});
    claims
        .as_object_mut()
        .expect("an object")
        .extend(roles.as_object().expect("roles as claims").clone());
    token(SECRET, claims)
}

/// An admin's token for `sub`, valid for an hour.
pub fn admin(sub: &str) -> String {
    valid_token(sub, json!({"role": "admin"}))
}

/// `board --auth` on a free loopback port, with the tests' secret, talking to the model
/// server at `model_url`.
pub async fn board_with_auth(model_url: &str) -> (tokio::process::Child, std::net::SocketAddr) {
    super::board_over_http_with_env(model_url, "scripted", &["--auth"], &[(SECRET_VAR, SECRET)])
        .await
}

/// A neva client of the board at `addr`, sending `token` (if any) as its bearer token.
pub fn client_with(addr: std::net::SocketAddr, token: Option<&str>) -> neva::Client {
    let token = token.map(str::to_owned);
    neva::Client::new().with_options(|opt| {
        opt.with_http(|http| {
            let http = http.bind(addr.to_string()).with_endpoint("/mcp");
            match token {
                Some(token) => http.with_auth(token),
                None => http,
            }
        })
        .with_timeout(std::time::Duration::from_secs(10))
    })
}

/// A neva client of the board at `addr` with `token`, connected.
pub async fn connect_as(addr: std::net::SocketAddr, token: &str) -> neva::Client {
    let mut client = client_with(addr, Some(token));
    client.connect().await.expect("the MCP client connects");
    client
}
