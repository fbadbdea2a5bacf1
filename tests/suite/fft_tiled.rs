//! Transforms along a strided axis (the column passes of `fft2`/`fftn`, a
//! non-last `axis`, transposed views), which the CPU backend gathers and
//! scatters in tiles of adjacent rows: 2-D and 3-D shapes, c32 and c64,
//! square, non-square, odd and prime sizes, blocks large enough to split over
//! threads, padding and truncation, every norm, axes in any order, real
//! input, and the inverse round trip, all against a direct f64 DFT applied
//! axis by axis.
//!
//! Bounds: an output is within `tol * sum|x|` of the reference (`1e-12` for
//! c64, `5e-6` for c32: rustfft's error grows like `eps log n` per axis).

use crate::common::Rng;
use crate::fft::cvals;
use rnx::{DType, FftOptions, FftnOptions, Norm, Tensor, C64};

const PI: f64 = std::f64::consts::PI;
const NORMS: [Norm; 3] = [Norm::Backward, Norm::Ortho, Norm::Forward];

fn rand_c(rng: &mut Rng, n: usize) -> Vec<C64> {
    (0..n)
        .map(|_| C64::new(rng.unit() * 2.0 - 1.0, rng.unit() * 2.0 - 1.0))
        .collect()
}

/// The direct unnormalised DFT of length `n` (input cut or zero-padded)
/// along `axis` of the C-order array `x` of `shape`; `sign` -1 forward.
fn dft_axis(x: &[C64], shape: &[usize], axis: usize, n: usize, sign: f64) -> Vec<C64> {
    let m = shape[axis];
    let inner: usize = shape[axis + 1..].iter().product();
    let outer: usize = shape[..axis].iter().product();
    let mut out = vec![C64::new(0.0, 0.0); outer * n * inner];
    let tw: Vec<C64> = (0..n)
        .map(|r| {
            let t = sign * 2.0 * PI * r as f64 / n as f64;
            C64::new(t.cos(), t.sin())
        })
        .collect();
    for o in 0..outer {
        for i in 0..inner {
            for k in 0..n {
                let mut acc = C64::new(0.0, 0.0);
                for j in 0..m.min(n) {
                    acc += x[(o * m + j) * inner + i] * tw[(j * k) % n];
                }
                out[(o * n + k) * inner + i] = acc;
            }
        }
    }
    out
}

/// The reference of an n-D transform: `dft_axis` over `axes` with lengths
/// `s`, then every value times `scale`; returns the values and the shape.
fn dft_nd(
    x: &[C64],
    shape: &[usize],
    axes: &[usize],
    s: &[usize],
    sign: f64,
    scale: f64,
) -> (Vec<C64>, Vec<usize>) {
    let (mut v, mut sh) = (x.to_vec(), shape.to_vec());
    for (&a, &n) in axes.iter().zip(s) {
        v = dft_axis(&v, &sh, a, n, sign);
        sh[a] = n;
    }
    (v.into_iter().map(|z| z * scale).collect(), sh)
}

fn norm_factor(norm: Norm, n: usize, inverse: bool) -> f64 {
    match (norm, inverse) {
        (Norm::Ortho, _) => 1.0 / (n as f64).sqrt(),
        (Norm::Backward, false) | (Norm::Forward, true) => 1.0,
        _ => 1.0 / n as f64,
    }
}

/// A tensor of `dtype` (c32 or c64) holding `x` (rounded for c32).
fn tensor(x: &[C64], shape: &[usize], dtype: DType) -> Tensor {
    let t = Tensor::from_slice(x, shape).unwrap();
    if dtype == DType::C64 {
        t
    } else {
        t.cast(dtype).unwrap()
    }
}

/// `x` rounded as `dtype` stores it (the reference's input).
fn rounded(x: &[C64], dtype: DType) -> Vec<C64> {
    cvals(&tensor(x, &[x.len()], dtype))
}

/// Assert `got` is within `tol * sum|x|` of `want` (same shape).
fn check(got: &Tensor, want: &(Vec<C64>, Vec<usize>), x: &[C64], tol: f64, what: &str) {
    assert_eq!(got.shape(), &want.1[..], "{what}: shape");
    let l1 = x.iter().map(|z| z.norm()).sum::<f64>().max(1.0);
    let e = cvals(got)
        .iter()
        .zip(&want.0)
        .map(|(a, b)| (a - b).norm())
        .fold(0.0, f64::max);
    assert!(e < tol * l1, "{what}: error {e} vs bound {}", tol * l1);
}

fn tol(dtype: DType) -> f64 {
    if dtype == DType::C64 {
        1e-12
    } else {
        5e-6
    }
}

#[test]
fn fft2_ifft2_match_direct_dft_shapes_dtypes_norms() {
    let mut rng = Rng(2024);
    // Square, non-square, odd, prime, a 1-long axis; (256, 200) and (97, 520)
    // are several chunks of column work (split over threads).
    let shapes: [&[usize]; 8] = [
        &[1, 1],
        &[3, 5],
        &[8, 8],
        &[17, 8],
        &[31, 64],
        &[2, 13, 7],
        &[256, 200],
        &[97, 520],
    ];
    for shape in shapes {
        let x = rand_c(&mut rng, shape.iter().product());
        let nd = shape.len();
        let axes = [nd - 2, nd - 1];
        let s = [shape[nd - 2], shape[nd - 1]];
        for dtype in [DType::C64, DType::C32] {
            let t = tensor(&x, shape, dtype);
            let xr = rounded(&x, dtype);
            let big = s[0] * s[1] > 10_000;
            for norm in NORMS {
                if big && norm != Norm::Ortho {
                    continue;
                }
                let o = FftnOptions {
                    norm,
                    ..Default::default()
                };
                let nn = s[0] * s[1];
                let what = format!("{shape:?} {dtype} {norm:?}");
                let f = t.fft2_with(&o).unwrap();
                assert_eq!(f.dtype(), dtype);
                let want = dft_nd(&xr, shape, &axes, &s, -1.0, norm_factor(norm, nn, false));
                check(&f, &want, &xr, tol(dtype), &format!("fft2 {what}"));
                let i = t.ifft2_with(&o).unwrap();
                let want = dft_nd(&xr, shape, &axes, &s, 1.0, norm_factor(norm, nn, true));
                check(&i, &want, &xr, tol(dtype), &format!("ifft2 {what}"));
                // ifft2(fft2(x)) = x.
                let back = cvals(&f.ifft2_with(&o).unwrap());
                let e = back
                    .iter()
                    .zip(&xr)
                    .map(|(a, b)| (a - b).norm())
                    .fold(0.0, f64::max);
                let rt = if dtype == DType::C64 { 1e-12 } else { 2e-5 };
                assert!(e < rt, "round trip {what}: {e}");
            }
        }
    }
}

#[test]
fn fftn_axes_any_order_padding_truncation_and_non_last_axis() {
    let mut rng = Rng(77);
    let shape = [6usize, 11, 9];
    let x = rand_c(&mut rng, shape.iter().product());
    for dtype in [DType::C64, DType::C32] {
        let t = tensor(&x, &shape, dtype);
        let xr = rounded(&x, dtype);
        // (axes as given, their lengths): NumPy transforms the last listed
        // axis first; the reference order does not change the DFT.
        let cases: [(&[isize], &[usize]); 5] = [
            (&[0, 1, 2], &[6, 11, 9]),
            (&[2, 0], &[9, 6]),
            (&[1, 0], &[13, 4]),
            (&[0, 2, 1], &[7, 5, 16]),
            (&[0], &[3]),
        ];
        for (axes, s) in cases {
            for norm in NORMS {
                let o = FftnOptions {
                    s: Some(s.to_vec()),
                    axes: axes.to_vec().into(),
                    norm,
                };
                let ua: Vec<usize> = axes.iter().map(|&a| a as usize).collect();
                let nn: usize = s.iter().product();
                let what = format!("{dtype} axes {axes:?} s {s:?} {norm:?}");
                let want = dft_nd(&xr, &shape, &ua, s, -1.0, norm_factor(norm, nn, false));
                check(&t.fftn_with(&o).unwrap(), &want, &xr, tol(dtype), &what);
                let want = dft_nd(&xr, &shape, &ua, s, 1.0, norm_factor(norm, nn, true));
                check(&t.ifftn_with(&o).unwrap(), &want, &xr, tol(dtype), &what);
            }
        }
        // A 1-D transform along each non-last axis, padded and truncated.
        for (axis, n) in [(0usize, 6usize), (0, 10), (0, 4), (1, 11), (1, 23), (1, 2)] {
            let o = FftOptions {
                n: Some(n),
                axis: axis as isize,
                norm: Norm::Ortho,
            };
            let want = dft_nd(&xr, &shape, &[axis], &[n], -1.0, 1.0 / (n as f64).sqrt());
            let what = format!("{dtype} fft axis {axis} n {n}");
            check(&t.fft_with(&o).unwrap(), &want, &xr, tol(dtype), &what);
        }
    }
}

#[test]
fn strided_transposed_and_real_inputs() {
    let mut rng = Rng(5150);
    let (r, c) = (40usize, 900usize);
    let x = rand_c(&mut rng, r * c);
    for dtype in [DType::C64, DType::C32] {
        let t = tensor(&x, &[r, c], dtype);
        let xr = rounded(&x, dtype);
        // The transposed view (c, r): its axis 1 has step c, its axis 0 step 1.
        let v = t.transpose([1, 0]).unwrap();
        let xt: Vec<C64> = (0..c * r).map(|i| xr[(i % r) * c + i / r]).collect();
        let want = dft_nd(&xt, &[c, r], &[1, 0], &[r, c], -1.0, 1.0);
        check(
            &v.fft2().unwrap(),
            &want,
            &xt,
            tol(dtype),
            "fft2 transposed",
        );
        let want = dft_nd(&xt, &[c, r], &[1], &[r], 1.0, 1.0 / r as f64);
        check(
            &v.ifft().unwrap(),
            &want,
            &xt,
            tol(dtype),
            "ifft transposed",
        );
        // A reversed, stepped view: negative step along the strided axis.
        let w = t.flip(0).unwrap().slice(rnx::s![.., 1..900;3]).unwrap();
        let wc = w.contiguous().unwrap();
        let xw = cvals(&wc);
        let want = dft_nd(&xw, &[r, 300], &[1, 0], &[300, r], -1.0, 1.0);
        check(
            &w.fft2().unwrap(),
            &want,
            &xw,
            tol(dtype),
            "fft2 flipped view",
        );
    }
    // Real input along a strided axis (f64 and f32): imaginary parts zero.
    let re: Vec<f64> = (0..r * c).map(|_| rng.unit() * 2.0 - 1.0).collect();
    let xc: Vec<C64> = re.iter().map(|&v| C64::new(v, 0.0)).collect();
    let want = dft_nd(&xc, &[r, c], &[0], &[r], -1.0, 1.0);
    let tr = Tensor::from_slice(&re, &[r, c]).unwrap();
    let o = FftOptions {
        axis: 0,
        ..Default::default()
    };
    check(
        &tr.fft_with(&o).unwrap(),
        &want,
        &xc,
        1e-12,
        "real f64 axis 0",
    );
    let t32 = tr.cast(DType::F32).unwrap();
    let y = t32.fft_with(&o).unwrap();
    assert_eq!(y.dtype(), DType::C32);
    let xc32: Vec<C64> = t32
        .to_vec_f64()
        .unwrap()
        .into_iter()
        .map(|v| C64::new(v, 0.0))
        .collect();
    let want = dft_nd(&xc32, &[r, c], &[0], &[r], -1.0, 1.0);
    check(&y, &want, &xc32, 5e-6, "real f32 axis 0");
    // rfft2's column pass: complex along axis 0 of the half spectrum.
    let want = dft_nd(&xc, &[r, c], &[1, 0], &[c, r], -1.0, 1.0);
    let half: Vec<C64> = (0..r)
        .flat_map(|i| want.0[i * c..i * c + c / 2 + 1].to_vec())
        .collect();
    let got = tr.rfft2().unwrap();
    check(&got, &(half, vec![r, c / 2 + 1]), &xc, 1e-12, "rfft2");
}

#[test]
fn in_place_passes_of_a_batch_equal_the_separate_passes_and_the_dft() {
    // (3, 300, 50): the pass along axis 1 has rows of 300 (padded tile
    // buffer) and 150 rows in chunks of 109: the first chunk's rows cross
    // batches (element gathers), the second's are 41 adjacent columns
    // (register transposes with ragged edges). fftn over the last two axes
    // runs that pass in place on the first pass's result.
    let mut rng = Rng(4242);
    let shape = [3usize, 300, 50];
    let x = rand_c(&mut rng, shape.iter().product());
    for dtype in [DType::C64, DType::C32] {
        let t = tensor(&x, &shape, dtype);
        let xr = rounded(&x, dtype);
        for (inverse, norm) in [(false, Norm::Backward), (true, Norm::Ortho)] {
            let o = FftnOptions {
                axes: vec![-2isize, -1].into(),
                norm,
                ..Default::default()
            };
            let got = if inverse {
                t.ifftn_with(&o).unwrap()
            } else {
                t.fftn_with(&o).unwrap()
            };
            let what = format!("{dtype} inverse {inverse}");
            let sign = if inverse { 1.0 } else { -1.0 };
            let s = norm_factor(norm, 300 * 50, inverse);
            let want = dft_nd(&xr, &shape, &[1, 2], &[300, 50], sign, s);
            check(&got, &want, &xr, tol(dtype), &format!("fftn {what}"));
            // The same bits as two separate (out-of-place) 1-D passes.
            let one = |t: &Tensor, axis: isize, norm: Norm| {
                let o = FftOptions {
                    n: None,
                    axis,
                    norm,
                };
                if inverse {
                    t.ifft_with(&o).unwrap()
                } else {
                    t.fft_with(&o).unwrap()
                }
            };
            // Inverse: unscaled passes (Norm::Forward), then the scale.
            let plain = if inverse {
                Norm::Forward
            } else {
                Norm::Backward
            };
            let first = one(&t, -1, plain);
            let sep = one(&first, -2, if inverse { plain } else { norm });
            if inverse {
                // ifftn scales once by 1/sqrt(300 * 50), which no pair of
                // 1-D norms gives: compare within the bound.
                let y: Vec<C64> = cvals(&sep).into_iter().map(|z| z * s).collect();
                check(&got, &(y, shape.to_vec()), &xr, tol(dtype), &what);
            } else {
                assert_eq!(
                    cvals(&got),
                    cvals(&sep),
                    "{what}: in place differs from separate passes"
                );
            }
        }
    }
    // rfftn / irfftn over the same axes: their complex pass runs in place too.
    let re: Vec<f64> = (0..x.len()).map(|_| rng.unit() * 2.0 - 1.0).collect();
    let tr = Tensor::from_slice(&re, &shape).unwrap();
    let o = FftnOptions {
        axes: vec![-2isize, -1].into(),
        ..Default::default()
    };
    let spec = tr.rfftn_with(&o).unwrap();
    assert_eq!(spec.shape(), &[3, 300, 26]);
    let xc: Vec<C64> = re.iter().map(|&v| C64::new(v, 0.0)).collect();
    let full = dft_nd(&xc, &shape, &[1, 2], &[300, 50], -1.0, 1.0);
    let half: Vec<C64> = (0..3 * 300)
        .flat_map(|i| full.0[i * 50..i * 50 + 26].to_vec())
        .collect();
    check(&spec, &(half, vec![3, 300, 26]), &xc, 1e-12, "rfftn");
    let back = spec
        .irfftn_with(&FftnOptions {
            s: Some(vec![300, 50]),
            ..o
        })
        .unwrap()
        .to_vec_f64()
        .unwrap();
    let e = back
        .iter()
        .zip(&re)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    assert!(e < 1e-12, "irfftn round trip: {e}");
}
