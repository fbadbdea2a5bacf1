//! Discrete Fourier transforms (NumPy's `numpy.fft`, Nx's `fft` family):
//! complex `fft`/`ifft`, `fft2`/`ifft2`, `fftn`/`ifftn`; real `rfft`/`irfft`,
//! `rfft2`/`irfft2`, `rfftn`/`irfftn`; Hermitian `hfft`/`ihfft`; the helpers
//! `fftfreq`, `rfftfreq`, `fftshift`, `ifftshift`. This file validates
//! arguments, applies `norm` and the `n`/`s` rules, and runs n-D transforms as
//! 1-D passes axis by axis over the backend's `FftBackend` primitive (no FFT
//! arithmetic here).
//!
//! Rules (NumPy's, with rnx's strict dtypes):
//! - dtypes: f32, f64, c32, c64; the result has the input's precision (f32 and
//!   c32 give c32, f64 and c64 give c64; the real outputs of `irfft*` and
//!   `hfft` are f32/f64). Integers and halves are an error that says to cast.
//! - `n` (1-D) / `s` (n-D) is the transform length along each axis: a longer
//!   input is truncated, a shorter one padded with zeros at the end. For
//!   `irfft*` and `hfft` it is the *output* length (default `2 (m - 1)` for an
//!   input of `m`), and the input is cut or padded to `n/2 + 1`.
//! - `norm`: [`Norm::Backward`] (default: forward unscaled, inverse `1/n`),
//!   [`Norm::Ortho`] (`1/sqrt(n)` both ways), [`Norm::Forward`] (forward `1/n`,
//!   inverse unscaled); n-D transforms scale once by the product over the
//!   axes. `hfft`/`ihfft` follow NumPy: `hfft(a, norm) = irfft(conj(a),
//!   swapped norm)`, `ihfft(a, norm) = conj(rfft(a, swapped norm))`.
//! - Devices: every transform runs on every device; on a GPU, c32 always and
//!   f64/c64 where the adapter has SHADER_F64 (else an
//!   `UnsupportedDTypeOnDevice` error naming the dtype). `fftshift`/
//!   `ifftshift` (rolls) work on every device and dtype.

use crate::axes::Axes;
use crate::backend::{FftKind, FftSpec};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::normalize_axis;
use crate::tensor::Tensor;

/// How a transform is scaled (NumPy's `norm`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Norm {
    /// Forward unscaled, inverse scaled by `1/n` (NumPy's default).
    #[default]
    Backward,
    /// Both directions scaled by `1/sqrt(n)` (unitary).
    Ortho,
    /// Forward scaled by `1/n`, inverse unscaled.
    Forward,
}

impl Norm {
    /// The factor of a transform of `n` points in the forward or inverse
    /// direction.
    fn factor(self, n: usize, inverse: bool) -> f64 {
        match (self, inverse) {
            (Norm::Ortho, _) => 1.0 / (n as f64).sqrt(),
            (Norm::Backward, false) | (Norm::Forward, true) => 1.0,
            (Norm::Backward, true) | (Norm::Forward, false) => 1.0 / n as f64,
        }
    }
    /// Backward and forward exchanged (NumPy's rule for `hfft`/`ihfft`).
    fn swapped(self) -> Norm {
        match self {
            Norm::Backward => Norm::Forward,
            Norm::Ortho => Norm::Ortho,
            Norm::Forward => Norm::Backward,
        }
    }
}

/// Options of the 1-D transforms (`fft`, `ifft`, `rfft`, `irfft`, `hfft`,
/// `ihfft`): `FftOptions { n: Some(16), norm: Norm::Ortho, ..Default::default() }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FftOptions {
    /// Transform length (see the module rules); `None`: the input's length
    /// (`2 (m - 1)` for `irfft` and `hfft`).
    pub n: Option<usize>,
    /// The axis (default `-1`, the last).
    pub axis: isize,
    /// Scaling (default [`Norm::Backward`]).
    pub norm: Norm,
}

impl Default for FftOptions {
    fn default() -> Self {
        FftOptions {
            n: None,
            axis: -1,
            norm: Norm::Backward,
        }
    }
}

/// Options of the n-D transforms (`fft2`, `fftn`, `rfftn`, ... and their
/// inverses): `FftnOptions { s: Some(vec![8, 8]), ..Default::default() }`.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FftnOptions {
    /// Transform length per axis of `axes` (see the module rules); `None`: the
    /// input's lengths (the last one `2 (m - 1)` for `irfftn`).
    pub s: Option<Vec<usize>>,
    /// The axes, transformed last to first as NumPy does. Default: the last
    /// two for the `*2` functions; for the `*n` functions every axis, or the
    /// last `s.len()` when `s` is given. Repeated axes are an error.
    pub axes: Axes,
    /// Scaling (default [`Norm::Backward`]), applied once for all axes.
    pub norm: Norm,
}

/// The complex dtype of `x`'s precision, or an error naming `op`.
fn complex_of(op: &str, x: &Tensor) -> Result<DType> {
    let c = match x.dtype() {
        DType::F32 | DType::C32 => DType::C32,
        DType::F64 | DType::C64 => DType::C64,
        d => {
            return Err(Error::invalid(
                op,
                format!("dtype {d} is not supported: cast to f32, f64, c32 or c64 first"),
            ))
        }
    };
    Ok(c)
}

/// A real input, or an error naming `op`.
fn real_input(op: &str, x: &Tensor) -> Result<()> {
    if x.dtype().is_complex() {
        return Err(Error::invalid(
            op,
            format!("input must be real (f32 or f64), got {}", x.dtype()),
        ));
    }
    Ok(())
}

/// `x` as complex of its precision (a cast for real input).
fn as_complex(x: &Tensor, c: DType) -> Result<Tensor> {
    if x.dtype() == c {
        Ok(x.clone())
    } else {
        x.cast(c)
    }
}

/// A transform length: `n`, else `default`; at least 1.
fn length(op: &str, n: Option<usize>, default: Option<usize>) -> Result<usize> {
    match n.or(default) {
        Some(n) if n >= 1 => Ok(n),
        Some(n) => Err(Error::invalid(
            op,
            format!("invalid number of data points ({n}): must be at least 1"),
        )),
        None => Err(Error::invalid(
            op,
            "invalid number of data points: an input of length 0 needs n".to_string(),
        )),
    }
}

/// The default output length of `irfft`/`hfft` for an input of `m`: `2 (m - 1)`.
fn hermitian_default(m: usize) -> Option<usize> {
    m.checked_sub(1).map(|k| 2 * k)
}

/// One 1-D pass of `kind` along `axis` into a fresh tensor.
fn pass(
    op: &str,
    x: &Tensor,
    axis: usize,
    kind: FftKind,
    n: usize,
    scale: f64,
    conj: bool,
) -> Result<Tensor> {
    let spec = FftSpec {
        kind,
        n,
        scale,
        conj,
    };
    let c = complex_of(op, x)?;
    let dtype = if kind == FftKind::RealInverse {
        c.real()
    } else {
        c
    };
    let mut shape = x.shape().to_vec();
    shape[axis] = spec.out_len();
    let out = Tensor::empty_on(dtype, &shape, x.device())?;
    super::locked(op, &[x], &[&out], || x.backend().fft(x, axis, &spec, &out))?;
    Ok(out)
}

/// One complex-to-complex pass of `kind` (Forward or Inverse) along `axis`
/// of `t` in place: `t` is complex, a fresh result of an earlier pass that
/// nothing else holds, and `t.shape[axis] == n` (no padding or truncation).
/// Saves the n-D transforms a second tensor and the memory traffic of
/// writing it.
fn pass_in_place(
    op: &str,
    t: &Tensor,
    axis: usize,
    kind: FftKind,
    n: usize,
    scale: f64,
) -> Result<()> {
    let spec = FftSpec {
        kind,
        n,
        scale,
        conj: false,
    };
    super::locked_fresh(op, &[], t, || t.backend().fft(t, axis, &spec, t))
}

/// The shared 1-D transform: validation, length, norm.
fn one_d(op: &str, x: &Tensor, o: &FftOptions, kind: FftKind, hermitian: bool) -> Result<Tensor> {
    let c = complex_of(op, x)?;
    let axis = normalize_axis(op, o.axis, x.ndim())?;
    let m = x.shape()[axis];
    let (inverse, real_out) = match kind {
        FftKind::Forward | FftKind::RealForward => (false, false),
        FftKind::Inverse => (true, false),
        FftKind::RealInverse => (true, true),
    };
    let n = if real_out {
        length(op, o.n, hermitian_default(m))?
    } else {
        length(op, o.n, (m > 0).then_some(m))?
    };
    let norm = if hermitian { o.norm.swapped() } else { o.norm };
    let scale = norm.factor(n, inverse);
    let x = match kind {
        FftKind::RealForward => {
            real_input(op, x)?;
            x.clone()
        }
        FftKind::RealInverse => as_complex(x, c)?,
        _ => x.clone(),
    };
    pass(op, &x, axis, kind, n, scale, hermitian)
}

/// Which family an n-D transform belongs to.
#[derive(Clone, Copy, PartialEq)]
enum Nd {
    Complex { inverse: bool },
    Real,
    RealInverse,
}

/// The axes of an n-D transform (NumPy's rule): `axes`, or when it is the
/// default the last `s.len()` axes (`default_k` without `s`); `s`, when
/// given, has one length per axis.
pub(crate) fn nd_axes(
    op: &str,
    nd: usize,
    axes: &Axes,
    s: Option<&[usize]>,
    default_k: usize,
) -> Result<Vec<usize>> {
    let axes = if axes.is_default() {
        let k = s.map_or(default_k, |s| s.len());
        if k > nd {
            return Err(Error::invalid(
                op,
                format!("{k} axes requested for a tensor of rank {nd}"),
            ));
        }
        (nd - k..nd).collect()
    } else {
        axes.resolve(op, nd)?
    };
    if let Some(s) = s {
        if s.len() != axes.len() {
            return Err(Error::invalid(
                op,
                format!(
                    "s has {} entries but {} axes are transformed",
                    s.len(),
                    axes.len()
                ),
            ));
        }
    }
    Ok(axes)
}

/// Axes and lengths of an n-D transform (NumPy's `_cook_nd_args`).
fn cook(
    op: &str,
    x: &Tensor,
    o: &FftnOptions,
    two: bool,
    family: Nd,
) -> Result<(Vec<usize>, Vec<usize>)> {
    let nd = x.ndim();
    let axes = nd_axes(op, nd, &o.axes, o.s.as_deref(), if two { 2 } else { nd })?;
    if axes.is_empty()
        && family != (Nd::Complex { inverse: false })
        && family != (Nd::Complex { inverse: true })
    {
        return Err(Error::invalid(op, "at least one axis is needed"));
    }
    let last = axes.len().saturating_sub(1);
    let s = axes
        .iter()
        .enumerate()
        .map(|(i, &a)| {
            let m = x.shape()[a];
            let given = o.s.as_ref().map(|s| s[i]);
            if family == Nd::RealInverse && i == last {
                length(op, given, hermitian_default(m))
            } else {
                length(op, given, (m > 0).then_some(m))
            }
        })
        .collect::<Result<Vec<_>>>()?;
    Ok((axes, s))
}

/// The shared n-D transform: passes axis by axis, the norm once (on the last pass).
fn n_d(op: &str, x: &Tensor, o: &FftnOptions, two: bool, family: Nd) -> Result<Tensor> {
    let c = complex_of(op, x)?;
    let (axes, s) = cook(op, x, o, two, family)?;
    let inverse = family != Nd::Complex { inverse: false } && family != Nd::Real;
    let scale: f64 = s.iter().map(|&n| o.norm.factor(n, inverse)).product();
    // The passes in order: (axis, length, kind).
    let k = axes.len();
    let plan: Vec<(usize, usize, FftKind)> = match family {
        Nd::Complex { inverse } => {
            let kind = if inverse {
                FftKind::Inverse
            } else {
                FftKind::Forward
            };
            (0..k).rev().map(|i| (axes[i], s[i], kind)).collect()
        }
        Nd::Real => {
            real_input(op, x)?;
            std::iter::once((axes[k - 1], s[k - 1], FftKind::RealForward))
                .chain((0..k - 1).rev().map(|i| (axes[i], s[i], FftKind::Forward)))
                .collect()
        }
        Nd::RealInverse => (0..k - 1)
            .map(|i| (axes[i], s[i], FftKind::Inverse))
            .chain(std::iter::once((
                axes[k - 1],
                s[k - 1],
                FftKind::RealInverse,
            )))
            .collect(),
    };
    let mut cur = if family == Nd::RealInverse {
        as_complex(x, c)?
    } else {
        x.clone()
    };
    if plan.is_empty() {
        return cur.cast(c);
    }
    let last = plan.len() - 1;
    for (i, &(axis, n, kind)) in plan.iter().enumerate() {
        let sc = if i == last { scale } else { 1.0 };
        // After the first pass `cur` is this function's own fresh tensor:
        // complex passes that keep its length run in place.
        let complex = matches!(kind, FftKind::Forward | FftKind::Inverse);
        if i > 0 && complex && cur.dtype() == c && cur.shape()[axis] == n {
            pass_in_place(op, &cur, axis, kind, n, sc)?;
        } else {
            cur = pass(op, &cur, axis, kind, n, sc, false)?;
        }
    }
    Ok(cur)
}

impl Tensor {
    /// The discrete Fourier transform along the last axis (NumPy's `np.fft.fft`):
    /// `X_k = sum_j x_j e^{-2πi jk/n}`. f32/c32 input gives c32, f64/c64 gives
    /// c64; integers are an error (cast first). See [`Tensor::fft_with`] for
    /// `n`, `axis` and `norm`.
    ///
    /// ```
    /// use rnx::{Tensor, DType, C64};
    /// let x = Tensor::create(DType::F64, &[4], &[1.0, 2.0, 3.0, 4.0]).unwrap();
    /// let y = x.fft().unwrap();
    /// assert_eq!(y.dtype(), DType::C64);
    /// let v = y.to_vec::<C64>().unwrap();
    /// assert_eq!(v, vec![C64::new(10., 0.), C64::new(-2., 2.), C64::new(-2., 0.), C64::new(-2., -2.)]);
    /// ```
    pub fn fft(&self) -> Result<Tensor> {
        self.fft_with(&FftOptions::default())
    }
    /// [`Tensor::fft`] with options: `n` pads (zeros) or truncates the axis to
    /// the transform length, `axis` picks the axis (any strides; the other
    /// axes are a batch), `norm` the scaling.
    ///
    /// ```
    /// use rnx::{FftOptions, Norm, Tensor, DType};
    /// let x = Tensor::create(DType::F32, &[2, 3], &[1., 2., 3., 4., 5., 6.]).unwrap();
    /// let y = x.fft_with(&FftOptions { n: Some(4), axis: 0, norm: Norm::Ortho }).unwrap();
    /// assert_eq!(y.shape(), &[4, 3]);
    /// assert_eq!(y.dtype(), DType::C32);
    /// ```
    pub fn fft_with(&self, o: &FftOptions) -> Result<Tensor> {
        one_d("fft", self, o, FftKind::Forward, false)
    }
    /// The inverse DFT along the last axis (NumPy's `np.fft.ifft`), scaled by
    /// `1/n` by default: `ifft(fft(x)) == x` up to rounding.
    pub fn ifft(&self) -> Result<Tensor> {
        self.ifft_with(&FftOptions::default())
    }
    /// [`Tensor::ifft`] with options (see [`Tensor::fft_with`]).
    pub fn ifft_with(&self, o: &FftOptions) -> Result<Tensor> {
        one_d("ifft", self, o, FftKind::Inverse, false)
    }
    /// The DFT of real input, non-negative frequencies only: `n/2 + 1` complex
    /// values (NumPy's `np.fft.rfft`). f32 gives c32, f64 gives c64; complex
    /// input is an error.
    ///
    /// ```
    /// use rnx::{Tensor, DType, C32};
    /// let x = Tensor::create(DType::F32, &[4], &[0., 1., 0., 0.]).unwrap();
    /// let v = x.rfft().unwrap().to_vec::<C32>().unwrap();
    /// let want = [C32::new(1., 0.), C32::new(0., -1.), C32::new(-1., 0.)];
    /// assert_eq!(v.len(), 3);
    /// assert!(v.iter().zip(&want).all(|(a, b)| (a - b).norm() < 1e-6));
    /// ```
    pub fn rfft(&self) -> Result<Tensor> {
        self.rfft_with(&FftOptions::default())
    }
    /// [`Tensor::rfft`] with options (see [`Tensor::fft_with`]).
    pub fn rfft_with(&self, o: &FftOptions) -> Result<Tensor> {
        one_d("rfft", self, o, FftKind::RealForward, false)
    }
    /// The inverse of [`Tensor::rfft`] (NumPy's `np.fft.irfft`): `m` complex
    /// values (the non-negative half of a Hermitian spectrum) to `n = 2 (m - 1)`
    /// real values, or `n` from the options (odd `n` to invert an odd-length
    /// `rfft`). The imaginary parts of the zero-frequency term and, for even
    /// `n`, the Nyquist term are ignored. c32 gives f32, c64 gives f64 (real
    /// input is taken as complex).
    ///
    /// ```
    /// use rnx::{FftOptions, Tensor, DType};
    /// let x = Tensor::create(DType::F64, &[5], &[1., 2., 3., 4., 5.]).unwrap();
    /// let y = x.rfft().unwrap().irfft_with(&FftOptions { n: Some(5), ..Default::default() }).unwrap();
    /// for (a, b) in y.to_vec_f64().unwrap().iter().zip([1., 2., 3., 4., 5.]) {
    ///     assert!((a - b).abs() < 1e-12);
    /// }
    /// ```
    pub fn irfft(&self) -> Result<Tensor> {
        self.irfft_with(&FftOptions::default())
    }
    /// [`Tensor::irfft`] with options (see [`Tensor::fft_with`]; `n` is the
    /// output length).
    pub fn irfft_with(&self, o: &FftOptions) -> Result<Tensor> {
        one_d("irfft", self, o, FftKind::RealInverse, false)
    }
    /// The DFT of a signal with Hermitian symmetry given by its non-negative
    /// half (NumPy's `np.fft.hfft`): real output of length `n = 2 (m - 1)` by
    /// default; `hfft(a) = irfft(conj(a)) * n` with the default norm.
    pub fn hfft(&self) -> Result<Tensor> {
        self.hfft_with(&FftOptions::default())
    }
    /// [`Tensor::hfft`] with options (`n` is the output length).
    pub fn hfft_with(&self, o: &FftOptions) -> Result<Tensor> {
        one_d("hfft", self, o, FftKind::RealInverse, true)
    }
    /// The inverse of [`Tensor::hfft`] (NumPy's `np.fft.ihfft`): real input of
    /// length `n` to `n/2 + 1` complex values, `conj(rfft(x)) / n` with the
    /// default norm.
    pub fn ihfft(&self) -> Result<Tensor> {
        self.ihfft_with(&FftOptions::default())
    }
    /// [`Tensor::ihfft`] with options.
    pub fn ihfft_with(&self, o: &FftOptions) -> Result<Tensor> {
        one_d("ihfft", self, o, FftKind::RealForward, true)
    }

    /// The 2-D DFT over the last two axes (NumPy's `np.fft.fft2`).
    pub fn fft2(&self) -> Result<Tensor> {
        self.fft2_with(&FftnOptions::default())
    }
    /// [`Tensor::fft2`] with options (`s`, `axes`, `norm`; see [`FftnOptions`]).
    pub fn fft2_with(&self, o: &FftnOptions) -> Result<Tensor> {
        n_d("fft2", self, o, true, Nd::Complex { inverse: false })
    }
    /// The inverse 2-D DFT over the last two axes (NumPy's `np.fft.ifft2`).
    pub fn ifft2(&self) -> Result<Tensor> {
        self.ifft2_with(&FftnOptions::default())
    }
    /// [`Tensor::ifft2`] with options.
    pub fn ifft2_with(&self, o: &FftnOptions) -> Result<Tensor> {
        n_d("ifft2", self, o, true, Nd::Complex { inverse: true })
    }
    /// The n-D DFT over every axis (NumPy's `np.fft.fftn`): 1-D transforms
    /// axis by axis, last axis first.
    ///
    /// ```
    /// use rnx::{Tensor, DType, C64};
    /// let x = Tensor::ones(DType::F64, &[2, 3]).unwrap();
    /// let v = x.fftn().unwrap().to_vec::<C64>().unwrap();
    /// assert_eq!(v[0], C64::new(6., 0.));
    /// assert!(v[1..].iter().all(|z| z.norm() < 1e-12));
    /// ```
    pub fn fftn(&self) -> Result<Tensor> {
        self.fftn_with(&FftnOptions::default())
    }
    /// [`Tensor::fftn`] with options (see [`FftnOptions`]). An empty axis
    /// list returns the input as complex.
    pub fn fftn_with(&self, o: &FftnOptions) -> Result<Tensor> {
        n_d("fftn", self, o, false, Nd::Complex { inverse: false })
    }
    /// The inverse n-D DFT over every axis (NumPy's `np.fft.ifftn`).
    pub fn ifftn(&self) -> Result<Tensor> {
        self.ifftn_with(&FftnOptions::default())
    }
    /// [`Tensor::ifftn`] with options.
    pub fn ifftn_with(&self, o: &FftnOptions) -> Result<Tensor> {
        n_d("ifftn", self, o, false, Nd::Complex { inverse: true })
    }
    /// The 2-D DFT of real input over the last two axes (NumPy's
    /// `np.fft.rfft2`): the last axis keeps `n/2 + 1` frequencies.
    pub fn rfft2(&self) -> Result<Tensor> {
        self.rfft2_with(&FftnOptions::default())
    }
    /// [`Tensor::rfft2`] with options.
    pub fn rfft2_with(&self, o: &FftnOptions) -> Result<Tensor> {
        n_d("rfft2", self, o, true, Nd::Real)
    }
    /// The inverse of [`Tensor::rfft2`] (NumPy's `np.fft.irfft2`); the last
    /// axis's output length is `2 (m - 1)` unless `s` says otherwise.
    pub fn irfft2(&self) -> Result<Tensor> {
        self.irfft2_with(&FftnOptions::default())
    }
    /// [`Tensor::irfft2`] with options.
    pub fn irfft2_with(&self, o: &FftnOptions) -> Result<Tensor> {
        n_d("irfft2", self, o, true, Nd::RealInverse)
    }
    /// The n-D DFT of real input over every axis (NumPy's `np.fft.rfftn`):
    /// `rfft` along the last transformed axis, then `fft` along the others.
    pub fn rfftn(&self) -> Result<Tensor> {
        self.rfftn_with(&FftnOptions::default())
    }
    /// [`Tensor::rfftn`] with options.
    pub fn rfftn_with(&self, o: &FftnOptions) -> Result<Tensor> {
        n_d("rfftn", self, o, false, Nd::Real)
    }
    /// The inverse of [`Tensor::rfftn`] (NumPy's `np.fft.irfftn`): `ifft`
    /// along all but the last transformed axis, then `irfft` along it.
    ///
    /// ```
    /// use rnx::{FftnOptions, Tensor, DType};
    /// let x = Tensor::arange(DType::F64, 0, 15, 1).unwrap().reshape([3, 5]).unwrap();
    /// let o = FftnOptions { s: Some(vec![3, 5]), ..Default::default() };
    /// let y = x.rfftn().unwrap().irfftn_with(&o).unwrap();
    /// for (a, b) in y.to_vec_f64().unwrap().iter().zip(x.to_vec_f64().unwrap()) {
    ///     assert!((a - b).abs() < 1e-12);
    /// }
    /// ```
    pub fn irfftn(&self) -> Result<Tensor> {
        self.irfftn_with(&FftnOptions::default())
    }
    /// [`Tensor::irfftn`] with options.
    pub fn irfftn_with(&self, o: &FftnOptions) -> Result<Tensor> {
        n_d("irfftn", self, o, false, Nd::RealInverse)
    }

    /// The sample frequencies of an `n`-point DFT with sample spacing `d`
    /// (NumPy's `np.fft.fftfreq`): `[0, 1, ..., (n-1)/2, -(n/2), ..., -1] /
    /// (n d)`, each computed in f64 as `k * (1 / (n d))` (NumPy's formula,
    /// bit for bit) and rounded once to `dtype` (f32 or f64; others are an
    /// error). On the CPU; move with `to_device`. `n = 0` and `d = 0` are
    /// errors.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let f = Tensor::fftfreq(8, 0.1, DType::F64).unwrap();
    /// assert_eq!(f.to_vec_f64().unwrap(), vec![0., 1.25, 2.5, 3.75, -5., -3.75, -2.5, -1.25]);
    /// ```
    pub fn fftfreq(n: usize, d: f64, dtype: DType) -> Result<Tensor> {
        let ks: Vec<f64> = (0..n)
            .map(|i| {
                if i < n.div_ceil(2) {
                    i as f64
                } else {
                    i as f64 - n as f64
                }
            })
            .collect();
        freqs("fftfreq", n, d, dtype, ks)
    }
    /// The sample frequencies of [`Tensor::rfft`]'s output (NumPy's
    /// `np.fft.rfftfreq`): `[0, 1, ..., n/2] / (n d)`, rules as
    /// [`Tensor::fftfreq`].
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let f = Tensor::rfftfreq(8, 0.1, DType::F64).unwrap();
    /// assert_eq!(f.to_vec_f64().unwrap(), vec![0., 1.25, 2.5, 3.75, 5.]);
    /// ```
    pub fn rfftfreq(n: usize, d: f64, dtype: DType) -> Result<Tensor> {
        let ks: Vec<f64> = (0..n / 2 + 1).map(|i| i as f64).collect();
        freqs("rfftfreq", n, d, dtype, ks)
    }
    /// Move the zero-frequency term to the centre (NumPy's `np.fft.fftshift`):
    /// roll each axis of `axes` (default every axis) by `len / 2`. Any dtype and
    /// device; returns a copy.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let f = Tensor::fftfreq(10, 0.1, DType::F64).unwrap();
    /// assert_eq!(f.fftshift(None).unwrap().to_vec_f64().unwrap(),
    ///            vec![-5., -4., -3., -2., -1., 0., 1., 2., 3., 4.]);
    /// ```
    pub fn fftshift(&self, axes: impl Into<Axes>) -> Result<Tensor> {
        self.shift("fftshift", axes.into(), false)
    }
    /// The inverse of [`Tensor::fftshift`] (NumPy's `np.fft.ifftshift`): roll
    /// each axis by `-(len / 2)`; differs from `fftshift` for odd lengths.
    pub fn ifftshift(&self, axes: impl Into<Axes>) -> Result<Tensor> {
        self.shift("ifftshift", axes.into(), true)
    }

    fn shift(&self, op: &str, axes: Axes, inverse: bool) -> Result<Tensor> {
        let axes = axes.resolve(op, self.ndim())?;
        let mut cur = self.copy()?;
        for a in axes {
            let half = (self.shape()[a] / 2) as isize;
            cur = cur.roll(if inverse { -half } else { half }, a as isize)?;
        }
        Ok(cur)
    }
}

/// `ks * (1 / (n d))` as a 1-D tensor of `dtype`.
fn freqs(op: &str, n: usize, d: f64, dtype: DType, ks: Vec<f64>) -> Result<Tensor> {
    if n == 0 || d == 0.0 {
        return Err(Error::invalid(
            op,
            format!("n ({n}) and d ({d}) must be non-zero"),
        ));
    }
    if dtype != DType::F32 && dtype != DType::F64 {
        return Err(Error::invalid(
            op,
            format!("dtype {dtype} is not supported: use f32 or f64"),
        ));
    }
    let val = 1.0 / (n as f64 * d);
    let len = ks.len();
    let v: Vec<f64> = ks.into_iter().map(|k| k * val).collect();
    Tensor::from_vec(v, &[len])?.cast(dtype)
}
