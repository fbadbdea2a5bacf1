//! Creation functions of the Nx API: init, empty, full, ones, zeros, scalar, the
//! `*_like` forms, eye, identity, arange, arange_f, linspace, logspace, geomspace
//! and meshgrid. Random creation is in `random.rs`.

use crate::device::Device;
use crate::dtype::{DType, Element, Scalar};
use crate::error::{Error, Result};
use crate::layout::checked_numel;
use crate::tensor::Tensor;

/// Indexing convention of [`Tensor::meshgrid`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum Indexing {
    /// Cartesian (default): outputs have shape `(len y, len x)`.
    #[default]
    Xy,
    /// Matrix: outputs have shape `(len x, len y)`.
    Ij,
}

fn from_host<T: Element>(v: Vec<T>, shape: &[usize]) -> Result<Tensor> {
    Tensor::from_slice(&v, shape)
}

impl Tensor {
    /// A tensor of zeros.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// assert_eq!(Tensor::zeros(DType::U8, &[2, 2]).unwrap().to_string(), "[[0, 0],\n [0, 0]]");
    /// ```
    pub fn zeros(dtype: DType, shape: &[usize]) -> Result<Tensor> {
        Tensor::zeros_on(dtype, shape, Device::Cpu)
    }

    /// A tensor of ones.
    pub fn ones(dtype: DType, shape: &[usize]) -> Result<Tensor> {
        Tensor::full(dtype, shape, 1u8)
    }

    /// Nx's `empty`: a tensor whose contents are unspecified (like NumPy's
    /// `empty`, values of freed tensors may show through; the memory is never
    /// uninitialised, so reading it is defined). Use it for outputs.
    pub fn empty(dtype: DType, shape: &[usize]) -> Result<Tensor> {
        Tensor::empty_on(dtype, shape, Device::Cpu)
    }

    /// A tensor filled with `value` (which must be representable in `dtype`).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let t = Tensor::full(DType::F32, &[2, 3], 3.14).unwrap();
    /// assert_eq!(t.to_string(), "[[3.14, 3.14, 3.14],\n [3.14, 3.14, 3.14]]");
    /// assert!(Tensor::full(DType::U8, &[2], 300).is_err());
    /// ```
    pub fn full(dtype: DType, shape: &[usize], value: impl Into<Scalar>) -> Result<Tensor> {
        Tensor::full_on(dtype, shape, value, Device::Cpu)
    }

    /// [`Tensor::full`] on `device` (filled there, no transfer).
    ///
    /// ```
    /// use rnx::{Tensor, DType, Device};
    /// let t = Tensor::full_on(DType::I32, &[2], 7, Device::Cpu).unwrap();
    /// assert_eq!(t.to_vec::<i32>().unwrap(), vec![7, 7]);
    /// ```
    pub fn full_on(
        dtype: DType,
        shape: &[usize],
        value: impl Into<Scalar>,
        device: Device,
    ) -> Result<Tensor> {
        let v = value.into().to_dtype(dtype, "full")?;
        Tensor::filled_on("full", v, shape, device)
    }

    /// Ones of `dtype` on `device`.
    pub fn ones_on(dtype: DType, shape: &[usize], device: Device) -> Result<Tensor> {
        Tensor::full_on(dtype, shape, 1, device)
    }

    /// A rank-0 tensor holding `value`.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let s = Tensor::scalar(DType::I64, 7).unwrap();
    /// assert_eq!((s.ndim(), s.to_string()), (0, "7".to_string()));
    /// ```
    pub fn scalar(dtype: DType, value: impl Into<Scalar>) -> Result<Tensor> {
        Tensor::full(dtype, &[], value)
    }

    /// Zeros of this tensor's shape and dtype, on its device.
    pub fn zeros_like(&self) -> Result<Tensor> {
        Tensor::zeros_on(self.dtype(), self.shape(), self.device())
    }
    /// Ones of this tensor's shape and dtype.
    pub fn ones_like(&self) -> Result<Tensor> {
        self.full_like(1u8)
    }
    /// A tensor of this shape and dtype with unspecified contents (see [`Tensor::empty`]).
    pub fn empty_like(&self) -> Result<Tensor> {
        Tensor::empty_on(self.dtype(), self.shape(), self.device())
    }
    /// `value` in this tensor's shape and dtype.
    pub fn full_like(&self, value: impl Into<Scalar>) -> Result<Tensor> {
        let v = value.into().to_dtype(self.dtype(), "full_like")?;
        Tensor::filled_on("full_like", v, self.shape(), self.device())
    }
    /// `v` (already of the target dtype) in `shape`: fresh zero pages for +0
    /// (no pass over memory), otherwise one fill pass over reusable memory.
    fn filled_on(op: &str, v: Scalar, shape: &[usize], device: Device) -> Result<Tensor> {
        let (re, im) = v.to_re_im();
        if re == 0.0 && !re.is_sign_negative() && im == 0.0 && !im.is_sign_negative() {
            return Tensor::zeros_on(v.dtype(), shape, device);
        }
        let t = Tensor::empty_on(v.dtype(), shape, device)?;
        super::locked(op, &[], &[&t], || t.backend().fill(&t, v))?;
        Ok(t)
    }

    /// A rank-0 tensor of this tensor's dtype.
    pub fn scalar_like(&self, value: impl Into<Scalar>) -> Result<Tensor> {
        let t = Tensor::scalar(self.dtype(), value)?;
        t.to_device(self.device())
    }

    /// Element at index `i` is `f(i)` (Nx's `init`); each value must be
    /// representable in `dtype`.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let t = Tensor::init(DType::I32, &[2, 3], |i| (i[0] + i[1]) as i32).unwrap();
    /// assert_eq!(t.to_string(), "[[0, 1, 2],\n [1, 2, 3]]");
    /// ```
    pub fn init<S: Into<Scalar>>(
        dtype: DType,
        shape: &[usize],
        mut f: impl FnMut(&[usize]) -> S,
    ) -> Result<Tensor> {
        let n = checked_numel("init", shape)?;
        crate::dispatch!(dtype, T => {
            let mut v: Vec<T> = Vec::with_capacity(n);
            let mut idx = vec![0usize; shape.len()];
            for _ in 0..n {
                v.push(f(&idx).into().to_dtype(dtype, "init")?.get::<T>());
                for a in (0..shape.len()).rev() {
                    idx[a] += 1;
                    if idx[a] < shape[a] {
                        break;
                    }
                    idx[a] = 0;
                }
            }
            from_host(v, shape)
        })
    }

    /// An `m x n` matrix (m defaults to n) with ones on diagonal `k` (positive
    /// above the main diagonal, negative below).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let t = Tensor::eye(DType::I32, 3, Some(2), -1).unwrap();
    /// assert_eq!(t.to_string(), "[[0, 0, 0],\n [1, 0, 0]]");
    /// ```
    pub fn eye(dtype: DType, n: usize, m: Option<usize>, k: isize) -> Result<Tensor> {
        let m = m.unwrap_or(n);
        Tensor::init(dtype, &[m, n], |i| {
            (i[1] as isize - i[0] as isize == k) as u8
        })
    }

    /// The `n x n` identity matrix.
    pub fn identity(dtype: DType, n: usize) -> Result<Tensor> {
        Tensor::eye(dtype, n, None, 0)
    }

    /// Integers from `start` to `stop` (exclusive) by `step` (non-zero; negative
    /// steps count down). The length is `ceil((stop - start) / step)` (NumPy's
    /// rule; Nx's prose says "rounded toward zero", which would drop the last
    /// value of `arange 0 10 3`), and 0 when the range is empty. Works for every
    /// dtype; values must be representable.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// assert_eq!(Tensor::arange(DType::I32, 0, 10, 2).unwrap().to_string(), "[0, 2, 4, 6, 8]");
    /// assert_eq!(Tensor::arange(DType::I32, 5, 0, -1).unwrap().to_string(), "[5, 4, 3, 2, 1]");
    /// assert!(Tensor::arange(DType::I32, 0, 5, 0).is_err());
    /// ```
    pub fn arange(dtype: DType, start: i64, stop: i64, step: i64) -> Result<Tensor> {
        if step == 0 {
            return Err(Error::invalid("arange", "step must be non-zero"));
        }
        let span = stop as i128 - start as i128;
        let step128 = step as i128;
        let n = if (span > 0) != (step > 0) || span == 0 {
            0
        } else {
            let q = span / step128;
            (q + (span % step128 != 0) as i128) as usize
        };
        let last = start as i128 + (n as i128 - 1).max(0) * step128;
        for v in [start as i128, last] {
            if n > 0 {
                Scalar::I64(v as i64).to_dtype(dtype, "arange")?;
            }
        }
        crate::dispatch!(dtype, T => {
            let v: Vec<T> = (0..n).map(|i| T::from_i64_wrapping(start + i as i64 * step)).collect();
            from_host(v, &[n])
        })
    }

    /// Floats from `start` to `stop` (exclusive) by `step` (non-zero): element i is
    /// `start + i * step`, length `ceil((stop - start) / step)`.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let t = Tensor::arange_f(DType::F32, 0., 1., 0.2).unwrap();
    /// assert_eq!(t.to_string(), "[0, 0.2, 0.4, 0.6, 0.8]");
    /// let t = Tensor::arange_f(DType::F32, 1., 0., -0.25).unwrap();
    /// assert_eq!(t.to_string(), "[1, 0.75, 0.5, 0.25]");
    /// ```
    pub fn arange_f(dtype: DType, start: f64, stop: f64, step: f64) -> Result<Tensor> {
        if step == 0.0 || !step.is_finite() || !start.is_finite() || !stop.is_finite() {
            return Err(Error::invalid(
                "arange_f",
                format!(
                    "start {start}, stop {stop}, step {step}: step must be non-zero and all finite"
                ),
            ));
        }
        let q = ((stop - start) / step).ceil();
        let n = if q > 0.0 { q as usize } else { 0 };
        Tensor::from_f64_fn("arange_f", dtype, n, |i| start + i as f64 * step)
    }

    fn from_f64_fn(op: &str, dtype: DType, n: usize, f: impl Fn(usize) -> f64) -> Result<Tensor> {
        if dtype.is_complex() {
            return Err(Error::dtype(op, dtype));
        }
        crate::dispatch!(dtype, T => {
            let v: Vec<T> = (0..n).map(|i| <T as Element>::from_f64(f(i))).collect();
            from_host(v, &[n])
        })
    }

    /// `count` evenly spaced values from `start` to `stop` (included when
    /// `endpoint`). Computed in f64, then converted to `dtype`.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let t = Tensor::linspace(DType::F32, 0., 10., 5, false).unwrap();
    /// assert_eq!(t.to_string(), "[0, 2, 4, 6, 8]");
    /// ```
    pub fn linspace(
        dtype: DType,
        start: f64,
        stop: f64,
        count: usize,
        endpoint: bool,
    ) -> Result<Tensor> {
        let v = linspace_f64(start, stop, count, endpoint);
        Tensor::from_f64_fn("linspace", dtype, count, |i| v[i])
    }

    /// `base ** x` for x = `linspace(start_exp, stop_exp, count, endpoint)`.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// assert_eq!(Tensor::logspace(DType::F32, 0., 2., 3, true, 10.).unwrap().to_string(), "[1, 10, 100]");
    /// assert_eq!(Tensor::logspace(DType::F32, 0., 3., 4, true, 2.).unwrap().to_string(), "[1, 2, 4, 8]");
    /// ```
    pub fn logspace(
        dtype: DType,
        start_exp: f64,
        stop_exp: f64,
        count: usize,
        endpoint: bool,
        base: f64,
    ) -> Result<Tensor> {
        let v = linspace_f64(start_exp, stop_exp, count, endpoint);
        Tensor::from_f64_fn("logspace", dtype, count, |i| base.powf(v[i]))
    }

    /// Values evenly spaced on a log scale from `start` to `stop` (both > 0); the
    /// endpoints are exact.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// assert_eq!(Tensor::geomspace(DType::F32, 1., 1000., 4, true).unwrap().to_string(), "[1, 10, 100, 1000]");
    /// assert!(Tensor::geomspace(DType::F32, 0., 1., 4, true).is_err());
    /// ```
    pub fn geomspace(
        dtype: DType,
        start: f64,
        stop: f64,
        count: usize,
        endpoint: bool,
    ) -> Result<Tensor> {
        if !(start > 0.0 && stop > 0.0) {
            return Err(Error::invalid(
                "geomspace",
                format!("start {start} and stop {stop} must both be > 0"),
            ));
        }
        let mut v: Vec<f64> = linspace_f64(start.log10(), stop.log10(), count, endpoint)
            .into_iter()
            .map(|e| 10f64.powf(e))
            .collect();
        if count > 0 {
            v[0] = start;
        }
        if endpoint && count > 1 {
            v[count - 1] = stop;
        }
        Tensor::from_f64_fn("geomspace", dtype, count, |i| v[i])
    }

    /// Coordinate grids from two 1-D tensors. With [`Indexing::Xy`] both results
    /// have shape `(len y, len x)` (x varies along columns); with
    /// [`Indexing::Ij`] shape `(len x, len y)`.
    ///
    /// ```
    /// use rnx::{Tensor, DType, ops::creation::Indexing};
    /// let x = Tensor::linspace(DType::F32, 0., 2., 3, true).unwrap();
    /// let y = Tensor::linspace(DType::F32, 0., 1., 2, true).unwrap();
    /// let (xx, yy) = Tensor::meshgrid(&x, &y, Indexing::Xy).unwrap();
    /// assert_eq!(xx.to_string(), "[[0, 1, 2],\n [0, 1, 2]]");
    /// assert_eq!(yy.to_string(), "[[0, 0, 0],\n [1, 1, 1]]");
    /// ```
    pub fn meshgrid(x: &Tensor, y: &Tensor, indexing: Indexing) -> Result<(Tensor, Tensor)> {
        if x.ndim() != 1 || y.ndim() != 1 {
            return Err(Error::invalid(
                "meshgrid",
                format!(
                    "inputs must be 1-D, got shapes {:?} and {:?}",
                    x.shape(),
                    y.shape()
                ),
            ));
        }
        crate::ops::same_device("meshgrid", &[x, y])?;
        let (nx, ny) = (x.shape()[0], y.shape()[0]);
        // Each grid is a broadcast view of its input, then made contiguous.
        let (shape, xl, yl) = match indexing {
            Indexing::Xy => (
                [ny, nx],
                x.layout().unsqueeze(0).broadcast_to(&[ny, nx])?,
                y.layout().unsqueeze(1).broadcast_to(&[ny, nx])?,
            ),
            Indexing::Ij => (
                [nx, ny],
                x.layout().unsqueeze(1).broadcast_to(&[nx, ny])?,
                y.layout().unsqueeze(0).broadcast_to(&[nx, ny])?,
            ),
        };
        debug_assert_eq!(xl.shape(), &shape);
        Ok((x.with_layout(xl).copy()?, y.with_layout(yl).copy()?))
    }
}

/// NumPy's linspace in f64: `start + i * step`, with the last value exactly `stop`
/// when `endpoint`.
fn linspace_f64(start: f64, stop: f64, count: usize, endpoint: bool) -> Vec<f64> {
    let div = if endpoint {
        count.saturating_sub(1)
    } else {
        count
    };
    let step = if div > 0 {
        (stop - start) / div as f64
    } else {
        0.0
    };
    let mut v: Vec<f64> = (0..count).map(|i| start + i as f64 * step).collect();
    if endpoint && count > 1 {
        v[count - 1] = stop;
    }
    v
}
