//! Reductions of the Nx API: sum, prod, max, min, mean, var, std, all, any over
//! a set of axes (with keepdims), argmax/argmin along one axis, and the
//! cumulative cumsum/cumprod. Validation, dtype rules and output shapes live
//! here; the arithmetic is the backend's `ReduceBackend`.

use crate::axes::Axes;
use crate::backend::{ArgOp, ReduceOp, ScanOp};
use crate::dims::Dims;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::{normalize_axis, Layout};
use crate::tensor::Tensor;

/// Every axis of a tensor of rank up to 6 (`&ALL[..ndim]`).
const ALL: [usize; 6] = [0, 1, 2, 3, 4, 5];

/// Resolve `axes` (the default = all) against `ndim`: sorted, unique,
/// non-negative.
pub(crate) fn resolve_axes(op: &str, ndim: usize, axes: &Axes) -> Result<Vec<usize>> {
    axes.resolve_sorted(op, ndim)
}

/// `shape` with `axes` set to 1 (the keepdims shape).
pub(crate) fn keep_shape(shape: &[usize], axes: &[usize]) -> Dims<usize> {
    let mut s = Dims::from_slice(shape);
    for &a in axes {
        s[a] = 1;
    }
    s
}

/// A fresh contiguous output viewed with `axes` dropped unless `keepdims`.
pub(crate) fn finish_shape(out: Tensor, axes: &[usize], keepdims: bool) -> Tensor {
    if keepdims {
        return out;
    }
    if axes.len() == out.ndim() {
        // Every axis reduced (axes are unique): a rank-0 result.
        return out.into_layout(Layout::contiguous(&[]));
    }
    let shape: Dims<usize> = (0..out.ndim())
        .filter(|a| !axes.contains(a))
        .map(|a| out.shape()[a])
        .collect();
    out.into_layout(Layout::contiguous(&shape))
}

impl Tensor {
    /// A reduction after asking the extensions (`crate::ext`).
    fn reduce_impl(&self, name: &str, op: ReduceOp, axes: Axes, keepdims: bool) -> Result<Tensor> {
        crate::ext::hook(
            name,
            &[self.into()],
            None,
            || {
                let ax = resolve_axes(name, self.ndim(), &axes)?;
                let shape: Vec<usize> = (0..self.ndim())
                    .filter_map(|a| match (ax.contains(&a), keepdims) {
                        (false, _) => Some(self.shape()[a]),
                        (true, true) => Some(1),
                        (true, false) => None,
                    })
                    .collect();
                let kind = crate::ext::OpKind::Reduce {
                    op,
                    axes: ax,
                    keepdims,
                };
                Ok((kind, shape))
            },
            |o, _| o[0].as_tensor().reduce_core(name, op, &axes, keepdims),
        )
    }

    fn reduce_core(&self, name: &str, op: ReduceOp, axes: &Axes, keepdims: bool) -> Result<Tensor> {
        let dt = self.dtype();
        let ok = match op {
            ReduceOp::Sum | ReduceOp::Prod | ReduceOp::All | ReduceOp::Any => true,
            ReduceOp::Max | ReduceOp::Min => !dt.is_complex(),
            ReduceOp::Mean => dt.is_float() || dt.is_complex(),
            ReduceOp::Var { .. } | ReduceOp::Std { .. } => dt.is_float(),
        };
        if !ok {
            return Err(Error::dtype(name, dt));
        }
        if axes.is_default_or_all() && self.ndim() <= ALL.len() {
            // Every axis (the default): no list to resolve, the keepdims shape
            // is all ones.
            let nd = self.ndim();
            return self.reduce_axes(name, op, &ALL[..nd], &[1; ALL.len()][..nd], keepdims);
        }
        // Inline (no allocation) for the usual rank.
        let axes = axes.resolve_sorted_dims(name, self.ndim())?;
        let shape = keep_shape(self.shape(), &axes);
        self.reduce_axes(name, op, &axes, &shape, keepdims)
    }

    /// [`Tensor::reduce_core`] after the dtype check, over the resolved,
    /// sorted `axes` into an output of the keepdims `shape`.
    fn reduce_axes(
        &self,
        name: &str,
        op: ReduceOp,
        axes: &[usize],
        shape: &[usize],
        keepdims: bool,
    ) -> Result<Tensor> {
        let dt = self.dtype();
        let count: usize = axes.iter().map(|&a| self.shape()[a]).product();
        let out_numel: usize = shape.iter().product();
        match op {
            ReduceOp::Max | ReduceOp::Min if count == 0 && out_numel > 0 => {
                return Err(Error::invalid(
                    name,
                    format!(
                        "cannot reduce over an empty axis (shape {:?}, axes {axes:?}): {name} has no identity",
                        self.shape()
                    ),
                ));
            }
            ReduceOp::Var { ddof } | ReduceOp::Std { ddof } if count > 0 && ddof >= count => {
                return Err(Error::invalid(
                    name,
                    format!("ddof {ddof} must be less than the number of reduced elements {count}"),
                ));
            }
            _ => {}
        }
        let out_dt = if matches!(op, ReduceOp::All | ReduceOp::Any) {
            DType::U8
        } else {
            dt
        };
        let out = Tensor::empty_on(out_dt, shape, self.device())?;
        super::locked_fresh(name, &[self], &out, || {
            self.backend().reduce(op, self, axes, &out)
        })?;
        Ok(finish_shape(out, axes, keepdims))
    }

    /// Sum over `axes` (any [`Axes`]: `None` = all, one axis, or a list;
    /// negative axes count from the end), keeping
    /// the reduced axes as size 1 when `keepdims`. The result has the input's
    /// dtype. Floats are summed pairwise (error grows like log n); f16/bf16
    /// accumulate in f32 and round once; integer sums wrap at the dtype's width.
    /// An empty reduction gives 0.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F32, &[2, 2], &[1., 2., 3., 4.]).unwrap();
    /// assert_eq!(x.sum(None, false).unwrap().item::<f32>().unwrap(), 10.0);
    /// assert_eq!(x.sum(0, false).unwrap().to_string(), "[4, 6]");
    /// assert_eq!(x.sum([-1], true).unwrap().shape(), &[2, 1]);
    /// ```
    pub fn sum(&self, axes: impl Into<Axes>, keepdims: bool) -> Result<Tensor> {
        self.reduce_impl("sum", ReduceOp::Sum, axes.into(), keepdims)
    }

    /// Product over `axes` (see [`Tensor::sum`] for the arguments). Integers
    /// wrap; an empty reduction gives 1.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[3], &[2, 3, 4]).unwrap();
    /// assert_eq!(x.prod(None, false).unwrap().item::<i32>().unwrap(), 24);
    /// ```
    pub fn prod(&self, axes: impl Into<Axes>, keepdims: bool) -> Result<Tensor> {
        self.reduce_impl("prod", ReduceOp::Prod, axes.into(), keepdims)
    }

    /// Maximum over `axes` (real and integer dtypes). NaN propagates: a group
    /// holding NaN gives NaN. Reducing an empty axis is an error (no identity),
    /// unless the result itself is empty.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F32, &[2, 2], &[1., 2., 3., 4.]).unwrap();
    /// assert_eq!(x.max([0], false).unwrap().to_string(), "[3, 4]");
    /// ```
    pub fn max(&self, axes: impl Into<Axes>, keepdims: bool) -> Result<Tensor> {
        self.reduce_impl("max", ReduceOp::Max, axes.into(), keepdims)
    }

    /// Minimum over `axes`; as [`Tensor::max`].
    pub fn min(&self, axes: impl Into<Axes>, keepdims: bool) -> Result<Tensor> {
        self.reduce_impl("min", ReduceOp::Min, axes.into(), keepdims)
    }

    /// Arithmetic mean over `axes` (float and complex dtypes; cast integers
    /// first). NaN propagates; an empty reduction gives NaN.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F32, &[2, 3], &[1., 2., 3., 4., 5., 6.]).unwrap();
    /// assert_eq!(x.mean([1], false).unwrap().to_string(), "[2, 5]");
    /// ```
    pub fn mean(&self, axes: impl Into<Axes>, keepdims: bool) -> Result<Tensor> {
        self.reduce_impl("mean", ReduceOp::Mean, axes.into(), keepdims)
    }

    /// Variance `sum((x - mean)^2) / (n - ddof)` over `axes` (float dtypes),
    /// computed in f64 with a stable two-pass/merge scheme; of a complex
    /// tensor `sum(|z - mean|^2) / (n - ddof)` in the parts' dtype (NumPy's:
    /// the variances of the two parts added). `ddof >= n` is an
    /// error when `n > 0`; an empty reduction gives NaN; NaN propagates.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F32, &[5], &[1., 2., 3., 4., 5.]).unwrap();
    /// assert_eq!(x.var(None, false, 0).unwrap().item::<f32>().unwrap(), 2.0);
    /// assert_eq!(x.var(None, false, 1).unwrap().item::<f32>().unwrap(), 2.5);
    /// assert!(x.var(None, false, 5).is_err());
    /// ```
    pub fn var(&self, axes: impl Into<Axes>, keepdims: bool, ddof: usize) -> Result<Tensor> {
        if self.dtype().is_complex() {
            // NumPy's: mean |z - mean z|^2, real; the parts' variances add.
            let axes = axes.into();
            let re = self.real()?.var(axes.clone(), keepdims, ddof)?;
            return re.add(&self.imag()?.var(axes, keepdims, ddof)?);
        }
        self.reduce_impl("var", ReduceOp::Var { ddof }, axes.into(), keepdims)
    }

    /// Standard deviation: the square root of [`Tensor::var`].
    pub fn std(&self, axes: impl Into<Axes>, keepdims: bool, ddof: usize) -> Result<Tensor> {
        if self.dtype().is_complex() {
            return self.var(axes, keepdims, ddof)?.sqrt();
        }
        self.reduce_impl("std", ReduceOp::Std { ddof }, axes.into(), keepdims)
    }

    /// 1 (u8) where every element over `axes` is non-zero (NaN is non-zero),
    /// else 0; any dtype. An empty reduction gives 1.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[2, 2], &[1, 0, 1, 1]).unwrap();
    /// assert_eq!(x.all([1], false).unwrap().to_vec::<u8>().unwrap(), vec![0, 1]);
    /// ```
    pub fn all(&self, axes: impl Into<Axes>, keepdims: bool) -> Result<Tensor> {
        self.reduce_impl("all", ReduceOp::All, axes.into(), keepdims)
    }

    /// 1 (u8) where some element over `axes` is non-zero, else 0; any dtype.
    /// An empty reduction gives 0.
    pub fn any(&self, axes: impl Into<Axes>, keepdims: bool) -> Result<Tensor> {
        self.reduce_impl("any", ReduceOp::Any, axes.into(), keepdims)
    }

    fn arg_impl(
        &self,
        name: &str,
        op: ArgOp,
        axis: Option<isize>,
        keepdims: bool,
    ) -> Result<Tensor> {
        if self.dtype().is_complex() {
            return Err(Error::dtype(name, self.dtype()));
        }
        let flat = axis.is_none();
        let (x, axis) = match axis {
            Some(a) => (self.clone(), normalize_axis(name, a, self.ndim())?),
            None => {
                let flat = match self.layout().reshape(&[self.size()]) {
                    Some(l) => self.with_layout(l),
                    None => self.copy()?.reshape_contiguous(&[self.size()]),
                };
                (flat, 0)
            }
        };
        let n = x.shape()[axis];
        if n == 0 {
            return Err(Error::invalid(
                name,
                format!(
                    "cannot take {name} over an empty axis (shape {:?})",
                    self.shape()
                ),
            ));
        }
        if n > i32::MAX as usize {
            return Err(Error::invalid(
                name,
                format!("axis of length {n} does not fit i32 indices"),
            ));
        }
        let out = Tensor::empty_on(DType::I32, &keep_shape(x.shape(), &[axis]), self.device())?;
        super::locked(name, &[&x], &[&out], || {
            x.backend().arg_reduce(op, &x, axis, &out)
        })?;
        Ok(match (flat, keepdims) {
            (false, _) => finish_shape(out, &[axis], keepdims),
            (true, true) => out.with_layout(Layout::contiguous(&vec![1; self.ndim()])),
            (true, false) => out.with_layout(Layout::contiguous(&[])),
        })
    }

    /// A contiguous tensor viewed with a new shape of the same size.
    fn reshape_contiguous(&self, shape: &[usize]) -> Tensor {
        debug_assert!(self.is_c_contiguous());
        let l = Layout::new(
            shape.to_vec(),
            crate::layout::c_strides(shape),
            self.offset(),
        );
        self.with_layout(l)
    }

    /// Index (i32) of the largest element along `axis`; `None` searches the
    /// flattened tensor and returns a scalar (rank-0, or all size-1 axes with
    /// `keepdims`). Ties give the first occurrence; NaN counts as the largest
    /// (the first NaN wins, as NumPy). An empty axis is an error.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[2, 3], &[1, 5, 3, 2, 4, 6]).unwrap();
    /// assert_eq!(x.argmax(1, false).unwrap().to_vec::<i32>().unwrap(), vec![1, 2]);
    /// assert_eq!(x.argmax(None, false).unwrap().item::<i32>().unwrap(), 5);
    /// ```
    pub fn argmax(&self, axis: impl Into<Option<isize>>, keepdims: bool) -> Result<Tensor> {
        self.arg_impl("argmax", ArgOp::Max, axis.into(), keepdims)
    }

    /// Index (i32) of the smallest element; as [`Tensor::argmax`] (NaN counts
    /// as the smallest).
    pub fn argmin(&self, axis: impl Into<Option<isize>>, keepdims: bool) -> Result<Tensor> {
        self.arg_impl("argmin", ArgOp::Min, axis.into(), keepdims)
    }

    fn scan_impl(&self, name: &str, op: ScanOp, axis: Option<isize>) -> Result<Tensor> {
        let Some(axis) = axis else {
            // Nx: no axis scans the flattened tensor (a 1-D result).
            let flat = match self.layout().reshape(&[self.size()]) {
                Some(l) => self.with_layout(l),
                None => self.copy()?.reshape_contiguous(&[self.size()]),
            };
            return flat.scan_impl(name, op, Some(0));
        };
        let axis = normalize_axis(name, axis, self.ndim())?;
        let out = Tensor::empty_on(self.dtype(), self.shape(), self.device())?;
        super::locked(name, &[self], &[&out], || {
            self.backend().scan(op, self, axis, &out)
        })?;
        Ok(out)
    }

    /// Inclusive cumulative sum along `axis` (same shape and dtype; f16/bf16
    /// accumulate in f32, integers wrap). `None` scans the flattened tensor in
    /// row-major order and returns a 1-D tensor (Nx's default).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[2, 3], &[1, 2, 3, 4, 5, 6]).unwrap();
    /// assert_eq!(x.cumsum(1).unwrap().to_vec::<i32>().unwrap(), vec![1, 3, 6, 4, 9, 15]);
    /// assert_eq!(x.cumsum(0).unwrap().to_vec::<i32>().unwrap(), vec![1, 2, 3, 5, 7, 9]);
    /// let flat = x.cumsum(None).unwrap();
    /// assert_eq!(flat.shape(), &[6]);
    /// assert_eq!(flat.to_vec::<i32>().unwrap(), vec![1, 3, 6, 10, 15, 21]);
    /// ```
    pub fn cumsum(&self, axis: impl Into<Option<isize>>) -> Result<Tensor> {
        self.scan_impl("cumsum", ScanOp::Sum, axis.into())
    }

    /// Inclusive cumulative product along `axis` (integers wrap); `None` scans
    /// the flattened tensor, as [`Tensor::cumsum`].
    pub fn cumprod(&self, axis: impl Into<Option<isize>>) -> Result<Tensor> {
        self.scan_impl("cumprod", ScanOp::Prod, axis.into())
    }
}
