//! The arguments' unit tests, through `Args::parse`.

use proc_macro2::TokenStream;
use quote::quote;

use super::patterns::why_never_matches;
use super::table::{ARGS, Take};
use super::time::DEFAULT_STREAM_INTERVAL;
use super::values::Per;
use super::{Approve, Args};
use crate::errors::Errors;

fn parse(attr: TokenStream) -> (Args, Option<String>) {
    let mut errors = Errors::default();
    let args = Args::parse(attr, &mut errors);
    (args, errors.into_compile_errors().map(|e| e.to_string()))
}

#[test]
fn typed_values_are_kept() {
    let (args, errors) = parse(quote! {
        system = "s", turns = 3, depth = 2, recurse, tools = ["a_*"], on_limit = "answer",
        model = my::Model<X>, roles = ["admin"], with = [RemoteTools, my::Tools<X>]
    });
    assert!(errors.is_none(), "{errors:?}");
    assert_eq!(args.system.unwrap().value(), "s");
    assert_eq!(args.turns.unwrap().value.get(), 3);
    assert_eq!(args.depth.unwrap().value.get(), 2);
    assert!(args.recurse);
    assert_eq!(args.tools.len(), 1);
    assert_eq!(args.on_limit.unwrap().to_string(), "Answer");
    assert!(args.model.is_some());
    assert_eq!(args.with.len(), 2);
    assert_eq!(args.neva.len(), 1);
}

#[test]
fn approve_takes_patterns_or_destructive() {
    let (args, errors) = parse(quote! { approve = ["clear_*", "wipe"] });
    assert!(errors.is_none(), "{errors:?}");
    assert!(matches!(args.approve, Some(Approve::Tools(patterns)) if patterns.len() == 2));
    let (args, errors) = parse(quote! { approve = destructive });
    assert!(errors.is_none(), "{errors:?}");
    assert!(matches!(args.approve, Some(Approve::Destructive(_))));
    for wrong in [
        quote! { approve = [] },
        quote! { approve = ["clear board"] },
        quote! { approve = "clear_*" },
        quote! { approve = everything },
        quote! { approve },
    ] {
        let (args, errors) = parse(wrong.clone());
        assert!(errors.is_some(), "{wrong}");
        assert!(args.approve.is_none(), "{wrong}");
    }
}

#[test]
fn stream_and_call_timeout_are_checked() {
    let (args, errors) = parse(quote! { stream = true, call_timeout = "20s" });
    assert!(errors.is_none(), "{errors:?}");
    assert_eq!(args.stream.unwrap().millis, DEFAULT_STREAM_INTERVAL);
    assert_eq!(args.call_timeout.unwrap().millis, 20_000);

    let (args, errors) = parse(quote! { stream = false });
    assert!(errors.is_none(), "{errors:?}");
    assert!(args.stream.is_none());
    assert_eq!(
        parse(quote! { stream = "1s" }).0.stream.unwrap().millis,
        1_000
    );

    let errors = parse(quote! { stream = "20ms" }).1.expect("errors");
    assert!(errors.contains("at most ten lines a second"), "{errors}");
    let errors = parse(quote! { stream = 2 }).1.expect("errors");
    assert!(
        errors.contains("expected `true`, `false` or a duration"),
        "{errors}"
    );
    let errors = parse(quote! { call_timeout = "soon" }).1.expect("errors");
    assert!(
        errors.contains("`call_timeout`: write a number"),
        "{errors}"
    );
}

#[test]
fn with_takes_only_a_list_of_types() {
    let (_, errors) = parse(quote! { with = "docs" });
    assert!(errors.unwrap().contains("expected a list of types"));
    let (_, errors) = parse(quote! { with = [1] });
    assert!(errors.is_some());
}

#[test]
fn every_mistake_is_reported_at_once() {
    let (_, errors) = parse(quote! { turns = 0, depth = "4", colour = 1, turns = 2 });
    let errors = errors.expect("errors");
    assert!(errors.contains("at least 1"), "{errors}");
    assert!(errors.contains("expected an integer"), "{errors}");
    assert!(errors.contains("unknown argument `colour`"), "{errors}");
    assert!(errors.contains("duplicate argument `turns`"), "{errors}");
}

#[test]
fn prompt_and_attach_are_checked() {
    let (args, errors) = parse(quote! {
        prompt = "review_board", attach = ["board://tasks", "board://tasks/{status}"]
    });
    assert!(errors.is_none(), "{errors:?}");
    assert_eq!(args.prompt.unwrap().value(), "review_board");
    assert_eq!(args.attach.len(), 2);

    let (_, errors) = parse(quote! { prompt = "", attach = "board://tasks" });
    let errors = errors.expect("errors");
    assert!(errors.contains("names a prompt of the server"), "{errors}");
    assert!(errors.contains("expected a list of strings"), "{errors}");

    let (_, errors) = parse(quote! { attach = ["board://{a"] });
    assert!(errors.expect("errors").contains("never closed"));
}

#[test]
fn patterns_follow_mcp_tool_names() {
    assert!(why_never_matches("add_*").is_none());
    assert!(why_never_matches("board.add").is_none());
    assert!(why_never_matches("").is_some());
    assert!(why_never_matches("add task").is_some());
    assert!(why_never_matches(&"x".repeat(129)).is_some());
}

#[test]
fn every_argument_has_one_row_whose_example_shows_it() {
    for (at, spec) in ARGS.iter().enumerate() {
        assert!(
            ARGS[..at].iter().all(|other| other.name != spec.name),
            "{} has two rows",
            spec.name
        );
        assert!(
            spec.example.starts_with(&format!("`{}", spec.name)),
            "{}: {}",
            spec.name,
            spec.example
        );
    }
}

#[test]
fn a_flag_takes_true_or_false() {
    assert!(parse(quote! { recurse = true }).0.recurse);
    assert!(!parse(quote! { recurse = false }).0.recurse);
    let errors = parse(quote! { recurse = "yes" }).1.expect("errors");
    assert!(
        errors.contains("expected `true` or `false`: `recurse` or `recurse = false`"),
        "{errors}"
    );
    assert!(ARGS.iter().any(|spec| matches!(spec.take, Take::Flag(_))));
}

#[test]
fn ask_is_a_flag() {
    assert!(parse(quote! { ask }).0.ask);
    assert!(!parse(quote! { ask = false }).0.ask);
    let errors = parse(quote! { ask = 3 }).1.expect("errors");
    assert!(
        errors.contains("expected `true` or `false`: `ask` or `ask = false`"),
        "{errors}"
    );
}

#[test]
fn an_argument_without_its_value_says_how_it_is_written() {
    for (attr, message) in [
        (quote! { turns }, "`turns` needs a value: `turns = 8`"),
        (quote! { model }, "`model` needs a value: `model = MyModel`"),
        (
            quote! { with },
            "`with` needs a value: `with = [RemoteTools]`",
        ),
        (
            quote! { middleware },
            "`middleware` needs a value: `middleware = [audit]`",
        ),
    ] {
        let errors = parse(attr).1.expect("errors");
        assert!(errors.contains(message), "{errors}");
    }
}

#[test]
fn defer_takes_at_least_one_pattern() {
    let (args, errors) = parse(quote! { defer = ["crm_*", "mail_send"] });
    assert!(errors.is_none(), "{errors:?}");
    assert_eq!(args.defer.len(), 2);
    for (wrong, told) in [
        (quote! { defer = [] }, "`defer` lists no tool"),
        (
            quote! { defer = ["crm tools"] },
            "can never match a tool name",
        ),
        (quote! { defer = "crm_*" }, "expected a list of strings"),
    ] {
        let (args, errors) = parse(wrong.clone());
        let errors = errors.unwrap_or_default();
        assert!(errors.contains(told), "{wrong}: {errors}");
        assert!(args.defer.is_empty(), "{wrong}");
    }
}

#[test]
fn max_arguments_is_a_positive_number_of_bytes() {
    let (args, errors) = parse(quote! { max_arguments = 4096 });
    assert!(errors.is_none(), "{errors:?}");
    assert_eq!(args.max_arguments.unwrap().value.get(), 4096);
    let errors = parse(quote! { max_arguments = 0 }).1.expect("errors");
    assert!(
        errors.contains("`max_arguments` must be at least 1"),
        "{errors}"
    );
}

#[test]
fn budget_usd_is_a_positive_finite_number_of_dollars() {
    for (attr, dollars) in [
        (quote! { budget_usd = 0.50 }, 0.5),
        (quote! { budget_usd = 2 }, 2.0),
        (quote! { budget_usd = 1.5 }, 1.5),
        (quote! { budget_usd = 0.000125 }, 0.000125),
        (quote! { budget_usd = 3f64 }, 3.0),
    ] {
        let (args, errors) = parse(attr.clone());
        assert!(errors.is_none(), "{attr}: {errors:?}");
        assert_eq!(args.budget_usd.unwrap().value, dollars, "{attr}");
    }
    for (wrong, told) in [
        (
            quote! { budget_usd = 0 },
            "`budget_usd` must be more than 0: `budget_usd = 0.50`",
        ),
        (
            quote! { budget_usd = 0.0 },
            "`budget_usd` must be more than 0",
        ),
        (
            quote! { budget_usd = 1e-400 },
            "`budget_usd` must be more than 0",
        ),
        (
            quote! { budget_usd = -1.0 },
            "`budget_usd` must be more than 0",
        ),
        (
            quote! { budget_usd = -2 },
            "`budget_usd` must be more than 0",
        ),
        (
            quote! { budget_usd = 1e400 },
            "`budget_usd` is too large to be a number of dollars",
        ),
        (
            quote! { budget_usd = "0.50" },
            "expected a number of dollars: `budget_usd = 0.50`",
        ),
        (
            quote! { budget_usd = dollars },
            "expected a number of dollars",
        ),
        (
            quote! { budget_usd = -dollars },
            "expected a number of dollars",
        ),
        (
            quote! { budget_usd = 2u8 },
            "written without the suffix `u8`",
        ),
        (
            quote! { budget_usd },
            "`budget_usd` needs a value: `budget_usd = 0.50`",
        ),
    ] {
        let (args, errors) = parse(wrong.clone());
        let errors = errors.unwrap_or_default();
        assert!(errors.contains(told), "{wrong}: {errors}");
        assert!(args.budget_usd.is_none(), "{wrong}");
    }
}

#[test]
fn quota_is_an_amount_of_dollars_a_minute_an_hour_or_a_day() {
    for (attr, dollars, per) in [
        (quote! { quota = "5 USD/day" }, 5.0, Per::Day),
        (quote! { quota = "0.50 USD/hour" }, 0.5, Per::Hour),
        (quote! { quota = " 0.25 USD / minute " }, 0.25, Per::Minute),
        (quote! { quota = "2USD/day" }, 2.0, Per::Day),
        (quote! { quota = "1.5 USD/ hour" }, 1.5, Per::Hour),
        (quote! { quota = "1e3 USD/day" }, 1000.0, Per::Day),
    ] {
        let (args, errors) = parse(attr.clone());
        assert!(errors.is_none(), "{attr}: {errors:?}");
        let quota = args.quota.unwrap();
        assert_eq!((quota.dollars, quota.per), (dollars, per), "{attr}");
    }
    for (wrong, told) in [
        (
            quote! { quota = 5 },
            "expected a string: `quota = \"5 USD/day\"`",
        ),
        (quote! { quota = five }, "expected a string"),
        (
            quote! { quota = "5 EUR/day" },
            "`5 EUR` is not an amount in `USD`: `quota = \"5 USD/day\"`",
        ),
        (quote! { quota = "5/day" }, "`5` is not an amount in `USD`"),
        (
            quote! { quota = "5 USD/week" },
            "unknown quota window `week`, expected `minute`, `hour` or `day`: `quota = \"5 USD/day\"`",
        ),
        (quote! { quota = "5 USD/Day" }, "unknown quota window `Day`"),
        (quote! { quota = "5 USD/" }, "unknown quota window ``"),
        (
            quote! { quota = "5 USD" },
            "`5 USD` is no quota, which is an amount of US dollars a minute, an hour or a day",
        ),
        (quote! { quota = "" }, "is no quota"),
        (
            quote! { quota = "0 USD/day" },
            "a quota must be more than 0 dollars: `quota = \"5 USD/day\"`",
        ),
        (
            quote! { quota = "0.0 USD/day" },
            "must be more than 0 dollars",
        ),
        (
            quote! { quota = "1e-400 USD/day" },
            "must be more than 0 dollars",
        ),
        (
            quote! { quota = "-5 USD/day" },
            "must be more than 0 dollars",
        ),
        (
            quote! { quota = "-inf USD/day" },
            "must be more than 0 dollars",
        ),
        (
            quote! { quota = "five USD/day" },
            "`five` is not a number of dollars",
        ),
        (
            quote! { quota = "USD/day" },
            "`` is not a number of dollars",
        ),
        (
            quote! { quota = "NaN USD/day" },
            "is not a number of dollars",
        ),
        (
            quote! { quota = "$5 USD/day" },
            "is not a number of dollars",
        ),
        (
            quote! { quota = "1e400 USD/day" },
            "`1e400` is too large to be a number of dollars",
        ),
        (
            quote! { quota },
            "`quota` needs a value: `quota = \"5 USD/day\"`",
        ),
    ] {
        let (args, errors) = parse(wrong.clone());
        // The message as written, not as the string literal of `compile_error!` escapes it.
        let errors = errors.unwrap_or_default().replace("\\\"", "\"");
        assert!(errors.contains(told), "{wrong}: {errors}");
        assert!(args.quota.is_none(), "{wrong}");
    }
}
