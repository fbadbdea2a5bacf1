//! The linear-algebra primitives: batched strided matrix products and the 3x3
//! stride-1 convolution kernel (Winograd on the CPU). Validation, shape rules
//! (NumPy `@`, `dot`, convolution options) and padding live in `src/ops/`.
//!
//! What the frontend guarantees to every method: storages are locked for the
//! call; all tensors have one dtype; shapes agree as documented per method;
//! `out`'s layout maps distinct elements to distinct addresses and no input
//! overlaps `out` (inputs may use stride-0 batch axes and any other strides).

use crate::error::Result;
use crate::tensor::Tensor;

/// Matrix products and the convolution kernels built on them.
pub trait LinalgBackend: Send + Sync + 'static {
    /// Batched matrix product: `a` is `[batch.., m, k]`, `b` is `[batch.., k, n]`
    /// and `out` is `[batch.., m, n]` (same batch dims, at least rank 2; the
    /// frontend broadcasts batch axes as stride-0 views). Writes
    /// `out[.., i, j] = sum_p a[.., i, p] * b[.., p, j]`, or adds that sum to
    /// the value already in `out` when `accumulate` is true (used to fuse a
    /// bias). Every dtype: integers wrap, halves accumulate in f32 and round once
    /// per result. `k == 0` gives zeros (or leaves `out` unchanged when
    /// accumulating).
    fn matmul(&self, a: &Tensor, b: &Tensor, out: &Tensor, accumulate: bool) -> Result<()>;
}
