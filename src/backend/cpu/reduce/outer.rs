//! Reduction when a kept axis is the contiguous one (e.g. reducing the leading
//! axis of a row-major matrix): a block of adjacent outputs is accumulated
//! together, one vector of partial results per block, adding one input row at a
//! time (vectorises across the contiguous output axis; no strided gathers).
//! Sums stay accurate through a cascade: every 64 rows a level is flushed into
//! the next, so the error grows with 64 * log64(rows), not with rows.

use super::erased::{AccRow, Lanes};
use super::Split;
use crate::backend::cpu::strided::{SendPtr, PAR_MIN_ELEMS};
use crate::backend::cpu::team::par_range;
use std::sync::Mutex;

/// Bytes of partial results per cascade level of a block: wide blocks read
/// long contiguous stretches of every input row (prefetch-friendly), and the
/// few levels of partial results still fit in L2.
const BLOCK_BYTES: usize = 16 << 10;
/// Fewest outputs per block.
const BLOCK_MIN: usize = 64;
/// Rows per cascade level before it is flushed into the next.
const FLUSH: usize = 64;

/// Reduce every output of `sp` (caller runs inside the pool); `x` and `out`
/// are the storages' base addresses.
///
/// Threads split the outputs when there are enough of them for a full block
/// per thread; otherwise (e.g. the leading axis of a square matrix) they split
/// the reduced positions, so that every thread still reads whole input rows,
/// and the per-thread partial results are combined in order.
pub(super) fn reduce(l: &dyn Lanes, sp: &Split, x: SendPtr<u8>, out: SendPtr<u8>) {
    let [sx, so] = sp.kept.inner_strides();
    let width = (BLOCK_BYTES / l.acc_size().max(1)).max(BLOCK_MIN);
    let threads = crate::device::num_threads();
    let outputs = sp.kept.numel();
    let os = l.out_size() as isize;
    let write = |oo: isize, acc: &mut AccRow| {
        // SAFETY: out's layout is in bounds and unique; the caller owns
        // these outputs.
        unsafe { l.finish_row(acc, sp.count, out.get().wrapping_offset(oo * os), so) };
    };
    if threads > 1
        && outputs < threads * width
        && sp.count >= threads * FLUSH
        && outputs * sp.count >= 2 * PAR_MIN_ELEMS
    {
        let parts = threads.min(sp.count / FLUSH);
        let chunk = sp.count.div_ceil(parts);
        sp.kept.for_each_run(0, outputs, |[xo, oo], len| {
            let mut c0 = 0;
            while c0 < len {
                let w = width.min(len - c0);
                let base = xo + c0 as isize * sx;
                let partial: Vec<Mutex<Option<AccRow>>> =
                    (0..parts).map(|_| Mutex::new(None)).collect();
                par_range(parts, 1, &|p| {
                    let (r0, r1) = (p * chunk, ((p + 1) * chunk).min(sp.count));
                    let mut levels = Vec::new();
                    let top = block(l, sp, x, base, sx, w, r0..r1, &mut levels);
                    let v = levels.swap_remove(top);
                    *partial[p].lock().unwrap_or_else(|e| e.into_inner()) = Some(v);
                });
                let mut partial = partial.into_iter().map(|m| {
                    m.into_inner()
                        .unwrap_or_else(|e| e.into_inner())
                        .expect("every part ran")
                });
                let mut acc = partial.next().expect("at least one part");
                for mut part in partial {
                    // SAFETY: rows of this reducer, of w accumulators each.
                    unsafe { l.absorb_row(&mut acc, &mut part) };
                }
                write(oo + c0 as isize * so, &mut acc);
                c0 += w;
            }
        });
        return;
    }
    let min = (PAR_MIN_ELEMS / sp.count.max(1)).max(1);
    sp.kept.par_for_each_run(min, |[xo, oo], len| {
        let mut levels: Vec<AccRow> = Vec::new();
        let mut c0 = 0;
        while c0 < len {
            let w = width.min(len - c0);
            let top = block(
                l,
                sp,
                x,
                xo + c0 as isize * sx,
                sx,
                w,
                0..sp.count,
                &mut levels,
            );
            write(oo + c0 as isize * so, &mut levels[top]);
            c0 += w;
        }
    });
}

/// The partial results of `w` adjacent outputs starting at `base` (x stride
/// `sx` between them), over the reduced positions `range` (row-major order of
/// the reduced axes): left in `levels[i]` for the returned `i`.
#[allow(clippy::too_many_arguments)]
fn block(
    l: &dyn Lanes,
    sp: &Split,
    x: SendPtr<u8>,
    base: isize,
    sx: isize,
    w: usize,
    range: std::ops::Range<usize>,
    levels: &mut Vec<AccRow>,
) -> usize {
    for lv in levels.iter_mut() {
        lv.reset(l, w);
    }
    if levels.is_empty() {
        levels.push(AccRow::new(l, w));
    }
    let es = l.elem_size() as isize;
    let at = |off: isize| x.get().wrapping_offset(off * es) as *const u8;
    let mut counts = vec![0usize; levels.len()];
    let nd = sp.red_shape.len();
    let mut idx = vec![0usize; nd];
    let mut off = 0isize;
    let mut rem = range.start;
    for a in (0..nd).rev() {
        idx[a] = rem % sp.red_shape[a];
        rem /= sp.red_shape[a];
        off += idx[a] as isize * sp.red_strides[a];
    }
    // Next reduced position (odometer over the reduced axes).
    let advance = |idx: &mut [usize], off: &mut isize| {
        let mut a = nd;
        while a > 0 {
            a -= 1;
            idx[a] += 1;
            *off += sp.red_strides[a];
            if idx[a] < sp.red_shape[a] {
                break;
            }
            *off -= sp.red_shape[a] as isize * sp.red_strides[a];
            idx[a] = 0;
        }
    };
    let mut left = range.len();
    while left > 0 {
        // Four rows at a time while they fit the level (FLUSH is a multiple
        // of four), then one by one.
        let take = if left >= 4 && counts[0] + 4 <= FLUSH {
            4
        } else {
            1
        };
        if take == 4 {
            let mut ps = [std::ptr::null(); 4];
            for q in ps.iter_mut() {
                *q = at(base + off);
                advance(&mut idx, &mut off);
            }
            // SAFETY: ps[i] + j * sx (j < w) are elements of x's in-bounds layout.
            unsafe { l.step_row4(&mut levels[0], ps, sx) };
        } else {
            // SAFETY: base + off + j * sx (j < w) are elements of x's in-bounds layout.
            unsafe { l.step_row(&mut levels[0], at(base + off), sx) };
            advance(&mut idx, &mut off);
        }
        left -= take;
        counts[0] += take;
        let mut k = 0;
        while counts[k] == FLUSH {
            if k + 1 == levels.len() {
                levels.push(AccRow::new(l, w));
                counts.push(0);
            }
            let (lo, hi) = levels.split_at_mut(k + 1);
            // SAFETY: rows of this reducer, of w accumulators each.
            unsafe { l.absorb_row(&mut hi[0], &mut lo[k]) };
            counts[k] = 0;
            counts[k + 1] += 1;
            k += 1;
        }
    }
    // Fold every level into the top one.
    for k in 0..levels.len() - 1 {
        let (lo, hi) = levels.split_at_mut(k + 1);
        debug_assert_eq!(hi[0].len(), lo[k].len());
        // SAFETY: as above.
        unsafe { l.absorb_row(&mut hi[0], &mut lo[k]) };
    }
    levels.len() - 1
}
