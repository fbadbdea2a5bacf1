//! The GPU's own f64 math: which function of the WGSL library
//! `wgsl/math_f64.wgsl` each f64 unary op runs as, and its accuracy. WGSL's f64 built-ins are
//! not used for rounding (lavapipe's f64 `trunc` loses the sign of a zero
//! result): the library works on the bits (SHADER_INT64), exact for every
//! input, bit-identical to the CPU. No dispatch code lives here
//! (`elementwise.rs` runs the kernels).
//!
//! | op | WGSL | accuracy |
//! |---|---|---|
//! | trunc, floor, ceil | `r64_trunc`, `r64_floor`, `r64_ceil` | exact (signed zeros, ±inf and NaN kept) |
//! | round | `r64_round` | exact; half away from zero, as the CPU's `f64::round` |
//! | exp | `m64_exp` (fdlibm's `e_exp.c`: reduction by k ln2 in two parts, rational approximation) | 1 ULP ÷ (measured 1.000) |
//! | log | `m64_log` (fdlibm's `e_log.c`) | 1 ULP ÷ (measured 1.000) |
//!
//! ULP bounds are asserted by `tests/suite/gpu_f64.rs` over 10^6 inputs
//! against Rust's f64 functions on lavapipe (whose f64 division is correctly
//! rounded; "÷": Vulkan allows a less exact division on other GPUs, which
//! can add about that much). Subnormal results of exp are scaled twice (as
//! fdlibm), so they may be off by one unit of 2^-1074.
//!
//! exp and log use no WGSL built-in (Vulkan has no f64 `exp`/`log`).
//!
//! relu, relu6 and hard_tanh of f64 are compares and selects (exact) in
//! `elementwise.rs`. Every other f64 math function and activation takes the
//! documented CPU round trip.

use crate::backend::elementwise::UnaryOp;

/// The WGSL library (f64 kernels only).
pub(crate) const MATH_F64: &str = include_str!("wgsl/math_f64.wgsl");

/// The WGSL expression of a unary f64 op on `x`, or `None` when the op is
/// not in the library.
pub(crate) fn unary(op: UnaryOp) -> Option<&'static str> {
    use UnaryOp::*;
    Some(match op {
        Trunc => "r64_trunc(x)",
        Floor => "r64_floor(x)",
        Ceil => "r64_ceil(x)",
        Round => "r64_round(x)",
        Exp => "m64_exp(x)",
        Log => "m64_log(x)",
        _ => return None,
    })
}
