//! Running work on the thread pool. `for_each_chunk`: run chunks `0..n` of
//! one job on the calling thread and the pool's workers together; `install`,
//! `join`, `par_range`: rayon's, each through one non-generic call (see
//! `install`); `par_chunks`, `par_chunks_mut`: a slice's chunks over
//! `par_range`. Code that runs on the pool goes through these.
//!
//! `for_each_chunk`: the caller claims chunks from the front, the
//! workers from the back, so each thread walks memory in one direction and the
//! two meet wherever the work balances.
//!
//! `pool().install` parks the calling thread while the pool works: a call pays
//! for waking a sleeping worker before any work starts and for waking the caller
//! after the last chunk. On a VM whose idle vCPUs halt, each wake-up costs tens
//! of microseconds, and its spread widens the spread of a millisecond-long
//! reduction. Here the caller starts on chunk 0 at once, the workers join as
//! they wake, and chunks go to whoever is free, so a late worker costs only the
//! chunks it did not take. The caller waits only for chunks another thread has
//! claimed and not finished: it spins for at most [`SPIN`], then parks.

use rayon::prelude::*;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::Thread;
use std::time::{Duration, Instant};

/// How long the caller spins for chunks still running elsewhere before it
/// parks. A chunk is meant to be some tens of microseconds of work.
const SPIN: Duration = Duration::from_micros(50);

type Task = dyn Fn(usize) + Sync;
type Panic = Box<dyn std::any::Any + Send>;

/// The job's closure, with its lifetime erased (see `for_each_chunk`).
struct TaskPtr(*const Task);

// SAFETY: the pointee is `Sync`, so calling it from any thread is sound; the
// pointer is dereferenced only while `for_each_chunk` keeps the closure alive.
unsafe impl Send for TaskPtr {}
// SAFETY: as for Send.
unsafe impl Sync for TaskPtr {}

struct Shared {
    /// The unclaimed chunks `lo..hi`, packed as `lo | hi << 32`.
    left: AtomicU64,
    /// Chunks finished.
    done: AtomicUsize,
    n: usize,
    task: TaskPtr,
    caller: Thread,
    panic: Mutex<Option<Panic>>,
}

impl Shared {
    /// Claim one chunk: the lowest unclaimed from the front, the highest from the back.
    fn claim(&self, front: bool) -> Option<usize> {
        let mut s = self.left.load(Ordering::Relaxed);
        loop {
            let (lo, hi) = (s & u64::from(u32::MAX), s >> 32);
            if lo >= hi {
                return None;
            }
            let (next, i) = if front {
                (s + 1, lo)
            } else {
                (s - (1 << 32), hi - 1)
            };
            match self
                .left
                .compare_exchange_weak(s, next, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => return Some(i as usize),
                Err(now) => s = now,
            }
        }
    }

    /// Claim and run chunks until none is left.
    fn work(&self, front: bool) {
        while let Some(i) = self.claim(front) {
            // SAFETY: chunk `i` is claimed and not yet counted in `done`, so
            // `for_each_chunk` has not returned and the closure is alive.
            let f = unsafe { &*self.task.0 };
            if let Err(p) = catch_unwind(AssertUnwindSafe(|| f(i))) {
                let mut slot = self.panic.lock().unwrap_or_else(|e| e.into_inner());
                slot.get_or_insert(p);
            }
            // Release: the chunk's writes happen before the caller sees the count.
            if self.done.fetch_add(1, Ordering::AcqRel) + 1 == self.n {
                self.caller.unpark();
            }
        }
    }
}

/// Call `f(i)` for every `i` in `0..n`, spread over the calling thread and the
/// pool. Chunks run in no particular order and on any thread; `f` must write
/// only what chunk `i` owns. A panic in a chunk is re-raised here after every
/// claimed chunk has finished.
///
/// Inside the pool (a nested call) this is a plain parallel loop, and with one
/// thread a sequential one.
pub(crate) fn for_each_chunk(n: usize, f: &(dyn Fn(usize) + Sync)) {
    let pool = crate::device::pool();
    let helpers = pool.current_num_threads().min(n).saturating_sub(1);
    if helpers == 0 {
        (0..n).for_each(f);
        return;
    }
    if pool.current_thread_index().is_some() || u32::try_from(n).is_err() {
        (0..n).into_par_iter().for_each(f);
        return;
    }
    let ptr: *const (dyn Fn(usize) + Sync + '_) = f;
    // SAFETY: only the lifetime changes. The pointer is dereferenced only by a
    // thread holding an unfinished claim (`Shared::work`), and this function
    // returns only after `done == n`, when every claim has finished; helpers
    // that start later find nothing to claim and never dereference it.
    let task = TaskPtr(unsafe {
        std::mem::transmute::<*const (dyn Fn(usize) + Sync + '_), *const Task>(ptr)
    });
    let shared = Arc::new(Shared {
        left: AtomicU64::new((n as u64) << 32),
        done: AtomicUsize::new(0),
        n,
        task,
        caller: std::thread::current(),
        panic: Mutex::new(None),
    });
    for _ in 0..helpers {
        let s = Arc::clone(&shared);
        pool.spawn(move || s.work(false));
    }
    shared.work(true);
    let start = Instant::now();
    while shared.done.load(Ordering::Acquire) < n {
        if start.elapsed() < SPIN {
            std::hint::spin_loop();
        } else {
            // Woken by the thread that finishes the last chunk (or spuriously).
            std::thread::park();
        }
    }
    let panic = shared
        .panic
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .take();
    if let Some(p) = panic {
        resume_unwind(p);
    }
}

/// Run `f` inside the pool (rayon's `install`: parallel loops inside it use
/// the pool's workers) and return its result. A thin generic shell over one
/// non-generic call, so that rayon's job machinery is compiled once for the
/// crate instead of once per calling closure (most of the crate's compile
/// time went there).
pub(crate) fn install<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    let mut f = Some(f);
    let mut out = None;
    install_dyn(&mut || out = f.take().map(|f| f()));
    out.expect("install ran its closure")
}

/// [`install`] for a job over `elems` elements: below
/// [`PAR_MIN_ELEMS`](super::strided::PAR_MIN_ELEMS), or with one thread, `f`
/// runs on the calling thread. Entering the pool wakes a worker and parks the
/// caller until it is done, tens of microseconds on a VM whose idle vCPUs
/// halt: far more than a small job costs (a 16-element softmax took 23 us
/// through the pool). `f`'s own parallel loops decide on their sizes as before,
/// and from outside the pool they run on it through [`for_each_chunk`] /
/// [`par_range`].
pub(crate) fn install_for<R: Send>(elems: usize, f: impl FnOnce() -> R + Send) -> R {
    if elems < super::strided::PAR_MIN_ELEMS || crate::device::num_threads() <= 1 {
        f()
    } else {
        install(f)
    }
}

fn install_dyn(f: &mut (dyn FnMut() + Send)) {
    crate::device::pool().install(f)
}

/// `rayon::join(a, b)`: both run, possibly in parallel. Thin over one
/// non-generic call, like [`install`].
pub(crate) fn join<A: Send, B: Send>(
    a: impl FnOnce() -> A + Send,
    b: impl FnOnce() -> B + Send,
) -> (A, B) {
    let (mut a, mut b) = (Some(a), Some(b));
    let (mut ra, mut rb) = (None, None);
    join_dyn(&mut || ra = a.take().map(|f| f()), &mut || {
        rb = b.take().map(|f| f())
    });
    (ra.expect("join ran a"), rb.expect("join ran b"))
}

fn join_dyn(a: &mut (dyn FnMut() + Send), b: &mut (dyn FnMut() + Send)) {
    rayon::join(a, b);
}

/// `f(i)` for every `i` in `0..n` as a rayon parallel loop inside the pool,
/// at least `min_len` indices per task (the work-stealing split of
/// `into_par_iter().with_min_len(min_len).for_each(f)`). Not generic, like
/// [`install`].
pub(crate) fn par_range(n: usize, min_len: usize, f: &(dyn Fn(usize) + Sync)) {
    if n <= min_len.max(1) {
        // One task: no other thread could help, so do not wake one.
        (0..n).for_each(f);
        return;
    }
    crate::device::pool().install(|| {
        (0..n)
            .into_par_iter()
            .with_min_len(min_len.max(1))
            .for_each(f)
    })
}

/// Call `f(start, chunk)` on consecutive chunks of `v` of `len` elements (the
/// last may be shorter), `start` being the chunk's first index, spread over the
/// pool by [`par_range`]. Generic over the element type only: the closure is
/// a trait object, so no rayon iterator is compiled per caller (a parallel
/// iterator chain costs some thousands of LLVM IR lines per closure and
/// element type; the sort's chains alone were ~5% of the crate's IR).
pub(crate) fn par_chunks_mut<T: Send>(
    v: &mut [T],
    len: usize,
    f: &(dyn Fn(usize, &mut [T]) + Sync),
) {
    let len = len.max(1);
    let chunks: Vec<Mutex<&mut [T]>> = v.chunks_mut(len).map(Mutex::new).collect();
    par_range(chunks.len(), 1, &|c| {
        let mut chunk = chunks[c].lock().unwrap_or_else(|e| e.into_inner());
        f(c * len, &mut chunk);
    });
}

/// [`par_chunks_mut`] for reading: `f(start, chunk)` on consecutive chunks of
/// `v` of `len` elements, spread over the pool by [`par_range`].
pub(crate) fn par_chunks<T: Sync>(v: &[T], len: usize, f: &(dyn Fn(usize, &[T]) + Sync)) {
    let len = len.max(1);
    par_range(v.len().div_ceil(len), 1, &|c| {
        let start = c * len;
        f(start, &v[start..(start + len).min(v.len())]);
    });
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;
    use std::sync::atomic::AtomicU64;

    pub(crate) fn every_chunk_runs_once() {
        for n in [0usize, 1, 2, 3, 17, 1000] {
            let hits: Vec<AtomicU64> = (0..n).map(|_| AtomicU64::new(0)).collect();
            for_each_chunk(n, &|i| {
                hits[i].fetch_add(i as u64 + 1, Ordering::Relaxed);
            });
            for (i, h) in hits.iter().enumerate() {
                assert_eq!(h.load(Ordering::Relaxed), i as u64 + 1, "n {n} chunk {i}");
            }
        }
    }

    pub(crate) fn nested_inside_the_pool() {
        let total = AtomicU64::new(0);
        crate::device::pool().install(|| {
            for_each_chunk(100, &|i| {
                total.fetch_add(i as u64, Ordering::Relaxed);
            })
        });
        assert_eq!(total.load(Ordering::Relaxed), 4950);
    }

    pub(crate) fn panic_reaches_the_caller_after_all_chunks() {
        let ran = AtomicU64::new(0);
        let r = catch_unwind(AssertUnwindSafe(|| {
            for_each_chunk(64, &|i| {
                ran.fetch_add(1, Ordering::Relaxed);
                if i == 5 {
                    panic!("chunk five");
                }
            })
        }));
        let msg = r.expect_err("the panic must propagate");
        assert_eq!(msg.downcast_ref::<&str>(), Some(&"chunk five"));
        assert_eq!(ran.load(Ordering::Relaxed), 64);
    }
}
