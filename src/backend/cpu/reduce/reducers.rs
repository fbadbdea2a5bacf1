//! The reducers: one small value per reduction op that says how to start,
//! accumulate one element, merge two partial results and finish. The traversal
//! kernels (`inner.rs`, `outer.rs`) are generic over this trait and never know
//! which op they run.

use super::num::{AccNum, Real, Summable};
use crate::backend::cpu::elementwise::simd::with_best;
use crate::dtype::Element;

/// How one reduction op accumulates elements of type `T`.
///
/// `combine` must be associative (up to float rounding): the kernels merge
/// partial results in a tree and in any order.
pub(crate) trait Reducer<T: Element>: Sync {
    /// Partial result.
    type Acc: Copy + Send + Sync;
    /// Output element type.
    type Out: Element;
    /// The partial result of no elements.
    fn init(&self) -> Self::Acc;
    /// Accumulate one element.
    fn step(&self, acc: &mut Self::Acc, x: T);
    /// Merge two partial results (`a` covers elements before `b`'s).
    fn combine(&self, a: Self::Acc, b: Self::Acc) -> Self::Acc;
    /// The output for a partial result covering `count` elements.
    fn finish(&self, acc: Self::Acc, count: usize) -> Self::Out;

    /// Reduce `len` elements starting at `p` with element stride `stride`.
    ///
    /// # Safety
    /// Every element `p + i * stride`, `i < len`, must be readable.
    #[inline]
    unsafe fn run(&self, p: *const T, len: usize, stride: isize) -> Self::Acc {
        let mut acc = self.init();
        if stride == 1 {
            // SAFETY: caller contract (contiguous run).
            for &x in unsafe { std::slice::from_raw_parts(p, len) } {
                self.step(&mut acc, x);
            }
        } else {
            for i in 0..len as isize {
                // SAFETY: caller contract.
                self.step(&mut acc, unsafe { *p.offset(i * stride) });
            }
        }
        acc
    }

    /// Accumulate one element per lane: `acc[j]` takes `p + j * stride`.
    ///
    /// # Safety
    /// Every element `p + j * stride`, `j < acc.len()`, must be readable.
    #[inline]
    unsafe fn step_lanes(&self, acc: &mut [Self::Acc], p: *const T, stride: isize) {
        if stride == 1 {
            // SAFETY: caller contract (contiguous lanes).
            let xs = unsafe { std::slice::from_raw_parts(p, acc.len()) };
            for (a, &x) in acc.iter_mut().zip(xs) {
                self.step(a, x);
            }
        } else {
            for (j, a) in acc.iter_mut().enumerate() {
                // SAFETY: caller contract.
                self.step(a, unsafe { *p.offset(j as isize * stride) });
            }
        }
    }

    /// Accumulate four elements per lane, from `p[0]`, then `p[1]`, `p[2]`,
    /// `p[3]` (each as in [`Reducer::step_lanes`]). Reducers may group the four
    /// before adding them to the lane (sums do: a quarter of the accumulator
    /// traffic); the default steps them one after another.
    ///
    /// # Safety
    /// As for `step_lanes`, for each of the four pointers.
    #[inline]
    unsafe fn step_lanes4(&self, acc: &mut [Self::Acc], p: [*const T; 4], stride: isize) {
        for q in p {
            // SAFETY: caller contract.
            unsafe { self.step_lanes(acc, q, stride) };
        }
    }
}

/// Sum (or mean, dividing by the count at the end) in the accumulator type.
pub(crate) struct Sum {
    pub mean: bool,
}

/// Lanes of the compare-and-select loops (vectorisable).
const LANES: usize = 8;
/// f16 / bf16 values widened to f32 per block of a max/min run.
const HALF_BLOCK: usize = 256;
/// Lanes of the f64 variance sums: four AVX2 vectors per sum.
const VAR_LANES: usize = 16;
/// Lanes of the pairwise-sum leaf: independent partial sums, four AVX2
/// vectors of f32 (a dependency chain a quarter as long as with one vector).
const SUM_LANES: usize = 32;
/// Elements per pairwise leaf (64 per lane: each leaf restarts the lane
/// loop, whose set-up is not free next to 512 elements; `rnx-bench --only
/// sum_all` alternated, 512 -> 2048: two threads 0.73-0.84 -> 0.60-0.66 ms,
/// one thread 1.62-1.92 -> 1.35-1.49 ms); longer runs split in two halves
/// recursively.
pub(super) const LEAF: usize = 2048;
/// Leaves per contiguous block (`sum_block`).
const BLOCK_LEAVES: usize = 16;
/// Levels of a block's binary counter (16 leaves carry into level 4).
const BLOCK_LEVELS: usize = BLOCK_LEAVES.ilog2() as usize + 1;

impl<T: Summable> Reducer<T> for Sum {
    type Acc = T::A;
    type Out = T;
    #[inline(always)]
    fn init(&self) -> T::A {
        T::A::ZERO
    }
    #[inline(always)]
    fn step(&self, acc: &mut T::A, x: T) {
        *acc = acc.add(x.to_acc());
    }
    #[inline(always)]
    fn combine(&self, a: T::A, b: T::A) -> T::A {
        a.add(b)
    }
    #[inline]
    fn finish(&self, acc: T::A, count: usize) -> T {
        T::from_acc(if self.mean { acc.div_count(count) } else { acc })
    }

    /// Contiguous lanes add the pairwise sum of their four elements.
    #[inline]
    unsafe fn step_lanes4(&self, acc: &mut [T::A], p: [*const T; 4], stride: isize) {
        if stride != 1 {
            for q in p {
                // SAFETY: caller contract.
                unsafe { self.step_lanes(acc, q, stride) };
            }
            return;
        }
        // SAFETY: caller contract (four contiguous runs of acc.len()).
        let [x0, x1, x2, x3] = p.map(|q| unsafe { std::slice::from_raw_parts(q, acc.len()) });
        for (j, a) in acc.iter_mut().enumerate() {
            let lo = x0[j].to_acc().add(x1[j].to_acc());
            let hi = x2[j].to_acc().add(x3[j].to_acc());
            *a = a.add(lo.add(hi));
        }
    }

    /// Pairwise summation: leaves of `LEAF` elements summed in `SUM_LANES`
    /// independent lanes, halves combined recursively. Contiguous runs of up
    /// to `BLOCK_LEAVES` leaves are one block that enters the widest ISA once
    /// and pairs its leaves with a binary counter (`sum_block`); the
    /// recursion above the blocks cannot be inlined.
    unsafe fn run(&self, p: *const T, len: usize, stride: isize) -> T::A {
        let chunk = if stride == 1 {
            LEAF * BLOCK_LEAVES
        } else {
            LEAF
        };
        if len > chunk {
            let half = (len / 2).next_multiple_of(LEAF);
            // SAFETY: both halves lie inside the caller's run.
            let (a, b) = unsafe {
                (
                    Reducer::<T>::run(self, p, half, stride),
                    Reducer::<T>::run(self, p.offset(half as isize * stride), len - half, stride),
                )
            };
            return a.add(b);
        }
        if stride == 1 {
            // SAFETY: caller contract (contiguous run of `len`).
            let xs = unsafe { std::slice::from_raw_parts(p, len) };
            if len <= SUM_LANES {
                // At most one element per lane: the value `sum_block` gives
                // (one leaf's lanes added to zero lanes, which changes none:
                // a lane that starts at +0 is never -0), without its stack of
                // leaves or the ISA entry.
                return fold_lanes(leaf_lanes(xs));
            }
            return with_best(
                #[inline(always)]
                || sum_block(xs),
            );
        }
        let mut lanes = [T::A::ZERO; SUM_LANES];
        for i in 0..len {
            // SAFETY: caller contract.
            let x = unsafe { *p.offset(i as isize * stride) };
            lanes[i % SUM_LANES] = lanes[i % SUM_LANES].add(x.to_acc());
        }
        fold_lanes(lanes)
    }
}

/// Up to `BLOCK_LEAVES` contiguous leaves, summed lane by lane and paired as
/// the pairwise tree does: leaf `i`'s lanes absorb the partial sums of the
/// complete subtrees that end at it (a binary counter), so each lane is a
/// pairwise sum and the lanes are folded once per block. Against one ISA
/// entry and one fold per leaf, `rnx-bench --only sum_all` alternated on a
/// busy host: two threads 1.50-1.72 -> 1.28-1.40 ms, one thread 2.98-3.10
/// -> 2.13-2.59 ms.
#[inline(always)]
fn sum_block<T: Summable>(xs: &[T]) -> T::A {
    let mut stack = [[T::A::ZERO; SUM_LANES]; BLOCK_LEVELS];
    let mut leaves = 0usize;
    for leaf in xs.chunks(LEAF) {
        let mut cur = leaf_lanes(leaf);
        let mut j = 0;
        while leaves >> j & 1 == 1 {
            add_lanes(&mut cur, &stack[j]);
            j += 1;
        }
        stack[j] = cur;
        leaves += 1;
    }
    let mut total = [T::A::ZERO; SUM_LANES];
    for (j, level) in stack.iter().enumerate() {
        if leaves >> j & 1 == 1 {
            add_lanes(&mut total, level);
        }
    }
    fold_lanes(total)
}

/// One contiguous leaf's `SUM_LANES` independent partial sums.
#[inline(always)]
fn leaf_lanes<T: Summable>(xs: &[T]) -> [T::A; SUM_LANES] {
    let mut lanes = [T::A::ZERO; SUM_LANES];
    let mut it = xs.chunks_exact(SUM_LANES);
    for c in &mut it {
        for (l, &x) in lanes.iter_mut().zip(c) {
            *l = l.add(x.to_acc());
        }
    }
    for (l, &x) in lanes.iter_mut().zip(it.remainder()) {
        *l = l.add(x.to_acc());
    }
    lanes
}

/// `acc[k] += x[k]` lane by lane.
#[inline(always)]
fn add_lanes<A: AccNum>(acc: &mut [A; SUM_LANES], x: &[A; SUM_LANES]) {
    for (a, &b) in acc.iter_mut().zip(x) {
        *a = a.add(b);
    }
}

/// The lanes of a leaf added as a tree (halves first).
#[inline(always)]
fn fold_lanes<A: AccNum>(mut lanes: [A; SUM_LANES]) -> A {
    let mut w = SUM_LANES;
    while w > 1 {
        w /= 2;
        for k in 0..w {
            lanes[k] = lanes[k].add(lanes[k + w]);
        }
    }
    lanes[0]
}

/// Product in the accumulator type (integers wrap).
pub(crate) struct Prod;

impl<T: Summable> Reducer<T> for Prod {
    type Acc = T::A;
    type Out = T;
    #[inline(always)]
    fn init(&self) -> T::A {
        T::A::ONE
    }
    #[inline(always)]
    fn step(&self, acc: &mut T::A, x: T) {
        *acc = acc.mul(x.to_acc());
    }
    #[inline(always)]
    fn combine(&self, a: T::A, b: T::A) -> T::A {
        a.mul(b)
    }
    #[inline]
    fn finish(&self, acc: T::A, _count: usize) -> T {
        T::from_acc(acc)
    }
}

/// Maximum (`MAX == true`) or minimum: NaN propagates (the first NaN met).
pub(crate) struct Extreme<const MAX: bool>;

impl<const MAX: bool> Extreme<MAX> {
    /// Whether `x` replaces the current extreme `m` (NaN aside).
    #[inline(always)]
    fn beats<T: Real>(x: T, m: T) -> bool {
        if MAX {
            x.above(m)
        } else {
            x.below(m)
        }
    }
}

impl<T: Real, const MAX: bool> Reducer<T> for Extreme<MAX> {
    type Acc = T;
    type Out = T;
    #[inline(always)]
    fn init(&self) -> T {
        if MAX {
            T::LOWEST
        } else {
            T::HIGHEST
        }
    }
    #[inline(always)]
    fn step(&self, acc: &mut T, x: T) {
        // Once `acc` is NaN no comparison is true, so it stays NaN.
        if Self::beats(x, *acc) || x.is_nan() {
            *acc = x;
        }
    }
    #[inline(always)]
    fn combine(&self, mut a: T, b: T) -> T {
        if !a.is_nan() {
            Reducer::<T>::step(self, &mut a, b);
        }
        a
    }
    #[inline]
    fn finish(&self, acc: T, _count: usize) -> T {
        acc
    }

    /// Contiguous runs: `LANES` independent extremes (compare and select,
    /// vectorisable) and a NaN flag per lane; a NaN found returns the run's
    /// first NaN. Inlined so that callers compiled for a wider ISA
    /// (`with_best` in `inner.rs`) vectorise it at that width.
    #[inline(always)]
    unsafe fn run(&self, p: *const T, len: usize, stride: isize) -> T {
        let mut acc = Reducer::<T>::init(self);
        if stride != 1 {
            for i in 0..len as isize {
                // SAFETY: caller contract.
                Reducer::<T>::step(self, &mut acc, unsafe { *p.offset(i * stride) });
            }
            return acc;
        }
        // SAFETY: caller contract (contiguous run of `len`).
        let xs = unsafe { std::slice::from_raw_parts(p, len) };
        if T::HALF {
            // Blocks widened to f32 (exact, vectorised) and reduced there;
            // the extreme is one of the values, so narrowing it is exact.
            let mut best = Reducer::<f32>::init(self);
            let mut buf = [0f32; HALF_BLOCK];
            for c in xs.chunks(HALF_BLOCK) {
                crate::backend::cpu::half_runs::widen_run(c, &mut buf);
                // SAFETY: `buf` holds `c.len()` values.
                let r = unsafe { Reducer::<f32>::run(self, buf.as_ptr(), c.len(), 1) };
                if r.is_nan() {
                    // The run's first NaN, with its own bits.
                    return *xs.iter().find(|x| x.is_nan()).expect("a NaN was seen");
                }
                best = Reducer::<f32>::combine(self, best, r);
            }
            return T::from_f32_cast(best);
        }
        let mut lanes = [acc; LANES];
        let mut nan = [false; LANES];
        let mut it = xs.chunks_exact(LANES);
        for c in &mut it {
            for k in 0..LANES {
                let x = c[k];
                lanes[k] = if Self::beats(x, lanes[k]) {
                    x
                } else {
                    lanes[k]
                };
                nan[k] |= x.is_nan();
            }
        }
        if nan.contains(&true) || it.remainder().iter().any(|x| x.is_nan()) {
            return *xs.iter().find(|x| x.is_nan()).expect("a NaN was seen");
        }
        for &x in it.remainder() {
            Reducer::<T>::step(self, &mut acc, x);
        }
        lanes
            .iter()
            .fold(acc, |a, &b| Reducer::<T>::combine(self, a, b))
    }
}

/// `all` (`any == false`) or `any` (`any == true`) of "element is non-zero",
/// as u8.
pub(crate) struct Truth {
    pub any: bool,
}

impl<T: Element> Reducer<T> for Truth {
    type Acc = bool;
    type Out = u8;
    #[inline(always)]
    fn init(&self) -> bool {
        !self.any
    }
    #[inline(always)]
    fn step(&self, acc: &mut bool, x: T) {
        let nz = x != T::zero();
        if self.any {
            *acc |= nz;
        } else {
            *acc &= nz;
        }
    }
    #[inline(always)]
    fn combine(&self, a: bool, b: bool) -> bool {
        if self.any {
            a | b
        } else {
            a & b
        }
    }
    #[inline]
    fn finish(&self, acc: bool, _count: usize) -> u8 {
        acc as u8
    }
}

/// Variance (or standard deviation) with `ddof`, from the running
/// (count, mean, M2) of Welford's update, merged with Chan's formula; all in
/// f64.
pub(crate) struct Var {
    pub ddof: usize,
    pub sqrt: bool,
}

impl<T: Element> Reducer<T> for Var {
    type Acc = (f64, f64, f64);
    type Out = T;
    #[inline(always)]
    fn init(&self) -> (f64, f64, f64) {
        (0.0, 0.0, 0.0)
    }
    #[inline(always)]
    fn step(&self, acc: &mut (f64, f64, f64), x: T) {
        let x = x.to_f64();
        acc.0 += 1.0;
        let d = x - acc.1;
        acc.1 += d / acc.0;
        acc.2 += d * (x - acc.1);
    }
    #[inline]
    fn combine(&self, a: (f64, f64, f64), b: (f64, f64, f64)) -> (f64, f64, f64) {
        if a.0 == 0.0 {
            return b;
        }
        if b.0 == 0.0 {
            return a;
        }
        let n = a.0 + b.0;
        let d = b.1 - a.1;
        (n, a.1 + d * (b.0 / n), a.2 + b.2 + d * d * (a.0 * b.0 / n))
    }
    #[inline]
    fn finish(&self, acc: (f64, f64, f64), count: usize) -> T {
        let v = if count == 0 || self.ddof >= count {
            f64::NAN
        } else {
            acc.2 / (count - self.ddof) as f64
        };
        T::from_f64(if self.sqrt { v.sqrt() } else { v })
    }

    /// Corrected two-pass over the run (its mean, then the squared
    /// deviations and the deviations), which is faster and more accurate
    /// than the per-element update; contiguous runs make one vectorised pass
    /// per sum (`f64_sum`). Inlined into `with_best`.
    #[inline(always)]
    unsafe fn run(&self, p: *const T, len: usize, stride: isize) -> (f64, f64, f64) {
        if len == 0 {
            return (0.0, 0.0, 0.0);
        }
        let n = len as f64;
        let (m, m2, c) = if stride == 1 {
            // SAFETY: caller contract (contiguous run of `len`).
            let xs = unsafe { std::slice::from_raw_parts(p, len) };
            let m = f64_sum(xs, |x| x) / n;
            let m2 = f64_sum(xs, |x| (x - m) * (x - m));
            let c = f64_sum(xs, |x| x - m);
            (m, m2, c)
        } else {
            // SAFETY (both loops): caller contract.
            let at = |i: usize| unsafe { *p.offset(i as isize * stride) }.to_f64();
            let m = (0..len).map(at).sum::<f64>() / n;
            let (mut m2, mut c) = (0.0, 0.0);
            for i in 0..len {
                let d = at(i) - m;
                m2 += d * d;
                c += d;
            }
            (m, m2, c)
        };
        // Corrected two-pass: removes the rounding error of `m`.
        let m2 = m2 - c * c / n;
        (n, m + c / n, if m2 < 0.0 { 0.0 } else { m2 }) // NaN stays NaN
    }
}

/// The sum of `f(x)` over `xs` (x widened to f64), in `VAR_LANES`
/// independent lanes. One sum per pass: with two accumulator arrays in one
/// loop LLVM pairs the two sums in one xmm register and runs the loop scalar
/// (perf annotate: vsubsd/vmulsd per element); a stand-alone loop over 2048
/// rows of 4096 f32 took 6.5 ms that way against 3.4 ms for three one-sum
/// passes (a temporary rustc program, not committed).
#[inline(always)]
pub(super) fn f64_sum<T: Element>(xs: &[T], f: impl Fn(f64) -> f64) -> f64 {
    let mut acc = [0f64; VAR_LANES];
    let mut it = xs.chunks_exact(VAR_LANES);
    for c in &mut it {
        for k in 0..VAR_LANES {
            acc[k] += f(c[k].to_f64());
        }
    }
    let tail: f64 = it.remainder().iter().map(|x| f(x.to_f64())).sum();
    acc.iter().sum::<f64>() + tail
}
