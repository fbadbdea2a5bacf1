//! The AVX2 key widths of the vectorised quicksort (`quick_lanes.rs`): u32
//! keys 8 to a 256-bit vector as [`D32`], u64 keys 4 to a vector as [`Q64`]
//! (plain `u32` / `u64` are the AVX-512 widths). The compare with the pivot
//! flips the sign bit on both sides for the signed `vpcmpgtd` / `vpcmpgtq`;
//! the minimum and maximum are `vpminud` / `vpmaxud` for u32 and, AVX2 having
//! no 64-bit one, a compare and `vblendvpd` for u64; the compress is a
//! permute by a table, and a whole vector, packed once, is stored at both
//! ends of the free room ([`Lanes::part_whole`]; the masked loads and stores
//! of the odd tail and the leaves are `vpmaskmov`). Both widths: 8 vectors
//! per partition step and leaves of up to 16 registers (more than AVX2's 16
//! registers hold, yet faster): Intel Xeon model 207 VM at `RNX_SIMD=avx2`, 10^6 f64, one thread: 4
//! vectors per step and 8-register leaves 16.3 ms, 4 and 16 16.3 ms, 8 and
//! 16 12.0 ms.

use super::quick_lanes::{qsort, Lanes};
use std::arch::x86_64::*;

/// A u64 key sorted by the AVX2 width.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
#[repr(transparent)]
pub(crate) struct Q64(pub(crate) u64);

// SAFETY: a transparent wrapper of u64: no padding, every bit pattern valid.
unsafe impl bytemuck::Zeroable for Q64 {}
// SAFETY: as above.
unsafe impl bytemuck::Pod for Q64 {}

/// Whether this process runs the AVX2 sort (`isa()` at AVX2 or above, and
/// POPCNT).
pub(super) fn available() -> bool {
    use crate::backend::cpu::elementwise::simd::{isa, Isa};
    isa() >= Isa::Avx2 && std::arch::is_x86_feature_detected!("popcnt")
}

/// [`qsort`] compiled for AVX2 (both widths).
///
/// # Safety
/// [`available`] must hold.
#[target_feature(enable = "avx2,popcnt")]
unsafe fn qsort256<K: Lanes>(v: &mut [K], depth: u32, par_min: usize) {
    // SAFETY: the CPU runs AVX2 (caller).
    unsafe { qsort(v, depth, par_min) }
}

/// Partition a whole vector: pack its keys below the pivot first and store
/// the packed vector at both ends of the free room (see
/// [`Lanes::part_whole`]), for either width.
///
/// # Safety
/// AVX2 and POPCNT; at least `N` free slots at each end of `b`'s free room.
#[inline(always)]
unsafe fn part_both_ends<K: Lanes<V = __m256i>>(
    x: __m256i,
    p: __m256i,
    b: *mut K,
    l: &mut usize,
    r: &mut usize,
) {
    // SAFETY: the caller's contract.
    unsafe {
        let m = K::below(low_lanes(K::N), x, p);
        let v = K::compress(m, x);
        let c = m.count_ones() as usize;
        // At least N free slots at each end (the caller); where the two
        // stores overlap, the packed vector holds the smaller keys first and
        // the others last, so both halves land where they belong.
        K::store(b.add(*l), v);
        K::store(b.add(*r - K::N), v);
        *l += c;
        *r -= K::N - c;
    }
}

/// The lowest `n` lanes as a mask.
#[inline(always)]
fn low_lanes(n: usize) -> u32 {
    (1u32 << n) - 1
}

/// The items of an AVX2 width's `Lanes` impl that do not depend on the key
/// type: the vector type, step and leaf sizes, the entry point, whole-vector
/// loads and stores, and the both-ends partition.
macro_rules! ymm_register {
    () => {
        type V = __m256i;
        const U: usize = 8;
        const REGS: usize = 16;
        unsafe fn qsort(v: &mut [Self], depth: u32, par_min: usize) {
            // SAFETY: the caller's contract: the CPU runs AVX2.
            unsafe { qsort256(v, depth, par_min) }
        }
        #[inline(always)]
        unsafe fn zero() -> __m256i {
            _mm256_setzero_si256()
        }
        #[inline(always)]
        unsafe fn load(p: *const Self) -> __m256i {
            // SAFETY: the caller's contract: N keys at `p` are readable.
            unsafe { _mm256_loadu_si256(p.cast()) }
        }
        #[inline(always)]
        unsafe fn store(p: *mut Self, x: __m256i) {
            // SAFETY: the caller's contract: N keys at `p` are writable.
            unsafe { _mm256_storeu_si256(p.cast(), x) }
        }
        #[inline(always)]
        unsafe fn part_whole(x: __m256i, p: __m256i, b: *mut Self, l: &mut usize, r: &mut usize) {
            // SAFETY: the caller's contract.
            unsafe { part_both_ends(x, p, b, l, r) }
        }
    };
}

/// The permute tables of the compress, for `LANES` key lanes (4 or 8) in a
/// 256-bit vector: for each lane mask `m` below `M = 2^LANES`, the 32-bit
/// word order that moves the lanes of `m` first, in order, then the others
/// (a key lane is `8 / LANES` consecutive words).
const fn pack_table<const LANES: usize, const M: usize>() -> [[u32; 8]; M] {
    let words = 8 / LANES;
    let mut t = [[0u32; 8]; M];
    let mut m = 0;
    while m < M {
        let mut k = 0;
        let mut pass = 0;
        while pass < 2 {
            let mut j = 0;
            while j < LANES {
                if ((m >> j) & 1 == 1) == (pass == 0) {
                    let mut w = 0;
                    while w < words {
                        t[m][words * k + w] = (words * j + w) as u32;
                        w += 1;
                    }
                    k += 1;
                }
                j += 1;
            }
            pass += 1;
        }
        m += 1;
    }
    t
}

/// The compress table of [`Q64`] (4 lanes).
static PACK: [[u32; 8]; 16] = pack_table::<4, 16>();

/// For each 4-bit lane mask: those lanes all ones, the others zero.
static MASKS: [[i64; 4]; 16] = {
    let mut t = [[0i64; 4]; 16];
    let mut m = 0;
    while m < 16 {
        let mut j = 0;
        while j < 4 {
            if (m >> j) & 1 == 1 {
                t[m][j] = -1;
            }
            j += 1;
        }
        m += 1;
    }
    t
};

/// The lanes of `m` (below 16) as a vector mask.
#[inline(always)]
unsafe fn lanes(m: u32) -> __m256i {
    // SAFETY: a 4-lane mask indexes the table (`m & 15` for the bounds
    // check's sake).
    unsafe { _mm256_loadu_si256(MASKS[m as usize & 15].as_ptr().cast()) }
}

/// The lanes where `a > b` as unsigned keys, as a vector mask.
#[inline(always)]
unsafe fn gt(a: __m256i, b: __m256i) -> __m256i {
    let s = _mm256_set1_epi64x(i64::MIN);
    _mm256_cmpgt_epi64(_mm256_xor_si256(a, s), _mm256_xor_si256(b, s))
}

/// `b` where `m` (a vector mask) is set, `a` elsewhere.
#[inline(always)]
unsafe fn select(a: __m256i, m: __m256i, b: __m256i) -> __m256i {
    _mm256_castpd_si256(_mm256_blendv_pd(
        _mm256_castsi256_pd(a),
        _mm256_castsi256_pd(b),
        _mm256_castsi256_pd(m),
    ))
}

impl Lanes for Q64 {
    ymm_register!();
    const N: usize = 4;
    const MAX: Q64 = Q64(u64::MAX);
    const UPPER: [u32; 4] = [0b1010, 0b1100, 0, 0];
    #[inline(always)]
    fn succ(self) -> Q64 {
        Q64(self.0 + 1)
    }
    #[inline(always)]
    unsafe fn splat(k: Q64) -> __m256i {
        _mm256_set1_epi64x(k.0 as i64)
    }
    #[inline(always)]
    unsafe fn below(valid: u32, x: __m256i, p: __m256i) -> u32 {
        valid & _mm256_movemask_pd(_mm256_castsi256_pd(gt(p, x))) as u32
    }
    #[inline(always)]
    unsafe fn compress(m: u32, x: __m256i) -> __m256i {
        // SAFETY: an in-bounds table row (`m & 15`; m is a 4-lane mask).
        let order = unsafe { _mm256_loadu_si256(PACK[m as usize & 15].as_ptr().cast()) };
        _mm256_permutevar8x32_epi32(x, order)
    }
    #[inline(always)]
    unsafe fn store_masked(p: *mut Q64, m: u32, x: __m256i) {
        // SAFETY: the caller's contract: the lanes of `m` are writable.
        unsafe { _mm256_maskstore_epi64(p.cast(), lanes(m), x) }
    }
    #[inline(always)]
    unsafe fn load_masked(src: __m256i, m: u32, p: *const Q64) -> __m256i {
        let mask = lanes(m);
        // SAFETY: the caller's contract: the lanes of `m` are readable (the
        // others are not touched).
        let x = unsafe { _mm256_maskload_epi64(p.cast(), mask) };
        select(src, mask, x)
    }
    #[inline(always)]
    unsafe fn vmin(a: __m256i, b: __m256i) -> __m256i {
        select(a, gt(a, b), b)
    }
    #[inline(always)]
    unsafe fn vmax(a: __m256i, b: __m256i) -> __m256i {
        select(b, gt(a, b), a)
    }
    #[inline(always)]
    unsafe fn mask_max(src: __m256i, m: u32, a: __m256i, b: __m256i) -> __m256i {
        select(src, lanes(m), Self::vmax(a, b))
    }
    #[inline(always)]
    unsafe fn blend(a: __m256i, m: u32, b: __m256i) -> __m256i {
        select(a, lanes(m), b)
    }
    #[inline(always)]
    unsafe fn lane_xor<const S: u32>(x: __m256i) -> __m256i {
        match S {
            0 => _mm256_shuffle_epi32::<0x4E>(x),
            _ => _mm256_permute4x64_epi64::<0x4E>(x),
        }
    }
    #[inline(always)]
    unsafe fn flip<const K: u32>(x: __m256i) -> __m256i {
        match K {
            1 => _mm256_shuffle_epi32::<0x4E>(x),
            _ => _mm256_permute4x64_epi64::<0x1B>(x),
        }
    }
    #[inline(always)]
    unsafe fn zip_lo(a: __m256i, b: __m256i) -> __m256i {
        let (lo, hi) = (_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b));
        _mm256_permute2x128_si256::<0x20>(lo, hi)
    }
    #[inline(always)]
    unsafe fn zip_hi(a: __m256i, b: __m256i) -> __m256i {
        let (lo, hi) = (_mm256_unpacklo_epi64(a, b), _mm256_unpackhi_epi64(a, b));
        _mm256_permute2x128_si256::<0x31>(lo, hi)
    }
}

/// A u32 key sorted by the AVX2 width (plain `u32` is the AVX-512 width).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
#[repr(transparent)]
pub(crate) struct D32(pub(crate) u32);

// SAFETY: a transparent wrapper of u32: no padding, every bit pattern valid.
unsafe impl bytemuck::Zeroable for D32 {}
// SAFETY: as above.
unsafe impl bytemuck::Pod for D32 {}

/// The compress table of [`D32`] (8 lanes).
static PACK32: [[u32; 8]; 256] = pack_table::<8, 256>();

/// The lanes of `m` (8 bits) as a vector mask (all bits set in those lanes).
#[inline(always)]
unsafe fn lanes32(m: u32) -> __m256i {
    let bits = _mm256_setr_epi32(1, 2, 4, 8, 16, 32, 64, 128);
    _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_set1_epi32(m as i32), bits), bits)
}

/// `b` where `m` (a vector mask) is set, `a` elsewhere.
#[inline(always)]
unsafe fn select32(a: __m256i, m: __m256i, b: __m256i) -> __m256i {
    _mm256_blendv_epi8(a, b, m)
}

impl Lanes for D32 {
    ymm_register!();
    const N: usize = 8;
    const MAX: D32 = D32(u32::MAX);
    const UPPER: [u32; 4] = [0xAA, 0xCC, 0xF0, 0];
    #[inline(always)]
    fn succ(self) -> D32 {
        D32(self.0 + 1)
    }
    #[inline(always)]
    unsafe fn splat(k: D32) -> __m256i {
        _mm256_set1_epi32(k.0 as i32)
    }
    #[inline(always)]
    unsafe fn below(valid: u32, x: __m256i, p: __m256i) -> u32 {
        let s = _mm256_set1_epi32(i32::MIN);
        let lt = _mm256_cmpgt_epi32(_mm256_xor_si256(p, s), _mm256_xor_si256(x, s));
        valid & _mm256_movemask_ps(_mm256_castsi256_ps(lt)) as u32
    }
    #[inline(always)]
    unsafe fn compress(m: u32, x: __m256i) -> __m256i {
        // SAFETY: an in-bounds table row (`m & 255`; m is an 8-lane mask).
        let order = unsafe { _mm256_loadu_si256(PACK32[m as usize & 255].as_ptr().cast()) };
        _mm256_permutevar8x32_epi32(x, order)
    }
    #[inline(always)]
    unsafe fn store_masked(p: *mut D32, m: u32, x: __m256i) {
        // SAFETY: the caller's contract: the lanes of `m` are writable.
        unsafe { _mm256_maskstore_epi32(p.cast(), lanes32(m), x) }
    }
    #[inline(always)]
    unsafe fn load_masked(src: __m256i, m: u32, p: *const D32) -> __m256i {
        let mask = lanes32(m);
        // SAFETY: the caller's contract: the lanes of `m` are readable (the
        // others are not touched).
        let x = unsafe { _mm256_maskload_epi32(p.cast(), mask) };
        select32(src, mask, x)
    }
    #[inline(always)]
    unsafe fn vmin(a: __m256i, b: __m256i) -> __m256i {
        _mm256_min_epu32(a, b)
    }
    #[inline(always)]
    unsafe fn vmax(a: __m256i, b: __m256i) -> __m256i {
        _mm256_max_epu32(a, b)
    }
    #[inline(always)]
    unsafe fn mask_max(src: __m256i, m: u32, a: __m256i, b: __m256i) -> __m256i {
        select32(src, lanes32(m), _mm256_max_epu32(a, b))
    }
    #[inline(always)]
    unsafe fn blend(a: __m256i, m: u32, b: __m256i) -> __m256i {
        select32(a, lanes32(m), b)
    }
    #[inline(always)]
    unsafe fn lane_xor<const S: u32>(x: __m256i) -> __m256i {
        match S {
            0 => _mm256_shuffle_epi32::<0xB1>(x),
            1 => _mm256_shuffle_epi32::<0x4E>(x),
            _ => _mm256_permute4x64_epi64::<0x4E>(x),
        }
    }
    #[inline(always)]
    unsafe fn flip<const K: u32>(x: __m256i) -> __m256i {
        match K {
            1 => _mm256_shuffle_epi32::<0xB1>(x),
            2 => _mm256_shuffle_epi32::<0x1B>(x),
            _ => _mm256_permutevar8x32_epi32(x, _mm256_setr_epi32(7, 6, 5, 4, 3, 2, 1, 0)),
        }
    }
    #[inline(always)]
    unsafe fn zip_lo(a: __m256i, b: __m256i) -> __m256i {
        let (lo, hi) = (_mm256_unpacklo_epi32(a, b), _mm256_unpackhi_epi32(a, b));
        _mm256_permute2x128_si256::<0x20>(lo, hi)
    }
    #[inline(always)]
    unsafe fn zip_hi(a: __m256i, b: __m256i) -> __m256i {
        let (lo, hi) = (_mm256_unpacklo_epi32(a, b), _mm256_unpackhi_epi32(a, b));
        _mm256_permute2x128_si256::<0x31>(lo, hi)
    }
}
