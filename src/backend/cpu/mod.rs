//! The CPU backend: host memory, strided iteration, SIMD kernels and threads.
//! Each family of primitives is implemented in its own file; this file holds the
//! backend value and the helpers that turn a tensor into a typed base pointer.

pub mod blocked;
pub mod copy;
pub mod dct;
mod dct_long;
mod dct_plan;
pub mod decomp;
pub mod elementwise;
#[cfg(feature = "linalg")]
mod faer_calls;
pub mod fft;
mod fft_lanes;
pub(crate) mod fft_long;
pub(crate) mod fft_long_flat;
mod fft_real_long;
mod half_runs;
pub mod index;
pub mod matmul;
pub(crate) mod packed;
mod pool;
pub mod reduce;
#[cfg(feature = "linalg")]
pub(crate) mod small_lu;
pub mod sort;
pub mod strided;
pub(crate) mod team;
pub mod transpose;
pub(crate) mod traverse;
pub mod vmath;
mod window;

#[cfg(feature = "internal-tests")]
pub(crate) mod shortcut_tests;

use crate::dtype::{DType, Element};
use crate::tensor::Tensor;

#[cfg(feature = "internal-tests")]
thread_local! {
    /// Set by unit tests to run the general paths where a small-input
    /// shortcut would apply, to compare the two.
    static GENERAL_ONLY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Whether the small-input shortcuts (flat elementwise runs, direct small
/// reductions, softmax groups and matrix products) may run: always, except
/// inside [`general_only`] in unit tests.
#[inline(always)]
pub(crate) fn shortcuts() -> bool {
    #[cfg(feature = "internal-tests")]
    {
        !GENERAL_ONLY.with(|c| c.get())
    }
    #[cfg(not(feature = "internal-tests"))]
    {
        true
    }
}

/// Run `f` with the shortcuts off on this thread (internal tests only).
#[cfg(feature = "internal-tests")]
pub(crate) fn general_only<R>(f: impl FnOnce() -> R) -> R {
    GENERAL_ONLY.with(|c| c.set(true));
    let r = f();
    GENERAL_ONLY.with(|c| c.set(false));
    r
}

/// The CPU backend (stateless; its thread pool is `crate::device::pool` (sized by [`crate::set_num_threads`])).
#[derive(Clone, Copy, Debug, Default)]
pub struct CpuBackend;

/// The CPU's keyed draws are the host path of `src/ops/rng/` itself (16
/// Threefry blocks at a time at the widest SIMD level, written straight into
/// the result over the thread pool), which the frontend runs when a backend
/// declines: nothing to add here.
impl crate::backend::RandomBackend for CpuBackend {}

/// The signed dtype of an unsigned integer dtype's width (`u32 -> i32`; any
/// other dtype unchanged). The ops whose result bits do not depend on the
/// sign (elementwise `sign_free_unary` / `sign_free_binary` ops, equality) run the
/// signed type's kernel on unsigned tensors ([`bits_ptr`]), as do integer
/// casts to an unsigned target (`copy.rs`), so those kernels are compiled 4
/// times instead of 8: one kernel per dtype class where the bits allow.
pub(crate) fn signed_twin(dt: DType) -> DType {
    match dt {
        DType::U8 => DType::I8,
        DType::U16 => DType::I16,
        DType::U32 => DType::I32,
        DType::U64 => DType::I64,
        d => d,
    }
}

/// [`base_ptr`] that also takes an integer tensor whose dtype differs from
/// `T`'s only in sign (a `u32` tensor as `i32`): for the elementwise kernels
/// whose result bits do not depend on the sign (wrapping add, sub, mul,
/// bitwise and logical ops, equality), which are compiled for the signed
/// types only.
pub(crate) fn bits_ptr<T: Element>(t: &Tensor) -> *mut T {
    let d = t.dtype();
    if T::DTYPE != d && T::DTYPE.is_int() && d.is_int() && T::DTYPE.itemsize() == d.itemsize() {
        assert!(
            !d.is_int4() && !T::DTYPE.is_int4(),
            "cpu backend: typed pointer to packed 4-bit memory"
        );
        return t
            .storage()
            .host_ptr()
            .expect("cpu backend given a non-host tensor") as *mut T;
    }
    base_ptr::<T>(t)
}

/// Typed base pointer of a host tensor's storage (element 0 of the buffer, not of
/// the view: add the layout's offsets).
///
/// Panics if the tensor is not in host memory, which the backend dispatch rules
/// out, or if `T` is not the dtype's type, which `dispatch!` rules out.
pub(crate) fn base_ptr<T: Element>(t: &Tensor) -> *mut T {
    assert_eq!(T::DTYPE, t.dtype(), "cpu backend: element type mismatch");
    // Packed 4-bit memory is not an array of `T`s: only `packed.rs` reads it.
    assert!(
        !T::DTYPE.is_int4(),
        "cpu backend: typed pointer to packed 4-bit memory"
    );
    t.storage()
        .host_ptr()
        .expect("cpu backend given a non-host tensor") as *mut T
}
