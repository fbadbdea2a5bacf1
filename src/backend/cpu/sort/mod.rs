//! CPU stable sort along an axis: the row driver. Each row is gathered into a
//! buffer of keys (`keys.rs`) and sorted: 32-bit keys by the vectorised
//! quicksort (`quick_lanes.rs`, 16 lanes on AVX-512 CPUs, 8 on AVX2 ones;
//! `quick.rs` picks the width), 64-bit keys by the same (8 lanes on AVX-512
//! CPUs, 4 on AVX2 ones), the packed (key, index) items of an argsort by
//! `quick_lanes.rs` on AVX-512 CPUs (32-bit keys as u64 items 8 to a
//! vector, 64-bit keys as (key, index) pairs 8 to a pair of vectors),
//! everything else by the radix sort (`radix.rs`); rows run in parallel on
//! the pool, except a few long rows, which run one by one with the sort itself
//! split over the pool.
//!
//! - Values only: the bare keys are sorted (their own width: 4 bytes per f32)
//!   and mapped back to elements; equal keys are interchangeable, so the
//!   quicksort's instability cannot show. The map loses only -0.0 (read back
//!   as 0.0) and NaN payloads; when a row holds such elements, its zeros and its NaNs each
//!   form one contiguous run of the output, refilled with the row's original
//!   zero / NaN bit patterns in input order, which is the stable order.
//! - Indices (with or without values): keys packed above their u32 index
//!   (one u64 for keys up to 32 bits, one u128 for 64-bit keys), so the
//!   items are unique, any sort of them is the stable one, and values are
//!   read back through the index.
//!
//! Descending sorts use the keys' complement, so equal elements keep their order.

pub(crate) mod keys;
#[cfg(all(target_arch = "x86_64", not(miri)))]
pub(crate) mod lanes256;
#[cfg(all(target_arch = "x86_64", not(miri)))]
pub(crate) mod lanes512;
pub(crate) mod quick;
#[cfg(all(target_arch = "x86_64", not(miri)))]
pub(crate) mod quick_lanes;
pub(crate) mod radix;

use self::keys::{Key, Packed, SortKey};
use self::radix::Hist;
use super::elementwise::simd::with_best;
use super::strided::{Plan, SendPtr, PAR_MIN_ELEMS};
use super::team::{par_chunks, par_chunks_mut};
use super::{base_ptr, CpuBackend};
use crate::backend::sort::SortBackend;
use crate::buffer_cache::Buf;
use crate::error::Result;
use crate::tensor::Tensor;
use std::sync::atomic::{AtomicBool, Ordering};

/// Rows at least this long, when there are fewer rows than threads, are sorted
/// one after another with each radix pass split over the pool. Measured
/// (2-core EPYC VM, nothing else running, `rnx-bench --only sort_f32_1M
/// argsort_f32_1M`, 2 threads vs `RNX_NUM_THREADS=1`, two rounds): n = 10^6
/// sort 15.0/18.1 ms vs 16.1/19.3 ms, argsort 19.6/24.2 vs 23.4/34.7 ms: the
/// split passes gain little. Earlier numbers for n = 65_536 and 262_144
/// (split slower) were taken while another benchmark ran, so the threshold
/// sits above them, at 2^19, until a clean measurement places it.
const PAR_ROW_MIN: usize = 1 << 19;

/// In the vectorised quicksort of one long row, ranges of at least this many
/// keys sort their two sides on two threads. Measured (2-core EPYC VM, 10^6
/// f32, scratch prototype of `quick.rs`): one thread 9.2-10.1 ms, split above
/// 10^5 keys 6.2-6.7 ms; 2^16 itself was not timed separately.
const QUICK_PAR_MIN: usize = 1 << 16;

/// One row: its first element and stride in `x` and in each output.
#[derive(Clone, Copy)]
struct Row<T> {
    x: SendPtr<T>,
    sx: isize,
    vals: Option<(SendPtr<T>, isize)>,
    idx: Option<(SendPtr<i32>, isize)>,
}

impl<T: SortKey> Row<T> {
    /// Element `k` of the row.
    #[inline(always)]
    fn get(&self, k: usize) -> T {
        // SAFETY: k < the row length, in x's in-bounds layout (callers).
        unsafe { *self.x.0.offset(k as isize * self.sx) }
    }

    /// The keys of elements `start..start + out.len()` into `out` (XOR `flip`);
    /// returns whether any of them is inexact (NaN, -0.0).
    fn gather_keys(&self, start: usize, out: &mut [T::Key], flip: T::Key) -> bool {
        let mut special = false;
        if self.sx == 1 {
            // SAFETY: a contiguous in-bounds range of the row.
            let src = unsafe { std::slice::from_raw_parts(self.x.0.add(start), out.len()) };
            // Compiled for AVX2 where the CPU has it: the 64-bit keys'
            // compares and selects vectorise there, not at the x86-64
            // baseline (1M f64 sorted at AVX-512, one thread: the gather
            // and the emit were a fifth of the time).
            special = with_best(move || {
                let mut special = false;
                for (o, &e) in out.iter_mut().zip(src) {
                    special |= e.inexact();
                    *o = e.key() ^ flip;
                }
                special
            });
        } else {
            for (j, o) in out.iter_mut().enumerate() {
                let e = self.get(start + j);
                special |= e.inexact();
                *o = e.key() ^ flip;
            }
        }
        special
    }

    /// The packed (key XOR `flip`, index) of elements `start..start + out.len()`.
    fn gather_packed(&self, start: usize, out: &mut [<T::Key as Key>::Packed], flip: T::Key) {
        for (j, o) in out.iter_mut().enumerate() {
            let k = start + j;
            *o = (self.get(k).key() ^ flip).pack(k as u32);
        }
    }

    /// Write sorted keys `keys` (XOR `flip`) as values at positions `start..`.
    fn emit_keys(&self, start: usize, keys: &[T::Key], flip: T::Key) {
        let (vp, sv) = self.vals.expect("value-only sorts have a values output");
        if sv == 1 {
            // SAFETY: a contiguous range of the unique, in-bounds values row,
            // written only by this task.
            let dst = unsafe { std::slice::from_raw_parts_mut(vp.0.add(start), keys.len()) };
            with_best(move || {
                for (o, &k) in dst.iter_mut().zip(keys) {
                    *o = T::from_key(k ^ flip);
                }
            });
        } else {
            for (j, &k) in keys.iter().enumerate() {
                // SAFETY: as above, strided.
                unsafe { *vp.0.offset((start + j) as isize * sv) = T::from_key(k ^ flip) };
            }
        }
    }

    /// Write the indices (and values, read through them) of sorted packed items
    /// at positions `start..`.
    fn emit_packed(&self, start: usize, items: &[<T::Key as Key>::Packed]) {
        for (j, &p) in items.iter().enumerate() {
            let (i, k) = ((start + j) as isize, p.index() as usize);
            // SAFETY: elements of the unique, in-bounds output rows, written
            // only by this task; k < the row length.
            unsafe {
                if let Some((ip, si)) = self.idx {
                    *ip.0.offset(i * si) = k as i32;
                }
                if let Some((vp, sv)) = self.vals {
                    *vp.0.offset(i * sv) = self.get(k);
                }
            }
        }
    }

    /// After a value-only sort of a row with NaN or -0.0: refill the zero run and
    /// the NaN run of the output with the row's original elements, in order.
    /// `keys` is the sorted key buffer (XOR `flip`).
    fn fix_inexact(&self, n: usize, keys: &[T::Key], flip: T::Key, scratch: &mut Vec<T>) {
        let (vp, sv) = self.vals.expect("value-only sorts have a values output");
        for (want, target) in [
            (T::is_zero as fn(T) -> bool, T::zero_key() ^ flip),
            (T::is_nan, T::nan_key() ^ flip),
        ] {
            scratch.clear();
            scratch.extend((0..n).map(|k| self.get(k)).filter(|&e| want(e)));
            let start = keys.partition_point(|&k| k < target);
            for (j, &e) in scratch.iter().enumerate() {
                // SAFETY: the run start..start + scratch.len() holds exactly the
                // elements with this key, inside the values row.
                unsafe { *vp.0.offset((start + j) as isize * sv) = e };
            }
        }
    }
}

/// A sorted buffer and its ping-pong partner.
type Pair<E> = (Buf<E>, Buf<E>);
/// The packed (key, index) item of `T`.
type PackedOf<T> = <<T as SortKey>::Key as Key>::Packed;

/// Per-task scratch for rows of length `n`, reused across the rows a task
/// sorts: two key buffers (value-only sorts) or two packed buffers.
struct Scratch<T: SortKey> {
    keys: Option<Pair<T::Key>>,
    packed: Option<Pair<PackedOf<T>>>,
    hist: Box<Hist>,
    fix: Vec<T>,
}

impl<T: SortKey> Scratch<T> {
    fn new(n: usize, indexed: bool) -> Result<Self> {
        fn pair<E: radix::Item>(n: usize) -> Result<Pair<E>> {
            Ok((Buf::new(n, "sort")?, Buf::new(n, "sort")?))
        }
        Ok(Scratch {
            keys: if indexed { None } else { Some(pair(n)?) },
            packed: if indexed { Some(pair(n)?) } else { None },
            hist: Box::new([[0; 256]; 8]),
            fix: Vec::new(),
        })
    }

    /// Sort one row of length `n` on this thread.
    fn row(&mut self, r: &Row<T>, n: usize, flip: T::Key) {
        if let Some((keys, ktmp)) = &mut self.keys {
            let special = r.gather_keys(0, keys, flip);
            if n <= radix::SMALL || !T::Key::quick_sort(keys, usize::MAX) {
                radix::sort(keys, ktmp, &mut self.hist);
            }
            r.emit_keys(0, keys, flip);
            if T::FLOAT && special {
                r.fix_inexact(n, keys, flip, &mut self.fix);
            }
        } else {
            let (packed, ptmp) = self.packed.as_mut().expect("indexed scratch");
            r.gather_packed(0, packed, flip);
            if n <= radix::SMALL || !PackedOf::<T>::quick_sort(packed, usize::MAX) {
                radix::sort(packed, ptmp, &mut self.hist);
            }
            r.emit_packed(0, packed);
        }
    }

    /// Sort one long row with gather, passes and output split over the pool.
    fn par_row(&mut self, r: &Row<T>, n: usize, flip: T::Key, tasks: usize) {
        let chunk = n.div_ceil(tasks);
        if let Some((keys, ktmp)) = &mut self.keys {
            let special = AtomicBool::new(false);
            par_chunks_mut(keys, chunk, &|start, c| {
                if r.gather_keys(start, c, flip) {
                    special.store(true, Ordering::Relaxed);
                }
            });
            if !T::Key::quick_sort(keys, QUICK_PAR_MIN) {
                radix::par_sort(keys, ktmp, tasks);
            }
            par_chunks(keys, chunk, &|start, c| r.emit_keys(start, c, flip));
            if T::FLOAT && special.into_inner() {
                r.fix_inexact(n, keys, flip, &mut self.fix);
            }
        } else {
            let (packed, ptmp) = self.packed.as_mut().expect("indexed scratch");
            par_chunks_mut(packed, chunk, &|start, c| r.gather_packed(start, c, flip));
            if !PackedOf::<T>::quick_sort(packed, QUICK_PAR_MIN) {
                radix::par_sort(packed, ptmp, tasks);
            }
            par_chunks(packed, chunk, &|start, c| r.emit_packed(start, c));
        }
    }
}

fn run<T: SortKey>(
    x: &Tensor,
    axis: usize,
    desc: bool,
    values: Option<&Tensor>,
    idx: Option<&Tensor>,
) -> Result<()> {
    let out = idx.or(values).expect("sort asks for values or indices");
    if out.numel() == 0 {
        return Ok(());
    }
    let n = x.shape()[axis];
    let other = values.unwrap_or(out);
    let plan = Plan::new([
        &out.layout().select(axis, 0),
        &x.layout().select(axis, 0),
        &other.layout().select(axis, 0),
    ]);
    let [so, sx, sv] = plan.inner_strides();
    let (xa, oa, va) = (
        x.layout().strides()[axis],
        out.layout().strides()[axis],
        other.layout().strides()[axis],
    );
    let xp = SendPtr(base_ptr::<T>(x));
    let ip = idx.map(|i| SendPtr(base_ptr::<i32>(i)));
    let vp = values.map(|v| SendPtr(base_ptr::<T>(v)));
    let flip = if desc {
        T::Key::ONES
    } else {
        T::Key::default()
    };
    // Row `j` of a run whose first elements are at offsets `o`.
    let row = move |o: [isize; 3], j: isize| {
        let (xp, ip, vp) = (xp, ip, vp); // capture the Sync wrappers whole
        let (oo, xo, vo) = (o[0] + j * so, o[1] + j * sx, o[2] + j * sv);
        // SAFETY (all three `offset`s): the plan's offsets are in-bounds element
        // offsets of each operand's layout.
        Row {
            x: SendPtr(unsafe { xp.0.offset(xo) }),
            sx: xa,
            // With indices, operand 0 is the index output and operand 2 the
            // values; without, operand 0 is the values output.
            vals: vp.map(|p| {
                if ip.is_some() {
                    (SendPtr(unsafe { p.0.offset(vo) }), va)
                } else {
                    (SendPtr(unsafe { p.0.offset(oo) }), oa)
                }
            }),
            idx: ip.map(|p| (SendPtr(unsafe { p.0.offset(oo) }), oa)),
        }
    };
    let rows = plan.numel();
    let threads = crate::device::num_threads();
    crate::backend::cpu::team::install_for(rows.saturating_mul(n), || {
        if n >= PAR_ROW_MIN && threads > 1 && rows < threads {
            let mut s = Scratch::<T>::new(n, idx.is_some())?;
            plan.for_each_run(0, rows, |o, len| {
                for j in 0..len as isize {
                    s.par_row(&row(o, j), n, flip, threads);
                }
            });
        } else {
            // The first scratch allocation failure, if any (its task and
            // later ones skip their rows; the outputs are discarded).
            let failed = std::sync::Mutex::new(None);
            let min = (PAR_MIN_ELEMS / n.max(1)).max(1);
            plan.par_for_each_run(min, |o, len| match Scratch::<T>::new(n, idx.is_some()) {
                Ok(mut s) => {
                    for j in 0..len as isize {
                        s.row(&row(o, j), n, flip);
                    }
                }
                Err(e) => {
                    failed
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .get_or_insert(e);
                }
            });
            if let Some(e) = failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
                return Err(e);
            }
        }
        Ok(())
    })
}

impl SortBackend for CpuBackend {
    fn sort(
        &self,
        x: &Tensor,
        axis: usize,
        descending: bool,
        values: Option<&Tensor>,
        indices: Option<&Tensor>,
    ) -> Result<()> {
        crate::dispatch!(@real x.dtype(), "sort", T => run::<T>(x, axis, descending, values, indices))
    }
}
