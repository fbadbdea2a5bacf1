//! The reducers with their element and accumulator types erased: what the
//! reduction traversals (`inner.rs`, `outer.rs`, `mod.rs::run`) call, so that
//! the traversals (plans, trees, cascades, threads) are compiled once instead
//! of once per (reducer, dtype). Only the loops over elements stay typed:
//! [`Typed`] implements [`Lanes`] for every `Reducer<T>`, and its methods are
//! the inner loops (a contiguous run at the widest ISA, a row of lanes, the
//! outputs of a run of 1-D groups).

use super::reducers::Reducer;
use crate::backend::cpu::elementwise::simd::with_best;
use crate::dtype::Element;
use std::marker::PhantomData;
use std::mem::{align_of, size_of};

/// One partial result of any reducer, as bytes (the largest accumulator,
/// `Var`'s three f64, takes 24).
#[derive(Clone, Copy)]
#[repr(C, align(16))]
pub(crate) struct Acc([u8; 32]);

impl Acc {
    #[inline(always)]
    fn of<A: Copy>(a: A) -> Acc {
        const { assert!(size_of::<A>() <= 32 && align_of::<A>() <= 16) };
        let mut v = Acc([0; 32]);
        // SAFETY: A fits the 16-byte aligned 32 bytes (checked above).
        unsafe { (v.0.as_mut_ptr() as *mut A).write(a) };
        v
    }
    /// # Safety
    /// `self` was made by `Acc::of::<A>`.
    #[inline(always)]
    unsafe fn get<A: Copy>(self) -> A {
        // SAFETY: caller contract; alignment as in `of`.
        unsafe { (self.0.as_ptr() as *const A).read() }
    }
}

/// A row of accumulators (`n` of `size` bytes each, 16-byte aligned), the
/// partial results of `n` adjacent outputs.
pub(crate) struct AccRow {
    words: Vec<u128>,
    size: usize,
    n: usize,
}

impl AccRow {
    /// `n` accumulators of `l`, set to its initial value.
    pub(crate) fn new(l: &dyn Lanes, n: usize) -> AccRow {
        let size = l.acc_size();
        let mut r = AccRow {
            words: vec![0; (n * size).div_ceil(16)],
            size,
            n,
        };
        l.init_row(&mut r);
        r
    }
    pub(crate) fn len(&self) -> usize {
        self.n
    }
    /// Resize to `n` accumulators, all set to `l`'s initial value.
    pub(crate) fn reset(&mut self, l: &dyn Lanes, n: usize) {
        self.words.clear();
        self.words.resize((n * self.size).div_ceil(16), 0);
        self.n = n;
        l.init_row(self);
    }
    fn ptr(&mut self) -> *mut u8 {
        self.words.as_mut_ptr() as *mut u8
    }
    /// # Safety
    /// The row holds `A`s (of the reducer that made it).
    unsafe fn typed<A>(&mut self) -> &mut [A] {
        // SAFETY: n accumulators of size_of::<A>() == self.size bytes, aligned.
        unsafe { std::slice::from_raw_parts_mut(self.ptr() as *mut A, self.n) }
    }
}

/// A reducer over one element type, erased (see the module docs). Element
/// pointers are byte addresses of elements; strides are in elements.
pub(crate) trait Lanes: Sync {
    /// Bytes of one accumulator.
    fn acc_size(&self) -> usize;
    /// Bytes of one input element.
    fn elem_size(&self) -> usize;
    /// Bytes of one output element.
    fn out_size(&self) -> usize;
    /// The partial result of no elements.
    fn init(&self) -> Acc;
    /// Merge two partial results (`a` covers elements before `b`'s).
    fn combine(&self, a: Acc, b: Acc) -> Acc;
    /// Write the output of a partial result covering `count` elements to `out`.
    ///
    /// # Safety
    /// `out` is a writable output element; `a` is this reducer's.
    unsafe fn finish(&self, a: Acc, count: usize, out: *mut u8);
    /// Reduce `len` elements from `p` with stride `stride` (contiguous runs at
    /// the widest ISA).
    ///
    /// # Safety
    /// The elements are readable.
    unsafe fn run(&self, p: *const u8, len: usize, stride: isize) -> Acc;
    /// The outputs of `groups` 1-D groups: group `j` is `len` elements from
    /// `p + j * sx` with stride `stride`; its output goes to `out + j * so`.
    ///
    /// # Safety
    /// The elements are readable, the outputs writable.
    #[allow(clippy::too_many_arguments)]
    unsafe fn groups(
        &self,
        p: *const u8,
        sx: isize,
        groups: usize,
        len: usize,
        stride: isize,
        count: usize,
        out: *mut u8,
        so: isize,
    );
    /// Set every accumulator of `row` to the initial value.
    fn init_row(&self, row: &mut AccRow);
    /// `row[j]` takes element `p + j * stride` (one input row of lanes).
    ///
    /// # Safety
    /// The elements are readable; `row` is this reducer's.
    unsafe fn step_row(&self, row: &mut AccRow, p: *const u8, stride: isize);
    /// Four input rows at once (`Reducer::step_lanes4`).
    ///
    /// # Safety
    /// As [`Lanes::step_row`], for each pointer.
    unsafe fn step_row4(&self, row: &mut AccRow, p: [*const u8; 4], stride: isize);
    /// `a[j] = combine(a[j], b[j])`, then `b[j]` back to the initial value.
    ///
    /// # Safety
    /// Both rows are this reducer's, of one length.
    unsafe fn absorb_row(&self, a: &mut AccRow, b: &mut AccRow);
    /// `out + j * so` takes the output of `row[j]` (covering `count` elements).
    ///
    /// # Safety
    /// The outputs are writable; `row` is this reducer's.
    unsafe fn finish_row(&self, row: &mut AccRow, count: usize, out: *mut u8, so: isize);
}

/// [`Lanes`] of a typed reducer.
pub(crate) struct Typed<'r, T, R>(pub &'r R, PhantomData<fn(T)>);

impl<'r, T, R> Typed<'r, T, R> {
    pub(crate) fn new(r: &'r R) -> Self {
        Typed(r, PhantomData)
    }
}

impl<T: Element, R: Reducer<T>> Lanes for Typed<'_, T, R> {
    fn acc_size(&self) -> usize {
        size_of::<R::Acc>()
    }
    fn elem_size(&self) -> usize {
        size_of::<T>()
    }
    fn out_size(&self) -> usize {
        size_of::<R::Out>()
    }
    fn init(&self) -> Acc {
        Acc::of(self.0.init())
    }
    fn combine(&self, a: Acc, b: Acc) -> Acc {
        // SAFETY: partial results of this reducer (the traversals pass back
        // what it made).
        unsafe { Acc::of(self.0.combine(a.get(), b.get())) }
    }
    unsafe fn finish(&self, a: Acc, count: usize, out: *mut u8) {
        // SAFETY: caller contract.
        unsafe { *(out as *mut R::Out) = self.0.finish(a.get(), count) }
    }
    unsafe fn run(&self, p: *const u8, len: usize, stride: isize) -> Acc {
        let (r, p) = (self.0, p as *const T);
        if stride == 1 {
            // Contiguous runs vectorise: compile the reducer's loop at the widest ISA.
            return Acc::of(with_best(
                #[inline(always)]
                // SAFETY: caller contract.
                || unsafe { r.run(p, len, 1) },
            ));
        }
        // SAFETY: caller contract.
        Acc::of(unsafe { r.run(p, len, stride) })
    }
    unsafe fn groups(
        &self,
        p: *const u8,
        sx: isize,
        groups: usize,
        len: usize,
        stride: isize,
        count: usize,
        out: *mut u8,
        so: isize,
    ) {
        let (r, p, out) = (self.0, p as *const T, out as *mut R::Out);
        for j in 0..groups as isize {
            // SAFETY: caller contract.
            unsafe {
                let q = p.offset(j * sx);
                let acc = if stride == 1 {
                    with_best(
                        #[inline(always)]
                        || r.run(q, len, 1),
                    )
                } else {
                    r.run(q, len, stride)
                };
                *out.offset(j * so) = r.finish(acc, count);
            }
        }
    }
    fn init_row(&self, row: &mut AccRow) {
        let v = self.0.init();
        // SAFETY: the row was made for this reducer (its accumulator size).
        unsafe { row.typed::<R::Acc>() }.fill(v);
    }
    unsafe fn step_row(&self, row: &mut AccRow, p: *const u8, stride: isize) {
        // SAFETY: caller contract.
        unsafe {
            self.0
                .step_lanes(row.typed::<R::Acc>(), p as *const T, stride)
        }
    }
    unsafe fn step_row4(&self, row: &mut AccRow, p: [*const u8; 4], stride: isize) {
        // SAFETY: caller contract.
        unsafe {
            self.0
                .step_lanes4(row.typed::<R::Acc>(), p.map(|q| q as *const T), stride)
        }
    }
    unsafe fn absorb_row(&self, a: &mut AccRow, b: &mut AccRow) {
        let init = self.0.init();
        // SAFETY: caller contract.
        let (a, b) = unsafe { (a.typed::<R::Acc>(), b.typed::<R::Acc>()) };
        for (x, y) in a.iter_mut().zip(b.iter_mut()) {
            *x = self.0.combine(*x, *y);
            *y = init;
        }
    }
    unsafe fn finish_row(&self, row: &mut AccRow, count: usize, out: *mut u8, so: isize) {
        let out = out as *mut R::Out;
        // SAFETY: caller contract.
        for (j, &a) in unsafe { row.typed::<R::Acc>() }.iter().enumerate() {
            // SAFETY: caller contract (writable outputs).
            unsafe { *out.offset(j as isize * so) = self.0.finish(a, count) };
        }
    }
}
