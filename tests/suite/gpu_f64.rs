//! f64 unary ops that run as GPU kernels (`src/backend/gpu/math_f64.rs`):
//! trunc, floor, ceil, round (half away from zero), relu, relu6 and
//! hard_tanh, bit-identical to the CPU over edge values (signed zeros, halves,
//! the integer limit 2^52, subnormals, ±inf, NaN), 10^5 random bit patterns
//! and random values of every magnitude, on contiguous and strided views.
//! exp and log: at most 1 ULP from Rust's f64 functions over about 10^6
//! inputs each (the CPU's bound), special values as the CPU's.
//! Without an adapter (or without f64 on it) the tests return early, unless
//! `RNX_REQUIRE_GPU=1`.

use super::common::{ulp_err_f64, Rng};
use super::gpu::gpu;
use rnx::backend::elementwise::UnaryOp;
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
        UnaryOp::Trunc,
        UnaryOp::Floor,
        UnaryOp::Ceil,
        UnaryOp::Round,
        UnaryOp::Relu,
        UnaryOp::Relu6,
        UnaryOp::HardTanh,
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
    let r = unary(UnaryOp::Round, &g).unwrap().to_vec::<f64>().unwrap();
    assert_eq!(r, [-3.0, -1.0, 1.0, 2.0, 3.0, -0.0]);
    assert!(r[5].is_sign_negative());
}

/// About 10^6 inputs for `op`: edge values, uniform values over the
/// function's range, a dense sweep near its most sensitive region and
/// random bit patterns (exp: |x| up to 746; log: every positive f64).
fn math_inputs(op: UnaryOp) -> Vec<f64> {
    let mut rng = Rng(0x1234_5678_9abc_def1);
    let mut v: Vec<f64> = vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        2.0,
        f64::MIN_POSITIVE,
        5e-324,
        -5e-324,
        1e-310,
        f64::MAX,
        f64::MIN,
        709.782712893384,
        709.79,
        -745.1332191019412,
        -745.14,
        -708.4,
        -720.0,
        1e-20,
        -1e-20,
        std::f64::consts::LN_2,
        std::f64::consts::SQRT_2,
        std::f64::consts::FRAC_1_SQRT_2,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
    ];
    for i in 0..1_000_000 {
        let u = rng.unit();
        v.push(match (op, i % 4) {
            (UnaryOp::Exp, 0) => -746.0 + u * (710.0 + 746.0),
            (UnaryOp::Exp, 1) => -2.0 + 4.0 * u,
            (UnaryOp::Exp, 2) => {
                let x = f64::from_bits(rng.next());
                if x.abs() < 746.0 {
                    x
                } else {
                    (u - 0.5) * 1e-3
                }
            }
            (UnaryOp::Exp, _) => (u - 0.5) * 1e-8,
            (_, 0 | 2) => f64::from_bits(rng.next() >> 1),
            (_, 1) => 0.5 + 1.5 * u,
            _ => 1.0 + (u - 0.5) * 1e-6,
        });
    }
    v
}

#[test]
fn gpu_f64_exp_log_ulp() {
    let Some(dev) = gpu() else {
        return;
    };
    for (op, reference, bound) in [
        (UnaryOp::Exp, f64::exp as fn(f64) -> f64, 1.0),
        (UnaryOp::Log, f64::ln as fn(f64) -> f64, 1.0),
    ] {
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
            let r = reference(x);
            // NaN, infinities and zeros exactly as the CPU's.
            if !c.is_finite() || c == 0.0 {
                assert!(
                    c.to_bits() == y.to_bits() || (c.is_nan() && y.is_nan()),
                    "{op:?}({x:e}): cpu {c:e} gpu {y:e}"
                );
                continue;
            }
            let e = ulp_err_f64(y, r);
            if e > worst.0 {
                worst = (e, x);
            }
            assert!(
                e <= bound,
                "{op:?}({x:e} = {:#x}): gpu {y:e} reference {r:e}: {e} ULP > {bound}",
                x.to_bits()
            );
        }
        eprintln!(
            "gpu_f64_exp_log_ulp: {op:?} largest error {:.3} ULP at {:e}",
            worst.0, worst.1
        );
    }
}
