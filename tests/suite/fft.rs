//! Fourier transforms (`fft`, `rfft`, `hfft`, their inverses and n-D forms,
//! `fftfreq`, `fftshift`): NumPy's documented examples, a direct O(n^2) DFT in
//! f64 on a sample of lengths 1..300 (primes included), inverse(forward(x)) = x
//! for every function and norm, Parseval, Hermitian symmetry of real
//! transforms, `n`/`s` padding and truncation, strided and reversed inputs,
//! non-last axes, batches large enough to run on several threads, and errors.
//!
//! Bounds: an f64 transform of `x` is within `1e-12 * sum|x|` of the f64 DFT
//! (rustfft's error grows like `eps log n`, the reference's like `eps n`); an
//! f32 one within `2e-6 * sum|x|`; round trips within `1e-12` (f64) and `1e-5`
//! (f32) of the input for |x| <= 1 and lengths up to 300.

use crate::common::Rng;
use rnx::{Axes, DType, FftOptions, FftnOptions, Norm, Tensor, C32, C64};

const PI: f64 = std::f64::consts::PI;
const NORMS: [Norm; 3] = [Norm::Backward, Norm::Ortho, Norm::Forward];
/// Lengths for the DFT comparison: small, powers of two, primes, mixed.
const LENGTHS: [usize; 20] = [
    1, 2, 3, 4, 5, 7, 8, 12, 16, 17, 31, 45, 64, 97, 100, 128, 211, 256, 293, 300,
];

fn c(re: f64, im: f64) -> C64 {
    C64::new(re, im)
}

fn rand_c(rng: &mut Rng, n: usize) -> Vec<C64> {
    (0..n)
        .map(|_| c(rng.unit() * 2.0 - 1.0, rng.unit() * 2.0 - 1.0))
        .collect()
}

fn rand_r(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| rng.unit() * 2.0 - 1.0).collect()
}

/// The direct DFT in f64, unnormalised; `sign` -1 forward, +1 inverse.
fn dft(x: &[C64], n: usize, sign: f64) -> Vec<C64> {
    let mut xs = x.to_vec();
    xs.resize(n, c(0.0, 0.0));
    (0..n)
        .map(|k| {
            xs.iter().enumerate().fold(c(0.0, 0.0), |acc, (j, &v)| {
                let t = sign * 2.0 * PI * ((j * k) % n) as f64 / n as f64;
                acc + v * c(t.cos(), t.sin())
            })
        })
        .collect()
}

/// The values of a c32 or c64 tensor as c64 (also used by `fft_tiled.rs`).
pub(crate) fn cvals(t: &Tensor) -> Vec<C64> {
    match t.dtype() {
        DType::C64 => t.to_vec::<C64>().unwrap(),
        DType::C32 => t
            .to_vec::<C32>()
            .unwrap()
            .into_iter()
            .map(|z| c(z.re as f64, z.im as f64))
            .collect(),
        d => panic!("not complex: {d}"),
    }
}

fn max_err(a: &[C64], b: &[C64]) -> f64 {
    assert_eq!(a.len(), b.len(), "lengths differ");
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).norm())
        .fold(0.0, f64::max)
}

fn max_err_r(a: &[f64], b: &[f64]) -> f64 {
    assert_eq!(a.len(), b.len(), "lengths differ");
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).abs())
        .fold(0.0, f64::max)
}

fn l1(x: &[C64]) -> f64 {
    x.iter().map(|z| z.norm()).sum::<f64>().max(1.0)
}

fn ct(v: &[C64], shape: &[usize]) -> Tensor {
    Tensor::from_slice(v, shape).unwrap()
}

fn rt(v: &[f64], shape: &[usize]) -> Tensor {
    Tensor::from_slice(v, shape).unwrap()
}

fn opts(n: Option<usize>, norm: Norm) -> FftOptions {
    FftOptions {
        n,
        norm,
        ..Default::default()
    }
}

fn scale(norm: Norm, n: usize, inverse: bool) -> f64 {
    match (norm, inverse) {
        (Norm::Ortho, _) => 1.0 / (n as f64).sqrt(),
        (Norm::Backward, false) | (Norm::Forward, true) => 1.0,
        _ => 1.0 / n as f64,
    }
}

fn scaled(v: Vec<C64>, s: f64) -> Vec<C64> {
    v.into_iter().map(|z| z * s).collect()
}

#[test]
fn numpy_examples() {
    // np.fft.fft(np.exp(2j * np.pi * np.arange(8) / 8)): 8 at index 1, ~0 elsewhere.
    let x: Vec<C64> = (0..8)
        .map(|k| c(0.0, 2.0 * PI * k as f64 / 8.0).exp())
        .collect();
    let y = cvals(&ct(&x, &[8]).fft().unwrap());
    let mut want = vec![c(0.0, 0.0); 8];
    want[1] = c(8.0, 0.0);
    assert!(max_err(&y, &want) < 1e-13, "{y:?}");
    // rfft/irfft docs: fft([0, 1, 0, 0]) = [1, -1j, -1, 1j]; rfft keeps 3.
    let x = rt(&[0., 1., 0., 0.], &[4]);
    assert_eq!(
        cvals(&x.fft().unwrap()),
        vec![c(1., 0.), c(0., -1.), c(-1., 0.), c(0., 1.)]
    );
    let y = cvals(&x.rfft().unwrap());
    assert!(
        max_err(&y, &[c(1., 0.), c(0., -1.), c(-1., 0.)]) < 1e-15,
        "{y:?}"
    );
    let y = ct(&[c(1., 0.), c(0., -1.), c(-1., 0.)], &[3])
        .irfft()
        .unwrap();
    assert_eq!(y.dtype(), DType::F64);
    assert!(max_err_r(&y.to_vec_f64().unwrap(), &[0., 1., 0., 0.]) < 1e-15);
    // hfft docs: signal [1, 2, 3, 4, 3, 2]: fft = hfft(signal[:4]) = hfft(signal, 6) = [15, -4, 0, -1, 0, -4].
    let want = [15., -4., 0., -1., 0., -4.];
    let sig = rt(&[1., 2., 3., 4., 3., 2.], &[6]);
    let h = sig.slice(rnx::s![0..4]).unwrap().hfft().unwrap();
    assert!(max_err_r(&h.to_vec_f64().unwrap(), &want) < 1e-13);
    let h = sig.hfft_with(&opts(Some(6), Norm::Backward)).unwrap();
    assert!(max_err_r(&h.to_vec_f64().unwrap(), &want) < 1e-13);
    // ihfft docs: ihfft([15, -4, 0, -1, 0, -4]) = [1, 2, 3, 4].
    let ih = cvals(&rt(&want, &[6]).ihfft().unwrap());
    assert!(max_err(&ih, &[c(1., 0.), c(2., 0.), c(3., 0.), c(4., 0.)]) < 1e-14);
    // fft2 docs: a = np.mgrid[:5, :5][0]: row 0 = [50, 0...], rows 1..4 = -12.5 +- ...j in column 0.
    let a: Vec<f64> = (0..25).map(|i| (i / 5) as f64).collect();
    let y = cvals(&rt(&a, &[5, 5]).fft2().unwrap());
    let col0 = [
        c(50., 0.),
        c(-12.5, 17.204_774_005_889_67),
        c(-12.5, 4.061_496_202_911_33),
        c(-12.5, -4.061_496_202_911_33),
        c(-12.5, -17.204_774_005_889_67),
    ];
    // NumPy prints -12.5+17.20477401j, -12.5+4.0614962j: 12.5 cot(k pi / 5).
    for (k, z) in col0.iter().enumerate().skip(1) {
        assert!((z.im - 12.5 / (PI * k as f64 / 5.0).tan()).abs() < 1e-12);
    }
    for r in 0..5 {
        assert!(
            (y[r * 5] - col0[r]).norm() < 1e-12,
            "row {r}: {:?}",
            y[r * 5]
        );
        assert!(y[r * 5 + 1..r * 5 + 5].iter().all(|z| z.norm() < 1e-12));
    }
    // fftn docs: a = np.mgrid[:3, :3, :3][0]; fftn(a, axes=(1, 2))[i, 0, 0] = 9 i, zeros elsewhere.
    let a: Vec<f64> = (0..27).map(|i| (i / 9) as f64).collect();
    let a = rt(&a, &[3, 3, 3]);
    let y = cvals(
        &a.fftn_with(&FftnOptions {
            axes: [1, 2].into(),
            ..Default::default()
        })
        .unwrap(),
    );
    for (i, z) in y.iter().enumerate() {
        let want = if i % 9 == 0 {
            9.0 * (i / 9) as f64
        } else {
            0.0
        };
        assert!((z - c(want, 0.)).norm() < 1e-12, "{i}: {z}");
    }
    // fftn(a, (2, 2), axes=(0, 1)) = [[[2,2,2],[0,0,0]],[[-2,-2,-2],[0,0,0]]].
    let y = a
        .fftn_with(&FftnOptions {
            s: Some(vec![2, 2]),
            axes: [0, 1].into(),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(y.shape(), &[2, 2, 3]);
    let want: Vec<C64> = [2., 2., 2., 0., 0., 0., -2., -2., -2., 0., 0., 0.]
        .iter()
        .map(|&v| c(v, 0.))
        .collect();
    assert!(max_err(&cvals(&y), &want) < 1e-13);
}

#[test]
fn freq_and_shift_examples() {
    let f = Tensor::fftfreq(8, 0.1, DType::F64).unwrap();
    assert_eq!(
        f.to_vec_f64().unwrap(),
        vec![0., 1.25, 2.5, 3.75, -5., -3.75, -2.5, -1.25]
    );
    let f = Tensor::fftfreq(5, 1.0, DType::F32).unwrap();
    assert_eq!(f.dtype(), DType::F32);
    assert_eq!(f.to_vec::<f32>().unwrap(), vec![0., 0.2, 0.4, -0.4, -0.2]);
    let f = Tensor::rfftfreq(9, 0.5, DType::F64).unwrap();
    let want: Vec<f64> = (0..5).map(|k| k as f64 * (1.0 / 4.5)).collect();
    assert_eq!(f.to_vec_f64().unwrap(), want);
    // fftshift docs.
    let f = Tensor::fftfreq(10, 0.1, DType::F64).unwrap();
    assert_eq!(
        f.fftshift(None).unwrap().to_vec_f64().unwrap(),
        vec![-5., -4., -3., -2., -1., 0., 1., 2., 3., 4.]
    );
    let f = Tensor::fftfreq(9, 1.0 / 9.0, DType::F64)
        .unwrap()
        .reshape([3, 3])
        .unwrap();
    let g = f
        .to_vec_f64()
        .unwrap()
        .iter()
        .map(|v| v.round())
        .collect::<Vec<_>>();
    assert_eq!(g, vec![0., 1., 2., 3., 4., -4., -3., -2., -1.]);
    let s1 = f.fftshift(1).unwrap().to_vec_f64().unwrap();
    let s1: Vec<f64> = s1.iter().map(|v| v.round()).collect();
    assert_eq!(s1, vec![2., 0., 1., -4., 3., 4., -1., -3., -2.]);
    let back = f.fftshift(None).unwrap().ifftshift(None).unwrap();
    assert_eq!(back.to_vec_f64().unwrap(), f.to_vec_f64().unwrap());
    // Odd length: ifftshift differs from fftshift.
    let x = Tensor::arange(DType::I32, 0, 5, 1).unwrap();
    assert_eq!(
        x.fftshift(None).unwrap().to_vec::<i32>().unwrap(),
        vec![3, 4, 0, 1, 2]
    );
    assert_eq!(
        x.ifftshift(None).unwrap().to_vec::<i32>().unwrap(),
        vec![2, 3, 4, 0, 1]
    );
    // Errors.
    for e in [
        Tensor::fftfreq(0, 1.0, DType::F64).unwrap_err(),
        Tensor::fftfreq(4, 0.0, DType::F64).unwrap_err(),
        Tensor::rfftfreq(4, 1.0, DType::I32).unwrap_err(),
    ] {
        assert!(e.to_string().contains("fftfreq"), "{e}");
    }
}

#[test]
fn complex_matches_direct_dft() {
    let mut rng = Rng(0x5eed_f00d);
    for &n in &LENGTHS {
        let x = rand_c(&mut rng, n);
        for (norm, i) in NORMS.iter().zip(0..) {
            let inverse = i % 2 == 1;
            let t = ct(&x, &[n]);
            let (y, sign) = if inverse {
                (t.ifft_with(&opts(None, *norm)).unwrap(), 1.0)
            } else {
                (t.fft_with(&opts(None, *norm)).unwrap(), -1.0)
            };
            assert_eq!(y.dtype(), DType::C64);
            let want = scaled(dft(&x, n, sign), scale(*norm, n, inverse));
            let e = max_err(&cvals(&y), &want);
            assert!(e <= 1e-12 * l1(&x), "n {n} {norm:?} inverse {inverse}: {e}");
            // c32: same within the f32 bound.
            let x32: Vec<C32> = x
                .iter()
                .map(|z| C32::new(z.re as f32, z.im as f32))
                .collect();
            let t32 = Tensor::from_slice(&x32, &[n]).unwrap();
            let y32 = if inverse {
                t32.ifft_with(&opts(None, *norm)).unwrap()
            } else {
                t32.fft_with(&opts(None, *norm)).unwrap()
            };
            assert_eq!(y32.dtype(), DType::C32);
            let e = max_err(&cvals(&y32), &want);
            assert!(e <= 2e-6 * l1(&x), "c32 n {n} {norm:?}: {e}");
        }
    }
}

#[test]
fn real_transforms_match_direct_dft() {
    let mut rng = Rng(0xabcdef);
    for &n in &LENGTHS {
        let x = rand_r(&mut rng, n);
        let xc: Vec<C64> = x.iter().map(|&v| c(v, 0.)).collect();
        let full = dft(&xc, n, -1.0);
        let h = n / 2 + 1;
        // rfft: the first n/2 + 1 of the full DFT; f32 gives c32.
        let y = rt(&x, &[n]).rfft().unwrap();
        assert_eq!(y.shape(), &[h]);
        assert!(
            max_err(&cvals(&y), &full[..h]) <= 1e-12 * l1(&xc),
            "rfft {n}"
        );
        let x32: Vec<f32> = x.iter().map(|&v| v as f32).collect();
        let y32 = Tensor::from_slice(&x32, &[n]).unwrap().rfft().unwrap();
        assert_eq!(y32.dtype(), DType::C32);
        assert!(
            max_err(&cvals(&y32), &full[..h]) <= 2e-6 * l1(&xc),
            "rfft f32 {n}"
        );
        // fft of real input: Hermitian symmetry X[n-k] = conj(X[k]).
        let f = cvals(&rt(&x, &[n]).fft().unwrap());
        for k in 1..n {
            assert!(
                (f[n - k] - f[k].conj()).norm() <= 1e-12 * l1(&xc),
                "sym {n} {k}"
            );
        }
        // ihfft = conj(rfft) / n.
        let ih = cvals(&rt(&x, &[n]).ihfft().unwrap());
        let want: Vec<C64> = full[..h].iter().map(|z| z.conj() / n as f64).collect();
        assert!(max_err(&ih, &want) <= 1e-12 * l1(&xc), "ihfft {n}");
        // irfft of a half spectrum: the real inverse DFT of its Hermitian extension.
        let half = rand_c(&mut rng, h);
        let mut ext = half.clone();
        ext[0].im = 0.0;
        if n % 2 == 0 {
            ext[n / 2].im = 0.0;
        }
        let mut herm = ext.clone();
        for k in h..n {
            herm.push(ext[n - k].conj());
        }
        let want: Vec<f64> = dft(&herm, n, 1.0).iter().map(|z| z.re / n as f64).collect();
        let y = ct(&half, &[h])
            .irfft_with(&opts(Some(n), Norm::Backward))
            .unwrap();
        assert_eq!(y.shape(), &[n]);
        let e = max_err_r(&y.to_vec_f64().unwrap(), &want);
        assert!(e <= 1e-12 * l1(&half), "irfft {n}: {e}");
        // hfft = irfft(conj(a)) * n.
        let conj: Vec<C64> = half.iter().map(|z| z.conj()).collect();
        let y = ct(&conj, &[h])
            .hfft_with(&opts(Some(n), Norm::Backward))
            .unwrap();
        let want: Vec<f64> = want.iter().map(|v| v * n as f64).collect();
        let e = max_err_r(&y.to_vec_f64().unwrap(), &want);
        assert!(e <= 1e-12 * n as f64 * l1(&half), "hfft {n}: {e}");
    }
}

#[test]
fn inverse_of_forward_every_function_and_norm() {
    let mut rng = Rng(7);
    let tol = 1e-12;
    for norm in NORMS {
        let o = |n| opts(n, norm);
        for n in [1usize, 2, 5, 6, 13, 64, 97, 300] {
            let x = rand_c(&mut rng, n);
            let t = ct(&x, &[n]);
            let back = t.fft_with(&o(None)).unwrap().ifft_with(&o(None)).unwrap();
            assert!(max_err(&cvals(&back), &x) < tol, "fft {n} {norm:?}");
            let r = rand_r(&mut rng, n);
            let tr = rt(&r, &[n]);
            let back = tr
                .rfft_with(&o(None))
                .unwrap()
                .irfft_with(&o(Some(n)))
                .unwrap();
            assert!(
                max_err_r(&back.to_vec_f64().unwrap(), &r) < tol,
                "rfft {n} {norm:?}"
            );
            let back = tr
                .ihfft_with(&o(None))
                .unwrap()
                .hfft_with(&o(Some(n)))
                .unwrap();
            assert!(
                max_err_r(&back.to_vec_f64().unwrap(), &r) < tol,
                "hfft {n} {norm:?}"
            );
            // f32 precision round trip.
            let r32: Vec<f32> = r.iter().map(|&v| v as f32).collect();
            let t32 = Tensor::from_slice(&r32, &[n]).unwrap();
            let back = t32
                .rfft_with(&o(None))
                .unwrap()
                .irfft_with(&o(Some(n)))
                .unwrap();
            assert_eq!(back.dtype(), DType::F32);
            let b: Vec<f64> = back.to_vec_f64().unwrap();
            assert!(max_err_r(&b, &r) < 1e-5, "rfft f32 {n} {norm:?}");
        }
        let no = |s: Option<Vec<usize>>| FftnOptions {
            s,
            norm,
            ..Default::default()
        };
        for shape in [vec![4usize, 6], vec![3, 5, 7], vec![1, 9]] {
            let size: usize = shape.iter().product();
            let x = rand_c(&mut rng, size);
            let t = ct(&x, &shape);
            let back = t
                .fftn_with(&no(None))
                .unwrap()
                .ifftn_with(&no(None))
                .unwrap();
            assert!(max_err(&cvals(&back), &x) < tol, "fftn {shape:?} {norm:?}");
            let back = t
                .fft2_with(&no(None))
                .unwrap()
                .ifft2_with(&no(None))
                .unwrap();
            assert!(max_err(&cvals(&back), &x) < tol, "fft2 {shape:?} {norm:?}");
            let r = rand_r(&mut rng, size);
            let tr = rt(&r, &shape);
            let s = Some(shape.clone());
            let back = tr
                .rfftn_with(&no(None))
                .unwrap()
                .irfftn_with(&no(s))
                .unwrap();
            assert!(
                max_err_r(&back.to_vec_f64().unwrap(), &r) < tol,
                "rfftn {shape:?}"
            );
            let s2 = Some(shape[shape.len() - 2..].to_vec());
            let back = tr
                .rfft2_with(&no(None))
                .unwrap()
                .irfft2_with(&no(s2))
                .unwrap();
            assert!(
                max_err_r(&back.to_vec_f64().unwrap(), &r) < tol,
                "rfft2 {shape:?}"
            );
        }
    }
}

#[test]
fn n_dimensional_matches_axis_by_axis_and_norms_scale_once() {
    let mut rng = Rng(99);
    let x = rand_c(&mut rng, 3 * 4 * 5);
    let t = ct(&x, &[3, 4, 5]);
    let mut want = t.clone();
    for ax in [2isize, 1, 0] {
        want = want
            .fft_with(&FftOptions {
                axis: ax,
                ..Default::default()
            })
            .unwrap();
    }
    let want = cvals(&want);
    let y = t.fftn().unwrap();
    assert!(max_err(&cvals(&y), &want) < 1e-12);
    let y = t
        .fftn_with(&FftnOptions {
            norm: Norm::Ortho,
            ..Default::default()
        })
        .unwrap();
    assert!(max_err(&cvals(&y), &scaled(want.clone(), 1.0 / 60f64.sqrt())) < 1e-12);
    let y = t
        .fftn_with(&FftnOptions {
            norm: Norm::Forward,
            ..Default::default()
        })
        .unwrap();
    assert!(max_err(&cvals(&y), &scaled(want, 1.0 / 60.0)) < 1e-12);
    // Parseval: sum |x|^2 = sum |X|^2 / N (backward), = sum |X|^2 (ortho).
    let e: f64 = x.iter().map(|z| z.norm_sqr()).sum();
    let ey: f64 = cvals(&t.fftn().unwrap()).iter().map(|z| z.norm_sqr()).sum();
    assert!((e - ey / 60.0).abs() < 1e-12 * e);
    let r = rand_r(&mut rng, 257);
    let er: f64 = r.iter().map(|v| v * v).sum();
    let yo = cvals(&rt(&r, &[257]).fft_with(&opts(None, Norm::Ortho)).unwrap());
    let eo: f64 = yo.iter().map(|z| z.norm_sqr()).sum();
    assert!((er - eo).abs() < 1e-12 * er, "{er} {eo}");
    // rfftn = fft over the leading axes of rfft over the last.
    let r = rand_r(&mut rng, 4 * 6);
    let tr = rt(&r, &[4, 6]);
    let a = cvals(&tr.rfftn().unwrap());
    let b = cvals(
        &tr.rfft()
            .unwrap()
            .fft_with(&FftOptions {
                axis: 0,
                ..Default::default()
            })
            .unwrap(),
    );
    assert!(max_err(&a, &b) < 1e-12);
    assert_eq!(tr.rfft2().unwrap().shape(), &[4, 4]);
    // An empty axis list: fftn returns the input as complex; rfftn is an error.
    let none = FftnOptions {
        axes: Vec::<isize>::new().into(),
        ..Default::default()
    };
    assert_eq!(cvals(&t.fftn_with(&none).unwrap()), x);
    assert!(tr.rfftn_with(&none).is_err());
}

#[test]
fn padding_and_truncation() {
    let mut rng = Rng(3);
    let x = rand_c(&mut rng, 5);
    let t = ct(&x, &[5]);
    // n = 8 pads with zeros, n = 3 truncates.
    let y = cvals(&t.fft_with(&opts(Some(8), Norm::Backward)).unwrap());
    assert!(max_err(&y, &dft(&x, 8, -1.0)) < 1e-12);
    let y = cvals(&t.fft_with(&opts(Some(3), Norm::Backward)).unwrap());
    assert!(max_err(&y, &dft(&x[..3], 3, -1.0)) < 1e-12);
    let y = cvals(&t.ifft_with(&opts(Some(3), Norm::Backward)).unwrap());
    assert!(max_err(&y, &scaled(dft(&x[..3], 3, 1.0), 1.0 / 3.0)) < 1e-12);
    // rfft with n: shape n/2 + 1 of the padded / truncated input.
    let r = rand_r(&mut rng, 6);
    let rc: Vec<C64> = r.iter().map(|&v| c(v, 0.)).collect();
    let y = rt(&r, &[6])
        .rfft_with(&opts(Some(9), Norm::Backward))
        .unwrap();
    assert_eq!(y.shape(), &[5]);
    assert!(max_err(&cvals(&y), &dft(&rc, 9, -1.0)[..5]) < 1e-12);
    let y = rt(&r, &[6])
        .rfft_with(&opts(Some(4), Norm::Backward))
        .unwrap();
    assert!(max_err(&cvals(&y), &dft(&rc[..4], 4, -1.0)[..3]) < 1e-12);
    // irfft: n = 4 reads 3 inputs (truncates 5), n = 12 reads 7 (pads 5 with zeros).
    let spec = rand_c(&mut rng, 5);
    let a = ct(&spec, &[5])
        .irfft_with(&opts(Some(4), Norm::Backward))
        .unwrap();
    let b = ct(&spec[..3], &[3])
        .irfft_with(&opts(Some(4), Norm::Backward))
        .unwrap();
    assert_eq!(a.to_vec_f64().unwrap(), b.to_vec_f64().unwrap());
    let mut padded = spec.clone();
    padded.resize(7, c(0., 0.));
    let a = ct(&spec, &[5])
        .irfft_with(&opts(Some(12), Norm::Backward))
        .unwrap();
    let b = ct(&padded, &[7]).irfft().unwrap();
    assert_eq!(a.shape(), &[12]);
    assert!(max_err_r(&a.to_vec_f64().unwrap(), &b.to_vec_f64().unwrap()) < 1e-15);
    // Default irfft length 2 (m - 1); odd n inverts an odd rfft.
    assert_eq!(ct(&spec, &[5]).irfft().unwrap().shape(), &[8]);
    assert_eq!(ct(&spec, &[5]).hfft().unwrap().shape(), &[8]);
    // s in n-D: pads one axis, truncates another.
    let x = rand_c(&mut rng, 12);
    let t = ct(&x, &[3, 4]);
    let y = t
        .fft2_with(&FftnOptions {
            s: Some(vec![5, 2]),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(y.shape(), &[5, 2]);
    let mut grid = vec![c(0., 0.); 10];
    for i in 0..3 {
        for j in 0..2 {
            grid[i * 2 + j] = x[i * 4 + j];
        }
    }
    let want = ct(&grid, &[5, 2]).fft2().unwrap();
    assert!(max_err(&cvals(&y), &cvals(&want)) < 1e-12);
    // s without axes: the last len(s) axes.
    let y = t
        .fftn_with(&FftnOptions {
            s: Some(vec![6]),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(y.shape(), &[3, 6]);
}

#[test]
fn strided_reversed_and_non_last_axis() {
    let mut rng = Rng(11);
    let x = rand_c(&mut rng, 4 * 6 * 5);
    let t = ct(&x, &[4, 6, 5]);
    for axis in [0isize, 1, 2, -1] {
        let o = FftOptions {
            axis,
            ..Default::default()
        };
        let y = t.fft_with(&o).unwrap();
        // Reference: move the axis last, transform, move back.
        let moved = t.moveaxis(axis, -1).unwrap().contiguous().unwrap();
        let want = moved
            .fft()
            .unwrap()
            .moveaxis(-1, axis)
            .unwrap()
            .contiguous()
            .unwrap();
        assert!(max_err(&cvals(&y), &cvals(&want)) < 1e-12, "axis {axis}");
    }
    // A transposed, reversed, stepped view against its contiguous copy.
    let v = t
        .transpose([2, 0, 1])
        .unwrap()
        .flip(1)
        .unwrap()
        .slice(rnx::s![.., .., 0..6;2])
        .unwrap();
    assert!(!v.is_c_contiguous());
    let vc = v.contiguous().unwrap();
    for axis in [0isize, 1, 2] {
        let o = FftOptions {
            axis,
            n: Some(7),
            ..Default::default()
        };
        let a = cvals(&v.fft_with(&o).unwrap());
        let b = cvals(&vc.fft_with(&o).unwrap());
        assert!(max_err(&a, &b) < 1e-13, "view axis {axis}");
    }
    let a = cvals(&v.fftn().unwrap());
    let b = cvals(&vc.fftn().unwrap());
    assert!(max_err(&a, &b) < 1e-12);
    // Real transforms of a reversed real view.
    let r = rand_r(&mut rng, 30);
    let tr = rt(&r, &[5, 6]).flip(None).unwrap();
    let trc = tr.contiguous().unwrap();
    for axis in [0isize, 1] {
        let o = FftOptions {
            axis,
            ..Default::default()
        };
        let a = tr.rfft_with(&o).unwrap();
        let b = trc.rfft_with(&o).unwrap();
        assert_eq!(cvals(&a), cvals(&b));
        let back = a.irfft_with(&FftOptions {
            n: Some(trc.shape()[axis as usize]),
            ..o
        });
        let e = max_err_r(
            &back.unwrap().to_vec_f64().unwrap(),
            &trc.to_vec_f64().unwrap(),
        );
        assert!(e < 1e-12);
    }
}

#[test]
fn batches_over_threads_match_rows() {
    // 600 rows of 97 (a prime: Bluestein/Rader) and 512: several chunks of work.
    let mut rng = Rng(5);
    for n in [97usize, 512] {
        let rows = 600;
        let x = rand_c(&mut rng, rows * n);
        let y = cvals(&ct(&x, &[rows, n]).fft().unwrap());
        for r in [0, 1, 299, 599] {
            let want = cvals(&ct(&x[r * n..(r + 1) * n], &[n]).fft().unwrap());
            assert_eq!(&y[r * n..(r + 1) * n], &want[..], "row {r} of n {n}");
        }
        for r in [0, 333] {
            let want = dft(&x[r * n..(r + 1) * n], n, -1.0);
            assert!(max_err(&y[r * n..(r + 1) * n], &want) <= 1e-12 * l1(&want));
        }
        // The same along axis 0 (strided rows).
        let t = ct(&x, &[n, rows]);
        let y0 = t.rfft_with(&FftOptions {
            axis: 0,
            ..Default::default()
        });
        assert!(y0.is_err(), "rfft of complex input is an error");
        let re = t.fft_with(&FftOptions {
            axis: 0,
            ..Default::default()
        });
        let col: Vec<C64> = (0..n).map(|i| x[i * rows + 7]).collect();
        let got: Vec<C64> = cvals(&re.unwrap())
            .iter()
            .skip(7)
            .step_by(rows)
            .copied()
            .collect();
        assert!(max_err(&got, &dft(&col, n, -1.0)) <= 1e-12 * l1(&col));
    }
}

#[test]
fn errors_name_the_function() {
    let i = Tensor::arange(DType::I32, 0, 8, 1).unwrap();
    let e = i.fft().unwrap_err().to_string();
    assert!(e.starts_with("fft:") && e.contains("cast"), "{e}");
    let h = Tensor::zeros(DType::F16, &[4]).unwrap();
    assert!(h.rfft().unwrap_err().to_string().contains("cast"));
    let z = Tensor::zeros(DType::C64, &[4]).unwrap();
    let e = z.rfft().unwrap_err().to_string();
    assert!(e.starts_with("rfft:") && e.contains("real"), "{e}");
    let e = z.ihfft().unwrap_err().to_string();
    assert!(e.starts_with("ihfft:"), "{e}");
    let x = Tensor::zeros(DType::F64, &[4]).unwrap();
    let e = x
        .fft_with(&opts(Some(0), Norm::Backward))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("fft:") && e.contains("(0)"), "{e}");
    let e = x
        .ifft_with(&FftOptions {
            axis: 1,
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("ifft:") && e.contains("axis 1"), "{e}");
    let s = Tensor::zeros(DType::F64, &[]).unwrap();
    assert!(s.fft().unwrap_err().to_string().starts_with("fft:"));
    let one = Tensor::zeros(DType::C64, &[1]).unwrap();
    assert!(one.irfft().unwrap_err().to_string().starts_with("irfft:"));
    assert!(one.hfft().unwrap_err().to_string().starts_with("hfft:"));
    let empty = Tensor::zeros(DType::C64, &[0]).unwrap();
    assert!(empty.fft().unwrap_err().to_string().starts_with("fft:"));
    // With n given, an empty axis is all padding.
    let y = empty.fft_with(&opts(Some(3), Norm::Backward)).unwrap();
    assert_eq!(cvals(&y), vec![c(0., 0.); 3]);
    // Empty batches give empty results.
    let eb = Tensor::zeros(DType::F32, &[0, 4]).unwrap();
    assert_eq!(eb.rfft().unwrap().shape(), &[0, 3]);
    let m = Tensor::zeros(DType::F64, &[3, 4]).unwrap();
    let e = m
        .fft2_with(&FftnOptions {
            s: Some(vec![3]),
            axes: Axes::from([0, 1]),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("fft2:") && e.contains("s has 1"), "{e}");
    let e = x.fft2().unwrap_err().to_string();
    assert!(e.starts_with("fft2:"), "{e}");
    let e = m
        .fftn_with(&FftnOptions {
            axes: [0, 0].into(),
            ..Default::default()
        })
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("fftn:"), "{e}");
    assert!(m
        .fftshift(5)
        .unwrap_err()
        .to_string()
        .starts_with("fftshift:"));
    #[cfg(feature = "gpu")]
    if let Some(g) = crate::gpu::gpu() {
        // (The transforms themselves on the GPU: tests/suite/gpu_fft.rs.)
        let xg = Tensor::zeros_on(DType::I32, &[4], g).unwrap();
        let e = xg.rfft().unwrap_err().to_string();
        assert!(e.starts_with("rfft:") && e.contains("i32"), "{e}");
        // fftshift is a roll: it runs on the GPU.
        let v = Tensor::arange(DType::F32, 0, 5, 1).unwrap();
        let s = v.to_device(g).unwrap().fftshift(None).unwrap();
        assert_eq!(s.device(), g);
        assert_eq!(s.to_vec::<f32>().unwrap(), vec![3., 4., 0., 1., 2.]);
    }
}

/// rfft and irfft along a strided axis (axis 0 of a 2-D tensor: rows read
/// and written `3` elements apart): the round trip gives the input back.
#[test]
fn rfft_irfft_round_trip_along_a_strided_axis() {
    let x: Vec<f64> = (0..24).map(|i| ((i * 7) % 11) as f64 - 5.0).collect();
    let t = Tensor::from_slice(&x, &[8, 3]).unwrap();
    let o = |n| FftOptions {
        n,
        axis: 0,
        ..Default::default()
    };
    let spec = t.rfft_with(&o(None)).unwrap();
    assert_eq!(spec.shape(), &[5, 3]);
    let back = spec
        .irfft_with(&o(Some(8)))
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    for (a, b) in back.iter().zip(&x) {
        assert!((a - b).abs() < 1e-12, "{a} vs {b}");
    }
}
