//! `det` and `slogdet` of batches of small matrices (n <= 16), which the CPU
//! computes with its own batched LU kernel (src/backend/cpu/small_lu.rs):
//! against the permutation expansion (Leibniz formula) for n <= 6 in f32,
//! f64, c32, c64; against faer's path (n = 17 takes it) through the
//! block-diagonal matrix diag(a, 1) for n up to 16; strided and transposed
//! inputs; exact zeros for singular inputs, exact signs for permutations,
//! NaN and infinity propagation.

use rnx::{DType, Tensor, C64};

/// Deterministic normal data of any of the four dtypes as `Complex<f64>`
/// values (imaginary parts 0 for the real dtypes), rounded to `dtype`.
fn data(dtype: DType, len: usize, seed: u64) -> Vec<C64> {
    let re = Tensor::randn(DType::F64, &[len], seed).unwrap();
    let im = Tensor::randn(DType::F64, &[len], seed + 7).unwrap();
    let (re, im) = (re.to_vec::<f64>().unwrap(), im.to_vec::<f64>().unwrap());
    re.iter()
        .zip(&im)
        .map(|(&r, &i)| match dtype {
            DType::F32 => C64::new(r as f32 as f64, 0.0),
            DType::F64 => C64::new(r, 0.0),
            DType::C32 => C64::new(r as f32 as f64, i as f32 as f64),
            _ => C64::new(r, i),
        })
        .collect()
}

/// A tensor of `dtype` from complex values (real parts for a real dtype).
fn tensor(dtype: DType, v: &[C64], shape: &[usize]) -> Tensor {
    if dtype.is_complex() {
        Tensor::from_vec(v.to_vec(), shape)
            .unwrap()
            .cast(dtype)
            .unwrap()
    } else {
        let re: Vec<f64> = v.iter().map(|z| z.re).collect();
        Tensor::from_vec(re, shape).unwrap().cast(dtype).unwrap()
    }
}

/// The values of a tensor of any of the four dtypes as `Complex<f64>`.
fn values(t: &Tensor) -> Vec<C64> {
    t.cast(DType::C64).unwrap().to_vec::<C64>().unwrap()
}

/// The determinant by the permutation expansion, in f64 complex arithmetic.
fn leibniz(a: &[C64], n: usize) -> C64 {
    fn go(a: &[C64], n: usize, row: usize, used: &mut [bool], sign: f64) -> C64 {
        if row == n {
            return C64::new(sign, 0.0);
        }
        let mut s = C64::new(0.0, 0.0);
        // The sign of the permutation: count the inversions this choice adds.
        for j in 0..n {
            if used[j] {
                continue;
            }
            let inv = used[j + 1..].iter().filter(|&&u| u).count();
            used[j] = true;
            let sg = if inv % 2 == 1 { -sign } else { sign };
            s += a[row * n + j] * go(a, n, row + 1, used, sg);
            used[j] = false;
        }
        s
    }
    go(a, n, 0, &mut vec![false; n], 1.0)
}

/// Hadamard's bound on |det|: the product of the rows' 2-norms.
fn hadamard(a: &[C64], n: usize) -> f64 {
    (0..n)
        .map(|i| {
            a[i * n..(i + 1) * n]
                .iter()
                .map(|z| z.norm_sqr())
                .sum::<f64>()
                .sqrt()
        })
        .product()
}

fn eps(d: DType) -> f64 {
    if d.real() == DType::F32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    }
}

const DTYPES: [DType; 4] = [DType::F32, DType::F64, DType::C32, DType::C64];

#[test]
fn det_matches_the_permutation_expansion() {
    // |det - leibniz| <= 8 n eps * prod ||row||: LU's backward error bound
    // (growth is small for these random matrices) against Hadamard's bound.
    for dtype in DTYPES {
        for n in 1..=6usize {
            let batch = 9;
            let v = data(dtype, batch * n * n, 100 + n as u64);
            let a = tensor(dtype, &v, &[batch, n, n]);
            let det = values(&a.det().unwrap());
            let (sign, logabs) = a.slogdet().unwrap();
            let (sign, logabs) = (values(&sign), values(&logabs));
            assert_eq!(det.len(), batch);
            for b in 0..batch {
                let m = &v[b * n * n..(b + 1) * n * n];
                let want = leibniz(m, n);
                let tol = 8.0 * n as f64 * eps(dtype) * hadamard(m, n);
                assert!(
                    (det[b] - want).norm() <= tol,
                    "{dtype} n {n} batch {b}: det {} want {want} tol {tol}",
                    det[b]
                );
                // slogdet: |sign| = 1 and sign * exp(logabs) = det.
                assert!(
                    (sign[b].norm() - 1.0).abs() < 8.0 * eps(dtype),
                    "{dtype} n {n}"
                );
                let back = sign[b] * logabs[b].re.exp();
                assert!(
                    (back - want).norm() <= tol,
                    "{dtype} n {n} batch {b}: slogdet gives {back}, want {want}"
                );
            }
        }
    }
}

/// `diag(a, 1)` for each `n x n` matrix of the batch: `n + 1` square.
fn bordered(v: &[C64], batch: usize, n: usize) -> Vec<C64> {
    let m = n + 1;
    let mut out = vec![C64::new(0.0, 0.0); batch * m * m];
    for b in 0..batch {
        for i in 0..n {
            for j in 0..n {
                out[b * m * m + i * m + j] = v[b * n * n + i * n + j];
            }
        }
        out[b * m * m + n * m + n] = C64::new(1.0, 0.0);
    }
    out
}

#[test]
fn det_matches_the_faer_path() {
    // n = 16 takes the small kernel, diag(a, 1) (17 x 17) faer's LU: the
    // same determinant, within 16 n eps of Hadamard's bound.
    for dtype in DTYPES {
        for n in [7usize, 8, 12, 16] {
            let batch = 5;
            let v = data(dtype, batch * n * n, 300 + n as u64);
            let small = values(&tensor(dtype, &v, &[batch, n, n]).det().unwrap());
            let big = tensor(dtype, &bordered(&v, batch, n), &[batch, n + 1, n + 1]);
            let big = values(&big.det().unwrap());
            for b in 0..batch {
                let m = &v[b * n * n..(b + 1) * n * n];
                let tol = 16.0 * n as f64 * eps(dtype) * hadamard(m, n);
                assert!(
                    (small[b] - big[b]).norm() <= tol,
                    "{dtype} n {n} batch {b}: {} vs faer {}",
                    small[b],
                    big[b]
                );
                assert!(small[b].norm() > 0.0, "{dtype} n {n}: zero det");
            }
        }
    }
}

#[test]
fn det_of_strided_and_transposed_batches() {
    // det(a^T) = det(a), and a matrix read through a strided view gives the
    // determinant of the contiguous copy: the kernel reads any strides.
    for dtype in [DType::F64, DType::C64] {
        let n = 5;
        let v = data(dtype, 8 * n * n, 77);
        let a = tensor(dtype, &v, &[8, n, n]);
        let d = values(&a.det().unwrap());
        let dt = values(&a.matrix_transpose().unwrap().det().unwrap());
        // Every second matrix of the batch, as a view.
        let every2 = a.slice(rnx::s![..;2, .., ..]).unwrap();
        let d2 = values(&every2.det().unwrap());
        for b in 0..8 {
            let m = &v[b * n * n..(b + 1) * n * n];
            let tol = 16.0 * n as f64 * eps(dtype) * hadamard(m, n);
            assert!((d[b] - dt[b]).norm() <= tol, "{dtype} batch {b}");
            if b % 2 == 0 {
                assert_eq!(d2[b / 2], d[b], "{dtype} batch {b}: view vs copy");
            }
        }
    }
}

#[test]
fn det_of_singular_and_permutation_matrices_is_exact() {
    for dtype in DTYPES {
        let z = C64::new(0.0, 0.0);
        let o = C64::new(1.0, 0.0);
        let r = |x: f64| C64::new(x, 0.0);
        // A zero column; two equal rows of small integers; rank 1; the
        // permutation matrices of (1 2 0) (even) and (1 0 2) (odd).
        let mats: Vec<(Vec<C64>, f64)> = vec![
            (vec![z, r(2.), r(3.), z, r(5.), r(6.), z, r(8.), r(9.)], 0.0),
            (
                vec![
                    r(1.),
                    r(2.),
                    r(3.),
                    r(4.),
                    r(5.),
                    r(6.),
                    r(1.),
                    r(2.),
                    r(3.),
                ],
                0.0,
            ),
            (
                vec![
                    r(1.),
                    r(2.),
                    r(3.),
                    r(2.),
                    r(4.),
                    r(6.),
                    r(3.),
                    r(6.),
                    r(9.),
                ],
                0.0,
            ),
            (vec![z, o, z, z, z, o, o, z, z], 1.0),
            (vec![z, o, z, o, z, z, z, z, o], -1.0),
        ];
        let flat: Vec<C64> = mats.iter().flat_map(|(m, _)| m.clone()).collect();
        let a = tensor(dtype, &flat, &[mats.len(), 3, 3]);
        let d = values(&a.det().unwrap());
        let (s, l) = a.slogdet().unwrap();
        let (s, l) = (values(&s), values(&l));
        // The same matrices through faer's path (diag(a, 1), 4 x 4 would
        // still be small: pad to 17 x 17 with an identity block).
        let mut big = vec![C64::new(0.0, 0.0); mats.len() * 17 * 17];
        for (b, (m, _)) in mats.iter().enumerate() {
            for i in 0..17 {
                for j in 0..17 {
                    big[b * 289 + i * 17 + j] = if i < 3 && j < 3 {
                        m[i * 3 + j]
                    } else if i == j {
                        o
                    } else {
                        z
                    };
                }
            }
        }
        let dbig = values(&tensor(dtype, &big, &[mats.len(), 17, 17]).det().unwrap());
        for (b, (_, want)) in mats.iter().enumerate() {
            assert_eq!(d[b], r(*want), "{dtype} matrix {b}");
            assert_eq!(dbig[b], r(*want), "{dtype} matrix {b} (faer path)");
            if *want == 0.0 {
                assert_eq!((s[b], l[b].re), (z, f64::NEG_INFINITY), "{dtype} {b}");
            } else {
                assert_eq!((s[b], l[b].re), (r(*want), 0.0), "{dtype} {b}");
            }
        }
    }
}

#[test]
fn det_propagates_nan_and_infinity() {
    for dtype in DTYPES {
        let n = 4;
        let mut v = data(dtype, 3 * n * n, 55);
        v[5] = C64::new(f64::NAN, 0.0); // matrix 0, inside
        v[n * n + 3 * n + 3] = C64::new(f64::NAN, 0.0); // matrix 1, last pivot
        v[2 * n * n] = C64::new(f64::INFINITY, 0.0); // matrix 2, first pivot
        let a = tensor(dtype, &v, &[3, n, n]);
        let d = values(&a.det().unwrap());
        let (_, l) = a.slogdet().unwrap();
        let l = values(&l);
        assert!(d[0].re.is_nan(), "{dtype}: {}", d[0]);
        assert!(d[1].re.is_nan(), "{dtype}: {}", d[1]);
        assert!(l[0].re.is_nan() && l[1].re.is_nan(), "{dtype}");
        // The infinite pivot makes later pivots NaN (inf - inf): NaN too,
        // as LAPACK's LU gives.
        assert!(!d[2].re.is_finite(), "{dtype}: {}", d[2]);
        // The same through faer's path (diag(a, 1), 5 x 5 is still small:
        // compare at n = 17 with the bordered matrix of a 16 x 16 one).
        let m = 16;
        let mut w = data(dtype, m * m, 56);
        w[17] = C64::new(f64::NAN, 0.0);
        let small = values(&tensor(dtype, &w, &[m, m]).det().unwrap());
        let big = values(
            &tensor(dtype, &bordered(&w, 1, m), &[m + 1, m + 1])
                .det()
                .unwrap(),
        );
        assert!(small[0].re.is_nan() && big[0].re.is_nan(), "{dtype}");
    }
}
