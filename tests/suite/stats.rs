//! Statistics, scans, NaN-reductions, the extra activations, the norm layers
//! and iteration: NumPy/Nx documented values (quantile tables produced with
//! NumPy 2.4 for all thirteen methods), brute-force loops on random shapes and
//! axes (proptest), NaN cases, strided views, error cases, and one GPU test
//! against the CPU.

use proptest::prelude::*;
use rnx::{
    DType, Device, IsCloseOptions, LayerNormOptions, QuantileMethod, QuantileOptions, ScanOptions,
    Tensor,
};
use std::f64::consts::{FRAC_1_SQRT_2, SQRT_2};

fn t64(shape: &[usize], v: &[f64]) -> Tensor {
    Tensor::create(DType::F64, shape, v).unwrap()
}

fn v64(t: &Tensor) -> Vec<f64> {
    t.to_device(Device::Cpu).unwrap().to_vec_f64().unwrap()
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= tol * b.abs().max(1.0)
}

fn assert_close(got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        assert!(close(g, w, tol), "element {i}: got {g}, want {w} ({got:?})");
    }
}

const METHODS: [QuantileMethod; 13] = [
    QuantileMethod::Linear,
    QuantileMethod::Lower,
    QuantileMethod::Higher,
    QuantileMethod::Midpoint,
    QuantileMethod::Nearest,
    QuantileMethod::InvertedCdf,
    QuantileMethod::AveragedInvertedCdf,
    QuantileMethod::ClosestObservation,
    QuantileMethod::InterpolatedInvertedCdf,
    QuantileMethod::Hazen,
    QuantileMethod::Weibull,
    QuantileMethod::MedianUnbiased,
    QuantileMethod::NormalUnbiased,
];

const QS: [f64; 8] = [0.0, 0.1, 0.25, 0.4, 0.5, 0.75, 0.9, 1.0];
const DATA: [f64; 7] = [3.0, -1.5, 7.25, 0.0, 2.0, 11.0, 5.5];

/// `np.quantile(DATA[:n], QS, method=m)` for each method, in `METHODS` order.
#[rustfmt::skip]
const NUMPY: [(usize, [[f64; 8]; 13]); 3] = [
(2, [
  [-1.5, -1.05, -0.375, 0.30000000000000004, 0.75, 1.875, 2.5500000000000003, 3.0],
  [-1.5, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, 3.0],
  [-1.5, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0, 3.0],
  [-1.5, 0.75, 0.75, 0.75, 0.75, 0.75, 0.75, 3.0],
  [-1.5, -1.5, -1.5, -1.5, -1.5, 3.0, 3.0, 3.0],
  [-1.5, -1.5, -1.5, -1.5, -1.5, 3.0, 3.0, 3.0],
  [-1.5, -1.5, -1.5, -1.5, 0.75, 3.0, 3.0, 3.0],
  [-1.5, -1.5, -1.5, -1.5, -1.5, 3.0, 3.0, 3.0],
  [-1.5, -1.5, -1.5, -1.5, -1.5, 0.75, 2.1, 3.0],
  [-1.5, -1.5, -1.5, -0.1499999999999999, 0.75, 3.0, 3.0, 3.0],
  [-1.5, -1.5, -1.5, -0.5999999999999992, 0.75, 3.0, 3.0, 3.0],
  [-1.5, -1.5, -1.5, -0.30000000000000027, 0.75, 3.0, 3.0, 3.0],
  [-1.5, -1.5, -1.5, -0.2625000000000004, 0.75, 3.0, 3.0, 3.0],
]),
(4, [
  [-1.5, -1.0499999999999998, -0.375, 0.6000000000000005, 1.5, 4.0625, 5.9750000000000005, 7.25],
  [-1.5, -1.5, -1.5, 0.0, 0.0, 3.0, 3.0, 7.25],
  [-1.5, 0.0, 0.0, 3.0, 3.0, 7.25, 7.25, 7.25],
  [-1.5, -0.75, -0.75, 1.5, 1.5, 5.125, 5.125, 7.25],
  [-1.5, -1.5, 0.0, 0.0, 3.0, 3.0, 7.25, 7.25],
  [-1.5, -1.5, -1.5, 0.0, 0.0, 3.0, 7.25, 7.25],
  [-1.5, -1.5, -0.75, 0.0, 1.5, 5.125, 7.25, 7.25],
  [-1.5, -1.5, -1.5, 0.0, 0.0, 3.0, 7.25, 7.25],
  [-1.5, -1.5, -1.5, -0.5999999999999999, 0.0, 3.0, 5.550000000000001, 7.25],
  [-1.5, -1.5, -0.75, 0.30000000000000027, 1.5, 5.125, 7.25, 7.25],
  [-1.5, -1.5, -1.125, 0.0, 1.5, 6.1875, 7.25, 7.25],
  [-1.5, -1.5, -0.8749999999999999, 0.20000000000000062, 1.5, 5.479166666666668, 7.25, 7.25],
  [-1.5, -1.5, -0.84375, 0.22500000000000053, 1.5, 5.390625, 7.25, 7.25],
]),
(7, [
  [-1.5, -0.5999999999999999, 1.0, 2.4000000000000004, 3.0, 6.375, 8.750000000000002, 11.0],
  [-1.5, -1.5, 0.0, 2.0, 3.0, 5.5, 7.25, 11.0],
  [-1.5, 0.0, 2.0, 3.0, 3.0, 7.25, 11.0, 11.0],
  [-1.5, -0.75, 1.0, 2.5, 3.0, 6.375, 9.125, 11.0],
  [-1.5, 0.0, 2.0, 2.0, 3.0, 5.5, 7.25, 11.0],
  [-1.5, -1.5, 0.0, 2.0, 3.0, 7.25, 11.0, 11.0],
  [-1.5, -1.5, 0.0, 2.0, 3.0, 7.25, 11.0, 11.0],
  [-1.5, -1.5, 0.0, 2.0, 3.0, 5.5, 7.25, 11.0],
  [-1.5, -1.5, -0.375, 1.6000000000000005, 2.5, 5.9375, 8.375, 11.0],
  [-1.5, -1.1999999999999997, 0.5, 2.3000000000000003, 3.0, 6.8125, 10.25, 11.0],
  [-1.5, -1.5, 0.0, 2.2, 3.0, 7.25, 11.0, 11.0],
  [-1.5, -1.4, 0.33333333333333304, 2.266666666666667, 3.0, 6.958333333333333, 10.75, 11.0],
  [-1.5, -1.3499999999999999, 0.375, 2.2750000000000004, 3.0, 6.921875, 10.624999999999998, 11.0],
]),
];

#[test]
fn quantile_matches_numpy_for_every_method() {
    for (n, table) in NUMPY {
        let x = t64(&[n], &DATA[..n]);
        for (m, want) in METHODS.iter().zip(table) {
            let opts = QuantileOptions { method: *m };
            let got = x.quantiles(&QS, None, false, opts).unwrap();
            assert_eq!(got.shape(), &[QS.len()]);
            let got = v64(&got);
            for (k, (&g, &w)) in got.iter().zip(&want).enumerate() {
                assert!(close(g, w, 1e-14), "n {n} {m:?} q {}: {g} vs {w}", QS[k]);
            }
            // One quantile at a time agrees with the batch.
            let one = x.quantile_with(QS[3], None, false, opts).unwrap();
            assert_eq!(one.item::<f64>().unwrap(), got[3]);
        }
    }
    // A single element: every method gives it.
    let one = t64(&[1], &[3.0]);
    for m in METHODS {
        let q = one.quantiles(&QS, None, false, QuantileOptions { method: m });
        assert_eq!(v64(&q.unwrap()), vec![3.0; QS.len()]);
    }
}

#[test]
fn median_and_percentile_numpy_examples() {
    // numpy.median docs.
    let a = t64(&[2, 3], &[10., 7., 4., 3., 2., 1.]);
    assert_eq!(a.median(None, false).unwrap().item::<f64>().unwrap(), 3.5);
    assert_eq!(v64(&a.median(0, false).unwrap()), vec![6.5, 4.5, 2.5]);
    assert_eq!(v64(&a.median(1, false).unwrap()), vec![7.0, 2.0]);
    assert_eq!(a.median([0, 1], true).unwrap().shape(), &[1, 1]);
    // numpy.percentile docs.
    assert_eq!(
        a.percentile(50.0, None, false)
            .unwrap()
            .item::<f64>()
            .unwrap(),
        3.5
    );
    assert_eq!(
        v64(&a.percentile(50.0, 0, false).unwrap()),
        vec![6.5, 4.5, 2.5]
    );
    let k = a.percentile(50.0, 1, true).unwrap();
    assert_eq!((k.shape(), v64(&k)), (&[2usize, 1][..], vec![7.0, 2.0]));
    // Rank 0 and f32/f16.
    assert_eq!(
        t64(&[], &[4.0])
            .median(None, false)
            .unwrap()
            .item::<f64>()
            .unwrap(),
        4.0
    );
    let h = a.cast(DType::F16).unwrap().median(1, false).unwrap();
    assert_eq!((h.dtype(), v64(&h)), (DType::F16, vec![7.0, 2.0]));
    // NaN in a group gives NaN; other groups are unaffected.
    let n = t64(&[2, 3], &[1., f64::NAN, 3., 4., 5., 6.]);
    let m = v64(&n.median(1, false).unwrap());
    assert!(m[0].is_nan() && m[1] == 5.0);
    let q = v64(&n.quantile(0.0, 1, false).unwrap());
    assert!(q[0].is_nan() && q[1] == 4.0);
}

/// Sorted copies of each group of `x` (shape `s`) reduced over `axis`.
fn groups(x: &[f64], s: &[usize], axis: usize) -> Vec<Vec<f64>> {
    let outer: usize = s[..axis].iter().product();
    let inner: usize = s[axis + 1..].iter().product();
    let n = s[axis];
    let mut g = Vec::new();
    for o in 0..outer {
        for i in 0..inner {
            let mut v: Vec<f64> = (0..n).map(|k| x[(o * n + k) * inner + i]).collect();
            v.sort_by(|a, b| a.partial_cmp(b).unwrap());
            g.push(v);
        }
    }
    g
}

fn shape_and_data() -> impl Strategy<Value = (Vec<usize>, Vec<f64>, usize)> {
    prop::collection::vec(1usize..5, 1..4).prop_flat_map(|s| {
        let n: usize = s.iter().product();
        let r = s.len();
        (
            Just(s),
            prop::collection::vec((-20i32..20).prop_map(|v| v as f64 * 0.5), n),
            0..r,
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn median_and_lower_match_brute_force((s, x, axis) in shape_and_data()) {
        let t = t64(&s, &x);
        let g = groups(&x, &s, axis);
        let med: Vec<f64> = g.iter().map(|v| {
            let n = v.len();
            if n % 2 == 1 { v[n / 2] } else { (v[n / 2 - 1] + v[n / 2]) * 0.5 }
        }).collect();
        prop_assert_eq!(v64(&t.median(axis as isize, false).unwrap()), med);
        let lower: Vec<f64> = g.iter().map(|v| v[((v.len() - 1) as f64 * 0.3).floor() as usize]).collect();
        let o = QuantileOptions { method: QuantileMethod::Lower };
        let i = t.cast(DType::I32).unwrap();
        // Ints only where exact: the data are halves, so double them.
        let i2 = t.mul(2.0).unwrap().cast(DType::I32).unwrap();
        let got = i2.quantile_with(0.3, axis as isize, false, o).unwrap();
        prop_assert_eq!(got.dtype(), DType::I32);
        let got: Vec<f64> = v64(&got).iter().map(|v| v / 2.0).collect();
        prop_assert_eq!(got, lower);
        prop_assert!(i.median(None, false).is_err());
    }

    #[test]
    fn cummax_cummin_match_brute_force((s, x, axis) in shape_and_data(), rev in any::<bool>()) {
        let t = t64(&s, &x);
        let outer: usize = s[..axis].iter().product();
        let inner: usize = s[axis + 1..].iter().product();
        let n = s[axis];
        for high in [true, false] {
            let opts = ScanOptions { reverse: rev };
            let (v, i) = if high { t.cummax_with(axis as isize, opts) } else { t.cummin_with(axis as isize, opts) }.unwrap();
            let (v, i) = (v64(&v), i.to_vec::<i32>().unwrap());
            for o in 0..outer {
                for j in 0..inner {
                    let at = |k: usize| (o * n + k) * inner + j;
                    let order: Vec<usize> = if rev { (0..n).rev().collect() } else { (0..n).collect() };
                    let mut best: Option<usize> = None;
                    for &k in &order {
                        let better = match best {
                            None => true,
                            Some(b) => if high { x[at(k)] >= x[at(b)] } else { x[at(k)] <= x[at(b)] },
                        };
                        if better { best = Some(k); }
                        let b = best.unwrap();
                        prop_assert_eq!(v[at(k)], x[at(b)]);
                        prop_assert_eq!(i[at(k)] as usize, b);
                    }
                }
            }
        }
    }

    #[test]
    fn nan_reductions_match_brute_force((s, x, axis) in shape_and_data(), nanmask in any::<u64>()) {
        let x: Vec<f64> = x.iter().enumerate().map(|(k, &v)| if (nanmask >> (k % 64)) & 1 == 1 { f64::NAN } else { v }).collect();
        let t = t64(&s, &x);
        let outer: usize = s[..axis].iter().product();
        let inner: usize = s[axis + 1..].iter().product();
        let n = s[axis];
        let (mut sum, mut mean, mut mx, mut mn) = (vec![], vec![], vec![], vec![]);
        for o in 0..outer {
            for j in 0..inner {
                let vals: Vec<f64> = (0..n).map(|k| x[(o * n + k) * inner + j]).filter(|v| !v.is_nan()).collect();
                let s: f64 = vals.iter().sum();
                sum.push(s);
                mean.push(if vals.is_empty() { f64::NAN } else { s / vals.len() as f64 });
                mx.push(vals.iter().copied().fold(f64::NAN, f64::max));
                mn.push(vals.iter().copied().fold(f64::NAN, f64::min));
            }
        }
        let a = axis as isize;
        assert_close(&v64(&t.nansum(a, false).unwrap()), &sum, 1e-12);
        assert_close(&v64(&t.nanmean(a, false).unwrap()), &mean, 1e-12);
        assert_close(&v64(&t.nanmax(a, false).unwrap()), &mx, 0.0);
        assert_close(&v64(&t.nanmin(a, false).unwrap()), &mn, 0.0);
    }

    #[test]
    fn logcumsumexp_matches_the_naive_formula((s, x, axis) in shape_and_data(), rev in any::<bool>()) {
        let t = t64(&s, &x);
        let outer: usize = s[..axis].iter().product();
        let inner: usize = s[axis + 1..].iter().product();
        let n = s[axis];
        let got = v64(&t.logcumsumexp_with(axis as isize, ScanOptions { reverse: rev }).unwrap());
        for o in 0..outer {
            for j in 0..inner {
                let at = |k: usize| (o * n + k) * inner + j;
                let mut acc = 0.0;
                let order: Vec<usize> = if rev { (0..n).rev().collect() } else { (0..n).collect() };
                for &k in &order {
                    acc += x[at(k)].exp();
                    prop_assert!(close(got[at(k)], acc.ln(), 1e-13), "{} vs {}", got[at(k)], acc.ln());
                }
            }
        }
    }
}

#[test]
fn scans_on_views_nan_and_errors() {
    let x = t64(&[2, 3], &[1., 5., 2., 4., 0., 6.]);
    // A transposed view scans like its copy.
    let tv = x.transpose(None).unwrap();
    let (v, i) = tv.cummax(1).unwrap();
    let (vc, ic) = tv.contiguous().unwrap().cummax(1).unwrap();
    assert_eq!(
        (v64(&v), i.to_vec::<i32>().unwrap()),
        (v64(&vc), ic.to_vec::<i32>().unwrap())
    );
    assert_eq!(v64(&v), vec![1., 4., 5., 5., 2., 6.]);
    // None flattens (a 1-D result, as cumsum).
    let (f, fi) = x.cummin(None).unwrap();
    assert_eq!(f.shape(), &[6]);
    assert_eq!(v64(&f), vec![1., 1., 1., 1., 0., 0.]);
    assert_eq!(fi.to_vec::<i32>().unwrap(), vec![0, 0, 0, 0, 4, 4]);
    // The first NaN propagates with its index.
    let n = t64(&[5], &[1., f64::NAN, 3., f64::NAN, 0.]);
    let (v, i) = n.cummax(0).unwrap();
    let v = v64(&v);
    assert_eq!(v[0], 1.0);
    assert!(v[1..].iter().all(|x| x.is_nan()));
    assert_eq!(i.to_vec::<i32>().unwrap(), vec![0, 1, 1, 1, 1]);
    // Integers, u8, empty.
    let u = Tensor::create(DType::U8, &[4], &[3, 1, 200, 7]).unwrap();
    assert_eq!(
        u.cummax(0).unwrap().0.to_vec::<u8>().unwrap(),
        vec![3, 3, 200, 200]
    );
    assert_eq!(
        u.cummin(0).unwrap().0.to_vec::<u8>().unwrap(),
        vec![3, 1, 1, 1]
    );
    let e = Tensor::zeros(DType::F32, &[0, 3]).unwrap();
    assert_eq!(e.cummax(0).unwrap().0.shape(), &[0, 3]);
    assert_eq!(e.logcumsumexp(1).unwrap().shape(), &[0, 3]);
    // logcumsumexp: -inf is the identity, +inf stays.
    let l = t64(
        &[4],
        &[f64::NEG_INFINITY, f64::NEG_INFINITY, 0.0, f64::INFINITY],
    );
    assert_eq!(
        v64(&l.logcumsumexp(0).unwrap()),
        vec![f64::NEG_INFINITY, f64::NEG_INFINITY, 0.0, f64::INFINITY]
    );
    // Errors name the function.
    let err = |r: rnx::Result<Tensor>, name: &str| {
        let m = r.unwrap_err().to_string();
        assert!(m.contains(name), "{m}");
    };
    err(x.cummax(2).map(|p| p.0), "cummax");
    err(
        Tensor::zeros(DType::C64, &[2])
            .unwrap()
            .cummin(0)
            .map(|p| p.0),
        "cummin",
    );
    err(
        Tensor::zeros(DType::I32, &[2]).unwrap().logcumsumexp(0),
        "logcumsumexp",
    );
}

#[test]
fn stats_values_and_errors() {
    let x = t64(&[2, 3], &[1., 5., 2., 4., 0., 6.]);
    // ptp
    assert_eq!(x.ptp(None, false).unwrap().item::<f64>().unwrap(), 6.0);
    assert_eq!(v64(&x.ptp(1, false).unwrap()), vec![4.0, 6.0]);
    let i8t = Tensor::create(DType::I8, &[2], &[-100, 100]).unwrap();
    assert_eq!(
        i8t.ptp(None, false).unwrap().item::<i8>().unwrap(),
        200u8 as i8
    ); // wraps as NumPy
    assert!(Tensor::zeros(DType::F32, &[0])
        .unwrap()
        .ptp(None, false)
        .unwrap_err()
        .to_string()
        .contains("ptp"));
    // average: NumPy docs.
    let a = t64(&[4], &[1., 2., 3., 4.]);
    let w = t64(&[4], &[4., 3., 2., 1.]);
    assert_eq!(
        a.average(None, Some(&w), false)
            .unwrap()
            .item::<f64>()
            .unwrap(),
        2.0
    );
    assert_eq!(
        a.average(None, None, false).unwrap().item::<f64>().unwrap(),
        2.5
    );
    let d = t64(&[3, 2], &[0., 1., 2., 3., 4., 5.]);
    let w2 = t64(&[2], &[0.25, 0.75]);
    assert_eq!(
        v64(&d.average(1, Some(&w2), false).unwrap()),
        vec![0.75, 2.75, 4.75]
    );
    assert_eq!(d.average(1, Some(&w2), true).unwrap().shape(), &[3, 1]);
    let full = t64(&[3, 2], &[1., 1., 1., 3., 0., 2.]);
    assert_eq!(
        v64(&d.average(1, Some(&full), false).unwrap()),
        vec![0.5, 2.75, 5.0]
    );
    let zero = t64(&[4], &[1., -1., 0., 0.]);
    assert!(a
        .average(None, Some(&zero), false)
        .unwrap_err()
        .to_string()
        .contains("sum to zero"));
    assert!(d.average(0, Some(&w2), false).is_err()); // 1-D weights along the wrong axis
    assert!(d.average(None, Some(&w2), false).is_err());
    assert!(a
        .average(None, Some(&w.cast(DType::F32).unwrap()), false)
        .is_err());
    assert!(a
        .cast(DType::I32)
        .unwrap()
        .average(None, None, false)
        .unwrap_err()
        .to_string()
        .contains("cast"));
    // standardize: Nx docs.
    let s = t64(&[5], &[1., 2., 3., 4., 5.]).standardize(None).unwrap();
    assert_close(
        &v64(&s),
        &[-SQRT_2, -FRAC_1_SQRT_2, 0.0, FRAC_1_SQRT_2, SQRT_2],
        1e-9,
    );
    let s = t64(&[2, 3], &[1., 2., 3., 4., 5., 6.])
        .standardize([-1])
        .unwrap();
    let r = (2.0f64 / 3.0 + 1e-10).sqrt();
    assert_close(&v64(&s), &[-1. / r, 0., 1. / r, -1. / r, 0., 1. / r], 1e-12);
    // logmeanexp
    let l = t64(&[2, 2], &[0., 0., 1., 3.])
        .logmeanexp(1, false)
        .unwrap();
    assert_close(
        &v64(&l),
        &[0.0, ((1f64.exp() + 3f64.exp()) / 2.0).ln()],
        1e-14,
    );
    // quantile errors
    let m = |r: rnx::Result<Tensor>| r.unwrap_err().to_string();
    assert!(m(x.quantile(-0.1, None, false)).contains("quantile"));
    assert!(m(x.percentile(101.0, None, false)).contains("percentile"));
    assert!(m(x.cast(DType::I32).unwrap().quantile(0.5, None, false)).contains("cast"));
    assert!(m(x.cast(DType::I32).unwrap().median(None, false)).contains("median"));
    assert!(m(Tensor::zeros(DType::F32, &[2, 0]).unwrap().median(1, false)).contains("empty"));
    assert!(m(x.median(2, false)).contains("median"));
    // A strided view gives the same as its copy.
    let v = x.transpose(None).unwrap().flip(0).unwrap();
    assert_eq!(
        v64(&v.median(1, false).unwrap()),
        v64(&v.contiguous().unwrap().median(1, false).unwrap())
    );
}

#[test]
fn isclose_allclose_numpy_examples() {
    let d = IsCloseOptions::default();
    let ic = |a: &[f64], b: &[f64], o| {
        t64(&[a.len()], a)
            .isclose(&t64(&[b.len()], b), o)
            .unwrap()
            .to_vec::<u8>()
            .unwrap()
    };
    assert_eq!(ic(&[1e10, 1e-7], &[1.00001e10, 1e-8], d), vec![1, 0]);
    assert_eq!(ic(&[1e10, 1e-8], &[1.00001e10, 1e-9], d), vec![1, 1]);
    assert_eq!(
        ic(
            &[1e-100, 1e-7],
            &[0.0, 0.0],
            IsCloseOptions { atol: 0.0, ..d }
        ),
        vec![0, 0]
    );
    let inf = f64::INFINITY;
    assert_eq!(ic(&[inf, inf, 1.0], &[inf, -inf, inf], d), vec![1, 0, 0]);
    assert_eq!(ic(&[f64::NAN, 1.0], &[f64::NAN, f64::NAN], d), vec![0, 0]);
    assert_eq!(
        ic(
            &[f64::NAN, 1.0],
            &[f64::NAN, f64::NAN],
            IsCloseOptions {
                equal_nan: true,
                ..d
            }
        ),
        vec![1, 0]
    );
    // Asymmetric: the tolerance scales with |other|.
    let o = IsCloseOptions {
        rtol: 0.5,
        atol: 0.0,
        ..d
    };
    assert_eq!(ic(&[1.0], &[2.0], o), vec![1]);
    assert_eq!(ic(&[2.0], &[1.0], o), vec![0]);
    // Broadcasting, integers, halves.
    let a = t64(&[2, 2], &[1., 2., 3., 4.]);
    let b = t64(&[2], &[1., 2.]);
    assert_eq!(
        a.isclose(&b, d).unwrap().to_vec::<u8>().unwrap(),
        vec![1, 1, 0, 0]
    );
    let u = Tensor::create(DType::U8, &[2], &[3, 250]).unwrap();
    let u2 = Tensor::create(DType::U8, &[2], &[5, 250]).unwrap();
    let o = IsCloseOptions { atol: 2.0, ..d };
    assert_eq!(
        u.isclose(&u2, o).unwrap().to_vec::<u8>().unwrap(),
        vec![1, 1]
    );
    assert_eq!(
        u2.isclose(&u, IsCloseOptions { atol: 1.0, ..d })
            .unwrap()
            .to_vec::<u8>()
            .unwrap(),
        vec![0, 1]
    );
    let h = a.cast(DType::BF16).unwrap();
    assert!(h.allclose(&h.add(0.0).unwrap(), d).unwrap());
    assert!(a.allclose(&a.add(1e-9).unwrap(), d).unwrap());
    assert!(!a.allclose(&a.add(1e-3).unwrap(), d).unwrap());
    // Errors.
    assert!(a.isclose(&a.cast(DType::F32).unwrap(), d).is_err());
    assert!(a
        .isclose(
            &b.reshape([2, 1]).unwrap().broadcast_to(&[2, 3]).unwrap(),
            d
        )
        .is_err());
    // Complex tensors compare by |a - b| (tests/suite/complex_api.rs).
    assert!(Tensor::zeros(DType::C32, &[1])
        .unwrap()
        .allclose(&Tensor::zeros(DType::C32, &[1]).unwrap(), d)
        .unwrap());
}

#[test]
fn activations_and_norm_layers() {
    let xs: Vec<f64> = (-12..=12).map(|k| k as f64 * 0.25).collect();
    let x = t64(&[xs.len()], &xs);
    let f = |t: Tensor| v64(&t);
    let want = |g: &dyn Fn(f64) -> f64| xs.iter().map(|&v| g(v)).collect::<Vec<_>>();
    assert_close(
        &f(x.celu(Some(0.5)).unwrap()),
        &want(&|v| if v > 0.0 { v } else { 0.5 * (v / 0.5).exp_m1() }),
        1e-15,
    );
    assert_close(&f(x.celu(None).unwrap()), &f(x.elu(None).unwrap()), 1e-15);
    assert_close(
        &f(x.sparse_plus().unwrap()),
        &want(&|v| {
            if v <= -1.0 {
                0.0
            } else if v >= 1.0 {
                v
            } else {
                (v + 1.0) * (v + 1.0) / 4.0
            }
        }),
        1e-15,
    );
    assert_close(
        &f(x.sparse_sigmoid().unwrap()),
        &want(&|v| ((v + 1.0) / 2.0).clamp(0.0, 1.0)),
        1e-15,
    );
    assert_close(
        &f(x.squareplus(Some(1.0)).unwrap()),
        &want(&|v| (v + (v * v + 1.0).sqrt()) / 2.0),
        1e-15,
    );
    assert!(f(t64(&[1], &[f64::NAN]).sparse_plus().unwrap())[0].is_nan());
    // glu along axis 0 of a [4, 2]
    let g = t64(&[4, 2], &[1., 2., 3., 4., 0., 1., -1., 2.])
        .glu(0)
        .unwrap();
    let sg = |v: f64| 1.0 / (1.0 + (-v).exp());
    assert_eq!(g.shape(), &[2, 2]);
    assert_close(
        &f(g),
        &[sg(0.0), 2.0 * sg(1.0), 3.0 * sg(-1.0), 4.0 * sg(2.0)],
        1e-15,
    );
    // rms_norm / layer_norm against loops, with weight and bias, on a view.
    let base: Vec<f64> = (0..24).map(|k| ((k * 7) % 11) as f64 - 5.0).collect();
    let t = t64(&[4, 6], &base).transpose(None).unwrap(); // [6, 4] view
    let tv = v64(&t);
    let w = t64(&[4], &[1.0, 0.5, 2.0, -1.0]);
    let b = t64(&[4], &[0.0, 1.0, 0.0, 0.25]);
    let eps = 1e-5;
    let o = LayerNormOptions {
        epsilon: eps,
        weight: Some(&w),
        bias: Some(&b),
    };
    let (wv, bv) = (v64(&w), v64(&b));
    let (mut rms, mut ln) = (vec![], vec![]);
    for r in tv.chunks(4) {
        let ms = r.iter().map(|v| v * v).sum::<f64>() / 4.0;
        let mean = r.iter().sum::<f64>() / 4.0;
        let var = r.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / 4.0;
        for ((&v, &wk), &bk) in r.iter().zip(&wv).zip(&bv) {
            rms.push(v / (ms + eps).sqrt() * wk + bk);
            ln.push((v - mean) / (var + eps).sqrt() * wk + bk);
        }
    }
    assert_close(&v64(&t.rms_norm(None, o).unwrap()), &rms, 1e-13);
    assert_close(&v64(&t.layer_norm(-1, o).unwrap()), &ln, 1e-13);
    // Errors name the function.
    let m = |r: rnx::Result<Tensor>| r.unwrap_err().to_string();
    assert!(m(t64(&[3], &[1., 2., 3.]).glu(0)).contains("glu"));
    assert!(m(x.celu(Some(0.0))).contains("celu"));
    assert!(m(x.squareplus(Some(-1.0))).contains("squareplus"));
    assert!(m(x.cast(DType::I32).unwrap().sparse_plus()).contains("cast"));
    let o = LayerNormOptions {
        epsilon: -1.0,
        ..Default::default()
    };
    assert!(m(t.rms_norm(None, o)).contains("rms_norm"));
    let w32 = w.cast(DType::F32).unwrap();
    let o = LayerNormOptions {
        weight: Some(&w32),
        ..Default::default()
    };
    assert!(t.layer_norm(None, o).is_err());
}

#[test]
fn iteration_and_conversions() {
    let x = Tensor::from([[1i32, 2, 3], [4, 5, 6]]);
    assert_eq!(x.shape(), &[2, 3]);
    let t = x.transpose(None).unwrap().flip(0).unwrap();
    assert_eq!(
        t.iter::<i32>().unwrap().collect::<Vec<_>>(),
        vec![3, 6, 2, 5, 1, 4]
    );
    assert!(t.iter::<i64>().is_err());
    let doubled = t.map_item(|v: i32| v as f64 * 2.0).unwrap();
    assert_eq!(
        (doubled.dtype(), doubled.shape()),
        (DType::F64, &[3usize, 2][..])
    );
    assert_eq!(v64(&doubled), vec![6., 12., 4., 10., 2., 8.]);
    assert_eq!(
        t.fold_item(0i64, |a, v: i32| a * 10 + v as i64).unwrap(),
        362514
    );
    let v: Vec<i32> = Vec::try_from(&t).unwrap();
    assert_eq!(v, vec![3, 6, 2, 5, 1, 4]);
    let a: [i32; 6] = (&t).try_into().unwrap();
    assert_eq!(a, [3, 6, 2, 5, 1, 4]);
    assert!(<[i32; 5]>::try_from(&t)
        .unwrap_err()
        .to_string()
        .contains("6 elements"));
    let f = Tensor::from(vec![1.5f32, 2.5]);
    assert_eq!((f.dtype(), f.shape()), (DType::F32, &[2usize][..]));
    assert_eq!(Vec::<f32>::try_from(f).unwrap(), vec![1.5, 2.5]);
    assert_eq!(Tensor::from([7u8, 8]).to_vec::<u8>().unwrap(), vec![7, 8]);
}

#[cfg(feature = "gpu")]
#[test]
fn gpu_stats_match_cpu() {
    let Some(g) = crate::gpu::gpu() else { return };
    let vals: Vec<f64> = (0..60)
        .map(|k| ((k * 37) % 23) as f64 - 11.0 + if k % 13 == 0 { 0.5 } else { 0.0 })
        .collect();
    let c = Tensor::create(DType::F32, &[5, 12], &vals).unwrap();
    let c = Tensor::where_cond(&c.cmpeq(4.0).unwrap(), f64::NAN, &c).unwrap();
    let gt = c.to_device(g).unwrap();
    type Op = fn(&Tensor) -> Tensor;
    let ops: [(&str, Op); 10] = [
        ("median", |t| t.median(1, false).unwrap()),
        ("quantile", |t| {
            t.quantile_with(
                0.3,
                0,
                true,
                QuantileOptions {
                    method: QuantileMethod::Hazen,
                },
            )
            .unwrap()
        }),
        ("cummax", |t| t.cummax(1).unwrap().0),
        ("cummin_idx", |t| {
            t.cummin_with(0, ScanOptions { reverse: true }).unwrap().1
        }),
        ("logcumsumexp", |t| t.logcumsumexp(1).unwrap()),
        ("nanmean", |t| t.nanmean(1, false).unwrap()),
        ("nanmax", |t| t.nanmax(0, false).unwrap()),
        ("isclose", |t| {
            t.isclose(
                &t.add(1e-3).unwrap(),
                IsCloseOptions {
                    atol: 1e-2,
                    ..Default::default()
                },
            )
            .unwrap()
        }),
        ("rms_norm", |t| {
            t.nansum(None, true)
                .unwrap()
                .add(t)
                .unwrap()
                .rms_norm(None, LayerNormOptions::default())
                .unwrap()
        }),
        ("sparse_plus", |t| {
            t.div(8.0).unwrap().sparse_plus().unwrap()
        }),
    ];
    for (name, op) in ops {
        let (a, b) = (v64(&op(&c)), op(&gt));
        assert_eq!(b.device(), g, "{name}");
        assert_close(&v64(&b), &a, 1e-5);
    }
}

#[test]
fn histogram_numpy_examples() {
    use rnx::{Bins, HistogramOptions};
    let x = t64(&[8], &[0.5, 1.0, 1.5, 2.0, 2.0, 3.5, -1.0, 4.0]);
    let o = |bins: Bins| HistogramOptions {
        bins,
        ..Default::default()
    };
    let (h, e) = x.histogram(o(Bins::Count(4))).unwrap();
    assert_eq!(h.to_vec::<i64>().unwrap(), vec![1, 2, 3, 2]);
    assert_eq!(v64(&e), vec![-1.0, 0.25, 1.5, 2.75, 4.0]);
    let r = HistogramOptions {
        bins: 3.into(),
        range: Some((0.0, 3.0)),
        ..Default::default()
    };
    let (h, e) = x.histogram(r).unwrap();
    assert_eq!(
        (h.to_vec::<i64>().unwrap(), v64(&e)),
        (vec![1, 2, 2], vec![0., 1., 2., 3.])
    );
    let edges = t64(&[4], &[0., 1., 2., 4.]);
    let w = t64(&[8], &[1., 2., 3., 4., 5., 6., 7., 8.]);
    let ow = HistogramOptions {
        bins: (&edges).into(),
        weights: Some(w),
        ..Default::default()
    };
    assert_eq!(v64(&x.histogram(ow).unwrap().0), vec![1., 5., 23.]);
    let od = HistogramOptions {
        bins: (&edges).into(),
        density: true,
        ..Default::default()
    };
    let (d, _) = x.histogram(od).unwrap();
    assert_eq!(d.dtype(), DType::F64);
    assert_close(&v64(&d), &[1. / 7., 2. / 7., 2. / 7.], 1e-15);
    // Equal values: the range widens by 0.5 each way; NaN is not counted
    // with explicit edges.
    let (h, e) = t64(&[2], &[2., 2.]).histogram(o(Bins::Count(2))).unwrap();
    assert_eq!(
        (h.to_vec::<i64>().unwrap(), v64(&e)),
        (vec![0, 2], vec![1.5, 2., 2.5])
    );
    let n = t64(&[3], &[f64::NAN, 0.5, 1.0]);
    let (h, _) = n.histogram(o((&edges).into())).unwrap();
    assert_eq!(h.to_vec::<i64>().unwrap(), vec![1, 1, 0]);
    // A 2-D f32 view counts all elements.
    let m = Tensor::create(DType::F32, &[2, 2], &[0., 1., 2., 3.])
        .unwrap()
        .transpose(None)
        .unwrap();
    assert_eq!(
        m.histogram(o(Bins::Count(3)))
            .unwrap()
            .0
            .to_vec::<i64>()
            .unwrap(),
        vec![1, 1, 2]
    );
    // Errors.
    let msg = |r: rnx::Result<(Tensor, Tensor)>| r.unwrap_err().to_string();
    assert!(msg(n.histogram(o(Bins::Count(2)))).contains("not finite"));
    assert!(msg(x.histogram(o(Bins::Count(0)))).contains("histogram"));
    assert!(msg(x.histogram(o((&t64(&[3], &[0., 2., 1.])).into()))).contains("monotonically"));
    assert!(msg(x.cast(DType::I32).unwrap().histogram(o(Bins::Count(2)))).contains("cast"));
    let bad = HistogramOptions {
        range: Some((2.0, 1.0)),
        ..Default::default()
    };
    assert!(msg(x.histogram(bad)).contains("range"));
}

#[test]
fn unique_axis_matches_numpy() {
    use rnx::ops::search::UniqueOptions;
    let all = UniqueOptions {
        return_index: true,
        return_inverse: true,
        return_counts: true,
    };
    // np.unique(a, axis=0) of the NumPy docs.
    let a = Tensor::create(DType::I64, &[3, 3], &[1, 0, 0, 1, 0, 0, 2, 3, 4]).unwrap();
    let u = a.unique_axis(0, all).unwrap();
    assert_eq!(u.values.to_vec::<i64>().unwrap(), vec![1, 0, 0, 2, 3, 4]);
    assert_eq!(u.indices.unwrap().to_vec::<i64>().unwrap(), vec![0, 2]);
    assert_eq!(u.inverse.unwrap().to_vec::<i64>().unwrap(), vec![0, 0, 1]);
    assert_eq!(u.counts.unwrap().to_vec::<i64>().unwrap(), vec![2, 1]);
    // A 3-D float view along the last axis, with NaN equal to itself.
    let x = t64(&[2, 1, 4], &[1., f64::NAN, 1., 0., 2., 5., 2., 0.]);
    let u = x.unique_axis(-1, all).unwrap();
    // Columns: (1,2) (nan,5) (1,2) (0,0) -> sorted (0,0) (1,2) (nan,5).
    assert_eq!(u.values.shape(), &[2, 1, 3]);
    let v = v64(&u.values);
    assert_eq!(&v[..2], &[0., 1.]);
    assert!(v[2].is_nan());
    assert_eq!(&v[3..], &[0., 2., 5.]);
    assert_eq!(
        u.inverse.unwrap().to_vec::<i64>().unwrap(),
        vec![1, 2, 1, 0]
    );
    assert_eq!(u.indices.unwrap().to_vec::<i64>().unwrap(), vec![3, 0, 1]);
    // The values rebuild the input through the inverse (transposed view input).
    let m = Tensor::create(DType::U8, &[3, 4], &[1, 2, 1, 2, 3, 4, 3, 4, 5, 6, 5, 7]).unwrap();
    let mt = m.transpose(None).unwrap();
    let u = mt.unique_axis(0, all).unwrap();
    assert_eq!(u.values.shape(), &[3, 3]);
    let back = u.values.take(&u.inverse.unwrap(), 0).unwrap();
    assert_eq!(back.to_vec::<u8>().unwrap(), mt.to_vec::<u8>().unwrap());
    assert!(a
        .unique_axis(2, all)
        .unwrap_err()
        .to_string()
        .contains("unique"));
}
