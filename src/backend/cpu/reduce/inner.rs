//! Reduction when the reduced axes are the contiguous ones (e.g. the last axis
//! of a row-major matrix): each output element reduces its own group, walking
//! the reduced axes as a pairwise tree whose leaves are 1-D runs (contiguous
//! runs vectorise in the reducer). Outputs run in parallel; a single huge group
//! splits its tree over the pool instead, and a single huge 1-D run (a full
//! reduction of a contiguous tensor) runs its leaves as chunks shared by the
//! calling thread and the pool (`team`), combined in the same tree.

use super::erased::{Acc, Lanes};
use super::reducers::LEAF;
use super::Split;
use crate::backend::cpu::strided::{SendPtr, PAR_MIN_ELEMS};
use crate::backend::cpu::team::{self, for_each_chunk};

/// Byte address of element offset `off` of `x` (elements of `l`'s input type).
#[inline(always)]
fn at(l: &dyn Lanes, x: SendPtr<u8>, off: isize) -> *const u8 {
    x.get().wrapping_offset(off * l.elem_size() as isize)
}

/// Reduce every output group of `sp` (caller runs inside the pool); `x` and
/// `out` are the storages' base addresses.
pub(super) fn reduce(l: &dyn Lanes, sp: &Split, x: SendPtr<u8>, out: SendPtr<u8>) {
    let [sx, so] = sp.kept.inner_strides();
    let min = (PAR_MIN_ELEMS / sp.count.max(1)).max(1);
    let os = l.out_size() as isize;
    let flat = sp.red_shape.len() == 1 && halves(sp.red_shape[0]).is_none();
    sp.kept.par_for_each_run(min, |[xo, oo], len| {
        #[allow(clippy::redundant_locals)] // capture the whole SendPtr (Send), not its raw field
        let out = out;
        if flat {
            // 1-D groups that need no split: the reducer's own loop over them.
            // SAFETY: the groups lie inside x's in-bounds layout (Split's
            // contract); the outputs come from out's in-bounds, unique layout
            // and this task owns them.
            unsafe {
                l.groups(
                    at(l, x, xo),
                    sx,
                    len,
                    sp.red_shape[0],
                    sp.red_strides[0],
                    sp.count,
                    out.get().wrapping_offset(oo * os),
                    so,
                )
            };
            return;
        }
        for j in 0..len as isize {
            let acc = tree(l, x, &sp.red_shape, &sp.red_strides, xo + j * sx);
            // SAFETY: the output offset comes from out's in-bounds, unique layout;
            // this task owns it.
            unsafe { l.finish(acc, sp.count, out.get().wrapping_offset((oo + j * so) * os)) };
        }
    });
}

/// Reduce the group at `base` over `shape`/`strides` (outermost first, >= 1 axis).
fn tree(l: &dyn Lanes, x: SendPtr<u8>, shape: &[usize], strides: &[isize], base: isize) -> Acc {
    if shape.len() == 1 {
        return leaf(l, x, base, shape[0], strides[0]);
    }
    let inner: usize = shape[1..].iter().product();
    range(l, x, shape, strides, base, 0, shape[0], inner)
}

/// Pairwise merge of the sub-groups `lo..hi` of the outermost axis.
#[allow(clippy::too_many_arguments)]
fn range(
    l: &dyn Lanes,
    x: SendPtr<u8>,
    shape: &[usize],
    strides: &[isize],
    base: isize,
    lo: usize,
    hi: usize,
    inner: usize,
) -> Acc {
    if hi - lo == 1 {
        return tree(
            l,
            x,
            &shape[1..],
            &strides[1..],
            base + lo as isize * strides[0],
        );
    }
    let mid = lo + (hi - lo) / 2;
    let (a, b) = if (hi - lo) * inner >= 2 * PAR_MIN_ELEMS {
        team::join(
            || range(l, x, shape, strides, base, lo, mid, inner),
            || range(l, x, shape, strides, base, mid, hi, inner),
        )
    } else {
        (
            range(l, x, shape, strides, base, lo, mid, inner),
            range(l, x, shape, strides, base, mid, hi, inner),
        )
    };
    l.combine(a, b)
}

/// Whether `leaf` splits a run of `len` elements, and where.
fn halves(len: usize) -> Option<usize> {
    // A multiple of the pairwise leaf, so no leaf straddles the split.
    (len >= 4 * PAR_MIN_ELEMS).then(|| (len / 2).next_multiple_of(LEAF))
}

/// Reduce one 1-D run from outside the pool: the same pieces and the same
/// combining tree as `leaf` (so the same result, bit for bit), with the pieces
/// run by `for_each_chunk` instead of nested joins.
pub(super) fn whole_run(
    l: &dyn Lanes,
    x: SendPtr<u8>,
    base: isize,
    len: usize,
    stride: isize,
) -> Acc {
    fn pieces(base: isize, len: usize, stride: isize, out: &mut Vec<(isize, usize)>) {
        match halves(len) {
            Some(half) => {
                pieces(base, half, stride, out);
                pieces(base + half as isize * stride, len - half, stride, out);
            }
            None => out.push((base, len)),
        }
    }
    fn merge(len: usize, accs: &mut impl Iterator<Item = Acc>, l: &dyn Lanes) -> Acc {
        match halves(len) {
            Some(half) => {
                let a = merge(half, accs, l);
                let b = merge(len - half, accs, l);
                l.combine(a, b)
            }
            None => accs.next().expect("one partial result per piece"),
        }
    }
    if halves(len).is_none() {
        // One piece: no partial results to keep (small reductions allocate nothing).
        return leaf(l, x, base, len, stride);
    }
    let mut parts = Vec::new();
    pieces(base, len, stride, &mut parts);
    let mut accs = vec![l.init(); parts.len()];
    let slots = SendPtr(accs.as_mut_ptr());
    for_each_chunk(parts.len(), &|i| {
        let (b, n) = parts[i];
        let acc = leaf(l, x, b, n, stride);
        // SAFETY: `i < parts.len() == accs.len()`, and chunk `i` alone writes slot `i`.
        unsafe { *slots.get().add(i) = acc };
    });
    merge(len, &mut accs.into_iter(), l)
}

/// One 1-D run; long runs split in halves over the pool.
fn leaf(l: &dyn Lanes, x: SendPtr<u8>, base: isize, len: usize, stride: isize) -> Acc {
    if let Some(half) = halves(len) {
        let (a, b) = team::join(
            || leaf(l, x, base, half, stride),
            || leaf(l, x, base + half as isize * stride, len - half, stride),
        );
        return l.combine(a, b);
    }
    // SAFETY: the run lies inside x's in-bounds layout (Split's contract).
    unsafe { l.run(at(l, x, base), len, stride) }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;
    use crate::backend::cpu::reduce::erased::Typed;
    use crate::backend::cpu::reduce::reducers::{Extreme, Sum};

    /// `whole_run` (called from this non-pool thread, so shared with the pool
    /// by `team`) must give the pool tree's result bit for bit.
    pub(crate) fn whole_run_matches_the_pool_tree() {
        let n = 4 * PAR_MIN_ELEMS * 3 + 777;
        let data: Vec<f32> = (0..n)
            .map(|i| ((i * 7919 % 1000) as f32 - 499.5) * 1e-3)
            .collect();
        let x = SendPtr(data.as_ptr() as *mut u8);
        let (sum, max) = (Sum { mean: false }, Extreme::<true>);
        let sum: &dyn Lanes = &Typed::<f32, _>::new(&sum);
        let max: &dyn Lanes = &Typed::<f32, _>::new(&max);
        let fin = |l: &dyn Lanes, a: Acc, count: usize| -> f32 {
            let mut o = 0f32;
            // SAFETY: `o` is an f32, the reducers' output type here.
            unsafe { l.finish(a, count, &mut o as *mut f32 as *mut u8) };
            o
        };
        for (len, stride) in [(n, 1isize), (n / 2, 2), (5000, 1)] {
            let team = fin(sum, whole_run(sum, x, 0, len, stride), len);
            let tree = fin(
                sum,
                crate::device::pool().install(|| leaf(sum, x, 0, len, stride)),
                len,
            );
            assert_eq!(
                team.to_bits(),
                tree.to_bits(),
                "sum len {len} stride {stride}"
            );
            let vals = || (0..len).map(|i| data[i * stride as usize] as f64);
            let exact: f64 = vals().sum();
            let scale: f64 = vals().map(f64::abs).sum();
            assert!(
                (team as f64 - exact).abs() <= 1e-6 * scale,
                "sum {team} vs {exact} (len {len})"
            );
            let m = fin(max, whole_run(max, x, 0, len, stride), len);
            let want = vals().fold(f64::MIN, f64::max);
            assert_eq!(m as f64, want, "max len {len} stride {stride}");
        }
    }
}
