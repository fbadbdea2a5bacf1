//! AVX-512 one-pass argmax/argmin of a contiguous f32 or f64 row: the scan of
//! `arg_avx2.rs` at 16 f32 (8 f64) lanes, with mask registers for the
//! compares and blends. The row is read in chunks of `C` steps of `U`
//! vectors: inside a chunk only a running max (min) per vector and a NaN
//! probe (`v * 0` summed: NaN iff a NaN or an infinity passed); per chunk,
//! the chunk's lane extremes are merged into running lane extremes, each
//! beside the chunk in which it last strictly improved. The first element
//! equal to the row's extreme lies in the earliest such chunk among the lanes
//! holding it; one masked compare per vector finds it there. A row whose
//! probe is NaN is searched for its first NaN. One body, written once by
//! macro.

use std::arch::x86_64::*;

/// Vectors per step (independent max chains).
const U: usize = 4;
/// Steps per chunk (one index update per chunk).
const C: usize = 4;

macro_rules! arg_row_512 {
    ($name:ident, $t:ty, $lanes:expr, $it:ty, $load:ident, $cmp:ident, $blend:ident,
     $max:ident, $min:ident, $fmadd:ident, $add:ident, $zero:ident, $set1:ident,
     $blendi:ident, $set1i:ident, $addi:ident, $store:ident) => {
        /// The index of the first maximum (`MAX`) or minimum of `row`, or of
        /// its first NaN if it holds one. `row` must not be empty.
        ///
        /// # Safety
        /// The CPU has AVX-512 F (and AVX2, FMA).
        #[target_feature(enable = "avx512f,avx2,fma")]
        pub(super) unsafe fn $name<const MAX: bool>(row: &[$t]) -> usize {
            const CHUNK: usize = C * U * $lanes;
            let beats = |a: $t, b: $t| if MAX { a > b } else { a < b };
            let n = row.len();
            let chunks = n / CHUNK;
            let p = row.as_ptr();
            let (mut b, mut bi) = (row[0], 0usize);
            if chunks > 0 {
                // SAFETY: every load reads `$lanes` elements below
                // `chunks * CHUNK <= n`, or (the final search) below the end
                // of the chunk that holds an element equal to `b`; stores go
                // to local arrays of that size.
                unsafe {
                    let zero = $zero();
                    let mut probe = zero;
                    let mut best = $load(p);
                    // Per lane: the chunk of its current extreme.
                    let mut idx = _mm512_setzero_si512();
                    let mut ci = _mm512_setzero_si512();
                    let one = $set1i(1);
                    for c in 0..chunks {
                        let q = p.add(c * CHUNK);
                        let mut m = [$load(q); U];
                        let mut pr = [zero; U];
                        for i in 0..C {
                            for a in 0..U {
                                let v = $load(q.add((i * U + a) * $lanes));
                                m[a] = if MAX { $max(m[a], v) } else { $min(m[a], v) };
                                pr[a] = $fmadd(v, zero, pr[a]);
                            }
                        }
                        let (m01, m23) = if MAX {
                            ($max(m[0], m[1]), $max(m[2], m[3]))
                        } else {
                            ($min(m[0], m[1]), $min(m[2], m[3]))
                        };
                        let cm = if MAX { $max(m01, m23) } else { $min(m01, m23) };
                        probe = $add(probe, $add($add(pr[0], pr[1]), $add(pr[2], pr[3])));
                        let gt = if MAX {
                            $cmp::<_CMP_GT_OQ>(cm, best)
                        } else {
                            $cmp::<_CMP_GT_OQ>(best, cm)
                        };
                        best = $blend(gt, best, cm);
                        idx = $blendi(gt, idx, ci);
                        ci = $addi(ci, one);
                    }
                    if $cmp::<_CMP_UNORD_Q>(probe, probe) != 0 {
                        if let Some(k) = row.iter().position(|v| v.is_nan()) {
                            return k;
                        }
                    }
                    let mut bv = [0 as $t; $lanes];
                    let mut iv = [0 as $it; $lanes];
                    $store(bv.as_mut_ptr(), best);
                    _mm512_storeu_si512(iv.as_mut_ptr() as *mut _, idx);
                    b = bv[0];
                    for &v in &bv[1..] {
                        if beats(v, b) {
                            b = v;
                        }
                    }
                    let first = (0..$lanes)
                        .filter(|&l| bv[l] == b)
                        .map(|l| iv[l])
                        .min()
                        .expect("a lane holds the extreme");
                    let want = $set1(b);
                    let mut k = first as usize * CHUNK;
                    loop {
                        let hit = $cmp::<_CMP_EQ_OQ>($load(p.add(k)), want);
                        if hit != 0 {
                            bi = k + hit.trailing_zeros() as usize;
                            break;
                        }
                        k += $lanes;
                    }
                }
            }
            let tail = &row[chunks * CHUNK..];
            if tail.iter().any(|v| v.is_nan()) {
                return row.iter().position(|v| v.is_nan()).expect("a NaN was seen");
            }
            for (j, &v) in tail.iter().enumerate() {
                if beats(v, b) {
                    (b, bi) = (v, chunks * CHUNK + j);
                }
            }
            bi
        }
    };
}

arg_row_512!(
    arg_f32,
    f32,
    16,
    i32,
    _mm512_loadu_ps,
    _mm512_cmp_ps_mask,
    _mm512_mask_blend_ps,
    _mm512_max_ps,
    _mm512_min_ps,
    _mm512_fmadd_ps,
    _mm512_add_ps,
    _mm512_setzero_ps,
    _mm512_set1_ps,
    _mm512_mask_blend_epi32,
    _mm512_set1_epi32,
    _mm512_add_epi32,
    _mm512_storeu_ps
);
arg_row_512!(
    arg_f64,
    f64,
    8,
    i64,
    _mm512_loadu_pd,
    _mm512_cmp_pd_mask,
    _mm512_mask_blend_pd,
    _mm512_max_pd,
    _mm512_min_pd,
    _mm512_fmadd_pd,
    _mm512_add_pd,
    _mm512_setzero_pd,
    _mm512_set1_pd,
    _mm512_mask_blend_epi64,
    _mm512_set1_epi64,
    _mm512_add_epi64,
    _mm512_storeu_pd
);
