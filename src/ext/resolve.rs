//! Applying extensions at an op's entry point: `hook` (the fast path: one
//! relaxed atomic load, then the built-in) and the slow path that describes
//! the call, asks the extensions in order, converts the operands and runs the
//! built-in or the extension's kernel (into a temporary, validated, then
//! copied into the output). Nothing op-specific lives here.

use super::{busy, snapshot, Extension, Form, OpDesc, OpKind, OperandInfo, Resolution};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::Operand;
use crate::tensor::Tensor;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// The entry point every hooked op calls first. `describe` gives the op and
/// its result shape (called only when extensions are active; an `Err` there
/// means the built-in will report the problem); `builtin` runs the op under
/// the built-in rules on (possibly converted) operands.
#[inline(always)]
pub(crate) fn hook<'a>(
    name: &str,
    operands: &[Operand<'a>],
    out: Option<&Tensor>,
    describe: impl FnOnce() -> Result<(OpKind, Vec<usize>)>,
    builtin: impl FnOnce(&[Operand<'_>], Option<&Tensor>) -> Result<Tensor>,
) -> Result<Tensor> {
    if !super::any_active() {
        return builtin(operands, out);
    }
    let mut describe = Some(describe);
    let mut builtin = Some(builtin);
    slow(
        name,
        operands,
        out,
        &mut || (describe.take().expect("describe runs once"))(),
        &mut |ops, o| (builtin.take().expect("the built-in runs once"))(ops, o),
    )
}

type Describe<'f> = &'f mut dyn FnMut() -> Result<(OpKind, Vec<usize>)>;
type Builtin<'f> = &'f mut dyn FnMut(&[Operand<'_>], Option<&Tensor>) -> Result<Tensor>;

fn slow(
    name: &str,
    operands: &[Operand<'_>],
    out: Option<&Tensor>,
    describe: Describe<'_>,
    builtin: Builtin<'_>,
) -> Result<Tensor> {
    let exts = snapshot();
    if exts.is_empty() {
        return builtin(operands, out);
    }
    let (kind, shape) = match describe() {
        Ok(d) => d,
        Err(_) => return builtin(operands, out),
    };
    let device = operands
        .iter()
        .find_map(|o| match o {
            Operand::Tensor(t) => Some(t.device()),
            Operand::Scalar(_) => None,
        })
        .or(out.map(|o| o.device()))
        .unwrap_or(crate::Device::Cpu);
    let infos: Vec<OperandInfo> = operands
        .iter()
        .map(|o| match o {
            Operand::Tensor(t) => OperandInfo {
                dtype: t.dtype(),
                device: t.device(),
                shape: t.shape().to_vec(),
                scalar: None,
            },
            Operand::Scalar(s) => OperandInfo {
                dtype: s.dtype(),
                device,
                shape: Vec::new(),
                scalar: Some(*s),
            },
        })
        .collect();
    let form = match (out, operands.first()) {
        (None, _) => Form::Alloc,
        (Some(o), Some(Operand::Tensor(t))) if crate::overlap::same_view(t, o) => Form::InPlace,
        (Some(_), _) => Form::Out,
    };
    let out_dtype = match (&kind, out) {
        (OpKind::Cast(d), _) => Some(*d),
        (_, Some(o)) => Some(o.dtype()),
        _ => None,
    };
    let desc = OpDesc {
        name,
        kind,
        form,
        operands: &infos,
        out_dtype,
        result_shape: &shape,
    };
    for ext in &exts {
        let res = busy(|| catch_unwind(AssertUnwindSafe(|| ext.resolve(&desc))));
        match res {
            Ok(None) => continue,
            Ok(Some(r)) => return apply(&**ext, &desc, r, operands, out, builtin),
            Err(p) => {
                return Err(fail(
                    &**ext,
                    name,
                    format!("panicked while resolving: {}", panic_text(&*p)),
                ))
            }
        }
    }
    builtin(operands, out)
}

fn fail(ext: &dyn Extension, op: &str, what: String) -> Error {
    Error::invalid(op, format!("extension '{}' {what}", ext.name()))
}

fn panic_text(p: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "a non-string panic payload".to_string()
    }
}

/// An operand after conversion.
enum Conv {
    T(Tensor),
    S(crate::Scalar),
}

/// Convert each operand to its resolved dtype: tensors by `cast` (built-in
/// rules), scalars by the checked scalar conversion (still scalars).
fn convert(op: &str, operands: &[Operand<'_>], dtypes: &[DType]) -> Result<Vec<Conv>> {
    let mut v = Vec::with_capacity(operands.len());
    for (o, &dt) in operands.iter().zip(dtypes) {
        v.push(match o {
            Operand::Tensor(t) if t.dtype() == dt => Conv::T((*t).clone()),
            Operand::Tensor(t) => Conv::T(t.cast_builtin(dt)?),
            Operand::Scalar(s) => Conv::S(s.to_dtype(dt, op)?),
        });
    }
    Ok(v)
}

fn apply(
    ext: &dyn Extension,
    desc: &OpDesc<'_>,
    r: Resolution,
    operands: &[Operand<'_>],
    out: Option<&Tensor>,
    builtin: Builtin<'_>,
) -> Result<Tensor> {
    let op = desc.name;
    if r.inputs.len() != operands.len() {
        return Err(fail(
            ext,
            op,
            format!(
                "resolved {} input dtypes for {} operands",
                r.inputs.len(),
                operands.len()
            ),
        ));
    }
    if let Some(d) = desc.out_dtype {
        if d != r.dtype {
            let what = if out.is_some() {
                "the output has dtype"
            } else {
                "the cast is to"
            };
            return Err(fail(
                ext,
                op,
                format!("resolved the result dtype {} but {what} {d}", r.dtype),
            ));
        }
    }
    if let Some(o) = out {
        // Validate the output before anything is converted or written.
        if o.shape() != desc.result_shape {
            return Err(Error::shapes(
                op,
                o.shape(),
                desc.result_shape,
                "differ: the output must have exactly the result's shape",
            ));
        }
        crate::ops::unique_output(op, o)?;
        for t in operands.iter().filter_map(|x| match x {
            Operand::Tensor(t) => Some(*t),
            Operand::Scalar(_) => None,
        }) {
            crate::ops::same_device(op, &[t, o])?;
        }
    }
    let converted = convert(op, operands, &r.inputs)?;
    let Some(kernel) = r.kernel else {
        let ops: Vec<Operand<'_>> = converted
            .iter()
            .map(|c| match c {
                Conv::S(s) => Operand::Scalar(*s),
                Conv::T(t) => Operand::Tensor(t),
            })
            .collect();
        let res = builtin(&ops, out)?;
        if res.dtype() != r.dtype {
            return Err(fail(
                ext,
                op,
                format!(
                    "resolved the result dtype {} but the built-in gives {} for inputs {:?}",
                    r.dtype,
                    res.dtype(),
                    r.inputs
                ),
            ));
        }
        return Ok(res);
    };
    let device = out
        .map(|o| o.device())
        .or(operands.iter().find_map(|o| match o {
            Operand::Tensor(t) => Some(t.device()),
            Operand::Scalar(_) => None,
        }))
        .unwrap_or(crate::Device::Cpu);
    let mut inputs = Vec::with_capacity(converted.len());
    for (c, &dt) in converted.into_iter().zip(&r.inputs) {
        inputs.push(match c {
            Conv::S(v) => crate::ops::frame::scalar_tensor(op, v, dt, device)?,
            Conv::T(t) => t,
        });
    }
    let fresh = Tensor::zeros_on(r.dtype, desc.result_shape, device)?;
    let mut result = fresh.clone();
    let ran = busy(|| catch_unwind(AssertUnwindSafe(|| kernel(&inputs, &mut result))));
    match ran {
        Ok(Ok(())) => {}
        Ok(Err(e)) => return Err(fail(ext, op, format!("kernel failed: {e}"))),
        Err(p) => {
            return Err(fail(
                ext,
                op,
                format!("kernel panicked: {}", panic_text(&*p)),
            ))
        }
    }
    if result.shape() != desc.result_shape || result.dtype() != r.dtype || result.device() != device
    {
        return Err(fail(
            ext,
            op,
            format!(
                "kernel produced shape {:?} dtype {} on {}, expected shape {:?} dtype {} on {device}",
                result.shape(),
                result.dtype(),
                result.device(),
                desc.result_shape,
                r.dtype
            ),
        ));
    }
    match out {
        Some(o) => {
            crate::ops::locked(op, &[&result], &[o], || o.backend().copy(&result, o))?;
            Ok(o.clone())
        }
        None if std::sync::Arc::ptr_eq(result.storage(), fresh.storage()) => {
            drop(fresh);
            result.contiguous()
        }
        None => result.copy(),
    }
}

/// The result shape of a matrix product with NumPy's `@` rules (1-D operands
/// promoted and their axis removed, batch axes broadcast).
pub(crate) fn matmul_shape(op: &str, a: &[usize], b: &[usize]) -> Result<Vec<usize>> {
    if a.is_empty() || b.is_empty() {
        return Err(Error::invalid(op, "0-D inputs"));
    }
    let (ar, br) = (a.len(), b.len());
    let (m, n) = (
        if ar == 1 { None } else { Some(a[ar - 2]) },
        if br == 1 { None } else { Some(b[br - 1]) },
    );
    let ka = a[ar - 1];
    let kb = if br == 1 { b[0] } else { b[br - 2] };
    if ka != kb {
        return Err(Error::invalid(op, "inner dimensions differ"));
    }
    let ab = if ar > 2 { &a[..ar - 2] } else { &[][..] };
    let bb = if br > 2 { &b[..br - 2] } else { &[][..] };
    let mut s = crate::ops::frame::broadcast_shapes(op, &[ab, bb])?;
    s.extend(m);
    s.extend(n);
    Ok(s)
}
