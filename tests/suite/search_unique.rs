//! searchsorted, bincount and unique: NumPy's examples and brute-force
//! references (the tensor helpers are take_scatter.rs's).

use crate::common::Rng;
use crate::take_scatter::{shape, tf32, ti32, ti64, vi32, vi64, view};
use rnx::ops::search::{BincountOptions, SearchSortedOptions, Side, UniqueOptions};
use rnx::{DType, Tensor};

#[test]
fn searchsorted_examples_and_brute_force() {
    let a = tf32(&[5], &[1., 2., 3., 4., 5.]);
    assert_eq!(vi64(&a.searchsorted(&tf32(&[1], &[3.])).unwrap()), [2]);
    let right = SearchSortedOptions {
        side: Side::Right,
        ..Default::default()
    };
    assert_eq!(
        vi64(&a.searchsorted_with(&tf32(&[1], &[3.]), right).unwrap()),
        [3]
    );
    let v = tf32(&[2, 3], &[-10., 10., 2., 3., f32::NAN, 0.]);
    let r = a.searchsorted(&v).unwrap();
    assert_eq!(
        (r.shape(), vi64(&r)),
        (&[2usize, 3][..], vec![0, 5, 1, 2, 5, 0])
    );
    // With NaN in the sorted array (NaN sorts last).
    let n = tf32(&[3], &[1., 2., f32::NAN]);
    assert_eq!(
        vi64(&n.searchsorted(&tf32(&[2], &[f32::NAN, 5.])).unwrap()),
        [2, 2]
    );
    // Brute force with sorter on i64 values beyond 2^53, both sides.
    let mut rng = Rng(77);
    for _ in 0..20 {
        let m = 1 + (rng.next() % 12) as usize;
        let xs: Vec<i64> = (0..m)
            .map(|_| (1i64 << 60) + (rng.next() % 8) as i64)
            .collect();
        let vs: Vec<i64> = (0..7)
            .map(|_| (1i64 << 60) + (rng.next() % 10) as i64 - 1)
            .collect();
        let x = ti64(&[m], &xs);
        let sorter = x.argsort(0, false).unwrap();
        let mut sorted = xs.clone();
        sorted.sort();
        for side in [Side::Left, Side::Right] {
            let o = SearchSortedOptions {
                side,
                sorter: Some(sorter.clone()),
            };
            let got = vi64(&x.searchsorted_with(&ti64(&[7], &vs), o).unwrap());
            let want: Vec<i64> = vs
                .iter()
                .map(|&v| {
                    sorted
                        .iter()
                        .filter(|&&s| if side == Side::Left { s < v } else { s <= v })
                        .count() as i64
                })
                .collect();
            assert_eq!(got, want);
        }
    }
}

#[test]
fn bincount_examples() {
    let x = ti32(&[7], &[0, 1, 1, 3, 2, 1, 7]);
    assert_eq!(vi64(&x.bincount().unwrap()), [1, 3, 1, 1, 0, 0, 0, 1]);
    let w = Tensor::create(DType::F64, &[6], &[0.3, 0.5, 0.2, 0.7, 1., -0.6]).unwrap();
    let x = ti64(&[6], &[0, 1, 1, 2, 2, 2]);
    let o = BincountOptions {
        weights: Some(w),
        minlength: 0,
    };
    let r = x.bincount_with(o).unwrap().to_vec::<f64>().unwrap();
    assert_eq!(r, [0.3, 0.5 + 0.2, 0.7 + 1. - 0.6]);
    let o = BincountOptions {
        weights: None,
        minlength: 4,
    };
    assert_eq!(
        vi64(&ti64(&[0], &[]).bincount_with(o).unwrap()),
        [0, 0, 0, 0]
    );
    let u = Tensor::create(DType::U8, &[3], &[2, 2, 0]).unwrap();
    assert_eq!(vi64(&u.flip(0).unwrap().bincount().unwrap()), [1, 0, 2]);
}

#[test]
fn unique_examples_and_brute_force() {
    let a = ti32(&[2, 3], &[1, 1, 2, 2, 3, 3]);
    assert_eq!(vi32(&a.unique().unwrap()), [1, 2, 3]);
    let all = UniqueOptions {
        return_index: true,
        return_inverse: true,
        return_counts: true,
    };
    let u = ti64(&[5], &[1, 2, 6, 4, 2]).unique_with(all).unwrap();
    assert_eq!(vi64(&u.values), [1, 2, 4, 6]);
    assert_eq!(vi64(u.indices.as_ref().unwrap()), [0, 1, 3, 2]);
    assert_eq!(vi64(u.inverse.as_ref().unwrap()), [0, 1, 3, 2, 1]);
    assert_eq!(vi64(u.counts.as_ref().unwrap()), [1, 2, 1, 1]);
    let f = tf32(&[6], &[f32::NAN, 0., 1., f32::NAN, -0., 1.])
        .unique_with(all)
        .unwrap();
    let fv = f.values.to_vec::<f32>().unwrap();
    assert_eq!(fv.len(), 3);
    assert!(fv[0] == 0. && fv[1] == 1. && fv[2].is_nan());
    assert_eq!(vi64(f.counts.as_ref().unwrap()), [2, 2, 2]);
    let mut rng = Rng(0x1111);
    for _ in 0..20 {
        let sh = shape(&mut rng, 1, 3);
        let x = view(&mut rng, &sh, DType::I16);
        let xv: Vec<i64> = x.cast(DType::I64).unwrap().to_vec::<i64>().unwrap();
        let u = x.unique_with(all).unwrap();
        let mut want = xv.clone();
        want.sort();
        want.dedup();
        let vals: Vec<i64> = u.values.cast(DType::I64).unwrap().to_vec::<i64>().unwrap();
        assert_eq!(vals, want);
        let inv = u.inverse.unwrap();
        assert_eq!(inv.shape(), sh.as_slice());
        assert_eq!(
            u.values
                .take(&inv, None)
                .unwrap()
                .cast(DType::I64)
                .unwrap()
                .to_vec::<i64>()
                .unwrap(),
            xv
        );
        let idx = vi64(&u.indices.unwrap());
        let cnt = vi64(&u.counts.unwrap());
        for (j, v) in want.iter().enumerate() {
            assert_eq!(idx[j], xv.iter().position(|x| x == v).unwrap() as i64);
            assert_eq!(cnt[j], xv.iter().filter(|&x| x == v).count() as i64);
        }
    }
}

/// -0 and 0 are one value, NaNs one value: the first occurrence's bits stand
/// for it (NumPy's stable order), also in a long input (the parallel sort).
#[test]
fn unique_keeps_the_first_occurrences_bits() {
    let u = tf32(&[4], &[-0.0, 1.0, 0.0, -0.0]).unique().unwrap();
    let v = u.to_vec::<f32>().unwrap();
    assert_eq!(v.len(), 2);
    assert!(v[0] == 0.0 && v[0].is_sign_negative() && v[1] == 1.0);
    let v = tf32(&[3], &[0.0, -0.0, 2.0])
        .unique()
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    assert!(v[0] == 0.0 && v[0].is_sign_positive());
    let n = 200_001;
    let mut x = vec![0.0f32; n];
    for (i, e) in x.iter_mut().enumerate() {
        *e = if i % 2 == 0 { 0.0 } else { -0.0 };
    }
    x[77] = f32::from_bits(0x7fc0_0042);
    x[5000] = f32::NAN;
    x[n - 1] = -0.0;
    let t = Tensor::from_vec(x, &[n]).unwrap();
    let all = UniqueOptions {
        return_index: true,
        return_inverse: true,
        return_counts: true,
    };
    let u = t.unique_with(all).unwrap();
    let v = u.values.to_vec::<f32>().unwrap();
    assert_eq!(v.len(), 2);
    assert_eq!((v[0].to_bits(), v[1].to_bits()), (0, 0x7fc0_0042));
    assert_eq!(vi64(u.indices.as_ref().unwrap()), [0, 77]);
    assert_eq!(vi64(u.counts.as_ref().unwrap()), [n as i64 - 2, 2]);
    let inv = vi64(u.inverse.as_ref().unwrap());
    assert_eq!((inv[76], inv[77], inv[5000], inv[n - 1]), (0, 1, 1, 0));
}
