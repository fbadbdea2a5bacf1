//! Indexing with integer tensors: `take`, `take_along_axis` (and its alias
//! `gather`), `put`, `put_along_axis`, `index_put`, `scatter`. Index tensors
//! are read on the host and validated (all of them, before anything is
//! written) into position tensors in one pass (`positions.rs`); the data
//! moves through the backend's gather / scatter / scatter_reduce primitives,
//! so every dtype and device works. Also the shared helpers the mask and
//! search families use (flat writes).

use super::index::{index_tensor, last_occurrences};
use super::positions::{host_positions, positions, Target};
use super::shape::normalize_axes;
use super::{locked, same_device, same_dtype, unique_output};
use crate::backend::{Checked, ScatterOp};
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::{c_strides, Layout};
use crate::overlap::tensors_overlap;
use crate::tensor::Tensor;

/// What `take` and `put` do with an index outside `-size..size` (NumPy's
/// `mode`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum IndexMode {
    /// An error naming the function, the index and the axis size (negative
    /// indices count from the end).
    #[default]
    Raise,
    /// Wrap around: the index modulo the axis size (so `-1` is the last).
    Wrap,
    /// Clamp to `0..size` (NumPy: a negative index clips to 0, it does not
    /// count from the end).
    Clip,
}

/// Options of [`Tensor::take_with`] and [`Tensor::put_with`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TakeOptions {
    /// Out-of-range handling (default [`IndexMode::Raise`]).
    pub mode: IndexMode,
}

/// How [`Tensor::scatter_with`] combines the updates with the tensor
/// (PyTorch's `scatter_reduce`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ScatterMode {
    /// Overwrite; of repeated positions the last update wins.
    #[default]
    Set,
    /// Sum (integers wrap).
    Add,
    /// Product.
    Multiply,
    /// Maximum (NaN wins; real dtypes).
    Max,
    /// Minimum (NaN wins; real dtypes).
    Min,
}

/// Options of [`Tensor::scatter_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ScatterOptions {
    /// The combination (default [`ScatterMode::Set`]).
    pub mode: ScatterMode,
    /// Whether the tensor's own value takes part in the reduction at the
    /// written positions (PyTorch's `include_self`, default `true`); with
    /// `false` a written position holds the reduction of its updates only.
    pub include_self: bool,
}

impl Default for ScatterOptions {
    fn default() -> Self {
        ScatterOptions {
            mode: ScatterMode::Set,
            include_self: true,
        }
    }
}

/// Options of [`Tensor::index_put_with`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct IndexPutOptions {
    /// Add the values to the tensor instead of overwriting (PyTorch's
    /// `accumulate`); repeated positions then add up.
    pub accumulate: bool,
}

/// The values of an i32 or i64 index tensor on the host, row-major; an error
/// naming `op` for another dtype or another device than `like`'s.
pub(crate) fn host_indices(op: &str, indices: &Tensor, like: &Tensor) -> Result<Vec<i64>> {
    same_device(op, &[like, indices])?;
    match indices.dtype() {
        DType::I64 => indices.to_vec::<i64>(),
        DType::I32 => Ok(indices
            .to_vec::<i32>()?
            .into_iter()
            .map(i64::from)
            .collect()),
        d => Err(Error::invalid(
            op,
            format!("indices must be i32 or i64, got {d} (convert with cast)"),
        )),
    }
}

/// Positions `0..size` of the indices `idx` on axis `axis` under `mode`.
pub(crate) fn resolve(
    op: &str,
    idx: &[i64],
    size: usize,
    axis: usize,
    mode: IndexMode,
) -> Result<Vec<isize>> {
    let n = size as i64;
    if n == 0 {
        return match idx.first() {
            None => Ok(Vec::new()),
            Some(&i) => Err(Error::IndexOutOfBounds {
                op: op.into(),
                index: i as isize,
                axis,
                size,
            }),
        };
    }
    let oob = |i: i64| Error::IndexOutOfBounds {
        op: op.into(),
        index: i as isize,
        axis,
        size,
    };
    let mut out = Vec::with_capacity(idx.len());
    match mode {
        IndexMode::Raise => {
            // One branch-free pass; the first bad index is looked up only on
            // failure.
            let mut bad = false;
            out.extend(idx.iter().map(|&i| {
                let j = if i < 0 { i + n } else { i };
                bad |= (j as u64) >= n as u64;
                j as isize
            }));
            if bad {
                let &i = idx
                    .iter()
                    .find(|&&i| !(-n..n).contains(&i))
                    .expect("a bad index was seen");
                return Err(oob(i));
            }
        }
        IndexMode::Wrap => out.extend(idx.iter().map(|&i| i.rem_euclid(n) as isize)),
        IndexMode::Clip => out.extend(idx.iter().map(|&i| i.clamp(0, n - 1) as isize)),
    }
    Ok(out)
}

/// One axis of a rank-`ndim` tensor.
pub(crate) fn one_axis(op: &str, axis: isize, ndim: usize) -> Result<usize> {
    Ok(normalize_axes(op, &[axis], ndim)?[0])
}

/// The 1-D contiguous view of a C-contiguous `t` (shares storage).
fn flat_view(t: &Tensor) -> Tensor {
    t.with_layout(Layout::new(vec![t.size()], vec![1], t.offset()))
}

/// `src` flattened to 1-D in row-major order (a view when contiguous).
pub(crate) fn flat(t: &Tensor) -> Result<Tensor> {
    Ok(flat_view(&t.contiguous()?))
}

/// `src` gathered at the validated positions `idx` of `axis` (a fresh
/// contiguous tensor with `idx.len()` along `axis`).
pub(crate) fn gather_at(op: &str, src: &Tensor, axis: usize, idx: &[isize]) -> Result<Tensor> {
    if idx.is_empty() || src.size() == 0 {
        let mut shape = src.shape().to_vec();
        shape[axis] = idx.len();
        return Tensor::empty_on(src.dtype(), &shape, src.device());
    }
    gather_pos(
        op,
        src,
        axis,
        &index_tensor(idx, src.shape()[axis], src.device())?,
    )
}

/// `src` gathered at the positions tensor `pos` (1-D, validated, on `src`'s
/// device; see `positions`) along `axis`.
pub(crate) fn gather_pos(op: &str, src: &Tensor, axis: usize, pos: &Tensor) -> Result<Tensor> {
    let mut shape = src.shape().to_vec();
    shape[axis] = pos.size();
    let out = Tensor::empty_on(src.dtype(), &shape, src.device())?;
    if out.size() == 0 {
        return Ok(out);
    }
    locked(op, &[src, pos], &[&out], || {
        src.backend().gather(src, axis, pos, &out)
    })?;
    Ok(out)
}

/// Write the 1-D `vals` at the validated row-major positions `pos` of `dst`
/// (in place): overwrite with the last of repeated positions winning, or
/// combine in order with `reduce`. Checks `dst` (dtype, device, a layout that
/// maps two elements to one address) before any write; a `vals` overlapping
/// `dst` is read as if copied first. A non-contiguous `dst` is written
/// through a contiguous copy and copied back.
pub(crate) fn write_flat(
    op: &str,
    dst: &Tensor,
    pos: &[isize],
    vals: &Tensor,
    reduce: Option<ScatterOp>,
) -> Result<()> {
    if pos.is_empty() || dst.size() == 0 {
        // The checks only.
        return write_pos(
            op,
            dst,
            &Tensor::empty_on(DType::I32, &[0], dst.device())?,
            vals,
            reduce,
            false,
        );
    }
    let pt = index_tensor(pos, dst.size(), dst.device())?;
    write_pos(op, dst, &pt, vals, reduce, false)
}

/// [`write_flat`] with the positions as a 1-D index tensor (validated, on
/// `dst`'s device; see `positions`). A positions tensor sharing `dst`'s
/// storage is read as if copied first. `distinct`: the caller knows the
/// positions differ from each other (a mask's), so overwriting needs no
/// last-occurrence pass (which reads the positions on the host).
pub(crate) fn write_pos(
    op: &str,
    dst: &Tensor,
    pos: &Tensor,
    vals: &Tensor,
    reduce: Option<ScatterOp>,
    distinct: bool,
) -> Result<()> {
    same_dtype(op, &[dst, vals])?;
    same_device(op, &[dst, vals])?;
    unique_output(op, dst)?;
    if pos.size() == 0 || dst.size() == 0 {
        return Ok(());
    }
    let vals = if tensors_overlap(vals, dst) {
        vals.copy()?
    } else {
        vals.clone()
    };
    let pos = if pos.same_storage(dst) {
        pos.copy()?
    } else {
        pos.clone()
    };
    let n = dst.size();
    let direct = dst.is_c_contiguous();
    let target = if direct {
        flat_view(dst)
    } else {
        flat_view(&dst.copy()?)
    };
    match reduce {
        None if distinct => {
            locked(op, &[&vals, &pos], &[&target], || {
                dst.backend().scatter(&vals, 0, &pos, &target)
            })?;
        }
        None => {
            let all = host_positions(&pos)?;
            let (js, ks) = last_occurrences(&all);
            let (v, ki) = if js.len() < all.len() {
                (
                    gather_at(op, &vals, 0, &js)?,
                    index_tensor(&ks, n, dst.device())?,
                )
            } else {
                (vals, pos)
            };
            locked(op, &[&v, &ki], &[&target], || {
                dst.backend().scatter(&v, 0, &ki, &target)
            })?;
        }
        Some(r) => {
            locked(op, &[&vals, &pos], &[&target], || {
                dst.backend().scatter_reduce(&vals, 0, &pos, &target, r)
            })?;
        }
    }
    if !direct {
        let back = target.with_layout(Layout::new(dst.shape().to_vec(), c_strides(dst.shape()), 0));
        locked(op, &[&back], &[dst], || dst.backend().copy(&back, dst))?;
    }
    Ok(())
}

/// `src` gathered along `axis` at the i32/i64 `indices` (any shape, read
/// in row-major order) by the backend's loop that checks each index as it
/// reads ([`IndexBackend::gather_checking`]): `None` when the backend
/// declines or meets an index outside `0..len` (also a negative one, which
/// the caller's checked path counts from the end or names in its error).
///
/// [`IndexBackend::gather_checking`]: crate::backend::IndexBackend::gather_checking
fn gather_fused(op: &str, src: &Tensor, axis: usize, indices: &Tensor) -> Result<Option<Tensor>> {
    // The CPU and GPU backends have checking loops.
    if !matches!(indices.dtype(), DType::I32 | DType::I64) || indices.size() == 0 || src.size() == 0
    {
        return Ok(None);
    }
    same_device(op, &[src, indices])?;
    let idx = flat(indices)?;
    let mut shape = src.shape().to_vec();
    shape[axis] = idx.size();
    let out = Tensor::empty_on(src.dtype(), &shape, src.device())?;
    let done = super::locked_fresh(op, &[src, &idx], &out, || {
        out.backend().gather_checking(src, axis, &idx, &out)
    })?;
    Ok((done == Checked::Done).then_some(out))
}

/// `a`'s `*_along_axis` gather of the grid `shape` by the backend's loop
/// that checks each index as it reads
/// ([`IndexBackend::gather_along_checking`]): `None` when the backend
/// declines (the CPU, whose host path is as fast) or meets an index outside
/// `0..len` (the caller's checked path then counts negative ones from the
/// end or names the bad one).
///
/// [`IndexBackend::gather_along_checking`]: crate::backend::IndexBackend::gather_along_checking
fn along_fused(
    op: &str,
    a: &Tensor,
    indices: &Tensor,
    axis: usize,
    shape: &[usize],
) -> Result<Option<Tensor>> {
    if a.device() == Device::Cpu
        || !matches!(indices.dtype(), DType::I32 | DType::I64)
        || shape.iter().product::<usize>() == 0
        || a.size() == 0
    {
        return Ok(None);
    }
    same_device(op, &[a, indices])?;
    let mut src_shape = shape.to_vec();
    src_shape[axis] = a.shape()[axis];
    let src = a.broadcast_to(&src_shape)?;
    let idx = indices.broadcast_to(shape)?;
    let out = Tensor::empty_on(a.dtype(), shape, a.device())?;
    let done = super::locked_fresh(op, &[&src, &idx], &out, || {
        out.backend().gather_along_checking(&src, axis, &idx, &out)
    })?;
    Ok((done == Checked::Done).then_some(out))
}

/// A 1-D [`Tensor::scatter_with`] combining into all of a copy of `a`, by
/// the backend's loop that checks the indices as it goes
/// ([`IndexBackend::scatter_reduce_checking`]): `None` when the backend
/// declines or meets an index outside `0..len` (also a negative one, which
/// the caller's checked path counts from the end or names in its error),
/// and then the caller starts again from `a` itself, which this never
/// writes.
///
/// [`IndexBackend::scatter_reduce_checking`]: crate::backend::IndexBackend::scatter_reduce_checking
fn scatter_fused(
    op: &str,
    a: &Tensor,
    indices: &Tensor,
    u: &Tensor,
    r: ScatterOp,
) -> Result<Option<Tensor>> {
    // Only the CPU backend has a checking loop (the others decline: no copy
    // made for nothing).
    if a.device() != Device::Cpu
        || indices.ndim() != 1
        || !matches!(indices.dtype(), DType::I32 | DType::I64)
        || indices.size() == 0
        || a.size() == 0
    {
        return Ok(None);
    }
    same_device(op, &[a, indices])?;
    let out = a.copy()?;
    let idx = flat(indices)?;
    let done = super::locked_fresh(op, &[u, &idx], &out, || {
        out.backend().scatter_reduce_checking(u, 0, &idx, &out, r)
    })?;
    Ok((done == Checked::Done).then_some(out))
}

/// The grid shape of an `*_along_axis` call: `indices`' size on `axis`, and
/// on the other axes the broadcast of `self`'s and `indices`' sizes (or, with
/// `exact`, `self`'s size, which `indices` must equal or be 1 on).
fn along_shape(
    op: &str,
    a: &Tensor,
    indices: &Tensor,
    axis: usize,
    exact: bool,
) -> Result<Vec<usize>> {
    let bad = || {
        Error::shapes(
            op,
            a.shape(),
            indices.shape(),
            "do not match: indices need the tensor's rank, and on every other axis than `axis` its size or 1",
        )
    };
    if indices.ndim() != a.ndim() {
        return Err(bad());
    }
    let mut shape = Vec::with_capacity(a.ndim());
    for d in 0..a.ndim() {
        let (x, i) = (a.shape()[d], indices.shape()[d]);
        shape.push(if d == axis {
            i
        } else if x == i || i == 1 {
            x
        } else if x == 1 && !exact {
            i
        } else {
            return Err(bad());
        });
    }
    Ok(shape)
}

/// The validated row-major positions in `a` of the `*_along_axis` indices
/// `indices` (already of the grid shape `shape`) along `axis` (mode raise).
fn along_pos(
    op: &str,
    a: &Tensor,
    indices: &Tensor,
    shape: &[usize],
    axis: usize,
) -> Result<Tensor> {
    let target = Target {
        size: a.shape()[axis],
        axis,
        along: Some((shape, a.shape())),
    };
    positions(op, indices, a, target, IndexMode::Raise)
}

impl Tensor {
    /// NumPy's `take`: the elements at `indices` (i32 or i64, any shape) along
    /// `axis`, or of the flattened tensor when `axis` is `None`. The result's
    /// shape is `self.shape[..axis] ++ indices.shape ++ self.shape[axis+1..]`
    /// (`indices.shape` when flattened). Negative indices count from the end;
    /// an index out of range is an error (see [`Tensor::take_with`] for the
    /// wrap and clip modes).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::create(DType::I32, &[6], &[4, 3, 5, 7, 6, 8]).unwrap();
    /// let i = Tensor::create(DType::I64, &[3], &[0, 1, 4]).unwrap();
    /// assert_eq!(a.take(&i, None).unwrap().to_string(), "[4, 3, 6]");
    /// let i2 = Tensor::create(DType::I64, &[2, 2], &[0, 1, -2, -1]).unwrap();
    /// assert_eq!(a.take(&i2, None).unwrap().to_string(), "[[4, 3],\n [6, 8]]");
    /// let m = a.reshape([2, 3]).unwrap();
    /// let j = Tensor::create(DType::I32, &[2], &[2, 0]).unwrap();
    /// assert_eq!(m.take(&j, 1).unwrap().to_string(), "[[5, 4],\n [8, 7]]");
    /// assert!(a.take(&Tensor::create(DType::I32, &[1], &[6]).unwrap(), None).is_err());
    /// ```
    pub fn take(&self, indices: &Tensor, axis: impl Into<Option<isize>>) -> Result<Tensor> {
        self.take_with(indices, axis, TakeOptions::default())
    }

    /// [`Tensor::take`] with options (the [`IndexMode`] for indices out of
    /// range).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// use rnx::ops::take::{IndexMode, TakeOptions};
    /// let a = Tensor::create(DType::I32, &[3], &[10, 20, 30]).unwrap();
    /// let i = Tensor::create(DType::I32, &[4], &[-4, 3, 5, -1]).unwrap();
    /// let w = a.take_with(&i, None, TakeOptions { mode: IndexMode::Wrap }).unwrap();
    /// assert_eq!(w.to_string(), "[30, 10, 30, 30]");
    /// let c = a.take_with(&i, None, TakeOptions { mode: IndexMode::Clip }).unwrap();
    /// assert_eq!(c.to_string(), "[10, 30, 30, 10]");
    /// ```
    pub fn take_with(
        &self,
        indices: &Tensor,
        axis: impl Into<Option<isize>>,
        opts: TakeOptions,
    ) -> Result<Tensor> {
        let op = "take";
        let (src, axis) = match axis.into() {
            None => (flat(self)?, 0),
            Some(a) => (self.clone(), one_axis(op, a, self.ndim())?),
        };
        let mut shape = src.shape()[..axis].to_vec();
        shape.extend_from_slice(indices.shape());
        shape.extend_from_slice(&src.shape()[axis + 1..]);
        if opts.mode == IndexMode::Raise {
            if let Some(out) = gather_fused(op, &src, axis, indices)? {
                return out.reshape_exact(&shape);
            }
        }
        let target = Target {
            size: src.shape()[axis],
            axis,
            along: None,
        };
        let pos = positions(op, indices, &src, target, opts.mode)?;
        let out = gather_pos(op, &src, axis, &pos)?;
        out.reshape_exact(&shape)
    }

    /// NumPy's `take_along_axis`: `out[i.., j, k..] = self[i.., indices[i.., j,
    /// k..], k..]` along `axis`. `indices` (i32 or i64) has the tensor's rank;
    /// on the other axes the two broadcast against each other. Negative
    /// indices count from the end; out of range is an error.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::create(DType::I32, &[2, 3], &[10, 30, 20, 60, 40, 50]).unwrap();
    /// let i = a.argsort(1, false).unwrap();
    /// assert_eq!(a.take_along_axis(&i, 1).unwrap().to_string(), "[[10, 20, 30],\n [40, 50, 60]]");
    /// let m = Tensor::create(DType::I64, &[2, 1], &[1, -1]).unwrap();
    /// assert_eq!(a.take_along_axis(&m, 1).unwrap().to_string(), "[[30],\n [50]]");
    /// ```
    pub fn take_along_axis(&self, indices: &Tensor, axis: isize) -> Result<Tensor> {
        self.along("take_along_axis", indices, axis)
    }

    /// PyTorch's `gather(dim, index)`: the same function as
    /// [`Tensor::take_along_axis`] under PyTorch's name (an alias; it also
    /// accepts negative indices and broadcasts as NumPy does, where PyTorch
    /// asks `index` to be no larger than the tensor on the other axes).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let t = Tensor::create(DType::F32, &[2, 2], &[1., 2., 3., 4.]).unwrap();
    /// let i = Tensor::create(DType::I64, &[2, 2], &[0, 0, 1, 0]).unwrap();
    /// assert_eq!(t.gather(&i, 1).unwrap().to_string(), "[[1, 1],\n [4, 3]]");
    /// ```
    pub fn gather(&self, indices: &Tensor, axis: isize) -> Result<Tensor> {
        self.along("gather", indices, axis)
    }

    fn along(&self, op: &str, indices: &Tensor, axis: isize) -> Result<Tensor> {
        let axis = one_axis(op, axis, self.ndim())?;
        let shape = along_shape(op, self, indices, axis, false)?;
        if let Some(out) = along_fused(op, self, indices, axis, &shape)? {
            return Ok(out);
        }
        let pos = along_pos(op, self, &indices.broadcast_to(&shape)?, &shape, axis)?;
        let out = gather_pos(op, &flat(self)?, 0, &pos)?;
        out.reshape_exact(&shape)
    }

    /// NumPy's `put` (in place): `self.flat[indices[j]] = values[j % values.size]`
    /// in row-major order; `values` repeats when shorter than `indices`. Of
    /// repeated indices the last wins. Negative indices count from the end;
    /// out of range is an error with nothing written (see
    /// [`Tensor::put_with`] for the modes). Returns `self`.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::arange(DType::I32, 0, 5, 1).unwrap();
    /// let i = Tensor::create(DType::I64, &[2], &[0, 2]).unwrap();
    /// a.put(&i, &Tensor::create(DType::I32, &[2], &[-44, -55]).unwrap()).unwrap();
    /// assert_eq!(a.to_string(), "[-44, 1, -55, 3, 4]");
    /// ```
    pub fn put(&self, indices: &Tensor, values: &Tensor) -> Result<Tensor> {
        self.put_with(indices, values, TakeOptions::default())
    }

    /// [`Tensor::put`] with options (the [`IndexMode`]).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// use rnx::ops::take::{IndexMode, TakeOptions};
    /// let a = Tensor::arange(DType::I32, 0, 5, 1).unwrap();
    /// let i = Tensor::create(DType::I32, &[1], &[22]).unwrap();
    /// let v = Tensor::create(DType::I32, &[1], &[-5]).unwrap();
    /// a.put_with(&i, &v, TakeOptions { mode: IndexMode::Clip }).unwrap();
    /// assert_eq!(a.to_string(), "[0, 1, 2, 3, -5]");
    /// ```
    pub fn put_with(&self, indices: &Tensor, values: &Tensor, opts: TakeOptions) -> Result<Tensor> {
        let op = "put";
        same_dtype(op, &[self, values])?;
        same_device(op, &[self, values])?;
        let target = Target {
            size: self.size(),
            axis: 0,
            along: None,
        };
        let pos = positions(op, indices, self, target, opts.mode)?;
        let m = pos.size();
        if m > 0 && values.size() == 0 {
            return Err(Error::invalid(op, format!("{m} indices but no values")));
        }
        let v = flat(values)?;
        let v = if v.size() == m || m == 0 {
            v
        } else {
            let js: Vec<isize> = (0..m).map(|j| (j % v.size()) as isize).collect();
            gather_at(op, &v, 0, &js)?
        };
        write_pos(op, self, &pos, &v, None, false)?;
        Ok(self.clone())
    }

    /// NumPy's `put_along_axis` (in place): `self[i.., indices[i.., j, k..],
    /// k..] = values[i.., j, k..]`. `indices` has the tensor's rank and on the
    /// other axes its size or 1; `values` broadcasts to the indices' grid. Of
    /// repeated positions the last wins; out of range is an error with nothing
    /// written. Returns `self`.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::create(DType::I32, &[2, 3], &[10, 30, 20, 60, 40, 50]).unwrap();
    /// let i = a.argmax(1, true).unwrap();
    /// a.put_along_axis(&i, &Tensor::scalar(DType::I32, 99).unwrap(), 1).unwrap();
    /// assert_eq!(a.to_string(), "[[10, 99, 20],\n [99, 40, 50]]");
    /// ```
    pub fn put_along_axis(&self, indices: &Tensor, values: &Tensor, axis: isize) -> Result<Tensor> {
        let op = "put_along_axis";
        let axis = one_axis(op, axis, self.ndim())?;
        let shape = along_shape(op, self, indices, axis, true)?;
        same_dtype(op, &[self, values])?;
        let v = values.broadcast_to(&shape).map_err(|_| {
            Error::shapes(
                op,
                values.shape(),
                &shape,
                "values cannot be broadcast to the indices' grid",
            )
        })?;
        let pos = along_pos(op, self, &indices.broadcast_to(&shape)?, &shape, axis)?;
        write_pos(op, self, &pos, &flat(&v)?, None, false)?;
        Ok(self.clone())
    }

    /// PyTorch's `index_put_` (in place, overwriting): one i32/i64 index
    /// tensor per leading axis, broadcast together to a grid `B`; `values`
    /// broadcasts to `B ++ self.shape[k..]` (k = number of index tensors).
    /// Of repeated positions the last wins. Negative indices count from the
    /// end; out of range is an error with nothing written. Returns `self`.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::zeros(DType::I32, &[3, 3]).unwrap();
    /// let r = Tensor::create(DType::I64, &[2], &[0, 2]).unwrap();
    /// let c = Tensor::create(DType::I64, &[2], &[1, -1]).unwrap();
    /// a.index_put(&[&r, &c], &Tensor::create(DType::I32, &[2], &[5, 7]).unwrap()).unwrap();
    /// assert_eq!(a.to_string(), "[[0, 5, 0],\n [0, 0, 0],\n [0, 0, 7]]");
    /// ```
    pub fn index_put(&self, indices: &[&Tensor], values: &Tensor) -> Result<Tensor> {
        self.index_put_with(indices, values, IndexPutOptions::default())
    }

    /// [`Tensor::index_put`] with options: `accumulate` adds the values
    /// (repeated positions add up, in order: deterministic).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// use rnx::ops::take::IndexPutOptions;
    /// let a = Tensor::zeros(DType::F32, &[4]).unwrap();
    /// let i = Tensor::create(DType::I32, &[4], &[0, 1, 1, 3]).unwrap();
    /// let acc = IndexPutOptions { accumulate: true };
    /// a.index_put_with(&[&i], &Tensor::scalar(DType::F32, 1.5).unwrap(), acc).unwrap();
    /// assert_eq!(a.to_string(), "[1.5, 3, 0, 1.5]");
    /// ```
    pub fn index_put_with(
        &self,
        indices: &[&Tensor],
        values: &Tensor,
        opts: IndexPutOptions,
    ) -> Result<Tensor> {
        let op = "index_put";
        let k = indices.len();
        if k == 0 || k > self.ndim() {
            return Err(Error::invalid(
                op,
                format!(
                    "{k} index tensors given for a tensor of rank {}",
                    self.ndim()
                ),
            ));
        }
        same_dtype(op, &[self, values])?;
        let shapes: Vec<&[usize]> = indices.iter().map(|t| t.shape()).collect();
        let grid = super::shape::broadcast_shapes(op, &shapes)?;
        let rest = &self.shape()[k..];
        let mut target = grid.clone();
        target.extend_from_slice(rest);
        let v = values.broadcast_to(&target).map_err(|_| {
            Error::shapes(
                op,
                values.shape(),
                &target,
                "values cannot be broadcast to the indexed shape",
            )
        })?;
        let cs = c_strides(self.shape());
        let m: usize = grid.iter().product();
        let mut base = vec![0isize; m];
        for (d, t) in indices.iter().enumerate() {
            let ks = host_indices(op, &t.broadcast_to(&grid)?, self)?;
            let ks = resolve(op, &ks, self.shape()[d], d, IndexMode::Raise)?;
            for (b, kk) in base.iter_mut().zip(ks) {
                *b += kk * cs[d];
            }
        }
        let r: usize = rest.iter().product();
        let pos: Vec<isize> = base
            .iter()
            .flat_map(|&b| (0..r as isize).map(move |i| b + i))
            .collect();
        let reduce = opts.accumulate.then_some(ScatterOp::Add);
        write_flat(op, self, &pos, &flat(&v)?, reduce)?;
        Ok(self.clone())
    }

    /// PyTorch's `scatter(dim, index, src)` as a pure function (a new tensor;
    /// `self` is unchanged): `out[i.., indices[i.., j, k..], k..] = updates[i..,
    /// j, k..]`; `indices` has the tensor's rank and on the other axes at most
    /// its size; `updates` has at least the indices' size on every axis (its
    /// leading block is used) or broadcasts to their shape. Of repeated
    /// positions the last wins (see [`Tensor::scatter_with`] for add, multiply,
    /// max and min). Negative indices count from the end; out of range is an
    /// error.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let src = Tensor::arange(DType::I32, 1, 11, 1).unwrap().reshape([2, 5]).unwrap();
    /// let idx = Tensor::create(DType::I64, &[1, 4], &[0, 1, 2, 0]).unwrap();
    /// let z = Tensor::zeros(DType::I32, &[3, 5]).unwrap();
    /// let out = z.scatter(&idx, &src, 0).unwrap();
    /// assert_eq!(out.to_string(), "[[1, 0, 0, 4, 0],\n [0, 2, 0, 0, 0],\n [0, 0, 3, 0, 0]]");
    /// ```
    pub fn scatter(&self, indices: &Tensor, updates: &Tensor, axis: isize) -> Result<Tensor> {
        self.scatter_with(indices, updates, axis, ScatterOptions::default())
    }

    /// [`Tensor::scatter`] with a [`ScatterMode`] (PyTorch's
    /// `scatter_reduce`): repeated positions combine in the order of the
    /// indices (row-major), so the result is the same on every thread count
    /// and device.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// use rnx::ops::take::{ScatterMode, ScatterOptions};
    /// let x = Tensor::create(DType::F32, &[3], &[1., 2., 3.]).unwrap();
    /// let i = Tensor::create(DType::I64, &[4], &[0, 2, 0, 2]).unwrap();
    /// let u = Tensor::create(DType::F32, &[4], &[10., 20., 30., 40.]).unwrap();
    /// let add = ScatterOptions { mode: ScatterMode::Add, ..Default::default() };
    /// assert_eq!(x.scatter_with(&i, &u, 0, add).unwrap().to_string(), "[41, 2, 63]");
    /// let max = ScatterOptions { mode: ScatterMode::Max, include_self: false };
    /// assert_eq!(x.scatter_with(&i, &u, 0, max).unwrap().to_string(), "[30, 2, 40]");
    /// ```
    pub fn scatter_with(
        &self,
        indices: &Tensor,
        updates: &Tensor,
        axis: isize,
        opts: ScatterOptions,
    ) -> Result<Tensor> {
        let op = "scatter";
        let axis = one_axis(op, axis, self.ndim())?;
        same_dtype(op, &[self, updates])?;
        same_device(op, &[self, updates])?;
        let reduce = match opts.mode {
            ScatterMode::Set => None,
            ScatterMode::Add => Some(ScatterOp::Add),
            ScatterMode::Multiply => Some(ScatterOp::Mul),
            ScatterMode::Max => Some(ScatterOp::Max),
            ScatterMode::Min => Some(ScatterOp::Min),
        };
        if matches!(reduce, Some(ScatterOp::Max | ScatterOp::Min)) && self.dtype().is_complex() {
            return Err(Error::dtype(op, self.dtype()));
        }
        let shape = indices.shape().to_vec();
        if shape.len() != self.ndim()
            || (0..shape.len()).any(|d| d != axis && shape[d] > self.shape()[d])
        {
            return Err(Error::shapes(
                op,
                self.shape(),
                &shape,
                "do not match: indices need the tensor's rank and at most its size on every other axis",
            ));
        }
        let u = if updates.ndim() == shape.len()
            && updates.shape().iter().zip(&shape).all(|(u, i)| u >= i)
        {
            let spec: Vec<super::index::Index> = shape
                .iter()
                .map(|&n| super::index::Index::range(0, n as isize))
                .collect();
            updates.slice(spec)?
        } else {
            updates.broadcast_to(&shape).map_err(|_| {
                Error::shapes(
                    op,
                    updates.shape(),
                    &shape,
                    "updates cannot cover the indices' shape",
                )
            })?
        };
        let u = flat(&u)?;
        if let (Some(r), true) = (reduce, opts.include_self) {
            if let Some(out) = scatter_fused(op, self, indices, &u, r)? {
                return Ok(out);
            }
        }
        let pt = along_pos(op, self, indices, &shape, axis)?;
        let out = self.copy()?;
        match reduce {
            None => write_pos(op, &out, &pt, &u, None, false)?,
            Some(r) if opts.include_self => write_pos(op, &out, &pt, &u, Some(r), false)?,
            Some(r) => {
                let pos = host_positions(&pt)?;
                // First occurrences set, the others combine into them.
                let mut seen = std::collections::HashSet::with_capacity(pos.len());
                let (mut first, mut later) = (Vec::new(), Vec::new());
                for (j, &p) in pos.iter().enumerate() {
                    if seen.insert(p) {
                        first.push(j as isize);
                    } else {
                        later.push(j as isize);
                    }
                }
                let pick = |js: &[isize]| -> Result<(Vec<isize>, Tensor)> {
                    let ps = js.iter().map(|&j| pos[j as usize]).collect();
                    Ok((ps, gather_at(op, &u, 0, js)?))
                };
                let (p1, u1) = pick(&first)?;
                write_flat(op, &out, &p1, &u1, None)?;
                if !later.is_empty() {
                    let (p2, u2) = pick(&later)?;
                    write_flat(op, &out, &p2, &u2, Some(r))?;
                }
            }
        }
        Ok(out)
    }
}
