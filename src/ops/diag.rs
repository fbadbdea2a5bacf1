//! Matrix helpers built from views and existing ops: `diagonal` (a view),
//! `trace`, `diag`, `tril`, `triu`, `matrix_transpose` (a view) and
//! `conjugate`. No arithmetic of its own: views are pure layout changes, the
//! rest composes `sum`, `where`, `copy` and the `Conj` unary primitive, so every
//! device runs them.

use crate::backend::elementwise::UnaryOp;
use crate::error::{Error, Result};
use crate::layout::{normalize_axis, Layout};
use crate::tensor::Tensor;
use crate::DType;

/// Which diagonal [`Tensor::diagonal_with`] and [`Tensor::trace_with`] take:
/// `offset` above (> 0) or below (< 0) the main diagonal, of the planes spanned
/// by `axis1` (rows) and `axis2` (columns). Defaults are NumPy's: offset 0,
/// axes 0 and 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiagonalOptions {
    /// Diagonal offset: `k > 0` starts at `(0, k)`, `k < 0` at `(-k, 0)`.
    pub offset: isize,
    /// The row axis.
    pub axis1: isize,
    /// The column axis.
    pub axis2: isize,
}

impl Default for DiagonalOptions {
    fn default() -> Self {
        DiagonalOptions {
            offset: 0,
            axis1: 0,
            axis2: 1,
        }
    }
}

/// The diagonal layout of `l` (see [`Tensor::diagonal_with`]).
pub(crate) fn diagonal_layout(op: &str, l: &Layout, o: DiagonalOptions) -> Result<Layout> {
    let nd = l.ndim();
    if nd < 2 {
        return Err(Error::invalid(
            op,
            format!("needs at least 2 dimensions, got shape {:?}", l.shape()),
        ));
    }
    let a1 = normalize_axis(op, o.axis1, nd)?;
    let a2 = normalize_axis(op, o.axis2, nd)?;
    if a1 == a2 {
        return Err(Error::invalid(
            op,
            format!(
                "axis1 and axis2 must differ, got {} and {}",
                o.axis1, o.axis2
            ),
        ));
    }
    let (n1, n2) = (l.shape()[a1] as isize, l.shape()[a2] as isize);
    let (s1, s2) = (l.strides()[a1], l.strides()[a2]);
    let k = o.offset;
    let (r0, c0) = if k >= 0 { (0, k) } else { (-k, 0) };
    let len = (n1 - r0).min(n2 - c0).max(0) as usize;
    let offset = if len > 0 {
        (l.offset() as isize + r0 * s1 + c0 * s2) as usize
    } else {
        l.offset()
    };
    let mut shape = Vec::with_capacity(nd - 1);
    let mut strides = Vec::with_capacity(nd - 1);
    for d in (0..nd).filter(|&d| d != a1 && d != a2) {
        shape.push(l.shape()[d]);
        strides.push(l.strides()[d]);
    }
    shape.push(len);
    strides.push(s1 + s2);
    Ok(Layout::new(shape, strides, offset))
}

impl Tensor {
    /// The main diagonal of the first two axes as a VIEW (NumPy's `diagonal`,
    /// Nx's `take_diagonal`); see [`Tensor::diagonal_with`].
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::arange(DType::I32, 0, 4, 1)?.reshape([2, 2])?;
    /// assert_eq!(a.diagonal()?.to_vec::<i32>()?, vec![0, 3]);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn diagonal(&self) -> Result<Tensor> {
        self.diagonal_with(DiagonalOptions::default())
    }

    /// The diagonal with `offset` of the planes `(axis1, axis2)` as a VIEW:
    /// NumPy's rule for the shape (both axes removed, the diagonal appended as
    /// the last axis; an offset past the edge gives length 0). No copy: writes
    /// through the view (e.g. `set_slice`, `fill`) change `self`. Errors: rank
    /// below 2, an axis out of range, `axis1 == axis2`.
    ///
    /// ```
    /// use rnx::{Tensor, DType, DiagonalOptions};
    /// // NumPy: np.arange(8).reshape(2,2,2).diagonal(0, 0, 1) == [[0, 6], [1, 7]]
    /// let a = Tensor::arange(DType::I64, 0, 8, 1)?.reshape([2, 2, 2])?;
    /// let d = a.diagonal_with(DiagonalOptions { axis1: 0, axis2: 1, offset: 0 })?;
    /// assert_eq!(d.to_string(), "[[0, 6],\n [1, 7]]");
    /// let up = a.diagonal_with(DiagonalOptions { offset: 1, axis1: 1, axis2: 2 })?;
    /// assert_eq!(up.to_vec::<i64>()?, vec![1, 5]);
    /// assert!(up.same_storage(&a));
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn diagonal_with(&self, opts: DiagonalOptions) -> Result<Tensor> {
        Ok(self.with_layout(diagonal_layout("diagonal", self.layout(), opts)?))
    }

    /// Sum of the main diagonal of the first two axes (NumPy's `trace`); see
    /// [`Tensor::trace_with`].
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::eye(DType::F32, 3, None, 0)?;
    /// assert_eq!(a.trace()?.item::<f32>()?, 3.0);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn trace(&self) -> Result<Tensor> {
        self.trace_with(DiagonalOptions::default())
    }

    /// Sum along the diagonal chosen by `opts` (the diagonal's axis is
    /// summed; the other axes remain, in order). Same dtype as the input
    /// (integers wrap, halves accumulate as `sum` does). Errors as
    /// [`Tensor::diagonal_with`], naming `trace`.
    ///
    /// ```
    /// use rnx::{Tensor, DType, DiagonalOptions};
    /// // NumPy: np.arange(8).reshape(2,2,2).trace() == [6, 8]
    /// let a = Tensor::arange(DType::I32, 0, 8, 1)?.reshape([2, 2, 2])?;
    /// assert_eq!(a.trace()?.to_vec::<i32>()?, vec![6, 8]);
    /// let o = DiagonalOptions { offset: 1, axis1: -2, axis2: -1 };
    /// assert_eq!(a.trace_with(o)?.to_vec::<i32>()?, vec![1, 5]);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn trace_with(&self, opts: DiagonalOptions) -> Result<Tensor> {
        let d = self.with_layout(diagonal_layout("trace", self.layout(), opts)?);
        d.sum(-1, false)
    }

    /// NumPy's `diag`: a 1-D input becomes a square matrix with it on
    /// diagonal `k` (zeros elsewhere, side `n + |k|`); a 2-D input gives a
    /// copy of its diagonal `k`. Every dtype and device. Errors: other ranks.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let v = Tensor::create(DType::I32, &[2], &[1, 2])?;
    /// assert_eq!(v.diag(1)?.to_string(), "[[0, 1, 0],\n [0, 0, 2],\n [0, 0, 0]]");
    /// let a = Tensor::arange(DType::I32, 0, 9, 1)?.reshape([3, 3])?;
    /// assert_eq!(a.diag(0)?.to_vec::<i32>()?, vec![0, 4, 8]);
    /// assert_eq!(a.diag(-1)?.to_vec::<i32>()?, vec![3, 7]);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn diag(&self, k: isize) -> Result<Tensor> {
        let o = DiagonalOptions {
            offset: k,
            ..Default::default()
        };
        match self.ndim() {
            1 => {
                let n = self.shape()[0] + k.unsigned_abs();
                let out = Tensor::zeros_on(self.dtype(), &[n, n], self.device())?;
                let d = out.with_layout(diagonal_layout("diag", out.layout(), o)?);
                self.blit(&d)?;
                Ok(out)
            }
            2 => self
                .with_layout(diagonal_layout("diag", self.layout(), o)?)
                .copy(),
            _ => Err(Error::invalid(
                "diag",
                format!("input must be 1-D or 2-D, got shape {:?}", self.shape()),
            )),
        }
    }

    /// Lower triangle of the last two axes: elements with `col - row <= k`
    /// kept, the rest zero (NumPy's `tril`). A new tensor; every dtype and
    /// device. Errors: rank below 2.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// // NumPy: np.tril([[1,2,3],[4,5,6],[7,8,9],[10,11,12]], -1)
    /// let a = Tensor::arange(DType::I32, 1, 13, 1)?.reshape([4, 3])?;
    /// assert_eq!(a.tril(-1)?.to_vec::<i32>()?, vec![0, 0, 0, 4, 0, 0, 7, 8, 0, 10, 11, 12]);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn tril(&self, k: isize) -> Result<Tensor> {
        self.triangle("tril", k, true)
    }

    /// Upper triangle of the last two axes: elements with `col - row >= k`
    /// kept, the rest zero (NumPy's `triu`). Errors: rank below 2.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// // NumPy: np.triu([[1,2,3],[4,5,6],[7,8,9],[10,11,12]], -1)
    /// let a = Tensor::arange(DType::I32, 1, 13, 1)?.reshape([4, 3])?;
    /// assert_eq!(a.triu(-1)?.to_vec::<i32>()?, vec![1, 2, 3, 4, 5, 6, 0, 8, 9, 0, 0, 12]);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn triu(&self, k: isize) -> Result<Tensor> {
        self.triangle("triu", k, false)
    }

    fn triangle(&self, op: &str, k: isize, lower: bool) -> Result<Tensor> {
        let nd = self.ndim();
        if nd < 2 {
            return Err(Error::invalid(
                op,
                format!("needs at least 2 dimensions, got shape {:?}", self.shape()),
            ));
        }
        let (m, n) = (self.shape()[nd - 2], self.shape()[nd - 1]);
        if m as u64 > i32::MAX as u64 / 2 || n as u64 > i32::MAX as u64 / 2 {
            return Err(Error::invalid(op, format!("matrix {m}x{n} is too large")));
        }
        // col - row in i32 (every device has i32); k clamped to where the
        // answer no longer changes.
        let k = k.clamp(-(m as isize) - 1, n as isize + 1) as i32;
        let dev = self.device();
        let rows = Tensor::arange_on(DType::I32, 0, m as i64, 1, dev)?.reshape_exact(&[m, 1])?;
        let cols = Tensor::arange_on(DType::I32, 0, n as i64, 1, dev)?.reshape_exact(&[1, n])?;
        let d = cols.sub(&rows)?;
        let mask = if lower { d.cmple(k)? } else { d.cmpge(k)? };
        Tensor::where_cond(&mask, self, 0)
    }

    /// Swap the last two axes: a VIEW (NumPy's `matrix_transpose`, `.mT`).
    /// Errors: rank below 2.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::arange(DType::F32, 0, 6, 1)?.reshape([1, 2, 3])?;
    /// let t = a.matrix_transpose()?;
    /// assert_eq!(t.shape(), &[1, 3, 2]);
    /// assert!(t.same_storage(&a));
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn matrix_transpose(&self) -> Result<Tensor> {
        if self.ndim() < 2 {
            return Err(Error::invalid(
                "matrix_transpose",
                format!("needs at least 2 dimensions, got shape {:?}", self.shape()),
            ));
        }
        self.swapaxes(-1, -2)
    }

    /// Complex conjugate (a new tensor); for real and integer dtypes a copy.
    ///
    /// ```
    /// use rnx::{Tensor, C64};
    /// let z = Tensor::from_vec(vec![C64::new(1.0, 2.0), C64::new(-3.0, -4.0)], &[2])?;
    /// assert_eq!(z.conjugate()?.to_vec::<C64>()?, vec![C64::new(1.0, -2.0), C64::new(-3.0, 4.0)]);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn conjugate(&self) -> Result<Tensor> {
        crate::ops::elementwise::unary_impl("conjugate", UnaryOp::Conj, self, None)
    }
}
