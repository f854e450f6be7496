//! How much one remote server may put in front of the model, on every request of every run.

use std::io;

use neva::types::Tool;

/// The tools of one remote server ([`LiveTools`](crate::LiveTools)) offered at most: past it,
/// the rest of its listing is left out, and the log says so once, with the count. OpenAI takes
/// at most 128 tools in one request; and each tool offered is sent again on every request.
pub const MAX_REMOTE_TOOLS: usize = 128;

/// The bytes one remote tool may take in a request at most: its name, its description and its
/// input schema as JSON. A tool past it is left out, and the log says so once. A large schema
/// (a 100,000-value `enum`) would be sent, and paid for, on every request of every run.
pub const MAX_REMOTE_TOOL_BYTES: usize = 64 * 1024;

/// The bytes the tools of one remote server may take in a request at most, all together, each
/// counted as for [`MAX_REMOTE_TOOL_BYTES`]: a tool that would take them past it is left out,
/// and the log says so once, with the count. Without it, 128 tools of 64 KiB would send 8 MiB
/// on every request.
pub const MAX_REMOTE_BYTES: usize = 512 * 1024;

/// How deep one remote tool's input schema may nest at most, in JSON objects and arrays (a
/// property of an object is two levels: `properties`, then the property). A tool past it is left
/// out, and the log says so once: normalizing a schema walks it, and no provider takes one so
/// deep.
pub const MAX_REMOTE_SCHEMA_DEPTH: usize = 64;

/// The bytes `tool` takes in a request (its name, its description and its input schema as
/// JSON), or why it is too large to offer: past [`MAX_REMOTE_TOOL_BYTES`] or
/// [`MAX_REMOTE_SCHEMA_DEPTH`]. Measured as it is written out, stopping at the bound, so a
/// 5 MB schema costs 64 KiB of work and no copy.
pub(super) fn measured(tool: &Tool) -> Result<usize, String> {
    let description = tool.descr.as_ref().or(tool.title.as_ref());
    let mut measure = Measure {
        bytes: tool.name.len() + description.map_or(0, String::len),
        ..Measure::default()
    };
    if measure.bytes > MAX_REMOTE_TOOL_BYTES {
        return Err(too_large());
    }
    match serde_json::to_writer(&mut measure, &tool.input_schema) {
        Ok(()) => Ok(measure.bytes),
        Err(_) if measure.deepest > MAX_REMOTE_SCHEMA_DEPTH => Err(format!(
            "its input schema nests deeper than {MAX_REMOTE_SCHEMA_DEPTH} levels \
             (MAX_REMOTE_SCHEMA_DEPTH)"
        )),
        Err(_) if measure.bytes > MAX_REMOTE_TOOL_BYTES => Err(too_large()),
        Err(error) => Err(format!(
            "its input schema cannot be written as JSON: {error}"
        )),
    }
}

fn too_large() -> String {
    format!(
        "its name, description and input schema take more than {MAX_REMOTE_TOOL_BYTES} bytes \
         (MAX_REMOTE_TOOL_BYTES)"
    )
}

/// Counts the bytes and the nesting of JSON written to it, and refuses to take more past
/// either bound.
#[derive(Default)]
struct Measure {
    bytes: usize,
    depth: usize,
    deepest: usize,
    in_string: bool,
    escaped: bool,
}

impl io::Write for Measure {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.bytes += buf.len();
        if self.bytes > MAX_REMOTE_TOOL_BYTES {
            return Err(io::Error::other("too large"));
        }
        for &byte in buf {
            match (self.in_string, self.escaped, byte) {
                (true, true, _) => self.escaped = false,
                (true, false, b'\\') => self.escaped = true,
                (true, false, b'"') | (false, _, b'"') => self.in_string = !self.in_string,
                (false, _, b'{' | b'[') => {
                    self.depth += 1;
                    self.deepest = self.deepest.max(self.depth);
                }
                (false, _, b'}' | b']') => self.depth = self.depth.saturating_sub(1),
                _ => {}
            }
        }
        if self.deepest > MAX_REMOTE_SCHEMA_DEPTH {
            return Err(io::Error::other("too deep"));
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;

    fn tool(schema: Value) -> Tool {
        serde_json::from_value(json!({"name": "t", "inputSchema": schema})).expect("a tool")
    }

    #[test]
    fn an_ordinary_tool_is_measured_as_it_is_sent() {
        let schema = json!({"type": "object", "properties": {"city": {"type": "string", "description": "a \"quoted\" {brace"}}});
        let sent = serde_json::to_string(&tool(schema.clone()).input_schema).expect("JSON");
        assert_eq!(measured(&tool(schema)), Ok("t".len() + sent.len()));
    }

    #[test]
    fn a_schema_past_the_depth_bound_is_left_out_and_one_within_it_is_not() {
        // An object schema whose one property nests `levels` objects deep.
        let nested = |levels| {
            (0..levels).fold(
                json!({"type": "string"}),
                |inner, _| json!({"type": "object", "properties": {"a": inner}}),
            )
        };
        assert!(measured(&tool(nested(30))).is_ok(), "61 levels");
        let told = measured(&tool(nested(40))).expect_err("81 levels");
        assert!(told.contains("deeper than 64"), "{told}");
    }

    #[test]
    fn a_large_schema_or_description_is_left_out() {
        let properties: serde_json::Map<String, Value> = (0..5000)
            .map(|at| (format!("property_{at:05}"), json!({"type": "string"})))
            .collect();
        let big = tool(json!({"type": "object", "properties": properties}));
        let told = measured(&big).expect_err("about 150 KB");
        assert!(told.contains("more than 65536 bytes"), "{told}");

        let mut described = tool(json!({"type": "object"}));
        described.descr = Some("x".repeat(MAX_REMOTE_TOOL_BYTES));
        assert!(measured(&described).is_err());
        described.descr = Some("x".repeat(1000));
        assert!(measured(&described).is_ok());
    }
}
