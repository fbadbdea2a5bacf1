//! CPU `ReduceBackend::window_reduce` (one 1-D pass of pooling): the max,
//! min or sum of the strided, dilated windows along one axis, with the taps
//! that fall in the implicit padding skipped (no padded copy).
//!
//! Contiguous tensors are viewed as `[outer, len, inner]`. With `inner == 1`
//! (the last axis) each line's outputs fold their taps one by one; otherwise
//! each output row of `inner` elements folds whole input rows (a vectorised
//! elementwise loop). Rows and lines spread over the pool in chunks of about
//! `CHUNK_ELEMS` outputs. Other layouts, dtype pairs, and ops take the
//! composed default (`compose::window_reduce`).

use super::base_ptr;
use super::reduce::num::Real;
use super::strided::SendPtr;
use super::team::for_each_chunk;
use super::window::{for_each_line, plain};
use crate::backend::compose;
use crate::backend::{PoolWindow, ReduceOp};
use crate::dtype::{DType, Scalar};
use crate::error::Result;
use crate::tensor::Tensor;

/// Outputs per chunk of work.
const CHUNK_ELEMS: usize = 1 << 14;

/// The contract of `ReduceBackend::window_reduce` on the CPU.
pub(crate) fn window_reduce(
    op: ReduceOp,
    x: &Tensor,
    axis: usize,
    w: &PoolWindow,
    init: Scalar,
    out: &Tensor,
) -> Result<()> {
    let fallback = || compose::window_reduce(op, x, axis, w, init, out);
    let plain_layouts = x.layout().is_c_contiguous() && out.layout().is_c_contiguous();
    if !plain_layouts || x.dtype() != out.dtype() {
        return fallback();
    }
    match op {
        ReduceOp::Max => plain!(x.dtype(), T => run::<T>(x, axis, w, init, out, |a, v| {
            if v > a || v.is_nan() { v } else { a }
        }), fallback()),
        ReduceOp::Min => plain!(x.dtype(), T => run::<T>(x, axis, w, init, out, |a, v| {
            if v < a || v.is_nan() { v } else { a }
        }), fallback()),
        ReduceOp::Sum => match x.dtype() {
            DType::F32 => run::<f32>(x, axis, w, init, out, |a, v| a + v),
            DType::F64 => run::<f64>(x, axis, w, init, out, |a, v| a + v),
            _ => fallback(),
        },
        _ => fallback(),
    }
}

/// The taps `lo..hi` of output `j` that fall inside the input of length
/// `len` (empty when `lo >= hi`).
#[inline]
fn inside(w: &PoolWindow, len: usize, j: usize) -> (usize, usize) {
    let start = (j * w.stride) as isize - w.before as isize;
    let lo = if start < 0 {
        start.unsigned_abs().div_ceil(w.dilation)
    } else {
        0
    };
    let hi = if (len as isize) > start {
        ((len as isize - start) as usize)
            .div_ceil(w.dilation)
            .min(w.size)
    } else {
        0
    };
    (lo.min(hi), hi)
}

fn run<T: Real>(
    x: &Tensor,
    axis: usize,
    w: &PoolWindow,
    init: Scalar,
    out: &Tensor,
    f: impl Fn(T, T) -> T + Sync,
) -> Result<()> {
    let init = T::from_scalar_unchecked(init.to_dtype(T::DTYPE, "pool")?);
    let len = x.shape()[axis];
    let n = out.shape()[axis];
    let outer: usize = x.shape()[..axis].iter().product();
    let inner: usize = x.shape()[axis + 1..].iter().product();
    if outer * n * inner == 0 {
        return Ok(());
    }
    // SAFETY: both are C-contiguous, so element `i` of each is at offset + i.
    let xp = SendPtr(unsafe { base_ptr::<T>(x).add(x.layout().offset()) });
    // SAFETY: as above.
    let op = SendPtr(unsafe { base_ptr::<T>(out).add(out.layout().offset()) });
    // The first input position of tap `lo` of output `j` (inside the input).
    let first = |j: usize, lo: usize| j * w.stride + lo * w.dilation - w.before;
    if inner == 1 {
        // SAFETY: `xp` and `op` point at C-contiguous tensors of `outer` lines
        // of `len` and `n` elements; `out` does not overlap `x`.
        unsafe {
            for_each_line(&xp, &op, outer, len, n, CHUNK_ELEMS, &|xs, os| {
                for (j, o) in os.iter_mut().enumerate() {
                    let (lo, hi) = inside(w, len, j);
                    let mut a = init;
                    if lo < hi {
                        let taps = xs[first(j, lo)..].iter().step_by(w.dilation);
                        for &v in taps.take(hi - lo) {
                            a = f(a, v);
                        }
                    }
                    *o = a;
                }
            })
        };
        return Ok(());
    }
    let rows = outer * n;
    let per = (CHUNK_ELEMS / inner).clamp(1, rows);
    for_each_chunk(rows.div_ceil(per), &|c| {
        for r in c * per..((c + 1) * per).min(rows) {
            let (o, j) = (r / n, r % n);
            // SAFETY: output row `r` (`inner` elements) inside `out`, written
            // by this chunk alone; `out` does not overlap `x`.
            let os = unsafe { std::slice::from_raw_parts_mut(op.get().add(r * inner), inner) };
            os.fill(init);
            let (lo, hi) = inside(w, len, j);
            for t in 0..hi.saturating_sub(lo) {
                let p = first(j, lo) + t * w.dilation;
                // SAFETY: input row `p < len` of block `o`, inside `x`.
                let xs = unsafe {
                    std::slice::from_raw_parts(xp.get().add((o * len + p) * inner), inner)
                };
                for (a, &v) in os.iter_mut().zip(xs) {
                    *a = f(*a, v);
                }
            }
        }
    });
    Ok(())
}
