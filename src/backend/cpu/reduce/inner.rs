//! Reduction when the reduced axes are the contiguous ones (e.g. the last axis
//! of a row-major matrix): each output element reduces its own group, walking
//! the reduced axes as a pairwise tree whose leaves are 1-D runs (contiguous
//! runs vectorise in the reducer). Outputs run in parallel; a single huge group
//! splits its tree over the pool instead.

use super::reducers::{Reducer, LEAF};
use super::Split;
use crate::backend::cpu::elementwise::simd::with_best;
use crate::backend::cpu::strided::{SendPtr, PAR_MIN_ELEMS};
use crate::dtype::Element;

/// Reduce every output group of `sp` (caller runs inside the pool).
pub(super) fn reduce<T: Element, R: Reducer<T>>(
    r: &R,
    sp: &Split,
    x: SendPtr<T>,
    out: SendPtr<R::Out>,
) {
    let [sx, so] = sp.kept.inner_strides();
    let min = (PAR_MIN_ELEMS / sp.count.max(1)).max(1);
    sp.kept.par_for_each_run(min, |[xo, oo], len| {
        #[allow(clippy::redundant_locals)] // capture the whole SendPtr (Send), not its raw field
        let out = out;
        for j in 0..len as isize {
            let acc = tree(r, x, &sp.red_shape, &sp.red_strides, xo + j * sx);
            // SAFETY: the output offset comes from out's in-bounds, unique layout;
            // this task owns it.
            unsafe { *out.0.offset(oo + j * so) = r.finish(acc, sp.count) };
        }
    });
}

/// Reduce the group at `base` over `shape`/`strides` (outermost first, >= 1 axis).
fn tree<T: Element, R: Reducer<T>>(
    r: &R,
    x: SendPtr<T>,
    shape: &[usize],
    strides: &[isize],
    base: isize,
) -> R::Acc {
    if shape.len() == 1 {
        return leaf(r, x, base, shape[0], strides[0]);
    }
    let inner: usize = shape[1..].iter().product();
    range(r, x, shape, strides, base, 0, shape[0], inner)
}

/// Pairwise merge of the sub-groups `lo..hi` of the outermost axis.
#[allow(clippy::too_many_arguments)]
fn range<T: Element, R: Reducer<T>>(
    r: &R,
    x: SendPtr<T>,
    shape: &[usize],
    strides: &[isize],
    base: isize,
    lo: usize,
    hi: usize,
    inner: usize,
) -> R::Acc {
    if hi - lo == 1 {
        return tree(
            r,
            x,
            &shape[1..],
            &strides[1..],
            base + lo as isize * strides[0],
        );
    }
    let mid = lo + (hi - lo) / 2;
    let (a, b) = if (hi - lo) * inner >= 2 * PAR_MIN_ELEMS {
        rayon::join(
            || range(r, x, shape, strides, base, lo, mid, inner),
            || range(r, x, shape, strides, base, mid, hi, inner),
        )
    } else {
        (
            range(r, x, shape, strides, base, lo, mid, inner),
            range(r, x, shape, strides, base, mid, hi, inner),
        )
    };
    r.combine(a, b)
}

/// One 1-D run; long runs split in halves over the pool.
fn leaf<T: Element, R: Reducer<T>>(
    r: &R,
    x: SendPtr<T>,
    base: isize,
    len: usize,
    stride: isize,
) -> R::Acc {
    if len >= 4 * PAR_MIN_ELEMS {
        // A multiple of the pairwise leaf, so no leaf straddles the split.
        let half = (len / 2).next_multiple_of(LEAF);
        let (a, b) = rayon::join(
            || leaf(r, x, base, half, stride),
            || leaf(r, x, base + half as isize * stride, len - half, stride),
        );
        return r.combine(a, b);
    }
    // SAFETY (both): the run lies inside x's in-bounds layout (Split's contract).
    if stride == 1 {
        // Contiguous runs vectorise: compile the reducer's loop at the widest ISA.
        return with_best(
            #[inline(always)]
            || unsafe { r.run(x.0.offset(base), len, stride) },
        );
    }
    unsafe { r.run(x.0.offset(base), len, stride) }
}
