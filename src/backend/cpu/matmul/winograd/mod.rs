//! Winograd F(4,3) for 3x3 stride-1 correlations of f32 and f64 tensors (Lavin &
//! Gray, 2015): each 4x4 output tile is `A^T [(G g G^T) . (B^T d B)] A` over a
//! 6x6 input tile, so the channel sums become 36 independent matrix products
//! (`U[36][o][c] @ V[36][c][tiles]`) through the same `MatKernel` as matmul.
//! Tiles run in chunks that bound the transformed buffers; moving groups of
//! tiles between memory and lane arrays is `tiles.rs`'s. Only the kernel
//! lives here; padding, cropping and the decision to use it are the frontend's
//! (`src/ops/conv.rs`).

use super::{Mat, MatKernel, Threads};
use crate::backend::cpu::base_ptr;
use crate::backend::cpu::elementwise::simd::with_best;
use crate::backend::cpu::strided::SendPtr;
use crate::tensor::Tensor;
use num_traits::Float;
use std::sync::Mutex;
use tiles::TileIo;

pub(crate) mod tiles;

/// Elements of the transformed input and products (`V` and `M`) of one chunk
/// of tiles (each thread holds one chunk's at a time).
const CHUNK_ELEMS: usize = 1 << 20;
/// Multiply-adds of the channel products above which the work is spread over
/// the thread pool.
const PAR_WORK: usize = 1 << 16;
/// The fewest tiles per chunk when chunks are made smaller to share them out
/// between threads: a floor that keeps the channel products (`tiles` columns
/// wide) out of the narrowest shapes. Chosen, not tuned: the benchmark's
/// conv2d runs with 196-tile chunks.
const MIN_CHUNK: usize = 64;

/// The dtypes the kernel supports (arithmetic in the dtype itself).
pub(crate) trait WinoFloat: MatKernel + Float + TileIo + Send + Sync {}
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

/// Tiles transformed together: the lanes of one AVX2 f32 vector. The
/// transforms below are written over `[T; L]` lane arrays (lane = tile), so
/// under `with_best` each line of `bt6`/`at4` becomes one vector operation
/// across `L` tiles; the last tiles of a chunk run with `L = 1`.
const LANES: usize = 8;

/// A 6-point transform `f` (`bt6` or `at4`) applied lane by lane: `d[q][l]`
/// is element `q` of tile `l`.
#[inline(always)]
fn per_lane<T: Float, const L: usize, const N: usize>(
    d: &[[T; L]; 6],
    f: impl Fn([T; 6]) -> [T; N],
) -> [[T; L]; N] {
    let mut o = [[T::zero(); L]; N];
    for l in 0..L {
        let v = f([d[0][l], d[1][l], d[2][l], d[3][l], d[4][l], d[5][l]]);
        for (r, &e) in v.iter().enumerate() {
            o[r][l] = e;
        }
    }
    o
}

/// `B^T d B` of `L` input tiles. `d[r][s][l]` is row `r`, column `s` of
/// tile `l`; element `(r, s)` of the result goes to `dst[(r * 6 + s) * plane + l]`.
///
/// # Safety
/// `dst` addresses those `36 * L` elements, each written by this call only.
#[inline(always)]
unsafe fn input_transform<T: Float, const L: usize>(
    d: &[[[T; L]; 6]; 6],
    dst: *mut T,
    plane: usize,
) {
    // Columns first (B^T d[.][s] for each column s), then rows.
    let mut t = [[[T::zero(); L]; 6]; 6];
    for s in 0..6 {
        let col = per_lane(&[d[0][s], d[1][s], d[2][s], d[3][s], d[4][s], d[5][s]], bt6);
        for (r, c) in col.iter().enumerate() {
            t[r][s] = *c;
        }
    }
    for (r, tr) in t.iter().enumerate() {
        let row = per_lane(tr, bt6);
        for (s, v) in row.iter().enumerate() {
            // SAFETY: caller contract.
            unsafe { std::ptr::copy_nonoverlapping(v.as_ptr(), dst.add((r * 6 + s) * plane), L) };
        }
    }
}

/// `A^T m A` of `L` tiles: `m[e][l]` is element `e` (of 36) of tile `l`;
/// returns `y[i][j][l]`.
#[inline(always)]
fn output_transform<T: Float, const L: usize>(m: &[[T; L]; 36]) -> [[[T; L]; 4]; 4] {
    // Columns first (A^T m[.][s] for each column s), then rows.
    let mut t = [[[T::zero(); L]; 6]; 4];
    for s in 0..6 {
        let col = per_lane(
            &[m[s], m[6 + s], m[12 + s], m[18 + s], m[24 + s], m[30 + s]],
            at4,
        );
        for (i, c) in col.iter().enumerate() {
            t[i][s] = *c;
        }
    }
    let mut y = [[[T::zero(); L]; 4]; 4];
    for (i, ti) in t.iter().enumerate() {
        y[i] = per_lane(ti, at4);
    }
    y
}

/// Run `f(0..len)` on the pool when `par`, else on this thread.
fn each(par: bool, len: usize, min: usize, f: &(dyn Fn(usize) + Sync)) {
    if par {
        crate::backend::cpu::team::par_range(len, min, f);
    } else {
        (0..len).for_each(f);
    }
}

/// One tile of a chunk: offsets of its first input and output element
/// (channel 0), and the rows and columns of its 6x6 input window and 4x4
/// output block that lie inside the tensors.
#[derive(Clone, Copy)]
struct TileAt {
    x: isize,
    y: isize,
    rows: usize,
    cols: usize,
    orows: usize,
    ocols: usize,
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
    // A chunk runs on one thread from its input transform to its output (no
    // barrier between the phases, its buffers stay with that core); with
    // threads, chunks are small enough for four per thread, so that work
    // stealing evens out the load, but no smaller than `MIN_CHUNK` tiles.
    let mut chunk = (CHUNK_ELEMS / (36 * (c + o))).clamp(1, tiles);
    if par {
        let share = tiles.div_ceil(4 * crate::device::num_threads());
        chunk = chunk.min(share.max(MIN_CHUNK));
    }
    let (vlen, mlen) = (36 * c * chunk, 36 * o * chunk);
    // Buffers of finished chunks, taken by the next (one pair per thread).
    let spare: Mutex<Vec<(Vec<T>, Vec<T>)>> = Mutex::new(Vec::new());
    let spare = &spare;
    each(par, tiles.div_ceil(chunk), 1, &|k| {
        let (up, px, po) = (up, px, po);
        let first = k * chunk;
        let taken = spare.lock().unwrap_or_else(|e| e.into_inner()).pop();
        let (mut v, mut m) = taken.unwrap_or_else(|| (vec![zero; vlen], vec![zero; mlen]));
        let (vp, mp) = (SendPtr(v.as_mut_ptr()), SendPtr(m.as_mut_ptr()));
        // Tile numbers inside the closures below (t0, tl) count from `first`.
        let len = chunk.min(tiles - first);
        // Where each tile of the chunk starts in x and in out (channel 0),
        // and how much of its input window and output block lies inside.
        let at: Vec<TileAt> = (first..first + len)
            .map(|t| {
                let (ni, ty, tx) = (t / (th * tw), (t / tw) % th, t % tw);
                let (y0, x0) = (ty * 4, tx * 4);
                TileAt {
                    x: xl.offset() as isize
                        + ni as isize * xs[0]
                        + y0 as isize * xs[2]
                        + x0 as isize * xs[3],
                    y: ol.offset() as isize
                        + ni as isize * os[0]
                        + y0 as isize * os[2]
                        + x0 as isize * os[3],
                    rows: (hx - y0).min(6),
                    cols: (wx - x0).min(6),
                    orows: (oh - y0).min(4),
                    ocols: (ow - x0).min(4),
                }
            })
            .collect();

        // V[36][c][len] = B^T d B, `LANES` tiles of one channel at a time.
        let groups_t = len.div_ceil(LANES);
        (0..c * groups_t).for_each(|cq| {
            let (px, vp) = (px, vp);
            let (ci, q) = (cq / groups_t, cq % groups_t);
            // Copy tile `tl`'s 6x6 window into `w` (row-major). The last
            // tiles reach past the input: zeros there (their outputs are not
            // written).
            let window = |w: &mut [T; 36], tl: usize| {
                let ta = at[tl];
                let base = ta.x + ci as isize * xs[1];
                for (r, wr) in w.chunks_exact_mut(6).enumerate() {
                    for (s, e) in wr.iter_mut().enumerate() {
                        *e = if r < ta.rows && s < ta.cols {
                            // SAFETY: (r, s) inside the tile's window is an
                            // element of x (rows/cols clip the window to the
                            // input).
                            unsafe { *px.0.offset(base + r as isize * xs[2] + s as isize * xs[3]) }
                        } else {
                            zero
                        };
                    }
                }
            };
            let t0 = q * LANES;
            // SAFETY: tiles t0.. of channel ci are written by this task only;
            // (r * 6 + s) * c * len + ci * len + tl is inside v.
            let dst = unsafe { vp.0.add(ci * len + t0) };
            let plane = c * len;
            if t0 + LANES <= len {
                // Each tile's window read in place when it lies inside the
                // input with unit column stride, else copied into `stage`.
                let mut stage = [[zero; 36]; LANES];
                let mut src = [std::ptr::null::<T>(); LANES];
                let mut rs = [6; LANES];
                for (l, w) in stage.iter_mut().enumerate() {
                    let ta = at[t0 + l];
                    if ta.rows == 6 && ta.cols == 6 && xs[3] == 1 {
                        // SAFETY: the tile's first element, in x.
                        src[l] = unsafe { px.0.offset(ta.x + ci as isize * xs[1]) };
                        rs[l] = xs[2];
                    } else {
                        window(w, t0 + l);
                        src[l] = w.as_ptr();
                    }
                }
                let mut d = [[[zero; LANES]; 6]; 6];
                // SAFETY: rows 0-5, columns 0-5 of each tile are elements of
                // x (a full window with unit column stride) or of its `stage`
                // (row stride 6), which outlives the call.
                unsafe { T::load_windows(&src, &rs, &mut d) };
                with_best(
                    #[inline(always)]
                    || unsafe { input_transform::<T, LANES>(&d, dst, plane) },
                );
            } else {
                for tl in t0..len {
                    let mut w = [zero; 36];
                    window(&mut w, tl);
                    let d1: [[[T; 1]; 6]; 6] =
                        std::array::from_fn(|r| std::array::from_fn(|s| [w[r * 6 + s]]));
                    // SAFETY: as above, one tile.
                    unsafe { input_transform::<T, 1>(&d1, dst.add(tl - t0), plane) };
                }
            }
        });

        // M[36][o][len] = U @ V, one product per (element, group).
        if cg > 0 {
            (0..36 * groups).for_each(|eg| {
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

        // Y = A^T M A, clipped to the output, `LANES` tiles of one output
        // channel at a time.
        (0..o * groups_t).for_each(|oq| {
            let (mp, po) = (mp, po);
            let (oi, q) = (oq / groups_t, oq % groups_t);
            let t0 = q * LANES;
            let lanes = LANES.min(len - t0);
            let mut mv = [[zero; LANES]; 36];
            for (e, me) in mv.iter_mut().enumerate() {
                // SAFETY: inside m, read only here.
                let src = unsafe { mp.0.add((e * o + oi) * len + t0) };
                if lanes == LANES {
                    // SAFETY: as above (a fixed-size copy).
                    *me = unsafe { *(src as *const [T; LANES]) };
                } else {
                    // SAFETY: as above.
                    me[..lanes].copy_from_slice(unsafe { std::slice::from_raw_parts(src, lanes) });
                }
            }
            let y = with_best(
                #[inline(always)]
                || output_transform::<T, LANES>(&mv),
            );
            // Write tile `tl`'s block `get(i, j)`, clipped to the output.
            let put = |tl: usize, get: &dyn Fn(usize, usize) -> T| {
                let ta = at[tl];
                let base = ta.y + oi as isize * os[1];
                for i in 0..ta.orows {
                    for j in 0..ta.ocols {
                        let off = base + i as isize * os[2] + j as isize * os[3];
                        // SAFETY: (ni, oi, ty*4 + i, tx*4 + j) is an element of the
                        // unique output, written by this (oi, tile) only.
                        unsafe {
                            let p = po.0.offset(off);
                            *p = if accumulate {
                                *p + get(i, j)
                            } else {
                                get(i, j)
                            };
                        }
                    }
                }
            };
            if lanes < LANES {
                for (l, tl) in (t0..len).enumerate() {
                    put(tl, &|i, j| y[i][j][l]);
                }
                return;
            }
            // Whole blocks with unit column stride are stored in place; the
            // others go through `stage` and are then written clipped. `stage`
            // holds -0, so accumulating there leaves each value as it is
            // (-0 + v == v for every v, signed zeros included).
            let mut stage = [[-zero; 16]; LANES];
            let mut dst = [std::ptr::null_mut::<T>(); LANES];
            let mut rs = [4; LANES];
            let whole = |ta: &TileAt| ta.orows == 4 && ta.ocols == 4 && os[3] == 1;
            for (l, w) in stage.iter_mut().enumerate() {
                let ta = at[t0 + l];
                if whole(&ta) {
                    // SAFETY: the block's first element, in the output.
                    dst[l] = unsafe { po.0.offset(ta.y + oi as isize * os[1]) };
                    rs[l] = os[2];
                } else {
                    dst[l] = w.as_mut_ptr();
                }
            }
            // SAFETY: rows 0-3, columns 0-3 of each block are elements of the
            // output written by this (oi, tile) only (a whole block with unit
            // column stride) or of its own `stage` (row stride 4).
            unsafe { T::store_blocks(&y, &dst, &rs, accumulate) };
            for (l, w) in stage.iter().enumerate() {
                if !whole(&at[t0 + l]) {
                    put(t0 + l, &|i, j| w[i * 4 + j]);
                }
            }
        });
        spare.lock().unwrap_or_else(|e| e.into_inner()).push((v, m));
    });
}
