//! Decompositions, solvers, norms (`cholesky`, `qr`, `svd`, `eigh`, `eig`,
//! `solve`, `triangular_solve`, `inv`, `pinv`, `lstsq`, `det`, `slogdet`,
//! `matrix_rank`, `norm`, `cond`, `tensorinv`, `tensorsolve`, negative
//! `matrix_power`): NumPy's documented examples, reconstruction and residual
//! bounds on random batches in f32, f64 and complex (relative to `||A||`,
//! within `C * n * eps` with the constant stated per test), orthogonality,
//! ill-conditioned and rank-deficient inputs, empty and 1x1 matrices,
//! broadcast solves, and the errors. One GPU round trip at the end.

use rnx::{
    s, CholeskyOptions, DType, EighOptions, Error, NormOptions, NormOrd, QrMode, QrOptions,
    SvdOptions, Tensor, Trans, TriangularSolveOptions, C32, C64,
};

/// Deterministic standard-normal data of any of the four dtypes.
pub(crate) fn rnd(dtype: DType, shape: &[usize], seed: u64) -> Tensor {
    if dtype.is_complex() {
        let re = Tensor::randn(DType::F64, shape, seed)
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        let im = Tensor::randn(DType::F64, shape, seed + 7)
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        let v: Vec<C64> = re.iter().zip(&im).map(|(&r, &i)| C64::new(r, i)).collect();
        Tensor::from_vec(v, shape).unwrap().cast(dtype).unwrap()
    } else {
        Tensor::randn(DType::F64, shape, seed)
            .unwrap()
            .cast(dtype)
            .unwrap()
    }
}

fn eps(d: DType) -> f64 {
    if d.real() == DType::F32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    }
}

/// Frobenius norm of the whole tensor, as f64.
fn fro(t: &Tensor) -> f64 {
    t.norm()
        .unwrap()
        .cast(DType::F64)
        .unwrap()
        .item_f64()
        .unwrap()
}

/// `||x - y|| / ||a||`.
fn rel(x: &Tensor, y: &Tensor, a: &Tensor) -> f64 {
    fro(&x.sub(y).unwrap()) / fro(a)
}

pub(crate) fn adj(t: &Tensor) -> Tensor {
    t.conjugate().unwrap().matrix_transpose().unwrap()
}

/// Identity matrices broadcast to `[.., k, k]`.
fn eye_like(dtype: DType, batch: &[usize], k: usize) -> Tensor {
    let mut s = batch.to_vec();
    s.extend([k, k]);
    Tensor::eye(dtype, k, None, 0)
        .unwrap()
        .broadcast_to(&s)
        .unwrap()
}

/// Hermitian positive-definite batch `x x^H + n I`.
fn spd(dtype: DType, batch: &[usize], n: usize, seed: u64) -> Tensor {
    let mut s = batch.to_vec();
    s.extend([n, n]);
    let x = rnd(dtype, &s, seed);
    x.matmul(&adj(&x))
        .unwrap()
        .add(&eye_like(dtype, batch, n).mul(n as f64).unwrap())
        .unwrap()
}

fn close(a: &[f64], b: &[f64], tol: f64) {
    assert_eq!(a.len(), b.len(), "{a:?} vs {b:?}");
    for (x, y) in a.iter().zip(b) {
        assert!((x - y).abs() <= tol * (1.0 + y.abs()), "{a:?} vs {b:?}");
    }
}

fn f64v(t: &Tensor) -> Vec<f64> {
    t.cast(DType::F64)
        .unwrap()
        .contiguous()
        .unwrap()
        .to_vec::<f64>()
        .unwrap()
}

const FLOATS: [DType; 2] = [DType::F32, DType::F64];

#[test]
fn numpy_examples_decompositions() {
    // cholesky: A = [[1, -2j], [2j, 5]] -> L = [[1, 0], [2j, 1]].
    let a = Tensor::from_vec(
        vec![
            C64::new(1., 0.),
            C64::new(0., -2.),
            C64::new(0., 2.),
            C64::new(5., 0.),
        ],
        &[2, 2],
    )
    .unwrap();
    let l = a.cholesky().unwrap().to_vec::<C64>().unwrap();
    let want = [
        C64::new(1., 0.),
        C64::new(0., 0.),
        C64::new(0., 2.),
        C64::new(1., 0.),
    ];
    for (x, y) in l.iter().zip(want) {
        assert!((x - y).norm() < 1e-15, "{l:?}");
    }
    let u = a.cholesky_with(CholeskyOptions { upper: true }).unwrap();
    assert!(rel(&adj(&u).matmul(&u).unwrap(), &a, &a) < 1e-15);
    // eigvalsh / eigh of the same matrix: [0.17157288, 5.82842712].
    let w = f64v(&a.eigvalsh().unwrap());
    close(&w, &[0.17157287525381, 5.82842712474619], 1e-12);
    let (w2, v) = a.eigh_with(EighOptions { upper: true }).unwrap();
    close(&f64v(&w2), &w, 1e-12);
    let av = a.matmul(&v).unwrap();
    let vw = v
        .mul(&w2.cast(DType::C64).unwrap().unsqueeze([-2]).unwrap())
        .unwrap();
    assert!(rel(&av, &vw, &a) < 1e-14);
    // eig of a diagonal matrix: its diagonal, unit vectors.
    let d = Tensor::from_vec(vec![1.0f64, 0., 0., 0., 2., 0., 0., 0., 3.], &[3, 3]).unwrap();
    let (w, v) = d.eig().unwrap();
    assert_eq!(w.dtype(), DType::C64);
    let mut wr: Vec<f64> = w.to_vec::<C64>().unwrap().iter().map(|z| z.re).collect();
    wr.sort_by(f64::total_cmp);
    assert_eq!(wr, vec![1.0, 2.0, 3.0]);
    let va: Vec<f64> = v.abs().unwrap().to_vec::<f64>().unwrap();
    assert_eq!(va.iter().filter(|&&x| x == 1.0).count(), 3);
    // eigvals of a real matrix with complex eigenvalues (f32 -> c32): [[1, -1], [1, 1]] -> 1 ± i.
    let r = Tensor::from_vec(vec![1.0f32, -1., 1., 1.], &[2, 2]).unwrap();
    let e = r.eigvals().unwrap();
    assert_eq!(e.dtype(), DType::C32);
    let mut e: Vec<C32> = e.to_vec::<C32>().unwrap();
    e.sort_by(|a, b| a.im.total_cmp(&b.im));
    assert!((e[0] - C32::new(1., -1.)).norm() < 1e-6 && (e[1] - C32::new(1., 1.)).norm() < 1e-6);
    // svd of a diagonal-like matrix: exact singular values.
    let s = Tensor::from_vec(vec![0.0f64, 0., 3., 0., 4., 0.], &[2, 3]).unwrap();
    assert_eq!(
        s.svdvals().unwrap().to_vec::<f64>().unwrap(),
        vec![4.0, 3.0]
    );
}

#[test]
fn numpy_examples_solvers() {
    // Batched det / slogdet / inv (NumPy's docstrings).
    let a = Tensor::from_vec(
        vec![1.0f64, 2., 3., 4., 1., 2., 2., 1., 1., 3., 3., 1.],
        &[3, 2, 2],
    )
    .unwrap();
    close(&f64v(&a.det().unwrap()), &[-2.0, -3.0, -8.0], 1e-14);
    let (sign, logdet) = a.slogdet().unwrap();
    assert_eq!(f64v(&sign), vec![-1.0, -1.0, -1.0]);
    close(&f64v(&logdet), &[2f64.ln(), 3f64.ln(), 8f64.ln()], 1e-14);
    let b = Tensor::from_vec(vec![1.0f64, 2., 3., 4., 1., 3., 3., 5.], &[2, 2, 2]).unwrap();
    close(
        &f64v(&b.inv().unwrap()),
        &[-2., 1., 1.5, -0.5, -1.25, 0.75, 0.75, -0.25],
        1e-14,
    );
    // det of a singular matrix whose first column is zero: exactly 0 (no NaN).
    let z = Tensor::from_vec(vec![0.0f64, 0., 0., 1.], &[2, 2]).unwrap();
    assert_eq!(z.det().unwrap().item::<f64>().unwrap(), 0.0);
    let (s, l) = z.slogdet().unwrap();
    assert_eq!(
        (s.item::<f64>().unwrap(), l.item::<f64>().unwrap()),
        (0.0, f64::NEG_INFINITY)
    );
    // Complex slogdet: det(diag(i, 2)) = 2i.
    let c = Tensor::from_vec(
        vec![
            C64::new(0., 1.),
            C64::new(0., 0.),
            C64::new(0., 0.),
            C64::new(2., 0.),
        ],
        &[2, 2],
    )
    .unwrap();
    let (s, l) = c.slogdet().unwrap();
    assert!((s.item::<C64>().unwrap() - C64::new(0., 1.)).norm() < 1e-15);
    assert!((l.item::<f64>().unwrap() - 2f64.ln()).abs() < 1e-15);
    assert!((c.det().unwrap().item::<C64>().unwrap() - C64::new(0., 2.)).norm() < 1e-15);
    // lstsq: the line fit, residuals [0.05].
    let a = Tensor::from_vec(vec![0.0f64, 1., 1., 1., 2., 1., 3., 1.], &[4, 2]).unwrap();
    let y = Tensor::from_vec(vec![-1.0f64, 0.2, 0.9, 2.1], &[4]).unwrap();
    let r = a.lstsq(&y, None).unwrap();
    close(&f64v(&r.solution), &[1.0, -0.95], 1e-13);
    close(&f64v(&r.residuals), &[0.05], 1e-12);
    assert_eq!(r.rank.item_i64().unwrap(), 2);
    assert_eq!(r.singular_values.shape(), &[2]);
    // matrix_power(i, -3) = [[0, 1], [-1, 0]].
    let i = Tensor::from_vec(vec![0.0f64, 1., -1., 0.], &[2, 2]).unwrap();
    assert_eq!(
        f64v(&i.matrix_power(-3).unwrap()),
        vec![0.0, 1.0, -1.0, 0.0]
    );
    // tensorinv / tensorsolve (NumPy's examples).
    let a = Tensor::eye(DType::F64, 24, None, 0)
        .unwrap()
        .reshape([4, 6, 8, 3])
        .unwrap();
    let ainv = a.tensorinv(2).unwrap();
    assert_eq!(ainv.shape(), &[8, 3, 4, 6]);
    let b = rnd(DType::F64, &[4, 6], 3);
    let x1 = ainv.tensordot(&b, 2).unwrap();
    let x2 = a.tensorsolve(&b, None).unwrap();
    assert!(rel(&x1, &x2, &b) < 1e-15);
    let a = Tensor::eye(DType::F64, 24, None, 0)
        .unwrap()
        .reshape([6, 4, 2, 3, 4])
        .unwrap();
    let b = rnd(DType::F64, &[6, 4], 4);
    let x = a.tensorsolve(&b, None).unwrap();
    assert_eq!(x.shape(), &[2, 3, 4]);
    assert!(rel(&a.tensordot(&x, 3).unwrap(), &b, &b) < 1e-15);
    // tensorsolve with axes moved to the end: a permuted so that moving its
    // axes [0, 1] to the end gives `a` back; same solution.
    let at = a.transpose([3, 4, 0, 1, 2]).unwrap();
    let xt = at.tensorsolve(&b, Some(&[0, 1])).unwrap();
    assert_eq!(xt.shape(), &[2, 3, 4]);
    assert!(rel(&xt, &x, &x) < 1e-15);
}

#[test]
fn numpy_examples_norms() {
    let a = Tensor::arange(DType::F64, -4, 5, 1).unwrap();
    let b = a.reshape([3, 3]).unwrap();
    let n = |t: &Tensor, ord: Option<NormOrd>| -> f64 {
        t.norm_with(&NormOptions {
            ord,
            ..Default::default()
        })
        .unwrap()
        .item::<f64>()
        .unwrap()
    };
    let inf = f64::INFINITY;
    assert!((n(&a, None) - 7.745966692414834).abs() < 1e-14);
    assert!((n(&b, None) - 7.745966692414834).abs() < 1e-14);
    assert!((n(&b, Some(NormOrd::Fro)) - 7.745966692414834).abs() < 1e-14);
    assert_eq!(n(&b, Some(NormOrd::P(inf))), 9.0);
    assert_eq!(n(&b, Some(NormOrd::P(-inf))), 2.0);
    assert_eq!(n(&b, Some(NormOrd::P(1.0))), 7.0);
    assert_eq!(n(&b, Some(NormOrd::P(-1.0))), 6.0);
    assert!((n(&b, Some(NormOrd::P(2.0))) - 7.3484692283495345).abs() < 1e-13);
    assert!(n(&b, Some(NormOrd::P(-2.0))) < 1e-14);
    assert!((n(&b, Some(NormOrd::Nuc)) - 9.797958971132712).abs() < 1e-13);
    assert_eq!(n(&a, Some(NormOrd::P(inf))), 4.0);
    assert_eq!(n(&a, Some(NormOrd::P(-inf))), 0.0);
    assert_eq!(n(&a, Some(NormOrd::P(1.0))), 20.0);
    assert_eq!(n(&a, Some(NormOrd::P(-1.0))), 0.0);
    assert_eq!(n(&a, Some(NormOrd::P(0.0))), 8.0);
    assert!((n(&a, Some(NormOrd::P(2.0))) - 7.745966692414834).abs() < 1e-14);
    assert_eq!(n(&a, Some(NormOrd::P(-2.0))), 0.0);
    assert!((n(&a, Some(NormOrd::P(3.0))) - 5.848035476425731).abs() < 1e-13);
    // Axes.
    let c = Tensor::from_vec(vec![1.0f64, 2., 3., -1., 1., 4.], &[2, 3]).unwrap();
    let ax = |axes: &[isize], ord: Option<NormOrd>, keepdims: bool| {
        c.norm_with(&NormOptions {
            ord,
            axes: axes.into(),
            keepdims,
        })
        .unwrap()
    };
    close(
        &f64v(&ax(&[0], None, false)),
        &[2f64.sqrt(), 5f64.sqrt(), 5.0],
        1e-14,
    );
    close(
        &f64v(&ax(&[1], None, false)),
        &[14f64.sqrt(), 18f64.sqrt()],
        1e-14,
    );
    assert_eq!(
        f64v(&ax(&[1], Some(NormOrd::P(1.0)), false)),
        vec![6.0, 6.0]
    );
    assert_eq!(ax(&[1], None, true).shape(), &[2, 1]);
    let m = Tensor::arange(DType::F64, 0, 8, 1)
        .unwrap()
        .reshape([2, 2, 2])
        .unwrap();
    let mn = m
        .norm_with(&NormOptions {
            axes: [1isize, 2].into(),
            ..Default::default()
        })
        .unwrap();
    close(&f64v(&mn), &[3.7416573867739413, 11.224972160321824], 1e-14);
    // Matrix 2-norm over axes (0, 2) with keepdims, against the moved-axes svd.
    let t = rnd(DType::F64, &[3, 2, 4], 9);
    let o = NormOptions {
        ord: Some(NormOrd::P(2.0)),
        axes: [2isize, 0].into(),
        keepdims: true,
    };
    let r = t.norm_with(&o).unwrap();
    assert_eq!(r.shape(), &[1, 2, 1]);
    let s = t.transpose([1, 2, 0]).unwrap().svdvals().unwrap();
    close(&f64v(&r), &f64v(&s.max(-1, false).unwrap()), 1e-14);
    // Complex input gives a real norm; f32 stays f32.
    let z = Tensor::from_vec(vec![C32::new(3., 4.)], &[1]).unwrap();
    let zn = z.norm().unwrap();
    assert_eq!((zn.dtype(), zn.item::<f32>().unwrap()), (DType::F32, 5.0));
    // cond (NumPy's examples).
    let a = Tensor::from_vec(vec![1.0f64, 0., -1., 0., 1., 0., 1., 0., 1.], &[3, 3]).unwrap();
    let cond = |p| a.cond(p).unwrap().item::<f64>().unwrap();
    assert!((cond(None) - 2f64.sqrt()).abs() < 1e-14);
    assert!((cond(Some(NormOrd::Fro)) - 3.1622776601683795).abs() < 1e-14);
    assert!((cond(Some(NormOrd::P(inf))) - 2.0).abs() < 1e-14);
    assert!((cond(Some(NormOrd::P(-inf))) - 1.0).abs() < 1e-14);
    assert!((cond(Some(NormOrd::P(1.0))) - 2.0).abs() < 1e-14);
    assert!((cond(Some(NormOrd::P(-1.0))) - 1.0).abs() < 1e-14);
    assert!((cond(Some(NormOrd::P(2.0))) - 2f64.sqrt()).abs() < 1e-14);
    assert!((cond(Some(NormOrd::P(-2.0))) - 0.5f64.sqrt()).abs() < 1e-14);
}

/// QR, SVD, eigh, Cholesky, eig reconstructions on random batches: every
/// residual below `30 n eps ||A||` and orthogonality below `30 n eps`.
#[test]
fn reconstructions() {
    for dt in [DType::F32, DType::F64, DType::C64, DType::C32] {
        let e = eps(dt);
        for (m, n) in [(5, 3), (3, 5), (4, 4)] {
            let a = rnd(dt, &[3, m, n], 11 + m as u64);
            let tol = 30.0 * m.max(n) as f64 * e;
            // QR, reduced and complete, and r-only.
            let (q, r) = a.qr().unwrap();
            let k = m.min(n);
            assert_eq!((q.shape(), r.shape()), (&[3, m, k][..], &[3, k, n][..]));
            assert!(rel(&q.matmul(&r).unwrap(), &a, &a) < tol, "qr {dt} {m}x{n}");
            assert!(
                fro(&adj(&q)
                    .matmul(&q)
                    .unwrap()
                    .sub(&eye_like(dt, &[3], k))
                    .unwrap())
                    < tol
            );
            assert_eq!(
                f64v(&r.tril(-1).unwrap().abs().unwrap())
                    .iter()
                    .sum::<f64>(),
                0.0
            );
            let (qc, rc) = a
                .qr_with(QrOptions {
                    mode: QrMode::Complete,
                })
                .unwrap();
            let qc = qc.unwrap();
            assert_eq!((qc.shape(), rc.shape()), (&[3, m, m][..], &[3, m, n][..]));
            assert!(rel(&qc.matmul(&rc).unwrap(), &a, &a) < tol);
            assert!(
                fro(&adj(&qc)
                    .matmul(&qc)
                    .unwrap()
                    .sub(&eye_like(dt, &[3], m))
                    .unwrap())
                    < tol
            );
            let (none, ro) = a.qr_with(QrOptions { mode: QrMode::R }).unwrap();
            assert!(none.is_none());
            assert!(rel(&ro.abs().unwrap(), &r.abs().unwrap(), &a) < tol);
            // SVD, full and thin.
            let (u, s, vh) = a.svd().unwrap();
            assert_eq!(
                (u.shape(), s.shape(), vh.shape()),
                (&[3, m, m][..], &[3, k][..], &[3, n, n][..])
            );
            assert_eq!(s.dtype(), dt.real());
            let sv = f64v(&s);
            for c in sv.chunks(k) {
                assert!(
                    c.windows(2).all(|w| w[0] >= w[1]) && c[k - 1] >= 0.0,
                    "{sv:?}"
                );
            }
            let (ut, st, vht) = a
                .svd_with(SvdOptions {
                    full_matrices: false,
                })
                .unwrap();
            let us = ut
                .mul(&st.cast(dt).unwrap().unsqueeze([-2]).unwrap())
                .unwrap();
            assert!(
                rel(&us.matmul(&vht).unwrap(), &a, &a) < tol,
                "svd {dt} {m}x{n}"
            );
            assert!(
                fro(&adj(&u)
                    .matmul(&u)
                    .unwrap()
                    .sub(&eye_like(dt, &[3], m))
                    .unwrap())
                    < tol
            );
            assert!(
                fro(&vh
                    .matmul(&adj(&vh))
                    .unwrap()
                    .sub(&eye_like(dt, &[3], n))
                    .unwrap())
                    < tol
            );
            assert!(rel(&a.svdvals().unwrap(), &s, &s) < tol);
        }
        let n = 6;
        let tol = 30.0 * n as f64 * e;
        // eigh on Hermitian batches: A V = V diag(w), w ascending, V unitary.
        let h = spd(dt, &[2], n, 5)
            .sub(&eye_like(dt, &[2], n).mul(9.0).unwrap())
            .unwrap();
        let (w, v) = h.eigh().unwrap();
        let wv = f64v(&w);
        assert!(wv.chunks(n).all(|c| c.windows(2).all(|p| p[0] <= p[1])));
        let vw = v
            .mul(&w.cast(dt).unwrap().unsqueeze([-2]).unwrap())
            .unwrap();
        assert!(rel(&h.matmul(&v).unwrap(), &vw, &h) < tol, "eigh {dt}");
        assert!(
            fro(&adj(&v)
                .matmul(&v)
                .unwrap()
                .sub(&eye_like(dt, &[2], n))
                .unwrap())
                < tol
        );
        assert!(rel(&h.eigvalsh().unwrap(), &w, &w) < tol);
        // Upper triangle: garbage in the lower one is not read.
        let hu = h
            .triu(0)
            .unwrap()
            .add(&h.tril(-1).unwrap().mul(3.0).unwrap())
            .unwrap();
        let wu = hu.eigvalsh_with(EighOptions { upper: true }).unwrap();
        assert!(rel(&wu, &w, &w) < tol);
        // Cholesky: L L^H = A, lower; upper U^H U = A.
        let p = spd(dt, &[2, 2], n, 6);
        let l = p.cholesky().unwrap();
        assert!(
            rel(&l.matmul(&adj(&l)).unwrap(), &p, &p) < tol,
            "cholesky {dt}"
        );
        assert_eq!(fro(&l.triu(1).unwrap()), 0.0);
        let u = p.cholesky_with(CholeskyOptions { upper: true }).unwrap();
        assert!(rel(&adj(&u).matmul(&u).unwrap(), &p, &p) < tol);
        // eig: A V = V diag(w) in the complex dtype.
        let g = rnd(dt, &[2, n, n], 8);
        let (w, v) = g.eig().unwrap();
        let c = if dt.real() == DType::F32 {
            DType::C32
        } else {
            DType::C64
        };
        assert_eq!((w.dtype(), v.dtype()), (c, c));
        let gc = g.cast(c).unwrap();
        let vw = v.mul(&w.unsqueeze([-2]).unwrap()).unwrap();
        assert!(
            rel(&gc.matmul(&v).unwrap(), &vw, &g) < 10.0 * tol,
            "eig {dt}"
        );
        let norms = f64v(
            &v.norm_with(&NormOptions {
                axes: (-2isize).into(),
                ..Default::default()
            })
            .unwrap(),
        );
        close(&norms, &vec![1.0; 2 * n], 10.0 * tol);
        let mut w1: Vec<(f64, f64)> = w
            .to_device(rnx::Device::Cpu)
            .unwrap()
            .cast(DType::C64)
            .unwrap()
            .to_vec::<C64>()
            .unwrap()
            .iter()
            .map(|z| (z.re, z.im))
            .collect();
        let mut w2: Vec<(f64, f64)> = g
            .eigvals()
            .unwrap()
            .cast(DType::C64)
            .unwrap()
            .to_vec::<C64>()
            .unwrap()
            .iter()
            .map(|z| (z.re, z.im))
            .collect();
        w1.sort_by(|a, b| a.partial_cmp(b).unwrap());
        w2.sort_by(|a, b| a.partial_cmp(b).unwrap());
        for (x, y) in w1.iter().zip(&w2) {
            assert!((x.0 - y.0).abs() + (x.1 - y.1).abs() < 100.0 * tol * fro(&g));
        }
    }
}

/// Solvers on random batches: `||A x - b|| <= 30 n eps ||A|| ||x||`.
#[test]
fn solvers_random_and_broadcast() {
    for dt in [DType::F32, DType::F64, DType::C64] {
        let e = eps(dt);
        let n = 5;
        let tol = 30.0 * n as f64 * e;
        let a = rnd(dt, &[4, n, n], 21);
        let check = |a: &Tensor, x: &Tensor, b: &Tensor| {
            let ax = if b.ndim() == 1 {
                a.matmul(&x.unsqueeze([-1]).unwrap())
                    .unwrap()
                    .squeeze_axis(-1)
                    .unwrap()
            } else {
                a.matmul(x).unwrap()
            };
            let bb = b.broadcast_to(ax.shape()).unwrap();
            assert!(
                fro(&ax.sub(&bb).unwrap()) <= tol * fro(a) * fro(x),
                "{dt} {:?} {:?}",
                a.shape(),
                b.shape()
            );
        };
        // (k, n, n) with (n,): every matrix against the one vector.
        let b = rnd(dt, &[n], 22);
        let x = a.solve(&b).unwrap();
        assert_eq!(x.shape(), &[4, n]);
        check(&a, &x, &b);
        // (k, n, n) with (k, n, r).
        let b = rnd(dt, &[4, n, 3], 23);
        let x = a.solve(&b).unwrap();
        assert_eq!(x.shape(), &[4, n, 3]);
        check(&a, &x, &b);
        // Batch broadcasting: (2, 1, n, n) with (3, n, 1) -> (2, 3, n, 1).
        let a2 = rnd(dt, &[2, 1, n, n], 24);
        let b2 = rnd(dt, &[3, n, 1], 25);
        let x2 = a2.solve(&b2).unwrap();
        assert_eq!(x2.shape(), &[2, 3, n, 1]);
        check(&a2.broadcast_to(&[2, 3, n, n]).unwrap(), &x2, &b2);
        // inv: A A^-1 = I; matrix_power(-2) = inv(A)^2.
        let ai = a.inv().unwrap();
        assert!(
            fro(&a.matmul(&ai).unwrap().sub(&eye_like(dt, &[4], n)).unwrap())
                < tol * fro(&a) * fro(&ai)
        );
        let p = a.matrix_power(-2).unwrap();
        assert!(rel(&p, &ai.matmul(&ai).unwrap(), &p) < 10.0 * tol * fro(&a) * fro(&ai));
        // det against the product of eigenvalues, slogdet against det.
        let d = a.det().unwrap();
        let (s, l) = a.slogdet().unwrap();
        let back = s.mul(&l.exp().unwrap().cast(dt).unwrap()).unwrap();
        assert!(rel(&back, &d, &d) < tol);
        // triangular_solve in every form.
        let t = a
            .tril(0)
            .unwrap()
            .add(&eye_like(dt, &[4], n).mul(4.0).unwrap())
            .unwrap();
        let b = rnd(dt, &[4, n, 2], 26);
        for lower in [true, false] {
            let tri = if lower { t.clone() } else { adj(&t) };
            for trans in [Trans::None, Trans::Transpose, Trans::Adjoint] {
                for unit in [false, true] {
                    let o = TriangularSolveOptions {
                        lower,
                        trans,
                        unit_diagonal: unit,
                    };
                    // Garbage in the unused triangle must not matter.
                    let junk = if lower {
                        tri.triu(1).unwrap()
                    } else {
                        tri.tril(-1).unwrap()
                    };
                    let x = tri
                        .add(&junk.mul(7.0).unwrap())
                        .unwrap()
                        .triangular_solve(&b, o)
                        .unwrap();
                    let mut m = tri.clone();
                    if unit {
                        let eye = eye_like(dt, &[4], n);
                        m = m.sub(&m.mul(&eye).unwrap()).unwrap().add(&eye).unwrap();
                    }
                    let m = match trans {
                        Trans::None => m,
                        Trans::Transpose => m.matrix_transpose().unwrap(),
                        Trans::Adjoint => adj(&m),
                    };
                    check(&m, &x, &b);
                }
            }
        }
    }
}

#[test]
fn ill_conditioned_and_rank_deficient() {
    // Hilbert matrix of order 8 (cond ~ 1.5e10): LU is backward stable.
    let n = 8;
    let h: Vec<f64> = (0..n * n)
        .map(|k| 1.0 / ((k / n + k % n + 1) as f64))
        .collect();
    let h = Tensor::from_vec(h, &[n, n]).unwrap();
    let b = Tensor::ones(DType::F64, &[n]).unwrap();
    let x = h.solve(&b).unwrap();
    let r = h
        .matmul(&x.unsqueeze([-1]).unwrap())
        .unwrap()
        .squeeze_axis(-1)
        .unwrap()
        .sub(&b)
        .unwrap();
    assert!(fro(&r) <= 30.0 * n as f64 * f64::EPSILON * fro(&h) * fro(&x));
    let c = h.cond(None).unwrap().item::<f64>().unwrap();
    assert!((c / 1.5257575e10 - 1.0).abs() < 1e-3, "{c}");
    assert_eq!(h.matrix_rank(None).unwrap().item_i64().unwrap(), 8);
    // A rank-2 5x4 product.
    let u = rnd(DType::F64, &[5, 2], 31);
    let v = rnd(DType::F64, &[2, 4], 32);
    let a = u.matmul(&v).unwrap();
    assert_eq!(a.matrix_rank(None).unwrap().item_i64().unwrap(), 2);
    assert_eq!(a.matrix_rank(Some(1e30)).unwrap().item_i64().unwrap(), 0);
    let s = f64v(&a.svdvals().unwrap());
    assert!(s[2] < 1e-14 * s[0] && s[3] < 1e-14 * s[0]);
    // pinv: the four Penrose conditions.
    let p = a.pinv().unwrap();
    assert_eq!(p.shape(), &[4, 5]);
    let tol = 1e-12;
    assert!(rel(&a.matmul(&p).unwrap().matmul(&a).unwrap(), &a, &a) < tol);
    assert!(rel(&p.matmul(&a).unwrap().matmul(&p).unwrap(), &p, &p) < tol);
    let ap = a.matmul(&p).unwrap();
    assert!(rel(&ap, &ap.matrix_transpose().unwrap(), &ap) < tol);
    // lstsq on the rank-deficient matrix: rank 2, the minimum-norm solution = pinv b, no residuals.
    let b = rnd(DType::F64, &[5, 2], 33);
    let r = a.lstsq(&b, None).unwrap();
    assert_eq!(r.rank.item_i64().unwrap(), 2);
    assert_eq!(r.residuals.shape(), &[0]);
    assert!(rel(&r.solution, &p.matmul(&b).unwrap(), &r.solution) < 1e-12);
    // A full-rank tall lstsq matches the normal equations; residuals are ||Ax - b||^2 per column.
    let a = rnd(DType::F32, &[7, 3], 34);
    let b = rnd(DType::F32, &[7, 2], 35);
    let r = a.lstsq(&b, None).unwrap();
    assert_eq!(r.rank.item_i64().unwrap(), 3);
    let res = a.matmul(&r.solution).unwrap().sub(&b).unwrap();
    close(
        &f64v(&r.residuals),
        &f64v(&res.square().unwrap().sum(0, false).unwrap()),
        1e-4,
    );
    let at = a.matrix_transpose().unwrap();
    let normal = at
        .matmul(&a)
        .unwrap()
        .solve(&at.matmul(&b).unwrap())
        .unwrap();
    assert!(rel(&r.solution, &normal, &normal) < 1e-4);
    // Batched lstsq ([3, 6, 4] a, one rank-deficient; [2, 1, 6, 2] b broadcast)
    // equals each matrix's own lstsq; a vector b goes against every matrix.
    let mut mats = vec![rnd(DType::F64, &[6, 4], 40), rnd(DType::F64, &[6, 4], 41)];
    mats.push(
        rnd(DType::F64, &[6, 2], 42)
            .matmul(&rnd(DType::F64, &[2, 4], 43))
            .unwrap(),
    );
    let ab = Tensor::stack(&mats, 0).unwrap();
    let bb = rnd(DType::F64, &[2, 1, 6, 2], 44);
    let r = ab.lstsq(&bb, None).unwrap();
    assert_eq!(r.solution.shape(), &[2, 3, 4, 2]);
    assert_eq!(r.rank.shape(), &[2, 3]);
    assert_eq!(r.rank.to_vec::<i64>().unwrap(), vec![4, 4, 2, 4, 4, 2]);
    assert_eq!(r.residuals.shape(), &[0], "one matrix is rank-deficient");
    for i in 0..2 {
        for (j, m) in mats.iter().enumerate() {
            let bj = bb.slice(s![i as isize, 0]).unwrap();
            let one = m.lstsq(&bj, None).unwrap();
            let got = r.solution.slice(s![i as isize, j as isize]).unwrap();
            assert!(
                rel(&got, &one.solution, &one.solution) < 1e-12,
                "batch ({i}, {j})"
            );
        }
    }
    let v = rnd(DType::F64, &[6], 45);
    let rv = Tensor::stack(&mats[..2], 0)
        .unwrap()
        .lstsq(&v, None)
        .unwrap();
    assert_eq!(rv.solution.shape(), &[2, 4]);
    assert_eq!(rv.residuals.shape(), &[2, 1], "both full rank and tall");
    for (j, m) in mats[..2].iter().enumerate() {
        let one = m.lstsq(&v, None).unwrap();
        let got = rv.solution.slice(s![j as isize]).unwrap();
        assert!(rel(&got, &one.solution, &one.solution) < 1e-12);
        close(
            &f64v(&rv.residuals.slice(s![j as isize]).unwrap()),
            &f64v(&one.residuals),
            1e-12,
        );
    }
    // matrix_rank of vectors (NumPy: 1 unless all zero; NaN is non-zero).
    let z = Tensor::zeros(DType::F32, &[3]).unwrap();
    assert_eq!(z.matrix_rank(None).unwrap().item_i64().unwrap(), 0);
    let e = Tensor::zeros(DType::F32, &[0]).unwrap();
    assert_eq!(e.matrix_rank(None).unwrap().item_i64().unwrap(), 0);
    let nan = Tensor::from_vec(vec![0.0f64, f64::NAN], &[2]).unwrap();
    assert_eq!(nan.matrix_rank(None).unwrap().item_i64().unwrap(), 1);
    // det of an exactly singular matrix (dependent rows) is 0 or tiny; solve refuses it.
    let s = Tensor::from_vec(vec![1.0f64, 2., 2., 4.], &[2, 2]).unwrap();
    assert_eq!(s.det().unwrap().item::<f64>().unwrap(), 0.0);
    let ones = Tensor::ones(DType::F64, &[2]).unwrap();
    assert!(matches!(
        s.solve(&ones),
        Err(Error::LinAlg { batch: 0, .. })
    ));
    // pinv of a complex matrix.
    let z = rnd(DType::C64, &[2, 4, 3], 36);
    let pz = z.pinv().unwrap();
    assert!(rel(&z.matmul(&pz).unwrap().matmul(&z).unwrap(), &z, &z) < 1e-13);
}

#[test]
fn empty_and_one_by_one() {
    for dt in FLOATS {
        let one = Tensor::full(dt, &[1, 1], 4.0).unwrap();
        assert_eq!(f64v(&one.cholesky().unwrap()), vec![2.0]);
        assert_eq!(f64v(&one.inv().unwrap()), vec![0.25]);
        assert_eq!(f64v(&one.det().unwrap()), vec![4.0]);
        assert_eq!(f64v(&one.svdvals().unwrap()), vec![4.0]);
        assert_eq!(f64v(&one.eigvalsh().unwrap()), vec![4.0]);
        let (q, r) = one.qr().unwrap();
        assert_eq!(f64v(&q.mul(&r).unwrap()), vec![4.0]);
        assert_eq!(
            f64v(&one.solve(&Tensor::full(dt, &[1], 2.0).unwrap()).unwrap()),
            vec![0.5]
        );
        // 0x0 matrices and empty batches.
        let e = Tensor::zeros(dt, &[2, 0, 0]).unwrap();
        assert_eq!(f64v(&e.det().unwrap()), vec![1.0, 1.0]);
        let (s, l) = e.slogdet().unwrap();
        assert_eq!((f64v(&s), f64v(&l)), (vec![1.0, 1.0], vec![0.0, 0.0]));
        assert_eq!(e.inv().unwrap().shape(), &[2, 0, 0]);
        assert_eq!(e.cholesky().unwrap().shape(), &[2, 0, 0]);
        assert_eq!(e.eigh().unwrap().0.shape(), &[2, 0]);
        assert_eq!(
            e.solve(&Tensor::zeros(dt, &[0]).unwrap()).unwrap().shape(),
            &[2, 0]
        );
        let tall = Tensor::zeros(dt, &[3, 0]).unwrap();
        let (q, r) = tall
            .qr_with(QrOptions {
                mode: QrMode::Complete,
            })
            .unwrap();
        assert_eq!(
            f64v(&q.unwrap()),
            f64v(&Tensor::eye(dt, 3, None, 0).unwrap())
        );
        assert_eq!(r.shape(), &[3, 0]);
        let wide = Tensor::zeros(dt, &[0, 3]).unwrap();
        let (u, s, vh) = wide.svd().unwrap();
        assert_eq!((u.shape(), s.shape()), (&[0, 0][..], &[0][..]));
        assert_eq!(f64v(&vh), f64v(&Tensor::eye(dt, 3, None, 0).unwrap()));
        assert_eq!(wide.pinv().unwrap().shape(), &[3, 0]);
        assert_eq!(wide.matrix_rank(None).unwrap().item_i64().unwrap(), 0);
        let nob = Tensor::zeros(dt, &[0, 2, 2]).unwrap();
        assert_eq!(nob.det().unwrap().shape(), &[0]);
        assert_eq!(nob.svd().unwrap().1.shape(), &[0, 2]);
    }
}

#[test]
fn errors() {
    let ints = Tensor::from_vec(vec![1i32, 2, 3, 4], &[2, 2]).unwrap();
    for (name, r) in [
        ("inv", ints.inv().err()),
        ("cholesky", ints.cholesky().err()),
        ("svd", ints.svd().err()),
        ("det", ints.det().err()),
        ("norm", ints.norm().err()),
    ] {
        let msg = r.expect("integer input is an error").to_string();
        assert!(msg.starts_with(name) && msg.contains("cast"), "{msg}");
    }
    let rect = Tensor::zeros(DType::F64, &[2, 3]).unwrap();
    let msg = rect.inv().unwrap_err().to_string();
    assert!(msg.starts_with("inv") && msg.contains("[2, 3]"), "{msg}");
    assert!(rect.det().is_err() && rect.eigh().is_err() && rect.cholesky().is_err());
    assert!(Tensor::zeros(DType::F64, &[3]).unwrap().qr().is_err());
    // Not positive definite: the first failing batch index.
    let good = spd(DType::F64, &[], 3, 1);
    let bad = good.neg().unwrap();
    let batch = Tensor::stack(&[&good, &bad, &bad], 0).unwrap();
    match batch.cholesky() {
        Err(Error::LinAlg { op, batch, .. }) => assert_eq!((op.as_str(), batch), ("cholesky", 1)),
        r => panic!("{r:?}"),
    }
    // Singular in a batch: solve and inv name it.
    let sing = Tensor::zeros(DType::F64, &[3, 3]).unwrap();
    let batch = Tensor::stack(&[&good, &good, &sing], 0).unwrap();
    let e = batch.inv().unwrap_err();
    assert!(
        matches!(&e, Error::LinAlg { op, batch: 2, .. } if op == "inv"),
        "{e}"
    );
    assert!(e.to_string().contains("singular"));
    let b = Tensor::ones(DType::F64, &[3]).unwrap();
    assert!(matches!(
        batch.solve(&b),
        Err(Error::LinAlg { batch: 2, .. })
    ));
    assert!(matches!(sing.matrix_power(-1), Err(Error::LinAlg { .. })));
    let tri = sing
        .triangular_solve(&b, TriangularSolveOptions::default())
        .unwrap_err();
    assert!(
        matches!(&tri, Error::LinAlg { op, .. } if op == "triangular_solve"),
        "{tri}"
    );
    // Unit diagonal does not read the zero diagonal.
    assert_eq!(
        f64v(
            &sing
                .triangular_solve(
                    &b,
                    TriangularSolveOptions {
                        unit_diagonal: true,
                        ..Default::default()
                    }
                )
                .unwrap()
        ),
        vec![1.0; 3]
    );
    // Shape and dtype mismatches.
    let msg = good
        .solve(&Tensor::ones(DType::F64, &[4]).unwrap())
        .unwrap_err()
        .to_string();
    assert!(msg.starts_with("solve"), "{msg}");
    assert!(good
        .solve(&Tensor::ones(DType::F32, &[3]).unwrap())
        .is_err());
    assert!(Tensor::zeros(DType::F64, &[2, 3, 4])
        .unwrap()
        .tensorinv(1)
        .is_err());
    // Norm orders that do not apply.
    let v = Tensor::ones(DType::F64, &[3]).unwrap();
    assert!(v
        .norm_with(&NormOptions {
            ord: Some(NormOrd::Fro),
            ..Default::default()
        })
        .is_err());
    assert!(good
        .norm_with(&NormOptions {
            ord: Some(NormOrd::P(3.0)),
            ..Default::default()
        })
        .is_err());
    let t3 = Tensor::ones(DType::F64, &[2, 2, 2]).unwrap();
    assert!(t3
        .norm_with(&NormOptions {
            ord: Some(NormOrd::P(1.0)),
            ..Default::default()
        })
        .is_err());
}

/// The GPU's documented CPU round trip: results are exactly the CPU's and
/// stay on the GPU (the spectral decompositions and QR; solve, inv and det
/// of complex matrices: real ones take the GPU's own kernels, checked in
/// `gpu_decomp_small.rs`, as does cholesky).
#[cfg(feature = "gpu")]
#[test]
fn gpu_round_trip() {
    let Some(dev) = super::gpu::gpu() else {
        return;
    };
    let a = spd(DType::F32, &[2], 17, 41);
    let ga = a.to_device(dev).unwrap();
    let z = spd(DType::C32, &[2], 5, 43);
    let zb = rnd(DType::C32, &[5], 44);
    let (gz, gzb) = (z.to_device(dev).unwrap(), zb.to_device(dev).unwrap());
    let complex = [
        (z.solve(&zb).unwrap(), gz.solve(&gzb).unwrap()),
        (z.det().unwrap(), gz.det().unwrap()),
        (z.inv().unwrap(), gz.inv().unwrap()),
    ];
    for (c, g) in complex {
        assert_eq!(g.device(), dev);
        assert_eq!(
            c.to_vec::<rnx::C32>().unwrap(),
            g.to_device(rnx::Device::Cpu)
                .unwrap()
                .to_vec::<rnx::C32>()
                .unwrap()
        );
    }
    let pairs = [
        (a.svdvals().unwrap(), ga.svdvals().unwrap()),
        (a.eigvalsh().unwrap(), ga.eigvalsh().unwrap()),
        (a.qr().unwrap().1, ga.qr().unwrap().1),
    ];
    for (c, g) in pairs {
        assert_eq!(g.device(), dev);
        assert_eq!(
            c.to_vec::<f32>().unwrap(),
            g.to_device(rnx::Device::Cpu)
                .unwrap()
                .to_vec::<f32>()
                .unwrap()
        );
    }
    let n = ga
        .norm_with(&NormOptions {
            ord: Some(NormOrd::Nuc),
            axes: [-2isize, -1].into(),
            ..Default::default()
        })
        .unwrap();
    let nc = a
        .norm_with(&NormOptions {
            ord: Some(NormOrd::Nuc),
            axes: [-2isize, -1].into(),
            ..Default::default()
        })
        .unwrap();
    close(
        &f64v(&n.to_device(rnx::Device::Cpu).unwrap()),
        &f64v(&nc),
        1e-6,
    );
}
