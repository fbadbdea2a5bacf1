//! The CPU backend: host memory, strided iteration, SIMD kernels and threads.
//! Each family of primitives is implemented in its own file; this file holds the
//! backend value and the helpers that turn a tensor into a typed base pointer.

pub mod blocked;
pub mod copy;
pub mod dct;
pub mod decomp;
pub mod elementwise;
pub mod fft;
pub mod index;
pub mod matmul;
pub mod reduce;
pub mod sort;
pub mod strided;
pub(crate) mod team;
pub mod transpose;
pub mod vmath;

use crate::dtype::Element;
use crate::tensor::Tensor;

/// The CPU backend (stateless; its thread pool is `crate::device::pool` (sized by [`crate::set_num_threads`])).
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuBackend;

/// Typed base pointer of a host tensor's storage (element 0 of the buffer, not of
/// the view: add the layout's offsets).
///
/// Panics if the tensor is not in host memory, which the backend dispatch rules
/// out, or if `T` is not the dtype's type, which `dispatch!` rules out.
pub(crate) fn base_ptr<T: Element>(t: &Tensor) -> *mut T {
    assert_eq!(T::DTYPE, t.dtype(), "cpu backend: element type mismatch");
    t.storage()
        .host_ptr()
        .expect("cpu backend given a non-host tensor") as *mut T
}
