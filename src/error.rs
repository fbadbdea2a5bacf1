//! The crate's error type and `Result` alias. Every message names the operation
//! and the offending values; nothing here knows about tensors beyond shapes.

use crate::device::Device;
use crate::dtype::DType;

/// Result of every fallible rnx function.
pub type Result<T> = std::result::Result<T, Error>;

/// What went wrong, naming the operation and the values.
///
/// ```
/// use rnx::{Tensor, DType};
/// let err = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[2, 2]).unwrap_err();
/// assert_eq!(err.to_string(), "create: data has 3 elements but shape [2, 2] needs 4");
/// ```
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum Error {
    /// Two shapes that must agree do not.
    #[error("{op}: shapes {lhs:?} and {rhs:?} {why}")]
    ShapeMismatch {
        op: String,
        lhs: Vec<usize>,
        rhs: Vec<usize>,
        why: String,
    },
    /// Data length does not match the shape.
    #[error("{op}: data has {len} elements but shape {shape:?} needs {expected}")]
    DataLength {
        op: String,
        len: usize,
        shape: Vec<usize>,
        expected: usize,
    },
    /// Two operands have different dtypes.
    #[error("{op}: dtypes differ: {lhs} and {rhs} (convert with cast)")]
    DTypeMismatch { op: String, lhs: DType, rhs: DType },
    /// The operation is not defined for this dtype.
    #[error("{op}: dtype {dtype} is not supported")]
    UnsupportedDType { op: String, dtype: DType },
    /// A Rust type was asked for that is not the tensor's dtype.
    #[error("{op}: tensor has dtype {actual} but {requested} was requested")]
    TypeMismatch {
        op: String,
        actual: DType,
        requested: DType,
    },
    /// An axis outside `-ndim..ndim`.
    #[error("{op}: axis {axis} is out of range for a tensor of rank {ndim}")]
    AxisOutOfRange {
        op: String,
        axis: isize,
        ndim: usize,
    },
    /// An index outside a dimension.
    #[error("{op}: index {index} is out of bounds for axis {axis} of size {size}")]
    IndexOutOfBounds {
        op: String,
        index: isize,
        axis: usize,
        size: usize,
    },
    /// A scalar that the dtype cannot hold.
    #[error("{op}: value {value} cannot be represented in dtype {dtype}")]
    ScalarNotRepresentable {
        op: String,
        value: String,
        dtype: DType,
    },
    /// An argument with an invalid value.
    #[error("{op}: {msg}")]
    InvalidArgument { op: String, msg: String },
    /// A matrix of a batch that the linear-algebra function cannot handle
    /// (singular, not positive definite, no convergence): NumPy's
    /// `LinAlgError`. `batch` is the first failing matrix's index in C order
    /// over the batch axes (0 for a single matrix).
    #[error("{op}: matrix {batch} of the batch {msg}")]
    LinAlg {
        op: String,
        batch: usize,
        msg: String,
    },
    /// An output tensor whose layout maps several elements to one address.
    #[error("{op}: output layout (shape {shape:?}, strides {strides:?}) maps several elements to one memory location")]
    OverlappingOutput {
        op: String,
        shape: Vec<usize>,
        strides: Vec<isize>,
    },
    /// Operands live on different devices.
    #[error("{op}: tensors are on different devices: {lhs} and {rhs} (move with to_device)")]
    DeviceMismatch {
        op: String,
        lhs: Device,
        rhs: Device,
    },
    /// The device does not implement this operation (or is not available).
    #[error("{op}: not supported on device {device}")]
    UnsupportedOnDevice { op: String, device: Device },
    /// A tensor's storage is borrowed (by `as_slice`) while an op wants to write it.
    #[error("{op}: the storage is borrowed by a live slice; drop it before writing")]
    Borrowed { op: String },
    /// Integer division or remainder by zero.
    #[error("{op}: integer division by zero")]
    DivisionByZero { op: String },
    /// Memory could not be allocated.
    #[error("{op}: cannot allocate {bytes} bytes")]
    Alloc { op: String, bytes: usize },
    /// A device cannot be used: not built (cargo feature `gpu`), no such
    /// adapter, creation failed, or the device was lost.
    #[error("{op}: {msg}")]
    DeviceUnavailable { op: String, msg: String },
    /// The dtype needs a feature this device's adapter lacks (f64 without
    /// SHADER_F64, i64/u64 without SHADER_INT64, c64 without SHADER_F64, the
    /// 8-bit floats and 4-bit integers on a GPU).
    #[error("{op}: dtype {dtype} is not supported on {device} ({adapter})")]
    UnsupportedDTypeOnDevice {
        op: String,
        dtype: DType,
        device: Device,
        adapter: String,
    },
    /// Reading or writing a file failed (`kind` `NotFound`, `PermissionDenied`,
    /// ...), or its contents are not a valid file of the format (`kind`
    /// `InvalidData`: truncated, corrupt, unknown descriptor, size mismatch, a
    /// dtype rnx or the format lacks). Names the file.
    #[error("{op}: {path}: {msg}")]
    Io {
        op: String,
        path: String,
        kind: std::io::ErrorKind,
        msg: String,
    },
}

impl Error {
    /// Shorthand for [`Error::InvalidArgument`].
    pub fn invalid(op: &str, msg: impl Into<String>) -> Error {
        Error::InvalidArgument {
            op: op.to_string(),
            msg: msg.into(),
        }
    }
    /// Shorthand for [`Error::ShapeMismatch`].
    pub fn shapes(op: &str, lhs: &[usize], rhs: &[usize], why: impl Into<String>) -> Error {
        Error::ShapeMismatch {
            op: op.to_string(),
            lhs: lhs.to_vec(),
            rhs: rhs.to_vec(),
            why: why.into(),
        }
    }
    /// Shorthand for [`Error::UnsupportedDType`].
    pub fn dtype(op: &str, dtype: DType) -> Error {
        Error::UnsupportedDType {
            op: op.to_string(),
            dtype,
        }
    }
}
