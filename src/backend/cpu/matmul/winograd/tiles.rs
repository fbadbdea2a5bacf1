//! Moving `LANES` Winograd tiles between memory and lane arrays: the 6x6
//! input windows loaded so that lane `l` holds tile `l`, and the 4x4 output
//! blocks stored back from the same layout. Each tile has its own start and
//! row stride (unit column stride), so tiles of different rows, images or
//! staging buffers mix in one group. On AVX2 the loads are row vectors and an
//! in-register transpose (f32: tiles `l` and `l + 4` share a vector, one per
//! 128-bit half; f64: one 4x4 transpose per four tiles); elsewhere, plain
//! element loops. Both give the same values (only moves, no arithmetic except
//! the accumulating add, which is the same single add either way).

use super::LANES;

/// Six rows of six elements of `LANES` tiles: `d[r][s][l]` is row `r`,
/// column `s` of tile `l`.
pub(super) type Windows<T> = [[[T; LANES]; 6]; 6];
/// Four rows of four output elements of `LANES` tiles: `y[i][j][l]`.
pub(super) type Blocks<T> = [[[T; LANES]; 4]; 4];

/// Element types whose tiles load and store with vector moves.
pub(crate) trait TileIo: Copy + std::ops::Add<Output = Self> {
    /// `d[r][s][l] = *src[l].offset(r * rs[l] + s)` for `r, s < 6`.
    ///
    /// # Safety
    /// Those 36 elements of every tile are readable.
    unsafe fn load_windows(src: &[*const Self; LANES], rs: &[isize; LANES], d: &mut Windows<Self>);

    /// `*dst[l].offset(i * rs[l] + j) (+)= y[i][j][l]` for `i, j < 4`
    /// (added when `accumulate`).
    ///
    /// # Safety
    /// Those 16 elements of every tile are writable (and readable when
    /// accumulating), and no two tiles share one.
    unsafe fn store_blocks(
        y: &Blocks<Self>,
        dst: &[*mut Self; LANES],
        rs: &[isize; LANES],
        accumulate: bool,
    );
}

/// The element loops behind both types' portable path.
mod portable {
    use super::{Blocks, Windows, LANES};

    /// See [`super::TileIo::load_windows`].
    ///
    /// # Safety
    /// As there.
    pub(super) unsafe fn load_windows<T: Copy>(
        src: &[*const T; LANES],
        rs: &[isize; LANES],
        d: &mut Windows<T>,
    ) {
        for (r, dr) in d.iter_mut().enumerate() {
            for (s, e) in dr.iter_mut().enumerate() {
                for l in 0..LANES {
                    // SAFETY: caller contract.
                    e[l] = unsafe { *src[l].offset(r as isize * rs[l] + s as isize) };
                }
            }
        }
    }

    /// See [`super::TileIo::store_blocks`].
    ///
    /// # Safety
    /// As there.
    pub(super) unsafe fn store_blocks<T: Copy + std::ops::Add<Output = T>>(
        y: &Blocks<T>,
        dst: &[*mut T; LANES],
        rs: &[isize; LANES],
        accumulate: bool,
    ) {
        for (i, yi) in y.iter().enumerate() {
            for (j, yij) in yi.iter().enumerate() {
                for l in 0..LANES {
                    // SAFETY: caller contract.
                    unsafe {
                        let p = dst[l].offset(i as isize * rs[l] + j as isize);
                        *p = if accumulate { *p + yij[l] } else { yij[l] };
                    }
                }
            }
        }
    }
}

#[cfg(all(target_arch = "x86_64", not(miri)))]
mod avx2 {
    use super::{Blocks, Windows, LANES};
    use crate::backend::cpu::transpose::avx2::transpose4x4;
    use std::arch::x86_64::*;

    /// Tile `lo`'s four elements in the low half, tile `hi`'s in the high.
    #[inline(always)]
    unsafe fn pair(lo: *const f32, hi: *const f32) -> __m256 {
        // SAFETY: caller contract (four readable elements at each).
        unsafe {
            _mm256_insertf128_ps::<1>(_mm256_castps128_ps256(_mm_loadu_ps(lo)), _mm_loadu_ps(hi))
        }
    }

    /// A 4x4 transpose inside each 128-bit half: element `j` of rows
    /// `a[0..4]` becomes row `j` (lanes 0-3 from the low halves, 4-7 from
    /// the high ones).
    #[inline(always)]
    fn transpose_halves(a: [__m256; 4]) -> [__m256; 4] {
        // SAFETY: register-only shuffles (AVX, enabled by the callers).
        unsafe {
            let t0 = _mm256_unpacklo_ps(a[0], a[1]);
            let t1 = _mm256_unpackhi_ps(a[0], a[1]);
            let t2 = _mm256_unpacklo_ps(a[2], a[3]);
            let t3 = _mm256_unpackhi_ps(a[2], a[3]);
            [
                _mm256_shuffle_ps::<0x44>(t0, t2),
                _mm256_shuffle_ps::<0xEE>(t0, t2),
                _mm256_shuffle_ps::<0x44>(t1, t3),
                _mm256_shuffle_ps::<0xEE>(t1, t3),
            ]
        }
    }

    /// See [`super::TileIo::load_windows`]: per row, columns 0-3 and 2-5 of
    /// each tile as two vectors, transposed.
    ///
    /// # Safety
    /// As there; the CPU has AVX2.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn load_f32(
        src: &[*const f32; LANES],
        rs: &[isize; LANES],
        d: &mut Windows<f32>,
    ) {
        // SAFETY: every load reads columns 0-5 of row r of a tile (caller
        // contract); `d[r][s]` is eight f32.
        unsafe {
            for (r, dr) in d.iter_mut().enumerate() {
                let p: [*const f32; LANES] =
                    std::array::from_fn(|l| src[l].offset(r as isize * rs[l]));
                let lo = transpose_halves(std::array::from_fn(|l| pair(p[l], p[l + 4])));
                let hi =
                    transpose_halves(std::array::from_fn(|l| pair(p[l].add(2), p[l + 4].add(2))));
                for (s, v) in lo.iter().chain(&hi[2..]).enumerate() {
                    _mm256_storeu_ps(dr[s].as_mut_ptr(), *v);
                }
            }
        }
    }

    /// See [`super::TileIo::load_windows`]: per row and four tiles, columns
    /// 0-3 and 2-5 as two sets of rows, transposed.
    ///
    /// # Safety
    /// As there; the CPU has AVX2.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn load_f64(
        src: &[*const f64; LANES],
        rs: &[isize; LANES],
        d: &mut Windows<f64>,
    ) {
        // SAFETY: as in `load_f32`; `d[r][s]` is eight f64, written four at
        // a time.
        unsafe {
            for (r, dr) in d.iter_mut().enumerate() {
                for h in 0..LANES / 4 {
                    let p: [*const f64; 4] =
                        std::array::from_fn(|l| src[4 * h + l].offset(r as isize * rs[4 * h + l]));
                    let lo = transpose4x4(std::array::from_fn(|l| _mm256_loadu_pd(p[l])));
                    let hi = transpose4x4(std::array::from_fn(|l| _mm256_loadu_pd(p[l].add(2))));
                    for (s, v) in lo.iter().chain(&hi[2..]).enumerate() {
                        _mm256_storeu_pd(dr[s].as_mut_ptr().add(4 * h), *v);
                    }
                }
            }
        }
    }

    /// See [`super::TileIo::store_blocks`]: per output row, the transpose
    /// of the four column vectors gives each tile's four elements.
    ///
    /// # Safety
    /// As there; the CPU has AVX2.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn store_f32(
        y: &Blocks<f32>,
        dst: &[*mut f32; LANES],
        rs: &[isize; LANES],
        accumulate: bool,
    ) {
        // SAFETY: each store writes (and with `accumulate` first reads) the
        // four elements of row i of one tile (caller contract).
        unsafe {
            for (i, yi) in y.iter().enumerate() {
                let rows =
                    transpose_halves(std::array::from_fn(|j| _mm256_loadu_ps(yi[j].as_ptr())));
                for (l, v) in rows.iter().enumerate() {
                    for (t, half) in [
                        (l, _mm256_castps256_ps128(*v)),
                        (l + 4, _mm256_extractf128_ps::<1>(*v)),
                    ] {
                        let q = dst[t].offset(i as isize * rs[t]);
                        let val = if accumulate {
                            _mm_add_ps(_mm_loadu_ps(q), half)
                        } else {
                            half
                        };
                        _mm_storeu_ps(q, val);
                    }
                }
            }
        }
    }

    /// See [`super::TileIo::store_blocks`], four tiles per transpose.
    ///
    /// # Safety
    /// As there; the CPU has AVX2.
    #[target_feature(enable = "avx2,fma")]
    pub(super) unsafe fn store_f64(
        y: &Blocks<f64>,
        dst: &[*mut f64; LANES],
        rs: &[isize; LANES],
        accumulate: bool,
    ) {
        // SAFETY: as in `store_f32`.
        unsafe {
            for (i, yi) in y.iter().enumerate() {
                for h in 0..LANES / 4 {
                    let rows = transpose4x4(std::array::from_fn(|j| {
                        _mm256_loadu_pd(yi[j].as_ptr().add(4 * h))
                    }));
                    for (l, v) in rows.iter().enumerate() {
                        let t = 4 * h + l;
                        let q = dst[t].offset(i as isize * rs[t]);
                        let val = if accumulate {
                            _mm256_add_pd(_mm256_loadu_pd(q), *v)
                        } else {
                            *v
                        };
                        _mm256_storeu_pd(q, val);
                    }
                }
            }
        }
    }
}

/// Implements [`TileIo`] for a type: its AVX2 functions where the process
/// runs at AVX2, else the element loops.
macro_rules! tile_io {
    ($t:ty, $load:ident, $store:ident) => {
        impl TileIo for $t {
            unsafe fn load_windows(
                src: &[*const $t; LANES],
                rs: &[isize; LANES],
                d: &mut Windows<$t>,
            ) {
                #[cfg(all(target_arch = "x86_64", not(miri)))]
                if crate::backend::cpu::elementwise::simd::isa()
                    >= crate::backend::cpu::elementwise::simd::Isa::Avx2
                {
                    // SAFETY: caller contract; the CPU has AVX2 (`isa`).
                    return unsafe { avx2::$load(src, rs, d) };
                }
                // SAFETY: caller contract.
                unsafe { portable::load_windows(src, rs, d) }
            }

            unsafe fn store_blocks(
                y: &Blocks<$t>,
                dst: &[*mut $t; LANES],
                rs: &[isize; LANES],
                accumulate: bool,
            ) {
                #[cfg(all(target_arch = "x86_64", not(miri)))]
                if crate::backend::cpu::elementwise::simd::isa()
                    >= crate::backend::cpu::elementwise::simd::Isa::Avx2
                {
                    // SAFETY: caller contract; the CPU has AVX2 (`isa`).
                    return unsafe { avx2::$store(y, dst, rs, accumulate) };
                }
                // SAFETY: caller contract.
                unsafe { portable::store_blocks(y, dst, rs, accumulate) }
            }
        }
    };
}

tile_io!(f32, load_f32, store_f32);
tile_io!(f64, load_f64, store_f64);

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;

    /// A buffer of distinct values, and per tile a start and row stride
    /// (some tiles overlap in the source, as neighbouring windows do).
    fn layout() -> (Vec<f64>, [usize; LANES], [isize; LANES]) {
        let buf: Vec<f64> = (0..400).map(|i| i as f64 * 0.5 - 37.0).collect();
        let start = [0, 4, 8, 12, 100, 160, 230, 300];
        let rs = [16, 16, 16, 16, 6, 9, 10, 11];
        (buf, start, rs)
    }

    fn check_load<T: TileIo + PartialEq + std::fmt::Debug>(cast: fn(f64) -> T) {
        let (buf, start, rs) = layout();
        let buf: Vec<T> = buf.into_iter().map(cast).collect();
        let src: [*const T; LANES] = std::array::from_fn(|l| buf[start[l]..].as_ptr());
        let zero = cast(0.0);
        let (mut fast, mut plain) = ([[[zero; LANES]; 6]; 6], [[[zero; LANES]; 6]; 6]);
        // SAFETY: every window (start + 5 * rs + 5 < 400) lies inside `buf`.
        unsafe {
            T::load_windows(&src, &rs, &mut fast);
            portable::load_windows(&src, &rs, &mut plain);
        }
        for r in 0..6 {
            for s in 0..6 {
                for l in 0..LANES {
                    let want = buf[start[l] + r * rs[l] as usize + s];
                    assert_eq!((fast[r][s][l], plain[r][s][l]), (want, want), "{r} {s} {l}");
                }
            }
        }
    }

    fn check_store<T: TileIo + PartialEq + std::fmt::Debug>(cast: fn(f64) -> T) {
        let (init, _, _) = layout();
        // Blocks that do not overlap: 4 rows of 4 at row stride 5 or 6.
        let start = [0, 24, 48, 72, 96, 120, 150, 180];
        let rs = [5, 6, 5, 6, 5, 6, 7, 8];
        let y: Blocks<T> = std::array::from_fn(|i| {
            std::array::from_fn(|j| std::array::from_fn(|l| cast((i * 100 + j * 10 + l) as f64)))
        });
        for accumulate in [false, true] {
            let init: Vec<T> = init.iter().map(|&v| cast(v)).collect();
            let (mut fast, mut plain) = (init.clone(), init.clone());
            for (k, buf) in [&mut fast, &mut plain].into_iter().enumerate() {
                let dst: [*mut T; LANES] = std::array::from_fn(|l| buf[start[l]..].as_mut_ptr());
                // SAFETY: every block (start + 3 * rs + 3 < 400) lies inside
                // `buf`, and no two share an element.
                unsafe {
                    if k == 0 {
                        T::store_blocks(&y, &dst, &rs, accumulate);
                    } else {
                        portable::store_blocks(&y, &dst, &rs, accumulate);
                    }
                }
            }
            let mut want = init.clone();
            for l in 0..LANES {
                for i in 0..4 {
                    for j in 0..4 {
                        let e = &mut want[start[l] + i * rs[l] as usize + j];
                        *e = if accumulate {
                            *e + y[i][j][l]
                        } else {
                            y[i][j][l]
                        };
                    }
                }
            }
            assert_eq!(fast, want, "accumulate {accumulate}");
            assert_eq!(plain, want, "accumulate {accumulate}");
        }
    }

    /// The dispatched (AVX2 on this CPU where it has it) and the portable
    /// moves match direct indexing, for both types.
    pub(crate) fn moves_match_indexing() {
        check_load::<f32>(|v| v as f32);
        check_load::<f64>(|v| v);
        check_store::<f32>(|v| v as f32);
        check_store::<f64>(|v| v);
    }
}
