//! The statistics pass of the fused normalisation layers (`norm.rs`): over a
//! contiguous run of f32 or f64, the sum of squares (rms_norm) or the sums of
//! `x - k` and `(x - k)²` for a shift `k` (layer_norm), in f64. One read of
//! the run, 16 f64 lanes at every SIMD level (AVX-512: two 8-lane registers
//! per sum; AVX2: four 4-lane ones; portable: arrays), no fused multiply-add,
//! and the lanes summed in one fixed order: the same bits at every level.

#[cfg(all(target_arch = "x86_64", not(miri)))]
use crate::backend::cpu::elementwise::simd::{isa, Isa};

/// f64 lanes of the sums.
const LANES: usize = 16;

/// Running sums over one group.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Sums {
    /// Sum of `x - k` (layer_norm only).
    pub s1: f64,
    /// Sum of `(x - k)²` (`k = 0` for rms_norm).
    pub s2: f64,
}

/// The float types with a vectorised statistics pass.
pub(super) trait StatFloat: Copy {
    /// Add the sums of `xs` shifted by `k` (with `shift`; else only the sum
    /// of squares, `k` unused) to `acc`.
    fn sums(xs: &[Self], k: f64, shift: bool, acc: &mut Sums);
}

/// The lanes summed in one fixed order (pairwise).
#[inline(always)]
fn fold(l: &[f64; LANES]) -> f64 {
    let mut v = *l;
    let mut w = LANES;
    while w > 1 {
        w /= 2;
        for i in 0..w {
            v[i] += v[i + w];
        }
    }
    v[0]
}

/// Element `i` of each 16-element block goes to lane `i`; the tail is added
/// after the lanes, in order.
#[inline(always)]
fn portable<T: Copy>(xs: &[T], k: f64, shift: bool, acc: &mut Sums, wide: impl Fn(T) -> f64) {
    let mut it = xs.chunks_exact(LANES);
    let (mut a1, mut a2) = ([0f64; LANES], [0f64; LANES]);
    if shift {
        for c in &mut it {
            for l in 0..LANES {
                let d = wide(c[l]) - k;
                a1[l] += d;
                a2[l] += d * d;
            }
        }
    } else {
        for c in &mut it {
            for l in 0..LANES {
                let d = wide(c[l]);
                a2[l] += d * d;
            }
        }
    }
    let (mut s1, mut s2) = (fold(&a1), fold(&a2));
    for &x in it.remainder() {
        let d = if shift { wide(x) - k } else { wide(x) };
        s1 += d;
        s2 += d * d;
    }
    if shift {
        acc.s1 += s1;
    }
    acc.s2 += s2;
}

impl StatFloat for f32 {
    fn sums(xs: &[f32], k: f64, shift: bool, acc: &mut Sums) {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        {
            let body = xs.len() / LANES * LANES;
            let lanes = match isa() {
                // SAFETY: the CPU has the level's features (`isa`).
                Isa::Avx512 => unsafe { x86::f32_512(&xs[..body], k, shift) },
                // SAFETY: as above.
                Isa::Avx2 => unsafe { x86::f32_256(&xs[..body], k, shift) },
                Isa::Portable => return portable(xs, k, shift, acc, |v| v as f64),
            };
            let tail = &xs[body..];
            return finish(lanes, tail, k, shift, acc, |v| v as f64);
        }
        #[allow(unreachable_code)]
        portable(xs, k, shift, acc, |v| v as f64)
    }
}

impl StatFloat for f64 {
    fn sums(xs: &[f64], k: f64, shift: bool, acc: &mut Sums) {
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        {
            let body = xs.len() / LANES * LANES;
            let lanes = match isa() {
                // SAFETY: the CPU has the level's features (`isa`).
                Isa::Avx512 => unsafe { x86::f64_512(&xs[..body], k, shift) },
                // SAFETY: as above.
                Isa::Avx2 => unsafe { x86::f64_256(&xs[..body], k, shift) },
                Isa::Portable => return portable(xs, k, shift, acc, |v| v),
            };
            let tail = &xs[body..];
            return finish(lanes, tail, k, shift, acc, |v| v);
        }
        #[allow(unreachable_code)]
        portable(xs, k, shift, acc, |v| v)
    }
}

/// The lanes of a SIMD body folded as [`portable`] folds its own, then the
/// tail in order: the portable result bit for bit.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[inline(always)]
fn finish<T: Copy>(
    (a1, a2): ([f64; LANES], [f64; LANES]),
    tail: &[T],
    k: f64,
    shift: bool,
    acc: &mut Sums,
    wide: impl Fn(T) -> f64,
) {
    let (mut s1, mut s2) = (fold(&a1), fold(&a2));
    for &x in tail {
        let d = if shift { wide(x) - k } else { wide(x) };
        s1 += d;
        s2 += d * d;
    }
    if shift {
        acc.s1 += s1;
    }
    acc.s2 += s2;
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
mod x86 {
    //! The SIMD bodies: `xs.len()` is a multiple of 16; lane `l` of the
    //! result holds the sums of the elements at `l` mod 16, as `portable`.
    use super::LANES;
    use std::arch::x86_64::*;

    type Lanes = ([f64; LANES], [f64; LANES]);

    /// # Safety
    /// The CPU has AVX-512 F/DQ; `xs.len() % 16 == 0`.
    #[target_feature(enable = "avx512f,avx512dq,avx2,fma")]
    pub(super) unsafe fn f32_512(xs: &[f32], k: f64, shift: bool) -> Lanes {
        let kv = _mm512_set1_pd(if shift { k } else { 0.0 });
        let (mut s1a, mut s1b) = (_mm512_setzero_pd(), _mm512_setzero_pd());
        let (mut s2a, mut s2b) = (_mm512_setzero_pd(), _mm512_setzero_pd());
        for c in xs.chunks_exact(LANES) {
            // SAFETY: 16 readable f32 (a chunk).
            let v = unsafe { _mm512_loadu_ps(c.as_ptr()) };
            let lo = _mm512_sub_pd(_mm512_cvtps_pd(_mm512_castps512_ps256(v)), kv);
            let hi = _mm512_sub_pd(_mm512_cvtps_pd(_mm512_extractf32x8_ps::<1>(v)), kv);
            s1a = _mm512_add_pd(s1a, lo);
            s1b = _mm512_add_pd(s1b, hi);
            s2a = _mm512_add_pd(s2a, _mm512_mul_pd(lo, lo));
            s2b = _mm512_add_pd(s2b, _mm512_mul_pd(hi, hi));
        }
        let mut out = ([0f64; LANES], [0f64; LANES]);
        // SAFETY: stores of 8 f64 into arrays of 16 at 0 and 8.
        unsafe {
            _mm512_storeu_pd(out.0.as_mut_ptr(), s1a);
            _mm512_storeu_pd(out.0.as_mut_ptr().add(8), s1b);
            _mm512_storeu_pd(out.1.as_mut_ptr(), s2a);
            _mm512_storeu_pd(out.1.as_mut_ptr().add(8), s2b);
        }
        out
    }

    /// # Safety
    /// The CPU has AVX-512 F; `xs.len() % 16 == 0`.
    #[target_feature(enable = "avx512f,avx2,fma")]
    pub(super) unsafe fn f64_512(xs: &[f64], k: f64, shift: bool) -> Lanes {
        let kv = _mm512_set1_pd(if shift { k } else { 0.0 });
        let (mut s1a, mut s1b) = (_mm512_setzero_pd(), _mm512_setzero_pd());
        let (mut s2a, mut s2b) = (_mm512_setzero_pd(), _mm512_setzero_pd());
        for c in xs.chunks_exact(LANES) {
            // SAFETY: 16 readable f64 (a chunk), 8 at 0 and 8 at 8.
            let (lo, hi) = unsafe {
                (
                    _mm512_sub_pd(_mm512_loadu_pd(c.as_ptr()), kv),
                    _mm512_sub_pd(_mm512_loadu_pd(c.as_ptr().add(8)), kv),
                )
            };
            s1a = _mm512_add_pd(s1a, lo);
            s1b = _mm512_add_pd(s1b, hi);
            s2a = _mm512_add_pd(s2a, _mm512_mul_pd(lo, lo));
            s2b = _mm512_add_pd(s2b, _mm512_mul_pd(hi, hi));
        }
        let mut out = ([0f64; LANES], [0f64; LANES]);
        // SAFETY: stores of 8 f64 into arrays of 16 at 0 and 8.
        unsafe {
            _mm512_storeu_pd(out.0.as_mut_ptr(), s1a);
            _mm512_storeu_pd(out.0.as_mut_ptr().add(8), s1b);
            _mm512_storeu_pd(out.1.as_mut_ptr(), s2a);
            _mm512_storeu_pd(out.1.as_mut_ptr().add(8), s2b);
        }
        out
    }

    /// Four 4-lane accumulators per sum, lanes `4q..4q+4` in register `q`.
    ///
    /// # Safety
    /// The CPU has AVX2; `xs.len() % 16 == 0`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn f32_256(xs: &[f32], k: f64, shift: bool) -> Lanes {
        let kv = _mm256_set1_pd(if shift { k } else { 0.0 });
        let mut s1 = [_mm256_setzero_pd(); 4];
        let mut s2 = [_mm256_setzero_pd(); 4];
        for c in xs.chunks_exact(LANES) {
            for q in 0..4 {
                // SAFETY: 4 readable f32 at 4q of a 16-element chunk.
                let v = unsafe { _mm_loadu_ps(c.as_ptr().add(4 * q)) };
                let d = _mm256_sub_pd(_mm256_cvtps_pd(v), kv);
                s1[q] = _mm256_add_pd(s1[q], d);
                s2[q] = _mm256_add_pd(s2[q], _mm256_mul_pd(d, d));
            }
        }
        let mut out = ([0f64; LANES], [0f64; LANES]);
        for q in 0..4 {
            // SAFETY: stores of 4 f64 into arrays of 16 at 4q.
            unsafe {
                _mm256_storeu_pd(out.0.as_mut_ptr().add(4 * q), s1[q]);
                _mm256_storeu_pd(out.1.as_mut_ptr().add(4 * q), s2[q]);
            }
        }
        out
    }

    /// As [`f32_256`] for f64.
    ///
    /// # Safety
    /// The CPU has AVX2; `xs.len() % 16 == 0`.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn f64_256(xs: &[f64], k: f64, shift: bool) -> Lanes {
        let kv = _mm256_set1_pd(if shift { k } else { 0.0 });
        let mut s1 = [_mm256_setzero_pd(); 4];
        let mut s2 = [_mm256_setzero_pd(); 4];
        for c in xs.chunks_exact(LANES) {
            for q in 0..4 {
                // SAFETY: 4 readable f64 at 4q of a 16-element chunk.
                let d = _mm256_sub_pd(unsafe { _mm256_loadu_pd(c.as_ptr().add(4 * q)) }, kv);
                s1[q] = _mm256_add_pd(s1[q], d);
                s2[q] = _mm256_add_pd(s2[q], _mm256_mul_pd(d, d));
            }
        }
        let mut out = ([0f64; LANES], [0f64; LANES]);
        for q in 0..4 {
            // SAFETY: stores of 4 f64 into arrays of 16 at 4q.
            unsafe {
                _mm256_storeu_pd(out.0.as_mut_ptr().add(4 * q), s1[q]);
                _mm256_storeu_pd(out.1.as_mut_ptr().add(4 * q), s2[q]);
            }
        }
        out
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;

    /// Every SIMD body gives the portable sums bit for bit, for every length
    /// (bodies and tails) and both shifts.
    pub(crate) fn simd_sums_equal_the_portable_ones() {
        let mut s = 0x9e37_79b9_u64;
        let mut next = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 11) as f64 / (1u64 << 53) as f64 * 200.0 - 100.0
        };
        let v64: Vec<f64> = (0..300).map(|_| next()).collect();
        let v32: Vec<f32> = v64.iter().map(|&v| v as f32).collect();
        for len in 0..v64.len() {
            for (k, shift) in [(0.0, false), (v64[0], true)] {
                let bits = |a: Sums| (a.s1.to_bits(), a.s2.to_bits());
                let (mut p32, mut p64) = (Sums::default(), Sums::default());
                portable(&v32[..len], k, shift, &mut p32, |v| v as f64);
                portable(&v64[..len], k, shift, &mut p64, |v| v);
                let (mut a32, mut a64) = (Sums::default(), Sums::default());
                f32::sums(&v32[..len], k, shift, &mut a32);
                f64::sums(&v64[..len], k, shift, &mut a64);
                assert_eq!(bits(a32), bits(p32), "f32 len {len}");
                assert_eq!(bits(a64), bits(p64), "f64 len {len}");
                #[cfg(all(target_arch = "x86_64", not(miri)))]
                {
                    let body = len / LANES * LANES;
                    let check = |lanes, tail: &[f64], want: Sums| {
                        let mut got = Sums::default();
                        finish(lanes, tail, k, shift, &mut got, |v| v);
                        assert_eq!(bits(got), bits(want), "len {len}");
                    };
                    let t64 = &v64[body..len];
                    let t32: Vec<f64> = v32[body..len].iter().map(|&v| v as f64).collect();
                    if isa() >= Isa::Avx2 {
                        // SAFETY: the CPU has AVX2 (`isa`); lengths of whole blocks.
                        unsafe {
                            check(x86::f64_256(&v64[..body], k, shift), t64, p64);
                            check(x86::f32_256(&v32[..body], k, shift), &t32, p32);
                        }
                    }
                    if isa() == Isa::Avx512 {
                        // SAFETY: the CPU has AVX-512 (`isa`); whole blocks.
                        unsafe {
                            check(x86::f64_512(&v64[..body], k, shift), t64, p64);
                            check(x86::f32_512(&v32[..body], k, shift), &t32, p32);
                        }
                    }
                }
            }
        }
    }
}
