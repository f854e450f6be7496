//! Under MCP 2025-11-25 (`legacy-spec`), the scopes a step-up asks for: those the caller's token
//! holds already, and those the call needs.
//!
//! neva's `403` names the scopes the refused call needs (`scope="board:write"`). That
//! generation's authorization spec recommends naming the scopes the token holds too, since its
//! clients ask the issuer for exactly the challenge's scopes: the Python SDK 1.x does, and its
//! new token, for `board:write` alone, would lose `board:read`. (MCP 2026-07-28 leaves the union
//! to the client, which its SDKs make.) The front widens the challenge of a `403
//! insufficient_scope` with the scopes of the request's token, which neva verified before it
//! refused the call for want of scope.

use base64::Engine;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use serde_json::Value;

/// `challenge` with its `scope` the union of the scopes `token` holds and those it names, when
/// it is an `insufficient_scope` challenge and the token says what it holds; else `None`.
pub fn widen(challenge: &str, token: &str) -> Option<String> {
    if !challenge.contains(r#"error="insufficient_scope""#) {
        return None;
    }
    let start = challenge.find(r#"scope=""#)? + r#"scope=""#.len();
    let end = start + challenge[start..].find('"')?;
    let mut scopes = granted(token)?;
    for needed in challenge[start..end].split_ascii_whitespace() {
        if !scopes.iter().any(|scope| scope == needed) {
            scopes.push(needed.to_owned());
        }
    }
    Some(format!(
        "{}{}{}",
        &challenge[..start],
        scopes.join(" "),
        &challenge[end..]
    ))
}

/// The scopes of the JWT `token`'s `scope` claim (a space-separated string, or an array), read
/// without checking its signature: neva checked it.
fn granted(token: &str) -> Option<Vec<String>> {
    let payload = token.split('.').nth(1)?;
    let claims: Value = serde_json::from_slice(&URL_SAFE_NO_PAD.decode(payload).ok()?).ok()?;
    let scopes = match &claims["scope"] {
        Value::String(scope) => scope.split_ascii_whitespace().map(str::to_owned).collect(),
        Value::Array(scopes) => scopes
            .iter()
            .filter_map(Value::as_str)
            .map(str::to_owned)
            .collect(),
        _ => Vec::new(),
    };
    Some(scopes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(claims: Value) -> String {
        format!("e30.{}.sig", URL_SAFE_NO_PAD.encode(claims.to_string()))
    }

    #[test]
    fn the_challenge_names_the_scopes_held_and_those_needed() {
        let challenge =
            r#"Bearer error="insufficient_scope", scope="board:write", resource_metadata="x""#;
        let reader = token(serde_json::json!({"scope": "board:read"}));
        assert_eq!(
            widen(challenge, &reader).unwrap(),
            r#"Bearer error="insufficient_scope", scope="board:read board:write", resource_metadata="x""#
        );
        let listed = token(serde_json::json!({"scope": ["board:write", "board:read"]}));
        assert_eq!(
            widen(challenge, &listed).unwrap(),
            r#"Bearer error="insufficient_scope", scope="board:write board:read", resource_metadata="x""#,
            "nothing named twice"
        );
    }

    #[test]
    fn another_challenge_or_an_unreadable_token_is_left_alone() {
        let reader = token(serde_json::json!({"scope": "board:read"}));
        assert_eq!(widen(r#"Bearer error="invalid_token""#, &reader), None);
        let challenge = r#"Bearer error="insufficient_scope", scope="board:write""#;
        assert_eq!(widen(challenge, "not a token"), None);
    }
}
