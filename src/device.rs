//! `Device`: where a tensor's storage lives, and the user-settable CPU thread count.

use std::fmt;
use std::sync::OnceLock;

/// Where a tensor lives. `Cpu` is the default and always available.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Device {
    /// Host memory, computed by the multi-threaded SIMD CPU backend.
    Cpu,
    /// A wgpu adapter (cargo feature `gpu`; not built yet).
    Gpu(usize),
}

impl fmt::Display for Device {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Device::Cpu => f.write_str("cpu"),
            Device::Gpu(i) => write!(f, "gpu:{i}"),
        }
    }
}

impl Device {
    /// Whether this device can be used in this build and on this machine.
    pub fn is_available(self) -> bool {
        matches!(self, Device::Cpu)
    }
}

static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();
static REQUESTED: OnceLock<usize> = OnceLock::new();

fn env_threads() -> Option<usize> {
    std::env::var("RNX_NUM_THREADS")
        .ok()
        .and_then(|v| v.trim().parse::<usize>().ok())
        .filter(|&n| n > 0)
}

/// Set the number of CPU threads rnx uses. Must be called before the first
/// parallel operation; later calls return an error naming the count in force.
/// The environment variable `RNX_NUM_THREADS` sets the same at start-up
/// (this function wins when called first).
///
/// ```
/// // A single-threaded process:
/// let _ = rnx::set_num_threads(1);
/// assert!(rnx::num_threads() >= 1);
/// ```
pub fn set_num_threads(n: usize) -> crate::Result<()> {
    if n == 0 {
        return Err(crate::Error::invalid(
            "set_num_threads",
            "thread count must be at least 1",
        ));
    }
    if REQUESTED.set(n).is_err() || POOL.get().is_some() {
        let cur = num_threads();
        if cur == n {
            return Ok(());
        }
        return Err(crate::Error::invalid(
            "set_num_threads",
            format!("the thread pool already runs with {cur} threads; set it before the first operation"),
        ));
    }
    Ok(())
}

/// Number of threads the CPU backend uses.
pub fn num_threads() -> usize {
    pool().current_num_threads()
}

/// The CPU backend's thread pool (built on first use).
pub fn pool() -> &'static rayon::ThreadPool {
    POOL.get_or_init(|| {
        let n = REQUESTED
            .get()
            .copied()
            .or_else(env_threads)
            .unwrap_or_else(|| {
                std::thread::available_parallelism()
                    .map(|n| n.get())
                    .unwrap_or(1)
            });
        rayon::ThreadPoolBuilder::new()
            .num_threads(n)
            .thread_name(|i| format!("rnx-{i}"))
            .build()
            .expect("rnx: cannot start the thread pool")
    })
}
