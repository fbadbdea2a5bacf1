//! 1-D signal correlation and convolution of two 1-D tensors (NumPy's
//! `np.correlate` / `np.convolve`, Nx's `correlate` / `convolve`) with modes
//! full / same / valid: option types, the NumPy output windows (including the
//! case where the second operand is the longer one), and two methods that
//! compose existing ops: direct (a batched [`Tensor::correlate1d`] over
//! overlapping chunks of the padded input: exact for integers) and FFT
//! (SciPy's `fftconvolve`: `rfft`/`fft`, a product, the inverse, a slice).
//!
//! The 2-D/N-channel `correlate1d`/`convolve1d` of `src/ops/conv.rs` are
//! different functions (batched, channels, stride, dilation; no conjugation
//! and no operand swap); these two take NumPy's 1-D semantics exactly.

use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::ops::conv::Conv1dOptions;
use crate::ops::fft::FftOptions;
use crate::ops::{same_device, same_dtype};
use crate::s;
use crate::tensor::Tensor;

/// Which part of the full correlation/convolution is returned (NumPy's
/// `mode`). With `n` and `m` the operands' lengths:
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum SignalMode {
    /// Every overlap: `n + m - 1` values (the default of [`SignalOptions`]
    /// and of `np.convolve`).
    #[default]
    Full,
    /// `max(n, m)` values centred on the full result as NumPy centres them.
    Same,
    /// Only complete overlaps: `max(n, m) - min(n, m) + 1` values
    /// (`np.correlate`'s default).
    Valid,
}

/// How the result is computed.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ConvMethod {
    /// [`ConvMethod::Fft`] for f32/f64/c32/c64 CPU tensors when
    /// [`uses_fft`] says it is cheaper, else [`ConvMethod::Direct`] (always
    /// on a GPU, where the rule was not measured).
    #[default]
    Auto,
    /// The sum of products (every real, integer and complex dtype; integers
    /// wrap as in NumPy; f16/bf16 accumulate in f32).
    Direct,
    /// Through the FFT (f32, f64, c32, c64 on any device; anything else is
    /// an error). Rounding differs from the direct sum by about
    /// `eps * log2(N) * |a|_2 * |v|_2` for an FFT of length `N`.
    Fft,
}

/// Options of [`Tensor::correlate_with`] and [`Tensor::convolve_with`]:
/// `SignalOptions { mode: SignalMode::Same, ..Default::default() }`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SignalOptions {
    /// The output window (default [`SignalMode::Full`]).
    pub mode: SignalMode,
    /// The method (default [`ConvMethod::Auto`]).
    pub method: ConvMethod,
}

/// Fixed cost, in multiply-adds, charged to the FFT method for its extra
/// passes (padding, three transforms' setup, the product, the slice).
const FFT_OVERHEAD: f64 = 32768.0;
/// Direct outputs per batch row of the chunked correlation, at most
/// `CHUNK_ELEMS / m` (at least 1).
const CHUNK_ELEMS: usize = 1 << 20;

/// Whether [`ConvMethod::Auto`] takes the FFT for `outputs` results of
/// `taps` products each, with an FFT of length `nfft`: when
/// `outputs * taps > 6 * nfft * log2(nfft) + 32768` (three transforms of
/// `~2 N log2 N` operations each plus a fixed overhead for the extra passes).
/// An operation count, not a measurement.
///
/// ```
/// use rnx::ops::signal::uses_fft;
/// assert!(!uses_fft(1000, 3, 1024));
/// assert!(uses_fft(1_000_000, 1000, 1 << 20));
/// ```
pub fn uses_fft(outputs: usize, taps: usize, nfft: usize) -> bool {
    let n = nfft as f64;
    (outputs as f64) * (taps as f64) > 6.0 * n * n.log2().max(1.0) + FFT_OVERHEAD
}

/// The smallest `2^a 3^b 5^c >= n` (a fast FFT length).
fn good_size(n: usize) -> usize {
    let mut best = n.next_power_of_two();
    let mut p5 = 1usize;
    while p5 < best {
        let mut p35 = p5;
        while p35 < best {
            let mut p = p35;
            while p < n {
                p *= 2;
            }
            best = best.min(p);
            p35 *= 3;
        }
        p5 *= 5;
    }
    best
}

/// The full correlation `c_f = sum_t a[f - (m - 1) + t] * w[t]`,
/// `f = 0 .. n + m - 1`, restricted to `f in start .. start + len`.
struct Window {
    start: usize,
    len: usize,
}

/// Validate the operands of `op`: rank 1, one dtype and device, non-empty.
fn check(op: &str, a: &Tensor, v: &Tensor) -> Result<()> {
    same_device(op, &[a, v])?;
    same_dtype(op, &[a, v])?;
    if a.ndim() != 1 || v.ndim() != 1 {
        return Err(Error::shapes(
            op,
            a.shape(),
            v.shape(),
            "both operands must be 1-D",
        ));
    }
    for (t, which) in [(a, "first"), (v, "second")] {
        if t.shape()[0] == 0 {
            return Err(Error::invalid(op, format!("the {which} operand is empty")));
        }
    }
    Ok(())
}

/// The window of `mode` for operands of lengths `n` (signal) and `m`
/// (kernel), NumPy's rules: `inverted` when NumPy swapped them (`m > n`).
fn window(mode: SignalMode, n: usize, m: usize) -> Window {
    let (long, short) = (n.max(m), n.min(m));
    match mode {
        SignalMode::Full => Window {
            start: 0,
            len: n + m - 1,
        },
        SignalMode::Valid => Window {
            start: short - 1,
            len: long - short + 1,
        },
        SignalMode::Same if n >= m => Window {
            start: m - 1 - m / 2,
            len: n,
        },
        SignalMode::Same => Window {
            start: n / 2,
            len: m,
        },
    }
}

/// Whether `x` can take the FFT method (on any device: the GPU has FFT
/// kernels; `ConvMethod::Auto` picks it on the CPU only, where its
/// operation-count rule was measured).
fn fft_capable(x: &Tensor) -> bool {
    matches!(x.dtype(), DType::F32 | DType::F64 | DType::C32 | DType::C64)
}

/// The window `win` of the full correlation of `a` with the kernel `w`.
fn correlate_window(
    op: &str,
    a: &Tensor,
    w: &Tensor,
    win: &Window,
    method: ConvMethod,
) -> Result<Tensor> {
    let (n, m) = (a.shape()[0], w.shape()[0]);
    let fft_len = good_size(n + m - 1);
    let fft = match method {
        ConvMethod::Direct => false,
        ConvMethod::Fft => {
            if !fft_capable(a) {
                return Err(Error::invalid(
                    op,
                    format!(
                        "the FFT method needs f32, f64, c32 or c64 tensors, got {}: \
                         use ConvMethod::Direct or cast",
                        a.dtype()
                    ),
                ));
            }
            true
        }
        ConvMethod::Auto => {
            fft_capable(a) && a.device() == Device::Cpu && uses_fft(win.len, m, fft_len)
        }
    };
    if fft {
        by_fft(a, w, win, fft_len)
    } else {
        direct(a, w, win)
    }
}

/// The direct sum: `a` padded so that a valid correlation yields exactly the
/// window, cut into overlapping rows of `chunk + m - 1` (a strided view, no
/// copy) that one batched `correlate1d` handles.
fn direct(a: &Tensor, w: &Tensor, win: &Window) -> Result<Tensor> {
    let (n, m) = (a.shape()[0], w.shape()[0]);
    let chunk = (CHUNK_ELEMS / m).clamp(1, win.len);
    let rows = win.len.div_ceil(chunk);
    let pl = m - 1 - win.start;
    let pr = rows * chunk + m - 1 - n - pl;
    let ap = a.pad(&[(pl as isize, pr as isize)], 0)?;
    let view = ap.with_layout(Layout::new(
        vec![rows, 1, chunk + m - 1],
        vec![chunk as isize, 0, 1],
        ap.layout().offset(),
    ));
    let w3 = w.reshape([1usize, 1, m])?;
    let y = view.correlate1d(&w3, &Conv1dOptions::default())?;
    y.reshape([rows * chunk])?.slice(s![0..win.len as isize])
}

/// SciPy's `fftconvolve` idea: the full correlation is the convolution with
/// the reversed kernel, computed as the inverse transform of the product of
/// transforms of length `nfft >= n + m - 1` (no wrap-around).
fn by_fft(a: &Tensor, w: &Tensor, win: &Window, nfft: usize) -> Result<Tensor> {
    let wr = w.flip(0)?;
    let o = FftOptions {
        n: Some(nfft),
        ..Default::default()
    };
    let full = if a.dtype().is_complex() {
        a.fft_with(&o)?.mul(&wr.fft_with(&o)?)?.ifft_with(&o)?
    } else {
        a.rfft_with(&o)?.mul(&wr.rfft_with(&o)?)?.irfft_with(&o)?
    };
    let (s0, s1) = (win.start as isize, (win.start + win.len) as isize);
    full.slice(s![s0..s1])?.contiguous()
}

fn correlate_impl(a: &Tensor, v: &Tensor, o: &SignalOptions) -> Result<Tensor> {
    let op = "correlate";
    check(op, a, v)?;
    let win = window(o.mode, a.shape()[0], v.shape()[0]);
    let w = if v.dtype().is_complex() {
        v.conjugate()?
    } else {
        v.clone()
    };
    correlate_window(op, a, &w, &win, o.method)
}

fn convolve_impl(a: &Tensor, v: &Tensor, o: &SignalOptions) -> Result<Tensor> {
    let op = "convolve";
    check(op, a, v)?;
    // NumPy: the longer operand is the signal, the shorter (reversed) the kernel.
    let (sig, ker) = if v.shape()[0] > a.shape()[0] {
        (v, a)
    } else {
        (a, v)
    };
    let win = window(o.mode, sig.shape()[0], ker.shape()[0]);
    correlate_window(op, sig, &ker.flip(0)?, &win, o.method)
}

impl Tensor {
    /// The cross-correlation of two 1-D tensors (NumPy's `np.correlate`):
    /// `c_k = sum_j a[j + k] * conj(v[j])` over the lags `k` of `mode`
    /// (full: `-(m-1) .. n-1`; same and valid as NumPy picks them, also when
    /// `v` is the longer operand). Both operands share dtype (every real,
    /// integer and complex dtype) and device; the result has that
    /// dtype. Errors: ranks other than 1, an empty operand, mismatched dtypes.
    /// See [`Tensor::correlate_with`] to pick the method.
    ///
    /// ```
    /// use rnx::{SignalMode, Tensor, DType};
    /// // NumPy's examples.
    /// let a = Tensor::create(DType::F64, &[3], &[1., 2., 3.]).unwrap();
    /// let v = Tensor::create(DType::F64, &[3], &[0., 1., 0.5]).unwrap();
    /// assert_eq!(a.correlate(&v, SignalMode::Valid).unwrap().to_vec::<f64>().unwrap(), vec![3.5]);
    /// assert_eq!(a.correlate(&v, SignalMode::Same).unwrap().to_vec::<f64>().unwrap(), vec![2., 3.5, 3.]);
    /// assert_eq!(
    ///     a.correlate(&v, SignalMode::Full).unwrap().to_vec::<f64>().unwrap(),
    ///     vec![0.5, 2., 3.5, 3., 0.]
    /// );
    /// ```
    pub fn correlate(&self, v: &Tensor, mode: SignalMode) -> Result<Tensor> {
        correlate_impl(
            self,
            v,
            &SignalOptions {
                mode,
                ..Default::default()
            },
        )
    }
    /// [`Tensor::correlate`] with options (mode and [`ConvMethod`]).
    pub fn correlate_with(&self, v: &Tensor, o: &SignalOptions) -> Result<Tensor> {
        correlate_impl(self, v, o)
    }
    /// The discrete linear convolution of two 1-D tensors (NumPy's
    /// `np.convolve`): `c_k = sum_j a[j] * v[k - j]` (no conjugation), the
    /// window of `mode` taken with the longer operand as the signal. The
    /// rules of [`Tensor::correlate`].
    ///
    /// ```
    /// use rnx::{SignalMode, Tensor, DType};
    /// // NumPy's examples.
    /// let a = Tensor::create(DType::I32, &[3], &[1, 2, 3]).unwrap();
    /// let v = Tensor::create(DType::I32, &[3], &[0, 1, 0]).unwrap();
    /// assert_eq!(a.convolve(&v, SignalMode::Full).unwrap().to_vec::<i32>().unwrap(), vec![0, 1, 2, 3, 0]);
    /// assert_eq!(a.convolve(&v, SignalMode::Same).unwrap().to_vec::<i32>().unwrap(), vec![1, 2, 3]);
    /// ```
    pub fn convolve(&self, v: &Tensor, mode: SignalMode) -> Result<Tensor> {
        convolve_impl(
            self,
            v,
            &SignalOptions {
                mode,
                ..Default::default()
            },
        )
    }
    /// [`Tensor::convolve`] with options (mode and [`ConvMethod`]).
    pub fn convolve_with(&self, v: &Tensor, o: &SignalOptions) -> Result<Tensor> {
        convolve_impl(self, v, o)
    }
}
