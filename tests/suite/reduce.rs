//! Reductions: every seed example (exact values), errors, empty and NaN rules,
//! integer wrapping, f16 accumulation, summation accuracy, and property tests
//! against a brute-force reference on strided/transposed/flipped views.

use crate::views::*;
use proptest::prelude::*;
use rnx::{DType, Index, Tensor};

fn f32t(shape: &[usize], v: &[f64]) -> Tensor {
    Tensor::create(DType::F32, shape, v).unwrap()
}
fn i32t(shape: &[usize], v: &[i64]) -> Tensor {
    Tensor::create(DType::I32, shape, v).unwrap()
}

// ----- seed examples -----

#[test]
fn seed_sum() {
    let x = f32t(&[2, 2], &[1., 2., 3., 4.]);
    let s = x.sum(None, false).unwrap();
    assert_eq!((s.shape(), s.item::<f32>().unwrap()), (&[][..], 10.0));
    let s = x.sum([0], false).unwrap();
    assert_eq!((s.shape(), s.to_string()), (&[2][..], "[4, 6]".to_string()));
    assert_eq!(s.dtype(), DType::F32);
    let x = f32t(&[1, 2], &[1., 2.]);
    let s = x.sum([1], true).unwrap();
    assert_eq!(
        (s.shape(), s.to_string()),
        (&[1, 1][..], "[[3]]".to_string())
    );
    let x = f32t(&[1, 3], &[1., 2., 3.]);
    let s = x.sum([-1], false).unwrap();
    assert_eq!((s.shape(), s.to_string()), (&[1][..], "[6]".to_string()));
}

#[test]
fn seed_max_min() {
    let x = f32t(&[2, 3], &[1., 2., 3., 4., 5., 6.]);
    assert_eq!(x.max(None, false).unwrap().item::<f32>().unwrap(), 6.0);
    assert_eq!(x.min(None, false).unwrap().item::<f32>().unwrap(), 1.0);
    let x = f32t(&[2, 2], &[1., 2., 3., 4.]);
    assert_eq!(x.max([0], false).unwrap().to_string(), "[3, 4]");
    assert_eq!(x.min([0], false).unwrap().to_string(), "[1, 2]");
    let x = f32t(&[1, 2], &[1., 2.]);
    let m = x.max([1], true).unwrap();
    assert_eq!(
        (m.shape(), m.to_string()),
        (&[1, 1][..], "[[2]]".to_string())
    );
}

#[test]
fn seed_prod() {
    let x = i32t(&[3], &[2, 3, 4]);
    let p = x.prod(None, false).unwrap();
    assert_eq!((p.dtype(), p.item::<i32>().unwrap()), (DType::I32, 24));
    let x = i32t(&[2, 2], &[1, 2, 3, 4]);
    assert_eq!(x.prod([0], false).unwrap().to_string(), "[3, 8]");
}

#[test]
fn seed_mean() {
    let x = f32t(&[4], &[1., 2., 3., 4.]);
    assert_eq!(x.mean(None, false).unwrap().item::<f32>().unwrap(), 2.5);
    let x = f32t(&[2, 3], &[1., 2., 3., 4., 5., 6.]);
    assert_eq!(x.mean([1], false).unwrap().to_string(), "[2, 5]");
}

#[test]
fn seed_var_std() {
    let x = f32t(&[5], &[1., 2., 3., 4., 5.]);
    assert_eq!(x.var(None, false, 0).unwrap().item::<f32>().unwrap(), 2.0);
    assert_eq!(x.var(None, false, 1).unwrap().item::<f32>().unwrap(), 2.5);
    assert_eq!(
        x.std(None, false, 0)
            .unwrap()
            .item::<f32>()
            .unwrap()
            .round(),
        1.0
    );
    assert_eq!(
        x.std(None, false, 1)
            .unwrap()
            .item::<f32>()
            .unwrap()
            .round(),
        2.0
    );
    assert_eq!(
        x.std(None, false, 0).unwrap().item::<f32>().unwrap(),
        2f32.sqrt()
    );
}

#[test]
fn seed_all_any() {
    let all = |v: &[i64], shape: &[usize], axes: Option<&[isize]>| {
        i32t(shape, v).all(axes, false).unwrap()
    };
    let any = |v: &[i64], shape: &[usize], axes: Option<&[isize]>| {
        i32t(shape, v).any(axes, false).unwrap()
    };
    assert_eq!(all(&[1, 2, 3], &[3], None).item::<u8>().unwrap(), 1);
    assert_eq!(all(&[1, 0, 3], &[3], None).item::<u8>().unwrap(), 0);
    let a = all(&[1, 0, 1, 1], &[2, 2], Some(&[1]));
    assert_eq!(
        (a.dtype(), a.to_string()),
        (DType::U8, "[0, 1]".to_string())
    );
    assert_eq!(any(&[0, 0, 1], &[3], None).item::<u8>().unwrap(), 1);
    assert_eq!(any(&[0, 0, 0], &[3], None).item::<u8>().unwrap(), 0);
    let a = any(&[0, 0, 0, 1], &[2, 2], Some(&[1]));
    assert_eq!(
        (a.dtype(), a.to_string()),
        (DType::U8, "[0, 1]".to_string())
    );
}

#[test]
fn seed_argmax_argmin() {
    let x = i32t(&[5], &[3, 1, 4, 1, 5]);
    let a = x.argmax(None, false).unwrap();
    assert_eq!(
        (a.dtype(), a.shape(), a.item::<i32>().unwrap()),
        (DType::I32, &[][..], 4)
    );
    assert_eq!(x.argmin(None, false).unwrap().item::<i32>().unwrap(), 1);
    let x = i32t(&[2, 3], &[1, 5, 3, 2, 4, 6]);
    assert_eq!(x.argmax(Some(1), false).unwrap().to_string(), "[1, 2]");
    let x = i32t(&[2, 3], &[5, 2, 3, 1, 4, 0]);
    assert_eq!(x.argmin(Some(1), false).unwrap().to_string(), "[1, 2]");
}

// ----- errors -----

#[test]
fn errors_name_the_op() {
    let x = f32t(&[2, 2], &[1., 2., 3., 4.]);
    let e = x.sum([2], false).unwrap_err().to_string();
    assert!(e.starts_with("sum:") && e.contains("axis 2"), "{e}");
    assert!(x.sum([-3], false).is_err());
    let e = x.max([0, -2], false).unwrap_err().to_string();
    assert!(e.starts_with("max:") && e.contains("more than once"), "{e}");
    let e = x.var(None, false, 4).unwrap_err().to_string();
    assert!(e.starts_with("var:") && e.contains("ddof 4"), "{e}");
    assert!(x
        .std([1], false, 2)
        .unwrap_err()
        .to_string()
        .starts_with("std:"));
    assert!(x.var([1], false, 1).is_ok());
    let e = i32t(&[2], &[1, 2])
        .mean(None, false)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("mean:") && e.contains("i32"), "{e}");
    let e = x.argmax(Some(5), false).unwrap_err().to_string();
    assert!(e.starts_with("argmax:"), "{e}");
    assert!(x.cumsum(2).unwrap_err().to_string().starts_with("cumsum:"));
}

#[test]
fn empty_reductions() {
    let e = Tensor::zeros(DType::F32, &[0]).unwrap();
    assert_eq!(e.sum(None, false).unwrap().item::<f32>().unwrap(), 0.0);
    assert_eq!(e.prod(None, false).unwrap().item::<f32>().unwrap(), 1.0);
    assert!(e.mean(None, false).unwrap().item::<f32>().unwrap().is_nan());
    assert!(e
        .var(None, false, 0)
        .unwrap()
        .item::<f32>()
        .unwrap()
        .is_nan());
    assert!(e
        .std(None, false, 1)
        .unwrap()
        .item::<f32>()
        .unwrap()
        .is_nan());
    assert_eq!(e.all(None, false).unwrap().item::<u8>().unwrap(), 1);
    assert_eq!(e.any(None, false).unwrap().item::<u8>().unwrap(), 0);
    let m = e.max(None, false).unwrap_err().to_string();
    assert!(m.starts_with("max:") && m.contains("empty"), "{m}");
    assert!(e
        .min(None, false)
        .unwrap_err()
        .to_string()
        .starts_with("min:"));
    assert!(e
        .argmax(None, false)
        .unwrap_err()
        .to_string()
        .starts_with("argmax:"));
    let z = Tensor::zeros(DType::I32, &[0, 3]).unwrap();
    let s = z.sum([0], false).unwrap();
    assert_eq!(
        (s.shape(), s.to_vec::<i32>().unwrap()),
        (&[3][..], vec![0, 0, 0])
    );
    let p = z.prod([0], true).unwrap();
    assert_eq!(
        (p.shape(), p.to_vec::<i32>().unwrap()),
        (&[1, 3][..], vec![1, 1, 1])
    );
    // The result is empty: nothing is reduced over an empty axis, no error.
    assert_eq!(z.max([1], false).unwrap().shape(), &[0]);
    assert!(z.max([0], false).is_err());
    // No axes: the identity reduction.
    let x = f32t(&[2], &[1.5, -2.0]);
    assert_eq!(
        x.sum([], false).unwrap().to_vec::<f32>().unwrap(),
        vec![1.5, -2.0]
    );
}

#[test]
fn nan_propagates() {
    let x = f32t(&[2, 3], &[1., f64::NAN, 3., 4., 5., 6.]);
    for r in [
        x.max([1], false),
        x.min([1], false),
        x.mean([1], false),
        x.var([1], false, 0),
        x.sum([1], false),
    ] {
        let v = r.unwrap().to_vec::<f32>().unwrap();
        assert!(v[0].is_nan() && !v[1].is_nan(), "{v:?}");
    }
    // NaN first or last in a group, and in the across-outputs kernel.
    let y = f32t(&[3, 2], &[f64::NAN, 1., 2., 3., 4., f64::NAN]);
    let m = y.max([0], false).unwrap().to_vec::<f32>().unwrap();
    assert!(m[0].is_nan() && m[1].is_nan());
    let m = y.min([1], false).unwrap().to_vec::<f32>().unwrap();
    assert!(m[0].is_nan() && m[1] == 2.0 && m[2].is_nan());
    assert_eq!(y.all(None, false).unwrap().item::<u8>().unwrap(), 1);
}

#[test]
fn integer_wrapping_and_types() {
    let x = Tensor::from_vec(vec![100i8, 100], &[2]).unwrap();
    assert_eq!(x.sum(None, false).unwrap().item::<i8>().unwrap(), -56);
    let x = Tensor::from_vec(vec![16u8, 16, 2], &[3]).unwrap();
    assert_eq!(x.prod(None, false).unwrap().item::<u8>().unwrap(), 0);
    let x = Tensor::from_vec(vec![u64::MAX, 2], &[2]).unwrap();
    assert_eq!(x.sum(None, false).unwrap().item::<u64>().unwrap(), 1);
    assert_eq!(x.max(None, false).unwrap().item::<u64>().unwrap(), u64::MAX);
    let x = Tensor::from_vec(vec![-5i64, 7, -9], &[3]).unwrap();
    assert_eq!(x.min(None, false).unwrap().item::<i64>().unwrap(), -9);
    let c = Tensor::from_vec(
        vec![rnx::C64::new(1.0, 2.0), rnx::C64::new(3.0, -1.0)],
        &[2],
    )
    .unwrap();
    assert_eq!(
        c.sum(None, false).unwrap().item::<rnx::C64>().unwrap(),
        rnx::C64::new(4.0, 1.0)
    );
    assert_eq!(
        c.mean(None, false).unwrap().item::<rnx::C64>().unwrap(),
        rnx::C64::new(2.0, 0.5)
    );
    assert_eq!(
        c.prod(None, false).unwrap().item::<rnx::C64>().unwrap(),
        rnx::C64::new(5.0, 5.0)
    );
    assert!(c.max(None, false).is_err());
}

#[test]
fn halves_accumulate_in_f32() {
    // In f16 a running sum sticks at 2048 (2048 + 1 rounds back); f32 does not.
    let x = Tensor::ones(DType::F16, &[4096]).unwrap();
    assert_eq!(
        x.sum(None, false)
            .unwrap()
            .item::<rnx::f16>()
            .unwrap()
            .to_f32(),
        4096.0
    );
    let x = Tensor::ones(DType::BF16, &[64, 600]).unwrap();
    let s = x.sum([0], false).unwrap().to_vec::<rnx::bf16>().unwrap();
    assert!(s.iter().all(|v| v.to_f32() == 64.0));
    let s = x.sum([1], false).unwrap().to_vec::<rnx::bf16>().unwrap();
    assert!(s.iter().all(|v| v.to_f32() == 600.0));
    let c = Tensor::ones(DType::F16, &[3000])
        .unwrap()
        .cumsum(0)
        .unwrap();
    assert_eq!(c.to_vec::<rnx::f16>().unwrap()[2999].to_f32(), 3000.0);
}

#[test]
fn sum_of_ten_million_f32_is_accurate() {
    let x = Tensor::rand(DType::F32, &[10_000_000], 7).unwrap();
    let exact: f64 = x.to_vec::<f32>().unwrap().iter().map(|&v| v as f64).sum();
    let got = x.sum(None, false).unwrap().item::<f32>().unwrap() as f64;
    let rel = ((got - exact) / exact).abs();
    assert!(rel < 1e-6, "relative error {rel}");
    // The same along the leading axis of a tall matrix (across-outputs kernel).
    let y = Tensor::from_parts(
        x.storage().clone(),
        rnx::Layout::contiguous(&[1_250_000, 8]),
    )
    .unwrap();
    let cols = y.sum([0], false).unwrap().to_vec::<f32>().unwrap();
    let data = x.to_vec::<f32>().unwrap();
    for (c, &got) in cols.iter().enumerate() {
        let exact: f64 = data.iter().skip(c).step_by(8).map(|&v| v as f64).sum();
        let rel = ((got as f64 - exact) / exact).abs();
        assert!(rel < 1e-6, "column {c}: relative error {rel}");
    }
}

#[test]
fn leading_and_trailing_axes_agree() {
    // Integer-valued floats: every order of summation is exact.
    let x = Tensor::init(DType::F32, &[300, 517], |i| {
        ((i[0] * 7 + i[1] * 3) % 11) as f32 - 5.0
    })
    .unwrap();
    let v = x.to_vec::<f32>().unwrap();
    let s0 = x.sum([0], false).unwrap().to_vec::<f32>().unwrap();
    let s1 = x.sum([1], false).unwrap().to_vec::<f32>().unwrap();
    for j in 0..517 {
        assert_eq!(s0[j], (0..300).map(|i| v[i * 517 + j]).sum::<f32>());
    }
    for i in 0..300 {
        assert_eq!(s1[i], v[i * 517..(i + 1) * 517].iter().sum::<f32>());
    }
    // Many rows (several cascade levels) in the across-outputs kernel.
    let t = Tensor::init(DType::F64, &[5000, 3], |i| (i[0] % 5) as f64 + i[1] as f64).unwrap();
    let s = t.sum([0], false).unwrap().to_vec::<f64>().unwrap();
    assert_eq!(s, vec![10000.0, 15000.0, 20000.0]);
    let m = t.max([0], false).unwrap().to_vec::<f64>().unwrap();
    assert_eq!(m, vec![4.0, 5.0, 6.0]);
    // Rows four at a time, then a tail of one to three, on contiguous and
    // stepped (every other column) kept lanes, integer and float sums.
    for rows in [4usize, 7, 257, 1030] {
        let x = Tensor::init(DType::I64, &[rows, 9], |i| {
            (i[0] as i64 * 31 + i[1] as i64 * 5) % 23 - 11
        })
        .unwrap();
        let v = x.to_vec::<i64>().unwrap();
        let stepped = x.slice(rnx::s![.., 0..9;2]).unwrap();
        let s = x.sum([0], false).unwrap().to_vec::<i64>().unwrap();
        let ss = stepped.sum([0], false).unwrap().to_vec::<i64>().unwrap();
        let mf = x
            .astype(DType::F32)
            .unwrap()
            .mean([0], false)
            .unwrap()
            .to_vec::<f32>()
            .unwrap();
        for j in 0..9 {
            let want: i64 = (0..rows).map(|i| v[i * 9 + j]).sum();
            assert_eq!(s[j], want, "{rows} rows, column {j}");
            if j % 2 == 0 {
                assert_eq!(ss[j / 2], want, "{rows} rows, stepped column {j}");
            }
            assert!(
                (mf[j] - want as f32 / rows as f32).abs() < 1e-5,
                "mean {rows} {j}"
            );
        }
    }
}

/// Several leading axes reduced, the contiguous one kept, with enough rows that
/// threads split the reduced positions (each part starts mid-way through the
/// reduced index space): sum, max and var against brute force.
#[test]
fn leading_axes_split_over_threads() {
    let (a, b, c) = (40, 50, 37);
    let x = Tensor::init(DType::F64, &[a, b, c], |i| {
        ((i[0] * 13 + i[1] * 7 + i[2] * 3) % 17) as f64 - 8.0
    })
    .unwrap();
    let v = x.to_vec::<f64>().unwrap();
    let v = &v;
    let col = |k: usize| (0..a * b).map(move |r| v[r * c + k]);
    let sum = x.sum([0, 1], false).unwrap().to_vec::<f64>().unwrap();
    let max = x.max([1, 0], false).unwrap().to_vec::<f64>().unwrap();
    let var = x.var([0, 1], false, 0).unwrap().to_vec::<f64>().unwrap();
    for k in 0..c {
        let s: f64 = col(k).sum();
        assert_eq!(sum[k], s, "sum {k}");
        assert_eq!(max[k], col(k).fold(f64::MIN, f64::max), "max {k}");
        let m = s / (a * b) as f64;
        let want = col(k).map(|y| (y - m) * (y - m)).sum::<f64>() / (a * b) as f64;
        assert!(
            (var[k] - want).abs() <= 1e-12 * want.max(1.0),
            "var {k}: {} vs {want}",
            var[k]
        );
    }
}

#[test]
fn argmax_nan_and_ties() {
    let x = f32t(&[6], &[1., 3., f64::NAN, 3., f64::NAN, 0.]);
    assert_eq!(x.argmax(None, false).unwrap().item::<i32>().unwrap(), 2);
    assert_eq!(x.argmin(None, false).unwrap().item::<i32>().unwrap(), 2);
    let y = f32t(&[5], &[2., 7., 7., 1., 1.]);
    assert_eq!(y.argmax(None, false).unwrap().item::<i32>().unwrap(), 1);
    assert_eq!(y.argmin(None, false).unwrap().item::<i32>().unwrap(), 3);
    let k = y.argmax(None, true).unwrap();
    assert_eq!((k.shape(), k.to_vec::<i32>().unwrap()), (&[1][..], vec![1]));
    let z = f32t(&[2, 3], &[1., 9., 9., 4., 4., 0.]);
    let k = z.argmax(Some(-1), true).unwrap();
    assert_eq!(
        (k.shape(), k.to_vec::<i32>().unwrap()),
        (&[2, 1][..], vec![1, 0])
    );
    let k = z.argmin(Some(0), false).unwrap();
    assert_eq!(k.to_vec::<i32>().unwrap(), vec![0, 1, 1]);
}

/// argmax/argmin along contiguous rows of every length class the row scan
/// treats differently (shorter than one vector block, whole blocks, blocks plus
/// a tail, long rows), f32 and f64, with many ties, signed zeros, infinities
/// and NaNs at every position class, against a brute-force scan.
#[test]
fn argmax_rows_match_reference() {
    fn reference(v: &[f64], max: bool) -> i32 {
        let mut bi = 0;
        for (i, &x) in v.iter().enumerate() {
            let b = v[bi];
            if !b.is_nan() && (x.is_nan() || if max { x > b } else { x < b }) {
                bi = i;
            }
        }
        bi as i32
    }
    let mut state = 0x2545F4914F6CDD1Du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let specials = [0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, 5.0, -5.0];
    // The AVX2 scan reads chunks of 128 f32 / 64 f64, the AVX-512 one of
    // 256 f32 / 128 f64.
    let lens = [
        1usize, 2, 15, 16, 17, 31, 32, 33, 47, 63, 64, 65, 95, 96, 127, 128, 129, 255, 256, 257,
        383, 511, 512, 513, 1000, 4103,
    ];
    for dtype in [DType::F32, DType::F64] {
        for &n in &lens {
            let rows = 12;
            let mut data = Vec::with_capacity(rows * n);
            for r in 0..rows {
                let mut row: Vec<f64> = (0..n).map(|_| (next() % 9) as f64 - 4.0).collect();
                match r % 6 {
                    // one NaN, or two, at a random place
                    0 | 1 => {
                        for _ in 0..=r % 2 {
                            row[next() as usize % n] = f64::NAN;
                        }
                    }
                    // signed zeros and infinities sprinkled in
                    2 | 3 => {
                        for _ in 0..n.div_ceil(8) {
                            row[next() as usize % n] = specials[next() as usize % specials.len()];
                        }
                    }
                    // the extreme only in the tail, or only at index 0
                    4 => row[n - 1] = 100.0,
                    _ => row[0] = -100.0,
                }
                data.extend(row);
            }
            let x = Tensor::from_vec(data.clone(), &[rows, n])
                .unwrap()
                .cast(dtype)
                .unwrap();
            for max in [true, false] {
                let got = if max {
                    x.argmax(Some(1), false)
                } else {
                    x.argmin(Some(1), false)
                };
                let got = got.unwrap().to_vec::<i32>().unwrap();
                let want: Vec<i32> = data.chunks(n).map(|row| reference(row, max)).collect();
                assert_eq!(got, want, "{dtype:?} n={n} max={max}");
            }
        }
    }
}

/// The row scans read nothing outside their row: each row is a view into a
/// wider buffer whose padding holds NaN (which any read would report as the
/// answer) and values beyond the row's extremes, at lengths around the SIMD
/// chunk sizes. (valgrind cannot run the AVX-512 scan; this checks it.)
#[test]
fn argmax_row_scans_stay_inside_their_rows() {
    let pad = 40;
    for dtype in [DType::F32, DType::F64] {
        for n in [64usize, 127, 128, 129, 255, 256, 257, 300, 512, 1024, 1031] {
            for guard in [f64::NAN, 1e9, -1e9] {
                let rows = 3;
                let w = n + 2 * pad;
                let data: Vec<f64> = (0..rows * w)
                    .map(|i| {
                        let c = i % w;
                        if c < pad || c >= pad + n {
                            guard
                        } else {
                            ((c * 37 + i / w) % 101) as f64
                        }
                    })
                    .collect();
                let big = Tensor::from_vec(data.clone(), &[rows, w])
                    .unwrap()
                    .cast(dtype)
                    .unwrap();
                let x = big
                    .slice([Index::all(), Index::range(pad as isize, (pad + n) as isize)])
                    .unwrap();
                for max in [true, false] {
                    let got = if max {
                        x.argmax(Some(1), false)
                    } else {
                        x.argmin(Some(1), false)
                    };
                    let want: Vec<i32> = data
                        .chunks(w)
                        .map(|r| {
                            let row = &r[pad..pad + n];
                            let best = row.iter().copied().fold(row[0], |a, b| {
                                if (max && b > a) || (!max && b < a) {
                                    b
                                } else {
                                    a
                                }
                            });
                            row.iter().position(|&v| v == best).unwrap() as i32
                        })
                        .collect();
                    assert_eq!(
                        got.unwrap().to_vec::<i32>().unwrap(),
                        want,
                        "{dtype} n={n} {guard}"
                    );
                }
            }
        }
    }
}

#[test]
fn cumsum_cumprod_values() {
    let x = i32t(&[2, 3], &[1, 2, 3, 4, 5, 6]);
    assert_eq!(
        x.cumsum(-1).unwrap().to_string(),
        "[[1, 3, 6],\n [4, 9, 15]]"
    );
    assert_eq!(
        x.cumprod(1).unwrap().to_vec::<i32>().unwrap(),
        vec![1, 2, 6, 4, 20, 120]
    );
    assert_eq!(
        x.cumprod(0).unwrap().to_vec::<i32>().unwrap(),
        vec![1, 2, 3, 4, 10, 18]
    );
    let e = Tensor::zeros(DType::F32, &[0, 2]).unwrap();
    assert_eq!(e.cumsum(0).unwrap().shape(), &[0, 2]);
}

// ----- property tests against brute force -----

#[derive(Clone, Copy, Debug)]
enum Op {
    Sum,
    Prod,
    Max,
    Min,
    Mean,
    Var(usize),
    All,
    Any,
}

/// Brute-force reduction of the group values.
fn reference(op: Op, g: &[f64]) -> Option<f64> {
    let n = g.len();
    Some(match op {
        Op::Sum => g.iter().sum(),
        Op::Prod => g.iter().product(),
        Op::Max | Op::Min if n == 0 => return None,
        Op::Max | Op::Min if g.iter().any(|v| v.is_nan()) => f64::NAN,
        Op::Max => g.iter().cloned().fold(f64::NEG_INFINITY, f64::max),
        Op::Min => g.iter().cloned().fold(f64::INFINITY, f64::min),
        Op::Mean => g.iter().sum::<f64>() / n as f64,
        Op::Var(_) if n == 0 => f64::NAN,
        Op::Var(d) if d >= n => return None,
        Op::Var(d) => {
            let m = g.iter().sum::<f64>() / n as f64;
            g.iter().map(|v| (v - m) * (v - m)).sum::<f64>() / (n - d) as f64
        }
        Op::All => g.iter().all(|&v| v != 0.0) as u8 as f64,
        Op::Any => g.iter().any(|&v| v != 0.0) as u8 as f64,
    })
}

fn run_op(op: Op, x: &Tensor, axes: Option<&[isize]>, keep: bool) -> rnx::Result<Tensor> {
    match op {
        Op::Sum => x.sum(axes, keep),
        Op::Prod => x.prod(axes, keep),
        Op::Max => x.max(axes, keep),
        Op::Min => x.min(axes, keep),
        Op::Mean => x.mean(axes, keep),
        Op::Var(d) => x.var(axes, keep, d),
        Op::All => x.all(axes, keep),
        Op::Any => x.any(axes, keep),
    }
}

fn op_strategy() -> impl Strategy<Value = Op> {
    prop_oneof![
        Just(Op::Sum),
        Just(Op::Prod),
        Just(Op::Max),
        Just(Op::Min),
        Just(Op::Mean),
        (0usize..3).prop_map(Op::Var),
        Just(Op::All),
        Just(Op::Any),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn reductions_match_brute_force(
        spec in view_spec(4, 5),
        op in op_strategy(),
        mask in prop::collection::vec(any::<bool>(), 4),
        all_axes in any::<bool>(),
        keep in any::<bool>(),
        seed in any::<u64>(),
        nan in any::<bool>(),
    ) {
        let bshape = spec.base_shape();
        let n: usize = bshape.iter().product();
        let mut data: Vec<f64> = (0..n).map(|i| ((i as u64).wrapping_mul(2654435761).wrapping_add(seed) % 5) as f64 - 2.0).collect();
        if nan && n > 0 {
            data[(seed as usize) % n] = f64::NAN;
        }
        let base = Tensor::from_vec(data.clone(), &bshape).unwrap();
        let x = spec.view(&base);
        let l = spec.layout();
        let nd = spec.shape.len();
        let axes: Vec<usize> = if all_axes { (0..nd).collect() } else { (0..nd).filter(|&a| mask[a]).collect() };
        // Mix negative and positive axis numbers.
        let iaxes: Vec<isize> = axes.iter().map(|&a| if a % 2 == 1 { a as isize - nd as isize } else { a as isize }).collect();
        let arg = if all_axes { None } else { Some(&iaxes[..]) };
        let kshape: Vec<usize> = (0..nd).map(|a| if axes.contains(&a) { 1 } else { spec.shape[a] }).collect();
        let mut groups: Vec<Vec<f64>> = vec![Vec::new(); kshape.iter().product()];
        let kstr = rnx::Layout::contiguous(&kshape);
        for idx in indices(&spec.shape) {
            let k: Vec<usize> = (0..nd).map(|a| if axes.contains(&a) { 0 } else { idx[a] }).collect();
            groups[kstr.index_offset(&k)].push(at(&data, &l, &idx));
        }
        let want: Vec<Option<f64>> = groups.iter().map(|g| reference(op, g)).collect();
        let got = run_op(op, &x, arg, keep);
        // ddof >= the reduced count is an error even when the output is empty.
        let count: usize = axes.iter().map(|&a| spec.shape[a]).product();
        let ddof_err = matches!(op, Op::Var(d) if count > 0 && d >= count);
        if ddof_err || want.iter().any(|w| w.is_none()) {
            prop_assert!(got.is_err());
            return Ok(());
        }
        let got = got.unwrap();
        let oshape: Vec<usize> = if keep { kshape.clone() } else { (0..nd).filter(|a| !axes.contains(a)).map(|a| spec.shape[a]).collect() };
        prop_assert_eq!(got.shape(), &oshape[..]);
        let gv: Vec<f64> = match got.dtype() {
            DType::U8 => got.to_vec::<u8>().unwrap().iter().map(|&v| v as f64).collect(),
            _ => got.to_vec::<f64>().unwrap(),
        };
        for (g, w) in gv.iter().zip(&want) {
            let w = w.unwrap();
            if w.is_nan() {
                prop_assert!(g.is_nan(), "{:?}: got {} want NaN", op, g);
            } else if matches!(op, Op::Var(_)) {
                prop_assert!((g - w).abs() <= 1e-9 * (1.0 + w.abs()), "{:?}: got {} want {}", op, g, w);
            } else {
                prop_assert_eq!(*g, w, "{:?}", op);
            }
        }
    }

    #[test]
    fn arg_reductions_match_brute_force(
        spec in view_spec(3, 6),
        axis_pick in any::<usize>(),
        flat in any::<bool>(),
        max in any::<bool>(),
        keep in any::<bool>(),
        seed in any::<u64>(),
        nan in any::<bool>(),
    ) {
        let bshape = spec.base_shape();
        let n: usize = bshape.iter().product();
        let mut data: Vec<f32> = (0..n).map(|i| ((i as u64).wrapping_mul(0x9E3779B9).wrapping_add(seed) % 3) as f32).collect();
        if nan && n > 0 {
            data[(seed as usize / 3) % n] = f32::NAN;
        }
        let base = Tensor::from_vec(data.clone(), &bshape).unwrap();
        let x = spec.view(&base);
        let l = spec.layout();
        let nd = spec.shape.len();
        let axis = axis_pick % nd;
        let better = |a: f32, b: f32| !b.is_nan() && (a.is_nan() || if max { a > b } else { a < b });
        let r = if max { x.argmax(if flat { None } else { Some(axis as isize) }, keep) } else { x.argmin(if flat { None } else { Some(axis as isize) }, keep) };
        if flat {
            let vals: Vec<f32> = indices(&spec.shape).iter().map(|i| at(&data, &l, i)).collect();
            if vals.is_empty() { prop_assert!(r.is_err()); return Ok(()); }
            let mut bi = 0;
            for (i, &v) in vals.iter().enumerate() { if better(v, vals[bi]) { bi = i; } }
            let r = r.unwrap();
            prop_assert_eq!(r.shape().to_vec(), if keep { vec![1; nd] } else { vec![] });
            prop_assert_eq!(r.to_vec::<i32>().unwrap(), vec![bi as i32]);
            return Ok(());
        }
        let len = spec.shape[axis];
        let mut kshape = spec.shape.clone();
        kshape[axis] = 1;
        if len == 0 { prop_assert!(r.is_err()); return Ok(()); }
        let r = r.unwrap();
        let got = r.to_vec::<i32>().unwrap();
        for (o, k) in indices(&kshape).iter().enumerate() {
            let mut idx = k.clone();
            let mut bi = 0;
            let mut best = at(&data, &l, &idx);
            for j in 1..len {
                idx[axis] = j;
                let v = at(&data, &l, &idx);
                if better(v, best) { best = v; bi = j; }
            }
            prop_assert_eq!(got[o], bi as i32);
        }
    }

    #[test]
    fn scans_match_brute_force(
        spec in view_spec(3, 6),
        axis_pick in any::<usize>(),
        prod in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let bshape = spec.base_shape();
        let n: usize = bshape.iter().product();
        let data: Vec<i64> = (0..n).map(|i| ((i as u64).wrapping_mul(0x9E3779B9).wrapping_add(seed) % 7) as i64 - 3).collect();
        let base = Tensor::from_vec(data.clone(), &bshape).unwrap();
        let x = spec.view(&base);
        let l = spec.layout();
        let axis = axis_pick % spec.shape.len();
        let got = if prod { x.cumprod(axis as isize) } else { x.cumsum(axis as isize) }.unwrap();
        prop_assert_eq!(got.shape(), &spec.shape[..]);
        let got = got.to_vec::<i64>().unwrap();
        for (o, idx) in indices(&spec.shape).iter().enumerate() {
            let mut acc: i64 = if prod { 1 } else { 0 };
            let mut j = idx.clone();
            for k in 0..=idx[axis] {
                j[axis] = k;
                let v = at(&data, &l, &j);
                acc = if prod { acc.wrapping_mul(v) } else { acc.wrapping_add(v) };
            }
            prop_assert_eq!(got[o], acc);
        }
    }
}
