//! The GPU Cholesky factorization of real matrices larger than the small
//! kernels' 16 x 16 (`decomp_small.rs`): blocked, right-looking, on a copy
//! of the lower triangle. For each block column of width 16: the diagonal
//! block by the small Cholesky kernel, the inverse of that factor by the
//! small triangular solve, the panel below times the inverse's transpose
//! and the trailing matrix minus the panel times its transpose by the
//! matmul kernel (so the O(n^3) work is matmul work, in parallel over the
//! whole matrix). Batches run together at every step. The first failing
//! batch index is the smallest any diagonal block reports (a matrix that is
//! not positive definite fails at its first non-positive pivot; the other
//! matrices of the batch are not affected by its garbage).

use super::decomp_small::MAX_N;
use super::GpuBackend;
use crate::backend::{CoreBackend, DecompOp};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;
use crate::Index;

/// The block width (the small kernels' largest order).
const NB: usize = MAX_N;

/// The slice spec of rows `r0..r1` and columns `c0..c1` of every matrix of
/// a `[batch.., n, n]` tensor.
fn block(batch: usize, (r0, r1): (usize, usize), (c0, c1): (usize, usize)) -> Vec<Index> {
    let mut spec = vec![Index::R(None, None, 1); batch];
    spec.push(Index::R(Some(r0 as isize), Some(r1 as isize), 1));
    spec.push(Index::R(Some(c0 as isize), Some(c1 as isize), 1));
    spec
}

impl GpuBackend {
    /// `DecompOp::Cholesky` of `a` (`[batch.., n, n]`, f32 or f64, n > 16)
    /// into the fresh `out`, or `None` for other dtypes and orders (the
    /// caller's other paths take those).
    pub(super) fn cholesky_blocked(
        &self,
        a: &Tensor,
        out: &Tensor,
        upper: bool,
    ) -> Result<Option<Option<usize>>> {
        let d = a.dtype();
        let nd = a.ndim();
        let n = a.shape()[nd - 1];
        let nb_axes = nd - 2;
        if !matches!(d, DType::F32 | DType::F64) || n <= MAX_N || a.size() == 0 {
            return Ok(None);
        }
        let dev = a.device();
        // A private copy by the backend's own copy (the frontend holds the
        // locks of `a` and `out`: no tensor op touches them here).
        let full = Tensor::empty_on(d, a.shape(), dev)?;
        self.copy(a, &full)?;
        let w = full.tril(0)?;
        let bshape = &a.shape()[..nb_axes];
        let mut failed: Option<usize> = None;
        let mut note = |f: Option<usize>| {
            if let Some(b) = f {
                failed = Some(failed.map_or(b, |x: usize| x.min(b)));
            }
        };
        for k in (0..n).step_by(NB) {
            let kb = NB.min(n - k);
            let diag = block(nb_axes, (k, k + kb), (k, k + kb));
            let mut kshape = bshape.to_vec();
            kshape.extend([kb, kb]);
            let l = Tensor::zeros_on(d, &kshape, dev)?;
            let dv = w.slice(&diag)?;
            let f = self.decomp_small(DecompOp::Cholesky { upper: false }, &[&dv], &[&l])?;
            note(f.expect("the small kernel takes orders up to 16"));
            w.set_slice(&diag, &l)?;
            if k + kb == n {
                break;
            }
            // The inverse of the diagonal factor: l x = I.
            let eye = Tensor::eye(d, kb, None, 0)?
                .to_device(dev)?
                .broadcast_to(&kshape)?;
            let inv = Tensor::zeros_on(d, &kshape, dev)?;
            let solve = DecompOp::TriangularSolve {
                lower: true,
                transpose: false,
                conjugate: false,
                unit: false,
            };
            let f = self.decomp_small(solve, &[&l, &eye], &[&inv])?;
            note(f.expect("the small kernel takes orders up to 16"));
            let below = block(nb_axes, (k + kb, n), (k, k + kb));
            let panel = w.slice(&below)?.matmul(&inv.matrix_transpose()?)?;
            w.set_slice(&below, &panel)?;
            let trail = w.slice(block(nb_axes, (k + kb, n), (k + kb, n)))?;
            trail.sub_(&panel.matmul(&panel.matrix_transpose()?)?)?;
        }
        // The trailing updates wrote both triangles: keep the lower one.
        let l = w.tril(0)?;
        let l = if upper { l.matrix_transpose()? } else { l };
        self.copy(&l, out)?;
        Ok(Some(failed))
    }
}
