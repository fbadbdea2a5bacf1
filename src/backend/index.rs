//! The indexing primitives: gather along an axis (fancy index `L`).
//!
//! What the frontend guarantees: storages are locked for the call; `indices` is
//! a 1-D i64 tensor on the same device whose every value lies in
//! `0..src.shape()[axis]`; `out` has `src`'s dtype and shape except
//! `out.shape()[axis] == indices.size()`; `out` maps distinct elements to
//! distinct addresses and overlaps neither `src` nor `indices`.

use crate::error::Result;
use crate::tensor::Tensor;

/// Gather (and later scatter) along one axis.
pub trait IndexBackend {
    /// `out[.., j, ..] = src[.., indices[j], ..]` along `axis`, for every `j`.
    fn gather(&self, src: &Tensor, axis: usize, indices: &Tensor, out: &Tensor) -> Result<()>;
}
