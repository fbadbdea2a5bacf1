//! Sorting a buffer of unsigned keys ascending with a vectorised quicksort,
//! one body generic over the key width and instruction set ([`Lanes`]):
//! AVX-512 u32 keys 16 to a vector, u64 keys 8 to a vector and (key, index)
//! pairs 8 to two vectors (`lanes512.rs`), AVX2 u32 keys 8 and u64 keys 4 to
//! a vector (`lanes256.rs`); `quick.rs` picks the width. Pivots are the
//! median of one vector of spread keys; a range whose keys all reach the
//! pivot is split at `<= pivot` instead (runs of equal keys finish at once);
//! past a depth of twice log2 n a range falls back to `sort_unstable`, so the
//! worst case stays O(n log n); the two sides of a large partition sort
//! concurrently on the current rayon pool. Partitioning: `U` vectors per
//! step read from the end with less free room; each vector is compared with
//! the pivot into a mask; at AVX-512 its smaller keys are packed by the
//! register form of `vpcompressd` / `vpcompressq` and stored whole at the
//! left end, its other keys packed the same way and stored with a masked
//! store ending at the right end (the memory form of compress is microcoded
//! and slow on AMD Zen 4); at AVX2 one table permute packs the smaller keys
//! first and the vector is stored whole at both ends ([`Lanes::part_whole`]). Leaves of at most
//! `REGS` vectors of keys are sorted in registers, as a matrix whose element
//! `i` sits in lane `i / R`, register `i % R` (`R` registers): a sorting
//! network across the registers sorts every lane's `R` keys, log2(lanes)
//! rounds of bitonic merges (lane permutes, min / max, masked blends) merge
//! runs of `R` keys into one run of `lanes * R`, and `log2 R` perfect shuffles
//! transpose the result into memory order; partial leaves are padded with the
//! largest key by masked loads. Knows nothing about tensors or dtypes.

/// A key width on one instruction set: its lanes per vector, its partition
/// and leaf sizes, and the vector operations the partition and the leaf
/// networks use. Masks travel as `u32` (the low `N` bits). Every `unsafe`
/// method needs the instruction set the implementation names (the callers'
/// `target_feature`, entered through [`Lanes::qsort`]).
pub(super) trait Lanes: Copy + Ord + Default + Send + Sync + 'static {
    /// The vector type.
    type V: Copy;
    /// Keys per vector (at most 16).
    const N: usize;
    /// Vectors read per partition step (at most 8).
    const U: usize;
    /// Registers of the largest leaf (8 or 16, at least `2 U`): ranges up to
    /// `REGS N` keys are sorted in registers, longer ones are partitioned.
    const REGS: usize;
    /// The largest key (leaf padding).
    const MAX: Self;
    /// The mask of the lanes whose index has bit `s` set, for each `s`
    /// below log2 `N`.
    const UPPER: [u32; 4];
    /// `self + 1` (never called on `MAX`).
    fn succ(self) -> Self;
    /// Sort `v` (see [`qsort`]), compiled for this instruction set.
    ///
    /// # Safety
    /// The CPU runs the instruction set.
    unsafe fn qsort(v: &mut [Self], depth: u32, par_min: usize);
    /// The all-zero vector.
    unsafe fn zero() -> Self::V;
    /// Every lane `k`.
    unsafe fn splat(k: Self) -> Self::V;
    /// `N` keys from `p`.
    unsafe fn load(p: *const Self) -> Self::V;
    /// `x` to the `N` keys at `p`.
    unsafe fn store(p: *mut Self, x: Self::V);
    /// The `valid` lanes of `x` below `p`'s.
    unsafe fn below(valid: u32, x: Self::V, p: Self::V) -> u32;
    /// The `m` lanes of `x` packed, in order, to the low lanes (the other
    /// lanes unspecified).
    unsafe fn compress(m: u32, x: Self::V) -> Self::V;
    /// `x`'s lanes in `m` to `p`'s (only those are written).
    unsafe fn store_masked(p: *mut Self, m: u32, x: Self::V);
    /// `p`'s keys in the lanes of `m`, `src`'s elsewhere (only those are read).
    unsafe fn load_masked(src: Self::V, m: u32, p: *const Self) -> Self::V;
    /// Lanewise minimum.
    unsafe fn vmin(a: Self::V, b: Self::V) -> Self::V;
    /// Lanewise maximum.
    unsafe fn vmax(a: Self::V, b: Self::V) -> Self::V;
    /// The maximum of `a` and `b` in the lanes of `m`, `src` elsewhere.
    unsafe fn mask_max(src: Self::V, m: u32, a: Self::V, b: Self::V) -> Self::V;
    /// `b` in the lanes of `m`, `a` elsewhere.
    unsafe fn blend(a: Self::V, m: u32, b: Self::V) -> Self::V;
    /// `x` with lane `j` moved to lane `j ^ (1 << S)`.
    unsafe fn lane_xor<const S: u32>(x: Self::V) -> Self::V;
    /// `x` with lane `j` moved to lane `j ^ (2^K - 1)` (reversed within blocks
    /// of `2^K` lanes).
    unsafe fn flip<const K: u32>(x: Self::V) -> Self::V;
    /// Partition a whole vector `x` into the free room of `b` as [`part`]
    /// does with every lane valid (the default). `partition` leaves at least
    /// `N` free slots at each end before every whole vector, so a width may
    /// instead store the vector, its smaller keys packed first, whole at
    /// both ends (left first): one permute and no masked store (AVX2).
    ///
    /// # Safety
    /// As [`part`], and at least `N` free slots at each end.
    #[inline(always)]
    unsafe fn part_whole(x: Self::V, p: Self::V, b: *mut Self, l: &mut usize, r: &mut usize) {
        // SAFETY: the caller's contract.
        unsafe { part::<Self>(x, low(Self::N), p, b, l, r) }
    }
    /// The low halves of `a` and `b`, interleaved lane by lane.
    unsafe fn zip_lo(a: Self::V, b: Self::V) -> Self::V;
    /// The high halves of `a` and `b`, interleaved lane by lane.
    unsafe fn zip_hi(a: Self::V, b: Self::V) -> Self::V;
}

/// Sort `v` ascending; ranges of at least `par_min` keys sort their two sides
/// on the current rayon pool.
///
/// # Safety
/// The CPU runs `K`'s instruction set.
pub(super) unsafe fn sort<K: Lanes>(v: &mut [K], par_min: usize) {
    // The sizes `partition` and `sort_leaf` rely on.
    const { assert!(K::N <= 16 && K::U <= 8 && 2 * K::U <= K::REGS && K::REGS <= 16) };
    let depth = 2 * (usize::BITS - v.len().leading_zeros()) + 4;
    // SAFETY: the caller checked the instruction set.
    unsafe { K::qsort(v, depth, par_min.max(K::REGS * K::N)) };
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
/// `K`'s instruction set; `[*l, *l + N)` and the `nv - below` slots before
/// `*r` lie in `b`'s free room (no unread key), the left store first where the
/// two overlap.
#[inline(always)]
unsafe fn part<K: Lanes>(x: K::V, valid: u32, p: K::V, b: *mut K, l: &mut usize, r: &mut usize) {
    // SAFETY: the caller's contract above.
    unsafe {
        let m = K::below(valid, x, p);
        let h = valid & !m;
        let below = K::compress(m, x);
        let above = K::compress(h, x);
        K::store(b.add(*l), below);
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
/// `K`'s instruction set.
#[inline(always)]
unsafe fn partition<K: Lanes>(v: &mut [K], pivot: K) -> usize {
    let n = v.len();
    let (lanes, u) = (K::N, K::U);
    let step = u * lanes;
    debug_assert!(n > 2 * step);
    let b = v.as_mut_ptr();
    // SAFETY: every load and store below stays inside `v` (the comments give
    // the bounds); the instruction set by the caller's contract.
    unsafe {
        let p = K::splat(pivot);
        // The first and last `step` keys wait in registers: `step` free slots
        // at each end. Invariant: free room = (rl - l) + (r - rr) = 2 step
        // before each step; reading `step` keys from the end with less room
        // leaves at least `step` at both, enough for U vectors' stores (each
        // left store writes N slots from `l`, which moves by at most N per
        // vector).
        let mut keep = [K::zero(); 16];
        for (i, k) in keep[..2 * u].iter_mut().enumerate() {
            let at = if i < u {
                lanes * i
            } else {
                n - 2 * step + lanes * i
            };
            // at + N <= n.
            *k = K::load(b.add(at));
        }
        let (mut l, mut r, mut rl, mut rr) = (0usize, n, step, n - step);
        let rem = (n - 2 * step) % step;
        let odd = rem % lanes;
        if odd > 0 {
            // rl + odd <= rr; the masked load reads only those keys. Room
            // before: `step` at each end, so both stores fit.
            let x = K::load_masked(K::zero(), low(odd), b.add(rl));
            rl += odd;
            part(x, low(odd), p, b, &mut l, &mut r);
        }
        for _ in 0..rem / lanes {
            // rl + N <= rr. Before the j-th of these (j < U - 1) the right
            // end has at least step - (N - 1) - N j >= N + 1 free slots, the
            // left at least N (just read).
            let x = K::load(b.add(rl));
            rl += lanes;
            K::part_whole(x, p, b, &mut l, &mut r);
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
            let mut x = [K::zero(); 8];
            for (j, x) in x[..u].iter_mut().enumerate() {
                *x = K::load(b.add(src + lanes * j));
            }
            for &x in &x[..u] {
                K::part_whole(x, p, b, &mut l, &mut r);
            }
        }
        // All keys read: the free room [l, r) is one block of 2 step slots,
        // filled by the kept vectors; before the last one r - l == N.
        for &k in &keep[..2 * u] {
            K::part_whole(k, p, b, &mut l, &mut r);
        }
        debug_assert_eq!(l, r);
        l
    }
}

/// Sort `v` ascending (see the module doc); past `depth` levels a range falls
/// back to `sort_unstable`. `par_min` is at least the largest leaf. The body
/// of [`Lanes::qsort`], which compiles it for the instruction set.
///
/// # Safety
/// `K`'s instruction set.
#[inline(always)]
pub(super) unsafe fn qsort<K: Lanes>(v: &mut [K], depth: u32, par_min: usize) {
    let n = v.len();
    if n <= K::REGS * K::N {
        // SAFETY: the caller's instruction set.
        unsafe { sort_leaf(v) };
        return;
    }
    if depth == 0 {
        v.sort_unstable();
        return;
    }
    // SAFETY (this and the calls below): the caller's instruction set.
    let p = unsafe { pivot(v) };
    let mut k = unsafe { partition(v, p) };
    if k == 0 {
        // Every key is at least p (one of them): split off the keys equal to
        // p, which are in place.
        if p == K::MAX {
            return;
        }
        k = unsafe { partition(v, p.succ()) };
        unsafe { K::qsort(&mut v[k..], depth - 1, par_min) };
        return;
    }
    let (a, b) = v.split_at_mut(k);
    if n >= par_min {
        crate::backend::cpu::team::join(
            // SAFETY (both): the caller's instruction set, for this process.
            || unsafe { K::qsort(a, depth - 1, par_min) },
            || unsafe { K::qsort(b, depth - 1, par_min) },
        );
    } else {
        unsafe {
            K::qsort(a, depth - 1, par_min);
            K::qsort(b, depth - 1, par_min);
        }
    }
}

/// The pivot of `v` (at least `2 N` keys): the median of `N` keys spread over
/// it, sorted in one register (x86-simd-sort's choice; cheaper than sorting
/// nine keys by comparisons, and a better estimate for 16-lane keys).
///
/// # Safety
/// `K`'s instruction set.
#[inline(always)]
unsafe fn pivot<K: Lanes>(v: &[K]) -> K {
    let (n, lanes) = (v.len(), K::N);
    let mut s = [K::MAX; 16];
    for (j, x) in s[..lanes].iter_mut().enumerate() {
        *x = v[(n / lanes) * j + n / (2 * lanes)];
    }
    // SAFETY: the caller's instruction set; `lanes` keys.
    unsafe { sort_regs::<K, 1>(&mut s[..lanes]) };
    s[lanes / 2]
}

/// Compare-exchange registers `a` < `b` of `x`: `a` gets the lane minima.
#[inline(always)]
unsafe fn cx<K: Lanes>(x: &mut [K::V], a: usize, b: usize) {
    // SAFETY: the caller's instruction set.
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
unsafe fn sort_columns<K: Lanes>(x: &mut [K::V]) {
    // SAFETY: the caller's instruction set.
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
unsafe fn clean_lanes<K: Lanes, const S: u32>(x: &mut [K::V]) {
    // SAFETY: the caller's instruction set.
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
unsafe fn merge_level<K: Lanes, const L: u32>(x: &mut [K::V]) {
    let rn = x.len();
    let up = K::UPPER[L as usize - 1];
    // SAFETY: the caller's instruction set.
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
/// `K`'s instruction set.
#[inline(always)]
unsafe fn sort_regs<K: Lanes, const R: usize>(v: &mut [K]) {
    let (n, lanes) = (v.len(), K::N);
    debug_assert!(n <= lanes * R);
    let ptr = v.as_mut_ptr();
    // SAFETY: the masked loads and stores touch `v`'s keys only; the
    // instruction set by the caller's contract.
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
        if lanes >= 8 {
            merge_level::<K, 3>(&mut x);
        }
        if lanes >= 16 {
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
/// `K`'s instruction set.
#[inline(always)]
pub(super) unsafe fn sort_leaf<K: Lanes>(v: &mut [K]) {
    debug_assert!(v.len() <= K::REGS * K::N);
    // SAFETY: the caller's instruction set.
    unsafe {
        match v.len().div_ceil(K::N) {
            0 => {}
            1 if v.len() == 1 => {}
            1 => sort_regs::<K, 1>(v),
            2 => sort_regs::<K, 2>(v),
            3..=4 => sort_regs::<K, 4>(v),
            5..=8 => sort_regs::<K, 8>(v),
            _ if K::REGS >= 16 => sort_regs::<K, 16>(v),
            _ => unreachable!("a leaf holds at most REGS vectors"),
        }
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::super::lanes256::{D32, Q64};
    use super::super::{keys::P128, lanes256, lanes512};
    use super::*;

    fn lcg(s: &mut u64) -> u64 {
        *s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *s
    }

    /// A key width under test: whether this process runs it, keys from the
    /// generator's bits, and its partition compiled for its instruction set.
    trait Gen: Lanes + std::fmt::Debug {
        /// Whether this process runs the width's instruction set.
        fn available() -> bool;
        /// A random key from the bits of `x`.
        fn top(x: u64) -> Self;
        /// The key `x` (truncated).
        fn small(x: u64) -> Self;
        /// The key `MAX - x`.
        fn below_max(x: u64) -> Self;
        /// [`partition`] compiled for the instruction set.
        ///
        /// # Safety
        /// [`Gen::available`]; more than `2 U N` keys.
        unsafe fn part(v: &mut [Self], pivot: Self) -> usize;
        /// [`sort_leaf`] compiled for the instruction set.
        ///
        /// # Safety
        /// [`Gen::available`]; at most `REGS N` keys.
        unsafe fn leaf(v: &mut [Self]);
        /// The key at position `j` of a buffer: itself, or for (key, index)
        /// items the key with index `j` (as an argsort packs them).
        fn at(self, _j: usize) -> Self {
            self
        }
    }
    impl Gen for u32 {
        fn available() -> bool {
            lanes512::available()
        }
        fn top(x: u64) -> u32 {
            (x >> 32) as u32
        }
        fn small(x: u64) -> u32 {
            x as u32
        }
        fn below_max(x: u64) -> u32 {
            u32::MAX - x as u32
        }
        unsafe fn part(v: &mut [u32], pivot: u32) -> usize {
            // SAFETY: the caller's contract.
            unsafe { part512(v, pivot) }
        }
        unsafe fn leaf(v: &mut [u32]) {
            // SAFETY: the caller's contract.
            unsafe { leaf512(v) }
        }
    }
    impl Gen for u64 {
        fn available() -> bool {
            lanes512::available()
        }
        fn top(x: u64) -> u64 {
            x ^ (x >> 29)
        }
        fn small(x: u64) -> u64 {
            x
        }
        fn below_max(x: u64) -> u64 {
            u64::MAX - x
        }
        unsafe fn part(v: &mut [u64], pivot: u64) -> usize {
            // SAFETY: the caller's contract.
            unsafe { part512(v, pivot) }
        }
        unsafe fn leaf(v: &mut [u64]) {
            // SAFETY: the caller's contract.
            unsafe { leaf512(v) }
        }
    }
    impl Gen for P128 {
        fn available() -> bool {
            lanes512::available()
        }
        fn top(x: u64) -> P128 {
            P128(((x ^ (x >> 29)) as u128) << 64)
        }
        fn small(x: u64) -> P128 {
            P128((x as u128) << 64)
        }
        fn below_max(x: u64) -> P128 {
            P128(((u64::MAX - x) as u128) << 64)
        }
        unsafe fn part(v: &mut [P128], pivot: P128) -> usize {
            // SAFETY: the caller's contract.
            unsafe { part512(v, pivot) }
        }
        unsafe fn leaf(v: &mut [P128]) {
            // SAFETY: the caller's contract.
            unsafe { leaf512(v) }
        }
        fn at(self, j: usize) -> P128 {
            // Indices in a scrambled order, so that equal keys arrive with
            // their indices out of order.
            P128(self.0 | (j as u32).wrapping_mul(0x9E37_79B9) as u128)
        }
    }
    impl Gen for D32 {
        fn available() -> bool {
            lanes256::available()
        }
        fn top(x: u64) -> D32 {
            D32((x >> 32) as u32)
        }
        fn small(x: u64) -> D32 {
            D32(x as u32)
        }
        fn below_max(x: u64) -> D32 {
            D32(u32::MAX - x as u32)
        }
        unsafe fn part(v: &mut [D32], pivot: D32) -> usize {
            // SAFETY: the caller's contract.
            unsafe { part256(v, pivot) }
        }
        unsafe fn leaf(v: &mut [D32]) {
            // SAFETY: the caller's contract.
            unsafe { leaf256(v) }
        }
    }
    impl Gen for Q64 {
        fn available() -> bool {
            lanes256::available()
        }
        fn top(x: u64) -> Q64 {
            Q64(x ^ (x >> 29))
        }
        fn small(x: u64) -> Q64 {
            Q64(x)
        }
        fn below_max(x: u64) -> Q64 {
            Q64(u64::MAX - x)
        }
        unsafe fn part(v: &mut [Q64], pivot: Q64) -> usize {
            // SAFETY: the caller's contract.
            unsafe { part256(v, pivot) }
        }
        unsafe fn leaf(v: &mut [Q64]) {
            // SAFETY: the caller's contract.
            unsafe { leaf256(v) }
        }
    }

    /// `partition` compiled for AVX-512.
    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,popcnt")]
    unsafe fn part512<K: Lanes>(v: &mut [K], pivot: K) -> usize {
        // SAFETY: the caller checked AVX-512.
        unsafe { partition(v, pivot) }
    }

    /// `sort_leaf` compiled for AVX-512.
    #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,popcnt")]
    unsafe fn leaf512<K: Lanes>(v: &mut [K]) {
        // SAFETY: the caller checked AVX-512.
        unsafe { sort_leaf(v) }
    }

    /// `sort_leaf` compiled for AVX2.
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn leaf256<K: Lanes>(v: &mut [K]) {
        // SAFETY: the caller checked AVX2.
        unsafe { sort_leaf(v) }
    }

    /// `partition` compiled for AVX2.
    #[target_feature(enable = "avx2,popcnt")]
    unsafe fn part256<K: Lanes>(v: &mut [K], pivot: K) -> usize {
        // SAFETY: the caller checked AVX2.
        unsafe { partition(v, pivot) }
    }

    /// Run `f` for every width this process runs: AVX-512's u32, u64 and
    /// pairs, AVX2's u32 and u64.
    macro_rules! each_width {
        ($f:ident) => {{
            let mut ran = 0;
            if <u32 as Gen>::available() {
                $f::<u32>();
                $f::<u64>();
                $f::<P128>();
                ran += 3;
            }
            if <Q64 as Gen>::available() {
                $f::<D32>();
                $f::<Q64>();
                ran += 2;
            }
            ran
        }};
    }

    /// Buffers of length `n` in several distributions: random, all equal, few
    /// distinct, sorted, reversed, organ pipe, keys near 0 and near the top
    /// (each key placed by [`Gen::at`]).
    fn shapes<K: Gen>(n: usize, s: &mut u64) -> Vec<Vec<K>> {
        let mut v = raw_shapes::<K>(n, s);
        for b in &mut v {
            for (j, x) in b.iter_mut().enumerate() {
                *x = x.at(j);
            }
        }
        v
    }

    /// [`shapes`] before placement.
    fn raw_shapes<K: Gen>(n: usize, s: &mut u64) -> Vec<Vec<K>> {
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
        let mut want = c.to_vec();
        want.sort_unstable();
        check_against(c, &want, what, f);
    }

    /// [`check`] with the sorted keys given (`std`'s sort, the costly part
    /// of these tests in the test profile, once per input).
    fn check_against<K: Gen>(c: &[K], want: &[K], what: &str, f: impl Fn(&mut [K])) {
        const PAD: usize = 40;
        let sentinel = K::small(0x5a5a_5a5a);
        let mut buf = vec![sentinel; c.len() + 2 * PAD];
        buf[PAD..PAD + c.len()].copy_from_slice(c);
        f(&mut buf[PAD..PAD + c.len()]);
        assert!(
            buf[PAD..PAD + c.len()] == *want,
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

    /// On an AVX-512 CPU with no `RNX_SIMD` cap, the AVX-512 widths run; on
    /// any AVX2 CPU at AVX2 or above, the AVX2 one.
    pub(crate) fn available_at_avx512() {
        use crate::backend::cpu::elementwise::simd::{hardware, isa, Isa};
        if hardware() == Isa::Avx512 && std::env::var_os("RNX_SIMD").is_none() {
            assert!(lanes512::available());
        }
        assert_eq!(lanes256::available(), isa() >= Isa::Avx2);
    }

    /// Every leaf length in every register count, alone, every width.
    pub(crate) fn leaves_match_std() {
        fn width<K: Gen>() {
            let mut s = 11u64;
            for n in 0..=K::REGS * K::N {
                for c in shapes::<K>(n, &mut s) {
                    // SAFETY: `each_width` checked the instruction set.
                    check(&c, "leaf", |v| unsafe { K::leaf(v) });
                }
            }
        }
        each_width!(width);
    }

    /// Lengths 0..600, around the vector, step, leaf and block sizes, and
    /// 10^6, every distribution, serial and split over the pool, every width.
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
                    let mut want = c.clone();
                    want.sort_unstable();
                    for par in [usize::MAX, 300] {
                        // SAFETY: `each_width` checked the instruction set.
                        check_against(&c, &want, &format!("par_min {par}"), |v| unsafe {
                            sort(v, par)
                        });
                    }
                }
            }
            // Long enough for the pool to split the top partitions (par_min
            // 2^16) and for a deep recursion; 3e5 rather than 1e6 keys (the
            // test profile's std sort made this test 15 s).
            for c in shapes::<K>(300_000, &mut s) {
                // SAFETY: as above.
                check(&c, "3e5", |v| unsafe { sort(v, 1 << 16) });
            }
        }
        each_width!(width);
    }

    /// Past the depth limit a range falls back to `sort_unstable`; a
    /// partition at every pivot of an adversarial sequence stays correct.
    pub(crate) fn depth_limit_falls_back() {
        fn width<K: Gen>() {
            let mut s = 3u64;
            let v: Vec<K> = (0..5000).map(|_| K::top(lcg(&mut s))).collect();
            for depth in [0, 1, 3] {
                // SAFETY: `each_width` checked the instruction set.
                check(&v, &format!("depth {depth}"), |v| unsafe {
                    K::qsort(v, depth, usize::MAX)
                });
            }
        }
        each_width!(width);
    }

    /// `partition` on every length from just above two steps, with pivots
    /// below, inside and above the keys: the split point and both sides.
    pub(crate) fn partition_splits() {
        fn width<K: Gen>() {
            let mut s = 5u64;
            let step = K::U * K::N;
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
                    // SAFETY: `each_width` checked the instruction set; n > 2 step.
                    let k = unsafe { K::part(&mut got, pivot) };
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
        each_width!(width);
    }
}
