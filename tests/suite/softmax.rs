//! softmax, log_softmax and logsumexp: the seed examples, stability with huge
//! inputs, NaN and infinity rules, halves, and property tests over axis sets on
//! strided views against an f64 brute-force reference.

use crate::views::*;
use proptest::prelude::*;
use rnx::{DType, Tensor};

#[test]
fn seed_softmax() {
    let x = Tensor::create(DType::F32, &[3], &[1., 2., 3.]).unwrap();
    let s = x.softmax(None).unwrap();
    let rounded: Vec<f32> = s
        .to_vec::<f32>()
        .unwrap()
        .iter()
        .map(|v| v.round())
        .collect();
    assert_eq!(rounded, vec![0., 0., 1.]);
    let total = s.sum(None, false).unwrap().item::<f32>().unwrap();
    assert_eq!(total, 1.0);
    // The exact values (f64 reference rounded to f32).
    let e: Vec<f64> = [1f64, 2., 3.].iter().map(|v| (v - 3.0).exp()).collect();
    let z: f64 = e.iter().sum();
    let want: Vec<f32> = e.iter().map(|v| (v / z) as f32).collect();
    let got = s.to_vec::<f32>().unwrap();
    for (g, w) in got.iter().zip(&want) {
        assert!((g - w).abs() <= 1e-7, "{got:?} vs {want:?}");
    }
}

#[test]
fn stable_for_large_inputs() {
    let x = Tensor::create(DType::F32, &[3], &[1000., 1001., 1002.]).unwrap();
    let s = x.softmax(None).unwrap().to_vec::<f32>().unwrap();
    assert!(s.iter().all(|v| v.is_finite()));
    assert!((s[2] - 0.66524096).abs() < 1e-6, "{s:?}");
    let l = x.log_softmax(None).unwrap().to_vec::<f32>().unwrap();
    assert!((l[2] - (-0.40760596)).abs() < 1e-5, "{l:?}");
    let lse = x.logsumexp(None, false).unwrap().item::<f32>().unwrap();
    assert!((lse - 1_002.407_6).abs() < 1e-3, "{lse}");
    let y = Tensor::create(DType::F64, &[2], &[-1000.0, -1000.0]).unwrap();
    let lse = y.logsumexp(None, true).unwrap();
    assert_eq!(lse.shape(), &[1]);
    assert!((lse.item::<f64>().unwrap() - (-1000.0 + 2f64.ln())).abs() < 1e-12);
}

#[test]
fn special_values_and_errors() {
    let x = Tensor::create(DType::F32, &[2, 2], &[f64::NAN, 1., 2., 3.]).unwrap();
    let s = x.softmax([1]).unwrap().to_vec::<f32>().unwrap();
    assert!(s[0].is_nan() && s[1].is_nan() && !s[2].is_nan());
    let e = Tensor::zeros(DType::F32, &[2, 0]).unwrap();
    let l = e.logsumexp([1], false).unwrap().to_vec::<f32>().unwrap();
    assert_eq!(l, vec![f32::NEG_INFINITY; 2]);
    assert_eq!(e.softmax(None).unwrap().shape(), &[2, 0]);
    let inf = Tensor::create(DType::F64, &[3], &[1.0, f64::INFINITY, 2.0]).unwrap();
    assert_eq!(
        inf.logsumexp(None, false).unwrap().item::<f64>().unwrap(),
        f64::INFINITY
    );
    let ni = Tensor::create(DType::F64, &[2], &[f64::NEG_INFINITY, 0.0]).unwrap();
    assert_eq!(
        ni.softmax(None).unwrap().to_vec::<f64>().unwrap(),
        vec![0.0, 1.0]
    );
    let i = Tensor::create(DType::I32, &[2], &[1, 2]).unwrap();
    assert!(i
        .softmax(None)
        .unwrap_err()
        .to_string()
        .starts_with("softmax:"));
    let x = Tensor::zeros(DType::F32, &[2]).unwrap();
    assert!(x
        .softmax([1])
        .unwrap_err()
        .to_string()
        .starts_with("softmax:"));
    let s = Tensor::scalar(DType::F32, 5.0).unwrap();
    assert_eq!(s.softmax(None).unwrap().item::<f32>().unwrap(), 1.0);
}

#[test]
fn halves_compute_in_f32() {
    let x = Tensor::create(DType::F16, &[4], &[0., 1., 2., 3.]).unwrap();
    let s = x.softmax(None).unwrap().to_vec::<rnx::f16>().unwrap();
    let e: Vec<f64> = (0..4).map(|v| (v as f64 - 3.0).exp()).collect();
    let z: f64 = e.iter().sum();
    for (g, w) in s.iter().zip(&e) {
        assert_eq!(*g, rnx::f16::from_f64(w / z));
    }
}

/// A NaN anywhere in a contiguous group, including the tail the maximum's
/// 16-lane loop leaves over, makes the whole group NaN; a group without
/// one is unaffected.
#[test]
fn nan_in_group_tail() {
    for dtype in [DType::F32, DType::F64] {
        let len = 16 * 5 + 3;
        for at in [0, 40, len - 3, len - 1] {
            let mut data: Vec<f64> = (0..2 * len).map(|i| (i % 7) as f64).collect();
            data[at] = f64::NAN;
            let x = Tensor::from_vec(data, &[2, len])
                .unwrap()
                .astype(dtype)
                .unwrap();
            let s = x.softmax(None).unwrap().astype(DType::F64).unwrap();
            let s = s.to_vec::<f64>().unwrap();
            assert!(s[..len].iter().all(|v| v.is_nan()), "{dtype} NaN at {at}");
            let total: f64 = s[len..].iter().sum();
            assert!(
                (total - 1.0).abs() < 1e-6,
                "{dtype} NaN at {at}: clean row sums to {total}"
            );
        }
    }
}

/// Long contiguous groups (several 512-element chunks; beyond 2^14 elements
/// the chunked path instead of whole-group passes) against an f64 reference,
/// and a NaN deep inside a group poisoning only that group.
#[test]
fn long_groups_match_reference() {
    for (dtype, tol) in [(DType::F32, 2e-6), (DType::F64, 1e-13)] {
        for len in [600usize, 5000, 20_000] {
            let rows = 3;
            let mut data: Vec<f64> = (0..rows * len)
                .map(|i| ((i * 7919) % 1013) as f64 / 41.0 - 12.0)
                .collect();
            data[len + 550] = f64::NAN; // row 1
            let x = Tensor::from_vec(data.clone(), &[rows, len])
                .unwrap()
                .astype(dtype)
                .unwrap();
            let got = x.softmax([-1]).unwrap();
            let got = got.astype(DType::F64).unwrap().to_vec::<f64>().unwrap();
            for r in 0..rows {
                // Reference on the values as stored in `dtype`.
                let row: Vec<f64> = data[r * len..(r + 1) * len]
                    .iter()
                    .map(|&v| {
                        if dtype == DType::F32 {
                            v as f32 as f64
                        } else {
                            v
                        }
                    })
                    .collect();
                let g = &got[r * len..(r + 1) * len];
                if r == 1 {
                    assert!(g.iter().all(|v| v.is_nan()), "{dtype} len {len}: NaN row");
                    continue;
                }
                let m = row.iter().cloned().fold(f64::NEG_INFINITY, f64::max);
                let z: f64 = row.iter().map(|v| (v - m).exp()).sum();
                for (k, (g, v)) in g.iter().zip(&row).enumerate() {
                    let w = (v - m).exp() / z;
                    assert!(
                        (g - w).abs() <= tol * w,
                        "{dtype} len {len} row {r} at {k}: {g} vs {w}"
                    );
                }
            }
        }
    }
}

/// Inputs from 4096 elements whose groups are strided (transposed and
/// permuted views) are staged into a contiguous copy first: the results match
/// those of the same op on a contiguous copy of the view (bit for bit where
/// the group is one run in both; within a few ulps where the contiguous
/// copy's group has several runs and so sums in other chunks).
#[test]
fn strided_groups_match_contiguous() {
    for (dtype, tol) in [(DType::F32, 4e-7), (DType::F64, 1e-15)] {
        for (bshape, perm, axes, exact) in [
            (vec![96usize, 80], vec![1usize, 0], vec![-1isize], true),
            (vec![96, 80], vec![1, 0], vec![0], true),
            (vec![20, 30, 40], vec![2, 0, 1], vec![0], true),
            (vec![20, 30, 40], vec![2, 0, 1], vec![0, 2], false),
            (vec![20, 30, 40], vec![1, 2, 0], vec![-1], true),
        ] {
            let n: usize = bshape.iter().product();
            let data: Vec<f64> = (0..n)
                .map(|i| ((i * 7919) % 1000) as f64 / 37.0 - 13.0)
                .collect();
            let base = Tensor::from_vec(data, &bshape)
                .unwrap()
                .astype(dtype)
                .unwrap();
            let x = base
                .transpose(perm.iter().map(|&p| p as isize).collect::<Vec<_>>())
                .unwrap();
            let xc = x.contiguous().unwrap();
            let what = format!("{dtype} {bshape:?} {perm:?} {axes:?}");
            let check = |got: Tensor, want: Tensor, op: &str| {
                let f = |t: Tensor| t.astype(DType::F64).unwrap().to_vec::<f64>().unwrap();
                let (g, w) = (f(got), f(want));
                assert_eq!(g.len(), w.len());
                for (k, (g, w)) in g.iter().zip(&w).enumerate() {
                    let ok = if exact {
                        g == w
                    } else {
                        (g - w).abs() <= tol * w.abs()
                    };
                    assert!(ok, "{op} {what} at {k}: {g} vs {w}");
                }
            };
            let ax = Some(&axes[..]);
            check(x.softmax(ax).unwrap(), xc.softmax(ax).unwrap(), "softmax");
            check(
                x.log_softmax(ax).unwrap(),
                xc.log_softmax(ax).unwrap(),
                "log_softmax",
            );
            check(
                x.logsumexp(ax, true).unwrap(),
                xc.logsumexp(ax, true).unwrap(),
                "logsumexp",
            );
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn softmax_family_matches_reference(
        spec in view_spec(3, 5),
        mask in prop::collection::vec(any::<bool>(), 3),
        default_axes in any::<bool>(),
        which in 0usize..3,
        keep in any::<bool>(),
        seed in any::<u64>(),
    ) {
        let bshape = spec.base_shape();
        let n: usize = bshape.iter().product();
        let data: Vec<f64> = (0..n).map(|i| ((i as u64).wrapping_mul(0x9E3779B97F4A7C15).wrapping_add(seed) >> 40) as f64 / 1e5 - 50.0).collect();
        let base = Tensor::from_vec(data.clone(), &bshape).unwrap();
        let x = spec.view(&base);
        let l = spec.layout();
        let nd = spec.shape.len();
        let axes: Vec<usize> = if default_axes {
            if which == 2 { (0..nd).collect() } else { vec![nd - 1] }
        } else {
            (0..nd).filter(|&a| mask[a]).collect()
        };
        let iaxes: Vec<isize> = axes.iter().map(|&a| a as isize - nd as isize).collect();
        let arg = if default_axes { None } else { Some(&iaxes[..]) };
        let got = match which {
            0 => x.softmax(arg),
            1 => x.log_softmax(arg),
            _ => x.logsumexp(arg, keep),
        }.unwrap();
        let kshape: Vec<usize> = (0..nd).map(|a| if axes.contains(&a) { 1 } else { spec.shape[a] }).collect();
        let kl = rnx::Layout::contiguous(&kshape);
        let mut m = vec![f64::NEG_INFINITY; kshape.iter().product()];
        let all = indices(&spec.shape);
        let key = |idx: &[usize]| kl.index_offset(&(0..nd).map(|a| if axes.contains(&a) { 0 } else { idx[a] }).collect::<Vec<_>>());
        for idx in &all { let k = key(idx); m[k] = m[k].max(at(&data, &l, idx)); }
        let mut s = vec![0.0; m.len()];
        for idx in &all { let k = key(idx); s[k] += (at(&data, &l, idx) - m[k]).exp(); }
        let gv = got.to_vec::<f64>().unwrap();
        if which == 2 {
            let oshape: Vec<usize> = if keep { kshape.clone() } else { (0..nd).filter(|a| !axes.contains(a)).map(|a| spec.shape[a]).collect() };
            prop_assert_eq!(got.shape(), &oshape[..]);
            for (k, g) in gv.iter().enumerate() {
                let w = if s[k] == 0.0 { f64::NEG_INFINITY } else { m[k] + s[k].ln() };
                prop_assert!(*g == w || (g - w).abs() <= 1e-12 * (1.0 + w.abs()), "{} vs {}", g, w);
            }
        } else {
            prop_assert_eq!(got.shape(), &spec.shape[..]);
            for (o, idx) in all.iter().enumerate() {
                let k = key(idx);
                let v = at(&data, &l, idx);
                let w = if which == 0 { (v - m[k]).exp() / s[k] } else { v - m[k] - s[k].ln() };
                prop_assert!((gv[o] - w).abs() <= 1e-12 * (1.0 + w.abs()), "{} vs {}", gv[o], w);
            }
        }
    }
}
