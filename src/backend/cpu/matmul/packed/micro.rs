//! Register-tile micro-kernels for the packed GEMM, one body written once by
//! macro: AVX2 + FMA (f32 6 x 16, f64 6 x 8: 12 ymm accumulators) and
//! AVX-512F (f32 14 x 32, f64 14 x 16: 28 zmm accumulators). Each multiplies a
//! packed `MR x kc` panel of A by a packed `kc x NR` panel of B and stores (or
//! adds) the tile to a row-major destination.

use std::arch::x86_64::*;

/// Rows of the AVX2 register tile (both types).
pub(super) const MR_AVX2: usize = 6;
/// Rows of the AVX-512 register tile (both types).
pub(super) const MR_AVX512: usize = 14;

macro_rules! micro_kernel {
    ($name:ident, $feat:literal, $mr:expr, $t:ty, $v:ty, $lanes:expr, $zero:ident,
     $bcast:ident, $load:ident, $store:ident, $fma:ident, $add:ident) => {
        /// `c[i][j] (+)= sum_p a[p*MR + i] * b[p*NR + j]` for the `MR x NR` tile,
        /// `c` row-major with row stride `rs` (elements), unit column stride.
        ///
        /// # Safety
        /// The CPU has the features named in `target_feature`; `a` holds
        /// `kc * MR` and `b` holds `kc * NR` readable elements; `c` addresses
        /// `MR` rows of `NR` writable elements.
        #[target_feature(enable = $feat)]
        pub(super) unsafe fn $name(
            kc: usize,
            a: *const $t,
            b: *const $t,
            c: *mut $t,
            rs: isize,
            accumulate: bool,
        ) {
            const MR: usize = $mr;
            const NR: usize = 2 * $lanes;
            // SAFETY: the caller guarantees the extents above; every offset
            // below stays inside them.
            unsafe {
                for i in 0..MR {
                    _mm_prefetch::<_MM_HINT_T0>(c.offset(i as isize * rs) as *const i8);
                    _mm_prefetch::<_MM_HINT_T0>(
                        c.offset(i as isize * rs + NR as isize - 1) as *const i8
                    );
                }
                let mut acc: [[$v; 2]; MR] = [[$zero(); 2]; MR];
                let (mut ap, mut bp) = (a, b);
                // One depth step: two B vectors, MR broadcasts of A, 2 * MR FMAs.
                let step = |acc: &mut [[$v; 2]; MR], ap: *const $t, bp: *const $t| {
                    let b0 = $load(bp);
                    let b1 = $load(bp.add($lanes));
                    for (i, row) in acc.iter_mut().enumerate() {
                        let ai = $bcast(*ap.add(i));
                        row[0] = $fma(ai, b0, row[0]);
                        row[1] = $fma(ai, b1, row[1]);
                    }
                };
                for _ in 0..kc / 4 {
                    _mm_prefetch::<_MM_HINT_T0>(ap.add(8 * MR) as *const i8);
                    step(&mut acc, ap, bp);
                    step(&mut acc, ap.add(MR), bp.add(NR));
                    step(&mut acc, ap.add(2 * MR), bp.add(2 * NR));
                    step(&mut acc, ap.add(3 * MR), bp.add(3 * NR));
                    ap = ap.add(4 * MR);
                    bp = bp.add(4 * NR);
                }
                for _ in 0..kc % 4 {
                    step(&mut acc, ap, bp);
                    ap = ap.add(MR);
                    bp = bp.add(NR);
                }
                for (i, row) in acc.iter().enumerate() {
                    let p = c.offset(i as isize * rs);
                    let (mut r0, mut r1) = (row[0], row[1]);
                    if accumulate {
                        r0 = $add(r0, $load(p));
                        r1 = $add(r1, $load(p.add($lanes)));
                    }
                    $store(p, r0);
                    $store(p.add($lanes), r1);
                }
            }
        }
    };
}

micro_kernel!(
    avx2_f32,
    "avx2,fma",
    MR_AVX2,
    f32,
    __m256,
    8,
    _mm256_setzero_ps,
    _mm256_set1_ps,
    _mm256_loadu_ps,
    _mm256_storeu_ps,
    _mm256_fmadd_ps,
    _mm256_add_ps
);
micro_kernel!(
    avx2_f64,
    "avx2,fma",
    MR_AVX2,
    f64,
    __m256d,
    4,
    _mm256_setzero_pd,
    _mm256_set1_pd,
    _mm256_loadu_pd,
    _mm256_storeu_pd,
    _mm256_fmadd_pd,
    _mm256_add_pd
);
micro_kernel!(
    avx512_f32,
    "avx512f",
    MR_AVX512,
    f32,
    __m512,
    16,
    _mm512_setzero_ps,
    _mm512_set1_ps,
    _mm512_loadu_ps,
    _mm512_storeu_ps,
    _mm512_fmadd_ps,
    _mm512_add_ps
);
micro_kernel!(
    avx512_f64,
    "avx512f",
    MR_AVX512,
    f64,
    __m512d,
    8,
    _mm512_setzero_pd,
    _mm512_set1_pd,
    _mm512_loadu_pd,
    _mm512_storeu_pd,
    _mm512_fmadd_pd,
    _mm512_add_pd
);
