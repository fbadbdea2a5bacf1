//! Pooling (`max_pool1d/2d` with and without indices, `min_pool1d/2d`,
//! `avg_pool1d/2d`): PyTorch's documented shape rules and examples, a
//! brute-force transcription of PyTorch's CPU loops on random shapes and
//! options (proptest), every real and integer dtype, strided inputs, errors,
//! and one GPU run against the CPU.

use proptest::prelude::*;
use rnx::ops::pool::PoolOptions;
use rnx::{DType, Device, Tensor};

fn t(dtype: DType, shape: &[usize], v: &[f64]) -> Tensor {
    Tensor::create(DType::F64, shape, v)
        .unwrap()
        .cast(dtype)
        .unwrap()
}

/// PyTorch's `pooling_output_shape`.
fn out_len(len: i64, k: i64, s: i64, p: i64, d: i64, ceil: bool) -> i64 {
    let num = len + 2 * p - d * (k - 1) - 1 + if ceil { s - 1 } else { 0 };
    let mut o = num.div_euclid(s) + 1;
    if ceil && (o - 1) * s >= len + p {
        o -= 1;
    }
    o
}

#[derive(Debug)]
struct Geo {
    k: [i64; 2],
    s: [i64; 2],
    p: [i64; 2],
    d: [i64; 2],
    ceil: bool,
}

/// PyTorch's max pool CPU loop over one [H, W] plane: (values, indices,
/// whether some window holds no input element: possible with dilation, where
/// the result is unspecified).
fn ref_max(x: &[f64], h: i64, w: i64, g: &Geo, min: bool) -> (Vec<f64>, Vec<i64>, bool) {
    let oh = out_len(h, g.k[0], g.s[0], g.p[0], g.d[0], g.ceil);
    let ow = out_len(w, g.k[1], g.s[1], g.p[1], g.d[1], g.ceil);
    let (mut vals, mut idx, mut empty) = (vec![], vec![], false);
    for i in 0..oh {
        for j in 0..ow {
            let mut hs = i * g.s[0] - g.p[0];
            let mut ws = j * g.s[1] - g.p[1];
            let he = (hs + (g.k[0] - 1) * g.d[0] + 1).min(h);
            let we = (ws + (g.k[1] - 1) * g.d[1] + 1).min(w);
            while hs < 0 {
                hs += g.d[0];
            }
            while ws < 0 {
                ws += g.d[1];
            }
            let mut best = if min {
                f64::INFINITY
            } else {
                f64::NEG_INFINITY
            };
            let mut bi = hs * w + ws;
            empty |= hs >= he || ws >= we;
            let mut y = hs;
            while y < he {
                let mut xx = ws;
                while xx < we {
                    let v = x[(y * w + xx) as usize];
                    let better = if min { v < best } else { v > best };
                    if better || v.is_nan() {
                        best = v;
                        bi = y * w + xx;
                    }
                    xx += g.d[1];
                }
                y += g.d[0];
            }
            vals.push(best);
            idx.push(bi);
        }
    }
    (vals, idx, empty)
}

/// PyTorch's avg_pool2d CPU loop (dilation 1) over one plane.
fn ref_avg(x: &[f64], h: i64, w: i64, g: &Geo, include: bool) -> Vec<f64> {
    let oh = out_len(h, g.k[0], g.s[0], g.p[0], 1, g.ceil);
    let ow = out_len(w, g.k[1], g.s[1], g.p[1], 1, g.ceil);
    let mut r = vec![];
    for i in 0..oh {
        for j in 0..ow {
            let mut hs = i * g.s[0] - g.p[0];
            let mut ws = j * g.s[1] - g.p[1];
            let mut he = (hs + g.k[0]).min(h + g.p[0]);
            let mut we = (ws + g.k[1]).min(w + g.p[1]);
            let pool = (he - hs) * (we - ws);
            hs = hs.max(0);
            ws = ws.max(0);
            he = he.min(h);
            we = we.min(w);
            let mut sum = 0.0;
            for y in hs..he {
                for xx in ws..we {
                    sum += x[(y * w + xx) as usize];
                }
            }
            let div = if include { pool } else { (he - hs) * (we - ws) };
            r.push(sum / div as f64);
        }
    }
    r
}

fn opts(g: &Geo) -> PoolOptions {
    PoolOptions {
        stride: vec![g.s[0] as usize, g.s[1] as usize],
        padding: vec![g.p[0] as usize, g.p[1] as usize],
        dilation: vec![g.d[0] as usize, g.d[1] as usize],
        ceil_mode: g.ceil,
        count_include_pad: true,
    }
}

fn geo() -> impl Strategy<Value = Geo> {
    (
        [1i64..=4, 1i64..=4],
        [1i64..=3, 1i64..=3],
        [0i64..=2, 0i64..=2],
        [1i64..=2, 1i64..=2],
        any::<bool>(),
    )
        .prop_map(|(k, s, p, d, ceil)| Geo {
            k,
            s,
            p: [p[0].min(k[0] / 2), p[1].min(k[1] / 2)],
            d,
            ceil,
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn max_min_pool2d_match_pytorch_loops(
        h in 1i64..8, w in 1i64..8, c in 1usize..3, g in geo(), seed in any::<u64>(), int in any::<bool>(),
    ) {
        let n = 2usize;
        let plane = (h * w) as usize;
        // Small integers, so windows hold ties (the first maximum wins).
        let mut s = seed | 1;
        let v: Vec<f64> = (0..n * c * plane).map(|_| {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            (s % 7) as f64 - 3.0
        }).collect();
        let dt = if int { DType::I16 } else { DType::F32 };
        let x = t(dt, &[n, c, h as usize, w as usize], &v);
        let o = opts(&g);
        let oh = out_len(h, g.k[0], g.s[0], g.p[0], g.d[0], g.ceil);
        let ow = out_len(w, g.k[1], g.s[1], g.p[1], g.d[1], g.ceil);
        let k = [g.k[0] as usize, g.k[1] as usize];
        if oh < 1 || ow < 1 {
            let e = x.max_pool2d(k, &o).unwrap_err().to_string();
            prop_assert!(e.starts_with("max_pool2d:"), "{}", e);
            return Ok(());
        }
        let (mv, mi) = x.max_pool2d_with_indices(k, &o).unwrap();
        let mn = x.min_pool2d(k, &o).unwrap();
        let plain = x.max_pool2d(k, &o).unwrap();
        prop_assert_eq!(mv.shape(), &[n, c, oh as usize, ow as usize]);
        prop_assert_eq!(mi.dtype(), DType::I64);
        let (got_v, got_i, got_n) = (mv.cast(DType::F64).unwrap().to_vec::<f64>().unwrap(),
            mi.to_vec::<i64>().unwrap(), mn.cast(DType::F64).unwrap().to_vec::<f64>().unwrap());
        prop_assert_eq!(&plain.cast(DType::F64).unwrap().to_vec::<f64>().unwrap(), &got_v);
        let per = (oh * ow) as usize;
        for b in 0..n * c {
            let xs = &v[b * plane..(b + 1) * plane];
            let (rv, ri, empty) = ref_max(xs, h, w, &g, false);
            let (rn, _, _) = ref_max(xs, h, w, &g, true);
            if empty {
                return Ok(());
            }
            prop_assert_eq!(&got_v[b * per..(b + 1) * per], &rv[..]);
            prop_assert_eq!(&got_i[b * per..(b + 1) * per], &ri[..]);
            prop_assert_eq!(&got_n[b * per..(b + 1) * per], &rn[..]);
        }
    }

    #[test]
    fn avg_pool2d_matches_pytorch_loop(
        h in 1i64..8, w in 1i64..8, g in geo(), include in any::<bool>(), seed in any::<u64>(),
    ) {
        let g = Geo { d: [1, 1], ..g };
        let oh = out_len(h, g.k[0], g.s[0], g.p[0], 1, g.ceil);
        let ow = out_len(w, g.k[1], g.s[1], g.p[1], 1, g.ceil);
        let mut s = seed | 1;
        let v: Vec<f64> = (0..(2 * h * w) as usize).map(|_| {
            s ^= s << 13; s ^= s >> 7; s ^= s << 17;
            (s % 1000) as f64 / 100.0 - 5.0
        }).collect();
        let x = t(DType::F64, &[2, h as usize, w as usize], &v);
        let o = PoolOptions { count_include_pad: include, ..opts(&g) };
        let k = [g.k[0] as usize, g.k[1] as usize];
        if oh < 1 || ow < 1 {
            prop_assert!(x.avg_pool2d(k, &o).is_err());
            return Ok(());
        }
        let y = x.avg_pool2d(k, &o).unwrap();
        prop_assert_eq!(y.shape(), &[2, oh as usize, ow as usize]);
        let got = y.to_vec::<f64>().unwrap();
        let plane = (h * w) as usize;
        let per = (oh * ow) as usize;
        for b in 0..2 {
            let r = ref_avg(&v[b * plane..(b + 1) * plane], h, w, &g, include);
            for (a, e) in got[b * per..(b + 1) * per].iter().zip(&r) {
                prop_assert!((a - e).abs() <= 1e-12 * (1.0 + e.abs()), "{} vs {}", a, e);
            }
        }
    }
}

#[test]
fn pytorch_shape_examples() {
    // torch.nn.MaxPool2d(3, stride=2) on 50x32 -> 24x15;
    // MaxPool2d((3, 2), stride=(2, 1)) -> 24x31.
    let x = Tensor::zeros(DType::F32, &[2, 3, 50, 32]).unwrap();
    let o = PoolOptions {
        stride: vec![2],
        ..Default::default()
    };
    assert_eq!(x.max_pool2d([3, 3], &o).unwrap().shape(), &[2, 3, 24, 15]);
    let o = PoolOptions {
        stride: vec![2, 1],
        ..Default::default()
    };
    assert_eq!(x.max_pool2d([3, 2], &o).unwrap().shape(), &[2, 3, 24, 31]);
    // AvgPool1d(3, stride=2) on [[[1, 2, 3, 4, 5, 6, 7]]] -> [[[2, 4, 6]]].
    let x = t(DType::F32, &[1, 1, 7], &[1., 2., 3., 4., 5., 6., 7.]);
    let o = PoolOptions {
        stride: vec![2],
        ..Default::default()
    };
    assert_eq!(
        x.avg_pool1d(3, &o).unwrap().to_vec::<f32>().unwrap(),
        vec![2., 4., 6.]
    );
}

#[test]
fn ceil_mode_drops_a_window_starting_in_the_padding() {
    // len 5, kernel 2, stride 2, padding 1, ceil: rounding up gives 4
    // windows but the 4th would start at 6 - 1 = 5 >= len (in the right
    // padding): 3, as PyTorch.
    let x = t(DType::F64, &[1, 5], &[1., 2., 3., 4., 5.]);
    let o = PoolOptions {
        padding: vec![1],
        ceil_mode: true,
        ..Default::default()
    };
    let y = x.max_pool1d(2, &o).unwrap();
    assert_eq!(y.to_vec::<f64>().unwrap(), vec![1., 3., 5.]);
    // len 5, kernel 2, stride 2, ceil: the last window holds one element,
    // and the average divides by 1 (the extra margin is not padding).
    let x = t(DType::F64, &[1, 5], &[1., 2., 3., 4., 5.]);
    let o = PoolOptions {
        ceil_mode: true,
        ..Default::default()
    };
    assert_eq!(
        x.avg_pool1d(2, &o).unwrap().to_vec::<f64>().unwrap(),
        vec![1.5, 3.5, 5.0]
    );
}

#[test]
fn every_dtype_and_strided_input() {
    let base = t(
        DType::F64,
        &[1, 2, 4, 6],
        &(0..48).map(|i| ((i * 7) % 23) as f64).collect::<Vec<_>>(),
    );
    // A transposed view ([1, 2, 6, 4]) pooled equals its copy pooled.
    let tv = base.transpose([0isize, 1, 3, 2]).unwrap();
    let o = PoolOptions {
        stride: vec![1],
        padding: vec![1],
        ..Default::default()
    };
    // (fp8 and the 4-bit integers cannot hold the test values exactly:
    // tested in fp8.rs and int4_ops.rs.)
    for dt in DType::ALL
        .into_iter()
        .filter(|d| !d.is_complex() && !d.is_fp8() && !d.is_int4())
    {
        let x = tv.cast(dt).unwrap();
        let want = tv.max_pool2d([3, 3], &o).unwrap();
        let got = x.max_pool2d([3, 3], &o).unwrap();
        assert_eq!(got.dtype(), dt);
        assert_eq!(
            got.cast(DType::F64).unwrap().to_vec::<f64>().unwrap(),
            want.to_vec::<f64>().unwrap(),
            "{dt}"
        );
        let got = x.min_pool2d([3, 3], &o).unwrap();
        let want = tv.min_pool2d([3, 3], &o).unwrap();
        assert_eq!(
            got.cast(DType::F64).unwrap().to_vec::<f64>().unwrap(),
            want.to_vec::<f64>().unwrap(),
            "{dt}"
        );
        let (_, i) = x.max_pool2d_with_indices([3, 3], &o).unwrap();
        let (_, wi) = tv
            .copy()
            .unwrap()
            .max_pool2d_with_indices([3, 3], &o)
            .unwrap();
        assert_eq!(i.to_vec::<i64>().unwrap(), wi.to_vec::<i64>().unwrap());
        if dt.is_float() {
            let a = x.avg_pool2d([2, 2], &PoolOptions::default()).unwrap();
            assert_eq!(a.dtype(), dt);
        } else {
            let e = x.avg_pool2d([2, 2], &PoolOptions::default()).unwrap_err();
            assert!(e.to_string().contains("avg_pool2d") && e.to_string().contains("cast"));
        }
    }
    // Integer extremes survive the padding (it uses the dtype's minimum).
    let x = t(DType::I64, &[1, 3], &[-5., -7., -9.]);
    let o = PoolOptions {
        padding: vec![1],
        stride: vec![1],
        ..Default::default()
    };
    let y = x.cast(DType::I8).unwrap().max_pool1d(3, &o).unwrap();
    assert_eq!(y.to_vec::<i8>().unwrap(), vec![-5, -5, -7]);
    let x = t(DType::U8, &[1, 3], &[255., 200., 0.]);
    assert_eq!(
        x.min_pool1d(3, &o).unwrap().to_vec::<u8>().unwrap(),
        vec![200, 0, 0]
    );
}

#[test]
fn indices_with_nan_and_all_padding_values() {
    let x = t(DType::F32, &[1, 1, 4], &[1., f64::NAN, 5., 2.]);
    let (v, i) = x
        .max_pool1d_with_indices(2, &PoolOptions::default())
        .unwrap();
    let v = v.to_vec::<f32>().unwrap();
    assert!(v[0].is_nan() && v[1] == 5.0);
    assert_eq!(i.to_vec::<i64>().unwrap(), vec![1, 2]);
    // A window whose input elements equal the padding value (-inf) reports
    // its first element inside the input, as PyTorch.
    let x = t(
        DType::F32,
        &[1, 1, 3],
        &[f64::NEG_INFINITY, f64::NEG_INFINITY, 1.],
    );
    let o = PoolOptions {
        padding: vec![1],
        stride: vec![1],
        ..Default::default()
    };
    let (_, i) = x.max_pool1d_with_indices(3, &o).unwrap();
    assert_eq!(i.to_vec::<i64>().unwrap(), vec![0, 2, 2]);
    // Dilation 2 with padding 1: the first window's taps are -1, 1, 3.
    let x = t(DType::I32, &[1, 5], &[9., 0., 0., 0., 0.]);
    let o = PoolOptions {
        padding: vec![1],
        dilation: vec![2],
        stride: vec![1],
        ..Default::default()
    };
    let (v, i) = x.max_pool1d_with_indices(3, &o).unwrap();
    assert_eq!(v.to_vec::<i32>().unwrap(), vec![0, 9, 0]);
    assert_eq!(i.to_vec::<i64>().unwrap(), vec![1, 0, 1]);
}

#[test]
fn unbatched_equals_batched() {
    let v: Vec<f64> = (0..30).map(|i| ((i * 11) % 17) as f64).collect();
    let x = t(DType::F32, &[3, 10], &v);
    let xb = x.reshape([1, 3, 10]).unwrap();
    let o = PoolOptions {
        stride: vec![2],
        padding: vec![1],
        ..Default::default()
    };
    let a = x.max_pool1d(3, &o).unwrap();
    let b = xb.max_pool1d(3, &o).unwrap();
    assert_eq!(a.shape(), &[3, 5]);
    assert_eq!(a.to_vec::<f32>().unwrap(), b.to_vec::<f32>().unwrap());
    let a = x.avg_pool1d(3, &o).unwrap();
    let b = xb.avg_pool1d(3, &o).unwrap();
    assert_eq!(a.to_vec::<f32>().unwrap(), b.to_vec::<f32>().unwrap());
}

#[test]
fn errors_name_the_function() {
    let x = Tensor::zeros(DType::F32, &[1, 1, 4, 4]).unwrap();
    let msg = |r: rnx::Result<Tensor>| r.unwrap_err().to_string();
    // Padding above half the kernel (PyTorch's check).
    let o = PoolOptions {
        padding: vec![2],
        ..Default::default()
    };
    let e = msg(x.max_pool2d([3, 3], &o));
    assert!(e.starts_with("max_pool2d:") && e.contains("half"), "{e}");
    assert!(msg(x.max_pool2d([0, 3], &PoolOptions::default())).starts_with("max_pool2d:"));
    let o = PoolOptions {
        stride: vec![0],
        ..Default::default()
    };
    assert!(msg(x.avg_pool2d([2, 2], &o)).starts_with("avg_pool2d:"));
    // A kernel longer than the input: no window.
    let e = msg(x.min_pool2d([5, 5], &PoolOptions::default()));
    assert!(
        e.starts_with("min_pool2d:") && e.contains("too small"),
        "{e}"
    );
    // Wrong rank and wrong option length.
    assert!(msg(x.max_pool1d(2, &PoolOptions::default())).starts_with("max_pool1d:"));
    let o = PoolOptions {
        stride: vec![1, 1, 1],
        ..Default::default()
    };
    assert!(msg(x.max_pool2d([2, 2], &o)).starts_with("max_pool2d:"));
    let c = Tensor::zeros(DType::C32, &[1, 1, 4]).unwrap();
    assert!(msg(c.max_pool1d(2, &PoolOptions::default())).starts_with("max_pool1d:"));
}

#[cfg(feature = "gpu")]
#[test]
fn gpu_pooling_matches_cpu() {
    let Some(gpu) = crate::gpu::gpu() else {
        return;
    };
    let v: Vec<f64> = (0..2 * 3 * 9 * 7)
        .map(|i| ((i * 13) % 29) as f64 - 9.0)
        .collect();
    let x = t(DType::F32, &[2, 3, 9, 7], &v);
    let xg = x.to_device(gpu).unwrap();
    let o = PoolOptions {
        stride: vec![2],
        padding: vec![1],
        ceil_mode: true,
        ..Default::default()
    };
    let host = |t: Tensor| t.to_device(Device::Cpu).unwrap();
    assert_eq!(
        host(xg.max_pool2d([3, 3], &o).unwrap())
            .to_vec::<f32>()
            .unwrap(),
        x.max_pool2d([3, 3], &o).unwrap().to_vec::<f32>().unwrap()
    );
    let (_, ig) = xg.max_pool2d_with_indices([3, 3], &o).unwrap();
    let (_, ic) = x.max_pool2d_with_indices([3, 3], &o).unwrap();
    assert_eq!(
        host(ig).cast(DType::I64).unwrap().to_vec::<i64>().unwrap(),
        ic.to_vec::<i64>().unwrap()
    );
    let a = host(xg.avg_pool2d([3, 3], &o).unwrap())
        .to_vec::<f32>()
        .unwrap();
    let b = x.avg_pool2d([3, 3], &o).unwrap().to_vec::<f32>().unwrap();
    for (p, q) in a.iter().zip(&b) {
        assert!((p - q).abs() <= 1e-5 * (1.0 + q.abs()));
    }
    // Min with dilation and a window whose taps all fall in the padding
    // (kernel 2, dilation 3, padding 1 on an axis of 2: the last window).
    let od = PoolOptions {
        stride: vec![1, 2],
        padding: vec![1],
        dilation: vec![3],
        ..Default::default()
    };
    let y = t(DType::F32, &[1, 2, 2, 7], &v[..28]);
    assert_eq!(
        host(y.to_device(gpu).unwrap().min_pool2d([2, 3], &od).unwrap())
            .to_vec::<f32>()
            .unwrap(),
        y.min_pool2d([2, 3], &od).unwrap().to_vec::<f32>().unwrap()
    );
    let ym = y.min_pool2d([2, 3], &od).unwrap();
    assert_eq!(ym.shape(), &[1, 2, 1, 2]);
    assert!(ym
        .to_vec::<f32>()
        .unwrap()
        .iter()
        .all(|&v| v == f32::INFINITY));
    let f = rnx::ops::filters::FilterOptions::default();
    let a = host(xg.uniform_filter(&[3], &f).unwrap())
        .to_vec::<f32>()
        .unwrap();
    let b = x.uniform_filter(&[3], &f).unwrap().to_vec::<f32>().unwrap();
    for (p, q) in a.iter().zip(&b) {
        assert!((p - q).abs() <= 1e-5 * (1.0 + q.abs()));
    }
    assert_eq!(
        host(xg.maximum_filter(&[1, 1, 3, 2], &f).unwrap())
            .to_vec::<f32>()
            .unwrap(),
        x.maximum_filter(&[1, 1, 3, 2], &f)
            .unwrap()
            .to_vec::<f32>()
            .unwrap()
    );
}
