//! Register-tile micro-kernels for the packed GEMM, each body written once by
//! macro (`MR` rows times `NV` vectors): AVX2 + FMA (f32 6 x 16, f64 6 x 8:
//! 12 ymm accumulators) and AVX-512F (f32 14 x 32, f64 14 x 16: 28 zmm
//! accumulators; direct f32 8 x 32, f64 8 x 16). The packed kernels multiply a
//! packed `MR x kc` panel of A by a packed `kc x NR` panel of B; the direct
//! kernels (the small products of `small.rs`) read A at any strides and B at
//! a row stride with unit column stride, in place. Both store (or add) the
//! tile to a row-major destination. Each packed kernel follows a software
//! prefetch plan (`Prefetch`) chosen per instruction set.

use std::arch::x86_64::*;

/// Rows of the AVX2 register tile (both types, both forms). The direct form
/// also comes with 1 to 5 rows, for the last row tile of a product whose
/// rows are not a multiple of 6 (`small.rs`).
pub(super) const MR_AVX2: usize = 6;
/// Rows of the AVX-512 packed register tile (both types).
pub(super) const MR_AVX512: usize = 14;
/// Rows of the AVX-512 direct register tile (both types): 8 rows divide the
/// common small sizes (64, 128) where 14 leaves a mostly empty edge tile;
/// on the Zen 4 VM (one thread, median, `rnx-bench`) f32 64^3 5.63 us with
/// 8 x 32 against 6.46 with 14 x 32, 128^3 37.9 us against 41.7.
pub(super) const MR_AVX512_DIRECT: usize = 8;

/// When a packed kernel asks for the lines it will read (software prefetch).
#[derive(Clone, Copy)]
struct Prefetch {
    /// Request the C tile's lines one row per depth step over the first `MR`
    /// steps (`true`), or all of them before the first step (`false`).
    spread_c: bool,
    /// Depth steps ahead at which each step requests a line of the packed A
    /// panel (0: once per four steps, eight steps ahead).
    a_ahead: usize,
    /// Depth steps ahead at which each step requests the lines of the packed
    /// B panel (0: never; the hardware prefetcher alone).
    b_ahead: usize,
}

/// The AVX2 kernels' plan (measured on the Zen 3 VM, their main machine).
const PREFETCH_AVX2: Prefetch = Prefetch {
    spread_c: false,
    a_ahead: 0,
    b_ahead: 0,
};

/// The AVX-512 kernels' plan. Their 28 C lines requested at once held up
/// the kernel's start (4.5% of its samples sat on those prefetches), and the
/// B panel (48-64 KiB) is as large as L1, so it does not stay there beside
/// A's. On the Intel VM (Emerald Rapids, one thread, a throwaway probe
/// timing `matmul`, medians of 7, alternated): f32 2048^3 78.1 ms with the
/// AVX2 plan, 75.0 with this one (NumPy 74.9), f64 2048^3 159.3 against
/// 153.5 (NumPy 155.8). Distances 8-32 steps for A and 4-16 for B measured
/// within 1% of each other. Not yet measured on Zen 4.
const PREFETCH_AVX512: Prefetch = Prefetch {
    spread_c: true,
    a_ahead: 16,
    b_ahead: 8,
};

macro_rules! packed_kernels {
    ($feat:literal, $t:ty, $v:ty, $lanes:expr, $zero:ident, $bcast:ident, $load:ident,
     $store:ident, $fma:ident, $add:ident, $pf:expr;
     $(($name:ident, $mr:expr, $nv:expr)),* $(,)?) => {$(
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
            const NV: usize = $nv;
            const NR: usize = NV * $lanes;
            const PF: Prefetch = $pf;
            // SAFETY: the caller guarantees the extents above; every offset
            // below stays inside them (prefetches may point anywhere).
            unsafe {
                let prefetch_c_row = |i: usize| {
                    let row = c.wrapping_offset(i as isize * rs);
                    _mm_prefetch::<_MM_HINT_T0>(row as *const i8);
                    _mm_prefetch::<_MM_HINT_T0>(row.wrapping_add(NR - 1) as *const i8);
                };
                if !PF.spread_c {
                    (0..MR).for_each(prefetch_c_row);
                }
                let mut acc: [[$v; NV]; MR] = [[$zero(); NV]; MR];
                let (mut ap, mut bp) = (a, b);
                // One depth step: NV B vectors, MR broadcasts of A, MR * NV FMAs.
                let step = |acc: &mut [[$v; NV]; MR], ap: *const $t, bp: *const $t| {
                    if PF.a_ahead > 0 {
                        _mm_prefetch::<_MM_HINT_T0>(ap.wrapping_add(PF.a_ahead * MR) as *const i8);
                    }
                    if PF.b_ahead > 0 {
                        for j in 0..NV {
                            let line = bp.wrapping_add(PF.b_ahead * NR + j * $lanes);
                            _mm_prefetch::<_MM_HINT_T0>(line as *const i8);
                        }
                    }
                    let mut bv = [$zero(); NV];
                    for (j, x) in bv.iter_mut().enumerate() {
                        *x = $load(bp.add(j * $lanes));
                    }
                    for (i, row) in acc.iter_mut().enumerate() {
                        let ai = $bcast(*ap.add(i));
                        for (r, x) in row.iter_mut().zip(bv) {
                            *r = $fma(ai, x, *r);
                        }
                    }
                };
                let mut kc = kc;
                if PF.spread_c {
                    // The first MR steps each request one row of the tile.
                    let lead = kc.min(MR);
                    for i in 0..MR {
                        prefetch_c_row(i);
                        if i < lead {
                            step(&mut acc, ap, bp);
                            ap = ap.add(MR);
                            bp = bp.add(NR);
                        }
                    }
                    kc -= lead;
                }
                for _ in 0..kc / 4 {
                    if PF.a_ahead == 0 {
                        _mm_prefetch::<_MM_HINT_T0>(ap.wrapping_add(8 * MR) as *const i8);
                    }
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
                    for (j, r) in row.iter().enumerate() {
                        let q = p.add(j * $lanes);
                        let r = if accumulate { $add(*r, $load(q)) } else { *r };
                        $store(q, r);
                    }
                }
            }
        }

    )*};
}

macro_rules! direct_kernels {
    ($feat:literal, $t:ty, $v:ty, $lanes:expr, $zero:ident, $bcast:ident, $load:ident,
     $store:ident, $fma:ident, $add:ident;
     $(($direct:ident, $mr:expr, $nv:expr, $prefetch_c:expr)),* $(,)?) => {$(
        /// `c[i][j] (+)= sum_p a[i*ars + p*acs] * b[p*brs + j]` for the
        /// `MR x NR` tile, operands in place; `c` as in the packed form.
        ///
        /// # Safety
        /// The CPU has the features named in `target_feature`; the `MR x kc`
        /// elements of `a` and the `kc` rows of `NR` elements of `b` are
        /// readable; `c` addresses `MR` rows of `NR` writable elements.
        #[target_feature(enable = $feat)]
        #[allow(clippy::too_many_arguments)]
        pub(super) unsafe fn $direct(
            kc: usize,
            a: *const $t,
            ars: isize,
            acs: isize,
            b: *const $t,
            brs: isize,
            c: *mut $t,
            rs: isize,
            accumulate: bool,
        ) {
            const MR: usize = $mr;
            const NV: usize = $nv;
            // SAFETY: the caller guarantees the extents above; every offset
            // below stays inside them (prefetches may point anywhere).
            unsafe {
                // The C tile's lines are requested first: its stores come
                // after the whole depth loop, so the lines (write-allocated;
                // in a batch, C is out of cache) arrive meanwhile. The AVX2
                // forms only (2-core Zen 3 VM, one thread, `rnx-bench`,
                // alternated: bmm_f32_64x128x128_1t medians 3.52-4.44 ms
                // without, 3.41-3.80 with; matmul_f32_128_1t 46.6-49.0 us
                // without, 46.6-46.9 with). Not the AVX-512 forms: on the
                // Intel VM (Emerald Rapids; `rnx-bench`, three alternated
                // runs) it changed nothing beyond the noise:
                // bmm_f32_64x128x128_1t 1.425-1.435 ms without, 1.430-1.444
                // with; matmul_f32_128_1t 18.8 us against 18.9-19.4.
                if $prefetch_c {
                    for i in 0..MR {
                        let row = c.wrapping_offset(i as isize * rs);
                        _mm_prefetch::<_MM_HINT_T0>(row as *const i8);
                        _mm_prefetch::<_MM_HINT_T0>(row.wrapping_add(NV * $lanes - 1) as *const i8);
                    }
                }
                let mut acc: [[$v; NV]; MR] = [[$zero(); NV]; MR];
                let rows: [*const $t; MR] = std::array::from_fn(|i| a.offset(i as isize * ars));
                let mut bp = b;
                for p in 0..kc as isize {
                    let mut bv = [$zero(); NV];
                    for (j, x) in bv.iter_mut().enumerate() {
                        *x = $load(bp.add(j * $lanes));
                    }
                    for (row, ar) in acc.iter_mut().zip(rows) {
                        let ai = $bcast(*ar.offset(p * acs));
                        for (r, x) in row.iter_mut().zip(bv) {
                            *r = $fma(ai, x, *r);
                        }
                    }
                    bp = bp.offset(brs);
                }
                for (i, row) in acc.iter().enumerate() {
                    let p = c.offset(i as isize * rs);
                    for (j, r) in row.iter().enumerate() {
                        let q = p.add(j * $lanes);
                        let r = if accumulate { $add(*r, $load(q)) } else { *r };
                        $store(q, r);
                    }
                }
            }
        }
    )*};
}

packed_kernels!(
    "avx2,fma", f32, __m256, 8, _mm256_setzero_ps, _mm256_set1_ps, _mm256_loadu_ps,
    _mm256_storeu_ps, _mm256_fmadd_ps, _mm256_add_ps, PREFETCH_AVX2;
    (avx2_f32, MR_AVX2, 2),
);
direct_kernels!(
    "avx2,fma", f32, __m256, 8, _mm256_setzero_ps, _mm256_set1_ps, _mm256_loadu_ps,
    _mm256_storeu_ps, _mm256_fmadd_ps, _mm256_add_ps;
    (avx2_f32_direct, MR_AVX2, 2, true),
    (avx2_f32_direct1, 1, 2, true),
    (avx2_f32_direct2, 2, 2, true),
    (avx2_f32_direct3, 3, 2, true),
    (avx2_f32_direct4, 4, 2, true),
    (avx2_f32_direct5, 5, 2, true),
);
packed_kernels!(
    "avx2,fma", f64, __m256d, 4, _mm256_setzero_pd, _mm256_set1_pd, _mm256_loadu_pd,
    _mm256_storeu_pd, _mm256_fmadd_pd, _mm256_add_pd, PREFETCH_AVX2;
    (avx2_f64, MR_AVX2, 2),
);
direct_kernels!(
    "avx2,fma", f64, __m256d, 4, _mm256_setzero_pd, _mm256_set1_pd, _mm256_loadu_pd,
    _mm256_storeu_pd, _mm256_fmadd_pd, _mm256_add_pd;
    (avx2_f64_direct, MR_AVX2, 2, true),
    (avx2_f64_direct1, 1, 2, true),
    (avx2_f64_direct2, 2, 2, true),
    (avx2_f64_direct3, 3, 2, true),
    (avx2_f64_direct4, 4, 2, true),
    (avx2_f64_direct5, 5, 2, true),
);
packed_kernels!(
    "avx512f", f32, __m512, 16, _mm512_setzero_ps, _mm512_set1_ps, _mm512_loadu_ps,
    _mm512_storeu_ps, _mm512_fmadd_ps, _mm512_add_ps, PREFETCH_AVX512;
    (avx512_f32, MR_AVX512, 2),
);
direct_kernels!(
    "avx512f", f32, __m512, 16, _mm512_setzero_ps, _mm512_set1_ps, _mm512_loadu_ps,
    _mm512_storeu_ps, _mm512_fmadd_ps, _mm512_add_ps;
    (avx512_f32_direct, MR_AVX512_DIRECT, 2, false),
);
packed_kernels!(
    "avx512f", f64, __m512d, 8, _mm512_setzero_pd, _mm512_set1_pd, _mm512_loadu_pd,
    _mm512_storeu_pd, _mm512_fmadd_pd, _mm512_add_pd, PREFETCH_AVX512;
    (avx512_f64, MR_AVX512, 2),
);
direct_kernels!(
    "avx512f", f64, __m512d, 8, _mm512_setzero_pd, _mm512_set1_pd, _mm512_loadu_pd,
    _mm512_storeu_pd, _mm512_fmadd_pd, _mm512_add_pd;
    (avx512_f64_direct, MR_AVX512_DIRECT, 2, false),
);
