//! CPU softmax, log_softmax and logsumexp over a set of axes, fused: per group
//! one pass for the maximum, one for the sum of `exp(x - max)` (vectorised exp
//! of `vmath`, sum accumulated in f64 lanes), and one writing the result — no
//! intermediate tensor. Halves compute in f32. f32/f64 softmax of contiguous
//! groups up to `DIRECT_MAX` elements instead runs three passes over the whole
//! group at the widest ISA (`with_widest`), with no chunk buffer. Groups run in
//! parallel. An
//! input whose groups are strided (softmax over a transposed tensor's last
//! axis) is first copied, with the group axes innermost, into a temporary
//! through the tiled transposing copy, so the three passes read contiguously.

use super::num::{FloatElem, SoftmaxFloat};
use crate::backend::cpu::elementwise::simd::with_widest;
use crate::backend::cpu::strided::{Plan, SendPtr, PAR_MIN_ELEMS};
use crate::backend::cpu::{base_ptr, CpuBackend};
use crate::backend::reduce::SoftmaxOp;
use crate::backend::CoreBackend;
use crate::device::Device;
use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::Tensor;
use num_traits::{Float, NumCast, Zero};

/// Elements per buffered chunk of a group (fits L1 with room to spare).
const CHUNK: usize = 512;

/// The largest group (elements) softmax runs pass by pass over the whole
/// group rather than by chunks: input and output (128 KiB for f32) stay in a
/// 512 KiB L2.
const DIRECT_MAX: usize = 1 << 14;

/// Inputs from this many elements with strided groups are staged (copied with
/// the group axes innermost) first. Timed (2-core EPYC VM, `softmax` over the
/// last axis of the transposed view of a 4096 x 4096 f32 tensor): 164 ms
/// reading the strided groups, against 24 ms for the contiguous tensor; the
/// staging copy costs about as much as one contiguous pass (16-18 ms).
const STAGE_MIN: usize = 1 << 12;

/// Apply `op` to the groups of `x` over `axes`, writing `out` (x's shape for
/// softmax/log_softmax, keepdims shape for logsumexp); fails only when the
/// staging buffer cannot be allocated.
pub(super) fn run<T: FloatElem>(
    op: SoftmaxOp,
    x: &Tensor,
    axes: &[usize],
    out: &Tensor,
) -> Result<()> {
    let (xl, ol) = (x.layout(), out.layout());
    let kept: Vec<usize> = (0..x.ndim()).filter(|a| !axes.contains(a)).collect();
    let part = |l: &Layout, ax: &[usize], offset: usize| {
        Layout::new(
            ax.iter().map(|&a| xl.shape()[a]).collect(),
            ax.iter().map(|&a| l.strides()[a]).collect(),
            offset,
        )
    };
    let kplan = Plan::new([&part(xl, &kept, xl.offset()), &part(ol, &kept, ol.offset())]);
    if kplan.numel() == 0 {
        return Ok(());
    }
    let gplan = Plan::new([&part(xl, axes, 0), &part(ol, axes, 0)]);
    let gsize = gplan.numel();
    let [kx, ko] = kplan.inner_strides();
    let [gx, go] = gplan.inner_strides();
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
        return run::<T>(op, &staged, axes, out);
    }
    let xp = SendPtr(base_ptr::<T>(x));
    let op_ = SendPtr(base_ptr::<T>(out));
    // SAFETY (all reads and writes below): offsets are kept offsets (in-bounds
    // layouts) plus group offsets of the same layouts; out is unique, does not
    // overlap x, and each task owns its groups.
    let put = move |o: isize, v: T::F| unsafe { *{ op_ }.0.offset(o) = T::from_f(v) };
    // In-register copies of `T` are exact when `T::F` is `T` itself (f32, f64):
    // then softmax stores exp(x - m) in the first pass and scales it in place.
    let exact = std::mem::size_of::<T>() == std::mem::size_of::<T::F>();
    // The group's elements in chunks of CHUNK through a local buffer, so that
    // max, exp (vmath, vectorised) and the f64 sum run on contiguous lanes for
    // every layout.
    let chunks = |xb: isize, ob: isize, f: &mut dyn FnMut(&mut [T::F], isize)| {
        let mut buf = [T::F::zero(); CHUNK];
        gplan.for_each_run(0, gsize, |[g0, o0], len| {
            let mut i = 0;
            while i < len {
                let l = (len - i).min(CHUNK);
                unsafe { load({ xp }.0, xb + g0 + i as isize * gx, gx, &mut buf[..l]) };
                f(&mut buf[..l], ob + o0 + i as isize * go);
                i += l;
            }
        });
    };
    // Softmax of f32/f64 groups that are one contiguous run in both x and
    // out and fit in L2: each of three passes runs over the whole group (which
    // stays in cache) at the widest ISA; no staging buffer.
    let mut runs = 0;
    gplan.for_each_run(0, gsize, |_, _| runs += 1);
    let direct =
        op == SoftmaxOp::Softmax && exact && runs == 1 && gx == 1 && go == 1 && gsize <= DIRECT_MAX;
    let group = |xb: isize, ob: isize| {
        if direct {
            // SAFETY: the group is `gsize` contiguous elements at `xb` in x and
            // `ob` in out (in-bounds layouts; out does not overlap x and this
            // task owns its groups); T and T::F are the same type (`exact`).
            let (xs, os) = unsafe {
                (
                    std::slice::from_raw_parts({ xp }.0.offset(xb) as *const T::F, gsize),
                    std::slice::from_raw_parts_mut({ op_ }.0.offset(ob) as *mut T::F, gsize),
                )
            };
            softmax_direct(xs, os);
            return;
        }
        let mut m = T::F::neg_infinity();
        chunks(xb, ob, &mut |b, _| m = T::F::max_nan(b, m));
        if op == SoftmaxOp::LogSumExp && m.is_infinite() {
            // All -inf (or empty) gives -inf; any +inf gives +inf.
            put(ob, m);
            return;
        }
        let keep = op == SoftmaxOp::Softmax && exact;
        let mut s = 0f64;
        chunks(xb, ob, &mut |b, o| {
            for v in b.iter_mut() {
                *v = *v - m;
            }
            T::F::exp_in_place(b);
            s += T::F::sum_f64(b);
            if keep {
                unsafe { write({ op_ }.0, o, go, b, |v| v) };
            }
        });
        let s: T::F = NumCast::from(s).unwrap_or_else(T::F::nan);
        match op {
            SoftmaxOp::LogSumExp => put(ob, m + s.ln()),
            SoftmaxOp::LogSoftmax => {
                // (x - m) - ln s, not x - (m + ln s): the latter loses the low
                // bits of ln s next to a large m.
                let ls = s.ln();
                chunks(xb, ob, &mut |b, o| unsafe {
                    write({ op_ }.0, o, go, b, |v| (v - m) - ls)
                });
            }
            SoftmaxOp::Softmax => {
                let inv = s.recip();
                if keep {
                    // exp(x - m) is in `out` already: scale it in place.
                    gplan.for_each_run(0, gsize, |[_, o0], len| {
                        if go == 1 {
                            let os = unsafe {
                                std::slice::from_raw_parts_mut({ op_ }.0.offset(ob + o0), len)
                            };
                            for v in os {
                                *v = T::from_f(v.to_f() * inv);
                            }
                        } else {
                            for i in 0..len as isize {
                                let o = ob + o0 + i * go;
                                put(o, unsafe { *{ op_ }.0.offset(o) }.to_f() * inv);
                            }
                        }
                    });
                } else {
                    chunks(xb, ob, &mut |b, o| {
                        for v in b.iter_mut() {
                            *v = *v - m;
                        }
                        T::F::exp_in_place(b);
                        unsafe { write({ op_ }.0, o, go, b, |v| v * inv) };
                    });
                }
            }
        }
    };
    let min = (PAR_MIN_ELEMS / gsize.max(1)).max(1);
    crate::backend::cpu::team::install_for(x.numel(), || {
        kplan.par_for_each_run(min, |[xo, oo], len| {
            for j in 0..len as isize {
                group(xo + j * kx, oo + j * ko);
            }
        })
    });
    Ok(())
}

/// Softmax of the contiguous group `xs` into `os` in three passes over the
/// whole group at the widest ISA: the maximum, `exp(x - max)` stored and
/// summed (vmath's fused driver), the scaling.
pub(super) fn softmax_direct<F: SoftmaxFloat + Float>(xs: &[F], os: &mut [F]) {
    let m = with_widest(
        #[inline(always)]
        || F::max_nan(xs, F::neg_infinity()),
    );
    let s = F::exp_shift_sum(xs, m, os);
    let inv = <F as NumCast>::from(s).unwrap_or_else(F::nan).recip();
    with_widest(
        #[inline(always)]
        || os.iter_mut().for_each(|v| *v = *v * inv),
    );
}

/// Read the `b.len()` elements at `o` (element stride `gx`) of `x` into `b`.
///
/// # Safety
/// Those elements must be readable.
#[inline(always)]
unsafe fn load<T: FloatElem>(x: *const T, o: isize, gx: isize, b: &mut [T::F]) {
    if gx == 1 {
        // SAFETY: caller contract (a contiguous stretch).
        let xs = unsafe { std::slice::from_raw_parts(x.offset(o), b.len()) };
        for (d, &v) in b.iter_mut().zip(xs) {
            *d = v.to_f();
        }
    } else {
        for (k, d) in b.iter_mut().enumerate() {
            // SAFETY: caller contract.
            *d = unsafe { *x.offset(o + k as isize * gx) }.to_f();
        }
    }
}

/// Write `f(b[k])` to the `b.len()` elements at `o` (element stride `go`) of
/// `out` (contiguous stretches through a slice, so the loop vectorises).
///
/// # Safety
/// Those elements must be writable and not aliased by anything else in use.
#[inline(always)]
unsafe fn write<T: FloatElem>(
    out: *mut T,
    o: isize,
    go: isize,
    b: &[T::F],
    f: impl Fn(T::F) -> T::F,
) {
    if go == 1 {
        // SAFETY: caller contract (a contiguous stretch owned by the caller).
        let os = unsafe { std::slice::from_raw_parts_mut(out.offset(o), b.len()) };
        for (d, &v) in os.iter_mut().zip(b) {
            *d = T::from_f(f(v));
        }
    } else {
        for (k, &v) in b.iter().enumerate() {
            // SAFETY: caller contract.
            unsafe { *out.offset(o + k as isize * go) = T::from_f(f(v)) };
        }
    }
}
