//! Accuracy of the vectorised math kernels (`rnx::backend::cpu::vmath`): every
//! function, f32 and f64, on every available ISA path, over at least 10^6
//! inputs spread over the whole range plus edge values, against an f64
//! reference (the platform libm, within 1 ULP of f64; for f32 results that is
//! exact to far below an f32 ULP). The bounds here are the ones stated in the
//! rustdoc of `vmath::MathFn`.

use crate::common::*;
use rnx::backend::cpu::vmath::{self, Func2, Isa, MathFn};

/// erf by its Maclaurin series (|x| < 1.5) or erfc's continued fraction
/// (|x| ≥ 1.5), independent of the libm under test.
fn erf_ref(x: f64) -> f64 {
    if x.is_nan() {
        return x;
    }
    let a = x.abs();
    if a < 1.5 {
        let (mut term, mut sum, mut n) = (a, a, 0.0f64);
        while term.abs() > 1e-30 * sum.abs() {
            n += 1.0;
            term *= -a * a / n;
            sum += term / (2.0 * n + 1.0);
        }
        (sum * std::f64::consts::FRAC_2_SQRT_PI).copysign(x)
    } else {
        (1.0 - erfc_cf(a)).copysign(x)
    }
}

/// erfc(x) for x ≥ 1.5 by its continued fraction, evaluated backward.
fn erfc_cf(x: f64) -> f64 {
    let mut f = x;
    for k in (1..400).rev() {
        f = x + (k as f64 / 2.0) / f;
    }
    (-x * x).exp() / (f * std::f64::consts::PI.sqrt())
}

#[test]
fn exp_family_f32() {
    let xs = inputs_f32(
        &[(-110.0, 90.0), (-1.0, 1.0)],
        &[88.722_83, -87.336_55, -103.972_08],
    );
    check_f32(MathFn::Exp, &xs, 1.1, f64::exp);
    let xs = inputs_f32(&[(-155.0, 130.0), (-1.0, 1.0)], &[128.0, -126.0, -149.0]);
    check_f32(MathFn::Exp2, &xs, 1.1, f64::exp2);
    let xs = inputs_f32(&[(-20.0, 90.0), (-1.0, 1.0)], &[88.722_83, 1e-30]);
    check_f32(MathFn::Expm1, &xs, 2.0, f64::exp_m1);
}

#[test]
fn exp_family_f64() {
    let xs = inputs_f64(
        &[(-750.0, 712.0), (-1.0, 1.0)],
        &[
            709.782_712_893_384,
            -708.396_418_532_264_1,
            -745.133_219_101_941_1,
        ],
    );
    check_f64(MathFn::Exp, &xs, 1.0, f64::exp);
    let xs = inputs_f64(
        &[(-1080.0, 1030.0), (-1.0, 1.0)],
        &[1024.0, -1022.0, -1074.0],
    );
    check_f64(MathFn::Exp2, &xs, 1.0, f64::exp2);
    let xs = inputs_f64(
        &[(-40.0, 712.0), (-1.0, 1.0)],
        &[709.782_712_893_384, 1e-300],
    );
    check_f64(MathFn::Expm1, &xs, 2.0, f64::exp_m1);
}

#[test]
fn log_family_f32() {
    let xs = inputs_f32(&[(0.0, 10.0), (0.5, 2.0)], &[1e-38, 1.0]);
    check_f32(MathFn::Log, &xs, 1.0, f64::ln);
    check_f32(MathFn::Log2, &xs, 2.0, f64::log2);
    let xs = inputs_f32(&[(-1.0, 10.0), (-1e-3, 1e-3)], &[-1.0, 1e-30]);
    check_f32(MathFn::Log1p, &xs, 2.0, f64::ln_1p);
}

#[test]
fn log_family_f64() {
    let xs = inputs_f64(&[(0.0, 10.0), (0.5, 2.0)], &[1e-308, 1.0]);
    check_f64(MathFn::Log, &xs, 1.0, f64::ln);
    check_f64(MathFn::Log2, &xs, 2.0, f64::log2);
    let xs = inputs_f64(&[(-1.0, 10.0), (-1e-3, 1e-3)], &[-1.0, 1e-300]);
    check_f64(MathFn::Log1p, &xs, 2.0, f64::ln_1p);
}

#[test]
fn trig_f32() {
    let xs = inputs_f32(
        &[(-10.0, 10.0), (-1.1e5, 1.1e5)],
        &[1e5, -1e5, 1e6, 3.0e38, std::f32::consts::PI],
    );
    check_f32(MathFn::Sin, &xs, 1.0, f64::sin);
    check_f32(MathFn::Cos, &xs, 1.0, f64::cos);
    check_f32(MathFn::Tan, &xs, 1.0, f64::tan);
    let xs = inputs_f32(&[(-1.0, 1.0), (-10.0, 10.0)], &[1.0, -1.0]);
    check_f32(MathFn::Asin, &xs, 0.5, f64::asin);
    check_f32(MathFn::Acos, &xs, 0.5, f64::acos);
    check_f32(MathFn::Atan, &xs, 0.5, f64::atan);
}

#[test]
fn trig_f64() {
    let xs = inputs_f64(
        &[(-10.0, 10.0), (-1.1e6, 1.1e6)],
        &[1e6, -1e6, 1e22, 1e300, std::f64::consts::PI],
    );
    check_f64(MathFn::Sin, &xs, 2.0, f64::sin);
    check_f64(MathFn::Cos, &xs, 2.0, f64::cos);
    check_f64(MathFn::Tan, &xs, 3.0, f64::tan);
    let xs = inputs_f64(&[(-1.0, 1.0), (-10.0, 10.0)], &[1.0, -1.0]);
    check_f64(MathFn::Asin, &xs, 0.0, f64::asin);
    check_f64(MathFn::Acos, &xs, 0.0, f64::acos);
    check_f64(MathFn::Atan, &xs, 0.0, f64::atan);
}

#[test]
fn hyperbolic_f32() {
    let xs = inputs_f32(&[(-10.0, 10.0), (-1.0, 1.0)], &[9.0, 89.4, 1e-20]);
    check_f32(MathFn::Tanh, &xs, 2.5, f64::tanh);
    check_f32(MathFn::Sinh, &xs, 0.5, f64::sinh);
    check_f32(MathFn::Cosh, &xs, 0.5, f64::cosh);
    check_f32(MathFn::Asinh, &xs, 0.5, f64::asinh);
    check_f32(MathFn::Acosh, &xs, 0.5, f64::acosh);
    check_f32(MathFn::Atanh, &xs, 0.5, f64::atanh);
}

#[test]
fn hyperbolic_f64() {
    let xs = inputs_f64(&[(-20.0, 20.0), (-1.0, 1.0)], &[19.0, 710.5, 1e-200]);
    check_f64(MathFn::Tanh, &xs, 3.5, f64::tanh);
    check_f64(MathFn::Sinh, &xs, 0.0, f64::sinh);
    check_f64(MathFn::Cosh, &xs, 0.0, f64::cosh);
    // The CPU calls libm's (musl's) functions: Rust's own f64 asinh and
    // acosh overflow past about 9e307 and lose accuracy near 1 (acosh) and
    // -1 (atanh); see `inverse_hyperbolic_f64_at_the_ends`.
    check_f64(MathFn::Asinh, &xs, 0.0, libm::asinh);
    check_f64(MathFn::Acosh, &xs, 0.0, acosh_ref);
    check_f64(MathFn::Atanh, &xs, 0.0, libm::atanh);
}

/// libm's acosh, NaN below 1 (musl's formula is not defined there).
pub(crate) fn acosh_ref(x: f64) -> f64 {
    if x < 1.0 {
        f64::NAN
    } else {
        libm::acosh(x)
    }
}

/// asinh, acosh, atanh of f64 where a naive formula fails (huge arguments,
/// near 1 and -1), against NumPy 2.4.6's values (glibc's libm): within one
/// ULP.
#[test]
fn inverse_hyperbolic_f64_at_the_ends() {
    use rnx::{DType, Tensor};
    let cases: [(&str, f64, f64); 9] = [
        ("acosh", -1e6, f64::NAN),
        ("acosh", 0.5, f64::NAN),
        ("asinh", 1.7976931348623157e308, 710.475860073944),
        ("asinh", -1e300, -691.4686750787737),
        ("acosh", 1e308, 709.889355822726),
        ("acosh", 1.0000144786424836, 0.005381190861738043),
        ("acosh", 1.0000000000000002, 2.1073424255447014e-08),
        ("atanh", -0.9999999999999999, -18.714973875118524),
        ("atanh", 0.9999999999999999, 18.714973875118524),
    ];
    for (name, x, want) in cases {
        let t = Tensor::create(DType::F64, &[1], &[x]).unwrap();
        let y = match name {
            "asinh" => t.asinh(),
            "acosh" => t.acosh(),
            _ => t.atanh(),
        }
        .unwrap()
        .to_vec::<f64>()
        .unwrap()[0];
        let ulp = f64::from_bits(want.abs().to_bits() + 1) - want.abs();
        assert!(
            (y - want).abs() <= ulp || (want.is_nan() && y.is_nan()),
            "{name}({x:e}) = {y:e}, NumPy {want:e}"
        );
    }
}

#[test]
fn erf_against_independent_series() {
    let xs = inputs_f32(&[(-5.0, 5.0), (-0.5, 0.5)], &[3.0, -3.0]);
    check_f32(MathFn::Erf, &xs, 1.0, erf_ref);
    let xs = inputs_f64(&[(-6.0, 6.0), (-0.5, 0.5)], &[3.0, -3.0]);
    // libm's erf is < 1 ULP; the series reference adds a few ULP near |x| = 1.5.
    check_f64(MathFn::Erf, &xs, 8.0, erf_ref);
}

#[test]
fn exact_functions() {
    let xs = inputs_f32(&[(-10.0, 10.0), (-1e7, 1e7)], &[0.5, 1.5, 2.5, 8_388_607.5]);
    check_f32(MathFn::Sqrt, &xs, 0.5, f64::sqrt);
    check_f32(MathFn::Rsqrt, &xs, 0.5 + 1e-6, |x| 1.0 / x.sqrt());
    check_f32(MathFn::Trunc, &xs, 0.0, f64::trunc);
    check_f32(MathFn::Ceil, &xs, 0.0, f64::ceil);
    check_f32(MathFn::Floor, &xs, 0.0, f64::floor);
    check_f32(MathFn::Round, &xs, 0.0, f64::round);
    let xs = inputs_f64(
        &[(-10.0, 10.0), (-1e16, 1e16)],
        &[0.5, 2.5, 4_503_599_627_370_495.5],
    );
    check_f64(MathFn::Sqrt, &xs, 0.5, f64::sqrt);
    check_f64(MathFn::Rsqrt, &xs, 1.5, |x| 1.0 / x.sqrt());
    check_f64(MathFn::Trunc, &xs, 0.0, f64::trunc);
    check_f64(MathFn::Ceil, &xs, 0.0, f64::ceil);
    check_f64(MathFn::Floor, &xs, 0.0, f64::floor);
    check_f64(MathFn::Round, &xs, 0.0, f64::round);
}

#[test]
fn signed_zeros_and_specials() {
    let cases: [(MathFn, f32, f32); 12] = [
        (MathFn::Exp, -0.0, 1.0),
        (MathFn::Expm1, -0.0, -0.0),
        (MathFn::Log1p, -0.0, -0.0),
        (MathFn::Sin, -0.0, -0.0),
        (MathFn::Tan, -0.0, -0.0),
        (MathFn::Tanh, -0.0, -0.0),
        (MathFn::Log, 0.0, f32::NEG_INFINITY),
        (MathFn::Log, -1.0, f32::NAN),
        (MathFn::Log, f32::INFINITY, f32::INFINITY),
        (MathFn::Exp, f32::NEG_INFINITY, 0.0),
        (MathFn::Tanh, f32::INFINITY, 1.0),
        (MathFn::Log2, 1024.0, 10.0),
    ];
    for isa in isas() {
        for (f, x, want) in cases {
            let mut y = [0f32];
            vmath::map_f32_with(isa, f, &[x], &mut y);
            let ok = (want.is_nan() && y[0].is_nan())
                || (y[0] == want && y[0].is_sign_negative() == want.is_sign_negative());
            assert!(ok, "{f:?}({x}) = {} on {isa:?}, want {want}", y[0]);
            let mut y = [0f64];
            vmath::map_f64_with(isa, f, &[x as f64], &mut y);
            let w = want as f64;
            let ok = (w.is_nan() && y[0].is_nan())
                || (y[0] == w && y[0].is_sign_negative() == w.is_sign_negative());
            assert!(ok, "{f:?}({x}) f64 = {} on {isa:?}, want {w}", y[0]);
        }
    }
}

#[test]
fn in_place_equals_out_of_place() {
    let xs: Vec<f32> = (0..1000).map(|i| (i as f32 - 500.0) * 0.37).collect();
    for f in [MathFn::Exp, MathFn::Sin, MathFn::Tanh, MathFn::Gelu] {
        let mut a = vec![0f32; xs.len()];
        vmath::map_f32(f, &xs, &mut a);
        let mut b = xs.clone();
        vmath::map_f32_inplace(f, &mut b);
        assert_eq!(a, b, "{f:?}");
    }
}

#[test]
fn binary_functions() {
    let mut rng = Rng(7);
    let n = 1 << 20;
    let a: Vec<f64> = (0..n).map(|_| f64::from_bits(rng.next())).collect();
    let b: Vec<f64> = (0..n).map(|_| (rng.unit() - 0.5) * 1e3).collect();
    let a32: Vec<f32> = a.iter().map(|&x| x as f32).collect();
    let b32: Vec<f32> = b.iter().map(|&x| x as f32).collect();
    for isa in isas() {
        let mut y = vec![0f32; n];
        vmath::map2_f32_with(isa, Func2::Hypot, &a32, &b32, &mut y);
        for i in 0..n {
            let r = (a32[i] as f64).hypot(b32[i] as f64);
            assert!(
                ulp_err_f32(y[i], r) <= 0.5 + 1e-6,
                "hypot({}, {}) = {}",
                a32[i],
                b32[i],
                y[i]
            );
        }
        vmath::map2_f32_with(isa, Func2::Atan2, &a32, &b32, &mut y);
        for i in 0..n {
            let r = (a32[i] as f64).atan2(b32[i] as f64);
            assert!(ulp_err_f32(y[i], r) <= 0.5 + 1e-6);
        }
        let mut y = vec![0f64; n];
        vmath::map2_f64_with(isa, Func2::Hypot, &a, &b, &mut y);
        for i in 0..n {
            assert_eq!(y[i].to_bits(), a[i].hypot(b[i]).to_bits());
        }
    }
    let mut y = [0f64];
    vmath::map2_f64(Func2::Hypot, &[1e200], &[1e200], &mut y);
    assert!(y[0].is_finite() && (y[0] / 1.414_213_562_373_095e200 - 1.0).abs() < 1e-15);
    let mut y = [0f32];
    vmath::map2_f32(Func2::Hypot, &[f32::INFINITY], &[f32::NAN], &mut y);
    assert_eq!(y[0], f32::INFINITY);
    assert_eq!(isas().last(), Some(&Isa::best()));
}
