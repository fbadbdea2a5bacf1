//! The GPU's own f32 math: which function of the WGSL library
//! `wgsl/math_f32.wgsl` each transcendental float op and activation runs as
//! (for f32, and for f16/bf16 computed in f32 and rounded once to the storage
//! type), with the accuracy each one has. No dispatch code lives here
//! (`elementwise.rs` runs the kernels).
//!
//! The library uses no WGSL built-in transcendental (their precision is
//! implementation-defined and very loose on some drivers): range reduction and
//! polynomials in f32, integer Payne-Hanek reduction for sin/cos/tan (exact for
//! every finite argument), integer long division for `rem`, and for erf/erfc
//! Chebyshev interpolants of erfc(x)·x·e^(x²) (coefficients from an f64 erfc at
//! Chebyshev nodes) times e^(−x²) computed from an exactly split x².
//!
//! # Accuracy (f32)
//!
//! Largest error in units in the last place (ULP) against an f64 reference,
//! measured by `tests/suite/gpu_math.rs` on lavapipe (Mesa's software Vulkan)
//! over about 10^6 inputs spread over all f32 bit patterns plus the special and
//! edge values; halves are tested exhaustively and are within one unit of the
//! storage type of the correctly rounded result. The bounds assume correctly
//! rounded f32 division and square root (lavapipe); Vulkan allows 2.5 ULP
//! division and less exact square roots, which can add about that much on other
//! GPUs where a function divides (marked "÷") or takes a root ("√").
//!
//! | op | WGSL | bound (max ULP) | measured |
//! |---|---|---|---|
//! | exp, exp2 | `m_exp`, `m_exp2` | 1.5 (exp2 exact at integers) | 0.91, 0.99 |
//! | expm1 | `m_expm1` | 2 | 1.34 |
//! | log | `m_log` | 1 ÷ | 0.75 |
//! | log2 | `m_log2` | 1 ÷ (exact at powers of two) | 0.78 |
//! | log1p | `m_log1p` | 2 ÷ | 1.26 |
//! | rsqrt | `m_rsqrt` | 1.5 ÷ (the root's rounding is corrected exactly) | 1.00 |
//! | sin, cos | `m_sin`, `m_cos` | 1.5 (any finite argument) | 1.16, 1.15 |
//! | tan | `m_tan` | 3 ÷ | 2.80 |
//! | asin, acos, atan | `m_asin`, `m_acos`, `m_atan` | 1.5, 2, 2 ÷ √ | 0.60, 1.19, 1.49 |
//! | sinh, cosh | `m_sinh`, `m_cosh` | 2 ÷ | 1.35, 1.31 |
//! | tanh | `m_tanh` | 2.5 ÷ | 2.29 |
//! | asinh, acosh, atanh | `m_asinh`, `m_acosh`, `m_atanh` | 2 ÷ √ | 1.59, 1.62, 1.58 |
//! | sigmoid | `m_sigmoid` | 2.5 ÷ | 2.13 |
//! | silu | `m_silu` | 4 ÷, plus \|x\| subnormal ULPs where sigmoid(x) is subnormal | 2.90 |
//! | softplus, log_sigmoid | `m_softplus`, `m_log_sigmoid` | 2 ÷ | 1.56, 1.56 |
//! | elu | `m_elu` | 1.5 (alpha 1), 2 (alpha 0.3) | 0.82, 1.27 |
//! | selu | `m_selu` | 2 | 1.89 |
//! | gelu (tanh form) | `m_gelu` | 4 + 3·\|2u\| ÷ (u the tanh argument, rounded in f32 as on the CPU) | 0.68 of the bound (176 at \|2u\| ≈ 86) |
//! | mish | `m_mish` | 5 ÷, plus \|x\| subnormal ULPs where e^−\|x\| is subnormal | 3.99 |
//! | erf | `m_erf` | 1.5 ÷ | 0.96 |
//! | gelu_erf (exact GELU) | `m_gelu_erf` | 6 ÷, plus \|x\| subnormal ULPs where the result is subnormal | 5.27 |
//! | softsign | `m_softsign` | 1.5 ÷ | 1.50 |
//! | hard_sigmoid, hard_silu | `m_hard_sigmoid`, `m_hard_silu` | 1, 1.5, or an ULP of beta (times \|x\|) near the lower corner (fma may be unfused) | 0.74, 1.29 |
//! | leaky_relu | `m_leaky_relu` | 0.5 | 0.5 |
//! | rem (float) | `m_fmod` | exact (C `fmod`, as the CPU) | 0 |
//! | pow (float) | `m_pow` | 4.5 ÷ (log2 and the product carried in exact parts; C `pow` specials) | 3.60 |
//! | atan2 | `m_atan2` | 2 ÷ | 1.72 |
//! | hypot | `m_hypot` | 1.5 √ (no overflow or underflow) | 1.14 |
//!
//! "measured" is the largest error printed by `RNX_REQUIRE_GPU=1 cargo test
//! --features gpu --test suite gpu_math -- --nocapture` on lavapipe (LLVM 15);
//! for silu, mish and gelu_erf, where the results are normal numbers.
//!
//! Special values (NaN, ±inf, ±0, overflow and underflow thresholds) give the
//! CPU backend's results. Subnormal inputs and results are exact IEEE on
//! lavapipe; a GPU that flushes denormals to zero flushes them here too.
//!
//! f64 runs rnx's f64 library instead (`math_f64.rs`, with its own table)
//! for exp, exp2, expm1, log, log2, log1p, sinh, cosh, tanh, sin, cos, tan,
//! sigmoid, silu, softplus, log_sigmoid, gelu, mish, softsign, leaky_relu,
//! hard_sigmoid, hard_silu, elu, selu, rsqrt, atan, asin, acos, asinh,
//! acosh, atanh, erf and gelu_erf, and the binary rem (exact fmod), pow,
//! atan2 and hypot.

use crate::backend::elementwise::{BinaryOp, MathFn, UnaryOp};

/// The WGSL library (needs the kernel prelude's `is_nan32`/`is_inf32`).
pub(crate) const MATH_F32: &str = include_str!("wgsl/math_f32.wgsl");

/// The WGSL expression of a unary math op on `x` (f32) and its parameters
/// (read as `prm[i]`), or `None` when the op is not in the library.
pub(crate) fn unary(op: UnaryOp) -> Option<(&'static str, Vec<f64>)> {
    use MathFn::*;
    let UnaryOp::Math(f) = op else {
        return None;
    };
    Some(match f {
        Rsqrt => ("m_rsqrt(x)", vec![]),
        Exp => ("m_exp(x)", vec![]),
        Exp2 => ("m_exp2(x)", vec![]),
        Expm1 => ("m_expm1(x)", vec![]),
        Log => ("m_log(x)", vec![]),
        Log2 => ("m_log2(x)", vec![]),
        Log1p => ("m_log1p(x)", vec![]),
        Sin => ("m_sin(x)", vec![]),
        Cos => ("m_cos(x)", vec![]),
        Tan => ("m_tan(x)", vec![]),
        Asin => ("m_asin(x)", vec![]),
        Acos => ("m_acos(x)", vec![]),
        Atan => ("m_atan(x)", vec![]),
        Sinh => ("m_sinh(x)", vec![]),
        Cosh => ("m_cosh(x)", vec![]),
        Tanh => ("m_tanh(x)", vec![]),
        Asinh => ("m_asinh(x)", vec![]),
        Acosh => ("m_acosh(x)", vec![]),
        Atanh => ("m_atanh(x)", vec![]),
        Sigmoid => ("m_sigmoid(x)", vec![]),
        Silu => ("m_silu(x)", vec![]),
        HardSigmoid { alpha, beta } => ("m_hard_sigmoid(x, prm[0], prm[1])", vec![alpha, beta]),
        HardSilu => ("m_hard_silu(x)", vec![]),
        Softplus => ("m_softplus(x)", vec![]),
        LogSigmoid => ("m_log_sigmoid(x)", vec![]),
        LeakyRelu { slope } => ("m_leaky_relu(x, prm[0])", vec![slope]),
        Elu { alpha } => ("m_elu(x, prm[0])", vec![alpha]),
        Selu => ("m_selu(x)", vec![]),
        Gelu => ("m_gelu(x)", vec![]),
        Softsign => ("m_softsign(x)", vec![]),
        Mish => ("m_mish(x)", vec![]),
        Erf => ("m_erf(x)", vec![]),
        GeluErf => ("m_gelu_erf(x)", vec![]),
        _ => return None,
    })
}

/// The WGSL expression of a binary float math op on `x`, `y` (f32), or `None`.
pub(crate) fn binary(op: BinaryOp) -> Option<&'static str> {
    match op {
        BinaryOp::Rem => Some("m_fmod(x, y)"),
        BinaryOp::Atan2 => Some("m_atan2(x, y)"),
        BinaryOp::Hypot => Some("m_hypot(x, y)"),
        BinaryOp::Pow => Some("m_pow(x, y)"),
        _ => None,
    }
}
