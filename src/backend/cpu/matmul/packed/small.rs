//! Small and mid-size products of the packed GEMM (at most [`SMALL_FLOPS`]
//! multiply-adds and depth 256 at AVX2, [`AVX512_FLOPS`] and depth
//! [`AVX512_K`] at AVX-512): no packing of whole operands. Full row
//! tiles of A are read in place (any strides) and full column panels of B in
//! place where B has a unit column stride, through the direct micro-kernels
//! of `micro.rs`; A's last row tile runs a kernel of exactly its rows where
//! there is one (AVX2: 1 to 5 rows; `rnx-bench` matmul_f32_128_1t 46.8-46.9
//! -> 45.5-45.7 us), else it is packed, zero-padded, like B's partial last
//! panel (every panel when B's columns are strided), so no kernel reads
//! outside an operand. Edge tiles of C go through a stack tile.

use super::{pack, with_scratch, Kernel, Packed, MAX_TILE, SCRATCH_A, SCRATCH_B};
use crate::backend::cpu::matmul::Mat;
use crate::backend::cpu::strided::SendPtr;
use crate::backend::cpu::team::for_each_chunk;

/// At AVX2, products up to this many multiply-adds (128^3) take this path
/// when their depth fits one block (256). Zen 4 VM, one thread, median us (`rnx-bench`), this
/// path against packing both operands: f32 128^3 37.9 vs 47.7, f64 74.3 vs
/// 90.4 (NumPy 44.1 and 88.8).
pub(super) const SMALL_FLOPS: usize = 1 << 21;

/// At AVX-512 the direct path takes products up to this many multiply-adds
/// (512^3) with a depth up to [`AVX512_K`]: the 8 x 32 (f32) and 8 x 16
/// (f64) direct tiles with B read in place beat packing both operands there.
/// Zen 4 VM, `rnx-bench`, median, this path against the packed one: f32
/// 256^3 171 us against 241 on two threads, 291 against 330 on one; f32
/// 512^3 1.22 ms against 1.31 (two threads), 2.36 against 2.52 (one); f64
/// 256^3 587 us against 654 (one thread), f64 512^3 2.56 ms against 2.75
/// (two), 4.95 against 5.24 (one). At 1024^3 the two are level, so larger
/// products keep the packed path (its B panels stay in cache at any width).
/// On Intel CPUs B is bounded too ([`INTEL_MAX_B_BYTES`]).
pub(super) const AVX512_FLOPS: usize = 1 << 27;
/// Largest depth of the direct path at AVX-512 (see [`AVX512_FLOPS`]).
pub(super) const AVX512_K: usize = 512;

/// Largest B (`k x n` elements, in bytes) the direct path takes on Intel
/// CPUs at AVX-512. Every row tile streams all of B; once B outgrows about
/// half the L2 its lines come from the (mesh, far) L3 there and the direct
/// tiles run at half speed. Intel Xeon (family 6 model 207, 2 vCPUs, 2 MiB
/// L2), one thread, median of 150 products, direct against packed: f64
/// 512^3 (B 2 MiB) 5.82 ms against 2.58, f64 448^3 (1.5 MiB) 3.05 against
/// 1.73, f64 384^3 (1.1 MiB) 1.43 against 1.32; f32 256 x 512 x 1024 (2
/// MiB) 2.93 against 1.37, f32 512^3 (1 MiB) 1.20 against 1.31, f64 1024 x
/// 128 x 1024 (1 MiB) 2.51 against 2.57. AMD's Zen 4 keeps the direct tiles
/// at any B the flop bound lets through (f64 512^3 measured 4.95 ms
/// against 5.24 packed there: its L3 answers sooner).
pub(super) const INTEL_MAX_B_BYTES: usize = 1 << 20;

/// Whether an `m x n` by `k` product takes this path.
pub(super) fn fits<T>(kern: &Kernel<T>, m: usize, n: usize, k: usize) -> bool {
    k <= kern.direct_max_k
        && m.saturating_mul(n).saturating_mul(k) <= kern.direct_max_flops
        && k.saturating_mul(n).saturating_mul(std::mem::size_of::<T>()) <= kern.direct_max_b_bytes
}

/// `c (+)= a @ b` without packing whole operands, row tiles (and, when there
/// are too few of them to feed the threads, ranges of B panels) split over
/// `nthreads` threads.
///
/// # Safety
/// As `mod.rs`'s `gemm` (inside the pool when `nthreads > 1`); [`fits`].
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn gemm<T: Packed>(
    kern: &Kernel<T>,
    m: usize,
    n: usize,
    k: usize,
    a: Mat<T>,
    b: Mat<T>,
    c: Mat<T>,
    accumulate: bool,
    nthreads: usize,
) {
    let (mr, nr) = (kern.mr_direct, kern.nr);
    let n_panels = n.div_ceil(nr);
    // Panels read in place; the rest are packed (panel q at q * nr * k).
    let in_place = if b.cs == 1 { n / nr } else { 0 };
    let b_len = if in_place < n_panels {
        n_panels * nr * k
    } else {
        0
    };
    with_scratch::<T, _>(&SCRATCH_B, b_len, |bbuf| {
        if in_place < n_panels {
            // SAFETY: caller contract (B's k x n elements readable); the
            // buffer holds n_panels panels of k x nr.
            unsafe { pack::pack_b(k, n, nr, b, bbuf, in_place..n_panels) };
        }
        let bbuf = SendPtr(bbuf);
        let tiles = m.div_ceil(mr);
        // Units: a row tile times a range of B panels; more than one range
        // per tile only when the row tiles alone cannot feed the threads.
        let parts = if nthreads > 1 {
            (2 * nthreads).div_ceil(tiles).clamp(1, n_panels)
        } else {
            1
        };
        let unit = |u: usize| {
            let (t, part) = (u / parts, u % parts);
            let r0 = t * mr;
            let rows = mr.min(m - r0);
            // SAFETY: row r0 is inside A (r0 < m).
            let a0 = unsafe { a.ptr.get().offset(r0 as isize * a.rs) };
            // A kernel of exactly `rows` rows reads A's rows in place; else
            // the partial tile is packed (mr x k, element (i, p) at p * mr +
            // i, zero rows below `rows`) for the full kernel.
            let exact = kern.direct_rows(rows);
            with_scratch::<T, _>(
                &SCRATCH_A,
                if exact.is_none() { mr * k } else { 0 },
                |abuf| {
                    let kf = exact.unwrap_or(kern.direct);
                    let (ap, ars, acs) = if exact.is_some() {
                        (a0 as *const T, a.rs, a.cs)
                    } else {
                        let src = Mat {
                            ptr: SendPtr(a0),
                            ..a
                        };
                        // SAFETY: `rows` rows of k elements of A from row r0;
                        // the buffer holds mr * k elements.
                        unsafe { pack::pack_a(rows, k, mr, src, abuf) };
                        (abuf as *const T, 1, mr as isize)
                    };
                    for q in part * n_panels / parts..(part + 1) * n_panels / parts {
                        let c0 = q * nr;
                        let cols = nr.min(n - c0);
                        // SAFETY: full panels below `in_place` lie inside B
                        // (unit column stride, c0 + nr <= n); the others in
                        // the packed buffer; the tile's rows x cols inside C;
                        // `tmp` holds mr * nr <= MAX_TILE elements.
                        unsafe {
                            let (bp, brs) = if q < in_place {
                                (b.ptr.get().add(c0) as *const T, b.rs)
                            } else {
                                (bbuf.get().add(q * nr * k) as *const T, nr as isize)
                            };
                            let cp = c.ptr.get().offset(r0 as isize * c.rs + c0 as isize * c.cs);
                            if exact.is_some() && cols == nr && c.cs == 1 {
                                kf(k, ap, ars, acs, bp, brs, cp, c.rs, accumulate);
                            } else {
                                // Zeroed only here (edge tiles): 1.8 KB
                                // per row tile was 0.8% of a batch of
                                // 128^3 products.
                                let mut tmp = [T::zero(); MAX_TILE];
                                let tp = tmp.as_mut_ptr();
                                kf(k, ap, ars, acs, bp, brs, tp, nr as isize, false);
                                for i in 0..rows {
                                    for j in 0..cols {
                                        let d = cp.offset(i as isize * c.rs + j as isize * c.cs);
                                        let v = tmp[i * nr + j];
                                        *d = if accumulate { *d + v } else { v };
                                    }
                                }
                            }
                        }
                    }
                },
            )
        };
        let units = tiles * parts;
        if nthreads > 1 && units > 1 {
            for_each_chunk(units, &unit);
        } else {
            (0..units).for_each(unit);
        }
    })
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::super::available;
    use super::*;

    /// `len` values in [-1, 1) from a fixed LCG.
    fn values<T: Packed>(len: usize, seed: u64) -> Vec<T> {
        let mut s = seed;
        (0..len)
            .map(|_| {
                s = s
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                T::from_f64((s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0)
            })
            .collect()
    }

    /// The direct path against a plain f64 triple loop over sizes 1..130 in
    /// every dimension (around the tile and vector widths), with A row-major,
    /// column-major and stepped, B row-major (rows padded) and column-major
    /// (packed), C row-major (padded) and transposed, with and without
    /// accumulating, on one thread and split over two; the padding of C
    /// stays untouched.
    fn direct_matches<T: Packed>(tol: f64) {
        if !available() {
            return;
        }
        let kern = T::kernel();
        let dims = [
            1, 2, 3, 7, 8, 13, 14, 15, 16, 17, 31, 32, 33, 48, 63, 64, 65, 127, 128, 130,
        ];
        let mut s = 5u64;
        let mut pick = || {
            s = s.wrapping_mul(6364136223846793005).wrapping_add(1);
            dims[(s >> 33) as usize % dims.len()]
        };
        let mut shapes: Vec<(usize, usize, usize)> =
            (0..40).map(|_| (pick(), pick(), pick())).collect();
        shapes.extend([
            (1, 1, 1),
            (130, 130, 130),
            (128, 128, 128),
            (64, 64, 64),
            (14, 32, 9),
        ]);
        for (case, &(m, n, k)) in shapes.iter().enumerate() {
            if !fits(&kern, m, n, k) {
                continue;
            }
            // A: 2m x 2k storage, B: k x (n + 5) or n x k, C: (m + 2) x (n + 3).
            let av = values::<T>(4 * m * k, 1 + case as u64);
            let bv = values::<T>(k * (n + 5), 2 + case as u64);
            let cv = values::<T>((m + 2) * (n + 3), 3);
            let mat = |v: &[T], rs: usize, cs: usize| Mat {
                ptr: SendPtr(v.as_ptr() as *mut T),
                rs: rs as isize,
                cs: cs as isize,
            };
            let a_layouts = [(k, 1), (1, m), (4 * k, 2)];
            let b_layouts = [(n + 5, 1), (1, k)];
            for (ai, &(ars, acs)) in a_layouts.iter().enumerate() {
                for (bi, &(brs, bcs)) in b_layouts.iter().enumerate() {
                    let (am, bm) = (mat(&av, ars, acs), mat(&bv, brs, bcs));
                    // C row-major with padding, or transposed (column-major).
                    for (crs, ccs) in [(n + 3, 1), (1, m + 2)] {
                        for accumulate in [false, true] {
                            for threads in [1, 2] {
                                let c = cv.clone();
                                let cm = mat(&c, crs, ccs);
                                let run = || unsafe {
                                    // SAFETY: operands sized for their layouts.
                                    gemm(&kern, m, n, k, am, bm, cm, accumulate, threads)
                                };
                                if threads > 1 {
                                    crate::device::pool().install(run);
                                } else {
                                    run();
                                }
                                let at = |v: &[T], i: usize, j: usize, rs: usize, cs: usize| {
                                    v[i * rs + j * cs].to_f64()
                                };
                                for i in 0..m {
                                    for j in 0..n {
                                        let mut r = if accumulate {
                                            at(&cv, i, j, crs, ccs)
                                        } else {
                                            0.0
                                        };
                                        for p in 0..k {
                                            r += at(&av, i, p, ars, acs) * at(&bv, p, j, brs, bcs);
                                        }
                                        let got = at(&c, i, j, crs, ccs);
                                        assert!(
                                            (got - r).abs() <= tol,
                                            "({m}, {n}, {k}) A{ai} B{bi} C({crs},{ccs}) \
                                             acc {accumulate} t{threads} [{i}, {j}]: {got} vs {r}"
                                        );
                                    }
                                }
                                // Outside the m x n result nothing changed.
                                let mut touched = vec![false; c.len()];
                                for i in 0..m {
                                    for j in 0..n {
                                        touched[i * crs + j * ccs] = true;
                                    }
                                }
                                for (x, (g, w)) in c.iter().zip(&cv).enumerate() {
                                    if !touched[x] {
                                        assert!(
                                            g.to_f64() == w.to_f64(),
                                            "({m}, {n}, {k}) pad {x}"
                                        );
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    /// The mid-size products the direct path takes at AVX-512 (depth up to
    /// 512, up to 512^3 multiply-adds) against a plain f64 triple loop:
    /// depths at and around the limit and the vector width, rows and columns
    /// around the tile edges, a single row tile split by B panels over two
    /// threads; A row- and column-major, B row-major (padded, read in place)
    /// and column-major (packed), C padded; with and without accumulating,
    /// on one thread and two. Also where the path ends.
    fn direct_mid_matches<T: Packed>(tol: f64) {
        if !available() {
            return;
        }
        let kern = T::kernel();
        if kern.direct_max_k == AVX512_K {
            let size = std::mem::size_of::<T>();
            // 512^3 and 1024 x 128 x 1024 fit where their B's bytes do.
            let b_fits = |k: usize, n: usize| k * n * size <= kern.direct_max_b_bytes;
            assert_eq!(fits(&kern, 512, 512, 512), b_fits(512, 512));
            assert_eq!(fits(&kern, 1024, 1024, 128), b_fits(128, 1024));
            assert!(fits(&kern, 256, 256, 512));
            assert!(!fits(&kern, 8, 8, 513) && !fits(&kern, 1024, 1024, 129));
            if kern.direct_max_b_bytes < usize::MAX {
                let n = INTEL_MAX_B_BYTES / (512 * size);
                assert!(fits(&kern, 8, n, 512) && !fits(&kern, 8, n + 1, 512));
            }
        } else {
            assert!(fits(&kern, 128, 128, 128) && !fits(&kern, 8, 8, 257));
        }
        let shapes = [
            (300, 70, 512),
            (129, 257, 511),
            (7, 600, 300),
            (250, 33, 257),
            (17, 95, 385),
        ];
        for (case, &(m, n, k)) in shapes.iter().enumerate() {
            if !fits(&kern, m, n, k) {
                continue;
            }
            let seed = 10 * case as u64;
            let (av, bv) = (values::<T>(m * k, seed + 1), values::<T>(k * n, seed + 2));
            let cv = values::<T>(m * (n + 3), seed + 3);
            let reference: Vec<f64> = (0..m * n)
                .map(|x| {
                    let (i, j) = (x / n, x % n);
                    (0..k)
                        .map(|p| av[i * k + p].to_f64() * bv[p * n + j].to_f64())
                        .sum()
                })
                .collect();
            // Storage of a logical r x c matrix at strides (rs, cs).
            let store = |v: &[T], r: usize, c: usize, rs: usize, cs: usize| {
                let mut s = vec![T::zero(); (r - 1) * rs + (c - 1) * cs + 1];
                for i in 0..r {
                    for j in 0..c {
                        s[i * rs + j * cs] = v[i * c + j];
                    }
                }
                s
            };
            let mat = |v: &[T], rs: usize, cs: usize| Mat {
                ptr: SendPtr(v.as_ptr() as *mut T),
                rs: rs as isize,
                cs: cs as isize,
            };
            for (ars, acs) in [(k, 1), (1, m)] {
                let a_st = store(&av, m, k, ars, acs);
                for (brs, bcs) in [(n + 5, 1), (1, k)] {
                    let b_st = store(&bv, k, n, brs, bcs);
                    let (am, bm) = (mat(&a_st, ars, acs), mat(&b_st, brs, bcs));
                    for accumulate in [false, true] {
                        for threads in [1, 2] {
                            let c = cv.clone();
                            let cm = mat(&c, n + 3, 1);
                            // SAFETY: operands sized for their layouts.
                            let run =
                                || unsafe { gemm(&kern, m, n, k, am, bm, cm, accumulate, threads) };
                            if threads > 1 {
                                crate::device::pool().install(run);
                            } else {
                                run();
                            }
                            for i in 0..m {
                                for j in 0..n + 3 {
                                    let (got, old) = (c[i * (n + 3) + j], cv[i * (n + 3) + j]);
                                    if j >= n {
                                        assert!(got.to_f64() == old.to_f64(), "pad [{i}, {j}]");
                                        continue;
                                    }
                                    let r = reference[i * n + j]
                                        + if accumulate { old.to_f64() } else { 0.0 };
                                    assert!(
                                        (got.to_f64() - r).abs() <= tol,
                                        "({m}, {n}, {k}) A({ars},{acs}) B({brs},{bcs}) \
                                         acc {accumulate} t{threads} [{i}, {j}]: {} vs {r}",
                                        got.to_f64()
                                    );
                                }
                            }
                        }
                    }
                }
            }
        }
    }

    pub(crate) fn direct_mid_matches_f32() {
        direct_mid_matches::<f32>(2e-3);
    }

    pub(crate) fn direct_mid_matches_f64() {
        direct_mid_matches::<f64>(1e-10);
    }

    pub(crate) fn direct_matches_f32() {
        direct_matches::<f32>(1e-3);
    }

    pub(crate) fn direct_matches_f64() {
        direct_matches::<f64>(1e-11);
    }
}
