//! Reduction when the reduced axes are the contiguous ones (e.g. the last axis
//! of a row-major matrix): each output element reduces its own group, walking
//! the reduced axes as a pairwise tree whose leaves are 1-D runs (contiguous
//! runs vectorise in the reducer). Outputs run in parallel; a single huge group
//! splits its tree over the pool instead, and a single huge 1-D run (a full
//! reduction of a contiguous tensor) runs its leaves as chunks shared by the
//! calling thread and the pool (`team`), combined in the same tree.

use super::reducers::{Reducer, LEAF};
use super::Split;
use crate::backend::cpu::elementwise::simd::with_best;
use crate::backend::cpu::strided::{SendPtr, PAR_MIN_ELEMS};
use crate::backend::cpu::team::{self, for_each_chunk};
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
        team::join(
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

/// Whether `leaf` splits a run of `len` elements, and where.
fn halves(len: usize) -> Option<usize> {
    // A multiple of the pairwise leaf, so no leaf straddles the split.
    (len >= 4 * PAR_MIN_ELEMS).then(|| (len / 2).next_multiple_of(LEAF))
}

/// Reduce one 1-D run from outside the pool: the same pieces and the same
/// combining tree as `leaf` (so the same result, bit for bit), with the pieces
/// run by `for_each_chunk` instead of nested joins.
pub(super) fn whole_run<T: Element, R: Reducer<T>>(
    r: &R,
    x: SendPtr<T>,
    base: isize,
    len: usize,
    stride: isize,
) -> R::Acc {
    fn pieces(base: isize, len: usize, stride: isize, out: &mut Vec<(isize, usize)>) {
        match halves(len) {
            Some(half) => {
                pieces(base, half, stride, out);
                pieces(base + half as isize * stride, len - half, stride, out);
            }
            None => out.push((base, len)),
        }
    }
    fn merge<A: Copy, R: Fn(A, A) -> A>(
        len: usize,
        accs: &mut impl Iterator<Item = A>,
        c: &R,
    ) -> A {
        match halves(len) {
            Some(half) => {
                let a = merge(half, accs, c);
                let b = merge(len - half, accs, c);
                c(a, b)
            }
            None => accs.next().expect("one partial result per piece"),
        }
    }
    if halves(len).is_none() {
        // One piece: no partial results to keep (small reductions allocate nothing).
        return leaf(r, x, base, len, stride);
    }
    let mut parts = Vec::new();
    pieces(base, len, stride, &mut parts);
    let mut accs = vec![r.init(); parts.len()];
    let slots = SendPtr(accs.as_mut_ptr());
    for_each_chunk(parts.len(), &|i| {
        let (b, l) = parts[i];
        let acc = leaf(r, x, b, l, stride);
        // SAFETY: `i < parts.len() == accs.len()`, and chunk `i` alone writes slot `i`.
        unsafe { *slots.get().add(i) = acc };
    });
    merge(len, &mut accs.into_iter(), &|a, b| r.combine(a, b))
}

/// One 1-D run; long runs split in halves over the pool.
fn leaf<T: Element, R: Reducer<T>>(
    r: &R,
    x: SendPtr<T>,
    base: isize,
    len: usize,
    stride: isize,
) -> R::Acc {
    if let Some(half) = halves(len) {
        let (a, b) = team::join(
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

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;
    use crate::backend::cpu::reduce::reducers::{Extreme, Sum};

    /// `whole_run` (called from this non-pool thread, so shared with the pool
    /// by `team`) must give the pool tree's result bit for bit.
    pub(crate) fn whole_run_matches_the_pool_tree() {
        let n = 4 * PAR_MIN_ELEMS * 3 + 777;
        let data: Vec<f32> = (0..n)
            .map(|i| ((i * 7919 % 1000) as f32 - 499.5) * 1e-3)
            .collect();
        let x = SendPtr(data.as_ptr() as *mut f32);
        let sum = Sum { mean: false };
        let max = Extreme::<true>;
        for (len, stride) in [(n, 1isize), (n / 2, 2), (5000, 1)] {
            let team: f32 = sum.finish(whole_run(&sum, x, 0, len, stride), len);
            let tree: f32 = sum.finish(
                crate::device::pool().install(|| leaf(&sum, x, 0, len, stride)),
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
            let m: f32 = max.finish(whole_run(&max, x, 0, len, stride), len);
            let want = vals().fold(f64::MIN, f64::max);
            assert_eq!(m as f64, want, "max len {len} stride {stride}");
        }
    }
}
