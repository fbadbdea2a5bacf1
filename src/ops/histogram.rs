//! NumPy's `histogram`: bins as a count (evenly spaced over a range) or as
//! explicit edges, an optional range, weights and density. Composed of
//! `searchsorted` (bin of each element), a mask of the in-range elements and
//! `bincount` (the per-bin sums, deterministic).

use super::scan::narrow;
use super::search::{BincountOptions, SearchSortedOptions, Side};
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// The bins of [`Tensor::histogram`]: a number of equal-width bins, or the
/// edges themselves (1-D, the input's dtype, increasing; `n + 1` edges make
/// `n` bins).
#[derive(Clone, Debug)]
pub enum Bins {
    /// `n >= 1` equal-width bins over the range.
    Count(usize),
    /// Explicit edges.
    Edges(Tensor),
}

impl Default for Bins {
    fn default() -> Self {
        Bins::Count(10)
    }
}

impl From<usize> for Bins {
    fn from(n: usize) -> Bins {
        Bins::Count(n)
    }
}

impl From<&Tensor> for Bins {
    fn from(t: &Tensor) -> Bins {
        Bins::Edges(t.clone())
    }
}

/// Options of [`Tensor::histogram`] (NumPy's defaults: 10 bins over the
/// data's min..max, counts).
#[derive(Clone, Debug, Default)]
pub struct HistogramOptions {
    /// Bin count or edges; default 10 bins.
    pub bins: Bins,
    /// `(lower, upper)` of the equal-width bins (default the data's min and
    /// max); elements outside are ignored. Ignored with explicit edges.
    pub range: Option<(f64, f64)>,
    /// Divide by the total and the bin widths so the histogram integrates to
    /// 1 (the result has the input's dtype).
    pub density: bool,
    /// A weight per element (the input's shape and dtype): the bins sum the
    /// weights instead of counting.
    pub weights: Option<Tensor>,
}

impl Tensor {
    /// NumPy's `histogram` of all elements (float dtypes; cast integers
    /// first): returns `(hist, edges)`. Every bin is half-open `[e_i,
    /// e_{i+1})` except the last, which includes its upper edge; NaN and
    /// elements outside the edges are not counted. `hist` is i64 counts, or
    /// the weights' sums (input dtype), or with `density` the input's dtype.
    ///
    /// ```
    /// use rnx::{HistogramOptions, Tensor, DType};
    /// let x = Tensor::create(DType::F64, &[4], &[1., 2., 1., 2.5]).unwrap();
    /// let edges = Tensor::create(DType::F64, &[4], &[0., 1., 2., 3.]).unwrap();
    /// let (h, e) = x.histogram(HistogramOptions { bins: (&edges).into(), ..Default::default() }).unwrap();
    /// assert_eq!(h.to_vec::<i64>().unwrap(), vec![0, 2, 2]);
    /// assert_eq!(e.to_vec::<f64>().unwrap(), vec![0., 1., 2., 3.]);
    /// let y = Tensor::arange_f(DType::F32, 0., 4., 1.).unwrap();
    /// let (h, e) = y.histogram(HistogramOptions { bins: 3.into(), density: true, ..Default::default() }).unwrap();
    /// assert_eq!(e.to_vec::<f32>().unwrap(), vec![0., 1., 2., 3.]);
    /// assert_eq!(h.to_vec::<f32>().unwrap(), vec![0.25, 0.25, 0.5]);
    /// ```
    pub fn histogram(&self, opts: HistogramOptions) -> Result<(Tensor, Tensor)> {
        let op = "histogram";
        let dt = self.dtype();
        if !dt.is_float() {
            return Err(Error::invalid(
                op,
                format!("{op} of dtype {dt} is not supported: cast to a float dtype"),
            ));
        }
        let x = self.reshape([self.size() as isize])?;
        let w = match &opts.weights {
            None => None,
            Some(w) => {
                super::same_dtype(op, &[self, w])?;
                super::same_device(op, &[self, w])?;
                if w.shape() != self.shape() {
                    return Err(Error::shapes(
                        op,
                        self.shape(),
                        w.shape(),
                        "differ (weights)",
                    ));
                }
                Some(w.reshape([w.size() as isize])?)
            }
        };
        let edges = match &opts.bins {
            Bins::Edges(e) => {
                super::same_dtype(op, &[self, e])?;
                super::same_device(op, &[self, e])?;
                if e.ndim() != 1 || e.size() < 2 {
                    return Err(Error::invalid(
                        op,
                        format!(
                            "bin edges must be 1-D with at least 2 edges, got shape {:?}",
                            e.shape()
                        ),
                    ));
                }
                let n = e.size();
                let inc = narrow(e, 0, 1, n - 1).cmpge(&narrow(e, 0, 0, n - 1))?;
                if inc.all(None, false)?.item::<u8>()? == 0 {
                    return Err(Error::invalid(op, "bin edges must increase monotonically"));
                }
                e.clone()
            }
            &Bins::Count(n) => {
                if n == 0 {
                    return Err(Error::invalid(op, "the number of bins must be at least 1"));
                }
                let (mut lo, mut hi) = match opts.range {
                    Some((lo, hi)) => {
                        if lo > hi {
                            return Err(Error::invalid(
                                op,
                                format!("max must be larger than min in range ({lo}, {hi})"),
                            ));
                        }
                        (lo, hi)
                    }
                    None if x.size() == 0 => (0.0, 1.0),
                    None => (
                        x.min(None, false)?.item_f64()?,
                        x.max(None, false)?.item_f64()?,
                    ),
                };
                if !(lo.is_finite() && hi.is_finite()) {
                    return Err(Error::invalid(
                        op,
                        format!("the range [{lo}, {hi}] is not finite"),
                    ));
                }
                if lo == hi {
                    lo -= 0.5;
                    hi += 0.5;
                }
                Tensor::linspace(dt, lo, hi, n + 1, true)?.to_device(self.device())?
            }
        };
        let nb = edges.size() - 1;
        let first = narrow(&edges, 0, 0, 1).reshape([] as [isize; 0])?;
        let last = narrow(&edges, 0, nb, 1).reshape([] as [isize; 0])?;
        let keep = x.cmpge(&first)?.logical_and(&x.cmple(&last)?)?;
        let right = SearchSortedOptions {
            side: Side::Right,
            ..Default::default()
        };
        let idx = edges
            .searchsorted_with(&x, right)?
            .sub(1i64)?
            .clamp(0i64, nb as i64 - 1)?
            .extract(&keep)?;
        let hist = idx.bincount_with(BincountOptions {
            weights: w.as_ref().map(|w| w.extract(&keep)).transpose()?,
            minlength: nb,
        })?;
        if !opts.density {
            return Ok((hist, edges));
        }
        let h = hist.cast(dt)?;
        let widths = narrow(&edges, 0, 1, nb).sub(&narrow(&edges, 0, 0, nb))?;
        let total = h.sum(None, false)?;
        let d = h.div(&total)?.div(&widths)?;
        Ok((d, edges))
    }
}
