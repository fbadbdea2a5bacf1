//! `rms_norm` / `layer_norm` (the fused `ReduceBackend::norm`) against an f64
//! reference: random shapes, axis sets and views, f32/f64/f16/bf16 (fp8
//! through the widening adapter), weight and bias broadcast in several ways
//! (contiguous, stride 0 inside the group, reversed), long groups (the SIMD
//! bodies and their tails), many groups (the pool), strided groups (the
//! staging copy), NaN and infinity, a mean far larger than the spread (the
//! shifted sums), rank 0 and empty tensors, and the GPU's composition. Rerun
//! at every SIMD level by `simd_levels.rs`.

use crate::common::Rng;
use rnx::{DType, LayerNormOptions, Tensor};

/// Row-major strides of `shape`.
fn cstrides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    s
}

/// The f64 reference of the layer over `axes` of `x` (row-major values of
/// `shape`), with x-shaped weight and bias values.
fn reference(
    x: &[f64],
    shape: &[usize],
    axes: &[usize],
    w: Option<&[f64]>,
    b: Option<&[f64]>,
    layer: bool,
    eps: f64,
) -> Vec<f64> {
    let st = cstrides(shape);
    // The group of element e: its coordinates on the kept axes.
    let key = |e: usize| -> usize {
        let mut k = 0;
        for d in 0..shape.len() {
            if !axes.contains(&d) {
                k = k * shape[d] + (e / st[d]) % shape[d];
            }
        }
        k
    };
    let ng: usize = (0..shape.len())
        .filter(|d| !axes.contains(d))
        .map(|d| shape[d])
        .product();
    let mut members = vec![Vec::new(); ng];
    for e in 0..x.len() {
        members[key(e)].push(e);
    }
    let mut out = vec![0.0; x.len()];
    for g in members {
        let n = g.len() as f64;
        let mean = g.iter().map(|&e| x[e]).sum::<f64>() / n;
        let var = g.iter().map(|&e| (x[e] - mean).powi(2)).sum::<f64>() / n;
        let ms = g.iter().map(|&e| x[e] * x[e]).sum::<f64>() / n;
        for &e in &g {
            let mut y = if layer {
                (x[e] - mean) / (var + eps).sqrt()
            } else {
                x[e] / (ms + eps).sqrt()
            };
            if let Some(w) = w {
                y *= w[e];
            }
            if let Some(b) = b {
                y += b[e];
            }
            out[e] = y;
        }
    }
    out
}

fn f64s(t: &Tensor) -> Vec<f64> {
    t.cast(DType::F64).unwrap().to_vec::<f64>().unwrap()
}

/// `got` within `tol * (1 + |want|)` of `want`, NaN where `want` is NaN.
fn assert_near(got: &[f64], want: &[f64], tol: f64, what: &str) {
    assert_eq!(got.len(), want.len(), "{what}");
    for (i, (&g, &w)) in got.iter().zip(want).enumerate() {
        if w.is_nan() {
            assert!(g.is_nan(), "{what}: [{i}] {g} vs NaN");
        } else {
            assert!(
                (g - w).abs() <= tol * (1.0 + w.abs()),
                "{what}: [{i}] {g} vs {w}"
            );
        }
    }
}

fn tol(dt: DType) -> f64 {
    match dt {
        DType::F64 => 1e-12,
        DType::F32 => 2e-6,
        DType::F16 => 4e-3,
        _ => 3e-2, // bf16
    }
}

/// A tensor of `dtype` with logical `shape` and values in [-3, 3): contiguous,
/// transposed (all axes reversed) or flipped.
fn view(rng: &mut Rng, shape: &[usize], dtype: DType) -> Tensor {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n).map(|_| rng.unit() * 6.0 - 3.0).collect();
    let nd = shape.len();
    match rng.next() % 3 {
        1 if nd > 1 => {
            let rev: Vec<usize> = shape.iter().rev().copied().collect();
            let axes: Vec<isize> = (0..nd as isize).rev().collect();
            Tensor::create(DType::F64, &rev, &v)
                .unwrap()
                .cast(dtype)
                .unwrap()
                .transpose(axes)
                .unwrap()
        }
        2 => Tensor::create(DType::F64, shape, &v)
            .unwrap()
            .cast(dtype)
            .unwrap()
            .flip(rnx::Axes::all())
            .unwrap(),
        _ => Tensor::create(DType::F64, shape, &v)
            .unwrap()
            .cast(dtype)
            .unwrap(),
    }
}

/// Run both layers on `x` over `axes` (given as `ax`) with the options and
/// check them against the reference.
fn check(x: &Tensor, ax: rnx::Axes, axes: &[usize], w: Option<&Tensor>, b: Option<&Tensor>) {
    let dt = x.dtype();
    let eps = 1e-5;
    let o = LayerNormOptions {
        epsilon: eps,
        weight: w,
        bias: b,
    };
    let full = |t: Option<&Tensor>| t.map(|t| f64s(&t.broadcast_to(x.shape()).unwrap()));
    let (wv, bv) = (full(w), full(b));
    let xv = f64s(x);
    for layer in [false, true] {
        let y = if layer {
            x.layer_norm(ax.clone(), o).unwrap()
        } else {
            x.rms_norm(ax.clone(), o).unwrap()
        };
        assert_eq!((y.shape(), y.dtype()), (x.shape(), dt));
        let want = reference(
            &xv,
            x.shape(),
            axes,
            wv.as_deref(),
            bv.as_deref(),
            layer,
            eps,
        );
        let what = format!("{dt} {:?} axes {axes:?} layer {layer}", x.shape());
        assert_near(&f64s(&y), &want, tol(dt), &what);
    }
}

#[test]
fn random_shapes_axes_views_and_dtypes() {
    let mut rng = Rng(0x4e0);
    for case in 0..48 {
        let dt = [DType::F32, DType::F64, DType::F16, DType::BF16][case % 4];
        let nd = 1 + (rng.next() as usize) % 3;
        let shape: Vec<usize> = (0..nd).map(|_| 1 + (rng.next() as usize) % 7).collect();
        let x = view(&mut rng, &shape, dt);
        // The default (last axis), one axis, or a random non-empty set.
        let (ax, axes): (rnx::Axes, Vec<usize>) = match case % 3 {
            0 => (rnx::Axes::default(), vec![nd - 1]),
            1 => {
                let a = (rng.next() as usize) % nd;
                ((a as isize - nd as isize).into(), vec![a])
            }
            _ => {
                let mut s: Vec<usize> = (0..nd).filter(|_| rng.next().is_multiple_of(2)).collect();
                if s.is_empty() {
                    s.push(0);
                }
                let v: Vec<isize> = s.iter().map(|&a| a as isize).collect();
                (v.into(), s)
            }
        };
        // Weight and bias: none, shaped like the trailing axes, or full.
        let w = match case % 4 {
            0 => None,
            1 => Some(view(&mut rng, &shape[nd - 1..], dt)),
            _ => Some(view(&mut rng, &shape, dt)),
        };
        let b = (case % 3 != 0).then(|| view(&mut rng, &shape[nd - 1..], dt));
        check(&x, ax, &axes, w.as_ref(), b.as_ref());
    }
}

#[test]
fn long_groups_many_groups_and_strided_groups() {
    let mut rng = Rng(0x1a7);
    for dt in [DType::F32, DType::F64, DType::F16] {
        // Groups of 1000+7 (SIMD bodies plus tails), 40 of them (the pool).
        let x = view(&mut rng, &[40, 1007], dt);
        let w = view(&mut rng, &[1007], dt);
        let b = view(&mut rng, &[1007], dt).flip(0).unwrap();
        check(&x, rnx::Axes::default(), &[1], Some(&w), Some(&b));
        // The last axis of a transposed tensor (strided groups, staged).
        let base = view(&mut rng, &[301, 64], dt);
        let t = base.transpose(None).unwrap(); // [64, 301]
        check(
            &t,
            rnx::Axes::default(),
            &[1],
            None,
            Some(&b.slice([rnx::Index::range(0, 301)]).unwrap()),
        );
        // A weight constant inside each group (stride 0 there).
        let wg = view(&mut rng, &[64, 1], dt);
        check(&t, (-1isize).into(), &[1], Some(&wg), None);
        // Two axes, the first one reduced.
        let x3 = view(&mut rng, &[33, 5, 70], dt);
        check(
            &x3,
            [0isize, 2].into(),
            &[0, 2],
            Some(&view(&mut rng, &[33, 1, 70], dt)),
            None,
        );
    }
}

#[test]
fn nan_inf_and_a_large_mean() {
    let mut v: Vec<f32> = (0..3 * 100).map(|i| (i % 17) as f32 - 8.0).collect();
    v[5] = f32::NAN; // group 0
    v[150] = f32::INFINITY; // group 1
    let x = Tensor::from_slice(&v, &[3, 100]).unwrap();
    let xv: Vec<f64> = v.iter().map(|&a| a as f64).collect();
    let o = LayerNormOptions {
        epsilon: 1e-6,
        ..Default::default()
    };
    for layer in [false, true] {
        let y = if layer {
            x.layer_norm(None, o).unwrap()
        } else {
            x.rms_norm(None, o).unwrap()
        };
        let want = reference(&xv, &[3, 100], &[1], None, None, layer, 1e-6);
        let got = f64s(&y);
        assert_near(&got, &want, 2e-6, "nan/inf");
        // Group 0 is all NaN; rms_norm of group 1 is 0 (x / inf) but NaN
        // at the infinity itself; layer_norm of group 1 is NaN.
        assert!(got[..100].iter().all(|a| a.is_nan()));
        assert!(got[200..].iter().all(|a| a.is_finite()));
        if !layer {
            assert!(got[150].is_nan() && got[151] == 0.0);
        }
    }
    // Values 1000 + noise: the variance is 10^-10 of the mean square.
    let mut rng = Rng(9);
    let v: Vec<f32> = (0..4096)
        .map(|_| 1000.0 + (rng.unit() as f32 - 0.5) * 0.02)
        .collect();
    let xv: Vec<f64> = v.iter().map(|&a| a as f64).collect();
    let y = Tensor::from_slice(&v, &[2, 2048])
        .unwrap()
        .layer_norm(None, o)
        .unwrap();
    let want = reference(&xv, &[2, 2048], &[1], None, None, true, 1e-6);
    assert_near(&f64s(&y), &want, 2e-4, "large mean");
}

#[test]
fn fp8_rank0_empty_and_wider_weight() {
    // fp8: the f32 layer of the widened input, rounded once.
    let x = Tensor::create(
        DType::F32,
        &[3, 8],
        &(0..24).map(|i| i as f64 * 0.37 - 4.0).collect::<Vec<_>>(),
    )
    .unwrap();
    for dt in [DType::F8E4M3, DType::F8E5M2] {
        let x8 = x.cast(dt).unwrap();
        let o = LayerNormOptions::default();
        let want = x8
            .cast(DType::F32)
            .unwrap()
            .layer_norm(None, o)
            .unwrap()
            .cast(dt)
            .unwrap();
        let got = x8.layer_norm(None, o).unwrap();
        assert_eq!(f64s(&got), f64s(&want), "{dt}");
    }
    // Rank 0: one group of one element.
    let s = Tensor::scalar(DType::F64, 3.0).unwrap();
    let o = LayerNormOptions {
        epsilon: 0.0,
        ..Default::default()
    };
    assert_eq!(s.rms_norm(None, o).unwrap().item::<f64>().unwrap(), 1.0);
    // layer_norm: 0 / sqrt(0 + epsilon), NaN for epsilon 0 (as PyTorch).
    assert!(s
        .layer_norm(None, o)
        .unwrap()
        .item::<f64>()
        .unwrap()
        .is_nan());
    let d = LayerNormOptions::default();
    assert_eq!(s.layer_norm(None, d).unwrap().item::<f64>().unwrap(), 0.0);
    // Empty tensors.
    for shape in [[0usize, 5], [5, 0]] {
        let e = Tensor::zeros(DType::F32, &shape).unwrap();
        assert_eq!(e.rms_norm(None, o).unwrap().shape(), &shape);
        assert_eq!(e.layer_norm(0, o).unwrap().shape(), &shape);
    }
    // A weight that broadcasts x to a larger shape: the result has that shape.
    let x = Tensor::create(DType::F64, &[2], &[3.0, 4.0]).unwrap();
    let w = Tensor::create(DType::F64, &[2, 2], &[1.0, 1.0, 2.0, -1.0]).unwrap();
    let o = LayerNormOptions {
        epsilon: 0.0,
        weight: Some(&w),
        bias: None,
    };
    let y = x.rms_norm(None, o).unwrap();
    assert_eq!(y.shape(), &[2, 2]);
    let r = 12.5f64.sqrt();
    assert_near(
        &f64s(&y),
        &[3.0 / r, 4.0 / r, 6.0 / r, -4.0 / r],
        1e-15,
        "wide weight",
    );
}

#[cfg(feature = "gpu")]
#[test]
fn gpu_composition_matches_the_cpu() {
    let Some(g) = crate::gpu::gpu() else { return };
    let mut rng = Rng(0x6e);
    let x = view(&mut rng, &[37, 300], DType::F32);
    let w = view(&mut rng, &[300], DType::F32);
    let b = view(&mut rng, &[300], DType::F32);
    let o = LayerNormOptions {
        epsilon: 1e-5,
        weight: Some(&w),
        bias: Some(&b),
    };
    let (gx, gw, gb) = (
        x.to_device(g).unwrap(),
        w.to_device(g).unwrap(),
        b.to_device(g).unwrap(),
    );
    let go = LayerNormOptions {
        epsilon: 1e-5,
        weight: Some(&gw),
        bias: Some(&gb),
    };
    for axes in [rnx::Axes::default(), rnx::Axes::from(0)] {
        let (c, d) = (
            x.layer_norm(axes.clone(), o).unwrap(),
            gx.layer_norm(axes.clone(), go),
        );
        let d = d.unwrap();
        assert_eq!(d.device(), g);
        assert_near(
            &f64s(&d.to_device(rnx::Device::Cpu).unwrap()),
            &f64s(&c),
            1e-5,
            "gpu layer",
        );
        let (c, d) = (
            x.rms_norm(axes.clone(), o).unwrap(),
            gx.rms_norm(axes, go).unwrap(),
        );
        assert_near(
            &f64s(&d.to_device(rnx::Device::Cpu).unwrap()),
            &f64s(&c),
            1e-5,
            "gpu rms",
        );
    }
}
