//! The `hello` example as a newcomer runs it: the real binary over HTTP, a real MCP client, and
//! the scripted model behind real HTTP, named by the environment variables `board` reads too.

use std::process::Stdio;

use crate::common::{self, answer, connect, free_addr, wait_for};
use ladoga::testing::{Reply, ScriptedModel};
use serde_json::json;

#[tokio::test]
async fn say_hello_runs_the_tool_the_model_calls_and_answers_with_the_models_text() {
    let script = ScriptedModel::new([
        Reply::call("hello_in", json!({"language": "Finnish"})),
        Reply::text("Hei, Ada!"),
    ]);
    let model = script.serve().await.expect("the scripted model serves");
    let addr = free_addr();
    let mut hello = tokio::process::Command::new(common::exe("hello"))
        .arg(addr.to_string())
        .env("LADOGA_MODEL_URL", model.url())
        .env("LADOGA_MODEL", "scripted")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .expect("the hello binary starts");
    wait_for(addr).await;
    let client = connect(addr).await;

    let result = client
        .tools()
        .call("say_hello", [("name", "Ada"), ("language", "Finnish")])
        .await
        .expect("tools/call");
    assert!(!result.is_error, "{result:?}");
    assert_eq!(answer(&result), "Hei, Ada!");

    let requests = script.requests();
    assert_eq!(requests.len(), 2, "one request per model answer");
    assert_eq!(requests[0].model(), "scripted");
    assert_eq!(
        requests[0].first_user_text().unwrap(),
        "Say hello to Ada in Finnish."
    );
    assert_eq!(
        requests[0].tool_names(),
        ["hello_in"],
        "say_hello is not offered"
    );
    // The model's call reached the tool, and its result went back to the model.
    let results = requests[1].tool_results();
    assert_eq!(results.len(), 1, "{results:?}");
    assert_eq!(results[0].1, "Hei", "{results:?}");

    client.disconnect().await.expect("disconnects");
    hello.kill().await.expect("hello stops");
    drop(model);
}
