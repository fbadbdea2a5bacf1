//! AVX2 one-pass argmax/argmin of a contiguous f32 or f64 row, for the
//! contiguous-axis case of `arg.rs`. The row is read in chunks of `C` steps of
//! `U` vectors: inside a chunk only a running max (min) per vector and a
//! NaN probe (`v * 0` summed: NaN iff a NaN or an infinity passed) — two
//! operations per vector, so the scan runs at memory speed; per chunk, the
//! chunk's lane extremes are merged into running lane extremes, each beside the
//! chunk in which it last strictly improved. The first element equal to the
//! row's extreme lies in the earliest such chunk among the lanes holding it;
//! one vector compare finds it there. A row whose probe is NaN is searched for
//! its first NaN. One body, written once by macro.

use std::arch::x86_64::*;

/// Vectors per step (independent max chains).
const U: usize = 4;
/// Steps per chunk (one index update per chunk).
const C: usize = 4;

macro_rules! arg_row {
    ($name:ident, $t:ty, $lanes:expr, $it:ty, $load:ident, $cmp:ident, $blend:ident,
     $max:ident, $min:ident, $fmadd:ident, $add:ident, $zero:ident, $set1:ident,
     $movemask:ident, $from_si:ident, $to_si:ident, $set1i:ident, $addi:ident,
     $store:ident) => {
        /// The index of the first maximum (`MAX`) or minimum of `row`, or of
        /// its first NaN if it holds one. `row` must not be empty.
        ///
        /// # Safety
        /// The CPU has AVX2 and FMA.
        #[target_feature(enable = "avx2,fma")]
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
                    let mut idx = _mm256_setzero_si256();
                    let mut ci = _mm256_setzero_si256();
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
                        best = $blend(best, cm, gt);
                        idx = $to_si($blend($from_si(idx), $from_si(ci), gt));
                        ci = $addi(ci, one);
                    }
                    if $movemask($cmp::<_CMP_UNORD_Q>(probe, probe)) != 0 {
                        if let Some(k) = row.iter().position(|v| v.is_nan()) {
                            return k;
                        }
                    }
                    let mut bv = [0 as $t; $lanes];
                    let mut iv = [0 as $it; $lanes];
                    $store(bv.as_mut_ptr(), best);
                    _mm256_storeu_si256(iv.as_mut_ptr() as *mut __m256i, idx);
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
                        let hit = $movemask($cmp::<_CMP_EQ_OQ>($load(p.add(k)), want));
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

arg_row!(
    arg_f32,
    f32,
    8,
    i32,
    _mm256_loadu_ps,
    _mm256_cmp_ps,
    _mm256_blendv_ps,
    _mm256_max_ps,
    _mm256_min_ps,
    _mm256_fmadd_ps,
    _mm256_add_ps,
    _mm256_setzero_ps,
    _mm256_set1_ps,
    _mm256_movemask_ps,
    _mm256_castsi256_ps,
    _mm256_castps_si256,
    _mm256_set1_epi32,
    _mm256_add_epi32,
    _mm256_storeu_ps
);
arg_row!(
    arg_f64,
    f64,
    4,
    i64,
    _mm256_loadu_pd,
    _mm256_cmp_pd,
    _mm256_blendv_pd,
    _mm256_max_pd,
    _mm256_min_pd,
    _mm256_fmadd_pd,
    _mm256_add_pd,
    _mm256_setzero_pd,
    _mm256_set1_pd,
    _mm256_movemask_pd,
    _mm256_castsi256_pd,
    _mm256_castpd_si256,
    _mm256_set1_epi64x,
    _mm256_add_epi64,
    _mm256_storeu_pd
);

/// The SIMD scan of `row` when the CPU has AVX2 and `T` is f32 or f64 (None
/// otherwise: the caller runs its portable scan): the AVX-512 one
/// (`arg_avx512.rs`) at that level, else this file's.
#[inline]
pub(super) fn first_extreme<T: crate::dtype::Element>(max: bool, row: &[T]) -> Option<usize> {
    use super::arg_avx512 as w;
    use crate::backend::cpu::elementwise::simd::{isa, Isa};
    use crate::dtype::DType;
    let level = isa();
    if row.is_empty() || level < Isa::Avx2 {
        return None;
    }
    let wide = level == Isa::Avx512;
    // SAFETY (every call): the CPU has the features of the function's level
    // (`isa`: AVX-512 F for `w::`, AVX2 and FMA for this file's).
    match T::DTYPE {
        DType::F32 => {
            let r: &[f32] = bytemuck::cast_slice(row);
            Some(unsafe {
                match (wide, max) {
                    (true, true) => w::arg_f32::<true>(r),
                    (true, false) => w::arg_f32::<false>(r),
                    (false, true) => arg_f32::<true>(r),
                    (false, false) => arg_f32::<false>(r),
                }
            })
        }
        DType::F64 => {
            let r: &[f64] = bytemuck::cast_slice(row);
            Some(unsafe {
                match (wide, max) {
                    (true, true) => w::arg_f64::<true>(r),
                    (true, false) => w::arg_f64::<false>(r),
                    (false, true) => arg_f64::<true>(r),
                    (false, false) => arg_f64::<false>(r),
                }
            })
        }
        _ => None,
    }
}
