//! Reduction when a kept axis is the contiguous one (e.g. reducing the leading
//! axis of a row-major matrix): a block of adjacent outputs is accumulated
//! together, one vector of partial results per block, adding one input row at a
//! time (vectorises across the contiguous output axis; no strided gathers).
//! Sums stay accurate through a cascade: every 64 rows a level is flushed into
//! the next, so the error grows with 64 * log64(rows), not with rows.

use super::reducers::Reducer;
use super::Split;
use crate::backend::cpu::strided::{SendPtr, PAR_MIN_ELEMS};
use crate::dtype::Element;

/// Bytes of partial results per cascade level of a block: wide blocks read
/// long contiguous stretches of every input row (prefetch-friendly), and the
/// few levels of partial results still fit in L2.
const BLOCK_BYTES: usize = 16 << 10;
/// Fewest outputs per block.
const BLOCK_MIN: usize = 64;
/// Rows per cascade level before it is flushed into the next.
const FLUSH: usize = 64;

/// Reduce every output of `sp` (caller runs inside the pool).
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
        let mut levels: Vec<Vec<R::Acc>> = Vec::new();
        let width = (BLOCK_BYTES / std::mem::size_of::<R::Acc>().max(1)).max(BLOCK_MIN);
        let mut c0 = 0;
        while c0 < len {
            let w = width.min(len - c0);
            let acc = block(r, sp, x, xo + c0 as isize * sx, sx, w, &mut levels);
            for (j, &a) in acc.iter().enumerate() {
                // SAFETY: out's layout is in bounds and unique; this task owns
                // the run.
                unsafe { *out.0.offset(oo + (c0 + j) as isize * so) = r.finish(a, sp.count) };
            }
            c0 += w;
        }
    });
}

/// The partial results of `w` adjacent outputs starting at `base` (x stride
/// `sx` between them), over all reduced positions.
fn block<'a, T: Element, R: Reducer<T>>(
    r: &R,
    sp: &Split,
    x: SendPtr<T>,
    base: isize,
    sx: isize,
    w: usize,
    levels: &'a mut Vec<Vec<R::Acc>>,
) -> &'a [R::Acc] {
    for l in levels.iter_mut() {
        l.clear();
        l.resize(w, r.init());
    }
    if levels.is_empty() {
        levels.push(vec![r.init(); w]);
    }
    let mut counts = vec![0usize; levels.len()];
    let nd = sp.red_shape.len();
    let mut idx = vec![0usize; nd];
    let mut off = 0isize;
    for _ in 0..sp.count {
        // SAFETY: base + off + j * sx (j < w) are elements of x's in-bounds layout.
        unsafe { r.step_lanes(&mut levels[0][..w], x.0.offset(base + off), sx) };
        counts[0] += 1;
        let mut k = 0;
        while counts[k] == FLUSH {
            if k + 1 == levels.len() {
                levels.push(vec![r.init(); w]);
                counts.push(0);
            }
            let (lo, hi) = levels.split_at_mut(k + 1);
            for (a, b) in hi[0].iter_mut().zip(lo[k].iter_mut()) {
                *a = r.combine(*a, *b);
                *b = r.init();
            }
            counts[k] = 0;
            counts[k + 1] += 1;
            k += 1;
        }
        // Next reduced position (odometer over the reduced axes).
        let mut a = nd;
        while a > 0 {
            a -= 1;
            idx[a] += 1;
            off += sp.red_strides[a];
            if idx[a] < sp.red_shape[a] {
                break;
            }
            off -= sp.red_shape[a] as isize * sp.red_strides[a];
            idx[a] = 0;
        }
    }
    // Fold every level into the top one.
    for k in 0..levels.len() - 1 {
        let (lo, hi) = levels.split_at_mut(k + 1);
        for (a, b) in hi[0].iter_mut().zip(lo[k].iter()) {
            *a = r.combine(*a, *b);
        }
    }
    &levels[levels.len() - 1][..w]
}
