//! Lane kernels of the long transforms, compiled once per SIMD level: the
//! twiddle multiply of the four-step FFT's pass 1 (`fft_long.rs`), the
//! four-output post-processing ("quads") of the fused DCT-2's pass 2
//! (`dct_long.rs`) and the two-bin post-processing ("pairs") of the long
//! real FFT's pass 2 (`fft_real_long.rs`). Each is written over fixed groups of `L` lanes held in
//! local arrays, which LLVM turns into vector code inside the
//! `target_feature` functions of [`dispatch`] (AVX2+FMA or AVX-512 at the
//! level of `elementwise::simd::isa`, which `RNX_SIMD` caps). The lanes keep
//! the scalar code's operations and their order (Rust never fuses a multiply
//! and an add on its own), so every level gives the same bits.

use super::elementwise::simd::{isa, Isa};
use super::fft::FftFloat;
use super::strided::SendPtr;
use crate::dtype::Element;
use num_complex::Complex;

/// Lanes per group.
pub(super) const L: usize = 8;

/// Calls `$body` (an `#[inline(always)]` kernel) with the arguments given,
/// compiled inside a `target_feature` function of this process's level.
macro_rules! at_level {
    (<$($g:ident: $b:path),*> ($($a:ident: $t:ty = $v:expr),*) $body:path) => {{
        #[cfg(all(target_arch = "x86_64", not(miri)))]
        {
            #[target_feature(enable = "avx2,fma")]
            unsafe fn avx2<$($g: $b),*>($($a: $t),*) {
                $body($($a),*)
            }
            #[target_feature(enable = "avx512f,avx512bw,avx512dq,avx512vl,avx2,fma")]
            unsafe fn avx512<$($g: $b),*>($($a: $t),*) {
                $body($($a),*)
            }
            match isa() {
                // SAFETY: the CPU has AVX-512 F/BW/DQ/VL, AVX2 and FMA
                // (`isa` never exceeds what the hardware reports), and the
                // kernel's own contract is the caller's.
                Isa::Avx512 => return unsafe { avx512($($v),*) },
                // SAFETY: as above, AVX2 and FMA.
                Isa::Avx2 => return unsafe { avx2($($v),*) },
                Isa::Portable => {}
            }
        }
        $body($($v),*)
    }};
}

/// `a * b` as num-complex computes it (the same operations, same order).
#[inline(always)]
fn cmul<T: FftFloat>(ar: T, ai: T, br: T, bi: T) -> (T, T) {
    (ar * br - ai * bi, ar * bi + ai * br)
}

/// `[f(0), .., f(L - 1)]` for lanes of `T`, as a loop over constant
/// bounds that LLVM unrolls and vectorises (kept in registers).
macro_rules! lanes {
    ($t:ty, |$l:ident| $e:expr) => {{
        let mut r = [<$t as Element>::zero(); L];
        for $l in 0..L {
            r[$l] = $e;
        }
        r
    }};
}

/// [`cmul`] lane by lane.
#[inline(always)]
fn vcmul<T: FftFloat>(ar: [T; L], ai: [T; L], br: [T; L], bi: [T; L]) -> ([T; L], [T; L]) {
    (
        lanes!(T, |l| ar[l] * br[l] - ai[l] * bi[l]),
        lanes!(T, |l| ar[l] * bi[l] + ai[l] * br[l]),
    )
}

/// Pass 1's twiddles: `r[k2] *= hi[q] * lo[rr]` with `q n1 + rr = j1 k2 mod
/// n1 n2` (`hi.len() == n2 >= r.len()`, `lo.len() == n1`), at this
/// process's SIMD level.
pub(super) fn twiddle_column<T: FftFloat>(
    r: &mut [Complex<T>],
    j1: usize,
    hi: &[Complex<T>],
    lo: &[Complex<T>],
) {
    at_level!(<T: FftFloat> (r: &mut [Complex<T>] = r, j1: usize = j1, hi: &[Complex<T>] = hi, lo: &[Complex<T>] = lo) twiddle_body)
}

#[inline(always)]
fn twiddle_body<T: FftFloat>(
    r: &mut [Complex<T>],
    j1: usize,
    hi: &[Complex<T>],
    lo: &[Complex<T>],
) {
    let (n1, n2) = (lo.len(), hi.len());
    let (mut q, mut rr) = (0, 0);
    let next = |q: &mut usize, rr: &mut usize| {
        *rr += j1;
        if *rr >= n1 {
            *rr -= n1;
            *q += 1;
            if *q == n2 {
                *q = 0;
            }
        }
    };
    let mut chunks = r.chunks_exact_mut(L);
    for c in &mut chunks {
        let mut w = [(<T as Element>::zero(), <T as Element>::zero()); L];
        for wl in &mut w {
            let (h, o) = (hi[q], lo[rr]);
            *wl = cmul(h.re, h.im, o.re, o.im);
            next(&mut q, &mut rr);
        }
        for (v, &(wr, wi)) in c.iter_mut().zip(&w) {
            let (re, im) = cmul(v.re, v.im, wr, wi);
            *v = Complex::new(re, im);
        }
    }
    for v in chunks.into_remainder() {
        *v = *v * (hi[q] * lo[rr]);
        next(&mut q, &mut rr);
    }
}

/// The even and odd parts of the pairs of lanes `l`, `Z_k = ra[l][k1]` and
/// `Z_{h-k} = rb[l][n1 - 1 - k1]` (`n1` the rows' length): `E = (Z_k + conj
/// Z_{h-k}) / 2` and `O = (Z_k - conj Z_{h-k}) / 2i`, as `[E.re, E.im,
/// O.re, O.im]` (the operations and order of the scalar code of
/// `dct_long.rs` and `fft_real_long.rs`).
#[inline(always)]
fn even_odd<T: FftFloat>(
    ra: &[&[Complex<T>]; L],
    rb: &[&[Complex<T>]; L],
    k1: usize,
    half: T,
) -> [[T; L]; 4] {
    let n1 = ra[0].len();
    let zkr = lanes!(T, |l| ra[l][k1].re);
    let zki = lanes!(T, |l| ra[l][k1].im);
    let zcr = lanes!(T, |l| rb[l][n1 - 1 - k1].re);
    let zci = lanes!(T, |l| -rb[l][n1 - 1 - k1].im);
    let dr = lanes!(T, |l| zkr[l] - zcr[l]);
    let di = lanes!(T, |l| zki[l] - zci[l]);
    [
        lanes!(T, |l| (zkr[l] + zcr[l]) * half),
        lanes!(T, |l| (zki[l] + zci[l]) * half),
        lanes!(T, |l| di[l] * half),
        lanes!(T, |l| -dr[l] * half),
    ]
}

/// Where pass 2 of the fused DCT-2 writes: output `k` at `ptr + k * step`,
/// times `scale`.
#[derive(Clone, Copy)]
pub(super) struct Out<T> {
    pub(super) ptr: SendPtr<T>,
    pub(super) step: isize,
    pub(super) scale: T,
}

impl<T: FftFloat> Out<T> {
    /// Outputs `k + d l` (`d = ±1`) for lanes `l < L` from `v[l]`.
    ///
    /// # Safety
    /// Every output written must be writable and touched by nothing else
    /// during the call.
    #[inline(always)]
    unsafe fn run(&self, k: usize, d: isize, v: [T; L]) {
        let e = self.step * d;
        let p = self.ptr.get().wrapping_offset(k as isize * self.step);
        if e == 1 {
            for (l, &y) in v.iter().enumerate() {
                // SAFETY: output `k + d l`, by the caller's contract.
                unsafe { *p.add(l) = y * self.scale };
            }
        } else if e == -1 {
            let p = p.wrapping_sub(L - 1);
            for l in 0..L {
                // SAFETY: output `k + d (L - 1 - l)`, as above.
                unsafe { *p.add(l) = v[L - 1 - l] * self.scale };
            }
        } else {
            for (l, &y) in v.iter().enumerate() {
                // SAFETY: output `k + d l`, as above.
                unsafe { *p.offset(l as isize * e) = y * self.scale };
            }
        }
    }
}

/// The twiddles and sizes of one fused DCT-2 (see `dct_long.rs`).
pub(super) struct QuadTw<'a, T> {
    /// The DCT length `n`.
    pub(super) n: usize,
    /// The row length `n2` of the four-step split.
    pub(super) n2: usize,
    /// `w_{n2 k1}` and `w'_{n2 k1}`, `k1 < n1`.
    pub(super) wa: &'a [Complex<T>],
    pub(super) wb: &'a [Complex<T>],
    /// `w_{k2}` and `w'_{k2}`.
    pub(super) row: &'a [(Complex<T>, Complex<T>)],
}

/// Pass 2's quads of the rows `k2 = k0 + i` (`i` in `i0..i1`) for every
/// `k1 < n1`: `Z_k = a[i][k1]`, `Z_{h-k} = b[i][n1 - 1 - k1]` (the pairs of
/// `dct_long.rs`, `k = k2 + n2 k1`), outputs `k`, `n - k`, `h - k`, `h + k`
/// written to `out`. Groups of `L` rows run in lanes; the rest go to
/// `scalar(i, k1)`.
///
/// # Safety
/// The outputs of these quads must be writable through `out` and touched by
/// nothing else during the call.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn quads<T: FftFloat, F: Fn(usize, usize)>(
    tw: &QuadTw<T>,
    out: Out<T>,
    k0: usize,
    rows: (usize, usize),
    a: &[&[Complex<T>]],
    b: &[&[Complex<T>]],
    hs: (T, T),
    scalar: F,
) {
    at_level!(<T: FftFloat, F: Fn(usize, usize)> (
        tw: &QuadTw<T> = tw,
        out: Out<T> = out,
        k0: usize = k0,
        rows: (usize, usize) = rows,
        a: &[&[Complex<T>]] = a,
        b: &[&[Complex<T>]] = b,
        hs: (T, T) = hs,
        scalar: F = scalar
    ) quads_body)
}

/// The body of [`quads`].
///
/// # Safety
/// As [`quads`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn quads_body<T: FftFloat, F: Fn(usize, usize)>(
    tw: &QuadTw<T>,
    out: Out<T>,
    k0: usize,
    (i0, i1): (usize, usize),
    a: &[&[Complex<T>]],
    b: &[&[Complex<T>]],
    (half, s): (T, T),
    scalar: F,
) {
    let n1 = tw.wa.len();
    let (n, h, n2) = (tw.n, tw.n / 2, tw.n2);
    let groups = (i1 - i0) / L;
    let (wa, wb) = (&tw.wa[..n1], &tw.wb[..n1]);
    for gi in 0..groups {
        let ib = i0 + gi * L;
        let ra: [&[Complex<T>]; L] = std::array::from_fn(|l| &a[ib + l][..n1]);
        let rb: [&[Complex<T>]; L] = std::array::from_fn(|l| &b[ib + l][..n1]);
        let wr: [(Complex<T>, Complex<T>); L] = std::array::from_fn(|l| tw.row[k0 + ib + l]);
        let w0r = lanes!(T, |l| wr[l].0.re);
        let w0i = lanes!(T, |l| wr[l].0.im);
        let w1r = lanes!(T, |l| wr[l].1.re);
        let w1i = lanes!(T, |l| wr[l].1.im);
        for k1 in 0..n1 {
            let (wa, wb) = (wa[k1], wb[k1]);
            let [er, ei, or, oi] = even_odd(&ra, &rb, k1, half);
            let (tar, tai) = vcmul([wa.re; L], [wa.im; L], w0r, w0i);
            let (ar, ai) = vcmul(tar, tai, er, ei);
            let (tbr, tbi) = vcmul([wb.re; L], [wb.im; L], w1r, w1i);
            let (br, bi) = vcmul(tbr, tbi, or, oi);
            let y0 = lanes!(T, |l| ar[l] + br[l]);
            let y1 = lanes!(T, |l| -(ai[l] + bi[l]));
            let y2 = lanes!(T, |l| ((ar[l] - br[l]) - (ai[l] - bi[l])) * s);
            let y3 = lanes!(T, |l| ((ar[l] - br[l]) + (ai[l] - bi[l])) * s);
            let k = k0 + ib + n2 * k1;
            // SAFETY: the quads' outputs, by the caller's contract.
            unsafe {
                out.run(k, 1, y0);
                out.run(n - k, -1, y1);
                out.run(h - k, -1, y2);
                out.run(h + k, 1, y3);
            }
        }
    }
    for k1 in 0..n1 {
        for i in i0 + groups * L..i1 {
            scalar(i, k1);
        }
    }
}

/// Where pass 2 of the long real FFT writes: bin `k` at `ptr + k * step`,
/// its real part times `scale` and its imaginary part times `scale_im`
/// (`-scale` conjugates).
#[derive(Clone, Copy)]
pub(super) struct Bins<T> {
    pub(super) ptr: SendPtr<Complex<T>>,
    pub(super) step: isize,
    pub(super) scale: T,
    pub(super) scale_im: T,
}

impl<T: FftFloat> Bins<T> {
    /// Bins `k + d l` (`d = ±1`) for lanes `l < L` from `re[l]`, `im[l]`.
    ///
    /// # Safety
    /// Every bin written must be writable and touched by nothing else
    /// during the call.
    #[inline(always)]
    unsafe fn run(&self, k: usize, d: isize, re: [T; L], im: [T; L]) {
        let e = self.step * d;
        let p = self.ptr.get().wrapping_offset(k as isize * self.step);
        let z = |l: usize| Complex::new(re[l] * self.scale, im[l] * self.scale_im);
        if e == 1 {
            for l in 0..L {
                // SAFETY: bin `k + d l`, by the caller's contract.
                unsafe { *p.add(l) = z(l) };
            }
        } else if e == -1 {
            let p = p.wrapping_sub(L - 1);
            for l in 0..L {
                // SAFETY: bin `k + d (L - 1 - l)`, as above.
                unsafe { *p.add(l) = z(L - 1 - l) };
            }
        } else {
            for l in 0..L {
                // SAFETY: bin `k + d l`, as above.
                unsafe { *p.offset(l as isize * e) = z(l) };
            }
        }
    }
}

/// The twiddles of one long real FFT's pass 2 (see `fft_real_long.rs`).
pub(super) struct PairTw<'a, T> {
    /// Half the transform length (`h = n / 2`, the complex FFT's).
    pub(super) h: usize,
    /// The row length `n2` of the four-step split of `h`.
    pub(super) n2: usize,
    /// `W^{n2 k1}`, `k1 < n1`.
    pub(super) t1: &'a [Complex<T>],
    /// `W^{k2}`, `k2 < n2`.
    pub(super) t2: &'a [Complex<T>],
}

/// Pass 2's bin pairs of a long real FFT for the rows `k2 = k0 + i` (`i` in
/// `i0..i1`) and every `k1 < n1`: from `Z_k = a[i][k1]` and `Z_{h-k} =
/// b[i][n1 - 1 - k1]` (`k = k2 + n2 k1`), `E = (Z_k + conj Z_{h-k}) / 2`,
/// `O = W^k (Z_k - conj Z_{h-k}) / 2i`, bin `k` = `E + O` and bin `h - k` =
/// `conj(E - O)`, written through `out`. Groups of `L` rows run in lanes
/// (the scalar operations and order of `fft_real_long.rs`); the rest go to
/// `scalar(i, k1)`.
///
/// # Safety
/// The bins of these pairs must be writable through `out` and
/// touched by nothing else during the call.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn pairs<T: FftFloat, F: Fn(usize, usize)>(
    tw: &PairTw<T>,
    out: Bins<T>,
    k0: usize,
    rows: (usize, usize),
    a: &[&[Complex<T>]],
    b: &[&[Complex<T>]],
    half: T,
    scalar: F,
) {
    at_level!(<T: FftFloat, F: Fn(usize, usize)> (
        tw: &PairTw<T> = tw,
        out: Bins<T> = out,
        k0: usize = k0,
        rows: (usize, usize) = rows,
        a: &[&[Complex<T>]] = a,
        b: &[&[Complex<T>]] = b,
        half: T = half,
        scalar: F = scalar
    ) pairs_body)
}

/// The body of [`pairs`].
///
/// # Safety
/// As [`pairs`].
#[inline(always)]
#[allow(clippy::too_many_arguments)]
unsafe fn pairs_body<T: FftFloat, F: Fn(usize, usize)>(
    tw: &PairTw<T>,
    out: Bins<T>,
    k0: usize,
    (i0, i1): (usize, usize),
    a: &[&[Complex<T>]],
    b: &[&[Complex<T>]],
    half: T,
    scalar: F,
) {
    let n1 = tw.t1.len();
    let (h, n2) = (tw.h, tw.n2);
    let groups = (i1 - i0) / L;
    for gi in 0..groups {
        let ib = i0 + gi * L;
        let ra: [&[Complex<T>]; L] = std::array::from_fn(|l| &a[ib + l][..n1]);
        let rb: [&[Complex<T>]; L] = std::array::from_fn(|l| &b[ib + l][..n1]);
        let w2r = lanes!(T, |l| tw.t2[k0 + ib + l].re);
        let w2i = lanes!(T, |l| tw.t2[k0 + ib + l].im);
        for (k1, w1) in tw.t1.iter().enumerate() {
            let [er, ei, pr, pi] = even_odd(&ra, &rb, k1, half);
            let (wr, wi) = vcmul([w1.re; L], [w1.im; L], w2r, w2i);
            let (or, oi) = vcmul(wr, wi, pr, pi);
            let k = k0 + ib + n2 * k1;
            // SAFETY: the pairs' bins, by the caller's contract.
            unsafe {
                let (xr, xi) = (lanes!(T, |l| er[l] + or[l]), lanes!(T, |l| ei[l] + oi[l]));
                out.run(k, 1, xr, xi);
                let (mr, mi) = (
                    lanes!(T, |l| er[l] - or[l]),
                    lanes!(T, |l| -(ei[l] - oi[l])),
                );
                out.run(h - k, -1, mr, mi);
            }
        }
    }
    for k1 in 0..n1 {
        for i in i0 + groups * L..i1 {
            scalar(i, k1);
        }
    }
}
