//! The Fourier transforms on the GPU (`src/backend/gpu/fft.rs`) against the
//! CPU's (rustfft): every kind (fft, ifft, rfft, irfft, hfft, ihfft), lengths
//! made of the radices 4, 2 and odd primes up to 31 and lengths with a larger
//! prime factor (Bluestein's algorithm), padding and truncation, every norm,
//! strided and reversed axes, batches, the 2-D and n-D forms, c32 and c64.
//! The GPU's results differ from the CPU's in the last bits: the largest
//! difference must stay within a few units of roundoff per `log2 n` of the
//! largest output magnitude (a wrong twiddle or index gives errors of order
//! one).

#![allow(clippy::type_complexity)] // tables of view/op closures
use crate::gpu::gpu;
use rnx::{s, DType, DctOptions, Device, FftOptions, Norm, Tensor, C64};

/// The largest `|g - c|` over the largest `|c|` (complex or real).
fn rel_err(g: &Tensor, c: &Tensor) -> f64 {
    assert_eq!(g.device(), Device::Gpu(0), "the result left the GPU");
    assert_eq!((g.dtype(), g.shape()), (c.dtype(), c.shape()));
    let v = |t: &Tensor| -> Vec<C64> {
        let h = t.to_device(Device::Cpu).unwrap();
        if h.dtype().is_complex() {
            h.cast(DType::C64)
                .unwrap()
                .contiguous()
                .unwrap()
                .to_vec::<C64>()
                .unwrap()
        } else {
            h.cast(DType::F64)
                .unwrap()
                .contiguous()
                .unwrap()
                .to_vec::<f64>()
                .unwrap()
                .into_iter()
                .map(|x| C64::new(x, 0.0))
                .collect()
        }
    };
    let (gv, cv) = (v(g), v(c));
    let scale = cv.iter().map(|z| z.norm()).fold(0.0, f64::max).max(1e-300);
    let err = gv
        .iter()
        .zip(&cv)
        .map(|(a, b)| (a - b).norm())
        .fold(0.0, f64::max);
    assert!(!err.is_nan(), "NaN in the results");
    err / scale
}

/// The largest `|a - b|`, as f64.
fn max_diff(a: &Tensor, b: &Tensor) -> f64 {
    let m = a.sub(b).unwrap().abs().unwrap().max(None, false).unwrap();
    m.cast(DType::F64).unwrap().item::<f64>().unwrap()
}

/// The values of a complex tensor as c64, on the host.
fn c64v(t: &Tensor) -> Vec<C64> {
    t.cast(DType::C64).unwrap().to_vec::<C64>().unwrap()
}

/// The bound for a transform of length `n` in the precision of `d`.
fn bound(d: DType, n: usize) -> f64 {
    let u = if matches!(d, DType::F32 | DType::C32) {
        2f64.powi(-24)
    } else {
        2f64.powi(-53)
    };
    // Bluestein's lengths go through two transforms of about 4n.
    8.0 * u * (4.0 * n as f64).log2().max(1.0)
}

/// Deterministic values in [-1, 1].
fn vals(n: usize, seed: u64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 52) as f64 - 1.0
        })
        .collect()
}

fn real(d: DType, shape: &[usize], seed: u64) -> Tensor {
    let n = shape.iter().product();
    Tensor::from_vec(vals(n, seed), shape)
        .unwrap()
        .cast(d)
        .unwrap()
}

fn complex(d: DType, shape: &[usize], seed: u64) -> Tensor {
    let n = shape.iter().product();
    let (re, im) = (vals(n, seed), vals(n, seed + 7));
    let v: Vec<C64> = re.iter().zip(&im).map(|(&a, &b)| C64::new(a, b)).collect();
    Tensor::from_vec(v, shape).unwrap().cast(d).unwrap()
}

/// The precisions the adapter holds: (real, complex).
fn precisions(d: Device) -> Vec<(DType, DType)> {
    let mut v = vec![(DType::F32, DType::C32)];
    if Tensor::zeros_on(DType::C64, &[1], d).is_ok() {
        v.push((DType::F64, DType::C64));
    }
    v
}

#[test]
fn every_kind_and_length_matches_the_cpu() {
    let Some(d) = gpu() else { return };
    // Radix plans (1, 4s, a 2, odd primes <= 31, mixed) and Bluestein
    // lengths (a prime factor above 31).
    let lengths = [
        1usize, 2, 3, 4, 5, 6, 7, 8, 9, 12, 16, 25, 30, 31, 32, 37, 60, 64, 74, 97, 128, 210, 243,
        256, 500, 961, 1000, 1024, 1031, 2048,
    ];
    for (rd, cd) in precisions(d) {
        for &n in &lengths {
            let x = complex(cd, &[3, n], n as u64);
            let xr = real(rd, &[3, n], n as u64 + 1);
            let (gx, gxr) = (x.to_device(d).unwrap(), xr.to_device(d).unwrap());
            let b = bound(cd, n);
            let cases: Vec<(&str, Tensor, Tensor)> = vec![
                ("fft", gx.fft().unwrap(), x.fft().unwrap()),
                ("ifft", gx.ifft().unwrap(), x.ifft().unwrap()),
                ("rfft", gxr.rfft().unwrap(), xr.rfft().unwrap()),
                ("ihfft", gxr.ihfft().unwrap(), xr.ihfft().unwrap()),
            ];
            for (what, g, c) in cases {
                let e = rel_err(&g, &c);
                assert!(e <= b, "{what} {cd} n={n}: error {e:e} > {b:e}");
            }
            // The complex-to-real kinds, output length n (input n/2 + 1 of
            // a spectrum whose DC and Nyquist imaginary parts are dropped).
            let o = FftOptions {
                n: Some(n),
                ..Default::default()
            };
            let h = x.slice(s![.., ..n / 2 + 1]).unwrap();
            let gh = gx.slice(s![.., ..n / 2 + 1]).unwrap();
            for (what, g, c) in [
                (
                    "irfft",
                    gh.irfft_with(&o).unwrap(),
                    h.irfft_with(&o).unwrap(),
                ),
                ("hfft", gh.hfft_with(&o).unwrap(), h.hfft_with(&o).unwrap()),
            ] {
                let e = rel_err(&g, &c);
                assert!(e <= b, "{what} {cd} n={n}: error {e:e} > {b:e}");
            }
        }
    }
}

#[test]
fn padding_truncation_norms_axes_and_layouts() {
    let Some(d) = gpu() else { return };
    for (rd, cd) in precisions(d) {
        let x = complex(cd, &[6, 5, 40], 3);
        let xr = real(rd, &[6, 5, 40], 4);
        let (gx, gxr) = (x.to_device(d).unwrap(), xr.to_device(d).unwrap());
        for norm in [Norm::Backward, Norm::Ortho, Norm::Forward] {
            for (axis, n) in [
                (2isize, Some(64usize)),
                (2, Some(17)),
                (0, Some(9)),
                (1, None),
                (-1, Some(41)),
            ] {
                let o = FftOptions { n, axis, norm };
                let len = n.unwrap_or(x.shape()[axis.rem_euclid(3) as usize]);
                let b = bound(cd, len);
                for (what, g, c) in [
                    ("fft", gx.fft_with(&o).unwrap(), x.fft_with(&o).unwrap()),
                    ("ifft", gx.ifft_with(&o).unwrap(), x.ifft_with(&o).unwrap()),
                    (
                        "rfft",
                        gxr.rfft_with(&o).unwrap(),
                        xr.rfft_with(&o).unwrap(),
                    ),
                    (
                        "irfft",
                        gx.irfft_with(&o).unwrap(),
                        x.irfft_with(&o).unwrap(),
                    ),
                    ("hfft", gx.hfft_with(&o).unwrap(), x.hfft_with(&o).unwrap()),
                    (
                        "ihfft",
                        gxr.ihfft_with(&o).unwrap(),
                        xr.ihfft_with(&o).unwrap(),
                    ),
                ] {
                    let e = rel_err(&g, &c);
                    assert!(
                        e <= b,
                        "{what} {cd} {norm:?} axis {axis} n {n:?}: error {e:e} > {b:e}"
                    );
                }
            }
        }
        // Strided, reversed and transposed inputs; real input to fft.
        let views: Vec<(&str, Box<dyn Fn(&Tensor) -> Tensor>)> = vec![
            (
                "step",
                Box::new(|t| t.slice(s![1..;2, .., 3..;-3]).unwrap()),
            ),
            ("transpose", Box::new(|t| t.transpose(None).unwrap())),
            ("flip", Box::new(|t| t.flip([2]).unwrap())),
        ];
        for (name, v) in &views {
            for (what, g, c) in [
                ("fft", v(&gx).fft().unwrap(), v(&x).fft().unwrap()),
                ("fft of real", v(&gxr).fft().unwrap(), v(&xr).fft().unwrap()),
                ("rfft", v(&gxr).rfft().unwrap(), v(&xr).rfft().unwrap()),
            ] {
                let e = rel_err(&g, &c);
                let b = bound(cd, 40);
                assert!(e <= b, "{what} of {name} {cd}: error {e:e} > {b:e}");
            }
        }
        // The n-D forms.
        for (what, g, c) in [
            ("fft2", gx.fft2().unwrap(), x.fft2().unwrap()),
            ("ifftn", gx.ifftn().unwrap(), x.ifftn().unwrap()),
            ("rfftn", gxr.rfftn().unwrap(), xr.rfftn().unwrap()),
            ("irfft2", gx.irfft2().unwrap(), x.irfft2().unwrap()),
        ] {
            let e = rel_err(&g, &c);
            let b = bound(cd, 1200);
            assert!(e <= b, "{what} {cd}: error {e:e} > {b:e}");
        }
    }
}

#[test]
fn exact_values_and_round_trips() {
    let Some(d) = gpu() else { return };
    // The transform of a unit impulse at 1 is the roots of unity; of a
    // constant, n at 0 and zeros elsewhere (to the roundoff).
    for n in [8usize, 12, 37] {
        let mut v = vec![0f32; n];
        v[1] = 1.0;
        let x = Tensor::from_vec(v, &[n]).unwrap().to_device(d).unwrap();
        let y = c64v(&x.fft().unwrap());
        for (k, z) in y.iter().enumerate() {
            let th = -2.0 * std::f64::consts::PI * k as f64 / n as f64;
            assert!(
                (z.re - th.cos()).abs() < 1e-6 && (z.im - th.sin()).abs() < 1e-6,
                "n={n} k={k}: {z}"
            );
        }
        let ones = Tensor::ones_on(DType::F32, &[n], d).unwrap();
        let y = c64v(&ones.rfft().unwrap());
        assert!((y[0].re - n as f64).abs() < 1e-5 && y[0].im.abs() < 1e-5);
        assert!(y[1..].iter().all(|z| z.norm() < 1e-5), "n={n}: {y:?}");
    }
    // irfft(rfft(x)) and ifft(fft(x)) give x back, on the GPU.
    for (rd, cd) in precisions(d) {
        let tol = if rd == DType::F32 { 1e-5 } else { 1e-13 };
        for n in [30usize, 64, 97] {
            let xr = real(rd, &[4, n], 9).to_device(d).unwrap();
            let o = FftOptions {
                n: Some(n),
                ..Default::default()
            };
            let back = xr.rfft().unwrap().irfft_with(&o).unwrap();
            let e = max_diff(&back, &xr);
            assert!(e < tol, "irfft(rfft) {rd} n={n}: {e}");
            let x = complex(cd, &[4, n], 10).to_device(d).unwrap();
            let back = x.fft().unwrap().ifft().unwrap();
            let e = max_diff(&back, &x);
            assert!(e < tol, "ifft(fft) {cd} n={n}: {e}");
        }
    }
}

#[test]
fn dct_and_dst_of_every_type_match_the_cpu() {
    let Some(d) = gpu() else { return };
    for (rd, _) in precisions(d) {
        let x = real(rd, &[5, 3, 24], 21);
        let gx = x.to_device(d).unwrap();
        // Every norm x orthogonalize on one length (they only scale some
        // inputs and outputs), every length and axis with the default ones.
        let mut cases: Vec<(Norm, Option<bool>, isize, Option<usize>)> = Vec::new();
        for norm in [Norm::Backward, Norm::Ortho, Norm::Forward] {
            for orthogonalize in [None, Some(false), Some(true)] {
                cases.push((norm, orthogonalize, 2, Some(13)));
            }
        }
        // (37: the FFT lengths 72, 74 and 76 of DCT-1, the types 2-4 and
        // DST-1; 74 = 2 x 37 takes Bluestein's algorithm.)
        for (axis, n) in [
            (2isize, None),
            (2, Some(31)),
            (0, Some(7)),
            (1, Some(2)),
            (2, Some(37)),
        ] {
            cases.push((Norm::Backward, None, axis, n));
        }
        for ty in 1..=4u8 {
            for &(norm, orthogonalize, axis, n) in &cases {
                let o = DctOptions {
                    ty,
                    n,
                    axis,
                    norm,
                    orthogonalize,
                };
                let len = n.unwrap_or(24);
                let b = bound(rd, 4 * len);
                for (what, g, c) in [
                    ("dct", gx.dct_with(&o).unwrap(), x.dct_with(&o).unwrap()),
                    ("idct", gx.idct_with(&o).unwrap(), x.idct_with(&o).unwrap()),
                    ("dst", gx.dst_with(&o).unwrap(), x.dst_with(&o).unwrap()),
                    ("idst", gx.idst_with(&o).unwrap(), x.idst_with(&o).unwrap()),
                ] {
                    let e = rel_err(&g, &c);
                    assert!(
                        e <= b,
                        "{what} type {ty} {rd} {norm:?} orth {orthogonalize:?} axis {axis} n {n:?}: error {e:e} > {b:e}"
                    );
                }
            }
        }
        // A strided, reversed view and the n-D form.
        let v = gx.slice(s![..;2, .., 20..3;-1]).unwrap();
        let c = x.slice(s![..;2, .., 20..3;-1]).unwrap();
        let e = rel_err(&v.dct().unwrap(), &c.dct().unwrap());
        assert!(e <= bound(rd, 80), "dct of a view {rd}: {e:e}");
        let e = rel_err(&gx.dctn().unwrap(), &x.dctn().unwrap());
        assert!(e <= bound(rd, 200), "dctn {rd}: {e:e}");
    }
}

#[test]
fn rows_larger_than_one_binding_window() {
    let Some(d) = gpu() else { return };
    // 3 rows of 2^20 c32: 24 MiB, two windows of the suite's 16 MiB
    // binding window (the scratch buffers too).
    let w = crate::gpu_memory::test_window(d);
    let n = 1 << 20;
    assert!(
        3 * n * 8 > w,
        "the test needs more than one window ({w} bytes)"
    );
    let x = complex(DType::C32, &[3, n], 77);
    let e = rel_err(&x.to_device(d).unwrap().fft().unwrap(), &x.fft().unwrap());
    assert!(e <= bound(DType::C32, n), "fft of 3 x 2^20: {e:e}");
}

/// Random cases (25, fixed seed): rank 1-3, any axis, lengths 1-300 (every
/// radix plan and Bluestein), every kind, padding and truncation, views with
/// steps, reversals and transposes; the GPU against the CPU.
#[test]
fn random_shapes_axes_lengths_and_views() {
    let Some(d) = gpu() else { return };
    let mut s = 0x5eed_f00d_u64;
    let mut next = |m: u64| {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s % m
    };
    let precisions = precisions(d);
    for case in 0..25 {
        let (rd, cd) = precisions[case % precisions.len()];
        let rank = 1 + next(3) as usize;
        let mut shape: Vec<usize> = (0..rank).map(|_| 1 + next(6) as usize).collect();
        let axis = next(rank as u64) as usize;
        shape[axis] = 1 + next(300) as usize;
        let len = shape[axis];
        let n = match next(3) {
            0 => None,
            _ => Some(1 + next(320) as usize),
        };
        let x = complex(cd, &shape, case as u64);
        let xr = real(rd, &shape, case as u64 + 100);
        // A view: reversed along the axis, or every other element of
        // another axis, or transposed.
        let view = |t: &Tensor| -> Tensor {
            match case % 3 {
                0 => t.flip([axis as isize]).unwrap(),
                1 if rank > 1 => {
                    let other = (axis + 1) % rank;
                    let mut idx: Vec<rnx::Index> = vec![rnx::Index::R(None, None, 1); rank];
                    idx[other] = rnx::Index::R(None, None, 2);
                    t.slice(idx).unwrap()
                }
                _ => t.transpose(None).unwrap().transpose(None).unwrap(),
            }
        };
        let o = FftOptions {
            n,
            axis: axis as isize,
            norm: [Norm::Backward, Norm::Ortho, Norm::Forward][case % 3],
        };
        let (gx, gxr) = (
            view(&x.to_device(d).unwrap()),
            view(&xr.to_device(d).unwrap()),
        );
        let (cx, cxr) = (view(&x), view(&xr));
        let b = bound(cd, n.unwrap_or(len).max(2));
        let which = next(6);
        let (what, g, c) = match which {
            0 => ("fft", gx.fft_with(&o), cx.fft_with(&o)),
            1 => ("ifft", gx.ifft_with(&o), cx.ifft_with(&o)),
            2 => ("rfft", gxr.rfft_with(&o), cxr.rfft_with(&o)),
            3 => ("irfft", gx.irfft_with(&o), cx.irfft_with(&o)),
            4 => ("hfft", gx.hfft_with(&o), cx.hfft_with(&o)),
            _ => ("ihfft", gxr.ihfft_with(&o), cxr.ihfft_with(&o)),
        };
        match (g, c) {
            (Ok(g), Ok(c)) => {
                let e = rel_err(&g, &c);
                assert!(
                    e <= b,
                    "case {case}: {what} {cd} shape {shape:?} axis {axis} n {n:?}: error {e:e} > {b:e}"
                );
            }
            // The same validation error on both devices (e.g. irfft to
            // length 0 of a one-element axis).
            (Err(g), Err(c)) => assert_eq!(g.to_string(), c.to_string(), "case {case}"),
            (g, c) => panic!(
                "case {case}: {what}: gpu {:?} vs cpu {:?}",
                g.err(),
                c.err()
            ),
        }
    }
}
