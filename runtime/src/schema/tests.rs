//! Schemas from schemars and from real MCP servers, normalized for each profile, checked for
//! their meaning and for the target's rules.

use std::collections::{BTreeMap, HashMap};

use schemars::JsonSchema;
use serde_json::{Value, json};

use super::{SchemaProfile, keywords};

/// A trip: nested structs, enums of both kinds, options and maps.
#[allow(dead_code)]
#[derive(JsonSchema)]
struct Trip {
    /// Where to.
    city: String,
    nights: u32,
    /// Where to sleep, if booked.
    stay: Option<Stay>,
    mode: Mode,
    payment: Payment,
    budget: Option<f64>,
    notes: HashMap<String, String>,
    seats: BTreeMap<String, u32>,
}

#[allow(dead_code)]
#[derive(JsonSchema)]
struct Stay {
    hotel: String,
    breakfast: Option<bool>,
    room: Option<Room>,
}

#[allow(dead_code)]
#[derive(JsonSchema)]
enum Room {
    Single,
    Double,
}

/// How to travel.
#[allow(dead_code)]
#[derive(JsonSchema)]
enum Mode {
    Train,
    Plane,
}

#[allow(dead_code)]
#[derive(JsonSchema)]
enum Payment {
    Card {
        last4: String,
        holder: Option<String>,
    },
    Cash(u32),
    Invoice,
}

/// [`Trip`] without its maps, which OpenAI's strict mode cannot express.
#[allow(dead_code)]
#[derive(JsonSchema)]
struct StrictTrip {
    city: String,
    stay: Option<Stay>,
    mode: Mode,
    payment: Payment,
    budget: Option<f64>,
}

/// A tree: a recursive type.
#[allow(dead_code)]
#[derive(JsonSchema)]
struct Tree {
    label: String,
    children: Vec<Tree>,
}

fn schema_of<T: JsonSchema>() -> Value {
    schemars::schema_for!(T).to_value()
}

fn corpus() -> serde_json::Map<String, Value> {
    serde_json::from_str(include_str!("../../../tests/schemas/mcp_servers.json"))
        .expect("the corpus is JSON")
}

/// Every schema in `schema`, with where it is.
fn each(schema: &Value, at: String, out: &mut Vec<(String, Value)>) {
    let Value::Object(map) = schema else { return };
    out.push((at.clone(), schema.clone()));
    for key in ["properties", "$defs"] {
        if let Some(Value::Object(children)) = map.get(key) {
            for (name, child) in children {
                each(child, format!("{at}/{key}/{name}"), out);
            }
        }
    }
    for key in ["items", "additionalProperties"] {
        if let Some(child) = map.get(key) {
            each(child, format!("{at}/{key}"), out);
        }
    }
    if let Some(Value::Array(branches)) = map.get("anyOf") {
        for (i, branch) in branches.iter().enumerate() {
            each(branch, format!("{at}/anyOf/{i}"), out);
        }
    }
}

/// What `profile`'s target demands of every schema, checked on its own terms.
fn obeys(profile: SchemaProfile, schema: &Value) -> Result<(), String> {
    let mut all = Vec::new();
    each(schema, String::new(), &mut all);
    let text = schema.to_string();
    if text.contains("\"$schema\"") || text.contains("\"definitions\"") {
        return Err("a meta keyword is left".into());
    }
    for (at, node) in &all {
        let map = node.as_object().expect("an object");
        let fail = |why: &str| Err(format!("{at}: {why}: {node}"));
        if let Some(Value::String(reference)) = map.get("$ref") {
            let name = reference.strip_prefix("#/$defs/").unwrap_or_default();
            if !profile.keeps_recursion() || schema["$defs"].get(name).is_none() {
                return fail("a reference is left");
            }
            continue;
        }
        for key in map.keys() {
            let kept = keywords::kept(profile, key)
                || (profile == SchemaProfile::Gemini && key == "nullable");
            if !kept || (!at.is_empty() && key == "$defs") {
                return fail(&format!("`{key}` is not taken"));
            }
        }
        if matches!(profile, SchemaProfile::Portable | SchemaProfile::Gemini)
            && map.get("type").is_some_and(Value::is_array)
        {
            return fail("a list of types");
        }
        if matches!(profile, SchemaProfile::Portable | SchemaProfile::Gemini) {
            if let Some(Value::Array(values)) = map.get("enum")
                && (!values.iter().all(Value::is_string)
                    || map.get("type") != Some(&json!("string")))
            {
                return fail("an enum that is not of strings");
            }
            if let Some(Value::String(format)) = map.get("format")
                && !keywords::format_kept(profile, map.get("type").and_then(Value::as_str), format)
            {
                return fail("a format not taken");
            }
        }
        if profile == SchemaProfile::Gemini && map.get("type") == Some(&json!("null")) {
            return fail("a null type, where Gemini writes `nullable`");
        }
        if profile == SchemaProfile::OpenAiStrict && map.get("type") == Some(&json!("object")) {
            let properties: Vec<&String> = map["properties"]
                .as_object()
                .expect("properties")
                .keys()
                .collect();
            let required: Vec<&str> = map["required"]
                .as_array()
                .expect("required")
                .iter()
                .filter_map(Value::as_str)
                .collect();
            if map.get("additionalProperties") != Some(&json!(false))
                || properties.len() != required.len()
                || properties.iter().any(|p| !required.contains(&p.as_str()))
            {
                return fail("an object not closed, or not all required");
            }
        }
        if profile == SchemaProfile::LlamaCpp
            && let Some(Value::String(pattern)) = map.get("pattern")
            && !(pattern.starts_with('^') && pattern.ends_with('$'))
        {
            return fail("a pattern not anchored");
        }
    }
    Ok(())
}

fn normalized(profile: SchemaProfile, schema: &Value) -> Value {
    let out = profile
        .normalize(schema)
        .unwrap_or_else(|error| panic!("{error}"));
    if let Err(broken) = obeys(profile, &out) {
        panic!("{profile}: {broken}");
    }
    out
}

fn refused(profile: SchemaProfile, schema: &Value) -> String {
    match profile.normalize(schema) {
        Ok(out) => panic!("{profile} wrote {out}"),
        Err(error) => error.to_string(),
    }
}

#[test]
fn the_default_profile_is_portable() {
    assert_eq!(SchemaProfile::default(), SchemaProfile::Portable);
}

#[test]
fn a_schemars_type_is_inlined_and_its_options_nullable_as_each_target_writes_them() {
    let trip = schema_of::<Trip>();
    let portable = normalized(SchemaProfile::Portable, &trip);
    assert_eq!(
        portable["properties"]["stay"]["description"],
        "Where to sleep, if booked."
    );
    let stay = &portable["properties"]["stay"]["anyOf"];
    assert_eq!(stay[1], json!({"type": "null"}));
    assert_eq!(stay[0]["required"], json!(["hotel"]));
    assert_eq!(
        stay[0]["properties"]["room"],
        json!({"anyOf": [{"type": "string", "enum": ["Single", "Double"]}, {"type": "null"}]})
    );
    assert_eq!(
        portable["properties"]["mode"]["enum"],
        json!(["Train", "Plane"])
    );
    assert_eq!(
        portable["properties"]["mode"]["description"],
        "How to travel."
    );
    let payment = portable["properties"]["payment"]["anyOf"]
        .as_array()
        .unwrap();
    assert_eq!(payment.len(), 3, "{payment:?}");
    assert_eq!(payment[0], json!({"type": "string", "enum": ["Invoice"]}));
    assert_eq!(
        payment[1]["properties"]["Card"]["required"],
        json!(["last4"])
    );
    assert_eq!(payment[2]["properties"]["Cash"]["type"], "integer");
    assert_eq!(
        portable["required"],
        json!(["city", "nights", "mode", "payment", "notes", "seats"])
    );
    assert_eq!(
        portable["properties"]["notes"],
        json!({"type": "object", "description": "Any keys; each value: {\"type\":\"string\"}."})
    );

    let gemini = normalized(SchemaProfile::Gemini, &trip);
    assert_eq!(gemini["properties"]["stay"]["nullable"], true);
    assert_eq!(gemini["properties"]["stay"]["type"], "object");
    assert_eq!(
        gemini["properties"]["budget"],
        json!({"type": "number", "format": "double", "nullable": true})
    );
    assert_eq!(
        gemini["properties"]["nights"]["description"],
        "Format: uint32."
    );

    for profile in [SchemaProfile::OpenAi, SchemaProfile::LlamaCpp] {
        let open = normalized(profile, &trip);
        assert_eq!(
            open["properties"]["budget"]["type"],
            json!(["number", "null"])
        );
        assert_eq!(
            open["properties"]["notes"]["additionalProperties"],
            json!({"type": "string"})
        );
        assert_eq!(
            open["properties"]["stay"]["anyOf"][1],
            json!({"type": "null"})
        );
        assert_eq!(
            open["properties"]["stay"]["anyOf"][0]["properties"]["room"],
            json!({"type": ["string", "null"], "enum": ["Single", "Double", null]})
        );
        assert_eq!(
            open["properties"]["payment"]["oneOf"]
                .as_array()
                .unwrap()
                .len(),
            3
        );
    }
}

#[test]
fn strict_mode_closes_every_object_and_makes_the_optional_properties_nullable() {
    let strict = normalized(SchemaProfile::OpenAiStrict, &schema_of::<StrictTrip>());
    assert_eq!(
        strict["required"],
        json!(["budget", "city", "mode", "payment", "stay"])
    );
    assert_eq!(strict["additionalProperties"], false);
    assert_eq!(strict["properties"]["city"], json!({"type": "string"}));
    let stay = &strict["properties"]["stay"]["anyOf"];
    assert_eq!(stay[0]["required"], json!(["breakfast", "hotel", "room"]));
    assert_eq!(
        stay[0]["properties"]["breakfast"]["type"],
        json!(["boolean", "null"])
    );
    let card = &strict["properties"]["payment"]["anyOf"][1]["properties"]["Card"];
    assert_eq!(card["additionalProperties"], false);
    assert_eq!(
        card["properties"]["holder"]["type"],
        json!(["string", "null"])
    );
}

#[test]
fn strict_mode_refuses_a_map_and_says_where_it_is() {
    let told = refused(SchemaProfile::OpenAiStrict, &schema_of::<Trip>());
    assert!(told.contains("OpenAI strict"), "{told}");
    assert!(told.contains("`/properties/notes`"), "{told}");
    assert!(told.contains("a map"), "{told}");
}

#[test]
fn a_recursive_type_stays_recursive_where_the_target_can_and_is_an_error_elsewhere() {
    for schema in [schema_of::<Tree>(), corpus()["outline"].clone()] {
        for profile in [SchemaProfile::Portable, SchemaProfile::Gemini] {
            let told = refused(profile, &schema);
            assert!(told.contains("is recursive"), "{told}");
        }
        for profile in [
            SchemaProfile::OpenAi,
            SchemaProfile::OpenAiStrict,
            SchemaProfile::LlamaCpp,
        ] {
            let out = normalized(profile, &schema);
            let defs = out["$defs"]
                .as_object()
                .expect("the recursive definition is kept");
            assert_eq!(defs.len(), 1, "{out}");
        }
    }
    let tree = normalized(SchemaProfile::LlamaCpp, &schema_of::<Tree>());
    assert_eq!(
        tree["properties"]["children"]["items"],
        json!({"$ref": "#/$defs/root"})
    );
    assert_eq!(
        tree["$defs"]["root"]["required"],
        json!(["label", "children"])
    );
}

#[test]
fn every_schema_of_real_servers_obeys_each_target() {
    for (name, schema) in corpus() {
        for profile in SchemaProfile::ALL {
            let unexpressible = match name.as_str() {
                "outline" => matches!(profile, SchemaProfile::Portable | SchemaProfile::Gemini),
                "http_request" => profile == SchemaProfile::OpenAiStrict,
                _ => false,
            };
            if unexpressible {
                refused(profile, &schema);
                continue;
            }
            let once = normalized(profile, &schema);
            if name != "outline" {
                assert_eq!(
                    normalized(profile, &once),
                    once,
                    "{name}, {profile}: not stable"
                );
            }
        }
    }
}

#[test]
fn the_fetch_server_keeps_what_the_target_refuses_in_its_descriptions() {
    let fetch = &corpus()["fetch"];
    let portable = normalized(SchemaProfile::Portable, fetch);
    assert_eq!(
        portable["properties"]["url"],
        json!({"type": "string", "title": "Url", "description": "URL to fetch. Format: uri."})
    );
    assert_eq!(
        portable["properties"]["max_length"]["description"],
        "Maximum number of characters to return. Default: 5000."
    );
    assert_eq!(portable["required"], json!(["url"]));
    let open = normalized(SchemaProfile::OpenAi, fetch);
    assert_eq!(open, *fetch, "nothing to change for OpenAI");
}

#[test]
fn references_and_nullable_unions_of_a_python_server_are_inlined() {
    let issues = &corpus()["github_list_issues"];
    let gemini = normalized(SchemaProfile::Gemini, issues);
    assert_eq!(
        gemini["properties"]["state"]["enum"],
        json!(["open", "closed", "all"])
    );
    assert_eq!(gemini["properties"]["state"]["default"], "open");
    let labels = &gemini["properties"]["labels"];
    assert_eq!(labels["nullable"], true);
    assert_eq!(labels["items"]["required"], json!(["name"]));
    assert_eq!(labels["items"]["properties"]["color"]["nullable"], true);
    assert_eq!(gemini["properties"]["since"]["format"], "date-time");

    let llama = normalized(SchemaProfile::LlamaCpp, issues);
    assert_eq!(
        llama["properties"]["labels"]["anyOf"][0]["items"]["properties"]["color"]["description"],
        "Pattern: [0-9a-f]{6}."
    );
}

#[test]
fn const_is_a_one_value_enum_and_a_number_enum_is_told_where_strings_are_required() {
    let search = &corpus()["github_search"];
    let portable = normalized(SchemaProfile::Portable, search);
    let target = &portable["properties"]["target"]["anyOf"];
    assert_eq!(
        target[0]["properties"]["kind"],
        json!({"type": "string", "enum": ["issue"]})
    );
    assert_eq!(
        portable["properties"]["per_page"]["description"],
        "One of: 10, 30, 100."
    );
    let strict = normalized(SchemaProfile::OpenAiStrict, search);
    assert_eq!(
        strict["properties"]["per_page"]["enum"],
        json!([10, 30, 100, null])
    );
    let llama = normalized(SchemaProfile::LlamaCpp, search);
    assert_eq!(
        llama["properties"]["target"]["anyOf"][1]["properties"]["full_name"]["pattern"],
        "^[^/]+/[^/]+$"
    );
}

#[test]
fn all_of_is_merged_where_the_target_has_no_all_of() {
    let schema = json!({
        "type": "object",
        "properties": {"who": {"allOf": [
            {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]},
            {"properties": {"age": {"type": "integer"}}, "required": ["age"]}
        ]}}
    });
    let portable = normalized(SchemaProfile::Portable, &schema);
    assert_eq!(
        portable["properties"]["who"]["required"],
        json!(["name", "age"])
    );
    assert_eq!(
        portable["properties"]["who"]["properties"]["age"],
        json!({"type": "integer"})
    );
    let clash = json!({"allOf": [{"type": "string"}, {"type": "integer"}]});
    let told = refused(SchemaProfile::Gemini, &json!({"properties": {"x": clash}}));
    assert!(told.contains("`/properties/x/allOf`"), "{told}");
}

#[test]
fn a_reference_that_cannot_be_resolved_is_an_error() {
    let remote = json!({"properties": {"a": {"$ref": "https://example.com/a.json"}}});
    let told = refused(SchemaProfile::OpenAi, &remote);
    assert!(told.contains("not local"), "{told}");
    let dangling = json!({"properties": {"a": {"$ref": "#/$defs/Missing"}}});
    assert!(refused(SchemaProfile::Portable, &dangling).contains("points to nothing"));
}

#[test]
fn a_tool_is_refused_for_its_name_or_its_schema_naming_it() {
    let dotted = svir::Tool::new("files.read", "Reads");
    let told = SchemaProfile::Portable.tool(dotted).unwrap_err();
    assert_eq!(told.tool(), Some("files.read"));
    assert!(told.to_string().contains("`files.read`"), "{told}");
    let long = svir::Tool::new("a".repeat(65), "Long");
    assert!(SchemaProfile::OpenAi.tool(long).is_err());
    assert!(
        SchemaProfile::OpenAi
            .tool(svir::Tool::new("a".repeat(64), "Long"))
            .is_ok()
    );

    let tree = svir::Tool::new("walk", "Walks").schema(schema_of::<Tree>());
    let told = SchemaProfile::Gemini.tool(tree).unwrap_err().to_string();
    assert!(
        told.starts_with("the tool `walk`'s input schema cannot be written for the Gemini profile"),
        "{told}"
    );
}

#[test]
fn an_input_that_is_not_an_object_is_an_error() {
    let told = refused(SchemaProfile::Portable, &json!({"type": "string"}));
    assert!(told.contains("must be an object"), "{told}");
    let empty = normalized(SchemaProfile::OpenAiStrict, &json!({}));
    assert_eq!(
        empty,
        json!({"type": "object", "properties": {}, "required": [], "additionalProperties": false})
    );
}
