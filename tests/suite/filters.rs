//! n-D filters (`uniform_filter`, `maximum_filter`, `minimum_filter`) against
//! SciPy's documented examples and a brute-force reference that extends each
//! index by the boundary mode with an independent folding loop: every mode,
//! origins, sizes per axis, integer truncation per pass (SciPy's separable
//! rule), every real and integer dtype, strided inputs and the errors.

use proptest::prelude::*;
use rnx::ops::filters::{BoundaryMode, FilterOptions};
use rnx::{DType, Tensor};

const MODES: [BoundaryMode; 5] = [
    BoundaryMode::Reflect,
    BoundaryMode::Constant,
    BoundaryMode::Nearest,
    BoundaryMode::Mirror,
    BoundaryMode::Wrap,
];

fn t(dtype: DType, shape: &[usize], v: &[f64]) -> Tensor {
    Tensor::create(DType::F64, shape, v)
        .unwrap()
        .cast(dtype)
        .unwrap()
}

/// Position `j` of an axis of length `n` folded back inside by `mode`
/// (`None`: the constant value), by repeated reflection, not a formula.
fn fold(mode: BoundaryMode, mut j: i64, n: i64) -> Option<i64> {
    match mode {
        BoundaryMode::Constant => (0..n).contains(&j).then_some(j),
        BoundaryMode::Nearest => Some(j.clamp(0, n - 1)),
        BoundaryMode::Wrap => {
            while j < 0 {
                j += n;
            }
            while j >= n {
                j -= n;
            }
            Some(j)
        }
        BoundaryMode::Reflect => loop {
            if j < 0 {
                j = -j - 1;
            } else if j >= n {
                j = 2 * n - 1 - j;
            } else {
                return Some(j);
            }
        },
        BoundaryMode::Mirror => {
            if n == 1 {
                return Some(0);
            }
            loop {
                if j < 0 {
                    j = -j;
                } else if j >= n {
                    j = 2 * n - 2 - j;
                } else {
                    return Some(j);
                }
            }
        }
    }
}

/// One SciPy 1-D pass along `axis` of the row-major `x` of `shape`: the
/// window of output i starts at `i - size / 2 - origin`. `f` folds the
/// window's values; `trunc` casts each result as C casts double to an integer.
#[allow(clippy::too_many_arguments)]
fn pass(
    x: &[f64],
    shape: &[usize],
    axis: usize,
    size: usize,
    origin: i64,
    mode: BoundaryMode,
    cval: f64,
    f: &dyn Fn(&[f64]) -> f64,
) -> Vec<f64> {
    let n = shape[axis] as i64;
    let inner: usize = shape[axis + 1..].iter().product();
    let mut out = vec![0.0; x.len()];
    for (flat, o) in out.iter_mut().enumerate() {
        let i = (flat / inner) as i64 % n;
        let base = flat - (i as usize) * inner;
        let start = i - (size / 2) as i64 - origin;
        let w: Vec<f64> = (start..start + size as i64)
            .map(|j| match fold(mode, j, n) {
                Some(q) => x[base + q as usize * inner],
                None => cval,
            })
            .collect();
        *o = f(&w);
    }
    out
}

/// A function of one window's values.
type WindowFn = Box<dyn Fn(&[f64]) -> f64>;

#[allow(clippy::too_many_arguments)]
fn reference(
    kind: u8,
    x: &[f64],
    shape: &[usize],
    sizes: &[usize],
    origins: &[i64],
    mode: BoundaryMode,
    cval: f64,
    int: bool,
) -> Vec<f64> {
    let mut cur = x.to_vec();
    for a in 0..shape.len() {
        if sizes[a] == 1 {
            continue;
        }
        let f: WindowFn = match kind {
            0 => Box::new(move |w: &[f64]| {
                let m = w.iter().sum::<f64>() / w.len() as f64;
                if int {
                    m.trunc()
                } else {
                    m
                }
            }),
            1 => Box::new(|w: &[f64]| w.iter().cloned().fold(f64::NEG_INFINITY, f64::max)),
            _ => Box::new(|w: &[f64]| w.iter().cloned().fold(f64::INFINITY, f64::min)),
        };
        cur = pass(&cur, shape, a, sizes[a], origins[a], mode, cval, &*f);
    }
    cur
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn filters_match_the_reference(
        shape in prop::collection::vec(1usize..6, 1..4),
        sizes_seed in prop::collection::vec(1usize..6, 3),
        origin_seed in prop::collection::vec(0usize..6, 3),
        mode in 0usize..5,
        kind in 0u8..3,
        int in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let nd = shape.len();
        let sizes: Vec<usize> = sizes_seed[..nd].to_vec();
        // An origin in SciPy's valid range -(size / 2)..=(size - 1) / 2.
        let origins: Vec<i64> = (0..nd)
            .map(|a| (origin_seed[a] % sizes[a]) as i64 - (sizes[a] / 2) as i64)
            .collect();
        let n: usize = shape.iter().product();
        let mut s = seed | 1;
        let v: Vec<f64> = (0..n).map(|_| {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            (s % 41) as f64 - 20.0
        }).collect();
        let dt = if int { DType::I32 } else { DType::F64 };
        let x = t(dt, &shape, &v);
        let mode = MODES[mode];
        let o = FilterOptions {
            mode,
            cval: 3.0,
            origin: origins.iter().map(|&q| q as isize).collect(),
        };
        let y = match kind {
            0 => x.uniform_filter(&sizes, &o),
            1 => x.maximum_filter(&sizes, &o),
            _ => x.minimum_filter(&sizes, &o),
        }.unwrap();
        prop_assert_eq!(y.dtype(), dt);
        prop_assert_eq!(y.shape(), &shape[..]);
        let got = y.cast(DType::F64).unwrap().to_vec::<f64>().unwrap();
        let want = reference(kind, &v, &shape, &sizes, &origins, mode, 3.0, int);
        for (a, e) in got.iter().zip(&want) {
            prop_assert!((a - e).abs() <= 1e-12 * (1.0 + e.abs()), "{} vs {} ({:?})", a, e, mode);
        }
    }
}

#[test]
fn scipy_documented_examples() {
    let x = t(DType::I64, &[8], &[2., 8., 0., 4., 1., 9., 9., 0.]);
    let d = FilterOptions::default();
    let v = |t: Tensor| t.cast(DType::F64).unwrap().to_vec::<f64>().unwrap();
    assert_eq!(
        v(x.uniform_filter(&[3], &d).unwrap()),
        vec![4., 3., 4., 1., 4., 6., 6., 3.]
    );
    assert_eq!(
        v(x.maximum_filter(&[3], &d).unwrap()),
        vec![8., 8., 8., 4., 9., 9., 9., 9.]
    );
    assert_eq!(
        v(x.minimum_filter(&[3], &d).unwrap()),
        vec![2., 0., 0., 0., 1., 1., 0., 0.]
    );
    // The ndimage tutorial's boundary modes on [1, 2, 3] with size 5 (the
    // extension shown by each mode's picture).
    let x = t(DType::F64, &[3], &[1., 2., 3.]);
    let mean = |mode, cval| {
        v(x.uniform_filter(
            &[5],
            &FilterOptions {
                mode,
                cval,
                ..Default::default()
            },
        )
        .unwrap())
    };
    // reflect: 2 1 | 1 2 3 | 3 2
    assert_eq!(
        mean(BoundaryMode::Reflect, 0.0),
        vec![9. / 5., 2., 11. / 5.]
    );
    // mirror: 3 2 | 1 2 3 | 2 1
    assert_eq!(mean(BoundaryMode::Mirror, 0.0), vec![11. / 5., 2., 9. / 5.]);
    // nearest: 1 1 | 1 2 3 | 3 3
    assert_eq!(
        mean(BoundaryMode::Nearest, 0.0),
        vec![8. / 5., 2., 12. / 5.]
    );
    // wrap: 2 3 | 1 2 3 | 1 2
    assert_eq!(mean(BoundaryMode::Wrap, 0.0), vec![11. / 5., 2., 9. / 5.]);
    // constant 10: 10 10 | 1 2 3 | 10 10
    assert_eq!(
        mean(BoundaryMode::Constant, 10.0),
        vec![26. / 5., 26. / 5., 26. / 5.]
    );
}

#[test]
fn integers_truncate_per_pass_and_every_dtype() {
    // 2-D mean of [[1, 2], [2, 2]] with size 2, origin 0 (window i-1..i),
    // reflect. Pass 1 (axis 0): [[1, 2], [1.5 -> 1, 2]]; pass 2 (axis 1):
    // [[1, 1.5 -> 1], [1, 1.5 -> 1]].
    let x = t(DType::U8, &[2, 2], &[1., 2., 2., 2.]);
    let y = x.uniform_filter(&[2], &FilterOptions::default()).unwrap();
    assert_eq!(y.to_vec::<u8>().unwrap(), vec![1, 1, 1, 1]);
    let v: Vec<f64> = (0..24).map(|i| ((i * 5) % 13) as f64).collect();
    let base = t(DType::F64, &[4, 6], &v);
    let tv = base.transpose([1isize, 0]).unwrap();
    let o = FilterOptions {
        mode: BoundaryMode::Wrap,
        ..Default::default()
    };
    // (fp8 and the 4-bit integers cannot hold the test values exactly:
    // tested in fp8.rs and int4_ops.rs.)
    for dt in DType::ALL
        .into_iter()
        .filter(|d| !d.is_complex() && !d.is_fp8() && !d.is_int4())
    {
        let x = tv.cast(dt).unwrap();
        for (got, want) in [
            (
                x.maximum_filter(&[3, 2], &o).unwrap(),
                tv.maximum_filter(&[3, 2], &o).unwrap(),
            ),
            (
                x.minimum_filter(&[3, 2], &o).unwrap(),
                tv.minimum_filter(&[3, 2], &o).unwrap(),
            ),
        ] {
            assert_eq!(got.dtype(), dt);
            assert_eq!(
                got.cast(DType::F64).unwrap().to_vec::<f64>().unwrap(),
                want.to_vec::<f64>().unwrap()
            );
        }
        let u = x.uniform_filter(&[3, 2], &o).unwrap();
        assert_eq!(u.dtype(), dt);
        if dt.is_int() {
            let host = tv.copy().unwrap().to_vec::<f64>().unwrap();
            let want = reference(0, &host, &[6, 4], &[3, 2], &[0, 0], o.mode, 0.0, true);
            assert_eq!(
                u.cast(DType::F64).unwrap().to_vec::<f64>().unwrap(),
                want,
                "{dt}"
            );
        }
    }
    // Sizes of 1 leave the tensor as it is (a fresh copy).
    let y = base
        .maximum_filter(&[1], &FilterOptions::default())
        .unwrap();
    assert!(!y.same_storage(&base));
    assert_eq!(y.to_vec::<f64>().unwrap(), v);
}

#[test]
fn errors_name_the_function() {
    let x = Tensor::zeros(DType::F32, &[3, 4]).unwrap();
    let d = FilterOptions::default();
    let msg = |r: rnx::Result<Tensor>| r.unwrap_err().to_string();
    assert!(msg(x.uniform_filter(&[0], &d)).starts_with("uniform_filter:"));
    assert!(msg(x.maximum_filter(&[3, 3, 3], &d)).starts_with("maximum_filter:"));
    let o = FilterOptions {
        origin: vec![2],
        ..Default::default()
    };
    let e = msg(x.minimum_filter(&[3], &o));
    assert!(
        e.starts_with("minimum_filter:") && e.contains("origin"),
        "{e}"
    );
    let o = FilterOptions {
        mode: BoundaryMode::Constant,
        cval: 2.5,
        ..Default::default()
    };
    let xi = Tensor::zeros(DType::I32, &[3]).unwrap();
    assert!(msg(xi.maximum_filter(&[3], &o)).starts_with("maximum_filter:"));
    // The mean takes cval as a float even for integers (SciPy's double buffer).
    assert!(xi.uniform_filter(&[3], &o).is_ok());
    let c = Tensor::zeros(DType::C64, &[3]).unwrap();
    assert!(msg(c.uniform_filter(&[3], &d)).starts_with("uniform_filter:"));
}

/// `uniform_filter`'s running-sum pass (the CPU's `window_mean`): a non-last
/// axis wider than one block of the kernel (256 columns), f64 / i32 / f32,
/// every mode, origins at both ends, against the brute-force passes; and
/// the constant mode with a `cval` the dtype cannot hold exactly (the pass
/// then runs on the input cast to f64).
#[test]
fn uniform_running_sum_blocks_dtypes_and_inexact_cval() {
    let shape = [9, 300];
    let v: Vec<f64> = (0..2700)
        .map(|i| ((i * 7919) % 101) as f64 - 50.0)
        .collect();
    for (dt, int) in [(DType::F64, false), (DType::I32, true), (DType::F32, false)] {
        for mode in MODES {
            for (sizes, origins) in [([4, 5], [1, -2]), ([5, 2], [-2, 0]), ([3, 1], [0, 0])] {
                let o = FilterOptions {
                    mode,
                    cval: 3.0,
                    origin: origins.iter().map(|&q| q as isize).collect(),
                };
                let y = t(dt, &shape, &v).uniform_filter(&sizes, &o).unwrap();
                assert_eq!(y.dtype(), dt);
                let got = y.cast(DType::F64).unwrap().to_vec::<f64>().unwrap();
                let want = reference(0, &v, &shape, &sizes, &origins, mode, 3.0, int);
                // f32 rounds between the passes (as SciPy): 1e-6 relative.
                let tol = if dt == DType::F32 { 1e-6 } else { 1e-12 };
                for (i, (a, e)) in got.iter().zip(&want).enumerate() {
                    assert!(
                        (a - e).abs() <= tol * (1.0 + e.abs()),
                        "{dt} {mode:?} {sizes:?} at {i}: {a} vs {e}"
                    );
                }
            }
        }
    }
    // cval 2.5 in u8 and i32, 0.1 in f32: not exact there.
    let small: Vec<f64> = (0..24).map(|i| ((i * 5) % 13) as f64).collect();
    for (dt, cval, int) in [
        (DType::U8, 2.5, true),
        (DType::I32, -0.5, true),
        (DType::F32, 0.1, false),
    ] {
        let o = FilterOptions {
            mode: BoundaryMode::Constant,
            cval,
            ..Default::default()
        };
        let y = t(dt, &[4, 6], &small).uniform_filter(&[3, 4], &o).unwrap();
        let got = y.cast(DType::F64).unwrap().to_vec::<f64>().unwrap();
        let want = reference(0, &small, &[4, 6], &[3, 4], &[0, 0], o.mode, cval, int);
        for (a, e) in got.iter().zip(&want) {
            assert!(
                (a - e).abs() <= 1e-6 * (1.0 + e.abs()),
                "{dt} cval {cval}: {a} vs {e}"
            );
        }
    }
}
