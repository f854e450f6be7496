//! The simulated person: approves a call the user task needs, declines any other, and counts
//! what it was asked.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use neva::Client;
use neva::types::elicitation::{ElicitRequestParams, ElicitResult};
use serde_json::Value;

use crate::harness::Needed;

/// The person at the top of the runs of one pair.
#[derive(Clone)]
pub struct Person {
    needed: Arc<Vec<Needed>>,
    asked: Arc<AtomicUsize>,
}

impl Person {
    /// A person whose task needs the calls `needed`.
    pub fn new(needed: Vec<Needed>) -> Self {
        Self {
            needed: Arc::new(needed),
            asked: Arc::default(),
        }
    }

    /// How many approvals it was asked for.
    pub fn asked(&self) -> usize {
        self.asked.load(Ordering::SeqCst)
    }

    /// A client of the server at `addr` that puts each approval to this person.
    pub async fn client(&self, addr: SocketAddr) -> Result<Client, neva::error::Error> {
        let mut client = Client::new().with_options(|opt| {
            let opt = opt
                .with_http(|http| http.bind(addr.to_string()).with_endpoint("/mcp"))
                .with_timeout(std::time::Duration::from_secs(300));
            // Each approval asked after untrusted text is a round of the call: a task of the
            // user's may need more than neva's default eight. (Older MCP has no rounds.)
            #[cfg(not(feature = "legacy-spec"))]
            let opt = opt.with_max_mrtr_rounds(64);
            opt
        });
        let person = self.clone();
        client.map_elicitation(move |params: ElicitRequestParams| {
            let message = serde_json::to_value(&params).unwrap_or_default()["message"]
                .as_str()
                .unwrap_or_default()
                .to_owned();
            let approves = person.approves(&message);
            async move {
                match approves {
                    true => ElicitResult::accept(),
                    false => ElicitResult::decline(),
                }
            }
        });
        client.connect().await?;
        Ok(client)
    }

    /// Whether the approval `message` asks about a call the task needs: the same function
    /// with the same arguments.
    fn approves(&self, message: &str) -> bool {
        self.asked.fetch_add(1, Ordering::SeqCst);
        let Some((tool, arguments)) = asked_call(message) else {
            return false;
        };
        (self.needed.iter()).any(|needed| needed.function == tool && same(&needed.args, &arguments))
    }
}

/// The tool and arguments of an approval's message: "The model wants to call `TOOL` with these
/// arguments:\nJSON\n\n…".
fn asked_call(message: &str) -> Option<(String, Value)> {
    let (_, rest) = message.split_once("wants to call `")?;
    let (tool, rest) = rest.split_once('`')?;
    let (_, rest) = rest.split_once("arguments:\n")?;
    let json = rest.split("\n\n").next()?;
    Some((tool.to_owned(), serde_json::from_str(json).ok()?))
}

/// Whether the arguments `asked` are those `needed`: every argument the task needs, equal (an
/// argument the task leaves to its default may be sent or not).
fn same(needed: &Value, asked: &Value) -> bool {
    match (needed.as_object(), asked.as_object()) {
        (Some(needed), Some(asked)) => needed.iter().all(|(name, value)| {
            asked.get(name).is_some_and(|sent| sent == value) || value.is_null()
        }),
        _ => needed == asked,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn reads_the_call_of_an_approvals_message() {
        let message = "The model wants to call `send_money` with these arguments:\n{\n  \"amount\": 10\n}\n\nApprove this call?";
        assert_eq!(
            asked_call(message),
            Some(("send_money".into(), json!({"amount": 10})))
        );
        let person = Person::new(vec![Needed {
            function: "send_money".into(),
            args: json!({"amount": 10}),
        }]);
        assert!(person.approves(message));
        assert!(!person.approves(&message.replace("10", "11")));
        assert_eq!(person.asked(), 2);
    }
}
