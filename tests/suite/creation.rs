//! The seed's creation examples (exact values and printed text), creation errors,
//! and property tests of creation identities.
#![allow(clippy::approx_constant)] // the seed writes 3.14

use proptest::prelude::*;
use rnx::ops::creation::Indexing;
use rnx::{DType, Tensor};

fn s(t: &Tensor) -> String {
    t.to_string()
}

#[test]
fn create_seed_example() {
    let t = Tensor::create(DType::F32, &[2, 3], &[1., 2., 3., 4., 5., 6.]).unwrap();
    assert_eq!(s(&t), "[[1, 2, 3],\n [4, 5, 6]]");
    assert_eq!(t.shape(), &[2, 3]);
    assert_eq!(t.dtype(), DType::F32);
    let i = Tensor::create(DType::I32, &[2, 2], &[1, 2, 3, 4]).unwrap();
    assert_eq!(i.to_vec::<i32>().unwrap(), vec![1, 2, 3, 4]);
}

#[test]
fn create_length_mismatch_is_an_error() {
    let e = Tensor::create(DType::F32, &[2, 3], &[1., 2.]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "create: data has 2 elements but shape [2, 3] needs 6"
    );
    // Unrepresentable values are refused.
    let e = Tensor::create(DType::U8, &[2], &[1, 300]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "create: value 300 cannot be represented in dtype u8"
    );
    assert!(Tensor::create(DType::I32, &[1], &[2.5]).is_err());
}

#[test]
fn init_seed_examples() {
    let t = Tensor::init(DType::I32, &[2, 3], |i| (i[0] + i[1]) as i32).unwrap();
    assert_eq!(s(&t), "[[0, 1, 2],\n [1, 2, 3]]");
    let t = Tensor::init(
        DType::F32,
        &[3, 3],
        |i| if i[0] == i[1] { 1.0 } else { 0.0 },
    )
    .unwrap();
    assert_eq!(s(&t), "[[1, 0, 0],\n [0, 1, 0],\n [0, 0, 1]]");
}

#[test]
fn full_ones_zeros_scalar() {
    let t = Tensor::full(DType::F32, &[2, 3], 3.14).unwrap();
    assert_eq!(s(&t), "[[3.14, 3.14, 3.14],\n [3.14, 3.14, 3.14]]");
    for &d in &DType::ALL {
        let o = Tensor::ones(d, &[2, 2]).unwrap();
        let z = Tensor::zeros(d, &[3]).unwrap();
        assert_eq!(o.dtype(), d);
        assert_eq!(o.shape(), &[2, 2]);
        rnx::dispatch!(d, T => {
            assert!(o.to_vec::<T>().unwrap().iter().all(|&x| x == <T as rnx::Element>::one()));
            assert!(z.to_vec::<T>().unwrap().iter().all(|&x| x == <T as rnx::Element>::zero()));
        });
    }
    let sc = Tensor::scalar(DType::F64, 2.5).unwrap();
    assert_eq!(sc.shape(), &[] as &[usize]);
    assert_eq!(s(&sc), "2.5");
    assert_eq!(sc.item::<f64>().unwrap(), 2.5);
    let neg0 = Tensor::full(DType::F32, &[2], -0.0).unwrap();
    assert_eq!(s(&neg0), "[-0, -0]");
}

#[test]
fn like_forms() {
    let t = Tensor::create(DType::I16, &[2, 2], &[1, 2, 3, 4]).unwrap();
    assert_eq!(s(&t.zeros_like().unwrap()), "[[0, 0],\n [0, 0]]");
    assert_eq!(s(&t.ones_like().unwrap()), "[[1, 1],\n [1, 1]]");
    assert_eq!(s(&t.full_like(7).unwrap()), "[[7, 7],\n [7, 7]]");
    assert_eq!(t.empty_like().unwrap().shape(), &[2, 2]);
    assert_eq!(t.empty_like().unwrap().dtype(), DType::I16);
    let sl = t.scalar_like(5).unwrap();
    assert_eq!(
        (sl.ndim(), sl.dtype(), s(&sl)),
        (0, DType::I16, "5".to_string())
    );
    assert!(t.full_like(70000).is_err());
    let e = Tensor::empty(DType::F64, &[0, 3]).unwrap();
    assert_eq!((e.size(), e.shape()), (0, &[0usize, 3][..]));
}

#[test]
fn eye_and_identity_seed_examples() {
    assert_eq!(
        s(&Tensor::eye(DType::I32, 3, None, 0).unwrap()),
        "[[1, 0, 0],\n [0, 1, 0],\n [0, 0, 1]]"
    );
    assert_eq!(
        s(&Tensor::eye(DType::I32, 3, None, 1).unwrap()),
        "[[0, 1, 0],\n [0, 0, 1],\n [0, 0, 0]]"
    );
    assert_eq!(
        s(&Tensor::eye(DType::I32, 3, Some(2), -1).unwrap()),
        "[[0, 0, 0],\n [1, 0, 0]]"
    );
    assert_eq!(
        s(&Tensor::identity(DType::I32, 3).unwrap()),
        "[[1, 0, 0],\n [0, 1, 0],\n [0, 0, 1]]"
    );
}

#[test]
fn arange_seed_examples_and_errors() {
    assert_eq!(
        s(&Tensor::arange(DType::I32, 0, 10, 2).unwrap()),
        "[0, 2, 4, 6, 8]"
    );
    assert_eq!(
        s(&Tensor::arange(DType::I32, 5, 0, -1).unwrap()),
        "[5, 4, 3, 2, 1]"
    );
    // NumPy's length rule: ceil.
    assert_eq!(
        Tensor::arange(DType::I64, 0, 10, 3)
            .unwrap()
            .to_vec::<i64>()
            .unwrap(),
        vec![0, 3, 6, 9]
    );
    // Empty ranges.
    assert_eq!(Tensor::arange(DType::I32, 5, 5, 1).unwrap().shape(), &[0]);
    assert_eq!(Tensor::arange(DType::I32, 5, 0, 1).unwrap().shape(), &[0]);
    let e = Tensor::arange(DType::I32, 0, 10, 0).unwrap_err();
    assert_eq!(e.to_string(), "arange: step must be non-zero");
    // Values that do not fit the dtype.
    assert!(Tensor::arange(DType::U8, 250, 260, 1).is_err());
    assert!(Tensor::arange(DType::U8, -1, 3, 1).is_err());
    // Float dtypes work too.
    assert_eq!(
        s(&Tensor::arange(DType::F32, 0, 3, 1).unwrap()),
        "[0, 1, 2]"
    );
}

#[test]
fn arange_f_seed_examples() {
    assert_eq!(
        s(&Tensor::arange_f(DType::F32, 0., 1., 0.2).unwrap()),
        "[0, 0.2, 0.4, 0.6, 0.8]"
    );
    assert_eq!(
        s(&Tensor::arange_f(DType::F32, 1., 0., -0.25).unwrap()),
        "[1, 0.75, 0.5, 0.25]"
    );
    assert!(Tensor::arange_f(DType::F32, 0., 1., 0.).is_err());
    assert!(Tensor::arange_f(DType::C32, 0., 1., 0.5).is_err());
    assert_eq!(
        Tensor::arange_f(DType::F64, 1., 0., 0.5).unwrap().shape(),
        &[0]
    );
}

#[test]
fn linspace_logspace_geomspace_seed_examples() {
    assert_eq!(
        s(&Tensor::linspace(DType::F32, 0., 10., 5, true).unwrap()),
        "[0, 2.5, 5, 7.5, 10]"
    );
    assert_eq!(
        s(&Tensor::linspace(DType::F32, 0., 10., 5, false).unwrap()),
        "[0, 2, 4, 6, 8]"
    );
    assert_eq!(
        s(&Tensor::logspace(DType::F32, 0., 2., 3, true, 10.).unwrap()),
        "[1, 10, 100]"
    );
    assert_eq!(
        s(&Tensor::logspace(DType::F32, 0., 3., 4, true, 2.).unwrap()),
        "[1, 2, 4, 8]"
    );
    assert_eq!(
        s(&Tensor::geomspace(DType::F32, 1., 1000., 4, true).unwrap()),
        "[1, 10, 100, 1000]"
    );
    let e = Tensor::geomspace(DType::F32, -1., 10., 3, true).unwrap_err();
    assert_eq!(
        e.to_string(),
        "geomspace: start -1 and stop 10 must both be > 0"
    );
    assert!(Tensor::geomspace(DType::F32, 1., 0., 3, true).is_err());
    assert_eq!(
        Tensor::linspace(DType::F64, 0., 1., 0, true)
            .unwrap()
            .shape(),
        &[0]
    );
    assert_eq!(
        Tensor::linspace(DType::F64, 3., 7., 1, true)
            .unwrap()
            .to_vec::<f64>()
            .unwrap(),
        vec![3.0]
    );
}

#[test]
fn meshgrid_seed_example_and_ij() {
    let x = Tensor::linspace(DType::F32, 0., 2., 3, true).unwrap();
    let y = Tensor::linspace(DType::F32, 0., 1., 2, true).unwrap();
    let (xx, yy) = Tensor::meshgrid(&x, &y, Indexing::Xy).unwrap();
    assert_eq!(s(&xx), "[[0, 1, 2],\n [0, 1, 2]]");
    assert_eq!(s(&yy), "[[0, 0, 0],\n [1, 1, 1]]");
    let (xi, yi) = Tensor::meshgrid(&x, &y, Indexing::Ij).unwrap();
    assert_eq!(s(&xi), "[[0, 0],\n [1, 1],\n [2, 2]]");
    assert_eq!(s(&yi), "[[0, 1],\n [0, 1],\n [0, 1]]");
    let m = Tensor::zeros(DType::F32, &[2, 2]).unwrap();
    assert!(Tensor::meshgrid(&m, &y, Indexing::Xy).is_err());
}

#[test]
fn random_is_reproducible_and_in_range() {
    for &d in &[DType::F16, DType::BF16, DType::F32, DType::F64] {
        let a = Tensor::rand(d, &[4096], 1)
            .unwrap()
            .cast(DType::F64)
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        let b = Tensor::rand(d, &[4096], 1)
            .unwrap()
            .cast(DType::F64)
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        let c = Tensor::rand(d, &[4096], 2)
            .unwrap()
            .cast(DType::F64)
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
        assert!(a.iter().all(|&x| (0.0..1.0).contains(&x)), "{d}");
        let mean = a.iter().sum::<f64>() / a.len() as f64;
        assert!((mean - 0.5).abs() < 0.03, "{d}: mean {mean}");
    }
    // Prefix property: element i depends only on (seed, i), not on the shape.
    let small = Tensor::rand(DType::F32, &[10], 9)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    let big = Tensor::rand(DType::F32, &[2, 50], 9)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(small[..], big[..10]);
    let n = Tensor::randn(DType::F64, &[100_000], 3)
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    let mean = n.iter().sum::<f64>() / n.len() as f64;
    let var = n.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / n.len() as f64;
    assert!(
        mean.abs() < 0.02 && (var - 1.0).abs() < 0.02,
        "mean {mean} var {var}"
    );
    assert!(Tensor::rand(DType::I32, &[2], 0).is_err());
    assert!(Tensor::randn(DType::U8, &[2], 0).is_err());
}

#[test]
fn randint_range_and_errors() {
    let v = Tensor::randint(DType::I64, &[10_000], -5, 5, 11)
        .unwrap()
        .to_vec::<i64>()
        .unwrap();
    assert!(v.iter().all(|&x| (-5..5).contains(&x)));
    for k in -5..5 {
        assert!(v.contains(&k), "value {k} never drawn");
    }
    let e = Tensor::randint(DType::F32, &[2], 0, 10, 0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "randint: dtype must be an integer type, got f32"
    );
    let e = Tensor::randint(DType::I32, &[2], 3, 3, 0).unwrap_err();
    assert_eq!(e.to_string(), "randint: low 3 must be less than high 3");
    assert!(Tensor::randint(DType::U8, &[2], 0, 1000, 0).is_err());
    let u = Tensor::randint(DType::U8, &[1000], 0, 256, 4)
        .unwrap()
        .to_vec::<u8>()
        .unwrap();
    assert!(u.iter().any(|&x| x > 200));
}

#[test]
fn random_values_independent_of_thread_count() {
    // Generated in 64K-element chunks on the pool; compare with a single chunk
    // computed element by element from the generator's definition.
    let n = 200_000;
    let t = Tensor::rand(DType::F64, &[n], 77)
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    for &i in &[0usize, 1, 65_535, 65_536, 131_071, 199_999] {
        let [x0, x1] = rnx::random::threefry2x32([77, 0], [i as u32, 0]);
        let bits = ((x0 as u64) << 32 | x1 as u64) >> 11;
        assert_eq!(t[i], bits as f64 * 2f64.powi(-53), "element {i}");
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn linspace_endpoints_and_spacing(start in -1e3f64..1e3, stop in -1e3f64..1e3, n in 2usize..50) {
        let v = Tensor::linspace(DType::F64, start, stop, n, true).unwrap().to_vec::<f64>().unwrap();
        prop_assert_eq!(v[0], start);
        prop_assert_eq!(v[n - 1], stop);
        let step = (stop - start) / (n - 1) as f64;
        for i in 0..n - 1 {
            prop_assert!((v[i + 1] - v[i] - step).abs() <= 1e-9 * (1.0 + step.abs() + start.abs() + stop.abs()));
        }
        let w = Tensor::linspace(DType::F64, start, stop, n, false).unwrap().to_vec::<f64>().unwrap();
        prop_assert_eq!(w[0], start);
        prop_assert!((w[n - 1] - (stop - (stop - start) / n as f64)).abs() < 1e-9 * (1.0 + stop.abs() + start.abs()));
    }

    #[test]
    fn eye_equals_init(n in 0usize..8, m in 0usize..8, k in -8isize..8) {
        let e = Tensor::eye(DType::I32, n, Some(m), k).unwrap();
        let i = Tensor::init(DType::I32, &[m, n], |ix| i32::from(ix[1] as isize - ix[0] as isize == k)).unwrap();
        prop_assert_eq!(e.shape(), i.shape());
        prop_assert_eq!(e.to_vec::<i32>().unwrap(), i.to_vec::<i32>().unwrap());
    }

    #[test]
    fn arange_matches_numpy_rule(start in -50i64..50, stop in -50i64..50, step in prop_oneof![-7i64..-1, 1i64..7]) {
        let v = Tensor::arange(DType::I64, start, stop, step).unwrap().to_vec::<i64>().unwrap();
        let mut want = Vec::new();
        let mut x = start;
        while (step > 0 && x < stop) || (step < 0 && x > stop) {
            want.push(x);
            x += step;
        }
        prop_assert_eq!(v, want);
    }

    #[test]
    fn geomspace_is_geometric(start in 0.01f64..100., stop in 0.01f64..100., n in 2usize..20) {
        let v = Tensor::geomspace(DType::F64, start, stop, n, true).unwrap().to_vec::<f64>().unwrap();
        prop_assert_eq!(v[0], start);
        prop_assert_eq!(v[n - 1], stop);
        let r = (stop / start).powf(1.0 / (n - 1) as f64);
        for i in 0..n - 1 {
            prop_assert!((v[i + 1] / v[i] - r).abs() < 1e-9);
        }
    }
}

/// `full`, `arange_f` and `linspace` round an f64 value to f16/bf16 once
/// (as `cast` does): `1 + 2^-8 + 2^-30` is just past bf16's midpoint
/// between 1 and 1 + 2^-7, `1 + 2^-11 + 2^-30` past f16's between 1 and
/// 1 + 2^-10. They called `half`'s inherent `from_f64`, which rounds
/// through f32, and gave 1 for all three.
#[test]
fn half_creation_rounds_once() {
    for (dt, x, up) in [
        (
            DType::BF16,
            1.0 + 2f64.powi(-8) + 2f64.powi(-30),
            1.0 + 2f64.powi(-7),
        ),
        (
            DType::F16,
            1.0 + 2f64.powi(-11) + 2f64.powi(-30),
            1.0 + 2f64.powi(-10),
        ),
    ] {
        let first = |t: Tensor| t.cast(DType::F64).unwrap().to_vec::<f64>().unwrap()[0];
        assert_eq!(first(Tensor::full(dt, &[2], x).unwrap()), up, "full {dt}");
        assert_eq!(
            first(Tensor::arange_f(dt, x, 3.0, 1.0).unwrap()),
            up,
            "arange_f {dt}"
        );
        assert_eq!(
            first(Tensor::linspace(dt, x, 3.0, 3, true).unwrap()),
            up,
            "linspace {dt}"
        );
        let cast = Tensor::from_slice(&[x], &[1]).unwrap().cast(dt).unwrap();
        assert_eq!(first(cast), up, "cast {dt}");
    }
}
