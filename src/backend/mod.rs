//! The Backend trait: the small primitive set every device implements. Ops in
//! `src/ops/` validate arguments, apply dtype and broadcasting rules, decide
//! aliasing and lock storages; a backend receives tensors whose layouts already
//! have the output's shape and never sees user-level rules.
//!
//! The trait is the sum of one trait per family (`core.rs` now; the elementwise,
//! reduction, linear-algebra and sorting families each add their own file), so a
//! device implements them family by family. No method assumes host memory: data
//! crosses the device boundary only through `upload`/`download`.

pub(crate) mod compose;
pub(crate) mod core;
#[doc(hidden)]
pub mod cpu;
pub(crate) mod decomp;
pub mod elementwise;
pub(crate) mod fft;
#[cfg(feature = "gpu")]
#[doc(hidden)]
pub mod gpu;
pub(crate) mod index;
pub(crate) mod linalg;
pub(crate) mod random;
pub(crate) mod reduce;
pub(crate) mod sort;
pub(crate) mod widen;

pub use self::core::CoreBackend;
pub use self::decomp::{DecompBackend, DecompOp};
pub use self::elementwise::{
    BinaryOp, ClassOp, CmpOp, ElementwiseBackend, MathFn, TernaryOp, UnaryOp,
};
pub use self::fft::{DctSpec, FftBackend, FftKind, FftSpec, TrigKind};
pub use self::index::{Checked, IndexBackend, ScatterOp};
pub use self::linalg::LinalgBackend;
pub use self::random::{Draw, RandomBackend};
pub use self::reduce::{ArgOp, NormOp, PoolWindow, ReduceBackend, ReduceOp, ScanOp, SoftmaxOp};
pub use self::sort::SortBackend;

use crate::device::Device;
#[cfg(not(feature = "gpu"))]
use crate::error::Error;
use crate::error::Result;

/// Every primitive a device provides.
pub trait Backend:
    CoreBackend
    + DecompBackend
    + ElementwiseBackend
    + FftBackend
    + IndexBackend
    + LinalgBackend
    + RandomBackend
    + ReduceBackend
    + SortBackend
{
}
impl<
        B: CoreBackend
            + DecompBackend
            + ElementwiseBackend
            + FftBackend
            + IndexBackend
            + LinalgBackend
            + RandomBackend
            + ReduceBackend
            + SortBackend,
    > Backend for B
{
}

/// The backend of `device`, or an error naming `op` when it is not available.
pub fn get(device: Device, op: &str) -> Result<&'static dyn Backend> {
    match device {
        // fp8 tensors compute in f32 through the widening adapter.
        Device::Cpu => Ok(&widen::CPU),
        #[cfg(feature = "gpu")]
        Device::Gpu(i) => Ok(gpu::api(i, op)?),
        #[cfg(not(feature = "gpu"))]
        Device::Gpu(i) => Err(Error::DeviceUnavailable {
            op: op.to_string(),
            msg: format!("gpu:{i}: rnx was not built with the `gpu` feature"),
        }),
    }
}
