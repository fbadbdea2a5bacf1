//! The user API, one file per family, each written once over the Backend trait.
//! This file holds the checks every family shares (same device, same dtype,
//! output validation) so no family writes them again.

pub mod activation;
pub mod compare;
pub mod complex;
pub mod conv;
pub mod convert;
pub mod creation;
pub mod creation_on;
pub mod dct;
pub mod decomp;
pub mod diag;
pub mod einsum;
pub mod elementwise;
pub mod fft;
pub mod filters;
/// The elementwise frame (operands, broadcasting, output and alias checks)
/// every elementwise family runs through.
pub(crate) mod frame;
pub mod histogram;
pub mod index;
mod index_spec;
pub mod iterate;
pub mod join;
pub mod linalg;
pub mod logic;
pub mod mask;
pub mod math;
pub mod nanreduce;
pub mod norm;
pub mod norm_layers;
pub mod operators;
pub mod patches;
pub mod pool;
pub(crate) mod positions;
pub mod products;
pub mod reduce;
pub mod rng;
pub mod scan;
pub mod search;
pub mod select;
pub mod shape;
pub mod signal;
pub mod softmax;
pub mod solve;
pub mod sort;
pub mod stats;
pub mod take;
pub(crate) mod unique;
pub mod unique_axis;

pub use frame::Operand;

use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// All tensors on one device, else an error naming `op` and both devices.
pub(crate) fn same_device<T: std::borrow::Borrow<Tensor>>(op: &str, ts: &[T]) -> Result<()> {
    if let Some(first) = ts.first() {
        let first = first.borrow();
        for t in ts[1..].iter().map(|t| t.borrow()) {
            if t.device() != first.device() {
                return Err(Error::DeviceMismatch {
                    op: op.into(),
                    lhs: first.device(),
                    rhs: t.device(),
                });
            }
        }
    }
    Ok(())
}

/// All tensors of one dtype, else an error naming `op` and both dtypes.
pub(crate) fn same_dtype<T: std::borrow::Borrow<Tensor>>(op: &str, ts: &[T]) -> Result<()> {
    if let Some(first) = ts.first() {
        let first = first.borrow();
        for t in ts[1..].iter().map(|t| t.borrow()) {
            if t.dtype() != first.dtype() {
                return Err(Error::DTypeMismatch {
                    op: op.into(),
                    lhs: first.dtype(),
                    rhs: t.dtype(),
                });
            }
        }
    }
    Ok(())
}

/// An output tensor must not map two elements to one address.
pub(crate) fn unique_output(op: &str, out: &Tensor) -> Result<()> {
    if out.layout().has_internal_overlap() {
        return Err(Error::OverlappingOutput {
            op: op.into(),
            shape: out.shape().to_vec(),
            strides: out.layout().strides().to_vec(),
        });
    }
    Ok(())
}

/// Run `f` with the storages of `reads` locked shared and of `writes` locked
/// exclusively (see [`crate::storage::lock`]). Every op calls its backend
/// through this, so no two threads touch a buffer unsynchronised.
pub(crate) fn locked<R>(
    op: &str,
    reads: &[&Tensor],
    writes: &[&Tensor],
    f: impl FnOnce() -> Result<R>,
) -> Result<R> {
    let _guard = lock_tensors(op, reads, writes)?;
    f()
}

/// [`locked`] for an op whose only written tensor is `fresh`, an output it
/// has just allocated: `reads` are locked shared, `fresh` not at all. Nobody
/// else can reach a buffer that only this op holds (its reference count is
/// one and no view or borrowed slice of it exists yet), so a write lock on it
/// would exclude no one; skipping it saves the lock's atomics and its sort.
pub(crate) fn locked_fresh<R>(
    op: &str,
    reads: &[&Tensor],
    fresh: &Tensor,
    f: impl FnOnce() -> Result<R>,
) -> Result<R> {
    debug_assert_eq!(
        std::sync::Arc::strong_count(fresh.storage()),
        1,
        "{op}: locked_fresh on a shared buffer"
    );
    if let [first, rest @ ..] = reads {
        if rest
            .iter()
            .all(|t| std::sync::Arc::ptr_eq(t.storage(), first.storage()))
        {
            // One storage read (`x.sum()`, `x + x`): its shared lock, as
            // `lock_tensors` would take it, held here without an `Access`.
            let _guard = first.storage().read_lock();
            return f();
        }
    }
    if let [a, b] = reads {
        // Two storages read (`&a + &b`): their shared locks in id order, as
        // `lock_tensors` would take them, without sorting into an `Access`.
        let (a, b) = (a.storage(), b.storage());
        let (lo, hi) = if a.id() < b.id() { (a, b) } else { (b, a) };
        let _lo = lo.read_lock();
        let _hi = hi.read_lock();
        return f();
    }
    let _guard = lock_tensors(op, reads, &[])?;
    f()
}

/// The locks of [`locked`] (not generic: compiled once, not per caller).
fn lock_tensors<'a>(
    op: &str,
    reads: &[&'a Tensor],
    writes: &[&'a Tensor],
) -> Result<crate::storage::Access<'a>> {
    // The storages in fixed arrays for the usual few operands (no allocation).
    const K: usize = 4;
    if reads.len() <= K && writes.len() <= K {
        let any = match reads.first().or(writes.first()) {
            Some(t) => &**t.storage(),
            None => return crate::storage::lock(op, &[], &[]),
        };
        let (mut r, mut w) = ([any; K], [any; K]);
        for (slot, t) in r.iter_mut().zip(reads) {
            *slot = &**t.storage();
        }
        for (slot, t) in w.iter_mut().zip(writes) {
            *slot = &**t.storage();
        }
        return crate::storage::lock(op, &r[..reads.len()], &w[..writes.len()]);
    }
    let r: Vec<&crate::storage::Storage> = reads.iter().map(|t| &**t.storage()).collect();
    let w: Vec<&crate::storage::Storage> = writes.iter().map(|t| &**t.storage()).collect();
    crate::storage::lock(op, &r, &w)
}
