//! softmax, log_softmax and logsumexp over a set of axes: validation and output
//! shapes; the fused, numerically stable kernel is the backend's
//! `ReduceBackend::softmax`.

use super::reduce::{finish_shape, keep_shape, resolve_axes};
use crate::backend::SoftmaxOp;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

impl Tensor {
    /// `axes` for softmax-like ops: None is the last axis (none for rank 0).
    fn softmax_axes(&self, op: &str, axes: Option<&[isize]>) -> Result<Vec<usize>> {
        match axes {
            None if self.ndim() == 0 => Ok(vec![]),
            None => resolve_axes(op, self.ndim(), Some(&[-1])),
            Some(a) => resolve_axes(op, self.ndim(), Some(a)),
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
        super::locked(name, &[self], &[&out], || {
            self.backend().softmax(op, self, axes, &out)
        })?;
        Ok(out)
    }

    /// Softmax over `axes` (None = the last axis, Nx's default; float dtypes):
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
    pub fn softmax(&self, axes: Option<&[isize]>) -> Result<Tensor> {
        let ax = self.softmax_axes("softmax", axes)?;
        self.softmax_impl("softmax", SoftmaxOp::Softmax, &ax, self.shape())
    }

    /// `x - max - ln(sum(exp(x - max)))` over `axes` (None = the last axis):
    /// the stable logarithm of [`Tensor::softmax`].
    pub fn log_softmax(&self, axes: Option<&[isize]>) -> Result<Tensor> {
        let ax = self.softmax_axes("log_softmax", axes)?;
        self.softmax_impl("log_softmax", SoftmaxOp::LogSoftmax, &ax, self.shape())
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
    pub fn logsumexp(&self, axes: Option<&[isize]>, keepdims: bool) -> Result<Tensor> {
        let ax = resolve_axes("logsumexp", self.ndim(), axes)?;
        let shape = keep_shape(self.shape(), &ax);
        let out = self.softmax_impl("logsumexp", SoftmaxOp::LogSumExp, &ax, &shape)?;
        Ok(finish_shape(out, &ax, keepdims))
    }
}
