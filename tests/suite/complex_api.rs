//! Complex parts and construction (`real`, `imag`, `angle`, `complex`,
//! `polar`) and the math functions of complex tensors, against values from
//! NumPy's and C99's definitions and identities.

use rnx::{DType, Tensor, C32, C64};
use std::f64::consts::{FRAC_PI_2, FRAC_PI_4, PI};

fn c64s(t: &Tensor) -> Vec<C64> {
    t.cast(DType::C64).unwrap().to_vec::<C64>().unwrap()
}

#[test]
fn real_imag_angle() {
    let nan = f64::from_bits(0x7ff8_0000_0000_0077);
    let v = vec![
        C64::new(1.5, -2.0),
        C64::new(-1.0, 0.0),
        C64::new(-1.0, -0.0),
        C64::new(0.0, 0.0),
        C64::new(-0.0, 0.0),
        C64::new(0.0, 3.0),
        C64::new(1.0, 1.0),
        C64::new(nan, 2.0),
        C64::new(f64::INFINITY, f64::NEG_INFINITY),
    ];
    let z = Tensor::from_vec(v.clone(), &[3, 3]).unwrap();
    let re = z.real().unwrap();
    let im = z.imag().unwrap();
    assert_eq!((re.dtype(), re.shape()), (DType::F64, &[3usize, 3][..]));
    let bits = |t: &Tensor| -> Vec<u64> {
        t.to_vec::<f64>()
            .unwrap()
            .iter()
            .map(|x| x.to_bits())
            .collect()
    };
    assert_eq!(
        bits(&re),
        v.iter().map(|z| z.re.to_bits()).collect::<Vec<_>>()
    );
    assert_eq!(
        bits(&im),
        v.iter().map(|z| z.im.to_bits()).collect::<Vec<_>>()
    );
    // NumPy: np.angle of these (C99 carg: the signed zero picks the side).
    let a = z.angle().unwrap().to_vec::<f64>().unwrap();
    let want = [
        (-2.0f64).atan2(1.5),
        PI,
        -PI,
        0.0,
        PI,
        FRAC_PI_2,
        FRAC_PI_4,
        f64::NAN,
        -FRAC_PI_4,
    ];
    for (k, (g, w)) in a.iter().zip(want).enumerate() {
        assert!(
            g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
            "angle[{k}]: {g} vs {w}"
        );
    }
    // c32: the same in f32.
    let z32 = z.cast(DType::C32).unwrap();
    assert_eq!(z32.imag().unwrap().dtype(), DType::F32);
    assert_eq!(
        z32.angle().unwrap().to_vec::<f32>().unwrap()[1],
        std::f32::consts::PI
    );
    // Real tensors: real is the tensor itself, imag zeros, angle atan2(0, x).
    let x = Tensor::from_vec(vec![-2.0f32, -0.0, 0.0, 3.0, f32::NAN], &[5]).unwrap();
    assert!(x.real().unwrap().same_storage(&x));
    assert_eq!(x.imag().unwrap().to_vec::<f32>().unwrap(), vec![0.0; 5]);
    let a = x.angle().unwrap().to_vec::<f32>().unwrap();
    let p = std::f32::consts::PI;
    assert_eq!(&a[..4], &[p, p, 0.0, 0.0]);
    assert!(a[4].is_nan());
    let e = Tensor::from_vec(vec![1i32], &[1])
        .unwrap()
        .angle()
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("angle:") && e.contains("i32"), "{e}");
}

#[test]
fn complex_and_polar_build_exact_parts() {
    let nan = f32::from_bits(0x7fc0_0123);
    let re = Tensor::from_vec(vec![1.0f32, -0.0, 0.0, nan, f32::INFINITY, -3.5], &[2, 3]).unwrap();
    let im = Tensor::from_vec(vec![-0.0f32, 0.0, -0.0], &[3]).unwrap();
    let z = Tensor::complex(&re, &im).unwrap();
    assert_eq!((z.dtype(), z.shape()), (DType::C32, &[2usize, 3][..]));
    let got: Vec<(u32, u32)> = z
        .to_vec::<C32>()
        .unwrap()
        .iter()
        .map(|z| (z.re.to_bits(), z.im.to_bits()))
        .collect();
    let r = re.to_vec::<f32>().unwrap();
    let i = im.to_vec::<f32>().unwrap();
    let want: Vec<(u32, u32)> = (0..6)
        .map(|k| (r[k].to_bits(), i[k % 3].to_bits()))
        .collect();
    assert_eq!(
        got, want,
        "the parts' bits, signed zeros and the NaN payload kept"
    );
    // f64 parts give c64; halves give c32; mixed or integer parts are errors.
    let d = Tensor::complex(&re.cast(DType::F64).unwrap(), &im.cast(DType::F64).unwrap()).unwrap();
    assert_eq!(d.dtype(), DType::C64);
    let h = Tensor::complex(&re.cast(DType::F16).unwrap(), &im.cast(DType::F16).unwrap()).unwrap();
    assert_eq!(h.dtype(), DType::C32);
    assert_eq!(h.to_vec::<C32>().unwrap()[5], C32::new(-3.5, -0.0));
    let e = Tensor::complex(&re, &im.cast(DType::F64).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("complex:"), "{e}");
    let e = Tensor::complex(&re.cast(DType::I32).unwrap(), &re.cast(DType::I32).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("complex:") && e.contains("i32"), "{e}");
    let e = Tensor::complex(&re, &Tensor::zeros(DType::F32, &[4]).unwrap())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("complex:"), "{e}");
    // polar: abs (cos a + i sin a); back through abs and angle.
    let r = Tensor::from_vec(vec![2.0f64, 0.5, 3.0], &[3]).unwrap();
    let a = Tensor::from_vec(vec![0.0f64, FRAC_PI_2, -2.5], &[3]).unwrap();
    let z = Tensor::polar(&r, &a).unwrap();
    let v = c64s(&z);
    assert_eq!(v[0], C64::new(2.0, 0.0));
    assert!((v[1] - C64::new(0.0, 0.5)).norm() < 1e-16);
    assert!((v[2] - C64::from_polar(3.0, -2.5)).norm() < 1e-15);
    let back = z.abs().unwrap().to_vec::<f64>().unwrap();
    let ang = z.angle().unwrap().to_vec::<f64>().unwrap();
    for k in 0..3 {
        assert!((back[k] - [2.0, 0.5, 3.0][k]).abs() < 1e-15);
        assert!((ang[k] - [0.0, FRAC_PI_2, -2.5][k]).abs() < 1e-15);
    }
}

#[test]
fn complex_math_functions() {
    let i = C64::new(0.0, 1.0);
    let z = Tensor::from_vec(
        vec![
            C64::new(0.0, PI),
            C64::new(-1.0, 0.0),
            C64::new(0.0, 1.0),
            C64::new(-4.0, 0.0),
        ],
        &[4],
    )
    .unwrap();
    let close = |a: C64, b: C64, tol: f64| (a - b).norm() <= tol * b.norm().max(1.0);
    // exp(iπ) = -1; log(-1) = iπ; sin(i) = i sinh 1; sqrt(-4) = 2i.
    assert!(close(
        c64s(&z.exp().unwrap())[0],
        C64::new(-1.0, 0.0),
        1e-15
    ));
    assert_eq!(c64s(&z.log().unwrap())[1], C64::new(0.0, PI));
    assert!(close(c64s(&z.sin().unwrap())[2], i * 1f64.sinh(), 1e-15));
    assert!(close(
        c64s(&z.cos().unwrap())[2],
        C64::new(1f64.cosh(), 0.0),
        1e-15
    ));
    assert_eq!(c64s(&z.sqrt().unwrap())[3], C64::new(0.0, 2.0));
    // Identities on general values, c64 and c32: each function and its
    // inverse, exp(log z) = z, sin^2 + cos^2 = 1, tanh = sinh / cosh.
    let n = 64;
    let v: Vec<C64> = (0..n)
        .map(|k| {
            let t = k as f64 * 0.37 - 11.0;
            C64::new(t.sin() * 1.7, (t * 1.3).cos() * 1.2)
        })
        .collect();
    for (dt, tol) in [(DType::C64, 1e-13), (DType::C32, 2e-5)] {
        let x = Tensor::from_vec(v.clone(), &[n]).unwrap().cast(dt).unwrap();
        let xv = c64s(&x);
        let pairs: [(&str, Tensor); 6] = [
            ("exp(log)", x.log().unwrap().exp().unwrap()),
            ("sin(asin)", x.asin().unwrap().sin().unwrap()),
            ("cos(acos)", x.acos().unwrap().cos().unwrap()),
            ("tan(atan)", x.atan().unwrap().tan().unwrap()),
            ("sinh(asinh)", x.asinh().unwrap().sinh().unwrap()),
            ("cosh(acosh)", x.acosh().unwrap().cosh().unwrap()),
        ];
        for (what, t) in pairs {
            assert_eq!(t.dtype(), dt);
            for (k, (g, w)) in c64s(&t).iter().zip(&xv).enumerate() {
                assert!(close(*g, *w, tol), "{dt} {what}[{k}]: {g} vs {w}");
            }
        }
        let s = c64s(&x.sin().unwrap());
        let c = c64s(&x.cos().unwrap());
        let th = c64s(&x.tanh().unwrap());
        let sh = c64s(&x.sinh().unwrap());
        let ch = c64s(&x.cosh().unwrap());
        let at = c64s(&x.tanh().unwrap().atanh().unwrap());
        for k in 0..n {
            assert!(
                close(s[k] * s[k] + c[k] * c[k], C64::new(1.0, 0.0), 10.0 * tol),
                "{dt} sin2+cos2 [{k}]"
            );
            assert!(close(th[k], sh[k] / ch[k], tol), "{dt} tanh[{k}]");
            assert!(close(at[k], xv[k], 10.0 * tol), "{dt} atanh(tanh)[{k}]");
        }
    }
    // The functions without a complex form stay errors naming the dtype.
    let e = z.expm1().unwrap_err().to_string();
    assert!(e.starts_with("expm1:") && e.contains("c64"), "{e}");
}

#[test]
fn classify_pow_sign_var_isclose_as_numpy() {
    let (nan, inf) = (f64::NAN, f64::INFINITY);
    let z = Tensor::from_vec(
        vec![
            C64::new(1.0, 2.0),
            C64::new(nan, 0.0),
            C64::new(0.0, inf),
            C64::new(inf, nan),
            C64::new(-0.0, -0.0),
        ],
        &[5],
    )
    .unwrap();
    let u8s = |t: Tensor| t.to_vec::<u8>().unwrap();
    for dt in [DType::C64, DType::C32] {
        let z = z.cast(dt).unwrap();
        assert_eq!(u8s(z.isnan().unwrap()), vec![0, 1, 0, 1, 0], "{dt}");
        assert_eq!(u8s(z.isinf().unwrap()), vec![0, 0, 1, 1, 0], "{dt}");
        assert_eq!(u8s(z.isfinite().unwrap()), vec![1, 0, 0, 0, 1], "{dt}");
    }
    // Powers (NumPy's values).
    let c = |re, im| C64::new(re, im);
    let base = Tensor::from_vec(
        vec![
            c(1.0, 1.0),
            c(0.0, 1.0),
            c(2.0, 0.0),
            c(0.0, 0.0),
            c(0.0, 0.0),
            c(0.0, 0.0),
            c(1.0, 2.0),
        ],
        &[7],
    )
    .unwrap();
    let exp = Tensor::from_vec(
        vec![
            c(2.0, 0.0),
            c(0.0, 1.0),
            c(0.5, 0.0),
            c(2.0, 0.0),
            c(0.0, 0.0),
            c(-1.0, 0.0),
            c(-2.0, 0.0),
        ],
        &[7],
    )
    .unwrap();
    let p = c64s(&base.pow(&exp).unwrap());
    assert_eq!(p[0], c(0.0, 2.0), "(1+i)^2 by multiplication, exact");
    assert!(
        (p[1] - c((-FRAC_PI_2).exp(), 0.0)).norm() < 1e-16,
        "i^i: {}",
        p[1]
    );
    assert!((p[2] - c(2f64.sqrt(), 0.0)).norm() < 1e-15);
    assert_eq!((p[3], p[4]), (c(0.0, 0.0), c(1.0, 0.0)));
    assert!(p[5].re.is_nan() && p[5].im.is_nan(), "0^-1: {}", p[5]);
    assert!(
        (p[6] - c(-0.12, -0.16)).norm() < 1e-16,
        "(1+2i)^-2: {}",
        p[6]
    );
    // A scalar exponent broadcasts.
    assert_eq!(
        c64s(&base.pow(C64::new(3.0, 0.0)).unwrap())[0],
        c(-2.0, 2.0)
    );
    // sign: z / |z|, 0 at 0 (NumPy 2).
    let s = Tensor::from_vec(vec![c(3.0, 4.0), c(0.0, 0.0), c(-2.0, 0.0)], &[3]).unwrap();
    assert_eq!(
        c64s(&s.sign().unwrap()),
        vec![c(0.6, 0.8), c(0.0, 0.0), c(-1.0, 0.0)]
    );
    // var and std: mean |z - mean|^2, real.
    let v = Tensor::from_vec(vec![c(1.0, 1.0), c(2.0, -1.0), c(3.0, 0.0)], &[3]).unwrap();
    let var = v.var(None, false, 0).unwrap();
    assert_eq!(var.dtype(), DType::F64);
    assert!((var.item::<f64>().unwrap() - 4.0 / 3.0).abs() < 1e-15);
    assert!((v.var(None, false, 1).unwrap().item::<f64>().unwrap() - 2.0).abs() < 1e-15);
    assert!(
        (v.std(None, true, 0).unwrap().item::<f64>().unwrap() - (4.0f64 / 3.0).sqrt()).abs()
            < 1e-15
    );
    assert_eq!(
        v.cast(DType::C32)
            .unwrap()
            .var(None, false, 0)
            .unwrap()
            .dtype(),
        DType::F32
    );
    // isclose / allclose of complex tensors: |a - b| <= atol + rtol |b|.
    let a = Tensor::from_vec(vec![c(1.0, 1.0), c(1.0, 1.0), c(nan, 0.0)], &[3]).unwrap();
    let b = Tensor::from_vec(vec![c(1.0, 1.000001), c(2.0, 1.0), c(nan, 0.0)], &[3]).unwrap();
    assert_eq!(
        u8s(a.isclose(&b, Default::default()).unwrap()),
        vec![1, 0, 0]
    );
    let o = rnx::IsCloseOptions {
        equal_nan: true,
        ..Default::default()
    };
    assert_eq!(u8s(a.isclose(&b, o).unwrap()), vec![1, 0, 1]);
    assert!(!a.allclose(&b, o).unwrap());
    assert!(a
        .slice(rnx::s![..1])
        .unwrap()
        .allclose(&b.slice(rnx::s![..1]).unwrap(), o)
        .unwrap());
}

/// The real sorts' order of one key: NaN after every number, -0.0 == 0.0.
fn key_cmp(a: f64, b: f64) -> std::cmp::Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => std::cmp::Ordering::Equal,
        (true, false) => std::cmp::Ordering::Greater,
        (false, true) => std::cmp::Ordering::Less,
        _ => a.partial_cmp(&b).unwrap(),
    }
}

/// Complex values with many ties in each part, NaNs and signed zeros.
fn tied(n: usize, seed: u64) -> Vec<C64> {
    let mut s = seed | 1;
    let mut next = || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s % 7
    };
    let part = |k: u64| match k {
        0 => f64::NAN,
        1 => -0.0,
        2 => 0.0,
        k => k as f64 - 4.0,
    };
    (0..n)
        .map(|_| C64::new(part(next()), part(next())))
        .collect()
}

/// Stable lexicographic sort of each row of `v` (`rows x n`): the indices.
fn reference(v: &[C64], n: usize, descending: bool) -> Vec<i32> {
    v.chunks(n)
        .flat_map(|row| {
            let mut idx: Vec<usize> = (0..n).collect();
            idx.sort_by(|&i, &j| {
                let (a, b) = if descending {
                    (row[j], row[i])
                } else {
                    (row[i], row[j])
                };
                key_cmp(a.re, b.re).then(key_cmp(a.im, b.im))
            });
            idx.into_iter().map(|i| i as i32)
        })
        .collect()
}

pub(crate) fn check_complex_sort(device: rnx::Device) {
    for dt in [DType::C64, DType::C32] {
        if Tensor::zeros_on(dt, &[1], device).is_err() {
            continue;
        }
        let v = tied(6 * 40, 5);
        let t = Tensor::from_vec(v.clone(), &[6, 40])
            .unwrap()
            .cast(dt)
            .unwrap()
            .to_device(device)
            .unwrap();
        for descending in [false, true] {
            let want = reference(&v, 40, descending);
            let (vals, idx) = t.sort(1, descending).unwrap();
            assert_eq!(
                idx.to_vec::<i32>().unwrap(),
                want,
                "{dt} desc {descending} on {device}"
            );
            let got: Vec<(u64, u64)> = vals
                .cast(DType::C64)
                .unwrap()
                .to_vec::<C64>()
                .unwrap()
                .iter()
                .map(|z| (z.re.to_bits(), z.im.to_bits()))
                .collect();
            let vr = &v;
            let exp: Vec<(u64, u64)> = want
                .chunks(40)
                .enumerate()
                .flat_map(|(r, row)| row.iter().map(move |&i| vr[r * 40 + i as usize]))
                .map(|z| (z.re.to_bits(), z.im.to_bits()))
                .collect();
            assert_eq!(
                got, exp,
                "{dt} values desc {descending}: the elements bit for bit"
            );
            // Along axis 0 of the transposed view, and argsort alone.
            let a0 = t.transpose(None).unwrap().argsort(0, descending).unwrap();
            assert_eq!(
                a0.transpose(None)
                    .unwrap()
                    .contiguous()
                    .unwrap()
                    .to_vec::<i32>()
                    .unwrap(),
                want
            );
        }
    }
}

#[test]
fn complex_sort_is_lexicographic() {
    check_complex_sort(rnx::Device::Cpu);
    // NumPy's example: np.sort([1+2j, 2-1j, 3-3j, 3-2j, 3+5j]).
    let z = Tensor::from_vec(
        vec![
            C64::new(1.0, 2.0),
            C64::new(2.0, -1.0),
            C64::new(3.0, -3.0),
            C64::new(3.0, -2.0),
            C64::new(3.0, 5.0),
        ],
        &[5],
    )
    .unwrap();
    let s = z.sort_values(0, false).unwrap().to_vec::<C64>().unwrap();
    assert_eq!(
        s,
        vec![
            C64::new(1.0, 2.0),
            C64::new(2.0, -1.0),
            C64::new(3.0, -3.0),
            C64::new(3.0, -2.0),
            C64::new(3.0, 5.0)
        ]
    );
}

#[test]
fn unique_of_complex_values() {
    let nan = f64::NAN;
    let c = |re, im| C64::new(re, im);
    let v = vec![
        c(2.0, 1.0),
        c(1.0, 5.0),
        c(2.0, 1.0),
        c(1.0, -0.0),
        c(1.0, 0.0),
        c(nan, 1.0),
        c(1.0, nan),
        c(nan, 1.0),
        c(1.0, nan),
    ];
    let t = Tensor::from_vec(v, &[3, 3]).unwrap();
    let all = rnx::ops::search::UniqueOptions {
        return_index: true,
        return_inverse: true,
        return_counts: true,
    };
    for dt in [DType::C64, DType::C32] {
        let u = t.cast(dt).unwrap().unique_with(all).unwrap();
        let vals = c64s(&u.values);
        // Lexicographic, -0 == 0 (the first occurrence's bits), NaN parts
        // last in their key and equal to each other.
        assert_eq!(vals.len(), 5, "{dt}: {vals:?}");
        assert_eq!(vals[0].re, 1.0);
        assert_eq!(vals[0].im.to_bits(), (-0.0f64).to_bits());
        assert_eq!(vals[1], c(1.0, 5.0));
        assert!(vals[2].re == 1.0 && vals[2].im.is_nan());
        assert_eq!(vals[3], c(2.0, 1.0));
        assert!(vals[4].re.is_nan() && vals[4].im == 1.0);
        assert_eq!(
            u.indices.unwrap().to_vec::<i64>().unwrap(),
            vec![3, 1, 6, 0, 5]
        );
        assert_eq!(
            u.counts.unwrap().to_vec::<i64>().unwrap(),
            vec![2, 1, 2, 2, 2]
        );
        assert_eq!(
            u.inverse.unwrap().to_vec::<i64>().unwrap(),
            vec![3, 1, 3, 0, 0, 4, 2, 4, 2]
        );
    }
}
