//! CPU gather and scatter along an axis: one planned traversal of the other
//! axes, and for each run the list of indexed positions, read in place from
//! the i32 or i64 index tensor (no copy when it is contiguous); moves copy
//! elements by size (one instance per item size, not per dtype) and split
//! over the pool when large; a 1-D gather prefetches its random source
//! reads. The frontend validates the indices; the gather and scatter loops
//! check each index against the axis length all the same (a compare beside
//! the loads), which `gather_checking` reports, and
//! `scatter_reduce_checking`'s loop checks each index as it combines.
//! `scatter_reduce` combines in index order, on one thread (deterministic for
//! repeated indices), in native arithmetic for add/multiply of integers, f32
//! and f64.

use super::strided::{Plan, SendPtr, PAR_MIN_ELEMS};
use super::{base_ptr, team, CpuBackend};
use crate::backend::index::{Checked, IndexBackend, ScatterOp};
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::Tensor;

/// Layout of `l` without `axis` (the offset is kept).
fn drop_axis(l: &Layout, axis: usize) -> Layout {
    let mut shape = l.shape().to_vec();
    let mut strides = l.strides().to_vec();
    shape.remove(axis);
    strides.remove(axis);
    Layout::new(shape, strides, l.offset())
}

/// An integer type an index tensor holds (i32 or i64), read as a position.
pub(super) trait IndexInt: Copy + Send + Sync {
    /// The value as a signed offset multiplier.
    fn at(self) -> isize;
}

impl IndexInt for i32 {
    #[inline(always)]
    fn at(self) -> isize {
        self as isize
    }
}

impl IndexInt for i64 {
    #[inline(always)]
    fn at(self) -> isize {
        self as isize
    }
}

/// The values of a 1-D index tensor of `I`: borrowed from its buffer when
/// contiguous (no copy), else gathered into a vector.
fn index_slice<I: IndexInt + Element>(t: &Tensor) -> std::borrow::Cow<'_, [I]> {
    let l = t.layout();
    let n = t.size();
    let (off, st) = (l.offset() as isize, l.strides()[0]);
    let p = base_ptr::<I>(t) as *const I;
    if st == 1 || n <= 1 {
        // SAFETY: a 1-D in-bounds contiguous range of a buffer of `I` that
        // the frontend keeps locked for reading during the call.
        return std::borrow::Cow::Borrowed(unsafe { std::slice::from_raw_parts(p.offset(off), n) });
    }
    // SAFETY: a 1-D in-bounds layout of a locked buffer of `I`.
    std::borrow::Cow::Owned(
        (0..n as isize)
            .map(|j| unsafe { *p.offset(off + j * st) })
            .collect(),
    )
}

/// Run `$body` with `$idx` bound to the values of the 1-D i32 or i64 index
/// tensor `$t` as a slice (`&[i32]` or `&[i64]`; one instance of the body
/// per index type).
macro_rules! with_indices {
    ($t:expr, $idx:ident => $body:expr) => {{
        let t: &Tensor = $t;
        if t.dtype() == DType::I32 {
            let v = index_slice::<i32>(t);
            let $idx: &[i32] = &v;
            $body
        } else {
            let v = index_slice::<i64>(t);
            let $idx: &[i64] = &v;
            $body
        }
    }};
}

/// Indices a 1-D gather prefetches its source element ahead. Timed
/// (`take_f32_10M_idx1M`, 2-core Zen 4 VM, a temporary build reading it from
/// the environment): 4.3 ms at 8, 3.3 at 16, 2.8 at 32, 2.7 at 64 and 128,
/// 2.9 at 256; 5.8 ms without prefetching.
const AHEAD: usize = 64;

/// Ask for the cache line at `p` (any address: a prefetch never faults).
#[inline(always)]
fn prefetch<T>(p: *const T) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: a prefetch hint has no memory effects and never faults.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(p as *const i8)
    };
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    let _ = p;
}

/// A 16-byte element (c64) for moves by size.
#[derive(Clone, Copy)]
#[repr(C, align(8))]
struct B16([u64; 2]);

/// The host base pointer of `t`'s buffer as elements of `T` (a type of the
/// dtype's size and at most its alignment: moves copy bits only).
fn sized_ptr<T>(t: &Tensor) -> *mut T {
    debug_assert_eq!(std::mem::size_of::<T>(), t.itemsize());
    t.storage()
        .host_ptr()
        .expect("cpu backend given a non-host tensor") as *mut T
}

/// `out[.., j, ..] = src[.., idx[j], ..]` (gather) or, with `scatter`,
/// `out[.., idx[j], ..] = src[.., j, ..]`, for elements of `T`'s size (bits
/// are copied, so one instance serves every dtype of a size). Split over the
/// pool above [`PAR_MIN_ELEMS`] moved elements: by index ranges when there are
/// more indices than elements per index (a 1-D take), else by ranges of the
/// other axes. Every task writes distinct elements: a gather's outputs are
/// distinct positions `j`, and a scatter's indices are distinct (the
/// contract). Each index is checked against the indexed axis's length
/// before it is used (a compare beside the loads); `false` when one lies
/// outside it (negative ones included), the tasks then stopping with part of
/// the elements moved.
///
/// # Safety
/// The frontend contract of [`IndexBackend`] but the index range; `T` has
/// the dtype's size.
unsafe fn move_sized<T: Copy, I: IndexInt>(
    src: &Tensor,
    axis: usize,
    idx: &[I],
    out: &Tensor,
    scatter: bool,
) -> bool {
    let (sl, ol) = (src.layout(), out.layout());
    let (ss, os) = (sl.strides()[axis], ol.strides()[axis]);
    let (rs, ro) = (drop_axis(sl, axis), drop_axis(ol, axis));
    let plan = Plan::new([&ro, &rs]);
    let [io, is] = plan.inner_strides();
    let (sp, op) = (SendPtr(sized_ptr::<T>(src)), SendPtr(sized_ptr::<T>(out)));
    // Index j's source and destination steps along `axis`.
    let (sj_of, oj_of): (isize, isize) = if scatter { (ss, 0) } else { (0, os) };
    let (sk_of, ok_of): (isize, isize) = if scatter { (0, os) } else { (ss, 0) };
    // The indexed axis's length: every index must lie below it.
    let n = if scatter {
        ol.shape()[axis]
    } else {
        sl.shape()[axis]
    };
    let bad = std::sync::atomic::AtomicBool::new(false);
    let body = |j0: usize, j1: usize, e0: usize, e1: usize| {
        let (sp, op) = (sp.get() as *const T, op.get());
        plan.for_each_run(e0, e1, |[o0, s0], len| {
            if bad.load(std::sync::atomic::Ordering::Relaxed) {
                return;
            }
            if len == 1 && !scatter {
                // One element per index (a 1-D take): the tight loop, with
                // the source element `AHEAD` indices on prefetched (random
                // reads of a large source miss the caches; a prefetch never
                // faults, so the index it uses need not be checked yet).
                let split = j1.saturating_sub(AHEAD).max(j0);
                for (j, &k) in (j0..split).zip(&idx[j0..split]) {
                    prefetch(sp.wrapping_offset(s0 + idx[j + AHEAD].at() * ss));
                    if k.at() as usize >= n {
                        bad.store(true, std::sync::atomic::Ordering::Relaxed);
                        return;
                    }
                    // SAFETY: offsets of in-bounds layouts at valid positions.
                    unsafe { *op.offset(o0 + j as isize * os) = *sp.offset(s0 + k.at() * ss) };
                }
                for (j, &k) in (split..j1).zip(&idx[split..j1]) {
                    if k.at() as usize >= n {
                        bad.store(true, std::sync::atomic::Ordering::Relaxed);
                        return;
                    }
                    // SAFETY: as above.
                    unsafe { *op.offset(o0 + j as isize * os) = *sp.offset(s0 + k.at() * ss) };
                }
                return;
            }
            for (j, &k) in (j0..j1).zip(&idx[j0..j1]) {
                if k.at() as usize >= n {
                    bad.store(true, std::sync::atomic::Ordering::Relaxed);
                    return;
                }
                let (j, k) = (j as isize, k.at());
                let od = o0 + j * oj_of + k * ok_of;
                let sd = s0 + j * sj_of + k * sk_of;
                if len == 1 {
                    // SAFETY: offsets of in-bounds layouts at valid positions.
                    unsafe { *op.offset(od) = *sp.offset(sd) };
                } else if io == 1 && is == 1 {
                    // SAFETY: `len` in-bounds contiguous elements each; the
                    // written tensor overlaps neither the source (contract).
                    unsafe { std::ptr::copy_nonoverlapping(sp.offset(sd), op.offset(od), len) };
                } else {
                    for i in 0..len as isize {
                        // SAFETY: offsets of in-bounds layouts at valid positions.
                        unsafe { *op.offset(od + i * io) = *sp.offset(sd + i * is) };
                    }
                }
            }
        });
    };
    let (m, numel) = (idx.len(), plan.numel());
    let threads = crate::device::num_threads();
    if threads <= 1 || m * numel < 2 * PAR_MIN_ELEMS {
        body(0, m, 0, numel);
    } else if m >= numel {
        let tasks = (m * numel / PAR_MIN_ELEMS).clamp(2, threads * 4).min(m);
        let chunk = m.div_ceil(tasks);
        team::for_each_chunk(tasks, &|t| {
            body(t * chunk, ((t + 1) * chunk).min(m), 0, numel);
        });
    } else {
        let tasks = (m * numel / PAR_MIN_ELEMS).clamp(2, threads * 4).min(numel);
        let chunk = numel.div_ceil(tasks);
        team::for_each_chunk(tasks, &|t| {
            body(0, m, t * chunk, ((t + 1) * chunk).min(numel));
        });
    }
    !bad.into_inner()
}

/// `op(d, s)` for one element: integers exactly (wrapping at the width),
/// complex through its f64 parts, other floats in f64 rounded once.
#[inline]
fn combine<T: Element>(d: T, s: T, op: ScatterOp) -> T {
    if let (Some(a), Some(b)) = (d.to_i128(), s.to_i128()) {
        return match op {
            ScatterOp::Add => T::from_i128_wrapping(a.wrapping_add(b)),
            ScatterOp::Mul => T::from_i128_wrapping(a.wrapping_mul(b)),
            ScatterOp::Max => {
                if b > a {
                    s
                } else {
                    d
                }
            }
            ScatterOp::Min => {
                if b < a {
                    s
                } else {
                    d
                }
            }
        };
    }
    let (a, b) = (d.to_f64(), s.to_f64());
    if T::DTYPE.is_complex() {
        let (ai, bi) = (d.imag_f64(), s.imag_f64());
        return match op {
            ScatterOp::Add => T::from_re_im(a + b, ai + bi),
            ScatterOp::Mul => T::from_re_im(a * b - ai * bi, a * bi + ai * b),
            // The frontend rejects max/min on complex dtypes.
            ScatterOp::Max | ScatterOp::Min => d,
        };
    }
    match op {
        ScatterOp::Add => T::from_f64(a + b),
        ScatterOp::Mul => T::from_f64(a * b),
        ScatterOp::Max if a.is_nan() || !(b.is_nan() || b > a) => d,
        ScatterOp::Min if a.is_nan() || !(b.is_nan() || b < a) => d,
        ScatterOp::Max | ScatterOp::Min => s,
    }
}

/// `dst[.., idx[j], ..] = f(dst[.., idx[j], ..], src[.., j, ..])` for `j` in
/// order, through the element pointers `sp`/`dp` of the two buffers (a flat
/// loop when both tensors are 1-D). The one walker of the reduce-scatters.
///
/// # Safety
/// The frontend contract of [`IndexBackend`] (repeated positions allowed);
/// `sp`/`dp` point at the buffers' first elements, as `T`s of the dtype's size.
#[inline(always)]
unsafe fn walk_reduce<T: Copy, I: IndexInt>(
    src: &Tensor,
    axis: usize,
    idx: &[I],
    dst: &Tensor,
    (sp, dp): (*const T, *mut T),
    f: impl Fn(T, T) -> T,
) {
    let (sl, dl) = (src.layout(), dst.layout());
    let (ss, ds) = (sl.strides()[axis], dl.strides()[axis]);
    if sl.ndim() == 1 {
        let (s0, d0) = (sl.offset() as isize, dl.offset() as isize);
        if ss == 1 && ds == 1 {
            // Both contiguous (a scatter-add of a 1-D tensor): the tight loop.
            // SAFETY: `idx.len()` in-bounds contiguous source elements.
            let s = unsafe { std::slice::from_raw_parts(sp.offset(s0), idx.len()) };
            // SAFETY: the destination's first element (in bounds).
            let d = unsafe { dp.offset(d0) };
            for (&k, &v) in idx.iter().zip(s) {
                // SAFETY: a valid position of the 1-D destination, which does
                // not overlap the source.
                unsafe {
                    let p = d.offset(k.at());
                    *p = f(*p, v);
                }
            }
            return;
        }
        for (j, &k) in idx.iter().enumerate() {
            // SAFETY: in-bounds positions of 1-D layouts; the destination
            // does not overlap the source.
            unsafe {
                let p = dp.offset(d0 + k.at() * ds);
                *p = f(*p, *sp.offset(s0 + j as isize * ss));
            }
        }
        return;
    }
    let (rs, rd) = (drop_axis(sl, axis), drop_axis(dl, axis));
    let plan = Plan::new([&rd, &rs]);
    let [id, is] = plan.inner_strides();
    plan.for_each_run(0, plan.numel(), |[d0, s0], len| {
        for (j, &k) in idx.iter().enumerate() {
            let dd = d0 + k.at() * ds;
            let sd = s0 + j as isize * ss;
            for i in 0..len as isize {
                // SAFETY: offsets of in-bounds layouts at valid positions; the
                // destination does not overlap the source.
                unsafe {
                    let p = dp.offset(dd + i * id);
                    *p = f(*p, *sp.offset(sd + i * is));
                }
            }
        }
    });
}

/// `dst[.., idx[j], ..] = op(dst[.., idx[j], ..], src[.., j, ..])` for `j` in
/// order.
///
/// # Safety
/// The frontend contract of [`IndexBackend`] (repeated positions allowed).
unsafe fn reduce_typed<T: Element, I: IndexInt>(
    src: &Tensor,
    axis: usize,
    idx: &[I],
    dst: &Tensor,
    op: ScatterOp,
) {
    let ptrs = (base_ptr::<T>(src) as *const T, base_ptr::<T>(dst));
    // SAFETY: caller contract; the base pointers of the two buffers.
    unsafe { walk_reduce(src, axis, idx, dst, ptrs, |d, s| combine(d, s, op)) }
}

/// Plain arithmetic of the types that [`combine`] computes exactly
/// natively: wrapping integers of every width (signed and unsigned share the
/// bits of a wrapping sum and of the low half of a product), and f32/f64,
/// whose sum and product rounded once equal [`combine`]'s f64 result rounded
/// once (f64 holds more than twice f32's precision plus two bits).
trait Native: Copy {
    fn add(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
}

macro_rules! native_int {
    ($($t:ty),*) => {$(
        impl Native for $t {
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            #[inline(always)]
            fn mul(self, o: Self) -> Self {
                self.wrapping_mul(o)
            }
        }
    )*};
}
native_int!(u8, u16, u32, u64);

macro_rules! native_float {
    ($($t:ty),*) => {$(
        impl Native for $t {
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                self + o
            }
            #[inline(always)]
            fn mul(self, o: Self) -> Self {
                self * o
            }
        }
    )*};
}
native_float!(f32, f64);

/// [`reduce_typed`] for `Add` / `Mul` in `T`'s native arithmetic (the same
/// results).
///
/// # Safety
/// As [`reduce_typed`]; `T` has the dtype's size and is its arithmetic type
/// (the bits of an integer dtype of that width, or f32/f64 themselves).
unsafe fn reduce_native<T: Native, I: IndexInt>(
    src: &Tensor,
    axis: usize,
    idx: &[I],
    dst: &Tensor,
    mul: bool,
) {
    let ptrs = (sized_ptr::<T>(src) as *const T, sized_ptr::<T>(dst));
    // SAFETY: caller contract; the buffers' first elements as `T`.
    unsafe {
        if mul {
            walk_reduce(src, axis, idx, dst, ptrs, T::mul)
        } else {
            walk_reduce(src, axis, idx, dst, ptrs, T::add)
        }
    }
}

/// `d[idx[j]] = f(d[idx[j]], s[j])` for `j` in order, checking each index
/// against `d`'s length as it goes: `false` at the first one outside it
/// (negative ones included), with the elements before it combined. The
/// check adds a compare and a predicted branch beside the loop's dependency
/// through `d`; it saves a separate pass over the indices.
fn combine_checking<T: Copy, I: IndexInt>(
    s: &[T],
    d: &mut [T],
    idx: &[I],
    f: impl Fn(T, T) -> T,
) -> bool {
    for (&k, &v) in idx.iter().zip(s) {
        // A negative index wraps to a huge usize, outside `d`.
        match d.get_mut(k.at() as usize) {
            Some(p) => *p = f(*p, v),
            None => return false,
        }
    }
    true
}

/// [`combine_checking`] over 1-D contiguous tensors whose elements are `T`,
/// `T`'s wrapping or native add (or, with `mul`, multiply).
///
/// # Safety
/// The frontend contract of [`IndexBackend`] but the index range; `src` and
/// `dst` 1-D, contiguous, of `T`'s size, `src` at least `idx.len()` long.
unsafe fn native_checking<T: Native, I: IndexInt>(
    src: &Tensor,
    idx: &[I],
    dst: &Tensor,
    mul: bool,
) -> bool {
    // SAFETY: the tensors' in-bounds contiguous ranges (caller); `dst`, which
    // the frontend locks for writing, overlaps neither `src` nor `idx`.
    let (s, d) = unsafe {
        (
            std::slice::from_raw_parts(
                (sized_ptr::<T>(src) as *const T).add(src.offset()),
                idx.len(),
            ),
            std::slice::from_raw_parts_mut(sized_ptr::<T>(dst).add(dst.offset()), dst.size()),
        )
    };
    if mul {
        combine_checking(s, d, idx, T::mul)
    } else {
        combine_checking(s, d, idx, T::add)
    }
}

impl CpuBackend {
    /// [`move_sized`] by element size; `Checked::OutOfRange` at an index
    /// outside the indexed axis (the frontend's contract rules that out
    /// for `gather` and `scatter`; `gather_checking` relies on it).
    fn move_axis(
        &self,
        src: &Tensor,
        axis: usize,
        indices: &Tensor,
        out: &Tensor,
        scatter: bool,
    ) -> Checked {
        if src.size() == 0 || out.size() == 0 {
            return Checked::Done;
        }
        let ok = with_indices!(indices, idx => {
            // SAFETY (every arm): frontend contract but the index range,
            // which `move_sized` checks (see the trait); each type has the
            // dtype's size.
            match src.itemsize() {
                1 => unsafe { move_sized::<u8, _>(src, axis, idx, out, scatter) },
                2 => unsafe { move_sized::<u16, _>(src, axis, idx, out, scatter) },
                4 => unsafe { move_sized::<u32, _>(src, axis, idx, out, scatter) },
                8 => unsafe { move_sized::<u64, _>(src, axis, idx, out, scatter) },
                _ => unsafe { move_sized::<B16, _>(src, axis, idx, out, scatter) },
            }
        });
        if ok {
            Checked::Done
        } else {
            Checked::OutOfRange
        }
    }
}

impl IndexBackend for CpuBackend {
    fn gather(&self, src: &Tensor, axis: usize, indices: &Tensor, out: &Tensor) -> Result<()> {
        let r = self.move_axis(src, axis, indices, out, false);
        debug_assert_eq!(r, Checked::Done, "gather: the frontend checks the indices");
        Ok(())
    }

    fn scatter(&self, src: &Tensor, axis: usize, indices: &Tensor, dst: &Tensor) -> Result<()> {
        let r = self.move_axis(src, axis, indices, dst, true);
        debug_assert_eq!(r, Checked::Done, "scatter: the frontend checks the indices");
        Ok(())
    }

    /// The gather loop checks every index as it reads (see `move_sized`).
    fn gather_checking(
        &self,
        src: &Tensor,
        axis: usize,
        indices: &Tensor,
        out: &Tensor,
    ) -> Result<Checked> {
        Ok(self.move_axis(src, axis, indices, out, false))
    }

    fn scatter_reduce(
        &self,
        src: &Tensor,
        axis: usize,
        indices: &Tensor,
        dst: &Tensor,
        op: ScatterOp,
    ) -> Result<()> {
        if src.size() == 0 || dst.size() == 0 {
            return Ok(());
        }
        let d = src.dtype();
        if matches!(op, ScatterOp::Add | ScatterOp::Mul)
            && (d.is_int() || d == DType::F32 || d == DType::F64)
        {
            let mul = op == ScatterOp::Mul;
            with_indices!(indices, idx => {
                // SAFETY (every arm): frontend contract (see the trait); the
                // type is the dtype's arithmetic type (integers: its width's
                // bits).
                match (d, d.itemsize()) {
                    (DType::F32, _) => unsafe { reduce_native::<f32, _>(src, axis, idx, dst, mul) },
                    (DType::F64, _) => unsafe { reduce_native::<f64, _>(src, axis, idx, dst, mul) },
                    (_, 1) => unsafe { reduce_native::<u8, _>(src, axis, idx, dst, mul) },
                    (_, 2) => unsafe { reduce_native::<u16, _>(src, axis, idx, dst, mul) },
                    (_, 4) => unsafe { reduce_native::<u32, _>(src, axis, idx, dst, mul) },
                    _ => unsafe { reduce_native::<u64, _>(src, axis, idx, dst, mul) },
                }
            });
            return Ok(());
        }
        with_indices!(indices, idx => {
            crate::dispatch!(@compute d, "scatter_reduce", T => {
                // SAFETY: frontend contract (see the trait).
                unsafe { reduce_typed::<T, _>(src, axis, idx, dst, op) };
            });
        });
        Ok(())
    }

    /// Fused for add and multiply of 1-D contiguous integer, f32 and f64
    /// tensors (a scatter-add of values into bins); declined otherwise.
    fn scatter_reduce_checking(
        &self,
        src: &Tensor,
        axis: usize,
        indices: &Tensor,
        dst: &Tensor,
        op: ScatterOp,
    ) -> Result<Checked> {
        let d = src.dtype();
        let flat = |t: &Tensor| t.ndim() == 1 && t.layout().strides()[0] == 1;
        if axis != 0
            || !flat(src)
            || !flat(dst)
            || !matches!(op, ScatterOp::Add | ScatterOp::Mul)
            || !(d.is_int() || d == DType::F32 || d == DType::F64)
        {
            return Ok(Checked::Declined);
        }
        let mul = op == ScatterOp::Mul;
        let done = with_indices!(indices, idx => {
            // SAFETY (every arm): frontend contract but the index range (see
            // the trait); 1-D contiguous tensors (checked above) of the
            // type's size, the source with one element per index.
            match (d, d.itemsize()) {
                (DType::F32, _) => unsafe { native_checking::<f32, _>(src, idx, dst, mul) },
                (DType::F64, _) => unsafe { native_checking::<f64, _>(src, idx, dst, mul) },
                (_, 1) => unsafe { native_checking::<u8, _>(src, idx, dst, mul) },
                (_, 2) => unsafe { native_checking::<u16, _>(src, idx, dst, mul) },
                (_, 4) => unsafe { native_checking::<u32, _>(src, idx, dst, mul) },
                _ => unsafe { native_checking::<u64, _>(src, idx, dst, mul) },
            }
        });
        Ok(if done {
            Checked::Done
        } else {
            Checked::OutOfRange
        })
    }
}
