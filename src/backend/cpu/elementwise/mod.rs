//! The CPU implementation of `ElementwiseBackend`: dtype dispatch to the
//! kernels (`kernels.rs`: arithmetic per number kind; comparisons,
//! classification and selection here), which map closures with the engine
//! (`engine.rs`: traversal, threads, inner loops) compiled per instruction set
//! (`simd.rs`). Scalar arithmetic per number kind is in `num.rs`.

pub mod engine;
pub mod kernels;
pub mod math;
pub mod num;
pub mod simd;

use super::{signed_twin, CpuBackend};
use crate::backend::elementwise::{
    BinaryOp, ClassOp, CmpOp, ElementwiseBackend, TernaryOp, UnaryOp,
};
use crate::dispatch;
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use engine::{map1, map2, map3, GRAIN_CHEAP};
use num::Flt;
use num_traits::Float;

/// Unary integer ops whose result bits do not depend on the sign.
fn sign_free_unary(op: UnaryOp) -> bool {
    use UnaryOp::*;
    matches!(op, Neg | Conj | Square | LogicalNot | BitNot)
}

/// Binary integer ops whose result bits do not depend on the sign (wrapping
/// arithmetic and bitwise/logical ops; not shifts, whose negative-shift check
/// reads the sign).
fn sign_free_binary(op: BinaryOp) -> bool {
    use BinaryOp::*;
    matches!(
        op,
        Add | Sub | Mul | BitAnd | BitOr | BitXor | LogicalAnd | LogicalOr | LogicalXor
    )
}

/// `out = op(a, b)` as u8 for an ordered type: `Lt`, `Le`, `Gt`, `Ge` (the
/// equalities are [`compare_eq`]).
fn compare_ord<T: Element + PartialOrd>(
    op: CmpOp,
    a: &Tensor,
    b: &Tensor,
    out: &Tensor,
) -> Result<()> {
    macro_rules! go {
        ($f:expr) => {
            // SAFETY: element types are the tensors' (dispatch); frontend contract.
            unsafe { map2::<T, T, u8, _>(out, a, b, GRAIN_CHEAP, $f) }
        };
    }
    match op {
        CmpOp::Lt => go!(|x: T, y: T| (x < y) as u8),
        CmpOp::Le => go!(|x: T, y: T| (x <= y) as u8),
        CmpOp::Gt => go!(|x: T, y: T| (x > y) as u8),
        CmpOp::Ge => go!(|x: T, y: T| (x >= y) as u8),
        CmpOp::Eq | CmpOp::Ne => return Err(Error::dtype(op.name(), a.dtype())),
    }
    Ok(())
}

/// Equality comparisons (`Eq`, `Ne`) for any element type; the integers reach
/// it through their signed twin (equality does not depend on the sign), so
/// it is compiled for floats, signed integers and complex types.
fn compare_eq<T: Element>(op: CmpOp, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<()> {
    match op {
        // SAFETY: element types are the tensors' (dispatch) or, for unsigned
        // integers, their signed twin's (`bits_ptr`); frontend contract.
        CmpOp::Eq => unsafe { map2::<T, T, u8, _>(out, a, b, GRAIN_CHEAP, |x, y| (x == y) as u8) },
        // SAFETY: as above.
        CmpOp::Ne => unsafe { map2::<T, T, u8, _>(out, a, b, GRAIN_CHEAP, |x, y| (x != y) as u8) },
        _ => return Err(Error::dtype(op.name(), a.dtype())),
    }
    Ok(())
}

fn classify_float<T: Flt>(op: ClassOp, x: &Tensor, out: &Tensor) {
    let f = |v: T| {
        let c = v.ld();
        match op {
            ClassOp::IsNan => c.is_nan(),
            ClassOp::IsInf => c.is_infinite(),
            ClassOp::IsFinite => c.is_finite(),
        }
    };
    // SAFETY: element types are the tensors' (dispatch); frontend contract.
    unsafe { map1::<T, u8, _>(out, x, GRAIN_CHEAP, move |v| f(v) as u8) }
}

/// NumPy's rules for complex numbers: NaN or infinite when a part is,
/// finite when both parts are.
fn classify_complex<F>(op: ClassOp, x: &Tensor, out: &Tensor)
where
    F: Float + Element + Send + Sync,
    num_complex::Complex<F>: Element,
{
    let f = move |v: num_complex::Complex<F>| match op {
        ClassOp::IsNan => v.re.is_nan() || v.im.is_nan(),
        ClassOp::IsInf => v.re.is_infinite() || v.im.is_infinite(),
        ClassOp::IsFinite => v.re.is_finite() && v.im.is_finite(),
    };
    // SAFETY: element types are the tensors' (dispatch); frontend contract.
    unsafe { map1::<num_complex::Complex<F>, u8, _>(out, x, GRAIN_CHEAP, move |v| f(v) as u8) }
}

fn classify_int<T: Element>(op: ClassOp, x: &Tensor, out: &Tensor) {
    let v = (op == ClassOp::IsFinite) as u8;
    // SAFETY: `T` is the tensor's element type or its signed twin's (the
    // engine reads it through `bits_ptr`); frontend contract.
    unsafe { map1::<T, u8, _>(out, x, GRAIN_CHEAP, move |_| v) }
}

impl ElementwiseBackend for CpuBackend {
    fn unary(&self, op: UnaryOp, x: &Tensor, out: &Tensor) -> Result<()> {
        let dt = x.dtype();
        if dt.is_float() {
            dispatch!(@float dt, "unary", T => kernels::float_unary::<T>(op, x, out))
        } else if dt.is_int() {
            if sign_free_unary(op) {
                dispatch!(@signed signed_twin(dt), "unary", T => kernels::int_unary_bits::<T>(op, x, out))
            } else {
                dispatch!(@int dt, "unary", T => kernels::int_unary::<T>(op, x, out))
            }
        } else if dt == crate::DType::C32 {
            kernels::complex_unary::<f32>(op, x, out)
        } else {
            kernels::complex_unary::<f64>(op, x, out)
        }
    }

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<()> {
        let dt = a.dtype();
        if dt.is_float() {
            dispatch!(@float dt, "binary", T => kernels::float_binary::<T>(op, a, b, out))
        } else if dt.is_int() {
            if sign_free_binary(op) {
                dispatch!(@signed signed_twin(dt), "binary", T => kernels::int_binary_bits::<T>(op, a, b, out))
            } else {
                dispatch!(@int dt, "binary", T => kernels::int_binary::<T>(op, a, b, out))
            }
        } else if dt == crate::DType::C32 {
            kernels::complex_binary::<f32>(op, a, b, out)
        } else {
            kernels::complex_binary::<f64>(op, a, b, out)
        }
    }

    fn compare(&self, op: CmpOp, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<()> {
        let dt = a.dtype();
        if dt.is_complex() {
            return dispatch!(@complex dt, op.name(), T => compare_eq::<T>(op, a, b, out));
        }
        if matches!(op, CmpOp::Eq | CmpOp::Ne) {
            if dt.is_int() {
                dispatch!(@signed signed_twin(dt), op.name(), T => compare_eq::<T>(op, a, b, out))
            } else {
                dispatch!(@float dt, op.name(), T => compare_eq::<T>(op, a, b, out))
            }
        } else {
            dispatch!(@real dt, op.name(), T => compare_ord::<T>(op, a, b, out))
        }
    }

    fn classify(&self, op: ClassOp, x: &Tensor, out: &Tensor) -> Result<()> {
        let dt = x.dtype();
        if dt.is_float() {
            dispatch!(@float dt, "classify", T => classify_float::<T>(op, x, out));
        } else if dt == crate::DType::C32 {
            classify_complex::<f32>(op, x, out);
        } else if dt == crate::DType::C64 {
            classify_complex::<f64>(op, x, out);
        } else {
            // Integers are finite, never NaN or infinite: a constant, which
            // does not depend on the sign.
            dispatch!(@signed signed_twin(dt), "classify", T => classify_int::<T>(op, x, out));
        }
        Ok(())
    }

    fn select(&self, mask: &Tensor, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<()> {
        dispatch!(@compute a.dtype(), "select", T => {
            // SAFETY: element types are the tensors' (dispatch, mask is u8); frontend contract.
            unsafe {
                map3::<u8, T, T, T, _>(out, mask, a, b, GRAIN_CHEAP, |m, x, y| if m != 0 { x } else { y })
            }
        });
        Ok(())
    }

    fn ternary(
        &self,
        op: TernaryOp,
        a: &Tensor,
        b: &Tensor,
        c: &Tensor,
        out: &Tensor,
    ) -> Result<()> {
        let dt = a.dtype();
        if dt.is_float() {
            dispatch!(@float dt, "ternary", T => kernels::float_ternary::<T>(op, a, b, c, out))
        } else {
            dispatch!(@int dt, "ternary", T => kernels::int_ternary::<T>(op, a, b, c, out))
        }
    }
}
