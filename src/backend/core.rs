//! The core primitives: allocation, transfer, fill, copy and cast between layouts.
//!
//! What the frontend guarantees to every method: storages are locked for the
//! call; `src` and `dst` have the same shape; scalars already have the
//! destination's dtype; `dst`'s layout maps distinct elements to distinct
//! addresses; `src` does not partially overlap `dst` (it may be exactly `dst`).

use crate::device::Device;
use crate::dtype::{DType, Scalar};
use crate::error::Result;
use crate::storage::Storage;
use crate::tensor::Tensor;

/// Allocation, transfer, fill, copy and cast.
pub trait CoreBackend: Send + Sync + 'static {
    /// The device this backend runs on.
    fn device(&self) -> Device;
    /// A zero-filled buffer of `len` elements.
    fn alloc(&self, dtype: DType, len: usize) -> Result<Storage>;
    /// A buffer of `len` elements with unspecified (but initialised) contents,
    /// for outputs the caller overwrites completely; may reuse freed memory.
    fn alloc_for_overwrite(&self, dtype: DType, len: usize) -> Result<Storage> {
        self.alloc(dtype, len)
    }
    /// A buffer holding `bytes` (native-endian elements of `dtype`).
    fn upload(&self, dtype: DType, bytes: &[u8]) -> Result<Storage>;
    /// The elements of `src` in row-major order into host bytes
    /// (`dst.len() == src.nbytes()`).
    fn download(&self, src: &Tensor, dst: &mut [u8]) -> Result<()>;
    /// Set every element of `dst` to `value`.
    fn fill(&self, dst: &Tensor, value: Scalar) -> Result<()>;
    /// Copy `src` into `dst` (same dtype, same shape; any strides).
    fn copy(&self, src: &Tensor, dst: &Tensor) -> Result<()>;
    /// Convert `src` into `dst`'s dtype (same shape): floats to integers truncate
    /// toward zero and saturate, NaN gives 0; complex to real takes the real part.
    fn cast(&self, src: &Tensor, dst: &Tensor) -> Result<()>;
}
