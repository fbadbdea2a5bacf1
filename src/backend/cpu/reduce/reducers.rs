//! The reducers: one small value per reduction op that says how to start,
//! accumulate one element, merge two partial results and finish. The traversal
//! kernels (`inner.rs`, `outer.rs`) are generic over this trait and never know
//! which op they run.

use super::num::{AccNum, Real, Summable};
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
}

/// Sum (or mean, dividing by the count at the end) in the accumulator type.
pub(crate) struct Sum {
    pub mean: bool,
}

/// Lanes of the pairwise leaf: independent partial sums (vectorisable).
const LANES: usize = 8;
/// Elements per pairwise leaf; longer runs split in two halves recursively.
const LEAF: usize = 128;

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

    /// Pairwise summation: leaves of `LEAF` elements summed in `LANES`
    /// independent lanes, halves combined recursively.
    unsafe fn run(&self, p: *const T, len: usize, stride: isize) -> T::A {
        if len > LEAF {
            let half = (len / 2).next_multiple_of(LANES);
            // SAFETY: both halves lie inside the caller's run.
            let (a, b) = unsafe {
                (
                    Reducer::<T>::run(self, p, half, stride),
                    Reducer::<T>::run(self, p.offset(half as isize * stride), len - half, stride),
                )
            };
            return a.add(b);
        }
        let mut lanes = [T::A::ZERO; LANES];
        let full = len / LANES * LANES;
        if stride == 1 {
            // SAFETY: caller contract (contiguous run of `len`).
            let xs = unsafe { std::slice::from_raw_parts(p, len) };
            for c in xs[..full].chunks_exact(LANES) {
                for (l, &x) in lanes.iter_mut().zip(c) {
                    *l = l.add(x.to_acc());
                }
            }
            for (k, &x) in xs[full..].iter().enumerate() {
                lanes[k] = lanes[k].add(x.to_acc());
            }
        } else {
            for i in 0..len {
                // SAFETY: caller contract.
                let x = unsafe { *p.offset(i as isize * stride) };
                lanes[i % LANES] = lanes[i % LANES].add(x.to_acc());
            }
        }
        let mut w = LANES;
        while w > 1 {
            w /= 2;
            for k in 0..w {
                lanes[k] = lanes[k].add(lanes[k + w]);
            }
        }
        lanes[0]
    }
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

/// Maximum (NaN propagates).
pub(crate) struct Max;
/// Minimum (NaN propagates).
pub(crate) struct Min;

impl<T: Real> Reducer<T> for Max {
    type Acc = T;
    type Out = T;
    #[inline(always)]
    fn init(&self) -> T {
        T::LOWEST
    }
    #[inline(always)]
    fn step(&self, acc: &mut T, x: T) {
        // Once `acc` is NaN no comparison is true, so it stays NaN.
        if x > *acc || x.is_nan() {
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
}

impl<T: Real> Reducer<T> for Min {
    type Acc = T;
    type Out = T;
    #[inline(always)]
    fn init(&self) -> T {
        T::HIGHEST
    }
    #[inline(always)]
    fn step(&self, acc: &mut T, x: T) {
        if x < *acc || x.is_nan() {
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

    /// Two passes over the run (its mean, then the squared deviations), which
    /// is faster and more accurate than the per-element update.
    unsafe fn run(&self, p: *const T, len: usize, stride: isize) -> (f64, f64, f64) {
        if len == 0 {
            return (0.0, 0.0, 0.0);
        }
        // SAFETY (both loops): caller contract.
        let at = |i: usize| unsafe { *p.offset(i as isize * stride) }.to_f64();
        let mut s = 0.0;
        for i in 0..len {
            s += at(i);
        }
        let m = s / len as f64;
        let (mut m2, mut c) = (0.0, 0.0);
        for i in 0..len {
            let d = at(i) - m;
            m2 += d * d;
            c += d;
        }
        // Corrected two-pass: removes the rounding error of `m`.
        let m2 = m2 - c * c / len as f64;
        (
            len as f64,
            m + c / len as f64,
            if m2 < 0.0 { 0.0 } else { m2 },
        ) // NaN stays NaN
    }
}
