//! Long single transforms, which the CPU splits over its threads (the
//! four-step path of `src/backend/cpu/fft_long.rs`, taken by complex FFTs
//! and DCT-2s of length >= 2^16 with fewer rows than threads): sampled
//! outputs against the direct O(n) sum per output in f64, every norm,
//! inverse(forward(x)) = x, Parseval, real, strided, reversed and padded
//! inputs, f32, and the DCT-2 (with `orthogonalize`) against its definition;
//! the fused DCT-2 / DST-2 of one row (`dct_long.rs`) against the per-row
//! path on every output.
//!
//! Bounds as in `fft.rs` / `dct.rs`: f64 within `1e-12 * sum|x|` of the
//! reference, f32 within `2e-6 * sum|x|`; round trips within `1e-12` (f64)
//! and `1e-5` (f32) for |x| <= 1.

use crate::common::Rng;
use rnx::{DType, DctOptions, FftOptions, Index, Norm, Tensor, C32, C64};

const PI: f64 = std::f64::consts::PI;
/// 3 * 2^16: split 384 x 512 (neither a power of two times the other).
const N: usize = 3 << 16;
/// Sampled output indices (ends, middle, odd spots).
const BINS: [usize; 10] = [0, 1, 2, 383, 384, 511, 512, N / 2, N - 2, N - 1];

fn rand_c(rng: &mut Rng, n: usize) -> Vec<C64> {
    (0..n)
        .map(|_| C64::new(rng.unit() * 2.0 - 1.0, rng.unit() * 2.0 - 1.0))
        .collect()
}

/// Output `k` of the direct DFT of `x` zero-padded to `n` (`sign` -1 forward).
fn dft_at(x: &[C64], n: usize, k: usize, sign: f64) -> C64 {
    x.iter()
        .enumerate()
        .fold(C64::new(0.0, 0.0), |acc, (j, &v)| {
            let t = sign * 2.0 * PI * ((j * k) % n) as f64 / n as f64;
            acc + v * C64::new(t.cos(), t.sin())
        })
}

fn l1(x: &[C64]) -> f64 {
    x.iter().map(|z| z.norm()).sum::<f64>().max(1.0)
}

/// The largest `dist(a_i, b_i)` over the pairs of `a` and `b`.
fn max_err<A, B>(a: &[A], b: &[B], dist: impl Fn(&A, &B) -> f64) -> f64 {
    a.iter().zip(b).map(|(x, y)| dist(x, y)).fold(0.0, f64::max)
}

fn opts(n: Option<usize>, norm: Norm) -> FftOptions {
    FftOptions {
        n,
        norm,
        ..Default::default()
    }
}

/// `y` agrees with the direct DFT of `x` (padded to `n`, times `s`) at [`BINS`].
fn check_bins(y: &[C64], x: &[C64], n: usize, sign: f64, s: f64, tol: f64, what: &str) {
    assert_eq!(y.len(), n, "{what}: length");
    for k in BINS.iter().map(|&k| k % n) {
        let want = dft_at(x, n, k, sign) * s;
        let err = (y[k] - want).norm();
        assert!(
            err <= tol * l1(x),
            "{what}: bin {k}: {} vs {want} (err {err})",
            y[k]
        );
    }
}

#[test]
fn long_complex_fft_every_norm_and_round_trip() {
    let mut rng = Rng(0x4f0f);
    let x = rand_c(&mut rng, N);
    let t = Tensor::from_slice(&x, &[N]).unwrap();
    let nf = N as f64;
    for (norm, sf, si) in [
        (Norm::Backward, 1.0, 1.0 / nf),
        (Norm::Ortho, 1.0 / nf.sqrt(), 1.0 / nf.sqrt()),
        (Norm::Forward, 1.0 / nf, 1.0),
    ] {
        let f = t.fft_with(&opts(None, norm)).unwrap();
        let y = f.to_vec::<C64>().unwrap();
        check_bins(&y, &x, N, -1.0, sf, 1e-12, &format!("fft {norm:?}"));
        let b = t
            .ifft_with(&opts(None, norm))
            .unwrap()
            .to_vec::<C64>()
            .unwrap();
        check_bins(&b, &x, N, 1.0, si, 1e-12, &format!("ifft {norm:?}"));
        let back = f
            .ifft_with(&opts(None, norm))
            .unwrap()
            .to_vec::<C64>()
            .unwrap();
        let err = max_err(&back, &x, |a, b| (a - b).norm());
        assert!(err < 1e-12, "round trip {norm:?}: {err}");
        if norm == Norm::Ortho {
            // Parseval: the orthonormal transform keeps the 2-norm.
            let (ex, ey) = (
                x.iter().map(|z| z.norm_sqr()).sum::<f64>(),
                y.iter().map(|z| z.norm_sqr()).sum::<f64>(),
            );
            assert!((ex - ey).abs() < 1e-10 * ex, "Parseval: {ex} vs {ey}");
        }
    }
}

#[test]
fn long_fft_real_strided_reversed_padded_and_f32() {
    let mut rng = Rng(0x51de);
    // Real input, every other element of a 2N vector (step 2), padded by
    // 4096 zeros: 200704 = 448 x 448.
    let v: Vec<f64> = (0..2 * N).map(|_| rng.unit() * 2.0 - 1.0).collect();
    let base = Tensor::from_vec(v.clone(), &[2 * N]).unwrap();
    let strided = base.slice([Index::stepped(1.., 2)]).unwrap();
    let x: Vec<C64> = v
        .iter()
        .skip(1)
        .step_by(2)
        .map(|&r| C64::new(r, 0.0))
        .collect();
    let n = N + 4096;
    let y = strided.fft_with(&opts(Some(n), Norm::Backward)).unwrap();
    assert_eq!(y.dtype(), DType::C64);
    check_bins(
        &y.to_vec::<C64>().unwrap(),
        &x,
        n,
        -1.0,
        1.0,
        1e-12,
        "real strided padded",
    );
    // Reversed complex input (negative step).
    let xc = rand_c(&mut rng, N);
    let rev = Tensor::from_slice(&xc, &[N])
        .unwrap()
        .slice([Index::stepped(.., -1)])
        .unwrap();
    let xr: Vec<C64> = xc.iter().rev().copied().collect();
    let y = rev.fft().unwrap().to_vec::<C64>().unwrap();
    check_bins(&y, &xr, N, -1.0, 1.0, 1e-12, "reversed");
    // c32: within the f32 bound of the f64 reference; round trip.
    let x32: Vec<C32> = xc
        .iter()
        .map(|z| C32::new(z.re as f32, z.im as f32))
        .collect();
    let xq: Vec<C64> = x32
        .iter()
        .map(|z| C64::new(z.re as f64, z.im as f64))
        .collect();
    let t32 = Tensor::from_slice(&x32, &[N]).unwrap();
    let f = t32.fft().unwrap();
    assert_eq!(f.dtype(), DType::C32);
    let y: Vec<C64> = f
        .to_vec::<C32>()
        .unwrap()
        .iter()
        .map(|z| C64::new(z.re as f64, z.im as f64))
        .collect();
    check_bins(&y, &xq, N, -1.0, 1.0, 2e-6, "c32");
    let back = f
        .ifft_with(&opts(None, Norm::Backward))
        .unwrap()
        .to_vec::<C32>()
        .unwrap();
    let err = max_err(&back, &x32, |a, b| {
        ((a.re - b.re).abs()).max((a.im - b.im).abs()) as f64
    });
    assert!(err < 1e-5, "c32 round trip: {err}");
}

/// A contiguous complex row (the four-step plan's fast path, slices and
/// streaming stores) gives the same bits as the same values read through a
/// step-2 view (the general path), c64 and c32, forward and inverse, every
/// norm; an input longer than `n` (truncated) too.
#[test]
fn long_fft_contiguous_path_equals_strided_path() {
    let mut rng = Rng(0xf1a7);
    let xc = rand_c(&mut rng, N + 8);
    // The same N values contiguous and at step 2 (filler between).
    fn both<Z: Copy + rnx::Element>(x: &[Z], fill: Z) -> (Tensor, Tensor) {
        let spread: Vec<Z> = x.iter().flat_map(|&z| [z, fill]).collect();
        let strided = Tensor::from_slice(&spread, &[2 * N])
            .unwrap()
            .slice([Index::stepped(.., 2)])
            .unwrap();
        (Tensor::from_slice(&x[..N], &[N]).unwrap(), strided)
    }
    let (flat, strided) = both(&xc[..N], C64::new(9.0, 9.0));
    for norm in [Norm::Backward, Norm::Ortho, Norm::Forward] {
        let o = opts(None, norm);
        for (a, b) in [
            (flat.fft_with(&o).unwrap(), strided.fft_with(&o).unwrap()),
            (flat.ifft_with(&o).unwrap(), strided.ifft_with(&o).unwrap()),
        ] {
            let (a, b) = (a.to_vec::<C64>().unwrap(), b.to_vec::<C64>().unwrap());
            assert!(a == b, "c64 {norm:?}: contiguous and strided paths differ");
        }
    }
    // Truncation: the first N of a longer contiguous row.
    let longer = Tensor::from_slice(&xc, &[N + 8]).unwrap();
    let y = longer.fft_with(&opts(Some(N), Norm::Backward)).unwrap();
    let y = y.to_vec::<C64>().unwrap();
    check_bins(&y, &xc[..N], N, -1.0, 1.0, 1e-12, "truncated contiguous");
    assert!(
        y == strided.fft().unwrap().to_vec::<C64>().unwrap(),
        "truncated"
    );
    // c32, forward and inverse.
    let x32: Vec<C32> = xc[..N]
        .iter()
        .map(|z| C32::new(z.re as f32, z.im as f32))
        .collect();
    let (flat, strided) = both(&x32, C32::new(9.0, 9.0));
    for (a, b) in [
        (flat.fft().unwrap(), strided.fft().unwrap()),
        (flat.ifft().unwrap(), strided.ifft().unwrap()),
    ] {
        assert_eq!(a.dtype(), DType::C32);
        let (a, b) = (a.to_vec::<C32>().unwrap(), b.to_vec::<C32>().unwrap());
        assert!(a == b, "c32: contiguous and strided paths differ");
    }
}

/// SciPy's unscaled type-2 output `k` by its definition: DCT-2 `2 sum_j x_j
/// cos(πk(2j+1)/(2n))`, or with `sine` DST-2 `2 sum_j x_j
/// sin(π(k+1)(2j+1)/(2n))` (the angle reduced mod 2π exactly in integers).
fn type2_at(x: &[f64], k: usize, sine: bool) -> f64 {
    let m = 4 * x.len();
    let f = if sine { k + 1 } else { k };
    2.0 * x
        .iter()
        .enumerate()
        .map(|(j, &v)| {
            let a = 2.0 * PI * ((f * (2 * j + 1)) % m) as f64 / m as f64;
            v * if sine { a.sin() } else { a.cos() }
        })
        .sum::<f64>()
}

#[test]
fn long_dct2_matches_definition_every_norm_and_inverse() {
    let mut rng = Rng(0xdc72);
    // 2N: the DCT-2 runs a complex FFT of length N (the four-step split).
    let n = 2 * N;
    let v: Vec<f64> = (0..n).map(|_| rng.unit() * 2.0 - 1.0).collect();
    let t = Tensor::from_vec(v.clone(), &[n]).unwrap();
    let sum: f64 = v.iter().map(|x| x.abs()).sum();
    let bins = [
        0,
        1,
        2,
        3,
        1000,
        n / 4,
        n / 2 - 1,
        n / 2,
        n / 2 + 1,
        n - 2,
        n - 1,
    ];
    for norm in [Norm::Backward, Norm::Ortho, Norm::Forward] {
        let o = DctOptions {
            ty: 2,
            norm,
            ..Default::default()
        };
        let y = t.dct_with(&o).unwrap().to_vec::<f64>().unwrap();
        let s = match norm {
            Norm::Backward => 1.0,
            Norm::Ortho => 1.0 / (2.0 * n as f64).sqrt(),
            Norm::Forward => 1.0 / (2 * n) as f64,
        };
        for &k in &bins {
            // Ortho (orthogonalize, SciPy's default with "ortho") scales y_0
            // once more by 1/sqrt 2.
            let e = if norm == Norm::Ortho && k == 0 {
                std::f64::consts::FRAC_1_SQRT_2
            } else {
                1.0
            };
            let want = type2_at(&v, k, false) * s * e;
            assert!(
                (y[k] - want).abs() <= 1e-12 * sum * s,
                "{norm:?} bin {k}: {} vs {want}",
                y[k]
            );
        }
        let back = Tensor::from_vec(y, &[n])
            .unwrap()
            .idct_with(&o)
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        let err = max_err(&back, &v, |a, b| (a - b).abs());
        assert!(err < 1e-12, "{norm:?} round trip: {err}");
    }
    // f32 against the f64 definition.
    let t32 = t.cast(DType::F32).unwrap();
    let v32: Vec<f64> = t32
        .to_vec::<f32>()
        .unwrap()
        .iter()
        .map(|&x| x as f64)
        .collect();
    let y = t32
        .dct_with(&DctOptions {
            ty: 2,
            ..Default::default()
        })
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    for &k in &bins {
        let want = type2_at(&v32, k, false);
        assert!(
            (y[k] as f64 - want).abs() <= 2e-6 * sum,
            "f32 bin {k}: {} vs {want}",
            y[k]
        );
    }
}

/// The type-2 transform of `t` (one row, the fused path of `dct_long.rs`)
/// against the same values as a batch of `num_threads` rows (the per-row
/// path), every output, within `tol * sum|x|` times the norm's scale.
fn check_fused(t: &Tensor, x: &[f64], o: &DctOptions, sine: bool, tol: f64, what: &str) {
    let rows = rnx::num_threads().max(1);
    let rep: Vec<f64> = (0..rows).flat_map(|_| x.iter().copied()).collect();
    let batch = Tensor::from_vec(rep, &[rows, x.len()])
        .unwrap()
        .cast(t.dtype())
        .unwrap();
    let run = |t: &Tensor| {
        let y = if sine { t.dst_with(o) } else { t.dct_with(o) };
        y.unwrap()
            .cast(DType::F64)
            .unwrap()
            .to_vec::<f64>()
            .unwrap()
    };
    let got = run(t);
    let want = run(&batch);
    let n = got.len();
    let s = match o.norm {
        Norm::Backward => 1.0,
        Norm::Ortho => 1.0 / (2.0 * n as f64).sqrt(),
        Norm::Forward => 1.0 / (2 * n) as f64,
    };
    let bound = tol * x.iter().map(|v| v.abs()).sum::<f64>() * s;
    for (k, (a, b)) in got.iter().zip(&want[..n]).enumerate() {
        assert!((a - b).abs() <= bound, "{what} output {k}: {a} vs {b}");
    }
}

#[test]
fn long_dct2_dst2_fused_every_output_strided_padded_truncated_f32() {
    let mut rng = Rng(0xf05e);
    // 2 * 257 * 259: N/2 odd, split 257 x 259 (both odd); and 2N (384 x 512).
    for n in [2 * 257 * 259, 2 * N] {
        let v: Vec<f64> = (0..n + 999).map(|_| rng.unit() * 2.0 - 1.0).collect();
        let x = &v[..n];
        let t = Tensor::from_vec(x.to_vec(), &[n]).unwrap();
        for sine in [false, true] {
            for norm in [Norm::Backward, Norm::Ortho, Norm::Forward] {
                let o = DctOptions {
                    norm,
                    ..Default::default()
                };
                let what = format!("n {n} sine {sine} {norm:?}");
                check_fused(&t, x, &o, sine, 1e-12, &what);
            }
            // Direct sums at sampled outputs (ends, h, row/column seams).
            let o = DctOptions::default();
            let y = if sine { t.dst_with(&o) } else { t.dct_with(&o) };
            let y = y.unwrap().to_vec::<f64>().unwrap();
            let sum: f64 = x.iter().map(|v| v.abs()).sum();
            for k in [
                0,
                1,
                259,
                512,
                n / 4,
                n / 2 - 1,
                n / 2,
                n / 2 + 1,
                n - 2,
                n - 1,
            ] {
                let want = type2_at(x, k, sine);
                assert!(
                    (y[k] - want).abs() <= 1e-12 * sum,
                    "n {n} sine {sine} bin {k}: {} vs {want}",
                    y[k]
                );
            }
        }
        // Reversed, step -2 input (every other element, backwards).
        let w: Vec<f64> = (0..2 * n).map(|_| rng.unit() * 2.0 - 1.0).collect();
        let strided = Tensor::from_vec(w.clone(), &[2 * n])
            .unwrap()
            .slice([Index::stepped(.., -2)])
            .unwrap();
        let sw: Vec<f64> = w.iter().rev().step_by(2).copied().collect();
        for sine in [false, true] {
            let o = DctOptions::default();
            check_fused(&strided, &sw, &o, sine, 1e-12, "reversed step -2");
        }
        // Padded (n past the input) and truncated (n short of it).
        let short = Tensor::from_vec(v[..n - 1000].to_vec(), &[n - 1000]).unwrap();
        let mut padded = v[..n - 1000].to_vec();
        padded.resize(n, 0.0);
        let long = Tensor::from_vec(v.clone(), &[n + 999]).unwrap();
        for sine in [false, true] {
            let o = DctOptions {
                n: Some(n),
                norm: Norm::Ortho,
                ..Default::default()
            };
            check_fused(&short, &padded, &o, sine, 1e-12, "padded");
            check_fused(&long, x, &o, sine, 1e-12, "truncated");
        }
        // f32: the fused path against the per-row path, both f32.
        let (t32, x32) = as_f32(&t);
        for sine in [false, true] {
            for norm in [Norm::Backward, Norm::Ortho] {
                let o = DctOptions {
                    norm,
                    ..Default::default()
                };
                check_fused(&t32, &x32, &o, sine, 2e-6, "f32");
            }
        }
    }
}

/// The contiguous fast gather of the fused DCT-2 / DST-2 (each input line
/// read once, a column block with its mirror block) on every output against
/// the per-row path, and sampled outputs against the direct sums: N/2 split
/// 275 x 288 (odd n1: the middle column shares the last block), 625 x 800
/// (the benchmark's length: the middle column alone in its block), and 256 x
/// 257 (n2 odd: contiguous but the general gather); f64 and f32.
#[test]
fn long_dct2_dst2_fused_contiguous_mirrored_blocks() {
    let mut rng = Rng(0x3d17);
    for n in [2 * 275 * 288, 1_000_000, 2 * 256 * 257] {
        let x: Vec<f64> = (0..n).map(|_| rng.unit() * 2.0 - 1.0).collect();
        let t = Tensor::from_vec(x.clone(), &[n]).unwrap();
        let sum: f64 = x.iter().map(|v| v.abs()).sum();
        for sine in [false, true] {
            for norm in [Norm::Backward, Norm::Ortho] {
                let o = DctOptions {
                    norm,
                    ..Default::default()
                };
                check_fused(
                    &t,
                    &x,
                    &o,
                    sine,
                    1e-12,
                    &format!("n {n} sine {sine} {norm:?}"),
                );
            }
            let o = DctOptions::default();
            let y = if sine { t.dst_with(&o) } else { t.dct_with(&o) };
            let y = y.unwrap().to_vec::<f64>().unwrap();
            for k in [0, 1, 287, 288, 800, n / 4 + 1, n / 2 - 1, n / 2, n - 1] {
                let want = type2_at(&x, k, sine);
                assert!(
                    (y[k] - want).abs() <= 1e-12 * sum,
                    "n {n} sine {sine} bin {k}: {} vs {want}",
                    y[k]
                );
            }
        }
        let (t32, x32) = as_f32(&t);
        for sine in [false, true] {
            check_fused(&t32, &x32, &DctOptions::default(), sine, 2e-6, "f32");
        }
    }
}

/// `t` cast to f32, and its values (as f64) for the reference sums.
fn as_f32(t: &Tensor) -> (Tensor, Vec<f64>) {
    let t32 = t.cast(DType::F32).unwrap();
    let x32 = t32
        .to_vec::<f32>()
        .unwrap()
        .iter()
        .map(|&v| v as f64)
        .collect();
    (t32, x32)
}
