//! # rnx — n-dimensional tensors for Rust
//!
//! NumPy-class arrays with the API of the Nx array library and the strict
//! elementwise semantics of the cl-tensor specification, on a multi-threaded CPU
//! backend.
//!
//! ```
//! use rnx::{Tensor, DType};
//! let t = Tensor::create(DType::I32, &[2, 3], &[0, 1, 2, 3, 4, 5]).unwrap();
//! assert_eq!(t.to_string(), "[[0, 1, 2],\n [3, 4, 5]]");
//! let x = Tensor::linspace(DType::F32, 0.0, 10.0, 5, true).unwrap();
//! assert_eq!(x.to_vec::<f32>().unwrap(), vec![0.0, 2.5, 5.0, 7.5, 10.0]);
//! ```
//!
//! ## The rules
//! - A [`Tensor`] is a view (shape, signed strides, offset) over shared storage;
//!   `clone()` is O(1) and shares it. Views never copy; copies are explicit.
//! - Tensors in one operation must have the same dtype and device (an error names
//!   both otherwise); Rust scalars convert to the tensor's dtype and must be
//!   representable there.
//! - Every fallible function returns [`Result`]; messages name the operation and
//!   the values. Nothing panics on user input except documented operator sugar.
//! - `RNX_NUM_THREADS` (or [`set_num_threads`]) sets the CPU thread count.

pub mod axes;
pub mod backend;
pub mod buffer_cache;
pub mod device;
pub mod dtype;
pub mod error;
pub mod format;
pub mod huge_pages;
#[cfg(feature = "ndarray")]
pub mod interop;
pub mod layout;
pub mod ops;
pub mod overlap;
pub mod random;
pub mod storage;
pub mod tensor;

pub use axes::{Axes, NewShape};
pub use backend::elementwise::CmpOp;
pub use device::{gpu_devices, num_threads, set_num_threads, synchronize, Device, GpuInfo};
pub use dtype::{DType, Element, Scalar, C32, C64};
pub use error::{Error, Result};
pub use layout::Layout;
pub use ops::conv::{Conv1dOptions, Conv2dOptions, Padding};
pub use ops::creation::Indexing;
pub use ops::ewise::Operand;
pub use ops::index::{Index, NewAxis};
pub use ops::join::Sections;
pub use ops::operators::OperatorScalar;
pub use ops::softmax::SoftmaxOptions;
pub use tensor::{SliceRef, Tensor};

#[doc(hidden)]
pub use half;
pub use half::{bf16, f16};
pub use num_complex::Complex;

/// The names most programs need: `use rnx::prelude::*;`.
pub mod prelude {
    pub use crate::{
        bf16, f16, s, Axes, CmpOp, Complex, Conv1dOptions, Conv2dOptions, DType, Device, Error,
        Index, Indexing, NewAxis, NewShape, Operand, Padding, Result, Scalar, Sections,
        SoftmaxOptions, Tensor, C32, C64,
    };
}
