//! Default bodies of backend primitives that a device may leave to a
//! composition of its other primitives (burn's model: a new device works at
//! once and overrides what it speeds up). Each runs inside the frontend's
//! locks on the operands it was given; its temporaries are fresh tensors of
//! the operands' device, used by this call only.

use super::reduce::{NormOp, PoolWindow, ReduceOp};
use super::{BinaryOp, UnaryOp};
use crate::dtype::{DType, Scalar};
use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::Tensor;

/// `t` (keepdims shape) viewed at `shape` with stride 0 on its size-1 axes.
fn spread(t: &Tensor, shape: &[usize]) -> Result<Tensor> {
    Ok(t.with_layout(t.layout().broadcast_to(shape)?))
}

/// [`super::ReduceBackend::norm`] composed of the device's primitives, in x's
/// dtype: (layer) the mean and the centred values, then the mean of the
/// squares, `rsqrt(ms + epsilon)`, the product with it, the weight and the
/// bias: up to seven passes, two temporaries of x's size.
pub(crate) fn norm(
    op: NormOp,
    x: &Tensor,
    axes: &[usize],
    weight: Option<&Tensor>,
    bias: Option<&Tensor>,
    out: &Tensor,
) -> Result<()> {
    let be = super::get(x.device(), "norm")?;
    let (dt, dev) = (x.dtype(), x.device());
    let mut kshape = x.shape().to_vec();
    for &a in axes {
        kshape[a] = 1;
    }
    let fresh = |shape: &[usize]| Tensor::empty_on(dt, shape, dev);
    let (src, epsilon) = match op {
        NormOp::Rms { epsilon } => (x.clone(), epsilon),
        NormOp::Layer { epsilon } => {
            let mean = fresh(&kshape)?;
            be.reduce(ReduceOp::Mean, x, axes, &mean)?;
            let c = fresh(x.shape())?;
            be.binary(BinaryOp::Sub, x, &spread(&mean, x.shape())?, &c)?;
            (c, epsilon)
        }
    };
    let sq = fresh(x.shape())?;
    be.unary(UnaryOp::Square, &src, &sq)?;
    let ms = fresh(&kshape)?;
    be.reduce(ReduceOp::Mean, &sq, axes, &ms)?;
    let eps = fresh(&kshape)?;
    be.fill(&eps, Scalar::F64(epsilon).to_dtype(dt, "norm")?)?;
    be.binary(BinaryOp::Add, &ms, &eps, &ms)?;
    be.unary(UnaryOp::Math(super::MathFn::Rsqrt), &ms, &ms)?;
    be.binary(BinaryOp::Mul, &src, &spread(&ms, x.shape())?, out)?;
    if let Some(w) = weight {
        be.binary(BinaryOp::Mul, out, w, out)?;
    }
    if let Some(b) = bias {
        be.binary(BinaryOp::Add, out, b, out)?;
    }
    Ok(())
}

/// [`super::ReduceBackend::window_mean`] composed of the device's primitives,
/// summed in `work` (f32 or f64): `x` cast to `work` (unless it is), the
/// windows viewed as a trailing axis of stride `x.strides[axis]` (no copy),
/// their `Sum`, divided by `size`, then cast (or copied) into `out`.
pub(crate) fn window_mean(
    x: &Tensor,
    axis: usize,
    size: usize,
    out: &Tensor,
    work: DType,
) -> Result<()> {
    let op = "uniform_filter";
    let be = super::get(x.device(), op)?;
    let dev = x.device();
    let w = if x.dtype() == work {
        x.clone()
    } else {
        let w = Tensor::empty_on(work, x.shape(), dev)?;
        be.cast(x, &w)?;
        w
    };
    let l = w.layout();
    let mut shape = out.shape().to_vec();
    let mut strides = l.strides().to_vec();
    shape.push(size);
    strides.push(l.strides()[axis]);
    let windows = w.with_layout(Layout::new(shape, strides, l.offset()));
    let mut kshape = out.shape().to_vec();
    kshape.push(1);
    let sum = Tensor::empty_on(work, &kshape, dev)?;
    be.reduce(ReduceOp::Sum, &windows, &[out.ndim()], &sum)?;
    let d = Tensor::empty_on(work, &vec![1; kshape.len()], dev)?;
    be.fill(&d, Scalar::F64(size as f64).to_dtype(work, op)?)?;
    be.binary(BinaryOp::Div, &sum, &spread(&d, &kshape)?, &sum)?;
    let mean = sum.with_layout(Layout::contiguous(out.shape()));
    if work == out.dtype() {
        be.copy(&mean, out)
    } else {
        be.cast(&mean, out)
    }
}

/// [`super::ReduceBackend::window_reduce`] composed of the device's
/// primitives: a copy of `x` padded along `axis` with `init` (fill, then
/// copy into the interior), its windows viewed as a trailing axis (no copy),
/// and the reduction `op` over that axis into `out`.
pub(crate) fn window_reduce(
    op: ReduceOp,
    x: &Tensor,
    axis: usize,
    w: &PoolWindow,
    init: Scalar,
    out: &Tensor,
) -> Result<()> {
    let name = "pool";
    let be = super::get(x.device(), name)?;
    let n = out.shape()[axis];
    // The padded length every window fits in.
    let need = (n - 1) * w.stride + (w.size - 1) * w.dilation + 1;
    let mut shape = x.shape().to_vec();
    shape[axis] = need.max(w.before + x.shape()[axis]);
    let xp = Tensor::empty_on(x.dtype(), &shape, x.device())?;
    be.fill(&xp, init.to_dtype(x.dtype(), name)?)?;
    let l = xp.layout().clone();
    let st = l.strides()[axis];
    let interior = Layout::from_slices(x.shape(), l.strides(), l.offset() + w.before * st as usize);
    be.copy(x, &xp.with_layout(interior))?;
    let mut wshape = out.shape().to_vec();
    let mut wstrides = l.strides().to_vec();
    wstrides[axis] = st * w.stride as isize;
    wshape.push(w.size);
    wstrides.push(st * w.dilation as isize);
    let windows = xp.with_layout(Layout::new(wshape, wstrides, l.offset()));
    let mut kshape = out.shape().to_vec();
    let mut kstrides = out.layout().strides().to_vec();
    kshape.push(1);
    kstrides.push(0);
    let kept = out.with_layout(Layout::new(kshape, kstrides, out.layout().offset()));
    be.reduce(op, &windows, &[out.ndim()], &kept)
}
