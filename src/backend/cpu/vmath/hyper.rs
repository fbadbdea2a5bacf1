//! Hyperbolic functions. tanh is a branch-free body built on expm1:
//! tanh|x| = e/(e + 2) with e = expm1(2|x|), sign restored by copysign (exact at
//! ±0, no cancellation near 0, |x| clamped where tanh rounds to ±1). The others
//! (sinh, cosh and the inverses) are scalar: the platform's f64 libm per element,
//! rounded once for f32.

use super::exp_log::{expm1_bounded32, expm1_bounded64};
use super::Fm;

/// tanh x (f32).
#[inline(always)]
pub(crate) fn tanh32<M: Fm>(x: f32) -> f32 {
    let a = x.abs();
    let a = if a > 10.0 { 10.0 } else { a };
    let e = expm1_bounded32::<M>(a + a);
    (e / (e + 2.0)).copysign(x)
}

/// tanh x (f64).
#[inline(always)]
pub(crate) fn tanh64<M: Fm>(x: f64) -> f64 {
    let a = x.abs();
    let a = if a > 20.0 { 20.0 } else { a };
    let e = expm1_bounded64::<M>(a + a);
    (e / (e + 2.0)).copysign(x)
}
