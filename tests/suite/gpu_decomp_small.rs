//! The GPU's own real solvers against the CPU: the kernels for batches of
//! small matrices (`src/backend/gpu/decomp_small.rs`: `solve`, `inv`,
//! `det`, `slogdet`, `cholesky`, `triangular_solve` for n <= 16) and the
//! blocked forms for larger ones (`cholesky_blocked.rs`, `lu_blocked.rs`),
//! f32 and f64: within a few units of roundoff times n of the CPU's results
//! on well-conditioned matrices whose rows are reversed (so that partial
//! pivoting swaps rows), exact values where the arithmetic is exact
//! (permutation matrices, singular matrices), the CPU's error (with its
//! batch index) for a singular or indefinite matrix inside a batch, NaN in
//! the triangle that `triangular_solve` and `cholesky` must not read,
//! strided and broadcast operands. Without an adapter the tests return
//! early, unless `RNX_REQUIRE_GPU=1`.

use crate::gpu::gpu;
use rnx::{CholeskyOptions, DType, Device, Tensor, Trans, TriangularSolveOptions};

const CPU: Device = Device::Cpu;

/// `[batch.., n, n]` matrices `randn + 2 sqrt(n) I` with their rows in
/// reverse order (well conditioned; the largest entry of each column sits
/// away from the diagonal, so the LU pivots).
fn matrices(dt: DType, batch: &[usize], n: usize, seed: u64) -> Tensor {
    let mut shape = batch.to_vec();
    shape.extend([n, n]);
    let eye = Tensor::eye(DType::F64, n, None, 0).unwrap();
    let m = Tensor::randn(DType::F64, &shape, seed)
        .unwrap()
        .add(&eye.mul(2.0 * (n as f64).sqrt()).unwrap())
        .unwrap();
    m.flip(-2).unwrap().cast(dt).unwrap()
}

fn f64s(t: &Tensor) -> Vec<f64> {
    t.to_device(CPU)
        .unwrap()
        .cast(DType::F64)
        .unwrap()
        .to_vec::<f64>()
        .unwrap()
}

/// `g` (on the GPU) is within `tol` (relative to the largest magnitude of
/// `c`, at least 1) of the CPU's `c`, elementwise; same shape and dtype.
fn close(what: &str, g: &Tensor, c: &Tensor, tol: f64) {
    assert_ne!(g.device(), CPU, "{what}: left the GPU");
    assert_eq!((g.shape(), g.dtype()), (c.shape(), c.dtype()), "{what}");
    let (gv, cv) = (f64s(g), f64s(c));
    let scale = cv.iter().fold(1f64, |m, x| m.max(x.abs()));
    for (i, (a, b)) in gv.iter().zip(&cv).enumerate() {
        assert!(
            (a - b).abs() <= tol * scale || (a.is_nan() && b.is_nan()) || a == b,
            "{what}: element {i}: gpu {a}, cpu {b} (tolerance {})",
            tol * scale
        );
    }
}

/// `solve` (with `r` right-hand sides), `inv`, `det` (tolerance times
/// `det_factor`) and `slogdet` of the `[.., n, n]` matrices `a` on `d`
/// against the CPU; returns `a` on the GPU and the right-hand sides (CPU,
/// GPU).
fn lu_ops_match(
    d: Device,
    w: &str,
    a: &Tensor,
    r: usize,
    det_factor: f64,
) -> (Tensor, Tensor, Tensor) {
    let (dt, n) = (a.dtype(), a.shape()[a.ndim() - 1]);
    let ga = a.to_device(d).unwrap();
    let mut bs = a.shape()[..a.ndim() - 1].to_vec();
    bs.push(r);
    let b = Tensor::randn(DType::F64, &bs, 99)
        .unwrap()
        .cast(dt)
        .unwrap();
    let gb = b.to_device(d).unwrap();
    let t = tol(dt, n);
    close(
        &format!("solve {w}"),
        &ga.solve(&gb).unwrap(),
        &a.solve(&b).unwrap(),
        t,
    );
    close(
        &format!("inv {w}"),
        &ga.inv().unwrap(),
        &a.inv().unwrap(),
        t,
    );
    close(
        &format!("det {w}"),
        &ga.det().unwrap(),
        &a.det().unwrap(),
        t * det_factor,
    );
    let (gs, gl) = ga.slogdet().unwrap();
    let (cs, cl) = a.slogdet().unwrap();
    assert_eq!(f64s(&gs), f64s(&cs), "slogdet sign {w}");
    close(&format!("slogdet {w}"), &gl, &cl, t);
    (ga, b, gb)
}

fn tol(dt: DType, n: usize) -> f64 {
    let u = if dt == DType::F32 {
        2f64.powi(-24)
    } else {
        2f64.powi(-53)
    };
    64.0 * n as f64 * u
}

#[test]
fn gpu_small_lu_ops_match_the_cpu() {
    let Some(d) = gpu() else { return };
    for dt in [DType::F32, DType::F64] {
        for (n, batch) in [
            (1usize, &[3usize][..]),
            (2, &[][..]),
            (3, &[2, 5][..]),
            (4, &[7][..]),
            (7, &[4][..]),
            (16, &[3][..]),
        ] {
            let w = format!("{dt} n {n} batch {batch:?}");
            let a = matrices(dt, batch, n, 7 + n as u64);
            let (ga, b, gb) = lu_ops_match(d, &w, &a, 3, 1.0);
            let t = tol(dt, n);
            // A transposed view of the matrices.
            let at = a.matrix_transpose().unwrap();
            let gat = ga.matrix_transpose().unwrap();
            close(
                &format!("det of the transpose {w}"),
                &gat.det().unwrap(),
                &at.det().unwrap(),
                t,
            );
            close(
                &format!("solve with the transpose {w}"),
                &gat.solve(&gb).unwrap(),
                &at.solve(&b).unwrap(),
                t,
            );
        }
        // One right-hand side for every matrix of a batch (stride-0 batch).
        let a = matrices(dt, &[6], 5, 3);
        let b = Tensor::randn(DType::F64, &[5, 2], 4)
            .unwrap()
            .cast(dt)
            .unwrap();
        let bb = b.broadcast_to(&[6, 5, 2]).unwrap();
        let g = a
            .to_device(d)
            .unwrap()
            .solve(&b.to_device(d).unwrap().broadcast_to(&[6, 5, 2]).unwrap());
        close(
            &format!("{dt} broadcast b"),
            &g.unwrap(),
            &a.solve(&bb).unwrap(),
            tol(dt, 5),
        );
    }
}

#[test]
fn gpu_small_exact_cases_and_failures() {
    let Some(d) = gpu() else { return };
    for dt in [DType::F32, DType::F64] {
        // Permutation matrices: det exactly +-1, inverse the transpose.
        let p = Tensor::from_slice(&[0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0], &[3, 3])
            .unwrap()
            .cast(dt)
            .unwrap();
        let swap = Tensor::from_slice(&[0.0, 1.0, 1.0, 0.0], &[2, 2])
            .unwrap()
            .cast(dt)
            .unwrap();
        assert_eq!(f64s(&p.to_device(d).unwrap().det().unwrap()), [1.0]);
        assert_eq!(f64s(&swap.to_device(d).unwrap().det().unwrap()), [-1.0]);
        assert_eq!(
            f64s(&p.to_device(d).unwrap().inv().unwrap()),
            f64s(&p.transpose([1isize, 0]).unwrap())
        );
        singular_entry_matches(d, dt, 4, 3, 2, 1);
    }
}

/// A singular matrix (column `col` zeroed) at batch entry `bad` of `nb`
/// `n x n` matrices: det exactly 0, slogdet (0, -inf), and solve and inv
/// fail with the CPU's error, which names `bad`.
fn singular_entry_matches(d: Device, dt: DType, nb: usize, n: usize, bad: usize, col: usize) {
    let a = matrices(dt, &[nb], n, 11 + n as u64).copy().unwrap();
    let (bi, ci) = (bad as isize, col as isize);
    a.set_slice(rnx::s![bi, .., ci], &Tensor::zeros(dt, &[n]).unwrap())
        .unwrap();
    let ga = a.to_device(d).unwrap();
    assert_eq!(f64s(&ga.det().unwrap())[bad], 0.0, "{dt} n {n} det");
    let (s, l) = ga.slogdet().unwrap();
    assert_eq!((f64s(&s)[bad], f64s(&l)[bad]), (0.0, f64::NEG_INFINITY));
    let b = Tensor::ones(dt, &[nb, n, 2]).unwrap();
    let (ge, ce) = (
        ga.solve(&b.to_device(d).unwrap()).unwrap_err(),
        a.solve(&b).unwrap_err(),
    );
    assert_eq!(ge.to_string(), ce.to_string(), "{dt} n {n} solve");
    assert!(ge.to_string().contains(&bad.to_string()), "{ge}");
    let (ge, ce) = (ga.inv().unwrap_err(), a.inv().unwrap_err());
    assert_eq!(ge.to_string(), ce.to_string(), "{dt} n {n} inv");
}

#[test]
fn gpu_small_cholesky_and_triangular_solve() {
    let Some(d) = gpu() else { return };
    for dt in [DType::F32, DType::F64] {
        for n in [1usize, 2, 5, 16] {
            let m = Tensor::randn(DType::F64, &[3, n, n], 21).unwrap();
            let spd = m
                .matmul(&m.matrix_transpose().unwrap())
                .unwrap()
                .add(&Tensor::eye(DType::F64, n, None, 0).unwrap())
                .unwrap();
            // NaN above the diagonal: only the lower triangle is read.
            let upper_nan = Tensor::full(DType::F64, &[n, n], f64::NAN)
                .unwrap()
                .triu(1)
                .unwrap();
            let a = spd
                .tril(0)
                .unwrap()
                .add(&upper_nan)
                .unwrap()
                .cast(dt)
                .unwrap();
            let ga = a.to_device(d).unwrap();
            let t = tol(dt, n);
            for upper in [false, true] {
                let o = CholeskyOptions { upper };
                close(
                    &format!("cholesky {dt} n {n} upper {upper}"),
                    &ga.cholesky_with(o).unwrap(),
                    &a.cholesky_with(o).unwrap(),
                    t,
                );
            }
            // Well-conditioned triangles (the Cholesky factor), NaN in the
            // other triangle; every option.
            let l = spd.cholesky().unwrap();
            let b = Tensor::randn(DType::F64, &[3, n, 4], 5)
                .unwrap()
                .cast(dt)
                .unwrap();
            let gb = b.to_device(d).unwrap();
            for lower in [true, false] {
                let tri = if lower {
                    l.clone()
                } else {
                    l.matrix_transpose().unwrap()
                };
                let other = if lower {
                    upper_nan.clone()
                } else {
                    upper_nan.transpose([1isize, 0]).unwrap()
                };
                let tri = tri.add(&other).unwrap().cast(dt).unwrap();
                let gt = tri.to_device(d).unwrap();
                for trans in [Trans::None, Trans::Transpose, Trans::Adjoint] {
                    for unit_diagonal in [false, true] {
                        let o = TriangularSolveOptions {
                            lower,
                            trans,
                            unit_diagonal,
                        };
                        let w = format!("triangular_solve {dt} n {n} {o:?}");
                        let c = tri.triangular_solve(&b, o).unwrap();
                        // The unit-diagonal systems are worse conditioned.
                        let tl = if unit_diagonal { t * 1e3 } else { t };
                        close(&w, &gt.triangular_solve(&gb, o).unwrap(), &c, tl);
                    }
                }
            }
        }
        // Not positive definite at batch index 1; a zero diagonal at 2.
        let a = Tensor::eye(dt, 3, None, 0)
            .unwrap()
            .broadcast_to(&[3, 3, 3])
            .unwrap()
            .copy()
            .unwrap();
        a.set_item(&[1, 2, 2], -1.0).unwrap();
        let (ge, ce) = (
            a.to_device(d).unwrap().cholesky().unwrap_err(),
            a.cholesky().unwrap_err(),
        );
        assert_eq!(ge.to_string(), ce.to_string(), "{dt} cholesky");
        a.set_item(&[1, 2, 2], 1.0).unwrap();
        a.set_item(&[2, 0, 0], 0.0).unwrap();
        let b = Tensor::ones(dt, &[3, 3, 1]).unwrap();
        let o = TriangularSolveOptions::default();
        let ge = a
            .to_device(d)
            .unwrap()
            .triangular_solve(&b.to_device(d).unwrap(), o)
            .unwrap_err();
        let ce = a.triangular_solve(&b, o).unwrap_err();
        assert_eq!(ge.to_string(), ce.to_string(), "{dt} triangular_solve");
    }
}

/// Larger real matrices take the blocked GPU Cholesky
/// (`src/backend/gpu/cholesky_blocked.rs`: 16-wide block columns, the
/// small kernels on the diagonal blocks, matmul updates): within the
/// roundoff of the CPU's factor for orders around and past the block
/// width, batched, lower and upper, with NaN in the triangle it must not
/// read; a batch whose matrix 0 fails in a later block and matrix 1 in the
/// first gives the CPU's error (index 0).
#[test]
fn gpu_blocked_cholesky_matches_the_cpu() {
    let Some(d) = gpu() else { return };
    for dt in [DType::F32, DType::F64] {
        for n in [17usize, 33, 40, 64] {
            let m = Tensor::randn(DType::F64, &[2, n, n], 40 + n as u64).unwrap();
            let spd = m
                .matmul(&m.matrix_transpose().unwrap())
                .unwrap()
                .add(
                    &Tensor::eye(DType::F64, n, None, 0)
                        .unwrap()
                        .mul(n as f64)
                        .unwrap(),
                )
                .unwrap();
            let nan_above = Tensor::full(DType::F64, &[n, n], f64::NAN)
                .unwrap()
                .triu(1)
                .unwrap();
            let a = spd
                .tril(0)
                .unwrap()
                .add(&nan_above)
                .unwrap()
                .cast(dt)
                .unwrap();
            let ga = a.to_device(d).unwrap();
            for upper in [false, true] {
                let o = CholeskyOptions { upper };
                close(
                    &format!("blocked cholesky {dt} n {n} upper {upper}"),
                    &ga.cholesky_with(o).unwrap(),
                    &a.cholesky_with(o).unwrap(),
                    tol(dt, n),
                );
            }
        }
        let a = Tensor::eye(dt, 40, None, 0)
            .unwrap()
            .broadcast_to(&[3, 40, 40])
            .unwrap()
            .copy()
            .unwrap();
        a.set_item(&[0, 35, 35], -1.0).unwrap();
        a.set_item(&[1, 3, 3], 0.0).unwrap();
        let (ge, ce) = (
            a.to_device(d).unwrap().cholesky().unwrap_err(),
            a.cholesky().unwrap_err(),
        );
        assert_eq!(ge.to_string(), ce.to_string(), "{dt}");
        assert!(ce.to_string().contains('0'), "{ce}");
    }
}

/// Larger real matrices take the blocked GPU LU (`lu_blocked.rs`: panels
/// factored on the host, row swaps, `L11^-1 A12` and trailing updates on
/// the device, blocked substitution): `solve`, `inv`, `det` and `slogdet`
/// within the roundoff of the CPU's for orders past one and several block
/// widths, batched and single, matrices whose rows are reversed (the
/// pivots move rows across blocks); a zero column in batch entry 1 gives
/// the CPU's errors and exact `0` / `(0, -inf)` determinants.
#[test]
fn gpu_blocked_lu_matches_the_cpu() {
    let Some(d) = gpu() else { return };
    for dt in [DType::F32, DType::F64] {
        for (n, batch) in [(17usize, &[2usize][..]), (33, &[][..]), (50, &[3][..])] {
            let w = format!("{dt} n {n} batch {batch:?}");
            let a = matrices(dt, batch, n, 70 + n as u64);
            lu_ops_match(d, &w, &a, 5, 8.0);
        }
        singular_entry_matches(d, dt, 3, 20, 1, 17);
    }
}

/// `eigh` / `eigvalsh` of batches of small real symmetric matrices are a
/// GPU kernel (cyclic Jacobi, `decomp_small.rs`): the eigenvalues ascending
/// within the roundoff of the CPU's (relative to the largest), the
/// eigenvectors orthonormal with `A V = V diag(w)` to the roundoff (their
/// signs are arbitrary on both devices), either triangle read with NaN in
/// the other, repeated eigenvalues (the identity plus a rank-one term).
#[test]
fn gpu_small_eigh() {
    use rnx::EighOptions;
    let Some(d) = gpu() else { return };
    for dt in [DType::F32, DType::F64] {
        for n in [1usize, 2, 3, 5, 16] {
            let m = Tensor::randn(DType::F64, &[4, n, n], 90 + n as u64).unwrap();
            let sym = m.add(&m.matrix_transpose().unwrap()).unwrap();
            // Matrix 3: I + u u^T (eigenvalue 1 repeated n - 1 times).
            let u = Tensor::randn(DType::F64, &[n, 1], 3).unwrap();
            let rank1 = Tensor::eye(DType::F64, n, None, 0)
                .unwrap()
                .add(&u.matmul(&u.matrix_transpose().unwrap()).unwrap())
                .unwrap();
            sym.set_slice(rnx::s![3, .., ..], &rank1).unwrap();
            let nan_above = Tensor::full(DType::F64, &[n, n], f64::NAN)
                .unwrap()
                .triu(1)
                .unwrap();
            for upper in [false, true] {
                let w = format!("{dt} n {n} upper {upper}");
                let other = if upper {
                    nan_above.matrix_transpose().unwrap()
                } else {
                    nan_above.clone()
                };
                let tri = if upper {
                    sym.triu(0).unwrap()
                } else {
                    sym.tril(0).unwrap()
                };
                let a = tri.add(&other).unwrap().cast(dt).unwrap();
                let ga = a.to_device(d).unwrap();
                let o = EighOptions { upper };
                let t = tol(dt, n);
                let cw = a.eigvalsh_with(o).unwrap();
                close(
                    &format!("eigvalsh {w}"),
                    &ga.eigvalsh_with(o).unwrap(),
                    &cw,
                    t,
                );
                let (gw, gv) = ga.eigh_with(o).unwrap();
                close(&format!("eigh values {w}"), &gw, &cw, t);
                // A V = V diag(w) and V^T V = I, on the symmetric matrix.
                let s = sym.cast(dt).unwrap().cast(DType::F64).unwrap();
                let v = gv.to_device(CPU).unwrap().cast(DType::F64).unwrap();
                let wv = gw.to_device(CPU).unwrap().cast(DType::F64).unwrap();
                let av = s.matmul(&v).unwrap();
                let vw = v.mul(&wv.unsqueeze(-2).unwrap()).unwrap();
                let scale = f64s(&s).iter().fold(1f64, |m, x| m.max(x.abs())) * n as f64;
                let res = f64s(&av.sub(&vw).unwrap());
                assert!(
                    res.iter().all(|r| r.abs() <= t * scale),
                    "{w}: A V - V w up to {}",
                    res.iter().fold(0f64, |m, r| m.max(r.abs()))
                );
                let vtv = v.matrix_transpose().unwrap().matmul(&v).unwrap();
                let eye = Tensor::eye(DType::F64, n, None, 0).unwrap();
                let dev = f64s(&vtv.sub(&eye).unwrap());
                assert!(dev.iter().all(|r| r.abs() <= t * 4.0), "{w}: V^T V");
            }
        }
    }
}

/// `svd` / `svdvals` of batches of small real matrices (square and oblong,
/// the thin factors; the full factors of a square one) are a GPU kernel
/// (one-sided Jacobi, `decomp_small.rs`): singular values descending within
/// the roundoff of the CPU's, `u diag(s) vh = a`, orthonormal `u` columns
/// and `vh` rows, also for a rank-deficient matrix (a zero column: the
/// left vector of the zero singular value is completed).
#[test]
fn gpu_small_svd() {
    use rnx::SvdOptions;
    let Some(d) = gpu() else { return };
    for dt in [DType::F32, DType::F64] {
        for (m, n) in [(1usize, 1usize), (3, 3), (5, 2), (2, 6), (16, 16), (9, 16)] {
            let a64 = Tensor::randn(DType::F64, &[3, m, n], (m * 31 + n) as u64).unwrap();
            // Matrix 2: its first column zero (rank deficient).
            a64.set_slice(rnx::s![2, .., 0], &Tensor::zeros(DType::F64, &[m]).unwrap())
                .unwrap();
            let a = a64.cast(dt).unwrap();
            let ga = a.to_device(d).unwrap();
            let w = format!("{dt} {m} x {n}");
            let t = tol(dt, m.max(n));
            let cs = a.svdvals().unwrap();
            close(&format!("svdvals {w}"), &ga.svdvals().unwrap(), &cs, t);
            let fulls: &[bool] = if m == n { &[false, true] } else { &[false] };
            for &full in fulls {
                let (u, s, vh) = ga
                    .svd_with(SvdOptions {
                        full_matrices: full,
                    })
                    .unwrap();
                close(&format!("svd values {w}"), &s, &cs, t);
                let f = |x: &Tensor| x.to_device(CPU).unwrap().cast(DType::F64).unwrap();
                let (u, s, vh) = (f(&u), f(&s), f(&vh));
                let us = u.mul(&s.unsqueeze(-2).unwrap()).unwrap();
                let back = us.matmul(&vh).unwrap();
                let scale = f64s(&a64).iter().fold(1f64, |x, y| x.max(y.abs())) * m.max(n) as f64;
                let err = f64s(&back.sub(&a.cast(DType::F64).unwrap()).unwrap());
                assert!(
                    err.iter().all(|e| e.abs() <= t * scale),
                    "{w} full {full}: u s vh - a up to {}",
                    err.iter().fold(0f64, |x, e| x.max(e.abs()))
                );
                let k = m.min(n);
                let eye = Tensor::eye(DType::F64, k, None, 0).unwrap();
                let utu = u.matrix_transpose().unwrap().matmul(&u).unwrap();
                let vvt = vh.matmul(&vh.matrix_transpose().unwrap()).unwrap();
                for (name, g) in [("u^T u", utu), ("vh vh^T", vvt)] {
                    let dev = f64s(&g.sub(&eye).unwrap());
                    let worst = dev.iter().enumerate().fold((0, 0f64), |b, (i, x)| {
                        if x.abs() > b.1 {
                            (i, x.abs())
                        } else {
                            b
                        }
                    });
                    assert!(
                        dev.iter().all(|x| x.abs() <= t * 4.0),
                        "{w}: {name}: worst {worst:?} of {}",
                        dev.len()
                    );
                }
            }
        }
    }
}

/// Empty batches take the round trip and give empty results (the download
/// of an empty output into an empty byte buffer panicked in bytemuck's
/// alignment check before).
#[test]
fn gpu_decomps_of_empty_batches() {
    let Some(d) = gpu() else { return };
    for dt in [DType::F32, DType::F64] {
        let z = Tensor::zeros_on(dt, &[0, 3, 3], d).unwrap();
        assert_eq!(z.det().unwrap().shape(), &[0]);
        assert_eq!(z.inv().unwrap().shape(), &[0, 3, 3]);
        assert_eq!(z.cholesky().unwrap().shape(), &[0, 3, 3]);
        assert_eq!(z.svdvals().unwrap().shape(), &[0, 3]);
        assert_eq!(z.qr().unwrap().1.shape(), &[0, 3, 3]);
        let big = Tensor::zeros_on(dt, &[0, 20, 20], d).unwrap();
        assert_eq!(big.slogdet().unwrap().1.shape(), &[0]);
    }
}
