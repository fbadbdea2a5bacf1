//! CPU gather and scatter along an axis: one planned traversal of the other
//! axes, and for each run the list of indexed positions. No validation (the
//! frontend did it). `scatter_reduce` combines in index order, on one thread
//! (deterministic for repeated indices).

use super::strided::Plan;
use super::{base_ptr, CpuBackend};
use crate::backend::index::{IndexBackend, ScatterOp};
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::Tensor;

/// Layout of `l` without `axis` (the offset is kept).
fn drop_axis(l: &Layout, axis: usize) -> Layout {
    let mut shape = l.shape().to_vec();
    let mut strides = l.strides().to_vec();
    shape.remove(axis);
    strides.remove(axis);
    Layout::new(shape, strides, l.offset())
}

/// The index values of a 1-D i32 or i64 tensor.
fn index_values(indices: &Tensor) -> Vec<isize> {
    let il = indices.layout();
    let at = |j: usize| il.offset() as isize + j as isize * il.strides()[0];
    if indices.dtype() == DType::I32 {
        let ip = base_ptr::<i32>(indices);
        // SAFETY: a 1-D in-bounds layout of a locked i32 buffer.
        (0..indices.size())
            .map(|j| unsafe { *ip.offset(at(j)) } as isize)
            .collect()
    } else {
        let ip = base_ptr::<i64>(indices);
        // SAFETY: a 1-D in-bounds layout of a locked i64 buffer.
        (0..indices.size())
            .map(|j| unsafe { *ip.offset(at(j)) } as isize)
            .collect()
    }
}

/// `out[.., j, ..] = src[.., idx[j], ..]` (gather) or, with `scatter`,
/// `out[.., idx[j], ..] = src[.., j, ..]`.
///
/// # Safety
/// The frontend contract of [`IndexBackend`]; `idx` holds valid positions of
/// the indexed tensor's `axis`.
unsafe fn move_typed<T: Element>(
    src: &Tensor,
    axis: usize,
    idx: &[isize],
    out: &Tensor,
    scatter: bool,
) {
    let (sl, ol) = (src.layout(), out.layout());
    let (ss, os) = (sl.strides()[axis], ol.strides()[axis]);
    let (rs, ro) = (drop_axis(sl, axis), drop_axis(ol, axis));
    let plan = Plan::new([&ro, &rs]);
    let [io, is] = plan.inner_strides();
    let (sp, op) = (base_ptr::<T>(src) as *const T, base_ptr::<T>(out));
    plan.for_each_run(0, plan.numel(), |[o0, s0], len| {
        for (j, &k) in idx.iter().enumerate() {
            let (oj, sj) = if scatter {
                (k, j as isize)
            } else {
                (j as isize, k)
            };
            let od = o0 + oj * os;
            let sd = s0 + sj * ss;
            for i in 0..len as isize {
                // SAFETY: offsets of in-bounds layouts at valid positions.
                unsafe { *op.offset(od + i * io) = *sp.offset(sd + i * is) };
            }
        }
    });
}

/// `op(d, s)` for one element: integers exactly (wrapping at the width),
/// complex through its f64 parts, other floats in f64 rounded once.
#[inline]
fn combine<T: Element>(d: T, s: T, op: ScatterOp) -> T {
    if let (Some(a), Some(b)) = (d.to_i128(), s.to_i128()) {
        return match op {
            ScatterOp::Add => T::from_i128_wrapping(a.wrapping_add(b)),
            ScatterOp::Mul => T::from_i128_wrapping(a.wrapping_mul(b)),
            ScatterOp::Max => {
                if b > a {
                    s
                } else {
                    d
                }
            }
            ScatterOp::Min => {
                if b < a {
                    s
                } else {
                    d
                }
            }
        };
    }
    let (a, b) = (d.to_f64(), s.to_f64());
    if T::DTYPE.is_complex() {
        let (ai, bi) = (d.imag_f64(), s.imag_f64());
        return match op {
            ScatterOp::Add => T::from_re_im(a + b, ai + bi),
            ScatterOp::Mul => T::from_re_im(a * b - ai * bi, a * bi + ai * b),
            // The frontend rejects max/min on complex dtypes.
            ScatterOp::Max | ScatterOp::Min => d,
        };
    }
    match op {
        ScatterOp::Add => T::from_f64(a + b),
        ScatterOp::Mul => T::from_f64(a * b),
        ScatterOp::Max if a.is_nan() || !(b.is_nan() || b > a) => d,
        ScatterOp::Min if a.is_nan() || !(b.is_nan() || b < a) => d,
        ScatterOp::Max | ScatterOp::Min => s,
    }
}

/// `dst[.., idx[j], ..] = op(dst[.., idx[j], ..], src[.., j, ..])` for `j` in
/// order.
///
/// # Safety
/// The frontend contract of [`IndexBackend`] (repeated positions allowed).
unsafe fn reduce_typed<T: Element>(
    src: &Tensor,
    axis: usize,
    idx: &[isize],
    dst: &Tensor,
    op: ScatterOp,
) {
    let (sl, dl) = (src.layout(), dst.layout());
    let (ss, ds) = (sl.strides()[axis], dl.strides()[axis]);
    let (rs, rd) = (drop_axis(sl, axis), drop_axis(dl, axis));
    let plan = Plan::new([&rd, &rs]);
    let [id, is] = plan.inner_strides();
    let (sp, dp) = (base_ptr::<T>(src) as *const T, base_ptr::<T>(dst));
    plan.for_each_run(0, plan.numel(), |[d0, s0], len| {
        for (j, &k) in idx.iter().enumerate() {
            let dd = d0 + k * ds;
            let sd = s0 + j as isize * ss;
            for i in 0..len as isize {
                // SAFETY: offsets of in-bounds layouts at valid positions; the
                // destination does not overlap the source.
                unsafe {
                    let p = dp.offset(dd + i * id);
                    *p = combine(*p, *sp.offset(sd + i * is), op);
                }
            }
        }
    });
}

impl CpuBackend {
    fn move_axis(
        &self,
        src: &Tensor,
        axis: usize,
        indices: &Tensor,
        out: &Tensor,
        scatter: bool,
    ) -> Result<()> {
        if src.size() == 0 || out.size() == 0 {
            return Ok(());
        }
        let idx = index_values(indices);
        crate::dispatch!(src.dtype(), T => {
            // SAFETY: frontend contract (see the trait).
            unsafe { move_typed::<T>(src, axis, &idx, out, scatter) };
        });
        Ok(())
    }
}

impl IndexBackend for CpuBackend {
    fn gather(&self, src: &Tensor, axis: usize, indices: &Tensor, out: &Tensor) -> Result<()> {
        self.move_axis(src, axis, indices, out, false)
    }

    fn scatter(&self, src: &Tensor, axis: usize, indices: &Tensor, dst: &Tensor) -> Result<()> {
        self.move_axis(src, axis, indices, dst, true)
    }

    fn scatter_reduce(
        &self,
        src: &Tensor,
        axis: usize,
        indices: &Tensor,
        dst: &Tensor,
        op: ScatterOp,
    ) -> Result<()> {
        if src.size() == 0 || dst.size() == 0 {
            return Ok(());
        }
        let idx = index_values(indices);
        crate::dispatch!(@compute src.dtype(), "scatter_reduce", T => {
            // SAFETY: frontend contract (see the trait).
            unsafe { reduce_typed::<T>(src, axis, &idx, dst, op) };
        });
        Ok(())
    }
}
