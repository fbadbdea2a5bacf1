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

    /// 3x3 cross-correlation with stride 1 and dilation 1 of an already padded
    /// input: `x` is `[n, c, h, w]` (h, w >= 3), `w` is `[o, c / groups, 3, 3]`,
    /// `out` is `[n, o, h - 2, w - 2]`; `groups` (>= 1) divides `c` and `o`.
    /// Writes `out[b, o, i, j] = sum_{c, p, q} x[b, g*cg + c, i + p, j + q] *
    /// w[o, c, p, q]` (`g` the group of `o`, `cg = c / groups`), or adds it to
    /// `out` when `accumulate` is true. f32 and f64 only (an `UnsupportedDType`
    /// error otherwise; the frontend calls it for nothing else). Results match
    /// the direct sum up to rounding: the CPU uses Winograd F(4,3), whose error
    /// relative to the sum of absolute products stays below 1e-5 (f32) and
    /// 2e-14 (f64) in `tests/suite/conv.rs`.
    fn conv3x3(
        &self,
        x: &Tensor,
        w: &Tensor,
        out: &Tensor,
        groups: usize,
        accumulate: bool,
    ) -> Result<()>;
}
