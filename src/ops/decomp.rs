//! Matrix decompositions (NumPy's `linalg`, Nx's `LinAlg`): `cholesky`, `qr`,
//! `svd`, `svdvals`, `eigh`, `eigvalsh`, `eig`, `eigvals`, and the shared
//! validation and launch helpers of `solve.rs` and `norm.rs`. Shape rules and
//! validation only: every factorization is the backend's [`DecompOp`]
//! primitive (faer on the CPU; a CPU round trip on the GPU).
//!
//! Rules (NumPy's, with rnx's strict dtypes):
//! - dtypes f32, f64, c32, c64; integers and halves are an error that says to
//!   cast. Results keep the input's dtype; singular values and Hermitian
//!   eigenvalues are real (f32 for c32); `eig`/`eigvals` are complex (c32 for
//!   f32), also for real input.
//! - Precision: `svd`, `svdvals`, `eigh`, `eigvalsh`, `eig` and `eigvals`
//!   compute f32 and c32 input in double precision and round each result
//!   once to the input's precision (so do the SVD steps inside `pinv`,
//!   `lstsq`, `matrix_rank`, `cond` and the 2- and nuclear norms): as
//!   accurate as the double computation, at its speed (faer's eigen and SVD
//!   algorithms are compiled for f64 and c64 only, which halves their share
//!   of rnx's compile time). `cholesky`, `qr`, `solve`, `inv`, `det` and
//!   `triangular_solve` run in the input's precision.
//! - Batched over every axis but the last two (`[.., m, n]`); a matrix a
//!   function cannot handle (not positive definite, no convergence) is an
//!   [`Error::LinAlg`] naming the function and the first failing batch index.
//! - Empty matrices (`m` or `n` zero) give empty factors; square factors of
//!   an empty matrix with rows (a complete `q`, full `u`, `vh`) are identities.
//! - Conventions: factors are not unique. `qr`: Householder QR; the diagonal
//!   of `r` may have any sign (faer's choice, like LAPACK's). `svd`: singular
//!   values descending; a pair (`u` column, `vh` row) may be multiplied by any
//!   unit scalar. `eigh`/`eigvalsh`: eigenvalues ascending (as NumPy),
//!   orthonormal eigenvectors of arbitrary sign. `eig`: eigenvalues in faer's
//!   order (not sorted), eigenvectors of unit 2-norm. `cholesky`: reads the
//!   lower triangle only; positive real diagonal.
//! - Devices: every function works on the GPU through the documented CPU
//!   round trip (f32, and f64 where the adapter has it); `eig`/`eigvals`
//!   return their complex results on the GPU (c32, and c64 with f64).

use crate::backend::DecompOp;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// Refuse a dtype outside f32/f64/c32/c64 (telling to cast) and a rank
/// below 2; with `square`, refuse non-square matrices (naming the shape).
pub(crate) fn check_matrix(op: &str, a: &Tensor, square: bool) -> Result<()> {
    check_float(op, a)?;
    let nd = a.ndim();
    if nd < 2 {
        return Err(Error::invalid(
            op,
            format!(
                "needs a matrix or a batch of matrices (at least 2 axes), got shape {:?}",
                a.shape()
            ),
        ));
    }
    if square && a.shape()[nd - 1] != a.shape()[nd - 2] {
        return Err(Error::invalid(
            op,
            format!(
                "needs square matrices in the last two axes, got shape {:?}",
                a.shape()
            ),
        ));
    }
    Ok(())
}

/// Refuse a dtype outside f32/f64/c32/c64, telling to cast.
pub(crate) fn check_float(op: &str, a: &Tensor) -> Result<()> {
    match a.dtype() {
        DType::F32 | DType::F64 | DType::C32 | DType::C64 => Ok(()),
        d => Err(Error::invalid(
            op,
            format!(
                "needs f32, f64, c32 or c64 input, got {d}: cast it first (`.cast(DType::F64)`)"
            ),
        )),
    }
}

/// The complex dtype of the same precision.
pub(crate) fn complex_of(d: DType) -> DType {
    if d.real() == DType::F32 {
        DType::C32
    } else {
        DType::C64
    }
}

/// Allocate zero-filled outputs (dtype, shape) on `inputs[0]`'s device, run
/// `op` under the storage locks, and turn a failing batch index into an
/// [`Error::LinAlg`] of function `name` saying `why`.
pub(crate) fn launch(
    name: &str,
    op: DecompOp,
    inputs: &[&Tensor],
    outs: &[(DType, Vec<usize>)],
    why: &str,
) -> Result<Vec<Tensor>> {
    let dev = inputs[0].device();
    let outs = outs
        .iter()
        .map(|(d, s)| Tensor::zeros_on(*d, s, dev))
        .collect::<Result<Vec<_>>>()?;
    let refs: Vec<&Tensor> = outs.iter().collect();
    let failed = super::locked(name, inputs, &refs, || {
        inputs[0].backend().decomp(op, inputs, &refs)
    })?;
    match failed {
        None => Ok(outs),
        Some(batch) => Err(Error::LinAlg {
            op: name.to_string(),
            batch,
            msg: why.to_string(),
        }),
    }
}

/// `shape` with its last two entries replaced by `tail`.
pub(crate) fn with_tail(shape: &[usize], drop: usize, tail: &[usize]) -> Vec<usize> {
    let mut s = shape[..shape.len() - drop].to_vec();
    s.extend_from_slice(tail);
    s
}

/// The last two dimensions.
pub(crate) fn mn(a: &Tensor) -> (usize, usize) {
    let nd = a.ndim();
    (a.shape()[nd - 2], a.shape()[nd - 1])
}

/// Options of [`Tensor::cholesky_with`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CholeskyOptions {
    /// Return the upper factor `u = l^H` (`a = u^H u`) instead of the lower
    /// `l` (`a = l l^H`). Default false (NumPy's `upper=False`).
    pub upper: bool,
}

/// What [`Tensor::qr_with`] returns (NumPy's `mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum QrMode {
    /// `q` `[.., m, k]`, `r` `[.., k, n]`, `k = min(m, n)` (the default).
    #[default]
    Reduced,
    /// `q` `[.., m, m]`, `r` `[.., m, n]`.
    Complete,
    /// `r` `[.., k, n]` only (no `q` is formed).
    R,
}

/// Options of [`Tensor::qr_with`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QrOptions {
    /// Which factors and sizes (default [`QrMode::Reduced`]).
    pub mode: QrMode,
}

/// Options of [`Tensor::svd_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SvdOptions {
    /// Square `u` `[.., m, m]` and `vh` `[.., n, n]` (default true, NumPy's
    /// `full_matrices=True`); false gives the thin `[.., m, k]` / `[.., k, n]`.
    pub full_matrices: bool,
}

impl Default for SvdOptions {
    fn default() -> Self {
        SvdOptions {
            full_matrices: true,
        }
    }
}

/// Options of [`Tensor::eigh_with`] and [`Tensor::eigvalsh_with`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct EighOptions {
    /// Read the upper triangle (NumPy's `UPLO='U'`); default false: the lower.
    pub upper: bool,
}

const NOT_PD: &str = "is not positive definite";
const NO_CONV: &str = "did not converge";

impl Tensor {
    /// The Cholesky factor of Hermitian positive-definite matrices: `l` lower
    /// triangular with a positive real diagonal and `a = l l^H` (NumPy's
    /// `cholesky`). Reads the lower triangle only. Errors: not positive
    /// definite ([`Error::LinAlg`] with the batch index), non-square,
    /// integer dtype (cast first).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::from_vec(vec![4.0f64, 2.0, 2.0, 5.0], &[2, 2])?;
    /// assert_eq!(a.cholesky()?.to_vec::<f64>()?, vec![2.0, 0.0, 1.0, 2.0]);
    /// assert!(a.neg()?.cholesky().is_err());
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn cholesky(&self) -> Result<Tensor> {
        self.cholesky_with(CholeskyOptions::default())
    }

    /// [`Tensor::cholesky`] with options (the upper factor).
    pub fn cholesky_with(&self, opts: CholeskyOptions) -> Result<Tensor> {
        let op = "cholesky";
        check_matrix(op, self, true)?;
        let d = DecompOp::Cholesky { upper: opts.upper };
        let out = [(self.dtype(), self.shape().to_vec())];
        Ok(launch(op, d, &[self], &out, NOT_PD)?.remove(0))
    }

    /// The reduced QR decomposition `a = q r` (NumPy's `qr`, mode
    /// `'reduced'`): `q` `[.., m, k]` with orthonormal columns, `r` `[.., k,
    /// n]` upper triangular, `k = min(m, n)`. Signs: see the module rules.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::from_vec(vec![3.0f64, 1.0, 4.0, 2.0], &[2, 2])?;
    /// let (q, r) = a.qr()?;
    /// let back = q.matmul(&r)?.to_vec::<f64>()?;
    /// for (x, y) in back.iter().zip([3.0, 1.0, 4.0, 2.0]) {
    ///     assert!((x - y).abs() < 1e-12);
    /// }
    /// assert!((r.to_vec::<f64>()?[0].abs() - 5.0).abs() < 1e-12);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn qr(&self) -> Result<(Tensor, Tensor)> {
        let (q, r) = self.qr_with(QrOptions::default())?;
        Ok((q.expect("reduced mode returns q"), r))
    }

    /// [`Tensor::qr`] with a mode: `(Some(q), r)`, or `(None, r)` for
    /// [`QrMode::R`].
    pub fn qr_with(&self, opts: QrOptions) -> Result<(Option<Tensor>, Tensor)> {
        let op = "qr";
        check_matrix(op, self, false)?;
        let (m, n) = mn(self);
        let k = m.min(n);
        let dt = self.dtype();
        let sh = self.shape();
        let (complete, r_only) = match opts.mode {
            QrMode::Reduced => (false, false),
            QrMode::Complete => (true, false),
            QrMode::R => (false, true),
        };
        let kq = if complete { m } else { k };
        let mut outs = Vec::new();
        if !r_only {
            outs.push((dt, with_tail(sh, 2, &[m, kq])));
        }
        outs.push((dt, with_tail(sh, 2, &[kq, n])));
        let d = DecompOp::Qr { complete, r_only };
        let mut res = launch(op, d, &[self], &outs, NO_CONV)?;
        let r = res.pop().expect("r");
        Ok((res.pop(), r))
    }

    /// The singular value decomposition `a = u diag(s) vh` (NumPy's `svd`
    /// with `full_matrices=True`): `u` `[.., m, m]`, `s` `[.., k]` real,
    /// descending, `vh` `[.., n, n]`. Signs: see the module rules.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::from_vec(vec![3.0f64, 0.0, 0.0, -4.0], &[2, 2])?;
    /// let (_u, s, _vh) = a.svd()?;
    /// assert_eq!(s.to_vec::<f64>()?, vec![4.0, 3.0]);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn svd(&self) -> Result<(Tensor, Tensor, Tensor)> {
        self.svd_with(SvdOptions::default())
    }

    /// [`Tensor::svd`] with options (thin factors).
    pub fn svd_with(&self, opts: SvdOptions) -> Result<(Tensor, Tensor, Tensor)> {
        let op = "svd";
        check_matrix(op, self, false)?;
        let (m, n) = mn(self);
        let k = m.min(n);
        let (dt, sh) = (self.dtype(), self.shape());
        let full = opts.full_matrices;
        let outs = [
            (dt, with_tail(sh, 2, &[m, if full { m } else { k }])),
            (dt.real(), with_tail(sh, 2, &[k])),
            (dt, with_tail(sh, 2, &[if full { n } else { k }, n])),
        ];
        let d = DecompOp::Svd {
            full,
            vectors: true,
        };
        let mut r = launch(op, d, &[self], &outs, NO_CONV)?;
        let vh = r.pop().expect("vh");
        let s = r.pop().expect("s");
        Ok((r.pop().expect("u"), s, vh))
    }

    /// The singular values alone, `[.., min(m, n)]`, real, descending
    /// (NumPy's `svdvals`).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::from_vec(vec![0.0f32, 2.0, 0.0, 0.0, 0.0, 1.0], &[2, 3])?;
    /// assert_eq!(a.svdvals()?.to_vec::<f32>()?, vec![2.0, 1.0]);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn svdvals(&self) -> Result<Tensor> {
        let op = "svdvals";
        check_matrix(op, self, false)?;
        let (m, n) = mn(self);
        let outs = [(self.dtype().real(), with_tail(self.shape(), 2, &[m.min(n)]))];
        let d = DecompOp::Svd {
            full: false,
            vectors: false,
        };
        Ok(launch(op, d, &[self], &outs, NO_CONV)?.remove(0))
    }

    /// Eigenvalues (real, ascending) and orthonormal eigenvectors (columns)
    /// of Hermitian matrices, reading the lower triangle (NumPy's `eigh`):
    /// `a v = v diag(w)`.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::from_vec(vec![2.0f64, 1.0, 1.0, 2.0], &[2, 2])?;
    /// let (w, v) = a.eigh()?;
    /// let w = w.to_vec::<f64>()?;
    /// assert!((w[0] - 1.0).abs() < 1e-12 && (w[1] - 3.0).abs() < 1e-12);
    /// assert_eq!(v.shape(), &[2, 2]);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn eigh(&self) -> Result<(Tensor, Tensor)> {
        self.eigh_with(EighOptions::default())
    }

    /// [`Tensor::eigh`] reading the chosen triangle.
    pub fn eigh_with(&self, opts: EighOptions) -> Result<(Tensor, Tensor)> {
        let op = "eigh";
        check_matrix(op, self, true)?;
        let (n, _) = mn(self);
        let outs = [
            (self.dtype().real(), with_tail(self.shape(), 2, &[n])),
            (self.dtype(), self.shape().to_vec()),
        ];
        let d = DecompOp::Eigh {
            lower: !opts.upper,
            vectors: true,
        };
        let mut r = launch(op, d, &[self], &outs, NO_CONV)?;
        let v = r.pop().expect("v");
        Ok((r.pop().expect("w"), v))
    }

    /// Eigenvalues of Hermitian matrices, real, ascending (NumPy's
    /// `eigvalsh`), reading the lower triangle.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::from_vec(vec![1.0f64, -2.0, 2.0, 5.0], &[2, 2])?;
    /// let w = a.eigvalsh()?.to_vec::<f64>()?;   // NumPy's example: [0.1715, 5.8284]
    /// assert!((w[0] - 0.17157287525381).abs() < 1e-12);
    /// assert!((w[1] - 5.82842712474619).abs() < 1e-12);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn eigvalsh(&self) -> Result<Tensor> {
        self.eigvalsh_with(EighOptions::default())
    }

    /// [`Tensor::eigvalsh`] reading the chosen triangle.
    pub fn eigvalsh_with(&self, opts: EighOptions) -> Result<Tensor> {
        let op = "eigvalsh";
        check_matrix(op, self, true)?;
        let (n, _) = mn(self);
        let outs = [(self.dtype().real(), with_tail(self.shape(), 2, &[n]))];
        let d = DecompOp::Eigh {
            lower: !opts.upper,
            vectors: false,
        };
        Ok(launch(op, d, &[self], &outs, NO_CONV)?.remove(0))
    }

    /// Eigenvalues and right eigenvectors (columns, unit 2-norm) of general
    /// square matrices (NumPy's `eig`): `a v = v diag(w)`. Both are complex
    /// (c32 for f32 and c32 input, c64 for f64 and c64), also for real input;
    /// eigenvalues are not sorted.
    ///
    /// ```
    /// use rnx::{Tensor, DType, C64};
    /// // A rotation by 90 degrees: eigenvalues ±i.
    /// let a = Tensor::from_vec(vec![0.0f64, -1.0, 1.0, 0.0], &[2, 2])?;
    /// let (w, _v) = a.eig()?;
    /// let mut im: Vec<f64> = w.to_vec::<C64>()?.iter().map(|z| z.im).collect();
    /// im.sort_by(f64::total_cmp);
    /// assert!((im[0] + 1.0).abs() < 1e-12 && (im[1] - 1.0).abs() < 1e-12);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn eig(&self) -> Result<(Tensor, Tensor)> {
        let op = "eig";
        check_matrix(op, self, true)?;
        let (n, _) = mn(self);
        let c = complex_of(self.dtype());
        let outs = [
            (c, with_tail(self.shape(), 2, &[n])),
            (c, self.shape().to_vec()),
        ];
        let d = DecompOp::Eig { vectors: true };
        let mut r = launch(op, d, &[self], &outs, NO_CONV)?;
        let v = r.pop().expect("v");
        Ok((r.pop().expect("w"), v))
    }

    /// Eigenvalues of general square matrices, complex (NumPy's `eigvals`).
    pub fn eigvals(&self) -> Result<Tensor> {
        let op = "eigvals";
        check_matrix(op, self, true)?;
        let (n, _) = mn(self);
        let outs = [(complex_of(self.dtype()), with_tail(self.shape(), 2, &[n]))];
        let d = DecompOp::Eig { vectors: false };
        Ok(launch(op, d, &[self], &outs, NO_CONV)?.remove(0))
    }
}
