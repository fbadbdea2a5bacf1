//! Sorting a buffer of u32 keys ascending with an AVX-512 quicksort, the
//! 16-lane counterpart of `quick.rs` (same pivots, equal-key rule, depth limit
//! and parallel split). Partitioning: `U` vectors per step read from the end
//! with less free room; each vector is compared with the pivot into a mask, its
//! smaller keys packed by the register form of `vpcompressd` and stored whole
//! at the left end, its other keys packed the same way and stored with a
//! masked store ending at the right end (the memory form of `vpcompressd` is
//! microcoded and slow on AMD Zen 4). Leaves of at most 256 keys are sorted in
//! up to sixteen registers, as a matrix whose element `i` sits in lane
//! `i / R`, register `i % R` (`R` registers): a sorting network across the
//! registers sorts every lane's `R` keys, four rounds of bitonic merges (lane
//! permutes, min / max, masked blends) merge runs of `R` keys into one run of
//! `16 R`, and `log2 R` perfect shuffles transpose the result into memory
//! order; partial leaves are padded with `u32::MAX` by masked loads. Runs only
//! on CPUs with AVX-512 F/BW/DQ/VL; knows nothing about tensors or dtypes.

use super::quick::pivot;
use std::arch::x86_64::*;

/// Ranges up to this long are leaves (sorted in registers); longer ones are
/// partitioned.
pub(super) const LEAF: usize = 256;

/// Vectors of 16 keys read per partition step.
const U: usize = 4;
/// Keys read per partition step.
const STEP: usize = 16 * U;

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
pub(super) unsafe fn sort(v: &mut [u32], par_min: usize) {
    let depth = 2 * (usize::BITS - v.len().leading_zeros()) + 4;
    qsort(v, depth, par_min.max(LEAF));
}

/// The lowest `k` (at most 16) lanes.
#[inline(always)]
fn low(k: usize) -> __mmask16 {
    ((1u32 << k) - 1) as __mmask16
}

/// Partition the `valid` lanes of `x` (the lowest `nv`) into the free room of
/// `b`: the keys below the pivot `p` packed and stored as a whole vector at
/// `*l`, the others packed and stored (exactly their count) to end at `*r`.
///
/// # Safety
/// AVX-512 F and POPCNT; `[*l, *l + 16)` and the `nv - below` slots before
/// `*r` lie in `b`'s free room (no unread key), the left store first where the
/// two overlap.
#[inline(always)]
unsafe fn part(
    x: __m512i,
    valid: __mmask16,
    p: __m512i,
    b: *mut u32,
    l: &mut usize,
    r: &mut usize,
) {
    let m = _mm512_mask_cmplt_epu32_mask(valid, x, p);
    let h = valid & !m;
    let below = _mm512_maskz_compress_epi32(m, x);
    let above = _mm512_maskz_compress_epi32(h, x);
    _mm512_storeu_si512(b.add(*l).cast(), below);
    *l += m.count_ones() as usize;
    let c = h.count_ones() as usize;
    *r -= c;
    _mm512_mask_storeu_epi32(b.add(*r).cast(), low(c), above);
}

/// Partition `v` (more than `2 STEP` keys) in place by `key < pivot`; returns
/// the number of keys below the pivot (they come first).
///
/// # Safety
/// AVX-512 F and POPCNT.
#[inline(always)]
unsafe fn partition(v: &mut [u32], pivot: u32) -> usize {
    let n = v.len();
    debug_assert!(n > 2 * STEP);
    let b = v.as_mut_ptr();
    let p = _mm512_set1_epi32(pivot as i32);
    // The first and last STEP keys wait in registers: STEP free slots at each
    // end. Invariant: free room = (rl - l) + (r - rr) = 2 STEP before each
    // step; reading STEP keys from the end with less room leaves at least STEP
    // at both, enough for U vectors' stores (each left store writes 16 slots
    // from `l`, which moves by at most 16 per vector).
    let mut keep = [_mm512_setzero_si512(); 2 * U];
    for (i, k) in keep.iter_mut().enumerate() {
        let at = if i < U { 16 * i } else { n - 2 * STEP + 16 * i };
        // at + 16 <= n.
        *k = _mm512_loadu_si512(b.add(at).cast());
    }
    let (mut l, mut r, mut rl, mut rr) = (0usize, n, STEP, n - STEP);
    let rem = (n - 2 * STEP) % STEP;
    let odd = rem % 16;
    if odd > 0 {
        // rl + odd <= rr; the masked load reads only those keys. Room before:
        // STEP at each end, so both stores fit.
        let x = _mm512_maskz_loadu_epi32(low(odd), b.add(rl).cast());
        rl += odd;
        part(x, low(odd), p, b, &mut l, &mut r);
    }
    for _ in 0..rem / 16 {
        // rl + 16 <= rr. Before the j-th of these (j < U - 1) the right end
        // has at least STEP - 15 - 16 j >= 17 free slots, the left at least
        // 16 (just read).
        let x = _mm512_loadu_si512(b.add(rl).cast());
        rl += 16;
        part(x, u16::MAX, p, b, &mut l, &mut r);
    }
    while rl < rr {
        let src;
        if rl - l <= r - rr {
            src = rl;
            rl += STEP;
        } else {
            rr -= STEP;
            src = rr;
        }
        // src..src + STEP are unread keys, now read into registers.
        let mut x = [_mm512_setzero_si512(); U];
        for (j, x) in x.iter_mut().enumerate() {
            *x = _mm512_loadu_si512(b.add(src + 16 * j).cast());
        }
        for x in x {
            part(x, u16::MAX, p, b, &mut l, &mut r);
        }
    }
    // All keys read: the free room [l, r) is one block of 2 STEP slots, filled
    // by the kept vectors; before the last one r - l == 16.
    for k in keep {
        part(k, u16::MAX, p, b, &mut l, &mut r);
    }
    debug_assert_eq!(l, r);
    l
}

/// Sort `v` ascending (see the module doc); past `depth` levels a range falls
/// back to `sort_unstable`. `par_min` is at least `LEAF`.
///
/// # Safety
/// [`available`] must hold.
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,popcnt")]
unsafe fn qsort(v: &mut [u32], depth: u32, par_min: usize) {
    let n = v.len();
    if n <= LEAF {
        sort_leaf(v);
        return;
    }
    if depth == 0 {
        v.sort_unstable();
        return;
    }
    let p = pivot(v);
    let mut k = partition(v, p);
    if k == 0 {
        // Every key is at least p (one of them): split off the keys equal to
        // p, which are in place.
        if p == u32::MAX {
            return;
        }
        k = partition(v, p + 1);
        qsort(&mut v[k..], depth - 1, par_min);
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
        qsort(a, depth - 1, par_min);
        qsort(b, depth - 1, par_min);
    }
}

/// Compare-exchange registers `a` < `b` of `x`: `a` gets the lane minima.
#[inline(always)]
unsafe fn cx(x: &mut [__m512i], a: usize, b: usize) {
    let lo = _mm512_min_epu32(x[a], x[b]);
    x[b] = _mm512_max_epu32(x[a], x[b]);
    x[a] = lo;
}

/// Apply a comparator network to the registers of `x`.
macro_rules! network {
    ($x:expr; $(($a:literal, $b:literal)),* $(,)?) => {
        {
            $(cx($x, $a, $b);)*
        }
    };
}

/// Sort every lane across the registers of `x` (2, 4, 8 or 16 of them):
/// optimal networks (1, 5, 19 and 60 comparators; the last one found by
/// Green, as listed by Knuth and by Dobbelaere's list of sorting networks).
#[inline(always)]
unsafe fn sort_columns(x: &mut [__m512i]) {
    match x.len() {
        2 => network!(x; (0, 1)),
        4 => network!(x; (0, 1), (2, 3), (0, 2), (1, 3), (1, 2)),
        8 => network!(x;
            (0, 2), (1, 3), (4, 6), (5, 7), (0, 4), (1, 5), (2, 6), (3, 7),
            (0, 1), (2, 3), (4, 5), (6, 7), (2, 4), (3, 5), (1, 4), (3, 6),
            (1, 2), (3, 4), (5, 6)),
        16 => network!(x;
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

/// The lanes whose index has bit `s` set.
const fn upper(s: u32) -> __mmask16 {
    [0xAAAA, 0xCCCC, 0xF0F0, 0xFF00][s as usize]
}

/// `x` with lane `j` moved to lane `j ^ (1 << S)`.
#[inline(always)]
unsafe fn lane_xor<const S: u32>(x: __m512i) -> __m512i {
    match S {
        0 => _mm512_shuffle_epi32::<0xB1>(x),
        1 => _mm512_shuffle_epi32::<0x4E>(x),
        2 => _mm512_shuffle_i32x4::<0xB1>(x, x),
        _ => _mm512_shuffle_i32x4::<0x4E>(x, x),
    }
}

/// `x` with lane `j` moved to lane `j ^ (2^K - 1)` (reversed within blocks of
/// `2^K` lanes).
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

/// One bitonic half-cleaner step inside each register: lanes `j` and
/// `j ^ (1 << S)` ordered (the minimum to the lower lane).
#[inline(always)]
unsafe fn clean_lanes<const S: u32>(x: &mut [__m512i]) {
    for v in x {
        let t = lane_xor::<S>(*v);
        *v = _mm512_mask_max_epu32(_mm512_min_epu32(*v, t), upper(S), *v, t);
    }
}

/// Merge level `K` (1..=4) of the leaf sort: sorted runs of `R 2^(K-1)`
/// keys (blocks of `2^(K-1)` lanes across all registers) into runs of twice
/// that. First the flip step (key `i` of a block of `2 L` against key
/// `2 L - 1 - i`: register `r` against `R - 1 - r`, lanes reversed within
/// blocks of `2^K`), then half-cleaners at falling distances: across lanes
/// (bits `K - 2` down to 0 of the lane) and then across registers.
#[inline(always)]
unsafe fn merge_level<const K: u32>(x: &mut [__m512i]) {
    let rn = x.len();
    let up = upper(K - 1);
    if rn == 1 {
        let p = flip::<K>(x[0]);
        x[0] = _mm512_mask_max_epu32(_mm512_min_epu32(x[0], p), up, x[0], p);
    } else {
        for r in 0..rn / 2 {
            let s = rn - 1 - r;
            let p = flip::<K>(x[s]);
            let lo = _mm512_min_epu32(x[r], p);
            let hi = _mm512_max_epu32(x[r], p);
            x[r] = _mm512_mask_mov_epi32(lo, up, hi);
            x[s] = flip::<K>(_mm512_mask_mov_epi32(hi, up, lo));
        }
    }
    if K >= 4 {
        clean_lanes::<2>(x);
    }
    if K >= 3 {
        clean_lanes::<1>(x);
    }
    if K >= 2 {
        clean_lanes::<0>(x);
    }
    let mut d = rn / 2;
    while d >= 1 {
        for r in 0..rn {
            if r & d == 0 {
                cx(x, r, r + d);
            }
        }
        d /= 2;
    }
}

/// Sort at most `16 R` keys in `R` registers (see the module doc).
///
/// # Safety
/// AVX-512 F.
#[inline(always)]
unsafe fn sort_regs<const R: usize>(v: &mut [u32]) {
    let n = v.len();
    debug_assert!(n <= 16 * R);
    let ptr = v.as_mut_ptr();
    let mut x = [_mm512_set1_epi32(-1); R];
    for (i, x) in x.iter_mut().enumerate() {
        if 16 * i < n {
            // The masked load reads keys 16 i..min(n, 16 i + 16) of v only;
            // the other lanes stay u32::MAX.
            *x = _mm512_mask_loadu_epi32(*x, low((n - 16 * i).min(16)), ptr.add(16 * i).cast());
        }
    }
    sort_columns(&mut x);
    merge_level::<1>(&mut x);
    merge_level::<2>(&mut x);
    merge_level::<3>(&mut x);
    merge_level::<4>(&mut x);
    // Transpose: key i (lane i / R, register i % R) to lane i % 16 of
    // register i / 16, by log2 R perfect shuffles of the register sequence.
    let lo = _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23);
    let hi = _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31);
    let mut s = R;
    while s > 1 {
        let y = x;
        for i in 0..R / 2 {
            x[2 * i] = _mm512_permutex2var_epi32(y[i], lo, y[i + R / 2]);
            x[2 * i + 1] = _mm512_permutex2var_epi32(y[i], hi, y[i + R / 2]);
        }
        s /= 2;
    }
    for (i, x) in x.iter().enumerate() {
        if 16 * i < n {
            // The masked store writes keys 16 i..min(n, 16 i + 16) of v only.
            _mm512_mask_storeu_epi32(ptr.add(16 * i).cast(), low((n - 16 * i).min(16)), *x);
        }
    }
}

/// Sort a leaf of at most `LEAF` keys in the fewest registers that hold it.
///
/// # Safety
/// [`available`] must hold.
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,popcnt")]
unsafe fn sort_leaf(v: &mut [u32]) {
    match v.len() {
        0..=1 => {}
        2..=16 => sort_regs::<1>(v),
        17..=32 => sort_regs::<2>(v),
        33..=64 => sort_regs::<4>(v),
        65..=128 => sort_regs::<8>(v),
        _ => sort_regs::<16>(v),
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;

    fn lcg(s: &mut u64) -> u32 {
        *s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*s >> 32) as u32
    }

    /// Buffers of length `n` in several distributions: random, all equal, few
    /// distinct, sorted, reversed, organ pipe, keys near 0 and near u32::MAX.
    fn shapes(n: usize, s: &mut u64) -> Vec<Vec<u32>> {
        let m = n as u32;
        vec![
            (0..n).map(|_| lcg(s)).collect(),
            vec![7; n],
            (0..n).map(|_| lcg(s) % 3).collect(),
            (0..n)
                .map(|_| [0, u32::MAX, 1 << 31, 1][lcg(s) as usize % 4])
                .collect(),
            (0..m).collect(),
            (0..m).rev().collect(),
            (0..m).map(|i| i.min(m - 1 - i)).collect(),
            (0..n).map(|_| lcg(s) % 40).collect(),
            (0..n).map(|_| u32::MAX - lcg(s) % 40).collect(),
        ]
    }

    /// Sort `c` in the middle of a buffer of sentinels with `f`; compare with
    /// `sort_unstable` and check that no sentinel changed.
    fn check(c: &[u32], what: &str, f: impl Fn(&mut [u32])) {
        const PAD: usize = 40;
        let mut want = c.to_vec();
        want.sort_unstable();
        let mut buf = vec![0x5a5a_5a5a; c.len() + 2 * PAD];
        buf[PAD..PAD + c.len()].copy_from_slice(c);
        f(&mut buf[PAD..PAD + c.len()]);
        assert!(
            buf[PAD..PAD + c.len()] == want[..],
            "{what}: n = {}",
            c.len()
        );
        assert!(
            buf[..PAD]
                .iter()
                .chain(&buf[PAD + c.len()..])
                .all(|&k| k == 0x5a5a_5a5a),
            "{what}: wrote outside the buffer, n = {}",
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

    /// Every leaf length in every register count, alone.
    pub(crate) fn leaves_match_std() {
        if !available() {
            return;
        }
        let mut s = 11u64;
        for n in 0..=LEAF {
            for c in shapes(n, &mut s) {
                // SAFETY: available() checked AVX-512 and POPCNT.
                check(&c, "leaf", |v| unsafe { sort_leaf(v) });
            }
        }
    }

    /// Lengths 0..600, around the vector, step, leaf and block sizes, and
    /// 10^6, every distribution, serial and split over the pool.
    pub(crate) fn matches_std() {
        if !available() {
            return;
        }
        let mut s = 7u64;
        let mut lens: Vec<usize> = (0..600).collect();
        for b in [1024usize, 2048, 4096, 65_536] {
            lens.extend(b - 3..b + 4);
        }
        lens.extend([10_000, 100_003]);
        for &n in &lens {
            for c in shapes(n, &mut s) {
                for par in [usize::MAX, 300] {
                    // SAFETY: available() checked AVX-512 and POPCNT.
                    check(&c, &format!("par_min {par}"), |v| unsafe { sort(v, par) });
                }
            }
        }
        for c in shapes(1_000_000, &mut s) {
            // SAFETY: as above.
            check(&c, "1e6", |v| unsafe { sort(v, 1 << 16) });
        }
    }

    /// Past the depth limit a range falls back to `sort_unstable`; a
    /// partition at every pivot of an adversarial sequence stays correct.
    pub(crate) fn depth_limit_falls_back() {
        if !available() {
            return;
        }
        let mut s = 3u64;
        let v: Vec<u32> = (0..5000).map(|_| lcg(&mut s)).collect();
        for depth in [0, 1, 3] {
            // SAFETY: available() checked AVX-512 and POPCNT.
            check(&v, &format!("depth {depth}"), |v| unsafe {
                qsort(v, depth, usize::MAX)
            });
        }
    }

    /// `partition` on every length from just above two steps, with pivots
    /// below, inside and above the keys: the split point and both sides.
    pub(crate) fn partition_splits() {
        if !available() {
            return;
        }
        let mut s = 5u64;
        for n in 2 * STEP + 1..2 * STEP + 3 * STEP {
            let v: Vec<u32> = (0..n).map(|_| lcg(&mut s) % 1000).collect();
            for pivot in [0, 1, 500, 999, 1000, u32::MAX] {
                let mut got = v.clone();
                // SAFETY: available() checked AVX-512 and POPCNT; n > 2 STEP.
                let k = unsafe { run_partition(&mut got, pivot) };
                assert_eq!(
                    k,
                    v.iter().filter(|&&x| x < pivot).count(),
                    "n {n} p {pivot}"
                );
                assert!(got[..k].iter().all(|&x| x < pivot));
                assert!(got[k..].iter().all(|&x| x >= pivot));
                got.sort_unstable();
                let mut want = v.clone();
                want.sort_unstable();
                assert!(got == want, "n {n} p {pivot}: not a permutation");
            }
        }
    }

    /// `partition` compiled with the features it needs.
    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,popcnt")]
    unsafe fn run_partition(v: &mut [u32], pivot: u32) -> usize {
        partition(v, pivot)
    }
}
