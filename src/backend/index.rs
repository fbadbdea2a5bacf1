//! The indexing primitives: gather and scatter along an axis (the fancy index
//! `L` of `slice` and `set_slice`).
//!
//! What the frontend guarantees to both: storages are locked for the call;
//! `indices` is a 1-D i32 or i64 tensor on the same device (on devices other
//! than the CPU i32 whenever the axis length fits in i32, so that devices
//! without 64-bit integers can run it; the CPU takes either) whose every
//! value lies in `0..len` of the indexed axis; the tensors
//! have one dtype; the written tensor maps distinct elements to distinct
//! addresses and overlaps neither the other tensor nor `indices`.
use crate::error::Result;
use crate::tensor::Tensor;

/// How [`IndexBackend::scatter_reduce`] combines a source element with the
/// destination element it lands on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScatterOp {
    /// `d + s` (integers wrap).
    Add,
    /// `d * s` (integers wrap; complex product).
    Mul,
    /// `max(d, s)`; NaN wins (real dtypes only).
    Max,
    /// `min(d, s)`; NaN wins (real dtypes only).
    Min,
}

/// What a call that checks its indices itself
/// ([`IndexBackend::gather_checking`], [`IndexBackend::scatter_reduce_checking`])
/// did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checked {
    /// Every index lay in `0..len`: the call did all that its unchecking
    /// form ([`IndexBackend::gather`], [`IndexBackend::scatter_reduce`]) does.
    Done,
    /// Some index lies outside `0..len`: the written tensor may hold part of
    /// the result (the caller discards it).
    OutOfRange,
    /// This backend has no fused check for these tensors: nothing written.
    Declined,
}

/// Gather and scatter along one axis.
pub trait IndexBackend {
    /// `out[.., j, ..] = src[.., indices[j], ..]` along `axis`, for every `j`.
    /// `out` has `src`'s shape except `out.shape()[axis] == indices.size()`.
    fn gather(&self, src: &Tensor, axis: usize, indices: &Tensor, out: &Tensor) -> Result<()>;

    /// `dst[.., indices[j], ..] = src[.., j, ..]` along `axis`, for every `j`;
    /// the other positions of `dst` keep their values. `src` has `dst`'s shape
    /// except `src.shape()[axis] == indices.size()`, and the indices are
    /// distinct (the frontend keeps the last of repeated positions), so every
    /// written element is written once.
    fn scatter(&self, src: &Tensor, axis: usize, indices: &Tensor, dst: &Tensor) -> Result<()>;

    /// `dst[.., indices[j], ..] = op(dst[.., indices[j], ..], src[.., j, ..])`
    /// along `axis`, for `j = 0, 1, ...` in this order: repeated indices are
    /// allowed and combine one after another, so the result is the same on
    /// every thread count. Shapes as in [`IndexBackend::scatter`]; `op` is
    /// `Max`/`Min` only for real dtypes (the frontend checks). f16/bf16 and
    /// f32 combine in f64 and round once per step (the same as their own
    /// arithmetic for one operation).
    fn scatter_reduce(
        &self,
        src: &Tensor,
        axis: usize,
        indices: &Tensor,
        dst: &Tensor,
        op: ScatterOp,
    ) -> Result<()>;

    /// [`IndexBackend::gather`] on indices the frontend has not range-checked
    /// (any i32/i64 values; the rest of the contract holds): the backend
    /// checks each index as it reads, which saves the frontend's separate
    /// pass over the indices. [`Checked::OutOfRange`] at an index outside
    /// `0..len` (negative ones included), with `out` partly written (the
    /// frontend discards it). The default is [`Checked::Declined`] (nothing
    /// written).
    fn gather_checking(
        &self,
        src: &Tensor,
        axis: usize,
        indices: &Tensor,
        out: &Tensor,
    ) -> Result<Checked> {
        let _ = (src, axis, indices, out);
        Ok(Checked::Declined)
    }

    /// `out[g] = src[g with its coordinate along axis replaced by
    /// indices[g]]` for every element `g` of `out` (NumPy's
    /// `take_along_axis`), on indices the frontend has not range-checked
    /// (i32/i64, any values): `src` has `out`'s shape except along `axis`,
    /// `indices` has `out`'s shape (both any strides, broadcast views
    /// included). [`Checked::OutOfRange`] at an index outside `0..len`
    /// (negative ones included), with `out` partly written. The default is
    /// [`Checked::Declined`] (nothing written; the frontend then checks and
    /// resolves the indices on the host, as the CPU does).
    fn gather_along_checking(
        &self,
        src: &Tensor,
        axis: usize,
        indices: &Tensor,
        out: &Tensor,
    ) -> Result<Checked> {
        let _ = (src, axis, indices, out);
        Ok(Checked::Declined)
    }

    /// [`IndexBackend::scatter_reduce`] on indices the frontend has not
    /// range-checked (any i32/i64 values; the rest of the contract holds):
    /// the backend checks each index as it combines its element, which saves
    /// the frontend's separate pass over the indices. Returns
    /// [`Checked::OutOfRange`] at the first index outside `0..len` (negative
    /// ones included: the frontend normalises those on its checked path),
    /// with `dst` partly written, so the frontend calls this only on an
    /// output it allocated and discards on that answer. The default, for
    /// backends without such a loop, is [`Checked::Declined`] (nothing
    /// written).
    fn scatter_reduce_checking(
        &self,
        src: &Tensor,
        axis: usize,
        indices: &Tensor,
        dst: &Tensor,
        op: ScatterOp,
    ) -> Result<Checked> {
        let _ = (src, axis, indices, dst, op);
        Ok(Checked::Declined)
    }
}
