//! The AVX-512 key widths of the vectorised quicksort (`quick_lanes.rs`):
//! u32 keys 16 to a vector, u64 keys 8 to a vector, and (64-bit key, index)
//! items 8 to a pair of vectors (F/BW/DQ/VL, and POPCNT for the mask
//! counts); the keys 8 vectors per partition step (4 measured slower:
//! Intel Xeon model 207 VM, one thread, 1M f64 10.0 -> 8.7 ms, f32 4.5 ->
//! 4.0 ms), leaves of up to 16 registers.

use super::keys::P128;
use super::quick_lanes::{qsort, Lanes};
use std::arch::x86_64::*;

/// Vectors read per partition step, both widths.
const U: usize = 8;

/// Whether this process runs the AVX-512 sort (`isa()` at AVX-512, which
/// `RNX_SIMD=avx2|portable` caps, and POPCNT).
pub(super) fn available() -> bool {
    use crate::backend::cpu::elementwise::simd::{isa, Isa};
    isa() == Isa::Avx512 && std::arch::is_x86_feature_detected!("popcnt")
}

/// [`qsort`] compiled for AVX-512.
///
/// # Safety
/// [`available`] must hold.
#[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,popcnt")]
unsafe fn qsort512<K: Lanes>(v: &mut [K], depth: u32, par_min: usize) {
    // SAFETY: the CPU runs AVX-512 (caller).
    unsafe { qsort(v, depth, par_min) }
}

/// The items of a one-register width's `Lanes` impl that do not depend on
/// the key type: the vector type, the step and leaf sizes, the entry point,
/// whole-vector loads and stores.
macro_rules! one_register {
    () => {
        type V = __m512i;
        const U: usize = U;
        const REGS: usize = 16;
        unsafe fn qsort(v: &mut [Self], depth: u32, par_min: usize) {
            // SAFETY: the caller's contract: the CPU runs AVX-512.
            unsafe { qsort512(v, depth, par_min) }
        }
        #[inline(always)]
        unsafe fn zero() -> __m512i {
            _mm512_setzero_si512()
        }
        #[inline(always)]
        unsafe fn load(p: *const Self) -> __m512i {
            // SAFETY: the caller's contract: N keys at `p` are readable.
            unsafe { _mm512_loadu_si512(p.cast()) }
        }
        #[inline(always)]
        unsafe fn store(p: *mut Self, x: __m512i) {
            // SAFETY: the caller's contract: N keys at `p` are writable.
            unsafe { _mm512_storeu_si512(p.cast(), x) }
        }
    };
}

impl Lanes for u32 {
    one_register!();
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
    one_register!();
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

/// Two lanes per item mask bit: for each 4-bit item mask, the 8-bit mask of
/// those items' two u64 lanes (index, key).
const PAIRS: [u8; 16] = {
    let mut t = [0u8; 16];
    let mut m = 0;
    while m < 16 {
        let mut j = 0;
        while j < 4 {
            if (m >> j) & 1 == 1 {
                t[m] |= 3 << (2 * j);
            }
            j += 1;
        }
        m += 1;
    }
    t
};

/// Eight (key, index) items: their keys and their indices, lane by lane.
#[derive(Clone, Copy)]
pub(super) struct Pairs {
    k: __m512i,
    i: __m512i,
}

/// Items `8 j..8 j + 8` as the two registers of their memory order (index,
/// key, index, key, ...) from a [`Pairs`].
#[inline(always)]
unsafe fn interleave(x: Pairs) -> (__m512i, __m512i) {
    let lo = _mm512_setr_epi64(0, 8, 1, 9, 2, 10, 3, 11);
    let hi = _mm512_setr_epi64(4, 12, 5, 13, 6, 14, 7, 15);
    (
        _mm512_permutex2var_epi64(x.i, lo, x.k),
        _mm512_permutex2var_epi64(x.i, hi, x.k),
    )
}

/// The [`Pairs`] of two registers in memory order.
#[inline(always)]
unsafe fn deinterleave(a: __m512i, b: __m512i) -> Pairs {
    let even = _mm512_setr_epi64(0, 2, 4, 6, 8, 10, 12, 14);
    let odd = _mm512_setr_epi64(1, 3, 5, 7, 9, 11, 13, 15);
    Pairs {
        k: _mm512_permutex2var_epi64(a, odd, b),
        i: _mm512_permutex2var_epi64(a, even, b),
    }
}

/// The items where `a < b` ((key, index) order), of the `valid` ones.
#[inline(always)]
unsafe fn less(valid: u32, a: Pairs, b: Pairs) -> u32 {
    let v = valid as __mmask8;
    let lt = _mm512_mask_cmplt_epu64_mask(v, a.k, b.k);
    let eq = _mm512_mask_cmpeq_epu64_mask(v, a.k, b.k);
    (lt | (eq & _mm512_mask_cmplt_epu64_mask(v, a.i, b.i))) as u32
}

/// Argsorts of 64-bit keys: (key, index) items (`P128`, `key << 64 | index`),
/// 8 to a register pair, ordered by key and then index (so the quicksort's
/// order is the stable one). The lane operations are the u64 width's on both
/// registers.
impl Lanes for P128 {
    type V = Pairs;
    const U: usize = 4;
    const REGS: usize = 8;
    const N: usize = 8;
    const MAX: P128 = P128(u128::MAX);
    const UPPER: [u32; 4] = <u64 as Lanes>::UPPER;
    #[inline(always)]
    fn succ(self) -> P128 {
        P128(self.0 + 1)
    }
    unsafe fn qsort(v: &mut [Self], depth: u32, par_min: usize) {
        // SAFETY: the caller's contract: the CPU runs AVX-512.
        unsafe { qsort512(v, depth, par_min) }
    }
    #[inline(always)]
    unsafe fn zero() -> Pairs {
        Pairs {
            k: _mm512_setzero_si512(),
            i: _mm512_setzero_si512(),
        }
    }
    #[inline(always)]
    unsafe fn load(p: *const Self) -> Pairs {
        // SAFETY: the caller's contract: 8 items (16 u64) at `p` are readable.
        unsafe {
            let q = p.cast::<u64>();
            deinterleave(
                _mm512_loadu_si512(q.cast()),
                _mm512_loadu_si512(q.add(8).cast()),
            )
        }
    }
    #[inline(always)]
    unsafe fn store(p: *mut Self, x: Pairs) {
        // SAFETY: the caller's contract: 8 items at `p` are writable.
        unsafe {
            let (a, b) = interleave(x);
            let q = p.cast::<u64>();
            _mm512_storeu_si512(q.cast(), a);
            _mm512_storeu_si512(q.add(8).cast(), b);
        }
    }
    #[inline(always)]
    unsafe fn splat(k: P128) -> Pairs {
        Pairs {
            k: _mm512_set1_epi64((k.0 >> 64) as i64),
            i: _mm512_set1_epi64(k.0 as u64 as i64),
        }
    }
    #[inline(always)]
    unsafe fn below(valid: u32, x: Pairs, p: Pairs) -> u32 {
        less(valid, x, p)
    }
    #[inline(always)]
    unsafe fn compress(m: u32, x: Pairs) -> Pairs {
        Pairs {
            k: <u64 as Lanes>::compress(m, x.k),
            i: <u64 as Lanes>::compress(m, x.i),
        }
    }
    #[inline(always)]
    unsafe fn store_masked(p: *mut Self, m: u32, x: Pairs) {
        // SAFETY: the caller's contract: the items of `m` are writable; the
        // lane masks cover exactly their u64s.
        unsafe {
            let (a, b) = interleave(x);
            let q = p.cast::<u64>();
            _mm512_mask_storeu_epi64(q.cast(), PAIRS[(m & 15) as usize], a);
            _mm512_mask_storeu_epi64(q.add(8).cast(), PAIRS[((m >> 4) & 15) as usize], b);
        }
    }
    #[inline(always)]
    unsafe fn load_masked(src: Pairs, m: u32, p: *const Self) -> Pairs {
        // SAFETY: the caller's contract: the items of `m` are readable (the
        // others are not touched).
        unsafe {
            let q = p.cast::<u64>();
            let z = _mm512_setzero_si512();
            let a = _mm512_mask_loadu_epi64(z, PAIRS[(m & 15) as usize], q.cast());
            let b = _mm512_mask_loadu_epi64(z, PAIRS[((m >> 4) & 15) as usize], q.add(8).cast());
            Self::blend(src, m, deinterleave(a, b))
        }
    }
    #[inline(always)]
    unsafe fn vmin(a: Pairs, b: Pairs) -> Pairs {
        let m = less(0xFF, b, a);
        Self::blend(a, m, b)
    }
    #[inline(always)]
    unsafe fn vmax(a: Pairs, b: Pairs) -> Pairs {
        let m = less(0xFF, b, a);
        Self::blend(b, m, a)
    }
    #[inline(always)]
    unsafe fn mask_max(src: Pairs, m: u32, a: Pairs, b: Pairs) -> Pairs {
        Self::blend(src, m, Self::vmax(a, b))
    }
    #[inline(always)]
    unsafe fn blend(a: Pairs, m: u32, b: Pairs) -> Pairs {
        Pairs {
            k: <u64 as Lanes>::blend(a.k, m, b.k),
            i: <u64 as Lanes>::blend(a.i, m, b.i),
        }
    }
    #[inline(always)]
    unsafe fn lane_xor<const S: u32>(x: Pairs) -> Pairs {
        Pairs {
            k: <u64 as Lanes>::lane_xor::<S>(x.k),
            i: <u64 as Lanes>::lane_xor::<S>(x.i),
        }
    }
    #[inline(always)]
    unsafe fn flip<const K: u32>(x: Pairs) -> Pairs {
        Pairs {
            k: <u64 as Lanes>::flip::<K>(x.k),
            i: <u64 as Lanes>::flip::<K>(x.i),
        }
    }
    #[inline(always)]
    unsafe fn zip_lo(a: Pairs, b: Pairs) -> Pairs {
        Pairs {
            k: <u64 as Lanes>::zip_lo(a.k, b.k),
            i: <u64 as Lanes>::zip_lo(a.i, b.i),
        }
    }
    #[inline(always)]
    unsafe fn zip_hi(a: Pairs, b: Pairs) -> Pairs {
        Pairs {
            k: <u64 as Lanes>::zip_hi(a.k, b.k),
            i: <u64 as Lanes>::zip_hi(a.i, b.i),
        }
    }
}
