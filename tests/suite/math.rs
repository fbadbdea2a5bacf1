//! Math functions through the user API: every example of the seeds (000's math
//! section, 004's math rows) with their values, the three forms, dtypes
//! (halves in f32, complex sqrt, errors for integers) and strided outputs.

use rnx::{DType, Tensor, C64};

fn t32(shape: &[usize], v: &[f32]) -> Tensor {
    Tensor::create(DType::F32, shape, v).unwrap()
}

/// The transposed view of a 2-D tensor (same storage).
fn tr(t: &Tensor) -> Tensor {
    Tensor::from_parts(t.storage().clone(), t.layout().permute(&[1, 0]).unwrap()).unwrap()
}

fn v32(t: &Tensor) -> Vec<f32> {
    t.to_vec::<f32>().unwrap()
}

/// Nx's Float.round (half away from zero) of a rank-0 f32 result.
fn rounded(t: &Tensor) -> f64 {
    (t.item::<f32>().unwrap() as f64).round()
}

#[test]
fn seed000_atan2() {
    let s = |v: f32| Tensor::scalar(DType::F32, v).unwrap();
    assert_eq!(rounded(&s(1.0).atan2(&s(1.0)).unwrap()), 1.0);
    assert_eq!(rounded(&s(1.0).atan2(&s(0.0)).unwrap()), 2.0);
    assert_eq!(s(0.0).atan2(&s(0.0)).unwrap().item::<f32>().unwrap(), 0.0);
}

#[test]
fn seed000_hypot() {
    let x = Tensor::scalar(DType::F32, 3.0f32).unwrap();
    let y = Tensor::scalar(DType::F32, 4.0f32).unwrap();
    assert_eq!(x.hypot(&y).unwrap().item::<f32>().unwrap(), 5.0);
    let x = Tensor::scalar(DType::F64, 1e200).unwrap();
    let h = x.hypot(&x).unwrap().item::<f64>().unwrap();
    assert!(h < f64::INFINITY);
    assert!((h / (2f64.sqrt() * 1e200) - 1.0).abs() < 1e-15);
}

#[test]
fn seed000_rounding() {
    let x = t32(&[3], &[2.7, -2.7, 2.0]);
    assert_eq!(v32(&x.trunc().unwrap()), vec![2.0, -2.0, 2.0]);
    let x = t32(&[4], &[2.1, 2.9, -2.1, -2.9]);
    assert_eq!(v32(&x.ceil().unwrap()), vec![3.0, 3.0, -2.0, -2.0]);
    assert_eq!(v32(&x.floor().unwrap()), vec![2.0, 2.0, -3.0, -3.0]);
    let x = t32(&[4], &[2.5, 3.5, -2.5, -3.5]);
    let r = x.round().unwrap();
    assert_eq!(v32(&r), vec![3.0, 4.0, -3.0, -4.0]);
    assert_eq!(r.to_string(), "[3, 4, -3, -4]");
}

#[test]
fn seed004_cos_log_exp_sin() {
    let x = Tensor::create(DType::F64, &[1], &[0.0f64]).unwrap();
    assert_eq!(x.cos().unwrap().to_vec::<f64>().unwrap(), vec![1.0]);
    let near = |got: Vec<f32>, want: &[f64]| {
        for (g, w) in got.iter().zip(want) {
            let ok = (*g as f64 - w).abs() <= 2.0 * f32::EPSILON as f64 * w.abs();
            assert!(ok, "{got:?} vs {want:?}");
        }
    };
    let x = t32(&[3], &[1.0, 0.0, -1.0]);
    near(v32(&x.exp().unwrap()), &[1f64.exp(), 1.0, (-1f64).exp()]);
    let x = t32(&[2], &[1.0, std::f32::consts::E]);
    near(
        v32(&x.log().unwrap()),
        &[0.0, (std::f32::consts::E as f64).ln()],
    );
    let x = t32(&[2], &[0.0, std::f32::consts::FRAC_PI_2]);
    assert_eq!(v32(&x.sin().unwrap()), vec![0.0, 1.0]);
}

#[test]
fn every_function_matches_f64_reference() {
    let xs: Vec<f32> = (0..200)
        .map(|i| (i as f32 - 100.0) * 0.0371 + 0.003)
        .collect();
    let x = t32(&[200], &xs);
    type M = fn(&Tensor) -> rnx::Result<Tensor>;
    type Case = (&'static str, M, fn(f64) -> f64);
    let cases: Vec<Case> = vec![
        ("exp", Tensor::exp, f64::exp),
        ("exp2", Tensor::exp2, f64::exp2),
        ("expm1", Tensor::expm1, f64::exp_m1),
        ("log", Tensor::log, f64::ln),
        ("log2", Tensor::log2, f64::log2),
        ("log1p", Tensor::log1p, f64::ln_1p),
        ("sqrt", Tensor::sqrt, f64::sqrt),
        ("rsqrt", Tensor::rsqrt, |v| 1.0 / v.sqrt()),
        ("sin", Tensor::sin, f64::sin),
        ("cos", Tensor::cos, f64::cos),
        ("tan", Tensor::tan, f64::tan),
        ("asin", Tensor::asin, f64::asin),
        ("acos", Tensor::acos, f64::acos),
        ("atan", Tensor::atan, f64::atan),
        ("sinh", Tensor::sinh, f64::sinh),
        ("cosh", Tensor::cosh, f64::cosh),
        ("tanh", Tensor::tanh, f64::tanh),
        ("asinh", Tensor::asinh, f64::asinh),
        ("acosh", Tensor::acosh, f64::acosh),
        ("atanh", Tensor::atanh, f64::atanh),
    ];
    for (name, f, r) in cases {
        let y = v32(&f(&x).unwrap());
        for (i, &v) in xs.iter().enumerate() {
            let want = r(v as f64);
            let got = y[i] as f64;
            let ok = (want.is_nan() && got.is_nan())
                || (got - want).abs() <= 4.0 * f32::EPSILON as f64 * want.abs().max(1e-30)
                || got == want;
            assert!(ok, "{name}({v}) = {got}, want {want}");
        }
    }
}

#[test]
fn three_forms_and_strided_output() {
    let x = t32(&[2, 3], &[0.1, 0.2, 0.3, 0.4, 0.5, 0.6]);
    let want = v32(&x.exp().unwrap());
    // In place.
    let y = t32(&[2, 3], &v32(&x)); // a fresh buffer (contiguous() of a contiguous tensor shares it)
    let r = y.exp_().unwrap();
    assert_eq!(v32(&y), want);
    assert_eq!(v32(&r), want);
    // Into a transposed output.
    let out = tr(&Tensor::zeros(DType::F32, &[3, 2]).unwrap());
    x.exp_out(&out).unwrap();
    assert_eq!(v32(&out), want);
    // Strided input (a transposed view) into a contiguous output.
    let xt = tr(&x);
    let e = xt.exp().unwrap();
    // The same kernel on a contiguous copy gives the same bits.
    let xc = t32(&[3, 2], &v32(&xt));
    assert_eq!(v32(&e), v32(&xc.exp().unwrap()));
    // Within the stated bound (1.1 ULP) of exp evaluated in f64.
    for (got, x) in v32(&e).into_iter().zip(v32(&xt)) {
        let want = (x as f64).exp();
        let ulp = (want as f32).next_up() as f64 - want as f32 as f64;
        assert!(
            ((got as f64 - want) / ulp).abs() <= 1.1,
            "exp({x}) = {got}, want {want}"
        );
    }
    // Wrong output shape or dtype: errors before writing.
    assert!(x
        .exp_out(&Tensor::zeros(DType::F32, &[3]).unwrap())
        .is_err());
    assert!(x
        .exp_out(&Tensor::zeros(DType::F64, &[2, 3]).unwrap())
        .is_err());
}

#[test]
fn dtypes() {
    // Halves compute in f32 and round once.
    for dt in [DType::F16, DType::BF16] {
        let x = Tensor::create(DType::F32, &[3], &[0.5f32, 1.0, 2.0])
            .unwrap()
            .cast(dt)
            .unwrap();
        let y = x.exp().unwrap();
        assert_eq!(y.dtype(), dt);
        let got = y.cast(DType::F32).unwrap().to_vec::<f32>().unwrap();
        let want = Tensor::create(
            DType::F32,
            &[3],
            &[0.5f32.exp(), 1.0f32.exp(), 2.0f32.exp()],
        )
        .unwrap()
        .cast(dt)
        .unwrap()
        .cast(DType::F32)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
        assert_eq!(got, want);
    }
    // Complex sqrt (principal branch).
    let z = Tensor::create(DType::C64, &[2], &[C64::new(-4.0, 0.0), C64::new(0.0, 2.0)]).unwrap();
    let s = z.sqrt().unwrap().to_vec::<C64>().unwrap();
    assert_eq!(s[0], C64::new(0.0, 2.0));
    assert!((s[1] - C64::new(1.0, 1.0)).norm() < 1e-15);
    // Integers are not accepted; complex expm1 neither (complex exp is:
    // tests/suite/complex_api.rs).
    let i = Tensor::create(DType::I32, &[2], &[1i32, 2]).unwrap();
    assert!(i.exp().is_err());
    assert!(i.sqrt().is_err());
    assert!(z.expm1().is_err());
}

#[test]
fn binary_broadcast_and_scalars() {
    let y = t32(&[2, 1], &[1.0, -1.0]);
    let x = t32(&[3], &[1.0, 0.0, -1.0]);
    let a = y.atan2(&x).unwrap();
    assert_eq!(a.shape(), &[2, 3]);
    let want: Vec<f32> = [1.0f32, -1.0]
        .iter()
        .flat_map(|&yy| [1.0f32, 0.0, -1.0].map(move |xx| yy.atan2(xx)))
        .collect();
    assert_eq!(v32(&a), want);
    let h = x.hypot(4.0).unwrap();
    assert_eq!(v32(&h), vec![17f32.sqrt(), 4.0, 17f32.sqrt()]);
}
