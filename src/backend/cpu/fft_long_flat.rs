//! The contiguous fast path of the four-step FFT (`fft_long.rs`): a complex
//! input and output that are each one run of `n` elements. Pass 1's column
//! blocks are gathered from the input as slices of `G` elements per row,
//! the rows ahead prefetched; pass 2's row blocks are written out
//! transposed as runs of `G` consecutive bins per `k1`, with streaming
//! stores where the CPU has them (the output is not read again here).
//! Also the prefetch, streaming-store and fence helpers that pass 1 of
//! `fft_long.rs` uses for its work matrix.

use super::fft::FftFloat;
use super::fft_long::LongFft;
use super::strided::SendPtr;
use crate::error::Result;
use num_complex::Complex;

/// Rows of the input prefetched ahead of pass 1's gather (measured: 4 to
/// 16 alike, none about 10% slower on `fft_c64_1M`).
const AHEAD: usize = 8;

/// Prefetch (into all cache levels) the cache lines of `len` elements from
/// `p`; `p` need not point into an allocation (a prefetch never faults).
#[inline(always)]
pub(super) fn prefetch<T>(p: *const T, len: usize) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let bytes = len * size_of::<T>();
        let b = p.cast::<i8>();
        let mut o = 0;
        while o < bytes {
            // SAFETY: a prefetch is a hint: it reads nothing architecturally
            // and never faults, whatever the address.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(b.wrapping_add(o)) };
            o += 64;
        }
        // SAFETY: as above.
        unsafe { _mm_prefetch::<_MM_HINT_T0>(b.wrapping_add(bytes - 1)) };
    }
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    let _ = (p, len);
}

/// Store `v` at `p` with a streaming (non-temporal) store where the target
/// has one for the element's size and `p`'s alignment (else a plain
/// store): the line goes to memory without being read first, and evicts
/// nothing from the caches.
///
/// # Safety
/// `p` is valid for a write of one element that nothing else touches
/// during the call. The writing thread must run [`fence`] before another
/// thread reads what it stored.
#[inline(always)]
pub(super) unsafe fn stream<T: FftFloat>(p: *mut Complex<T>, v: Complex<T>) {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        use std::arch::x86_64::{_mm_loadu_pd, _mm_stream_pd, _mm_stream_si64};
        if size_of::<Complex<T>>() == 16 && (p as usize).is_multiple_of(16) {
            // SAFETY: `v` is 16 bytes (two f64) read unaligned from the
            // stack; `p` is 16-byte aligned and valid for 16 bytes written
            // (the caller's contract).
            unsafe { _mm_stream_pd(p.cast(), _mm_loadu_pd((&raw const v).cast())) };
            return;
        }
        if size_of::<Complex<T>>() == 8 {
            // SAFETY: `v` is 8 bytes, read as one i64 (unaligned); `p` is
            // valid for 8 bytes written (the caller's contract), and
            // `movnti` takes any alignment.
            unsafe { _mm_stream_si64(p.cast(), (&raw const v).cast::<i64>().read_unaligned()) };
            return;
        }
    }
    // SAFETY: the caller's contract.
    unsafe { p.write(v) };
}

/// Order this thread's streaming stores before its later stores (and so
/// before the pool's completion signal): an `sfence` where they exist.
#[inline(always)]
pub(super) fn fence() {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    // SAFETY: `sfence` has no operands and no preconditions.
    unsafe {
        std::arch::x86_64::_mm_sfence()
    };
}

impl<T: FftFloat> LongFft<T> {
    /// The transform of the contiguous `x` (`x.len() >= n`: the first `n`
    /// elements) into the contiguous `n` elements at `out`, times `scale`.
    ///
    /// # Safety
    /// `out` is valid for `n` elements written, which no other thread
    /// touches during the call and which do not overlap `x`.
    pub(super) unsafe fn process_flat(
        &self,
        x: &[Complex<T>],
        out: SendPtr<Complex<T>>,
        scale: Option<T>,
    ) -> Result<()> {
        let (n1, n2) = self.dims();
        let n = n1 * n2;
        let x = &x[..n];
        self.process_blocks(
            |blk, buf, lb| {
                let (j0, g) = (blk.j0, blk.g);
                for j2 in 0..n2 {
                    if j2 + AHEAD < n2 {
                        prefetch(x[j0 + n1 * (j2 + AHEAD)..].as_ptr(), g);
                    }
                    let src = &x[j0 + n1 * j2..][..g];
                    for (i, &v) in src.iter().enumerate() {
                        buf[i * lb + j2] = v;
                    }
                }
            },
            |k0, rows| {
                let s = scale.unwrap_or(<T as crate::dtype::Element>::one());
                for k1 in 0..n1 {
                    let dst = out.get().wrapping_add(k0 + n2 * k1);
                    for (i, r) in rows.iter().enumerate() {
                        let mut v = r[k1];
                        if scale.is_some() {
                            v = Complex::new(v.re * s, v.im * s);
                        }
                        // SAFETY: bin `k0 + i + n2 k1 < n` of `out`
                        // (`k0 + i < n2`, `k1 < n1`), handed out once by
                        // `process_blocks`; the caller's contract for the rest.
                        unsafe { stream(dst.add(i), v) };
                    }
                }
                fence();
            },
        )
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;
    use crate::dtype::Element;
    use rustfft::FftDirection;
    use std::sync::Mutex;

    fn input<T: FftFloat>(n: usize) -> Vec<Complex<T>> {
        (0..n)
            .map(|j| {
                let t = j as f64;
                let c = |v: f64| <T as Element>::from_f64(v);
                Complex::new(c((t * 0.37).sin() + 0.1 * t / n as f64), c((t * 1.3).cos()))
            })
            .collect()
    }

    /// The general path: [`LongFft::process`] through per-element closures.
    fn general<T: FftFloat>(p: &LongFft<T>, x: &[Complex<T>], scale: Option<T>) -> Vec<Complex<T>> {
        let (n1, n2) = p.dims();
        let out = Mutex::new(vec![
            Complex::new(
                <T as Element>::zero(),
                <T as Element>::zero()
            );
            n1 * n2
        ]);
        p.process(
            |j| x[j],
            |k, v| {
                let v = scale.map_or(v, |s| Complex::new(v.re * s, v.im * s));
                out.lock().unwrap()[k] = v;
            },
        )
        .expect("work matrix");
        out.into_inner().unwrap()
    }

    fn flat<T: FftFloat>(p: &LongFft<T>, x: &[Complex<T>], scale: Option<T>) -> Vec<Complex<T>> {
        let (n1, n2) = p.dims();
        // A marker in every bin: each must be overwritten.
        let mut out =
            vec![Complex::new(<T as Element>::from_f64(7e7), <T as Element>::zero()); n1 * n2 + 1];
        // SAFETY: `out` holds `n1 * n2` elements (and one more, a guard),
        // owned here, apart from `x`.
        unsafe { p.process_flat(x, SendPtr(out.as_mut_ptr()), scale) }.expect("work matrix");
        assert_eq!(
            out[n1 * n2].re,
            <T as Element>::from_f64(7e7),
            "wrote past the end"
        );
        out.truncate(n1 * n2);
        out
    }

    fn check<T: FftFloat>(what: &str) {
        for &(n1, n2) in &crate::backend::cpu::fft_long::tests::SPLITS {
            let n = n1 * n2;
            // Longer than `n`: the flat path reads the first `n` only.
            let x = input::<T>(n + 3);
            for dir in [FftDirection::Forward, FftDirection::Inverse] {
                let p = LongFft::<T>::new(n1, n2, dir);
                for scale in [None, Some(<T as Element>::from_f64(0.25))] {
                    let want = general(&p, &x[..n], scale);
                    let got = flat(&p, &x, scale);
                    assert!(
                        got == want,
                        "{what} {n1}x{n2} {dir:?} {scale:?}: flat path differs"
                    );
                }
                // And the DFT's first bins directly (the general path is
                // checked against the direct DFT in `fft_long.rs`).
                let got = flat(&p, &x, None);
                let sign = if dir == FftDirection::Forward {
                    -1.0
                } else {
                    1.0
                };
                for k in [0, 1, n / 2, n - 1] {
                    let mut want = Complex::new(0.0, 0.0);
                    for (j, v) in x[..n].iter().enumerate() {
                        let a = sign * 2.0 * std::f64::consts::PI * ((j * k) % n) as f64 / n as f64;
                        want += Complex::new(Element::to_f64(v.re), Element::to_f64(v.im))
                            * Complex::new(a.cos(), a.sin());
                    }
                    let g = Complex::new(Element::to_f64(got[k].re), Element::to_f64(got[k].im));
                    let tol = if size_of::<T>() == 8 { 1e-12 } else { 1e-4 } * n as f64;
                    assert!(
                        (g - want).norm() < tol,
                        "{what} {n1}x{n2} bin {k}: {g} vs {want}"
                    );
                }
            }
        }
    }

    /// [`LongFft::process_flat`] gives the same bits as the general
    /// [`LongFft::process`] (splits with partial blocks, 1 and prime
    /// sizes; forward and inverse; scaled or not; an input longer than
    /// `n`), writes every bin and nothing past them, and matches the DFT.
    pub(crate) fn flat_matches_general_path() {
        check::<f64>("f64");
        check::<f32>("f32");
    }
}
