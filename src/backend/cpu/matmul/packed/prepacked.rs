//! The threaded packed product with both operands packed whole first: one
//! parallel region packs every A block and every B panel of every depth block
//! (the layouts of `pack.rs`), then a second one computes tiles of C, each
//! over the whole depth. Two synchronisations per product instead of two per
//! depth block (`mod.rs`'s loop). The tiles are claimed in shrinking sizes
//! ([`Claims`]), so the threads finish together even when one of them is held
//! up for a while.

use super::{even, macro_kernel, pack, Kernel, Packed, RowBlocks};
use crate::backend::cpu::matmul::Mat;
use crate::backend::cpu::strided::SendPtr;
use crate::backend::cpu::team::for_each_chunk;
use crate::buffer_cache::Buf;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Largest packed A plus packed B (bytes) this path allocates; larger
/// products take the per-depth-block loop of `mod.rs`. The buffer comes from
/// (and goes back to) the buffer cache, so repeated products reuse it.
pub(super) const MAX_BYTES: usize = 96 << 20;

/// The smallest claim of B panels (see [`Claims`]), unless a row block has
/// fewer left.
const MIN_PANELS: usize = 2;

/// B panels packed per job of the packing region (chosen, not tuned).
const PANELS_PER_JOB: usize = 16;

/// `c (+)= a @ b` as `mod.rs`'s `gemm` on `nthreads` (> 1) threads, with
/// both operands packed whole first. Returns false, having done nothing,
/// when the packed operands would exceed [`MAX_BYTES`] or cannot be
/// allocated.
///
/// # Safety
/// As `mod.rs`'s `gemm` (the caller runs inside the pool).
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn gemm<T: Packed>(
    kern: &Kernel<T>,
    m: usize,
    n: usize,
    k: usize,
    a: Mat<T>,
    b: Mat<T>,
    c: Mat<T>,
    accumulate: bool,
    nthreads: usize,
) -> bool {
    let (mr, nr) = (kern.mr, kern.nr);
    let kc_max = even(k, kern.kc, 1);
    let k_blocks = k.div_ceil(kc_max);
    let rows = RowBlocks::new(m, kern.mc_par, mr, nthreads);
    let m_blocks = rows.count;
    // Columns of packed B (whole panels).
    let n_panels = n.div_ceil(nr);
    let np = n_panels * nr;
    let a_len = m.div_ceil(mr) * mr * k;
    let len = a_len + k * np;
    let size = std::mem::size_of::<T>();
    if len.saturating_mul(size) > MAX_BYTES {
        return false;
    }
    // u64 words (aligned for f32 and f64), T items in use.
    let Ok(mut buf) = Buf::<u64>::new((len * size).div_ceil(8), "matmul") else {
        return false;
    };
    let base = SendPtr(buf.as_mut_ptr() as *mut T);
    // Packed A block `bi` at depth block `pi`: the blocks before it are whole
    // `mr`-row panels, so it starts at its first row times the depth, and
    // its depth block after the earlier ones (its rows rounded up to `mr`
    // times the depth before it). Packed B depth block `pi`: after all of A,
    // `np` columns times the depth before it.
    let block_rows = |bi: usize| rows.block(bi).1;
    let a_at = |bi: usize, pi: usize| {
        let (ic, mc) = rows.block(bi);
        ic * k + mc.div_ceil(mr) * mr * pi * kc_max
    };
    let b_at = |pi: usize| a_len + pi * kc_max * np;
    let depth = |pi: usize| kc_max.min(k - pi * kc_max);

    let a_jobs = m_blocks * k_blocks;
    let b_parts = n_panels.div_ceil(PANELS_PER_JOB);
    let pack_job = |j: usize| {
        // SAFETY (both arms): the source blocks lie inside the operands
        // (caller contract) and each job writes its own part of `buf`, whose
        // offsets stay below `len` (sized above).
        if j < a_jobs {
            let (bi, pi) = (j / k_blocks, j % k_blocks);
            unsafe {
                let src =
                    Mat {
                        ptr: SendPtr(a.ptr.get().offset(
                            rows.block(bi).0 as isize * a.rs + (pi * kc_max) as isize * a.cs,
                        )),
                        ..a
                    };
                pack::pack_a(
                    block_rows(bi),
                    depth(pi),
                    mr,
                    src,
                    base.get().add(a_at(bi, pi)),
                );
            }
        } else {
            let j = j - a_jobs;
            let (pi, part) = (j / b_parts, j % b_parts);
            let q0 = part * PANELS_PER_JOB;
            let q1 = (q0 + PANELS_PER_JOB).min(n_panels);
            unsafe {
                let src = Mat {
                    ptr: SendPtr(b.ptr.get().offset((pi * kc_max) as isize * b.rs)),
                    ..b
                };
                pack::pack_b(depth(pi), n, nr, src, base.get().add(b_at(pi)), q0..q1);
            }
        }
    };
    for_each_chunk(a_jobs + k_blocks * b_parts, &pack_job);

    // Tiles of C: a row block times a range of B panels, over the whole
    // depth, claimed by the threads in shrinking sizes (see `Claims`).
    let run_tile = |bi: usize, q: Range<usize>| {
        // SAFETY: packed blocks written above (the region has joined); the
        // tile's rows and panels of `c` belong to this claim alone.
        unsafe {
            let cblock = Mat {
                ptr: SendPtr(c.ptr.get().offset(rows.block(bi).0 as isize * c.rs)),
                ..c
            };
            for pi in 0..k_blocks {
                macro_kernel(
                    kern,
                    block_rows(bi),
                    n,
                    depth(pi),
                    base.get().add(a_at(bi, pi)),
                    base.get().add(b_at(pi)),
                    cblock,
                    q.clone(),
                    accumulate || pi > 0,
                );
            }
        }
    };
    let claims = Claims::new(m_blocks, n_panels, nthreads);
    for_each_chunk(nthreads, &|_| {
        while let Some((bi, q)) = claims.next() {
            run_tile(bi, q);
        }
    });
    drop(buf);
    true
}

/// Guided self-scheduling of C tiles over the threads: the work is the
/// `rows x panels` grid of (row block, B panel) pairs, taken in row-major
/// order by one atomic cursor. Each claim takes `remaining / (2 * threads)`
/// panels (at least [`MIN_PANELS`]), never past the end of its row block.
/// Early claims are whole row blocks (long runs of micro-kernels over one A
/// block); the last ones are a few panels, so the threads finish close
/// together: on the 2-core VM, two threads, 1024 x 1024 f64, the idle
/// thread time at the end was 128-155 us per product, against 1.65-2.94 ms
/// with fixed tiles (16 per thread). The threaded blocked loop of `mod.rs`
/// (products too large for this path) still splits into fixed units.
struct Claims {
    rows: usize,
    panels: usize,
    threads: usize,
    cursor: AtomicUsize,
}

impl Claims {
    fn new(rows: usize, panels: usize, threads: usize) -> Claims {
        Claims {
            rows,
            panels,
            threads: threads.max(1),
            cursor: AtomicUsize::new(0),
        }
    }

    /// The next tile: a row block and a range of its panels; None when all
    /// are taken.
    fn next(&self) -> Option<(usize, Range<usize>)> {
        let total = self.rows * self.panels;
        let mut cur = self.cursor.load(Ordering::Relaxed);
        loop {
            if cur >= total {
                return None;
            }
            let row = cur / self.panels;
            let want = ((total - cur) / (2 * self.threads)).max(MIN_PANELS);
            let end = (cur + want).min((row + 1) * self.panels);
            // Relaxed: the cursor only hands out disjoint ranges; the data
            // the tiles read was published by the join of the packing region.
            match self
                .cursor
                .compare_exchange_weak(cur, end, Ordering::Relaxed, Ordering::Relaxed)
            {
                Ok(_) => {
                    let first = row * self.panels;
                    return Some((row, cur - first..end - first));
                }
                Err(now) => cur = now,
            }
        }
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;

    /// Claims cover the grid exactly once, stay inside a row block, take at
    /// most a `2 * threads`-th of what is left (whole row blocks while that
    /// is a row or more), and end with a small one.
    pub(crate) fn claims_partition_the_grid() {
        for (rows, panels, threads) in [(1, 1, 2), (6, 128, 2), (16, 128, 2), (3, 7, 3), (8, 1, 4)]
        {
            let claims = Claims::new(rows, panels, threads);
            let mut seen = vec![0u8; rows * panels];
            let mut left = rows * panels;
            let mut sizes = Vec::new();
            while let Some((row, q)) = claims.next() {
                assert!(
                    row < rows && q.start < q.end && q.end <= panels,
                    "{row} {q:?}"
                );
                assert!(q.len() <= (left / (2 * threads)).max(MIN_PANELS));
                for p in q.clone() {
                    seen[row * panels + p] += 1;
                }
                left -= q.len();
                sizes.push(q.len());
            }
            assert!(
                seen.iter().all(|&s| s == 1),
                "({rows}, {panels}, {threads})"
            );
            assert!(claims.next().is_none());
            assert!(*sizes.last().unwrap() <= MIN_PANELS);
            if (rows, panels) == (16, 128) {
                // 13 whole row blocks (while at least 4 rows are left), then
                // a few dozen shrinking claims, not thousands of tiny ones.
                assert_eq!(&sizes[..13], &[128; 13]);
                assert!(sizes[13] < 128 && sizes.len() < 48, "{sizes:?}");
            }
        }
    }
}
