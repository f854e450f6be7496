//! A durable run's call as its invocation carries it: sealed (ChaCha20-Poly1305, bound to the
//! run's key) with the secret every replica shares, so that restate-server, its ingress and
//! anyone who reaches them read nothing of it, and a call not sealed by a replica, or moved
//! under another run's key, is refused. The caller's claims travel inside.

use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use neva::auth::{Claims, DefaultClaims};
use serde::{Deserialize, Serialize};

use super::workflow::Call;
use crate::store::Seal;

/// What a durable run's invocation carries: its call, sealed.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Sealed {
    call: String,
}

impl Sealed {
    /// `call`, the call of the run `key`, sealed with `seal`.
    pub(super) fn new(seal: &Seal, key: &str, call: &Call) -> Result<Self, String> {
        let json = serde_json::to_vec(call).map_err(|error| error.to_string())?;
        let sealed = seal.seal(key, &json)?;
        Ok(Self {
            call: STANDARD.encode(sealed),
        })
    }

    /// The call of the run `key`, if `seal` opens it unaltered.
    pub(super) fn open(&self, seal: &Seal, key: &str) -> Option<Call> {
        let sealed = STANDARD.decode(&self.call).ok()?;
        serde_json::from_slice(&seal.open(key, &sealed)?).ok()
    }
}

/// The caller's claims, as a durable run's call carries them: what neva checks a tool's roles,
/// permissions and scopes against.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub(super) struct Carried {
    #[serde(skip_serializing_if = "Option::is_none")]
    sub: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    iss: Option<String>,
    aud: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    client_id: Option<String>,
    scope: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    role: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    roles: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    permissions: Option<Vec<String>>,
}

impl Carried {
    /// What `claims` hold.
    pub(super) fn of(claims: &dyn Claims) -> Self {
        Self {
            sub: claims.subject().map(str::to_owned),
            iss: claims.issuer().map(str::to_owned),
            aud: claims.audience().to_vec(),
            client_id: claims.client_id().map(str::to_owned),
            scope: claims.scopes().to_vec(),
            role: claims.role().map(str::to_owned),
            roles: claims.roles().map(<[String]>::to_vec),
            permissions: claims.permissions().map(<[String]>::to_vec),
        }
    }

    /// The claims again, as neva's own.
    pub(super) fn claims(&self) -> Option<Arc<dyn Claims>> {
        let json = serde_json::to_value(self).ok()?;
        let claims: DefaultClaims = serde_json::from_value(json).ok()?;
        Some(Arc::new(claims))
    }
}
