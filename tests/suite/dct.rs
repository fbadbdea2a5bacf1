//! Real trigonometric transforms (`dct`, `idct`, `dst`, `idst` and the n-D
//! forms): SciPy's documented example, every type and norm against the O(n^2)
//! definitions of SciPy's docs on lengths 1..100 (primes included),
//! inverse(forward(x)) = x for every type, norm and `orthogonalize`, Parseval
//! for the orthonormal transforms, `n` padding/truncation, non-last and
//! strided axes, batches large enough to run on several threads, n-D against
//! 1-D passes per axis, errors, and a GPU round trip.
//!
//! Bounds: an f64 transform of `x` is within `1e-12 * sum|x|` of the f64
//! definition (the reference's own error grows like `eps n`); f32 within
//! `2e-6 * sum|x|`; round trips within `1e-12` (f64) and `1e-5` (f32) of the
//! input for |x| <= 1.

use crate::common::Rng;
use rnx::{Axes, DType, DctOptions, DctnOptions, Norm, Tensor};

const PI: f64 = std::f64::consts::PI;
const NORMS: [Norm; 3] = [Norm::Backward, Norm::Ortho, Norm::Forward];
/// Lengths for the definition comparison: small, powers of two, primes, mixed.
const LENGTHS: [usize; 18] = [
    1, 2, 3, 4, 5, 6, 7, 8, 11, 13, 16, 17, 31, 32, 45, 64, 97, 100,
];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    Cos,
    Sin,
}

fn rand_r(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| rng.unit() * 2.0 - 1.0).collect()
}

fn t64(v: &[f64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(v.to_vec(), shape).unwrap()
}

fn t32(v: &[f64], shape: &[usize]) -> Tensor {
    Tensor::from_vec(v.iter().map(|&x| x as f32).collect::<Vec<_>>(), shape).unwrap()
}

fn vals(t: &Tensor) -> Vec<f64> {
    t.to_vec_f64().unwrap()
}

/// SciPy's unscaled definitions (scipy.fft.dct / dst docs), in f64.
fn definition(kind: Kind, ty: u8, x: &[f64]) -> Vec<f64> {
    let n = x.len();
    let nf = n as f64;
    (0..n)
        .map(|k| {
            let kf = k as f64;
            let sign = if k % 2 == 0 { 1.0 } else { -1.0 };
            match (kind, ty) {
                (Kind::Cos, 1) => {
                    x[0] + sign * x[n - 1]
                        + 2.0
                            * (1..n - 1)
                                .map(|j| x[j] * (PI * (j * k) as f64 / (nf - 1.0)).cos())
                                .sum::<f64>()
                }
                (Kind::Cos, 2) => {
                    2.0 * (0..n)
                        .map(|j| x[j] * (PI * kf * (2 * j + 1) as f64 / (2.0 * nf)).cos())
                        .sum::<f64>()
                }
                (Kind::Cos, 3) => {
                    x[0] + 2.0
                        * (1..n)
                            .map(|j| x[j] * (PI * j as f64 * (2.0 * kf + 1.0) / (2.0 * nf)).cos())
                            .sum::<f64>()
                }
                (Kind::Cos, _) => {
                    2.0 * (0..n)
                        .map(|j| {
                            x[j] * (PI * (2 * j + 1) as f64 * (2.0 * kf + 1.0) / (4.0 * nf)).cos()
                        })
                        .sum::<f64>()
                }
                (Kind::Sin, 1) => {
                    2.0 * (0..n)
                        .map(|j| x[j] * (PI * ((j + 1) * (k + 1)) as f64 / (nf + 1.0)).sin())
                        .sum::<f64>()
                }
                (Kind::Sin, 2) => {
                    2.0 * (0..n)
                        .map(|j| x[j] * (PI * (kf + 1.0) * (2 * j + 1) as f64 / (2.0 * nf)).sin())
                        .sum::<f64>()
                }
                (Kind::Sin, 3) => {
                    sign * x[n - 1]
                        + 2.0
                            * (0..n - 1)
                                .map(|j| {
                                    x[j] * (PI * (j + 1) as f64 * (2.0 * kf + 1.0) / (2.0 * nf))
                                        .sin()
                                })
                                .sum::<f64>()
                }
                (Kind::Sin, _) => {
                    2.0 * (0..n)
                        .map(|j| {
                            x[j] * (PI * (2 * j + 1) as f64 * (2.0 * kf + 1.0) / (4.0 * nf)).sin()
                        })
                        .sum::<f64>()
                }
            }
        })
        .collect()
}

/// The forward transform with SciPy's `norm` and `orthogonalize` rules.
fn reference(kind: Kind, ty: u8, x: &[f64], norm: Norm, orth: bool) -> Vec<f64> {
    let n = x.len();
    let s2 = std::f64::consts::SQRT_2;
    let mut x = x.to_vec();
    if orth {
        match (kind, ty) {
            (Kind::Cos, 1) => {
                x[0] *= s2;
                x[n - 1] *= s2;
            }
            (Kind::Cos, 3) => x[0] *= s2,
            (Kind::Sin, 3) => x[n - 1] *= s2,
            _ => {}
        }
    }
    let mut y = definition(kind, ty, &x);
    if orth {
        match (kind, ty) {
            (Kind::Cos, 1) => {
                y[0] /= s2;
                y[n - 1] /= s2;
            }
            (Kind::Cos, 2) => y[0] /= s2,
            (Kind::Sin, 2) => y[n - 1] /= s2,
            _ => {}
        }
    }
    let logical = match (kind, ty) {
        (Kind::Cos, 1) => 2.0 * (n as f64 - 1.0),
        (Kind::Sin, 1) => 2.0 * (n as f64 + 1.0),
        _ => 2.0 * n as f64,
    };
    let f = match norm {
        Norm::Backward => 1.0,
        Norm::Ortho => 1.0 / logical.sqrt(),
        Norm::Forward => 1.0 / logical,
    };
    y.iter().map(|v| v * f).collect()
}

fn forward(kind: Kind, x: &Tensor, o: &DctOptions) -> rnx::Result<Tensor> {
    match kind {
        Kind::Cos => x.dct_with(o),
        Kind::Sin => x.dst_with(o),
    }
}

fn inverse(kind: Kind, x: &Tensor, o: &DctOptions) -> rnx::Result<Tensor> {
    match kind {
        Kind::Cos => x.idct_with(o),
        Kind::Sin => x.idst_with(o),
    }
}

fn forward_n(kind: Kind, x: &Tensor, o: &DctnOptions) -> rnx::Result<Tensor> {
    match kind {
        Kind::Cos => x.dctn_with(o),
        Kind::Sin => x.dstn_with(o),
    }
}

fn inverse_n(kind: Kind, x: &Tensor, o: &DctnOptions) -> rnx::Result<Tensor> {
    match kind {
        Kind::Cos => x.idctn_with(o),
        Kind::Sin => x.idstn_with(o),
    }
}

fn min_len(kind: Kind, ty: u8) -> usize {
    if kind == Kind::Cos && ty == 1 {
        2
    } else {
        1
    }
}

fn assert_close(what: &str, got: &[f64], want: &[f64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).abs() <= tol,
            "{what}: element {i}: got {g}, want {w} (tol {tol})"
        );
    }
}

#[test]
fn scipy_documented_example() {
    // scipy.fft.dct docs: the DCT-1 of [4, 3, 5, 10] is the real part of the
    // DFT of [4, 3, 5, 10, 5, 3], i.e. [30, -8, 6, -2]; idct type 1 inverts it.
    let x = t64(&[4., 3., 5., 10.], &[4]);
    let o = DctOptions {
        ty: 1,
        ..Default::default()
    };
    let y = x.dct_with(&o).unwrap();
    assert_eq!(y.dtype(), DType::F64);
    assert_close("dct1", &vals(&y), &[30., -8., 6., -2.], 1e-12);
    let back = t64(&[30., -8., 6., -2.], &[4]).idct_with(&o).unwrap();
    assert_close("idct1", &vals(&back), &[4., 3., 5., 10.], 1e-12);
}

#[test]
fn every_type_and_norm_matches_the_definition() {
    let mut rng = Rng(0x0dc7);
    for kind in [Kind::Cos, Kind::Sin] {
        for ty in 1..=4u8 {
            for &n in LENGTHS.iter().filter(|&&n| n >= min_len(kind, ty)) {
                let x = rand_r(&mut rng, n);
                let l1: f64 = x.iter().map(|v| v.abs()).sum();
                for norm in NORMS {
                    for orth in [None, Some(false), Some(true)] {
                        let o = DctOptions {
                            ty,
                            norm,
                            orthogonalize: orth,
                            ..Default::default()
                        };
                        let want =
                            reference(kind, ty, &x, norm, orth.unwrap_or(norm == Norm::Ortho));
                        let what = format!("{kind:?} type {ty} n {n} {norm:?} orth {orth:?}");
                        let y64 = forward(kind, &t64(&x, &[n]), &o).unwrap();
                        assert_eq!(y64.dtype(), DType::F64);
                        assert_close(&what, &vals(&y64), &want, 1e-12 * l1.max(1.0));
                        if n <= 32 {
                            let y32 = forward(kind, &t32(&x, &[n]), &o).unwrap();
                            assert_eq!(y32.dtype(), DType::F32);
                            assert_close(&what, &vals(&y32), &want, 2e-6 * l1.max(1.0));
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn inverse_of_forward_is_identity() {
    let mut rng = Rng(0x1d57);
    for kind in [Kind::Cos, Kind::Sin] {
        for ty in 1..=4u8 {
            for n in [min_len(kind, ty), 2, 3, 8, 13, 50, 97] {
                let x = rand_r(&mut rng, n);
                for norm in NORMS {
                    for orth in [None, Some(false), Some(true)] {
                        let o = DctOptions {
                            ty,
                            norm,
                            orthogonalize: orth,
                            ..Default::default()
                        };
                        let what = format!("{kind:?} type {ty} n {n} {norm:?} orth {orth:?}");
                        let y = forward(kind, &t64(&x, &[n]), &o).unwrap();
                        let back = inverse(kind, &y, &o).unwrap();
                        assert_close(&what, &vals(&back), &x, 1e-12);
                        let y = forward(kind, &t32(&x, &[n]), &o).unwrap();
                        let back = inverse(kind, &y, &o).unwrap();
                        assert_close(&what, &vals(&back), &x, 1e-5);
                    }
                }
            }
        }
    }
}

#[test]
fn orthonormal_transforms_keep_the_norm() {
    let mut rng = Rng(0x9a25);
    for kind in [Kind::Cos, Kind::Sin] {
        for ty in 1..=4u8 {
            for n in [min_len(kind, ty), 5, 16, 31] {
                let x = rand_r(&mut rng, n);
                let o = DctOptions {
                    ty,
                    norm: Norm::Ortho,
                    ..Default::default()
                };
                for f in [forward, inverse] {
                    let y = vals(&f(kind, &t64(&x, &[n]), &o).unwrap());
                    let (ex, ey): (f64, f64) =
                        (x.iter().map(|v| v * v).sum(), y.iter().map(|v| v * v).sum());
                    assert!(
                        (ex - ey).abs() < 1e-12,
                        "{kind:?} type {ty} n {n}: {ex} vs {ey}"
                    );
                }
            }
        }
    }
}

#[test]
fn n_pads_and_truncates() {
    let mut rng = Rng(0x7a11);
    let x = rand_r(&mut rng, 10);
    for kind in [Kind::Cos, Kind::Sin] {
        for ty in 1..=4u8 {
            for n in [4usize, 10, 17] {
                let o = DctOptions {
                    ty,
                    n: Some(n),
                    ..Default::default()
                };
                let mut xs = x.clone();
                xs.resize(n, 0.0);
                let y = forward(kind, &t64(&x, &[10]), &o).unwrap();
                assert_eq!(y.shape(), &[n]);
                let want = reference(kind, ty, &xs, Norm::Backward, false);
                assert_close(&format!("{kind:?} {ty} n {n}"), &vals(&y), &want, 1e-11);
            }
        }
    }
}

#[test]
fn any_axis_strides_and_big_batches() {
    let mut rng = Rng(0xa415);
    // A transposed view, transformed along axis 0: each column of the view.
    let (r, c) = (7usize, 300usize);
    let data = rand_r(&mut rng, r * c);
    let base = t64(&data, &[c, r]);
    let view = base.transpose(vec![1isize, 0]).unwrap(); // [r, c], strided
    for kind in [Kind::Cos, Kind::Sin] {
        for ty in 1..=4u8 {
            let o = DctOptions {
                ty,
                axis: 1,
                norm: Norm::Ortho,
                ..Default::default()
            };
            let y = vals(&forward(kind, &view, &o).unwrap());
            for i in [0usize, 3, 6] {
                let row: Vec<f64> = (0..c).map(|j| data[j * r + i]).collect();
                let want = reference(kind, ty, &row, Norm::Ortho, true);
                assert_close("row", &y[i * c..(i + 1) * c], &want, 1e-11);
            }
            // Axis 0 (length 7) over a batch of 300 columns: several chunks.
            let o = DctOptions {
                ty,
                axis: -2,
                ..Default::default()
            };
            let y = vals(&forward(kind, &view, &o).unwrap());
            for j in [0usize, 150, 299] {
                let col: Vec<f64> = (0..r).map(|i| data[j * r + i]).collect();
                let want = reference(kind, ty, &col, Norm::Backward, false);
                let got: Vec<f64> = (0..r).map(|i| y[i * c + j]).collect();
                assert_close("column", &got, &want, 1e-11);
            }
        }
    }
    // A batch large enough for several threads' chunks: 400 rows of 256.
    let data = rand_r(&mut rng, 400 * 256);
    let y = vals(&t64(&data, &[400, 256]).dct().unwrap());
    for i in [0usize, 199, 399] {
        let want = reference(
            Kind::Cos,
            2,
            &data[i * 256..(i + 1) * 256],
            Norm::Backward,
            false,
        );
        assert_close("batch", &y[i * 256..(i + 1) * 256], &want, 1e-10);
    }
}

#[test]
fn n_d_is_one_d_per_axis() {
    let mut rng = Rng(0x5eed);
    let shape = [3usize, 4, 5];
    let data = rand_r(&mut rng, 60);
    let x = t64(&data, &shape);
    for kind in [Kind::Cos, Kind::Sin] {
        for ty in 1..=4u8 {
            for norm in NORMS {
                // Default: every axis.
                let o = DctnOptions {
                    ty,
                    norm,
                    ..Default::default()
                };
                let y = forward_n(kind, &x, &o).unwrap();
                let mut want = x.clone();
                for axis in 0..3isize {
                    let o1 = DctOptions {
                        ty,
                        axis,
                        norm,
                        ..Default::default()
                    };
                    want = forward(kind, &want, &o1).unwrap();
                }
                assert_close("all axes", &vals(&y), &vals(&want), 1e-11);
                let back = inverse_n(kind, &y, &o).unwrap();
                assert_close("round trip", &vals(&back), &data, 1e-12);
                // Two axes with s (pad one, truncate the other).
                let o = DctnOptions {
                    ty,
                    norm,
                    s: Some(vec![6, 2]),
                    axes: Axes::from(vec![-1isize, 0]),
                    ..Default::default()
                };
                let y = forward_n(kind, &x, &o).unwrap();
                assert_eq!(y.shape(), &[2, 4, 6]);
                let step = |t: &Tensor, axis: isize, n: usize| {
                    let o1 = DctOptions {
                        ty,
                        axis,
                        n: Some(n),
                        norm,
                        ..Default::default()
                    };
                    forward(kind, t, &o1).unwrap()
                };
                let want = step(&step(&x, 0, 2), -1, 6);
                assert_close("s and axes", &vals(&y), &vals(&want), 1e-11);
                // s alone: the last s.len() axes.
                let o = DctnOptions {
                    ty,
                    s: Some(vec![4, 5]),
                    ..Default::default()
                };
                let y = forward_n(kind, &x, &o).unwrap();
                let want = step(&step(&x, 1, 4), 2, 5);
                if norm == Norm::Backward {
                    assert_close("s only", &vals(&y), &vals(&want), 1e-11);
                }
            }
        }
    }
}

#[test]
fn errors_name_the_function() {
    let msg = |r: rnx::Result<Tensor>| r.unwrap_err().to_string();
    let i = Tensor::from_vec(vec![1i32, 2, 3], &[3]).unwrap();
    let m = msg(i.dct());
    assert!(m.contains("dct") && m.contains("cast"), "{m}");
    let m = msg(i.idstn());
    assert!(m.contains("idstn") && m.contains("cast"), "{m}");
    let c = Tensor::zeros(DType::C64, &[3]).unwrap();
    let m = msg(c.dst());
    assert!(m.contains("dst") && m.contains("real and imaginary"), "{m}");
    let h = Tensor::zeros(DType::F16, &[3]).unwrap();
    assert!(msg(h.idct()).contains("cast"));
    let x = t64(&[1., 2., 3.], &[3]);
    for ty in [0u8, 5] {
        let o = DctOptions {
            ty,
            ..Default::default()
        };
        let m = msg(x.dct_with(&o));
        assert!(
            m.contains("dct") && m.contains(&format!("type {ty}")),
            "{m}"
        );
    }
    let one = t64(&[1.], &[1]);
    let o1 = DctOptions {
        ty: 1,
        ..Default::default()
    };
    let m = msg(one.dct_with(&o1));
    assert!(m.contains("dct") && m.contains("(1)"), "{m}");
    // DST-1 of length 1 is defined: 2 x_0.
    assert_eq!(vals(&one.dst_with(&o1).unwrap()), vec![2.0]);
    let o = DctOptions {
        n: Some(0),
        ..Default::default()
    };
    assert!(msg(x.dst_with(&o)).contains("(0)"));
    let empty = Tensor::zeros(DType::F64, &[0]).unwrap();
    assert!(msg(empty.dct()).contains("needs n"));
    let o = DctOptions {
        axis: 1,
        ..Default::default()
    };
    assert!(msg(x.dct_with(&o)).contains("dct"));
    let x2 = Tensor::zeros(DType::F32, &[2, 3]).unwrap();
    let o = DctnOptions {
        s: Some(vec![2, 3, 4]),
        ..Default::default()
    };
    assert!(msg(x2.dctn_with(&o)).contains("dctn"));
    let o = DctnOptions {
        s: Some(vec![2]),
        axes: Axes::from(vec![0isize, 1]),
        ..Default::default()
    };
    assert!(msg(x2.dctn_with(&o)).contains("s has 1 entries"));
    let o = DctnOptions {
        axes: Axes::from(vec![0isize, 0]),
        ..Default::default()
    };
    assert!(msg(x2.idctn_with(&o)).contains("more than once"));
}

/// f32 tensors on gpu:0 (the GPU kernels of `src/backend/gpu/dct.rs`; every
/// case against the CPU: tests/suite/gpu_fft.rs): the CPU's values to the
/// roundoff, and a round trip gives the input back.
#[cfg(feature = "gpu")]
#[test]
fn gpu_round_trip() {
    let Some(dev) = crate::gpu::gpu() else {
        return;
    };
    let mut rng = Rng(0x69b0);
    let data = rand_r(&mut rng, 6 * 17);
    let x = t32(&data, &[6, 17]);
    let g = x.to_device(dev).unwrap();
    for ty in 1..=4u8 {
        let o = DctOptions {
            ty,
            axis: 0,
            norm: Norm::Ortho,
            ..Default::default()
        };
        let yg = g.dst_with(&o).unwrap();
        assert_eq!(yg.device(), dev);
        let yc = x.dst_with(&o).unwrap();
        assert_close("gpu dst", &vals(&yg), &vals(&yc), 1e-5);
        let no = DctnOptions {
            ty,
            ..Default::default()
        };
        let back = g.dctn_with(&no).unwrap().idctn_with(&no).unwrap();
        assert_eq!(back.device(), dev);
        assert_close("gpu dctn round trip", &vals(&back), &data, 1e-5);
    }
}
