//! sort, sort_values and argsort along an axis: validation and outputs; the stable sort
//! itself is the backend's `SortBackend`.

use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::normalize_axis;
use crate::tensor::Tensor;

/// Which outputs a sort writes.
#[derive(Clone, Copy)]
enum Want {
    Values,
    Indices,
    Both,
}

impl Tensor {
    fn sort_impl(
        &self,
        name: &str,
        axis: isize,
        descending: bool,
        want: Want,
    ) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let (wv, wi) = match want {
            Want::Values => (true, false),
            Want::Indices => (false, true),
            Want::Both => (true, true),
        };
        if self.ndim() == 0 {
            // A scalar is a row of one element.
            if axis != 0 && axis != -1 {
                return Err(Error::AxisOutOfRange {
                    op: name.into(),
                    axis,
                    ndim: 0,
                });
            }
            let idx = wi
                .then(|| Tensor::zeros_on(DType::I32, &[], self.device()))
                .transpose()?;
            return Ok((wv.then(|| self.copy()).transpose()?, idx));
        }
        let axis = normalize_axis(name, axis, self.ndim())?;
        if self.dtype().is_complex() {
            return self.sort_complex(axis, descending, wv, wi);
        }
        let n = self.shape()[axis];
        if n > i32::MAX as usize {
            return Err(Error::invalid(
                name,
                format!("axis of length {n} does not fit i32 indices"),
            ));
        }
        let idx = wi
            .then(|| Tensor::empty_on(DType::I32, self.shape(), self.device()))
            .transpose()?;
        let vals = wv
            .then(|| Tensor::empty_on(self.dtype(), self.shape(), self.device()))
            .transpose()?;
        let writes: Vec<&Tensor> = idx.iter().chain(vals.iter()).collect();
        super::locked(name, &[self], &writes, || {
            self.backend()
                .sort(self, axis, descending, vals.as_ref(), idx.as_ref())
        })?;
        Ok((vals, idx))
    }

    /// The lexicographic sort of a complex tensor (NumPy's order: by the
    /// real part, then the imaginary part, each with the real rules) as two
    /// stable argsorts, the secondary key first; any device.
    fn sort_complex(
        &self,
        axis: usize,
        descending: bool,
        wv: bool,
        wi: bool,
    ) -> Result<(Option<Tensor>, Option<Tensor>)> {
        let ax = axis as isize;
        let by_im = self.imag()?.argsort(ax, descending)?;
        let re = self.real()?.take_along_axis(&by_im, ax)?;
        let perm = by_im.take_along_axis(&re.argsort(ax, descending)?, ax)?;
        let vals = wv.then(|| self.take_along_axis(&perm, ax)).transpose()?;
        Ok((vals, wi.then_some(perm)))
    }

    /// Sort along `axis` (-1 for the last, Nx's default), ascending or
    /// `descending`; returns `(values, indices)` with i32 indices into the axis.
    /// Stable: equal elements keep their order (also when descending). NaN goes
    /// to the end ascending and to the beginning descending; -0.0 equals 0.0.
    /// Every dtype, any strided view; complex numbers sort lexicographically
    /// (NumPy's order: by the real part, ties by the imaginary part, each
    /// with the rules above).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[5], &[3, 1, 4, 1, 5]).unwrap();
    /// let (v, i) = x.sort(-1, false).unwrap();
    /// assert_eq!(v.to_vec::<i32>().unwrap(), vec![1, 1, 3, 4, 5]);
    /// assert_eq!(i.to_vec::<i32>().unwrap(), vec![1, 3, 0, 2, 4]);
    /// ```
    pub fn sort(&self, axis: isize, descending: bool) -> Result<(Tensor, Tensor)> {
        let (v, i) = self.sort_impl("sort", axis, descending, Want::Both)?;
        Ok((
            v.expect("sort_impl returns values when asked"),
            i.expect("sort_impl returns indices when asked"),
        ))
    }

    /// The sorted values along `axis` alone: the first result of
    /// [`Tensor::sort`] (same order, same rules, the original elements bit for
    /// bit), without computing indices, which makes it faster. NumPy's
    /// `np.sort`.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F32, &[2, 3], &[3.0, f64::NAN, -1.0, 0.5, 2.0, -0.0]).unwrap();
    /// let v = x.sort_values(1, false).unwrap();
    /// assert_eq!(v.to_string(), "[[-1, 3, nan],\n [-0, 0.5, 2]]");
    /// let v = x.sort_values(0, true).unwrap();
    /// assert_eq!(v.to_string(), "[[3, nan, -0],\n [0.5, 2, -1]]");
    /// ```
    pub fn sort_values(&self, axis: isize, descending: bool) -> Result<Tensor> {
        let (v, _) = self.sort_impl("sort_values", axis, descending, Want::Values)?;
        Ok(v.expect("sort_impl returns values when asked"))
    }

    /// The i32 indices that sort along `axis` (the second result of
    /// [`Tensor::sort`], without writing the values).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[2, 3], &[3, 1, 4, 2, 5, 0]).unwrap();
    /// assert_eq!(x.argsort(1, false).unwrap().to_vec::<i32>().unwrap(), vec![1, 0, 2, 2, 0, 1]);
    /// ```
    pub fn argsort(&self, axis: isize, descending: bool) -> Result<Tensor> {
        let (_, i) = self.sort_impl("argsort", axis, descending, Want::Indices)?;
        Ok(i.expect("sort_impl returns indices when asked"))
    }
}
