//! Vector and matrix norms and the condition number (NumPy's `norm`, `cond`;
//! Nx's `LinAlg.norm`). Composed from `abs`, reductions and `svdvals` (the
//! 2-norm, -2 and nuclear norms), so the devices and dtype rules are theirs:
//! f32, f64, c32, c64 (integers: cast first); the result is real (f32 for
//! c32).
//!
//! NumPy's rules: with no axes and no order, the 2-norm of the flattened
//! tensor; with no axes and an order, a 1-D tensor takes the vector norm and
//! a 2-D one the matrix norm (other ranks are an error); one axis gives
//! vector norms along it, two axes matrix norms over them.
//! - Vector orders: `P(p)` for `sum(|x|^p)^(1/p)`, with `P(inf)` = max |x|,
//!   `P(-inf)` = min |x|, `P(0)` = the number of non-zeros.
//! - Matrix orders: `Fro`, `Nuc` (sum of singular values), `P(1)` / `P(-1)`
//!   (max / min column sum of |x|), `P(inf)` / `P(-inf)` (max / min row sum),
//!   `P(2)` / `P(-2)` (largest / smallest singular value).

use super::decomp::check_float;
use crate::axes::Axes;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// The order of a norm (NumPy's `ord`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NormOrd {
    /// Frobenius (matrices only): `sqrt(sum |x|^2)`.
    Fro,
    /// Nuclear (matrices only): the sum of the singular values.
    Nuc,
    /// A number: `p` for vectors (any real, incl. 0 and ±inf); 1, -1, 2, -2,
    /// inf, -inf for matrices.
    P(f64),
}

impl From<f64> for NormOrd {
    fn from(p: f64) -> Self {
        NormOrd::P(p)
    }
}

/// Options of [`Tensor::norm_with`]:
/// `NormOptions { ord: Some(NormOrd::Nuc), ..Default::default() }`.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct NormOptions {
    /// The order (default `None`: 2 for vectors, Frobenius for matrices).
    pub ord: Option<NormOrd>,
    /// One axis (vector norms) or two (matrix norms); the default: see the
    /// module rules.
    pub axes: Axes,
    /// Keep the reduced axes with size 1.
    pub keepdims: bool,
}

impl Tensor {
    /// The 2-norm of the flattened tensor (NumPy's `norm(x)`), a real 0-D
    /// tensor.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// // NumPy's example: a = arange(9) - 4.
    /// let a = Tensor::arange(DType::F64, -4, 5, 1)?;
    /// assert!((a.norm()?.item::<f64>()? - 7.745966692414834).abs() < 1e-12);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn norm(&self) -> Result<Tensor> {
        self.norm_with(&NormOptions::default())
    }

    /// Vector or matrix norms (see the module rules).
    ///
    /// ```
    /// use rnx::{Tensor, DType, NormOptions, NormOrd};
    /// let b = Tensor::arange(DType::F64, -4, 5, 1)?.reshape([3, 3])?;
    /// let n = |ord| b.norm_with(&NormOptions { ord: Some(ord), ..Default::default() });
    /// assert_eq!(n(NormOrd::P(f64::INFINITY))?.item::<f64>()?, 9.0);
    /// assert_eq!(n(NormOrd::P(1.0))?.item::<f64>()?, 7.0);
    /// assert_eq!(n(NormOrd::P(-1.0))?.item::<f64>()?, 6.0);
    /// assert!((n(NormOrd::P(2.0))?.item::<f64>()? - 7.348469228349534).abs() < 1e-12);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn norm_with(&self, opts: &NormOptions) -> Result<Tensor> {
        let op = "norm";
        check_float(op, self)?;
        let nd = self.ndim();
        let axes: Vec<usize> = if opts.axes.is_default() {
            if opts.ord.is_none() {
                // The flattened 2-norm.
                let r = self.abs()?.square()?.sum(None, opts.keepdims)?.sqrt()?;
                return Ok(r);
            }
            match nd {
                1 => vec![0],
                2 => vec![0, 1],
                _ => {
                    return Err(Error::invalid(
                        op,
                        format!(
                            "an order without axes needs a 1-D or 2-D tensor, got shape {:?}",
                            self.shape()
                        ),
                    ))
                }
            }
        } else {
            opts.axes.resolve(op, nd)?
        };
        match axes.len() {
            1 => vector_norm(self, axes[0], opts.ord, opts.keepdims),
            2 => matrix_norm(self, axes[0], axes[1], opts.ord, opts.keepdims),
            k => Err(Error::invalid(op, format!("needs 1 or 2 axes, got {k}"))),
        }
    }

    /// The condition number of square matrices (NumPy's `cond`): `None` or
    /// `P(2)`: `max(s) / min(s)`; `P(-2)`: `min(s) / max(s)`; any other
    /// matrix order `p`: `norm(a, p) * norm(inv(a), p)` (then a singular
    /// matrix is an error). `[..]`, real.
    ///
    /// ```
    /// use rnx::{Tensor, DType, NormOrd};
    /// // NumPy's example.
    /// let a = Tensor::from_vec(vec![1.0f64, 0., -1., 0., 1., 0., 1., 0., 1.], &[3, 3])?;
    /// assert!((a.cond(None)?.item::<f64>()? - 1.4142135623730951).abs() < 1e-12);
    /// assert!((a.cond(Some(NormOrd::Fro))?.item::<f64>()? - 3.1622776601683795).abs() < 1e-12);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn cond(&self, p: Option<NormOrd>) -> Result<Tensor> {
        let op = "cond";
        super::decomp::check_matrix(op, self, false)?;
        match p {
            None | Some(NormOrd::P(2.0)) | Some(NormOrd::P(-2.0)) => {
                let s = self.svdvals()?;
                let (hi, lo) = (s.max(-1, false)?, s.min(-1, false)?);
                if p == Some(NormOrd::P(-2.0)) {
                    lo.div(&hi)
                } else {
                    hi.div(&lo)
                }
            }
            Some(ord) => {
                super::decomp::check_matrix(op, self, true)?;
                let o = NormOptions {
                    ord: Some(ord),
                    axes: Axes::from([-2isize, -1]),
                    keepdims: false,
                };
                self.norm_with(&o)?.mul(&self.inv()?.norm_with(&o)?)
            }
        }
    }
}

/// Vector norms of order `ord` along `axis`.
fn vector_norm(x: &Tensor, axis: usize, ord: Option<NormOrd>, keep: bool) -> Result<Tensor> {
    let ax = axis as isize;
    let a = x.abs()?;
    let p = match ord {
        None => 2.0,
        Some(NormOrd::P(p)) => p,
        Some(o) => {
            return Err(Error::invalid(
                "norm",
                format!("order {o:?} is for matrices; vector norms take a number"),
            ))
        }
    };
    if p == f64::INFINITY {
        a.max(ax, keep)
    } else if p == f64::NEG_INFINITY {
        a.min(ax, keep)
    } else if p == 0.0 {
        a.cmpne(0)?.cast(a.dtype())?.sum(ax, keep)
    } else if p == 1.0 {
        a.sum(ax, keep)
    } else if p == 2.0 {
        a.square()?.sum(ax, keep)?.sqrt()
    } else if p.is_nan() {
        Err(Error::invalid("norm", "order NaN"))
    } else {
        a.pow(p)?.sum(ax, keep)?.pow(1.0 / p)
    }
}

/// Matrix norms of order `ord` over axes (`r`, `c`).
fn matrix_norm(x: &Tensor, r: usize, c: usize, ord: Option<NormOrd>, keep: bool) -> Result<Tensor> {
    let op = "norm";
    if r == c {
        return Err(Error::invalid(op, format!("the two axes are both {r}")));
    }
    let (ri, ci) = (r as isize, c as isize);
    let res = match ord.unwrap_or(NormOrd::Fro) {
        NormOrd::Fro => x.abs()?.square()?.sum([ri, ci], false)?.sqrt()?,
        NormOrd::P(p) if p == 1.0 || p == -1.0 || p.is_infinite() => {
            // Column sums (p = ±1) reduce over rows, row sums (±inf) over columns.
            let (sum_ax, then) = if p.abs() == 1.0 { (r, c) } else { (c, r) };
            let then = if then > sum_ax { then - 1 } else { then } as isize;
            let sums = x.abs()?.sum(sum_ax as isize, false)?;
            if p > 0.0 {
                sums.max(then, false)?
            } else {
                sums.min(then, false)?
            }
        }
        o @ (NormOrd::Nuc | NormOrd::P(_)) => {
            if let NormOrd::P(p) = o {
                if p != 2.0 && p != -2.0 {
                    return Err(Error::invalid(
                        op,
                        format!(
                            "invalid order {p} for matrices (1, -1, 2, -2, inf, -inf, Fro, Nuc)"
                        ),
                    ));
                }
            }
            let nd = x.ndim() as isize;
            let moved = x.moveaxis(ri, nd - 1)?;
            let ci2 = if c > r { ci - 1 } else { ci };
            let s = moved.moveaxis(ci2, nd - 1)?.svdvals()?;
            match o {
                NormOrd::Nuc => s.sum(-1, false)?,
                NormOrd::P(p) if p > 0.0 => s.max(-1, false)?,
                _ => s.min(-1, false)?,
            }
        }
    };
    if keep {
        let mut ax = [r, c];
        ax.sort();
        res.unsqueeze([ax[0] as isize, ax[1] as isize])
    } else {
        Ok(res)
    }
}
