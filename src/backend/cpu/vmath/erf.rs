//! The error function and the exact (erf) GELU. Scalar: the `libm` crate's
//! double-precision erf/erfc (the fdlibm algorithm, < 1 ULP) per element,
//! rounded once for f32. Not vectorised; no other function may call these in a
//! hot loop that claims to be vectorised.

/// erf x (f64).
#[inline(always)]
pub(crate) fn erf64(x: f64) -> f64 {
    libm::erf(x)
}

/// erf x (f32, through f64).
#[inline(always)]
pub(crate) fn erf32(x: f32) -> f32 {
    libm::erf(x as f64) as f32
}

/// Exact GELU 0.5·x·erfc(−x/√2) (f64): no cancellation for x < 0; −0 at −∞.
#[inline(always)]
pub(crate) fn gelu_erf64(x: f64) -> f64 {
    if x == f64::NEG_INFINITY {
        return -0.0;
    }
    0.5 * x * libm::erfc(-x * std::f64::consts::FRAC_1_SQRT_2)
}

/// Exact GELU (f32, through f64).
#[inline(always)]
pub(crate) fn gelu_erf32(x: f32) -> f32 {
    gelu_erf64(x as f64) as f32
}
