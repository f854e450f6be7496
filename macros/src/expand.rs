//! The expansion: a neva tool handler that builds the brief with the user's function and hands
//! it to the runtime.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{ItemFn, LitStr};

use crate::args::{Approve, Args, Piece, SessionArg, UriTemplate};
use crate::errors::Errors;
use crate::paths::private;
use crate::signature::{Param, Signature};
use crate::valid;

/// Expands `#[orchestrator(attr)] item`. On any error, the function as written followed by
/// every error.
pub(crate) fn orchestrator(attr: TokenStream, item: TokenStream) -> TokenStream {
    let function: ItemFn = match syn::parse2(item.clone()) {
        Ok(function) => function,
        // Not a function at all: keep the tokens so nothing else breaks, and say why.
        Err(error) => {
            let error = error.to_compile_error();
            return quote! { #item #error };
        }
    };
    let mut errors = Errors::default();
    // The errors are reported in the order they are found: keep this order.
    let args = Args::parse(attr, &mut errors);
    valid::arguments(&args, &mut errors);
    let signature = Signature::check(&function, &mut errors);
    valid::against_signature(&args, &signature, &mut errors);
    match errors.into_compile_errors() {
        Some(errors) => quote! { #function #errors },
        None => handler(&function, &args, &signature),
    }
}

/// The tool handler: the user's function inside, the runtime's entry point called once.
fn handler(function: &ItemFn, args: &Args, signature: &Signature) -> TokenStream {
    let private = private();
    let ItemFn {
        attrs, vis, sig, ..
    } = function;
    let name = &sig.ident;
    // The MCP arguments, `Dc`s and `Meta`s are the handler's parameters; a `Context` is its own.
    let params = signature
        .params
        .iter()
        .filter(|param| !param.is_context)
        .map(|Param { ident, ty, .. }| quote! { #ident: #ty });
    let contexts = signature
        .params
        .iter()
        .filter(|param| param.is_context)
        .map(|Param { ident, .. }| quote! { let #ident = ::core::clone::Clone::clone(&__ladoga_ctx); });
    let names = signature.params.iter().map(|param| &param.ident);
    // `session = true`: the id of the conversation to go on with, the tool's own parameter.
    let session_param = matches!(args.session, Some(SessionArg::ById(_))).then(|| {
        quote! { session: ::core::option::Option<::std::string::String> }
    });

    let descr = args
        .descr
        .clone()
        .or_else(|| {
            signature
                .doc
                .as_ref()
                .map(|doc| LitStr::new(doc, Span::call_site()))
        })
        .map(|descr| session_descr(descr, args))
        .map(|descr| quote! { descr = #descr, });
    let neva = &args.neva;

    let model = match &args.model {
        Some(ty) => quote! { #ty },
        None => quote! { #private::Model },
    };
    // Diagnostics about the model type and the brief point at the user's tokens: the call that
    // needs the model to be a `CompletionModel` is spanned on the type, the one that needs a
    // brief on the return type.
    let erase = quote_spanned! { model.span() => #private::model::<#model> };
    let resolve = quote_spanned! { model.span() => #private::resolve::<#model> };
    let output = &signature.output;
    let brief = quote_spanned! { output.span() =>
        {
            #(#contexts)*
            #private::brief(#name(#(#names),*).await)
        }
    };

    let settings = settings(args);
    // Each toolbox is resolved like the model, the call spanned on its type.
    let with = args.with.iter().map(|ty| {
        let resolve = quote_spanned! { ty.span() => #private::toolbox::<#ty> };
        quote! {
            let __ladoga_orchestrator =
                #private::with(__ladoga_orchestrator, #resolve(&__ladoga_ctx)?);
        }
    });
    // Each guard is resolved like a toolbox, the call spanned on its type.
    let guard = args.guard.iter().map(|ty| {
        let resolve = quote_spanned! { ty.span() => #private::guard::<#ty> };
        quote! {
            let __ladoga_orchestrator =
                #private::guarded(__ladoga_orchestrator, #resolve(&__ladoga_ctx)?);
        }
    });
    // The summaries' model is resolved like the model, the call spanned on its type.
    let compact_model = args.compact_model.as_ref().map(|ty| {
        let resolve = quote_spanned! { ty.span() => #private::compact_model::<#ty> };
        quote! {
            let __ladoga_orchestrator =
                #private::compacting(__ladoga_orchestrator, #resolve(&__ladoga_ctx)?);
        }
    });
    // `durable`: a call that compiles only with the runtime's `restate` feature, spanned on it;
    // the tool's name is submitted, for the server to start its tasks on Restate.
    let durable = args.durable.map(|span| {
        let durable = quote_spanned! { span => #private::durable::<()> };
        quote! { let __ladoga_orchestrator = #durable(__ladoga_orchestrator); }
    });
    let durable_tool = args.durable.map(|_| {
        let tool = name.to_string();
        quote! { #private::inventory::submit! { #private::DurableTool(#tool) } }
    });
    let agent = name.to_string();
    let mut inner = function.clone();
    inner.attrs.retain(|attr| !attr.path().is_ident("doc"));
    inner.vis = syn::Visibility::Inherited;

    let briefing = briefing(args, signature);
    // The orchestrator is built before the body runs: the prompt's arguments and the URIs read
    // the parameters the body then takes.
    // The request's `_meta` is read, and dropped, before any await: a value kept across an
    // await stays in the handler's future for the whole run.
    let run = quote! {
        let (__ladoga_task, __ladoga_budget, __ladoga_steer, __ladoga_progress) = {
            let __ladoga_meta = __ladoga_meta;
            (
                #private::task_id(&__ladoga_ctx, &__ladoga_meta.0),
                #private::caller_budget(&__ladoga_meta.0),
                #private::steers(&__ladoga_meta.0),
                __ladoga_meta.0.progress_token,
            )
        };
        let __ladoga_model = #resolve(&__ladoga_ctx)?;
        let __ladoga_orchestrator = #private::Orchestrator::new()
            .name(#agent)
            #settings
            #briefing
            .task(__ladoga_task)
            .caller_budget(__ladoga_budget)
            .steer(__ladoga_steer)
            .progress(__ladoga_progress);
        #(#with)*
        #(#guard)*
        #compact_model
        #durable
        let __ladoga_brief = #brief;
        let __ladoga_model = #erase(&*__ladoga_model);
    };
    // A typed orchestrator returns `Typed<T>`, whose schema neva publishes as `outputSchema`.
    let (returns, body) = match &args.output {
        None => (
            quote! { ::core::result::Result<#private::Report, #private::Error> },
            quote! {
                #run
                #private::answer(&__ladoga_orchestrator, &__ladoga_ctx, __ladoga_model, __ladoga_brief).await
            },
        ),
        // Every use of `T` needs only `Output`, spanned on `T`: a `T` that is not an output type
        // is one error there.
        Some(output) => {
            let answer = quote_spanned! { output.span() => <#output as #private::Output>::answer };
            (
                quote_spanned! { output.span() => #private::Typed<#output> },
                quote! {
                    let __ladoga_answer = async move {
                        #run
                        ::core::result::Result::Ok(#answer(&__ladoga_orchestrator, &__ladoga_ctx, __ladoga_model, __ladoga_brief).await)
                    };
                    __ladoga_answer.await.unwrap_or_else(#private::Typed::failed)
                },
            )
        }
    };

    quote! {
        #(#attrs)*
        #[#private::tool(#descr #(#neva,)*)]
        #vis async fn #name(
            __ladoga_ctx: #private::Context,
            __ladoga_meta: #private::Meta<#private::RequestParamsMeta>,
            #(#params,)*
            #session_param
        ) -> #returns {
            #inner
            #body
        }
        #durable_tool
    }
}

/// The tool's description, telling a model of a tool that keeps sessions by id how to go on.
fn session_descr(descr: LitStr, args: &Args) -> LitStr {
    match args.session {
        Some(SessionArg::ById(_)) => LitStr::new(
            &format!(
                "{} To go on with an earlier conversation, pass the `session` its result gave.",
                descr.value().trim_end()
            ),
            descr.span(),
        ),
        _ => descr,
    }
}

/// The `prompt` and `attach` builder calls. The prompt is offered every MCP parameter whose
/// type serializes, and takes those it declares; each URI is its text with each placeholder
/// replaced by its parameter's `Display`.
fn briefing(args: &Args, signature: &Signature) -> TokenStream {
    let private = private();
    let mut calls = TokenStream::new();
    if let Some(prompt) = &args.prompt {
        let offered: Vec<_> = signature
            .params
            .iter()
            .filter(|param| !param.is_context)
            .map(|Param { ident, .. }| {
                let name = syn::ext::IdentExt::unraw(ident).to_string();
                quote! { (#name, (&#private::PromptArg(&#ident)).prompt_value()) }
            })
            .collect();
        let values = if offered.is_empty() {
            quote! { () }
        } else {
            quote! {{
                use #private::{ByValue as _, NoValue as _};
                [#(#offered),*]
            }}
        };
        calls.extend(quote! { .prompt(#prompt, #values) });
    }
    for uri in &args.attach {
        let uri = uri_expr(uri);
        calls.extend(quote! { .attach(#uri) });
    }
    calls
}

/// The expression of one URI: its pieces concatenated, each placeholder's value checked to be a
/// `UriPart` in a call spanned on the literal.
fn uri_expr(uri: &UriTemplate) -> TokenStream {
    let private = private();
    let span = uri.lit.span();
    let pieces = uri.pieces.iter().map(|piece| match piece {
        Piece::Text(text) => quote! { ::std::string::String::from(#text) },
        Piece::Param(name) => {
            let mut ident: syn::Ident = syn::parse_str(name).expect("checked when parsed");
            ident.set_span(span);
            quote_spanned! { span => #private::uri_part(&#ident) }
        }
    });
    quote! { [#(#pieces),*].concat() }
}

/// The builder calls for the arguments given; defaults are the runtime's.
fn settings(args: &Args) -> TokenStream {
    let private = private();
    let mut calls = TokenStream::new();
    if let Some(system) = &args.system {
        calls.extend(quote! { .system(#system) });
    }
    if let Some(depth) = &args.depth {
        let value = depth.value.get();
        calls.extend(quote_spanned! { depth.span => .depth(const { #private::bound(#value) }) });
    }
    if args.recurse {
        calls.extend(quote! { .recurse(true) });
    }
    if args.ask {
        calls.extend(quote! { .ask(true) });
    }
    if let Some(context) = &args.context {
        let value = context.value.get() as u64;
        calls.extend(
            quote_spanned! { context.span => .context(const { #private::tokens(#value) }) },
        );
    }
    if let Some(timeout) = &args.call_timeout {
        let millis = timeout.millis;
        calls.extend(quote_spanned! { timeout.span =>
            .call_timeout(#private::Duration::from_millis(#millis))
        });
    }
    match &args.session {
        Some(SessionArg::ById(span)) => calls.extend(quote_spanned! { *span =>
            .session(#private::Session::ById).continuing(session)
        }),
        Some(SessionArg::PerCaller(span)) => calls.extend(quote_spanned! { *span =>
            .session(#private::Session::PerCaller)
        }),
        None => {}
    }
    if let Some(ttl) = &args.session_ttl {
        let millis = ttl.millis;
        calls.extend(quote_spanned! { ttl.span =>
            .session_ttl(#private::Duration::from_millis(#millis))
        });
    }
    if let Some(interval) = &args.stream {
        let millis = interval.millis;
        calls.extend(quote_spanned! { interval.span =>
            .stream(#private::Duration::from_millis(#millis))
        });
    }
    match &args.approve {
        Some(Approve::Tools(patterns)) => calls.extend(quote! {
            .approvals(#private::Approvals::tools([#(#private::pattern(#patterns)),*]))
        }),
        Some(Approve::Destructive(span)) => calls.extend(quote_spanned! { *span =>
            .approvals(#private::Approvals::destructive())
        }),
        None => {}
    }
    let limits = limits(args);
    if !args.tools.is_empty() || !args.exclude.is_empty() {
        let only = &args.tools;
        let except = &args.exclude;
        calls.extend(quote! {
            .select(
                #private::ToolSelection::all()
                    .only([#(#private::pattern(#only)),*])
                    .except([#(#private::pattern(#except)),*])
            )
        });
    }
    if !args.defer.is_empty() {
        let deferred = &args.defer;
        calls.extend(quote! { .defer([#(#private::pattern(#deferred)),*]) });
    }
    calls.extend(quote! { .limits(#private::Limits::new() #(#limits)*) });
    if let Some(quota) = &args.quota {
        // An orchestrator's, not a run's `Limits`: it counts across the calls of one caller.
        // Positive and finite, as `Quota::new` needs: checked when the value was parsed.
        let mut dollars = proc_macro2::Literal::f64_unsuffixed(quota.dollars);
        dollars.set_span(quota.span);
        let per = syn::Ident::new(quota.per.variant(), quota.span);
        calls.extend(quote_spanned! { quota.span =>
            .quota(#private::Quota::new(#dollars, #private::Per::#per))
        });
    }
    calls
}

/// The `Limits` builder calls for the bounds given.
fn limits(args: &Args) -> Vec<TokenStream> {
    let private = private();
    let mut calls = Vec::new();
    if let Some(turns) = &args.turns {
        let value = turns.value.get();
        calls.push(quote_spanned! { turns.span => .turns(const { #private::bound(#value) }) });
    }
    if let Some(timeout) = &args.timeout {
        let millis = timeout.millis;
        calls.push(quote_spanned! { timeout.span =>
            .timeout(#private::Duration::from_millis(#millis))
        });
    }
    if let Some(budget) = &args.budget {
        let value = budget.value.get() as u64;
        calls.push(quote_spanned! { budget.span => .budget(const { #private::tokens(#value) }) });
    }
    if let Some(dollars) = &args.budget_usd {
        // Positive and finite, as `Limits::budget_usd` needs: checked when the value was parsed.
        let mut value = proc_macro2::Literal::f64_unsuffixed(dollars.value);
        value.set_span(dollars.span);
        calls.push(quote_spanned! { dollars.span => .budget_usd(#value) });
    }
    if let Some(repeat) = &args.repeat {
        let value = repeat.value.get();
        calls.push(quote_spanned! { repeat.span => .repeat(const { #private::bound(#value) }) });
    }
    if let Some(max) = &args.max_result {
        let value = max.value.get();
        calls.push(quote_spanned! { max.span => .max_result(#value) });
    }
    if let Some(max) = &args.max_arguments {
        let value = max.value.get();
        calls.push(quote_spanned! { max.span => .max_arguments(#value) });
    }
    if let Some(policy) = &args.on_limit {
        calls.push(quote! { .on_limit(#private::OnLimit::#policy) });
    }
    if let Some(retries) = &args.retries {
        calls.push(quote_spanned! { retries.span() => .retries(#retries) });
    }
    calls
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_handler_calls_the_runtime_once() {
        let out = orchestrator(
            quote! { turns = 3, tools = ["add_*"] },
            quote! {
                /// Plans.
                async fn plan(focus: String) -> String { focus }
            },
        )
        .to_string();
        assert!(out.contains("descr = \"Plans.\""), "{out}");
        assert!(out.contains("__ladoga_model"), "{out}");
        assert!(
            out.contains("model :: < :: ladoga :: __private :: Model >"),
            "{out}"
        );
        assert!(out.contains("bound (3usize)"), "{out}");
        assert!(out.contains("pattern (\"add_*\")"), "{out}");
    }

    #[test]
    fn defer_is_one_builder_call_with_its_patterns() {
        let out = orchestrator(
            quote! { defer = ["crm_*", "mail_send"] },
            quote! {
                /// Answers.
                async fn answer(question: String) -> String { question }
            },
        )
        .to_string();
        assert!(
            out.contains(
                ". defer ([:: ladoga :: __private :: pattern (\"crm_*\") , :: ladoga :: __private :: pattern (\"mail_send\")])"
            ),
            "{out}"
        );
    }

    #[test]
    fn prompt_and_attach_are_builder_calls_made_before_the_body_runs() {
        let out = orchestrator(
            quote! { prompt = "review_board", attach = ["board://tasks/{status}"] },
            quote! { async fn review(ctx: Context, status: String) -> String { status } },
        )
        .to_string();
        assert!(out.contains(". prompt (\"review_board\""), "{out}");
        assert!(
            out.contains("(\"status\" , (& :: ladoga :: __private :: PromptArg (& status))"),
            "{out}"
        );
        assert!(!out.contains("PromptArg (& ctx)"), "{out}");
        assert!(out.contains("uri_part (& status)"), "{out}");
        let built = out.find("let __ladoga_orchestrator").unwrap();
        let body = out.find("let __ladoga_brief").unwrap();
        assert!(built < body, "{out}");
    }

    #[test]
    fn a_placeholder_must_name_a_parameter() {
        let out = orchestrator(
            quote! { attach = ["board://tasks/{status}"] },
            quote! { async fn review(focus: String) -> String { focus } },
        )
        .to_string();
        assert!(out.contains("`{status}` is no parameter"), "{out}");
        assert!(out.contains("it has `focus`"), "{out}");
    }

    #[test]
    fn context_and_compact_model_are_builder_calls() {
        let out = orchestrator(
            quote! { context = 20000, compact_model = SmallModel },
            quote! { async fn plan(focus: String) -> String { focus } },
        )
        .to_string();
        assert!(
            out.contains(". context (const { :: ladoga :: __private :: tokens (20000u64) })"),
            "{out}"
        );
        assert!(
            out.contains("compact_model :: < SmallModel > (& __ladoga_ctx)"),
            "{out}"
        );

        let alone = orchestrator(
            quote! { compact_model = SmallModel },
            quote! { async fn plan(focus: String) -> String { focus } },
        )
        .to_string();
        assert!(alone.contains("add `context = 32000`"), "{alone}");
    }

    #[test]
    fn budget_usd_is_a_limits_call_with_a_float() {
        for (attr, call) in [
            (quote! { budget_usd = 0.50 }, ". budget_usd (0.5)"),
            (quote! { budget_usd = 2 }, ". budget_usd (2.0)"),
        ] {
            let out = orchestrator(
                attr,
                quote! { async fn plan(focus: String) -> String { focus } },
            )
            .to_string();
            assert!(out.contains(call), "{out}");
        }
    }

    #[test]
    fn quota_is_an_orchestrator_call_outside_the_limits() {
        for (attr, call) in [
            (
                quote! { quota = "5 USD/day" },
                ". quota (:: ladoga :: __private :: Quota :: new (5.0 , :: ladoga :: __private :: Per :: Day))",
            ),
            (
                quote! { quota = " 0.25 USD / minute " },
                ". quota (:: ladoga :: __private :: Quota :: new (0.25 , :: ladoga :: __private :: Per :: Minute))",
            ),
        ] {
            let out = orchestrator(
                attr,
                quote! { async fn plan(focus: String) -> String { focus } },
            )
            .to_string();
            // Not one of the `Limits`, which are left empty.
            let limits = ". limits (:: ladoga :: __private :: Limits :: new ())";
            let after = out.find(limits).map(|at| &out[at + limits.len()..]);
            assert!(
                after.is_some_and(|after| after.trim_start().starts_with(call)),
                "{out}"
            );
        }
    }

    #[test]
    fn on_error_the_function_is_kept() {
        let out = orchestrator(
            quote! { turns = 0 },
            quote! { async fn plan(focus: String) -> String { focus } },
        )
        .to_string();
        assert!(out.contains("async fn plan"), "{out}");
        assert!(out.contains("compile_error"), "{out}");
        assert!(!out.contains("__ladoga_model"), "{out}");
    }
}
