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
