//! 1-D `correlate` / `convolve` (NumPy's `np.correlate` / `np.convolve`):
//! NumPy's documented examples (real and complex), a port of NumPy's own loop
//! (operand swap, output reversal, conjugation) as the brute-force reference
//! for every mode, both length orders and several dtypes, the FFT method
//! against the direct one within a stated bound, the chunked direct path,
//! errors, and a GPU run.
//!
//! FFT-vs-direct bound: `|fft - direct| <= 64 * eps * log2(N) * |a|_2 * |v|_2`
//! elementwise, for an FFT of length `N` and the dtype's `eps`.

use crate::common::Rng;
use rnx::ops::signal::uses_fft;
use rnx::{ConvMethod, DType, SignalMode, SignalOptions, Tensor, C32, C64};

const MODES: [SignalMode; 3] = [SignalMode::Full, SignalMode::Same, SignalMode::Valid];
const PAIRS: [(usize, usize); 14] = [
    (1, 1),
    (1, 4),
    (4, 1),
    (5, 3),
    (3, 5),
    (6, 6),
    (7, 2),
    (2, 7),
    (10, 4),
    (4, 10),
    (9, 8),
    (8, 9),
    (31, 6),
    (6, 31),
];

/// Operands as tensors, the same values as c64, and the tolerance.
type Case = (Tensor, Tensor, Vec<C64>, Vec<C64>, f64);

fn c(re: f64, im: f64) -> C64 {
    C64::new(re, im)
}

/// A port of NumPy's `_pyarray_correlate`: the longer operand first (output
/// reversed when swapped), `mode` as NumPy's `n_left`, then the sums.
fn np_correlate_core(a: &[C64], v: &[C64], mode: SignalMode) -> Vec<C64> {
    let (a1, a2, inverted) = if a.len() < v.len() {
        (v, a, true)
    } else {
        (a, v, false)
    };
    let (n1, n) = (a1.len() as isize, a2.len() as isize);
    let (n_left, length) = match mode {
        SignalMode::Valid => (0, n1 - n + 1),
        SignalMode::Same => (n / 2, n1),
        SignalMode::Full => (n - 1, n1 + n - 1),
    };
    let mut out: Vec<C64> = (0..length)
        .map(|i| {
            (0..n).fold(c(0., 0.), |acc, j| {
                let p = i - n_left + j;
                if p >= 0 && p < n1 {
                    acc + a1[p as usize] * a2[j as usize]
                } else {
                    acc
                }
            })
        })
        .collect();
    if inverted {
        out.reverse();
    }
    out
}

/// `np.correlate`: the second operand conjugated.
fn np_correlate(a: &[C64], v: &[C64], mode: SignalMode) -> Vec<C64> {
    let vc: Vec<C64> = v.iter().map(|z| z.conj()).collect();
    np_correlate_core(a, &vc, mode)
}

/// `np.convolve`: the longer operand first, the other reversed.
fn np_convolve(a: &[C64], v: &[C64], mode: SignalMode) -> Vec<C64> {
    let (a, v) = if v.len() > a.len() { (v, a) } else { (a, v) };
    let vr: Vec<C64> = v.iter().rev().copied().collect();
    np_correlate_core(a, &vr, mode)
}

fn ints(rng: &mut Rng, n: usize) -> Vec<i32> {
    (0..n).map(|_| (rng.next() % 19) as i32 - 9).collect()
}

fn reals(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| rng.unit() * 2.0 - 1.0).collect()
}

fn cvals(t: &Tensor) -> Vec<C64> {
    match t.dtype() {
        DType::C64 => t.to_vec::<C64>().unwrap(),
        DType::C32 => t.cast(DType::C64).unwrap().to_vec::<C64>().unwrap(),
        _ => t
            .to_vec_f64()
            .unwrap()
            .into_iter()
            .map(|x| c(x, 0.))
            .collect(),
    }
}

fn assert_close(what: &str, got: &[C64], want: &[C64], tol: f64) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            (g - w).norm() <= tol,
            "{what}: element {i}: got {g}, want {w}"
        );
    }
}

fn opts(mode: SignalMode, method: ConvMethod) -> SignalOptions {
    SignalOptions { mode, method }
}

#[test]
fn numpy_documented_examples() {
    let f = |v: &[f64]| Tensor::from_vec(v.to_vec(), &[v.len()]).unwrap();
    let (a, v) = (f(&[1., 2., 3.]), f(&[0., 1., 0.5]));
    let r = |t: rnx::Result<Tensor>| t.unwrap().to_vec::<f64>().unwrap();
    // np.correlate docs.
    assert_eq!(r(a.correlate(&v, SignalMode::Valid)), vec![3.5]);
    assert_eq!(r(a.correlate(&v, SignalMode::Same)), vec![2., 3.5, 3.]);
    assert_eq!(
        r(a.correlate(&v, SignalMode::Full)),
        vec![0.5, 2., 3.5, 3., 0.]
    );
    // np.convolve docs.
    assert_eq!(
        r(a.convolve(&v, SignalMode::Full)),
        vec![0., 1., 2.5, 4., 1.5]
    );
    assert_eq!(r(a.convolve(&v, SignalMode::Same)), vec![1., 2.5, 4.]);
    assert_eq!(r(a.convolve(&v, SignalMode::Valid)), vec![2.5]);
    // np.correlate docs, complex: the second operand is conjugated, and
    // swapping the operands gives the time-reversed conjugate.
    let ca = Tensor::from_vec(vec![c(1., 1.), c(2., 0.), c(3., -1.)], &[3]).unwrap();
    let cv = Tensor::from_vec(vec![c(0., 0.), c(1., 0.), c(0., 0.5)], &[3]).unwrap();
    let want = [c(0.5, -0.5), c(1., 0.), c(1.5, -1.5), c(3., -1.), c(0., 0.)];
    for method in [ConvMethod::Direct, ConvMethod::Fft] {
        let o = opts(SignalMode::Full, method);
        assert_close(
            "complex",
            &cvals(&ca.correlate_with(&cv, &o).unwrap()),
            &want,
            1e-12,
        );
        let back = [c(0., 0.), c(3., 1.), c(1.5, 1.5), c(1., 0.), c(0.5, 0.5)];
        assert_close(
            "swapped",
            &cvals(&cv.correlate_with(&ca, &o).unwrap()),
            &back,
            1e-12,
        );
    }
}

#[test]
fn every_mode_and_order_matches_numpys_loop() {
    let mut rng = Rng(0x5169);
    for &(n, m) in &PAIRS {
        let (ai, vi) = (ints(&mut rng, n), ints(&mut rng, m));
        let (ar, vr) = (reals(&mut rng, n), reals(&mut rng, m));
        let (ac, vc): (Vec<C64>, Vec<C64>) = (
            ar.iter()
                .zip(reals(&mut rng, n))
                .map(|(&x, y)| c(x, y))
                .collect(),
            vr.iter()
                .zip(reals(&mut rng, m))
                .map(|(&x, y)| c(x, y))
                .collect(),
        );
        let to_c = |v: &[f64]| v.iter().map(|&x| c(x, 0.)).collect::<Vec<_>>();
        let to_ci = |v: &[i32]| v.iter().map(|&x| c(x as f64, 0.)).collect::<Vec<_>>();
        let cases: Vec<Case> = vec![
            (
                Tensor::from_vec(ai.clone(), &[n]).unwrap(),
                Tensor::from_vec(vi.clone(), &[m]).unwrap(),
                to_ci(&ai),
                to_ci(&vi),
                0.0,
            ),
            (
                Tensor::from_vec(ar.clone(), &[n]).unwrap(),
                Tensor::from_vec(vr.clone(), &[m]).unwrap(),
                to_c(&ar),
                to_c(&vr),
                1e-12,
            ),
            (
                Tensor::from_vec(ar.iter().map(|&x| x as f32).collect::<Vec<_>>(), &[n]).unwrap(),
                Tensor::from_vec(vr.iter().map(|&x| x as f32).collect::<Vec<_>>(), &[m]).unwrap(),
                to_c(&ar.iter().map(|&x| x as f32 as f64).collect::<Vec<_>>()),
                to_c(&vr.iter().map(|&x| x as f32 as f64).collect::<Vec<_>>()),
                1e-5,
            ),
            (
                Tensor::from_vec(ac.clone(), &[n]).unwrap(),
                Tensor::from_vec(vc.clone(), &[m]).unwrap(),
                ac.clone(),
                vc.clone(),
                1e-12,
            ),
        ];
        for (a, v, a64, v64, tol) in &cases {
            let methods: &[ConvMethod] = if a.dtype().is_float() || a.dtype().is_complex() {
                &[ConvMethod::Auto, ConvMethod::Direct, ConvMethod::Fft]
            } else {
                &[ConvMethod::Auto, ConvMethod::Direct]
            };
            for mode in MODES {
                for &method in methods {
                    let what = format!("{} n {n} m {m} {mode:?} {method:?}", a.dtype());
                    let o = opts(mode, method);
                    let y = a.correlate_with(v, &o).unwrap();
                    assert_eq!(y.dtype(), a.dtype());
                    let want = np_correlate(a64, v64, mode);
                    assert_close(&format!("correlate {what}"), &cvals(&y), &want, *tol);
                    let y = a.convolve_with(v, &o).unwrap();
                    let want = np_convolve(a64, v64, mode);
                    assert_close(&format!("convolve {what}"), &cvals(&y), &want, *tol);
                }
            }
        }
    }
}

#[test]
fn fft_method_agrees_with_direct() {
    let mut rng = Rng(0xff7c);
    for (dtype, n, m, eps) in [
        (DType::F64, 3000usize, 400usize, f64::EPSILON),
        (DType::F32, 700, 90, f32::EPSILON as f64),
    ] {
        let (a, v) = (reals(&mut rng, n), reals(&mut rng, m));
        let l2 = |x: &[f64]| x.iter().map(|t| t * t).sum::<f64>().sqrt();
        let nfft = (n + m - 1).next_power_of_two() as f64;
        let bound = 64.0 * eps * nfft.log2() * l2(&a) * l2(&v);
        let at = Tensor::from_vec(a, &[n]).unwrap().cast(dtype).unwrap();
        let vt = Tensor::from_vec(v, &[m]).unwrap().cast(dtype).unwrap();
        for mode in MODES {
            for (x, y) in [(&at, &vt), (&vt, &at)] {
                let d = x
                    .correlate_with(y, &opts(mode, ConvMethod::Direct))
                    .unwrap();
                let f = x.correlate_with(y, &opts(mode, ConvMethod::Fft)).unwrap();
                let auto = x.correlate_with(y, &opts(mode, ConvMethod::Auto)).unwrap();
                let what = format!("{dtype} {mode:?} n {}", x.shape()[0]);
                assert_close(&what, &cvals(&f), &cvals(&d), bound);
                assert_close(&what, &cvals(&auto), &cvals(&d), bound);
            }
        }
    }
    // The documented switch: an operation count.
    assert!(!uses_fft(1000, 3, 1024));
    assert!(!uses_fft(100, 100, 256));
    assert!(uses_fft(3400, 400, 3456));
    assert!(uses_fft(1_000_000, 1000, 1 << 20));
}

#[test]
fn direct_path_in_many_chunks_is_exact_for_integers() {
    // m = 3000 taps: the direct path splits the 3999 full outputs into rows of
    // 2^20 / 3000 = 349 (12 rows).
    let mut rng = Rng(0xc4a2);
    let (a, v) = (ints(&mut rng, 1000), ints(&mut rng, 3000));
    let at = Tensor::from_vec(a.clone(), &[1000]).unwrap();
    let vt = Tensor::from_vec(v.clone(), &[3000]).unwrap();
    let to_c = |v: &[i32]| v.iter().map(|&x| c(x as f64, 0.)).collect::<Vec<_>>();
    for mode in MODES {
        let y = at.correlate(&vt, mode).unwrap();
        assert_close(
            "chunks",
            &cvals(&y),
            &np_correlate(&to_c(&a), &to_c(&v), mode),
            0.0,
        );
        let y = at.convolve(&vt, mode).unwrap();
        assert_close(
            "chunks",
            &cvals(&y),
            &np_convolve(&to_c(&a), &to_c(&v), mode),
            0.0,
        );
    }
    // Integer overflow wraps as in NumPy.
    let big = Tensor::from_vec(vec![i8::MAX, i8::MAX], &[2]).unwrap();
    let y = big.convolve(&big, SignalMode::Full).unwrap();
    assert_eq!(y.to_vec::<i8>().unwrap(), vec![1, 2, 1]);
}

#[test]
fn errors_name_the_function() {
    let msg = |r: rnx::Result<Tensor>| r.unwrap_err().to_string();
    let a = Tensor::from_vec(vec![1.0f64, 2.0], &[2]).unwrap();
    let m2 = Tensor::zeros(DType::F64, &[2, 2]).unwrap();
    let m = msg(a.correlate(&m2, SignalMode::Full));
    assert!(m.contains("correlate") && m.contains("1-D"), "{m}");
    let e = Tensor::zeros(DType::F64, &[0]).unwrap();
    let m = msg(a.convolve(&e, SignalMode::Full));
    assert!(
        m.contains("convolve") && m.contains("second operand is empty"),
        "{m}"
    );
    let m = msg(e.correlate(&a, SignalMode::Valid));
    assert!(m.contains("first operand is empty"), "{m}");
    let f = Tensor::from_vec(vec![1.0f32], &[1]).unwrap();
    assert!(msg(a.correlate(&f, SignalMode::Full)).contains("correlate"));
    let i = Tensor::from_vec(vec![1i32, 2], &[2]).unwrap();
    let m = msg(i.convolve_with(&i, &opts(SignalMode::Full, ConvMethod::Fft)));
    assert!(m.contains("convolve") && m.contains("Direct"), "{m}");
}

/// On gpu:0 the direct method composes GPU ops (pad, correlate1d, slice),
/// and so does the FFT method (rfft/fft, mul, the inverse, slice; complex
/// operands conjugated by a GPU kernel): both match the CPU.
#[cfg(feature = "gpu")]
#[test]
fn gpu_direct() {
    let Some(dev) = crate::gpu::gpu() else {
        return;
    };
    let mut rng = Rng(0x6d1);
    let (a, v) = (reals(&mut rng, 40), reals(&mut rng, 7));
    let at = Tensor::from_vec(a.iter().map(|&x| x as f32).collect::<Vec<_>>(), &[40]).unwrap();
    let vt = Tensor::from_vec(v.iter().map(|&x| x as f32).collect::<Vec<_>>(), &[7]).unwrap();
    let (ag, vg) = (at.to_device(dev).unwrap(), vt.to_device(dev).unwrap());
    for mode in MODES {
        for (x, y, xg, yg) in [(&at, &vt, &ag, &vg), (&vt, &at, &vg, &ag)] {
            let g = xg.correlate(yg, mode).unwrap();
            assert_eq!(g.device(), dev);
            assert_close(
                "gpu",
                &cvals(&g),
                &cvals(&x.correlate(y, mode).unwrap()),
                1e-5,
            );
            let g = xg.convolve(yg, mode).unwrap();
            assert_close(
                "gpu",
                &cvals(&g),
                &cvals(&x.convolve(y, mode).unwrap()),
                1e-5,
            );
        }
    }
    // The FFT method on the GPU, real and complex, both operand orders.
    let zt = at
        .cast(DType::C32)
        .unwrap()
        .mul(C32::new(0.5, -1.5))
        .unwrap();
    let zg = zt.to_device(dev).unwrap();
    for mode in MODES {
        let fft = opts(mode, ConvMethod::Fft);
        for (x, y, xg, yg) in [
            (&at, &vt, &ag, &vg),
            (&vt, &at, &vg, &ag),
            (
                &zt,
                &vt.cast(DType::C32).unwrap(),
                &zg,
                &vg.cast(DType::C32).unwrap(),
            ),
            (
                &vt.cast(DType::C32).unwrap(),
                &zt,
                &vg.cast(DType::C32).unwrap(),
                &zg,
            ),
        ] {
            let g = xg.correlate_with(yg, &fft).unwrap();
            assert_eq!(g.device(), dev);
            assert_close(
                "gpu fft",
                &cvals(&g),
                &cvals(&x.correlate_with(y, &fft).unwrap()),
                1e-5,
            );
            let g = xg.convolve_with(yg, &fft).unwrap();
            assert_close(
                "gpu fft",
                &cvals(&g),
                &cvals(&x.convolve_with(y, &fft).unwrap()),
                1e-5,
            );
        }
    }
}
