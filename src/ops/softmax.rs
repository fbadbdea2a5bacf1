//! softmax, log_softmax and logsumexp over a set of axes: validation and output
//! shapes; the fused, numerically stable kernel is the backend's
//! `ReduceBackend::softmax`.

use super::reduce::{finish_shape, keep_shape, resolve_axes};
use crate::axes::Axes;
use crate::backend::SoftmaxOp;
use crate::dims::Dims;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// Options of [`Tensor::softmax_with`] and [`Tensor::log_softmax_with`] (Nx's
/// optional arguments). `SoftmaxOptions::default()` gives the plain
/// [`Tensor::softmax`].
///
/// ```
/// use rnx::{SoftmaxOptions, Tensor, DType};
/// let x = Tensor::create(DType::F64, &[2], &[0.0, 1.0]).unwrap();
/// let p = x.softmax_with(None, SoftmaxOptions { scale: 2.0 }).unwrap();
/// let q = x.mul(2.0).unwrap().softmax(None).unwrap();
/// assert_eq!(p.to_vec_f64().unwrap(), q.to_vec_f64().unwrap());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SoftmaxOptions {
    /// Multiplies the input before normalising: the result is
    /// `softmax(scale * x)` (an inverse temperature). Default 1.0; must be
    /// finite.
    pub scale: f64,
}

impl Default for SoftmaxOptions {
    fn default() -> Self {
        SoftmaxOptions { scale: 1.0 }
    }
}

impl Tensor {
    /// `axes` for softmax-like ops: the default is the last axis (none for
    /// rank 0).
    fn softmax_axes(&self, op: &str, axes: &Axes) -> Result<Dims<usize>> {
        match axes {
            a if a.is_default() && self.ndim() == 0 => Ok(Dims::new()),
            // The last axis (inline: no allocation, no resolution).
            a if a.is_default() => Ok(Dims::from_slice(&[self.ndim() - 1])),
            a => a.resolve_sorted_dims(op, self.ndim()),
        }
    }

    /// The input scaled by `opts.scale` (no copy when it is 1).
    fn scaled(&self, op: &str, opts: SoftmaxOptions) -> Result<Tensor> {
        if !opts.scale.is_finite() {
            return Err(Error::invalid(
                op,
                format!("scale must be finite, got {}", opts.scale),
            ));
        }
        if !self.dtype().is_float() {
            return Err(Error::dtype(op, self.dtype()));
        }
        if opts.scale == 1.0 {
            Ok(self.clone())
        } else {
            self.mul(opts.scale)
        }
    }

    fn softmax_impl(
        &self,
        name: &str,
        op: SoftmaxOp,
        axes: &[usize],
        shape: &[usize],
    ) -> Result<Tensor> {
        if !self.dtype().is_float() {
            return Err(Error::dtype(name, self.dtype()));
        }
        let out = Tensor::empty_on(self.dtype(), shape, self.device())?;
        super::locked_fresh(name, &[self], &out, || {
            self.backend().softmax(op, self, axes, &out)
        })?;
        Ok(out)
    }

    /// Softmax over `axes` (any [`Axes`]; `None` = the last axis, Nx's default;
    /// float dtypes):
    /// `exp(x - max) / sum(exp(x - max))` per group, computed in one fused pass
    /// family (f16/bf16 in f32), so the values sum to 1 over the axes and large
    /// inputs do not overflow. A group holding NaN gives NaN.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F32, &[3], &[1., 2., 3.]).unwrap();
    /// let s = x.softmax(None).unwrap().to_vec::<f32>().unwrap();
    /// assert_eq!(s.iter().map(|v| v.round()).collect::<Vec<_>>(), vec![0., 0., 1.]);
    /// assert!((s.iter().sum::<f32>() - 1.0).abs() < 1e-6);
    /// ```
    pub fn softmax(&self, axes: impl Into<Axes>) -> Result<Tensor> {
        let ax = self.softmax_axes("softmax", &axes.into())?;
        self.softmax_impl("softmax", SoftmaxOp::Softmax, &ax, self.shape())
    }

    /// [`Tensor::softmax`] of `opts.scale * self` (Nx's `softmax ~scale`).
    /// The product is rounded to the dtype before the fused kernel runs.
    pub fn softmax_with(&self, axes: impl Into<Axes>, opts: SoftmaxOptions) -> Result<Tensor> {
        let ax = self.softmax_axes("softmax", &axes.into())?;
        let x = self.scaled("softmax", opts)?;
        x.softmax_impl("softmax", SoftmaxOp::Softmax, &ax, self.shape())
    }

    /// `x - max - ln(sum(exp(x - max)))` over `axes` (None = the last axis):
    /// the stable logarithm of [`Tensor::softmax`].
    pub fn log_softmax(&self, axes: impl Into<Axes>) -> Result<Tensor> {
        let ax = self.softmax_axes("log_softmax", &axes.into())?;
        self.softmax_impl("log_softmax", SoftmaxOp::LogSoftmax, &ax, self.shape())
    }

    /// [`Tensor::log_softmax`] of `opts.scale * self` (Nx's
    /// `log_softmax ~scale`).
    ///
    /// ```
    /// use rnx::{SoftmaxOptions, Tensor, DType};
    /// let x = Tensor::create(DType::F64, &[3], &[1.0, 2.0, 3.0]).unwrap();
    /// let l = x.log_softmax_with(None, SoftmaxOptions { scale: 0.5 }).unwrap();
    /// let want = x.mul(0.5).unwrap().log_softmax(None).unwrap();
    /// assert_eq!(l.to_vec_f64().unwrap(), want.to_vec_f64().unwrap());
    /// ```
    pub fn log_softmax_with(&self, axes: impl Into<Axes>, opts: SoftmaxOptions) -> Result<Tensor> {
        let ax = self.softmax_axes("log_softmax", &axes.into())?;
        let x = self.scaled("log_softmax", opts)?;
        x.softmax_impl("log_softmax", SoftmaxOp::LogSoftmax, &ax, self.shape())
    }

    /// `ln(sum(exp(x)))` over `axes` (None = all axes, like the reductions),
    /// computed stably as `max + ln(sum(exp(x - max)))`; keeps the reduced axes
    /// as size 1 when `keepdims`. An empty group gives -inf; a group holding
    /// +inf gives +inf.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F64, &[2], &[1000.0, 1000.0]).unwrap();
    /// let v = x.logsumexp(None, false).unwrap().item::<f64>().unwrap();
    /// assert!((v - (1000.0 + 2f64.ln())).abs() < 1e-9);
    /// ```
    pub fn logsumexp(&self, axes: impl Into<Axes>, keepdims: bool) -> Result<Tensor> {
        let ax = resolve_axes("logsumexp", self.ndim(), &axes.into())?;
        let shape = keep_shape(self.shape(), &ax);
        let out = self.softmax_impl("logsumexp", SoftmaxOp::LogSumExp, &ax, &shape)?;
        Ok(finish_shape(out, &ax, keepdims))
    }
}
