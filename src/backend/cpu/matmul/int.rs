//! The integer matrix kernel: cache-blocked i-k-j products with wrapping
//! arithmetic. A panel of `b` is packed row-major so the inner loop is a
//! contiguous `acc[j] += a_ip * b_pj` that the compiler vectorises; tasks of
//! (row block, column block) run on the pool for large problems. Generic over
//! the integer type, with no per-element dtype dispatch.

use super::{Mat, Threads};
use crate::backend::cpu::strided::SendPtr;
use crate::dtype::Element;
use num_traits::{WrappingAdd, WrappingMul};

/// Rows per task block.
const MC: usize = 64;
/// Columns per task block (the accumulator row length).
const NC: usize = 256;
/// Depth of a packed panel of `b`.
const KC: usize = 256;

/// `out (+)= a @ b` with wrapping integer arithmetic.
///
/// # Safety
/// As [`super::MatKernel::gemm`].
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn gemm_int<T: Element + WrappingAdd + WrappingMul>(
    m: usize,
    n: usize,
    k: usize,
    a: Mat<T>,
    b: Mat<T>,
    out: Mat<T>,
    accumulate: bool,
    threads: Threads,
) {
    let (mb, nb) = (m.div_ceil(MC), n.div_ceil(NC));
    let task = |t: usize| {
        let (ib, jb) = (t / nb, t % nb);
        let (i0, j0) = (ib * MC, jb * NC);
        let (mc, nc) = ((m - i0).min(MC), (n - j0).min(NC));
        // SAFETY: the task touches rows i0..i0+mc and columns j0..j0+nc of out
        // (disjoint between tasks) and reads a and b in bounds (caller contract).
        unsafe { block(i0, j0, mc, nc, k, a, b, out, accumulate) };
    };
    let ntasks = mb * nb;
    if threads == Threads::Pool && ntasks > 1 {
        crate::backend::cpu::team::par_range(ntasks, 1, &task);
    } else {
        (0..ntasks).for_each(task);
    }
}

/// One `mc x nc` block of the output at (i0, j0).
///
/// # Safety
/// As [`gemm_int`]; the block lies inside the output.
#[allow(clippy::too_many_arguments)]
unsafe fn block<T: Element + WrappingAdd + WrappingMul>(
    i0: usize,
    j0: usize,
    mc: usize,
    nc: usize,
    k: usize,
    a: Mat<T>,
    b: Mat<T>,
    out: Mat<T>,
    accumulate: bool,
) {
    let mut acc = vec![T::zero(); mc * nc];
    let mut panel = vec![T::zero(); KC.min(k) * nc];
    let at = |p: SendPtr<T>, rs: isize, cs: isize, i: usize, j: usize| {
        // SAFETY: callers pass in-bounds (i, j) (caller contract).
        unsafe { p.0.offset(i as isize * rs + j as isize * cs) }
    };
    let mut p0 = 0;
    while p0 < k {
        let kc = (k - p0).min(KC);
        // Pack b[p0..p0+kc, j0..j0+nc] row-major.
        for p in 0..kc {
            let row = &mut panel[p * nc..(p + 1) * nc];
            if b.cs == 1 {
                // SAFETY: nc contiguous in-bounds elements of row p0+p.
                let src = unsafe { std::slice::from_raw_parts(at(b.ptr, b.rs, 1, p0 + p, j0), nc) };
                row.copy_from_slice(src);
            } else {
                for (j, r) in row.iter_mut().enumerate() {
                    // SAFETY: in bounds.
                    *r = unsafe { *at(b.ptr, b.rs, b.cs, p0 + p, j0 + j) };
                }
            }
        }
        for i in 0..mc {
            let arow = &mut acc[i * nc..(i + 1) * nc];
            for p in 0..kc {
                // SAFETY: in bounds.
                let aip = unsafe { *at(a.ptr, a.rs, a.cs, i0 + i, p0 + p) };
                let brow = &panel[p * nc..(p + 1) * nc];
                for (c, &bv) in arow.iter_mut().zip(brow) {
                    *c = c.wrapping_add(&aip.wrapping_mul(&bv));
                }
            }
        }
        p0 += kc;
    }
    for i in 0..mc {
        for j in 0..nc {
            let o = at(out.ptr, out.rs, out.cs, i0 + i, j0 + j);
            let v = acc[i * nc + j];
            // SAFETY: in bounds of the unique output; only this task writes here.
            unsafe { *o = if accumulate { (*o).wrapping_add(&v) } else { v } };
        }
    }
}
