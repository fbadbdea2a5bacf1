//! Exactly rounded basics (sqrt, rsqrt, reciprocal, the four roundings) and the
//! scalar functions that call the platform's f64 libm per element (inverse
//! trigonometric, sinh/cosh and inverse hyperbolic, atan2, pow): f32 goes
//! through f64 and is rounded once, which is within 0.5 ULP + 2⁻²⁹ of the
//! correctly rounded value when libm is within 1 f64 ULP.

/// 1/√x (f32): in f64 and rounded once (≤ 0.5 ULP + 2⁻²⁹).
#[inline(always)]
pub(crate) fn rsqrt32(x: f32) -> f32 {
    (1.0 / (x as f64).sqrt()) as f32
}

/// 1/√x (f64).
#[inline(always)]
pub(crate) fn rsqrt64(x: f64) -> f64 {
    1.0 / x.sqrt()
}

/// acosh (f64): the `libm` crate's (musl's), NaN below 1 (musl's formula
/// gives finite nonsense for x <= -2). Rust's own `f64::acosh` overflows
/// past about 9e307 and loses up to ~30 ULP just above 1; its `asinh`
/// overflows likewise and its `atanh` is inaccurate near -1, so the table
/// takes `libm::asinh` and `libm::atanh` too.
#[inline]
pub(crate) fn acosh64(x: f64) -> f64 {
    if x < 1.0 {
        f64::NAN
    } else {
        libm::acosh(x)
    }
}

/// A scalar f64 libm function applied to an f32 through f64.
#[inline(always)]
pub(crate) fn via64(x: f32, f: impl Fn(f64) -> f64) -> f32 {
    f(x as f64) as f32
}

/// A scalar binary f64 function applied to f32 through f64.
#[inline(always)]
pub(crate) fn via64_2(a: f32, b: f32, f: impl Fn(f64, f64) -> f64) -> f32 {
    f(a as f64, b as f64) as f32
}

/// √(a² + b²) for f32: the f64 sum of squares is exact-range (no overflow or
/// underflow for any f32) and its square root is rounded once more.
#[inline(always)]
pub(crate) fn hypot32(a: f32, b: f32) -> f32 {
    let (a, b) = (a as f64, b as f64);
    let h = (a * a + b * b).sqrt() as f32;
    // IEEE 754: hypot(±∞, NaN) = +∞.
    if a.is_infinite() || b.is_infinite() {
        f32::INFINITY
    } else {
        h
    }
}
