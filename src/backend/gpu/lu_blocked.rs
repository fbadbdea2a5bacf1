//! The GPU LU factorization with partial pivoting of real matrices larger
//! than the small kernels' 16 x 16, and `solve`, `inv`, `det` and `slogdet`
//! on it: right-looking and blocked, the way MAGMA splits the work. For
//! each block column of width 16 the tall panel below the diagonal comes to
//! the host (a few KiB per matrix), is factored there with partial pivoting
//! (the CPU's small kernel's rules: the first entry of largest magnitude,
//! a NaN never wins, the column scaled by the pivot's reciprocal) and goes
//! back; the panel's row swaps move the rest of those rows on the device
//! (the along-axis gather kernel), the block row right of the diagonal
//! becomes `L11^-1 A12` and the trailing matrix loses `L21 U12` by the
//! matmul kernel, so the O(n^3) work stays on the GPU. `solve` and `inv`
//! then permute the right-hand sides and run blocked forward and back
//! substitution (the inverses of the 16 x 16 diagonal blocks by the small
//! triangular solve, the rest by the matmul kernel); `det` and `slogdet`
//! read the diagonal back and combine it on the host as the CPU does.
//! Results agree with the CPU's (faer's blocked LU) to the roundoff; a zero
//! pivot fails `solve` and `inv` at the same batch index.

use super::decomp_small::MAX_N;
use super::GpuBackend;
use crate::backend::cpu::small_lu::lu_rows;
use crate::backend::{CoreBackend, DecompOp};
use crate::device::Device;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;
use crate::{DiagonalOptions, Index};

/// The block width.
const NB: usize = MAX_N;

/// Rows `r0..r1`, columns `c0..c1` of every matrix of a `[batch, n, m]`
/// tensor.
fn block((r0, r1): (usize, usize), (c0, c1): (usize, usize)) -> [Index; 3] {
    [
        Index::R(None, None, 1),
        Index::R(Some(r0 as isize), Some(r1 as isize), 1),
        Index::R(Some(c0 as isize), Some(c1 as isize), 1),
    ]
}

/// The inverses of the `[batch, kb, kb]` triangles `t` (lower with a unit
/// diagonal, or upper) by the small triangular solve against identities;
/// the failing batch index of a zero diagonal, if any.
fn tri_inverse(g: &GpuBackend, t: &Tensor, lower: bool) -> Result<(Tensor, Option<usize>)> {
    let (d, dev, sh) = (t.dtype(), t.device(), t.shape().to_vec());
    let eye = Tensor::eye(d, sh[1], None, 0)?
        .to_device(dev)?
        .broadcast_to(&sh)?;
    let inv = Tensor::zeros_on(d, &sh, dev)?;
    let op = DecompOp::TriangularSolve {
        lower,
        transpose: false,
        conjugate: false,
        unit: lower,
    };
    let f = g.decomp_small(op, &[t, &eye], &[&inv])?;
    Ok((inv, f.expect("the small kernel takes orders up to 16")))
}

/// The host's factorization of one `m x kb` panel (row-major `p`, in place)
/// by the CPU's small kernel (`cpu/small_lu.rs`): the row swaps `(c, pivot
/// row)` in order, and whether a pivot is exactly zero.
fn factor_panel(p: &mut [f64], m: usize, kb: usize) -> (Vec<(usize, usize)>, bool) {
    let mut swaps = Vec::with_capacity(kb);
    lu_rows(p, kb, m, kb, |c, piv| swaps.push((c, piv)));
    let zero = (0..kb).any(|c| p[c * kb + c] == 0.0);
    (swaps, zero)
}

/// The factorization: `w` (`[batch, n, n]`) holds `L \ U` of `P A`, `perm[b]`
/// the source row of each row of `P A`, `odd[b]` its parity, `zero[b]`
/// whether a pivot is exactly zero.
struct Lu {
    w: Tensor,
    perm: Vec<Vec<usize>>,
    odd: Vec<bool>,
    zero: Vec<bool>,
}

impl GpuBackend {
    /// `Solve`, `Inv`, `Det` or `Slogdet` of real `[batch.., n, n]` matrices
    /// with `n > 16` (f32, f64), or `None` for other ops, dtypes and shapes.
    pub(super) fn lu_blocked(
        &self,
        op: DecompOp,
        inputs: &[&Tensor],
        outputs: &[&Tensor],
    ) -> Result<Option<Option<usize>>> {
        let a = inputs[0];
        let d = a.dtype();
        let nd = a.ndim();
        let n = a.shape()[nd - 1];
        let batch: usize = a.shape()[..nd - 2].iter().product();
        let wanted = matches!(
            op,
            DecompOp::Solve | DecompOp::Inv | DecompOp::Det | DecompOp::Slogdet
        );
        if !wanted || !matches!(d, DType::F32 | DType::F64) || n <= MAX_N || batch == 0 {
            return Ok(None);
        }
        if op == DecompOp::Solve && inputs[1].shape()[nd - 1] == 0 {
            return Ok(None);
        }
        let lu = self.factor(a, batch, n)?;
        let first_zero = lu.zero.iter().position(|&z| z);
        match op {
            DecompOp::Det | DecompOp::Slogdet => {
                self.dets(op, &lu, outputs, batch, n)?;
                Ok(Some(None))
            }
            _ => {
                if first_zero.is_some() {
                    return Ok(Some(first_zero));
                }
                let dev = a.device();
                let b = if op == DecompOp::Solve {
                    let b = Tensor::empty_on(d, inputs[1].shape(), dev)?;
                    self.copy(inputs[1], &b)?;
                    let r = b.shape()[nd - 1];
                    b.reshape([batch, n, r])?
                } else {
                    Tensor::eye(d, n, None, 0)?
                        .to_device(dev)?
                        .broadcast_to(&[batch, n, n])?
                };
                let x = self.lu_solve(&lu, &b, n)?;
                let x = x.reshape(outputs[0].shape())?;
                self.copy(&x, outputs[0])?;
                Ok(Some(None))
            }
        }
    }

    /// The blocked factorization of `a` (see the module docs).
    fn factor(&self, a: &Tensor, batch: usize, n: usize) -> Result<Lu> {
        let (d, dev) = (a.dtype(), a.device());
        // A private copy by the backend's own copy (the frontend holds the
        // locks of the inputs and outputs: no tensor op touches them here).
        let full = Tensor::empty_on(d, a.shape(), dev)?;
        self.copy(a, &full)?;
        let w = full.reshape([batch, n, n])?;
        let mut perm: Vec<Vec<usize>> = vec![(0..n).collect(); batch];
        let mut odd = vec![false; batch];
        let mut zero = vec![false; batch];
        for k in (0..n).step_by(NB) {
            let kb = NB.min(n - k);
            let m = n - k;
            let pspec = block((k, n), (k, k + kb));
            let mut p = w
                .slice(&pspec)?
                .to_device(Device::Cpu)?
                .cast(DType::F64)?
                .to_vec::<f64>()?;
            // Each matrix's source rows (relative to k) after its swaps.
            let mut order: Vec<i32> = Vec::with_capacity(batch * m);
            for b in 0..batch {
                let (swaps, z) = factor_panel(&mut p[b * m * kb..(b + 1) * m * kb], m, kb);
                zero[b] |= z;
                let mut rows: Vec<i32> = (0..m as i32).collect();
                for (c, piv) in swaps {
                    rows.swap(c, piv);
                    perm[b].swap(k + c, k + piv);
                    odd[b] = !odd[b];
                }
                order.extend(rows);
            }
            let panel = Tensor::from_vec(p, &[batch, m, kb])?
                .cast(d)?
                .to_device(dev)?;
            w.set_slice(&pspec, &panel)?;
            let idx = Tensor::from_vec(order, &[batch, m, 1])?.to_device(dev)?;
            for (c0, c1) in [(0, k), (k + kb, n)] {
                if c1 > c0 {
                    let spec = block((k, n), (c0, c1));
                    let moved = w.slice(&spec)?.take_along_axis(&idx, 1)?;
                    w.set_slice(&spec, &moved)?;
                }
            }
            if k + kb < n {
                let l11 = w.slice(block((k, k + kb), (k, k + kb)))?;
                let (linv, _) = tri_inverse(self, &l11, true)?;
                let rspec = block((k, k + kb), (k + kb, n));
                let u12 = linv.matmul(&w.slice(&rspec)?)?;
                w.set_slice(&rspec, &u12)?;
                let l21 = w.slice(block((k + kb, n), (k, k + kb)))?;
                let trail = w.slice(block((k + kb, n), (k + kb, n)))?;
                trail.sub_(&l21.matmul(&u12)?)?;
            }
        }
        Ok(Lu { w, perm, odd, zero })
    }

    /// `x` with `L U x = P b` for the `[batch, n, r]` right-hand sides `b`.
    fn lu_solve(&self, lu: &Lu, b: &Tensor, n: usize) -> Result<Tensor> {
        let (dev, batch) = (b.device(), lu.perm.len());
        let rows: Vec<i32> = lu.perm.iter().flatten().map(|&i| i as i32).collect();
        let idx = Tensor::from_vec(rows, &[batch, n, 1])?.to_device(dev)?;
        let x = b.take_along_axis(&idx, 1)?;
        let r = x.shape()[2];
        let all = |r0: usize, r1: usize| block((r0, r1), (0, r));
        // Forward: unit lower L.
        for k in (0..n).step_by(NB) {
            let kb = NB.min(n - k);
            let xs = x.slice(all(k, k + kb))?;
            if k > 0 {
                let l = lu.w.slice(block((k, k + kb), (0, k)))?;
                xs.sub_(&l.matmul(&x.slice(all(0, k))?)?)?;
            }
            let (linv, _) = tri_inverse(self, &lu.w.slice(block((k, k + kb), (k, k + kb)))?, true)?;
            x.set_slice(all(k, k + kb), &linv.matmul(&xs)?)?;
        }
        // Back: U.
        let starts: Vec<usize> = (0..n).step_by(NB).collect();
        for &k in starts.iter().rev() {
            let kb = NB.min(n - k);
            let xs = x.slice(all(k, k + kb))?;
            if k + kb < n {
                let u = lu.w.slice(block((k, k + kb), (k + kb, n)))?;
                xs.sub_(&u.matmul(&x.slice(all(k + kb, n))?)?)?;
            }
            let (uinv, _) =
                tri_inverse(self, &lu.w.slice(block((k, k + kb), (k, k + kb)))?, false)?;
            x.set_slice(all(k, k + kb), &uinv.matmul(&xs)?)?;
        }
        Ok(x)
    }

    /// `det` / `slogdet` from the factors' diagonal, combined on the host as
    /// the CPU backend does (product in f64 from the permutation's sign;
    /// exactly 0, or (0, -inf), for a zero pivot).
    fn dets(
        &self,
        op: DecompOp,
        lu: &Lu,
        outputs: &[&Tensor],
        batch: usize,
        n: usize,
    ) -> Result<()> {
        let diag =
            lu.w.diagonal_with(DiagonalOptions {
                axis1: 1,
                axis2: 2,
                offset: 0,
            })?
            .to_device(Device::Cpu)?
            .cast(DType::F64)?
            .to_vec::<f64>()?;
        let (d, dev) = (lu.w.dtype(), lu.w.device());
        let mut first = Vec::with_capacity(batch);
        let mut second = Vec::with_capacity(batch);
        for b in 0..batch {
            let u = &diag[b * n..(b + 1) * n];
            let psign = if lu.odd[b] { -1.0 } else { 1.0 };
            let singular = u.contains(&0.0);
            if op == DecompOp::Det {
                first.push(if singular {
                    0.0
                } else {
                    u.iter().fold(psign, |p, &x| p * x)
                });
            } else if singular {
                first.push(0.0);
                second.push(f64::NEG_INFINITY);
            } else {
                let sign = u.iter().fold(psign, |s, &x| s * x.signum());
                first.push(sign);
                second.push(u.iter().map(|x| x.abs().ln()).sum());
            }
        }
        for (vals, out) in [first, second].into_iter().zip(outputs) {
            let t = Tensor::from_vec(vals, out.shape())?
                .cast(d)?
                .to_device(dev)?;
            self.copy(&t, out)?;
        }
        Ok(())
    }
}
