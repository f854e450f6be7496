//! The handles of the series Ladoga records, registered once per recorder and found again.
//!
//! Registering a series builds its key (its labels, in a new `Vec`), hashes it and looks it up
//! in the recorder: about ten times what recording into the handle costs. Each series a run
//! records is one of few (a metric, its fixed label values, and a model or tool name the server
//! configured or offered), so its handle is kept here, by the recorder it came from: a recorder
//! installed later, or a test's local one, gets its own. A recorder is told apart by its
//! address: the global one lives as long as the process, and a local one must too (leak it),
//! or a later one at its address would be given its handles.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{OnceLock, RwLock};

use metrics::{Counter, Gauge, Histogram};

/// The most handles kept of one kind; past it a series is registered at each recording.
const MOST_KEPT: usize = 4096;

/// One series: its metric, up to two label values fixed in the code, and a name (a model's or a
/// tool's) or `""`. Two series of a metric differ in one of these, or are the same.
#[derive(Clone, Copy)]
pub(super) struct Series<'a> {
    pub metric: &'static str,
    pub fixed: [&'static str; 2],
    pub name: &'a str,
}

impl Series<'_> {
    /// A digest of the series within the recorder at `recorder`: of the name's bytes, and of
    /// where the strings fixed in the code are (the same at each recording from one place).
    fn digest(&self, recorder: usize) -> u64 {
        let mut hasher = Fnv::default();
        hasher.write(self.name.as_bytes());
        for part in [self.metric, self.fixed[0], self.fixed[1]] {
            hasher.write_usize(part.as_ptr() as usize);
        }
        hasher.write_usize(recorder);
        hasher.finish()
    }
}

/// A kept handle, with what it is the handle of.
struct Kept<H> {
    recorder: usize,
    metric: &'static str,
    fixed: [&'static str; 2],
    name: Box<str>,
    handle: H,
}

impl<H> Kept<H> {
    fn is(&self, recorder: usize, series: &Series<'_>) -> bool {
        self.recorder == recorder
            && std::ptr::eq(self.metric, series.metric)
            && std::ptr::eq(self.fixed[0], series.fixed[0])
            && std::ptr::eq(self.fixed[1], series.fixed[1])
            && *self.name == *series.name
    }
}

/// The kept handles of one kind, by digest.
type Handles<H> = RwLock<HashMap<u64, Kept<H>, BuildHasherDefault<Digested>>>;

/// The handle of `series` in the current recorder: kept, else made by `register` and kept.
fn handle<H: Clone>(kept: &Handles<H>, series: Series<'_>, register: impl FnOnce() -> H) -> H {
    // The recorder's address tells one recorder from another: the global one is set once.
    let recorder =
        metrics::with_recorder(|recorder| std::ptr::from_ref(recorder).cast::<()>() as usize);
    let digest = series.digest(recorder);
    let read = kept.read().unwrap_or_else(|poisoned| poisoned.into_inner());
    match read.get(&digest) {
        Some(found) if found.is(recorder, &series) => return found.handle.clone(),
        // Another series with the same digest: registered each time.
        Some(_) => return register(),
        None if read.len() >= MOST_KEPT => return register(),
        None => {}
    }
    drop(read);
    let handle = register();
    let mut write = kept
        .write()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    write.entry(digest).or_insert_with(|| Kept {
        recorder,
        metric: series.metric,
        fixed: series.fixed,
        name: series.name.into(),
        handle: handle.clone(),
    });
    handle
}

/// The counter of `series`, registered by `register` the first time.
pub(super) fn counter(series: Series<'_>, register: impl FnOnce() -> Counter) -> Counter {
    static KEPT: OnceLock<Handles<Counter>> = OnceLock::new();
    handle(KEPT.get_or_init(Handles::default), series, register)
}

/// The gauge of `series`, registered by `register` the first time.
pub(super) fn gauge(series: Series<'_>, register: impl FnOnce() -> Gauge) -> Gauge {
    static KEPT: OnceLock<Handles<Gauge>> = OnceLock::new();
    handle(KEPT.get_or_init(Handles::default), series, register)
}

/// The histogram of `series`, registered by `register` the first time.
pub(super) fn histogram(series: Series<'_>, register: impl FnOnce() -> Histogram) -> Histogram {
    static KEPT: OnceLock<Handles<Histogram>> = OnceLock::new();
    handle(KEPT.get_or_init(Handles::default), series, register)
}

/// FNV-1a: a few instructions a byte of a name, one step an address.
struct Fnv(u64);

impl Default for Fnv {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(0x0100_0000_01b3);
        }
    }

    /// A whole word at a time: an address.
    fn write_usize(&mut self, word: usize) {
        self.0 = (self.0 ^ word as u64).wrapping_mul(0x0100_0000_01b3);
    }
}

/// A map keyed by a digest already: its hash is the digest.
#[derive(Default)]
struct Digested(u64);

impl Hasher for Digested {
    fn finish(&self) -> u64 {
        self.0
    }

    fn write(&mut self, bytes: &[u8]) {
        for byte in bytes {
            self.0 = (self.0 << 8) | u64::from(*byte);
        }
    }

    fn write_u64(&mut self, digest: u64) {
        self.0 = digest;
    }
}
