//! CPU rms_norm and layer_norm over a set of axes, fused: per group one read
//! pass for the statistics (`norm_stats.rs`: f64 sums; layer_norm's shifted
//! by the group's first element, so that a large mean does not cancel the
//! variance away) and one pass writing `(x - mean) * rstd * weight + bias`
//! (rms_norm: `x * rstd * weight + bias`) in the compute type — no
//! intermediate tensor. Halves compute in f32. Groups run in parallel. An
//! input whose groups are strided (the last axis of a transposed tensor) is
//! first copied with the group axes innermost, as softmax does.

use super::norm_stats::{StatFloat, Sums};
use super::num::FloatElem;
use crate::backend::cpu::elementwise::simd::with_widest;
use crate::backend::cpu::strided::{Plan, SendPtr, PAR_MIN_ELEMS};
use crate::backend::cpu::{base_ptr, CpuBackend};
use crate::backend::reduce::NormOp;
use crate::backend::CoreBackend;
use crate::device::Device;
use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::Tensor;
use num_traits::{Float, NumCast, Zero};

/// Elements per buffered chunk of a strided or half-precision group.
const CHUNK: usize = 512;

/// Inputs from this many elements with strided groups are staged (copied with
/// the group axes innermost) first (as softmax's `STAGE_MIN`).
const STAGE_MIN: usize = 1 << 12;

/// The compute types: f32 (also for halves) and f64.
pub(super) trait NormFloat: Float + StatFloat + Send + Sync {}
impl NormFloat for f32 {}
impl NormFloat for f64 {}

/// `op` over the groups `axes` of `x` into `out`, times `w`, plus `b` (the
/// backend contract of `ReduceBackend::norm`); fails only when the staging
/// buffer cannot be allocated.
pub(super) fn run<T: FloatElem>(
    op: NormOp,
    x: &Tensor,
    axes: &[usize],
    w: Option<&Tensor>,
    b: Option<&Tensor>,
    out: &Tensor,
) -> Result<()>
where
    T::F: NormFloat,
{
    if x.numel() == 0 {
        return Ok(());
    }
    let (xl, ol) = (x.layout(), out.layout());
    // Absent weight / bias: x's layout stands in (never read).
    let (wl, bl) = (w.map_or(xl, |t| t.layout()), b.map_or(xl, |t| t.layout()));
    let kept: Vec<usize> = (0..x.ndim()).filter(|a| !axes.contains(a)).collect();
    let part = |l: &Layout, ax: &[usize], offset: usize| {
        Layout::new(
            ax.iter().map(|&a| xl.shape()[a]).collect(),
            ax.iter().map(|&a| l.strides()[a]).collect(),
            offset,
        )
    };
    let kplan = Plan::new([
        &part(xl, &kept, xl.offset()),
        &part(ol, &kept, ol.offset()),
        &part(wl, &kept, wl.offset()),
        &part(bl, &kept, bl.offset()),
    ]);
    if kplan.numel() == 0 {
        return Ok(());
    }
    let gplan = Plan::new([
        &part(xl, axes, 0),
        &part(ol, axes, 0),
        &part(wl, axes, 0),
        &part(bl, axes, 0),
    ]);
    let gsize = gplan.numel();
    let [gx, go, gw, gb] = gplan.inner_strides();
    if gx != 1 && gsize > 1 && x.numel() >= STAGE_MIN {
        // Strided groups: copy x with the group axes innermost (contiguous
        // groups), viewed back in x's axis order, and run on that.
        let perm: Vec<usize> = kept.iter().chain(axes).copied().collect();
        let mut inv = vec![0; perm.len()];
        for (k, &p) in perm.iter().enumerate() {
            inv[p] = k;
        }
        let pshape: Vec<usize> = perm.iter().map(|&a| xl.shape()[a]).collect();
        let tmp = Tensor::empty_on(x.dtype(), &pshape, Device::Cpu)?;
        CpuBackend.copy(&x.with_layout(xl.permute(&perm)?), &tmp)?;
        let staged = tmp.with_layout(tmp.layout().permute(&inv)?);
        return run::<T>(op, &staged, axes, w, b, out);
    }
    let (shift, epsilon) = match op {
        NormOp::Rms { epsilon } => (false, epsilon),
        NormOp::Layer { epsilon } => (true, epsilon),
    };
    let xp = SendPtr(base_ptr::<T>(x));
    let op_ = SendPtr(base_ptr::<T>(out));
    let wp = SendPtr(w.map_or(std::ptr::null_mut(), base_ptr::<T>));
    let bp = SendPtr(b.map_or(std::ptr::null_mut(), base_ptr::<T>));
    let (has_w, has_b) = (w.is_some(), b.is_some());
    // In-register copies of `T` are exact when `T::F` is `T` itself (f32, f64):
    // then contiguous runs are read and written in place, without a buffer.
    let exact = std::mem::size_of::<T>() == std::mem::size_of::<T::F>();
    let group = |[xo, oo, wo, bo]: [isize; 4]| {
        // SAFETY (every read and write of this closure): offsets are kept
        // offsets plus group offsets of in-bounds layouts; out is unique,
        // overlaps none of x, w, b (contract), and this task owns its groups.
        let (xp, op_, wp, bp) = (
            { xp }.0 as *const T,
            { op_ }.0,
            { wp }.0 as *const T,
            { bp }.0 as *const T,
        );
        let k = if shift {
            unsafe { *xp.offset(xo) }.to_f64()
        } else {
            0.0
        };
        // Statistics: one read of the group.
        let mut sums = Sums::default();
        let mut buf = [T::F::zero(); CHUNK];
        gplan.for_each_run(0, gsize, |[g0, ..], len| {
            let at = xo + g0;
            if gx == 1 && exact {
                let xs = unsafe { std::slice::from_raw_parts(xp.offset(at) as *const T::F, len) };
                T::F::sums(xs, k, shift, &mut sums);
                return;
            }
            let mut i = 0;
            while i < len {
                let l = (len - i).min(CHUNK);
                for (j, d) in buf[..l].iter_mut().enumerate() {
                    *d = unsafe { *xp.offset(at + (i + j) as isize * gx) }.to_f();
                }
                T::F::sums(&buf[..l], k, shift, &mut sums);
                i += l;
            }
        });
        let n = gsize as f64;
        let (mean, var) = if shift {
            let m1 = sums.s1 / n;
            let v = sums.s2 / n - m1 * m1;
            (k + m1, if v < 0.0 { 0.0 } else { v }) // NaN stays NaN
        } else {
            (0.0, sums.s2 / n)
        };
        let rstd = 1.0 / (var + epsilon).sqrt();
        let cast = |v: f64| -> T::F { NumCast::from(v).unwrap_or_else(T::F::nan) };
        // The mean as a sum of two compute-type numbers, subtracted one after
        // the other: `x - hi` is exact for x near the mean, so a mean much
        // larger than the spread keeps its low bits (f32 layer_norm of 1000 +
        // noise of 0.01 would lose about 0.5% of each output to the rounding
        // of the mean).
        let m = cast(mean);
        let lo = if mean.is_finite() {
            cast(mean - num_traits::ToPrimitive::to_f64(&m).unwrap_or(0.0))
        } else {
            T::F::zero()
        };
        let r = cast(rstd);
        // Output: one pass.
        gplan.for_each_run(0, gsize, |[g0, o0, w0, b0], len| {
            let (xa, oa, wa, ba) = (xo + g0, oo + o0, wo + w0, bo + b0);
            let unit = gx == 1 && go == 1 && (!has_w || gw == 1) && (!has_b || gb == 1);
            if unit && exact {
                let (xs, os) = unsafe {
                    (
                        std::slice::from_raw_parts(xp.offset(xa) as *const T::F, len),
                        std::slice::from_raw_parts_mut(op_.offset(oa) as *mut T::F, len),
                    )
                };
                let ws = has_w.then(|| unsafe {
                    std::slice::from_raw_parts(wp.offset(wa) as *const T::F, len)
                });
                let bs = has_b.then(|| unsafe {
                    std::slice::from_raw_parts(bp.offset(ba) as *const T::F, len)
                });
                write_run(xs, os, ws, bs, shift, (m, lo), r);
                return;
            }
            for i in 0..len as isize {
                let v = unsafe { *xp.offset(xa + i * gx) }.to_f();
                let mut y = if shift { ((v - m) - lo) * r } else { v * r };
                if has_w {
                    y = y * unsafe { *wp.offset(wa + i * gw) }.to_f();
                }
                if has_b {
                    y = y + unsafe { *bp.offset(ba + i * gb) }.to_f();
                }
                unsafe { *op_.offset(oa + i * go) = T::from_f(y) };
            }
        });
    };
    let [kx, ko, kw, kb] = kplan.inner_strides();
    let min = (PAR_MIN_ELEMS / gsize.max(1)).max(1);
    crate::backend::cpu::team::install_for(x.numel(), || {
        kplan.par_for_each_run(min, |[xo, oo, wo, bo], len| {
            for j in 0..len as isize {
                group([xo + j * kx, oo + j * ko, wo + j * kw, bo + j * kb]);
            }
        })
    });
    Ok(())
}

/// `os[i] = ((xs[i] - hi) - lo) * r * ws[i] + bs[i]` (without the shift:
/// `xs[i] * r * ws[i] + bs[i]`; weight and bias optional) over contiguous
/// runs, at the widest ISA: one loop per case, so each vectorises.
#[inline(always)]
fn write_run<F: NormFloat>(
    xs: &[F],
    os: &mut [F],
    ws: Option<&[F]>,
    bs: Option<&[F]>,
    shift: bool,
    (hi, lo): (F, F),
    r: F,
) {
    with_widest(
        #[inline(always)]
        || match (ws, bs) {
            (None, None) if !shift => {
                for (o, &x) in os.iter_mut().zip(xs) {
                    *o = x * r;
                }
            }
            (Some(ws), None) if !shift => {
                for ((o, &x), &w) in os.iter_mut().zip(xs).zip(ws) {
                    *o = x * r * w;
                }
            }
            (None, Some(bs)) if !shift => {
                for ((o, &x), &b) in os.iter_mut().zip(xs).zip(bs) {
                    *o = x * r + b;
                }
            }
            (Some(ws), Some(bs)) if !shift => {
                for (((o, &x), &w), &b) in os.iter_mut().zip(xs).zip(ws).zip(bs) {
                    *o = x * r * w + b;
                }
            }
            (None, None) => {
                for (o, &x) in os.iter_mut().zip(xs) {
                    *o = ((x - hi) - lo) * r;
                }
            }
            (Some(ws), None) => {
                for ((o, &x), &w) in os.iter_mut().zip(xs).zip(ws) {
                    *o = ((x - hi) - lo) * r * w;
                }
            }
            (None, Some(bs)) => {
                for ((o, &x), &b) in os.iter_mut().zip(xs).zip(bs) {
                    *o = ((x - hi) - lo) * r + b;
                }
            }
            (Some(ws), Some(bs)) => {
                for (((o, &x), &w), &b) in os.iter_mut().zip(xs).zip(ws).zip(bs) {
                    *o = ((x - hi) - lo) * r * w + b;
                }
            }
        },
    )
}
