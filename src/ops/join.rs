//! Copying shape functions of the Nx API: ravel, roll, pad, tile, repeat,
//! concatenate, stack, vstack/hstack/dstack, and the splitting functions
//! broadcast_arrays, array_split and split (which return views). Every copy is a
//! backend `copy`/`fill` into a view of a fresh output; no element loops here.

use super::shape::broadcast_shapes;
use super::{locked, same_device, same_dtype};
use crate::dtype::Scalar;
use crate::error::{Error, Result};
use crate::layout::{normalize_axis, Layout};
use crate::tensor::Tensor;
use std::borrow::Borrow;

/// How [`Tensor::array_split`] divides an axis.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Sections {
    /// `n` parts as equal as possible; the first `size % n` parts get one extra
    /// element.
    Count(usize),
    /// Split before each index (negative counts from the end): parts
    /// `0..i1, i1..i2, ..., ik..size`. Indices must be non-decreasing and within
    /// `0..=size`.
    Indices(Vec<isize>),
}

/// Copy `src` into `dst` (same shape; `dst` a view of a fresh output).
fn copy_into(op: &str, src: &Tensor, dst: &Tensor) -> Result<()> {
    if dst.size() == 0 {
        return Ok(());
    }
    locked(op, &[src], &[dst], || src.backend().copy(src, dst))
}

/// Shared checks of the joining functions: a non-empty list of one dtype and
/// device.
fn check_list<'a, T: Borrow<Tensor>>(op: &str, ts: &'a [T]) -> Result<Vec<&'a Tensor>> {
    if ts.is_empty() {
        return Err(Error::invalid(op, "the list of tensors is empty"));
    }
    let v: Vec<&Tensor> = ts.iter().map(|t| t.borrow()).collect();
    same_dtype(op, &v)?;
    same_device(op, &v)?;
    Ok(v)
}

impl Tensor {
    /// The elements as a contiguous 1-D tensor (a view when already contiguous,
    /// else a copy).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let t = Tensor::ones(DType::F32, &[3, 4]).unwrap().transpose(None).unwrap();
    /// assert!(!t.is_c_contiguous());
    /// assert!(t.ravel().unwrap().is_c_contiguous());
    /// ```
    pub fn ravel(&self) -> Result<Tensor> {
        self.contiguous()?.reshape_exact(&[self.size()])
    }

    /// Shift elements by `shift` along `axis` (the flattened tensor when `None`),
    /// wrapping around; a negative shift rolls backward. Returns a copy.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[5], &[1, 2, 3, 4, 5]).unwrap();
    /// assert_eq!(x.roll(2, None).unwrap().to_string(), "[4, 5, 1, 2, 3]");
    /// ```
    pub fn roll(&self, shift: isize, axis: impl Into<Option<isize>>) -> Result<Tensor> {
        let Some(axis) = axis.into() else {
            let flat = self.ravel()?;
            return flat.roll(shift, Some(0))?.reshape_exact(self.shape());
        };
        let a = normalize_axis("roll", axis, self.ndim())?;
        let out = self.zeros_like()?;
        let n = self.shape()[a];
        if self.size() == 0 {
            return Ok(out);
        }
        let s = shift.rem_euclid(n as isize) as usize;
        let (ol, sl) = (out.layout(), self.layout());
        copy_into(
            "roll",
            &self.with_layout(sl.slice_axis(a, 0, n - s, 1)),
            &out.with_layout(ol.slice_axis(a, s, n - s, 1)),
        )?;
        copy_into(
            "roll",
            &self.with_layout(sl.slice_axis(a, n - s, s, 1)),
            &out.with_layout(ol.slice_axis(a, 0, s, 1)),
        )?;
        Ok(out)
    }

    /// Pad each dimension with `(before, after)` elements of `value`. `padding`
    /// must have one pair per dimension; negative amounts are an error.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[1, 2], &[1, 2]).unwrap();
    /// assert_eq!(x.pad(&[(0, 0), (1, 2)], 9).unwrap().to_string(), "[[9, 1, 2, 9, 9]]");
    /// ```
    pub fn pad(&self, padding: &[(isize, isize)], value: impl Into<Scalar>) -> Result<Tensor> {
        if padding.len() != self.ndim() {
            return Err(Error::invalid(
                "pad",
                format!(
                    "{} (before, after) pairs given for a tensor of rank {}",
                    padding.len(),
                    self.ndim()
                ),
            ));
        }
        if let Some(p) = padding.iter().find(|(a, b)| *a < 0 || *b < 0) {
            return Err(Error::invalid(
                "pad",
                format!("negative padding {p:?} in {padding:?}"),
            ));
        }
        let v = value.into().to_dtype(self.dtype(), "pad")?;
        let shape: Vec<usize> = self
            .shape()
            .iter()
            .zip(padding)
            .map(|(&d, &(a, b))| d + a as usize + b as usize)
            .collect();
        crate::layout::checked_numel("pad", &shape)?;
        let out = Tensor::zeros_on(self.dtype(), &shape, self.device())?;
        if (!v.is_zero() || v.to_re_im().0.is_sign_negative()) && out.size() > 0 {
            locked("pad", &[], &[&out], || out.backend().fill(&out, v))?;
        }
        let mut l = out.layout().clone();
        for (axis, (&d, &(a, _))) in self.shape().iter().zip(padding).enumerate() {
            l = l.slice_axis(axis, a as usize, d, 1);
        }
        copy_into("pad", self, &out.with_layout(l))?;
        Ok(out)
    }

    /// Repeat the whole tensor `reps[i]` times along dimension `i`. When `reps`
    /// is longer than the rank, the tensor gets leading size-1 dimensions; when
    /// shorter, `reps` gets leading 1s. Zero repetitions give an empty tensor.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[1, 2], &[1, 2]).unwrap();
    /// assert_eq!(x.tile(&[2, 3]).unwrap().to_string(),
    ///            "[[1, 2, 1, 2, 1, 2],\n [1, 2, 1, 2, 1, 2]]");
    /// ```
    pub fn tile(&self, reps: &[usize]) -> Result<Tensor> {
        let k = reps.len().max(self.ndim());
        let pad_to = |v: &[usize]| {
            let mut p = vec![1usize; k - v.len()];
            p.extend_from_slice(v);
            p
        };
        let dims = pad_to(self.shape());
        let reps = pad_to(reps);
        let mut strides = vec![0isize; k - self.ndim()];
        strides.extend_from_slice(self.layout().strides());
        let shape: Vec<usize> = dims.iter().zip(&reps).map(|(d, r)| d * r).collect();
        crate::layout::checked_numel("tile", &shape)?;
        let out = Tensor::empty_on(self.dtype(), &shape, self.device())?;
        // Interleave (rep, dim) pairs: the output is [r0, d0, r1, d1, ...].
        let mut pshape = Vec::with_capacity(2 * k);
        let mut pstr = Vec::with_capacity(2 * k);
        for i in 0..k {
            pshape.extend([reps[i], dims[i]]);
            pstr.extend([0, strides[i]]);
        }
        let src = self.with_layout(Layout::new(pshape.clone(), pstr, self.offset()));
        let dst = out.with_layout(Layout::contiguous(&pshape));
        copy_into("tile", &src, &dst)?;
        Ok(out)
    }

    /// Repeat each element `count` times along `axis` (of the flattened tensor
    /// when `None`).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[3], &[1, 2, 3]).unwrap();
    /// assert_eq!(x.repeat(2, None).unwrap().to_string(), "[1, 1, 2, 2, 3, 3]");
    /// ```
    pub fn repeat(&self, count: usize, axis: impl Into<Option<isize>>) -> Result<Tensor> {
        let Some(axis) = axis.into() else {
            return self.ravel()?.repeat(count, Some(0));
        };
        let a = normalize_axis("repeat", axis, self.ndim())?;
        let mut shape = self.shape().to_vec();
        shape[a] = shape[a].checked_mul(count).ok_or_else(|| {
            Error::invalid("repeat", format!("count {count} gives too many elements"))
        })?;
        crate::layout::checked_numel("repeat", &shape)?;
        let out = Tensor::empty_on(self.dtype(), &shape, self.device())?;
        let mut pshape = self.shape().to_vec();
        pshape.insert(a + 1, count);
        let mut pstr = self.layout().strides().to_vec();
        pstr.insert(a + 1, 0);
        let src = self.with_layout(Layout::new(pshape.clone(), pstr, self.offset()));
        copy_into(
            "repeat",
            &src,
            &out.with_layout(Layout::contiguous(&pshape)),
        )?;
        Ok(out)
    }

    /// Join tensors along an existing `axis` (after flattening each when
    /// `None`). All must have one dtype, one device, one rank, and equal
    /// dimensions except along `axis`. Returns a contiguous copy.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::create(DType::I32, &[2, 2], &[1, 2, 3, 4]).unwrap();
    /// let b = Tensor::create(DType::I32, &[1, 2], &[5, 6]).unwrap();
    /// let c = Tensor::concatenate(&[&a, &b], 0).unwrap();
    /// assert_eq!(c.to_string(), "[[1, 2],\n [3, 4],\n [5, 6]]");
    /// ```
    pub fn concatenate<T: Borrow<Tensor>>(
        ts: &[T],
        axis: impl Into<Option<isize>>,
    ) -> Result<Tensor> {
        let op = "concatenate";
        let v = check_list(op, ts)?;
        let Some(axis) = axis.into() else {
            let flat: Vec<Tensor> = v
                .iter()
                .map(|t| t.reshape_exact(&[t.size()]))
                .collect::<Result<_>>()?;
            return Tensor::concatenate(&flat, Some(0));
        };
        let first = v[0];
        let a = normalize_axis(op, axis, first.ndim())?;
        let mut total = 0usize;
        for t in &v {
            let same_rest = t.ndim() == first.ndim()
                && (0..first.ndim()).all(|i| i == a || t.shape()[i] == first.shape()[i]);
            if !same_rest {
                return Err(Error::shapes(
                    op,
                    first.shape(),
                    t.shape(),
                    format!("differ outside axis {axis}"),
                ));
            }
            total += t.shape()[a];
        }
        let mut shape = first.shape().to_vec();
        shape[a] = total;
        let out = Tensor::empty_on(first.dtype(), &shape, first.device())?;
        let mut off = 0;
        for t in &v {
            let d = t.shape()[a];
            copy_into(
                op,
                t,
                &out.with_layout(out.layout().slice_axis(a, off, d, 1)),
            )?;
            off += d;
        }
        Ok(out)
    }

    /// Join tensors of identical shape along a new `axis` of the result
    /// (negative counts from the end of the result's dimensions).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::create(DType::I32, &[2], &[1, 2]).unwrap();
    /// let b = Tensor::create(DType::I32, &[2], &[3, 4]).unwrap();
    /// assert_eq!(Tensor::stack(&[&a, &b], 1).unwrap().to_string(), "[[1, 3],\n [2, 4]]");
    /// ```
    pub fn stack<T: Borrow<Tensor>>(ts: &[T], axis: isize) -> Result<Tensor> {
        let v = check_list("stack", ts)?;
        for t in &v {
            if t.shape() != v[0].shape() {
                return Err(Error::shapes(
                    "stack",
                    v[0].shape(),
                    t.shape(),
                    "differ (stack needs identical shapes)",
                ));
            }
        }
        let a = normalize_axis("stack", axis, v[0].ndim() + 1)?;
        let u: Vec<Tensor> = v
            .iter()
            .map(|t| t.with_layout(t.layout().unsqueeze(a)))
            .collect();
        Tensor::concatenate(&u, Some(a as isize))
    }

    /// Stack row-wise: 0-D and 1-D tensors become rows `[1, n]`, then all are
    /// concatenated along axis 0.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::create(DType::I32, &[3], &[1, 2, 3]).unwrap();
    /// let b = Tensor::create(DType::I32, &[3], &[4, 5, 6]).unwrap();
    /// assert_eq!(Tensor::vstack(&[&a, &b]).unwrap().to_string(), "[[1, 2, 3],\n [4, 5, 6]]");
    /// ```
    pub fn vstack<T: Borrow<Tensor>>(ts: &[T]) -> Result<Tensor> {
        let v = check_list("vstack", ts)?;
        let u: Vec<Tensor> = v
            .iter()
            .map(|t| match t.ndim() {
                0 => t.reshape_exact(&[1, 1]),
                1 => t.reshape_exact(&[1, t.size()]),
                _ => Ok((*t).clone()),
            })
            .collect::<Result<_>>()?;
        Tensor::concatenate(&u, Some(0)).map_err(|e| rename(e, "vstack"))
    }

    /// Stack column-wise: 1-D tensors (and 0-D, as length 1) are concatenated
    /// directly, higher ranks along axis 1 (NumPy's rule: decided by the first
    /// tensor's rank).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::create(DType::I32, &[2, 1], &[1, 2]).unwrap();
    /// let b = Tensor::create(DType::I32, &[2, 1], &[3, 4]).unwrap();
    /// assert_eq!(Tensor::hstack(&[&a, &b]).unwrap().to_string(), "[[1, 3],\n [2, 4]]");
    /// ```
    pub fn hstack<T: Borrow<Tensor>>(ts: &[T]) -> Result<Tensor> {
        let v = check_list("hstack", ts)?;
        let u: Vec<Tensor> = v
            .iter()
            .map(|t| {
                if t.ndim() == 0 {
                    t.reshape_exact(&[1])
                } else {
                    Ok((*t).clone())
                }
            })
            .collect::<Result<_>>()?;
        let axis = if u[0].ndim() == 1 { 0 } else { 1 };
        Tensor::concatenate(&u, Some(axis)).map_err(|e| rename(e, "hstack"))
    }

    /// Stack depth-wise along axis 2 after making each tensor at least 3-D:
    /// `[n] -> [1, n, 1]`, `[m, n] -> [m, n, 1]` (0-D becomes `[1, 1, 1]`).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::create(DType::I32, &[2], &[1, 2]).unwrap();
    /// let b = Tensor::create(DType::I32, &[2], &[3, 4]).unwrap();
    /// assert_eq!(Tensor::dstack(&[&a, &b]).unwrap().to_string(), "[[[1, 3],\n  [2, 4]]]");
    /// ```
    pub fn dstack<T: Borrow<Tensor>>(ts: &[T]) -> Result<Tensor> {
        let v = check_list("dstack", ts)?;
        let u: Vec<Tensor> = v
            .iter()
            .map(|t| match t.ndim() {
                0 => t.reshape_exact(&[1, 1, 1]),
                1 => t.reshape_exact(&[1, t.size(), 1]),
                2 => t.reshape_exact(&[t.shape()[0], t.shape()[1], 1]),
                _ => Ok((*t).clone()),
            })
            .collect::<Result<_>>()?;
        Tensor::concatenate(&u, Some(2)).map_err(|e| rename(e, "dstack"))
    }

    /// Views of all tensors broadcast to their common shape.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::scalar(DType::F32, 5.0).unwrap();
    /// let b = Tensor::ones(DType::F32, &[2, 3, 4]).unwrap();
    /// let v = Tensor::broadcast_arrays(&[&a, &b]).unwrap();
    /// assert_eq!((v[0].shape(), v[1].shape()), (&[2, 3, 4][..], &[2, 3, 4][..]));
    /// ```
    pub fn broadcast_arrays<T: Borrow<Tensor>>(ts: &[T]) -> Result<Vec<Tensor>> {
        if ts.is_empty() {
            return Err(Error::invalid(
                "broadcast_arrays",
                "the list of tensors is empty",
            ));
        }
        let shapes: Vec<&[usize]> = ts.iter().map(|t| t.borrow().shape()).collect();
        let shape = broadcast_shapes("broadcast_arrays", &shapes)?;
        ts.iter().map(|t| t.borrow().broadcast_to(&shape)).collect()
    }

    /// Split along `axis` into views as described by `sections`.
    ///
    /// ```
    /// use rnx::{Tensor, DType, ops::join::Sections};
    /// let x = Tensor::create(DType::I32, &[5], &[1, 2, 3, 4, 5]).unwrap();
    /// let parts = x.array_split(Sections::Count(3), 0).unwrap();
    /// let s: Vec<String> = parts.iter().map(|p| p.to_string()).collect();
    /// assert_eq!(s, ["[1, 2]", "[3, 4]", "[5]"]);
    /// ```
    pub fn array_split(&self, sections: Sections, axis: isize) -> Result<Vec<Tensor>> {
        let op = "array_split";
        let a = normalize_axis(op, axis, self.ndim())?;
        let d = self.shape()[a];
        let bounds: Vec<usize> = match sections {
            Sections::Count(0) => {
                return Err(Error::invalid(op, "the number of sections must be > 0"))
            }
            Sections::Count(n) => {
                let (q, r) = (d / n, d % n);
                let mut b = vec![0usize];
                for i in 0..n {
                    b.push(b[i] + q + usize::from(i < r));
                }
                b
            }
            Sections::Indices(idx) => {
                let mut b = vec![0usize];
                for &i in &idx {
                    let j = if i < 0 { i + d as isize } else { i };
                    if j < 0 || j > d as isize {
                        return Err(Error::IndexOutOfBounds {
                            op: op.into(),
                            index: i,
                            axis: a,
                            size: d,
                        });
                    }
                    if (j as usize) < *b.last().expect("non-empty") {
                        return Err(Error::invalid(
                            op,
                            format!("split indices {idx:?} are not non-decreasing"),
                        ));
                    }
                    b.push(j as usize);
                }
                b.push(d);
                b
            }
        };
        Ok(bounds
            .windows(2)
            .map(|w| self.with_layout(self.layout().slice_axis(a, w[0], w[1] - w[0], 1)))
            .collect())
    }

    /// Split along `axis` into `n` equal views; an error when the dimension is
    /// not divisible by `n`.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[4, 2], &[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
    /// let p = x.split(2, 0).unwrap();
    /// assert_eq!(p[1].to_string(), "[[5, 6],\n [7, 8]]");
    /// ```
    pub fn split(&self, n: usize, axis: isize) -> Result<Vec<Tensor>> {
        let a = normalize_axis("split", axis, self.ndim())?;
        let d = self.shape()[a];
        if n == 0 || !d.is_multiple_of(n) {
            return Err(Error::invalid(
                "split",
                format!("axis {axis} of size {d} cannot be split into {n} equal parts"),
            ));
        }
        self.array_split(Sections::Count(n), axis)
    }
}

/// Re-label a concatenate error with the name of the stacking function.
fn rename(e: Error, op: &str) -> Error {
    match e {
        Error::ShapeMismatch { lhs, rhs, why, .. } => Error::ShapeMismatch {
            op: op.into(),
            lhs,
            rhs,
            why,
        },
        Error::AxisOutOfRange { axis, ndim, .. } => Error::AxisOutOfRange {
            op: op.into(),
            axis,
            ndim,
        },
        Error::InvalidArgument { msg, .. } => Error::InvalidArgument { op: op.into(), msg },
        other => other,
    }
}
