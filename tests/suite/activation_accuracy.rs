//! Each activation kernel (`rnx::backend::cpu::vmath`) against its defining
//! formula evaluated in f64 (written without cancellation where the literal f64
//! formula would lose the result), f32 and f64, on every ISA path, over at least
//! 10^6 inputs plus edge values.

use crate::common::*;
use rnx::backend::cpu::vmath::MathFn;

fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

fn softplus(x: f64) -> f64 {
    x.max(0.0) + (-x.abs()).exp().ln_1p()
}

/// 0.5·x·(1 + tanh(c·(x + k·x³))) with 1 + tanh(u) = 2/(1 + e^(−2u)) where the
/// literal sum would cancel (u < −1).
fn gelu_tanh(x: f64, c: f64, k: f64) -> f64 {
    if x == f64::NEG_INFINITY {
        return -0.0;
    }
    let u = c * (x + k * x * x * x);
    let one_plus_tanh = if u >= -1.0 {
        1.0 + u.tanh()
    } else {
        2.0 * sigmoid(2.0 * u)
    };
    0.5 * x * one_plus_tanh
}

fn elu(x: f64, a: f64) -> f64 {
    if x > 0.0 {
        x
    } else {
        a * x.exp_m1()
    }
}

fn mish(x: f64) -> f64 {
    if x == f64::NEG_INFINITY {
        return -0.0;
    }
    // tanh(softplus(x)) = n/(n+2), n = eˣ(eˣ+2); for large x tanh(sp) = 1.
    let t = if x > 40.0 {
        1.0
    } else {
        let e = x.exp();
        let n = e * (e + 2.0);
        n / (n + 2.0)
    };
    x * t
}

fn silu(x: f64) -> f64 {
    if x == f64::NEG_INFINITY {
        -0.0
    } else {
        x * sigmoid(x)
    }
}

/// One f32 ULP at `r`.
fn ulp32(r: f64) -> f64 {
    let a = r.abs().max(f32::MIN_POSITIVE as f64);
    pow2(((a.to_bits() >> 52) as i32 - 1023).min(127) - 23)
}

/// One f64 ULP at `r`.
fn ulp64(r: f64) -> f64 {
    let a = r.abs().max(f64::MIN_POSITIVE);
    pow2((a.to_bits() >> 52) as i32 - 1023 - 52)
}

const SELU_A: f64 = 1.673_263_242_354_377_3;
const SELU_L: f64 = 1.050_700_987_355_480_5;

fn f32_set() -> Vec<f32> {
    inputs_f32(
        &[(-20.0, 20.0), (-120.0, 120.0)],
        &[-88.0, 88.0, 6.0, 3.0, -3.0, 1.0],
    )
}

fn f64_set() -> Vec<f64> {
    inputs_f64(
        &[(-40.0, 40.0), (-800.0, 800.0)],
        &[-709.0, 709.0, 6.0, 3.0, -3.0, 1.0],
    )
}

#[test]
fn logistic_family() {
    let (xs, ys) = (f32_set(), f64_set());
    check_f32(MathFn::Sigmoid, &xs, 2.5, sigmoid);
    check_f64(MathFn::Sigmoid, &ys, 2.5, sigmoid);
    // x·sigmoid(x) where sigmoid(x) is subnormal: its absolute rounding
    // (up to the smallest subnormal) is multiplied by |x|.
    let sub32 = |n: f64| move |x: f64, r: f64| n + x.abs() * pow2(-149) / ulp32(r);
    let sub64 = |n: f64| move |x: f64, r: f64| n + x.abs() * pow2(-1074) / ulp64(r);
    check_f32_tol(MathFn::Silu, &xs, silu, sub32(3.5));
    check_f64_tol(MathFn::Silu, &ys, silu, sub64(3.0));
    check_f32(MathFn::Softplus, &xs, 2.0, softplus);
    check_f64(MathFn::Softplus, &ys, 2.0, softplus);
    check_f32(MathFn::LogSigmoid, &xs, 2.0, |x| -softplus(-x));
    check_f64(MathFn::LogSigmoid, &ys, 2.0, |x| -softplus(-x));
    check_f32_tol(MathFn::Mish, &xs, mish, sub32(4.5));
    check_f64_tol(MathFn::Mish, &ys, mish, sub64(4.5));
}

#[test]
fn exponential_units() {
    let (xs, ys) = (f32_set(), f64_set());
    check_f32(MathFn::Elu { alpha: 1.0 }, &xs, 2.0, |x| elu(x, 1.0));
    check_f64(MathFn::Elu { alpha: 1.0 }, &ys, 2.0, |x| elu(x, 1.0));
    let a32 = 0.3f32 as f64;
    check_f32(MathFn::Elu { alpha: 0.3 }, &xs, 3.0, |x| elu(x, a32));
    check_f64(MathFn::Elu { alpha: 0.3 }, &ys, 3.0, |x| elu(x, 0.3));
    let (sa, sl) = (SELU_A as f32 as f64, SELU_L as f32 as f64);
    check_f32(MathFn::Selu, &xs, 3.0, |x| sl * elu(x, sa));
    check_f64(MathFn::Selu, &ys, 3.0, |x| SELU_L * elu(x, SELU_A));
}

#[test]
fn gelu_both_forms() {
    let (xs, ys) = (f32_set(), f64_set());
    let c32 = (2.0 / std::f64::consts::PI).sqrt() as f32 as f64;
    let k32 = 0.044715f32 as f64;
    // The tanh argument u is rounded in the input precision; where gelu ≈ x·e^(2u)
    // is tiny (x < −3) that rounding is amplified by |2u| (the stated bound).
    let allow = |c: f64, k: f64| {
        move |x: f64, _r: f64| 3.0 + 3.0 * (2.0 * c * (x + k * x * x * x)).abs().min(1e30)
    };
    check_f32_tol(
        MathFn::Gelu,
        &xs,
        |x| gelu_tanh(x, c32, k32),
        allow(c32, k32),
    );
    let c64 = (2.0 / std::f64::consts::PI).sqrt();
    check_f64_tol(
        MathFn::Gelu,
        &ys,
        |x| gelu_tanh(x, c64, 0.044715),
        allow(c64, 0.044715),
    );
}

#[test]
fn piecewise_linear() {
    let (xs, ys) = (f32_set(), f64_set());
    let relu = |x: f64| {
        if x.is_nan() {
            x
        } else if x <= 0.0 {
            0.0
        } else {
            x
        }
    };
    check_f32(MathFn::Relu, &xs, 0.0, relu);
    check_f64(MathFn::Relu, &ys, 0.0, relu);
    let relu6 = |x: f64| if x.is_nan() { x } else { x.clamp(0.0, 6.0) };
    check_f32(MathFn::Relu6, &xs, 0.0, relu6);
    check_f64(MathFn::Relu6, &ys, 0.0, relu6);
    let hard_tanh = |x: f64| if x.is_nan() { x } else { x.clamp(-1.0, 1.0) };
    check_f32(MathFn::HardTanh, &xs, 0.0, hard_tanh);
    check_f64(MathFn::HardTanh, &ys, 0.0, hard_tanh);
    let leaky = |x: f64| if x > 0.0 { x } else { 0.01f32 as f64 * x };
    check_f32(MathFn::LeakyRelu { slope: 0.01 }, &xs, 0.5, leaky);
    let leaky = |x: f64| if x > 0.0 { x } else { 0.01 * x };
    check_f64(MathFn::LeakyRelu { slope: 0.01 }, &ys, 0.5, leaky);
    let hs = |x: f64, a: f64, b: f64| {
        if x.is_nan() {
            x
        } else {
            (a * x + b).clamp(0.0, 1.0)
        }
    };
    let (a6, h) = ((1.0f32 / 6.0) as f64, 0.5);
    // alpha·x + beta cancels near the lower corner: allow one ULP of beta.
    let corner32 = |_x: f64, r: f64| 1.0f64.max(2f64.powi(-24) / ulp32(r));
    let corner64 = |_x: f64, r: f64| 1.0f64.max(2f64.powi(-53) / ulp64(r));
    check_f32_tol(
        MathFn::HardSigmoid {
            alpha: 1.0 / 6.0,
            beta: 0.5,
        },
        &xs,
        |x| hs(x, a6, h),
        corner32,
    );
    check_f64_tol(
        MathFn::HardSigmoid {
            alpha: 1.0 / 6.0,
            beta: 0.5,
        },
        &ys,
        |x| hs(x, 1.0 / 6.0, 0.5),
        corner64,
    );
    check_f32_tol(
        MathFn::HardSigmoid {
            alpha: 0.2,
            beta: 0.25,
        },
        &xs,
        |x| hs(x, 0.2f32 as f64, 0.25),
        corner32,
    );
    let hsilu = |x: f64, a: f64| {
        if x == f64::NEG_INFINITY {
            -0.0
        } else {
            x * hs(x, a, 0.5)
        }
    };
    let corner32 = |x: f64, r: f64| 1.5f64.max(x.abs() * 2f64.powi(-23) / ulp32(r));
    let corner64 = |x: f64, r: f64| 1.5f64.max(x.abs() * 2f64.powi(-52) / ulp64(r));
    check_f32_tol(MathFn::HardSilu, &xs, |x| hsilu(x, a6), corner32);
    check_f64_tol(MathFn::HardSilu, &ys, |x| hsilu(x, 1.0 / 6.0), corner64);
    let softsign = |x: f64| {
        if x.is_infinite() {
            x.signum()
        } else {
            x / (1.0 + x.abs())
        }
    };
    check_f32(MathFn::Softsign, &xs, 1.5, softsign);
    check_f64(MathFn::Softsign, &ys, 1.5, softsign);
}
