//! The elementwise frame: the frontend machinery every elementwise family
//! (arithmetic, math, activations, compare, logic, select) shares: `Operand` (a tensor or
//! a Rust scalar), the broadcasting rule, output validation and the alias rule
//! (snapshot an input only when it partially overlaps the output). Every
//! elementwise op (arithmetic, compare, logic, select, math) runs through
//! `run`; no op-specific code lives here.

pub(crate) use super::shape::broadcast_shapes;
use crate::backend::Backend;
use crate::dims::Dims;
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::overlap;
use crate::tensor::Tensor;

/// An operand of an elementwise op: a tensor, or a Rust scalar converted to
/// the op's dtype (which must represent it exactly).
///
/// Everything that converts into a [`Scalar`] converts into an `Operand`, so
/// `t.add(&u)`, `t.add(2.0)` and `t.add(3u8)` all work.
#[derive(Clone, Debug)]
pub enum Operand<'a> {
    /// A tensor (broadcast against the others).
    Tensor(&'a Tensor),
    /// A scalar (rank 0), converted to the dtype of the op's tensors.
    Scalar(Scalar),
}

impl<'a> From<&'a Tensor> for Operand<'a> {
    fn from(t: &'a Tensor) -> Operand<'a> {
        Operand::Tensor(t)
    }
}

impl From<Scalar> for Operand<'_> {
    fn from(s: Scalar) -> Self {
        Operand::Scalar(s)
    }
}

macro_rules! operand_from {
    ($($t:ty),*) => {$(
        impl From<$t> for Operand<'_> {
            fn from(v: $t) -> Self {
                Operand::Scalar(Scalar::from(v))
            }
        }
    )*};
}
operand_from!(
    f32,
    f64,
    i8,
    i16,
    i32,
    i64,
    u8,
    u16,
    u32,
    u64,
    usize,
    isize,
    bool,
    half::f16,
    half::bf16,
    crate::C32,
    crate::C64,
    crate::I4,
    crate::U4
);

impl Operand<'_> {
    fn tensor(&self) -> Option<&Tensor> {
        match self {
            Operand::Tensor(t) => Some(t),
            Operand::Scalar(_) => None,
        }
    }
    /// The tensor of an operand known to be one (an extension's hook keeps
    /// tensor operands tensors).
    pub(crate) fn as_tensor(&self) -> &Tensor {
        self.tensor()
            .expect("extensions convert tensor operands to tensors")
    }
}

/// Turn operands into tensors of one dtype on one device. The dtype is that of
/// the first tensor operand, else of `fallback` (the output of an out-form);
/// scalars must be representable in it. Tensors must share dtype and device.
pub(crate) fn resolve(
    op: &str,
    operands: &[Operand<'_>],
    fallback: Option<&Tensor>,
) -> Result<Vec<Tensor>> {
    resolve_as(op, operands, fallback.map(|t| (t.dtype(), t.device())))
}

/// [`resolve`] with the fallback given as a dtype and device.
pub(crate) fn resolve_as(
    op: &str,
    operands: &[Operand<'_>],
    fallback: Option<(DType, crate::Device)>,
) -> Result<Vec<Tensor>> {
    let (dtype, device) = operands
        .iter()
        .find_map(|o| o.tensor())
        .map(|t| (t.dtype(), t.device()))
        .or(fallback)
        .ok_or_else(|| {
            Error::invalid(
                op,
                "all operands are scalars: give a tensor operand, an output or an explicit dtype",
            )
        })?;
    let mut ts = Vec::with_capacity(operands.len());
    for o in operands {
        ts.push(match o {
            Operand::Tensor(t) => (*t).clone(),
            Operand::Scalar(s) => scalar_tensor(op, *s, dtype, device)?,
        });
    }
    super::same_device(op, &ts)?;
    super::same_dtype(op, &ts)?;
    Ok(ts)
}

/// A rank-0 tensor of `dtype` on `device` holding `s` (checked conversion).
pub(crate) fn scalar_tensor(
    op: &str,
    s: Scalar,
    dtype: DType,
    device: crate::Device,
) -> Result<Tensor> {
    let v = s.to_dtype(dtype, op)?;
    let t = Tensor::zeros_on(dtype, &[], device)?;
    super::locked(op, &[], &[&t], || t.backend().fill(&t, v))?;
    Ok(t)
}

/// An error unless `ok` (the op supports the dtype).
pub(crate) fn require(op: &str, ok: bool, dtype: DType) -> Result<()> {
    if ok {
        Ok(())
    } else {
        Err(Error::dtype(op, dtype))
    }
}

/// Validate an output: same device as the inputs, exactly `shape` and `dtype`,
/// and a layout that maps distinct elements to distinct addresses (checked
/// also when empty).
pub(crate) fn check_out(
    op: &str,
    out: &Tensor,
    shape: &[usize],
    dtype: DType,
    inputs: &[&Tensor],
) -> Result<()> {
    if let Some(&t) = inputs.first() {
        super::same_device(op, &[t, out])?;
    }
    if out.shape() != shape {
        return Err(Error::shapes(
            op,
            out.shape(),
            shape,
            "differ: the output must have exactly the result's shape",
        ));
    }
    if out.dtype() != dtype {
        return Err(Error::invalid(
            op,
            format!(
                "output has dtype {} but the result has dtype {dtype}",
                out.dtype()
            ),
        ));
    }
    super::unique_output(op, out)
}

/// Run an elementwise op: broadcast `inputs` to their common shape, validate
/// or allocate the output (dtype `out_dtype`), snapshot every input that
/// partially overlaps the output (an input laid exactly over the output, or
/// one that cannot touch it, is used as it is), lock, and call `f` with the
/// broadcast views and the output. Returns the output.
///
/// The common small call (a fresh output, every input already of the result's
/// shape) takes a short path: the inputs are their own views (no layout is
/// rebuilt, no reference count touched) and no alias analysis runs, since a
/// new buffer overlaps nothing.
pub(crate) fn run(
    op: &str,
    inputs: &[&Tensor],
    out_dtype: DType,
    out: Option<&Tensor>,
    f: impl FnOnce(&dyn Backend, &[&Tensor], &Tensor) -> Result<()>,
) -> Result<Tensor> {
    // Operands of one shape (the common case) need no broadcasting pass.
    let same = match inputs.split_first() {
        Some((first, rest)) => rest.iter().all(|t| same_shape(t.shape(), first.shape())),
        None => true,
    };
    let shape: Dims<usize> = match inputs.first() {
        Some(first) if same => Dims::from_slice(first.shape()),
        _ => {
            let shapes: Vec<&[usize]> = inputs.iter().map(|t| t.shape()).collect();
            broadcast_shapes(op, &shapes)?.into()
        }
    };
    let Some(out) = out else {
        let device = inputs
            .first()
            .map(|t| t.device())
            .unwrap_or(crate::Device::Cpu);
        let out = Tensor::empty_on(out_dtype, &shape, device)?;
        if same {
            // A fresh output overlaps no input, and each input has the
            // result's shape: it is its own broadcast view.
            return compute(op, inputs, out, true, f);
        }
        return broadcast_views(op, inputs, &shape, out, true, f);
    };
    check_out(op, out, &shape, out_dtype, inputs)?;
    broadcast_views(op, inputs, &shape, out.clone(), false, f)
}

/// `a == b` for two shapes, without a `bcmp` call for these few entries
/// (and at once for one tensor given twice, as in `x + x`).
#[inline]
fn same_shape(a: &[usize], b: &[usize]) -> bool {
    std::ptr::eq(a, b) || (a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y))
}

/// The general end of [`run`]: each input broadcast to `shape`, snapshotted
/// when it partially overlaps `out` (never when the output is `fresh`), then
/// [`compute`].
fn broadcast_views(
    op: &str,
    inputs: &[&Tensor],
    shape: &[usize],
    out: Tensor,
    fresh: bool,
    f: impl FnOnce(&dyn Backend, &[&Tensor], &Tensor) -> Result<()>,
) -> Result<Tensor> {
    let view = |t: &Tensor| -> Result<Tensor> {
        let v = t.with_layout(t.layout().broadcast_to(shape)?);
        if !fresh && !overlap::same_view(&v, &out) && overlap::tensors_overlap(t, &out) {
            let snap = t.copy()?;
            return Ok(snap.with_layout(snap.layout().broadcast_to(shape)?));
        }
        Ok(v)
    };
    // The views of one or two inputs live in arrays (no allocation).
    match inputs {
        [a] => {
            let v = view(a)?;
            compute(op, &[&v], out, fresh, f)
        }
        [a, b] => {
            let (va, vb) = (view(a)?, view(b)?);
            compute(op, &[&va, &vb], out, fresh, f)
        }
        _ => {
            let v = inputs.iter().map(|t| view(t)).collect::<Result<Vec<_>>>()?;
            let r: Vec<&Tensor> = v.iter().collect();
            compute(op, &r, out, fresh, f)
        }
    }
}

/// The end of [`run`]: lock the views and the output (not a `fresh` one:
/// see [`super::locked_fresh`]) and call `f` (nothing for an empty output).
fn compute(
    op: &str,
    views: &[&Tensor],
    out: Tensor,
    fresh: bool,
    f: impl FnOnce(&dyn Backend, &[&Tensor], &Tensor) -> Result<()>,
) -> Result<Tensor> {
    if out.size() == 0 {
        return Ok(out);
    }
    let backend = out.backend();
    if fresh {
        super::locked_fresh(op, views, &out, || f(backend, views, &out))?;
    } else {
        super::locked(op, views, &[&out], || f(backend, views, &out))?;
    }
    Ok(out)
}
