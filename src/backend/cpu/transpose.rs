//! Out-of-place transposition of one small block (a tile of a transposed copy
//! or an operand staged for the elementwise engine): 8 x 8 register
//! transposes with AVX2 for 4-byte elements, 4 x 4 for 8-byte elements, and an
//! 8 x 8-blocked scalar loop for every other size.

use crate::dtype::Element;

/// `dst[j * dld + i] = src[i * sld + j]` for `i < rows`, `j < cols`.
///
/// # Safety
/// Every addressed element of `src` is readable and of `dst` writable; the
/// two do not overlap.
pub(crate) unsafe fn transpose_block<T: Element>(
    rows: usize,
    cols: usize,
    src: *const T,
    sld: isize,
    dst: *mut T,
    dld: isize,
) {
    #[cfg(target_arch = "x86_64")]
    if super::elementwise::simd::isa() >= super::elementwise::simd::Isa::Avx2 {
        // SAFETY: AVX2 present; the caller's extents hold for the reinterpreted
        // same-size plain-bits type.
        unsafe {
            match std::mem::size_of::<T>() {
                4 => return avx2::transpose32(rows, cols, src as _, sld, dst as _, dld),
                8 => return avx2::transpose64(rows, cols, src as _, sld, dst as _, dld),
                _ => {}
            }
        }
    }
    // SAFETY: caller contract.
    unsafe { scalar(rows, cols, src, sld, dst, dld) }
}

/// 8 x 8-blocked element loop (any element type).
///
/// # Safety
/// As [`transpose_block`].
#[inline(always)]
unsafe fn scalar<T: Copy>(
    rows: usize,
    cols: usize,
    src: *const T,
    sld: isize,
    dst: *mut T,
    dld: isize,
) {
    for j0 in (0..cols).step_by(8) {
        for i0 in (0..rows).step_by(8) {
            for j in j0..(j0 + 8).min(cols) {
                for i in i0..(i0 + 8).min(rows) {
                    // SAFETY: caller contract.
                    unsafe {
                        *dst.offset(j as isize * dld + i as isize) =
                            *src.offset(i as isize * sld + j as isize)
                    };
                }
            }
        }
    }
}

#[cfg(target_arch = "x86_64")]
pub(crate) mod avx2 {
    use std::arch::x86_64::*;

    /// One 8 x 8 block of 4-byte elements through registers.
    ///
    /// # Safety
    /// AVX2 is available; 8 rows of 8 readable elements at `s` (row stride
    /// `sld`) and 8 rows of 8 writable ones at `d` (row stride `dld`).
    #[target_feature(enable = "avx2")]
    #[inline]
    unsafe fn block8x8(s: *const f32, sld: isize, d: *mut f32, dld: isize) {
        // SAFETY: caller contract.
        unsafe {
            let r: [__m256; 8] =
                std::array::from_fn(|i| _mm256_loadu_ps(s.offset(i as isize * sld)));
            for (j, v) in transpose8x8(r).iter().enumerate() {
                _mm256_storeu_ps(d.offset(j as isize * dld), *v);
            }
        }
    }

    /// Transpose of four rows of four f64 lanes: lane `i` of output `j` is
    /// lane `j` of input `i`.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn transpose4x4(r: [__m256d; 4]) -> [__m256d; 4] {
        let t0 = _mm256_unpacklo_pd(r[0], r[1]);
        let t1 = _mm256_unpackhi_pd(r[0], r[1]);
        let t2 = _mm256_unpacklo_pd(r[2], r[3]);
        let t3 = _mm256_unpackhi_pd(r[2], r[3]);
        [
            _mm256_permute2f128_pd::<0x20>(t0, t2),
            _mm256_permute2f128_pd::<0x20>(t1, t3),
            _mm256_permute2f128_pd::<0x31>(t0, t2),
            _mm256_permute2f128_pd::<0x31>(t1, t3),
        ]
    }

    /// Transpose of eight rows of eight 4-byte lanes: lane `i` of output `j`
    /// is lane `j` of input `i`.
    #[target_feature(enable = "avx2")]
    #[inline]
    pub(crate) fn transpose8x8(r: [__m256; 8]) -> [__m256; 8] {
        let t0 = _mm256_unpacklo_ps(r[0], r[1]);
        let t1 = _mm256_unpackhi_ps(r[0], r[1]);
        let t2 = _mm256_unpacklo_ps(r[2], r[3]);
        let t3 = _mm256_unpackhi_ps(r[2], r[3]);
        let t4 = _mm256_unpacklo_ps(r[4], r[5]);
        let t5 = _mm256_unpackhi_ps(r[4], r[5]);
        let t6 = _mm256_unpacklo_ps(r[6], r[7]);
        let t7 = _mm256_unpackhi_ps(r[6], r[7]);
        let u0 = _mm256_shuffle_ps::<0x44>(t0, t2);
        let u1 = _mm256_shuffle_ps::<0xEE>(t0, t2);
        let u2 = _mm256_shuffle_ps::<0x44>(t1, t3);
        let u3 = _mm256_shuffle_ps::<0xEE>(t1, t3);
        let u4 = _mm256_shuffle_ps::<0x44>(t4, t6);
        let u5 = _mm256_shuffle_ps::<0xEE>(t4, t6);
        let u6 = _mm256_shuffle_ps::<0x44>(t5, t7);
        let u7 = _mm256_shuffle_ps::<0xEE>(t5, t7);
        [
            _mm256_permute2f128_ps::<0x20>(u0, u4),
            _mm256_permute2f128_ps::<0x20>(u1, u5),
            _mm256_permute2f128_ps::<0x20>(u2, u6),
            _mm256_permute2f128_ps::<0x20>(u3, u7),
            _mm256_permute2f128_ps::<0x31>(u0, u4),
            _mm256_permute2f128_ps::<0x31>(u1, u5),
            _mm256_permute2f128_ps::<0x31>(u2, u6),
            _mm256_permute2f128_ps::<0x31>(u3, u7),
        ]
    }

    /// 4-byte elements: 8 x 8 register blocks, visited so that each 64-byte
    /// line of both sides is finished before moving on (pairs of blocks share
    /// source rows, then destination rows); edges scalar.
    ///
    /// # Safety
    /// AVX2 is available; extents as in `transpose_block`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn transpose32(
        rows: usize,
        cols: usize,
        src: *const f32,
        sld: isize,
        dst: *mut f32,
        dld: isize,
    ) {
        let (r8, c8) = (rows / 8 * 8, cols / 8 * 8);
        // SAFETY: every block lies inside the `r8 x c8` part of the extents.
        unsafe {
            let at = |i: usize, j: usize| {
                block8x8(
                    src.offset(i as isize * sld + j as isize),
                    sld,
                    dst.offset(j as isize * dld + i as isize),
                    dld,
                )
            };
            for i0 in (0..r8).step_by(16) {
                for j0 in (0..c8).step_by(16) {
                    at(i0, j0);
                    if j0 + 8 < c8 {
                        at(i0, j0 + 8);
                    }
                    if i0 + 8 < r8 {
                        at(i0 + 8, j0);
                        if j0 + 8 < c8 {
                            at(i0 + 8, j0 + 8);
                        }
                    }
                }
            }
            edges(rows, cols, r8, c8, src, sld, dst, dld);
        }
    }

    /// 8-byte elements: 4 x 4 blocks through registers, edges scalar.
    ///
    /// # Safety
    /// AVX2 is available; extents as in `transpose_block`.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn transpose64(
        rows: usize,
        cols: usize,
        src: *const f64,
        sld: isize,
        dst: *mut f64,
        dld: isize,
    ) {
        let (r4, c4) = (rows / 4 * 4, cols / 4 * 4);
        // SAFETY: as in transpose32, with 4-element rows.
        unsafe {
            for j0 in (0..c4).step_by(4) {
                for i0 in (0..r4).step_by(4) {
                    let s = src.offset(i0 as isize * sld + j0 as isize);
                    let r: [__m256d; 4] =
                        std::array::from_fn(|i| _mm256_loadu_pd(s.offset(i as isize * sld)));
                    let out = transpose4x4(r);
                    let d = dst.offset(j0 as isize * dld + i0 as isize);
                    for (j, v) in out.iter().enumerate() {
                        _mm256_storeu_pd(d.offset(j as isize * dld), *v);
                    }
                }
            }
            edges(rows, cols, r4, c4, src, sld, dst, dld);
        }
    }

    /// The elements outside the whole-block part `rb x cb`.
    ///
    /// # Safety
    /// As `transpose_block`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    unsafe fn edges<T: Copy>(
        rows: usize,
        cols: usize,
        rb: usize,
        cb: usize,
        src: *const T,
        sld: isize,
        dst: *mut T,
        dld: isize,
    ) {
        let at = |i: usize, j: usize| {
            // SAFETY: caller contract (i < rows, j < cols).
            unsafe {
                *dst.offset(j as isize * dld + i as isize) =
                    *src.offset(i as isize * sld + j as isize)
            }
        };
        for i in 0..rows {
            for j in cb..cols {
                at(i, j);
            }
        }
        for i in rb..rows {
            for j in 0..cb {
                at(i, j);
            }
        }
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;

    fn check<T: Element>() {
        for (rows, cols) in [(1, 1), (8, 8), (4, 4), (13, 21), (64, 64), (3, 17), (33, 5)] {
            let (sld, dld) = (cols as isize + 3, rows as isize + 5);
            let src: Vec<T> = (0..rows * sld as usize)
                .map(|i| T::from_f64((i % 100) as f64))
                .collect();
            let mut dst = vec![T::zero(); cols * dld as usize];
            // SAFETY: both buffers hold the addressed extents.
            unsafe { transpose_block(rows, cols, src.as_ptr(), sld, dst.as_mut_ptr(), dld) };
            for i in 0..rows {
                for j in 0..cols {
                    assert_eq!(
                        dst[j * dld as usize + i],
                        src[i * sld as usize + j],
                        "{rows}x{cols} at ({i},{j})"
                    );
                }
            }
        }
    }

    pub(crate) fn every_element_size() {
        check::<u8>();
        check::<i8>();
        check::<u16>();
        check::<f32>();
        check::<u32>();
        check::<f64>();
        check::<i64>();
        check::<crate::C64>();
    }
}
