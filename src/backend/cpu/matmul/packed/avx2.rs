//! AVX2 + FMA register-tile micro-kernels for the packed GEMM: f32 (6 x 16) and
//! f64 (6 x 8), one body written once by macro. Each multiplies a packed
//! `MR x kc` panel of A by a packed `kc x NR` panel of B into 12 vector
//! accumulators and stores (or adds) the tile to a row-major destination.

use std::arch::x86_64::*;

/// Rows of the register tile (both types).
pub(super) const MR: usize = 6;

macro_rules! micro_kernel {
    ($name:ident, $t:ty, $v:ty, $lanes:expr, $zero:ident, $bcast:ident, $load:ident,
     $store:ident, $fma:ident, $add:ident) => {
        /// `c[i][j] (+)= sum_p a[p*MR + i] * b[p*NR + j]` for the `MR x NR` tile,
        /// `c` row-major with row stride `rs` (elements), unit column stride.
        ///
        /// # Safety
        /// The CPU has AVX2 and FMA; `a` holds `kc * MR` and `b` holds `kc * NR`
        /// readable elements; `c` addresses `MR` rows of `NR` writable elements.
        #[target_feature(enable = "avx2,fma")]
        pub(super) unsafe fn $name(
            kc: usize,
            a: *const $t,
            b: *const $t,
            c: *mut $t,
            rs: isize,
            accumulate: bool,
        ) {
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
                        let ai = $bcast(&*ap.add(i));
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
    kernel_f32,
    f32,
    __m256,
    8,
    _mm256_setzero_ps,
    _mm256_broadcast_ss,
    _mm256_loadu_ps,
    _mm256_storeu_ps,
    _mm256_fmadd_ps,
    _mm256_add_ps
);
micro_kernel!(
    kernel_f64,
    f64,
    __m256d,
    4,
    _mm256_setzero_pd,
    _mm256_broadcast_sd,
    _mm256_loadu_pd,
    _mm256_storeu_pd,
    _mm256_fmadd_pd,
    _mm256_add_pd
);
