//! Deep products split over the depth: when the depth `k` is far larger than
//! both sides of C (a `tensordot` contracting two axes, a Gram matrix of long
//! rows), each thread runs the one-thread blocked loop of `mod.rs` over its
//! own range of the depth, into C (thread 0) or a scratch copy of C (the
//! others), and the copies are added into C at the end. Each thread packs
//! its operand blocks in its own cache as it goes: the operands are read
//! from memory once, where `prepacked.rs` would first write both of them
//! packed to memory and read them back. The sum runs in another order than
//! on one thread (partial sums of the depth ranges added last), so the
//! results differ from it in the last bits, as every threaded BLAS's do.

use super::{blocked, Kernel, Packed};
use crate::backend::cpu::matmul::Mat;
use crate::backend::cpu::strided::SendPtr;
use crate::backend::cpu::team::for_each_chunk;
use crate::buffer_cache::Buf;

/// Depth per side of C from which a product splits over the depth: `k >=
/// DEEP * max(m, n)`. Measured on the 2-core Zen 3 VM (best of 5-200 runs,
/// throwaway timing program, two alternated rounds, depth split against
/// today's paths): f32 256 x 1024 x 256 0.77-0.79 against 0.85-0.88 ms
/// (a first round 0.81 against 0.75), 512 x 2048 x 512 5.8-5.9 against
/// 6.6-7.0 ms, 1024 x 4096 x 1024 45.3 against 46.6 ms; f64 512 x 2048 x
/// 512 12.1-12.4 against 13.3-14.3 ms, 1024 x 4096 x 1024 95 against
/// 100-104 ms; 256 x 16384 x 256 f32 (`tensordot_f32_256x256x64`) 12.0
/// against 13.2 ms (minimum of `rnx-bench`). Square products gain nothing
/// (`rnx-bench` minimums, three alternated rounds, every product split
/// against `prepacked.rs`: f32 512 1.47-1.49 against 1.43-1.44 ms, 1024
/// 11.5-11.6 against 11.4-11.5 ms, f64 1024 23.5-23.8 against 23.8-24.5
/// ms; at 256 the depth is one block, so one thread would run it all).
const DEEP: usize = 4;

/// Largest scratch (elements, all copies of C together) a split takes.
const MAX_SCRATCH: usize = 1 << 21;

/// Whether [`gemm`] takes this product on `nthreads` threads.
pub(super) fn fits(m: usize, n: usize, k: usize, nthreads: usize) -> bool {
    nthreads > 1
        && k >= DEEP.saturating_mul(m.max(n))
        && (nthreads - 1).saturating_mul(m).saturating_mul(n) <= MAX_SCRATCH
}

/// `c (+)= a @ b` as `mod.rs`'s `gemm`, the depth split over `nthreads`
/// threads, more than one (see [`fits`]). Returns false, having done
/// nothing, when the depth is a single block or the scratch copies of C
/// cannot be allocated.
///
/// # Safety
/// As `mod.rs`'s `gemm`.
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
    // At least one depth block per part; a depth of one block is left to
    // the other paths, which split it over the threads otherwise.
    let parts = nthreads.min(k.div_ceil(kern.kc));
    if parts < 2 {
        return false;
    }
    let per = k.div_ceil(parts);
    let size = std::mem::size_of::<T>();
    let Ok(mut buf) = Buf::<u64>::new(((parts - 1) * m * n * size).div_ceil(8), "matmul") else {
        return false;
    };
    let scratch = SendPtr(buf.as_mut_ptr() as *mut T);
    for_each_chunk(parts, &|t| {
        let k0 = t * per;
        let kt = per.min(k - k0);
        // SAFETY: depth `k0 < k` is inside both operands (caller contract);
        // part `t > 0` writes its own `m x n` copy of C inside `buf`
        // (`(parts - 1) * m * n` elements), part 0 writes `c`, which nothing
        // else touches until the parts finish.
        unsafe {
            let at = Mat {
                ptr: SendPtr(a.ptr.get().offset(k0 as isize * a.cs)),
                ..a
            };
            let bt = Mat {
                ptr: SendPtr(b.ptr.get().offset(k0 as isize * b.rs)),
                ..b
            };
            let (ct, acc) = if t == 0 {
                (c, accumulate)
            } else {
                let ptr = SendPtr(scratch.get().add((t - 1) * m * n));
                (
                    Mat {
                        ptr,
                        rs: n as isize,
                        cs: 1,
                    },
                    false,
                )
            };
            blocked(kern, m, n, kt, at, bt, ct, acc, 1);
        }
    });
    // C += each copy, rows split over the threads.
    let chunks = nthreads.min(m);
    for_each_chunk(chunks, &|t| {
        for i in (t * m / chunks)..((t + 1) * m / chunks) {
            for p in 1..parts {
                // SAFETY: row `i < m` of C (caller contract) and of copy `p`
                // (inside `buf`); each row belongs to one chunk.
                unsafe {
                    let row = scratch.get().add(((p - 1) * m + i) * n);
                    let ci = c.ptr.get().offset(i as isize * c.rs);
                    for j in 0..n {
                        let d = ci.offset(j as isize * c.cs);
                        *d = *d + *row.add(j);
                    }
                }
            }
        }
    });
    true
}
