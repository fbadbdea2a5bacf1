//! Elementwise arithmetic: add, sub, mul, div, rem (mod), pow, maximum,
//! minimum (binary); neg, abs, sign, square, recip (unary); clamp/clip and lerp
//! (ternary); each allocating, in place (`add_`) and into an output
//! (`add_out`), plus the reversed scalar forms (`rsub`, `rdiv`, `rpow`, `rmod`).
//! Also the generic entry points `unary`, `binary` (and `_out`) that other
//! families (math, activations) build on. Rules shared by all of them:
//!
//! - operands broadcast (align right; equal or 1; 0 with 1 gives 0);
//! - one dtype: tensors must agree (else an error naming both); Rust scalars
//!   are converted to it and must be representable (`2.5` into i32 is an error);
//! - f16/bf16 compute in f32 and round once per result; integers wrap;
//! - an output must have exactly the result's shape and dtype, and a layout
//!   without self-overlap; inputs behave as if fully read before any write.

use super::frame::{require, resolve, run, Operand};
use crate::backend::elementwise::{BinaryOp, TernaryOp, UnaryOp};
use crate::dtype::{DType, Scalar};
use crate::error::Result;
use crate::tensor::Tensor;

/// `op(x)` into `out` (or a new tensor). `name` names the op in errors.
/// Extensions (`crate::ext`) are asked first.
pub(crate) fn unary_impl(
    name: &str,
    op: UnaryOp,
    x: &Tensor,
    out: Option<&Tensor>,
) -> Result<Tensor> {
    crate::ext::hook(
        name,
        &[Operand::Tensor(x)],
        out,
        || Ok((crate::ext::OpKind::Unary(op), x.shape().to_vec())),
        |o, out| unary_core(name, op, o[0].as_tensor(), out),
    )
}

fn unary_core(name: &str, op: UnaryOp, x: &Tensor, out: Option<&Tensor>) -> Result<Tensor> {
    let dt = x.dtype();
    require(name, op.supports(dt), dt)?;
    let out_dt = if op.real_result() { dt.real() } else { dt };
    run(name, &[x], out_dt, out, |be, v, o| be.unary(op, v[0], o))
}

/// `op(a, b)` into `out` (or a new tensor). `name` names the op in errors.
/// Extensions (`crate::ext`) are asked first.
pub(crate) fn binary_impl(
    name: &str,
    op: BinaryOp,
    a: Operand<'_>,
    b: Operand<'_>,
    out: Option<&Tensor>,
) -> Result<Tensor> {
    let operands = [a, b];
    crate::ext::hook(
        name,
        &operands,
        out,
        || {
            Ok((
                crate::ext::OpKind::Binary(op),
                result_shape(name, &operands)?,
            ))
        },
        |o, out| binary_core(name, op, o, out),
    )
}

/// The broadcast shape of the operands (scalars are rank 0).
pub(crate) fn result_shape(name: &str, operands: &[Operand<'_>]) -> Result<Vec<usize>> {
    let shapes: Vec<&[usize]> = operands
        .iter()
        .map(|o| match o {
            Operand::Tensor(t) => t.shape(),
            Operand::Scalar(_) => &[][..],
        })
        .collect();
    super::frame::broadcast_shapes(name, &shapes)
}

fn binary_core(
    name: &str,
    op: BinaryOp,
    operands: &[Operand<'_>],
    out: Option<&Tensor>,
) -> Result<Tensor> {
    if let [Operand::Tensor(a), Operand::Tensor(b)] = operands {
        // Two tensors (the common case): `resolve`'s checks without its Vec.
        super::same_device(name, &[*a, *b])?;
        super::same_dtype(name, &[*a, *b])?;
        let dt = a.dtype();
        require(name, op.supports(dt), dt)?;
        return run(name, &[*a, *b], dt, out, |be, v, o| {
            be.binary(op, v[0], v[1], o)
        });
    }
    let ts = resolve(name, operands, out)?;
    let dt = ts[0].dtype();
    require(name, op.supports(dt), dt)?;
    run(name, &[&ts[0], &ts[1]], dt, out, |be, v, o| {
        be.binary(op, v[0], v[1], o)
    })
}

/// `op(a, b, c)` into `out` (or a new tensor). Extensions are asked first.
pub(crate) fn ternary_impl(
    name: &str,
    op: TernaryOp,
    operands: [Operand<'_>; 3],
    out: Option<&Tensor>,
) -> Result<Tensor> {
    crate::ext::hook(
        name,
        &operands,
        out,
        || {
            Ok((
                crate::ext::OpKind::Ternary(op),
                result_shape(name, &operands)?,
            ))
        },
        |o, out| ternary_core(name, op, o, out),
    )
}

fn ternary_core(
    name: &str,
    op: TernaryOp,
    operands: &[Operand<'_>],
    out: Option<&Tensor>,
) -> Result<Tensor> {
    let ts = resolve(name, operands, out)?;
    let dt = ts[0].dtype();
    require(name, op.supports(dt), dt)?;
    run(name, &[&ts[0], &ts[1], &ts[2]], dt, out, |be, v, o| {
        be.ternary(op, v[0], v[1], v[2], o)
    })
}

/// `op(x)` as a new tensor, for any [`UnaryOp`] (the entry point of the math
/// and activation families).
pub fn unary(op: UnaryOp, x: &Tensor) -> Result<Tensor> {
    unary_impl(&op.name(), op, x, None)
}

/// `op(x)` written into `out` (which may be `x` itself); returns `out`.
pub fn unary_out(op: UnaryOp, x: &Tensor, out: &Tensor) -> Result<Tensor> {
    unary_impl(&op.name(), op, x, Some(out))
}

/// `op(a, b)` as a new tensor; each operand a tensor or a scalar (at least one
/// tensor).
///
/// ```
/// use rnx::{Tensor, backend::elementwise::BinaryOp, ops::elementwise::binary};
/// let t = Tensor::from_vec(vec![1i32, 2, 3], &[3]).unwrap();
/// assert_eq!(binary(BinaryOp::Sub, 10, &t).unwrap().to_vec::<i32>().unwrap(), vec![9, 8, 7]);
/// ```
pub fn binary<'a>(
    op: BinaryOp,
    a: impl Into<Operand<'a>>,
    b: impl Into<Operand<'a>>,
) -> Result<Tensor> {
    binary_impl(op.name(), op, a.into(), b.into(), None)
}

/// `op(a, b)` written into `out`; returns `out`. When both operands are
/// scalars they take `out`'s dtype and `out` must have rank 0.
///
/// ```
/// use rnx::{Tensor, DType, backend::elementwise::BinaryOp, ops::elementwise::binary_out};
/// let out = Tensor::zeros(DType::I16, &[]).unwrap();
/// binary_out(BinaryOp::Mul, 6, 7, &out).unwrap();
/// assert_eq!(out.item::<i16>().unwrap(), 42);
/// ```
pub fn binary_out<'a>(
    op: BinaryOp,
    a: impl Into<Operand<'a>>,
    b: impl Into<Operand<'a>>,
    out: &Tensor,
) -> Result<Tensor> {
    binary_impl(op.name(), op, a.into(), b.into(), Some(out))
}

macro_rules! binary_methods {
    ($($(#[$m:meta])* $name:ident, $inplace:ident, $out:ident => $op:ident;)*) => {
        impl $crate::Tensor {$(
            $(#[$m])*
            pub fn $name<'a>(&self, other: impl Into<$crate::ops::Operand<'a>>) -> $crate::Result<$crate::Tensor> {
                $crate::ops::elementwise::binary_impl(stringify!($name), $crate::backend::elementwise::BinaryOp::$op, $crate::ops::Operand::Tensor(self), other.into(), None)
            }
            #[doc = concat!("In-place [`Tensor::", stringify!($name), "`](crate::Tensor::", stringify!($name), ")",
                ": writes into `self` (the broadcast result must have `self`'s shape) and returns it.")]
            pub fn $inplace<'a>(&self, other: impl Into<$crate::ops::Operand<'a>>) -> $crate::Result<$crate::Tensor> {
                $crate::ops::elementwise::binary_impl(stringify!($name), $crate::backend::elementwise::BinaryOp::$op, $crate::ops::Operand::Tensor(self), other.into(), Some(self))
            }
            #[doc = concat!("[`Tensor::", stringify!($name), "`](crate::Tensor::", stringify!($name), ")",
                " written into `out` (exactly the result's shape and dtype; any strides \
                 without self-overlap; it may overlap the inputs); returns `out`.")]
            pub fn $out<'a>(&self, other: impl Into<$crate::ops::Operand<'a>>, out: &$crate::Tensor) -> $crate::Result<$crate::Tensor> {
                $crate::ops::elementwise::binary_impl(stringify!($name), $crate::backend::elementwise::BinaryOp::$op, $crate::ops::Operand::Tensor(self), other.into(), Some(out))
            }
        )*}
    };
}

pub(crate) use binary_methods;

binary_methods! {
    /// Elementwise `self + other` with broadcasting (integers wrap).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::create(DType::F32, &[2, 1], &[1., 2.]).unwrap();
    /// let b = Tensor::create(DType::F32, &[3], &[10., 20., 30.]).unwrap();
    /// assert_eq!(a.add(&b).unwrap().to_string(), "[[11, 21, 31],\n [12, 22, 32]]");
    /// assert_eq!(b.add(1).unwrap().to_vec::<f32>().unwrap(), vec![11., 21., 31.]);
    /// ```
    #[doc(alias = "add_s")]
    add, add_, add_out => Add;
    /// Elementwise `self - other` (integers wrap).
    #[doc(alias = "sub_s")]
    sub, sub_, sub_out => Sub;
    /// Elementwise `self * other` (integers wrap).
    #[doc(alias = "mul_s")]
    mul, mul_, mul_out => Mul;
    /// Elementwise `self / other`: true division for floats and complex;
    /// integers truncate toward zero (`-7 / 2 == -3`, `MIN / -1 == MIN`) and a
    /// zero divisor is [`crate::Error::DivisionByZero`], raised before any write.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[2], &[-7, 8]).unwrap();
    /// assert_eq!(x.div(2).unwrap().to_string(), "[-3, 4]");
    /// assert!(x.div(0).is_err());
    /// ```
    #[doc(alias = "div_s")]
    div, div_, div_out => Div;
    /// Elementwise remainder with the sign of the dividend (Nx `mod_`, C `%`,
    /// `fmod` for floats): `-7 rem 2 == -1`. Integer zero divisors are an error.
    /// Float `rem` is exact on every device (the GPU uses integer long division).
    #[doc(alias = "mod")]
    #[doc(alias = "mod_")]
    rem, rem_, rem_out => Rem;
    /// Elementwise `self ** other`: `powf` for floats; integers wrap and a
    /// negative exponent is an error. On a GPU, f32/f16/bf16 `pow` runs rnx's
    /// WGSL library (C `pow` special cases; within 4.5 ULP, see the README).
    #[doc(alias = "pow_s")]
    pow, pow_, pow_out => Pow;
    /// Elementwise maximum; NaN if either is NaN.
    maximum, maximum_, maximum_out => Max;
    /// Elementwise minimum; NaN if either is NaN.
    minimum, minimum_, minimum_out => Min;
}

macro_rules! reversed {
    ($($(#[$m:meta])* $name:ident => $op:ident;)*) => {
        impl Tensor {$(
            $(#[$m])*
            pub fn $name<'a>(&self, other: impl Into<$crate::ops::Operand<'a>>) -> Result<Tensor> {
                $crate::ops::elementwise::binary_impl(stringify!($name), $crate::backend::elementwise::BinaryOp::$op, other.into(), Operand::Tensor(self), None)
            }
        )*}
    };
}

reversed! {
    /// `other - self` (Nx `rsub_s`).
    ///
    /// ```
    /// use rnx::Tensor;
    /// let t = Tensor::from_vec(vec![1.0f32, 2.0], &[2]).unwrap();
    /// assert_eq!(t.rsub(10).unwrap().to_vec::<f32>().unwrap(), vec![9.0, 8.0]);
    /// ```
    rsub => Sub;
    /// `other / self` (Nx `rdiv_s`).
    rdiv => Div;
    /// `other ** self` (Nx `rpow_s`).
    rpow => Pow;
    /// `other rem self` (Nx `rmod_s`).
    rmod => Rem;
}

/// The `UnaryOp` an op list names: a variant (`Neg`) or a math function
/// (`Math(Exp)`), both enums' variants in scope.
macro_rules! unary_op {
    ($op:expr) => {{
        #[allow(unused_imports)]
        use $crate::backend::elementwise::{MathFn::*, UnaryOp::*};
        $op
    }};
}

pub(crate) use unary_op;

macro_rules! unary_methods {
    ($($(#[$m:meta])* $name:ident, $inplace:ident, $out:ident => $op:expr;)*) => {
        impl $crate::Tensor {$(
            $(#[$m])*
            pub fn $name(&self) -> $crate::Result<$crate::Tensor> {
                $crate::ops::elementwise::unary_impl(stringify!($name), $crate::ops::elementwise::unary_op!($op), self, None)
            }
            #[doc = concat!("In-place [`Tensor::", stringify!($name), "`](crate::Tensor::", stringify!($name), "); returns `self`.")]
            pub fn $inplace(&self) -> $crate::Result<$crate::Tensor> {
                $crate::ops::elementwise::unary_impl(stringify!($name), $crate::ops::elementwise::unary_op!($op), self, Some(self))
            }
            #[doc = concat!("[`Tensor::", stringify!($name), "`](crate::Tensor::", stringify!($name), ")",
                " written into `out` (exactly the result's shape and dtype); returns `out`.")]
            pub fn $out(&self, out: &$crate::Tensor) -> $crate::Result<$crate::Tensor> {
                $crate::ops::elementwise::unary_impl(stringify!($name), $crate::ops::elementwise::unary_op!($op), self, Some(out))
            }
        )*}
    };
}

pub(crate) use unary_methods;

unary_methods! {
    /// `-x` (integers wrap: `-MIN == MIN`, unsigned `-x == 0 - x`).
    neg, neg_, neg_out => Neg;
    /// `|x|` (integers wrap: `abs(MIN) == MIN`). For complex input the modulus,
    /// in the real dtype (c32 -> f32, c64 -> f64).
    ///
    /// ```
    /// use rnx::{Tensor, C32, DType};
    /// let z = Tensor::from_vec(vec![C32::new(3.0, 4.0)], &[1]).unwrap();
    /// let a = z.abs().unwrap();
    /// assert_eq!((a.dtype(), a.to_vec::<f32>().unwrap()), (DType::F32, vec![5.0]));
    /// ```
    abs, abs_, abs_out => Abs;
    /// -1, 0 or 1 by sign (NaN stays NaN; unsigned: 1 for non-zero).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F32, &[3], &[-2., 0., 3.5]).unwrap();
    /// assert_eq!(x.sign().unwrap().to_string(), "[-1, 0, 1]");
    /// ```
    sign, sign_, sign_out => Sign;
    /// `x * x` (integers wrap).
    square, square_, square_out => Square;
    /// `1 / x` (floats and complex).
    #[doc(alias = "reciprocal")]
    recip, recip_, recip_out => Recip;
}

/// The dtype's extreme value as a scalar (−inf/+inf for floats, MIN/MAX for ints).
fn extreme(op: &str, dt: DType, high: bool) -> Result<Scalar> {
    if dt.is_float() {
        let v = if high {
            f64::INFINITY
        } else {
            f64::NEG_INFINITY
        };
        return Scalar::from(v).to_dtype(dt, op);
    }
    let (lo, hi) = dt.int_range().ok_or_else(|| crate::Error::dtype(op, dt))?;
    let v = if high { hi } else { lo };
    Ok(crate::dispatch!(dt, T => crate::Element::to_scalar(
        <T as crate::Element>::from_i128_saturating(v)
    )))
}

fn clamp_impl(
    name: &str,
    x: &Tensor,
    lo: Option<Operand<'_>>,
    hi: Option<Operand<'_>>,
    out: Option<&Tensor>,
) -> Result<Tensor> {
    let dt = x.dtype();
    require(name, TernaryOp::Clamp.supports(dt), dt)?;
    let lo = match lo {
        Some(o) => o,
        None => Operand::Scalar(extreme(name, dt, false)?),
    };
    let hi = match hi {
        Some(o) => o,
        None => Operand::Scalar(extreme(name, dt, true)?),
    };
    ternary_impl(name, TernaryOp::Clamp, [Operand::Tensor(x), lo, hi], out)
}

impl Tensor {
    /// Limit values to `[lo, hi]`. Bounds are tensors (broadcast) or scalars
    /// (anything that converts into an [`Operand`]). NaN in any input gives
    /// NaN; when `lo > hi` the result is `hi` (as NumPy). Real and integer
    /// dtypes. For one bound only, see [`Tensor::clamp_min`] and
    /// [`Tensor::clamp_max`].
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[4], &[-5, 0, 5, 10]).unwrap();
    /// assert_eq!(x.clamp(0, 6).unwrap().to_string(), "[0, 0, 5, 6]");
    /// let hi = Tensor::create(DType::I32, &[4], &[1, 1, 9, 9]).unwrap();
    /// assert_eq!(x.clamp(-1, &hi).unwrap().to_string(), "[-1, 0, 5, 9]");
    /// assert!(x.clamp(0.5, 6).is_err()); // 0.5 is not an i32
    /// ```
    pub fn clamp<'a>(
        &self,
        lo: impl Into<Operand<'a>>,
        hi: impl Into<Operand<'a>>,
    ) -> Result<Tensor> {
        clamp_impl("clamp", self, Some(lo.into()), Some(hi.into()), None)
    }
    /// In-place [`Tensor::clamp`]; returns `self`.
    pub fn clamp_<'a>(
        &self,
        lo: impl Into<Operand<'a>>,
        hi: impl Into<Operand<'a>>,
    ) -> Result<Tensor> {
        clamp_impl("clamp", self, Some(lo.into()), Some(hi.into()), Some(self))
    }
    /// [`Tensor::clamp`] written into `out`; returns `out`.
    pub fn clamp_out<'a>(
        &self,
        lo: impl Into<Operand<'a>>,
        hi: impl Into<Operand<'a>>,
        out: &Tensor,
    ) -> Result<Tensor> {
        clamp_impl("clamp", self, Some(lo.into()), Some(hi.into()), Some(out))
    }
    /// Synonym of [`Tensor::clamp`].
    pub fn clip<'a>(
        &self,
        lo: impl Into<Operand<'a>>,
        hi: impl Into<Operand<'a>>,
    ) -> Result<Tensor> {
        clamp_impl("clip", self, Some(lo.into()), Some(hi.into()), None)
    }
    /// Limit values from below: `max(self, lo)` with NaN propagating, as
    /// [`Tensor::clamp`] without an upper bound.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F32, &[3], &[-2., 0.5, 3.]).unwrap();
    /// assert_eq!(x.clamp_min(0).unwrap().to_string(), "[0, 0.5, 3]");
    /// assert_eq!(x.clamp_max(1).unwrap().to_string(), "[-2, 0.5, 1]");
    /// ```
    pub fn clamp_min<'a>(&self, lo: impl Into<Operand<'a>>) -> Result<Tensor> {
        clamp_impl("clamp_min", self, Some(lo.into()), None, None)
    }
    /// In-place [`Tensor::clamp_min`]; returns `self`.
    pub fn clamp_min_<'a>(&self, lo: impl Into<Operand<'a>>) -> Result<Tensor> {
        clamp_impl("clamp_min", self, Some(lo.into()), None, Some(self))
    }
    /// [`Tensor::clamp_min`] written into `out`; returns `out`.
    pub fn clamp_min_out<'a>(&self, lo: impl Into<Operand<'a>>, out: &Tensor) -> Result<Tensor> {
        clamp_impl("clamp_min", self, Some(lo.into()), None, Some(out))
    }
    /// Limit values from above: `min(self, hi)` with NaN propagating, as
    /// [`Tensor::clamp`] without a lower bound.
    pub fn clamp_max<'a>(&self, hi: impl Into<Operand<'a>>) -> Result<Tensor> {
        clamp_impl("clamp_max", self, None, Some(hi.into()), None)
    }
    /// In-place [`Tensor::clamp_max`]; returns `self`.
    pub fn clamp_max_<'a>(&self, hi: impl Into<Operand<'a>>) -> Result<Tensor> {
        clamp_impl("clamp_max", self, None, Some(hi.into()), Some(self))
    }
    /// [`Tensor::clamp_max`] written into `out`; returns `out`.
    pub fn clamp_max_out<'a>(&self, hi: impl Into<Operand<'a>>, out: &Tensor) -> Result<Tensor> {
        clamp_impl("clamp_max", self, None, Some(hi.into()), Some(out))
    }

    /// Linear interpolation `self + weight * (end - self)` (floats); `end` and
    /// `weight` are tensors (broadcast) or scalars (Nx `lerp` and
    /// `lerp_scalar_weight`).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let s = Tensor::create(DType::F32, &[2], &[1., 2.]).unwrap();
    /// let e = Tensor::create(DType::F32, &[2], &[5., 8.]).unwrap();
    /// let w = Tensor::create(DType::F32, &[2], &[0.25, 0.5]).unwrap();
    /// assert_eq!(s.lerp(&e, &w).unwrap().to_string(), "[2, 5]");
    /// ```
    #[doc(alias = "lerp_scalar_weight")]
    pub fn lerp<'a>(
        &self,
        end: impl Into<Operand<'a>>,
        weight: impl Into<Operand<'a>>,
    ) -> Result<Tensor> {
        let ops = [Operand::Tensor(self), end.into(), weight.into()];
        ternary_impl("lerp", TernaryOp::Lerp, ops, None)
    }
    /// In-place [`Tensor::lerp`]; returns `self`.
    pub fn lerp_<'a>(
        &self,
        end: impl Into<Operand<'a>>,
        weight: impl Into<Operand<'a>>,
    ) -> Result<Tensor> {
        let ops = [Operand::Tensor(self), end.into(), weight.into()];
        ternary_impl("lerp", TernaryOp::Lerp, ops, Some(self))
    }
    /// [`Tensor::lerp`] written into `out`; returns `out`.
    pub fn lerp_out<'a>(
        &self,
        end: impl Into<Operand<'a>>,
        weight: impl Into<Operand<'a>>,
        out: &Tensor,
    ) -> Result<Tensor> {
        let ops = [Operand::Tensor(self), end.into(), weight.into()];
        ternary_impl("lerp", TernaryOp::Lerp, ops, Some(out))
    }
}
