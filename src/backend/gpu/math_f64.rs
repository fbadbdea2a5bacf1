//! The GPU's own f64 math: which function of the WGSL library
//! `wgsl/math_f64.wgsl` each f64 unary op runs as, and its accuracy. WGSL's
//! f64 built-ins are not used for rounding (lavapipe's f64 `trunc` loses the
//! sign of a zero result): the rounding functions work on the bits
//! (SHADER_INT64), exact for every input, bit-identical to the CPU. Vulkan
//! has no f64 transcendentals: the library has its own, after fdlibm (range
//! reduction in extra precision, its rational and polynomial
//! approximations, exponents scaled on the bits). No dispatch code lives
//! here (`elementwise.rs` runs the kernels).
//!
//! | op | WGSL | bound (max ULP) | measured |
//! |---|---|---|---|
//! | trunc, floor, ceil | `r64_trunc`, `r64_floor`, `r64_ceil` | exact (signed zeros, ±inf and NaN kept) | 0 |
//! | round | `r64_round` | exact; half away from zero, as the CPU's `f64::round` | 0 |
//! | exp | `m64_exp` (fdlibm's `e_exp.c`: reduction by k ln2 in two parts, rational approximation) | 1 ÷ | 1.000 |
//! | exp2 | `m64_exp2` (exp's kernel on t ln2 split exactly, t = x - round(x); exact at integers) | 1 ÷ | 1.000 |
//! | expm1 | `m64_expm1` (fdlibm's `s_expm1.c`) | 2 ÷ (1 on lavapipe; 2 on an NVIDIA H200) | 1.000 |
//! | log | `m64_log` (fdlibm's `e_log.c`) | 1 ÷ | 1.000 |
//! | log2 | `m64_log2` (FreeBSD's `e_log2.c`; exact at powers of two) | 1 ÷ | 1.000 |
//! | log1p | `m64_log1p` (log's kernel on f = x 2^-k + (2^-k - 1), one rounding) | 1 ÷ | 1.000 |
//! | sinh, cosh | `m64_sinh`, `m64_cosh` (fdlibm's `e_sinh.c`, `e_cosh.c` on expm1/exp) | 3 ÷ | 3.000, 3.000 (near the overflow threshold) |
//! | tanh | `m64_tanh` (fdlibm's `s_tanh.c` on expm1) | 3 ÷ | 3.000 |
//! | sin, cos | `m64_sin`, `m64_cos` (fdlibm's kernels; Cody-Waite reduction by pi/2 in three parts, \|x\| < 2^20) | 2 | 2.000, 1.000 |
//! | tan | `m64_tan` (sin / cos of the reduced argument) | 4 ÷ (3 on lavapipe; 4 on an NVIDIA H200) | 3.000 |
//! | sigmoid | `m64_sigmoid` (the CPU's sign-dependent form) | 3 ÷ | 3.000 |
//! | silu | `m64_silu` | 5 ÷, plus 2\|x\| + 2 units of 2^-1074 where sigmoid(x) is subnormal | 4.000 |
//! | softplus, log_sigmoid | `m64_softplus`, `m64_log_sigmoid` (max/min(x, 0) ± log1p(e^-\|x\|)) | 2 ÷ | 2.000, 2.000 |
//! | gelu (tanh form) | `m64_gelu` (the CPU's x·sigmoid(2u), u rounded in f64) | 5 ÷ (given the rounded u), plus 2\|x\| + 2 units of 2^-1074 where sigmoid(2u) is subnormal | 4.000 |
//! | mish | `m64_mish` (the CPU's overflow-free form) | 7 ÷ against a composed libm reference (itself about 2 ULP off), plus 2\|x\| + 2 units of 2^-1074 where e^-\|x\| is subnormal | 5.000 |
//! | softsign | `m64_softsign` | 1.5 ÷ (bit-identical to the CPU where division is correctly rounded) | 0.000 |
//! | rsqrt | `m64_rsqrt` (1 / sqrt(x), the CPU's formula; ±inf at ±0) | 2 ÷ (the driver's f64 sqrt and division; correctly rounded on lavapipe: bit-identical to the CPU there) | 0.000 |
//! | atan | `m64_atan` (fdlibm's `s_atan.c`) | 2 ÷ | 1.000 |
//! | asin, acos | `m64_asin`, `m64_acos` (fdlibm's `e_asin.c`, `e_acos.c`, on the driver's sqrt) | 2 ÷ | 1.000, 1.000 |
//! | asinh, atanh | `m64_asinh`, `m64_atanh` (fdlibm's `s_asinh.c`, `e_atanh.c` on the library's log/log1p) | 2 ÷ | 1.000, 1.000 |
//! | acosh | `m64_acosh` (fdlibm's `e_acosh.c`) | 3 ÷ | 2.000 |
//! | erf | `m64_erf` (fdlibm's `s_erf.c`, as the `libm` crate the CPU calls, on the library's exp) | 2 ÷ | 1.000 |
//! | gelu_erf | `m64_gelu_erf` (the CPU's 0.5 x erfc(-x/sqrt 2), erfc from `s_erf.c`) | 4 ÷, plus 2\|x\| + 2 units of 2^-1074 where erfc is subnormal | 2.000 |
//! | rem (binary) | `m64_fmod` (C fmod on the bits: integer long division of the significands) | exact, bit-identical to the CPU | 0 |
//! | atan2 (binary) | `m64_atan2` (fdlibm's `e_atan2.c` on `m64_atan`; C's special values) | 2 ÷ | 1.000 |
//! | hypot (binary) | `m64_hypot` (fdlibm's `e_hypot.c`: scaled, squares from exact half products; inf with an inf even beside a NaN) | 2 (the driver's sqrt) | 1.000 |
//! | pow (binary) | `m64_pow` (fdlibm's `e_pow.c`, as the `libm` crate: log2 and the product in parts split by clearing low words; C99's special values; signs of zero results on the bits) | 2 ÷ | 1.000 |
//! | leaky_relu | `m64_leaky_relu` (the CPU's `slope * x`) | exact | 0.000 |
//! | hard_sigmoid | `m64_hard_sigmoid` (clamp of `fma(alpha, x, beta)`, as the CPU) | 1 given a fused fma; a driver may evaluate it unfused (lavapipe does): then also 2^-54 absolute (the rounding of alpha x), many ULPs of a result near the lower corner | 4915 at x = -2.49985 (an absolute 2.7e-20) |
//! | hard_silu | `m64_hard_silu` (x hard_sigmoid(x, 1/6, 1/2)) | 2, plus \|x\| 2^-54 absolute where the fma is unfused | 3072 at x = -2.99956 |
//! | elu | `m64_elu` (alpha expm1(x) for x <= 0, as the CPU) | 2.5 ÷ | 1.000 (alpha 1), 2.000 (alpha 0.3) |
//! | selu | `m64_selu` (lambda elu(x, alpha) with the CPU's constants) | 3.5 ÷ | 3.000 |
//!
//! Bounds are asserted by `tests/suite/gpu_f64.rs` over about 10^6 inputs
//! per function (edge values: ±0, subnormals, ±inf, NaN, the ends of the
//! range; uniform values over the range; a dense sweep near zero or one;
//! random bit patterns) against Rust's f64 functions (glibc's libm), or a
//! double-double sigmoid for the activations, on lavapipe, whose f64
//! division is correctly rounded; "÷": Vulkan allows a less exact division
//! on other GPUs, which can add about that much. "measured" is the largest
//! error printed by `RNX_REQUIRE_GPU=1 cargo test --all-features --test
//! suite gpu_f64_math_ulp -- --nocapture`; against libm (itself within
//! about half an ULP) an error of 1.000 means one unit off libm's result.
//! Subnormal results of exp are scaled twice (as fdlibm), so they may be off
//! by one unit of 2^-1074. Special values (NaN, ±inf, ±0, overflow and
//! underflow thresholds) give the CPU's results.
//!
//! sin, cos and tan reduce arguments with |x| < 2^20 ([`TRIG_LIMIT`]); a
//! tensor holding a larger finite argument is found by a flag pass (one word
//! read back) and takes the CPU round trip as a whole (exact CPU results).
//! The library follows `math_f32.wgsl`'s rules for drivers that reassociate
//! (lavapipe's LLVM does): no error-free sum a compiler could fold (log1p
//! splits on the bits instead), no products of two constants in a row.
//!
//! relu, relu6 and hard_tanh of f64 are compares and selects (exact) in
//! `elementwise.rs`. Every f64 math function has a kernel. The binary
//! functions are measured by `gpu_f64_binary_math` (about 3 x 10^5 pairs
//! against the CPU's glibc results).
//!
//! The references of the inverse hyperbolic functions are the `libm`
//! crate's (musl's), which the CPU backend also calls: Rust's own `f64`
//! `asinh`/`acosh` overflow past about 9e307 and `acosh`/`atanh` lose
//! accuracy near 1 and -1.

use crate::backend::elementwise::{BinaryOp, MathFn, UnaryOp};

/// The WGSL library (f64 kernels only).
pub(crate) const MATH_F64: &str = include_str!("wgsl/math_f64.wgsl");

/// The WGSL expression of a unary f64 op on `x` and its parameters (read
/// as `prm[i]`), or `None` when the op is not in the library.
pub(crate) fn unary(op: UnaryOp) -> Option<(&'static str, Vec<f64>)> {
    use MathFn::*;
    let UnaryOp::Math(f) = op else {
        return None;
    };
    Some(match f {
        HardSigmoid { alpha, beta } => ("m64_hard_sigmoid(x, prm[0], prm[1])", vec![alpha, beta]),
        LeakyRelu { slope } => ("m64_leaky_relu(x, prm[0])", vec![slope]),
        Elu { alpha } => ("m64_elu(x, prm[0])", vec![alpha]),
        f => (unary_plain(f)?, vec![]),
    })
}

/// [`unary`]'s functions without parameters.
fn unary_plain(f: MathFn) -> Option<&'static str> {
    use MathFn::*;
    Some(match f {
        Trunc => "r64_trunc(x)",
        Floor => "r64_floor(x)",
        Ceil => "r64_ceil(x)",
        Round => "r64_round(x)",
        Exp => "m64_exp(x)",
        Exp2 => "m64_exp2(x)",
        Expm1 => "m64_expm1(x)",
        Log => "m64_log(x)",
        Log2 => "m64_log2(x)",
        Log1p => "m64_log1p(x)",
        Sinh => "m64_sinh(x)",
        Cosh => "m64_cosh(x)",
        Tanh => "m64_tanh(x)",
        Sigmoid => "m64_sigmoid(x)",
        Silu => "m64_silu(x)",
        Softplus => "m64_softplus(x)",
        LogSigmoid => "m64_log_sigmoid(x)",
        Gelu => "m64_gelu(x)",
        Mish => "m64_mish(x)",
        Softsign => "m64_softsign(x)",
        Sin => "m64_sin(x)",
        Cos => "m64_cos(x)",
        Tan => "m64_tan(x)",
        HardSilu => "m64_hard_silu(x)",
        Rsqrt => "m64_rsqrt(x)",
        Atan => "m64_atan(x)",
        Asin => "m64_asin(x)",
        Acos => "m64_acos(x)",
        Asinh => "m64_asinh(x)",
        Acosh => "m64_acosh(x)",
        Atanh => "m64_atanh(x)",
        Erf => "m64_erf(x)",
        GeluErf => "m64_gelu_erf(x)",
        Selu => "m64_selu(x)",
        _ => return None,
    })
}

/// The WGSL expression of a binary f64 math op on `x`, `y`, or `None`.
pub(crate) fn binary(op: BinaryOp) -> Option<&'static str> {
    match op {
        BinaryOp::Pow => Some("m64_pow(x, y)"),
        BinaryOp::Rem => Some("m64_fmod(x, y)"),
        BinaryOp::Atan2 => Some("m64_atan2(x, y)"),
        BinaryOp::Hypot => Some("m64_hypot(x, y)"),
        _ => None,
    }
}

/// The arguments sin, cos and tan reduce on the GPU: |x| below this (2^20).
pub(crate) const TRIG_LIMIT: f64 = 1_048_576.0;

/// Whether `op` of f64 needs the argument check of [`TRIG_LIMIT`] first
/// (a tensor with a finite |x| at or past it takes the CPU round trip).
pub(crate) fn needs_range_check(op: UnaryOp) -> bool {
    matches!(op, UnaryOp::Math(MathFn::Sin | MathFn::Cos | MathFn::Tan))
}
