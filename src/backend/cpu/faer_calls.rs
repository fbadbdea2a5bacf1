//! The faer factorizations that the CPU decomposition backend
//! (`decomp.rs`) calls through faer's low-level API rather than its
//! high-level solvers, to pass the parallelism (`Par`) explicitly and to
//! choose the memory layout: LU with partial pivoting (for `solve` and
//! `inv`) and Cholesky. No factorization algorithm lives here: each function
//! copies its input once, calls faer's in-place routine and writes the
//! result where the caller asks.
//!
//! Layout: faer's LU works on column-major storage. A row-major matrix `a`
//! is, read as column-major, `a^T`; so for a row-major input the LU is that
//! of `a^T` (a plain copy, no transposing gather), and the solve and the
//! inverse use its transpose (`a^T`'s LU solves `a x = b` as a transposed
//! solve, and its inverse is `(a^{-1})^T`, written through the transposed
//! view of the output). The pivots are then those of `a^T`; a pivot that is
//! exactly zero still means the matrix is singular.

use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor as llt;
use faer::linalg::lu::partial_pivoting as plu;
use faer::perm::PermRef;
use faer::reborrow::ReborrowMut;
use faer::traits::math_utils::{conj, zero};
use faer::traits::ComplexField;
use faer::{Conj, Mat, MatMut, MatRef, Par};

/// The LU factors of `a` (or of `a^T` where `a` is row-major: `trans`) and
/// the row permutation, handed to `f`; false (without calling `f`) where a
/// pivot is exactly zero.
fn with_lu<T: ComplexField + PartialEq>(
    a: MatRef<'_, T>,
    par: Par,
    f: impl FnOnce(MatRef<'_, T>, PermRef<'_, usize>, bool),
) -> bool {
    let n = a.nrows();
    let trans = a.row_stride().unsigned_abs() > a.col_stride().unsigned_abs();
    let mut lu: Mat<T> = if trans {
        a.transpose().to_owned()
    } else {
        a.to_owned()
    };
    let mut fwd = vec![0usize; n];
    let mut bwd = vec![0usize; n];
    let mut mem = MemBuffer::new(plu::factor::lu_in_place_scratch::<usize, T>(
        n,
        n,
        par,
        Default::default(),
    ));
    let (_, perm) = plu::factor::lu_in_place(
        lu.as_mut(),
        &mut fwd,
        &mut bwd,
        par,
        MemStack::new(&mut mem),
        Default::default(),
    );
    let z = zero::<T>();
    if lu.diagonal().column_vector().iter().any(|x| *x == z) {
        return false;
    }
    f(lu.as_ref(), perm, trans);
    true
}

/// Solve `a x = b` in place (`x` holds `b` on entry) by LU with partial
/// pivoting; false where a pivot is exactly zero (`x` then unspecified).
pub(crate) fn solve<T: ComplexField + PartialEq>(
    a: MatRef<'_, T>,
    x: MatMut<'_, T>,
    par: Par,
) -> bool {
    let (n, k) = (x.nrows(), x.ncols());
    with_lu(a, par, |lu, perm, trans| {
        let mut mem = MemBuffer::new(plu::solve::solve_in_place_scratch::<usize, T>(n, k, par));
        let stack = MemStack::new(&mut mem);
        if trans {
            // `lu` factors `a^T`: solve `(a^T)^T x = b`.
            plu::solve::solve_transpose_in_place_with_conj(lu, lu, perm, Conj::No, x, par, stack);
        } else {
            plu::solve::solve_in_place_with_conj(lu, lu, perm, Conj::No, x, par, stack);
        }
    })
}

/// Write `a^{-1}` to `out` (LU with partial pivoting, then faer's inverse
/// from the factors); false where a pivot is exactly zero.
pub(crate) fn inverse<T: ComplexField + PartialEq>(
    a: MatRef<'_, T>,
    out: MatMut<'_, T>,
    par: Par,
) -> bool {
    let n = a.nrows();
    with_lu(a, par, |lu, perm, trans| {
        let mut mem = MemBuffer::new(plu::inverse::inverse_scratch::<usize, T>(n, par));
        let stack = MemStack::new(&mut mem);
        // `lu` factors `a^T` when `trans`: its inverse is `(a^{-1})^T`.
        let out = if trans { out.transpose_mut() } else { out };
        plu::inverse::inverse(out, lu, lu, perm, par, stack);
    })
}

/// The Cholesky factor of `a` (its lower triangle is read) written to `out`
/// (zero-filled on entry, not overlapping `a`): `l` with `a = l l^H`, or
/// `l^H` when `upper`. False where `a` is not positive definite.
pub(crate) fn cholesky<T: ComplexField>(
    a: MatRef<'_, T>,
    out: MatMut<'_, T>,
    upper: bool,
    par: Par,
) -> bool {
    let n = a.nrows();
    let mut out = out;
    // The lower triangle straight into `out` (same layout as `a` for a
    // fresh output: no gather), factorized there in place.
    if out.col_stride().unsigned_abs() <= out.row_stride().unsigned_abs() {
        for i in 0..n {
            out.rb_mut()
                .row_mut(i)
                .subcols_mut(0, i + 1)
                .copy_from(a.row(i).subcols(0, i + 1));
        }
    } else {
        for j in 0..n {
            out.rb_mut()
                .col_mut(j)
                .subrows_mut(j, n - j)
                .copy_from(a.col(j).subrows(j, n - j));
        }
    }
    let mut mem = MemBuffer::new(llt::cholesky_in_place_scratch::<T>(
        n,
        par,
        Default::default(),
    ));
    if llt::cholesky_in_place(
        out.rb_mut(),
        Default::default(),
        par,
        MemStack::new(&mut mem),
        Default::default(),
    )
    .is_err()
    {
        return false;
    }
    if upper {
        // `l^H` in place: the strict lower triangle moves, conjugated, to
        // the upper one; the diagonal is real.
        for j in 0..n {
            for i in j + 1..n {
                let v = conj(&out[(i, j)]);
                out[(j, i)] = v;
                out[(i, j)] = zero();
            }
        }
    }
    true
}
