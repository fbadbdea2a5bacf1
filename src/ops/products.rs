//! Tensor products built on `matmul` and broadcasting `mul`: `tensordot`,
//! `inner`, `outer`, `vdot`, `vecdot`, `kron`, `cross`, `multi_dot` (matrix
//! chain order by dynamic programming) and `matrix_power` (repeated squaring).
//! Only shape rules and validation live here; every contraction is one
//! `matmul` after permuting/reshaping (views where the layout allows, else one
//! copy), so the dtype rules (integers wrap, halves accumulate in f32 and round
//! once per result) and the devices are `matmul`'s.

use std::borrow::Borrow;

use super::{same_device, same_dtype};
use crate::error::{Error, Result};
use crate::layout::normalize_axis;
use crate::tensor::Tensor;

/// The contracted axes of [`Tensor::tensordot`]: a count `n` (the last `n`
/// axes of `a` with the first `n` of `b`, NumPy's integer form) or two lists
/// of equal length paired in order.
///
/// Converts from `usize` (`2`), `([isize; N], [isize; N])`,
/// `(Vec<isize>, Vec<isize>)` and `(&[isize], &[isize])`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum TensordotAxes {
    /// Contract the last `n` axes of `a` with the first `n` axes of `b`.
    Count(usize),
    /// Contract `a`'s axes `.0[i]` with `b`'s axes `.1[i]`.
    Pairs(Vec<isize>, Vec<isize>),
}

impl From<usize> for TensordotAxes {
    fn from(n: usize) -> Self {
        TensordotAxes::Count(n)
    }
}

impl<const N: usize, const M: usize> From<([isize; N], [isize; M])> for TensordotAxes {
    fn from((a, b): ([isize; N], [isize; M])) -> Self {
        TensordotAxes::Pairs(a.to_vec(), b.to_vec())
    }
}

impl From<(Vec<isize>, Vec<isize>)> for TensordotAxes {
    fn from((a, b): (Vec<isize>, Vec<isize>)) -> Self {
        TensordotAxes::Pairs(a, b)
    }
}

impl From<(&[isize], &[isize])> for TensordotAxes {
    fn from((a, b): (&[isize], &[isize])) -> Self {
        TensordotAxes::Pairs(a.to_vec(), b.to_vec())
    }
}

/// Same device and dtype, else an error naming `op`.
pub(crate) fn check(op: &str, ts: &[&Tensor]) -> Result<()> {
    same_device(op, ts)?;
    same_dtype(op, ts)
}

/// Contract axes `ax_a` of `a` with `ax_b` of `b` (already validated: equal
/// lengths, no repeats, sizes equal): one matmul of `[M, K] @ [K, N]`, the
/// result shaped as `a`'s free axes then `b`'s free axes.
pub(crate) fn contract(a: &Tensor, b: &Tensor, ax_a: &[usize], ax_b: &[usize]) -> Result<Tensor> {
    let free_a: Vec<usize> = (0..a.ndim()).filter(|d| !ax_a.contains(d)).collect();
    let free_b: Vec<usize> = (0..b.ndim()).filter(|d| !ax_b.contains(d)).collect();
    let k: usize = ax_a.iter().map(|&d| a.shape()[d]).product();
    let m: usize = free_a.iter().map(|&d| a.shape()[d]).product();
    let n: usize = free_b.iter().map(|&d| b.shape()[d]).product();
    let pa: Vec<isize> = free_a.iter().chain(ax_a).map(|&d| d as isize).collect();
    let pb: Vec<isize> = ax_b.iter().chain(&free_b).map(|&d| d as isize).collect();
    let am = a.transpose(pa)?.reshape_exact(&[m, k])?;
    let bm = b.transpose(pb)?.reshape_exact(&[k, n])?;
    let r = am.matmul(&bm)?;
    let shape: Vec<usize> = free_a
        .iter()
        .map(|&d| a.shape()[d])
        .chain(free_b.iter().map(|&d| b.shape()[d]))
        .collect();
    r.reshape_exact(&shape)
}

/// Normalise a list of axes of a rank-`nd` tensor, rejecting repeats.
fn axis_list(op: &str, axes: &[isize], nd: usize) -> Result<Vec<usize>> {
    let mut out = Vec::with_capacity(axes.len());
    for &a in axes {
        let d = normalize_axis(op, a, nd)?;
        if out.contains(&d) {
            return Err(Error::invalid(op, format!("repeated axis {a} in {axes:?}")));
        }
        out.push(d);
    }
    Ok(out)
}

impl Tensor {
    /// NumPy's `tensordot`: sum the products over the paired axes of `self`
    /// and `other` (see [`TensordotAxes`]). The result's axes are `self`'s
    /// remaining axes, then `other`'s. One `matmul` (all dtypes, integers
    /// wrap, halves round once). Errors: a count larger than either rank,
    /// lists of different lengths, repeated or out-of-range axes, paired axes
    /// of different sizes, different dtypes or devices.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// // NumPy's example: a = arange(60).reshape(3,4,5), b = arange(24).reshape(4,3,2)
    /// let a = Tensor::arange(DType::I64, 0, 60, 1)?.reshape([3, 4, 5])?;
    /// let b = Tensor::arange(DType::I64, 0, 24, 1)?.reshape([4, 3, 2])?;
    /// let c = a.tensordot(&b, ([1, 0], [0, 1]))?;
    /// assert_eq!(c.shape(), &[5, 2]);
    /// assert_eq!(c.to_vec::<i64>()?, vec![4400, 4730, 4532, 4874, 4664, 5018, 4796, 5162, 4928, 5306]);
    /// let m = Tensor::arange(DType::F32, 0, 4, 1)?.reshape([2, 2])?;
    /// assert_eq!(m.tensordot(&m, 2)?.item::<f32>()?, 14.0);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn tensordot(&self, other: &Tensor, axes: impl Into<TensordotAxes>) -> Result<Tensor> {
        let op = "tensordot";
        check(op, &[self, other])?;
        let (ax_a, ax_b) = match axes.into() {
            TensordotAxes::Count(n) => {
                if n > self.ndim() || n > other.ndim() {
                    return Err(Error::shapes(
                        op,
                        self.shape(),
                        other.shape(),
                        format!("have fewer than {n} axes to contract"),
                    ));
                }
                (
                    (self.ndim() - n..self.ndim()).collect::<Vec<_>>(),
                    (0..n).collect::<Vec<_>>(),
                )
            }
            TensordotAxes::Pairs(la, lb) => {
                if la.len() != lb.len() {
                    return Err(Error::invalid(
                        op,
                        format!("axis lists differ in length: {la:?} and {lb:?}"),
                    ));
                }
                (
                    axis_list(op, &la, self.ndim())?,
                    axis_list(op, &lb, other.ndim())?,
                )
            }
        };
        for (&x, &y) in ax_a.iter().zip(&ax_b) {
            if self.shape()[x] != other.shape()[y] {
                return Err(Error::shapes(
                    op,
                    self.shape(),
                    other.shape(),
                    format!(
                        "differ on the contracted axes {x} and {y} ({} != {})",
                        self.shape()[x],
                        other.shape()[y]
                    ),
                ));
            }
        }
        contract(self, other, &ax_a, &ax_b)
    }

    /// NumPy's `inner`: sum of products over the last axes (result shape
    /// `self.shape[..-1] + other.shape[..-1]`); a 0-D operand multiplies.
    /// Errors: last axes of different sizes, different dtypes or devices.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::create(DType::I32, &[3], &[1, 2, 3])?;
    /// let b = Tensor::create(DType::I32, &[3], &[0, 1, 0])?;
    /// assert_eq!(a.inner(&b)?.item::<i32>()?, 2);
    /// // NumPy: np.inner(np.arange(24).reshape(2,3,4), np.arange(4))
    /// let a = Tensor::arange(DType::I32, 0, 24, 1)?.reshape([2, 3, 4])?;
    /// let b = Tensor::arange(DType::I32, 0, 4, 1)?;
    /// assert_eq!(a.inner(&b)?.to_string(), "[[14, 38, 62],\n [86, 110, 134]]");
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn inner(&self, other: &Tensor) -> Result<Tensor> {
        let op = "inner";
        check(op, &[self, other])?;
        if self.ndim() == 0 || other.ndim() == 0 {
            return self.mul(other);
        }
        let (x, y) = (self.ndim() - 1, other.ndim() - 1);
        if self.shape()[x] != other.shape()[y] {
            return Err(Error::shapes(
                op,
                self.shape(),
                other.shape(),
                "differ in their last dimension",
            ));
        }
        contract(self, other, &[x], &[y])
    }

    /// NumPy's `outer`: both inputs flattened, `out[i, j] = a[i] * b[j]`
    /// (one multiplication per element). Errors: different dtypes or devices.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::create(DType::I32, &[3], &[1, 2, 3])?;
    /// let b = Tensor::create(DType::I32, &[2], &[10, 20])?;
    /// assert_eq!(a.outer(&b)?.to_string(), "[[10, 20],\n [20, 40],\n [30, 60]]");
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn outer(&self, other: &Tensor) -> Result<Tensor> {
        check("outer", &[self, other])?;
        let a = self.reshape_exact(&[self.size(), 1])?;
        let b = other.reshape_exact(&[1, other.size()])?;
        a.mul(&b)
    }

    /// NumPy's `vdot`: both flattened, `sum(conj(a) * b)` as a 0-D tensor
    /// (one matmul). Errors: different sizes, dtypes or devices.
    ///
    /// ```
    /// use rnx::{Tensor, C64};
    /// // NumPy: np.vdot([1+2j, 3+4j], [5+6j, 7+8j]) == 70-8j
    /// let a = Tensor::from_vec(vec![C64::new(1., 2.), C64::new(3., 4.)], &[2])?;
    /// let b = Tensor::from_vec(vec![C64::new(5., 6.), C64::new(7., 8.)], &[2])?;
    /// assert_eq!(a.vdot(&b)?.item::<C64>()?, C64::new(70., -8.));
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn vdot(&self, other: &Tensor) -> Result<Tensor> {
        let op = "vdot";
        check(op, &[self, other])?;
        if self.size() != other.size() {
            return Err(Error::shapes(
                op,
                self.shape(),
                other.shape(),
                "have different numbers of elements",
            ));
        }
        let a = self.reshape_exact(&[self.size()])?;
        let a = if a.dtype().is_complex() {
            a.conjugate()?
        } else {
            a
        };
        a.matmul(&other.reshape_exact(&[other.size()])?)
    }

    /// NumPy's `vecdot`: `sum(conj(a) * b)` over `axis` of the broadcast
    /// operands (the axis counts in the broadcast shape); the other axes
    /// remain. One batched matmul. Errors: 0-D inputs, shapes that do not
    /// broadcast, an axis out of range, different dtypes or devices.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// // NumPy's example: projected lengths of vectors onto n = [0, 0, 1]
    /// let v = Tensor::create(DType::F64, &[3, 3], &[0., 5., 0., 0., 0., 10., 3., 4., 5.])?;
    /// let n = Tensor::create(DType::F64, &[3], &[0., 0., 1.])?;
    /// assert_eq!(v.vecdot(&n, -1)?.to_vec::<f64>()?, vec![0., 10., 5.]);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn vecdot(&self, other: &Tensor, axis: isize) -> Result<Tensor> {
        let op = "vecdot";
        check(op, &[self, other])?;
        if self.ndim() == 0 || other.ndim() == 0 {
            return Err(Error::shapes(
                op,
                self.shape(),
                other.shape(),
                "include a 0-D input (vecdot needs vectors)",
            ));
        }
        let shape = super::shape::broadcast_shapes(op, &[self.shape(), other.shape()])?;
        let ax = normalize_axis(op, axis, shape.len())?;
        let a = self.broadcast_to(&shape)?;
        let b = other.broadcast_to(&shape)?;
        let a = if a.dtype().is_complex() {
            a.conjugate()?
        } else {
            a
        };
        let last = shape.len() as isize - 1;
        let a = a.moveaxis(ax as isize, last)?.unsqueeze_axis(-2)?;
        let b = b.moveaxis(ax as isize, last)?.unsqueeze_axis(-1)?;
        let r = a.matmul(&b)?;
        let mut out = shape.clone();
        out.remove(ax);
        r.reshape_exact(&out)
    }

    /// NumPy's `kron`: the Kronecker product, block `(i..)` of the result is
    /// `a[i..] * b`; ranks are aligned by prepending 1s, the result's shape is
    /// the elementwise product of the shapes (one multiplication per element).
    /// Errors: different dtypes or devices.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// // NumPy: np.kron([1, 10, 100], [5, 6, 7])
    /// let a = Tensor::create(DType::I32, &[3], &[1, 10, 100])?;
    /// let b = Tensor::create(DType::I32, &[3], &[5, 6, 7])?;
    /// assert_eq!(a.kron(&b)?.to_vec::<i32>()?, vec![5, 6, 7, 50, 60, 70, 500, 600, 700]);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn kron(&self, other: &Tensor) -> Result<Tensor> {
        check("kron", &[self, other])?;
        let nd = self.ndim().max(other.ndim());
        let pad = |t: &Tensor| -> Vec<usize> {
            let mut s = vec![1; nd - t.ndim()];
            s.extend_from_slice(t.shape());
            s
        };
        let (sa, sb) = (pad(self), pad(other));
        let mut ia = Vec::with_capacity(2 * nd);
        let mut ib = Vec::with_capacity(2 * nd);
        for d in 0..nd {
            ia.extend([sa[d], 1]);
            ib.extend([1, sb[d]]);
        }
        crate::layout::checked_numel(
            "kron",
            &sa.iter().zip(&sb).map(|(x, y)| x * y).collect::<Vec<_>>(),
        )?;
        let r = self.reshape_exact(&ia)?.mul(&other.reshape_exact(&ib)?)?;
        let shape: Vec<usize> = sa.iter().zip(&sb).map(|(x, y)| x * y).collect();
        r.reshape_exact(&shape)
    }

    /// NumPy's `cross` of 3-vectors along `axis` of each input (the other axes
    /// broadcast); the result has the vectors along `axis` too. Computed as
    /// NumPy does (`a1*b2 - a2*b1`, ...: two roundings per component for
    /// floats; integers wrap). Errors: `axis` not of size 3 in either input
    /// (2-vectors are not supported), shapes that do not broadcast, different
    /// dtypes or devices.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[3], &[1, 2, 3])?;
    /// let y = Tensor::create(DType::I32, &[3], &[4, 5, 6])?;
    /// assert_eq!(x.cross(&y, -1)?.to_vec::<i32>()?, vec![-3, 6, -3]);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn cross(&self, other: &Tensor, axis: isize) -> Result<Tensor> {
        let op = "cross";
        check(op, &[self, other])?;
        let move_last = |t: &Tensor| -> Result<Tensor> {
            if t.ndim() == 0 {
                return Err(Error::invalid(op, "0-D input: cross needs 3-vectors"));
            }
            let ax = normalize_axis(op, axis, t.ndim())?;
            if t.shape()[ax] != 3 {
                return Err(Error::invalid(
                    op,
                    format!(
                        "axis {axis} of shape {:?} has size {}, not 3",
                        t.shape(),
                        t.shape()[ax]
                    ),
                ));
            }
            t.moveaxis(ax as isize, -1)
        };
        let (a, b) = (move_last(self)?, move_last(other)?);
        let batch = super::shape::broadcast_shapes(
            op,
            &[&a.shape()[..a.ndim() - 1], &b.shape()[..b.ndim() - 1]],
        )?;
        let comp = |t: &Tensor, i: usize| t.with_layout(t.layout().select(t.ndim() - 1, i));
        let (a0, a1, a2) = (comp(&a, 0), comp(&a, 1), comp(&a, 2));
        let (b0, b1, b2) = (comp(&b, 0), comp(&b, 1), comp(&b, 2));
        let c0 = a1.mul(&b2)?.sub(&a2.mul(&b1)?)?;
        let c1 = a2.mul(&b0)?.sub(&a0.mul(&b2)?)?;
        let c2 = a0.mul(&b1)?.sub(&a1.mul(&b0)?)?;
        let r = Tensor::stack(&[c0, c1, c2], -1)?;
        debug_assert_eq!(&r.shape()[..batch.len()], batch.as_slice());
        let out_ax = normalize_axis(op, axis, r.ndim())?;
        r.moveaxis(-1, out_ax as isize)?.contiguous()
    }

    /// NumPy's `linalg.multi_dot`: the product of a chain of matrices in the
    /// cheapest order (the classic O(n³) matrix-chain dynamic program over
    /// scalar multiplications; ties keep the left-most split). The first
    /// operand may be 1-D (a row vector) and the last 1-D (a column vector);
    /// those axes are removed from the result, as in NumPy. The middle ones
    /// must be 2-D. Errors: fewer than two operands, wrong ranks, chained
    /// dimensions that differ, different dtypes or devices.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::ones(DType::F32, &[10, 100])?;
    /// let b = Tensor::ones(DType::F32, &[100, 5])?;
    /// let c = Tensor::ones(DType::F32, &[5, 50])?;
    /// let r = Tensor::multi_dot(&[&a, &b, &c])?; // computed as (a b) c
    /// assert_eq!(r.shape(), &[10, 50]);
    /// assert_eq!(r.item_at::<f32>(&[0, 0])?, 500.0);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn multi_dot<T: Borrow<Tensor>>(ts: &[T]) -> Result<Tensor> {
        let op = "multi_dot";
        let n = ts.len();
        if n < 2 {
            return Err(Error::invalid(
                op,
                format!("needs at least two operands, got {n}"),
            ));
        }
        let refs: Vec<&Tensor> = ts.iter().map(|t| t.borrow()).collect();
        check(op, &refs)?;
        let first_vec = refs[0].ndim() == 1;
        let last_vec = refs[n - 1].ndim() == 1;
        let mut mats = Vec::with_capacity(n);
        for (i, t) in refs.iter().enumerate() {
            let m = match t.ndim() {
                1 if i == 0 => t.reshape_exact(&[1, t.size()])?,
                1 if i == n - 1 => t.reshape_exact(&[t.size(), 1])?,
                2 => (*t).clone(),
                _ => {
                    return Err(Error::invalid(
                        op,
                        format!(
                            "operand {i} has shape {:?}: the first and last may be 1-D or 2-D, the others must be 2-D",
                            t.shape()
                        ),
                    ))
                }
            };
            mats.push(m);
        }
        // p[i] x p[i+1] is the shape of matrix i.
        let mut p = vec![mats[0].shape()[0]];
        for (i, m) in mats.iter().enumerate() {
            if m.shape()[0] != *p.last().unwrap_or(&0) {
                return Err(Error::shapes(
                    op,
                    refs[i - 1].shape(),
                    refs[i].shape(),
                    format!("do not chain (operands {} and {i})", i - 1),
                ));
            }
            p.push(m.shape()[1]);
        }
        // cost[i][j]: cheapest multiplications for mats[i..=j]; split[i][j]: the k
        // with (i..=k)(k+1..=j).
        let mut cost = vec![vec![0u128; n]; n];
        let mut split = vec![vec![0usize; n]; n];
        for len in 1..n {
            for i in 0..n - len {
                let j = i + len;
                cost[i][j] = u128::MAX;
                for k in i..j {
                    let c = cost[i][k]
                        + cost[k + 1][j]
                        + p[i] as u128 * p[k + 1] as u128 * p[j + 1] as u128;
                    if c < cost[i][j] {
                        cost[i][j] = c;
                        split[i][j] = k;
                    }
                }
            }
        }
        fn chain(mats: &[Tensor], split: &[Vec<usize>], i: usize, j: usize) -> Result<Tensor> {
            if i == j {
                return Ok(mats[i].clone());
            }
            let k = split[i][j];
            chain(mats, split, i, k)?.matmul(&chain(mats, split, k + 1, j)?)
        }
        let r = chain(&mats, &split, 0, n - 1)?;
        let mut shape = Vec::with_capacity(2);
        if !first_vec {
            shape.push(p[0]);
        }
        if !last_vec {
            shape.push(p[n]);
        }
        r.reshape_exact(&shape)
    }

    /// NumPy's `linalg.matrix_power`: the square matrices of the last two
    /// axes raised to `n` by repeated squaring (about 2·log2(n) matmuls;
    /// integers wrap); `n == 0` gives identities of the input's shape and
    /// dtype; a negative `n` raises [`Tensor::inv`] to `-n` (float and complex
    /// dtypes only). Errors: rank below 2, non-square matrices; for `n < 0`
    /// a singular matrix or an integer dtype (cast first).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// // NumPy: i = [[0, 1], [-1, 0]]; matrix_power(i, 3) == [[0, -1], [1, 0]]
    /// let i = Tensor::create(DType::I32, &[2, 2], &[0, 1, -1, 0])?;
    /// assert_eq!(i.matrix_power(3)?.to_vec::<i32>()?, vec![0, -1, 1, 0]);
    /// assert_eq!(i.matrix_power(0)?.to_vec::<i32>()?, vec![1, 0, 0, 1]);
    /// assert!(i.matrix_power(-1).is_err());   // integers: cast first
    /// let f = i.cast(DType::F64)?;
    /// assert_eq!(f.matrix_power(-3)?.to_vec::<f64>()?, vec![0.0, 1.0, -1.0, 0.0]);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn matrix_power(&self, n: i64) -> Result<Tensor> {
        let op = "matrix_power";
        let nd = self.ndim();
        if nd < 2 || self.shape()[nd - 1] != self.shape()[nd - 2] {
            return Err(Error::invalid(
                op,
                format!(
                    "needs square matrices in the last two axes, got shape {:?}",
                    self.shape()
                ),
            ));
        }
        let m = self.shape()[nd - 1];
        if n == 0 {
            let eye = Tensor::eye(self.dtype(), m, None, 0)?.to_device(self.device())?;
            return eye.broadcast_to(self.shape())?.copy();
        }
        // A negative power is the power of the inverse (float and complex
        // dtypes; `inv`'s errors for singular matrices and integers).
        if n < 0 && !(self.dtype().is_float() || self.dtype().is_complex()) {
            return Err(Error::invalid(
                op,
                format!(
                    "negative power {n} needs the inverse (inv), which takes f32, f64, c32 or c64, got {}: cast first",
                    self.dtype()
                ),
            ));
        }
        let mut base = if n < 0 { self.inv()? } else { self.clone() };
        let mut n = n.unsigned_abs();
        let mut acc: Option<Tensor> = None;
        loop {
            if n & 1 == 1 {
                acc = Some(match acc {
                    None => base.clone(),
                    Some(a) => a.matmul(&base)?,
                });
            }
            n >>= 1;
            if n == 0 {
                break;
            }
            base = base.matmul(&base)?;
        }
        match acc {
            Some(a) if !a.same_storage(self) => Ok(a),
            _ => self.copy(),
        }
    }
}
