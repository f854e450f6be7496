//! The board's live heap: the bytes its allocator has handed out and not had back, counted as
//! they go, for `--admin`'s `/metrics` (`board_heap_live_bytes`). Beside the resident memory it
//! tells a leak (live bytes that stay) from memory the allocator keeps after a burst (live bytes
//! back down, resident memory not).

use std::alloc::{GlobalAlloc, Layout, System};
use std::sync::atomic::{AtomicUsize, Ordering};

static LIVE: AtomicUsize = AtomicUsize::new(0);

/// The system allocator, counting the bytes live.
pub struct Counting;

// SAFETY: every call is passed on unchanged to the system allocator.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller keeps `GlobalAlloc::alloc`'s contract.
        let ptr = unsafe { System.alloc(layout) };
        if !ptr.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        // SAFETY: the caller keeps `GlobalAlloc::alloc_zeroed`'s contract.
        let ptr = unsafe { System.alloc_zeroed(layout) };
        if !ptr.is_null() {
            LIVE.fetch_add(layout.size(), Ordering::Relaxed);
        }
        ptr
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: the caller keeps `GlobalAlloc::dealloc`'s contract.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        // SAFETY: the caller keeps `GlobalAlloc::realloc`'s contract.
        let moved = unsafe { System.realloc(ptr, layout, new_size) };
        if !moved.is_null() {
            LIVE.fetch_add(new_size, Ordering::Relaxed);
            LIVE.fetch_sub(layout.size(), Ordering::Relaxed);
        }
        moved
    }
}

#[global_allocator]
static COUNTING: Counting = Counting;

/// The bytes allocated and not yet freed, now.
pub fn live() -> usize {
    LIVE.load(Ordering::Relaxed)
}

/// The live heap as Prometheus' text format has a gauge.
pub fn metric() -> String {
    format!(
        "# HELP board_heap_live_bytes The bytes the board's allocator has handed out and not had back.\n\
         # TYPE board_heap_live_bytes gauge\n\
         board_heap_live_bytes {}\n",
        live()
    )
}

/// How often the board hands its allocator's free pages back to the system.
const TRIM_EVERY: std::time::Duration = std::time::Duration::from_secs(10);

/// Hands the heap's free pages back to the system every [`TRIM_EVERY`], for as long as the
/// process runs: after a burst glibc's allocator keeps the pages it freed (a board that served
/// 1,000 calls at once stays at five times its resident memory), and only `malloc_trim` returns
/// those in the middle of its heaps. Call it once, in a tokio runtime.
pub fn trim_now_and_then() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    tokio::spawn(async {
        loop {
            tokio::time::sleep(TRIM_EVERY).await;
            // On a blocking thread: it walks every arena, taking each one's lock in turn.
            let _ = tokio::task::spawn_blocking(|| {
                // SAFETY: `malloc_trim` takes no pointer and is safe to call at any time.
                unsafe { libc::malloc_trim(0) };
            })
            .await;
        }
    });
}
