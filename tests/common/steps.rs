//! What an OAuth client of `tests/peers/` did, one JSON object per step (`python_oauth.py`,
//! `python_legacy_oauth.py`, `ts_oauth.mjs`).

use serde_json::Value;

/// The steps one client run printed, in order.
pub struct Steps(pub Vec<Value>);

impl Steps {
    /// The steps of `kind`.
    pub fn of(&self, kind: &str) -> Vec<&Value> {
        self.0.iter().filter(|step| step["step"] == kind).collect()
    }

    /// The HTTP exchanges, each as `METHOD URL STATUS`.
    pub fn http(&self) -> Vec<String> {
        self.of("http")
            .iter()
            .map(|step| {
                let url = step["url"].as_str().unwrap_or_default();
                let url = url.split('?').next().unwrap_or(url);
                format!(
                    "{} {url} {}",
                    step["method"].as_str().unwrap_or_default(),
                    step["status"]
                )
            })
            .collect()
    }

    /// The result of each tool call, in order.
    pub fn results(&self) -> Vec<&Value> {
        self.of("result")
    }
}
