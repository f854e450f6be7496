//! Checks across arguments, and of the arguments against the function, made once each argument
//! and the signature are checked alone.

use crate::args::Args;
use crate::errors::Errors;
use crate::signature::Signature;

/// Records an error where an argument needs another: `retries` needs `output`.
pub(crate) fn arguments(args: &Args, errors: &mut Errors) {
    if let (Some(retries), None) = (&args.retries, &args.output) {
        errors.at(
            retries,
            "`retries` applies to a typed answer: add `output = T` as well",
        );
    }
}

/// Records an error at each `attach` URI with a placeholder that names no parameter.
pub(crate) fn against_signature(args: &Args, signature: &Signature, errors: &mut Errors) {
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
