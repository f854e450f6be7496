//! Who a session belongs to: the caller of a tool call.

/// The caller of `ctx`'s call who owns what it starts: its token's issuer and subject, if its
/// call carries a token.
pub(crate) fn of(ctx: &neva::Context) -> Option<String> {
    of_claims(ctx.claims()?)
}

/// The principal `claims` name: their issuer and subject; none without a subject.
pub(crate) fn of_claims(claims: &dyn neva::auth::Claims) -> Option<String> {
    // A subject is unique within its issuer only.
    let subject = claims.subject()?;
    Some(format!(
        "token:{}\u{0}{subject}",
        claims.issuer().unwrap_or("")
    ))
}

/// The caller `ctx`'s call comes from, for a conversation per caller: its token's issuer and
/// subject, else, under `legacy-spec`, its MCP session (`Mcp-Session-Id`); MCP 2026-07-28 has
/// no session to tell a caller by.
pub(crate) fn caller(ctx: &neva::Context) -> Option<String> {
    #[cfg(feature = "legacy-spec")]
    if ctx.claims().is_none() {
        return ctx.session_id.map(|id| format!("mcp-session:{id}"));
    }
    of(ctx)
}

pub(crate) use crate::toolbox::arguments::digest;
