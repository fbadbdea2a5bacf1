//! Packed (BLIS-style) GEMM for f32 and f64 on x86-64 with AVX2 + FMA (and
//! AVX-512F where the CPU has it): the kernel choice, the blocking loops (NC
//! columns of B, KC depth, MC rows of A), the packing buffers, the split of
//! one product over threads and the edge tiles. The register micro-kernels
//! are in `micro.rs`, packing in `pack.rs`, the threaded path that packs
//! both operands whole first in `prepacked.rs`, deep products split over
//! the depth in `depth.rs`, small products without packing in `small.rs`.
//! Other CPUs and types use the `gemm` crate (see the parent module).

mod depth;
mod micro;
pub(crate) mod pack;
pub(crate) mod prepacked;
pub(crate) mod small;

use super::{Mat, Threads};
use crate::backend::cpu::strided::SendPtr;
use crate::backend::cpu::team::for_each_chunk;
use crate::dtype::Element;
use std::cell::RefCell;
use std::thread::LocalKey;

/// A micro-kernel (see `micro.rs`): `(kc, a, b, c, rs, accumulate)`.
type MicroFn<T> = unsafe fn(usize, *const T, *const T, *mut T, isize, bool);
/// A direct micro-kernel (see `micro.rs`):
/// `(kc, a, ars, acs, b, brs, c, rs, accumulate)`.
type DirectFn<T> = unsafe fn(usize, *const T, isize, isize, *const T, isize, *mut T, isize, bool);

/// A register tile and the block sizes that feed it, chosen once per process
/// by the CPU's instruction set.
#[derive(Clone, Copy)]
pub(crate) struct Kernel<T: 'static> {
    /// Rows of the register tile.
    mr: usize,
    /// Columns of the register tile.
    nr: usize,
    /// Rows of A per packed block (a multiple of `mr`; the block stays in L2).
    mc: usize,
    /// Rows of A per packed block when one product is split over threads
    /// (`prepacked.rs`; a multiple of `mr`, the block still in L2). Both
    /// threads stream B panels from L3 there, each A block one pass over
    /// them, so taller blocks read B fewer times (a 1024-row product: f64 6
    /// blocks instead of 16, f32 4 instead of 8); one thread
    /// alone keeps `mc` (192 f64 rows measured about 4% slower there).
    /// Measured on the 2-core Zen 3 VM, two threads, alternated with NumPy
    /// (means of 5-10 rounds): f64 1024 x 1024 34.7 ms with 72 rows, 32.0
    /// with 192, NumPy 32.3; f32 2048 116.0 ms with 144, 109.9 with 288,
    /// NumPy 120.0.
    mc_par: usize,
    /// Depth per packed block (a B panel `kc x nr` stays in L1, or L2 for
    /// the AVX-512 f64 kernel).
    kc: usize,
    /// Depth per packed block for products whose C is larger than L2 (see
    /// [`Kernel::for_product`]); `kc` where no larger depth was measured
    /// better.
    kc_wide: usize,
    /// Columns of B per packed block (stays in L3).
    nc: usize,
    micro: MicroFn<T>,
    /// Rows of the direct kernel's tile (`small.rs`; as wide as `nr`).
    mr_direct: usize,
    /// Largest product (multiply-adds) the direct path of `small.rs` takes.
    direct_max_flops: usize,
    /// Largest depth the direct path of `small.rs` takes.
    direct_max_k: usize,
    /// Largest B (bytes) the direct path of `small.rs` takes.
    direct_max_b_bytes: usize,
    direct: DirectFn<T>,
    /// Direct kernels of fewer rows than `mr_direct` (`(rows, kernel)`), for
    /// a last row tile of exactly that many rows: its A rows are read in
    /// place and no padding rows are computed.
    direct_edge: &'static [(usize, DirectFn<T>)],
}

impl<T: 'static> Kernel<T> {
    /// The kernel as an `m x n` product uses it: the depth per block is
    /// `kc_wide` when C is larger than L2, so that C (read and written once
    /// per depth block, from L3 or memory) is passed over fewer times.
    fn for_product(self, m: usize, n: usize) -> Kernel<T> {
        let c_bytes = m.saturating_mul(n).saturating_mul(std::mem::size_of::<T>());
        if c_bytes > cpu_facts().l2_bytes {
            Kernel {
                kc: self.kc_wide,
                ..self
            }
        } else {
            self
        }
    }

    /// The direct kernel of exactly `rows` rows, if there is one.
    fn direct_rows(&self, rows: usize) -> Option<DirectFn<T>> {
        if rows == self.mr_direct {
            return Some(self.direct);
        }
        self.direct_edge.iter().find(|e| e.0 == rows).map(|e| e.1)
    }
}

/// The largest register tile (`mr * nr`) of any kernel: edge tiles go
/// through a stack buffer of this size.
const MAX_TILE: usize = micro::MR_AVX512 * 32;

/// A type with packed micro-kernels.
pub(crate) trait Packed: Element + std::ops::Add<Output = Self> {
    /// The kernel for this CPU ([`available()`] must be true).
    fn kernel() -> Kernel<Self>;
}

impl Packed for f32 {
    fn kernel() -> Kernel<f32> {
        if avx512() {
            // 28 zmm accumulators; A block 336 x 384 (504 KiB) in L2
            // (AVX-512 CPUs have 1-2 MiB of L2; with 2 MiB a product with
            // a large C takes depth 1024, see `avx512_f32_kc_wide`); the B
            // panel 384 x 32 (48 KiB) streams from L2. Depth 384 against
            // 256 on the Zen 4 VM (`rnx-bench`, median): 2048^3 81.0 ms
            // against 88.8 on two threads, 160.8 against 165.1 on one;
            // 4096^3 638 against 702 ms; 1024^3 equal (512 measured the
            // same as 384).
            Kernel {
                mr: micro::MR_AVX512,
                nr: 32,
                mc: 336,
                mc_par: 336,
                kc: 384,
                kc_wide: avx512_f32_kc_wide(),
                nc: 4096,
                micro: micro::avx512_f32,
                mr_direct: micro::MR_AVX512_DIRECT,
                direct_max_flops: small::AVX512_FLOPS,
                direct_max_k: small::AVX512_K,
                direct_max_b_bytes: avx512_direct_max_b(),
                direct: micro::avx512_f32_direct,
                direct_edge: &[],
            }
        } else {
            // Depth 384 against 256 on the Zen 3 VM (`rnx-bench`, medians
            // of 5-7 alternated rounds, three runs): 1024^3 0.93-0.98 of
            // the time on two threads, 0.99-1.02 on one; 2048^3 0.96-0.99
            // on both. The B panel (24 KiB) still fits L1.
            Kernel {
                mr: micro::MR_AVX2,
                nr: 16,
                mc: 144,
                mc_par: 288,
                kc: 384,
                kc_wide: 384,
                nc: 4080,
                micro: micro::avx2_f32,
                mr_direct: micro::MR_AVX2,
                direct_max_flops: small::SMALL_FLOPS,
                direct_max_k: 256,
                direct_max_b_bytes: usize::MAX,
                direct: micro::avx2_f32_direct,
                direct_edge: &[
                    (1, micro::avx2_f32_direct1),
                    (2, micro::avx2_f32_direct2),
                    (3, micro::avx2_f32_direct3),
                    (4, micro::avx2_f32_direct4),
                    (5, micro::avx2_f32_direct5),
                ],
            }
        }
    }
}

impl Packed for f64 {
    fn kernel() -> Kernel<f64> {
        if avx512() {
            // 28 zmm accumulators; A block 168 x 512 (672 KiB) in L2, the
            // B panel 512 x 16 (64 KiB) streams from L2. Depth 512 against
            // 256 on the Zen 4 VM (`rnx-bench`, one thread, median,
            // alternated, 2 rounds each): 1024^3 39.4-40.4 ms against
            // 40.4-41.0, 2048^3 322-325 against 329; 112 rows per block
            // measured slower at 2048^3 (350-355 ms: B is read from L3
            // once per block).
            Kernel {
                mr: micro::MR_AVX512,
                nr: 16,
                mc: 168,
                mc_par: 168,
                kc: 512,
                kc_wide: 512,
                nc: 4096,
                micro: micro::avx512_f64,
                mr_direct: micro::MR_AVX512_DIRECT,
                direct_max_flops: small::AVX512_FLOPS,
                direct_max_k: small::AVX512_K,
                direct_max_b_bytes: avx512_direct_max_b(),
                direct: micro::avx512_f64_direct,
                direct_edge: &[],
            }
        } else {
            Kernel {
                mr: micro::MR_AVX2,
                nr: 8,
                mc: 72,
                mc_par: 192,
                kc: 256,
                kc_wide: 256,
                nc: 4080,
                micro: micro::avx2_f64,
                mr_direct: micro::MR_AVX2,
                direct_max_flops: small::SMALL_FLOPS,
                direct_max_k: 256,
                direct_max_b_bytes: usize::MAX,
                direct: micro::avx2_f64_direct,
                direct_edge: &[
                    (1, micro::avx2_f64_direct1),
                    (2, micro::avx2_f64_direct2),
                    (3, micro::avx2_f64_direct3),
                    (4, micro::avx2_f64_direct4),
                    (5, micro::avx2_f64_direct5),
                ],
            }
        }
    }
}

/// Whether this CPU runs the packed kernels (AVX2 and FMA, and
/// `RNX_SIMD=portable` not set).
pub(crate) fn available() -> bool {
    use crate::backend::cpu::elementwise::simd::{isa, Isa};
    isa() >= Isa::Avx2
}

/// Products below this many multiply-adds use the `gemm` crate's kernels,
/// which beat ours on the smallest matrices. AVX2 (f32, one thread, median of
/// `cargo run --release --example tiers -- matmul`, Zen 3 VM): n = 64: 10.2
/// vs 12.9 us; n = 80: 13.8 vs 21.0 us; n = 96: 26.4 vs 30.2 us; n = 128:
/// 71.6 vs 67.9 us (on the Zen 4 VM at `RNX_SIMD=avx2`, `rnx-bench`, the
/// direct path of `small.rs`: 64^3 6.09 us against the crate's 5.94). At
/// AVX-512 the direct 8-row tile wins from 64^3 (Zen 4 VM: f32 5.63 us
/// against 5.93, f64 10.5 against 11.1).
pub(crate) fn min_flops() -> usize {
    if avx512() {
        1 << 18
    } else {
        1 << 20
    }
}

/// Whether the packed kernels run at AVX-512F: the process runs at
/// [`Isa::Avx512`](crate::backend::cpu::elementwise::simd::Isa) (`RNX_SIMD=avx2`
/// caps them at AVX2, to compare the two).
fn avx512() -> bool {
    use crate::backend::cpu::elementwise::simd::{isa, Isa};
    isa() == Isa::Avx512
}

/// The facts of the CPU the blocking depends on, read once by CPUID.
struct CpuFacts {
    /// The vendor string is `GenuineIntel`.
    intel: bool,
    /// L2 cache per core (bytes; CPUID 0x8000_0006, which Intel and AMD
    /// both fill), 0 when the CPU does not say.
    l2_bytes: usize,
}

fn cpu_facts() -> &'static CpuFacts {
    static FACTS: std::sync::OnceLock<CpuFacts> = std::sync::OnceLock::new();
    FACTS.get_or_init(|| {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::__cpuid;
            // The vendor string: EBX, EDX, ECX of leaf 0.
            let r = __cpuid(0);
            let mut v = [0u8; 12];
            for (i, w) in [r.ebx, r.edx, r.ecx].iter().enumerate() {
                v[4 * i..4 * i + 4].copy_from_slice(&w.to_le_bytes());
            }
            let l2_bytes = if __cpuid(0x8000_0000).eax >= 0x8000_0006 {
                (__cpuid(0x8000_0006).ecx >> 16) as usize * 1024
            } else {
                0
            };
            CpuFacts {
                intel: &v == b"GenuineIntel",
                l2_bytes,
            }
        }
        #[cfg(not(target_arch = "x86_64"))]
        CpuFacts {
            intel: false,
            l2_bytes: 0,
        }
    })
}

/// The AVX-512 direct path's bound on B's bytes: [`small::INTEL_MAX_B_BYTES`]
/// on Intel CPUs, none elsewhere.
fn avx512_direct_max_b() -> usize {
    if cpu_facts().intel {
        small::INTEL_MAX_B_BYTES
    } else {
        usize::MAX
    }
}

/// The AVX-512 f32 kernel's depth per block for products whose C is larger
/// than L2 ([`Kernel::for_product`]): 1024 where L2 holds 2 MiB or more per
/// core (the A block, 336 x 1024, is 1.3 MiB), else 384 as for the others.
/// On the Intel VM (2 MiB L2; throwaway probe timing `matmul`, medians, two
/// to three alternated rounds, 1024 against 384): 4096^3 on two threads 311
/// ms against 319-321, on one 600-601 against 601-626; 2048^3 74.2-75.0
/// against 75.3-75.5 (one thread), 38.3-39.1 against 38.8 (two); 1500^3
/// 30.1-30.4 against 30.5-30.7 (one), 15.6-15.9 against 16.1-16.3 (two). A
/// small C gains nothing from it: 300 x 3000 x 300 on one thread 3.23-3.24
/// ms against 3.03-3.11. On the Zen 4 VM (1 MiB L2) 384 measured best (see
/// the kernel).
fn avx512_f32_kc_wide() -> usize {
    if cpu_facts().l2_bytes >= 2 << 20 {
        1024
    } else {
        384
    }
}

thread_local! {
    static SCRATCH_A: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
    static SCRATCH_B: RefCell<Vec<u64>> = const { RefCell::new(Vec::new()) };
}

/// Scratch buffers larger than this are not kept between calls.
const KEEP_SCRATCH_BYTES: usize = 16 << 20;

/// Run `f` with a 64-byte aligned scratch buffer of `len` elements of `T`
/// (contents unspecified), reusing the thread's buffer when it is free.
fn with_scratch<T, R>(
    key: &'static LocalKey<RefCell<Vec<u64>>>,
    len: usize,
    f: impl FnOnce(*mut T) -> R,
) -> R {
    let words = (len * std::mem::size_of::<T>()).div_ceil(8) + 8;
    let aligned = |v: &mut Vec<u64>| {
        let p = v.as_mut_ptr() as *mut u8;
        // SAFETY: the buffer has 64 spare bytes, so the aligned start plus
        // `len` elements stays inside it.
        unsafe { p.add(p.align_offset(64)) as *mut T }
    };
    key.with(|cell| match cell.try_borrow_mut() {
        Ok(mut v) if words * 8 <= KEEP_SCRATCH_BYTES => {
            if v.len() < words {
                *v = vec![0u64; words];
            }
            f(aligned(&mut v))
        }
        // In use further up this thread's stack (a stolen task), or too big
        // to keep: a fresh buffer.
        _ => f(aligned(&mut vec![0u64; words])),
    })
}

/// `c (+)= a @ b` for an `m x n` by `k` product through the packed kernels.
///
/// # Safety
/// [`available()`] is true; the caller contract of `MatKernel::gemm` holds
/// (inputs readable, `c` unique and writable, no overlap, `k > 0`).
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn gemm<T: Packed>(
    m: usize,
    n: usize,
    k: usize,
    a: Mat<T>,
    b: Mat<T>,
    c: Mat<T>,
    accumulate: bool,
    threads: Threads,
) {
    let kern = T::kernel().for_product(m, n);
    let nthreads = match threads {
        Threads::One => 1,
        Threads::Pool => crate::device::num_threads().max(1),
    };
    if small::fits(&kern, m, n, k) {
        // SAFETY: caller contract, passed on.
        return unsafe { small::gemm(&kern, m, n, k, a, b, c, accumulate, nthreads) };
    }
    // SAFETY (all three): caller contract, passed on.
    if depth::fits(m, n, k, nthreads)
        && unsafe { depth::gemm(&kern, m, n, k, a, b, c, accumulate, nthreads) }
    {
        return;
    }
    if nthreads > 1 && unsafe { prepacked::gemm(&kern, m, n, k, a, b, c, accumulate, nthreads) } {
        return;
    }
    unsafe { blocked(&kern, m, n, k, a, b, c, accumulate, nthreads) }
}

/// The blocked loop: per column block and depth block, B packed once (split
/// over the threads), then units of an A block times a range of B panels.
/// One thread, and threaded products too large for `prepacked.rs` (the
/// threads synchronise twice per depth block).
///
/// # Safety
/// As [`gemm`] (inside the pool when `nthreads > 1`).
#[allow(clippy::too_many_arguments)]
unsafe fn blocked<T: Packed>(
    kern: &Kernel<T>,
    m: usize,
    n: usize,
    k: usize,
    a: Mat<T>,
    b: Mat<T>,
    c: Mat<T>,
    accumulate: bool,
    nthreads: usize,
) {
    let (mr, nr) = (kern.mr, kern.nr);
    let kc_max = even(k, kern.kc, 1);
    let nc_max = even(n, kern.nc, nr);
    let rows = RowBlocks::new(m, kern.mc, mr, nthreads);
    let m_blocks = rows.count;
    let b_len = kc_max * nc_max.div_ceil(nr) * nr;
    with_scratch::<T, _>(&SCRATCH_B, b_len, |bbuf| {
        let bbuf = SendPtr(bbuf);
        for jc in (0..n).step_by(nc_max) {
            let nc = nc_max.min(n - jc);
            let n_panels = nc.div_ceil(nr);
            for pc in (0..k).step_by(kc_max) {
                let kc = kc_max.min(k - pc);
                // SAFETY (all blocks below): offsets stay inside the operands
                // (caller contract) and the scratch buffers (sized above).
                let bblock = Mat {
                    ptr: SendPtr(unsafe {
                        b.ptr.get().offset(pc as isize * b.rs + jc as isize * b.cs)
                    }),
                    ..b
                };
                let pack_panels = |r: std::ops::Range<usize>| unsafe {
                    pack::pack_b(kc, nc, nr, bblock, bbuf.get(), r)
                };
                if nthreads > 1 && n_panels > 1 {
                    let per = n_panels.div_ceil(nthreads);
                    for_each_chunk(nthreads, &|t| {
                        pack_panels((t * per).min(n_panels)..((t + 1) * per).min(n_panels))
                    });
                } else {
                    pack_panels(0..n_panels);
                }
                let acc = accumulate || pc > 0;
                // Units: an A block times a range of B panels.
                let parts = if nthreads > 1 {
                    (2 * nthreads).div_ceil(m_blocks).clamp(1, n_panels)
                } else {
                    1
                };
                let unit = |u: usize| {
                    let (bi, part) = (u / parts, u % parts);
                    let (ic, mc) = rows.block(bi);
                    let q = (part * n_panels / parts)..((part + 1) * n_panels / parts);
                    let a_len = mc.div_ceil(mr) * mr * kc;
                    with_scratch::<T, _>(&SCRATCH_A, a_len, |abuf| unsafe {
                        let ablock = Mat {
                            ptr: SendPtr(
                                a.ptr.get().offset(ic as isize * a.rs + pc as isize * a.cs),
                            ),
                            ..a
                        };
                        pack::pack_a(mc, kc, mr, ablock, abuf);
                        let cblock = Mat {
                            ptr: SendPtr(
                                c.ptr.get().offset(ic as isize * c.rs + jc as isize * c.cs),
                            ),
                            ..c
                        };
                        macro_kernel(kern, mc, nc, kc, abuf, bbuf.get(), cblock, q, acc);
                    })
                };
                let units = m_blocks * parts;
                if nthreads > 1 && units > 1 {
                    for_each_chunk(units, &unit);
                } else {
                    (0..units).for_each(unit);
                }
            }
        }
    })
}

/// Balanced block size for `len` in blocks of at most `max`: the same number
/// of blocks, evened out, rounded up to a multiple of `unit`.
fn even(len: usize, max: usize, unit: usize) -> usize {
    let blocks = len.div_ceil(max);
    len.div_ceil(blocks).div_ceil(unit) * unit
}

/// The row blocks of the blocked loop and of `prepacked.rs`: whole `mr`-row
/// panels of A dealt into `count` blocks (a multiple of the thread count
/// while there are panels enough) whose sizes differ by one panel at most,
/// each at most about `mc` rows. Blocks of one size rounded up to `mr` rows left a last block short
/// and an odd count: 4096 rows at 168 made 25 blocks, 13 for one of two
/// threads and 12 for the other, per depth block.
struct RowBlocks {
    m: usize,
    mr: usize,
    panels: usize,
    count: usize,
}

impl RowBlocks {
    fn new(m: usize, mc: usize, mr: usize, nthreads: usize) -> RowBlocks {
        let panels = m.div_ceil(mr);
        let per = (mc / mr).max(1);
        let count = panels
            .div_ceil(per)
            .div_ceil(nthreads.max(1))
            .saturating_mul(nthreads.max(1))
            .clamp(1, panels.max(1));
        RowBlocks {
            m,
            mr,
            panels,
            count,
        }
    }

    /// First row and number of rows of block `bi` (< `count`).
    fn block(&self, bi: usize) -> (usize, usize) {
        let at = |b: usize| (b * self.panels / self.count * self.mr).min(self.m);
        (at(bi), at(bi + 1) - at(bi))
    }
}

/// Multiply one packed A block (`mc x kc`) by the packed B panels `panels` of
/// an `kc x nc` block into `c` (at the block's first element).
///
/// # Safety
/// Packed buffers as produced by `pack.rs` for these sizes; `c` as in `gemm`.
#[allow(clippy::too_many_arguments)]
unsafe fn macro_kernel<T: Packed>(
    kern: &Kernel<T>,
    mc: usize,
    nc: usize,
    kc: usize,
    abuf: *const T,
    bbuf: *const T,
    c: Mat<T>,
    panels: std::ops::Range<usize>,
    acc: bool,
) {
    let (mr, nr) = (kern.mr, kern.nr);
    let mut tmp = [T::zero(); MAX_TILE];
    for q in panels {
        let c0 = q * nr;
        let cols = nr.min(nc - c0);
        for (p, r0) in (0..mc).step_by(mr).enumerate() {
            let rows = mr.min(mc - r0);
            // SAFETY: panel offsets inside the packed buffers; the tile's
            // elements inside `c` (only the first rows x cols are touched);
            // `tmp` holds `mr * nr <= MAX_TILE` elements.
            unsafe {
                let ap = abuf.add(p * mr * kc);
                let bp = bbuf.add(q * nr * kc);
                let cp = c.ptr.get().offset(r0 as isize * c.rs + c0 as isize * c.cs);
                if rows == mr && cols == nr && c.cs == 1 {
                    (kern.micro)(kc, ap, bp, cp, c.rs, acc);
                } else {
                    (kern.micro)(kc, ap, bp, tmp.as_mut_ptr(), nr as isize, false);
                    for i in 0..rows {
                        for j in 0..cols {
                            let d = cp.offset(i as isize * c.rs + j as isize * c.cs);
                            let t = tmp[i * nr + j];
                            *d = if acc { *d + t } else { t };
                        }
                    }
                }
            }
        }
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;

    /// `len` values in [-1, 1) from a fixed LCG.
    fn values<T: Packed>(len: usize, seed: u64) -> Vec<T> {
        let mut s = seed;
        (0..len)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                T::from_f64((s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
            })
            .collect()
    }

    /// The threaded paths (`prepacked.rs` at 2 and 3 threads' partitions, and
    /// the blocked loop's threaded split) against the one-thread blocked loop,
    /// bit for bit (each element is summed in the same order; the depth split
    /// of `depth.rs`, which sums in another order, within `tol`), and that
    /// against a plain f64 triple loop. Shapes cross the row, depth and panel
    /// block edges; A is row-major, B column-major (unit row stride), C has a
    /// row stride wider than its width; with and without accumulating.
    fn paths_agree<T: Packed>(tol: f64) {
        if !available() {
            // The packed kernels exist only on CPUs with AVX2 and FMA; the
            // other CPUs use the gemm crate (tested through matmul itself).
            return;
        }
        // The kernel's depth per block, and the larger one of products
        // with a large C where the CPU has one.
        let base = T::kernel();
        let wide = Kernel {
            kc: base.kc_wide,
            ..base
        };
        let kernels = if wide.kc != base.kc {
            vec![base, wide]
        } else {
            vec![base]
        };
        for kern in kernels {
            for (m, n, k) in [
                (150, 37, 300),
                (13, 70, 513),
                (145, 17, 256),
                (290, 130, 40),
                (40, 70, 769),
                (299, 33, 1100),
                (31, 18, 515),
                (7, 9, 2000),
                // Depths below, at and just past the AVX-512 tile's 14 rows
                // (its first 14 steps each request one row of the C tile).
                (30, 40, 5),
                (29, 33, 14),
                (45, 64, 17),
            ] {
                let a = values::<T>(m * k, 1);
                let b = values::<T>(k * n, 2);
                let c0 = values::<T>(m * (n + 3), 3);
                let mat = |v: &[T], rs: usize, cs: usize| Mat {
                    ptr: SendPtr(v.as_ptr() as *mut T),
                    rs: rs as isize,
                    cs: cs as isize,
                };
                for accumulate in [false, true] {
                    let run = |path: &dyn Fn(Mat<T>)| {
                        let c = c0.clone();
                        path(mat(&c, n + 3, 1));
                        c
                    };
                    let (am, bm) = (mat(&a, k, 1), mat(&b, 1, k));
                    // SAFETY (all): operands sized for their layouts above; c is
                    // a fresh copy per run.
                    let want =
                        run(&|c| unsafe { blocked(&kern, m, n, k, am, bm, c, accumulate, 1) });
                    for i in 0..m {
                        for j in 0..n {
                            let mut r = if accumulate {
                                c0[i * (n + 3) + j].to_f64()
                            } else {
                                0.0
                            };
                            for p in 0..k {
                                r += a[i * k + p].to_f64() * b[j * k + p].to_f64();
                            }
                            let got = want[i * (n + 3) + j].to_f64();
                            assert!(
                                (got - r).abs() <= tol,
                                "({m}, {n}, {k}) [{i}, {j}]: {got} vs {r}"
                            );
                        }
                        for j in n..n + 3 {
                            assert_eq!(
                                want[i * (n + 3) + j].to_f64(),
                                c0[i * (n + 3) + j].to_f64()
                            );
                        }
                    }
                    // Inside the pool (rayon's loops) and from outside it (the
                    // calling thread starts, `team::for_each_chunk`).
                    let threaded = || {
                        for t in [2, 3] {
                            let got = run(&|c| {
                                let done = unsafe {
                                    prepacked::gemm(&kern, m, n, k, am, bm, c, accumulate, t)
                                };
                                assert!(done, "prepacked declined ({m}, {n}, {k})");
                            });
                            assert!(got == want, "prepacked, {t} threads, ({m}, {n}, {k})");
                            let got = run(&|c| unsafe {
                                blocked(&kern, m, n, k, am, bm, c, accumulate, t)
                            });
                            assert!(got == want, "blocked, {t} threads, ({m}, {n}, {k})");
                            // The depth split sums in another order: within
                            // `tol` of the one-thread loop, padding untouched.
                            let got = run(&|c| {
                                let done = unsafe {
                                    depth::gemm(&kern, m, n, k, am, bm, c, accumulate, t)
                                };
                                assert_eq!(done, k > kern.kc, "depth split ({m}, {n}, {k})");
                            });
                            if k <= kern.kc {
                                // A depth of one block is declined, C untouched.
                                assert!(got == c0, "declined depth split wrote C");
                                continue;
                            }
                            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                                let ok = if i % (n + 3) < n {
                                    (g.to_f64() - w.to_f64()).abs() <= tol
                                } else {
                                    g.to_f64() == w.to_f64()
                                };
                                assert!(ok, "depth, {t} threads, ({m}, {n}, {k}) [{i}]");
                            }
                        }
                    };
                    crate::device::pool().install(threaded);
                    threaded();
                }
            }
        }
    }

    /// Row blocks tile `0..m` in order, each a whole number of `mr`-row
    /// panels (the last may end at `m`), sizes at most one panel apart and
    /// at most `mc` rounded up to a panel; the count is a multiple of the
    /// thread count whenever there are that many panels.
    pub(crate) fn row_blocks_split_evenly() {
        for (m, mc, mr, threads) in [
            (4096, 168, 14, 2),
            (1024, 168, 14, 1),
            (1024, 168, 14, 2),
            (150, 72, 6, 2),
            (13, 168, 14, 2),
            (29, 28, 14, 3),
            (1, 168, 14, 2),
            (700, 96, 6, 4),
        ] {
            let rb = RowBlocks::new(m, mc, mr, threads);
            let panels = m.div_ceil(mr);
            if panels >= threads {
                assert_eq!(rb.count % threads, 0, "({m}, {mc}, {mr}, {threads})");
            }
            let mut next = 0;
            let mut sizes = Vec::new();
            for bi in 0..rb.count {
                let (start, rows) = rb.block(bi);
                assert_eq!(start, next, "({m}, {mc}, {mr}, {threads}) block {bi}");
                assert!(rows > 0 && rows <= mc.div_ceil(mr) * mr, "{rows}");
                assert!(start + rows == m || rows % mr == 0, "{rows}");
                sizes.push(rows.div_ceil(mr));
                next = start + rows;
            }
            assert_eq!(next, m);
            let (lo, hi) = (sizes.iter().min().unwrap(), sizes.iter().max().unwrap());
            assert!(hi - lo <= 1, "({m}, {mc}, {mr}, {threads}): {sizes:?}");
            if (m, threads) == (4096, 2) {
                // 293 panels in 26 blocks of 11 or 12 (was 25 of 12 and 5).
                assert_eq!(rb.count, 26);
            }
        }
    }

    pub(crate) fn paths_agree_f32() {
        paths_agree::<f32>(1e-3);
    }

    pub(crate) fn paths_agree_f64() {
        paths_agree::<f64>(1e-10);
    }
}
