//! The reduction family of backend primitives: reductions over a set of axes
//! (sum, prod, max, min, mean, var, std, all, any), arg-reductions along one
//! axis, the fused softmax-like primitive (softmax, log_softmax, logsumexp),
//! the fused normalisation layers (rms_norm, layer_norm) and cumulative scans. Only the trait and its operation enums live here; argument
//! validation is in `src/ops/reduce.rs` and `src/ops/softmax.rs`.
//!
//! What the frontend guarantees to every method: storages are locked for the
//! call; `axes` is sorted, without duplicates, each `< x.ndim()`; `out` is a
//! fresh tensor (it does not overlap `x`) whose layout maps distinct elements to
//! distinct addresses; the dtype is one the operation supports (listed per op).
//! For the "keepdims shape" below, `out` has `x`'s rank with the reduced axes
//! set to size 1.

use crate::error::Result;
use crate::tensor::Tensor;

/// The windows of one pooling pass along an axis
/// ([`ReduceBackend::window_reduce`]): output `j` reads the input positions
/// `j * stride + t * dilation - before`, `t < size`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PoolWindow {
    /// Taps per window (>= 1).
    pub size: usize,
    /// Step between windows (>= 1).
    pub stride: usize,
    /// Step between taps (>= 1).
    pub dilation: usize,
    /// Implicit padding before the first input element.
    pub before: usize,
}

/// A reduction over a set of axes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReduceOp {
    /// Sum; every dtype. Floats are summed pairwise/blocked (error grows with
    /// log n, not n); f16/bf16 accumulate in f32; integers wrap at their width.
    /// Empty: 0.
    Sum,
    /// Product; every dtype; integers wrap. Empty: 1.
    Prod,
    /// Maximum; real and integer dtypes; NaN propagates. The frontend
    /// guarantees the reduced count is at least 1.
    Max,
    /// Minimum; as `Max`.
    Min,
    /// Arithmetic mean (sum / count); float and complex dtypes. Empty: NaN.
    Mean,
    /// Variance `sum((x - mean)^2) / (count - ddof)`; float dtypes. Empty:
    /// NaN; the frontend guarantees `ddof < count` when `count > 0`.
    Var {
        /// Delta degrees of freedom.
        ddof: usize,
    },
    /// Square root of `Var`.
    Std {
        /// Delta degrees of freedom.
        ddof: usize,
    },
    /// 1 where every element is non-zero (NaN is non-zero); any dtype; `out` is
    /// u8. Empty: 1.
    All,
    /// 1 where some element is non-zero; any dtype; `out` is u8. Empty: 0.
    Any,
}

/// The extreme that an arg-reduction looks for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ArgOp {
    /// Index of the largest element.
    Max,
    /// Index of the smallest element.
    Min,
}

/// The fused exp-normalisation family.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SoftmaxOp {
    /// `exp(x - m) / sum(exp(x - m))`, `m` the group maximum; `out` has `x`'s shape.
    Softmax,
    /// `x - m - ln(sum(exp(x - m)))`; `out` has `x`'s shape.
    LogSoftmax,
    /// `m + ln(sum(exp(x - m)))`; `out` has the keepdims shape; an empty group
    /// gives -inf.
    LogSumExp,
}

/// The fused normalisation layers of [`ReduceBackend::norm`].
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NormOp {
    /// RMS normalisation `x / sqrt(mean(x²) + epsilon)`.
    Rms {
        /// Added to the mean square.
        epsilon: f64,
    },
    /// Layer normalisation `(x - mean) / sqrt(var + epsilon)` (population
    /// variance).
    Layer {
        /// Added to the variance.
        epsilon: f64,
    },
}

/// A cumulative scan along one axis.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScanOp {
    /// Running sum (f16/bf16 accumulate in f32, integers wrap).
    Sum,
    /// Running product (integers wrap).
    Prod,
}

/// Reductions, arg-reductions, softmax and scans.
pub trait ReduceBackend {
    /// Reduce `x` over `axes` into `out` (keepdims shape; dtype `x`'s, u8 for
    /// `All`/`Any`). When the reduced count is 0 every output gets the op's
    /// empty value (see [`ReduceOp`]).
    fn reduce(&self, op: ReduceOp, x: &Tensor, axes: &[usize], out: &Tensor) -> Result<()>;

    /// Index (i32) of the first extreme element along `axis` into `out`
    /// (keepdims shape). NaN counts as the extreme: the first NaN wins. The
    /// frontend guarantees a real or integer dtype and `1 <= x.shape[axis] <=
    /// i32::MAX`.
    fn arg_reduce(&self, op: ArgOp, x: &Tensor, axis: usize, out: &Tensor) -> Result<()>;

    /// The fused softmax family over `axes` (float dtypes). Stable: the group
    /// maximum is subtracted before `exp`. No intermediate tensor of `x`'s size
    /// may be allocated.
    fn softmax(&self, op: SoftmaxOp, x: &Tensor, axes: &[usize], out: &Tensor) -> Result<()>;

    /// Inclusive cumulative scan of `x` along `axis` into `out` (same shape and
    /// dtype; every dtype).
    fn scan(&self, op: ScanOp, x: &Tensor, axis: usize, out: &Tensor) -> Result<()>;

    /// The mean of every window of `size` consecutive elements along `axis`
    /// of `x` into `out`: `out[.., i, ..] = (x[.., i, ..] + .. + x[.., i +
    /// size - 1, ..]) / size` (the 1-D pass of `uniform_filter`; `x` is the
    /// input already extended by the boundary mode). The frontend guarantees:
    /// real or integer dtypes (`x` and `out` may differ: `out` has the
    /// filter's result dtype); `size >= 1`;
    /// `out.shape[axis] = x.shape[axis] - size + 1 >= 1`, the other axes
    /// equal; `out` is fresh and does not
    /// overlap `x`. The sum is taken in f64 where `x` is f64 or the device
    /// is the CPU (SciPy's double line buffer), else in f32; the mean is
    /// rounded once to `out`'s dtype (a float to an integer truncates toward
    /// zero and saturates, as `cast`).
    ///
    /// The default body composes the device's cast, reduce (`Sum` over a
    /// strided window view), binary `Div` and cast primitives
    /// (`compose::window_mean`: up to four passes, temporaries of `x`'s
    /// size); the CPU overrides it with a running sum (one pass).
    fn window_mean(&self, x: &Tensor, axis: usize, size: usize, out: &Tensor) -> Result<()> {
        let work = if x.dtype() == crate::dtype::DType::F64 {
            crate::dtype::DType::F64
        } else {
            crate::dtype::DType::F32
        };
        super::compose::window_mean(x, axis, size, out, work)
    }

    /// One 1-D pass of pooling along `axis` of `x` into `out`: output `j`
    /// reduces (`op`: `Max`, `Min` or `Sum`) the taps `x[.., p, ..]` at
    /// `p = j * w.stride + t * w.dilation - w.before` for `t < w.size`,
    /// starting from `init`; taps outside `0..x.shape[axis]` are skipped
    /// (as if `x` were padded with `init`), so a window with no tap inside
    /// gives `init`. `Max`/`Min`: NaN propagates; `init` is the op's
    /// identity in `x`'s dtype (-inf or the integer minimum for `Max`).
    /// `Sum`: `init` is 0 (rounding as the device's sums). The frontend
    /// guarantees: real or integer dtypes (float dtypes for `Sum`); `out`
    /// has `x`'s dtype and shape but `out.shape[axis] >= 1` outputs; `size`,
    /// `stride`, `dilation >= 1`; `out` is fresh and does not overlap `x`.
    ///
    /// The default body pads a copy of `x` with `init` (`compose::window_reduce`:
    /// the device's fill, copy and reduce over a strided window view); the
    /// CPU overrides it with a direct kernel (no padded copy).
    fn window_reduce(
        &self,
        op: ReduceOp,
        x: &Tensor,
        axis: usize,
        w: &PoolWindow,
        init: crate::dtype::Scalar,
        out: &Tensor,
    ) -> Result<()> {
        super::compose::window_reduce(op, x, axis, w, init, out)
    }

    /// The normalisation layer `op` over the groups `axes` of `x` into `out`
    /// (x's shape), then times `weight` and plus `bias` elementwise. Float
    /// dtypes; `weight` and `bias` (optional) have x's dtype and shape (views,
    /// typically broadcast with stride 0) and may share storage with `x` but
    /// not with `out`; `epsilon` is finite and non-negative.
    ///
    /// The default body composes the device's reduce and elementwise
    /// primitives (`compose::norm`: about six passes with temporaries of x's
    /// size, in x's dtype); a device overrides it with a fused kernel (the
    /// CPU: one pass for the statistics and one for the output per group).
    fn norm(
        &self,
        op: NormOp,
        x: &Tensor,
        axes: &[usize],
        weight: Option<&Tensor>,
        bias: Option<&Tensor>,
        out: &Tensor,
    ) -> Result<()> {
        super::compose::norm(op, x, axes, weight, bias, out)
    }
}
