//! Accuracy of the FFT-based DCT/DST (issue 26): every type 1-4 of both
//! kinds in f32 and f64, on lengths 1..=33 and 64, 100, 127, 1000, 1024, 4097
//! (odd, even, prime, powers of two; both residues of odd lengths mod 4 for
//! the odd DCT-4 path), against SciPy's unscaled definitions summed directly
//! (O(N^2)) in f64.
//!
//! The reference reduces every angle exactly in integers (`π m / P` with `m`
//! taken mod `2P`, read from a table of `cos`/`sin` of those angles) and sums
//! with Neumaier's compensation, so its own error is about one rounding per
//! term in a random walk: `~eps64 * |x|_2`, below the FFT's.
//!
//! Bound: `max_k |y_k - ref_k| <= 4 * eps_T * log2(2N + 2) * |x|_2` with
//! `eps_T` the machine epsilon of the transform's precision and `|x|_2` the
//! input's Euclidean norm. Why that shape: an FFT of length `L` has a
//! relative (2-norm) error of order `eps log2 L` (rustfft's twiddles are
//! exactly rounded), these transforms have `|y|_2 ~ sqrt(2N) |x|_2` spread
//! over `N` outputs, so one output's error is of order `eps log2 L |x|_2`;
//! `2N + 2` bounds every FFT length used (Bluestein's inner FFTs of prime
//! lengths are longer, hence the factor 4). Measured worst ratios (error over
//! `eps_T log2(2N + 2) |x|_2`, printed with `--nocapture`), on this data: f64
//! 2.75, f32 1.18 (both at N = 4097 = 17 * 241, whose FFT goes through the
//! prime 241); rustdct 0.7, which this replaced, gave 2.62 and 1.14 on the
//! same data and lengths. f32 inputs are
//! the f32-rounded values, and the reference takes the same rounded values,
//! so the bound measures the transform alone. It is far tighter than
//! `1e-12 * N * max|x|` (f64) at every length here.

use crate::common::Rng;
use rnx::{DctOptions, Tensor};

const PI: f64 = std::f64::consts::PI;

/// Bound factor `C` of `C * eps * log2(2N + 2) * |x|_2` (see the file doc).
const C: f64 = 4.0;

fn lengths() -> Vec<usize> {
    let mut v: Vec<usize> = (1..=33).collect();
    v.extend([64, 100, 127, 1000, 1024, 4097]);
    v
}

/// SciPy's unscaled transform (`sin` for the DST) of type `ty` of `x`, with
/// exact integer angle reduction and a compensated sum.
fn reference(sin: bool, ty: u8, x: &[f64]) -> Vec<f64> {
    let n = x.len();
    // Angles are `π m / p`; `m(j, k)` and the weight of `x_j`.
    let p = match (sin, ty) {
        (false, 1) => n - 1,
        (true, 1) => n + 1,
        (_, 4) => 4 * n,
        _ => 2 * n,
    };
    let table: Vec<f64> = (0..2 * p)
        .map(|m| {
            let a = PI * m as f64 / p as f64;
            if sin {
                a.sin()
            } else {
                a.cos()
            }
        })
        .collect();
    let m = |j: usize, k: usize| -> usize {
        match (sin, ty) {
            (false, 1) => j * k,
            (true, 1) => (j + 1) * (k + 1),
            (false, 2) => k * (2 * j + 1),
            (true, 2) => (k + 1) * (2 * j + 1),
            (false, 3) => j * (2 * k + 1),
            (true, 3) => (j + 1) * (2 * k + 1),
            _ => (2 * j + 1) * (2 * k + 1),
        }
    };
    let weight = |j: usize| -> f64 {
        match (sin, ty) {
            (false, 1) if j == 0 || j == n - 1 => 1.0,
            (false, 3) if j == 0 => 1.0,
            (true, 3) if j == n - 1 => 1.0,
            _ => 2.0,
        }
    };
    (0..n)
        .map(|k| {
            let (mut s, mut c) = (0.0f64, 0.0f64);
            for (j, &xj) in x.iter().enumerate() {
                let t = weight(j) * xj * table[m(j, k) % (2 * p)];
                let u = s + t;
                c += if s.abs() >= t.abs() {
                    (s - u) + t
                } else {
                    (t - u) + s
                };
                s = u;
            }
            s + c
        })
        .collect()
}

/// The worst `error / (eps * log2(2N + 2) * |x|_2)` of one transform.
fn ratio(got: &[f64], want: &[f64], x: &[f64], eps: f64) -> f64 {
    let norm = x.iter().map(|v| v * v).sum::<f64>().sqrt();
    let unit = eps * ((2 * x.len() + 2) as f64).log2() * norm;
    let err = got
        .iter()
        .zip(want)
        .map(|(g, w)| (g - w).abs())
        .fold(0.0, f64::max);
    err / unit
}

#[test]
fn every_type_matches_a_compensated_direct_sum() {
    let mut rng = Rng(0xacc0);
    let mut worst = [(0.0f64, String::new()), (0.0f64, String::new())];
    for n in lengths() {
        let x64: Vec<f64> = (0..n).map(|_| rng.unit() * 2.0 - 1.0).collect();
        let x32: Vec<f32> = x64.iter().map(|&v| v as f32).collect();
        let x32w: Vec<f64> = x32.iter().map(|&v| v as f64).collect();
        let t64 = Tensor::from_vec(x64.clone(), &[n]).unwrap();
        let t32 = Tensor::from_vec(x32, &[n]).unwrap();
        for sin in [false, true] {
            for ty in 1..=4u8 {
                if !sin && ty == 1 && n < 2 {
                    continue;
                }
                let o = DctOptions {
                    ty,
                    ..Default::default()
                };
                let run = |t: &Tensor| {
                    let y = if sin { t.dst_with(&o) } else { t.dct_with(&o) };
                    y.unwrap().to_vec_f64().unwrap()
                };
                let what = format!("{} type {ty} n {n}", if sin { "dst" } else { "dct" });
                let cases = [
                    (run(&t64), reference(sin, ty, &x64), &x64, f64::EPSILON),
                    (
                        run(&t32),
                        reference(sin, ty, &x32w),
                        &x32w,
                        f32::EPSILON as f64,
                    ),
                ];
                for (i, (got, want, x, eps)) in cases.iter().enumerate() {
                    let r = ratio(got, want, x, *eps);
                    assert!(
                        r <= C,
                        "{what} {}: error {r:.3} x eps log2(2N+2) |x|_2 > {C}",
                        ["f64", "f32"][i]
                    );
                    if r > worst[i].0 {
                        worst[i] = (r, what.clone());
                    }
                }
            }
        }
    }
    eprintln!(
        "worst error / (eps log2(2N+2) |x|_2): f64 {:.3} ({}), f32 {:.3} ({})",
        worst[0].0, worst[0].1, worst[1].0, worst[1].1
    );
}
