//! n-D rank and mean filters with SciPy `ndimage` semantics:
//! `uniform_filter`, `maximum_filter`, `minimum_filter` (a box per axis,
//! boundary modes reflect / constant / nearest / mirror / wrap, origin). Each
//! is separable, as SciPy runs it: one 1-D pass per axis whose size is above 1,
//! each pass = extend the axis by the mode (pad, or the runs of mirrored /
//! wrapped positions as views, concatenated), view the windows along it (no copy), reduce the window
//! axis (`maximum_filter`, `minimum_filter`), or the backend's running-sum
//! `window_mean` primitive (`uniform_filter`; a composition of the device's
//! other primitives by default). Every device runs them.

use super::take::gather_at;
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::tensor::Tensor;

/// How a filter extends the input past its edges (SciPy `mode`); shown for
/// the input `a b c d`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BoundaryMode {
    /// `d c b a | a b c d | d c b a` (half-sample symmetric; SciPy's default).
    #[default]
    Reflect,
    /// `k k k k | a b c d | k k k k` with `k` = [`FilterOptions::cval`].
    Constant,
    /// `a a a a | a b c d | d d d d` (the edge repeated).
    Nearest,
    /// `d c b | a b c d | c b a` (whole-sample symmetric).
    Mirror,
    /// `a b c d | a b c d | a b c d` (periodic).
    Wrap,
}

/// Options of [`Tensor::uniform_filter`], [`Tensor::maximum_filter`] and
/// [`Tensor::minimum_filter`].
///
/// ```
/// use rnx::ops::filters::{BoundaryMode, FilterOptions};
/// let o = FilterOptions { mode: BoundaryMode::Constant, cval: 1.0, ..Default::default() };
/// assert!(o.origin.is_empty());
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct FilterOptions {
    /// The boundary mode (default [`BoundaryMode::Reflect`]).
    pub mode: BoundaryMode,
    /// The value outside the input for [`BoundaryMode::Constant`] (default 0).
    pub cval: f64,
    /// Shift of the window per axis (one value for all axes, one per axis,
    /// or empty = 0): the window of output `i` covers the input from
    /// `i - size / 2 - origin` on, `size` elements. Each must satisfy
    /// `-(size / 2) <= origin <= (size - 1) / 2`, as SciPy.
    pub origin: Vec<isize>,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Uniform,
    Max,
    Min,
}

/// The source position of extended position `j` (may be outside `0..n`) of
/// an axis of length `n >= 1` under a non-constant `mode`.
fn source(mode: BoundaryMode, j: i64, n: i64) -> i64 {
    match mode {
        BoundaryMode::Nearest | BoundaryMode::Constant => j.clamp(0, n - 1),
        BoundaryMode::Wrap => j.rem_euclid(n),
        BoundaryMode::Reflect => {
            let m = j.rem_euclid(2 * n);
            if m < n {
                m
            } else {
                2 * n - 1 - m
            }
        }
        BoundaryMode::Mirror => {
            if n == 1 {
                return 0;
            }
            let m = j.rem_euclid(2 * n - 2);
            if m < n {
                m
            } else {
                2 * n - 2 - m
            }
        }
    }
}

/// `t` extended along `axis` by `before` and `after` elements under `mode`
/// (`fill` for the constant mode).
fn extend(
    op: &str,
    t: &Tensor,
    axis: usize,
    before: usize,
    after: usize,
    mode: BoundaryMode,
    fill: Scalar,
) -> Result<Tensor> {
    if before + after == 0 {
        return Ok(t.clone());
    }
    if mode == BoundaryMode::Constant {
        let mut pads = vec![(0isize, 0isize); t.ndim()];
        pads[axis] = (before as isize, after as isize);
        return t.pad(&pads, fill);
    }
    let n = t.shape()[axis] as i64;
    let idx: Vec<usize> = (-(before as i64)..n + after as i64)
        .map(|j| source(mode, j, n) as usize)
        .collect();
    // Runs of consecutive sources (step 1 or -1) as views, one copy of all.
    let mut pieces: Vec<Tensor> = Vec::new();
    let (mut start, mut step, mut count) = (idx[0], 1isize, 1usize);
    for &i in &idx[1..] {
        let d = i as isize - (start as isize + step * (count as isize - 1));
        if count == 1 && d.abs() == 1 {
            step = d;
            count = 2;
        } else if d == step {
            count += 1;
        } else {
            pieces.push(axis_run(t, axis, start, step, count));
            (start, step, count) = (i, 1, 1);
        }
    }
    pieces.push(axis_run(t, axis, start, step, count));
    if pieces.len() > 64 {
        // Many short runs (a long window over a short axis): one gather.
        let idx: Vec<isize> = idx.iter().map(|&i| i as isize).collect();
        return gather_at(op, t, axis, &idx);
    }
    Tensor::concatenate(&pieces, axis as isize)
}

/// The view of `count` elements along `axis` of `t` from `start` in steps
/// of `step` (1 or -1), the other axes whole.
fn axis_run(t: &Tensor, axis: usize, start: usize, step: isize, count: usize) -> Tensor {
    let l = t.layout();
    let mut shape = l.shape().to_vec();
    let mut strides = l.strides().to_vec();
    let st = strides[axis];
    shape[axis] = count;
    strides[axis] = st * step;
    let offset = (l.offset() as isize + start as isize * st) as usize;
    t.with_layout(Layout::new(shape, strides, offset))
}

/// The windows of length `size` along `axis` of the extended `t` (its axis
/// is `n + size - 1` long), as a trailing axis: `[.., n, .., size]`.
fn axis_windows(t: &Tensor, axis: usize, n: usize, size: usize) -> Tensor {
    let l = t.layout();
    let mut shape = l.shape().to_vec();
    let mut strides = l.strides().to_vec();
    shape[axis] = n;
    shape.push(size);
    strides.push(l.strides()[axis]);
    t.with_layout(Layout::new(shape, strides, l.offset()))
}

/// The shape of `e` with axis `axis` of length `n`.
fn cur_shape(e: &Tensor, axis: usize, n: usize) -> Vec<usize> {
    let mut shape = e.shape().to_vec();
    shape[axis] = n;
    shape
}

fn filter(op: &str, x: &Tensor, size: &[usize], o: &FilterOptions, kind: Kind) -> Result<Tensor> {
    let dt = x.dtype();
    if dt.is_complex() {
        return Err(Error::dtype(op, dt));
    }
    let nd = x.ndim();
    let sizes = match size.len() {
        1 => vec![size[0]; nd],
        n if n == nd => size.to_vec(),
        n => {
            return Err(Error::invalid(
                op,
                format!("size {size:?} has {n} values for a tensor of rank {nd} (give 1 or {nd})"),
            ))
        }
    };
    if sizes.contains(&0) {
        return Err(Error::invalid(
            op,
            format!("size {size:?} must be at least 1 on every axis"),
        ));
    }
    let origins = match o.origin.len() {
        0 => vec![0; nd],
        1 => vec![o.origin[0]; nd],
        n if n == nd => o.origin.clone(),
        n => {
            return Err(Error::invalid(
                op,
                format!(
                    "origin {:?} has {n} values for a tensor of rank {nd} (give 1 or {nd})",
                    o.origin
                ),
            ))
        }
    };
    for a in 0..nd {
        let before = (sizes[a] / 2) as i64 + origins[a] as i64;
        if sizes[a] > 1 && !(0..sizes[a] as i64).contains(&before) {
            return Err(Error::invalid(
                op,
                format!(
                    "origin {} is invalid for size {} on axis {a}: it must lie in {}..={}",
                    origins[a],
                    sizes[a],
                    -((sizes[a] / 2) as i64),
                    (sizes[a] - 1) / 2
                ),
            ));
        }
    }
    // The working dtype of the mean: f64 on the CPU (SciPy's double line
    // buffer), f32 on other devices (f64 may be missing there).
    let work = if x.device() == crate::Device::Cpu {
        DType::F64
    } else {
        DType::F32
    };
    let fill = match kind {
        Kind::Uniform if work == DType::F64 => Scalar::F64(o.cval),
        Kind::Uniform => Scalar::F32(o.cval as f32),
        _ => Scalar::from(o.cval).to_dtype(dt, op)?,
    };
    if x.size() == 0 {
        return x.copy();
    }
    // The mean's fill in x's own dtype, when cval is exact there (always
    // for the modes other than constant, which ignore it).
    let narrow = dt.is_fp8() || dt.is_int4();
    let own_fill = match Scalar::from(o.cval).to_dtype(dt, op) {
        _ if narrow => None,
        Ok(f) if o.mode != BoundaryMode::Constant || f.to_f64() == o.cval => Some(f),
        _ if o.mode != BoundaryMode::Constant => Some(Scalar::from(0.0).to_dtype(dt, op)?),
        _ => None,
    };
    let mut cur = x.clone();
    for a in 0..nd {
        let s = sizes[a];
        if s == 1 {
            continue;
        }
        let n = cur.shape()[a];
        let before = (s / 2) as isize + origins[a];
        let before = before as usize;
        let after = s - 1 - before;
        cur = match kind {
            Kind::Uniform => {
                // Extended in its own dtype, unless the constant mode's cval
                // is not exact there: then in the working dtype.
                let (w, fill) = match own_fill {
                    Some(f) => (cur, f),
                    None if cur.dtype() == work => (cur, fill),
                    None => (cur.cast(work)?, fill),
                };
                let e = extend(op, &w, a, before, after, o.mode, fill)?;
                // fp8 and 4-bit results are rounded once, from the work dtype.
                let mdt = if narrow { work } else { dt };
                let m = Tensor::empty_on(mdt, &cur_shape(&e, a, n), e.device())?;
                super::locked(op, &[&e], &[&m], || e.backend().window_mean(&e, a, s, &m))?;
                if narrow {
                    m.cast(dt)?
                } else {
                    m
                }
            }
            Kind::Max => {
                let e = extend(op, &cur, a, before, after, o.mode, fill)?;
                axis_windows(&e, a, n, s).max(-1, false)?
            }
            Kind::Min => {
                let e = extend(op, &cur, a, before, after, o.mode, fill)?;
                axis_windows(&e, a, n, s).min(-1, false)?
            }
        };
    }
    if cur.same_storage(x) {
        return x.copy();
    }
    Ok(cur)
}

impl Tensor {
    /// Mean over a box of `size` (one per axis, or one for all) around each
    /// element (SciPy `ndimage.uniform_filter`), the input extended past its
    /// edges by [`FilterOptions::mode`]. Separable as SciPy: one pass per axis
    /// whose size is above 1, each computed in f64 (f32 on the GPU) and
    /// converted back to the input dtype, so integers truncate toward zero
    /// after each pass exactly as SciPy's C cast does. Every real and integer
    /// dtype; the result has the input's shape and dtype. Errors: a size of 0,
    /// wrong counts of sizes or origins, an origin outside `-(size / 2)..=(size
    /// - 1) / 2`, complex dtypes.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// use rnx::ops::filters::FilterOptions;
    /// // SciPy's uniform_filter1d example.
    /// let x = Tensor::create(DType::I64, &[8], &[2, 8, 0, 4, 1, 9, 9, 0]).unwrap();
    /// let y = x.uniform_filter(&[3], &FilterOptions::default()).unwrap();
    /// assert_eq!(y.to_vec::<i64>().unwrap(), vec![4, 3, 4, 1, 4, 6, 6, 3]);
    /// ```
    pub fn uniform_filter(&self, size: &[usize], options: &FilterOptions) -> Result<Tensor> {
        filter("uniform_filter", self, size, options, Kind::Uniform)
    }

    /// Maximum over a box of `size` around each element (SciPy
    /// `ndimage.maximum_filter` with `size`); the rules of
    /// [`Tensor::uniform_filter`], exact in every real and integer dtype;
    /// `cval` must be representable in the dtype; NaN propagates.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// use rnx::ops::filters::FilterOptions;
    /// let x = Tensor::create(DType::I32, &[8], &[2, 8, 0, 4, 1, 9, 9, 0]).unwrap();
    /// let y = x.maximum_filter(&[3], &FilterOptions::default()).unwrap();
    /// assert_eq!(y.to_vec::<i32>().unwrap(), vec![8, 8, 8, 4, 9, 9, 9, 9]);
    /// ```
    pub fn maximum_filter(&self, size: &[usize], options: &FilterOptions) -> Result<Tensor> {
        filter("maximum_filter", self, size, options, Kind::Max)
    }

    /// Minimum over a box of `size` around each element (SciPy
    /// `ndimage.minimum_filter`); as [`Tensor::maximum_filter`].
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// use rnx::ops::filters::FilterOptions;
    /// let x = Tensor::create(DType::I32, &[8], &[2, 8, 0, 4, 1, 9, 9, 0]).unwrap();
    /// let y = x.minimum_filter(&[3], &FilterOptions::default()).unwrap();
    /// assert_eq!(y.to_vec::<i32>().unwrap(), vec![2, 0, 0, 0, 1, 1, 0, 0]);
    /// ```
    pub fn minimum_filter(&self, size: &[usize], options: &FilterOptions) -> Result<Tensor> {
        filter("minimum_filter", self, size, options, Kind::Min)
    }
}
