//! The GPU's own f32 math library (`src/backend/gpu/math.rs`) against an f64
//! reference (Rust's std f64 functions): for every op, about 10^6 f32 inputs
//! spread over all bit patterns, a dense sweep of [-16, 16] and the special and
//! edge values; the largest error in ULP must stay within the bound documented
//! in `math.rs` (printed with `--nocapture`). Exact results (NaN, ±inf, zeros
//! with their sign) must equal the CPU backend's. f16 and bf16 are tested over
//! all 65,536 bit patterns: within one unit of the storage type of the f32
//! reference rounded to it. Without an adapter the tests return early, unless
//! `RNX_REQUIRE_GPU=1`.
//!
//! The bounds are lavapipe's, whose f32 division and square root are correctly
//! rounded and which keeps subnormals. On a hardware adapter each bound gets
//! 3 ULP more (Vulkan allows 2.5 ULP division), and where the adapter flushes
//! subnormals (found with a probe), subnormal inputs are skipped and
//! subnormal results may be off by up to the smallest normal number.

use super::gpu::gpu;
use rnx::backend::elementwise::{BinaryOp, MathFn, UnaryOp};
use rnx::ops::elementwise::{binary, unary};
use rnx::{DType, Device, Tensor};

const SELU_ALPHA: f64 = 1.673_263_242_354_377_3;
const SELU_LAMBDA: f64 = 1.050_700_987_355_480_5;

/// f64 rounded to f32 and back (the constants the kernels use).
fn r32(v: f64) -> f64 {
    v as f32 as f64
}

fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// x * s, with -0 at x = -inf (where s -> 0), as the activations define it.
fn xmul(x: f64, s: f64) -> f64 {
    if x == f64::NEG_INFINITY {
        -0.0
    } else {
        x * s
    }
}

fn softplus(x: f64) -> f64 {
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

/// The tanh-GELU argument u (f32 constants), in f64.
fn gelu_u(x: f64) -> f64 {
    r32((2.0 / std::f64::consts::PI).sqrt()) * (x + r32(0.044715) * x * x * x)
}

/// One unary op: its reference and its bound in ULP at `x`.
struct Case {
    op: UnaryOp,
    name: &'static str,
    reference: fn(f64) -> f64,
    bound: fn(f64) -> f64,
}

fn cases() -> Vec<Case> {
    use MathFn::*;
    use UnaryOp::*;
    macro_rules! c {
        ($op:expr, $name:literal, $r:expr, $b:expr) => {
            Case {
                op: $op,
                name: $name,
                reference: $r,
                bound: $b,
            }
        };
    }
    vec![
        c!(Math(Rsqrt), "rsqrt", |x| 1.0 / x.sqrt(), |_| 1.5),
        c!(Math(Exp), "exp", f64::exp, |_| 1.5),
        c!(Math(Exp2), "exp2", f64::exp2, |_| 1.5),
        c!(Math(Expm1), "expm1", f64::exp_m1, |_| 2.0),
        c!(Math(Log), "log", f64::ln, |_| 1.0),
        c!(Math(Log2), "log2", f64::log2, |_| 1.0),
        c!(Math(Log1p), "log1p", f64::ln_1p, |_| 2.0),
        c!(Math(Sin), "sin", f64::sin, |_| 1.5),
        c!(Math(Cos), "cos", f64::cos, |_| 1.5),
        c!(Math(Tan), "tan", f64::tan, |_| 3.0),
        c!(Math(Asin), "asin", f64::asin, |_| 1.5),
        c!(Math(Acos), "acos", f64::acos, |_| 2.0),
        c!(Math(Atan), "atan", f64::atan, |_| 2.0),
        c!(Math(Sinh), "sinh", f64::sinh, |_| 2.0),
        c!(Math(Cosh), "cosh", f64::cosh, |_| 2.0),
        c!(Math(Tanh), "tanh", f64::tanh, |_| 2.5),
        c!(Math(Asinh), "asinh", f64::asinh, |_| 2.0),
        c!(Math(Acosh), "acosh", f64::acosh, |_| 2.0),
        c!(Math(Atanh), "atanh", f64::atanh, |_| 2.0),
        c!(Math(Sigmoid), "sigmoid", sigmoid, |_| 2.5),
        c!(Math(Silu), "silu", |x| xmul(x, sigmoid(x)), |x| 4.0
            + subnormal_ulps(x, sigmoid(x))),
        c!(Math(Softplus), "softplus", softplus, |_| 2.0),
        c!(
            Math(LogSigmoid),
            "log_sigmoid",
            |x| x.min(0.0) - (-x.abs()).exp().ln_1p(),
            |_| 2.0
        ),
        c!(
            Math(Elu { alpha: 1.0 }),
            "elu",
            |x| if x > 0.0 { x } else { x.exp_m1() },
            |_| 1.5
        ),
        c!(
            Math(Elu { alpha: 0.3 }),
            "elu(0.3)",
            |x| if x > 0.0 { x } else { r32(0.3) * x.exp_m1() },
            |_| 2.0
        ),
        c!(
            Math(Selu),
            "selu",
            |x| r32(SELU_LAMBDA)
                * if x > 0.0 {
                    x
                } else {
                    r32(SELU_ALPHA) * x.exp_m1()
                },
            |_| 2.0
        ),
        c!(
            Math(Gelu),
            "gelu",
            |x| xmul(x, sigmoid(2.0 * gelu_u(x))),
            |x| 4.0 + 3.0 * (2.0 * gelu_u(x)).abs()
        ),
        c!(
            Math(Softsign),
            "softsign",
            |x| if x.is_infinite() {
                x.signum()
            } else {
                x / (1.0 + x.abs())
            },
            |_| 1.5
        ),
        c!(Math(Mish), "mish", |x| xmul(x, softplus(x).tanh()), |x| 5.0
            + subnormal_ulps(x, (-x.abs()).exp())),
        c!(Math(Erf), "erf", libm::erf, |_| 1.5),
        c!(
            Math(GeluErf),
            "gelu_erf",
            |x| xmul(0.5 * x, libm::erfc(-x / std::f64::consts::SQRT_2)),
            |x| 6.0 + subnormal_ulps(x, libm::erfc(-x / std::f64::consts::SQRT_2))
        ),
        c!(
            Math(HardSigmoid {
                alpha: 0.2,
                beta: 0.5
            }),
            "hard_sigmoid",
            |x| (r32(0.2) * x + 0.5).clamp(0.0, 1.0),
            // Near the lower corner: one ULP of beta.
            |x| (ulp32(0.5) / ulp32((r32(0.2) * x + 0.5).clamp(0.0, 1.0))).max(1.0)
        ),
        c!(
            Math(HardSilu),
            "hard_silu",
            |x| xmul(x, (r32(1.0 / 6.0) * x + 0.5).clamp(0.0, 1.0)),
            // Near x = -3 the product rounds to an ULP of 1/2 (times |x|).
            |x| {
                let r = xmul(x, (r32(1.0 / 6.0) * x + 0.5).clamp(0.0, 1.0));
                (x.abs() * ulp32(0.5) / ulp32(r)).max(1.5)
            }
        ),
        c!(
            Math(LeakyRelu { slope: 0.01 }),
            "leaky_relu",
            |x| if x > 0.0 { x } else { r32(0.01) * x },
            |_| 0.5
        ),
    ]
}

/// ULPs of the subnormal grid that |x| times a subnormal factor can lose.
fn subnormal_ulps(x: f64, factor: f64) -> f64 {
    if x.is_finite() && factor.abs() < f32::MIN_POSITIVE as f64 {
        x.abs()
    } else {
        0.0
    }
}

/// An ULP of the f32 binade holding |v| (subnormal spacing below the normals).
fn ulp32(v: f64) -> f64 {
    let a = v.abs();
    if a < f32::MIN_POSITIVE as f64 {
        return (-149f64).exp2();
    }
    let e = ((a.to_bits() >> 52) as i64 - 1023).min(127);
    ((e - 23) as f64).exp2()
}

/// Error of `got` against the real `want` in ULP of f32, with infinity
/// counted as 2^128; NaN, infinities and zeros of `want` must be met exactly
/// (zeros: with the sign of `cpu`, the CPU backend's result).
fn err32(got: f32, want: f64, cpu: f32) -> f64 {
    if want.is_nan() || got.is_nan() {
        return if want.is_nan() && got.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if want == 0.0 {
        return if got.to_bits() == cpu.to_bits() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    // Rounds to infinity in f32 (or is infinite): must be that infinity.
    let big = 2f64.powi(128) * (1.0 - 2f64.powi(-25));
    if want.abs() >= big {
        return if got as f64 == want.signum() * f64::INFINITY {
            0.0
        } else {
            f64::INFINITY
        };
    }
    let g = if got.is_infinite() {
        got.signum() as f64 * 2f64.powi(128)
    } else {
        got as f64
    };
    (g - want).abs() / ulp32(want)
}

/// About 1.1 * 10^6 inputs: every 4099th bit pattern (each binade of both
/// signs, and some NaNs), a dense sweep of [-16, 16], and edge values.
fn inputs() -> Vec<f32> {
    let mut v: Vec<f32> = (0..(1u64 << 32))
        .step_by(4099)
        .map(|b| f32::from_bits(b as u32))
        .collect();
    v.extend((0..1 << 16).map(|i| -16.0 + i as f32 / 2048.0));
    v.extend(specials());
    // Near multiples of pi/2 (and far out): the argument reductions.
    for k in 1..2000 {
        let m = (k as f64 * std::f64::consts::FRAC_PI_2) as f32;
        for d in -2i32..=2 {
            let x = f32::from_bits((m.to_bits() as i32 + d) as u32);
            v.extend([x, -x]);
        }
    }
    v.extend([
        1e5,
        1e6,
        1e10,
        1e20,
        1e30,
        3e38,
        102_940.5,
        7_884_685.0,
        16_367_173.0,
        8.589_93e9,
    ]);
    v
}

/// Special and threshold values (both signs).
fn specials() -> Vec<f32> {
    let base = [
        0.0,
        f32::INFINITY,
        f32::NAN,
        f32::MIN_POSITIVE,
        f32::from_bits(1),
        f32::from_bits(0x007f_ffff),
        f32::MAX,
        f32::EPSILON,
        1.0,
        0.5,
        2.0,
        1e-8,
        2.980_232_2e-8,
        88.722_83,
        88.722_84,
        89.415_98,
        89.416,
        87.336_55,
        103.972_08,
        103.972_09,
        104.0,
        126.0,
        128.0,
        149.0,
        150.0,
        17.0,
        18.0,
        9.0,
        9.1,
        10.0,
        0.999_999_94,
        1.000_000_1,
        0.437_5,
        0.687_5,
        1.187_5,
        2.437_5,
        4096.0,
        0.000_244_140_63,
        std::f32::consts::FRAC_PI_4,
        std::f32::consts::FRAC_PI_2,
        std::f32::consts::PI,
    ];
    base.iter().flat_map(|&x| [x, -x]).collect()
}

fn to_gpu(d: Device, v: &[f32]) -> Tensor {
    Tensor::from_vec(v.to_vec(), &[v.len()])
        .unwrap()
        .to_device(d)
        .unwrap()
}

fn host(t: &Tensor) -> Vec<f32> {
    t.to_device(Device::Cpu)
        .unwrap()
        .cast(DType::F32)
        .unwrap()
        .to_vec::<f32>()
        .unwrap()
}

/// What a hardware adapter is allowed beyond lavapipe's bounds.
struct Hw {
    /// Extra ULPs (a driver's division).
    slack: f64,
    /// Whether the adapter flushes subnormals to zero.
    ftz: bool,
}

fn hw(d: Device) -> Hw {
    let software = rnx::gpu_devices()[0].is_software;
    // e^-100 is subnormal in f32.
    let probe = host(&unary(UnaryOp::Math(MathFn::Exp), &to_gpu(d, &[-100.0])).unwrap())[0];
    let h = Hw {
        slack: if software { 0.0 } else { 3.0 },
        ftz: probe == 0.0,
    };
    if h.slack > 0.0 || h.ftz {
        println!(
            "gpu_math: hardware adapter: bounds + {} ULP, subnormals flushed: {}",
            h.slack, h.ftz
        );
    }
    h
}

fn subnormal(x: f32) -> bool {
    x != 0.0 && x.abs() < f32::MIN_POSITIVE
}

/// Largest error of `got`, the bound at that input, and the largest error
/// where the bound is the smallest (no subnormal or argument allowance),
/// failing on the first element above its bound (plus `hw`'s allowances).
fn check(
    what: &str,
    hw: &Hw,
    xs: &[(f32, f32)],
    got: &[f32],
    cpu: &[f32],
    want: impl Fn(f64, f64) -> f64,
    bound: impl Fn(f64, f64) -> f64,
) -> (f64, f64, f64) {
    // (worst error, the bound there, worst error among the base-bound inputs)
    let mut worst = (0.0f64, 0.0f64, 0.0f64);
    let base = xs
        .iter()
        .map(|&(x, y)| bound(x as f64, y as f64))
        .filter(|b| !b.is_nan())
        .fold(f64::INFINITY, f64::min);
    for (i, &(x, y)) in xs.iter().enumerate() {
        if hw.ftz && (subnormal(x) || subnormal(y)) {
            continue;
        }
        let w = want(x as f64, y as f64);
        let flushed = hw.ftz
            && w.abs() < f32::MIN_POSITIVE as f64
            && (got[i] as f64 - w).abs() <= f32::MIN_POSITIVE as f64;
        let e = if flushed {
            0.0
        } else {
            err32(got[i], w, cpu[i])
        };
        // (Bounds of non-finite inputs are NaN: those results are exact.)
        let b = bound(x as f64, y as f64);
        let b = if b.is_nan() { 0.0 } else { b };
        let b = if b > 0.0 { b + hw.slack } else { b };
        assert!(
            e <= b,
            "{what}({x:e}, {y:e}) [{:#010x}]: gpu {:e} cpu {:e} reference {w:e}: {e} ULP > {b}",
            x.to_bits(),
            got[i],
            cpu[i]
        );
        if e > worst.0 {
            worst.0 = e;
            worst.1 = b;
        }
        if b <= base && e > worst.2 {
            worst.2 = e;
        }
    }
    worst
}

#[test]
fn gpu_math_unary_f32_within_documented_ulp() {
    let Some(d) = gpu() else { return };
    let hw = hw(d);
    let xs = inputs();
    let gx = to_gpu(d, &xs);
    let cx = Tensor::from_vec(xs.clone(), &[xs.len()]).unwrap();
    let pairs: Vec<(f32, f32)> = xs.iter().map(|&x| (x, 0.0)).collect();
    for c in cases() {
        let got = host(&unary(c.op, &gx).unwrap());
        let cpu = host(&unary(c.op, &cx).unwrap());
        let worst = check(
            &format!("f32 {}", c.name),
            &hw,
            &pairs,
            &got,
            &cpu,
            |x, _| (c.reference)(x),
            |x, _| (c.bound)(x),
        );
        println!(
            "gpu_math f32 {:<12} max {:.3} ULP (bound there {:.1}; {:.3} where the bound is its least) over {} inputs",
            c.name,
            worst.0,
            worst.1,
            worst.2,
            xs.len()
        );
    }
}

#[test]
fn gpu_math_binary_f32_within_documented_ulp() {
    let Some(d) = gpu() else { return };
    let hw = hw(d);
    let xs = inputs();
    let n = xs.len();
    // Second operands: the same values rotated (all magnitudes against all),
    // then nearby magnitudes (for rem), then every pair of specials.
    let mut a = xs.clone();
    let mut b: Vec<f32> = (0..n).map(|i| xs[(i + n / 3) % n]).collect();
    for (i, &x) in xs.iter().enumerate().step_by(7) {
        a.push(x);
        b.push(x * (0.75 + (i % 97) as f32 / 64.0));
    }
    // pow: exponents that keep x^y in range (up to the overflow and the
    // subnormals), integer exponents of negative bases, bases near 1.
    for (i, &x) in xs.iter().enumerate().step_by(3) {
        let l = (x.abs() as f64).log2().abs().max(1e-3);
        let u = ((i * 7919) % 10007) as f64 / 10007.0 * 2.0 - 1.0;
        a.push(x.abs());
        b.push((u * 152.0 / l) as f32);
        a.push(-x.abs());
        b.push(((i % 61) as f32 - 30.0).round());
    }
    for i in 0..20000 {
        a.push(1.0 + (i as f32 - 10000.0) * 1e-7);
        b.push((i as f32 - 10000.0) * 100.0);
    }
    for &x in &specials() {
        for &y in &specials() {
            a.push(x);
            b.push(y);
        }
    }
    let pairs: Vec<(f32, f32)> = a.iter().copied().zip(b.iter().copied()).collect();
    let (ga, gb) = (to_gpu(d, &a), to_gpu(d, &b));
    let (ca, cb) = (
        Tensor::from_vec(a.clone(), &[a.len()]).unwrap(),
        Tensor::from_vec(b.clone(), &[b.len()]).unwrap(),
    );
    type Reference2 = fn(f64, f64) -> f64;
    let ops: [(BinaryOp, &str, Reference2, f64); 4] = [
        (BinaryOp::Rem, "rem", |x, y| x % y, 0.0),
        (BinaryOp::Atan2, "atan2", f64::atan2, 2.0),
        (BinaryOp::Hypot, "hypot", f64::hypot, 1.5),
        (BinaryOp::Pow, "pow", f64::powf, 4.5),
    ];
    for (op, name, f, bound) in ops {
        let got = host(&binary(op, &ga, &gb).unwrap());
        let cpu = host(&binary(op, &ca, &cb).unwrap());
        if op == BinaryOp::Rem {
            // fmod is exact: bit-identical to the CPU (NaN as NaN).
            for (i, (&g, &c)) in got.iter().zip(&cpu).enumerate() {
                if hw.ftz && (subnormal(a[i]) || subnormal(b[i]) || subnormal(c)) {
                    continue;
                }
                assert!(
                    g.to_bits() == c.to_bits() || (g.is_nan() && c.is_nan()),
                    "f32 rem({:e}, {:e}): gpu {g:e} cpu {c:e}",
                    a[i],
                    b[i]
                );
            }
        }
        let worst = check(
            &format!("f32 {name}"),
            &hw,
            &pairs,
            &got,
            &cpu,
            f,
            |_, _| bound,
        );
        println!(
            "gpu_math f32 {name:<12} max {:.3} ULP (bound {bound}) over {} pairs",
            worst.0,
            pairs.len()
        );
    }
}

/// Spacing of `dt` (f16 or bf16) at |v|, and its largest finite value.
fn half_ulp(dt: DType, v: f64) -> f64 {
    let (mant, emin) = if dt == DType::F16 {
        (10, -14)
    } else {
        (7, -126)
    };
    let a = v.abs();
    let e = if a == 0.0 {
        emin
    } else {
        ((a.to_bits() >> 52) as i64 - 1023).max(emin)
    };
    ((e - mant) as f64).exp2()
}

/// The f16/bf16 result `g` is within one unit of the storage type of the f32
/// reference `w32` rounded to it (`w`); zeros with the CPU's sign `c`;
/// results below the f32 normal range may be flushed when `ftz`, and so may
/// those that round up to its smallest normal (bf16 silu(2.34e-38) is
/// 1.1709e-38 in f32, subnormal there, and 2^-126 in bf16).
fn half_ok(dt: DType, g: f32, w: f32, c: f32, ftz: bool) -> bool {
    if ftz && w.abs() <= f32::MIN_POSITIVE && (g - w).abs() <= f32::MIN_POSITIVE {
        return true;
    }
    let top = if dt == DType::F16 {
        65536.0
    } else {
        2f64.powi(128)
    };
    if w.is_nan() || g.is_nan() {
        w.is_nan() && g.is_nan()
    } else if w == 0.0 {
        // Zero: the CPU's sign (or the smallest subnormal, off by one).
        g.to_bits() == c.to_bits() || (g as f64).abs() <= half_ulp(dt, 0.0)
    } else if w.is_infinite() {
        // Infinity, or the largest finite value (one unit off).
        g == w || (g as f64).abs() == top - half_ulp(dt, top / 2.0)
    } else {
        let gg = if g.is_infinite() {
            g.signum() as f64 * top
        } else {
            g as f64
        };
        (gg - w as f64).abs() <= half_ulp(dt, w as f64)
    }
}

/// Every bit pattern of `dt` as f32 values (exact in f32).
fn all_halves(dt: DType) -> Vec<f32> {
    (0..=u16::MAX)
        .map(|b| {
            if dt == DType::F16 {
                half::f16::from_bits(b).to_f32()
            } else {
                half::bf16::from_bits(b).to_f32()
            }
        })
        .collect()
}

/// f32 values rounded to `dt` (through the CPU cast), back as f32.
fn round_to(dt: DType, v: Vec<f32>) -> Vec<f32> {
    let n = v.len();
    host(&Tensor::from_vec(v, &[n]).unwrap().cast(dt).unwrap())
}

#[test]
fn gpu_math_halves_round_the_f32_result() {
    let Some(d) = gpu() else { return };
    let hw = hw(d);
    for dt in [DType::F16, DType::BF16] {
        let all = all_halves(dt);
        let n = all.len();
        let cx = Tensor::from_vec(all.clone(), &[n])
            .unwrap()
            .cast(dt)
            .unwrap();
        let gx = cx.to_device(d).unwrap();
        let ops = cases()
            .into_iter()
            .filter(|c| !matches!(c.op, UnaryOp::Math(MathFn::Elu { alpha }) if alpha != 1.0));
        for Case {
            op,
            name,
            reference: f,
            ..
        } in ops
        {
            let got = host(&unary(op, &gx).unwrap());
            let cpu = host(&unary(op, &cx).unwrap());
            // The reference rounded to f32, then to the storage type.
            let want32: Vec<f32> = all.iter().map(|&x| f(x as f64) as f32).collect();
            let want = round_to(dt, want32.clone());
            for i in 0..n {
                if hw.ftz && subnormal(all[i]) {
                    continue;
                }
                assert!(
                    half_ok(dt, got[i], want[i], cpu[i], hw.ftz),
                    "{dt} {name}({:e}): gpu {:e}, f32 reference {:e} rounds to {:e} (cpu {:e})",
                    all[i],
                    got[i],
                    want32[i],
                    want[i],
                    cpu[i]
                );
            }
            println!("gpu_math {dt} {name}: all {n} inputs within 1 unit");
        }
        // Binary ops: every value against every value rotated by a third, and
        // against small integers (pow of negative bases).
        let a: Vec<f32> = all.iter().chain(all.iter()).copied().collect();
        let b: Vec<f32> = (0..n)
            .map(|i| all[(i + n / 3) % n])
            .chain((0..n).map(|i| (i % 17) as f32 - 8.0))
            .collect();
        let (ca, cb) = (
            Tensor::from_vec(a.clone(), &[2 * n])
                .unwrap()
                .cast(dt)
                .unwrap(),
            Tensor::from_vec(b.clone(), &[2 * n])
                .unwrap()
                .cast(dt)
                .unwrap(),
        );
        let (ga, gb) = (ca.to_device(d).unwrap(), cb.to_device(d).unwrap());
        type Reference2 = fn(f64, f64) -> f64;
        let ops: [(BinaryOp, &str, Reference2); 4] = [
            (BinaryOp::Rem, "rem", |x, y| x % y),
            (BinaryOp::Pow, "pow", f64::powf),
            (BinaryOp::Atan2, "atan2", f64::atan2),
            (BinaryOp::Hypot, "hypot", f64::hypot),
        ];
        for (op, name, f) in ops {
            let got = host(&binary(op, &ga, &gb).unwrap());
            let cpu = host(&binary(op, &ca, &cb).unwrap());
            let want32: Vec<f32> = a
                .iter()
                .zip(&b)
                .map(|(&x, &y)| f(x as f64, y as f64) as f32)
                .collect();
            let want = round_to(dt, want32);
            for i in 0..2 * n {
                if hw.ftz && (subnormal(a[i]) || subnormal(b[i])) {
                    continue;
                }
                assert!(
                    half_ok(dt, got[i], want[i], cpu[i], hw.ftz),
                    "{dt} {name}({:e}, {:e}): gpu {:e}, reference rounds to {:e} (cpu {:e})",
                    a[i],
                    b[i],
                    got[i],
                    want[i],
                    cpu[i]
                );
            }
            println!("gpu_math {dt} {name}: all {} pairs within 1 unit", 2 * n);
        }
    }
}
