//! The Fourier family of backend primitives: one 1-D discrete Fourier
//! transform of every row along one axis (complex-to-complex, real-to-complex
//! or complex-to-real), zero-padded or truncated to the transform length, with
//! one scale factor applied to the result. Only the trait and its contract live
//! here; validation, `norm` and the n-D transforms are in `src/ops/fft.rs`.
//!
//! What the frontend guarantees: storages are locked; `x` and `out` are on one
//! device and have one rank; `axis < x.ndim()`; their shapes agree on every
//! axis but `axis`; `out.shape[axis]` is [`FftSpec::out_len`]; `spec.n >= 1`;
//! `out` is a fresh tensor with a unique layout that does not overlap `x`;
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
}
