//! Who a request comes from, for the front of a board that takes bearer tokens: the token's
//! issuer and subject. A token that names no subject is refused, since nothing it starts could
//! be told apart from what another such token starts; and under `legacy-spec` each MCP session
//! belongs to the principal that initialized it, and a request with another principal's token
//! on it finds no such session.
//!
//! The token is read, not verified, here: neva verifies every request's token after the front,
//! so a forged one never reaches a tool, and a forged subject gains nothing.

#[cfg(feature = "legacy-spec")]
use std::collections::HashMap;
#[cfg(feature = "legacy-spec")]
use std::sync::Mutex;
#[cfg(feature = "legacy-spec")]
use std::time::{Duration, Instant};

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use hyper::header::{self, HeaderMap};
use serde_json::Value;

/// Why a token without `sub` is refused: the `error_description` of the board's `401`.
pub const NAMELESS: &str = "the token names no subject (sub): this server binds what a caller \
                            starts to its subject; ask the issuer for a token that names one";

/// The principal of a request's bearer token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Principal {
    /// No bearer token, or one that is no JWT: neva's to refuse.
    Unread,
    /// A JWT that names no subject.
    Nameless,
    /// A JWT's issuer and subject.
    Named { issuer: String, subject: String },
}

impl Principal {
    /// The principal of the bearer token in `headers`.
    pub fn of(headers: &HeaderMap) -> Self {
        let Some(token) = bearer(headers) else {
            return Self::Unread;
        };
        let Some(claims) = token
            .split('.')
            .nth(1)
            .and_then(|payload| URL_SAFE_NO_PAD.decode(payload).ok())
            .and_then(|payload| serde_json::from_slice::<Value>(&payload).ok())
            .filter(Value::is_object)
        else {
            return Self::Unread;
        };
        match claims["sub"].as_str() {
            Some(subject) if !subject.is_empty() => Self::Named {
                issuer: claims["iss"].as_str().unwrap_or_default().to_owned(),
                subject: subject.to_owned(),
            },
            _ => Self::Nameless,
        }
    }
}

/// The bearer token of a request, if it has one.
pub fn bearer(headers: &HeaderMap) -> Option<&str> {
    let value = headers.get(header::AUTHORIZATION)?.to_str().ok()?;
    let token = value
        .strip_prefix("Bearer ")
        .or_else(|| value.strip_prefix("bearer "))?;
    Some(token.trim())
}

/// The MCP sessions (`Mcp-Session-Id`, MCP 2025-11-25) of one board, each bound to the
/// principal that initialized it.
///
/// A session the front never saw initialized is one it does not hold: on a board that takes
/// tokens every session is made through the front, so such an id is an expired one or made up,
/// and neva answers it `404` too. A session idle for [`SESSION_IDLE`] is forgotten; its caller
/// gets `404` and initializes again, as MCP has a client do for a session that ended.
#[cfg(feature = "legacy-spec")]
#[derive(Debug, Default)]
pub struct Sessions {
    bound: Mutex<HashMap<String, Bound>>,
}

/// How long a session may go without a request before the front forgets it.
#[cfg(feature = "legacy-spec")]
pub const SESSION_IDLE: Duration = Duration::from_secs(24 * 60 * 60);

/// A session's principal, and when it was last used.
#[cfg(feature = "legacy-spec")]
#[derive(Debug)]
struct Bound {
    principal: Principal,
    used: Instant,
}

#[cfg(feature = "legacy-spec")]
impl Sessions {
    /// Whether `principal` may use the session `id`: it initialized it.
    pub fn admits(&self, id: &str, principal: &Principal) -> bool {
        let mut bound = self.lock();
        match bound.get_mut(id) {
            Some(session) if session.principal == *principal => {
                session.used = Instant::now();
                true
            }
            _ => false,
        }
    }

    /// The session `id`, just initialized, bound to `principal`; forgotten sessions swept.
    pub fn bind(&self, id: String, principal: Principal) {
        let now = Instant::now();
        let mut bound = self.lock();
        bound.retain(|_, session| now.duration_since(session.used) < SESSION_IDLE);
        bound.entry(id).or_insert(Bound {
            principal,
            used: now,
        });
    }

    /// The session `id` ended: deleted by its principal, or unknown to neva.
    pub fn end(&self, id: &str) {
        self.lock().remove(id);
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Bound>> {
        self.bound
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use hyper::header::HeaderValue;

    fn headers(claims: Value) -> HeaderMap {
        let payload = URL_SAFE_NO_PAD.encode(claims.to_string());
        let mut headers = HeaderMap::new();
        let value = format!("Bearer eyJhbGciOiJIUzI1NiJ9.{payload}.c2ln");
        headers.insert(
            header::AUTHORIZATION,
            HeaderValue::from_str(&value).unwrap(),
        );
        headers
    }

    #[test]
    fn a_token_names_its_issuer_and_subject_or_none() {
        let named = Principal::of(&headers(serde_json::json!({"iss": "i", "sub": "alice"})));
        assert_eq!(
            named,
            Principal::Named {
                issuer: "i".into(),
                subject: "alice".into()
            }
        );
        for claims in [
            serde_json::json!({"role": "admin"}),
            serde_json::json!({"sub": ""}),
            serde_json::json!({"sub": 7}),
        ] {
            assert_eq!(Principal::of(&headers(claims)), Principal::Nameless);
        }
        assert_eq!(Principal::of(&HeaderMap::new()), Principal::Unread);
        let mut garbage = HeaderMap::new();
        garbage.insert(header::AUTHORIZATION, HeaderValue::from_static("Bearer x"));
        assert_eq!(Principal::of(&garbage), Principal::Unread);
    }

    #[cfg(feature = "legacy-spec")]
    #[test]
    fn a_session_admits_the_principal_that_initialized_it_only() {
        let alice = Principal::of(&headers(serde_json::json!({"sub": "alice"})));
        let bob = Principal::of(&headers(serde_json::json!({"sub": "bob"})));
        let sessions = Sessions::default();
        sessions.bind("s1".into(), alice.clone());
        assert!(sessions.admits("s1", &alice));
        assert!(!sessions.admits("s1", &bob));
        assert!(!sessions.admits("s2", &alice), "a session never seen");
        sessions.bind("s1".into(), bob.clone());
        assert!(!sessions.admits("s1", &bob), "a bound session stays bound");
        sessions.end("s1");
        assert!(!sessions.admits("s1", &alice));
    }
}
