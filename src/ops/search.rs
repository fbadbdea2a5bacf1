//! Searching and counting: `one_hot`, `count_nonzero`, `searchsorted`,
//! `bincount`, `unique`. `one_hot` and `count_nonzero` compose comparisons,
//! casts and sums (so they run on every device); `bincount` is a scatter-add
//! (the backend's `scatter_reduce`); `searchsorted` and `unique` compare keys
//! on the host (exact integers as i128, floats as f64 with NaN last and equal
//! to itself, -0 equal to 0; `searchsorted` maps both to order-preserving u64
//! keys and runs branch-free binary searches, or a merge for sorted needles,
//! over the thread pool) and move data with the backend's gather.

use super::same_dtype;
use super::take::{flat, host_indices, resolve, write_flat, IndexMode};
use crate::axes::Axes;
use crate::backend::cpu::strided::SendPtr;
use crate::backend::cpu::team;
use crate::backend::ScatterOp;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use std::cmp::Ordering;

/// Options of [`Tensor::one_hot_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct OneHotOptions {
    /// The result's dtype (default f32).
    pub dtype: DType,
    /// Where the new axis of size `depth` goes in the result (default -1, the
    /// last).
    pub axis: isize,
}

impl Default for OneHotOptions {
    fn default() -> Self {
        OneHotOptions {
            dtype: DType::F32,
            axis: -1,
        }
    }
}

/// Which of equal elements [`Tensor::searchsorted_with`] returns (NumPy's
/// `side`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Side {
    /// The first position `i` with `value <= sorted[i]`.
    #[default]
    Left,
    /// The first position `i` with `value < sorted[i]`.
    Right,
}

/// Options of [`Tensor::searchsorted_with`].
#[derive(Clone, Debug, Default)]
pub struct SearchSortedOptions {
    /// Left or right (default left).
    pub side: Side,
    /// Positions (i32/i64) that sort the tensor, when it is not sorted itself
    /// (NumPy's `sorter`, e.g. from `argsort`).
    pub sorter: Option<Tensor>,
}

/// Options of [`Tensor::bincount_with`].
#[derive(Clone, Debug, Default)]
pub struct BincountOptions {
    /// Weights of the tensor's shape: the result sums them per bin, in their
    /// dtype (default: counts, i64).
    pub weights: Option<Tensor>,
    /// The least length of the result.
    pub minlength: usize,
}

/// Options of [`Tensor::unique_with`]: which of the extra outputs to return.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct UniqueOptions {
    /// The flat position of each value's first occurrence.
    pub return_index: bool,
    /// For each input element, the position of its value in `values`.
    pub return_inverse: bool,
    /// How often each value occurs.
    pub return_counts: bool,
}

/// The result of [`Tensor::unique_with`]: the sorted distinct values and the
/// requested extras (i64 tensors).
#[derive(Clone, Debug)]
pub struct Unique {
    /// The distinct values, sorted ascending (NaN last, once).
    pub values: Tensor,
    /// With `return_index`: flat positions of first occurrences.
    pub indices: Option<Tensor>,
    /// With `return_inverse`: the input's shape, `values.take(inverse)`
    /// rebuilds the input.
    pub inverse: Option<Tensor>,
    /// With `return_counts`: occurrences per value.
    pub counts: Option<Tensor>,
}

/// Host keys of a real tensor: exact for every integer dtype, f64 for floats.
pub(crate) enum Keys {
    Int(Vec<i128>),
    Float(Vec<f64>),
}

impl Keys {
    pub(crate) fn of(op: &str, t: &Tensor) -> Result<Keys> {
        let d = t.dtype();
        if d.is_complex() {
            return Err(Error::dtype(op, d));
        }
        let h = t.to_device(Device::Cpu)?;
        Ok(if d.is_signed_int() {
            Keys::Int(
                h.cast(DType::I64)?
                    .to_vec::<i64>()?
                    .into_iter()
                    .map(i128::from)
                    .collect(),
            )
        } else if d.is_int() {
            Keys::Int(
                h.cast(DType::U64)?
                    .to_vec::<u64>()?
                    .into_iter()
                    .map(i128::from)
                    .collect(),
            )
        } else {
            Keys::Float(h.cast(DType::F64)?.to_vec::<f64>()?)
        })
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            Keys::Int(v) => v.len(),
            Keys::Float(v) => v.len(),
        }
    }

    /// Compare element `i` of `self` with element `j` of `other` (same kind).
    pub(crate) fn cmp(&self, i: usize, other: &Keys, j: usize) -> Ordering {
        match (self, other) {
            (Keys::Int(a), Keys::Int(b)) => a[i].cmp(&b[j]),
            (Keys::Float(a), Keys::Float(b)) => fcmp(a[i], b[j]),
            _ => Ordering::Equal,
        }
    }
}

/// NumPy's sort order: NaN after everything, NaNs equal, -0 == 0.
fn fcmp(a: f64, b: f64) -> Ordering {
    match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(&b).unwrap_or(Ordering::Equal),
    }
}

/// Order-preserving u64 keys of a real tensor's elements (row-major), one
/// comparison for every dtype: integers exactly (signed ones with the sign bit
/// flipped), floats through f64 with NumPy's sort order (-0 equal to 0, every
/// NaN one key after +inf). An error naming `op` for a complex dtype.
pub(crate) fn order_keys(op: &str, t: &Tensor) -> Result<Vec<u64>> {
    let d = t.dtype();
    if d.is_complex() {
        return Err(Error::dtype(op, d));
    }
    let h = t.to_device(Device::Cpu)?;
    Ok(if d.is_signed_int() {
        let v = h.cast(DType::I64)?.to_vec::<i64>()?;
        v.into_iter().map(|x| (x as u64) ^ (1 << 63)).collect()
    } else if d.is_int() {
        h.cast(DType::U64)?.to_vec::<u64>()?
    } else {
        let v = if d == DType::F64 {
            h.to_vec::<f64>()?
        } else {
            h.cast(DType::F64)?.to_vec::<f64>()?
        };
        v.into_iter().map(float_key).collect()
    })
}

/// The order key of a float: NaN last (all NaNs one key), -0 as 0.
#[inline]
fn float_key(x: f64) -> u64 {
    if x.is_nan() {
        return u64::MAX;
    }
    let b = (x + 0.0).to_bits(); // -0 + 0 = +0
    if b >> 63 == 1 {
        !b
    } else {
        b | (1 << 63)
    }
}

/// How many keys of the sorted `a` are below `v` (`right`: at most `v`):
/// a branch-free binary search (the loop's length depends on `a.len()` only).
#[inline]
fn partition(a: &[u64], v: u64, right: bool) -> usize {
    if a.is_empty() {
        return 0;
    }
    let below = |x: u64| x < v || (right && x == v);
    let (mut base, mut size) = (0usize, a.len());
    while size > 1 {
        let half = size / 2;
        let mid = base + half;
        // SAFETY: base + size <= a.len() throughout, and half < size.
        let x = unsafe { *a.get_unchecked(mid) };
        base = if below(x) { mid } else { base };
        size -= half;
    }
    // SAFETY: base < a.len() (base + size <= len with size == 1).
    base + below(unsafe { *a.get_unchecked(base) }) as usize
}

/// `res[j] = partition(a, vals[j], right)` for every needle, split over the
/// pool. When the needles are sorted and many (their binary searches would
/// cost more than one walk of `a`), each chunk searches its first needle and
/// then walks `a` forward (a merge): the same results.
fn search_all(a: &[u64], vals: &[u64], right: bool, res: &mut [i64]) {
    const CHUNK: usize = 1 << 14;
    let m = vals.len();
    let log_n = usize::BITS - a.len().leading_zeros();
    let merge = m > 1 && m * log_n as usize > a.len() + m && vals.windows(2).all(|w| w[0] <= w[1]);
    let below = |x: u64, v: u64| x < v || (right && x == v);
    let out = SendPtr(res.as_mut_ptr());
    team::for_each_chunk(m.div_ceil(CHUNK), &|c| {
        let r = c * CHUNK..((c + 1) * CHUNK).min(m);
        if merge {
            let mut p = partition(a, vals[r.start], right);
            for j in r {
                let v = vals[j];
                while p < a.len() && below(a[p], v) {
                    p += 1;
                }
                // SAFETY: chunk c writes only its own positions of `res`.
                unsafe { *out.get().add(j) = p as i64 };
            }
        } else {
            for j in r {
                // SAFETY: as above.
                unsafe { *out.get().add(j) = partition(a, vals[j], right) as i64 };
            }
        }
    });
}

/// A host i64 vector as a tensor on `device`.
pub(crate) fn i64_tensor(v: &[i64], shape: &[usize], device: Device) -> Result<Tensor> {
    Tensor::from_slice(v, shape)?.to_device(device)
}

impl Tensor {
    /// Nx's `one_hot`: for integer indices, a tensor with a new last axis of
    /// size `depth` that is 1 at each index and 0 elsewhere (f32). Indices
    /// outside `0..depth` give a row of zeros (as Nx and JAX). See
    /// [`Tensor::one_hot_with`] for the dtype and the axis.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let i = Tensor::create(DType::I32, &[3], &[0, 2, 5]).unwrap();
    /// assert_eq!(i.one_hot(3).unwrap().to_string(), "[[1, 0, 0],\n [0, 0, 1],\n [0, 0, 0]]");
    /// ```
    pub fn one_hot(&self, depth: usize) -> Result<Tensor> {
        self.one_hot_with(depth, OneHotOptions::default())
    }

    /// [`Tensor::one_hot`] with a result dtype and the position of the new
    /// axis (in the result; negative counts from its end).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// use rnx::ops::search::OneHotOptions;
    /// let i = Tensor::create(DType::I64, &[2], &[1, 0]).unwrap();
    /// let o = i.one_hot_with(3, OneHotOptions { dtype: DType::U8, axis: 0 }).unwrap();
    /// assert_eq!(o.to_string(), "[[0, 1],\n [1, 0],\n [0, 0]]");
    /// ```
    pub fn one_hot_with(&self, depth: usize, opts: OneHotOptions) -> Result<Tensor> {
        let op = "one_hot";
        if !self.dtype().is_int() {
            return Err(Error::invalid(
                op,
                format!(
                    "indices must have an integer dtype, got {} (convert with cast)",
                    self.dtype()
                ),
            ));
        }
        let nd = self.ndim() + 1;
        let axis = super::take::one_axis(op, opts.axis, nd)?;
        let idx = if self.dtype() == DType::I64 {
            self.clone()
        } else {
            self.cast(DType::I64)?
        };
        let e = idx.unsqueeze_axis(axis as isize)?;
        let mut ishape = vec![1usize; nd];
        ishape[axis] = depth;
        let iota = Tensor::arange_on(DType::I64, 0, depth as i64, 1, self.device())?
            .reshape_exact(&ishape)?;
        e.cmpeq(&iota)?.cast(opts.dtype)
    }

    /// NumPy's `count_nonzero`: how many elements over `axes` are non-zero
    /// (NaN counts), as i64; `None` counts all.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::create(DType::F32, &[2, 3], &[0., 1., 7., 0., 0., 3.]).unwrap();
    /// assert_eq!(a.count_nonzero(None, false).unwrap().item::<i64>().unwrap(), 3);
    /// assert_eq!(a.count_nonzero(0, false).unwrap().to_vec::<i64>().unwrap(), vec![0, 1, 2]);
    /// assert_eq!(a.count_nonzero(1, true).unwrap().shape(), &[2, 1]);
    /// ```
    pub fn count_nonzero(&self, axes: impl Into<Axes>, keepdims: bool) -> Result<Tensor> {
        self.cmpne(0)?.cast(DType::I64)?.sum(axes, keepdims)
    }

    /// NumPy's `searchsorted` on a sorted 1-D tensor: for each element of
    /// `values` (same dtype), the position where inserting it keeps the order
    /// (the first such, `side` left). i64, `values`' shape. See
    /// [`Tensor::searchsorted_with`] for `side` and `sorter`.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::create(DType::F32, &[5], &[1., 2., 3., 4., 5.]).unwrap();
    /// let v = Tensor::create(DType::F32, &[3], &[-10., 10., 3.]).unwrap();
    /// assert_eq!(a.searchsorted(&v).unwrap().to_vec::<i64>().unwrap(), vec![0, 5, 2]);
    /// ```
    pub fn searchsorted(&self, values: &Tensor) -> Result<Tensor> {
        self.searchsorted_with(values, SearchSortedOptions::default())
    }

    /// [`Tensor::searchsorted`] with `side` and `sorter`.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// use rnx::ops::search::{SearchSortedOptions, Side};
    /// let a = Tensor::create(DType::I32, &[5], &[1, 2, 3, 4, 5]).unwrap();
    /// let v = Tensor::scalar(DType::I32, 3).unwrap();
    /// let right = SearchSortedOptions { side: Side::Right, ..Default::default() };
    /// assert_eq!(a.searchsorted_with(&v, right).unwrap().item::<i64>().unwrap(), 3);
    /// let b = Tensor::create(DType::I32, &[3], &[30, 10, 20]).unwrap();
    /// let s = SearchSortedOptions { sorter: Some(b.argsort(0, false).unwrap()), ..Default::default() };
    /// let w = Tensor::create(DType::I32, &[2], &[15, 25]).unwrap();
    /// assert_eq!(b.searchsorted_with(&w, s).unwrap().to_vec::<i64>().unwrap(), vec![1, 2]);
    /// ```
    pub fn searchsorted_with(&self, values: &Tensor, opts: SearchSortedOptions) -> Result<Tensor> {
        let op = "searchsorted";
        if self.ndim() != 1 {
            return Err(Error::invalid(
                op,
                format!(
                    "the sorted tensor must be 1-D, got shape {:?}",
                    self.shape()
                ),
            ));
        }
        same_dtype(op, &[self, values])?;
        super::same_device(op, &[self, values])?;
        if self.device() != Device::Cpu && !self.dtype().is_complex() {
            if let Some(r) = self.searchsorted_on_device(values, &opts)? {
                return Ok(r);
            }
        }
        let keys = order_keys(op, self)?;
        // The keys in sorted order (permuted by the sorter when given).
        let sorted: Vec<u64> = match &opts.sorter {
            None => keys,
            Some(s) => {
                if s.shape() != self.shape() {
                    return Err(Error::shapes(
                        op,
                        self.shape(),
                        s.shape(),
                        "differ (sorter)",
                    ));
                }
                let ks = host_indices(op, s, self)?;
                resolve(op, &ks, keys.len(), 0, IndexMode::Raise)?
                    .into_iter()
                    .map(|k| keys[k as usize])
                    .collect()
            }
        };
        let vals = order_keys(op, values)?;
        let right = opts.side == Side::Right;
        let mut res = vec![0i64; vals.len()];
        search_all(&sorted, &vals, right, &mut res);
        i64_tensor(&res, values.shape(), self.device())
    }

    /// [`Tensor::searchsorted_with`] by the backend's kernel
    /// (`SortBackend::searchsorted`), the sorter applied on the device by a
    /// gather; `None` when the backend declines.
    fn searchsorted_on_device(
        &self,
        values: &Tensor,
        opts: &SearchSortedOptions,
    ) -> Result<Option<Tensor>> {
        let op = "searchsorted";
        let sorted = match &opts.sorter {
            None => self.clone(),
            Some(s) => {
                if s.shape() != self.shape() {
                    return Err(Error::shapes(
                        op,
                        self.shape(),
                        s.shape(),
                        "differ (sorter)",
                    ));
                }
                // The sorter's indices checked as the host path does.
                let ks = host_indices(op, s, self)?;
                resolve(op, &ks, self.size(), 0, IndexMode::Raise)?;
                self.take(s, 0)?
            }
        };
        let out = Tensor::empty_on(DType::I64, values.shape(), self.device())?;
        let right = opts.side == Side::Right;
        let done = super::locked(op, &[&sorted, values], &[&out], || {
            self.backend().searchsorted(&sorted, values, right, &out)
        })?;
        Ok(done.then_some(out))
    }

    /// NumPy's `bincount` of a 1-D tensor of non-negative integers: how often
    /// each value `0..=max` occurs (i64). See [`Tensor::bincount_with`] for
    /// weights and a least length.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[7], &[0, 1, 1, 3, 2, 1, 7]).unwrap();
    /// assert_eq!(x.bincount().unwrap().to_vec::<i64>().unwrap(), vec![1, 3, 1, 1, 0, 0, 0, 1]);
    /// ```
    pub fn bincount(&self) -> Result<Tensor> {
        self.bincount_with(BincountOptions::default())
    }

    /// [`Tensor::bincount`] with `weights` (the result sums them per bin in
    /// their dtype, in input order: deterministic) and `minlength`.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// use rnx::ops::search::BincountOptions;
    /// let x = Tensor::create(DType::I64, &[4], &[0, 1, 1, 2]).unwrap();
    /// let w = Tensor::create(DType::F64, &[4], &[0.5, 1., 0.25, 2.]).unwrap();
    /// let o = BincountOptions { weights: Some(w), minlength: 5 };
    /// assert_eq!(x.bincount_with(o).unwrap().to_vec::<f64>().unwrap(), vec![0.5, 1.25, 2., 0., 0.]);
    /// ```
    pub fn bincount_with(&self, opts: BincountOptions) -> Result<Tensor> {
        let op = "bincount";
        if self.ndim() != 1 || !self.dtype().is_int() {
            return Err(Error::invalid(
                op,
                format!(
                    "input must be a 1-D integer tensor, got {} of shape {:?}",
                    self.dtype(),
                    self.shape()
                ),
            ));
        }
        let xs = match Keys::of(op, self)? {
            Keys::Int(v) => v,
            Keys::Float(_) => Vec::new(),
        };
        if let Some(&bad) = xs.iter().find(|&&x| x < 0) {
            return Err(Error::invalid(
                op,
                format!("input holds the negative value {bad}"),
            ));
        }
        let len = xs
            .iter()
            .max()
            .map_or(0, |&m| m as usize + 1)
            .max(opts.minlength);
        let pos: Vec<isize> = xs.iter().map(|&x| x as isize).collect();
        let vals = match &opts.weights {
            Some(w) => {
                if w.shape() != self.shape() {
                    return Err(Error::shapes(
                        op,
                        self.shape(),
                        w.shape(),
                        "differ (weights)",
                    ));
                }
                super::same_device(op, &[self, w])?;
                flat(w)?
            }
            None => Tensor::ones_on(DType::I64, &[1], self.device())?.broadcast_to(&[pos.len()])?,
        };
        let out = Tensor::zeros_on(vals.dtype(), &[len], self.device())?;
        write_flat(op, &out, &pos, &vals, Some(ScatterOp::Add))?;
        Ok(out)
    }
}
