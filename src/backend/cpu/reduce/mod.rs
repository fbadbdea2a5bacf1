//! CPU reductions: splits a reduction into "kept" and "reduced" axes, then runs
//! one of two traversals over a type-erased reducer (`erased::Lanes`, made
//! from a `reducers::Reducer` and a dtype):
//! `inner.rs` when the reduced axes are the contiguous ones, `outer.rs` when a
//! kept axis is (vectorised across outputs). Arg-reductions, softmax, the
//! normalisation layers and scans have their own files; this file holds the
//! planning and the dtype dispatch.

mod arg;
#[cfg(all(target_arch = "x86_64", not(miri)))]
mod arg_avx2;
#[cfg(all(target_arch = "x86_64", not(miri)))]
mod arg_avx512;
pub(crate) mod erased;
pub(crate) mod inner;
mod norm;
pub(crate) mod norm_stats;
pub(crate) mod num;
mod outer;
pub(crate) mod reducers;
mod scan;
mod softmax;

use self::erased::{Lanes, Typed};
use self::reducers::{Extreme, Prod, Reducer, Sum, Truth, Var};
use super::strided::{Plan, SendPtr};
use super::{base_ptr, bits_ptr, signed_twin, CpuBackend};
use crate::backend::reduce::{ArgOp, NormOp, ReduceBackend, ReduceOp, ScanOp, SoftmaxOp};
use crate::dtype::Element;
use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::Tensor;

/// A reduction planned as kept axes (a traversal of x and out together) and
/// reduced axes (x strides only: positive, merged, outermost first).
pub(super) struct Split {
    /// Operand 0 is x (offset moved to the lowest address of each group),
    /// operand 1 the output.
    pub kept: Plan<2>,
    /// Reduced dimensions (at least one entry; `[1]` when nothing is reduced).
    pub red_shape: Vec<usize>,
    /// Their x strides (non-negative), decreasing.
    pub red_strides: Vec<isize>,
    /// Elements per group.
    pub count: usize,
}

/// Plan the reduction of `x` over `axes` into `out` (keepdims shape).
pub(super) fn split(x: &Layout, out: &Layout, axes: &[usize]) -> Split {
    let count: usize = axes.iter().map(|&a| x.shape()[a]).product();
    let mut shift = 0isize;
    let mut red: Vec<(usize, isize)> = Vec::new();
    if count > 0 {
        for &a in axes {
            let (d, s) = (x.shape()[a], x.strides()[a]);
            if d == 1 {
                continue;
            }
            if s < 0 {
                shift += (d as isize - 1) * s;
                red.push((d, -s));
            } else {
                red.push((d, s));
            }
        }
    }
    red.sort_by_key(|b| std::cmp::Reverse(b.1));
    let mut merged: Vec<(usize, isize)> = Vec::new();
    for (d, s) in red {
        match merged.last_mut() {
            Some(last) if last.1 == s * d as isize => *last = (last.0 * d, s),
            _ => merged.push((d, s)),
        }
    }
    if merged.is_empty() {
        merged.push((1, 1));
    }
    let kept_axes: Vec<usize> = (0..x.ndim()).filter(|a| !axes.contains(a)).collect();
    let shape: Vec<usize> = kept_axes.iter().map(|&a| x.shape()[a]).collect();
    let xk = Layout::new(
        shape.clone(),
        kept_axes.iter().map(|&a| x.strides()[a]).collect(),
        (x.offset() as isize + shift) as usize,
    );
    let ok = Layout::new(
        shape,
        kept_axes.iter().map(|&a| out.strides()[a]).collect(),
        out.offset(),
    );
    Split {
        kept: Plan::new([&xk, &ok]),
        red_shape: merged.iter().map(|m| m.0).collect(),
        red_strides: merged.iter().map(|m| m.1).collect(),
        count,
    }
}

/// Run reducer `r` over `x`'s `axes` into `out`: the dtype check, then the
/// type-erased traversal ([`run_erased`]).
fn run<T: Element, R: Reducer<T>>(r: &R, x: &Tensor, axes: &[usize], out: &Tensor) {
    // dtype checks; `x` may be an unsigned integer tensor read as its signed
    // twin (`all`/`any`, whose result does not depend on the sign).
    let _ = (bits_ptr::<T>(x), base_ptr::<R::Out>(out));
    run_erased(&Typed::<T, R>::new(r), x, axes, out)
}

/// [`run`] over an erased reducer: compiled once for every reducer and dtype.
fn run_erased(l: &dyn Lanes, x: &Tensor, axes: &[usize], out: &Tensor) {
    let n = x.numel();
    let host = |t: &Tensor| {
        SendPtr(
            t.storage()
                .host_ptr()
                .expect("cpu backend given a non-host tensor"),
        )
    };
    let (xp, op) = (host(x), host(out));
    let os = l.out_size() as isize;
    // Output element `off`: out's layout is in bounds and unique, and its
    // storage is locked for writing (frontend contract).
    let out_at = |off: isize| op.get().wrapping_offset(off * os);
    if out.numel() == 1 && n > 0 && x.layout().is_c_contiguous() && super::shortcuts() {
        // One output over one contiguous run (a full reduction): the run the
        // plan below would build, without building it.
        let acc = inner::whole_run(l, xp, x.offset() as isize, n, 1);
        // SAFETY: the output's one element (see `out_at`).
        unsafe { l.finish(acc, n, out_at(out.offset() as isize)) };
        return;
    }
    let sp = split(x.layout(), out.layout(), axes);
    if sp.kept.numel() == 0 {
        return;
    }
    if sp.count == 0 {
        let v = l.init();
        let [_, so] = sp.kept.inner_strides();
        sp.kept.for_each_run(0, sp.kept.numel(), |[_, oo], len| {
            for j in 0..len as isize {
                // SAFETY: an element of out's layout (see `out_at`).
                unsafe { l.finish(v, 0, out_at(oo + j * so)) };
            }
        });
        return;
    }
    if sp.kept.numel() == 1 && sp.red_shape.len() == 1 {
        // One output over one 1-D run (a full reduction of a contiguous tensor):
        // its pieces are shared by this thread and the pool (`team`).
        let mut at = (0, 0);
        sp.kept.for_each_run(0, 1, |[xo, oo], _| at = (xo, oo));
        let acc = inner::whole_run(l, xp, at.0, sp.red_shape[0], sp.red_strides[0]);
        // SAFETY: the output offset comes from out's layout (see `out_at`).
        unsafe { l.finish(acc, sp.count, out_at(at.1)) };
        return;
    }
    let kept_len = *sp.kept.shape.last().expect("plan has an axis");
    let [kx, _] = sp.kept.inner_strides();
    let red_inner = *sp.red_strides.last().expect("split has an axis");
    crate::backend::cpu::team::install_for(x.numel(), || {
        if kept_len > 1 && kx.unsigned_abs() < red_inner.unsigned_abs() {
            outer::reduce(l, &sp, xp, op);
        } else {
            inner::reduce(l, &sp, xp, op);
        }
    });
}

impl ReduceBackend for CpuBackend {
    fn window_mean(&self, x: &Tensor, axis: usize, size: usize, out: &Tensor) -> Result<()> {
        super::window::window_mean(x, axis, size, out)
    }

    fn window_reduce(
        &self,
        op: ReduceOp,
        x: &Tensor,
        axis: usize,
        w: &crate::backend::PoolWindow,
        init: crate::dtype::Scalar,
        out: &Tensor,
    ) -> Result<()> {
        super::pool::window_reduce(op, x, axis, w, init, out)
    }

    fn reduce(&self, op: ReduceOp, x: &Tensor, axes: &[usize], out: &Tensor) -> Result<()> {
        let dt = x.dtype();
        match op {
            ReduceOp::Sum => {
                crate::dispatch!(@compute dt, "sum", T => run::<T, _>(&Sum { mean: false }, x, axes, out))
            }
            ReduceOp::Mean => {
                crate::dispatch!(@compute dt, "mean", T => run::<T, _>(&Sum { mean: true }, x, axes, out))
            }
            ReduceOp::Prod => {
                crate::dispatch!(@compute dt, "prod", T => run::<T, _>(&Prod, x, axes, out))
            }
            ReduceOp::Max => {
                crate::dispatch!(@real dt, "max", T => run::<T, _>(&Extreme::<true>, x, axes, out))
            }
            ReduceOp::Min => {
                crate::dispatch!(@real dt, "min", T => run::<T, _>(&Extreme::<false>, x, axes, out))
            }
            // `all`/`any` test `x != 0`, which does not depend on the sign:
            // unsigned integers run the signed twin's reducer.
            ReduceOp::All | ReduceOp::Any if dt.is_int() => {
                let r = Truth {
                    any: op == ReduceOp::Any,
                };
                let name = if r.any { "any" } else { "all" };
                crate::dispatch!(@signed signed_twin(dt), name, T => run::<T, _>(&r, x, axes, out))
            }
            ReduceOp::All => {
                crate::dispatch!(@compute dt, "all", T => run::<T, _>(&Truth { any: false }, x, axes, out))
            }
            ReduceOp::Any => {
                crate::dispatch!(@compute dt, "any", T => run::<T, _>(&Truth { any: true }, x, axes, out))
            }
            ReduceOp::Var { ddof } => crate::dispatch!(@float dt, "var", T => {
                run::<T, _>(&Var { ddof, sqrt: false }, x, axes, out)
            }),
            ReduceOp::Std { ddof } => crate::dispatch!(@float dt, "std", T => {
                run::<T, _>(&Var { ddof, sqrt: true }, x, axes, out)
            }),
        }
        Ok(())
    }

    fn arg_reduce(&self, op: ArgOp, x: &Tensor, axis: usize, out: &Tensor) -> Result<()> {
        crate::dispatch!(@real x.dtype(), "argmax", T => arg::run::<T>(op, x, axis, out));
        Ok(())
    }

    fn softmax(&self, op: SoftmaxOp, x: &Tensor, axes: &[usize], out: &Tensor) -> Result<()> {
        if op == SoftmaxOp::Softmax && small_contiguous_groups(x, axes, out) && super::shortcuts() {
            match x.dtype() {
                crate::DType::F32 => {
                    softmax_small::<f32>(x, axes, out);
                    return Ok(());
                }
                crate::DType::F64 => {
                    softmax_small::<f64>(x, axes, out);
                    return Ok(());
                }
                _ => {}
            }
        }
        crate::dispatch!(@float x.dtype(), "softmax", T => softmax::run::<T>(op, x, axes, out))
    }

    fn scan(&self, op: ScanOp, x: &Tensor, axis: usize, out: &Tensor) -> Result<()> {
        crate::dispatch!(@compute x.dtype(), "scan", T => scan::run::<T>(op, x, axis, out));
        Ok(())
    }

    fn norm(
        &self,
        op: NormOp,
        x: &Tensor,
        axes: &[usize],
        weight: Option<&Tensor>,
        bias: Option<&Tensor>,
        out: &Tensor,
    ) -> Result<()> {
        crate::dispatch!(@float x.dtype(), "norm", T => norm::run::<T>(op, x, axes, weight, bias, out))
    }
}

/// Inputs up to this many elements whose softmax groups are contiguous take
/// [`softmax_small`] (no traversal plans, no pool).
const SOFTMAX_SMALL_MAX: usize = 1 << 12;

/// Whether `x` and `out` are C-contiguous, `axes` (sorted) are the trailing
/// axes, and `x` is small: then group `j` is elements `j*g..(j+1)*g` of both.
fn small_contiguous_groups(x: &Tensor, axes: &[usize], out: &Tensor) -> bool {
    let nd = x.ndim();
    x.numel() <= SOFTMAX_SMALL_MAX
        && x.layout().is_c_contiguous()
        && out.layout().is_c_contiguous()
        && out.shape() == x.shape()
        && axes
            .iter()
            .enumerate()
            .all(|(i, &a)| a == nd - axes.len() + i)
}

/// Softmax of small contiguous groups, one after the other, with the same
/// per-group kernel (`softmax::softmax_direct`) the general path runs on such
/// groups, so the results are the same bits.
fn softmax_small<F: self::num::SoftmaxFloat + num_traits::Float + Element>(
    x: &Tensor,
    axes: &[usize],
    out: &Tensor,
) {
    let n = x.numel();
    let g: usize = axes.iter().map(|&a| x.shape()[a]).product();
    if n == 0 || g == 0 {
        return;
    }
    // SAFETY: both views are C-contiguous runs of n elements inside their
    // buffers (in-bounds layouts); out is unique, does not overlap x
    // (frontend contract) and is locked for writing; F is the dtype's type.
    let (xs, os) = unsafe {
        (
            std::slice::from_raw_parts(base_ptr::<F>(x).add(x.offset()), n),
            std::slice::from_raw_parts_mut(base_ptr::<F>(out).add(out.offset()), n),
        )
    };
    for (xg, og) in xs.chunks_exact(g).zip(os.chunks_exact_mut(g)) {
        softmax::softmax_direct(xg, og);
    }
}
