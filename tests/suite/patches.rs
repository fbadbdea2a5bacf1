//! Sliding-window patches (`extract_patches` = PyTorch `unfold`,
//! `combine_patches` = `fold`): a brute-force unfold reference on random
//! shapes and options, the round trips (non-overlapping windows give x back;
//! overlapping ones give x times the coverage count), 1-D and 3-D windows,
//! dtypes, strided inputs and the errors.

use proptest::prelude::*;
use rnx::ops::patches::PatchOptions;
use rnx::{DType, Tensor};

fn t(dtype: DType, shape: &[usize], v: &[f64]) -> Tensor {
    Tensor::create(DType::F64, shape, v)
        .unwrap()
        .cast(dtype)
        .unwrap()
}

/// PyTorch's unfold of one [C, H, W] image: [C * kh * kw, L].
#[allow(clippy::too_many_arguments)]
fn ref_unfold(
    x: &[f64],
    c: usize,
    h: i64,
    w: i64,
    k: [i64; 2],
    s: [i64; 2],
    p: [i64; 2],
    d: [i64; 2],
) -> (Vec<f64>, usize) {
    let oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) / s[0] + 1;
    let ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) / s[1] + 1;
    let mut r = vec![];
    for ci in 0..c as i64 {
        for a in 0..k[0] {
            for b in 0..k[1] {
                for i in 0..oh {
                    for j in 0..ow {
                        let y = i * s[0] - p[0] + a * d[0];
                        let z = j * s[1] - p[1] + b * d[1];
                        r.push(if y >= 0 && y < h && z >= 0 && z < w {
                            x[((ci * h + y) * w + z) as usize]
                        } else {
                            0.0
                        });
                    }
                }
            }
        }
    }
    (r, (oh * ow) as usize)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn unfold_matches_reference_and_fold_counts_coverage(
        c in 1usize..3, h in 1i64..7, w in 1i64..7,
        k in [1i64..4, 1i64..4], s in [1i64..3, 1i64..3], p in [0i64..2, 0i64..2], d in [1i64..3, 1i64..3],
    ) {
        let n = 2usize;
        let v: Vec<f64> = (0..n * c * (h * w) as usize).map(|i| (i % 19) as f64 - 9.0).collect();
        let x = t(DType::F64, &[n, c, h as usize, w as usize], &v);
        let o = PatchOptions {
            stride: vec![s[0] as usize, s[1] as usize],
            dilation: vec![d[0] as usize, d[1] as usize],
            padding: vec![p[0] as usize, p[1] as usize],
        };
        let ku = [k[0] as usize, k[1] as usize];
        let fits = h + 2 * p[0] > d[0] * (k[0] - 1) && w + 2 * p[1] > d[1] * (k[1] - 1);
        if !fits {
            let e = x.extract_patches(&ku, &o).unwrap_err().to_string();
            prop_assert!(e.starts_with("extract_patches:"), "{}", e);
            return Ok(());
        }
        let y = x.extract_patches(&ku, &o).unwrap();
        let got = y.to_vec::<f64>().unwrap();
        let plane = c * (h * w) as usize;
        let mut l = 0;
        for b in 0..n {
            let (r, ll) = ref_unfold(&v[b * plane..(b + 1) * plane], c, h, w, k, s, p, d);
            l = ll;
            prop_assert_eq!(&got[b * r.len()..(b + 1) * r.len()], &r[..]);
        }
        prop_assert_eq!(y.shape(), &[n, c * ku[0] * ku[1], l]);
        // fold(unfold(x)) = x * (how many window taps land on each element).
        let back = y.combine_patches(&[h as usize, w as usize], &ku, &o).unwrap();
        prop_assert_eq!(back.shape(), x.shape());
        let back = back.to_vec::<f64>().unwrap();
        let oh = (h + 2 * p[0] - d[0] * (k[0] - 1) - 1) / s[0] + 1;
        let ow = (w + 2 * p[1] - d[1] * (k[1] - 1) - 1) / s[1] + 1;
        let mut count = vec![0.0; (h * w) as usize];
        for i in 0..oh { for j in 0..ow { for a in 0..k[0] { for bb in 0..k[1] {
            let yy = i * s[0] - p[0] + a * d[0];
            let zz = j * s[1] - p[1] + bb * d[1];
            if yy >= 0 && yy < h && zz >= 0 && zz < w {
                count[(yy * w + zz) as usize] += 1.0;
            }
        }}}}
        for (q, (&bv, &xv)) in back.iter().zip(&v).enumerate() {
            prop_assert_eq!(bv, xv * count[q % (h * w) as usize]);
        }
    }
}

#[test]
fn non_overlapping_round_trip_every_dtype_and_strided_input() {
    let v: Vec<f64> = (0..2 * 3 * 6 * 4).map(|i| (i % 50) as f64).collect();
    let base = t(DType::F64, &[2, 3, 4, 6], &v);
    // A transposed view: [2, 3, 6, 4].
    let tv = base.transpose([0isize, 1, 3, 2]).unwrap();
    let o = PatchOptions {
        stride: vec![2],
        ..Default::default()
    };
    for dt in [
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
        DType::C64,
        DType::I8,
        DType::U8,
        DType::I16,
        DType::U16,
        DType::I32,
        DType::U32,
        DType::I64,
        DType::U64,
    ] {
        let x = tv.cast(dt).unwrap();
        let p = x.extract_patches(&[2, 2], &o).unwrap();
        assert_eq!(p.shape(), &[2, 12, 6]);
        assert_eq!(p.dtype(), dt);
        let back = p.combine_patches(&[6, 4], &[2, 2], &o).unwrap();
        assert_eq!(
            back.cast(DType::F64).unwrap().to_vec::<f64>().unwrap(),
            tv.copy().unwrap().to_vec::<f64>().unwrap(),
            "{dt}"
        );
    }
}

#[test]
fn one_and_three_spatial_axes_and_unbatched() {
    // 1-D: [C=1, L=5], kernel 3, padding 1: windows centred on each element.
    let x = t(DType::I32, &[1, 5], &[1., 2., 3., 4., 5.]);
    let o = PatchOptions {
        padding: vec![1],
        ..Default::default()
    };
    let p = x.extract_patches(&[3], &o).unwrap();
    assert_eq!(p.shape(), &[3, 5]);
    assert_eq!(
        p.to_vec::<i32>().unwrap(),
        vec![0, 1, 2, 3, 4, 1, 2, 3, 4, 5, 2, 3, 4, 5, 0]
    );
    // fold of the same: each element counted 3 times (edges twice).
    let back = p.combine_patches(&[5], &[3], &o).unwrap();
    assert_eq!(back.to_vec::<i32>().unwrap(), vec![2, 6, 9, 12, 10]);
    // 3-D: a [1, 1, 2, 2, 2] volume with a 2x2x2 kernel is one column.
    let v: Vec<f64> = (0..8).map(|i| i as f64).collect();
    let x = t(DType::F32, &[1, 1, 2, 2, 2], &v);
    let p = x
        .extract_patches(&[2, 2, 2], &PatchOptions::default())
        .unwrap();
    assert_eq!(p.shape(), &[1, 8, 1]);
    assert_eq!(
        p.to_vec::<f32>().unwrap(),
        (0..8).map(|i| i as f32).collect::<Vec<_>>()
    );
}

#[test]
fn errors_name_the_function() {
    let x = Tensor::zeros(DType::F32, &[1, 1, 3, 3]).unwrap();
    let d = PatchOptions::default();
    let msg = |r: rnx::Result<Tensor>| r.unwrap_err().to_string();
    assert!(msg(x.extract_patches(&[4, 4], &d)).starts_with("extract_patches:"));
    assert!(msg(x.extract_patches(&[0, 2], &d)).starts_with("extract_patches:"));
    assert!(msg(x.extract_patches(&[2], &d)).starts_with("extract_patches:"));
    let o = PatchOptions {
        stride: vec![1, 0],
        ..Default::default()
    };
    assert!(msg(x.extract_patches(&[2, 2], &o)).starts_with("extract_patches:"));
    let o = PatchOptions {
        dilation: vec![1, 1, 1],
        ..Default::default()
    };
    assert!(msg(x.extract_patches(&[2, 2], &o)).starts_with("extract_patches:"));
    // combine: the column count must be the number of windows, the rows a
    // multiple of the kernel size.
    let p = Tensor::zeros(DType::F32, &[1, 4, 4]).unwrap();
    assert!(p.combine_patches(&[3, 3], &[2, 2], &d).is_ok());
    let e = msg(p.combine_patches(&[4, 4], &[2, 2], &d));
    assert!(
        e.starts_with("combine_patches:") && e.contains("windows"),
        "{e}"
    );
    assert!(msg(p.combine_patches(&[3, 3], &[3, 1], &d)).starts_with("combine_patches:"));
    assert!(msg(p.combine_patches(&[3], &[2, 2], &d)).starts_with("combine_patches:"));
}
