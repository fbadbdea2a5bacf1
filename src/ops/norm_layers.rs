//! Nx's remaining activations `celu`, `glu`, `sparse_plus`, `sparse_sigmoid`,
//! `squareplus`, and the normalisation layers `rms_norm` and `layer_norm`
//! over a set of axes (optional weight and bias).
//!
//! The activations are composed of existing elementwise ops (a few passes
//! each); the normalisation layers are one backend primitive
//! (`ReduceBackend::norm`: fused on the CPU, a composition of the device's
//! primitives elsewhere). Float dtypes; parameters are f64, rounded to the
//! tensor's dtype.

use crate::axes::Axes;
use crate::backend::NormOp;
use crate::error::{Error, Result};
use crate::layout::normalize_axis;
use crate::tensor::Tensor;

use super::scan::narrow;

/// Options of [`Tensor::rms_norm`] and [`Tensor::layer_norm`].
#[derive(Clone, Copy, Debug)]
pub struct LayerNormOptions<'a> {
    /// Added to the mean square (variance) before the square root. Default
    /// 1e-6.
    pub epsilon: f64,
    /// Multiplies the normalised values (broadcast against the input, e.g.
    /// the shape of the normalised trailing axes). Default none.
    pub weight: Option<&'a Tensor>,
    /// Added last (broadcast likewise). Default none.
    pub bias: Option<&'a Tensor>,
}

impl Default for LayerNormOptions<'_> {
    fn default() -> Self {
        LayerNormOptions {
            epsilon: 1e-6,
            weight: None,
            bias: None,
        }
    }
}

fn float_only(op: &str, x: &Tensor) -> Result<()> {
    if !x.dtype().is_float() {
        return Err(Error::invalid(
            op,
            format!(
                "{op} of dtype {} is not supported: cast to a float dtype",
                x.dtype()
            ),
        ));
    }
    Ok(())
}

fn finite(op: &str, name: &str, v: f64) -> Result<()> {
    if !v.is_finite() {
        return Err(Error::invalid(
            op,
            format!("{name} must be finite, got {v}"),
        ));
    }
    Ok(())
}

/// The normalised axes (sorted): the last axis when `axes` is the default
/// (none for rank 0).
fn norm_axes(op: &str, x: &Tensor, axes: Axes) -> Result<Vec<usize>> {
    if axes.is_default() {
        return Ok(x.ndim().checked_sub(1).into_iter().collect());
    }
    super::reduce::resolve_axes(op, x.ndim(), &axes)
}

/// The checks shared by `rms_norm` and `layer_norm`: a float dtype and a
/// finite, non-negative epsilon.
fn check_norm(op: &str, x: &Tensor, opts: &LayerNormOptions<'_>) -> Result<()> {
    float_only(op, x)?;
    if !opts.epsilon.is_finite() || opts.epsilon < 0.0 {
        return Err(Error::invalid(
            op,
            format!(
                "epsilon must be finite and non-negative, got {}",
                opts.epsilon
            ),
        ));
    }
    Ok(())
}

/// `nop` over `axes` of `x`, times the weight, plus the bias: one call of
/// the backend primitive when the weight and bias broadcast to x's shape;
/// otherwise (they broadcast x to a larger shape) the primitive without them,
/// then a broadcasting multiply and add.
fn fused(
    op: &str,
    x: &Tensor,
    axes: Axes,
    nop: NormOp,
    o: &LayerNormOptions<'_>,
) -> Result<Tensor> {
    let axes = norm_axes(op, x, axes)?;
    for t in [o.weight, o.bias].into_iter().flatten() {
        super::same_dtype(op, &[x, t])?;
        super::same_device(op, &[x, t])?;
    }
    let spread = |t: Option<&Tensor>| t.map(|t| t.broadcast_to(x.shape()).ok());
    let (w, b) = (spread(o.weight), spread(o.bias));
    let inside = !matches!(w, Some(None)) && !matches!(b, Some(None));
    let (w, b) = if inside {
        (w.flatten(), b.flatten())
    } else {
        (None, None)
    };
    let out = Tensor::empty_on(x.dtype(), x.shape(), x.device())?;
    let reads: Vec<&Tensor> = [Some(x), w.as_ref(), b.as_ref()]
        .into_iter()
        .flatten()
        .collect();
    super::locked(op, &reads, &[&out], || {
        x.backend()
            .norm(nop, x, &axes, w.as_ref(), b.as_ref(), &out)
    })?;
    if inside {
        return Ok(out);
    }
    let y = match o.weight {
        Some(w) => out.mul(w)?,
        None => out,
    };
    match o.bias {
        Some(b) => y.add(b),
        None => Ok(y),
    }
}

impl Tensor {
    /// CELU: `x` for `x > 0`, else `alpha (exp(x / alpha) - 1)`; default
    /// alpha 1 (then it equals `elu`). `alpha` must be finite and non-zero.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F64, &[3], &[-2.0, 0.0, 3.0]).unwrap();
    /// let y = x.celu(Some(2.0)).unwrap().to_vec::<f64>().unwrap();
    /// assert!((y[0] - 2.0 * (-1f64).exp_m1()).abs() < 1e-15);
    /// assert_eq!(&y[1..], &[0.0, 3.0]);
    /// ```
    pub fn celu(&self, alpha: Option<f64>) -> Result<Tensor> {
        let op = "celu";
        float_only(op, self)?;
        let a = alpha.unwrap_or(1.0);
        finite(op, "alpha", a)?;
        if a == 0.0 {
            return Err(Error::invalid(op, "alpha must be non-zero"));
        }
        let neg = self.div(a)?.expm1()?.mul(a)?;
        Tensor::where_cond(&self.cmpgt(0.0)?, self, &neg)
    }

    /// Gated linear unit along `axis` (Nx's default -1): the axis is split in
    /// halves `a | b` and the result is `a * sigmoid(b)` (half the length).
    /// The axis length must be even.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F64, &[1, 4], &[1.0, 2.0, 0.0, 100.0]).unwrap();
    /// let y = x.glu(-1).unwrap();
    /// assert_eq!(y.shape(), &[1, 2]);
    /// assert_eq!(y.to_vec::<f64>().unwrap(), vec![0.5, 2.0]);
    /// ```
    pub fn glu(&self, axis: isize) -> Result<Tensor> {
        let op = "glu";
        float_only(op, self)?;
        let ax = normalize_axis(op, axis, self.ndim())?;
        let n = self.shape()[ax];
        if !n.is_multiple_of(2) {
            return Err(Error::invalid(
                op,
                format!("axis {axis} has odd length {n}; glu splits it in two halves"),
            ));
        }
        let a = narrow(self, ax, 0, n / 2);
        let b = narrow(self, ax, n / 2, n / 2);
        a.mul(&b.sigmoid()?)
    }

    /// Sparse plus: 0 for `x <= -1`, `(x + 1)² / 4` for `-1 < x < 1`, `x` for
    /// `x >= 1` (a smooth, sparse softplus).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F32, &[5], &[-2., -1., 0., 1., 2.]).unwrap();
    /// assert_eq!(x.sparse_plus().unwrap().to_vec::<f32>().unwrap(), vec![0., 0., 0.25, 1., 2.]);
    /// ```
    pub fn sparse_plus(&self) -> Result<Tensor> {
        float_only("sparse_plus", self)?;
        let q = self.add(1.0)?.square()?.mul(0.25)?;
        let r = Tensor::where_cond(&self.cmpge(1.0)?, self, &q)?;
        Tensor::where_cond(&self.cmple(-1.0)?, 0.0, &r)
    }

    /// Sparse sigmoid: `clamp((x + 1) / 2, 0, 1)` (0 below -1, 1 above 1).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F32, &[5], &[-2., -1., 0., 0.5, 2.]).unwrap();
    /// assert_eq!(x.sparse_sigmoid().unwrap().to_vec::<f32>().unwrap(), vec![0., 0., 0.5, 0.75, 1.]);
    /// ```
    pub fn sparse_sigmoid(&self) -> Result<Tensor> {
        float_only("sparse_sigmoid", self)?;
        self.add(1.0)?.mul(0.5)?.clamp(0.0, 1.0)
    }

    /// Squareplus: `(x + sqrt(x² + b)) / 2`; default `b = 4`; `b` must be
    /// finite and non-negative.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F64, &[3], &[0.0, 1.5, -1.5]).unwrap();
    /// assert_eq!(x.squareplus(None).unwrap().to_vec::<f64>().unwrap(), vec![1.0, 2.0, 0.5]);
    /// ```
    pub fn squareplus(&self, b: Option<f64>) -> Result<Tensor> {
        let op = "squareplus";
        float_only(op, self)?;
        let b = b.unwrap_or(4.0);
        finite(op, "b", b)?;
        if b < 0.0 {
            return Err(Error::invalid(
                op,
                format!("b must be non-negative, got {b}"),
            ));
        }
        self.add(&self.square()?.add(b)?.sqrt()?)?.mul(0.5)
    }

    /// RMS normalisation over `axes` (`None` = the last axis):
    /// `x / sqrt(mean(x²) + epsilon) * weight + bias` (weight and bias
    /// optional, broadcast against `x`, same dtype). Float dtypes.
    ///
    /// ```
    /// use rnx::{LayerNormOptions, Tensor, DType};
    /// let x = Tensor::create(DType::F64, &[2, 2], &[3.0, 4.0, 1.0, 1.0]).unwrap();
    /// let o = LayerNormOptions { epsilon: 0.0, ..Default::default() };
    /// let y = x.rms_norm(None, o).unwrap().to_vec::<f64>().unwrap();
    /// let r = 12.5f64.sqrt();
    /// let want = [3.0 / r, 4.0 / r, 1.0, 1.0];
    /// assert!(y.iter().zip(want).all(|(a, b)| (a - b).abs() < 1e-15));
    /// ```
    pub fn rms_norm(&self, axes: impl Into<Axes>, opts: LayerNormOptions<'_>) -> Result<Tensor> {
        let op = "rms_norm";
        check_norm(op, self, &opts)?;
        let nop = NormOp::Rms {
            epsilon: opts.epsilon,
        };
        fused(op, self, axes.into(), nop, &opts)
    }

    /// Layer normalisation over `axes` (`None` = the last axis):
    /// `(x - mean) / sqrt(var + epsilon) * weight + bias` with the population
    /// variance (weight and bias optional, broadcast, same dtype). Float
    /// dtypes.
    ///
    /// ```
    /// use rnx::{LayerNormOptions, Tensor, DType};
    /// let x = Tensor::create(DType::F64, &[2, 2], &[1.0, 3.0, 2.0, 6.0]).unwrap();
    /// let w = Tensor::create(DType::F64, &[2], &[2.0, 1.0]).unwrap();
    /// let b = Tensor::create(DType::F64, &[2], &[0.5, 0.5]).unwrap();
    /// let o = LayerNormOptions { epsilon: 0.0, weight: Some(&w), bias: Some(&b) };
    /// assert_eq!(x.layer_norm(-1, o).unwrap().to_vec::<f64>().unwrap(), vec![-1.5, 1.5, -1.5, 1.5]);
    /// ```
    pub fn layer_norm(&self, axes: impl Into<Axes>, opts: LayerNormOptions<'_>) -> Result<Tensor> {
        let op = "layer_norm";
        check_norm(op, self, &opts)?;
        let nop = NormOp::Layer {
            epsilon: opts.epsilon,
        };
        fused(op, self, axes.into(), nop, &opts)
    }
}
