//! # rnx — n-dimensional tensors for Rust
//!
//! NumPy-class arrays with the API of the Nx array library and the strict
//! elementwise semantics of the cl-tensor specification, on a multi-threaded
//! SIMD CPU backend and (cargo feature `gpu`) a wgpu GPU backend.
//!
//! ```
//! use rnx::prelude::*;
//! let t = Tensor::create(DType::I32, &[2, 3], &[0, 1, 2, 3, 4, 5])?;
//! assert_eq!(t.to_string(), "[[0, 1, 2],\n [3, 4, 5]]");
//! let x = Tensor::linspace(DType::F32, 0.0, 10.0, 5, true)?;
//! assert_eq!(x.to_vec::<f32>()?, vec![0.0, 2.5, 5.0, 7.5, 10.0]);
//! assert_eq!(t.sum(1, false)?.to_vec_f64()?, vec![3.0, 12.0]);
//! # Ok::<(), rnx::Error>(())
//! ```
//!
//! ## The rules
//! - A [`Tensor`] is a view (shape, signed strides, offset) over shared storage;
//!   `clone()` is O(1) and shares it. Views never copy; copies are explicit.
//! - Tensors in one operation must have the same dtype and device (an error names
//!   both otherwise; convert with [`Tensor::cast`] and [`Tensor::to_device`]);
//!   Rust scalars convert to the tensor's dtype and must be representable there.
//! - Every fallible function returns [`Result`]; messages name the operation and
//!   the values. Nothing panics on user input except the documented operator
//!   sugar (`&a + &b`), which panics with the same message, as `std` indexing does.
//! - Integers wrap at their width; integer division or remainder by zero is an
//!   error; f16/bf16 and the fp8 storage dtypes (f8e4m3, f8e5m2) compute in f32
//!   and round once per result; the 4-bit integers i4/u4 ([`I4`], [`U4`]),
//!   packed two per byte, compute in i32/u32 and keep the low 4 bits of each
//!   result (their memory, strides and itemsize: [`dtype`]).
//! - `RNX_NUM_THREADS` (or [`set_num_threads`]) sets the CPU thread count.
//!
//! ## Conventions
//!
//! One way to say each kind of argument, in every operation:
//!
//! - **Axes** are `isize`; negative values count from the end (`-1` is the
//!   last). A parameter naming a *set* of axes takes `impl Into<`[`Axes`]`>`:
//!   `None` (the operation's default: all axes for reductions, the last axis for
//!   softmax, reversed order for `transpose`), [`Axes::all()`], one axis (`1`),
//!   or a list (`[0, 1]`, `&[0, 1]`, `&v`, `v` for a `Vec<isize>`). A parameter
//!   naming *one optional* axis takes `impl Into<Option<isize>>`: `1`, `Some(1)`
//!   or `None`, which means the flattened tensor (`argmax`, `cumsum`, `roll`,
//!   `repeat`, `concatenate`, as Nx).
//! - **Shapes** are `&[usize]` everywhere, except in `reshape`, `expand` and
//!   `unflatten`, which infer a `-1` entry and take `impl Into<`[`NewShape`]`>`
//!   (`[3, -1]`, `other.shape()`, a `Vec`).
//! - **Scalars and tensors** are interchangeable operands: every elementwise
//!   argument is `impl Into<`[`Operand`]`>`, so `x.add(&y)`, `x.add(2)`,
//!   `x.clamp(0, &hi)` all work; a scalar converts to the tensor's dtype and
//!   must be representable there (`x.add(2.5)` on i32 is an error).
//! - **Options** that Nx passes as optional arguments are a `struct` with
//!   `Default` ([`Conv1dOptions`], [`Conv2dOptions`], [`SoftmaxOptions`]):
//!   `Conv1dOptions { stride: 2, ..Default::default() }`. The plain method
//!   (`softmax`) is the one with default options; `_with` takes the struct.
//! - **Writes**: each elementwise op comes allocating (`add`), in place
//!   (`add_`, writes into `self` and returns it) and into an output (`add_out`,
//!   which must have exactly the result's shape and dtype; any strides without
//!   self-overlap). Inputs behave as if read completely before the output is
//!   written, also when they overlap it.
//! - **Indexing** uses Nx's spec: [`Index`] (`I` select, `L` list, `R` range,
//!   `N` new axis) built most easily with [`s!`]: `s![1, .., 0..4;2, NewAxis]`.
//! - **Reading values** without naming the Rust type: [`Tensor::to_vec_f64`],
//!   [`Tensor::item_f64`], [`Tensor::item_i64`]; typed: `to_vec::<T>()`,
//!   `item::<T>()`.
//!
//! ```
//! use rnx::prelude::*;
//! let x = Tensor::arange(DType::F32, 0, 6, 1)?.reshape([2, -1])?;
//! assert_eq!(x.sum(None, false)?.item_f64()?, 15.0);   // default axes: all
//! assert_eq!(x.sum(-1, false)?.to_vec_f64()?, vec![3.0, 12.0]);
//! assert_eq!(x.transpose([1, 0])?.shape(), &[3, 2]);
//! assert_eq!(x.clamp(1, 4)?.to_vec_f64()?, vec![1., 1., 2., 3., 4., 4.]);
//! let y = x.mul(2)?;           // allocating
//! y.add_(&x)?;                 // in place: y = 3x
//! let out = x.zeros_like()?;
//! x.add_out(1, &out)?;         // into an output
//! assert_eq!(y.to_vec_f64()?, vec![0., 3., 6., 9., 12., 15.]);
//! assert_eq!(out.slice(s![NewAxis, 1, ..])?.shape(), &[1, 3]);
//! # Ok::<(), rnx::Error>(())
//! ```
//!
//! ## Where things live
//!
//! Every operation is a method of [`Tensor`]; the modules group them by family
//! (each module's page lists its rules):
//!
//! | family | module |
//! |---|---|
//! | creation: `zeros`, `full`, `arange`, `linspace`, `eye`, `meshgrid`, ... | [`ops::creation`] |
//! | random (`rand`, `randn`, `randint`, Threefry) | [`random`] |
//! | keyed random: [`Key`], `split`, `fold_in`, `uniform`, `normal`, `gamma`, ... | [`ops::rng`] |
//! | views: `reshape`, `transpose`, `expand`, `squeeze`, `flip`, ... | [`ops::shape`] |
//! | copies: `concatenate`, `stack`, `pad`, `tile`, `repeat`, `roll`, splits | [`ops::join`] |
//! | indexing: `slice`, `set_slice`, `s!`, `blit`, `fill` | [`ops::index`] |
//! | integer-tensor indexing: `take`, `take_along_axis`, `put`, `index_put`, `scatter` | [`ops::take`] |
//! | masks: `nonzero`, `argwhere`, `extract`, `compress`, `set_mask` | [`ops::mask`] |
//! | `one_hot`, `count_nonzero`, `searchsorted`, `bincount`, `unique` | [`ops::search`] |
//! | arithmetic, `clamp`, `lerp`; the generic `unary`/`binary` | [`ops::elementwise`] |
//! | math functions (`exp`, `sin`, `erf`, ...) and activations | [`ops::math`], [`ops::activation`] |
//! | complex parts and construction: `real`, `imag`, `angle`, `complex`, `polar` | [`ops::complex`] |
//! | comparisons, logic, `where_cond`/`select` | [`ops::compare`], [`ops::logic`], [`ops::select`] |
//! | reductions, `argmax`, `cumsum`; softmax family; sorting | [`ops::reduce`], [`ops::softmax`], [`ops::sort`] |
//! | `matmul`, `dot`; convolution and correlation | [`ops::linalg`], [`ops::conv`] |
//! | products: `tensordot`, `einsum`, `kron`, `multi_dot`, ...; `diagonal`, `trace`, `tril`, ... | [`ops::products`], [`ops::einsum`], [`ops::diag`] |
//! | Fourier transforms (`fft`, `rfft`, `fftn`, ...), `fftfreq`, `fftshift` | [`ops::fft`] |
//! | `dct`, `idct`, `dst`, `idst`, `dctn`, ... | [`ops::dct`] |
//! | `correlate`, `convolve` (1-D, modes full / same / valid) | [`ops::signal`] |
//! | decompositions (`cholesky`, `qr`, `svd`, `eigh`, `eig`); `solve`, `inv`, `det`, `lstsq`, ...; `norm`, `cond` | [`ops::decomp`], [`ops::solve`], [`ops::norm`] |
//! | `cast`, `contiguous`, `to_device` | [`ops::convert`] |
//! | `extract_patches`, `combine_patches`; max/min/avg pooling; `uniform_filter`, `maximum_filter`, `minimum_filter` | [`ops::patches`], [`ops::pool`], [`ops::filters`] |
//! | operators (`&a + &b`, panicking sugar) | [`ops::operators`] |
//! | dtypes, scalars, devices, errors | [`dtype`], [`device`], [`error`] |
//! | files: `.npy` (also memory-mapped), `.npz`, `.safetensors` (zero-copy), text; PNG/JPEG images (feature `image`) | [`io`] |
//! | layouts and storage (foreign-memory views), the [`backend::Backend`] trait for backend writers | [`layout`], [`storage`], [`backend`] |
//!
//! Most programs need only `use rnx::prelude::*;`.

pub mod axes;
pub mod backend;
pub(crate) mod buffer_cache;
pub mod device;
pub mod dims;
pub mod dtype;
pub(crate) mod env;
pub mod error;
pub mod ext;
pub(crate) mod format;
pub(crate) mod huge_pages;
#[cfg(feature = "internal-tests")]
#[doc(hidden)]
pub mod internal_tests;
#[cfg(feature = "ndarray")]
pub mod interop;
pub mod io;
pub mod layout;
pub mod ops;
#[doc(hidden)]
pub mod overlap;
pub mod random;
pub mod storage;
pub mod tensor;

pub use axes::{Axes, NewShape};
pub use backend::elementwise::CmpOp;
pub use device::{
    gpu_binding_window, gpu_devices, num_threads, set_gpu_binding_window, set_num_threads,
    synchronize, Device, GpuInfo,
};
pub use dims::Dims;
pub use dtype::{DType, Element, Scalar, C32, C64};
pub use dtype::{F8E4M3, F8E5M2, I4, U4};
pub use error::{Error, Result};
#[cfg(feature = "image")]
pub use io::{load_image, save_image, save_image_with, ImageOptions};
pub use io::{load_npy, load_npy_mmap, load_txt, save_npy, save_txt, TxtOptions};
#[cfg(feature = "npz")]
pub use io::{load_npz, load_npz_entry, save_npz, save_npz_compressed};
#[cfg(feature = "safetensors")]
pub use io::{
    load_safetensors, load_safetensors_metadata, load_safetensors_tensor, save_safetensors,
};
pub use layout::Layout;
pub use ops::conv::{Conv1dOptions, Conv2dOptions, Padding};
pub use ops::creation::Indexing;
pub use ops::dct::{DctOptions, DctnOptions};
pub use ops::decomp::{CholeskyOptions, EighOptions, QrMode, QrOptions, SvdOptions};
pub use ops::diag::DiagonalOptions;
pub use ops::fft::{FftOptions, FftnOptions, Norm};
pub use ops::filters::{BoundaryMode, FilterOptions};
pub use ops::histogram::{Bins, HistogramOptions};
pub use ops::index::{Index, NewAxis};
pub use ops::join::Sections;
pub use ops::norm::{NormOptions, NormOrd};
pub use ops::norm_layers::LayerNormOptions;
pub use ops::operators::OperatorScalar;
pub use ops::patches::PatchOptions;
pub use ops::pool::PoolOptions;
pub use ops::products::TensordotAxes;
pub use ops::rng::Key;
pub use ops::scan::ScanOptions;
pub use ops::search::{
    BincountOptions, OneHotOptions, SearchSortedOptions, Side, Unique, UniqueOptions,
};
pub use ops::signal::{ConvMethod, SignalMode, SignalOptions};
pub use ops::softmax::SoftmaxOptions;
pub use ops::solve::{Lstsq, PinvOptions, Trans, TriangularSolveOptions};
pub use ops::stats::{IsCloseOptions, QuantileMethod, QuantileOptions, StandardizeOptions};
pub use ops::take::{IndexMode, IndexPutOptions, ScatterMode, ScatterOptions, TakeOptions};
pub use ops::Operand;
pub use tensor::{SliceRef, Tensor};

#[doc(hidden)]
pub use half;
pub use half::{bf16, f16};
pub use num_complex::Complex;

/// The names most programs need: `use rnx::prelude::*;`.
pub mod prelude {
    pub use crate::{
        bf16, f16, s, Axes, CmpOp, Complex, Conv1dOptions, Conv2dOptions, DType, Device, Error,
        Index, Indexing, Key, NewAxis, NewShape, Operand, Padding, Result, Scalar, Sections,
        SoftmaxOptions, Tensor, C32, C64,
    };
    pub use crate::{DiagonalOptions, TensordotAxes};
    pub use crate::{NormOptions, NormOrd};
}
