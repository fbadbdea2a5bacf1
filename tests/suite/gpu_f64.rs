//! f64 unary ops that run as GPU kernels (`src/backend/gpu/math_f64.rs`):
//! trunc, floor, ceil, round (half away from zero), relu, relu6 and
//! hard_tanh, bit-identical to the CPU over edge values (signed zeros, halves,
//! the integer limit 2^52, subnormals, ±inf, NaN), 10^5 random bit patterns
//! and random values of every magnitude, on contiguous and strided views.
//! exp, exp2, expm1, log, log2, log1p, sinh, cosh, tanh, sigmoid, silu,
//! softplus, log_sigmoid, sin, cos and tan (rnx's f64 WGSL library; trig
//! for |x| < 2^20, larger arguments through the CPU): within the bound of
//! `gpu_f64_bound` from an f64 reference (Rust's f64 functions, or double
//! double for sigmoid) over about 10^6 inputs each, special values as the
//! CPU's. softmax, log_softmax and logsumexp of f64: against the CPU on
//! short groups, views and long (chunked) groups.
//! Without an adapter (or without f64 on it) the tests return early, unless
//! `RNX_REQUIRE_GPU=1`.

use super::common::{pow2, ulp_err_f64, Rng};
use super::gpu::gpu;
use rnx::backend::elementwise::{BinaryOp, MathFn, UnaryOp};
use rnx::ops::elementwise::unary;
use rnx::ops::index::Index;
use rnx::{DType, Device, Tensor};

/// Edge values, then random bit patterns and random values.
fn inputs() -> Vec<f64> {
    let p52 = 4_503_599_627_370_496.0f64;
    let mut v = vec![
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        0.499_999_999_999_999_94,
        -0.499_999_999_999_999_94,
        0.3,
        -0.3,
        0.7,
        -0.7,
        1.0,
        -1.0,
        6.0,
        6.5,
        -6.5,
        p52 - 0.5,
        -(p52 - 0.5),
        p52 / 2.0 + 0.5,
        -(p52 / 2.0 + 0.5),
        p52,
        p52 + 1.0,
        2.0 * p52,
        1e300,
        -1e300,
        f64::MAX,
        f64::MIN,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        5e-324,
        -5e-324,
        -1e-310,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -f64::NAN,
    ];
    let mut s = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    for i in 0..100_000 {
        let r = next();
        v.push(match i % 3 {
            0 => f64::from_bits(r),
            // Values of magnitude 2^-4 .. 2^60 with random fractions.
            1 => {
                let e = (r >> 58) as i32 - 4;
                let m = (r & ((1 << 52) - 1)) as f64 / (1u64 << 52) as f64;
                let sign = if r & (1 << 57) != 0 { -1.0 } else { 1.0 };
                sign * (1.0 + m) * 2f64.powi(e)
            }
            // Exact halves and near-halves around small integers.
            _ => {
                let k = (r % 2000) as f64 - 1000.0;
                k + [0.5, -0.5, 0.25, 0.0][(r >> 40) as usize % 4]
            }
        });
    }
    v
}

/// The GPU when its adapter has f64; `None` (the test skips) otherwise,
/// which fails under `RNX_REQUIRE_GPU=1`.
fn gpu_with_f64() -> Option<Device> {
    let dev = gpu()?;
    if Tensor::zeros_on(DType::F64, &[1], dev).is_err() {
        assert!(
            std::env::var("RNX_REQUIRE_GPU").as_deref() != Ok("1"),
            "no f64 on the adapter"
        );
        return None;
    }
    Some(dev)
}

#[test]
fn gpu_f64_rounding_clamping_bit_identical() {
    let Some(dev) = gpu() else {
        return;
    };
    let xs = inputs();
    let n = xs.len();
    let cx = Tensor::create(DType::F64, &[n], &xs).unwrap();
    let gx = match cx.to_device(dev) {
        Ok(g) => g,
        Err(e) if std::env::var("RNX_REQUIRE_GPU").as_deref() != Ok("1") => {
            eprintln!("gpu_f64: skipped (no f64 on the adapter: {e})");
            return;
        }
        Err(e) => panic!("f64 upload: {e}"),
    };
    // A strided view too: every second element, reversed.
    let (cv, gv) = (
        cx.slice([Index::R(None, None, -2)]).unwrap(),
        gx.slice([Index::R(None, None, -2)]).unwrap(),
    );
    let ops = [
        UnaryOp::Math(MathFn::Trunc),
        UnaryOp::Math(MathFn::Floor),
        UnaryOp::Math(MathFn::Ceil),
        UnaryOp::Math(MathFn::Round),
        UnaryOp::Math(MathFn::Relu),
        UnaryOp::Math(MathFn::Relu6),
        UnaryOp::Math(MathFn::HardTanh),
    ];
    for op in ops {
        for (c, g, what) in [(&cx, &gx, "contiguous"), (&cv, &gv, "strided")] {
            let want = unary(op, c).unwrap().to_vec::<f64>().unwrap();
            let got = unary(op, g).unwrap();
            assert_eq!(got.device(), dev);
            let got = got.to_device(Device::Cpu).unwrap().to_vec::<f64>().unwrap();
            let src = c.to_vec::<f64>().unwrap();
            for i in 0..want.len() {
                let (w, r) = (want[i], got[i]);
                assert!(
                    w.to_bits() == r.to_bits() || (w.is_nan() && r.is_nan()),
                    "{op:?} {what} of {:e} ({:#x}): cpu {w:e} gpu {r:e}",
                    src[i],
                    src[i].to_bits()
                );
            }
        }
    }
    // Documented values (NumPy): round is half away from zero, as on the CPU.
    let g = Tensor::create(DType::F64, &[6], &[-2.5, -0.5, 0.5, 1.5, 2.5, -0.2])
        .unwrap()
        .to_device(dev)
        .unwrap();
    let r = unary(UnaryOp::Math(MathFn::Round), &g)
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    assert_eq!(r, [-3.0, -1.0, 1.0, 2.0, 3.0, -0.0]);
    assert!(r[5].is_sign_negative());
}

/// The GPU's stated bound (max ULP against an exact reference) of each f64
/// math op that runs as a kernel (`src/backend/gpu/math_f64.rs`); `None` for
/// ops that are exact or go through the CPU.
pub(crate) fn gpu_f64_bound(op: UnaryOp) -> Option<f64> {
    use MathFn::*;
    use UnaryOp::*;
    Some(match op {
        Math(Exp) | Math(Log) | Math(Exp2) | Math(Log2) | Math(Log1p) => 1.0,
        // 1 and 3 on lavapipe; an NVIDIA H200 (driver 580) measured 2 and 4
        // (a driver may contract a * b + c into an fma: SPIR-V allows it).
        Math(Expm1) => 2.0,
        Math(Tan) => 4.0,
        Math(Sinh) | Math(Cosh) | Math(Tanh) => 3.0,
        Math(Sigmoid) => 3.0,
        Math(Silu) | Math(Gelu) => 5.0,
        Math(Softplus) | Math(LogSigmoid) => 2.0,
        Math(Sin) | Math(Cos) => 2.0,
        // Against a composed libm reference that is itself about 2 ULP off.
        Math(Mish) => 7.0,
        Math(Softsign) => 1.5,
        Math(LeakyRelu { .. }) => 0.5,
        // Given the fma; plus (in `gpu_f64_math_ulp`) the rounding of alpha
        // x, 2^-54 absolute (times |x| for hard_silu), where a driver
        // evaluates the fma unfused (lavapipe does).
        Math(HardSigmoid { .. }) => 1.0,
        // hard_sigmoid's ULP scaled by |x| < 3 into the product's, and the
        // product's rounding.
        Math(HardSilu) => 2.0,
        // expm1's 2, and the products by alpha and lambda.
        Math(Elu { .. }) => 2.5,
        Math(Selu) => 3.5,
        // fdlibm's forms (below 1 ULP) on the library's log/log1p and the
        // driver's sqrt and division, against musl's (about 1 ULP itself):
        // 0, 1, 1, 1, 1, 2, 1 measured on lavapipe.
        Math(Rsqrt) => 2.0,
        Math(Atan) | Math(Asin) | Math(Acos) | Math(Asinh) | Math(Atanh) => 2.0,
        Math(Acosh) => 3.0,
        // fdlibm's s_erf.c on the library's exp (two products of exps in
        // the tails); gelu_erf adds its two products: 1 and 2 measured.
        Math(Erf) => 2.0,
        Math(GeluErf) => 4.0,
        _ => return None,
    })
}

/// The CPU's documented f64 bound of `op` (vmath's `MathFn`; scalar libm
/// functions 1 ULP), for comparisons of the two devices.
pub(crate) fn cpu_f64_bound(op: UnaryOp) -> f64 {
    use MathFn::*;
    use UnaryOp::*;
    match op {
        Math(Exp) | Math(Exp2) | Math(Log) => 1.0,
        Math(Expm1) | Math(Log2) | Math(Log1p) | Math(Softplus) | Math(LogSigmoid) => 2.0,
        Math(Tanh) => 3.5,
        Math(Sigmoid) => 2.5,
        Math(Sin) | Math(Cos) => 2.0,
        Math(Tan) => 3.0,
        Math(Mish) => 4.5,
        Math(Softsign) => 1.5,
        Math(Silu) | Math(Gelu) => 3.0,
        _ => 1.0,
    }
}

/// 1 / (1 + e^-x) (sign-dependent) with the sum and the quotient in double
/// double: within about half an ULP (the libm `exp` rounding).
fn sigmoid_ref(x: f64) -> f64 {
    let z = (-x.abs()).exp();
    let num = if x >= 0.0 { 1.0 } else { z };
    let (sh, sl) = {
        let s = 1.0 + z;
        (s, z - (s - 1.0))
    };
    let q = num / sh;
    let r = (-q).mul_add(sh, num) - q * sl;
    q + r / sh
}

/// The tanh argument of GELU times two, 2 c (x + 0.044715 x^3), evaluated in
/// f64 as the GPU does (the CPU may fuse the product; its bound covers that).
fn gelu_u(x: f64) -> f64 {
    let c = (2.0 / std::f64::consts::PI).sqrt();
    (c + c) * ((0.044715 * x * x) * x + x)
}

/// About 10^6 inputs for `op`: edge values (±0, subnormals, ±inf, NaN, the
/// ends of the range), uniform values over the function's range, a dense
/// sweep near its most sensitive region and random bit patterns.
fn math_inputs(op: UnaryOp) -> Vec<f64> {
    use MathFn::*;
    use UnaryOp::*;
    let mut rng = Rng(0x1234_5678_9abc_def1 ^ ((format!("{op:?}").len() as u64) << 40));
    let mut v: Vec<f64> = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        2.0,
        -2.0,
        f64::MIN_POSITIVE,
        -f64::MIN_POSITIVE,
        5e-324,
        -5e-324,
        1e-310,
        -1e-310,
        f64::MAX,
        f64::MIN,
        709.782712893384,
        709.79,
        710.4758600739439,
        710.476,
        -745.1332191019412,
        -745.14,
        -708.4,
        -720.0,
        1023.999,
        1024.0,
        -1074.0,
        -1074.5,
        -1075.0,
        -1075.5,
        -1022.0,
        -37.5,
        -0.9999999999999999,
        -0.75,
        22.0,
        -22.0,
        1e-20,
        -1e-20,
        1e-300,
        std::f64::consts::LN_2,
        std::f64::consts::LN_2 / 2.0,
        std::f64::consts::SQRT_2,
        std::f64::consts::FRAC_1_SQRT_2,
        std::f64::consts::PI,
        -std::f64::consts::PI,
        std::f64::consts::FRAC_PI_2,
        std::f64::consts::FRAC_PI_4,
        -std::f64::consts::FRAC_PI_4,
        1.0e6,
        1_048_575.75,
        -1_048_575.75,
        333_333.0 * std::f64::consts::PI,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    // (low, high) of the uniform values, and of the random bit patterns kept.
    let (lo, hi, blim) = match op {
        Math(Exp) => (-746.0, 710.0, 746.0),
        Math(Exp2) => (-1076.0, 1025.0, 1076.0),
        Math(Expm1) => (-40.0, 710.0, 746.0),
        Math(Sinh) | Math(Cosh) => (-711.0, 711.0, 712.0),
        Math(Tanh) => (-23.0, 23.0, f64::INFINITY),
        Math(Sigmoid) | Math(Silu) | Math(Softplus) | Math(LogSigmoid) => {
            (-740.0, 740.0, f64::INFINITY)
        }
        Math(Log1p) => (-1.0, 4.0, f64::INFINITY),
        Math(Sin) | Math(Cos) | Math(Tan) => (-1_048_575.0, 1_048_575.0, 1_048_575.0),
        Math(Gelu) => (-40.0, 40.0, f64::INFINITY),
        Math(Mish) => (-750.0, 750.0, f64::INFINITY),
        Math(Softsign) => (-1e3, 1e3, f64::INFINITY),
        Math(Elu { .. }) | Math(Selu) => (-40.0, 40.0, f64::INFINITY),
        Math(Rsqrt) => (0.0, 1e6, f64::INFINITY),
        Math(Erf) => (-7.0, 7.0, f64::INFINITY),
        Math(GeluErf) => (-40.0, 10.0, f64::INFINITY),
        Math(Atan) | Math(Asinh) => (-1e4, 1e4, f64::INFINITY),
        Math(Asin) | Math(Acos) | Math(Atanh) => (-1.0, 1.0, f64::INFINITY),
        Math(Acosh) => (1.0, 1e4, f64::INFINITY),
        Math(LeakyRelu { .. }) | Math(HardSigmoid { .. }) | Math(HardSilu) => {
            (-8.0, 8.0, f64::INFINITY)
        }
        _ => (0.0, 4.0, f64::INFINITY),
    };
    let positive = matches!(op, Math(Log) | Math(Log2));
    for i in 0..1_000_000 {
        let u = rng.unit();
        let x = match i % 4 {
            0 => lo + u * (hi - lo),
            1 if positive => 0.5 + 1.5 * u,
            1 if op == Math(Log1p) => -0.5 + u,
            1 => -2.0 + 4.0 * u,
            2 => {
                let b = rng.next();
                let x = f64::from_bits(if positive { b >> 1 } else { b });
                if x.abs() < blim && !(op == Math(Log1p) && x < -1.0) {
                    x
                } else {
                    (u - 0.5) * 1e-3
                }
            }
            _ if positive => 1.0 + (u - 0.5) * 1e-6,
            _ => (u - 0.5) * 1e-8,
        };
        v.push(x);
    }
    if matches!(op, Math(Sin) | Math(Cos) | Math(Tan)) {
        // One larger finite argument would send the whole tensor to the CPU.
        v.retain(|x| !(x.is_finite() && x.abs() >= 1_048_576.0));
    }
    v
}

/// An f64 reference function.
type Reference = fn(f64) -> f64;

#[test]
fn gpu_f64_math_ulp() {
    use MathFn::*;
    use UnaryOp::*;
    let Some(dev) = gpu() else {
        return;
    };
    let table: [(UnaryOp, Reference); 34] = [
        (Math(Exp), f64::exp),
        (Math(Log), f64::ln),
        (Math(Exp2), f64::exp2),
        (Math(Expm1), f64::exp_m1),
        (Math(Log2), f64::log2),
        (Math(Log1p), f64::ln_1p),
        (Math(Sinh), f64::sinh),
        (Math(Cosh), f64::cosh),
        (Math(Tanh), f64::tanh),
        (Math(Sigmoid), sigmoid_ref),
        (Math(Silu), |x| x * sigmoid_ref(x)),
        (Math(Softplus), |x| x.max(0.0) + (-x.abs()).exp().ln_1p()),
        (Math(LogSigmoid), |x| x.min(0.0) - (-x.abs()).exp().ln_1p()),
        (Math(Sin), f64::sin),
        (Math(Cos), f64::cos),
        (Math(Tan), f64::tan),
        (Math(Gelu), |x| x * sigmoid_ref(gelu_u(x))),
        (Math(Mish), |x| x * x.exp().ln_1p().tanh()),
        (Math(Softsign), |x| x / (1.0 + x.abs())),
        (Math(LeakyRelu { slope: 0.01 }), |x| {
            if x > 0.0 {
                x
            } else {
                0.01 * x
            }
        }),
        (
            Math(HardSigmoid {
                alpha: 0.2,
                beta: 0.5,
            }),
            |x| 0.2f64.mul_add(x, 0.5).clamp(0.0, 1.0),
        ),
        (Math(HardSilu), |x| {
            x * (1.0f64 / 6.0).mul_add(x, 0.5).clamp(0.0, 1.0)
        }),
        (Math(Elu { alpha: 1.0 }), |x| {
            if x > 0.0 {
                x
            } else {
                x.exp_m1()
            }
        }),
        (Math(Elu { alpha: 0.3 }), |x| {
            if x > 0.0 {
                x
            } else {
                0.3 * x.exp_m1()
            }
        }),
        (Math(Rsqrt), |x| 1.0 / x.sqrt()),
        (Math(Erf), libm::erf),
        (Math(GeluErf), |x| {
            0.5 * x * libm::erfc(-x * std::f64::consts::FRAC_1_SQRT_2)
        }),
        (Math(Atan), f64::atan),
        (Math(Asin), f64::asin),
        (Math(Acos), f64::acos),
        (Math(Asinh), libm::asinh),
        (Math(Acosh), crate::math_accuracy::acosh_ref),
        (Math(Atanh), libm::atanh),
        (Math(Selu), |x| {
            let (l, a) = (1.050_700_987_355_480_5, 1.673_263_242_354_377_3);
            l * if x > 0.0 { x } else { a * x.exp_m1() }
        }),
    ];
    // Every op is measured before the test fails (the errors are printed).
    let mut failures: Vec<String> = Vec::new();
    for (op, reference) in table {
        let bound = gpu_f64_bound(op).unwrap();
        let xs = math_inputs(op);
        let cx = Tensor::create(DType::F64, &[xs.len()], &xs).unwrap();
        let gx = match cx.to_device(dev) {
            Ok(g) => g,
            Err(e) if std::env::var("RNX_REQUIRE_GPU").as_deref() != Ok("1") => {
                eprintln!("gpu_f64: skipped (no f64 on the adapter: {e})");
                return;
            }
            Err(e) => panic!("f64 upload: {e}"),
        };
        let got = unary(op, &gx).unwrap();
        assert_eq!(got.device(), dev);
        let got = got.to_device(Device::Cpu).unwrap().to_vec::<f64>().unwrap();
        let cpu = unary(op, &cx).unwrap().to_vec::<f64>().unwrap();
        let mut worst = (0f64, 0f64);
        for ((&x, &y), &c) in xs.iter().zip(&got).zip(&cpu) {
            // NaN and infinities exactly as the CPU's, zeros with its sign,
            // and the results at x = ±inf (where the composed references of
            // the activations give NaN).
            if !c.is_finite() || c == 0.0 || !x.is_finite() {
                if !(c.to_bits() == y.to_bits() || (c.is_nan() && y.is_nan())) {
                    failures.push(format!("{op:?}({x:e}): cpu {c:e} gpu {y:e}"));
                }
                continue;
            }
            let r = reference(x);
            // silu, gelu, mish: where the sigmoid (or e^-|x|) is subnormal,
            // it has an absolute error of about a unit of 2^-1074 that the
            // product scales by |x| (on both devices: the CPU's documented
            // extra |x| subnormal ULPs): allowed on top of the bound.
            let tiny = match op {
                Math(Silu) => sigmoid_ref(x),
                Math(Gelu) => sigmoid_ref(gelu_u(x)),
                Math(Mish) => (-x.abs()).exp(),
                Math(GeluErf) => libm::erfc(-x * std::f64::consts::FRAC_1_SQRT_2),
                _ => 1.0,
            };
            // hard_sigmoid, hard_silu: an unfused fma rounds alpha x (|alpha
            // x| <= 1/2 where the result is not clamped) first.
            let unfused = match op {
                Math(HardSigmoid { .. }) => pow2(-54),
                Math(HardSilu) => x.abs() * pow2(-54),
                _ => 0.0,
            };
            if unfused > 0.0 {
                let unit = pow2(((r.abs().max(f64::MIN_POSITIVE)).to_bits() >> 52) as i32 - 1075);
                let e = ulp_err_f64(y, r);
                if e > worst.0 {
                    worst = (e, x);
                }
                if (y - r).abs() > bound * unit + unfused && failures.len() < 40 {
                    failures.push(format!(
                        "{op:?}({x:e}): gpu {y:e} reference {r:e}: {e} ULP > {bound} + {unfused:e}"
                    ));
                }
                continue;
            }
            if tiny < f64::MIN_POSITIVE {
                let unit = pow2(((r.abs().max(f64::MIN_POSITIVE)).to_bits() >> 52) as i32 - 1075);
                if (y - r).abs() > bound * unit + (2.0 * x.abs() + 2.0) * 5e-324 {
                    failures.push(format!("{op:?}({x:e}): gpu {y:e} reference {r:e}"));
                }
                continue;
            }
            let e = ulp_err_f64(y, r);
            if e > worst.0 {
                worst = (e, x);
            }
            if e > bound && failures.len() < 40 {
                failures.push(format!(
                    "{op:?}({x:e} = {:#x}): gpu {y:e} reference {r:e}: {e} ULP > {bound}",
                    x.to_bits()
                ));
            }
        }
        eprintln!(
            "gpu_f64_math_ulp: {op:?} largest error {:.3} ULP at {:e}",
            worst.0, worst.1
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// f64 fmod (`rem`), atan2 and hypot on the GPU (rnx's f64 WGSL library,
/// `math_f64.rs`) against the CPU (glibc's, within about half an ULP): fmod
/// bit for bit (exact on both), atan2 and hypot within 2 ULP; NaN,
/// infinities and zeros (their signs too) exactly as the CPU's. Pairs from
/// the edge values (zeros, subnormals, infinities, NaN, the ends of the
/// range), uniform values of mixed magnitude and random bit patterns.
#[test]
fn gpu_f64_binary_math() {
    use rnx::ops::elementwise::binary;
    let Some(dev) = gpu() else {
        return;
    };
    let edges = [
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        3.0,
        -7.5,
        5e-324,
        -1e-310,
        f64::MIN_POSITIVE,
        f64::MAX,
        -f64::MAX,
        1e300,
        1e-300,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        std::f64::consts::PI,
    ];
    let (mut xs, mut ys) = (Vec::new(), Vec::new());
    for &a in &edges {
        for &b in &edges {
            xs.push(a);
            ys.push(b);
        }
    }
    let mut rng = Rng(0x0f64_b1a2_u64);
    for i in 0..300_000 {
        let (a, b) = match i % 5 {
            // pow's own ranges: results over the whole range, negative bases
            // with integer exponents, bases near 1 with large exponents.
            3 => {
                let u = rng.unit();
                let (x, y) = (u * 8.0, (rng.unit() - 0.5) * 700.0);
                if i % 2 == 0 {
                    (x, y)
                } else {
                    (-x, y.round())
                }
            }
            4 => (1.0 + (rng.unit() - 0.5) * 1e-9, (rng.unit() - 0.5) * 1e12),
            0 => {
                let (u, v) = (rng.unit() - 0.5, rng.unit() - 0.5);
                let (e, f) = (
                    (rng.unit() * 40.0) as i32 - 20,
                    (rng.unit() * 40.0) as i32 - 20,
                );
                (u * pow2(e), v * pow2(f))
            }
            1 => (f64::from_bits(rng.next()), f64::from_bits(rng.next())),
            _ => {
                let a = (rng.unit() - 0.5) * 1e6;
                (a, a * (1.0 + (rng.unit() - 0.5) * 1e-12))
            }
        };
        xs.push(a);
        ys.push(b);
    }
    let n = xs.len();
    let ca = Tensor::create(DType::F64, &[n], &xs).unwrap();
    let cb = Tensor::create(DType::F64, &[n], &ys).unwrap();
    let (ga, gb) = (ca.to_device(dev).unwrap(), cb.to_device(dev).unwrap());
    let mut failures = Vec::new();
    for (op, bound) in [
        (BinaryOp::Rem, 0.0),
        (BinaryOp::Atan2, 2.0),
        (BinaryOp::Hypot, 2.0),
        (BinaryOp::Pow, 2.0),
    ] {
        let g = binary(op, &ga, &gb).unwrap();
        assert_eq!(g.device(), dev, "{op:?} left the GPU");
        let g = g.to_device(Device::Cpu).unwrap().to_vec::<f64>().unwrap();
        let c = binary(op, &ca, &cb).unwrap().to_vec::<f64>().unwrap();
        let mut worst = (0f64, 0f64, 0f64);
        for i in 0..n {
            let (r, y) = (c[i], g[i]);
            let same = r.to_bits() == y.to_bits() || (r.is_nan() && y.is_nan());
            if !r.is_finite() || r == 0.0 || bound == 0.0 {
                if !same && failures.len() < 40 {
                    failures.push(format!(
                        "{op:?}({:e}, {:e}): cpu {r:e} gpu {y:e}",
                        xs[i], ys[i]
                    ));
                }
                continue;
            }
            let e = ulp_err_f64(y, r);
            if e > worst.0 {
                worst = (e, xs[i], ys[i]);
            }
            if e > bound && failures.len() < 40 {
                failures.push(format!(
                    "{op:?}({:e}, {:e}): cpu {r:e} gpu {y:e}: {e} ULP > {bound}",
                    xs[i], ys[i]
                ));
            }
        }
        eprintln!(
            "gpu_f64_binary_math: {op:?} largest error {:.3} ULP at ({:e}, {:e})",
            worst.0, worst.1, worst.2
        );
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `op` of `x` on the CPU and the GPU: every element within `rtol |cpu| +
/// atol` (NaN where the CPU has NaN); the largest relative difference.
fn softmax_close(
    x: &Tensor,
    op: &dyn Fn(&Tensor) -> Tensor,
    rtol: f64,
    atol: f64,
    what: &str,
) -> f64 {
    let c = op(x);
    let g = op(&x.to_device(Device::Gpu(0)).unwrap());
    assert_eq!(g.device(), Device::Gpu(0), "{what}: result left the GPU");
    assert_eq!(g.dtype(), DType::F64, "{what}");
    assert_eq!(g.shape(), c.shape(), "{what}");
    let g = g.to_device(Device::Cpu).unwrap().to_vec::<f64>().unwrap();
    let c = c.to_vec::<f64>().unwrap();
    let mut worst = 0f64;
    for (i, (&a, &b)) in c.iter().zip(&g).enumerate() {
        let ok = (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= atol + rtol * a.abs();
        assert!(ok, "{what}: element {i}: cpu {a:e} gpu {b:e}");
        if a.is_finite() && a != 0.0 {
            worst = worst.max((a - b).abs() / a.abs());
        }
    }
    worst
}

/// f64 softmax, log_softmax and logsumexp run on the GPU in f64 (rnx's f64
/// exp and log): within the stated bound of the CPU's (README "Devices",
/// `src/backend/gpu/softmax.rs`: 1e-13 relative, 1e-300 absolute for
/// softmax, 1e-13 absolute for the logarithms) on short groups, a
/// transposed view, groups at and past the 16,384-element chunk threshold,
/// and NaN / ±inf specials in a chunked row.
#[test]
fn gpu_f64_softmax_family() {
    let Some(dev) = gpu_with_f64() else {
        return;
    };
    let chunk = 16_384;
    let data = |shape: &[usize], seed: u64| -> Tensor {
        let n: usize = shape.iter().product();
        let v: Vec<f64> = Tensor::randn(DType::F64, &[n], seed)
            .unwrap()
            .to_vec::<f64>()
            .unwrap()
            .iter()
            .map(|x| 6.0 * x + 1.0)
            .collect();
        Tensor::create(DType::F64, shape, &v).unwrap()
    };
    let mut cases: Vec<(Tensor, Vec<isize>, String)> = vec![
        (data(&[6, 7, 5], 1), vec![-1], "[6, 7, 5] axis -1".into()),
        (
            data(&[6, 7, 5], 2),
            vec![0, 2],
            "[6, 7, 5] axes [0, 2]".into(),
        ),
        (
            data(&[9, 40], 3).transpose(None).unwrap(),
            vec![1],
            "transposed [40, 9] axis 1".into(),
        ),
    ];
    // Not `chunk` itself: the one-pass kernel's largest slot bucket runs on
    // f32 (gpu_reduce_long, gpu_reduce_fast); its f64 copy alone costs
    // lavapipe ~9 s of shader compilation in CI (issue 26). f64 runs the
    // 4-quad bucket in gpu_reduce_fast::softmax_rows and the multi-pass path
    // here.
    for n in [chunk + 1, 3 * chunk + 77] {
        cases.push((data(&[2, n], n as u64), vec![1], format!("[2, {n}] axis 1")));
    }
    let n = 3 * chunk;
    let mut v = data(&[3, n], 4).to_vec::<f64>().unwrap();
    v[chunk + 3] = f64::NAN;
    v[n + 2 * chunk + 1] = f64::INFINITY;
    for x in &mut v[2 * n..3 * n] {
        *x = f64::NEG_INFINITY;
    }
    cases.push((
        Tensor::create(DType::F64, &[3, n], &v).unwrap(),
        vec![-1],
        "specials".into(),
    ));
    let mut worst = 0f64;
    for (x, axes, what) in &cases {
        let ax = axes.as_slice();
        worst = worst.max(softmax_close(
            x,
            &|t| t.softmax(ax).unwrap(),
            1e-13,
            1e-300,
            &format!("softmax {what}"),
        ));
        worst = worst.max(softmax_close(
            x,
            &|t| t.log_softmax(ax).unwrap(),
            1e-15,
            1e-13,
            &format!("log_softmax {what}"),
        ));
        worst = worst.max(softmax_close(
            x,
            &|t| t.logsumexp(ax, true).unwrap(),
            1e-15,
            1e-13,
            &format!("logsumexp {what}"),
        ));
    }
    // A documented value: softmax([1, 2, 3]) (NumPy).
    let g = Tensor::create(DType::F64, &[3], &[1.0, 2.0, 3.0])
        .unwrap()
        .to_device(dev)
        .unwrap()
        .softmax([-1isize])
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    for (a, b) in g
        .iter()
        .zip([0.09003057317038046, 0.24472847105479767, 0.6652409557748219])
    {
        assert!((a - b).abs() <= 2e-16, "softmax([1, 2, 3]): {a} vs {b}");
    }
    eprintln!("gpu_f64_softmax_family: largest relative difference to the CPU {worst:.3e}");
}

/// f64 sin, cos and tan reduce arguments below 2^20 on the GPU; a tensor
/// with a larger finite argument takes the CPU round trip (bit-identical to
/// the CPU, result on the GPU), infinities and NaN give NaN on the GPU.
#[test]
fn gpu_f64_trig_large_arguments_fall_back() {
    let Some(dev) = gpu_with_f64() else {
        return;
    };
    let big = [0.5, 1e10, -3.0, 1_048_576.0, f64::INFINITY, f64::NAN, 1e300];
    let small = [
        0.5,
        -3.0,
        1_048_575.5,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        -0.0,
    ];
    for op in [
        UnaryOp::Math(MathFn::Sin),
        UnaryOp::Math(MathFn::Cos),
        UnaryOp::Math(MathFn::Tan),
    ] {
        let c = Tensor::create(DType::F64, &[big.len()], &big).unwrap();
        let g = unary(op, &c.to_device(dev).unwrap()).unwrap();
        assert_eq!(g.device(), dev);
        let (g, c) = (
            g.to_device(Device::Cpu).unwrap().to_vec::<f64>().unwrap(),
            unary(op, &c).unwrap().to_vec::<f64>().unwrap(),
        );
        for (a, b) in g.iter().zip(&c) {
            assert!(
                a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()),
                "{op:?}: gpu {a:e} cpu {b:e}"
            );
        }
        let g = unary(
            op,
            &Tensor::create(DType::F64, &[small.len()], &small)
                .unwrap()
                .to_device(dev)
                .unwrap(),
        )
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
        assert!(
            g[3].is_nan() && g[4].is_nan() && g[5].is_nan(),
            "{op:?}: {g:?}"
        );
        assert!(
            ulp_err_f64(g[2], op_ref(op)(1_048_575.5)) <= 3.0,
            "{op:?}(1048575.5) = {}",
            g[2]
        );
        if op != UnaryOp::Math(MathFn::Cos) {
            assert!(
                g[6] == 0.0 && g[6].is_sign_negative(),
                "{op:?}(-0) = {}",
                g[6]
            );
        }
    }
}

fn op_ref(op: UnaryOp) -> fn(f64) -> f64 {
    match op {
        UnaryOp::Math(MathFn::Sin) => f64::sin,
        UnaryOp::Math(MathFn::Cos) => f64::cos,
        _ => f64::tan,
    }
}
