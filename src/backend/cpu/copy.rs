//! CPU core primitives: alloc, upload, download, fill, copy and cast between
//! arbitrary strided layouts, each a planned strided traversal with a
//! `copy_nonoverlapping` fast path for contiguous runs and tile transposes
//! (`transpose.rs`; staged `TileInput`s for casts) for a source transposed
//! against the destination. Tensors of the packed 4-bit dtypes go to
//! `packed.rs` before any typed pointer is made.

use super::elementwise::engine::run1;
use super::strided::{Plan, SendPtr, PAR_MIN_ELEMS};
use super::transpose::transpose_block;
use super::traverse::{run_ptrs, traverse, Operand};
use super::{base_ptr, bits_ptr, signed_twin, CpuBackend};
use crate::backend::CoreBackend;
use crate::device::Device;
use crate::dtype::{DType, Element, Scalar};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::storage::Storage;
use crate::tensor::Tensor;

/// Copy elements from `src` (layout `sl`) to `dst` (layout `dl`, same shape).
/// Moves raw bits, so it is compiled once per element size, not per dtype.
///
/// # Safety
/// Both layouts must lie inside their buffers; `dl` must not map two elements to
/// one address, and the source must not partially overlap the destination.
pub(crate) unsafe fn copy_strided<T: Element>(
    dst: *mut T,
    dl: &Layout,
    src: *const T,
    sl: &Layout,
) {
    // SAFETY: caller contract, for the plain-bits type of T's size.
    unsafe {
        match std::mem::size_of::<T>() {
            1 => copy_bits::<u8>(dst as _, dl, src as _, sl),
            2 => copy_bits::<u16>(dst as _, dl, src as _, sl),
            4 => copy_bits::<u32>(dst as _, dl, src as _, sl),
            8 => copy_bits::<u64>(dst as _, dl, src as _, sl),
            _ => copy_bits::<crate::C64>(dst as _, dl, src as _, sl),
        }
    }
}

/// [`copy_strided`] for one element size.
///
/// # Safety
/// As [`copy_strided`].
unsafe fn copy_bits<T: Element>(dst: *mut T, dl: &Layout, src: *const T, sl: &Layout) {
    let plan = Plan::new([dl, sl]);
    let [ds, ss] = plan.inner_strides();
    let (d, s) = (SendPtr(dst), SendPtr(src as *mut T));
    if let Some([dbs, sbs]) = plan.blocked_strides() {
        if ds == 1 && sbs == 1 {
            // A transpose: the destination is contiguous along one tile axis,
            // the source along the other.
            plan.par_for_each_tile(PAR_MIN_ELEMS, |[od, os], na, nb| {
                // SAFETY: the tile lies inside both layouts (caller contract);
                // element (i, j) is at od + i + j * dbs and os + i * ss + j.
                unsafe { transpose_block(na, nb, s.get().offset(os), ss, d.get().offset(od), dbs) }
            });
            return;
        }
    }
    plan.par_for_each_run_blocked(PAR_MIN_ELEMS, move |[od, os], len| {
        let (d, s) = (d, s);
        // SAFETY: offsets come from in-bounds layouts (caller contract).
        unsafe {
            let dp = d.0.offset(od);
            let sp = s.0.offset(os) as *const T;
            if ds == 1 && ss == 1 {
                if !std::ptr::eq(dp, sp) {
                    std::ptr::copy_nonoverlapping(sp, dp, len);
                }
            } else {
                for i in 0..len as isize {
                    *dp.offset(i * ds) = *sp.offset(i * ss);
                }
            }
        }
    });
}

/// Convert elements from `src` (type S) to `dst` (type D), same shape: the
/// elementwise engine's portable run loop (one loop per pair: casts are
/// memory-bound, so no AVX2 copy; contiguous f16/bf16 -> f32 runs excepted,
/// see [`cast_runs`]) over the shared traversal (`traverse.rs`),
/// which stages a source transposed against the destination through a tile
/// buffer. `D` may be the signed twin of `dst`'s integer dtype (`bits_ptr`).
///
/// # Safety
/// As [`copy_strided`]; the buffers differ (different dtypes never share one).
unsafe fn cast_strided<S: Element, D: Element>(dst: &Tensor, src: &Tensor) {
    let _ = (bits_ptr::<D>(dst), base_ptr::<S>(src)); // dtype checks
    let k = |p: [*mut u8; 2], s: [isize; 2], len: usize, steps: [isize; 2], count: usize| {
        // SAFETY: in-bounds runs (the traversal's); the buffers differ.
        unsafe { cast_runs::<S, D>(p, s, len, steps, count) }
    };
    // SAFETY: caller contract.
    unsafe {
        traverse(
            [Operand::of(dst), Operand::of(src)],
            PAR_MIN_ELEMS,
            true,
            &k,
        )
    }
}

/// The runs of one kernel call of [`cast_strided`]: a function of its own so
/// that the kernel closure and its `dyn Fn` shim do not each inline the loop.
///
/// # Safety
/// In-bounds runs of distinct buffers.
#[inline(never)]
unsafe fn cast_runs<S: Element, D: Element>(
    p: [*mut u8; 2],
    [ds, ss]: [isize; 2],
    len: usize,
    steps: [isize; 2],
    count: usize,
) {
    let sizes = [std::mem::size_of::<D>(), std::mem::size_of::<S>()];
    if D::DTYPE == DType::F32 && matches!(S::DTYPE, DType::F16 | DType::BF16) && ds == 1 && ss == 1
    {
        // Contiguous f16 / bf16 -> f32: the widening at AVX2 width (f16 by
        // F16C), exact as the run loop. 1M elements, best of 100, three runs
        // alternated (2-core Zen 3 VM): f16 0.295 -> 0.053-0.066 ms, bf16
        // 0.110 -> 0.051-0.056 ms.
        for r in 0..count {
            let [dp, sp] = run_ptrs(p, steps, sizes, r);
            // SAFETY: caller contract: `len` elements of each run, distinct
            // buffers; `D` is f32 (checked above).
            unsafe {
                super::half_runs::widen_run(
                    std::slice::from_raw_parts(sp as *const S, len),
                    std::slice::from_raw_parts_mut(dp as *mut f32, len),
                )
            };
        }
        return;
    }
    for r in 0..count {
        let [dp, sp] = run_ptrs(p, steps, sizes, r);
        // SAFETY: caller contract.
        unsafe {
            run1(
                dp as *mut D,
                ds,
                sp as *const S,
                ss,
                len,
                &D::cast_from::<S>,
            )
        };
    }
}

/// Set every element of `dst` (layout `dl`) to `v`: raw bits, compiled once
/// per element size.
///
/// # Safety
/// `dl` must lie inside the buffer and map distinct elements to distinct addresses.
unsafe fn fill_strided<T: Element>(dst: *mut T, dl: &Layout, v: T) {
    // SAFETY: caller contract; `v` is reinterpreted as plain bits of its size.
    unsafe {
        match std::mem::size_of::<T>() {
            1 => fill_bits::<u8>(dst as _, dl, std::mem::transmute_copy(&v)),
            2 => fill_bits::<u16>(dst as _, dl, std::mem::transmute_copy(&v)),
            4 => fill_bits::<u32>(dst as _, dl, std::mem::transmute_copy(&v)),
            8 => fill_bits::<u64>(dst as _, dl, std::mem::transmute_copy(&v)),
            _ => fill_bits::<crate::C64>(dst as _, dl, std::mem::transmute_copy(&v)),
        }
    }
}

/// [`fill_strided`] for one element size.
///
/// # Safety
/// As [`fill_strided`].
unsafe fn fill_bits<T: Element>(dst: *mut T, dl: &Layout, v: T) {
    let plan = Plan::new([dl]);
    let [ds] = plan.inner_strides();
    let d = SendPtr(dst);
    plan.par_for_each_run(PAR_MIN_ELEMS, move |[od], len| {
        let d = d;
        // SAFETY: in-bounds offsets (caller contract).
        unsafe {
            let p = d.0.offset(od);
            if ds == 1 {
                std::slice::from_raw_parts_mut(p, len).fill(v);
            } else {
                for i in 0..len as isize {
                    *p.offset(i * ds) = v;
                }
            }
        }
    });
}

impl CoreBackend for CpuBackend {
    fn device(&self) -> Device {
        Device::Cpu
    }

    fn alloc(&self, dtype: DType, len: usize) -> Result<Storage> {
        Storage::cpu_zeroed(dtype, len)
    }

    fn alloc_for_overwrite(&self, dtype: DType, len: usize) -> Result<Storage> {
        Storage::cpu_for_overwrite(dtype, len)
    }

    fn upload(&self, dtype: DType, bytes: &[u8]) -> Result<Storage> {
        if dtype.is_int4() {
            return super::packed::upload(dtype, bytes);
        }
        if !bytes.len().is_multiple_of(dtype.itemsize()) {
            return Err(Error::invalid(
                "upload",
                format!(
                    "{} bytes is not a whole number of {dtype} elements",
                    bytes.len()
                ),
            ));
        }
        let s = Storage::cpu_for_overwrite(dtype, bytes.len() / dtype.itemsize())?;
        if !bytes.is_empty() {
            let p = s.host_ptr().expect("cpu storage");
            // SAFETY: the new buffer has exactly bytes.len() bytes and is not shared yet.
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len()) };
        }
        Ok(s)
    }

    fn download(&self, src: &Tensor, dst: &mut [u8]) -> Result<()> {
        if src.dtype().is_int4() {
            return super::packed::download(src, dst);
        }
        if dst.len() != src.nbytes() {
            return Err(Error::invalid(
                "download",
                format!(
                    "destination has {} bytes, tensor has {}",
                    dst.len(),
                    src.nbytes()
                ),
            ));
        }
        if dst.is_empty() {
            // Nothing to copy (an empty `Vec<u8>`'s dangling pointer is not
            // aligned for the element type).
            return Ok(());
        }
        let dl = Layout::contiguous(src.shape());
        crate::dispatch!(@bytes src.dtype(), "download", T => {
            match bytemuck::try_cast_slice_mut::<u8, T>(dst) {
                Ok(d) => {
                    // SAFETY: `d` is a fresh host slice of exactly numel
                    // elements laid out row-major; src's layout lies in its
                    // buffer; they cannot overlap.
                    unsafe { copy_strided(d.as_mut_ptr(), &dl, base_ptr::<T>(src), src.layout()) };
                }
                Err(_) => {
                    // A byte buffer not aligned for `T`: through an aligned one.
                    let mut tmp = vec![<T as bytemuck::Zeroable>::zeroed(); src.size()];
                    // SAFETY: as above, into `tmp`.
                    unsafe { copy_strided(tmp.as_mut_ptr(), &dl, base_ptr::<T>(src), src.layout()) };
                    dst.copy_from_slice(bytemuck::cast_slice(&tmp));
                }
            }
        });
        Ok(())
    }

    fn fill(&self, dst: &Tensor, value: Scalar) -> Result<()> {
        if dst.dtype().is_int4() {
            super::packed::fill(dst, value);
            return Ok(());
        }
        crate::dispatch!(@bytes dst.dtype(), "fill", T => {
            // SAFETY: frontend contract: dst is locked, in bounds and unique.
            unsafe { fill_strided(base_ptr::<T>(dst), dst.layout(), value.get::<T>()) };
        });
        Ok(())
    }

    fn copy(&self, src: &Tensor, dst: &Tensor) -> Result<()> {
        if dst.dtype().is_int4() {
            super::packed::copy(src, dst);
            return Ok(());
        }
        crate::dispatch!(@bytes dst.dtype(), "copy", T => {
            // SAFETY: frontend contract (locked, in bounds, unique, no partial overlap).
            unsafe { copy_strided(base_ptr::<T>(dst), dst.layout(), base_ptr::<T>(src), src.layout()) };
        });
        Ok(())
    }

    fn cast(&self, src: &Tensor, dst: &Tensor) -> Result<()> {
        if src.dtype() == dst.dtype() {
            return self.copy(src, dst);
        }
        if src.dtype().is_int4() || dst.dtype().is_int4() {
            return super::packed::cast(src, dst);
        }
        let (sd, dd) = (src.dtype(), dst.dtype());
        // One kernel per (source, target) pair, but integer casts wrap: their
        // result bits depend on the source type and the target's width only,
        // so a sign change of one width is a copy of bits and the other
        // integer targets are taken as their signed twin (32 kernels for the
        // 64 integer pairs). Each list below names the pairs compiled.
        macro_rules! pick {
            ($dt:expr, $T:ident => $body:expr; $($v:ident: $t:ty),+) => {
                match $dt {
                    $(DType::$v => {
                        type $T = $t;
                        $body
                    })+
                    other => return Err(Error::dtype("cast", other)),
                }
            };
        }
        macro_rules! non_int {
            ($dt:expr, $T:ident => $body:expr) => {
                pick!($dt, $T => $body; F16: crate::half::f16, BF16: crate::half::bf16,
                    F32: f32, F64: f64, C32: crate::C32, C64: crate::C64,
                    F8E4M3: crate::F8E4M3, F8E5M2: crate::F8E5M2)
            };
        }
        // SAFETY (every arm): frontend contract; different dtypes are
        // different buffers; `bits_ptr` takes a same-width integer twin.
        if sd.is_int() && dd.is_int() {
            if sd.itemsize() == dd.itemsize() {
                crate::dispatch!(@int sd, "cast", T => unsafe {
                    copy_strided(bits_ptr::<T>(dst), dst.layout(), base_ptr::<T>(src), src.layout())
                });
            } else {
                crate::dispatch!(@int sd, "cast", S => {
                    pick!(signed_twin(dd), D => unsafe { cast_strided::<S, D>(dst, src) };
                        I8: i8, I16: i16, I32: i32, I64: i64)
                });
            }
        } else if sd.is_int() {
            crate::dispatch!(@int sd, "cast", S => {
                non_int!(dd, D => unsafe { cast_strided::<S, D>(dst, src) })
            });
        } else {
            non_int!(sd, S => {
                crate::dispatch!(@bytes dd, "cast", D => unsafe { cast_strided::<S, D>(dst, src) })
            });
        }
        Ok(())
    }
}
