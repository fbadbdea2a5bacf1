//! Math functions of floats: sqrt, rsqrt, exp, exp2, expm1, log, log2, log1p,
//! sin, cos, tan, asin, acos, atan, sinh, cosh, tanh, asinh, acosh, atanh,
//! trunc, ceil, floor, round (half away from zero), erf (unary) and atan2,
//! hypot (binary), each allocating, in place (`exp_`) and into an output
//! (`exp_out`), with the elementwise rules of `ops::elementwise` (broadcasting
//! for the binary ones, one dtype, exact output, inputs read before writes).
//!
//! Dtypes: f16, bf16 (computed in f32, rounded once), f32, f64; `sqrt` (and
//! `recip`, in `elementwise`) also c32/c64. Other dtypes are an
//! `UnsupportedDType` error. Accuracy per function: see
//! [`crate::backend::cpu::vmath::MathFn`] (vectorised, stated and tested max ULP).
//!
//! On a GPU (feature `gpu`), f32, f16 and bf16 run rnx's own WGSL math library
//! (no driver built-ins): within 1 to 3 ULP of f32 per function (table and
//! method in `src/backend/gpu/math.rs`, measured on lavapipe; sin/cos/tan
//! reduce every finite argument exactly), halves within one unit of the
//! correctly rounded result; results may differ from the CPU's by those few
//! ULPs. f64 math on a GPU runs through the CPU (exact CPU results).

use super::elementwise::{binary_methods, unary_methods};

unary_methods! {
    /// Square root (complex: principal branch).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F32, &[3], &[4.0f32, 9.0, 2.0]).unwrap();
    /// assert_eq!(x.sqrt().unwrap().to_vec::<f32>().unwrap(), vec![2.0, 3.0, 2f32.sqrt()]);
    /// ```
    sqrt, sqrt_, sqrt_out => Math(Sqrt);
    /// Reciprocal square root 1/√x.
    rsqrt, rsqrt_, rsqrt_out => Math(Rsqrt);
    /// eˣ (overflow gives +∞, underflow 0).
    exp, exp_, exp_out => Math(Exp);
    /// 2ˣ.
    exp2, exp2_, exp2_out => Math(Exp2);
    /// eˣ − 1, accurate near 0.
    expm1, expm1_, expm1_out => Math(Expm1);
    /// Natural logarithm (0 gives −∞, negative NaN).
    log, log_, log_out => Math(Log);
    /// Base-2 logarithm (exact at powers of two).
    log2, log2_, log2_out => Math(Log2);
    /// ln(1 + x), accurate near 0.
    log1p, log1p_, log1p_out => Math(Log1p);
    /// Sine of radians.
    sin, sin_, sin_out => Math(Sin);
    /// Cosine of radians.
    cos, cos_, cos_out => Math(Cos);
    /// Tangent of radians.
    tan, tan_, tan_out => Math(Tan);
    /// Arcsine (NaN outside [−1, 1]).
    asin, asin_, asin_out => Math(Asin);
    /// Arccosine (NaN outside [−1, 1]).
    acos, acos_, acos_out => Math(Acos);
    /// Arctangent.
    atan, atan_, atan_out => Math(Atan);
    /// Hyperbolic sine.
    sinh, sinh_, sinh_out => Math(Sinh);
    /// Hyperbolic cosine.
    cosh, cosh_, cosh_out => Math(Cosh);
    /// Hyperbolic tangent.
    tanh, tanh_, tanh_out => Math(Tanh);
    /// Inverse hyperbolic sine.
    asinh, asinh_, asinh_out => Math(Asinh);
    /// Inverse hyperbolic cosine (NaN below 1).
    acosh, acosh_, acosh_out => Math(Acosh);
    /// Inverse hyperbolic tangent (±∞ at ±1, NaN outside).
    atanh, atanh_, atanh_out => Math(Atanh);
    /// Round toward zero.
    trunc, trunc_, trunc_out => Math(Trunc);
    /// Round up.
    ceil, ceil_, ceil_out => Math(Ceil);
    /// Round down.
    floor, floor_, floor_out => Math(Floor);
    /// Round to nearest, ties away from zero (2.5 → 3, −2.5 → −3; not banker's).
    round, round_, round_out => Math(Round);
    /// The error function.
    erf, erf_, erf_out => Math(Erf);
}

binary_methods! {
    /// atan2(self, other): the angle of the point (other, self) in [−π, π], with
    /// the signs choosing the quadrant (atan2(0, 0) = 0). Operands broadcast.
    atan2, atan2_, atan2_out => Atan2;
    /// √(self² + other²) without overflow or underflow (hypot(1e200, 1e200) is
    /// finite; ±∞ with NaN gives +∞). Operands broadcast.
    hypot, hypot_, hypot_out => Hypot;
}
