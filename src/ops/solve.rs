//! Solving and invariants (NumPy's `linalg`, Nx's `LinAlg`): `solve`,
//! `triangular_solve`, `inv`, `pinv`, `lstsq`, `det`, `slogdet`,
//! `matrix_rank`, `tensorinv`, `tensorsolve`. `solve`, `triangular_solve`,
//! `inv`, `det` and `slogdet` are the backend's [`DecompOp`] primitive (LU
//! with partial pivoting, triangular substitution); `pinv`, `lstsq` and
//! `matrix_rank` are composed from `svd`/`svdvals` and `matmul`; the tensor
//! forms reshape to one matrix. Rules as in [`crate::ops::decomp`] (dtypes
//! f32/f64/c32/c64, batches over leading axes, [`Error::LinAlg`] naming the
//! first failing batch index: a singular matrix for `solve`, `inv`,
//! `triangular_solve`, `tensorinv`, `tensorsolve`; `det` is 0 there, and
//! `pinv`, `lstsq`, `matrix_rank` are defined for every input).

use super::decomp::{check_float, check_matrix, launch, mn, with_tail};
use super::products::check;
use super::shape::broadcast_shapes;
use crate::backend::DecompOp;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

const SINGULAR: &str = "is singular";

/// Which form of the triangle [`Tensor::triangular_solve`] solves with.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Trans {
    /// `t x = b` (the default).
    #[default]
    None,
    /// `t^T x = b`.
    Transpose,
    /// `t^H x = b` (the conjugate transpose; `t^T` for real dtypes).
    Adjoint,
}

/// Options of [`Tensor::triangular_solve`] (Nx's `triangular_solve`,
/// SciPy's `solve_triangular`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TriangularSolveOptions {
    /// Use the lower triangle of `a` (default true); false: the upper. The
    /// other triangle is not read.
    pub lower: bool,
    /// Solve with `t`, `t^T` or `t^H` (default [`Trans::None`]).
    pub trans: Trans,
    /// Take the diagonal as ones, without reading it (default false).
    pub unit_diagonal: bool,
}

impl Default for TriangularSolveOptions {
    fn default() -> Self {
        TriangularSolveOptions {
            lower: true,
            trans: Trans::None,
            unit_diagonal: false,
        }
    }
}

/// Options of [`Tensor::pinv_with`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PinvOptions {
    /// Singular values at most `rcond * max(s)` count as zero (default
    /// 1e-15, NumPy's).
    pub rcond: f64,
}

impl Default for PinvOptions {
    fn default() -> Self {
        PinvOptions { rcond: 1e-15 }
    }
}

/// What [`Tensor::lstsq`] returns (NumPy's 4-tuple).
#[derive(Clone, Debug)]
pub struct Lstsq {
    /// The minimum-norm least-squares solution, `[.., n]` or `[.., n, k]`
    /// like `b`.
    pub solution: Tensor,
    /// Squared 2-norms of the residual columns `b - a x`, real, `[.., k]`
    /// (`[.., 1]` for a vector `b`), when every matrix has `rank == n < m`;
    /// else empty (`[0]`).
    pub residuals: Tensor,
    /// The effective rank of each matrix of `a`, i64 `[..]` (0-d for one
    /// matrix), as [`Tensor::matrix_rank`].
    pub rank: Tensor,
    /// The singular values of `a`, descending, real.
    pub singular_values: Tensor,
}

/// Machine epsilon of the real dtype of `d`.
pub(crate) fn eps(d: DType) -> f64 {
    if d.real() == DType::F32 {
        f32::EPSILON as f64
    } else {
        f64::EPSILON
    }
}

/// `a` `[.., m, n]` (square when `square`) and `b` `[.., m, k]` or `[m]` (a
/// vector, against every matrix of the batch; NumPy 2's rule) broadcast to
/// one batch: `(a, b as matrices, batch shape, b is a vector)`.
fn matrix_operands(
    op: &str,
    a: &Tensor,
    b: &Tensor,
    square: bool,
) -> Result<(Tensor, Tensor, Vec<usize>, bool)> {
    check_matrix(op, a, square)?;
    check(op, &[a, b])?;
    let (m, n) = mn(a);
    let abatch = &a.shape()[..a.ndim() - 2];
    let vector = b.ndim() == 1;
    let bm = if vector {
        b.reshape([b.shape()[0] as isize, 1])?
    } else {
        b.clone()
    };
    if b.ndim() == 0 || bm.shape()[bm.ndim() - 2] != m {
        let want = if square {
            "do not match: b needs n rows (shape [n] or [.., n, k]) for a of [.., n, n]"
        } else {
            "do not match: b needs m rows (shape [m] or [.., m, k]) for a of [.., m, n]"
        };
        return Err(Error::shapes(op, a.shape(), b.shape(), want));
    }
    let k = bm.shape()[bm.ndim() - 1];
    let batch = broadcast_shapes(op, &[abatch, &bm.shape()[..bm.ndim() - 2]])?;
    let ae = a.broadcast_to(&with_tail(&batch, 0, &[m, n]))?;
    let be = bm.broadcast_to(&with_tail(&batch, 0, &[m, k]))?;
    Ok((ae, be, batch, vector))
}

/// `a` square `[.., n, n]` and `b` `[.., n, k]` or `[n]` broadcast to one
/// batch: `(a, b as matrices, result shape)`.
fn solve_operands(op: &str, a: &Tensor, b: &Tensor) -> Result<(Tensor, Tensor, Vec<usize>)> {
    let (ae, be, batch, vector) = matrix_operands(op, a, b, true)?;
    let (n, k) = mn(&be);
    let shape = if vector {
        with_tail(&batch, 0, &[n])
    } else {
        with_tail(&batch, 0, &[n, k])
    };
    Ok((ae, be, shape))
}

/// `s` with entries at most `rcond * max(s)` (over the last axis) replaced
/// by 0 and the others inverted; also the mask of the kept ones.
fn inv_singular(s: &Tensor, rcond: f64) -> Result<(Tensor, Tensor)> {
    let cutoff = s.max(-1, true)?.mul(rcond)?;
    let keep = s.cmpgt(&cutoff)?;
    let inv = Tensor::where_cond(&keep, &s.recip()?, 0)?;
    Ok((inv, keep))
}

/// The conjugate transpose of the last two axes.
fn adjoint(t: &Tensor) -> Result<Tensor> {
    if t.dtype().is_complex() {
        t.conjugate()?.matrix_transpose()
    } else {
        t.matrix_transpose()
    }
}

impl Tensor {
    /// Solve `a x = b` for `x` (NumPy's `solve`): `a` `[.., n, n]`, `b` `[..,
    /// n, k]` or `[n]` (a vector, solved against every matrix of the batch);
    /// batch axes broadcast. LU with partial pivoting. Errors: a singular
    /// matrix ([`Error::LinAlg`] with the batch index), shapes that do not
    /// match, different dtypes, integers (cast first).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// // NumPy's example: 3 x0 + x1 = 9, x0 + 2 x1 = 8.
    /// let a = Tensor::from_vec(vec![3.0f64, 1.0, 1.0, 2.0], &[2, 2])?;
    /// let b = Tensor::from_vec(vec![9.0f64, 8.0], &[2])?;
    /// let x = a.solve(&b)?.to_vec::<f64>()?;
    /// assert!((x[0] - 2.0).abs() < 1e-12 && (x[1] - 3.0).abs() < 1e-12);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn solve(&self, b: &Tensor) -> Result<Tensor> {
        let op = "solve";
        let (a, bm, shape) = solve_operands(op, self, b)?;
        let outs = [(a.dtype(), bm.shape().to_vec())];
        let x = launch(op, DecompOp::Solve, &[&a, &bm], &outs, SINGULAR)?.remove(0);
        x.reshape_exact(&shape)
    }

    /// Solve `op(t) x = b` with `t` a triangle of `a` (Nx's
    /// `triangular_solve`, SciPy's `solve_triangular`); shapes and batching
    /// as [`Tensor::solve`]. Errors: a zero on the diagonal (unless
    /// `unit_diagonal`) is [`Error::LinAlg`]; shapes, dtypes as `solve`.
    ///
    /// ```
    /// use rnx::{Tensor, DType, TriangularSolveOptions};
    /// let l = Tensor::from_vec(vec![2.0f64, 0.0, 1.0, 4.0], &[2, 2])?;
    /// let b = Tensor::from_vec(vec![2.0f64, 9.0], &[2])?;
    /// let x = l.triangular_solve(&b, TriangularSolveOptions::default())?;
    /// assert_eq!(x.to_vec::<f64>()?, vec![1.0, 2.0]);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn triangular_solve(&self, b: &Tensor, opts: TriangularSolveOptions) -> Result<Tensor> {
        let op = "triangular_solve";
        let (a, bm, shape) = solve_operands(op, self, b)?;
        let d = DecompOp::TriangularSolve {
            lower: opts.lower,
            transpose: opts.trans != Trans::None,
            conjugate: opts.trans == Trans::Adjoint && a.dtype().is_complex(),
            unit: opts.unit_diagonal,
        };
        let outs = [(a.dtype(), bm.shape().to_vec())];
        let x = launch(
            op,
            d,
            &[&a, &bm],
            &outs,
            "has a zero on the diagonal (singular)",
        )?
        .remove(0);
        x.reshape_exact(&shape)
    }

    /// The inverse of square matrices (NumPy's `inv`): LU with partial
    /// pivoting, then the inverse from the factors.
    /// Errors: singular ([`Error::LinAlg`] with the batch index),
    /// non-square, integers (cast first).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2])?;
    /// let inv = a.inv()?.to_vec::<f64>()?;   // NumPy: [[-2, 1], [1.5, -0.5]]
    /// for (x, y) in inv.iter().zip([-2.0, 1.0, 1.5, -0.5]) {
    ///     assert!((x - y).abs() < 1e-12);
    /// }
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn inv(&self) -> Result<Tensor> {
        let op = "inv";
        check_matrix(op, self, true)?;
        let outs = [(self.dtype(), self.shape().to_vec())];
        Ok(launch(op, DecompOp::Inv, &[self], &outs, SINGULAR)?.remove(0))
    }

    /// The Moore-Penrose pseudo-inverse (NumPy's `pinv`, default `rcond`
    /// 1e-15): `v diag(1/s) u^H` over the singular values above `rcond *
    /// max(s)`. `[.., m, n]` gives `[.., n, m]`; defined for every input.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::from_vec(vec![1.0f64, 2.0, 2.0, 4.0], &[2, 2])?;   // rank 1
    /// let p = a.pinv()?.to_vec::<f64>()?;   // a^T / 25
    /// for (x, y) in p.iter().zip([0.04, 0.08, 0.08, 0.16]) {
    ///     assert!((x - y).abs() < 1e-12);
    /// }
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn pinv(&self) -> Result<Tensor> {
        self.pinv_with(PinvOptions::default())
    }

    /// [`Tensor::pinv`] with a cutoff.
    pub fn pinv_with(&self, opts: PinvOptions) -> Result<Tensor> {
        let op = "pinv";
        check_matrix(op, self, false)?;
        let (m, n) = mn(self);
        if m == 0 || n == 0 {
            return Tensor::zeros_on(
                self.dtype(),
                &with_tail(self.shape(), 2, &[n, m]),
                self.device(),
            );
        }
        let (u, s, vh) = self.svd_with(super::decomp::SvdOptions {
            full_matrices: false,
        })?;
        let (sinv, _) = inv_singular(&s, opts.rcond)?;
        let x = adjoint(&u)?.mul(&sinv.cast(self.dtype())?.unsqueeze([-1])?)?;
        adjoint(&vh)?.matmul(&x)
    }

    /// The minimum-norm least-squares solution of `a x = b` (NumPy's
    /// `lstsq`, batched as PyTorch's `linalg.lstsq`), through the SVD: `a`
    /// is `[.., m, n]`, `b` is `[m]` (a vector, against every matrix) or
    /// `[.., m, k]`, batch axes broadcast. `rcond`: singular values at most
    /// `rcond * max(s)` count as zero; `None` takes `eps * max(m, n)`
    /// (NumPy's default). Defined for every input (rank-deficient too).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// // NumPy's example: fit y = m x + c through 4 points.
    /// let a = Tensor::from_vec(vec![0.0f64, 1., 1., 1., 2., 1., 3., 1.], &[4, 2])?;
    /// let y = Tensor::from_vec(vec![-1.0f64, 0.2, 0.9, 2.1], &[4])?;
    /// let r = a.lstsq(&y, None)?;
    /// let x = r.solution.to_vec::<f64>()?;
    /// assert!((x[0] - 1.0).abs() < 1e-12 && (x[1] + 0.95).abs() < 1e-12);
    /// assert_eq!((r.rank.item_i64()?, r.residuals.shape()), (2, &[1][..]));
    /// // A batch of two systems: [2, 4, 2] against [2, 4, 1].
    /// let a2 = Tensor::stack(&[a.clone(), a.mul(2.0)?], 0)?;
    /// let y2 = y.reshape([1, 4, 1])?.broadcast_to(&[2, 4, 1])?;
    /// let r2 = a2.lstsq(&y2, None)?;
    /// assert_eq!((r2.solution.shape(), r2.rank.shape()), (&[2, 2, 1][..], &[2][..]));
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn lstsq(&self, b: &Tensor, rcond: Option<f64>) -> Result<Lstsq> {
        let op = "lstsq";
        let (a, bm, batch, vector) = matrix_operands(op, self, b, false)?;
        let (m, n) = mn(&a);
        let k = bm.shape()[bm.ndim() - 1];
        let dt = self.dtype();
        let dev = self.device();
        let (u, s, vh) = a.svd_with(super::decomp::SvdOptions {
            full_matrices: false,
        })?;
        let (x, rank) = if m.min(n) == 0 {
            (
                Tensor::zeros_on(dt, &with_tail(&batch, 0, &[n, k]), dev)?,
                Tensor::zeros_on(DType::I64, &batch, dev)?,
            )
        } else {
            let rc = rcond.unwrap_or(eps(dt) * m.max(n) as f64);
            let (sinv, keep) = inv_singular(&s, rc)?;
            let rank = keep.cast(DType::I64)?.sum(-1, false)?;
            let uhb = adjoint(&u)?.matmul(&bm)?;
            let y = uhb.mul(&sinv.cast(dt)?.unsqueeze([-1])?)?;
            (adjoint(&vh)?.matmul(&y)?, rank)
        };
        // Residuals when every matrix has full column rank and is tall (as
        // NumPy for one matrix, PyTorch for a batch); else empty.
        let full = rank.numel() == 0 || rank.min(None, false)?.item_i64()? == n as i64;
        let residuals = if m > n && full {
            let r = a.matmul(&x)?.sub(&bm)?.abs()?;
            r.square()?.sum(-2, false)?
        } else {
            Tensor::zeros_on(dt.real(), &[0], dev)?
        };
        let solution = if vector {
            x.reshape_exact(&with_tail(&batch, 0, &[n]))?
        } else {
            x
        };
        Ok(Lstsq {
            solution,
            residuals,
            rank,
            singular_values: s,
        })
    }

    /// The determinant of square matrices (NumPy's `det`), `[..]`: the
    /// product of the LU pivots with the permutation's sign; exactly 0 for a
    /// matrix with a zero pivot; 1 for the empty matrix. Never a
    /// singular-matrix error.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2])?;
    /// assert!((a.det()?.item::<f64>()? + 2.0).abs() < 1e-12);   // NumPy: -2.0
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn det(&self) -> Result<Tensor> {
        let op = "det";
        check_matrix(op, self, true)?;
        let outs = [(self.dtype(), with_tail(self.shape(), 2, &[]))];
        Ok(launch(op, DecompOp::Det, &[self], &outs, SINGULAR)?.remove(0))
    }

    /// Sign and natural log of the absolute determinant (NumPy's `slogdet`):
    /// `det = sign * exp(logabsdet)`; `sign` has the input's dtype (±1, or a
    /// unit complex number), `logabsdet` is real; a singular matrix gives
    /// `(0, -inf)`. Free of the overflow of [`Tensor::det`].
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::from_vec(vec![1.0f64, 2.0, 3.0, 4.0], &[2, 2])?;
    /// let (sign, logdet) = a.slogdet()?;   // NumPy: (-1.0, 0.6931...)
    /// assert_eq!(sign.item::<f64>()?, -1.0);
    /// assert!((logdet.item::<f64>()? - 2f64.ln()).abs() < 1e-12);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn slogdet(&self) -> Result<(Tensor, Tensor)> {
        let op = "slogdet";
        check_matrix(op, self, true)?;
        let b = with_tail(self.shape(), 2, &[]);
        let outs = [(self.dtype(), b.clone()), (self.dtype().real(), b)];
        let mut r = launch(op, DecompOp::Slogdet, &[self], &outs, SINGULAR)?;
        let l = r.pop().expect("logabsdet");
        Ok((r.pop().expect("sign"), l))
    }

    /// The rank of matrices by SVD (NumPy's `matrix_rank`), i64 `[..]`:
    /// the number of singular values above `tol`; `None` takes `max(s) *
    /// max(m, n) * eps` (NumPy's default). A 1-D input has rank 1 unless
    /// every element is 0 (NumPy's rule; `tol` is not used there).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let i = Tensor::eye(DType::F64, 4, None, 0)?;
    /// assert_eq!(i.matrix_rank(None)?.item_i64()?, 4);
    /// i.set_item(&[3, 3], 0.0)?;   // NumPy's example: rank deficient
    /// assert_eq!(i.matrix_rank(None)?.item_i64()?, 3);
    /// let v = Tensor::from_vec(vec![0.0f64, 0.0, 1e-300], &[3])?;
    /// assert_eq!(v.matrix_rank(None)?.item_i64()?, 1);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn matrix_rank(&self, tol: Option<f64>) -> Result<Tensor> {
        let op = "matrix_rank";
        if self.ndim() == 1 {
            check_float(op, self)?;
            // NaN counts as non-zero, as NumPy's `not all(A == 0)`.
            return self.any(None, false)?.cast(DType::I64);
        }
        check_matrix(op, self, false)?;
        let (m, n) = mn(self);
        if m.min(n) == 0 {
            return Tensor::zeros_on(DType::I64, &with_tail(self.shape(), 2, &[]), self.device());
        }
        let s = self.svdvals()?;
        let keep = match tol {
            Some(t) => s.cmpgt(t)?,
            None => {
                let cutoff = s.max(-1, true)?.mul(eps(self.dtype()) * m.max(n) as f64)?;
                s.cmpgt(&cutoff)?
            }
        };
        keep.cast(DType::I64)?.sum(-1, false)
    }

    /// The inverse of a tensor under [`Tensor::tensordot`] with `ind`
    /// contracted axes (NumPy's `tensorinv`): the shape splits at `ind` into
    /// two parts of equal size; the result has shape `shape[ind..] ++
    /// shape[..ind]`. Errors as [`Tensor::inv`], and for sizes that do not
    /// split.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::eye(DType::F64, 24, None, 0)?.mul(2.0)?.reshape([4, 6, 8, 3])?;
    /// let ainv = a.tensorinv(2)?;
    /// assert_eq!(ainv.shape(), &[8, 3, 4, 6]);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn tensorinv(&self, ind: usize) -> Result<Tensor> {
        let op = "tensorinv";
        check_float(op, self)?;
        if ind == 0 || ind > self.ndim() {
            return Err(Error::invalid(
                op,
                format!(
                    "ind {ind} must be in 1..={} for shape {:?}",
                    self.ndim(),
                    self.shape()
                ),
            ));
        }
        let (head, tail) = self.shape().split_at(ind);
        let (p, q) = (
            head.iter().product::<usize>(),
            tail.iter().product::<usize>(),
        );
        if p != q {
            return Err(Error::invalid(
                op,
                format!(
                    "shape {:?} splits at {ind} into sizes {p} and {q}, which differ",
                    self.shape()
                ),
            ));
        }
        let inv = self.reshape_exact(&[p, q])?.inv()?;
        let shape: Vec<usize> = tail.iter().chain(head).copied().collect();
        inv.reshape_exact(&shape)
    }

    /// Solve `tensordot(a, x, x.ndim()) = b` for `x` (NumPy's
    /// `tensorsolve`): `axes` (if any) of `a` move to the end first; then
    /// `a.shape = b.shape ++ x.shape` with both parts of equal size. Errors
    /// as [`Tensor::solve`].
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::eye(DType::F64, 6, None, 0)?.mul(3.0)?.reshape([2, 3, 6])?;
    /// let b = Tensor::ones(DType::F64, &[2, 3])?;
    /// let x = a.tensorsolve(&b, None)?;
    /// assert_eq!(x.shape(), &[6]);
    /// assert!(x.to_vec::<f64>()?.iter().all(|v| (v - 1.0 / 3.0).abs() < 1e-12));
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn tensorsolve(&self, b: &Tensor, axes: Option<&[isize]>) -> Result<Tensor> {
        let op = "tensorsolve";
        check_float(op, self)?;
        check(op, &[self, b])?;
        let a = match axes {
            None => self.clone(),
            Some(ax) => {
                let nd = self.ndim();
                let moved: Vec<usize> = ax
                    .iter()
                    .map(|&x| crate::layout::normalize_axis(op, x, nd))
                    .collect::<Result<_>>()?;
                let mut perm: Vec<isize> = (0..nd)
                    .filter(|d| !moved.contains(d))
                    .map(|d| d as isize)
                    .collect();
                perm.extend(moved.iter().map(|&d| d as isize));
                self.transpose(perm)?
            }
        };
        let bn = b.ndim();
        if a.ndim() < bn || a.shape()[..bn] != *b.shape() {
            return Err(Error::shapes(
                op,
                a.shape(),
                b.shape(),
                "do not match: a's leading axes must be b's shape",
            ));
        }
        let q = &a.shape()[bn..];
        let (pn, qn) = (b.size(), q.iter().product::<usize>());
        if pn != qn {
            return Err(Error::shapes(
                op,
                a.shape(),
                b.shape(),
                format!("do not match: b has {pn} elements but x's shape {q:?} has {qn}"),
            ));
        }
        let x = a
            .reshape_exact(&[pn, qn])?
            .solve(&b.reshape_exact(&[pn])?)?;
        x.reshape_exact(q)
    }
}
