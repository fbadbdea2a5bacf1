//! The Fourier family of backend primitives: one 1-D discrete Fourier
//! transform of every row along one axis (complex-to-complex, real-to-complex
//! or complex-to-real), zero-padded or truncated to the transform length, with
//! one scale factor applied to the result. Only the trait and its contract live
//! here; validation, `norm` and the n-D transforms are in `src/ops/fft.rs`.
//! The family also holds the real trigonometric transforms (DCT/DST types
//! 1-4, [`FftBackend::dct`], frontend in `src/ops/dct.rs`).
//!
//! What the frontend guarantees: storages are locked; `x` and `out` are on one
//! device and have one rank; `axis < x.ndim()`; their shapes agree on every
//! axis but `axis`; `out.shape[axis]` is [`FftSpec::out_len`]; `spec.n >= 1`;
//! `out` is a fresh tensor with a unique layout that does not overlap `x`,
//! or, for [`FftKind::Forward`] / [`FftKind::Inverse`] with `x.shape[axis] ==
//! spec.n` only, `x` itself (one fresh complex tensor: the pass runs in
//! place, each row read whole before it is written);
//! dtypes are one precision `T` (f32 or f64): `x` is `T` or complex(`T`) for
//! [`FftKind::Forward`] / [`FftKind::Inverse`], `T` for
//! [`FftKind::RealForward`], complex(`T`) for [`FftKind::RealInverse`]; `out`
//! is complex(`T`), except real `T` for [`FftKind::RealInverse`].

use crate::error::Result;
use crate::tensor::Tensor;

/// Which 1-D transform of length `n` a row gets. Every kind is unnormalised
/// (`X_k = sum_j x_j e^{∓2πi jk/n}`, minus sign forward); scaling is
/// [`FftSpec::scale`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FftKind {
    /// Complex-to-complex, `e^{-2πi jk/n}`: `n` outputs.
    Forward,
    /// Complex-to-complex, `e^{+2πi jk/n}`: `n` outputs.
    Inverse,
    /// Real-to-complex forward: the `n/2 + 1` non-negative-frequency outputs.
    RealForward,
    /// Complex-to-real inverse: `n/2 + 1` Hermitian inputs (the imaginary
    /// parts of the zero-frequency term and, for even `n`, of the Nyquist term
    /// are ignored, as NumPy's `irfft` does) to `n` real outputs.
    RealInverse,
}

/// One 1-D transform along an axis.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FftSpec {
    /// The kind of transform.
    pub kind: FftKind,
    /// The transform length (>= 1).
    pub n: usize,
    /// Every output is multiplied by this (1 for none).
    pub scale: f64,
    /// Conjugate the complex side: the input of [`FftKind::RealInverse`]
    /// (NumPy's `hfft`) or the output of [`FftKind::RealForward`] (`ihfft`).
    /// Ignored by the complex-to-complex kinds.
    pub conj: bool,
}

impl FftSpec {
    /// How many input elements of a row the transform reads: `n`, or `n/2 + 1`
    /// for [`FftKind::RealInverse`]. A shorter input row is padded with
    /// zeros, a longer one truncated.
    pub fn in_len(&self) -> usize {
        match self.kind {
            FftKind::RealInverse => self.n / 2 + 1,
            _ => self.n,
        }
    }
    /// The output length along the axis: `n`, or `n/2 + 1` for
    /// [`FftKind::RealForward`].
    pub fn out_len(&self) -> usize {
        match self.kind {
            FftKind::RealForward => self.n / 2 + 1,
            _ => self.n,
        }
    }
}

/// Discrete Fourier transforms along an axis.
pub trait FftBackend {
    /// Transform every row of `x` along `axis` (each of the other axes'
    /// index combinations is one row, any strides) into the same row of
    /// `out`: the row's first `min(x.shape[axis], spec.in_len())` elements,
    /// zero-padded to `spec.in_len()`, go through the transform of
    /// `spec.kind` and length `spec.n`; each result, conjugated when
    /// `spec.conj` asks, times `spec.scale`, is written to `out`. Real input to
    /// a complex-to-complex kind has imaginary parts zero.
    fn fft(&self, x: &Tensor, axis: usize, spec: &FftSpec, out: &Tensor) -> Result<()>;

    /// The real trigonometric transform of `spec` (SciPy's `dct`/`dst`
    /// definitions, see [`DctSpec`]) of every row of `x` along `axis` into the
    /// same row of `out`: the row's first `min(x.shape[axis], spec.n)`
    /// elements, zero-padded to `spec.n`, are transformed; each result times
    /// `spec.scale` is written to `out`. The frontend guarantees what it does
    /// for [`FftBackend::fft`], and further: `x` and `out` are both f32 or
    /// both f64; `out.shape[axis] == spec.n`; `spec.ty` is 1..=4; `spec.n >= 2`
    /// for a DCT of type 1.
    fn dct(&self, x: &Tensor, axis: usize, spec: &DctSpec, out: &Tensor) -> Result<()>;
}

/// Cosine or sine transform.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TrigKind {
    /// Discrete cosine transform.
    Cos,
    /// Discrete sine transform.
    Sin,
}

/// One 1-D real trigonometric transform along an axis. Unscaled, the
/// transform of type `ty` of `x` (length `N = n`) is SciPy's (`π` written `p`):
///
/// - DCT-1: `y_k = x_0 + (-1)^k x_{N-1} + 2 sum_{j=1}^{N-2} x_j cos(p jk/(N-1))`
/// - DCT-2: `y_k = 2 sum_j x_j cos(p k(2j+1)/(2N))`
/// - DCT-3: `y_k = x_0 + 2 sum_{j=1}^{N-1} x_j cos(p j(2k+1)/(2N))`
/// - DCT-4: `y_k = 2 sum_j x_j cos(p (2j+1)(2k+1)/(4N))`
/// - DST-1: `y_k = 2 sum_j x_j sin(p (j+1)(k+1)/(N+1))`
/// - DST-2: `y_k = 2 sum_j x_j sin(p (k+1)(2j+1)/(2N))`
/// - DST-3: `y_k = (-1)^k x_{N-1} + 2 sum_{j=0}^{N-2} x_j sin(p (j+1)(2k+1)/(2N))`
/// - DST-4: `y_k = 2 sum_j x_j sin(p (2j+1)(2k+1)/(4N))`
///
/// With `orthogonalize` (SciPy's `orthogonalize=True`), before the
/// transform `x_0` and `x_{N-1}` (DCT-1), `x_0` (DCT-3) or `x_{N-1}` (DST-3)
/// are multiplied by `sqrt 2`, and after it `y_0` and `y_{N-1}` (DCT-1), `y_0`
/// (DCT-2) or `y_{N-1}` (DST-2) are divided by `sqrt 2`; the other types are
/// unchanged. Then every output is multiplied by `scale`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DctSpec {
    /// Cosine or sine.
    pub kind: TrigKind,
    /// The type, 1 to 4.
    pub ty: u8,
    /// The transform length (the input is padded or truncated to it).
    pub n: usize,
    /// Every output is multiplied by this (1 for none).
    pub scale: f64,
    /// SciPy's orthogonalized variant (see above).
    pub orthogonalize: bool,
}
