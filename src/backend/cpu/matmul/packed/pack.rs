//! Packing for the packed GEMM: copies a block of A into row panels of `MR`
//! rows (`k`-major inside a panel) and a block of B into column panels of `NR`
//! columns, zero-padding the last panel, so the micro-kernel reads both
//! operands sequentially whatever their strides.

use super::super::Mat;
use crate::dtype::Element;

/// Pack the `mc x kc` block of `a` (starting at its first element) into
/// `ceil(mc / mr)` panels of `mr x kc`, panel `p` at `dst + p * mr * kc`, element
/// `(i, k)` of a panel at `k * mr + i`.
///
/// # Safety
/// The block's elements are readable; `dst` has room for the padded panels.
pub(super) unsafe fn pack_a<T: Element>(mc: usize, kc: usize, mr: usize, a: Mat<T>, dst: *mut T) {
    // Row-major 4-byte blocks into 6-row panels (the AVX2 f32 kernel): eight
    // depths at a time through an 8 x 8 register transpose. Packing only
    // copies bits, so any 4-byte type qualifies.
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    let fast6 = mr == 6 && a.cs == 1 && std::mem::size_of::<T>() == 4;
    // Row-major 8-byte blocks into 14-row panels (the AVX-512 f64 kernel,
    // which runs only on CPUs with AVX-512F): eight depths at a time through
    // two 8 x 8 register transposes.
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    let fast14 = mr == 14 && a.cs == 1 && std::mem::size_of::<T>() == 8;
    // Row-major 4-byte blocks into 14-row panels (the AVX-512 f32 kernel):
    // eight depths at a time through two 8 x 8 register transposes. The
    // element loop below made packing A 4.2% of an f32 1024^3 product on
    // one thread (perf, Intel Xeon model 207).
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    let fast14_4 = mr == 14 && a.cs == 1 && std::mem::size_of::<T>() == 4;
    for (p, r0) in (0..mc).step_by(mr).enumerate() {
        let rows = mr.min(mc - r0);
        // SAFETY: caller contract; offsets stay in the block and the panel.
        unsafe {
            let panel = dst.add(p * mr * kc);
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            if fast6 && rows == 6 {
                // SAFETY: the packed kernels (the only caller) run on CPUs
                // with AVX2; six rows of kc elements at unit stride.
                let src = a.ptr.get().offset(r0 as isize * a.rs);
                avx2::panel6(kc, src as *const f32, a.rs, panel as *mut f32);
                continue;
            }
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            if fast14 && rows == 14 {
                // SAFETY: a 14-row panel means the AVX-512 kernels (the only
                // ones that are 14 rows tall), so the CPU has AVX-512F;
                // fourteen rows of kc elements at unit stride.
                let src = a.ptr.get().offset(r0 as isize * a.rs);
                avx512::panel14(kc, src as *const f64, a.rs, panel as *mut f64);
                continue;
            }
            #[cfg(all(target_arch = "x86_64", not(miri)))]
            if fast14_4 && rows == 14 {
                // SAFETY: as above (14-row panels only at AVX-512, whose
                // level includes AVX-512VL); fourteen rows of kc elements
                // at unit stride.
                let src = a.ptr.get().offset(r0 as isize * a.rs);
                avx512::panel14_4(kc, src as *const f32, a.rs, panel as *mut f32);
                continue;
            }
            for i in 0..mr {
                if i >= rows {
                    for k in 0..kc {
                        *panel.add(k * mr + i) = T::zero();
                    }
                    continue;
                }
                let src = a.ptr.get().offset((r0 + i) as isize * a.rs);
                if a.cs == 1 {
                    for k in 0..kc {
                        *panel.add(k * mr + i) = *src.add(k);
                    }
                } else {
                    for k in 0..kc {
                        *panel.add(k * mr + i) = *src.offset(k as isize * a.cs);
                    }
                }
            }
        }
    }
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
mod avx2 {
    use crate::backend::cpu::transpose::avx2::transpose8x8;
    use std::arch::x86_64::*;

    /// One full panel of six rows of 4-byte elements (row stride `rs`, unit
    /// column stride) packed depth-major: element `(i, k)` at `panel[k * 6 + i]`.
    ///
    /// # Safety
    /// AVX2 is available; six rows of `kc` readable elements at `src`; `panel`
    /// has room for `6 * kc` elements.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn panel6(kc: usize, src: *const f32, rs: isize, panel: *mut f32) {
        let k8 = kc / 8 * 8;
        let z = _mm256_setzero_ps();
        // SAFETY: caller contract; every load reads inside a row's first
        // `kc` elements and every store writes inside the panel.
        unsafe {
            for k0 in (0..k8).step_by(8) {
                let row = |i: isize| _mm256_loadu_ps(src.offset(i * rs).add(k0));
                let c = transpose8x8([row(0), row(1), row(2), row(3), row(4), row(5), z, z]);
                // Column j holds depth k0 + j: its first six lanes go to
                // d[6j..6j + 6]. Each 8-lane store's two spare lanes are
                // overwritten by the next one; the last stores 4 + 2 lanes.
                let d = panel.add(k0 * 6);
                for (j, v) in c.iter().enumerate().take(7) {
                    _mm256_storeu_ps(d.add(j * 6), *v);
                }
                _mm_storeu_ps(d.add(42), _mm256_castps256_ps128(c[7]));
                _mm_store_sd(
                    d.add(46) as *mut f64,
                    _mm_castps_pd(_mm256_extractf128_ps::<1>(c[7])),
                );
            }
            for k in k8..kc {
                for i in 0..6 {
                    *panel.add(k * 6 + i) = *src.offset(i as isize * rs).add(k);
                }
            }
        }
    }
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
mod avx512 {
    use std::arch::x86_64::*;

    /// The 8 x 8 transpose of eight rows of eight f64: output `j` holds
    /// element `j` of every row.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn transpose8x8(r: [__m512d; 8]) -> [__m512d; 8] {
        // Pairs of rows interleaved: t[2i] holds the even columns of rows
        // 2i and 2i + 1, t[2i + 1] the odd ones (two per 128-bit lane).
        let t = [
            _mm512_unpacklo_pd(r[0], r[1]),
            _mm512_unpackhi_pd(r[0], r[1]),
            _mm512_unpacklo_pd(r[2], r[3]),
            _mm512_unpackhi_pd(r[2], r[3]),
            _mm512_unpacklo_pd(r[4], r[5]),
            _mm512_unpackhi_pd(r[4], r[5]),
            _mm512_unpacklo_pd(r[6], r[7]),
            _mm512_unpackhi_pd(r[6], r[7]),
        ];
        // 0x88 takes 128-bit lanes 0 and 2 of each source, 0xdd lanes 1
        // and 3; two rounds gather one column's four lane pairs.
        let even = |x: __m512d, y: __m512d| _mm512_shuffle_f64x2::<0x88>(x, y);
        let odd = |x: __m512d, y: __m512d| _mm512_shuffle_f64x2::<0xdd>(x, y);
        let mut out = [_mm512_setzero_pd(); 8];
        for h in 0..2 {
            // h = 0: columns 0, 2, 4, 6; h = 1: columns 1, 3, 5, 7.
            let u0 = even(t[h], t[2 + h]);
            let u2 = odd(t[h], t[2 + h]);
            let u4 = even(t[4 + h], t[6 + h]);
            let u6 = odd(t[4 + h], t[6 + h]);
            out[h] = even(u0, u4);
            out[4 + h] = odd(u0, u4);
            out[2 + h] = even(u2, u6);
            out[6 + h] = odd(u2, u6);
        }
        out
    }

    /// One full panel of fourteen rows (row stride `rs`, unit column stride)
    /// packed depth-major, element `(i, k)` at `panel[k * 14 + i]`: eight
    /// depths at a time, rows 0-7 and rows 8-13 (padded with zero vectors)
    /// through two 8 x 8 register transposes, the second one's first six
    /// lanes stored masked.
    macro_rules! panel14 {
        ($name:ident, $t:ty, $feat:literal, $zero:ident, $load:ident, $store:ident,
         $mask_store:ident, $transpose:path) => {
            #[doc = concat!("Fourteen rows of `", stringify!($t), "` packed depth-major (see the macro).")]
            ///
            /// # Safety
            /// The features named in `target_feature` are available;
            /// fourteen rows of `kc` readable elements at `src`; `panel` has
            /// room for `14 * kc` elements.
            #[target_feature(enable = $feat)]
            pub(super) unsafe fn $name(kc: usize, src: *const $t, rs: isize, panel: *mut $t) {
                let k8 = kc / 8 * 8;
                let z = $zero();
                // SAFETY: caller contract; every load reads inside a row's
                // first `kc` elements and every store writes inside the panel.
                unsafe {
                    for k0 in (0..k8).step_by(8) {
                        let row = |i: isize| $load(src.offset(i * rs).add(k0));
                        let lo = $transpose([
                            row(0),
                            row(1),
                            row(2),
                            row(3),
                            row(4),
                            row(5),
                            row(6),
                            row(7),
                        ]);
                        let hi =
                            $transpose([row(8), row(9), row(10), row(11), row(12), row(13), z, z]);
                        // Depth k0 + j: rows 0-7 from lo[j], rows 8-13 from
                        // the first six lanes of hi[j].
                        let d = panel.add(k0 * 14);
                        for j in 0..8 {
                            $store(d.add(j * 14), lo[j]);
                            $mask_store(d.add(j * 14 + 8), 0x3f, hi[j]);
                        }
                    }
                    for k in k8..kc {
                        for i in 0..14 {
                            *panel.add(k * 14 + i) = *src.offset(i as isize * rs).add(k);
                        }
                    }
                }
            }
        };
    }

    // f64 (the AVX-512 f64 kernel): 8 x 8 transposes of zmm registers.
    panel14!(
        panel14,
        f64,
        "avx512f",
        _mm512_setzero_pd,
        _mm512_loadu_pd,
        _mm512_storeu_pd,
        _mm512_mask_storeu_pd,
        transpose8x8
    );
    // 4-byte elements (the AVX-512 f32 kernel): 8 x 8 transposes of ymm
    // registers, the masked store of AVX-512VL.
    panel14!(
        panel14_4,
        f32,
        "avx512f,avx512vl",
        _mm256_setzero_ps,
        _mm256_loadu_ps,
        _mm256_storeu_ps,
        _mm256_mask_storeu_ps,
        crate::backend::cpu::transpose::avx2::transpose8x8
    );
}

/// Pack the `kc x nc` block of `b` into `ceil(nc / nr)` panels of `kc x nr`,
/// panel `q` at `dst + q * nr * kc`, element `(k, j)` of a panel at
/// `k * nr + j`.
///
/// # Safety
/// The block's elements are readable; `dst` has room for panels `q0..q1`.
pub(super) unsafe fn pack_b<T: Element>(
    kc: usize,
    nc: usize,
    nr: usize,
    b: Mat<T>,
    dst: *mut T,
    panels: std::ops::Range<usize>,
) {
    // A constant width makes a full unit-stride row a fixed-size copy.
    // SAFETY: caller contract, passed on.
    unsafe {
        match nr {
            8 => pack_b_n::<T, 8>(kc, nc, b, dst, panels),
            16 => pack_b_n::<T, 16>(kc, nc, b, dst, panels),
            32 => pack_b_n::<T, 32>(kc, nc, b, dst, panels),
            _ => unreachable!("no packed kernel is {nr} columns wide"),
        }
    }
}

/// [`pack_b`] for a constant panel width `NR`.
///
/// # Safety
/// As [`pack_b`].
unsafe fn pack_b_n<T: Element, const NR: usize>(
    kc: usize,
    nc: usize,
    b: Mat<T>,
    dst: *mut T,
    panels: std::ops::Range<usize>,
) {
    let nr = NR;
    /// Rows of B per pass across the panels.
    const ROWS: usize = 16;
    if b.cs == 1 {
        // Sixteen rows at a time across the panels: B is read a few rows at
        // a time (prefetcher-friendly), each panel gets sixteen full
        // `nr`-wide lines in a row. One row at a time wrote one line per
        // panel, the panels `nr * kc` apart (128 KiB for the AVX-512 f32
        // kernel), a page per line: `pack_b` took 262 samples of a 2048^3
        // f32 product on one thread, 201 with sixteen rows (Intel VM, `perf
        // record -e cpu-clock`, 40 products each).
        let full = panels.end.min(nc / nr);
        for k0 in (0..kc).step_by(ROWS) {
            for q in panels.start..full {
                for k in k0..(k0 + ROWS).min(kc) {
                    // SAFETY: caller contract; offsets stay in the block and the panels.
                    unsafe {
                        let row = b.ptr.get().offset(k as isize * b.rs);
                        std::ptr::copy_nonoverlapping(
                            row.add(q * nr),
                            dst.add(q * nr * kc + k * nr),
                            nr,
                        );
                    }
                }
            }
        }
        // SAFETY: caller contract, passed on (the partial last panel).
        unsafe { pack_b_strided::<T, NR>(kc, nc, b, dst, full.max(panels.start)..panels.end) };
    } else {
        // SAFETY: caller contract, passed on.
        unsafe { pack_b_strided::<T, NR>(kc, nc, b, dst, panels) };
    }
}

/// [`pack_b_n`] panel by panel, any column stride, zero-padding a partial panel.
///
/// # Safety
/// As [`pack_b`].
unsafe fn pack_b_strided<T: Element, const NR: usize>(
    kc: usize,
    nc: usize,
    b: Mat<T>,
    dst: *mut T,
    panels: std::ops::Range<usize>,
) {
    let nr = NR;
    for q in panels {
        let c0 = q * nr;
        let cols = nr.min(nc - c0);
        // SAFETY: caller contract; offsets stay in the block and the panel.
        unsafe {
            let panel = dst.add(q * nr * kc);
            let src = b.ptr.get().offset(c0 as isize * b.cs);
            for k in 0..kc {
                let row = src.offset(k as isize * b.rs);
                let out = panel.add(k * nr);
                for j in 0..nr {
                    *out.add(j) = if j < cols {
                        *row.offset(j as isize * b.cs)
                    } else {
                        T::zero()
                    };
                }
            }
        }
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;
    use crate::backend::cpu::strided::SendPtr;

    /// `pack_a` puts element `(i, k)` of panel `p` at `p * mr * kc + k * mr + i`
    /// and zero in the rows past `mc`, for the register-transpose panels (6
    /// rows of f32 at AVX2, 14 rows of f64 at AVX-512) and the scalar loop
    /// (other widths, strided columns, partial panels), across depth tails
    /// (`kc` not a multiple of 8).
    pub(crate) fn pack_a_places_every_element() {
        use crate::backend::cpu::elementwise::simd::{isa, Isa};
        fn check<T: Element>(mr: usize, mc: usize, kc: usize, col_major: bool) {
            let (rs, cs) = if col_major { (1, mc + 1) } else { (kc + 3, 1) };
            let len = if col_major {
                (mc + 1) * kc
            } else {
                mc * (kc + 3)
            };
            let src: Vec<T> = (0..len).map(|x| T::from_f64(x as f64 + 1.0)).collect();
            let panels = mc.div_ceil(mr);
            // 16 guard elements after the panels: no store may reach them
            // (valgrind cannot run the AVX-512 packing to check it).
            let mut dst = vec![T::from_f64(-7.0); panels * mr * kc + 16];
            let a = Mat {
                ptr: SendPtr(src.as_ptr() as *mut T),
                rs: rs as isize,
                cs: cs as isize,
            };
            // SAFETY: the block's mc x kc elements lie in `src`; `dst` holds
            // the padded panels.
            unsafe { pack_a(mc, kc, mr, a, dst.as_mut_ptr()) };
            for p in 0..panels {
                for k in 0..kc {
                    for i in 0..mr {
                        let r = p * mr + i;
                        let want = if r < mc {
                            src[r * rs + k * cs].to_f64()
                        } else {
                            0.0
                        };
                        let got = dst[p * mr * kc + k * mr + i].to_f64();
                        assert_eq!(got, want, "mr {mr} mc {mc} kc {kc} ({r}, {k})");
                    }
                }
            }
            for g in &dst[panels * mr * kc..] {
                assert_eq!(
                    g.to_f64(),
                    -7.0,
                    "mr {mr} mc {mc} kc {kc}: a store past the panels"
                );
            }
        }
        let levels = isa();
        for kc in [1, 7, 8, 9, 64, 77] {
            for col_major in [false, true] {
                if levels >= Isa::Avx2 {
                    check::<f32>(6, 20, kc, col_major);
                }
                if levels == Isa::Avx512 {
                    check::<f64>(14, 31, kc, col_major);
                    check::<f64>(14, 28, kc, col_major);
                    check::<f32>(14, 31, kc, col_major);
                    check::<f32>(14, 28, kc, col_major);
                }
                check::<f64>(8, 11, kc, col_major);
            }
        }
    }
}
