//! The cumulative scans beyond cumsum/cumprod: `cummax` and `cummin` (values
//! and i32 indices) and `logcumsumexp`, along one axis, optionally in reverse
//! (Nx's `reverse:`).
//!
//! Each is composed of existing elementwise primitives as a Hillis–Steele scan:
//! ⌈log2 n⌉ passes, pass `k` combining every element with the one `2^k` before
//! it through an associative rule. The work is O(n log n) instead of O(n), but
//! every step is a vectorised, multi-threaded elementwise op and the GPU runs
//! the same code with no kernel of its own.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::normalize_axis;
use crate::tensor::Tensor;

/// Options of the `_with` scans ([`Tensor::cummax_with`],
/// [`Tensor::cummin_with`], [`Tensor::logcumsumexp_with`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ScanOptions {
    /// Scan from the end of the axis toward its start (Nx's `reverse: true`):
    /// element `i` combines elements `i..n`. Default false.
    pub reverse: bool,
}

/// The view `start..start+len` of `axis`.
pub(crate) fn narrow(t: &Tensor, axis: usize, start: usize, len: usize) -> Tensor {
    t.with_layout(t.layout().slice_axis(axis, start, len, 1))
}

/// `t` flattened when `axis` is `None` (as cumsum), with the resolved axis.
fn scan_input(op: &str, t: &Tensor, axis: Option<isize>) -> Result<(Tensor, usize)> {
    match axis {
        None => Ok((t.reshape([t.size() as isize])?, 0)),
        Some(a) if t.ndim() == 0 => {
            normalize_axis(op, a, 1)?;
            Ok((t.reshape([1])?, 0))
        }
        Some(a) => Ok((t.clone(), normalize_axis(op, a, t.ndim())?)),
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Extreme {
    Max,
    Min,
}

/// One Hillis–Steele scan along `axis` of the state `s` (tensors of one
/// shape), `combine(earlier, later)` being associative.
fn hillis_steele(
    s: Vec<Tensor>,
    axis: usize,
    combine: impl Fn(&[Tensor], &[Tensor]) -> Result<Vec<Tensor>>,
) -> Result<Vec<Tensor>> {
    let n = s[0].shape()[axis];
    let mut s = s;
    let mut k = 1;
    while k < n {
        let early: Vec<Tensor> = s.iter().map(|t| narrow(t, axis, 0, n - k)).collect();
        let late: Vec<Tensor> = s.iter().map(|t| narrow(t, axis, k, n - k)).collect();
        let tail = combine(&early, &late)?;
        s = s
            .iter()
            .zip(tail)
            .map(|(t, tl)| Tensor::concatenate(&[narrow(t, axis, 0, k), tl], axis as isize))
            .collect::<Result<_>>()?;
        k *= 2;
    }
    Ok(s)
}

impl Tensor {
    fn cum_extreme(
        &self,
        op: &str,
        which: Extreme,
        axis: Option<isize>,
        opts: ScanOptions,
    ) -> Result<(Tensor, Tensor)> {
        if self.dtype().is_complex() {
            return Err(Error::dtype(op, self.dtype()));
        }
        let (x, axis) = scan_input(op, self, axis)?;
        let n = x.shape()[axis];
        if n > i32::MAX as usize {
            return Err(Error::invalid(
                op,
                format!("axis of length {n} does not fit i32 indices"),
            ));
        }
        let x = if opts.reverse {
            x.flip(axis as isize)?
        } else {
            x
        };
        let mut ishape = vec![1usize; x.ndim()];
        ishape[axis] = n;
        let idx = Tensor::arange_on(DType::I32, 0, n as i64, 1, x.device())?
            .reshape(&ishape[..])?
            .broadcast_to(x.shape())?;
        let s = hillis_steele(vec![x, idx], axis, |e, l| {
            // The earlier element wins when it is NaN (the first NaN
            // propagates) or strictly better; ties keep the later index.
            let better = match which {
                Extreme::Max => e[0].cmpgt(&l[0])?,
                Extreme::Min => e[0].cmplt(&l[0])?,
            };
            let take = e[0].cmpne(&e[0])?.logical_or(&better)?;
            Ok(vec![
                Tensor::where_cond(&take, &e[0], &l[0])?,
                Tensor::where_cond(&take, &e[1], &l[1])?,
            ])
        })?;
        let (mut v, mut i) = (s[0].clone(), s[1].clone());
        if opts.reverse {
            v = v.flip(axis as isize)?;
            i = i.flip(axis as isize)?.rsub(n as i32 - 1)?;
        }
        Ok((v, i))
    }

    /// Running maximum along `axis` and the i32 index (into the axis) where
    /// each running maximum was found; `None` scans the flattened tensor (a
    /// 1-D result, as [`Tensor::cumsum`]). Real and integer dtypes. Ties give
    /// the most recent index (PyTorch's `cummax`); NaN counts as the largest,
    /// so from the first NaN on the values are NaN with that NaN's index.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[6], &[1, 3, 2, 3, 0, 5]).unwrap();
    /// let (v, i) = x.cummax(0).unwrap();
    /// assert_eq!(v.to_vec::<i32>().unwrap(), vec![1, 3, 3, 3, 3, 5]);
    /// assert_eq!(i.to_vec::<i32>().unwrap(), vec![0, 1, 1, 3, 3, 5]);
    /// ```
    pub fn cummax(&self, axis: impl Into<Option<isize>>) -> Result<(Tensor, Tensor)> {
        self.cum_extreme("cummax", Extreme::Max, axis.into(), ScanOptions::default())
    }

    /// [`Tensor::cummax`] with options: `reverse` scans from the end (element
    /// `i` is the maximum of `i..n`; indices still count from the start).
    ///
    /// ```
    /// use rnx::{ScanOptions, Tensor, DType};
    /// let x = Tensor::create(DType::F32, &[4], &[1., 4., 2., 3.]).unwrap();
    /// let (v, i) = x.cummax_with(0, ScanOptions { reverse: true }).unwrap();
    /// assert_eq!(v.to_string(), "[4, 4, 3, 3]");
    /// assert_eq!(i.to_vec::<i32>().unwrap(), vec![1, 1, 3, 3]);
    /// ```
    pub fn cummax_with(
        &self,
        axis: impl Into<Option<isize>>,
        opts: ScanOptions,
    ) -> Result<(Tensor, Tensor)> {
        self.cum_extreme("cummax", Extreme::Max, axis.into(), opts)
    }

    /// Running minimum and its indices; as [`Tensor::cummax`] (NaN counts as
    /// the smallest: it propagates too).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F64, &[2, 3], &[3., 1., 2., 0., f64::NAN, -1.]).unwrap();
    /// let (v, i) = x.cummin(1).unwrap();
    /// assert_eq!(v.to_string(), "[[3, 1, 1],\n [0, nan, nan]]");
    /// assert_eq!(i.to_vec::<i32>().unwrap(), vec![0, 1, 1, 0, 1, 1]);
    /// ```
    pub fn cummin(&self, axis: impl Into<Option<isize>>) -> Result<(Tensor, Tensor)> {
        self.cum_extreme("cummin", Extreme::Min, axis.into(), ScanOptions::default())
    }

    /// [`Tensor::cummin`] with options (see [`Tensor::cummax_with`]).
    pub fn cummin_with(
        &self,
        axis: impl Into<Option<isize>>,
        opts: ScanOptions,
    ) -> Result<(Tensor, Tensor)> {
        self.cum_extreme("cummin", Extreme::Min, axis.into(), opts)
    }

    /// `ln(cumsum(exp(x)))` along `axis` without overflow or underflow: each
    /// step is the stable `logaddexp(a, b) = max + ln(1 + exp(min - max))`
    /// (float dtypes; `None` scans the flattened tensor). -inf is the identity,
    /// +inf stays +inf, NaN propagates.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F64, &[3], &[-1000.0, 0.0, 1000.0]).unwrap();
    /// let y = x.logcumsumexp(0).unwrap().to_vec::<f64>().unwrap();
    /// assert_eq!(y[0], -1000.0);
    /// assert!((y[1] - 0.0).abs() < 1e-12);
    /// assert_eq!(y[2], 1000.0);
    /// ```
    pub fn logcumsumexp(&self, axis: impl Into<Option<isize>>) -> Result<Tensor> {
        self.logcumsumexp_with(axis, ScanOptions::default())
    }

    /// [`Tensor::logcumsumexp`] with options (`reverse` scans from the end).
    pub fn logcumsumexp_with(
        &self,
        axis: impl Into<Option<isize>>,
        opts: ScanOptions,
    ) -> Result<Tensor> {
        let op = "logcumsumexp";
        if !self.dtype().is_float() {
            return Err(Error::dtype(op, self.dtype()));
        }
        let (x, axis) = scan_input(op, self, axis.into())?;
        let x = if opts.reverse {
            x.flip(axis as isize)?
        } else {
            x
        };
        let s = hillis_steele(vec![x], axis, |e, l| Ok(vec![logaddexp(&e[0], &l[0])?]))?;
        let y = s[0].clone();
        if opts.reverse {
            y.flip(axis as isize)
        } else {
            Ok(y)
        }
    }
}

/// `ln(exp(a) + exp(b))`, stable; equal infinities give themselves.
pub(crate) fn logaddexp(a: &Tensor, b: &Tensor) -> Result<Tensor> {
    let hi = a.maximum(b)?;
    let lo = a.minimum(b)?;
    let r = hi.add(&lo.sub(&hi)?.exp()?.log1p()?)?;
    Tensor::where_cond(&hi.isinf()?, &hi, &r)
}
