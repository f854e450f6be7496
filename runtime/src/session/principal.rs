//! Who a session belongs to: the caller of a tool call.

use sha2::{Digest, Sha256};

/// The caller of `ctx`'s call: its token's issuer and subject, else its MCP session, else none.
pub(super) fn of(ctx: &neva::Context) -> Option<String> {
    if let Some(subject) = ctx.claims().and_then(|claims| claims.subject()) {
        // A subject is unique within its issuer only.
        let issuer = ctx.claims().and_then(|claims| claims.issuer()).unwrap_or("");
        return Some(format!("token:{issuer}\u{0}{subject}"));
    }
    ctx.session_id.map(|id| format!("mcp-session:{id}"))
}

/// The key of `principal`'s one conversation: a digest, so no store key spells who it is.
pub(super) fn key(principal: &str) -> String {
    let digest = Sha256::digest(principal.as_bytes());
    digest.iter().map(|byte| format!("{byte:02x}")).collect()
}
