//! The one N-operand traversal that the elementwise kernels, casts and copies
//! run on, compiled once per operand count instead of once per op and dtype.
//!
//! A caller hands over the operands (output first) as type-erased byte
//! pointers with their layouts and element sizes, plus a *run kernel*: a
//! `dyn Fn` that processes one run of `len` elements, given each operand's
//! pointer at the run's first element and its element stride. Everything
//! around the kernel lives here: the flat shortcut for contiguous (or
//! repeated, stride-0) operands, the strided plan, the split over the thread
//! pool, and the tiled walk for an input transposed against the output, whose
//! tile is first transposed into a buffer (by element size: five
//! instantiations for all dtypes) so that the kernel reads it contiguously.
//! Only the kernel (the inner loop, per op and dtype) is generic; see
//! `elementwise/engine.rs` for the typed shells. Knows nothing about dtypes
//! or ops.

use super::blocked::TILE;
use super::strided::{Plan, SendPtr};
use super::team::par_range;
use super::transpose::transpose_block;
use crate::layout::Layout;
use crate::tensor::Tensor;
use std::cell::RefCell;

/// One operand of a traversal: its layout, the address of its storage's
/// element 0 and its element size in bytes.
#[derive(Clone, Copy)]
pub(crate) struct Operand<'a> {
    pub layout: &'a Layout,
    pub base: *mut u8,
    pub size: usize,
}

// SAFETY: an operand is handed to the pool's tasks of one traversal, which
// touch disjoint elements of locked storages (the contract of [`traverse`]).
unsafe impl Send for Operand<'_> {}
// SAFETY: as above.
unsafe impl Sync for Operand<'_> {}

impl<'a> Operand<'a> {
    /// The operand of a host tensor (its storage's base address).
    pub(crate) fn of(t: &'a Tensor) -> Operand<'a> {
        Operand {
            layout: t.layout(),
            base: t
                .storage()
                .host_ptr()
                .expect("cpu backend given a non-host tensor"),
            size: t.dtype().itemsize(),
        }
    }
}

/// A run kernel: `k(ptrs, strides, len, steps, count)` processes `count`
/// runs of `len` elements; element `i` of run `r` of operand `j` is at
/// `ptrs[j] + r * steps[j] + i * strides[j]` elements (operand 0 is the
/// output). Strides and steps may be 0 (a repeated input) or negative. The
/// runs of a tile come in one call (`count` > 1), so the kernel's loop, not an
/// indirect call, walks them.
pub(crate) type RunKernel<'a, const N: usize> =
    dyn Fn([*mut u8; N], [isize; N], usize, [isize; N], usize) + Sync + 'a;

/// The pointers of run `r` of a kernel call (`ptrs[j] + r * steps[j]`
/// elements of type `T_j`, whose sizes are `sizes`): for kernels that take
/// the runs one by one.
#[inline(always)]
pub(crate) fn run_ptrs<const N: usize>(
    ptrs: [*mut u8; N],
    steps: [isize; N],
    sizes: [usize; N],
    r: usize,
) -> [*mut u8; N] {
    std::array::from_fn(|j| ptrs[j].wrapping_offset(r as isize * steps[j] * sizes[j] as isize))
}

/// Run `task(start, end)` over `0..n`, on the pool when there are more than
/// `grain` elements per task.
pub(crate) fn drive(n: usize, grain: usize, task: &(dyn Fn(usize, usize) + Sync)) {
    // Small work never asks the pool (not even its size).
    if n < 2 * grain {
        task(0, n);
        return;
    }
    let threads = crate::device::num_threads();
    if threads <= 1 {
        task(0, n);
        return;
    }
    let tasks = (n / grain).min(threads * 4).max(2);
    let chunk = n.div_ceil(tasks);
    par_range(tasks, 1, &|t| task(t * chunk, ((t + 1) * chunk).min(n)));
}

/// The inner strides of a traversal that is one flat run: the output (first)
/// C-contiguous and each input C-contiguous (stride 1) or a single repeated
/// element (stride 0); `None` when the general plan is needed. Then element
/// `i` of the run is at `offset + i * stride` in every operand, which is
/// exactly what the plan would merge these layouts into, without building it.
#[inline]
fn flat<const N: usize>(ops: &[Operand; N]) -> Option<[isize; N]> {
    if !super::shortcuts() {
        return None;
    }
    let mut s = [1isize; N];
    for (k, o) in ops.iter().enumerate() {
        let l = o.layout;
        if l.is_c_contiguous() {
            continue;
        }
        if k > 0
            && l.shape()
                .iter()
                .zip(l.strides())
                .all(|(&d, &st)| st == 0 || d == 1)
        {
            s[k] = 0;
        } else {
            return None;
        }
    }
    Some(s)
}

/// Byte address of element offset `off` of an operand.
#[inline(always)]
fn at(o: &Operand, off: isize) -> *mut u8 {
    o.base.wrapping_offset(off * o.size as isize)
}

/// Visit every element of the operands' common shape, run by run, with
/// `kernel` (see [`RunKernel`]). Runs are split over the thread pool above
/// `grain` elements per task. With `stage`, an input transposed against the
/// output is walked in square tiles and staged through a tile buffer, so its
/// runs are contiguous; without, the plan's runs are used as they are.
///
/// # Safety
/// Every layout lies inside its storage (at `base`, elements of `size` bytes);
/// the output's layout maps distinct elements to distinct addresses; each
/// input is exactly the output or disjoint from it; the storages are locked
/// for the duration (reads of inputs, writes of the output); `kernel` does
/// only what its run's pointers allow.
pub(crate) unsafe fn traverse<const N: usize>(
    ops: [Operand; N],
    grain: usize,
    stage: bool,
    kernel: &RunKernel<N>,
) {
    let bases: [SendPtr<u8>; N] = std::array::from_fn(|k| SendPtr(ops[k].base));
    let sizes: [isize; N] = std::array::from_fn(|k| ops[k].size as isize);
    if let Some(strides) = flat(&ops) {
        let n = ops[0].layout.numel();
        if n == 0 {
            return;
        }
        let offs: [isize; N] = std::array::from_fn(|k| ops[k].layout.offset() as isize);
        drive(n, grain, &|s, e| {
            let i = s as isize;
            let p = std::array::from_fn(|k| {
                bases[k]
                    .get()
                    .wrapping_offset((offs[k] + i * strides[k]) * sizes[k])
            });
            kernel(p, strides, e - s, [0; N], 1)
        });
        return;
    }
    let plan = Plan::new(ops.map(|o| o.layout));
    let inner = plan.inner_strides();
    if stage && let Some(steps) = plan.blocked_strides() {
        plan.par_for_each_tile(grain, |offs, na, nb| {
            // SAFETY: the tile lies inside every layout (plan of in-bounds
            // layouts, caller contract); each input is exactly the output or
            // disjoint from it, and this task alone writes the tile.
            unsafe { tile(&ops, offs, inner, steps, na, nb, kernel) }
        });
        return;
    }
    drive(plan.numel(), grain, &|s, e| {
        plan.for_each_run(s, e, |offs, len| {
            let p = std::array::from_fn(|k| bases[k].get().wrapping_offset(offs[k] * sizes[k]));
            kernel(p, inner, len, [0; N], 1)
        });
    });
}

thread_local! {
    /// Tile staging buffers of the calling thread, reused across tiles.
    static STAGE: RefCell<Vec<u128>> = const { RefCell::new(Vec::new()) };
}

/// Elements (of 16 bytes) per staged input: a full tile of the largest dtype.
const STAGE_WORDS: usize = TILE * TILE;

/// One tile of a blocked plan: inputs that are unit-stride across the runs
/// and strided along them are transposed into a staging buffer, then the
/// kernel runs over the tile's `nb` runs of `na` elements.
///
/// # Safety
/// As [`traverse`], for the tile at `offs` (`na, nb <= TILE`).
unsafe fn tile<const N: usize>(
    ops: &[Operand; N],
    offs: [isize; N],
    inner: [isize; N],
    steps: [isize; N],
    na: usize,
    nb: usize,
    kernel: &RunKernel<N>,
) {
    let staged: [bool; N] = std::array::from_fn(|k| k > 0 && inner[k] != 1 && steps[k] == 1);
    let run_all = |buf: &mut [u128]| {
        let (mut strides, mut steps) = (inner, steps);
        let mut first: [*mut u8; N] = std::array::from_fn(|k| at(&ops[k], offs[k]));
        for k in 0..N {
            if staged[k] {
                let dst = buf[(k - 1) * STAGE_WORDS..].as_mut_ptr() as *mut u8;
                // SAFETY: the source block is readable (caller contract); the
                // buffer part holds TILE * TILE elements of up to 16 bytes.
                unsafe { transpose_bytes(ops[k].size, na, nb, first[k], inner[k], dst) };
                first[k] = dst;
                strides[k] = 1;
                steps[k] = na as isize;
            }
        }
        kernel(first, strides, na, steps, nb);
    };
    if !staged.iter().any(|&s| s) {
        return run_all(&mut []);
    }
    let words = (N - 1) * STAGE_WORDS;
    let fresh = |run: &dyn Fn(&mut [u128])| {
        let mut v = vec![0u128; words];
        run(&mut v)
    };
    STAGE.with(|cell| match cell.try_borrow_mut() {
        Ok(mut v) => {
            if v.len() < words {
                v.resize(words, 0);
            }
            run_all(&mut v)
        }
        // A nested traversal on this thread (not expected): its own buffer.
        Err(_) => fresh(&run_all),
    });
}

/// `dst[j * na + i] = src[i * stride + j]` (elements of `size` bytes) for
/// `i < na`, `j < nb`: the tile of a transposed input, row `j` holding run `j`.
///
/// # Safety
/// The source elements are readable, `dst` holds `na * nb` elements, and they
/// do not overlap.
unsafe fn transpose_bytes(
    size: usize,
    na: usize,
    nb: usize,
    src: *const u8,
    stride: isize,
    dst: *mut u8,
) {
    let ld = na as isize;
    // SAFETY: caller contract, for the plain-bits type of the element's size.
    unsafe {
        match size {
            1 => transpose_block::<u8>(na, nb, src, stride, dst, ld),
            2 => transpose_block::<u16>(na, nb, src as _, stride, dst as _, ld),
            4 => transpose_block::<u32>(na, nb, src as _, stride, dst as _, ld),
            8 => transpose_block::<u64>(na, nb, src as _, stride, dst as _, ld),
            16 => transpose_block::<crate::C64>(na, nb, src as _, stride, dst as _, ld),
            _ => unreachable!("element size {size}"),
        }
    }
}
