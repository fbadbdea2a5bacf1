//! Complex primitives computed by the real GPU kernels on the parts: a
//! complex tensor is split into contiguous real tensors holding its real and
//! imaginary parts (one kernel), the real primitive runs on those, and the
//! parts are joined into the complex output (one kernel). Used for the
//! primitives that are linear in the parts: sum and mean reductions, the
//! running sum, and matrix products (four real products: `re = ar br - ai
//! bi`, `im = ar bi + ai br`, accumulated in that order). Each part is
//! summed by the real kernels, so the results differ from the CPU's complex
//! sums in the last bits, as the GPU's real float sums do (bounds in
//! `reduce.rs` and `matmul.rs`).

use super::kernel::{Map, Operand};
use super::{new_storage, GpuBackend};
use crate::backend::{LinalgBackend, ReduceBackend, ReduceOp, ScanOp};
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::Tensor;
use std::sync::Arc;

/// A fresh contiguous real tensor of `shape` in `d`.
fn fresh(be: &GpuBackend, d: DType, shape: &[usize]) -> Result<Tensor> {
    let n = shape.iter().product();
    let s = new_storage(&be.ctx("complex")?, d, n, false, "complex")?;
    Tensor::from_parts(Arc::new(s), Layout::contiguous(shape))
}

/// The real and imaginary parts of `t` as contiguous real tensors of its
/// shape, and with `neg` the negated imaginary parts too.
fn split(be: &GpuBackend, t: &Tensor, neg: bool) -> Result<(Tensor, Tensor, Option<Tensor>)> {
    let p = t.dtype().real();
    let re = fresh(be, p, t.shape())?;
    let im = fresh(be, p, t.shape())?;
    let ni = if neg {
        Some(fresh(be, p, t.shape())?)
    } else {
        None
    };
    let mut operands = vec![Operand::read(t), Operand::write(&re), Operand::write(&im)];
    let mut body = "    let v = ld0(i0);\n    st1(i1, v.x);\n    st2(i2, v.y);".to_string();
    if let Some(n) = &ni {
        operands.push(Operand::write(n));
        body.push_str("\n    st3(i3, -v.y);");
    }
    Map {
        op: "complex",
        operands,
        helpers: String::new(),
        body,
        params: None,
        flag: false,
    }
    .run(&be.ctx("complex")?)?;
    Ok((re, im, ni))
}

/// Write `re + i im` (real tensors of `out`'s shape) into complex `out`.
fn join(be: &GpuBackend, re: &Tensor, im: &Tensor, out: &Tensor) -> Result<()> {
    let t = super::wgsl::compute_ty(out.dtype().real());
    Map {
        op: "complex",
        operands: vec![Operand::read(re), Operand::read(im), Operand::write(out)],
        helpers: String::new(),
        body: format!("    st2(i2, vec2<{t}>(ld0(i0), ld1(i1)));"),
        params: None,
        flag: false,
    }
    .run(&be.ctx("complex")?)?;
    Ok(())
}

/// Sum and mean of a complex `x` by the real reductions; `false` (nothing
/// done) for the other ops.
pub(super) fn reduce(
    be: &GpuBackend,
    op: ReduceOp,
    x: &Tensor,
    axes: &[usize],
    out: &Tensor,
) -> Result<bool> {
    if !matches!(op, ReduceOp::Sum | ReduceOp::Mean) || out.dtype() != x.dtype() {
        return Ok(false);
    }
    let (xr, xi, _) = split(be, x, false)?;
    let p = x.dtype().real();
    let (or, oi) = (fresh(be, p, out.shape())?, fresh(be, p, out.shape())?);
    be.reduce(op, &xr, axes, &or)?;
    be.reduce(op, &xi, axes, &oi)?;
    join(be, &or, &oi, out)?;
    Ok(true)
}

/// The running sum of a complex `x` by the real scan; `false` for products.
pub(super) fn scan(
    be: &GpuBackend,
    op: ScanOp,
    x: &Tensor,
    axis: usize,
    out: &Tensor,
) -> Result<bool> {
    if op != ScanOp::Sum || out.dtype() != x.dtype() {
        return Ok(false);
    }
    let (xr, xi, _) = split(be, x, false)?;
    let p = x.dtype().real();
    let (or, oi) = (fresh(be, p, out.shape())?, fresh(be, p, out.shape())?);
    be.scan(op, &xr, axis, &or)?;
    be.scan(op, &xi, axis, &oi)?;
    join(be, &or, &oi, out)?;
    Ok(true)
}

/// The complex matrix product by four real ones (see the module docs);
/// `false` when the dtypes are not one complex dtype.
pub(super) fn matmul(
    be: &GpuBackend,
    a: &Tensor,
    b: &Tensor,
    out: &Tensor,
    accumulate: bool,
) -> Result<bool> {
    let c = out.dtype();
    if !c.is_complex() || a.dtype() != c || b.dtype() != c {
        return Ok(false);
    }
    let (ar, ai, _) = split(be, a, false)?;
    let (br, bi, nbi) = split(be, b, true)?;
    let nbi = nbi.expect("asked for");
    let (cr, ci) = if accumulate {
        let (r, i, _) = split(be, out, false)?;
        (r, i)
    } else {
        let p = c.real();
        (fresh(be, p, out.shape())?, fresh(be, p, out.shape())?)
    };
    be.matmul(&ar, &br, &cr, accumulate)?;
    be.matmul(&ai, &nbi, &cr, true)?;
    be.matmul(&ar, &bi, &ci, accumulate)?;
    be.matmul(&ai, &br, &ci, true)?;
    join(be, &cr, &ci, out)?;
    Ok(true)
}
