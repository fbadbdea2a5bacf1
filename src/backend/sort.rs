//! The sorting family of backend primitives: a stable sort of every row along
//! one axis, writing the sorted values, the i32 source indices, or both; and
//! the binary search of values in a sorted 1-D tensor (`searchsorted`). Only
//! the trait lives here; validation is in `src/ops/sort.rs` and
//! `src/ops/search.rs`.
//!
//! What the frontend guarantees: storages are locked; `axis < x.ndim()`;
//! `x.shape[axis] <= i32::MAX`; the dtype is real or integer; at least one of
//! `indices` (i32) and `values` (x's dtype) is given; both are fresh tensors of
//! `x`'s shape with unique layouts.

use crate::error::Result;
use crate::tensor::Tensor;

/// Sorting along an axis.
pub trait SortBackend {
    /// Sort every row of `x` along `axis`, stably (equal elements keep their
    /// order), ascending or descending. NaN compares above every number: it goes
    /// last ascending and first descending; -0.0 and 0.0 are equal. Writes, for
    /// each output given (at least one), the source index of each sorted element
    /// to `indices` and the sorted values to `values` (the original elements,
    /// bit for bit: NaN payloads and the sign of zeros kept).
    fn sort(
        &self,
        x: &Tensor,
        axis: usize,
        descending: bool,
        values: Option<&Tensor>,
        indices: Option<&Tensor>,
    ) -> Result<()>;

    /// For every element `v` of `values`, the number of elements of the 1-D
    /// `sorted` that order below `v` (`right`: at most `v`), written to the
    /// same element of `out` (i64). The order is the sort's: NaN above every
    /// number and all NaNs equal, -0.0 equal to 0.0. The frontend
    /// guarantees: storages locked; `sorted` is 1-D (any stride) and sorted
    /// in that order; `values` (any shape and layout) has `sorted`'s dtype,
    /// real or integer; `out` is a fresh i64 tensor of `values`' shape.
    /// Returns `false` (nothing written) when the backend has no kernel for
    /// these tensors: the frontend then searches on the host. The default
    /// declines.
    fn searchsorted(
        &self,
        sorted: &Tensor,
        values: &Tensor,
        right: bool,
        out: &Tensor,
    ) -> Result<bool> {
        let _ = (sorted, values, right, out);
        Ok(false)
    }
}
