//! Sorting a buffer of unsigned keys ascending with an AVX-512 quicksort:
//! u32 keys 16 to a vector, the 16-lane counterpart of `quick.rs` (same
//! pivots, equal-key rule, depth limit and parallel split), and u64 keys 8 to
//! a vector (value sorts of f64 / i64 / u64, which AVX2 cannot do: it has no
//! 64-bit minimum), one body generic over the key width ([`Lanes`]).
//! Partitioning: `U` vectors per step read from the end with less free room;
//! each vector is compared with the pivot into a mask, its smaller keys packed
//! by the register form of `vpcompressd` / `vpcompressq` and stored whole at
//! the left end, its other keys packed the same way and stored with a masked
//! store ending at the right end (the memory form of compress is microcoded
//! and slow on AMD Zen 4). Leaves of at most 16 vectors of keys are sorted in
//! up to sixteen registers, as a matrix whose element `i` sits in lane `i / R`,
//! register `i % R` (`R` registers): a sorting network across the registers
//! sorts every lane's `R` keys, log2(lanes) rounds of bitonic merges (lane
//! permutes, min / max, masked blends) merge runs of `R` keys into one run of
//! `lanes * R`, and `log2 R` perfect shuffles transpose the result into memory
//! order; partial leaves are padded with the largest key by masked loads. Runs
//! only on CPUs with AVX-512 F/BW/DQ/VL; knows nothing about tensors or dtypes.

use std::arch::x86_64::*;

/// Vectors of keys read per partition step.
const U: usize = 8;
/// Registers of the largest leaf: ranges up to `REGS * K::N` keys are sorted in
/// registers, longer ones are partitioned.
const REGS: usize = 16;
// A partitioned range holds more than the `2 U` vectors `partition` keeps.
const _: () = assert!(2 * U <= REGS);

/// A key width: its lanes per 512-bit vector and the vector operations the
/// partition and the leaf networks use. Masks travel as `u32` (the low `N`
/// bits); every method needs AVX-512 F (the callers' `target_feature`).
pub(super) trait Lanes: Copy + Ord + Default + Send + Sync + 'static {
    /// Keys per vector.
    const N: usize;
    /// The largest key (leaf padding).
    const MAX: Self;
    /// The mask of the lanes whose index has bit `s` set, for each `s`
    /// below log2 `N`.
    const UPPER: [u32; 4];
    /// `self + 1` (never called on `MAX`).
    fn succ(self) -> Self;
    /// Every lane `k`.
    unsafe fn splat(k: Self) -> __m512i;
    /// The `valid` lanes of `x` below `p`'s.
    unsafe fn below(valid: u32, x: __m512i, p: __m512i) -> u32;
    /// The `m` lanes of `x` packed to the low lanes (the rest zero).
    unsafe fn compress(m: u32, x: __m512i) -> __m512i;
    /// `x`'s lanes in `m` to `p`'s (only those are written).
    unsafe fn store_masked(p: *mut Self, m: u32, x: __m512i);
    /// `p`'s keys in the lanes of `m`, `src`'s elsewhere (only those are read).
    unsafe fn load_masked(src: __m512i, m: u32, p: *const Self) -> __m512i;
    /// Lanewise minimum.
    unsafe fn vmin(a: __m512i, b: __m512i) -> __m512i;
    /// Lanewise maximum.
    unsafe fn vmax(a: __m512i, b: __m512i) -> __m512i;
    /// The maximum of `a` and `b` in the lanes of `m`, `src` elsewhere.
    unsafe fn mask_max(src: __m512i, m: u32, a: __m512i, b: __m512i) -> __m512i;
    /// `b` in the lanes of `m`, `a` elsewhere.
    unsafe fn blend(a: __m512i, m: u32, b: __m512i) -> __m512i;
    /// `x` with lane `j` moved to lane `j ^ (1 << S)`.
    unsafe fn lane_xor<const S: u32>(x: __m512i) -> __m512i;
    /// `x` with lane `j` moved to lane `j ^ (2^K - 1)` (reversed within blocks
    /// of `2^K` lanes).
    unsafe fn flip<const K: u32>(x: __m512i) -> __m512i;
    /// The low halves of `a` and `b`, interleaved lane by lane.
    unsafe fn zip_lo(a: __m512i, b: __m512i) -> __m512i;
    /// The high halves of `a` and `b`, interleaved lane by lane.
    unsafe fn zip_hi(a: __m512i, b: __m512i) -> __m512i;
}

impl Lanes for u32 {
    const N: usize = 16;
    const MAX: u32 = u32::MAX;
    const UPPER: [u32; 4] = [0xAAAA, 0xCCCC, 0xF0F0, 0xFF00];
    #[inline(always)]
    fn succ(self) -> u32 {
        self + 1
    }
    #[inline(always)]
    unsafe fn splat(k: u32) -> __m512i {
        _mm512_set1_epi32(k as i32)
    }
    #[inline(always)]
    unsafe fn below(valid: u32, x: __m512i, p: __m512i) -> u32 {
        _mm512_mask_cmplt_epu32_mask(valid as __mmask16, x, p) as u32
    }
    #[inline(always)]
    unsafe fn compress(m: u32, x: __m512i) -> __m512i {
        _mm512_maskz_compress_epi32(m as __mmask16, x)
    }
    #[inline(always)]
    unsafe fn store_masked(p: *mut u32, m: u32, x: __m512i) {
        // SAFETY: the caller's contract: the lanes of `m` are writable.
        unsafe { _mm512_mask_storeu_epi32(p.cast(), m as __mmask16, x) }
    }
    #[inline(always)]
    unsafe fn load_masked(src: __m512i, m: u32, p: *const u32) -> __m512i {
        // SAFETY: the caller's contract: the lanes of `m` are readable.
        unsafe { _mm512_mask_loadu_epi32(src, m as __mmask16, p.cast()) }
    }
    #[inline(always)]
    unsafe fn vmin(a: __m512i, b: __m512i) -> __m512i {
        _mm512_min_epu32(a, b)
    }
    #[inline(always)]
    unsafe fn vmax(a: __m512i, b: __m512i) -> __m512i {
        _mm512_max_epu32(a, b)
    }
    #[inline(always)]
    unsafe fn mask_max(src: __m512i, m: u32, a: __m512i, b: __m512i) -> __m512i {
        _mm512_mask_max_epu32(src, m as __mmask16, a, b)
    }
    #[inline(always)]
    unsafe fn blend(a: __m512i, m: u32, b: __m512i) -> __m512i {
        _mm512_mask_mov_epi32(a, m as __mmask16, b)
    }
    #[inline(always)]
    unsafe fn lane_xor<const S: u32>(x: __m512i) -> __m512i {
        match S {
            0 => _mm512_shuffle_epi32::<0xB1>(x),
            1 => _mm512_shuffle_epi32::<0x4E>(x),
            2 => _mm512_shuffle_i32x4::<0xB1>(x, x),
            _ => _mm512_shuffle_i32x4::<0x4E>(x, x),
        }
    }
    #[inline(always)]
    unsafe fn flip<const K: u32>(x: __m512i) -> __m512i {
        match K {
            1 => _mm512_shuffle_epi32::<0xB1>(x),
            2 => _mm512_shuffle_epi32::<0x1B>(x),
            3 => _mm512_permutexvar_epi32(
                _mm512_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0, 15, 14, 13, 12, 11, 10, 9, 8),
                x,
            ),
            _ => _mm512_permutexvar_epi32(
                _mm512_setr_epi32(15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0),
                x,
            ),
        }
    }
    #[inline(always)]
    unsafe fn zip_lo(a: __m512i, b: __m512i) -> __m512i {
        let i = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
        _mm512_permutex2var_epi32(a, i, b)
    }
    #[inline(always)]
    unsafe fn zip_hi(a: __m512i, b: __m512i) -> __m512i {
        let i = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
        _mm512_permutex2var_epi32(a, i, b)
    }
}

impl Lanes for u64 {
    const N: usize = 8;
    const MAX: u64 = u64::MAX;
    const UPPER: [u32; 4] = [0xAA, 0xCC, 0xF0, 0];
    #[inline(always)]
    fn succ(self) -> u64 {
        self + 1
    }
    #[inline(always)]
    unsafe fn splat(k: u64) -> __m512i {
        _mm512_set1_epi64(k as i64)
    }
    #[inline(always)]
    unsafe fn below(valid: u32, x: __m512i, p: __m512i) -> u32 {
        _mm512_mask_cmplt_epu64_mask(valid as __mmask8, x, p) as u32
    }
    #[inline(always)]
    unsafe fn compress(m: u32, x: __m512i) -> __m512i {
        _mm512_maskz_compress_epi64(m as __mmask8, x)
    }
    #[inline(always)]
    unsafe fn store_masked(p: *mut u64, m: u32, x: __m512i) {
        // SAFETY: the caller's contract: the lanes of `m` are writable.
        unsafe { _mm512_mask_storeu_epi64(p.cast(), m as __mmask8, x) }
    }
    #[inline(always)]
    unsafe fn load_masked(src: __m512i, m: u32, p: *const u64) -> __m512i {
        // SAFETY: the caller's contract: the lanes of `m` are readable.
        unsafe { _mm512_mask_loadu_epi64(src, m as __mmask8, p.cast()) }
    }
    #[inline(always)]
    unsafe fn vmin(a: __m512i, b: __m512i) -> __m512i {
        _mm512_min_epu64(a, b)
    }
    #[inline(always)]
    unsafe fn vmax(a: __m512i, b: __m512i) -> __m512i {
        _mm512_max_epu64(a, b)
    }
    #[inline(always)]
    unsafe fn mask_max(src: __m512i, m: u32, a: __m512i, b: __m512i) -> __m512i {
        _mm512_mask_max_epu64(src, m as __mmask8, a, b)
    }
    #[inline(always)]
    unsafe fn blend(a: __m512i, m: u32, b: __m512i) -> __m512i {
        _mm512_mask_mov_epi64(a, m as __mmask8, b)
    }
    #[inline(always)]
    unsafe fn lane_xor<const S: u32>(x: __m512i) -> __m512i {
        match S {
            0 => _mm512_shuffle_epi32::<0x4E>(x),
            1 => _mm512_shuffle_i64x2::<0xB1>(x, x),
            _ => _mm512_shuffle_i64x2::<0x4E>(x, x),
        }
    }
    #[inline(always)]
    unsafe fn flip<const K: u32>(x: __m512i) -> __m512i {
        match K {
            1 => _mm512_shuffle_epi32::<0x4E>(x),
            2 => _mm512_permutexvar_epi64(_mm512_setr_epi64(3, 2, 1, 0, 7, 6, 5, 4), x),
            _ => _mm512_permutexvar_epi64(_mm512_setr_epi64(7, 6, 5, 4, 3, 2, 1, 0), x),
        }
    }
    #[inline(always)]
    unsafe fn zip_lo(a: __m512i, b: __m512i) -> __m512i {
        _mm512_permutex2var_epi64(a, _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11), b)
    }
    #[inline(always)]
    unsafe fn zip_hi(a: __m512i, b: __m512i) -> __m512i {
        _mm512_permutex2var_epi64(a, _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15), b)
    }
}

/// Whether this process runs the AVX-512 sort (`isa()` at AVX-512, which
/// `RNX_SIMD=avx2|portable` caps, and POPCNT).
pub(super) fn available() -> bool {
    use crate::backend::cpu::elementwise::simd::{isa, Isa};
    isa() == Isa::Avx512 && std::arch::is_x86_feature_detected!("popcnt")
}

/// Sort `v` ascending; ranges of at least `par_min` keys sort their two sides
/// on the current rayon pool.
///
/// # Safety
/// [`available`] must hold.
pub(super) unsafe fn sort<K: Lanes>(v: &mut [K], par_min: usize) {
    let depth = 2 * (usize::BITS - v.len().leading_zeros()) + 4;
    // SAFETY: the caller checked `available`.
    unsafe { qsort(v, depth, par_min.max(REGS * K::N)) };
}

/// The lowest `k` (at most 16) lanes.
#[inline(always)]
fn low(k: usize) -> u32 {
    (1u32 << k) - 1
}

/// Partition the `valid` lanes of `x` (the lowest `nv`) into the free room of
/// `b`: the keys below the pivot `p` packed and stored as a whole vector at
/// `*l`, the others packed and stored (exactly their count) to end at `*r`.
///
/// # Safety
/// AVX-512 F and POPCNT; `[*l, *l + N)` and the `nv - below` slots before
/// `*r` lie in `b`'s free room (no unread key), the left store first where the
/// two overlap.
#[inline(always)]
unsafe fn part<K: Lanes>(
    x: __m512i,
    valid: u32,
    p: __m512i,
    b: *mut K,
    l: &mut usize,
    r: &mut usize,
) {
    // SAFETY: the caller's contract above.
    unsafe {
        let m = K::below(valid, x, p);
        let h = valid & !m;
        let below = K::compress(m, x);
        let above = K::compress(h, x);
        _mm512_storeu_si512(b.add(*l).cast(), below);
        *l += m.count_ones() as usize;
        let c = h.count_ones() as usize;
        *r -= c;
        K::store_masked(b.add(*r), low(c), above);
    }
}

/// Partition `v` (more than `2 U N` keys) in place by `key < pivot`; returns
/// the number of keys below the pivot (they come first).
///
/// # Safety
/// AVX-512 F and POPCNT.
#[inline(always)]
unsafe fn partition<K: Lanes>(v: &mut [K], pivot: K) -> usize {
    let n = v.len();
    let (lanes, step) = (K::N, U * K::N);
    debug_assert!(n > 2 * step);
    let b = v.as_mut_ptr();
    let all = low(lanes);
    // SAFETY: every load and store below stays inside `v` (the comments give
    // the bounds); AVX-512 F and POPCNT by the caller's contract.
    unsafe {
        let p = K::splat(pivot);
        // The first and last `step` keys wait in registers: `step` free slots
        // at each end. Invariant: free room = (rl - l) + (r - rr) = 2 step
        // before each step; reading `step` keys from the end with less room
        // leaves at least `step` at both, enough for U vectors' stores (each
        // left store writes N slots from `l`, which moves by at most N per
        // vector).
        let mut keep = [_mm512_setzero_si512(); 2 * U];
        for (i, k) in keep.iter_mut().enumerate() {
            let at = if i < U {
                lanes * i
            } else {
                n - 2 * step + lanes * i
            };
            // at + N <= n.
            *k = _mm512_loadu_si512(b.add(at).cast());
        }
        let (mut l, mut r, mut rl, mut rr) = (0usize, n, step, n - step);
        let rem = (n - 2 * step) % step;
        let odd = rem % lanes;
        if odd > 0 {
            // rl + odd <= rr; the masked load reads only those keys. Room
            // before: `step` at each end, so both stores fit.
            let x = K::load_masked(_mm512_setzero_si512(), low(odd), b.add(rl));
            rl += odd;
            part(x, low(odd), p, b, &mut l, &mut r);
        }
        for _ in 0..rem / lanes {
            // rl + N <= rr. Before the j-th of these (j < U - 1) the right
            // end has at least step - (N - 1) - N j >= N + 1 free slots, the
            // left at least N (just read).
            let x = _mm512_loadu_si512(b.add(rl).cast());
            rl += lanes;
            part(x, all, p, b, &mut l, &mut r);
        }
        while rl < rr {
            let src;
            if rl - l <= r - rr {
                src = rl;
                rl += step;
            } else {
                rr -= step;
                src = rr;
            }
            // src..src + step are unread keys, now read into registers.
            let mut x = [_mm512_setzero_si512(); U];
            for (j, x) in x.iter_mut().enumerate() {
                *x = _mm512_loadu_si512(b.add(src + lanes * j).cast());
            }
            for x in x {
                part(x, all, p, b, &mut l, &mut r);
            }
        }
        // All keys read: the free room [l, r) is one block of 2 step slots,
        // filled by the kept vectors; before the last one r - l == N.
        for k in keep {
            part(k, all, p, b, &mut l, &mut r);
        }
        debug_assert_eq!(l, r);
        l
    }
}

/// Sort `v` ascending (see the module doc); past `depth` levels a range falls
/// back to `sort_unstable`. `par_min` is at least the largest leaf.
///
/// # Safety
/// [`available`] must hold.
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,popcnt")]
unsafe fn qsort<K: Lanes>(v: &mut [K], depth: u32, par_min: usize) {
    let n = v.len();
    if n <= REGS * K::N {
        // SAFETY: the caller checked `available`.
        unsafe { sort_leaf(v) };
        return;
    }
    if depth == 0 {
        v.sort_unstable();
        return;
    }
    // SAFETY (this and the calls below): the caller checked `available`.
    let p = unsafe { pivot(v) };
    let mut k = unsafe { partition(v, p) };
    if k == 0 {
        // Every key is at least p (one of them): split off the keys equal to
        // p, which are in place.
        if p == K::MAX {
            return;
        }
        k = unsafe { partition(v, p.succ()) };
        unsafe { qsort(&mut v[k..], depth - 1, par_min) };
        return;
    }
    let (a, b) = v.split_at_mut(k);
    if n >= par_min {
        crate::backend::cpu::team::join(
            // SAFETY (both): the caller checked `available` for this process.
            || unsafe { qsort(a, depth - 1, par_min) },
            || unsafe { qsort(b, depth - 1, par_min) },
        );
    } else {
        unsafe {
            qsort(a, depth - 1, par_min);
            qsort(b, depth - 1, par_min);
        }
    }
}

/// The pivot of `v` (at least `2 N` keys): the median of `N` keys spread over
/// it, sorted in one register (x86-simd-sort's choice; cheaper than sorting
/// nine keys by comparisons, and a better estimate for 16-lane keys).
///
/// # Safety
/// AVX-512 F.
#[inline(always)]
unsafe fn pivot<K: Lanes>(v: &[K]) -> K {
    let (n, lanes) = (v.len(), K::N);
    let mut s = [K::MAX; 16];
    for (j, x) in s[..lanes].iter_mut().enumerate() {
        *x = v[(n / lanes) * j + n / (2 * lanes)];
    }
    // SAFETY: AVX-512 F by the caller's contract; `lanes` keys.
    unsafe { sort_regs::<K, 1>(&mut s[..lanes]) };
    s[lanes / 2]
}

/// Compare-exchange registers `a` < `b` of `x`: `a` gets the lane minima.
#[inline(always)]
unsafe fn cx<K: Lanes>(x: &mut [__m512i], a: usize, b: usize) {
    // SAFETY: AVX-512 F by the caller's contract.
    unsafe {
        let lo = K::vmin(x[a], x[b]);
        x[b] = K::vmax(x[a], x[b]);
        x[a] = lo;
    }
}

/// Apply a comparator network to the registers of `x`.
macro_rules! network {
    ($k:ty, $x:expr; $(($a:literal, $b:literal)),* $(,)?) => {
        {
            $(cx::<$k>($x, $a, $b);)*
        }
    };
}

/// Sort every lane across the registers of `x` (2, 4, 8 or 16 of them):
/// optimal networks (1, 5, 19 and 60 comparators; the last one found by
/// Green, as listed by Knuth and by Dobbelaere's list of sorting networks).
#[inline(always)]
unsafe fn sort_columns<K: Lanes>(x: &mut [__m512i]) {
    // SAFETY: AVX-512 F by the caller's contract.
    unsafe {
        match x.len() {
            2 => network!(K, x; (0, 1)),
            4 => network!(K, x; (0, 1), (2, 3), (0, 2), (1, 3), (1, 2)),
            8 => network!(K, x;
                (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5), (2, 6), (3, 7),
                (0, 1), (2, 3), (4, 5), (6, 7), (2, 4), (3, 5), (1, 4), (3, 6),
                (1, 2), (3, 4), (5, 6)),
            16 => network!(K, x;
                (0, 13), (1, 12), (2, 15), (3, 14), (4, 8), (5, 6), (7, 11), (9, 10),
                (0, 5), (1, 7), (2, 9), (3, 4), (6, 13), (8, 14), (10, 15), (11, 12),
                (0, 1), (2, 3), (4, 5), (6, 8), (7, 9), (10, 11), (12, 13), (14, 15),
                (0, 2), (1, 3), (4, 10), (5, 11), (6, 7), (8, 9), (12, 14), (13, 15),
                (1, 2), (3, 12), (4, 6), (5, 7), (8, 10), (9, 11), (13, 14),
                (1, 4), (2, 6), (5, 8), (7, 10), (9, 13), (11, 14),
                (2, 4), (3, 6), (9, 12), (11, 13),
                (3, 5), (6, 8), (7, 9), (10, 12),
                (3, 4), (5, 6), (7, 8), (9, 10), (11, 12),
                (6, 7), (8, 9)),
            _ => {}
        }
    }
}

/// One bitonic half-cleaner step inside each register: lanes `j` and
/// `j ^ (1 << S)` ordered (the minimum to the lower lane).
#[inline(always)]
unsafe fn clean_lanes<K: Lanes, const S: u32>(x: &mut [__m512i]) {
    // SAFETY: AVX-512 F by the caller's contract.
    unsafe {
        for v in x {
            let t = K::lane_xor::<S>(*v);
            *v = K::mask_max(K::vmin(*v, t), K::UPPER[S as usize], *v, t);
        }
    }
}

/// Merge level `L` (1 to log2 N) of the leaf sort: sorted runs of
/// `R 2^(L-1)` keys (blocks of `2^(L-1)` lanes across all registers) into runs
/// of twice that. First the flip step (key `i` of a block of `2 B` against
/// key `2 B - 1 - i`: register `r` against `R - 1 - r`, lanes reversed within
/// blocks of `2^L`), then half-cleaners at falling distances: across lanes
/// (bits `L - 2` down to 0 of the lane) and then across registers.
#[inline(always)]
unsafe fn merge_level<K: Lanes, const L: u32>(x: &mut [__m512i]) {
    let rn = x.len();
    let up = K::UPPER[L as usize - 1];
    // SAFETY: AVX-512 F by the caller's contract.
    unsafe {
        if rn == 1 {
            let p = K::flip::<L>(x[0]);
            x[0] = K::mask_max(K::vmin(x[0], p), up, x[0], p);
        } else {
            for r in 0..rn / 2 {
                let s = rn - 1 - r;
                let p = K::flip::<L>(x[s]);
                let lo = K::vmin(x[r], p);
                let hi = K::vmax(x[r], p);
                x[r] = K::blend(lo, up, hi);
                x[s] = K::flip::<L>(K::blend(hi, up, lo));
            }
        }
        if L >= 4 {
            clean_lanes::<K, 2>(x);
        }
        if L >= 3 {
            clean_lanes::<K, 1>(x);
        }
        if L >= 2 {
            clean_lanes::<K, 0>(x);
        }
        let mut d = rn / 2;
        while d >= 1 {
            for r in 0..rn {
                if r & d == 0 {
                    cx::<K>(x, r, r + d);
                }
            }
            d /= 2;
        }
    }
}

/// Sort at most `N R` keys in `R` registers (see the module doc).
///
/// # Safety
/// AVX-512 F.
#[inline(always)]
unsafe fn sort_regs<K: Lanes, const R: usize>(v: &mut [K]) {
    let (n, lanes) = (v.len(), K::N);
    debug_assert!(n <= lanes * R);
    let ptr = v.as_mut_ptr();
    // SAFETY: the masked loads and stores touch `v`'s keys only; AVX-512 F by
    // the caller's contract.
    unsafe {
        let mut x = [K::splat(K::MAX); R];
        for (i, x) in x.iter_mut().enumerate() {
            if lanes * i < n {
                // Keys N i..min(n, N i + N) of v; the other lanes stay MAX.
                *x = K::load_masked(*x, low((n - lanes * i).min(lanes)), ptr.add(lanes * i));
            }
        }
        sort_columns::<K>(&mut x);
        merge_level::<K, 1>(&mut x);
        merge_level::<K, 2>(&mut x);
        merge_level::<K, 3>(&mut x);
        if lanes == 16 {
            merge_level::<K, 4>(&mut x);
        }
        // Transpose: key i (lane i / R, register i % R) to lane i % N of
        // register i / N, by log2 R perfect shuffles of the register sequence
        // (each rotates the bits of the position `register N + lane` by one).
        let mut s = R;
        while s > 1 {
            let y = x;
            for i in 0..R / 2 {
                x[2 * i] = K::zip_lo(y[i], y[i + R / 2]);
                x[2 * i + 1] = K::zip_hi(y[i], y[i + R / 2]);
            }
            s /= 2;
        }
        for (i, x) in x.iter().enumerate() {
            if lanes * i < n {
                // Writes keys N i..min(n, N i + N) of v only.
                K::store_masked(ptr.add(lanes * i), low((n - lanes * i).min(lanes)), *x);
            }
        }
    }
}

/// Sort a leaf of at most `REGS N` keys in the fewest registers that hold it.
///
/// # Safety
/// [`available`] must hold.
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,popcnt")]
unsafe fn sort_leaf<K: Lanes>(v: &mut [K]) {
    // SAFETY: the caller checked `available`.
    unsafe {
        match v.len().div_ceil(K::N) {
            0 => {}
            1 if v.len() == 1 => {}
            1 => sort_regs::<K, 1>(v),
            2 => sort_regs::<K, 2>(v),
            3..=4 => sort_regs::<K, 4>(v),
            5..=8 => sort_regs::<K, 8>(v),
            _ => sort_regs::<K, 16>(v),
        }
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;

    fn lcg(s: &mut u64) -> u64 {
        *s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *s
    }

    /// A key width under test: keys from the generator's bits.
    trait Gen: Lanes + std::fmt::Debug {
        /// The top bits of `x` (a random key of this width).
        fn top(x: u64) -> Self;
        /// A small key.
        fn small(x: u64) -> Self;
        /// `MAX - x`.
        fn below_max(x: u64) -> Self;
    }
    impl Gen for u32 {
        fn top(x: u64) -> u32 {
            (x >> 32) as u32
        }
        fn small(x: u64) -> u32 {
            x as u32
        }
        fn below_max(x: u64) -> u32 {
            u32::MAX - x as u32
        }
    }
    impl Gen for u64 {
        fn top(x: u64) -> u64 {
            x ^ (x >> 29)
        }
        fn small(x: u64) -> u64 {
            x
        }
        fn below_max(x: u64) -> u64 {
            u64::MAX - x
        }
    }

    /// Buffers of length `n` in several distributions: random, all equal, few
    /// distinct, sorted, reversed, organ pipe, keys near 0 and near the top.
    fn shapes<K: Gen>(n: usize, s: &mut u64) -> Vec<Vec<K>> {
        let m = n as u64;
        let mid = K::top(1 << 63);
        vec![
            (0..n).map(|_| K::top(lcg(s))).collect(),
            vec![K::small(7); n],
            (0..n).map(|_| K::small((lcg(s) >> 33) % 3)).collect(),
            (0..n)
                .map(|_| [K::small(0), K::MAX, mid, K::small(1)][(lcg(s) >> 40) as usize % 4])
                .collect(),
            (0..m).map(K::small).collect(),
            (0..m).rev().map(K::small).collect(),
            (0..m).map(|i| K::small(i.min(m - 1 - i))).collect(),
            (0..n).map(|_| K::small((lcg(s) >> 33) % 40)).collect(),
            (0..n).map(|_| K::below_max((lcg(s) >> 33) % 40)).collect(),
        ]
    }

    /// Sort `c` in the middle of a buffer of sentinels with `f`; compare with
    /// `sort_unstable` and check that no sentinel changed.
    fn check<K: Gen>(c: &[K], what: &str, f: impl Fn(&mut [K])) {
        const PAD: usize = 40;
        let sentinel = K::small(0x5a5a_5a5a);
        let mut want = c.to_vec();
        want.sort_unstable();
        let mut buf = vec![sentinel; c.len() + 2 * PAD];
        buf[PAD..PAD + c.len()].copy_from_slice(c);
        f(&mut buf[PAD..PAD + c.len()]);
        assert!(
            buf[PAD..PAD + c.len()] == want[..],
            "{what}: {} lanes, n = {}",
            K::N,
            c.len()
        );
        assert!(
            buf[..PAD]
                .iter()
                .chain(&buf[PAD + c.len()..])
                .all(|&k| k == sentinel),
            "{what}: {} lanes, wrote outside the buffer, n = {}",
            K::N,
            c.len()
        );
    }

    /// On an AVX-512 CPU with no `RNX_SIMD` cap, this sort is the one that runs.
    pub(crate) fn available_at_avx512() {
        use crate::backend::cpu::elementwise::simd::{hardware, Isa};
        if hardware() == Isa::Avx512 && std::env::var_os("RNX_SIMD").is_none() {
            assert!(available());
        }
    }

    /// Every leaf length in every register count, alone, both widths.
    pub(crate) fn leaves_match_std() {
        fn width<K: Gen>() {
            let mut s = 11u64;
            for n in 0..=REGS * K::N {
                for c in shapes::<K>(n, &mut s) {
                    // SAFETY: available() checked AVX-512 and POPCNT.
                    check(&c, "leaf", |v| unsafe { sort_leaf(v) });
                }
            }
        }
        if available() {
            width::<u32>();
            width::<u64>();
        }
    }

    /// Lengths 0..600, around the vector, step, leaf and block sizes, and
    /// 10^6, every distribution, serial and split over the pool, both widths.
    pub(crate) fn matches_std() {
        fn width<K: Gen>() {
            let mut s = 7u64;
            let mut lens: Vec<usize> = (0..600).collect();
            for b in [1024usize, 2048, 4096, 65_536] {
                lens.extend(b - 3..b + 4);
            }
            lens.extend([10_000, 100_003]);
            for &n in &lens {
                for c in shapes::<K>(n, &mut s) {
                    for par in [usize::MAX, 300] {
                        // SAFETY: available() checked AVX-512 and POPCNT.
                        check(&c, &format!("par_min {par}"), |v| unsafe { sort(v, par) });
                    }
                }
            }
            for c in shapes::<K>(1_000_000, &mut s) {
                // SAFETY: as above.
                check(&c, "1e6", |v| unsafe { sort(v, 1 << 16) });
            }
        }
        if available() {
            width::<u32>();
            width::<u64>();
        }
    }

    /// Past the depth limit a range falls back to `sort_unstable`; a
    /// partition at every pivot of an adversarial sequence stays correct.
    pub(crate) fn depth_limit_falls_back() {
        fn width<K: Gen>() {
            let mut s = 3u64;
            let v: Vec<K> = (0..5000).map(|_| K::top(lcg(&mut s))).collect();
            for depth in [0, 1, 3] {
                // SAFETY: available() checked AVX-512 and POPCNT.
                check(&v, &format!("depth {depth}"), |v| unsafe {
                    qsort(v, depth, usize::MAX)
                });
            }
        }
        if available() {
            width::<u32>();
            width::<u64>();
        }
    }

    /// `partition` on every length from just above two steps, with pivots
    /// below, inside and above the keys: the split point and both sides.
    pub(crate) fn partition_splits() {
        fn width<K: Gen>() {
            let mut s = 5u64;
            let step = U * K::N;
            for n in 2 * step + 1..2 * step + 3 * step {
                let v: Vec<K> = (0..n)
                    .map(|_| K::small((lcg(&mut s) >> 33) % 1000))
                    .collect();
                for pivot in [0, 1, 500, 999, 1000]
                    .map(K::small)
                    .into_iter()
                    .chain([K::MAX])
                {
                    let mut got = v.clone();
                    // SAFETY: available() checked AVX-512 and POPCNT; n > 2 step.
                    let k = unsafe { run_partition(&mut got, pivot) };
                    assert_eq!(
                        k,
                        v.iter().filter(|&&x| x < pivot).count(),
                        "{} lanes, n {n} p {pivot:?}",
                        K::N
                    );
                    assert!(got[..k].iter().all(|&x| x < pivot));
                    assert!(got[k..].iter().all(|&x| x >= pivot));
                    got.sort_unstable();
                    let mut want = v.clone();
                    want.sort_unstable();
                    assert!(
                        got == want,
                        "{} lanes, n {n} p {pivot:?}: not a permutation",
                        K::N
                    );
                }
            }
        }
        if available() {
            width::<u32>();
            width::<u64>();
        }
    }

    /// `partition` compiled with the features it needs.
    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,popcnt")]
    unsafe fn run_partition<K: Lanes>(v: &mut [K], pivot: K) -> usize {
        // SAFETY: the caller checked `available`.
        unsafe { partition(v, pivot) }
    }
}
