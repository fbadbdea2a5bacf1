//! NumPy's `unique` with `axis`: the distinct slices along an axis, sorted
//! lexicographically, with the optional first indices, inverse and counts.
//! Keys are compared on the host as in `unique` (exact integers, floats with
//! NaN last and equal to itself, -0 equal to 0); the slices are moved with
//! `take` on the tensor's device.

use super::search::{i64_tensor, Keys, Unique, UniqueOptions};
use crate::error::Result;
use crate::layout::normalize_axis;
use crate::tensor::Tensor;
use std::cmp::Ordering;

impl Tensor {
    /// The distinct slices along `axis` (NumPy's `unique(a, axis=...)`),
    /// sorted lexicographically (row-major order of each slice). `indices`
    /// holds the position along `axis` of each slice's first occurrence,
    /// `inverse` (1-D, length of the axis) each slice's row in `values`,
    /// `counts` how often each occurs; all i64. Real and integer dtypes.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// use rnx::ops::search::UniqueOptions;
    /// let a = Tensor::create(DType::I32, &[3, 3], &[1, 0, 0, 1, 0, 0, 2, 3, 4]).unwrap();
    /// let all = UniqueOptions { return_index: true, return_inverse: true, return_counts: true };
    /// let u = a.unique_axis(0, all).unwrap();
    /// assert_eq!(u.values.to_string(), "[[1, 0, 0],\n [2, 3, 4]]");
    /// assert_eq!(u.indices.unwrap().to_vec::<i64>().unwrap(), vec![0, 2]);
    /// assert_eq!(u.inverse.unwrap().to_vec::<i64>().unwrap(), vec![0, 0, 1]);
    /// assert_eq!(u.counts.unwrap().to_vec::<i64>().unwrap(), vec![2, 1]);
    /// let c = a.unique_axis(1, UniqueOptions::default()).unwrap().values;
    /// assert_eq!(c.to_string(), "[[0, 0, 1],\n [0, 0, 1],\n [3, 4, 2]]");
    /// ```
    pub fn unique_axis(&self, axis: isize, opts: UniqueOptions) -> Result<Unique> {
        let op = "unique";
        let ax = normalize_axis(op, axis, self.ndim())?;
        let moved = self.moveaxis(ax as isize, 0)?;
        let n = moved.shape()[0];
        let rest: usize = moved.shape()[1..].iter().product();
        let rows = moved.reshape([n, rest])?;
        let keys = Keys::of(op, &rows)?;
        let row_cmp = |i: usize, j: usize| {
            (0..rest)
                .map(|k| keys.cmp(i * rest + k, &keys, j * rest + k))
                .find(|o| *o != Ordering::Equal)
                .unwrap_or(Ordering::Equal)
        };
        let mut order: Vec<usize> = (0..n).collect();
        order.sort_by(|&i, &j| row_cmp(i, j));
        let mut first: Vec<i64> = Vec::new();
        let mut counts: Vec<i64> = Vec::new();
        let mut inverse = vec![0i64; n];
        for (r, &i) in order.iter().enumerate() {
            if r == 0 || row_cmp(order[r - 1], i) != Ordering::Equal {
                first.push(i as i64);
                counts.push(0);
            }
            *counts.last_mut().expect("a group was opened") += 1;
            inverse[i] = first.len() as i64 - 1;
        }
        let dev = self.device();
        let idx = i64_tensor(&first, &[first.len()], dev)?;
        let values = moved.take(&idx, 0)?.moveaxis(0, ax as isize)?;
        Ok(Unique {
            values,
            indices: opts.return_index.then_some(idx),
            inverse: opts
                .return_inverse
                .then(|| i64_tensor(&inverse, &[n], dev))
                .transpose()?,
            counts: opts
                .return_counts
                .then(|| i64_tensor(&counts, &[counts.len()], dev))
                .transpose()?,
        })
    }
}
