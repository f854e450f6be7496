//! Checks across arguments, and of the arguments against the function, made once each argument
//! and the signature are checked alone.

use crate::args::{Args, SessionArg};
use crate::errors::Errors;
use crate::signature::Signature;

/// Records an error where an argument needs another: `retries` needs `output`, `session_ttl`
/// needs `session`.
pub(crate) fn arguments(args: &Args, errors: &mut Errors) {
    if let (Some(ttl), None) = (&args.session_ttl, &args.session) {
        errors.push(syn::Error::new(
            ttl.span,
            "`session_ttl` applies to a tool that keeps sessions: add `session = true` or \
             `session = caller` as well",
        ));
    }
    if let (Some(model), None) = (&args.compact_model, &args.context) {
        errors.at(
            model,
            "`compact_model` writes the summaries of a conversation compacted to its `context`: \
             add `context = 32000` (the most tokens a request may be) as well",
        );
    }
    if let (Some(retries), None) = (&args.retries, &args.output) {
        errors.at(
            retries,
            "`retries` applies to a typed answer: add `output = T` as well",
        );
    }
}

/// Records an error at each `attach` URI with a placeholder that names no parameter, and at a
/// parameter named `session` of a tool that adds its own.
pub(crate) fn against_signature(args: &Args, signature: &Signature, errors: &mut Errors) {
    if let Some(SessionArg::ById(_)) = &args.session
        && let Some(param) = signature
            .params
            .iter()
            .find(|param| param.ident == "session")
    {
        errors.at(
            &param.ident,
            "`session = true` gives the tool a `session` parameter of its own: rename this one",
        );
    }
    let names: Vec<String> = signature
        .params
        .iter()
        .filter(|param| !param.is_context)
        .map(|param| param.ident.to_string())
        .collect();
    for uri in &args.attach {
        for name in uri.params() {
            if !names.iter().any(|known| known == name) {
                let known = if names.is_empty() {
                    "it has none".to_owned()
                } else {
                    let names: Vec<_> = names.iter().map(|name| format!("`{name}`")).collect();
                    format!("it has {}", names.join(", "))
                };
                errors.at(
                    &uri.lit,
                    format!(
                        "`{{{name}}}` is no parameter of this orchestrator: a placeholder in \
                         `attach` stands for a parameter's value, and {known}"
                    ),
                );
            }
        }
    }
}
