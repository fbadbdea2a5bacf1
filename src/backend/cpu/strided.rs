//! Strided iteration for N operands of one shape: plan the traversal once (drop
//! size-1 axes, turn the output's negative strides positive, order axes by the
//! output's strides, merge axes that are contiguous in every operand), then run
//! 1-D inner loops over element ranges, on the thread pool above a size
//! threshold. Knows nothing about dtypes: callers get element offsets.

use crate::dims::Dims;
use crate::layout::Layout;

/// Elements per parallel task below which work stays on the calling thread.
/// Measured on the 2-core machine: below ~32K f32 adds a second thread costs more
/// than it saves.
pub const PAR_MIN_ELEMS: usize = 1 << 15;

/// A planned traversal of N operands over one shape. Operand 0 is the one whose
/// strides order the axes (the output, for writes).
#[derive(Clone, Debug)]
pub struct Plan<const N: usize> {
    /// Dimensions, outermost first, after dropping and merging axes.
    pub shape: Dims<usize>,
    /// Per operand, the element stride of each planned axis.
    pub strides: [Dims<isize>; N],
    /// Per operand, the element offset of the first element.
    pub offsets: [isize; N],
}

impl<const N: usize> Plan<N> {
    /// Plan a traversal of `layouts`, which all have the same shape. The visiting
    /// order is unspecified: use only for position-independent work.
    pub fn new(layouts: [&Layout; N]) -> Plan<N> {
        let shape0 = layouts[0].shape();
        debug_assert!(layouts.iter().all(|l| l.shape() == shape0));
        let mut offsets = [0isize; N];
        for (o, l) in offsets.iter_mut().zip(&layouts) {
            *o = l.offset() as isize;
        }
        if shape0.contains(&0) {
            return Plan {
                shape: Dims::from_slice(&[0]),
                strides: std::array::from_fn(|_| Dims::from_slice(&[1])),
                offsets,
            };
        }
        // Keep axes of size > 1.
        let axes: Dims<usize> = (0..shape0.len()).filter(|&a| shape0[a] > 1).collect();
        let mut dims: Dims<usize> = axes.iter().map(|&a| shape0[a]).collect();
        let mut strides: [Dims<isize>; N] =
            std::array::from_fn(|k| axes.iter().map(|&a| layouts[k].strides()[a]).collect());
        // Make operand 0's strides non-negative (reversing an axis for everyone).
        for i in 0..dims.len() {
            if strides[0][i] < 0 {
                for k in 0..N {
                    offsets[k] += (dims[i] as isize - 1) * strides[k][i];
                    strides[k][i] = -strides[k][i];
                }
            }
        }
        // Order axes by operand 0's stride, largest outermost; ties by the others.
        let mut order: Dims<usize> = (0..dims.len()).collect();
        order.sort_by(|&a, &b| {
            for s in strides.iter() {
                let c = s[b].unsigned_abs().cmp(&s[a].unsigned_abs());
                if c != std::cmp::Ordering::Equal {
                    return c;
                }
            }
            std::cmp::Ordering::Equal
        });
        dims = order.iter().map(|&i| dims[i]).collect();
        for s in strides.iter_mut() {
            *s = order.iter().map(|&i| s[i]).collect();
        }
        // Merge axis i into i+1 when contiguous for every operand.
        let mut i = dims.len();
        while i > 1 {
            i -= 1;
            let ok = strides.iter().all(|s| s[i - 1] == s[i] * dims[i] as isize);
            if ok {
                dims[i - 1] *= dims[i];
                dims.remove(i);
                for s in strides.iter_mut() {
                    let inner = s[i];
                    s[i - 1] = inner;
                    s.remove(i);
                }
            }
        }
        if dims.is_empty() {
            dims.push(1);
            for s in strides.iter_mut() {
                s.push(1);
            }
        }
        Plan {
            shape: dims,
            strides,
            offsets,
        }
    }

    /// Number of elements.
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// Stride of the innermost axis per operand.
    pub fn inner_strides(&self) -> [isize; N] {
        std::array::from_fn(|k| *self.strides[k].last().expect("plan has an axis"))
    }

    /// Visit elements `start..end` (row-major over the planned shape) as runs
    /// along the innermost axis: `f(offsets, len)` with per-operand element offsets
    /// of the run's first element; the run's strides are [`Plan::inner_strides`].
    ///
    /// A thin generic shell over one non-generic walk per `N`: the walk is
    /// compiled a handful of times instead of once per caller's closure, at
    /// the cost of one indirect call per run.
    #[inline]
    pub fn for_each_run(&self, start: usize, end: usize, mut f: impl FnMut([isize; N], usize)) {
        self.walk_runs(start, end, &mut f)
    }

    fn walk_runs(&self, start: usize, end: usize, f: &mut dyn FnMut([isize; N], usize)) {
        if start >= end {
            return;
        }
        let nd = self.shape.len();
        let inner = self.shape[nd - 1];
        // Multi-index of `start`.
        let mut idx = Dims::from_elem(0usize, nd);
        let mut rem = start;
        for a in (0..nd).rev() {
            idx[a] = rem % self.shape[a];
            rem /= self.shape[a];
        }
        let mut offs = self.offsets;
        for (k, off) in offs.iter_mut().enumerate() {
            for (&i, &s) in idx.iter().zip(&self.strides[k]) {
                *off += i as isize * s;
            }
        }
        let mut pos = start;
        while pos < end {
            let len = (inner - idx[nd - 1]).min(end - pos);
            f(offs, len);
            pos += len;
            if pos >= end {
                break;
            }
            // Advance to the start of the next run.
            for (k, off) in offs.iter_mut().enumerate() {
                *off += len as isize * self.strides[k][nd - 1];
            }
            idx[nd - 1] += len;
            let mut a = nd - 1;
            while idx[a] == self.shape[a] && a > 0 {
                for (k, off) in offs.iter_mut().enumerate() {
                    *off -= self.shape[a] as isize * self.strides[k][a];
                    *off += self.strides[k][a - 1];
                }
                idx[a] = 0;
                idx[a - 1] += 1;
                a -= 1;
            }
        }
    }

    /// Visit all elements as runs, splitting the work over the thread pool when
    /// there are more than `min_per_task` elements per task. Called from outside
    /// the pool, the calling thread takes part in the work
    /// ([`team::for_each_chunk`](super::team::for_each_chunk)).
    pub fn par_for_each_run(&self, min_per_task: usize, f: impl Fn([isize; N], usize) + Sync) {
        let n = self.numel();
        // Small work never asks the pool (not even its size).
        if n < 2 * min_per_task || crate::device::num_threads() <= 1 {
            self.for_each_run(0, n, f);
            return;
        }
        let tasks = (n / min_per_task)
            .min(crate::device::num_threads() * 4)
            .max(2);
        let chunk = n.div_ceil(tasks);
        super::team::for_each_chunk(tasks, &|t| {
            let s = t * chunk;
            let e = ((t + 1) * chunk).min(n);
            self.for_each_run(s, e, &f);
        });
    }
}

/// A raw pointer that may cross to pool threads. Each task writes a disjoint
/// element range, which the plan guarantees for a unique output layout.
#[derive(Clone, Copy, Debug)]
pub struct SendPtr<T>(pub *mut T);
// SAFETY: used only to hand base pointers to tasks that touch disjoint elements
// of a locked storage.
unsafe impl<T> Send for SendPtr<T> {}
// SAFETY: as above.
unsafe impl<T> Sync for SendPtr<T> {}

impl<T> SendPtr<T> {
    /// The pointer. Closures that call this capture the whole `SendPtr` (which
    /// is `Send` and `Sync`), not its raw field.
    #[inline(always)]
    pub fn get(&self) -> *mut T {
        self.0
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;

    fn visit<const N: usize>(p: &Plan<N>) -> Vec<[isize; N]> {
        let mut v = Vec::new();
        let s = p.inner_strides();
        p.for_each_run(0, p.numel(), |o, len| {
            for i in 0..len as isize {
                v.push(std::array::from_fn(|k| o[k] + i * s[k]));
            }
        });
        v
    }

    pub(crate) fn merges_contiguous_axes() {
        let l = Layout::contiguous(&[2, 3, 4]);
        let p = Plan::new([&l]);
        assert_eq!(p.shape, vec![24]);
    }

    pub(crate) fn transposed_pairs_match_index_arithmetic() {
        let out = Layout::contiguous(&[3, 2]);
        let src = Layout::contiguous(&[2, 3]).permute(&[1, 0]).unwrap();
        let p = Plan::new([&out, &src]);
        let mut got = visit(&p);
        got.sort();
        let mut want = Vec::new();
        for i in 0..3 {
            for j in 0..2 {
                want.push([(i * 2 + j) as isize, (j * 3 + i) as isize]);
            }
        }
        want.sort();
        assert_eq!(got, want);
    }

    pub(crate) fn ranges_cover_everything_once() {
        let out = Layout::contiguous(&[5, 7, 3]).flip_axis(1);
        let p = Plan::new([&out]);
        let n = p.numel();
        let mut seen = vec![0; 105];
        let s = p.inner_strides();
        for (a, b) in [(0, 13), (13, 50), (50, n)] {
            p.for_each_run(a, b, |o, len| {
                for i in 0..len as isize {
                    seen[(o[0] + i * s[0]) as usize] += 1;
                }
            });
        }
        assert!(seen.iter().all(|&c| c == 1));
    }
}
