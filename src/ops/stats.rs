//! Statistics over a set of axes: `median`, `quantile`/`quantiles`/
//! `percentile` (NumPy's thirteen methods), `ptp`, `average` (weights),
//! `standardize`, `logmeanexp`, and the tolerance comparisons `isclose` /
//! `allclose`.
//!
//! All are composed of existing primitives (sort along an axis, views,
//! elementwise arithmetic, reductions), so they run on every device.
//!
//! Dtype rule (rnx has no implicit promotion): the interpolating statistics
//! (`median`, and `quantile` with a method that may interpolate) need a float
//! dtype and return it; cast integers first (NumPy would return f64). The
//! methods that pick one element (`Lower`, `Higher`, `Nearest`,
//! `InvertedCdf`, `ClosestObservation`) also take integer dtypes and keep them.

use super::reduce::{keep_shape, resolve_axes};
use super::scan::narrow;
use crate::axes::Axes;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// How [`Tensor::quantile_with`] turns a probability `q` into a value of the
/// `n` sorted elements (NumPy's `method=`, same names and formulas; the
/// Hyndman–Fan numbers in brackets). Continuous methods interpolate linearly
/// between the two neighbouring order statistics; discrete ones pick one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum QuantileMethod {
    /// Virtual index `(n - 1) q`, interpolated [H&F 7]. NumPy's default.
    #[default]
    Linear,
    /// The element at `floor((n - 1) q)` (discrete).
    Lower,
    /// The element at `ceil((n - 1) q)` (discrete).
    Higher,
    /// The mean of `Lower` and `Higher` (the element itself when they meet).
    Midpoint,
    /// The element at `(n - 1) q` rounded half to even (discrete).
    Nearest,
    /// [H&F 1] the inverse of the empirical CDF (discrete).
    InvertedCdf,
    /// [H&F 2] as `InvertedCdf`, averaging at discontinuities.
    AveragedInvertedCdf,
    /// [H&F 3] the nearest even order statistic at ties (discrete).
    ClosestObservation,
    /// [H&F 4] linear interpolation of the empirical CDF.
    InterpolatedInvertedCdf,
    /// [H&F 5] piecewise linear with nodes at `(k - 0.5) / n`.
    Hazen,
    /// [H&F 6] nodes at `k / (n + 1)`.
    Weibull,
    /// [H&F 8] approximately median-unbiased whatever the distribution.
    MedianUnbiased,
    /// [H&F 9] approximately unbiased for normally distributed data.
    NormalUnbiased,
}

impl QuantileMethod {
    /// Whether the method only ever picks an element (so integers work).
    fn is_discrete(self) -> bool {
        use QuantileMethod::*;
        matches!(
            self,
            Lower | Higher | Nearest | InvertedCdf | ClosestObservation
        )
    }

    /// Where the quantile `q` of `n >= 1` sorted elements lies.
    fn pick(self, n: usize, q: f64) -> Pick {
        use QuantileMethod::*;
        let last = (n - 1) as f64;
        let idx = |v: f64| Pick::At(v.clamp(0.0, last) as usize);
        // NumPy's continuous path: clip at the ends, else lerp between
        // floor and floor + 1 with the given fractional part.
        let lerp = |v: f64, gamma: Option<f64>| {
            if v.is_nan() || v >= last {
                return Pick::At(n - 1);
            }
            if v < 0.0 {
                return Pick::At(0);
            }
            let lo = v.floor();
            let g = gamma.unwrap_or(v - lo);
            if g == 0.0 {
                Pick::At(lo as usize)
            } else {
                Pick::Lerp(lo as usize, lo as usize + 1, g)
            }
        };
        let nf = n as f64;
        let hf = |alpha: f64, beta: f64| nf * q + (alpha + q * (1.0 - alpha - beta)) - 1.0;
        match self {
            Linear => lerp(last * q, None),
            Lower => idx((last * q).floor()),
            Higher => idx((last * q).ceil()),
            Nearest => idx(round_half_even(last * q)),
            Midpoint => {
                let v = last * q;
                lerp(v, Some(if v.fract() == 0.0 { 0.0 } else { 0.5 }))
            }
            InvertedCdf => {
                let v = nf * q - 1.0;
                let lo = v.floor();
                idx(if v - lo == 0.0 { lo } else { lo + 1.0 })
            }
            ClosestObservation => {
                let v = nf * q - 1.5;
                let lo = v.floor();
                let odd = (lo as i64).rem_euclid(2) == 1;
                idx(if v - lo == 0.0 && odd { lo } else { lo + 1.0 })
            }
            AveragedInvertedCdf => {
                let v = nf * q - 1.0;
                lerp(v, Some(if v - v.floor() == 0.0 { 0.5 } else { 1.0 }))
            }
            InterpolatedInvertedCdf => lerp(hf(0.0, 1.0), None),
            Hazen => lerp(hf(0.5, 0.5), None),
            Weibull => lerp(hf(0.0, 0.0), None),
            MedianUnbiased => lerp(hf(1.0 / 3.0, 1.0 / 3.0), None),
            NormalUnbiased => lerp(hf(3.0 / 8.0, 3.0 / 8.0), None),
        }
    }
}

fn round_half_even(v: f64) -> f64 {
    let r = v.round();
    if (v - v.trunc()).abs() == 0.5 && r % 2.0 != 0.0 {
        r - v.signum()
    } else {
        r
    }
}

/// A position in the sorted axis: one element, or `a + g (b - a)`.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Pick {
    At(usize),
    Lerp(usize, usize, f64),
}

/// Options of [`Tensor::quantile_with`] and friends.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct QuantileOptions {
    /// The estimation method; default [`QuantileMethod::Linear`].
    pub method: QuantileMethod,
}

/// Options of [`Tensor::isclose`] / [`Tensor::allclose`] (NumPy's defaults).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct IsCloseOptions {
    /// Relative tolerance, scaled by `|other|`. Default 1e-5.
    pub rtol: f64,
    /// Absolute tolerance. Default 1e-8.
    pub atol: f64,
    /// Whether NaN compares close to NaN. Default false.
    pub equal_nan: bool,
}

impl Default for IsCloseOptions {
    fn default() -> Self {
        IsCloseOptions {
            rtol: 1e-5,
            atol: 1e-8,
            equal_nan: false,
        }
    }
}

/// Options of [`Tensor::standardize_with`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct StandardizeOptions {
    /// Added to the variance before the square root. Default 1e-10 (Nx's).
    pub epsilon: f64,
}

impl Default for StandardizeOptions {
    fn default() -> Self {
        StandardizeOptions { epsilon: 1e-10 }
    }
}

/// `x` with the reduced axes moved last and flattened into one: returns the
/// view/copy of shape `kept + [n]`, the resolved axes and `n`.
fn to_rows(op: &str, x: &Tensor, axes: &Axes) -> Result<(Tensor, Vec<usize>, usize)> {
    let axes = resolve_axes(op, x.ndim(), axes)?;
    let kept: Vec<usize> = (0..x.ndim()).filter(|a| !axes.contains(a)).collect();
    let perm: Vec<isize> = kept.iter().chain(&axes).map(|&a| a as isize).collect();
    let n: usize = axes.iter().map(|&a| x.shape()[a]).product();
    let mut shape: Vec<usize> = kept.iter().map(|&a| x.shape()[a]).collect();
    shape.push(n);
    let t = if x.ndim() == 0 {
        x.reshape([1])?
    } else {
        x.transpose(perm)?.reshape(&shape[..])?
    };
    Ok((t, axes, n))
}

/// Element `i` of the last axis of `sorted` (the last axis dropped).
fn at_last(sorted: &Tensor, i: usize) -> Result<Tensor> {
    let ax = sorted.ndim() - 1;
    narrow(sorted, ax, i, 1).squeeze_axis(-1)
}

/// NumPy's `_lerp`: `a + g (b - a)`, from the nearer end so g = 1 gives b.
fn lerp(a: &Tensor, b: &Tensor, g: f64) -> Result<Tensor> {
    let d = b.sub(a)?;
    if g >= 0.5 {
        b.sub(&d.mul(1.0 - g)?)
    } else {
        a.add(&d.mul(g)?)
    }
}

impl Tensor {
    fn quantiles_impl(
        &self,
        op: &str,
        qs: &[f64],
        scale: f64,
        axes: Axes,
        keepdims: bool,
        method: Option<QuantileMethod>,
    ) -> Result<Vec<Tensor>> {
        let dt = self.dtype();
        let discrete = method.is_some_and(|m| m.is_discrete());
        if dt.is_complex() || (!dt.is_float() && !discrete) {
            return Err(Error::invalid(
                op,
                format!(
                    "{op} of dtype {dt} is not supported: cast to a float dtype{}",
                    if dt.is_complex() {
                        ""
                    } else {
                        " (or use a discrete method such as Lower, Higher or Nearest)"
                    }
                ),
            ));
        }
        for &q in qs {
            let q = q / scale;
            if !(0.0..=1.0).contains(&q) {
                return Err(Error::invalid(
                    op,
                    format!("q = {} must lie in [0, {scale}]", q * scale),
                ));
            }
        }
        let (rows, axes, n) = to_rows(op, self, &axes)?;
        if n == 0 {
            return Err(Error::invalid(
                op,
                format!(
                    "cannot take {op} over an empty axis (shape {:?}, axes {axes:?})",
                    self.shape()
                ),
            ));
        }
        let sorted = rows.sort_values(-1, false)?;
        // Sorting puts NaN last: a row holding NaN gives NaN.
        let last = at_last(&sorted, n - 1)?;
        let nan = if dt.is_float() {
            Some(last.isnan()?)
        } else {
            None
        };
        let out_shape = keep_shape(self.shape(), &axes);
        let mut outs = Vec::with_capacity(qs.len());
        for &q in qs {
            let q = q / scale;
            let r = match method {
                // The median: the mean of the two middle elements.
                None if n.is_multiple_of(2) => at_last(&sorted, n / 2 - 1)?
                    .add(&at_last(&sorted, n / 2)?)?
                    .mul(0.5)?,
                None => at_last(&sorted, n / 2)?,
                Some(m) => match m.pick(n, q) {
                    Pick::At(i) => at_last(&sorted, i)?,
                    Pick::Lerp(i, j, g) => lerp(&at_last(&sorted, i)?, &at_last(&sorted, j)?, g)?,
                },
            };
            let r = match &nan {
                Some(m) => Tensor::where_cond(m, &last, &r)?,
                None => r,
            };
            outs.push(if keepdims {
                r.reshape(&out_shape[..])?
            } else {
                r
            });
        }
        Ok(outs)
    }

    /// The median over `axes` (`None` = all, NumPy's `axis=None`): the middle
    /// element of each sorted group, or the mean of the two middle ones. Float
    /// dtypes (cast integers first); a group holding NaN gives NaN; an empty
    /// group is an error. Composed of a sort along the axis.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::create(DType::F64, &[2, 3], &[10., 7., 4., 3., 2., 1.]).unwrap();
    /// assert_eq!(a.median(None, false).unwrap().item::<f64>().unwrap(), 3.5);
    /// assert_eq!(a.median(0, false).unwrap().to_string(), "[6.5, 4.5, 2.5]");
    /// assert_eq!(a.median(1, true).unwrap().to_string(), "[[7],\n [2]]");
    /// ```
    pub fn median(&self, axes: impl Into<Axes>, keepdims: bool) -> Result<Tensor> {
        let mut v = self.quantiles_impl("median", &[0.5], 1.0, axes.into(), keepdims, None)?;
        Ok(v.remove(0))
    }

    /// The `q`-th quantile (`0 <= q <= 1`) over `axes` with NumPy's default
    /// `Linear` method: the sorted group's value at the virtual index
    /// `(n - 1) q`, interpolated. Float dtypes; NaN in a group gives NaN.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::create(DType::F64, &[2, 3], &[10., 7., 4., 3., 2., 1.]).unwrap();
    /// assert_eq!(a.quantile(0.5, None, false).unwrap().item::<f64>().unwrap(), 3.5);
    /// assert_eq!(a.quantile(0.5, 0, false).unwrap().to_string(), "[6.5, 4.5, 2.5]");
    /// assert!(a.quantile(1.5, None, false).is_err());
    /// ```
    pub fn quantile(&self, q: f64, axes: impl Into<Axes>, keepdims: bool) -> Result<Tensor> {
        self.quantile_with(q, axes, keepdims, QuantileOptions::default())
    }

    /// [`Tensor::quantile`] with a method (see [`QuantileMethod`]); the
    /// discrete methods also take integer dtypes.
    ///
    /// ```
    /// use rnx::{QuantileMethod, QuantileOptions, Tensor, DType};
    /// let a = Tensor::create(DType::I32, &[4], &[1, 2, 3, 4]).unwrap();
    /// let o = |method| QuantileOptions { method };
    /// assert_eq!(a.quantile_with(0.5, None, false, o(QuantileMethod::Lower)).unwrap().item::<i32>().unwrap(), 2);
    /// assert_eq!(a.quantile_with(0.5, None, false, o(QuantileMethod::Higher)).unwrap().item::<i32>().unwrap(), 3);
    /// let f = a.cast(DType::F64).unwrap();
    /// assert_eq!(f.quantile_with(0.4, None, false, o(QuantileMethod::Midpoint)).unwrap().item::<f64>().unwrap(), 2.5);
    /// ```
    pub fn quantile_with(
        &self,
        q: f64,
        axes: impl Into<Axes>,
        keepdims: bool,
        opts: QuantileOptions,
    ) -> Result<Tensor> {
        let mut v = self.quantiles_impl(
            "quantile",
            &[q],
            1.0,
            axes.into(),
            keepdims,
            Some(opts.method),
        )?;
        Ok(v.remove(0))
    }

    /// Several quantiles at once (one sort): the results stacked along a new
    /// first axis of length `qs.len()` (NumPy's `quantile` with an array `q`).
    ///
    /// ```
    /// use rnx::{QuantileOptions, Tensor, DType};
    /// let a = Tensor::create(DType::F32, &[5], &[5., 1., 4., 2., 3.]).unwrap();
    /// let q = a.quantiles(&[0.0, 0.25, 1.0], None, false, QuantileOptions::default()).unwrap();
    /// assert_eq!(q.to_string(), "[1, 2, 5]");
    /// ```
    pub fn quantiles(
        &self,
        qs: &[f64],
        axes: impl Into<Axes>,
        keepdims: bool,
        opts: QuantileOptions,
    ) -> Result<Tensor> {
        let v = self.quantiles_impl(
            "quantiles",
            qs,
            1.0,
            axes.into(),
            keepdims,
            Some(opts.method),
        )?;
        if v.is_empty() {
            return Err(Error::invalid("quantiles", "no quantiles given"));
        }
        Tensor::stack(&v, 0)
    }

    /// The `p`-th percentile (`0 <= p <= 100`): [`Tensor::quantile`] of
    /// `p / 100`.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::create(DType::F64, &[2, 3], &[10., 7., 4., 3., 2., 1.]).unwrap();
    /// assert_eq!(a.percentile(50.0, 1, false).unwrap().to_string(), "[7, 2]");
    /// ```
    pub fn percentile(&self, p: f64, axes: impl Into<Axes>, keepdims: bool) -> Result<Tensor> {
        self.percentile_with(p, axes, keepdims, QuantileOptions::default())
    }

    /// [`Tensor::percentile`] with a method.
    pub fn percentile_with(
        &self,
        p: f64,
        axes: impl Into<Axes>,
        keepdims: bool,
        opts: QuantileOptions,
    ) -> Result<Tensor> {
        let mut v = self.quantiles_impl(
            "percentile",
            &[p],
            100.0,
            axes.into(),
            keepdims,
            Some(opts.method),
        )?;
        Ok(v.remove(0))
    }

    /// Peak to peak: `max - min` over `axes` (real and integer dtypes; integers
    /// wrap as NumPy's). NaN propagates; an empty group is an error.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[2, 2], &[4, 9, 2, 10]).unwrap();
    /// assert_eq!(x.ptp(None, false).unwrap().item::<i32>().unwrap(), 8);
    /// assert_eq!(x.ptp(1, false).unwrap().to_vec::<i32>().unwrap(), vec![5, 8]);
    /// ```
    pub fn ptp(&self, axes: impl Into<Axes>, keepdims: bool) -> Result<Tensor> {
        if self.dtype().is_complex() {
            return Err(Error::dtype("ptp", self.dtype()));
        }
        let axes = axes.into();
        let ax = resolve_axes("ptp", self.ndim(), &axes)?;
        if ax.iter().any(|&a| self.shape()[a] == 0) {
            return Err(Error::invalid(
                "ptp",
                format!(
                    "cannot reduce over an empty axis (shape {:?}, axes {ax:?})",
                    self.shape()
                ),
            ));
        }
        self.max(axes.clone(), keepdims)?
            .sub(&self.min(axes, keepdims)?)
    }

    /// The (weighted) average over `axes`: `sum(x w) / sum(w)`. Without
    /// weights it is [`Tensor::mean`]. `weights` has `self`'s dtype and either
    /// its shape or, when `axes` is one axis, the 1-D shape `[len of that
    /// axis]`. Float dtypes. Weights summing to zero in a group are an error.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F64, &[4], &[1., 2., 3., 4.]).unwrap();
    /// let w = Tensor::create(DType::F64, &[4], &[4., 3., 2., 1.]).unwrap();
    /// assert_eq!(x.average(None, Some(&w), false).unwrap().item::<f64>().unwrap(), 2.0);
    /// let m = Tensor::create(DType::F64, &[3, 2], &[0., 1., 2., 3., 4., 5.]).unwrap();
    /// let w = Tensor::create(DType::F64, &[2], &[0.25, 0.75]).unwrap();
    /// assert_eq!(m.average(1, Some(&w), false).unwrap().to_string(), "[0.75, 2.75, 4.75]");
    /// ```
    pub fn average(
        &self,
        axes: impl Into<Axes>,
        weights: Option<&Tensor>,
        keepdims: bool,
    ) -> Result<Tensor> {
        let op = "average";
        let axes = axes.into();
        let dt = self.dtype();
        if !dt.is_float() {
            return Err(Error::invalid(
                op,
                format!("{op} of dtype {dt} is not supported: cast to a float dtype"),
            ));
        }
        let Some(w) = weights else {
            return self.mean(axes, keepdims);
        };
        super::same_dtype(op, &[self, w])?;
        super::same_device(op, &[self, w])?;
        let ax = resolve_axes(op, self.ndim(), &axes)?;
        let w = if w.shape() == self.shape() {
            w.clone()
        } else if w.ndim() == 1
            && ax.len() == 1
            && axes.as_list().is_some()
            && w.shape()[0] == self.shape()[ax[0]]
        {
            let mut s = vec![1usize; self.ndim()];
            s[ax[0]] = w.shape()[0];
            w.reshape(&s[..])?.broadcast_to(self.shape())?
        } else {
            return Err(Error::shapes(
                op,
                self.shape(),
                w.shape(),
                "weights must have the input's shape, or be 1-D along the one averaged axis",
            ));
        };
        let den = w.sum(axes.clone(), keepdims)?;
        if den.cmpeq(0.0)?.any(None, false)?.item::<u8>()? != 0 {
            return Err(Error::invalid(
                op,
                "weights sum to zero, can't be normalized",
            ));
        }
        self.mul(&w)?.sum(axes, keepdims)?.div(&den)
    }

    /// `(x - mean) / sqrt(var + epsilon)` over `axes` (`None` = all; Nx's
    /// `standardize`), with the default epsilon 1e-10. Float dtypes.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F64, &[5], &[1., 2., 3., 4., 5.]).unwrap();
    /// let s = x.standardize(None).unwrap().to_vec::<f64>().unwrap();
    /// let want = [-1.4142135, -0.7071067, 0.0, 0.7071067, 1.4142135];
    /// assert!(s.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-6));
    /// ```
    pub fn standardize(&self, axes: impl Into<Axes>) -> Result<Tensor> {
        self.standardize_with(axes, StandardizeOptions::default())
    }

    /// [`Tensor::standardize`] with options (`epsilon`, which must be finite
    /// and non-negative).
    pub fn standardize_with(
        &self,
        axes: impl Into<Axes>,
        opts: StandardizeOptions,
    ) -> Result<Tensor> {
        let op = "standardize";
        if !self.dtype().is_float() {
            return Err(Error::invalid(
                op,
                format!(
                    "{op} of dtype {} is not supported: cast to a float dtype",
                    self.dtype()
                ),
            ));
        }
        if !opts.epsilon.is_finite() || opts.epsilon < 0.0 {
            return Err(Error::invalid(
                op,
                format!(
                    "epsilon must be finite and non-negative, got {}",
                    opts.epsilon
                ),
            ));
        }
        let axes = axes.into();
        let c = self.sub(&self.mean(axes.clone(), true)?)?;
        let var = c.square()?.mean(axes, true)?;
        c.mul(&var.add(opts.epsilon)?.rsqrt()?)
    }

    /// `ln(mean(exp(x)))` over `axes`, stably: [`Tensor::logsumexp`] minus
    /// `ln(n)` (float dtypes). An empty group gives NaN.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F64, &[2], &[1000.0, 1000.0]).unwrap();
    /// assert!((x.logmeanexp(None, false).unwrap().item::<f64>().unwrap() - 1000.0).abs() < 1e-12);
    /// ```
    pub fn logmeanexp(&self, axes: impl Into<Axes>, keepdims: bool) -> Result<Tensor> {
        let axes = axes.into();
        let ax = resolve_axes("logmeanexp", self.ndim(), &axes)?;
        let n: usize = ax.iter().map(|&a| self.shape()[a]).product();
        let lse = self.logsumexp(axes, keepdims)?;
        if n == 0 {
            return lse.full_like(f64::NAN);
        }
        lse.sub((n as f64).ln())
    }

    /// 1 (u8) where `self` and `other` (broadcast, same dtype) are close:
    /// NumPy's asymmetric `|a - b| <= atol + rtol |b|` with `b` finite, or
    /// `a == b` (so equal infinities are close); with `equal_nan`, NaN is close
    /// to NaN. Floats (f16/bf16 compared in f32) and integers (compared in
    /// f64, as NumPy); complex is unsupported.
    ///
    /// ```
    /// use rnx::{IsCloseOptions, Tensor, DType};
    /// let a = Tensor::create(DType::F64, &[3], &[1e10, 1e-8, f64::NAN]).unwrap();
    /// let b = Tensor::create(DType::F64, &[3], &[1.00001e10, 1e-9, f64::NAN]).unwrap();
    /// assert_eq!(a.isclose(&b, IsCloseOptions::default()).unwrap().to_vec::<u8>().unwrap(), vec![1, 1, 0]);
    /// let o = IsCloseOptions { equal_nan: true, ..Default::default() };
    /// assert_eq!(a.isclose(&b, o).unwrap().to_vec::<u8>().unwrap(), vec![1, 1, 1]);
    /// ```
    pub fn isclose(&self, other: &Tensor, opts: IsCloseOptions) -> Result<Tensor> {
        isclose_impl("isclose", self, other, opts)
    }

    /// Whether every element pair is [`Tensor::isclose`].
    ///
    /// ```
    /// use rnx::{IsCloseOptions, Tensor, DType};
    /// let a = Tensor::create(DType::F32, &[2], &[1.0, 2.0]).unwrap();
    /// let b = Tensor::create(DType::F32, &[2], &[1.0, 2.000001]).unwrap();
    /// assert!(a.allclose(&b, IsCloseOptions::default()).unwrap());
    /// assert!(!a.allclose(&b.add(0.1).unwrap(), IsCloseOptions::default()).unwrap());
    /// ```
    pub fn allclose(&self, other: &Tensor, opts: IsCloseOptions) -> Result<bool> {
        let c = isclose_impl("allclose", self, other, opts)?;
        Ok(c.all(None, false)?.item::<u8>()? != 0)
    }
}

fn isclose_impl(op: &str, a: &Tensor, b: &Tensor, o: IsCloseOptions) -> Result<Tensor> {
    super::same_dtype(op, &[a, b])?;
    super::same_device(op, &[a, b])?;
    let dt = a.dtype();
    if o.rtol.is_nan() || o.atol.is_nan() {
        return Err(Error::invalid(
            op,
            format!("rtol {} and atol {} must not be NaN", o.rtol, o.atol),
        ));
    }
    let cd = match dt {
        crate::DType::F32 | crate::DType::F64 | crate::DType::C32 | crate::DType::C64 => dt,
        d if d.is_half() => crate::DType::F32,
        _ => crate::DType::F64,
    };
    let (x, y) = (a.cast(cd)?, b.cast(cd)?);
    let tol = y.abs()?.mul(o.rtol)?.add(o.atol)?;
    let r = x
        .sub(&y)?
        .abs()?
        .cmple(&tol)?
        .logical_and(&y.isfinite()?)?
        .logical_or(&x.cmpeq(&y)?)?;
    if o.equal_nan {
        r.logical_or(&x.isnan()?.logical_and(&y.isnan()?)?)
    } else {
        Ok(r)
    }
}
