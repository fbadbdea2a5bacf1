//! The wgpu GPU backend (cargo feature `gpu`): `Device::Gpu(i)` is the i-th
//! adapter wgpu finds (Vulkan, Metal or DX12). This file holds the backend
//! value, its lookup, and the explicit CPU round trip that primitives without
//! a GPU kernel yet go through. Each family's kernels live in their own file.
//!
//! dtypes: f32, i32, u32 and the sub-word u8, i8, u16, i16, f16, bf16 (packed
//! in 32-bit words; halves computed in f32) on every adapter; f64 with
//! SHADER_F64, i64/u64 with SHADER_INT64; c32 everywhere and c64 with
//! SHADER_F64 (`vec2` of the part type; kernels for moving data and the
//! Fourier transforms, the CPU round trip for the rest: `complex.rs`).
//!
//! Synchronisation: every call records its commands into the device's open
//! command encoder, in program order, without waiting; the encoder is
//! submitted to the device's one queue once it holds 32 commands, after a
//! dispatch of 2^20 invocations or more, and before every host wait (with a
//! submission per op, small ops measured 28-38 us each on an H200). Host reads (`download`)
//! and data-dependent errors (integer division by zero) wait for the queue.
//! [`crate::synchronize`] waits explicitly (for timing). A wgpu validation
//! error (a kernel bug, never a user error: arguments are checked before
//! recording) surfaces at submission, so it may be reported by a later call.

pub(crate) mod buffer;
mod cholesky_blocked;
mod complex;
mod complex_ew;
mod complex_split;
pub(crate) mod context;
mod core;
mod dct;
mod decomp_small;
mod elementwise;
mod fft;
mod fft_local;
mod index;
pub(crate) mod kernel;
mod lu_blocked;
mod math;
mod math_f64;
mod matmul;
mod matmul_tiled;
mod peak;
mod radix;
mod random;
mod reduce;
mod reduce_cols;
mod reduce_fast;
mod reduce_plan;
mod reduce_rows;
mod round;
mod scan;
pub(crate) mod scatter_reduce;
mod search;
mod softmax;
mod softmax_rows;
mod sort;
mod transpose;
pub(crate) mod wgsl;

pub use buffer::GpuBuffer;
#[doc(hidden)]
pub use peak::fma_peak_gflops;

use crate::backend::cpu::CpuBackend;
use crate::backend::{
    CoreBackend, DctSpec, DecompBackend, DecompOp, FftBackend, FftSpec, LinalgBackend, SortBackend,
};
use crate::error::Result;
use crate::layout::Layout;
use crate::storage::Storage;
use crate::tensor::Tensor;
use std::sync::{Arc, OnceLock};

/// The backend of one adapter.
#[derive(Debug)]
pub struct GpuBackend {
    index: usize,
}

impl GpuBackend {
    /// The opened context (device, queue, caches) of this adapter.
    pub(crate) fn ctx(&self, op: &str) -> Result<Arc<context::Context>> {
        context::context(self.index, op)
    }
}

/// The backend of every adapter (opened on first use), and each one's
/// [`complex::Routed`] view.
fn all() -> &'static [(GpuBackend, complex::Routed)] {
    static ALL: OnceLock<Vec<(GpuBackend, complex::Routed)>> = OnceLock::new();
    ALL.get_or_init(|| {
        (0..context::count())
            .map(|index| (GpuBackend { index }, complex::Routed { index }))
            .collect()
    })
}

/// The backend of adapter `index`, opening its device on first use.
pub(crate) fn get(index: usize, op: &str) -> Result<&'static GpuBackend> {
    context::context(index, op)?;
    Ok(&all()[index].0)
}

/// The backend of adapter `index` as the ops see it: the GPU backend with
/// the CPU round trip for complex operands of primitives that have no complex
/// kernel (see `complex.rs`).
pub(crate) fn api(index: usize, op: &str) -> Result<&'static complex::Routed> {
    context::context(index, op)?;
    Ok(&all()[index].1)
}

/// Wait until every command submitted to adapter `index` has finished.
pub(crate) fn synchronize(index: usize) -> Result<()> {
    context::context(index, "synchronize")?.wait("synchronize")
}

/// The binding window of adapter `index` (see [`crate::set_gpu_binding_window`]).
pub(crate) fn binding_window(index: usize) -> Result<u64> {
    Ok(context::context(index, "gpu_binding_window")?.binding_window())
}

/// Set the binding window of adapter `index`; returns the previous one.
pub(crate) fn set_binding_window(index: usize, bytes: u64) -> Result<u64> {
    context::context(index, "set_gpu_binding_window")?
        .set_binding_window("set_gpu_binding_window", bytes)
}

/// A contiguous host copy of a GPU tensor (same shape and dtype).
pub(crate) fn to_host(t: &Tensor) -> Result<Tensor> {
    let b = get_of(t)?;
    let mut bytes = vec![0u8; t.nbytes()];
    b.download(t, &mut bytes)?;
    let s = CpuBackend.upload(t.dtype(), &bytes)?;
    Tensor::from_parts(Arc::new(s), Layout::contiguous(t.shape()))
}

fn get_of(t: &Tensor) -> Result<&'static GpuBackend> {
    match t.device() {
        crate::Device::Gpu(i) => get(i, "to_host"),
        d => Err(crate::Error::UnsupportedOnDevice {
            op: "to_host".into(),
            device: d,
        }),
    }
}

/// Write the contiguous host tensor `h` into the GPU view `dst` (same shape
/// and dtype): upload to a fresh buffer, then the strided copy kernel.
pub(crate) fn from_host(h: &Tensor, dst: &Tensor) -> Result<()> {
    let b = get_of(dst)?;
    let mut bytes = vec![0u8; h.nbytes()];
    CpuBackend.download(h, &mut bytes)?;
    let s = b.upload(h.dtype(), &bytes)?;
    let tmp = Tensor::from_parts(Arc::new(s), Layout::contiguous(h.shape()))?;
    b.copy(&tmp, dst)
}

/// Run a CPU implementation of a primitive on host copies of GPU tensors:
/// every input and output is read back (outputs too, for primitives that
/// accumulate or write only part of them), `f` runs on the CPU backend, and
/// each output is written back into its GPU view. This is the documented
/// round trip of primitives that have no GPU kernel yet (see the README's
/// device table); results are exactly the CPU's.
pub(crate) fn via_cpu(
    inputs: &[&Tensor],
    outputs: &[&Tensor],
    f: impl FnOnce(&CpuBackend, &[Tensor], &[Tensor]) -> Result<()>,
) -> Result<()> {
    let hin = inputs
        .iter()
        .map(|t| to_host(t))
        .collect::<Result<Vec<_>>>()?;
    let hout = outputs
        .iter()
        .map(|t| to_host(t))
        .collect::<Result<Vec<_>>>()?;
    f(&CpuBackend, &hin, &hout)?;
    for (h, t) in hout.iter().zip(outputs) {
        from_host(h, t)?;
    }
    Ok(())
}

/// Like [`via_cpu`] for an optional output.
fn opt_host(t: Option<&Tensor>) -> Result<Option<Tensor>> {
    t.map(to_host).transpose()
}

impl LinalgBackend for GpuBackend {
    /// The tiled GPU kernel of [`matmul`] (64x64 output tiles, 4x4 register
    /// blocks, K in tiles of 16 and dispatches of at most
    /// [`matmul::K_CHUNK`]; operands read through their strides). Every GPU
    /// dtype: integers wrap (bit-identical to the CPU), f16/bf16 accumulate in
    /// f32 and round once per result, f32/f64 within the bound stated in the
    /// module docs of `matmul.rs` (accumulation order differs from the CPU's).
    fn matmul(&self, a: &Tensor, b: &Tensor, out: &Tensor, accumulate: bool) -> Result<()> {
        matmul::matmul(self, a, b, out, accumulate)
    }
    /// CPU round trip, kept for completeness of the trait: the frontend never
    /// calls it for GPU tensors (Winograd is chosen only on the CPU, see
    /// [`crate::ops::conv::uses_winograd`]); GPU convolutions run as im2col +
    /// the matmul kernel.
    fn conv3x3(
        &self,
        x: &Tensor,
        w: &Tensor,
        out: &Tensor,
        groups: usize,
        accumulate: bool,
    ) -> Result<()> {
        via_cpu(&[x, w], &[out], |cpu, i, o| {
            cpu.conv3x3(&i[0], &i[1], &o[0], groups, accumulate)
        })
    }
}

impl SortBackend for GpuBackend {
    /// The GPU kernel of `search.rs` (one invocation per value, a binary
    /// search over order keys); declines 64-bit dtypes and the i64 result on
    /// adapters without SHADER_INT64.
    fn searchsorted(
        &self,
        sorted: &Tensor,
        values: &Tensor,
        right: bool,
        out: &Tensor,
    ) -> Result<bool> {
        self.searchsorted_kernel(sorted, values, right, out)
    }
    /// A GPU bitonic sort of (key, index) pairs (see `sort.rs`): every dtype
    /// the adapter holds, any axis and layout, rows of any length, with the
    /// CPU's results bit for bit. Sorts whose scratch of `rows *
    /// next_power_of_two(row length)` pairs exceeds one storage binding of
    /// the adapter (lavapipe: 2^25 pairs) take the CPU round trip, as do
    /// 64-bit dtypes on an adapter without SHADER_INT64.
    fn sort(
        &self,
        x: &Tensor,
        axis: usize,
        descending: bool,
        values: Option<&Tensor>,
        indices: Option<&Tensor>,
    ) -> Result<()> {
        if self.sort_kernel(x, axis, descending, values, indices)? {
            return Ok(());
        }
        let hx = to_host(x)?;
        let hv = opt_host(values)?;
        let hi = opt_host(indices)?;
        CpuBackend.sort(&hx, axis, descending, hv.as_ref(), hi.as_ref())?;
        if let (Some(h), Some(t)) = (&hv, values) {
            from_host(h, t)?;
        }
        if let (Some(h), Some(t)) = (&hi, indices) {
            from_host(h, t)?;
        }
        Ok(())
    }
}

impl FftBackend for GpuBackend {
    /// GPU kernels (`fft.rs`: Stockham passes of radix 4, 2 and odd primes
    /// up to 31, Bluestein's algorithm for other lengths); rows whose
    /// scratch buffers exceed the kernels' 32-bit indices take the CPU round
    /// trip (download, rustfft, upload).
    fn fft(&self, x: &Tensor, axis: usize, spec: &FftSpec, out: &Tensor) -> Result<()> {
        if self.fft_kernel(x, axis, spec, out)? {
            return Ok(());
        }
        via_cpu(&[x], &[out], |cpu, i, o| cpu.fft(&i[0], axis, spec, &o[0]))
    }
    /// GPU kernels (`dct.rs`: one complex FFT of each row between a
    /// pre-twiddle and a post-twiddle pass); f64 needs an adapter that holds
    /// f64. Rows beyond the FFT kernels' 32-bit indices take the CPU round
    /// trip (download, the CPU transform, upload).
    fn dct(&self, x: &Tensor, axis: usize, spec: &DctSpec, out: &Tensor) -> Result<()> {
        if self.dct_kernel(x, axis, spec, out)? {
            return Ok(());
        }
        via_cpu(&[x], &[out], |cpu, i, o| cpu.dct(&i[0], axis, spec, &o[0]))
    }
}

impl DecompBackend for GpuBackend {
    /// Batches of real matrices of order 1 to 16 for `solve`, `inv`, `det`,
    /// `slogdet`, `cholesky`, `triangular_solve`, `eigh` and `svd`: GPU
    /// kernels, one invocation per matrix (`decomp_small.rs`; the CPU's
    /// results to the roundoff); `cholesky` of larger real matrices blocked
    /// on the GPU (`cholesky_blocked.rs`), and `solve`, `inv`, `det`,
    /// `slogdet` of larger real matrices by a blocked LU (`lu_blocked.rs`).
    /// Everything else (QR, `eig`, larger `eigh` and `svd`, complex
    /// matrices): the CPU round trip, every input and output downloaded,
    /// faer on the CPU (`src/backend/cpu/decomp.rs`), the outputs uploaded;
    /// results exactly the CPU's. f32 (and f64 where the adapter has it);
    /// the complex outputs of `eig`/`eigvals` are c32 (c64) GPU tensors.
    fn decomp(
        &self,
        op: DecompOp,
        inputs: &[&Tensor],
        outputs: &[&Tensor],
    ) -> Result<Option<usize>> {
        if let Some(failed) = self.decomp_small(op, inputs, outputs)? {
            return Ok(failed);
        }
        if let DecompOp::Cholesky { upper } = op {
            if let Some(failed) = self.cholesky_blocked(inputs[0], outputs[0], upper)? {
                return Ok(failed);
            }
        }
        if let Some(failed) = self.lu_blocked(op, inputs, outputs)? {
            return Ok(failed);
        }
        let mut failed = None;
        via_cpu(inputs, outputs, |cpu, i, o| {
            let ir: Vec<&Tensor> = i.iter().collect();
            let or: Vec<&Tensor> = o.iter().collect();
            failed = cpu.decomp(op, &ir, &or)?;
            Ok(())
        })?;
        Ok(failed)
    }
}

/// A new GPU storage of `len` elements (zeroed or for overwrite).
pub(crate) fn new_storage(
    ctx: &Arc<context::Context>,
    dtype: crate::DType,
    len: usize,
    zeroed: bool,
    op: &str,
) -> Result<Storage> {
    ctx.check_dtype(op, dtype)?;
    let bytes = len
        .checked_mul(dtype.itemsize())
        .ok_or(crate::Error::Alloc {
            op: op.into(),
            bytes: usize::MAX,
        })?;
    let b = GpuBuffer::new(ctx, bytes, zeroed, op)?;
    Ok(Storage::gpu(dtype, len, b))
}
