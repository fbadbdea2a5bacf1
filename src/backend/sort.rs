//! The sorting family of backend primitives: a stable sort of every row along
//! one axis, writing sorted values and/or the i32 source indices. Only the trait
//! lives here; validation is in `src/ops/sort.rs`.
//!
//! What the frontend guarantees: storages are locked; `axis < x.ndim()`;
//! `x.shape[axis] <= i32::MAX`; the dtype is real or integer; `indices` (i32) and
//! `values` (x's dtype) are fresh tensors of `x`'s shape with unique layouts.

use crate::error::Result;
use crate::tensor::Tensor;

/// Sorting along an axis.
pub trait SortBackend {
    /// Sort every row of `x` along `axis`, stably (equal elements keep their
    /// order), ascending or descending. NaN compares above every number: it goes
    /// last ascending and first descending; -0.0 and 0.0 are equal. Writes the
    /// source index of each sorted element to `indices` and, when given, the
    /// sorted values to `values` (the original elements, bit for bit).
    fn sort(
        &self,
        x: &Tensor,
        axis: usize,
        descending: bool,
        values: Option<&Tensor>,
        indices: &Tensor,
    ) -> Result<()>;
}
