//! Sorting a buffer of u32 keys ascending with an AVX2 quicksort: partitions
//! eight keys per instruction (compare with the pivot, a lookup-table permute
//! that packs the smaller keys first, the whole vector stored at both ends of
//! the in-place output; four vectors per step, read from the end with less free
//! room so the stores never overrun unread keys), leaves of at most 64 keys
//! sorted by a sorting network across eight vectors (a column network,
//! an 8x8 transpose, three rounds of bitonic merges), and the two sides of a
//! large partition sorted concurrently on the current rayon pool. Pivots are
//! the median of nine spread samples; a range whose keys all reach the pivot is
//! split at `<= pivot` instead (runs of equal keys finish at once); past a depth
//! of twice log2 n a range falls back to `sort_unstable`, so the worst case
//! stays O(n log n). Keys are unsigned; the comparisons XOR the sign bit so the
//! signed AVX2 compare orders them. Knows nothing about tensors or dtypes.

/// Whether this CPU runs the vectorised sort (x86-64 with AVX2 and FMA, and
/// `RNX_SIMD=portable` not set; never under miri).
pub(crate) fn available() -> bool {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        use crate::backend::cpu::elementwise::simd::{isa, Isa};
        isa() >= Isa::Avx2
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    {
        false
    }
}

/// Sort `v` ascending if the vectorised sort is [`available`] (returns whether
/// it ran): with `quick_lanes.rs` at 16 lanes where the process runs at
/// AVX-512, else here. Ranges of at least `par_min` keys split their two
/// sides over the current rayon pool (`usize::MAX`: all on this thread).
pub(crate) fn try_sort(v: &mut [u32], par_min: usize) -> bool {
    if !available() {
        return false;
    }
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        if super::lanes512::available() {
            // SAFETY: available() checked AVX-512 and POPCNT on this CPU.
            unsafe { super::quick_lanes::sort(v, par_min) };
            return true;
        }
        let depth = 2 * (usize::BITS - v.len().leading_zeros()) + 4;
        // SAFETY: available() checked AVX2 on this CPU.
        unsafe { avx2::qsort(v, depth, par_min.max(avx2::MIN_PARTITION)) };
    }
    true
}

/// Sort `v` ascending with `quick_lanes.rs` (8 lanes at AVX-512; 4 at AVX2
/// unless `wide_only`) if this process runs one of them; returns whether it
/// ran. `par_min` as in [`try_sort`]. Intel Xeon model 207 VM, 10^6 keys,
/// one thread, against the radix sort: f64 values at AVX2 21.5 -> 16.3 ms,
/// the packed u64 items of an f32 argsort at AVX2 10.5 -> 16.0 ms (so those
/// ask for `wide_only`), at AVX-512 10.4 -> 7.8 ms.
pub(crate) fn try_sort64(v: &mut [u64], par_min: usize, wide_only: bool) -> bool {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        if super::lanes512::available() {
            // SAFETY: available() checked AVX-512 and POPCNT on this CPU.
            unsafe { super::quick_lanes::sort(v, par_min) };
            return true;
        }
        if !wide_only && super::lanes256::available() {
            let v: &mut [super::lanes256::Q64] = bytemuck::cast_slice_mut(v);
            // SAFETY: available() checked AVX2 and POPCNT on this CPU.
            unsafe { super::quick_lanes::sort(v, par_min) };
            return true;
        }
    }
    let _ = (v, par_min, wide_only);
    false
}

/// Sort packed (64-bit key, index) items ascending with `quick_lanes.rs`'s
/// pair width if this process runs at AVX-512; returns whether it ran.
/// `par_min` as in [`try_sort`].
pub(crate) fn try_sort_pairs(v: &mut [super::keys::P128], par_min: usize) -> bool {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        if super::lanes512::available() {
            // SAFETY: available() checked AVX-512 and POPCNT on this CPU.
            unsafe { super::quick_lanes::sort(v, par_min) };
            return true;
        }
    }
    let _ = (v, par_min);
    false
}

/// The median of nine keys spread over `v` (at least 18 keys): the pivot of
/// the AVX2 quicksort.
#[cfg(all(target_arch = "x86_64", not(miri)))]
fn pivot(v: &[u32]) -> u32 {
    let n = v.len();
    let mut s = [0u32; 9];
    for (j, x) in s.iter_mut().enumerate() {
        *x = v[(n / 9) * j + n / 18];
    }
    s.sort_unstable();
    s[4]
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
mod avx2 {
    use std::arch::x86_64::*;

    /// Ranges longer than this are partitioned; shorter ones (the leaves) go
    /// through the 64-key network.
    pub(super) const MIN_PARTITION: usize = 64;

    /// For each 8-bit mask of "smaller than the pivot" lanes: the lane order
    /// that puts those lanes first (in order), then the others (in order).
    static PACK: [[u32; 8]; 256] = {
        let mut t = [[0u32; 8]; 256];
        let mut m = 0;
        while m < 256 {
            let mut k = 0;
            let mut j = 0;
            while j < 8 {
                if (m >> j) & 1 == 1 {
                    t[m][k] = j as u32;
                    k += 1;
                }
                j += 1;
            }
            j = 0;
            while j < 8 {
                if (m >> j) & 1 == 0 {
                    t[m][k] = j as u32;
                    k += 1;
                }
                j += 1;
            }
            m += 1;
        }
        t
    };

    /// The sign bit: XORed into both sides, the signed compare orders u32.
    #[inline(always)]
    unsafe fn sign() -> __m256i {
        _mm256_set1_epi32(i32::MIN)
    }

    /// The lanes of `x` below the (sign-flipped) pivot `ps`, packed first, and
    /// how many there are.
    #[inline(always)]
    unsafe fn pack_below(x: __m256i, ps: __m256i) -> (__m256i, usize) {
        let lt = _mm256_cmpgt_epi32(ps, _mm256_xor_si256(x, sign()));
        let m = _mm256_movemask_ps(_mm256_castsi256_ps(lt)) as usize;
        let order = _mm256_loadu_si256(PACK[m].as_ptr().cast());
        (
            _mm256_permutevar8x32_epi32(x, order),
            m.count_ones() as usize,
        )
    }

    /// Partition one vector into the free room `[*l, *r)` of `b`: the whole
    /// packed vector is stored at `*l` and at `*r - 8`; the smaller keys stay at
    /// the left store, the others at the right one.
    ///
    /// # Safety
    /// `*l + 8` and `*r - 8` must lie inside the free room (at least 8 free
    /// slots at each end), which holds no unread key.
    #[inline(always)]
    unsafe fn part_vec(x: __m256i, ps: __m256i, b: *mut u32, l: &mut usize, r: &mut usize) {
        let (v, c) = pack_below(x, ps);
        // SAFETY: both 8-key stores lie in the free room (caller).
        unsafe {
            _mm256_storeu_si256(b.add(*l).cast(), v);
            _mm256_storeu_si256(b.add(*r - 8).cast(), v);
        }
        *l += c;
        *r -= 8 - c;
    }

    /// Partition `v` (more than 64 keys) in place by `key < pivot`; returns
    /// the number of keys below the pivot (they come first).
    #[target_feature(enable = "avx2")]
    unsafe fn partition(v: &mut [u32], pivot: u32) -> usize {
        let n = v.len();
        debug_assert!(n > MIN_PARTITION);
        let b = v.as_mut_ptr();
        let ps = _mm256_set1_epi32((pivot ^ 0x8000_0000) as i32);
        // The first and last 32 keys wait in registers: that leaves 32 free
        // slots at each end. Invariant: free room = (rl - l) + (r - rr) = 64
        // before each step; reading 32 keys from the end with less room leaves
        // at least 32 at both, enough for four vectors' full stores.
        let mut keep = [_mm256_setzero_si256(); 8];
        for (i, k) in keep.iter_mut().enumerate() {
            let at = if i < 4 { 8 * i } else { n - 64 + 8 * i };
            // SAFETY: at + 8 <= n.
            *k = unsafe { _mm256_loadu_si256(b.add(at).cast()) };
        }
        let (mut l, mut r, mut rl, mut rr) = (0usize, n, 32usize, n - 32);
        let rem = (n - 64) % 32;
        for _ in 0..rem % 8 {
            // SAFETY: rl < rr (rem keys remain unread); the write goes to a
            // free slot (room at both ends is at least 8 - 7).
            unsafe {
                let e = *b.add(rl);
                rl += 1;
                if e < pivot {
                    *b.add(l) = e;
                    l += 1;
                } else {
                    r -= 1;
                    *b.add(r) = e;
                }
            }
        }
        for _ in 0..rem / 8 {
            // SAFETY: rl + 8 <= rr. Before the j-th of these (j < 3) the right
            // end has at least 32 - 7 - 8j >= 9 free slots (the scalar steps
            // took at most 7), the left at least 8 (just read).
            unsafe {
                let x = _mm256_loadu_si256(b.add(rl).cast());
                rl += 8;
                part_vec(x, ps, b, &mut l, &mut r);
            }
        }
        while rl < rr {
            let src;
            if rl - l <= r - rr {
                src = rl;
                rl += 32;
            } else {
                rr -= 32;
                src = rr;
            }
            // SAFETY: src..src + 32 are unread keys, now read; the invariant
            // above gives each end room for the four full stores.
            unsafe {
                let x0 = _mm256_loadu_si256(b.add(src).cast());
                let x1 = _mm256_loadu_si256(b.add(src + 8).cast());
                let x2 = _mm256_loadu_si256(b.add(src + 16).cast());
                let x3 = _mm256_loadu_si256(b.add(src + 24).cast());
                part_vec(x0, ps, b, &mut l, &mut r);
                part_vec(x1, ps, b, &mut l, &mut r);
                part_vec(x2, ps, b, &mut l, &mut r);
                part_vec(x3, ps, b, &mut l, &mut r);
            }
        }
        // All keys read: the free room [l, r) is 64 slots, one block, filled
        // by the eight kept vectors; the last one exactly fills the final 8.
        for &k in &keep[..7] {
            // SAFETY: r - l >= 16 here, so both stores stay inside [l, r).
            unsafe { part_vec(k, ps, b, &mut l, &mut r) };
        }
        let (last, c) = pack_below(keep[7], ps);
        // SAFETY: r - l == 8: one store fills the room.
        unsafe { _mm256_storeu_si256(b.add(l).cast(), last) };
        l + c
    }

    /// Compare-exchange: `a` gets the lane minimum, `b` the maximum.
    #[inline(always)]
    unsafe fn cx(a: &mut __m256i, b: &mut __m256i) {
        let lo = _mm256_min_epu32(*a, *b);
        *b = _mm256_max_epu32(*a, *b);
        *a = lo;
    }

    #[inline(always)]
    unsafe fn reverse(v: __m256i) -> __m256i {
        _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0))
    }

    /// One step of a bitonic merge inside a vector: lanes paired by the
    /// shuffled copy `t`, minima kept where `hi` has no bit.
    #[inline(always)]
    unsafe fn step<const HI: i32>(v: __m256i, t: __m256i) -> __m256i {
        _mm256_blend_epi32::<HI>(_mm256_min_epu32(v, t), _mm256_max_epu32(v, t))
    }

    /// Sort a bitonic vector.
    #[inline(always)]
    unsafe fn merge8(v: __m256i) -> __m256i {
        let v = step::<0b1111_0000>(v, _mm256_permute2x128_si256::<1>(v, v));
        let v = step::<0b1100_1100>(v, _mm256_shuffle_epi32::<0b0100_1110>(v));
        step::<0b1010_1010>(v, _mm256_shuffle_epi32::<0b1011_0001>(v))
    }

    /// Transpose eight vectors as an 8x8 matrix: the float transpose of
    /// `transpose.rs` on the same bits (the casts are free).
    #[inline(always)]
    unsafe fn transpose(r: &mut [__m256i; 8]) {
        let mut f = [_mm256_setzero_ps(); 8];
        for (f, &v) in f.iter_mut().zip(r.iter()) {
            *f = _mm256_castsi256_ps(v);
        }
        // SAFETY: callers run with AVX2 (this is inlined into them).
        let t = unsafe { crate::backend::cpu::transpose::avx2::transpose8x8(f) };
        for (v, &t) in r.iter_mut().zip(t.iter()) {
            *v = _mm256_castps_si256(t);
        }
    }

    /// Merge the sorted runs of `k` vectors (k = 1, 2, 4) into sorted runs of
    /// 2k: reverse the second run of each pair, take lane minima / maxima
    /// (two bitonic halves), then bitonic-merge each half across and inside
    /// its vectors.
    #[inline(always)]
    unsafe fn merge_runs(r: &mut [__m256i; 8], k: usize) {
        for s in (0..8).step_by(2 * k) {
            let second = &mut r[s + k..s + 2 * k];
            second.reverse();
            for x in second.iter_mut() {
                *x = reverse(*x);
            }
            let (lo, hi) = r[s..s + 2 * k].split_at_mut(k);
            for (a, b) in lo.iter_mut().zip(hi.iter_mut()) {
                cx(a, b);
            }
            for h in [s, s + k] {
                let mut d = k / 2;
                while d >= 1 {
                    for i in (h..h + k).step_by(2 * d) {
                        for j in i..i + d {
                            let (lo, hi) = r.split_at_mut(j + d);
                            cx(&mut lo[j], &mut hi[0]);
                        }
                    }
                    d /= 2;
                }
                for x in &mut r[h..h + k] {
                    *x = merge8(*x);
                }
            }
        }
    }

    /// Sort at most 64 keys: padded with `u32::MAX` to eight vectors, the
    /// columns sorted by the optimal 19-comparator network for 8 inputs,
    /// transposed into eight sorted rows, merged pairwise three times.
    #[target_feature(enable = "avx2")]
    unsafe fn sort64(v: &mut [u32]) {
        let n = v.len();
        debug_assert!(n <= 64);
        let mut buf = [u32::MAX; 64];
        buf[..n].copy_from_slice(v);
        let mut r = [_mm256_setzero_si256(); 8];
        for (i, x) in r.iter_mut().enumerate() {
            // SAFETY: 8 keys inside the 64-key buffer.
            *x = unsafe { _mm256_loadu_si256(buf.as_ptr().add(8 * i).cast()) };
        }
        {
            let [a0, a1, a2, a3, a4, a5, a6, a7] = &mut r;
            cx(a0, a2);
            cx(a1, a3);
            cx(a4, a6);
            cx(a5, a7);
            cx(a0, a4);
            cx(a1, a5);
            cx(a2, a6);
            cx(a3, a7);
            cx(a0, a1);
            cx(a2, a3);
            cx(a4, a5);
            cx(a6, a7);
            cx(a2, a4);
            cx(a3, a5);
            cx(a1, a4);
            cx(a3, a6);
            cx(a1, a2);
            cx(a3, a4);
            cx(a5, a6);
        }
        transpose(&mut r);
        merge_runs(&mut r, 1);
        merge_runs(&mut r, 2);
        merge_runs(&mut r, 4);
        for (i, x) in r.iter().enumerate() {
            // SAFETY: as for the loads.
            unsafe { _mm256_storeu_si256(buf.as_mut_ptr().add(8 * i).cast(), *x) };
        }
        v.copy_from_slice(&buf[..n]);
    }

    use super::pivot;

    /// Sort `v` ascending: see the module doc. `par_min` is at least 64.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn qsort(v: &mut [u32], depth: u32, par_min: usize) {
        let n = v.len();
        if n <= MIN_PARTITION {
            // SAFETY: AVX2 (this function's own requirement).
            unsafe { sort64(v) };
            return;
        }
        if depth == 0 {
            v.sort_unstable();
            return;
        }
        let p = pivot(v);
        // SAFETY: AVX2; n > 64.
        let mut k = unsafe { partition(v, p) };
        if k == 0 {
            // Every key is at least p (one of them): split off the keys equal
            // to p, which are in place.
            if p == u32::MAX {
                return;
            }
            // SAFETY: as above.
            k = unsafe { partition(v, p + 1) };
            // SAFETY: AVX2; the rest holds fewer keys.
            unsafe { qsort(&mut v[k..], depth - 1, par_min) };
            return;
        }
        let (a, b) = v.split_at_mut(k);
        if n >= par_min {
            crate::backend::cpu::team::join(
                // SAFETY (both): the caller checked AVX2 for this process.
                || unsafe { qsort(a, depth - 1, par_min) },
                || unsafe { qsort(b, depth - 1, par_min) },
            );
        } else {
            // SAFETY: AVX2.
            unsafe {
                qsort(a, depth - 1, par_min);
                qsort(b, depth - 1, par_min);
            }
        }
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

    /// Every length up to 300, then long buffers of random, few-valued, sorted,
    /// reversed and constant keys (including u32::MAX and keys across the sign
    /// bit), serial and split: the same as `sort_unstable`.
    pub(crate) fn matches_std() {
        if !available() {
            assert!(!try_sort(&mut [2, 1], usize::MAX));
            return;
        }
        let mut s = 7u64;
        let mut cases: Vec<Vec<u32>> = (0..300)
            .map(|n| (0..n).map(|_| lcg(&mut s)).collect())
            .collect();
        let n = 20_000;
        cases.push((0..n).map(|_| lcg(&mut s)).collect());
        cases.push((0..n).map(|_| lcg(&mut s) % 3).collect());
        cases.push(
            (0..n)
                .map(|_| [0, u32::MAX, 1 << 31][lcg(&mut s) as usize % 3])
                .collect(),
        );
        cases.push((0..n as u32).collect());
        cases.push((0..n as u32).rev().collect());
        cases.push(vec![u32::MAX; n]);
        cases.push(vec![5; 1001]);
        for c in &cases {
            let mut want = c.clone();
            want.sort_unstable();
            for par in [usize::MAX, 1000] {
                let mut got = c.clone();
                assert!(try_sort(&mut got, par));
                assert!(got == want, "n = {}, par_min {par}", c.len());
            }
        }
    }

    /// Past the depth limit a range falls back to `sort_unstable`.
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    pub(crate) fn depth_limit_falls_back() {
        if !available() {
            return;
        }
        let mut s = 3u64;
        let v: Vec<u32> = (0..5000).map(|_| lcg(&mut s)).collect();
        let mut want = v.clone();
        want.sort_unstable();
        for depth in [0, 1, 3] {
            let mut got = v.clone();
            // SAFETY: available() checked AVX2.
            unsafe { avx2::qsort(&mut got, depth, usize::MAX) };
            assert!(got == want, "depth {depth}");
        }
    }
}
