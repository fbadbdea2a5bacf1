//! Long real transforms (`rfft`, `irfft`, `hfft`, `ihfft` of even length
//! `n` whose half takes the four-step path, or of odd length `n` that takes
//! it itself, with fewer rows than threads or rows of at least 2^18:
//! `src/backend/cpu/fft_real_long.rs`): every bin against the complex FFT
//! of the same values (the long complex path, itself checked against the
//! direct DFT in `fft_long.rs`) and sampled bins and samples against the
//! direct sums, for the four parities of the split `n1 x n2` of `n / 2`
//! (they pair the bins differently) and two odd lengths; round trips,
//! every norm, the Hermitian pair, strided, padded and truncated rows,
//! several rows, and f32.
//!
//! Bounds as in `fft_long.rs`: f64 within `1e-12 * sum|x|` of the reference,
//! f32 within `2e-6 * sum|x|`; round trips within `1e-12` (f64) and `1e-5`
//! (f32) for |x| <= 1.

use crate::common::Rng;
use rnx::{DType, FftOptions, Index, Norm, Tensor, C64};

const PI: f64 = std::f64::consts::PI;

/// `n` whose half splits as (even x even) 256 x 256, (even x odd)
/// 198 x 331, (odd x odd) 101 x 649 and (odd x even) 241 x 272; odd `n`
/// that split as 315 x 315 and 243 x 729 themselves.
const LENGTHS: [usize; 6] = [131_072, 131_076, 131_098, 131_104, 99_225, 177_147];

fn opts(n: Option<usize>, norm: Norm) -> FftOptions {
    FftOptions {
        n,
        norm,
        ..Default::default()
    }
}

fn rand_r(rng: &mut Rng, n: usize) -> Vec<f64> {
    (0..n).map(|_| rng.unit() * 2.0 - 1.0).collect()
}

fn l1(x: &[f64]) -> f64 {
    x.iter().map(|v| v.abs()).sum::<f64>().max(1.0)
}

fn c64(t: &Tensor) -> Vec<C64> {
    t.to_vec::<C64>().unwrap()
}

/// The largest `|a_i - b_i|`.
fn max_diff<T: Copy + Into<f64>>(a: &[T], b: &[T]) -> f64 {
    assert_eq!(a.len(), b.len(), "lengths");
    a.iter()
        .zip(b)
        .map(|(&x, &y)| (x.into() - y.into()).abs())
        .fold(0.0, f64::max)
}

/// The largest distance between `a_i` and `b_i`.
fn max_err(a: &[C64], b: &[C64]) -> f64 {
    assert_eq!(a.len(), b.len(), "lengths");
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).norm())
        .fold(0.0, f64::max)
}

/// Bin `k` of the direct DFT of the real `x` (zero-padded to `n`).
fn dft_at(x: &[f64], n: usize, k: usize) -> C64 {
    x.iter()
        .enumerate()
        .fold(C64::new(0.0, 0.0), |acc, (j, &v)| {
            let t = -2.0 * PI * ((j * k) % n) as f64 / n as f64;
            acc + C64::new(t.cos(), t.sin()) * v
        })
}

/// The first `n / 2 + 1` bins of the complex FFT of the real `x`.
fn reference_rfft(x: &[f64], n: usize) -> Vec<C64> {
    let t = Tensor::from_slice(x, &[x.len()]).unwrap();
    let y = t
        .cast(DType::C64)
        .unwrap()
        .fft_with(&opts(Some(n), Norm::Backward))
        .unwrap();
    c64(&y)[..n / 2 + 1].to_vec()
}

/// The length-`n` real signal with the half spectrum `bins` (bin 0, and
/// bin `n / 2` of an even `n`, taken as real), through the complex inverse
/// FFT of the whole Hermitian spectrum: NumPy's `irfft`.
fn reference_irfft(bins: &[C64], n: usize) -> Vec<f64> {
    let h = n / 2;
    let mut b: Vec<C64> = (0..=h)
        .map(|k| bins.get(k).copied().unwrap_or_default())
        .collect();
    b[0].im = 0.0;
    if n.is_multiple_of(2) {
        b[h].im = 0.0;
    }
    let full: Vec<C64> = (0..n)
        .map(|k| if k <= h { b[k] } else { b[n - k].conj() })
        .collect();
    let y = Tensor::from_slice(&full, &[n]).unwrap().ifft().unwrap();
    c64(&y).iter().map(|z| z.re).collect()
}

/// Sample `j` of NumPy's `irfft(bins, n)` by the direct sum: bin 0 (and
/// the Nyquist bin of an even `n`) once by its real part, the others twice.
fn irfft_at(bins: &[C64], n: usize, j: usize) -> f64 {
    let b = |k: usize| bins.get(k).copied().unwrap_or_default();
    let mut acc = b(0).re;
    for k in 1..=n / 2 {
        let t = 2.0 * PI * ((j * k) % n) as f64 / n as f64;
        let w = C64::new(t.cos(), t.sin());
        acc += if 2 * k == n {
            b(k).re * t.cos()
        } else {
            2.0 * (b(k) * w).re
        };
    }
    acc / n as f64
}

fn rand_bins(rng: &mut Rng, len: usize) -> Vec<C64> {
    (0..len)
        .map(|_| C64::new(rng.unit() * 2.0 - 1.0, rng.unit() * 2.0 - 1.0))
        .collect()
}

#[test]
fn long_rfft_every_bin_every_split() {
    let mut rng = Rng(0x7ea1);
    for n in LENGTHS {
        let x = rand_r(&mut rng, n);
        let t = Tensor::from_slice(&x, &[n]).unwrap();
        let y = t.rfft().unwrap();
        assert_eq!((y.dtype(), y.shape()), (DType::C64, &[n / 2 + 1][..]));
        let y = c64(&y);
        let err = max_err(&y, &reference_rfft(&x, n));
        assert!(err <= 1e-12 * l1(&x), "n {n}: {err}");
        for k in [0, 1, 2, 255, 256, n / 4, n / 2 - 1, n / 2] {
            let want = dft_at(&x, n, k);
            let e = (y[k] - want).norm();
            assert!(e <= 1e-12 * l1(&x), "n {n} bin {k}: {} vs {want}", y[k]);
        }
        // The inverse: back to x, and every sample of a spectrum that is
        // not one of a real signal (bins 0 and n/2 with imaginary parts,
        // which NumPy ignores).
        let o = opts(Some(n), Norm::Backward);
        let back = t.rfft().unwrap().irfft_with(&o).unwrap();
        let err = max_diff(&back.to_vec::<f64>().unwrap(), &x);
        assert!(err < 1e-12, "n {n}: round trip {err}");
        let bins = rand_bins(&mut rng, n / 2 + 1);
        let z = Tensor::from_slice(&bins, &[n / 2 + 1]).unwrap();
        let got = z.irfft_with(&o).unwrap().to_vec::<f64>().unwrap();
        let tol = 1e-12 * bins.iter().map(|b| b.norm()).sum::<f64>() / n as f64;
        let err = max_diff(&got, &reference_irfft(&bins, n));
        assert!(err <= tol, "n {n}: irfft {err} (tol {tol})");
        for j in [0, 1, 2, 255, n / 2, n - 1] {
            let want = irfft_at(&bins, n, j);
            let e = (got[j] - want).abs();
            assert!(e <= tol, "n {n}: irfft sample {j}: {} vs {want}", got[j]);
        }
    }
}

#[test]
fn long_rfft_norms_hermitian_pair_strided_padded_truncated() {
    norms_pair_strided(LENGTHS[2], 0x7ea2);
    norms_pair_strided(LENGTHS[5], 0x7ea4);
}

fn norms_pair_strided(n: usize, seed: u64) {
    let mut rng = Rng(seed);
    let h = n / 2;
    let nf = n as f64;
    let x = rand_r(&mut rng, n);
    let t = Tensor::from_slice(&x, &[n]).unwrap();
    let r = reference_rfft(&x, n);
    let tol = 1e-12 * l1(&x);
    let scaled = |s: f64| r.iter().map(|z| z * s).collect::<Vec<_>>();
    for (norm, s) in [
        (Norm::Backward, 1.0),
        (Norm::Ortho, 1.0 / nf.sqrt()),
        (Norm::Forward, 1.0 / nf),
    ] {
        let y = c64(&t.rfft_with(&opts(None, norm)).unwrap());
        assert!(max_err(&y, &scaled(s)) <= tol * s, "rfft {norm:?}");
        let back = t
            .rfft_with(&opts(None, norm))
            .unwrap()
            .irfft_with(&opts(Some(n), norm))
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        let err = max_diff(&back, &x);
        assert!(err < 1e-12, "round trip {norm:?}: {err}");
    }
    // ihfft(x) = conj(rfft(x)) / n; hfft(X) = irfft(conj X) * n.
    let ih = c64(&t.ihfft().unwrap());
    let want: Vec<C64> = r.iter().map(|z| z.conj() / nf).collect();
    assert!(max_err(&ih, &want) <= tol / nf, "ihfft");
    let bins = rand_bins(&mut rng, h + 1);
    let hf = Tensor::from_slice(&bins, &[h + 1])
        .unwrap()
        .hfft_with(&opts(Some(n), Norm::Backward))
        .unwrap()
        .to_vec::<f64>()
        .unwrap();
    let conj: Vec<C64> = bins.iter().map(|b| b.conj()).collect();
    let want = reference_irfft(&conj, n);
    let tol_i = 1e-12 * bins.iter().map(|b| b.norm()).sum::<f64>();
    let want: Vec<f64> = want.iter().map(|v| v * nf).collect();
    let err = max_diff(&hf, &want);
    assert!(err <= tol_i, "hfft {err}");

    // A strided row (every other element, reversed) padded to n: the
    // element-by-element gather.
    let m = n - 1000;
    let v = rand_r(&mut rng, 2 * m);
    let base = Tensor::from_slice(&v, &[2 * m]).unwrap();
    let view = base.slice([Index::stepped(.., -2)]).unwrap();
    let xs: Vec<f64> = v.iter().rev().step_by(2).copied().collect();
    assert_eq!(view.to_vec::<f64>().unwrap(), xs);
    let y = c64(&view.rfft_with(&opts(Some(n), Norm::Backward)).unwrap());
    assert!(
        max_err(&y, &reference_rfft(&xs, n)) <= 1e-12 * l1(&xs),
        "strided padded"
    );
    // Truncated: the first n of a longer contiguous row, the same bits as
    // the row of n alone.
    let mut longer = x.clone();
    longer.extend(rand_r(&mut rng, 777));
    let lt = Tensor::from_slice(&longer, &[n + 777]).unwrap();
    let y = c64(&lt.rfft_with(&opts(Some(n), Norm::Backward)).unwrap());
    assert_eq!(y, c64(&t.rfft().unwrap()), "truncated");
    // irfft of a strided spectrum, padded (fewer bins) and truncated (more).
    let spec = rand_bins(&mut rng, 2 * (h + 50));
    let st = Tensor::from_slice(&spec, &[2 * (h + 50)]).unwrap();
    let every2 = st.slice([Index::stepped(.., 2)]).unwrap();
    let sv: Vec<C64> = spec.iter().step_by(2).copied().collect();
    for (len, what) in [(h - 300, "padded"), (h + 50, "truncated")] {
        let z = every2.slice([Index::from(..len)]).unwrap();
        let got = z
            .irfft_with(&opts(Some(n), Norm::Backward))
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        let want = reference_irfft(&sv[..len.min(h + 1)], n);
        let tol = 1e-12 * sv.iter().map(|b| b.norm()).sum::<f64>() / nf;
        let err = max_diff(&got, &want);
        assert!(err <= tol, "irfft {what}: {err} (tol {tol})");
    }
}

#[test]
fn long_rfft_f32() {
    let mut rng = Rng(0x7ea3);
    for n in [LENGTHS[1], LENGTHS[3], LENGTHS[4]] {
        let x32: Vec<f32> = (0..n).map(|_| (rng.unit() * 2.0 - 1.0) as f32).collect();
        let x: Vec<f64> = x32.iter().map(|&v| v as f64).collect();
        let t = Tensor::from_slice(&x32, &[n]).unwrap();
        let f = t.rfft().unwrap();
        assert_eq!(f.dtype(), DType::C32);
        let y = c64(&f.cast(DType::C64).unwrap());
        let err = max_err(&y, &reference_rfft(&x, n));
        assert!(err <= 2e-6 * l1(&x), "n {n}: {err}");
        let back = f.irfft_with(&opts(Some(n), Norm::Backward)).unwrap();
        assert_eq!(back.dtype(), DType::F32);
        let err = max_diff(&back.to_vec::<f32>().unwrap(), &x32);
        assert!(err < 1e-5, "n {n}: f32 round trip {err}");
    }
}

/// Rows of at least 2^18 take the long path one by one however many there
/// are (`REAL_ROW_BY_ROW` in `fft.rs`): three rows along the last axis, and
/// the same rows as the columns of a transposed view (strided rows).
#[test]
fn long_rfft_many_rows_and_strided_axis() {
    let mut rng = Rng(0x7ea5);
    let (rows, n) = (3, 1 << 18);
    let x = rand_r(&mut rng, rows * n);
    let t = Tensor::from_slice(&x, &[rows, n]).unwrap();
    let cols = t.transpose(None).unwrap();
    let h = n / 2 + 1;
    let y = c64(&t.rfft().unwrap());
    let yc = c64(&cols
        .rfft_with(&FftOptions {
            axis: 0,
            ..Default::default()
        })
        .unwrap());
    for r in 0..rows {
        let row = &x[r * n..(r + 1) * n];
        let want = reference_rfft(row, n);
        assert!(
            max_err(&y[r * h..(r + 1) * h], &want) <= 1e-12 * l1(row),
            "row {r}"
        );
        let col: Vec<C64> = (0..h).map(|k| yc[k * rows + r]).collect();
        assert!(max_err(&col, &want) <= 1e-12 * l1(row), "column {r}");
    }
    let back = t.rfft().unwrap().irfft().unwrap().to_vec::<f64>().unwrap();
    assert!(max_diff(&back, &x) < 1e-12, "round trip");
}
