//! Views of the Nx shape API: reshape, broadcast_to, broadcasted, expand,
//! flatten, unflatten, squeeze/unsqueeze, transpose, flip, moveaxis, swapaxes,
//! shrink and get. Each is O(1) and shares storage (only `reshape`/`flatten`/
//! `unflatten` copy, when the strides cannot express the new shape). Copying
//! shape functions live in `join.rs`, indexing in `index.rs`. Nothing here
//! touches element memory except through `contiguous`.

use crate::axes::{Axes, NewShape};
use crate::error::{Error, Result};
use crate::layout::{checked_numel, normalize_axis, Layout};
use crate::tensor::Tensor;

/// The shape that `shapes` broadcast to (dimensions aligned from the right; each
/// must equal the result's or be 1), or an error naming `op` and two offending
/// shapes.
///
/// ```
/// use rnx::ops::shape::broadcast_shapes;
/// assert_eq!(broadcast_shapes("add", &[&[3, 1], &[1, 5]]).unwrap(), vec![3, 5]);
/// assert_eq!(broadcast_shapes("add", &[&[], &[2, 3]]).unwrap(), vec![2, 3]);
/// assert!(broadcast_shapes("add", &[&[2], &[3]]).is_err());
/// ```
pub fn broadcast_shapes(op: &str, shapes: &[&[usize]]) -> Result<Vec<usize>> {
    let n = shapes.iter().map(|s| s.len()).max().unwrap_or(0);
    let mut out = vec![1usize; n];
    let mut owner: Vec<usize> = vec![0; n]; // which input fixed each dim (for errors)
    for (k, s) in shapes.iter().enumerate() {
        for i in 0..s.len() {
            let d = s[s.len() - 1 - i];
            let o = n - 1 - i;
            if d == out[o] || d == 1 {
                continue;
            }
            if out[o] == 1 {
                out[o] = d;
                owner[o] = k;
            } else {
                return Err(Error::shapes(
                    op,
                    shapes[owner[o]],
                    s,
                    "cannot be broadcast together",
                ));
            }
        }
    }
    Ok(out)
}

/// Normalise a list of axes, rejecting duplicates (in the given order).
pub(crate) fn normalize_axes(op: &str, axes: &[isize], ndim: usize) -> Result<Vec<usize>> {
    Axes::from(axes).resolve(op, ndim)
}

impl Tensor {
    /// The same elements in a new shape (a [`NewShape`]: `[3, 2]`,
    /// `other.shape()`, `vec![..]`); at most one dimension may be `-1`
    /// (inferred). A view when the strides allow it (always for contiguous
    /// tensors), otherwise a contiguous copy.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let t = Tensor::create(DType::I32, &[6], &[1, 2, 3, 4, 5, 6]).unwrap();
    /// let r = t.reshape([3, -1]).unwrap();
    /// assert_eq!(r.to_string(), "[[1, 2],\n [3, 4],\n [5, 6]]");
    /// assert!(r.same_storage(&t));
    /// ```
    pub fn reshape(&self, shape: impl Into<NewShape>) -> Result<Tensor> {
        let shape = shape.into().infer("reshape", self.size(), self.shape())?;
        self.reshape_exact(&shape)
    }

    /// Reshape to a fully known shape (view when possible, else copy).
    pub(crate) fn reshape_exact(&self, shape: &[usize]) -> Result<Tensor> {
        checked_numel("reshape", shape)?;
        if shape.iter().product::<usize>() != self.size() {
            return Err(Error::shapes(
                "reshape",
                self.shape(),
                shape,
                "have different numbers of elements",
            ));
        }
        match self.layout().reshape(shape) {
            Some(l) => Ok(self.with_layout(l)),
            None => {
                let c = self.copy()?;
                let l = Layout::contiguous(shape);
                Ok(c.with_layout(l))
            }
        }
    }

    /// A view broadcast to `shape`: dimensions align from the right, each must
    /// equal the target or be 1; broadcast dimensions get stride 0 (no copy).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let t = Tensor::create(DType::I32, &[1, 3], &[1, 2, 3]).unwrap();
    /// let b = t.broadcast_to(&[3, 3]).unwrap();
    /// assert_eq!(b.to_string(), "[[1, 2, 3],\n [1, 2, 3],\n [1, 2, 3]]");
    /// ```
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Tensor> {
        Ok(self.with_layout(self.layout().broadcast_to(shape)?))
    }

    /// Views of `self` and `other` broadcast to their common shape; with
    /// `reverse` the pair comes back as `(other', self')`.
    pub fn broadcasted(&self, other: &Tensor, reverse: bool) -> Result<(Tensor, Tensor)> {
        let shape = broadcast_shapes("broadcasted", &[self.shape(), other.shape()])?;
        let a = self.broadcast_to(&shape)?;
        let b = other.broadcast_to(&shape)?;
        Ok(if reverse { (b, a) } else { (a, b) })
    }

    /// Broadcast to a [`NewShape`] where `-1` keeps the (right-aligned)
    /// existing dimension (several `-1` are allowed); new dimensions are added
    /// on the left (where `-1` is an error).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let t = Tensor::ones(DType::F32, &[1, 4, 1]).unwrap();
    /// assert_eq!(t.expand([3, -1, 5]).unwrap().shape(), &[3, 4, 5]);
    /// ```
    pub fn expand(&self, shape: impl Into<NewShape>) -> Result<Tensor> {
        let shape = shape.into();
        let entries = shape.entries("expand")?;
        let n = entries.len();
        let m = self.ndim();
        if m > n {
            return Err(Error::invalid(
                "expand",
                format!(
                    "target {shape} has fewer dimensions than the tensor {:?}",
                    self.shape()
                ),
            ));
        }
        let mut target = Vec::with_capacity(n);
        for (i, d) in entries.into_iter().enumerate() {
            match d {
                None if i < n - m => {
                    return Err(Error::invalid(
                        "expand",
                        format!("-1 at new leading dimension {i} of {shape}"),
                    ));
                }
                None => target.push(self.shape()[i - (n - m)]),
                Some(d) => target.push(d),
            }
        }
        self.layout()
            .broadcast_to(&target)
            .map(|l| self.with_layout(l))
            .map_err(|_| Error::shapes("expand", self.shape(), &target, "are not compatible"))
    }

    /// Collapse dimensions `start_dim..=end_dim` (negative counts from the end)
    /// into one; Nx's defaults are `flatten(0, -1)`. A view when the strides
    /// allow, else a copy. A rank-0 tensor flattens to shape `[1]`.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let t = Tensor::zeros(DType::F32, &[2, 3, 4, 5]).unwrap();
    /// assert_eq!(t.flatten(1, 2).unwrap().shape(), &[2, 12, 5]);
    /// ```
    pub fn flatten(&self, start_dim: isize, end_dim: isize) -> Result<Tensor> {
        if self.ndim() == 0 {
            // Accept the axes a rank-0 tensor viewed as rank 1 would.
            normalize_axis("flatten", start_dim, 1)?;
            normalize_axis("flatten", end_dim, 1)?;
            return self.reshape_exact(&[1]);
        }
        let s = normalize_axis("flatten", start_dim, self.ndim())?;
        let e = normalize_axis("flatten", end_dim, self.ndim())?;
        if s > e {
            return Err(Error::invalid(
                "flatten",
                format!("start_dim {start_dim} comes after end_dim {end_dim}"),
            ));
        }
        let sh = self.shape();
        let mut shape: Vec<usize> = sh[..s].to_vec();
        shape.push(sh[s..=e].iter().product());
        shape.extend_from_slice(&sh[e + 1..]);
        self.reshape_exact(&shape)
    }

    /// Split dimension `dim` into `sizes` (a [`NewShape`]; one may be `-1`,
    /// inferred); the inverse of [`Tensor::flatten`].
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let t = Tensor::ones(DType::F32, &[6, 5]).unwrap();
    /// assert_eq!(t.unflatten(0, [-1, 2]).unwrap().shape(), &[3, 2, 5]);
    /// ```
    pub fn unflatten(&self, dim: isize, sizes: impl Into<NewShape>) -> Result<Tensor> {
        let d = normalize_axis("unflatten", dim, self.ndim())?;
        let inner = sizes
            .into()
            .infer("unflatten", self.shape()[d], &self.shape()[d..=d])?;
        let mut shape: Vec<usize> = self.shape()[..d].to_vec();
        shape.extend_from_slice(&inner);
        shape.extend_from_slice(&self.shape()[d + 1..]);
        self.reshape_exact(&shape)
    }

    /// Remove size-1 dimensions: all of them (`None`) or the given [`Axes`],
    /// each of which must have size 1.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let t = Tensor::ones(DType::F32, &[1, 3, 1, 4]).unwrap();
    /// assert_eq!(t.squeeze(None).unwrap().shape(), &[3, 4]);
    /// assert_eq!(t.squeeze([0, 2]).unwrap().shape(), &[3, 4]);
    /// assert!(t.squeeze(1).is_err());
    /// ```
    pub fn squeeze(&self, axes: impl Into<Axes>) -> Result<Tensor> {
        let axes = axes.into();
        let mut axes: Vec<usize> = match axes.is_default() {
            true => (0..self.ndim()).filter(|&a| self.shape()[a] == 1).collect(),
            false => {
                let v = axes.resolve("squeeze", self.ndim())?;
                for &u in &v {
                    if self.shape()[u] != 1 {
                        return Err(Error::invalid(
                            "squeeze",
                            format!(
                                "axis {u} has size {}, not 1 (shape {:?})",
                                self.shape()[u],
                                self.shape()
                            ),
                        ));
                    }
                }
                v
            }
        };
        axes.sort_unstable();
        let mut l = self.layout().clone();
        for &a in axes.iter().rev() {
            l = l.squeeze(a);
        }
        Ok(self.with_layout(l))
    }

    /// Remove dimension `axis`, which must have size 1.
    pub fn squeeze_axis(&self, axis: isize) -> Result<Tensor> {
        self.squeeze(axis)
    }

    /// Insert size-1 dimensions at `axes`, which are positions in the result
    /// (range `-(ndim+k)..ndim+k` for `k` axes; duplicates are an error). Any
    /// [`Axes`] (`1`, `[0, 2]`, `&v`); `None` is an error (the positions are
    /// required).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let t = Tensor::create(DType::F32, &[3], &[1., 2., 3.]).unwrap();
    /// assert_eq!(t.unsqueeze([0, 2]).unwrap().shape(), &[1, 3, 1]);
    /// assert_eq!(t.unsqueeze(-1).unwrap().shape(), &[3, 1]);
    /// assert!(t.unsqueeze(None).is_err());
    /// ```
    pub fn unsqueeze(&self, axes: impl Into<Axes>) -> Result<Tensor> {
        let axes = axes.into();
        let Some(list) = axes.as_list() else {
            return Err(Error::invalid(
                "unsqueeze",
                "needs the positions of the new axes (got None / all)",
            ));
        };
        let n = self.ndim() + list.len();
        let mut ax = normalize_axes("unsqueeze", list, n)?;
        ax.sort_unstable();
        let mut l = self.layout().clone();
        for &a in &ax {
            l = l.unsqueeze(a);
        }
        Ok(self.with_layout(l))
    }

    /// Synonym of [`Tensor::unsqueeze`].
    pub fn expand_dims(&self, axes: impl Into<Axes>) -> Result<Tensor> {
        self.unsqueeze(axes)
    }

    /// Insert one size-1 dimension at `axis` (a position in the result).
    pub fn unsqueeze_axis(&self, axis: isize) -> Result<Tensor> {
        self.unsqueeze(axis)
    }

    /// Permute dimensions: result axis `i` is input axis `axes[i]` (any
    /// [`Axes`]; negative axes count from the end); `None` reverses all
    /// dimensions. A view; `axes` must be a permutation of the axes.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[2, 3], &[1, 2, 3, 4, 5, 6]).unwrap();
    /// assert_eq!(x.transpose(None).unwrap().to_string(), "[[1, 4],\n [2, 5],\n [3, 6]]");
    /// let y = Tensor::zeros(DType::F32, &[2, 3, 4]).unwrap();
    /// assert_eq!(y.transpose([0, -1, 1]).unwrap().shape(), &[2, 4, 3]);
    /// assert!(y.transpose([0, 1]).is_err());
    /// ```
    pub fn transpose(&self, axes: impl Into<Axes>) -> Result<Tensor> {
        let axes = axes.into();
        let perm: Vec<usize> = match axes.is_default() {
            true => (0..self.ndim()).rev().collect(),
            false => axes.resolve("transpose", self.ndim())?,
        };
        Ok(self.with_layout(self.layout().permute(&perm)?))
    }

    /// Reverse the order along `axes` (any [`Axes`]; all when `None`): a view
    /// with negative strides.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[2, 3], &[1, 2, 3, 4, 5, 6]).unwrap();
    /// assert_eq!(x.flip(1).unwrap().to_string(), "[[3, 2, 1],\n [6, 5, 4]]");
    /// ```
    pub fn flip(&self, axes: impl Into<Axes>) -> Result<Tensor> {
        let ax = axes.into().resolve("flip", self.ndim())?;
        let mut l = self.layout().clone();
        for a in ax {
            l = l.flip_axis(a);
        }
        Ok(self.with_layout(l))
    }

    /// Move dimension `src` to position `dst`, keeping the others in order.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let t = Tensor::zeros(DType::F32, &[2, 3, 4]).unwrap();
    /// assert_eq!(t.moveaxis(0, -1).unwrap().shape(), &[3, 4, 2]);
    /// ```
    pub fn moveaxis(&self, src: isize, dst: isize) -> Result<Tensor> {
        let s = normalize_axis("moveaxis", src, self.ndim())?;
        let d = normalize_axis("moveaxis", dst, self.ndim())?;
        let mut perm: Vec<usize> = (0..self.ndim()).filter(|&a| a != s).collect();
        perm.insert(d, s);
        Ok(self.with_layout(self.layout().permute(&perm)?))
    }

    /// Exchange dimensions `axis1` and `axis2`.
    pub fn swapaxes(&self, axis1: isize, axis2: isize) -> Result<Tensor> {
        let a = normalize_axis("swapaxes", axis1, self.ndim())?;
        let b = normalize_axis("swapaxes", axis2, self.ndim())?;
        let mut perm: Vec<usize> = (0..self.ndim()).collect();
        perm.swap(a, b);
        Ok(self.with_layout(self.layout().permute(&perm)?))
    }

    /// The view `start..stop` (stop exclusive) of each leading dimension;
    /// missing trailing dimensions are kept whole. Negative bounds count from
    /// the end; `start > stop` or bounds outside the dimension are errors.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[3, 3], &[1, 2, 3, 4, 5, 6, 7, 8, 9]).unwrap();
    /// assert_eq!(x.shrink(&[(1, 3), (0, 2)]).unwrap().to_string(), "[[4, 5],\n [7, 8]]");
    /// ```
    pub fn shrink(&self, ranges: &[(isize, isize)]) -> Result<Tensor> {
        if ranges.len() > self.ndim() {
            return Err(Error::invalid(
                "shrink",
                format!(
                    "{} ranges given for a tensor of rank {}",
                    ranges.len(),
                    self.ndim()
                ),
            ));
        }
        let mut l = self.layout().clone();
        for (axis, &(a, b)) in ranges.iter().enumerate() {
            let size = self.shape()[axis];
            let norm = |v: isize| if v < 0 { v + size as isize } else { v };
            let (s, e) = (norm(a), norm(b));
            for (orig, v) in [(a, s), (b, e)] {
                if v < 0 || v > size as isize {
                    return Err(Error::IndexOutOfBounds {
                        op: "shrink".into(),
                        index: orig,
                        axis,
                        size,
                    });
                }
            }
            if s > e {
                return Err(Error::invalid(
                    "shrink",
                    format!("range ({a}, {b}) of axis {axis} has start after stop"),
                ));
            }
            l = l.slice_axis(axis, s as usize, (e - s) as usize, 1);
        }
        Ok(self.with_layout(l))
    }

    /// The sub-tensor at `indices` of the leading dimensions (negative counts
    /// from the end): a view of the remaining dimensions, rank 0 when all are
    /// indexed.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[2, 3], &[1, 2, 3, 4, 5, 6]).unwrap();
    /// assert_eq!(x.get(&[1]).unwrap().to_string(), "[4, 5, 6]");
    /// ```
    pub fn get(&self, indices: &[isize]) -> Result<Tensor> {
        self.get_view("get", indices)
    }

    pub(crate) fn get_view(&self, op: &str, indices: &[isize]) -> Result<Tensor> {
        if indices.len() > self.ndim() {
            return Err(Error::invalid(
                op,
                format!(
                    "{} indices given for a tensor of rank {}",
                    indices.len(),
                    self.ndim()
                ),
            ));
        }
        let mut l = self.layout().clone();
        for (axis, &i) in indices.iter().enumerate() {
            let size = self.shape()[axis];
            let j = if i < 0 { i + size as isize } else { i };
            if j < 0 || j >= size as isize {
                return Err(Error::IndexOutOfBounds {
                    op: op.into(),
                    index: i,
                    axis,
                    size,
                });
            }
            l = l.select(0, j as usize);
        }
        Ok(self.with_layout(l))
    }
}
