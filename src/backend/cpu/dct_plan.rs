//! The eight real trigonometric transforms (DCT/DST types 1-4) of one row,
//! computed with rustfft / realfft plans from the planners of `fft.rs`; plans
//! and twiddles are cached per (algorithm, length) in one map per precision
//! behind a Mutex. Each transform yields half of SciPy's unscaled value (the
//! caller doubles and scales). The algorithms, for a row `x` of length `N`:
//!
//! - DCT-1: the real FFT of the even extension `x_0 .. x_{N-1} .. x_1`
//!   (length `2(N-1)`); half the real parts of its first `N` outputs.
//! - DST-1: the real FFT of the odd extension `0, x, 0, -reverse(x)` (length
//!   `2(N+1)`); minus half the imaginary parts of outputs `1..=N`.
//! - DCT-2: Makhoul's reordering `v = x_0, x_2, .., x_3, x_1` (evens up, odds
//!   down), one real FFT `V` of length `N`, then `y_k = Re(w_k V_k)` and
//!   `y_{N-k} = -Im(w_k V_k)` with `w_k = e^{-iπk/(2N)}`, `k <= N/2`.
//! - DCT-3: the inverse of that: `V_k = conj(w_k) (x_k - i x_{N-k})`, one
//!   complex-to-real FFT of length `N`, then the reordering undone (halved).
//! - DCT-4, even `N`: `z_j = (x_{2j} + i x_{N-1-2j}) e^{-iπj/N}`, one complex
//!   FFT `Z` of length `N/2`, then `W_k = Z_k e^{-iπ(4k+1)/(4N)}`, `y_{2k} =
//!   Re W_k`, `y_{N-1-2k} = -Im W_k`.
//! - DCT-4, odd `N`: a signed permutation of `x`, one real FFT of length `N`,
//!   and outputs read off pairs of its bins times `1/sqrt 2` (no twiddles;
//!   the algorithm of rustdct's `Type4ConvertToFftOdd`, MIT/Apache-2.0).
//! - DST-2 / DST-4: the DCT of `(-1)^j x_j`, output reversed; DST-3:
//!   `(-1)^k` times the DCT-3 of the reversed input.
//!
//! - DCT-2 / DST-2, even `N` whose `N/2` takes the four-step path, when the
//!   caller has threads to spare: `dct_long.rs` (the same `V` from a
//!   complex FFT of length `N/2`, fused with the reads and writes).
//!
//! Every path is one FFT with exactly rounded twiddles (from f64) around it,
//! so the error stays at the FFT's (about `eps log2 N` relative). Rows of
//! at most `DIRECT_MAX` elements are multiplied by the cached matrix of that
//! FFT path instead (`n` terms per output: `n eps` at most, `n <= 16`).

use super::dct_long::Dct2Long;
use super::fft::{lock, FftFloat};
use super::fft_long::LongFft;
use crate::backend::fft::TrigKind;
use crate::dtype::Element;
use num_complex::Complex;
use realfft::{ComplexToReal, FftError, RealToComplex};
use rustfft::{Fft, FftDirection};
use std::collections::HashMap;
use std::f64::consts::{FRAC_1_SQRT_2, PI};
use std::sync::{Arc, Mutex, OnceLock};

/// The cosine algorithm a transform runs (the sine types reuse them).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) enum Algo {
    Dct1,
    Dst1,
    Dct2,
    Dct3,
    Dct4,
}

/// One process-wide cache of plans per precision.
type Cache<T> = Mutex<HashMap<(Algo, usize), Arc<Plan<T>>>>;

/// A precision with a DCT plan cache (f32, f64).
pub(super) trait DctFloat: FftFloat {
    /// This precision's plan cache.
    fn cache() -> &'static Cache<Self>;
}

macro_rules! impl_dct_float {
    ($t:ty) => {
        impl DctFloat for $t {
            fn cache() -> &'static Cache<$t> {
                static C: OnceLock<Cache<$t>> = OnceLock::new();
                C.get_or_init(|| Mutex::new(HashMap::new()))
            }
        }
    };
}
impl_dct_float!(f32);
impl_dct_float!(f64);

/// The FFT (and twiddles) of one algorithm and length.
enum Inner<T> {
    Dct1(Arc<dyn RealToComplex<T>>),
    Dst1(Arc<dyn RealToComplex<T>>),
    /// The real FFT, `w_k = e^{-iπk/(2N)}` (`k <= N/2`) and the long plan
    /// of `dct_long.rs` where `N/2` takes the four-step path.
    Dct2(
        Arc<dyn RealToComplex<T>>,
        SplitTwiddle<T>,
        Option<Dct2Long<T>>,
    ),
    /// The complex-to-real FFT and `conj(w_k)`, `k <= N/2`.
    Dct3(Arc<dyn ComplexToReal<T>>, Vec<Complex<T>>),
    /// The length-`N/2` FFT, `e^{-iπj/N}` and `e^{-iπ(4k+1)/(4N)}`.
    Dct4Even(Arc<dyn Fft<T>>, Vec<Complex<T>>, Vec<Complex<T>>),
    Dct4Odd(Arc<dyn RealToComplex<T>>),
}

/// Bits of `k` that index [`SplitTwiddle`]'s low table.
const SPLIT_BITS: usize = 10;

/// `e^{iθk}` for `0 <= k <= len` as the product of two small tables,
/// `hi[k >> SPLIT_BITS] * lo[k & (2^SPLIT_BITS - 1)]` (each entry from
/// `sin_cos` in f64, rounded once): within a few units in the last place of
/// the direct value, while both tables (a few thousand entries) stay in
/// cache. The full table of a DCT-2 of 2^20 f64 is 8 MB, streamed from
/// memory on every call.
pub(super) struct SplitTwiddle<T> {
    hi: Vec<Complex<T>>,
    lo: Vec<Complex<T>>,
}

impl<T: DctFloat> SplitTwiddle<T> {
    fn new(theta: f64, len: usize) -> SplitTwiddle<T> {
        SplitTwiddle {
            hi: (0..=len >> SPLIT_BITS)
                .map(|i| cis(theta * (i << SPLIT_BITS) as f64))
                .collect(),
            lo: (0..1usize << SPLIT_BITS)
                .map(|j| cis(theta * j as f64))
                .collect(),
        }
    }

    /// `e^{iθk}`.
    #[inline]
    fn at(&self, k: usize) -> Complex<T> {
        self.hi[k >> SPLIT_BITS] * self.lo[k & ((1 << SPLIT_BITS) - 1)]
    }
}

/// One planned transform of one length `n`.
pub(super) struct Plan<T> {
    n: usize,
    inner: Inner<T>,
    /// One set of work buffers kept from a finished chunk for the next (about
    /// `4n` elements, twice the plan's twiddles). Allocating them afresh each
    /// call costs more than the FFT at large `n` (page faults: a DCT-2 of
    /// 1M f64 took 16.7 ms instead of 7.2 ms); one set per plan, not per
    /// thread, bounds what stays allocated.
    spare: Mutex<Option<Work<T>>>,
    /// For `n <= DIRECT_MAX`: the transform's `n x n` matrix (row-major,
    /// column `j` = the FFT path's transform of the unit vector `e_j`),
    /// applied directly: at such lengths a matrix product costs less than
    /// the FFT's calls and reorderings.
    direct: Option<Vec<T>>,
}

/// Longest row transformed by its cached matrix instead of the FFT path.
const DIRECT_MAX: usize = 16;

/// Buffers one thread reuses across rows: a real and a complex FFT buffer
/// and the FFT's scratch.
pub(super) struct Work<T> {
    /// The row being transformed (the caller's).
    pub(super) row: Vec<T>,
    real: Vec<T>,
    cplx: Vec<Complex<T>>,
    scratch: Vec<Complex<T>>,
}

fn zero<T: Element>() -> T {
    <T as Element>::zero()
}

fn num<T: Element>(v: f64) -> T {
    <T as Element>::from_f64(v)
}

/// `e^{i a}` rounded to `T` from f64.
fn cis<T: Element>(a: f64) -> Complex<T> {
    let (s, c) = a.sin_cos();
    Complex::new(num(c), num(s))
}

impl<T: DctFloat> Plan<T> {
    /// The cached plan for type `ty` (1..=4) of `kind` and length `n` (at
    /// least 2 for a DCT-1, 1 otherwise).
    pub(super) fn get(kind: TrigKind, ty: u8, n: usize) -> Arc<Plan<T>> {
        let algo = match (kind, ty) {
            (TrigKind::Cos, 1) => Algo::Dct1,
            (TrigKind::Sin, 1) => Algo::Dst1,
            (_, 2) => Algo::Dct2,
            (_, 3) => Algo::Dct3,
            _ => Algo::Dct4,
        };
        if let Some(p) = lock(T::cache()).get(&(algo, n)) {
            return p.clone();
        }
        let plan = Arc::new(Plan::new(algo, n));
        lock(T::cache()).entry((algo, n)).or_insert(plan).clone()
    }

    fn new(algo: Algo, n: usize) -> Plan<T> {
        let nf = n as f64;
        // Planned before the planners are locked (`LongFft::get` locks them).
        let long = (algo == Algo::Dct2 && n.is_multiple_of(2))
            .then(|| LongFft::get(n / 2, FftDirection::Forward, true))
            .flatten()
            .map(|f| Dct2Long::new(n, f));
        let mut p = lock(T::planners());
        let inner = match algo {
            Algo::Dct1 => Inner::Dct1(p.real.plan_fft_forward(2 * (n - 1))),
            Algo::Dst1 => Inner::Dst1(p.real.plan_fft_forward(2 * (n + 1))),
            Algo::Dct2 => {
                let tw = SplitTwiddle::new(-PI / (2.0 * nf), n / 2);
                Inner::Dct2(p.real.plan_fft_forward(n), tw, long)
            }
            Algo::Dct3 => {
                let tw = (0..=n / 2)
                    .map(|k| cis(PI * k as f64 / (2.0 * nf)))
                    .collect();
                Inner::Dct3(p.real.plan_fft_inverse(n), tw)
            }
            Algo::Dct4 if n.is_multiple_of(2) => {
                let m = n / 2;
                let pre = (0..m).map(|j| cis(-PI * j as f64 / nf)).collect();
                let post = (0..m)
                    .map(|k| cis(-PI * (4 * k + 1) as f64 / (4.0 * nf)))
                    .collect();
                let fft = p.complex.plan_fft_forward(m);
                Inner::Dct4Even(fft, pre, post)
            }
            Algo::Dct4 => Inner::Dct4Odd(p.real.plan_fft_forward(n)),
        };
        let mut plan = Plan {
            n,
            inner,
            spare: Mutex::new(None),
            direct: None,
        };
        if n <= DIRECT_MAX {
            let mut w = plan.work();
            let mut mat = vec![zero(); n * n];
            let mut ok = true;
            for j in 0..n {
                let mut e = vec![zero(); n];
                e[j] = <T as Element>::one();
                ok &= plan.inner_row(&mut e, &mut w).is_ok();
                for (k, &v) in e.iter().enumerate() {
                    mat[k * n + j] = v;
                }
            }
            plan.direct = ok.then_some(mat);
        }
        plan
    }

    /// The long DCT-2 of `dct_long.rs`, where this plan has one (a DCT-2 or
    /// DST-2 of even length whose half takes the four-step path).
    pub(super) fn long_dct2(&self) -> Option<&Dct2Long<T>> {
        match &self.inner {
            Inner::Dct2(_, _, long) => long.as_ref(),
            _ => None,
        }
    }

    /// Buffers sized for this plan (one set per thread): a spare set, or a
    /// new one.
    pub(super) fn work(&self) -> Work<T> {
        if let Some(w) = lock(&self.spare).take() {
            return w;
        }
        let n = self.n;
        let (real, cplx, scratch) = match &self.inner {
            Inner::Dct1(f) => (2 * (n - 1), n, f.get_scratch_len()),
            Inner::Dst1(f) => (2 * (n + 1), n + 2, f.get_scratch_len()),
            Inner::Dct2(f, ..) | Inner::Dct4Odd(f) => (n, n / 2 + 1, f.get_scratch_len()),
            Inner::Dct3(f, _) => (n, n / 2 + 1, f.get_scratch_len()),
            Inner::Dct4Even(f, ..) => (0, n / 2, f.get_inplace_scratch_len()),
        };
        let c0 = Complex::new(zero(), zero());
        Work {
            row: vec![zero(); n],
            real: vec![zero(); real],
            cplx: vec![c0; cplx],
            scratch: vec![c0; scratch],
        }
    }

    /// Keep `w` for a later chunk or call, unless a set is kept already.
    pub(super) fn give_back(&self, w: Work<T>) {
        lock(&self.spare).get_or_insert(w);
    }

    /// Half of SciPy's unscaled transform of type `ty` and `kind` (the one
    /// this plan was made for) of `buf` (length `n`), in place.
    pub(super) fn process(&self, kind: TrigKind, ty: u8, w: &mut Work<T>) -> Result<(), FftError> {
        let mut row = std::mem::take(&mut w.row);
        let r = self.process_row(kind, ty, &mut row, w);
        w.row = row;
        r
    }

    fn process_row(
        &self,
        kind: TrigKind,
        ty: u8,
        buf: &mut [T],
        w: &mut Work<T>,
    ) -> Result<(), FftError> {
        debug_assert_eq!(buf.len(), self.n);
        // The sine types 2-4 run the cosine algorithms.
        let sin = kind == TrigKind::Sin && ty != 1;
        if sin && ty != 3 {
            buf.iter_mut().skip(1).step_by(2).for_each(|v| *v = -*v);
        }
        if sin && ty == 3 {
            buf.reverse();
        }
        if let Some(mat) = &self.direct {
            let n = buf.len();
            let mut x = [zero::<T>(); DIRECT_MAX];
            x[..n].copy_from_slice(buf);
            for (y, row) in buf.iter_mut().zip(mat.chunks_exact(n)) {
                *y = row
                    .iter()
                    .zip(&x[..n])
                    .fold(zero(), |acc: T, (&a, &b)| acc + a * b);
            }
        } else {
            self.inner_row(buf, w)?;
        }
        if sin && ty != 3 {
            buf.reverse();
        }
        if sin && ty == 3 {
            buf.iter_mut().skip(1).step_by(2).for_each(|v| *v = -*v);
        }
        Ok(())
    }

    /// The cosine algorithm of this plan on `buf`, by its FFT.
    fn inner_row(&self, buf: &mut [T], w: &mut Work<T>) -> Result<(), FftError> {
        match &self.inner {
            Inner::Dct1(f) => dct1(f.as_ref(), buf, w)?,
            Inner::Dst1(f) => dst1(f.as_ref(), buf, w)?,
            Inner::Dct2(f, tw, _) => dct2(f.as_ref(), tw, buf, w)?,
            Inner::Dct3(f, tw) => dct3(f.as_ref(), tw, buf, w)?,
            Inner::Dct4Even(f, pre, post) => dct4_even(f.as_ref(), pre, post, buf, w),
            Inner::Dct4Odd(f) => dct4_odd(f.as_ref(), buf, w)?,
        }
        Ok(())
    }
}

fn dct1<T: DctFloat>(
    f: &dyn RealToComplex<T>,
    buf: &mut [T],
    w: &mut Work<T>,
) -> Result<(), FftError> {
    let n = buf.len();
    let (head, tail) = w.real.split_at_mut(n);
    head.copy_from_slice(buf);
    for (d, &s) in tail.iter_mut().zip(buf[1..n - 1].iter().rev()) {
        *d = s;
    }
    f.process_with_scratch(&mut w.real, &mut w.cplx, &mut w.scratch)?;
    let half = num(0.5);
    for (y, c) in buf.iter_mut().zip(&w.cplx) {
        *y = c.re * half;
    }
    Ok(())
}

fn dst1<T: DctFloat>(
    f: &dyn RealToComplex<T>,
    buf: &mut [T],
    w: &mut Work<T>,
) -> Result<(), FftError> {
    let n = buf.len();
    w.real[0] = zero();
    w.real[n + 1] = zero();
    let (head, tail) = w.real.split_at_mut(n + 2);
    head[1..=n].copy_from_slice(buf);
    for (d, &s) in tail.iter_mut().zip(buf.iter().rev()) {
        *d = -s;
    }
    f.process_with_scratch(&mut w.real, &mut w.cplx, &mut w.scratch)?;
    let half = num(-0.5);
    for (y, c) in buf.iter_mut().zip(&w.cplx[1..]) {
        *y = c.im * half;
    }
    Ok(())
}

fn dct2<T: DctFloat>(
    f: &dyn RealToComplex<T>,
    tw: &SplitTwiddle<T>,
    buf: &mut [T],
    w: &mut Work<T>,
) -> Result<(), FftError> {
    let n = buf.len();
    let (evens, odds) = w.real.split_at_mut(n.div_ceil(2));
    for (d, &v) in evens.iter_mut().zip(buf.iter().step_by(2)) {
        *d = v;
    }
    for (d, &v) in odds.iter_mut().rev().zip(buf.iter().skip(1).step_by(2)) {
        *d = v;
    }
    f.process_with_scratch(&mut w.real, &mut w.cplx, &mut w.scratch)?;
    buf[0] = w.cplx[0].re;
    for k in 1..=n / 2 {
        let z = tw.at(k) * w.cplx[k];
        buf[k] = z.re;
        if n - k != k {
            buf[n - k] = -z.im;
        }
    }
    Ok(())
}

fn dct3<T: DctFloat>(
    f: &dyn ComplexToReal<T>,
    tw: &[Complex<T>],
    buf: &mut [T],
    w: &mut Work<T>,
) -> Result<(), FftError> {
    let n = buf.len();
    for (k, (c, &t)) in w.cplx.iter_mut().zip(tw).enumerate() {
        let hi = if k == 0 { zero() } else { buf[n - k] };
        *c = t * Complex::new(buf[k], -hi);
    }
    // Exactly real in theory (k = 0, and k = N/2 for even N); realfft asks
    // for zeros there.
    w.cplx[0].im = zero();
    if n.is_multiple_of(2) {
        w.cplx[n / 2].im = zero();
    }
    f.process_with_scratch(&mut w.cplx, &mut w.real, &mut w.scratch)?;
    let half = num(0.5);
    let (evens, odds) = w.real.split_at(n.div_ceil(2));
    for (y, &v) in buf.iter_mut().step_by(2).zip(evens) {
        *y = v * half;
    }
    for (y, &v) in buf.iter_mut().skip(1).step_by(2).zip(odds.iter().rev()) {
        *y = v * half;
    }
    Ok(())
}

fn dct4_even<T: DctFloat>(
    f: &dyn Fft<T>,
    pre: &[Complex<T>],
    post: &[Complex<T>],
    buf: &mut [T],
    w: &mut Work<T>,
) {
    let n = buf.len();
    for (j, (c, &t)) in w.cplx.iter_mut().zip(pre).enumerate() {
        *c = t * Complex::new(buf[2 * j], buf[n - 1 - 2 * j]);
    }
    f.process_with_scratch(&mut w.cplx, &mut w.scratch);
    for (k, (c, &t)) in w.cplx.iter().zip(post).enumerate() {
        let z = t * *c;
        buf[2 * k] = z.re;
        buf[n - 1 - 2 * k] = -z.im;
    }
}

fn dct4_odd<T: DctFloat>(
    f: &dyn RealToComplex<T>,
    buf: &mut [T],
    w: &mut Work<T>,
) -> Result<(), FftError> {
    let n = buf.len();
    let (half, quarter) = (n / 2, n / 4);
    // Input `t mod N` for `t = N/2 + 4f`, signed and mirrored by `t / N`
    // (0..=4), stepped without divisions.
    let (mut j, mut phase) = (half, 0);
    for d in w.real.iter_mut() {
        *d = match phase {
            1 => -buf[n - 1 - j],
            2 => -buf[j],
            3 => buf[n - 1 - j],
            _ => buf[j],
        };
        j += 4;
        while j >= n {
            j -= n;
            phase += 1;
        }
    }
    f.process_with_scratch(&mut w.real, &mut w.cplx, &mut w.scratch)?;
    // Bin k of the full spectrum (real input: Hermitian).
    let c = &w.cplx;
    let bin = |k: usize| if k <= half { c[k] } else { c[n - k].conj() };
    let s: T = num(FRAC_1_SQRT_2);
    let second: T = num(if n % 4 == 1 { 1.0 } else { -1.0 });
    let mut sign = s;
    for i in 0..quarter {
        let a = bin(4 * i + 1) * sign;
        let b = bin(4 * i + 3) * sign;
        buf[2 * i] = a.re + a.im;
        buf[2 * i + 1] = b.im - b.re;
        buf[n - 2 * i - 2] = (b.re + b.im) * second;
        buf[n - 2 * i - 1] = (a.re - a.im) * second;
        sign = -sign;
    }
    if n % 4 == 1 {
        buf[half] = bin(0).re * sign;
    } else {
        let a = bin(n - 2) * sign;
        buf[half - 1] = a.re + a.im;
        buf[half + 1] = a.im - a.re;
        buf[half] = -(bin(0).re * sign);
    }
    Ok(())
}
