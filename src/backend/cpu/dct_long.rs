//! The DCT-2 (and DST-2) of one long row split over the pool, read from and
//! written to the caller's strided tensors directly: Makhoul's algorithm
//! (see `dct_plan.rs`) on the four-step complex FFT of length `h = N/2`
//! (`fft_long.rs`), with every step fused into the four-step's two passes
//! over memory, so the row is read once and the output written once:
//!
//! - pass 1 reads `z_j = v_{2j} + i v_{2j+1}` (Makhoul's reordering `v` of
//!   the input, evens up and odds down) straight from the input while it
//!   gathers its columns (no row copy, no reordered buffer);
//! - pass 2 hands out the rows of `Z` in pairs holding `Z_k` and `Z_{h-k}`
//!   together ([`LongFft::process_pairs`]), and each pair becomes four
//!   outputs at once: with `E_k = (Z_k + conj Z_{h-k}) / 2`, `O_k = (Z_k -
//!   conj Z_{h-k}) / 2i`, `a = w_k E_k`, `b = w'_k O_k` (`w_k =
//!   e^{-iπk/(2N)}`, `w'_k = w_k e^{-2πik/N}`), `y_k = Re(a + b)`, `y_{N-k}
//!   = -Im(a + b)`, and, as `E_{h-k} = conj E_k`, `O_{h-k} = conj O_k`,
//!   `w_{h-k} = r conj w_k`, `w'_{h-k} = -r conj w'_k` (`r = e^{-iπ/4}`):
//!   `y_{h-k} = Re(r conj(a - b))`, `y_{h+k} = -Im(r conj(a - b))`.
//!
//! The twiddles of `k = k2 + n2 k1` are products of two exactly rounded
//! factors (a table over `k1`, one value per `k2`), so each carries about 2
//! ulp and the error stays at the FFT's. Only `dct.rs` (through the plan of
//! `dct_plan.rs`) calls this.

use super::dct_plan::DctFloat;
use super::fft_lanes::{quads, Out, QuadTw};
use super::fft_long::{Block, LongFft, Row};
use super::strided::SendPtr;
use crate::dtype::Element;
use crate::error::Result;
use num_complex::Complex;
use std::f64::consts::{FRAC_1_SQRT_2, PI};
use std::sync::Arc;

/// A planned long DCT-2 of length `n` (even, `n / 2` a four-step length).
pub(super) struct Dct2Long<T> {
    n: usize,
    fft: Arc<LongFft<T>>,
    /// `w_{n2 k1}`, `k1 < n1`.
    wa: Vec<Complex<T>>,
    /// `w'_{n2 k1}`, `k1 < n1`.
    wb: Vec<Complex<T>>,
    /// `w_{k2}` and `w'_{k2}`, `k2 <= n2 / 2`.
    row: Vec<(Complex<T>, Complex<T>)>,
}

/// How the outputs are scaled and which transform is taken.
#[derive(Clone, Copy)]
pub(super) struct Post<T> {
    /// Every output's factor.
    pub(super) scale: T,
    /// The extra factor of output `k = 0` (`1/sqrt 2` for orthogonalize).
    pub(super) first: T,
    /// The DST-2: the input's odd elements negated, the output reversed.
    pub(super) sine: bool,
}

/// `e^{i a}` rounded to `T` from f64.
fn cis<T: Element>(a: f64) -> Complex<T> {
    let (s, c) = a.sin_cos();
    Complex::new(<T as Element>::from_f64(c), <T as Element>::from_f64(s))
}

impl<T: DctFloat> Dct2Long<T> {
    /// The plan of length `n` on the four-step FFT `fft` of length `n / 2`.
    pub(super) fn new(n: usize, fft: Arc<LongFft<T>>) -> Dct2Long<T> {
        let (n1, n2) = fft.dims();
        debug_assert_eq!(2 * n1 * n2, n);
        let t = -PI / (2.0 * n as f64);
        Dct2Long {
            n,
            wa: (0..n1).map(|k1| cis(t * (n2 * k1) as f64)).collect(),
            wb: (0..n1).map(|k1| cis(5.0 * t * (n2 * k1) as f64)).collect(),
            row: (0..=n2 / 2)
                .map(|k2| (cis(t * k2 as f64), cis(5.0 * t * k2 as f64)))
                .collect(),
            fft,
        }
    }

    /// The DCT-2 (half of SciPy's unscaled one, times `post`'s factors) of
    /// the row `src` (its first `m` elements; zeros past them) into `dst`
    /// (`n` elements), split over the pool.
    ///
    /// # Safety
    /// `src + j * step` for `j < m` must be readable elements, and `dst +
    /// k * step` for `k < n` writable elements that nothing else reads or
    /// writes during the call.
    pub(super) unsafe fn run(
        &self,
        src: Row<T>,
        m: usize,
        dst: Row<T>,
        post: Post<T>,
    ) -> Result<()> {
        let n = self.n;
        let h = n / 2;
        let (n1, n2) = self.fft.dims();
        let zero = <T as Element>::zero();
        let sign = <T as Element>::from_f64(if post.sine { -1.0 } else { 1.0 });
        let val = |j: usize| {
            if j < m {
                // SAFETY: `j < m`, readable by the caller's contract.
                unsafe { *src.ptr.get().offset(j as isize * src.step) }
            } else {
                zero
            }
        };
        // Makhoul's `v_i`: evens up, odds (negated for the DST) down.
        let v = |i: usize| {
            if i < h {
                val(2 * i)
            } else {
                val(2 * (n - 1 - i) + 1) * sign
            }
        };
        // The DST's output runs backwards from element `n - 1`.
        let (base, step) = if post.sine {
            (
                dst.ptr.get().wrapping_offset((n - 1) as isize * dst.step),
                -dst.step,
            )
        } else {
            (dst.ptr.get(), dst.step)
        };
        let out = SendPtr(base);
        let put = |k: usize, y: T| {
            // SAFETY: `k < n`: element `k` of the output (reversed for the
            // DST), written by the step of its pair `{k, h - k}` alone.
            unsafe { *out.get().offset(k as isize * step) = y * post.scale }
        };
        let half = <T as Element>::from_f64(0.5);
        let s = <T as Element>::from_f64(FRAC_1_SQRT_2);
        // Outputs k, N - k, h - k, h + k from Z_k and Z_{h-k} (k2 + n2 k1 = k).
        let quad =
            |k: usize, k1: usize, wr: (Complex<T>, Complex<T>), zk: Complex<T>, zm: Complex<T>| {
                let zc = zm.conj();
                let e = (zk + zc) * half;
                let d = zk - zc;
                // (Z_k - conj Z_{h-k}) / 2i.
                let o = Complex::new(d.im * half, -d.re * half);
                let a = (self.wa[k1] * wr.0) * e;
                let b = (self.wb[k1] * wr.1) * o;
                let (y, d) = (a + b, a - b);
                put(k, y.re);
                put(n - k, -y.im);
                put(h - k, (d.re - d.im) * s);
                put(h + k, (d.re + d.im) * s);
            };
        let tw = QuadTw {
            n,
            n2,
            wa: &self.wa,
            wb: &self.wb,
            row: &self.row,
        };
        let lanes_out = Out {
            ptr: out,
            step,
            scale: post.scale,
        };
        let zv = |j: usize| Complex::new(v(2 * j), v(2 * j + 1));
        // A contiguous row of `n` elements: `z` straight from slices, four
        // elements at a time (see `fill_fast`); else element by element.
        let fast = m == n && src.step == 1 && n2 % 2 == 0;
        // SAFETY: `m == n` elements from `src.ptr`, readable by the caller's
        // contract and not written during the call (`dst` is another tensor).
        let x = fast.then(|| unsafe { std::slice::from_raw_parts(src.ptr.get(), n) });
        self.fft.process_pairs(
            true,
            |blk, buf, lb| match x {
                Some(x) => fill_fast(x, n1, n2, sign, blk, buf, lb),
                None => {
                    // Rows j2 and n2 - 1 - j2 read the same input lines.
                    for t in 0..n2.div_ceil(2) {
                        for j2 in [t, n2 - 1 - t]
                            .into_iter()
                            .take(1 + usize::from(2 * t + 1 < n2))
                        {
                            for i in 0..blk.rows() {
                                buf[i * lb + j2] = zv(blk.col(i, n1) + n1 * j2);
                            }
                        }
                    }
                }
            },
            |k0, a, b| {
                let mut i0 = 0;
                if k0 == 0 {
                    // Z_h = Z_0: y_0 = Re Z_0 + Im Z_0, y_h = (Re - Im) / sqrt 2.
                    let a0 = a[0];
                    put(0, (a0[0].re + a0[0].im) * post.first);
                    put(h, (a0[0].re - a0[0].im) * s);
                    // Pairs k1 <-> n1 - k1 (k1 = n1 / 2 is its own).
                    for k1 in 1..=n1 / 2 {
                        quad(n2 * k1, k1, self.row[0], a0[k1], a0[n1 - k1]);
                    }
                    i0 = 1;
                }
                // Pairs k1 <-> n1 - 1 - k1 across rows k2 and n2 - k2, or
                // within row n2 / 2 (its middle its own pair): k1 outside,
                // so each k1 writes runs of consecutive outputs.
                let g = a.len();
                let mid = 2 * (k0 + g - 1) == n2 && g > i0;
                let full = g - usize::from(mid);
                let scalar = |i: usize, k1: usize| {
                    let k2 = k0 + i;
                    quad(k2 + n2 * k1, k1, self.row[k2], a[i][k1], b[i][n1 - 1 - k1]);
                };
                // SAFETY: the outputs of the rows `k0 + i0..k0 + full`, this
                // block's alone (as `put`'s).
                unsafe { quads(&tw, lanes_out, k0, (i0, full), a, b, (half, s), scalar) };
                if mid {
                    let k2 = n2 / 2;
                    for k1 in 0..n1.div_ceil(2) {
                        quad(
                            k2 + n2 * k1,
                            k1,
                            self.row[k2],
                            a[g - 1][k1],
                            b[g - 1][n1 - 1 - k1],
                        );
                    }
                }
            },
        )
    }
}

/// Pass 1's gather (see [`LongFft::process_pairs`]) from a whole contiguous
/// row `x` (`n2` even): column `c`, row `s < n2 / 2` is `z_j = (x_{4p},
/// x_{4p+2})`, `p = c + n1 s`, and the mirror column `n1 - 1 - c`, row `n2 -
/// 1 - s` is `(x_{4p+3}, x_{4p+1})` (times `sign`) from the same four
/// elements: each input line is read once, by one block.
fn fill_fast<T: DctFloat>(
    x: &[T],
    n1: usize,
    n2: usize,
    sign: T,
    blk: Block,
    buf: &mut [Complex<T>],
    lb: usize,
) {
    let Block { j0, g, gm } = blk;
    for s in 0..n2 / 2 {
        let r = n2 - 1 - s;
        if s + AHEAD < n2 / 2 {
            // The lines `AHEAD` rows on (20 KB apart at N = 10^6: the
            // hardware prefetcher does not follow them).
            let t = s + AHEAD;
            prefetch(&x[4 * (j0 + n1 * t)..4 * (j0 + g + n1 * t)]);
            prefetch(&x[4 * (n1 - j0 - gm + n1 * t)..4 * (n1 - j0 + n1 * t)]);
        }
        let lo = &x[4 * (j0 + n1 * s)..4 * (j0 + g + n1 * s)];
        for (i, q) in lo.chunks_exact(4).enumerate() {
            buf[i * lb + s] = Complex::new(q[0], q[2]);
            // The middle column of an odd n1 is its own mirror.
            let mi = if i < gm { g + i } else { i };
            buf[mi * lb + r] = Complex::new(q[3] * sign, q[1] * sign);
        }
        // Mirror columns n1 - 1 - j0 - i, i < gm: from the top down.
        let hi = &x[4 * (n1 - j0 - gm + n1 * s)..4 * (n1 - j0 + n1 * s)];
        for (i, q) in hi.chunks_exact(4).rev().enumerate() {
            buf[(g + i) * lb + s] = Complex::new(q[0], q[2]);
            buf[i * lb + r] = Complex::new(q[3] * sign, q[1] * sign);
        }
    }
}

/// Rows of the input `fill_fast` prefetches ahead.
const AHEAD: usize = 6;

/// Ask for the cache lines of `v` (a hint: no effect on results).
#[inline(always)]
fn prefetch<T>(v: &[T]) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let p = v.as_ptr().cast::<i8>();
        let bytes = std::mem::size_of_val(v);
        let mut o = 0;
        // SAFETY: SSE is in every x86-64 baseline; a prefetch never
        // faults and touches no memory the program sees (the addresses are
        // inside `v`).
        unsafe {
            while o < bytes {
                _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(o));
                o += 64;
            }
            if bytes > 0 {
                _mm_prefetch::<_MM_HINT_T0>(p.wrapping_add(bytes - 1));
            }
        }
    }
}
