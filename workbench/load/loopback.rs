//! Free loopback ports for the servers the tests and the load harness start.
//!
//! A port the kernel hands out for `bind(0)` comes from the range it also gives outgoing
//! connections their local port from (`ip_local_port_range`). Between the moment a test learns
//! such a port and the moment its server binds it, any client on the machine (restate-server
//! talking to itself, a test's HTTP client) may take it, and the server fails to start. A port
//! below that range is only ever taken by a server that asks for it by number.

use std::collections::HashSet;
use std::hash::{BuildHasher, RandomState};
use std::net::{SocketAddr, TcpListener};
use std::sync::{Mutex, PoisonError};

/// The lowest port tried.
const LOWEST: u16 = 10_000;

/// The ports handed out in this process: never twice, so that two tests starting at once never
/// get the same one, free as it is while neither server has bound it yet.
static HANDED_OUT: Mutex<Option<HashSet<u16>>> = Mutex::new(None);

/// A loopback address no one listens on right now, below the kernel's range for outgoing
/// connections, chosen at random and never handed out twice in this process.
pub fn free_addr() -> SocketAddr {
    let below = outgoing_ports_start();
    if below > LOWEST + 1_000 {
        let random = RandomState::new();
        let mut handed_out = HANDED_OUT.lock().unwrap_or_else(PoisonError::into_inner);
        let handed_out = handed_out.get_or_insert_with(HashSet::new);
        for attempt in 0u32..1_000 {
            let port = LOWEST + (random.hash_one(attempt) % u64::from(below - LOWEST)) as u16;
            if handed_out.contains(&port) {
                continue;
            }
            if let Ok(listener) = TcpListener::bind(("127.0.0.1", port)) {
                handed_out.insert(port);
                return listener.local_addr().expect("its address");
            }
        }
    }
    let listener = TcpListener::bind("127.0.0.1:0").expect("a free loopback port");
    listener.local_addr().expect("its address")
}

/// The first port of the kernel's range for outgoing connections (Linux's default when the
/// range cannot be read).
fn outgoing_ports_start() -> u16 {
    std::fs::read_to_string("/proc/sys/net/ipv4/ip_local_port_range")
        .ok()
        .and_then(|range| range.split_whitespace().next()?.parse().ok())
        .unwrap_or(32_768)
}
