//! NaN-ignoring reductions over a set of axes: `nansum`, `nanmean`,
//! `nanmax`, `nanmin`, with NumPy's rules for groups with no number (all NaN
//! or empty). Composed of `isnan`, `where` and the ordinary reductions, so
//! they run on every device. On integer dtypes (which hold no NaN) they are
//! the plain reductions.

use super::reduce::resolve_axes;
use crate::axes::Axes;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

impl Tensor {
    /// `x` with NaN replaced by `fill` (floats), and the NaN mask.
    fn nan_filled(&self, fill: f64) -> Result<(Tensor, Tensor)> {
        let m = self.isnan()?;
        Ok((Tensor::where_cond(&m, fill, self)?, m))
    }

    /// Sum over `axes` treating NaN as 0 (NumPy's `nansum`): an all-NaN or
    /// empty group gives 0. Real and integer dtypes (integers: the plain
    /// [`Tensor::sum`]).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F64, &[2, 2], &[1., f64::NAN, f64::NAN, f64::NAN]).unwrap();
    /// assert_eq!(x.nansum(None, false).unwrap().item::<f64>().unwrap(), 1.0);
    /// assert_eq!(x.nansum(1, false).unwrap().to_string(), "[1, 0]");
    /// ```
    pub fn nansum(&self, axes: impl Into<Axes>, keepdims: bool) -> Result<Tensor> {
        let dt = self.dtype();
        if dt.is_complex() {
            return Err(Error::dtype("nansum", dt));
        }
        if !dt.is_float() {
            return self.sum(axes, keepdims);
        }
        self.nan_filled(0.0)?.0.sum(axes, keepdims)
    }

    /// Mean of the non-NaN elements over `axes` (NumPy's `nanmean`): a group
    /// with no number gives NaN. Float dtypes (cast integers first); f16/bf16
    /// are computed in f32 and rounded once.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F32, &[2, 2], &[1., f64::NAN, 3., 4.]).unwrap();
    /// assert_eq!(x.nanmean(None, false).unwrap().item::<f32>().unwrap(), 8.0 / 3.0);
    /// assert_eq!(x.nanmean(0, false).unwrap().to_string(), "[2, 4]");
    /// let all_nan = Tensor::create(DType::F32, &[2], &[f64::NAN, f64::NAN]).unwrap();
    /// assert!(all_nan.nanmean(None, false).unwrap().item::<f32>().unwrap().is_nan());
    /// ```
    pub fn nanmean(&self, axes: impl Into<Axes>, keepdims: bool) -> Result<Tensor> {
        let dt = self.dtype();
        if !dt.is_float() {
            return Err(Error::invalid(
                "nanmean",
                format!("nanmean of dtype {dt} is not supported: cast to a float dtype"),
            ));
        }
        let axes = axes.into();
        resolve_axes("nanmean", self.ndim(), &axes)?;
        let cd = if dt.is_half() || dt.is_fp8() {
            DType::F32
        } else {
            dt
        };
        let x = self.cast(cd)?;
        let (filled, m) = x.nan_filled(0.0)?;
        let s = filled.sum(axes.clone(), keepdims)?;
        let count = m
            .logical_not()?
            .cast(DType::I64)?
            .sum(axes, keepdims)?
            .cast(cd)?;
        s.div(&count)?.cast(dt)
    }

    fn nan_extreme(&self, op: &str, high: bool, axes: Axes, keepdims: bool) -> Result<Tensor> {
        let dt = self.dtype();
        if dt.is_complex() {
            return Err(Error::dtype(op, dt));
        }
        let ax = resolve_axes(op, self.ndim(), &axes)?;
        let out_numel: usize = (0..self.ndim())
            .filter(|a| !ax.contains(a))
            .map(|a| self.shape()[a])
            .product();
        if ax.iter().any(|&a| self.shape()[a] == 0) && out_numel > 0 {
            return Err(Error::invalid(
                op,
                format!(
                    "cannot reduce over an empty axis (shape {:?}, axes {ax:?}): {op} has no identity",
                    self.shape()
                ),
            ));
        }
        let reduce = |t: &Tensor| {
            if high {
                t.max(axes.clone(), keepdims)
            } else {
                t.min(axes.clone(), keepdims)
            }
        };
        if !dt.is_float() {
            return reduce(self);
        }
        let fill = if high {
            f64::NEG_INFINITY
        } else {
            f64::INFINITY
        };
        let (filled, m) = self.nan_filled(fill)?;
        let r = reduce(&filled)?;
        let all_nan = m.all(axes.clone(), keepdims)?;
        Tensor::where_cond(&all_nan, f64::NAN, &r)
    }

    /// Maximum over `axes` ignoring NaN (NumPy's `nanmax`): a group of only
    /// NaN gives NaN (NumPy also warns); reducing an empty axis is an error.
    /// Real and integer dtypes (integers: the plain [`Tensor::max`]).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F64, &[2, 2], &[1., f64::NAN, f64::NAN, f64::NAN]).unwrap();
    /// assert_eq!(x.nanmax(1, false).unwrap().to_string(), "[1, nan]");
    /// assert_eq!(x.nanmax(None, false).unwrap().item::<f64>().unwrap(), 1.0);
    /// ```
    pub fn nanmax(&self, axes: impl Into<Axes>, keepdims: bool) -> Result<Tensor> {
        self.nan_extreme("nanmax", true, axes.into(), keepdims)
    }

    /// Minimum over `axes` ignoring NaN; as [`Tensor::nanmax`].
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F32, &[3], &[f64::NAN, 2., -1.]).unwrap();
    /// assert_eq!(x.nanmin(None, false).unwrap().item::<f32>().unwrap(), -1.0);
    /// ```
    pub fn nanmin(&self, axes: impl Into<Axes>, keepdims: bool) -> Result<Tensor> {
        self.nan_extreme("nanmin", false, axes.into(), keepdims)
    }
}
