//! The real FFT of one long row (`rfft`, and with `conj` `ihfft`) and its
//! inverse (`irfft`, `hfft`), split over the pool: the classic half-length
//! packing on the four-step complex FFT of `fft_long.rs`. For an even
//! length `n = 2h` and `W = e^{-2πi/n}`:
//!
//! - forward: pass 1 reads `z_j = x_{2j} + i x_{2j+1}` (`j < h`) straight
//!   from the input; pass 2 hands out `Z_k` and `Z_{h-k}` together
//!   ([`LongFft::process_pairs`]), and each pair gives two bins: with `E =
//!   (Z_k + conj Z_{h-k}) / 2`, `O = (Z_k - conj Z_{h-k}) / 2i`, `X_k = E +
//!   W^k O` and `X_{h-k} = conj(E - W^k O)` (`k = 0` gives `X_0` and `X_h`);
//! - inverse: pass 1 forms `Z_k = E + i O` with `E = X_k + conj X_{h-k}`,
//!   `O = (X_k - conj X_{h-k}) W^{-k}` while it gathers (`X_0` and `X_h`
//!   taken as real, as NumPy does), the inverse complex FFT of length `h`
//!   gives `z_j = x_{2j} + i x_{2j+1}`, and pass 2 writes both halves out
//!   (a contiguous output as complex pairs with streaming stores: irfft of
//!   10^6 f64 ~4.9 -> ~4.4 ms on the Zen 3 VM).
//!
//! An odd `n` whose own length takes the four-step path goes through the
//! complex FFT of the row (bins past `n / 2` dropped) and, inverse, of its
//! whole Hermitian spectrum.
//!
//! So the row is read once and the output written once, and both passes
//! run on every thread; rustfft's own real FFT of such a row is one thread
//! and, at `n = 10^6` in f64, slower than NumPy. The twiddles `W^{±k}` are
//! products of two exactly rounded tables (about 2 ulp each), so the error
//! stays at the FFT's. Plans are cached per (length, direction) and
//! precision; only `fft.rs` calls this.

use super::fft::{lock, FftFloat};
use super::fft_lanes::{pairs, Bins, PairTw};
use super::fft_long::{LongFft, Row};
use super::fft_long_flat::{fence, prefetch, stream};
use crate::dtype::Element;
use crate::error::Result;
use num_complex::Complex;
use rustfft::FftDirection;
use std::collections::HashMap;
use std::f64::consts::PI;
use std::sync::{Arc, Mutex};

/// The plan cache of one precision, keyed by (length, forward).
pub(super) type RealLongCache<T> = Mutex<HashMap<(usize, bool), Arc<RealLong<T>>>>;

/// Rows of the input prefetched ahead of the forward pass 1's gather (its
/// lines are `2 n1` elements apart: the hardware prefetcher does not
/// follow them).
const AHEAD: usize = 8;

/// A planned long real transform of one length and direction.
pub(super) struct RealLong<T> {
    n: usize,
    /// The complex four-step FFT of length `n / 2` (even `n`), or `n` (odd
    /// `n`, see [`RealLong::get`]); same direction.
    fft: Arc<LongFft<T>>,
    /// Forward: `W^{n2 k1}`, `k1 < n1`. Inverse: `W^{-j1}`, `j1 < n1`.
    /// Both tables are empty for an odd `n`.
    t1: Vec<Complex<T>>,
    /// Forward: `W^{k2}`, `k2 < n2`. Inverse: `W^{-n1 j2}`, `j2 < n2`.
    t2: Vec<Complex<T>>,
}

fn zero<T: Element>() -> Complex<T> {
    Complex::new(<T as Element>::zero(), <T as Element>::zero())
}

impl<T: FftFloat> RealLong<T> {
    /// The cached plan of length `n` (`forward`: the real-to-complex
    /// transform, else complex-to-real), if `n` is even and `n / 2` takes
    /// the four-step path, or `n` is odd and takes it itself: then the row
    /// goes through the complex FFT of length `n` (realfft's plan for an
    /// odd length is that complex FFT too, on one thread: an rfft of
    /// 999,999 f64 took 58.7 ms, 10.4-12.0 ms on this path over 2 threads,
    /// best of 40 on the 2-core Zen 3 VM in two sessions' runs).
    pub(super) fn get(n: usize, forward: bool) -> Option<Arc<RealLong<T>>> {
        let key = (n, forward);
        if let Some(p) = lock(T::real_long_cache()).get(&key) {
            return Some(p.clone());
        }
        let dir = if forward {
            FftDirection::Forward
        } else {
            FftDirection::Inverse
        };
        let plan = if n.is_multiple_of(2) {
            RealLong::even(n, dir)?
        } else {
            RealLong {
                n,
                fft: LongFft::get(n, dir, false)?,
                t1: Vec::new(),
                t2: Vec::new(),
            }
        };
        Some(
            lock(T::real_long_cache())
                .entry(key)
                .or_insert(Arc::new(plan))
                .clone(),
        )
    }

    /// The plan of an even `n`, if `n / 2` takes the four-step path: the
    /// complex FFT of length `n / 2` and the tables of its split.
    fn even(n: usize, dir: FftDirection) -> Option<RealLong<T>> {
        let forward = dir == FftDirection::Forward;
        let fft = LongFft::get(n / 2, dir, false)?;
        let (n1, n2) = fft.dims();
        let sign = if forward { -1.0 } else { 1.0 };
        // `e^{∓2πi e/n}`, rounded once from f64.
        let w = |e: usize| {
            let (s, c) = (sign * 2.0 * PI * e as f64 / n as f64).sin_cos();
            Complex::new(<T as Element>::from_f64(c), <T as Element>::from_f64(s))
        };
        let (t1, t2) = if forward {
            (
                (0..n1).map(|k1| w(n2 * k1)).collect(),
                (0..n2).map(w).collect(),
            )
        } else {
            (
                (0..n1).map(w).collect(),
                (0..n2).map(|j2| w(n1 * j2)).collect(),
            )
        };
        Some(RealLong { n, fft, t1, t2 })
    }

    /// The `n / 2 + 1` bins of the real FFT of `src` (its first `m`
    /// elements, zeros past them), each conjugated when `conj` asks and
    /// times `scale`, into `dst`; split over the pool.
    ///
    /// # Safety
    /// `src + j * step` for `j < m` must be readable elements, and `dst +
    /// k * step` for `k <= n / 2` writable elements that nothing else reads
    /// or writes during the call.
    pub(super) unsafe fn forward(
        &self,
        src: Row<T>,
        m: usize,
        dst: Row<Complex<T>>,
        scale: T,
        conj: bool,
    ) -> Result<()> {
        let (n, h) = (self.n, self.n / 2);
        let (n1, n2) = self.fft.dims();
        let m = m.min(n);
        let val = |j: usize| {
            if j < m {
                // SAFETY: `j < m`, readable by the caller's contract.
                unsafe { *src.ptr.get().offset(j as isize * src.step) }
            } else {
                <T as Element>::zero()
            }
        };
        let put = |k: usize, v: Complex<T>| {
            let v = if conj { v.conj() } else { v };
            // SAFETY: `k <= h`: bin `k` of the output, written once (by the
            // step of its pair `{k, h - k}`, or of bin `k` for odd `n`).
            unsafe {
                *dst.ptr.get().offset(k as isize * dst.step) =
                    Complex::new(v.re * scale, v.im * scale)
            }
        };
        if !n.is_multiple_of(2) {
            // The complex FFT of the row; bins past `h` dropped.
            let zero = <T as Element>::zero();
            return self.fft.process(
                |j| Complex::new(val(j), zero),
                |k, v| {
                    if k <= h {
                        put(k, v);
                    }
                },
            );
        }
        // SAFETY: `m == n` elements from `src.ptr`, readable by the
        // caller's contract and not written during the call.
        let x = (m == n && src.step == 1)
            .then(|| unsafe { std::slice::from_raw_parts(src.ptr.get(), n) });
        let half = <T as Element>::from_f64(0.5);
        // Bins k and h - k from Z_k and Z_{h-k}, `w = W^k`.
        let pair = |k: usize, w: Complex<T>, zk: Complex<T>, zm: Complex<T>| {
            let zc = zm.conj();
            let e = (zk + zc) * half;
            let d = zk - zc;
            let o = w * Complex::new(d.im * half, -d.re * half);
            put(k, e + o);
            if h - k != k {
                put(h - k, (e - o).conj());
            }
        };
        let tw = PairTw {
            h,
            n2,
            t1: &self.t1,
            t2: &self.t2,
        };
        let out = Bins {
            ptr: dst.ptr,
            step: dst.step,
            scale,
            scale_im: if conj { -scale } else { scale },
        };
        self.fft.process_pairs(
            false,
            |blk, buf, lb| {
                let (j0, g) = (blk.j0, blk.g);
                for j2 in 0..n2 {
                    match x {
                        Some(x) => {
                            if j2 + AHEAD < n2 {
                                prefetch(x[2 * (j0 + n1 * (j2 + AHEAD))..].as_ptr(), 2 * g);
                            }
                            let s = &x[2 * (j0 + n1 * j2)..][..2 * g];
                            for (i, p) in s.chunks_exact(2).enumerate() {
                                buf[i * lb + j2] = Complex::new(p[0], p[1]);
                            }
                        }
                        None => {
                            for i in 0..g {
                                let j = j0 + i + n1 * j2;
                                buf[i * lb + j2] = Complex::new(val(2 * j), val(2 * j + 1));
                            }
                        }
                    }
                }
            },
            |k0, a, b| {
                let g = a.len();
                // Row k2 = 0 pairs k1 with n1 - k1 (k1 = 0: bins 0 and h).
                let lo = usize::from(k0 == 0);
                if k0 == 0 {
                    for k1 in 0..=n1 / 2 {
                        let zm = a[0][(n1 - k1) % n1];
                        pair(n2 * k1, self.t1[k1], a[0][k1], zm);
                    }
                }
                // Row n2 / 2 (its own mirror) pairs k1 with n1 - 1 - k1.
                let mid = g > lo && 2 * (k0 + g - 1) == n2;
                if mid {
                    let k2 = n2 / 2;
                    for k1 in 0..n1.div_ceil(2) {
                        let w = self.t1[k1] * self.t2[k2];
                        pair(k2 + n2 * k1, w, a[g - 1][k1], a[g - 1][n1 - 1 - k1]);
                    }
                }
                // The other rows pair row k2's k1 with row n2 - k2's
                // n1 - 1 - k1; k1 outside, so each k1 writes runs of
                // consecutive bins.
                let scalar = |i: usize, k1: usize| {
                    let k2 = k0 + i;
                    let w = self.t1[k1] * self.t2[k2];
                    pair(k2 + n2 * k1, w, a[i][k1], b[i][n1 - 1 - k1]);
                };
                let rows = (lo, g - usize::from(mid));
                // SAFETY: the bins of the rows `k0 + lo..k0 + g - mid`
                // and their mirrors, this block's alone (as `put`'s).
                unsafe { pairs(&tw, out, k0, rows, a, b, half, scalar) };
            },
        )
    }

    /// The `n` real values of the inverse real FFT of `src` (its first `m`
    /// bins, zeros past them and past bin `n / 2`; each conjugated when
    /// `conj` asks; bin 0, and bin `n / 2` of an even `n`, taken as real),
    /// times `scale`, into `dst`; split over the pool.
    ///
    /// # Safety
    /// `src + k * step` for `k < m` must be readable elements, and `dst +
    /// j * step` for `j < n` writable elements that nothing else reads or
    /// writes during the call.
    pub(super) unsafe fn inverse(
        &self,
        src: Row<Complex<T>>,
        m: usize,
        dst: Row<T>,
        scale: T,
        conj: bool,
    ) -> Result<()> {
        let (n, h) = (self.n, self.n / 2);
        let (n1, n2) = self.fft.dims();
        let m = m.min(h + 1);
        let odd = !n.is_multiple_of(2);
        let bin = |k: usize| {
            if k >= m {
                return zero();
            }
            // SAFETY: `k < m`, readable by the caller's contract.
            let v = unsafe { *src.ptr.get().offset(k as isize * src.step) };
            // Bin h is the Nyquist bin for even n only.
            match (k == 0 || (k == h && !odd), conj) {
                (true, _) => Complex::new(v.re, <T as Element>::zero()),
                (false, true) => v.conj(),
                (false, false) => v,
            }
        };
        // Z_k from X_k, X_{h-k} and `w = W^{-k}`.
        let z = |xk: Complex<T>, xm: Complex<T>, w: Complex<T>| {
            let xm = xm.conj();
            let e = xk + xm;
            let o = (xk - xm) * w;
            Complex::new(e.re - o.im, e.im + o.re)
        };
        // SAFETY: `m == h + 1` elements from `src.ptr`, readable by the
        // caller's contract and not written during the call.
        let xs = (m == h + 1 && src.step == 1)
            .then(|| unsafe { std::slice::from_raw_parts(src.ptr.get(), m) });
        let put = |j: usize, v: T| {
            // SAFETY: `j < n`: element `j` of the output, written once (by
            // the block of its bin `j / 2`, or of bin `j` for odd `n`).
            unsafe { *dst.ptr.get().offset(j as isize * dst.step) = v * scale }
        };
        if odd {
            // The complex inverse FFT of the whole Hermitian spectrum.
            return self.fft.process(
                |k| if k <= h { bin(k) } else { bin(n - k).conj() },
                |j, v| put(j, v.re),
            );
        }
        self.fft.process_blocks(
            |blk, buf, lb| {
                let (j0, g) = (blk.j0, blk.g);
                let w1 = &self.t1[j0..j0 + g];
                for (j2, &w2) in self.t2.iter().enumerate() {
                    let k0 = j0 + n1 * j2;
                    match xs {
                        Some(xs) => {
                            // Bins k0 + i up, h - k0 - i down (both runs
                            // inside `xs`: k0 + g <= h).
                            if j2 + AHEAD < n2 {
                                let a = k0 + n1 * AHEAD;
                                prefetch(xs[a..].as_ptr(), g);
                                prefetch(xs[h + 1 - a - g..].as_ptr(), g);
                            }
                            let lo = &xs[k0..k0 + g];
                            let hi = &xs[h + 1 - k0 - g..h + 1 - k0];
                            // (`hfft` conjugates every bin: a loop of its own,
                            // the test kept out of `irfft`'s.)
                            if conj {
                                for i in 0..g {
                                    let (a, b) = (lo[i].conj(), hi[g - 1 - i].conj());
                                    buf[i * lb + j2] = z(a, b, w1[i] * w2);
                                }
                            } else {
                                for i in 0..g {
                                    buf[i * lb + j2] = z(lo[i], hi[g - 1 - i], w1[i] * w2);
                                }
                            }
                        }
                        None => {
                            for i in 0..g {
                                let k = k0 + i;
                                buf[i * lb + j2] = z(bin(k), bin(h - k), w1[i] * w2);
                            }
                        }
                    }
                }
                if j0 == 0 {
                    // Bin 0's Z (the only one that reads X_0 and X_h, whose
                    // imaginary parts the fast path did not drop).
                    buf[0] = z(bin(0), bin(h), self.t1[0] * self.t2[0]);
                }
            },
            |k0, rows| {
                if dst.step == 1 {
                    // Contiguous: `z_k` is the pair `x_{2k}, x_{2k+1}`, one
                    // complex store, streamed (not read again here).
                    let out = dst.ptr.get().cast::<Complex<T>>();
                    for k1 in 0..n1 {
                        for (i, r) in rows.iter().enumerate() {
                            let k = k0 + i + n2 * k1;
                            let v = Complex::new(r[k1].re * scale, r[k1].im * scale);
                            // SAFETY: elements `2k, 2k + 1 < n` of the
                            // output (`k < h`), written once (by the block
                            // of bin `k`); `Complex<T>` is two `T`s.
                            unsafe { stream(out.add(k), v) };
                        }
                    }
                    fence();
                    return;
                }
                for k1 in 0..n1 {
                    for (i, r) in rows.iter().enumerate() {
                        let k = k0 + i + n2 * k1;
                        put(2 * k, r[k1].re);
                        put(2 * k + 1, r[k1].im);
                    }
                }
            },
        )
    }
}
