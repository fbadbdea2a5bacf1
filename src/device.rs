//! `Device`: where a tensor's storage lives, and the user-settable CPU thread count.

use std::fmt;
use std::sync::OnceLock;

/// Where a tensor lives. `Cpu` is the default and always available.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Device {
    /// Host memory, computed by the multi-threaded SIMD CPU backend.
    Cpu,
    /// The i-th wgpu adapter (cargo feature `gpu`; see [`gpu_devices`]).
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
    /// Whether this device can be used in this build and on this machine (for
    /// a GPU: built with the `gpu` feature, the adapter exists and its device
    /// opens).
    ///
    /// ```
    /// assert!(rnx::Device::Cpu.is_available());
    /// assert!(!rnx::Device::Gpu(1000).is_available());
    /// ```
    pub fn is_available(self) -> bool {
        crate::backend::get(self, "is_available").is_ok()
    }

    /// The best device of this machine: the first discrete GPU, else the first
    /// integrated or virtual GPU, else the CPU. Software adapters (lavapipe,
    /// WARP) are never chosen: rnx's CPU backend is faster than they are. What
    /// a program that should just run everywhere uses.
    ///
    /// ```
    /// let d = rnx::Device::best();
    /// assert!(d.is_available());
    /// ```
    pub fn best() -> Device {
        let infos = gpu_devices();
        let pick = |ty: &str| {
            infos
                .iter()
                .find(|g| g.device_type == ty && Device::Gpu(g.index).is_available())
                .map(|g| Device::Gpu(g.index))
        };
        pick("DiscreteGpu")
            .or_else(|| pick("IntegratedGpu"))
            .or_else(|| pick("VirtualGpu"))
            .unwrap_or(Device::Cpu)
    }
}

/// What one GPU adapter is and offers (see [`gpu_devices`]).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GpuInfo {
    /// Its index: the tensor device is `Device::Gpu(index)`.
    pub index: usize,
    /// The adapter's name (e.g. "NVIDIA H200", "llvmpipe (LLVM 15.0.6, 256 bits)").
    pub name: String,
    /// The graphics API wgpu reaches it through (Vulkan, Metal, Dx12).
    pub backend: String,
    /// DiscreteGpu, IntegratedGpu, VirtualGpu, Cpu (a software rasteriser) or Other.
    pub device_type: String,
    /// Whether it is a software implementation running on the CPU.
    pub is_software: bool,
    /// Whether f64 tensors can live there (SHADER_F64).
    pub f64: bool,
    /// Whether i64/u64 tensors can live there (SHADER_INT64).
    pub i64: bool,
    /// Whether the adapter has native f16 arithmetic (rnx computes f16 in f32
    /// either way).
    pub f16: bool,
    /// Whether subgroup operations are available.
    pub subgroups: bool,
    /// The largest single buffer, in bytes: the largest tensor storage the
    /// adapter can hold.
    pub max_buffer_bytes: u64,
    /// The largest storage binding a kernel can see at once, in bytes.
    /// Larger tensors still work: kernels bind them in several windows.
    pub max_binding_bytes: u64,
}

/// The GPU adapters of this machine, in `Device::Gpu(i)` order (empty
/// without the `gpu` feature or without a GPU driver).
///
/// ```
/// for g in rnx::gpu_devices() {
///     println!("gpu:{} {} ({}, {}), f64: {}", g.index, g.name, g.backend, g.device_type, g.f64);
/// }
/// ```
pub fn gpu_devices() -> Vec<GpuInfo> {
    #[cfg(feature = "gpu")]
    {
        crate::backend::gpu::context::infos()
    }
    #[cfg(not(feature = "gpu"))]
    {
        Vec::new()
    }
}

/// The most bytes of one tensor's storage a GPU kernel binds at once on
/// `device`: the adapter's `max_storage_buffer_binding_size` (at most
/// `u32::MAX`) unless lowered by [`set_gpu_binding_window`]. Tensors larger
/// than a window still work; kernels bind them in several windows.
///
/// Errors: `device` is the CPU, the adapter is missing, or the crate was built
/// without the `gpu` feature.
pub fn gpu_binding_window(device: Device) -> crate::Result<u64> {
    match device {
        #[cfg(feature = "gpu")]
        Device::Gpu(i) => crate::backend::gpu::binding_window(i),
        _ => Err(not_a_gpu("gpu_binding_window", device)),
    }
}

/// Lower (or restore) the binding window of `device` (see
/// [`gpu_binding_window`]) and return the previous one. Results do not
/// change, only how many windows a large tensor takes, and a sort whose
/// scratch outgrows one window runs on the CPU: use it to exercise the
/// windowed paths on an adapter whose limit is as large as memory, or to work
/// around a driver with trouble near its own limit. It applies to later calls
/// from every thread.
///
/// Errors: as [`gpu_binding_window`], and `bytes` below 65536, above the
/// adapter's limit, or neither that limit (the default, which restores it)
/// nor a multiple of the adapter's storage offset alignment and of 16.
///
/// ```
/// # #[cfg(feature = "gpu")]
/// if !rnx::gpu_devices().is_empty() {
///     let g = rnx::Device::Gpu(0);
///     let full = rnx::gpu_binding_window(g).unwrap();
///     rnx::set_gpu_binding_window(g, 1 << 20).unwrap();
///     assert_eq!(rnx::gpu_binding_window(g).unwrap(), 1 << 20);
///     assert!(rnx::set_gpu_binding_window(g, 1000).is_err());
///     rnx::set_gpu_binding_window(g, full).unwrap();
/// }
/// assert!(rnx::set_gpu_binding_window(rnx::Device::Cpu, 1 << 20).is_err());
/// ```
pub fn set_gpu_binding_window(device: Device, bytes: u64) -> crate::Result<u64> {
    match device {
        #[cfg(feature = "gpu")]
        Device::Gpu(i) => crate::backend::gpu::set_binding_window(i, bytes),
        _ => {
            let _ = bytes;
            Err(not_a_gpu("set_gpu_binding_window", device))
        }
    }
}

fn not_a_gpu(op: &str, device: Device) -> crate::Error {
    match device {
        Device::Cpu => {
            crate::Error::invalid(op, "the CPU has no binding window; pass a Device::Gpu")
        }
        // Without the feature: the crate's "not built with the `gpu` feature".
        Device::Gpu(_) => match crate::backend::get(device, op) {
            Err(e) => e,
            Ok(_) => crate::Error::invalid(op, format!("{device} is not a GPU")),
        },
    }
}

/// Wait until every operation queued on `device` has finished (a no-op on the
/// CPU, whose operations finish before they return). Results are always
/// visible to later operations and host reads without it: use it to time GPU
/// work.
pub fn synchronize(device: Device) -> crate::Result<()> {
    match device {
        Device::Cpu => Ok(()),
        #[cfg(feature = "gpu")]
        Device::Gpu(i) => crate::backend::gpu::synchronize(i),
        #[cfg(not(feature = "gpu"))]
        Device::Gpu(_) => crate::backend::get(device, "synchronize").map(|_| ()),
    }
}

static POOL: OnceLock<rayon::ThreadPool> = OnceLock::new();
static REQUESTED: OnceLock<usize> = OnceLock::new();

fn env_threads() -> Option<usize> {
    crate::env::number::<usize>("RNX_NUM_THREADS").filter(|&n| n > 0)
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
pub(crate) fn pool() -> &'static rayon::ThreadPool {
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
