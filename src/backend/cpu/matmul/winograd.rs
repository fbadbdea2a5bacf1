//! Winograd F(4,3) for 3x3 stride-1 correlations of f32 and f64 tensors (Lavin &
//! Gray, 2015): each 4x4 output tile is `A^T [(G g G^T) . (B^T d B)] A` over a
//! 6x6 input tile, so the channel sums become 36 independent matrix products
//! (`U[36][o][c] @ V[36][c][tiles]`) through the same `MatKernel` as matmul.
//! Tiles run in chunks that bound the transformed buffers. Only the kernel
//! lives here; padding, cropping and the decision to use it are the frontend's
//! (`src/ops/conv.rs`).

use super::{Mat, MatKernel, Threads};
use crate::backend::cpu::base_ptr;
use crate::backend::cpu::strided::SendPtr;
use crate::tensor::Tensor;
use num_traits::Float;
use rayon::prelude::*;

/// Elements of the transformed input and products (`V` and `M`) held at once:
/// the tiles of a problem are processed in chunks that fit.
const CHUNK_ELEMS: usize = 1 << 20;
/// Multiply-adds of the channel products above which the work is spread over
/// the thread pool.
const PAR_WORK: usize = 1 << 16;

/// The dtypes the kernel supports (arithmetic in the dtype itself).
pub(crate) trait WinoFloat: MatKernel + Float + Send + Sync {}
impl WinoFloat for f32 {}
impl WinoFloat for f64 {}

#[inline(always)]
fn k<T: Float>(v: f64) -> T {
    T::from(v).expect("small constants convert")
}

/// `G w` for one 3-vector (G is 6x3).
#[inline(always)]
fn g6<T: Float>(w: [T; 3]) -> [T; 6] {
    let [a, b, c] = w;
    let (s6, s12, s24) = (k::<T>(1.0 / 6.0), k::<T>(1.0 / 12.0), k::<T>(1.0 / 24.0));
    [
        a * k(0.25),
        -(a + b + c) * s6,
        -(a - b + c) * s6,
        a * s24 + b * s12 + c * s6,
        a * s24 - b * s12 + c * s6,
        c,
    ]
}

/// `B^T d` for one 6-vector.
#[inline(always)]
fn bt6<T: Float>(d: [T; 6]) -> [T; 6] {
    let (f2, f4, f5) = (k::<T>(2.0), k::<T>(4.0), k::<T>(5.0));
    [
        f4 * d[0] - f5 * d[2] + d[4],
        -f4 * (d[1] + d[2]) + d[3] + d[4],
        f4 * (d[1] - d[2]) - d[3] + d[4],
        f2 * (d[3] - d[1]) - d[2] + d[4],
        f2 * (d[1] - d[3]) - d[2] + d[4],
        f4 * d[1] - f5 * d[3] + d[5],
    ]
}

/// `A^T m` for one 6-vector (A^T is 4x6).
#[inline(always)]
fn at4<T: Float>(m: [T; 6]) -> [T; 4] {
    let (f2, f4, f8) = (k::<T>(2.0), k::<T>(4.0), k::<T>(8.0));
    let (s12, d12, s34, d34) = (m[1] + m[2], m[1] - m[2], m[3] + m[4], m[3] - m[4]);
    [
        m[0] + s12 + s34,
        d12 + f2 * d34,
        s12 + f4 * s34,
        d12 + f8 * d34 + m[5],
    ]
}

/// Run `f(0..len)` on the pool when `par`, else on this thread.
fn each(par: bool, len: usize, min: usize, f: &(dyn Fn(usize) + Sync)) {
    if par {
        crate::device::pool().install(|| (0..len).into_par_iter().with_min_len(min).for_each(f));
    } else {
        (0..len).for_each(f);
    }
}

/// `out (+)= correlate3x3(x, w)` with groups (shapes per
/// [`crate::backend::LinalgBackend::conv3x3`]).
///
/// # Safety
/// The frontend contract of `conv3x3`; `T` is the tensors' dtype.
pub(super) unsafe fn conv3x3<T: WinoFloat>(
    x: &Tensor,
    w: &Tensor,
    out: &Tensor,
    groups: usize,
    accumulate: bool,
) {
    let (n, c, hx, wx) = (x.shape()[0], x.shape()[1], x.shape()[2], x.shape()[3]);
    let (o, oh, ow) = (out.shape()[1], out.shape()[2], out.shape()[3]);
    if n == 0 || o == 0 || oh == 0 || ow == 0 {
        return;
    }
    let (cg, og) = (c / groups, o / groups);
    let (th, tw) = (oh.div_ceil(4), ow.div_ceil(4));
    let tiles = n * th * tw;
    let (xl, wl, ol) = (x.layout(), w.layout(), out.layout());
    let (xs, ws, os) = (xl.strides(), wl.strides(), ol.strides());
    let (px, pw, po) = (
        SendPtr(base_ptr::<T>(x)),
        SendPtr(base_ptr::<T>(w)),
        SendPtr(base_ptr::<T>(out)),
    );
    let par = crate::device::num_threads() > 1 && 36 * tiles * og * cg * groups >= PAR_WORK;

    // U[36][o][cg] = G g G^T (o = groups x og, so group g's block starts at g*og).
    let zero = k::<T>(0.0);
    let mut u = vec![zero; 36 * o * cg];
    let up = SendPtr(u.as_mut_ptr());
    each(par, o * cg, 16, &|oc| {
        // Rebind so the closure captures the Sync wrappers, not their raw fields.
        let (pw, up) = (pw, up);
        let (oi, ci) = (oc / cg, oc % cg);
        let tap = |i: usize, j: usize| -> T {
            let off = wl.offset() as isize
                + oi as isize * ws[0]
                + ci as isize * ws[1]
                + i as isize * ws[2]
                + j as isize * ws[3];
            // SAFETY: (oi, ci, i, j) is an element of w.
            unsafe { *pw.0.offset(off) }
        };
        // Columns first (G g, 6x3), then rows ((G g) G^T, 6x6).
        let cols: [[T; 6]; 3] = std::array::from_fn(|j| g6([tap(0, j), tap(1, j), tap(2, j)]));
        let rows: [[T; 6]; 6] = std::array::from_fn(|r| g6([cols[0][r], cols[1][r], cols[2][r]]));
        for (r, row) in rows.iter().enumerate() {
            for (s, &v) in row.iter().enumerate() {
                // SAFETY: each (r, s, oi, ci) is written by this call only; inside u.
                unsafe { *up.0.add((r * 6 + s) * o * cg + oi * cg + ci) = v };
            }
        }
    });

    // Tiles are numbered (sample, tile row, tile column) and run in chunks.
    let chunk = (CHUNK_ELEMS / (36 * (c + o))).clamp(1, tiles);
    let mut v = vec![zero; 36 * c * chunk];
    let mut m = vec![zero; 36 * o * chunk];
    let (vp, mp) = (SendPtr(v.as_mut_ptr()), SendPtr(m.as_mut_ptr()));
    let mut t0 = 0;
    while t0 < tiles {
        let len = chunk.min(tiles - t0);
        let tile = |tl: usize| {
            let t = t0 + tl;
            (t / (th * tw), (t / tw) % th, t % tw)
        };

        // V[36][c][len] = B^T d B.
        each(par, c * len, 64, &|ct| {
            let (px, vp) = (px, vp);
            let (ci, tl) = (ct / len, ct % len);
            let (ni, ty, tx) = tile(tl);
            let base = xl.offset() as isize + ni as isize * xs[0] + ci as isize * xs[1];
            let mut d = [[zero; 6]; 6];
            // The last tiles reach past the input: zeros there (their outputs
            // are not written).
            for (r, row) in d.iter_mut().enumerate().take(hx - ty * 4) {
                for (s, e) in row.iter_mut().enumerate().take(wx - tx * 4) {
                    let off = base + (ty * 4 + r) as isize * xs[2] + (tx * 4 + s) as isize * xs[3];
                    // SAFETY: (ni, ci, ty*4 + r, tx*4 + s) is an element of x.
                    *e = unsafe { *px.0.offset(off) };
                }
            }
            // Columns first (cols[s] = B^T d[.][s]), then rows.
            let cols: [[T; 6]; 6] = std::array::from_fn(|s| bt6(std::array::from_fn(|q| d[q][s])));
            let rows: [[T; 6]; 6] =
                std::array::from_fn(|r| bt6(std::array::from_fn(|s| cols[s][r])));
            for (r, row) in rows.iter().enumerate() {
                for (s, &val) in row.iter().enumerate() {
                    // SAFETY: each (r, s, ci, tl) is written by this call only; inside v.
                    unsafe { *vp.0.add(((r * 6 + s) * c + ci) * len + tl) = val };
                }
            }
        });

        // M[36][o][len] = U @ V, one product per (element, group).
        if cg > 0 {
            each(par, 36 * groups, 1, &|eg| {
                let (up, vp, mp) = (up, vp, mp);
                let (e, g) = (eg / groups, eg % groups);
                let mat = |p: SendPtr<T>, at: usize, rs: usize| Mat {
                    ptr: SendPtr(p.0.wrapping_add(at)),
                    rs: rs as isize,
                    cs: 1,
                };
                // SAFETY: the blocks are og x cg of u, cg x len of v and og x len
                // of m; distinct (e, g) write disjoint blocks of m; cg > 0.
                unsafe {
                    T::gemm(
                        og,
                        len,
                        cg,
                        mat(up, (e * o + g * og) * cg, cg),
                        mat(vp, (e * c + g * cg) * len, len),
                        mat(mp, (e * o + g * og) * len, len),
                        false,
                        Threads::One,
                    )
                };
            });
        }

        // Y = A^T M A, clipped to the output.
        each(par, o * len, 64, &|ot| {
            let (mp, po) = (mp, po);
            let (oi, tl) = (ot / len, ot % len);
            let (ni, ty, tx) = tile(tl);
            // SAFETY: inside m, read only here.
            let at = |e: usize| unsafe { *mp.0.add((e * o + oi) * len + tl) };
            // Columns first (cols[s] = A^T m[.][s]), then rows.
            let cols: [[T; 4]; 6] =
                std::array::from_fn(|s| at4(std::array::from_fn(|q| at(q * 6 + s))));
            let base = ol.offset() as isize + ni as isize * os[0] + oi as isize * os[1];
            let rows: [[T; 4]; 4] =
                std::array::from_fn(|i| at4(std::array::from_fn(|s| cols[s][i])));
            for (i, row) in rows.iter().enumerate().take(oh - ty * 4) {
                for (j, &val) in row.iter().enumerate().take(ow - tx * 4) {
                    let off = base + (ty * 4 + i) as isize * os[2] + (tx * 4 + j) as isize * os[3];
                    // SAFETY: (ni, oi, ty*4 + i, tx*4 + j) is an element of the
                    // unique output, written by this (oi, tile) only.
                    unsafe {
                        let p = po.0.offset(off);
                        *p = if accumulate { *p + val } else { val };
                    }
                }
            }
        });
        t0 += len;
    }
}
