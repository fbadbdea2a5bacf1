//! The decomposition family of backend primitives: batched matrix
//! factorizations and the solvers built on them (Cholesky, QR, SVD, the
//! Hermitian and the general eigenproblem, LU solve, triangular solve,
//! determinants). Only the trait and its contract live here; validation,
//! shape rules and everything composed from these (inv, pinv, lstsq, norm,
//! ...) are in `src/ops/decomp.rs`, `src/ops/solve.rs` and `src/ops/norm.rs`.
//!
//! What the frontend guarantees to [`DecompBackend::decomp`]: storages are
//! locked; every tensor is on this device; the inputs have one dtype `T`
//! (f32, f64, c32, c64) and any strides (stride-0 batch axes included); every
//! tensor is `[batch.., core..]` with the same batch shape, where the core is
//! the matrix (2 axes), the vector (1) or the scalar (0) listed per
//! [`DecompOp`]; outputs are fresh, zero-filled, with unique layouts that do
//! not overlap the inputs; core shapes agree as listed.
//!
//! Conventions of the results (the CPU's, through faer): singular values and
//! `eig` eigenvalues come as faer returns them (singular values descending,
//! Hermitian eigenvalues ascending); the frontend documents the signs.

use crate::error::Result;
use crate::tensor::Tensor;

/// One batched factorization. `a` is the first input, `[.., m, n]`
/// (`n == m` where a square matrix is named); `k = min(m, n)`. "Real" outputs
/// have the real dtype of `T` (f32 for c32), "complex" ones the complex dtype
/// (c32 for f32).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum DecompOp {
    /// Inputs `[a]` (square; only its lower triangle is read); outputs `[l]`
    /// (`[.., n, n]`): `a = l l^H` with `l` lower triangular and a positive
    /// real diagonal, or `l^H` (upper) when `upper`. Fails where `a` is not
    /// positive definite.
    Cholesky {
        /// Write the upper factor `l^H` instead of `l`.
        upper: bool,
    },
    /// Inputs `[a]`; outputs `[q, r]`, or `[r]` when `r_only`: reduced `q`
    /// `[.., m, k]`, `r` `[.., k, n]`; complete `q` `[.., m, m]`, `r`
    /// `[.., m, n]`. Householder QR without pivoting; never fails.
    Qr {
        /// Complete (square) `q` and `r` with `m` rows.
        complete: bool,
        /// Only `r` is written (outputs `[r]`).
        r_only: bool,
    },
    /// Inputs `[a]`; outputs `[s]` (real, `[.., k]`, descending, >= 0) or
    /// `[u, s, vh]`: thin `u` `[.., m, k]`, `vh` `[.., k, n]`; full `u`
    /// `[.., m, m]`, `vh` `[.., n, n]`; `a = u diag(s) vh`. Fails where the
    /// iteration does not converge.
    Svd {
        /// Square `u` and `vh`.
        full: bool,
        /// Write `u` and `vh` (outputs `[u, s, vh]`).
        vectors: bool,
    },
    /// Inputs `[a]` (square, Hermitian: only the named triangle is read);
    /// outputs `[w]` (real, `[.., n]`, ascending) or `[w, v]` (`v` `[.., n,
    /// n]`, orthonormal columns, `a v = v diag(w)`). Fails where the iteration
    /// does not converge.
    Eigh {
        /// Read the lower triangle (else the upper).
        lower: bool,
        /// Write `v` too.
        vectors: bool,
    },
    /// Inputs `[a]` (square, any); outputs `[w]` (complex, `[.., n]`) or
    /// `[w, v]` (complex `[.., n, n]`, columns of unit 2-norm, `a v = v
    /// diag(w)`). Fails where the iteration does not converge.
    Eig {
        /// Write `v` too.
        vectors: bool,
    },
    /// Inputs `[a, b]`: square `a`, `b` `[.., n, r]`; outputs `[x]` `[.., n,
    /// r]` with `a x = b` (LU with partial pivoting). Fails where a pivot is
    /// exactly zero (LAPACK's `getrf` rule).
    Solve,
    /// Inputs `[a]` (square); outputs `[x]` (`[.., n, n]`) with `a x = I`
    /// (LU with partial pivoting, then the inverse from the factors). Fails
    /// where a pivot is exactly zero, as [`DecompOp::Solve`].
    Inv,
    /// Inputs `[a, b]`: square `a`, `b` `[.., n, r]`; outputs `[x]` with
    /// `op(t) x = b`, `t` the named triangle of `a` (the other one is not
    /// read), `op` the identity, the transpose or the conjugate transpose.
    /// Fails where a diagonal element is exactly zero (not with `unit`).
    TriangularSolve {
        /// `t` is the lower triangle (else the upper).
        lower: bool,
        /// Solve with `t^T`.
        transpose: bool,
        /// Conjugate `t` (with `transpose`: `t^H`).
        conjugate: bool,
        /// Take the diagonal of `t` as ones (it is not read).
        unit: bool,
    },
    /// Inputs `[a]` (square); outputs `[det]` (`[..]`, dtype `T`): the product
    /// of the LU pivots times the permutation's sign; exactly 0 when a pivot
    /// is 0. The empty matrix has determinant 1. Never fails.
    Det,
    /// Inputs `[a]` (square); outputs `[sign, logabs]` (`[..]`; `sign` of
    /// dtype `T`, `logabs` real) with `det = sign * exp(logabs)`; `sign` has
    /// modulus 1, or is 0 with `logabs = -inf` for a singular matrix. Never
    /// fails.
    Slogdet,
}

/// Batched factorizations and solvers.
pub trait DecompBackend {
    /// Run `op` on every matrix of the batch (see [`DecompOp`] for the inputs
    /// and outputs). Returns `Ok(None)`, or `Ok(Some(i))` with the first batch
    /// index `i` (C order over the batch axes) whose matrix failed as the op
    /// describes (the outputs are then unspecified); the frontend turns that
    /// into an error naming its function. Matrices with a zero dimension
    /// succeed: their square outputs are identities (a complete `q`, full `u`
    /// / `vh`), `Det` writes 1, `Slogdet` writes (1, 0). `Err` only for a
    /// dtype outside f32/f64/c32/c64 or a build without the `linalg` feature.
    fn decomp(
        &self,
        op: DecompOp,
        inputs: &[&Tensor],
        outputs: &[&Tensor],
    ) -> Result<Option<usize>>;
}
