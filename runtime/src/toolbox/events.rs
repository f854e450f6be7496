//! Server-sent events cut out of a response body as its chunks come, for the guard
//! (`toolbox/guard.rs`) to check one by one.

use std::collections::VecDeque;

/// Server-sent events cut out of a body as its chunks come: each ends at a blank line.
#[derive(Debug, Default)]
pub(crate) struct Events {
    buffer: VecDeque<u8>,
    /// Where the line being read starts.
    line: usize,
    /// How far the buffer has been read for line ends.
    scanned: usize,
    /// Whether the last byte read was a `\r` that ended its chunk: a `\n` first in the next
    /// one belongs to it.
    after_cr: bool,
}

impl Events {
    /// Adds a chunk of the body.
    pub(crate) fn push(&mut self, chunk: &[u8]) {
        self.buffer.extend(chunk);
    }

    /// How many bytes are held: those of an event not ended yet.
    pub(crate) fn len(&self) -> usize {
        self.buffer.len()
    }

    /// The next whole event, if one has come; at the `end` of the body, what is left as one.
    /// Line ends are `\n`, `\r\n` or `\r`.
    pub(crate) fn next(&mut self, end: bool) -> Option<Vec<u8>> {
        if self.after_cr && self.scanned < self.buffer.len() {
            if self.buffer[self.scanned] == b'\n' {
                self.buffer.remove(self.scanned);
            }
            self.after_cr = false;
        }
        while self.scanned < self.buffer.len() {
            let at = self.scanned;
            let after = match self.buffer[at] {
                b'\n' => at + 1,
                b'\r' => match self.buffer.get(at + 1) {
                    Some(b'\n') => at + 2,
                    Some(_) => at + 1,
                    // Not held back for the next chunk, which may be long in coming.
                    None => {
                        self.after_cr = !end;
                        at + 1
                    }
                },
                _ => {
                    self.scanned += 1;
                    continue;
                }
            };
            let blank = at == self.line;
            self.scanned = after;
            self.line = after;
            if blank {
                let event: Vec<u8> = self.buffer.drain(..after).collect();
                self.scanned = 0;
                self.line = 0;
                // A normalized copy: `\r` line ends become `\n` ones, which every reader takes.
                return Some(normalized(&event));
            }
        }
        if end && !self.buffer.is_empty() {
            let event: Vec<u8> = self.buffer.drain(..).collect();
            self.scanned = 0;
            self.line = 0;
            return Some(normalized(&event));
        }
        None
    }
}

/// `event` with `\r\n` and `\r` line ends written as `\n`.
fn normalized(event: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(event.len());
    let mut bytes = event.iter().peekable();
    while let Some(&byte) = bytes.next() {
        if byte == b'\r' {
            if bytes.peek() == Some(&&b'\n') {
                bytes.next();
            }
            out.push(b'\n');
        } else {
            out.push(byte);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_ending_a_chunk_in_a_carriage_return_comes_out_at_once() {
        let mut events = Events::default();
        events.push(b"data: 1\r\r");
        assert_eq!(events.next(false).as_deref(), Some(&b"data: 1\n\n"[..]));
        events.push(b"\ndata: 2\r\n\r\n");
        assert_eq!(events.next(false).as_deref(), Some(&b"data: 2\n\n"[..]));
        assert_eq!(events.next(false), None);
    }
}
