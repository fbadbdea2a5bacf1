//! AVX2 one-pass argmax/argmin of a contiguous f32 or f64 row, for the
//! contiguous-axis case of `arg.rs`: four vectors of running extremes, each
//! lane beside the iteration in which it last strictly improved, merged at the
//! end with the smaller index winning ties; a NaN anywhere sends the row to a
//! scalar search for its first NaN. One body, written once by macro.

use std::arch::x86_64::*;

/// Vectors per iteration (independent compare/select chains).
const U: usize = 4;

macro_rules! arg_row {
    ($name:ident, $t:ty, $lanes:expr, $it:ty, $load:ident, $cmp:ident, $blend:ident,
     $or:ident, $movemask:ident, $from_si:ident, $to_si:ident, $set1i:ident,
     $addi:ident, $store:ident) => {
        /// The index of the first maximum (`MAX`) or minimum of `row`, or of
        /// its first NaN if it holds one. `row` must not be empty.
        ///
        /// # Safety
        /// The CPU has AVX2.
        #[target_feature(enable = "avx2")]
        pub(super) unsafe fn $name<const MAX: bool>(row: &[$t]) -> usize {
            const STEP: usize = U * $lanes;
            let beats = |a: $t, b: $t| if MAX { a > b } else { a < b };
            let n = row.len();
            let iters = n / STEP;
            let p = row.as_ptr();
            let (mut b, mut bi) = (row[0], 0usize);
            if iters > 0 {
                // SAFETY: every load reads `$lanes` elements below
                // `iters * STEP <= n`; stores go to local arrays of that size.
                unsafe {
                    let mut best = [$load(p); U];
                    for (a, v) in best.iter_mut().enumerate() {
                        *v = $load(p.add(a * $lanes));
                    }
                    let mut nan = $cmp::<_CMP_UNORD_Q>(best[0], best[0]);
                    for v in &best[1..] {
                        nan = $or(nan, $cmp::<_CMP_UNORD_Q>(*v, *v));
                    }
                    // Per lane: the iteration of its current extreme.
                    let mut idx = [_mm256_setzero_si256(); U];
                    let mut it = _mm256_setzero_si256();
                    let one = $set1i(1);
                    for i in 1..iters {
                        it = $addi(it, one);
                        for a in 0..U {
                            let v = $load(p.add(i * STEP + a * $lanes));
                            // Ordered compares: a NaN never replaces, and is
                            // caught by `nan` instead.
                            let m = if MAX {
                                $cmp::<_CMP_GT_OQ>(v, best[a])
                            } else {
                                $cmp::<_CMP_GT_OQ>(best[a], v)
                            };
                            best[a] = $blend(best[a], v, m);
                            idx[a] = $to_si($blend($from_si(idx[a]), $from_si(it), m));
                            nan = $or(nan, $cmp::<_CMP_UNORD_Q>(v, v));
                        }
                    }
                    if $movemask(nan) != 0 {
                        return row.iter().position(|v| v.is_nan()).expect("a NaN was seen");
                    }
                    let mut bv = [0 as $t; $lanes];
                    let mut iv = [0 as $it; $lanes];
                    for a in 0..U {
                        $store(bv.as_mut_ptr(), best[a]);
                        _mm256_storeu_si256(iv.as_mut_ptr() as *mut __m256i, idx[a]);
                        for l in 0..$lanes {
                            let k = iv[l] as usize * STEP + a * $lanes + l;
                            if beats(bv[l], b) || (bv[l] == b && k < bi) {
                                (b, bi) = (bv[l], k);
                            }
                        }
                    }
                }
            }
            let tail = &row[iters * STEP..];
            if tail.iter().any(|v| v.is_nan()) {
                return row.iter().position(|v| v.is_nan()).expect("a NaN was seen");
            }
            for (j, &v) in tail.iter().enumerate() {
                if beats(v, b) {
                    (b, bi) = (v, iters * STEP + j);
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
    _mm256_or_ps,
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
    _mm256_or_pd,
    _mm256_movemask_pd,
    _mm256_castsi256_pd,
    _mm256_castpd_si256,
    _mm256_set1_epi64x,
    _mm256_add_epi64,
    _mm256_storeu_pd
);

/// The AVX2 scan of `row` when the CPU has AVX2 and `T` is f32 or f64 (None
/// otherwise: the caller runs its portable scan).
#[inline]
pub(super) fn first_extreme<T: crate::dtype::Element>(max: bool, row: &[T]) -> Option<usize> {
    use crate::backend::cpu::elementwise::simd::{isa, Isa};
    use crate::dtype::DType;
    if row.is_empty() || isa() != Isa::Avx2 {
        return None;
    }
    // SAFETY (both arms): the CPU has AVX2 (`isa`).
    match T::DTYPE {
        DType::F32 => {
            let r: &[f32] = bytemuck::cast_slice(row);
            Some(unsafe {
                if max {
                    arg_f32::<true>(r)
                } else {
                    arg_f32::<false>(r)
                }
            })
        }
        DType::F64 => {
            let r: &[f64] = bytemuck::cast_slice(row);
            Some(unsafe {
                if max {
                    arg_f64::<true>(r)
                } else {
                    arg_f64::<false>(r)
                }
            })
        }
        _ => None,
    }
}
