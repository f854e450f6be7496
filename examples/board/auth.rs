//! `board --auth`: who may call the board, and with which roles.
//!
//! With `--auth`, the HTTP server takes a request only with an `Authorization: Bearer` JWT signed
//! HS256 with the secret in [`SECRET_VAR`], and not expired (`exp` is required). neva checks the
//! token before the request is dispatched: without one, or with one that does not verify, the
//! caller gets `401 Unauthorized` and no tool runs. The caller's roles are the token's `role`
//! claim (one string) and `roles` claim (an array of strings), neva's `DefaultClaims`; a tool
//! declared with `roles = [...]` needs one of them, and an orchestrator never offers its model a
//! tool the caller's roles do not reach (`clear_board` needs `admin`).

use std::ffi::OsString;
use std::fmt;

use neva::auth::{Algorithm, DefaultClaims};
use neva::transport::HttpServer;
use neva::transport::http::VolgaEngine;

/// The environment variable that holds the HMAC secret. Never a flag: a command line shows in
/// `ps`.
pub const SECRET_VAR: &str = "LADOGA_AUTH_SECRET";

/// The shortest secret taken, in bytes: 256 bits, HS256's own key size.
pub const MIN_SECRET_BYTES: usize = 32;

/// The HMAC secret the bearer tokens are checked with.
pub struct Auth {
    secret: Vec<u8>,
}

impl fmt::Debug for Auth {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Auth { secret: .. }")
    }
}

/// Why the board does not start with `--auth`.
#[derive(Debug, PartialEq, Eq)]
pub enum Refusal {
    /// `--auth` with `--stdio`: there is no bearer token over stdio.
    OverStdio,
    /// [`SECRET_VAR`] is not set, or empty.
    NoSecret,
    /// [`SECRET_VAR`] is shorter than [`MIN_SECRET_BYTES`]; its length.
    ShortSecret(usize),
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::OverStdio => f.write_str(
                "--auth needs HTTP: a bearer token cannot be sent over stdio; drop --stdio or --auth",
            ),
            Self::NoSecret => write!(
                f,
                "--auth needs the secret in {SECRET_VAR} (at least {MIN_SECRET_BYTES} bytes), \
                 which is not set"
            ),
            Self::ShortSecret(len) => write!(
                f,
                "--auth needs the secret in {SECRET_VAR} to be at least {MIN_SECRET_BYTES} bytes; \
                 it has {len}"
            ),
        }
    }
}

impl std::error::Error for Refusal {}

impl Auth {
    /// What the flags ask for: `None` without `--auth`, else the secret read from
    /// [`SECRET_VAR`].
    pub fn from_flags(auth: bool, stdio: bool) -> Result<Option<Self>, Refusal> {
        if !auth {
            return Ok(None);
        }
        if stdio {
            return Err(Refusal::OverStdio);
        }
        Self::from_secret(std::env::var_os(SECRET_VAR)).map(Some)
    }

    /// The secret as the environment holds it: refused when missing, empty or too short.
    fn from_secret(value: Option<OsString>) -> Result<Self, Refusal> {
        let secret = value.map(OsString::into_encoded_bytes).unwrap_or_default();
        match secret.len() {
            0 => Err(Refusal::NoSecret),
            len if len < MIN_SECRET_BYTES => Err(Refusal::ShortSecret(len)),
            _ => Ok(Self { secret }),
        }
    }
}

/// `http`, requiring an HS256 bearer token signed with `auth`'s secret when there is one.
pub fn guard(
    auth: Option<&Auth>,
    http: HttpServer<DefaultClaims, VolgaEngine>,
) -> HttpServer<DefaultClaims, VolgaEngine> {
    match auth {
        Some(auth) => http.with_auth(|config| {
            config
                .set_decoding_key(&auth.secret)
                .with_alg(Algorithm::HS256)
        }),
        None => http,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn without_the_flag_nothing_is_required() {
        assert!(Auth::from_flags(false, false).unwrap().is_none());
        assert!(Auth::from_flags(false, true).unwrap().is_none());
    }

    #[test]
    fn the_flag_over_stdio_is_refused() {
        assert_eq!(
            Auth::from_flags(true, true).unwrap_err(),
            Refusal::OverStdio
        );
    }

    #[test]
    fn a_missing_empty_or_short_secret_is_refused() {
        assert_eq!(Auth::from_secret(None).unwrap_err(), Refusal::NoSecret);
        assert_eq!(
            Auth::from_secret(Some("".into())).unwrap_err(),
            Refusal::NoSecret
        );
        let short = "x".repeat(MIN_SECRET_BYTES - 1);
        assert_eq!(
            Auth::from_secret(Some(short.into())).unwrap_err(),
            Refusal::ShortSecret(MIN_SECRET_BYTES - 1)
        );
        assert!(Refusal::ShortSecret(3).to_string().contains(SECRET_VAR));
        assert!(Refusal::NoSecret.to_string().contains(SECRET_VAR));
    }

    #[test]
    fn a_secret_of_32_bytes_is_taken_and_never_printed() {
        let auth = Auth::from_secret(Some("k".repeat(MIN_SECRET_BYTES).into())).unwrap();
        assert_eq!(auth.secret.len(), MIN_SECRET_BYTES);
        assert!(!format!("{auth:?}").contains("kk"), "{auth:?}");
    }
}
