//! Element types: the `DType` enum, the `Element` trait that ties a Rust type to its
//! dtype, the typed `Scalar` value, and the one dispatch macro every dtype-generic
//! path goes through. No tensor or device code lives here.
//!
//! # The 4-bit integers `i4` and `u4`
//!
//! [`DType::I4`] (-8..=7) and [`DType::U4`] (0..=15) are Nx's `{:s, 4}` and
//! `{:u, 4}`, `ml_dtypes.int4`/`uint4`. They are storage dtypes:
//!
//! - **Memory**: packed two per byte, so a 4-bit tensor takes half the bytes
//!   of an 8-bit one ([`DType::buffer_bytes`]). Element `n` of a buffer is in
//!   byte `n / 2`, an even `n` in the low nibble (bits 0-3) and an odd `n` in
//!   the high nibble: the order of ONNX INT4/UINT4, TensorFlow Lite and
//!   Keras' `pack_int4`. Views keep element strides and offsets,
//!   so any offset and stride works (odd offsets, negative strides,
//!   transposes, broadcasts); only the CPU backend's data movement
//!   (`backend/cpu/packed.rs`) addresses the nibbles.
//! - **Writes**: writing an element rewrites its byte keeping the other
//!   nibble, so a write never changes a neighbour. Every operation that
//!   writes a storage holds that storage's exclusive lock, so two threads
//!   writing two views that share bytes (`t[0::2]` and `t[1::2]`) take turns
//!   and no update is lost; within one operation, the work is split over
//!   threads only at byte boundaries of a contiguous destination that shares
//!   no byte with a source.
//! - **Rust types**: [`I4`] and [`U4`], one value per byte with the 4 bits in
//!   the low nibble (as `ml_dtypes` holds them). `to_vec::<I4>`, `from_vec`,
//!   `item` and `create` convert at the boundary; `as_slice` is an error
//!   (there is no slice of `I4`s in packed memory).
//! - **Sizes**: [`DType::bits`] is 4. [`DType::itemsize`] is 1, the size of
//!   one element on its own (the Rust type, `to_vec`, `.npy`, NumPy's
//!   itemsize for `ml_dtypes.int4`); so `Tensor::nbytes` (`size * itemsize`)
//!   and `Tensor::strides` (element strides times itemsize) describe that
//!   one-byte-per-element form, which for strides means they equal the
//!   element strides. In memory a stride of `s` elements is `s * 4` bits.
//! - **Casts**: the integer rules at width 4: integer -> i4/u4 keeps the low 4
//!   bits (Rust `as`: 300 is -4 as i4, -1 is 15 as u4), float -> i4/u4
//!   truncates and saturates (NaN -> 0), i4/u4 -> any dtype is exact (but
//!   f8e5m2, which rounds 9, 11, 13 and 15). [`crate::Tensor::bitcast`]
//!   reads bytes as i4/u4 by their low nibble.
//! - **Computation**: every computing operation given an i4 (u4) tensor runs
//!   in i32 (u32) and writes each result back once with the 4-bit wrap (the
//!   low 4 bits), as integers wrap at their width (`backend::widen`: no
//!   kernel is compiled for 4 bits). For `+ - *`, sums, products, matrix
//!   products, bitwise operations and division this is exactly 4-bit
//!   arithmetic; shifts behave as the 32-bit shifts wrapped (by 4 or more,
//!   0 or the sign's truncation).
//! - **Devices and files**: CPU only (a GPU gives
//!   [`Error::UnsupportedDTypeOnDevice`](crate::Error::UnsupportedDTypeOnDevice)). `.npy`/`.npz` hold them as
//!   `ml_dtypes` does (one per byte, descriptor `<V1`); `.safetensors` has no
//!   4-bit integer dtype (an error on save).
//!
//! ```
//! use rnx::{s, DType, Tensor, I4};
//! let t = Tensor::create(DType::I4, &[2, 3], &[-8, -1, 0, 1, 6, 7])?;
//! assert_eq!(t.add(3)?.to_string(), "[[-5, 2, 3],\n [4, -7, -6]]"); // wraps
//! let col = t.slice(s![.., 1])?;   // stride 3 elements: 1.5 bytes
//! col.fill(5)?;                    // neighbours untouched
//! assert_eq!(t.to_vec::<I4>()?.iter().map(|v| v.get()).collect::<Vec<_>>(), vec![-8, 5, 0, 1, 5, 7]);
//! // 64 + 25 + 0 = 89 and 1 + 25 + 49 = 75 keep their low 4 bits: -7, -5.
//! assert_eq!(t.matmul(&t.transpose(None)?)?.to_string(), "[[-7, 1],\n [1, -5]]");
//! # Ok::<(), rnx::Error>(())
//! ```

use half::{bf16, f16};
use num_complex::Complex;
use std::fmt;

mod fp8;
pub(crate) mod half_bits;
pub(crate) mod int4;
pub(crate) mod round;
mod scalar;

pub use fp8::{F8E4M3, F8E5M2};
pub use int4::{I4, U4};
pub use scalar::Scalar;

/// Complex number of two `f32` (dtype `c32`).
pub type C32 = Complex<f32>;
/// Complex number of two `f64` (dtype `c64`).
pub type C64 = Complex<f64>;

/// The eighteen element types of rnx.
///
/// ```
/// use rnx::DType;
/// assert_eq!(DType::F32.itemsize(), 4);
/// assert!(DType::C64.is_complex());
/// assert_eq!(DType::U8.to_string(), "u8");
/// assert_eq!((DType::I4.bits(), DType::I4.itemsize()), (4, 1));
/// assert_eq!(DType::I4.buffer_bytes(5), Some(3)); // packed two per byte
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum DType {
    F16,
    BF16,
    F32,
    F64,
    C32,
    C64,
    I8,
    I16,
    I32,
    I64,
    U8,
    U16,
    U32,
    U64,
    /// 8-bit float E4M3FN (storage; computes in f32). See [`F8E4M3`].
    F8E4M3,
    /// 8-bit float E5M2 (storage; computes in f32). See [`F8E5M2`].
    F8E5M2,
    /// 4-bit signed integer, -8..=7 (storage, packed two per byte; computes
    /// in i32). See [`I4`] and the [module](crate::dtype) page.
    I4,
    /// 4-bit unsigned integer, 0..=15 (storage, packed two per byte;
    /// computes in u32). See [`U4`] and the [module](crate::dtype) page.
    U4,
}

impl DType {
    /// Every dtype, in declaration order.
    pub const ALL: [DType; 18] = [
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
        DType::C32,
        DType::C64,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
        DType::U8,
        DType::U16,
        DType::U32,
        DType::U64,
        DType::F8E4M3,
        DType::F8E5M2,
        DType::I4,
        DType::U4,
    ];

    /// Bytes per element: the size of the Rust element type, and what one
    /// element takes on its own (in `to_vec`, `from_vec`, `.npy` files). For
    /// the 4-bit dtypes this is 1 (as NumPy's `ml_dtypes.int4` reports), while
    /// their tensors pack two elements per byte: see [`DType::bits`] and
    /// [`DType::buffer_bytes`].
    pub fn itemsize(self) -> usize {
        match self {
            DType::I8 | DType::U8 | DType::F8E4M3 | DType::F8E5M2 => 1,
            DType::I4 | DType::U4 => 1,
            DType::F16 | DType::BF16 | DType::I16 | DType::U16 => 2,
            DType::F32 | DType::I32 | DType::U32 => 4,
            DType::F64 | DType::I64 | DType::U64 | DType::C32 => 8,
            DType::C64 => 16,
        }
    }
    /// Bits one element takes in a tensor's memory: 4 for `i4`/`u4`, else
    /// `8 * itemsize`.
    pub fn bits(self) -> usize {
        if self.is_int4() {
            4
        } else {
            8 * self.itemsize()
        }
    }
    /// Bytes of device memory that a buffer of `len` elements takes:
    /// `len * itemsize`, or `len.div_ceil(2)` for the packed 4-bit dtypes;
    /// `None` when that overflows `usize`.
    pub fn buffer_bytes(self, len: usize) -> Option<usize> {
        if self.is_int4() {
            Some(int4::packed_len(len))
        } else {
            len.checked_mul(self.itemsize())
        }
    }
    /// The 4-bit integer storage types (i4, u4): packed two per byte in a
    /// tensor's memory; every computation on them converts the operands to
    /// i32 (i4) or u32 (u4), runs that operation and writes each result back
    /// once, keeping its low 4 bits (integers wrap at their width).
    pub fn is_int4(self) -> bool {
        matches!(self, DType::I4 | DType::U4)
    }
    /// The range of an integer dtype as `(min, max)`; `None` for the others.
    pub fn int_range(self) -> Option<(i128, i128)> {
        Some(match self {
            DType::I4 => (-8, 7),
            DType::U4 => (0, 15),
            DType::I8 => (i8::MIN as i128, i8::MAX as i128),
            DType::I16 => (i16::MIN as i128, i16::MAX as i128),
            DType::I32 => (i32::MIN as i128, i32::MAX as i128),
            DType::I64 => (i64::MIN as i128, i64::MAX as i128),
            DType::U8 => (0, u8::MAX as i128),
            DType::U16 => (0, u16::MAX as i128),
            DType::U32 => (0, u32::MAX as i128),
            DType::U64 => (0, u64::MAX as i128),
            _ => return None,
        })
    }
    /// Real floating point (f16, bf16, f32, f64, f8e4m3, f8e5m2).
    pub fn is_float(self) -> bool {
        matches!(
            self,
            DType::F16 | DType::BF16 | DType::F32 | DType::F64 | DType::F8E4M3 | DType::F8E5M2
        )
    }
    /// The 8-bit float storage types (f8e4m3, f8e5m2): every computation on them
    /// converts the operands to f32, runs the f32 operation, and rounds each
    /// result once into the 8-bit output.
    pub fn is_fp8(self) -> bool {
        matches!(self, DType::F8E4M3 | DType::F8E5M2)
    }
    /// Complex (c32, c64).
    pub fn is_complex(self) -> bool {
        matches!(self, DType::C32 | DType::C64)
    }
    /// Signed or unsigned integer.
    pub fn is_int(self) -> bool {
        self.is_signed_int() || self.is_unsigned_int()
    }
    /// Signed integer (i4, i8, i16, i32, i64).
    pub fn is_signed_int(self) -> bool {
        matches!(
            self,
            DType::I4 | DType::I8 | DType::I16 | DType::I32 | DType::I64
        )
    }
    /// Unsigned integer (u4, u8, u16, u32, u64).
    pub fn is_unsigned_int(self) -> bool {
        matches!(
            self,
            DType::U4 | DType::U8 | DType::U16 | DType::U32 | DType::U64
        )
    }
    /// The half-precision storage types (f16, bf16), computed in f32.
    pub fn is_half(self) -> bool {
        matches!(self, DType::F16 | DType::BF16)
    }
    /// The real dtype of a complex dtype (c32 -> f32, c64 -> f64); itself otherwise.
    pub fn real(self) -> DType {
        match self {
            DType::C32 => DType::F32,
            DType::C64 => DType::F64,
            d => d,
        }
    }
    /// Lower-case name, as printed (`f32`, `c64`, `u8`).
    pub fn name(self) -> &'static str {
        match self {
            DType::F16 => "f16",
            DType::BF16 => "bf16",
            DType::F32 => "f32",
            DType::F64 => "f64",
            DType::C32 => "c32",
            DType::C64 => "c64",
            DType::I8 => "i8",
            DType::I16 => "i16",
            DType::I32 => "i32",
            DType::I64 => "i64",
            DType::U8 => "u8",
            DType::U16 => "u16",
            DType::U32 => "u32",
            DType::U64 => "u64",
            DType::F8E4M3 => "f8e4m3",
            DType::F8E5M2 => "f8e5m2",
            DType::I4 => "i4",
            DType::U4 => "u4",
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// Runs `$body` with `$T` bound to the Rust type of `$dtype`.
///
/// `dispatch!(dtype, T => body)` covers all 18 dtypes, binding [`I4`]/[`U4`]
/// for the 4-bit ones: for code that goes through [`Element`] values only
/// (creation from Rust values, `to_vec`, printing), never for code that
/// addresses a tensor's memory as `T`s, since 4-bit tensors are packed two
/// per byte. The subset forms return `Err(Error::UnsupportedDType)` named
/// with `$op` for the dtypes they leave out: `@bytes` (all but i4/u4: the
/// strided copy and cast loops over typed memory), `@compute` (all but the
/// fp8 and 4-bit storage types: the compute kernels, which never see those
/// because `backend::widen` converts them to f32/i32/u32 first), `@real`
/// (floats and integers but fp8 and 4-bit), `@float` (f16, bf16, f32, f64),
/// `@int` (the 8- to 64-bit integers), `@signed` (the signed ones: kernels
/// whose result bits do not depend on the sign, reached for unsigned tensors
/// through their signed twin), `@complex`:
/// `dispatch!(@float dtype, "sqrt", T => body)`.
#[macro_export]
#[doc(hidden)]
macro_rules! dispatch {
    ($dt:expr, $T:ident => $body:expr) => {{
        use $crate::DType as __D;
        match $dt {
            __D::F16 => {
                type $T = $crate::half::f16;
                $body
            }
            __D::BF16 => {
                type $T = $crate::half::bf16;
                $body
            }
            __D::F32 => {
                type $T = f32;
                $body
            }
            __D::F64 => {
                type $T = f64;
                $body
            }
            __D::C32 => {
                type $T = $crate::C32;
                $body
            }
            __D::C64 => {
                type $T = $crate::C64;
                $body
            }
            __D::I8 => {
                type $T = i8;
                $body
            }
            __D::I16 => {
                type $T = i16;
                $body
            }
            __D::I32 => {
                type $T = i32;
                $body
            }
            __D::I64 => {
                type $T = i64;
                $body
            }
            __D::U8 => {
                type $T = u8;
                $body
            }
            __D::U16 => {
                type $T = u16;
                $body
            }
            __D::U32 => {
                type $T = u32;
                $body
            }
            __D::U64 => {
                type $T = u64;
                $body
            }
            __D::F8E4M3 => {
                type $T = $crate::F8E4M3;
                $body
            }
            __D::F8E5M2 => {
                type $T = $crate::F8E5M2;
                $body
            }
            __D::I4 => {
                type $T = $crate::I4;
                $body
            }
            __D::U4 => {
                type $T = $crate::U4;
                $body
            }
        }
    }};
    (@bytes $dt:expr, $op:expr, $T:ident => $body:expr) => {{
        use $crate::DType as __D;
        match $dt {
            __D::F16 => {
                type $T = $crate::half::f16;
                $body
            }
            __D::BF16 => {
                type $T = $crate::half::bf16;
                $body
            }
            __D::F32 => {
                type $T = f32;
                $body
            }
            __D::F64 => {
                type $T = f64;
                $body
            }
            __D::C32 => {
                type $T = $crate::C32;
                $body
            }
            __D::C64 => {
                type $T = $crate::C64;
                $body
            }
            __D::I8 => {
                type $T = i8;
                $body
            }
            __D::I16 => {
                type $T = i16;
                $body
            }
            __D::I32 => {
                type $T = i32;
                $body
            }
            __D::I64 => {
                type $T = i64;
                $body
            }
            __D::U8 => {
                type $T = u8;
                $body
            }
            __D::U16 => {
                type $T = u16;
                $body
            }
            __D::U32 => {
                type $T = u32;
                $body
            }
            __D::U64 => {
                type $T = u64;
                $body
            }
            __D::F8E4M3 => {
                type $T = $crate::F8E4M3;
                $body
            }
            __D::F8E5M2 => {
                type $T = $crate::F8E5M2;
                $body
            }
            d => {
                return Err($crate::Error::UnsupportedDType {
                    op: $op.into(),
                    dtype: d,
                })
            }
        }
    }};
    (@compute $dt:expr, $op:expr, $T:ident => $body:expr) => {{
        let __dt: $crate::DType = $dt;
        if __dt.is_complex() {
            $crate::dispatch!(@complex __dt, $op, $T => $body)
        } else {
            $crate::dispatch!(@real __dt, $op, $T => $body)
        }
    }};
    (@real $dt:expr, $op:expr, $T:ident => $body:expr) => {{
        use $crate::DType as __D;
        match $dt {
            __D::F16 => {
                type $T = $crate::half::f16;
                $body
            }
            __D::BF16 => {
                type $T = $crate::half::bf16;
                $body
            }
            __D::F32 => {
                type $T = f32;
                $body
            }
            __D::F64 => {
                type $T = f64;
                $body
            }
            __D::I8 => {
                type $T = i8;
                $body
            }
            __D::I16 => {
                type $T = i16;
                $body
            }
            __D::I32 => {
                type $T = i32;
                $body
            }
            __D::I64 => {
                type $T = i64;
                $body
            }
            __D::U8 => {
                type $T = u8;
                $body
            }
            __D::U16 => {
                type $T = u16;
                $body
            }
            __D::U32 => {
                type $T = u32;
                $body
            }
            __D::U64 => {
                type $T = u64;
                $body
            }
            d => {
                return Err($crate::Error::UnsupportedDType {
                    op: $op.into(),
                    dtype: d,
                })
            }
        }
    }};
    (@float $dt:expr, $op:expr, $T:ident => $body:expr) => {{
        use $crate::DType as __D;
        match $dt {
            __D::F16 => {
                type $T = $crate::half::f16;
                $body
            }
            __D::BF16 => {
                type $T = $crate::half::bf16;
                $body
            }
            __D::F32 => {
                type $T = f32;
                $body
            }
            __D::F64 => {
                type $T = f64;
                $body
            }
            d => {
                return Err($crate::Error::UnsupportedDType {
                    op: $op.into(),
                    dtype: d,
                })
            }
        }
    }};
    (@int $dt:expr, $op:expr, $T:ident => $body:expr) => {{
        use $crate::DType as __D;
        match $dt {
            __D::I8 => {
                type $T = i8;
                $body
            }
            __D::I16 => {
                type $T = i16;
                $body
            }
            __D::I32 => {
                type $T = i32;
                $body
            }
            __D::I64 => {
                type $T = i64;
                $body
            }
            __D::U8 => {
                type $T = u8;
                $body
            }
            __D::U16 => {
                type $T = u16;
                $body
            }
            __D::U32 => {
                type $T = u32;
                $body
            }
            __D::U64 => {
                type $T = u64;
                $body
            }
            d => {
                return Err($crate::Error::UnsupportedDType {
                    op: $op.into(),
                    dtype: d,
                })
            }
        }
    }};
    (@signed $dt:expr, $op:expr, $T:ident => $body:expr) => {{
        use $crate::DType as __D;
        match $dt {
            __D::I8 => {
                type $T = i8;
                $body
            }
            __D::I16 => {
                type $T = i16;
                $body
            }
            __D::I32 => {
                type $T = i32;
                $body
            }
            __D::I64 => {
                type $T = i64;
                $body
            }
            d => {
                return Err($crate::Error::UnsupportedDType {
                    op: $op.into(),
                    dtype: d,
                })
            }
        }
    }};
    (@complex $dt:expr, $op:expr, $T:ident => $body:expr) => {{
        use $crate::DType as __D;
        match $dt {
            __D::C32 => {
                type $T = $crate::C32;
                $body
            }
            __D::C64 => {
                type $T = $crate::C64;
                $body
            }
            d => {
                return Err($crate::Error::UnsupportedDType {
                    op: $op.into(),
                    dtype: d,
                })
            }
        }
    }};
}

/// A Rust type that is the element of one dtype.
///
/// The conversions go through [`Scalar`] (exact where the value fits) and through
/// `f64`/`i128` for the generic kernels; `cast_from` is the element cast of
/// [`crate::Tensor::cast`]: integer -> integer wraps (Rust `as`), float -> integer
/// truncates and saturates (NaN -> 0), and every cast to a float dtype rounds once,
/// to nearest even.
pub trait Element:
    Copy + Send + Sync + PartialEq + fmt::Debug + bytemuck::Pod + Default + 'static
{
    /// The dtype of this type.
    const DTYPE: DType;
    /// The value as a typed scalar.
    fn to_scalar(self) -> Scalar;
    /// Read back from a scalar of this dtype (the caller converted it first).
    fn from_scalar_unchecked(s: Scalar) -> Self;
    /// Zero.
    fn zero() -> Self;
    /// One.
    fn one() -> Self;
    /// Real part as f64 (the value itself for real types).
    fn to_f64(self) -> f64;
    /// Imaginary part as f64 (0 for real types).
    fn imag_f64(self) -> f64 {
        0.0
    }
    /// From f64 with the cast rules (truncate toward zero, saturate, NaN -> 0 for
    /// integers; round once to nearest even for floats; imaginary 0 for complex).
    fn from_f64(v: f64) -> Self;
    /// From a complex value (re, im) with the cast rules; real types take `re`.
    fn from_re_im(re: f64, im: f64) -> Self {
        let _ = im;
        Self::from_f64(re)
    }
    /// From an integer value (every integer dtype's values fit in i128) with the
    /// cast rules: integer types keep the low bits, two's complement (Rust `as`);
    /// float types round once to nearest even; complex types take it as the real
    /// part.
    fn from_i128_wrapping(v: i128) -> Self;
    /// From i64 (integers wrap to the width; floats round once to nearest even).
    #[inline]
    fn from_i64_wrapping(v: i64) -> Self {
        Self::from_i128_wrapping(v as i128)
    }
    /// Exactly the value as i128 if an integer type (for exact integer casts).
    fn to_i128(self) -> Option<i128> {
        None
    }
    /// From i128 with saturation (integer types); floats round once.
    fn from_i128_saturating(v: i128) -> Self {
        Self::from_i128_wrapping(v)
    }
    /// The value as an f32 when every value of the type is exactly one (f32,
    /// f16, bf16, the fp8 types); `None` for the other types.
    #[inline]
    fn exact_f32(self) -> Option<f32> {
        None
    }
    /// From f32 with the cast rules: the same value as
    /// [`Element::from_f64`] of `v`, which f16 and bf16 compute from the
    /// f32 directly (one rounding, in bit arithmetic that vectorises).
    #[inline]
    fn from_f32_cast(v: f32) -> Self {
        Self::from_f64(v as f64)
    }
    /// The element cast of `cast`/`astype` from any element type: the types
    /// whose values are all f32s through that f32 ([`Element::exact_f32`],
    /// [`Element::from_f32_cast`]), integers through their exact value
    /// ([`Element::from_i128_wrapping`]), the other floats and complex through
    /// their exact f64 parts ([`Element::from_re_im`]).
    #[inline]
    fn cast_from<S: Element>(s: S) -> Self {
        if let Some(v) = s.exact_f32() {
            return Self::from_f32_cast(v);
        }
        match s.to_i128() {
            Some(i) => Self::from_i128_wrapping(i),
            None => Self::from_re_im(s.to_f64(), s.imag_f64()),
        }
    }
}

macro_rules! impl_float {
    ($t:ty, $d:ident, $to:expr, $from:expr, $from_int:expr) => {
        impl_float!($t, $d, $to, $from, $from_int, |_: $t| None, |v: f32| $from(
            v as f64
        ));
    };
    ($t:ty, $d:ident, $to:expr, $from:expr, $from_int:expr, $exact:expr, $from32:expr) => {
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            fn to_scalar(self) -> Scalar {
                Scalar::$d(self)
            }
            fn from_scalar_unchecked(s: Scalar) -> Self {
                match s {
                    Scalar::$d(v) => v,
                    other => Self::from_f64(other.to_f64()),
                }
            }
            fn zero() -> Self {
                $from(0.0)
            }
            fn one() -> Self {
                $from(1.0)
            }
            #[inline]
            fn to_f64(self) -> f64 {
                $to(self)
            }
            #[inline]
            fn from_f64(v: f64) -> Self {
                $from(v)
            }
            #[inline]
            fn from_i128_wrapping(v: i128) -> Self {
                $from_int(v)
            }
            #[inline]
            fn exact_f32(self) -> Option<f32> {
                $exact(self)
            }
            #[inline]
            fn from_f32_cast(v: f32) -> Self {
                $from32(v)
            }
        }
    };
}
// Rust's `as` rounds once to nearest even from f64 and from any integer. The
// halves round from f64 with `round`'s bit arithmetic, from integers through an
// f64 rounded to odd (neither through f32; `half`'s `from_f64` is not used: it
// drops the f64's low 32 bits first), and from f32 and the types whose values
// are all f32s (`exact_f32`) with `half_bits`' vectorisable rounding.
impl_float!(
    f32,
    F32,
    |x: f32| x as f64,
    |v: f64| v as f32,
    |v: i128| v as f32,
    Some,
    |v: f32| v
);
impl_float!(f64, F64, |x: f64| x, |v: f64| v, |v: i128| v as f64);
impl_float!(
    f16,
    F16,
    |x: f16| half_bits::f16_to_f32(x) as f64,
    |v: f64| f16::from_bits(round::round_f64_bits(v, 10, 5) as u16),
    |v: i128| <f16 as Element>::from_f64(round::i128_to_f64_odd(v)),
    |x: f16| Some(half_bits::f16_to_f32(x)),
    half_bits::f32_to_f16
);
impl_float!(
    F8E4M3,
    F8E4M3,
    |x: F8E4M3| x.to_f64(),
    F8E4M3::from_f64,
    |v: i128| F8E4M3::from_f64(round::i128_to_f64_odd(v)),
    |x: F8E4M3| Some(x.to_f32()),
    |v: f32| F8E4M3::from_f64(v as f64)
);
impl_float!(
    F8E5M2,
    F8E5M2,
    |x: F8E5M2| x.to_f64(),
    F8E5M2::from_f64,
    |v: i128| F8E5M2::from_f64(round::i128_to_f64_odd(v)),
    |x: F8E5M2| Some(x.to_f32()),
    |v: f32| F8E5M2::from_f64(v as f64)
);
impl_float!(
    bf16,
    BF16,
    |x: bf16| half_bits::bf16_to_f32(x) as f64,
    |v: f64| bf16::from_bits(round::round_f64_bits(v, 7, 8) as u16),
    |v: i128| <bf16 as Element>::from_f64(round::i128_to_f64_odd(v)),
    |x: bf16| Some(half_bits::bf16_to_f32(x)),
    half_bits::f32_to_bf16
);

macro_rules! impl_complex {
    ($f:ty, $d:ident) => {
        impl Element for Complex<$f> {
            const DTYPE: DType = DType::$d;
            fn to_scalar(self) -> Scalar {
                Scalar::$d(self)
            }
            fn from_scalar_unchecked(s: Scalar) -> Self {
                match s {
                    Scalar::$d(v) => v,
                    other => {
                        let (re, im) = other.to_re_im();
                        Self::from_re_im(re, im)
                    }
                }
            }
            fn zero() -> Self {
                Complex::new(0.0, 0.0)
            }
            fn one() -> Self {
                Complex::new(1.0, 0.0)
            }
            #[inline]
            fn to_f64(self) -> f64 {
                self.re as f64
            }
            #[inline]
            fn imag_f64(self) -> f64 {
                self.im as f64
            }
            #[inline]
            fn from_f64(v: f64) -> Self {
                Complex::new(v as $f, 0.0)
            }
            #[inline]
            fn from_re_im(re: f64, im: f64) -> Self {
                Complex::new(re as $f, im as $f)
            }
            #[inline]
            fn from_i128_wrapping(v: i128) -> Self {
                Complex::new(v as $f, 0.0)
            }
        }
    };
}
impl_complex!(f32, C32);
impl_complex!(f64, C64);

macro_rules! impl_int {
    ($t:ty, $d:ident) => {
        impl Element for $t {
            const DTYPE: DType = DType::$d;
            fn to_scalar(self) -> Scalar {
                Scalar::$d(self)
            }
            fn from_scalar_unchecked(s: Scalar) -> Self {
                match s {
                    Scalar::$d(v) => v,
                    other => match other.to_i128() {
                        Some(i) => Self::from_i128_saturating(i),
                        None => Self::from_f64(other.to_f64()),
                    },
                }
            }
            fn zero() -> Self {
                0
            }
            fn one() -> Self {
                1
            }
            #[inline]
            fn to_f64(self) -> f64 {
                self as f64
            }
            /// Truncates toward zero and saturates; NaN gives 0 (Rust `as` semantics).
            #[inline]
            fn from_f64(v: f64) -> Self {
                v as $t
            }
            #[inline]
            fn from_i128_wrapping(v: i128) -> Self {
                v as $t
            }
            #[inline]
            fn to_i128(self) -> Option<i128> {
                Some(self as i128)
            }
            #[inline]
            fn from_i128_saturating(v: i128) -> Self {
                v.clamp(<$t>::MIN as i128, <$t>::MAX as i128) as $t
            }
        }
    };
}
impl_int!(i8, I8);
impl_int!(i16, I16);
impl_int!(i32, I32);
impl_int!(i64, I64);
impl_int!(u8, U8);
impl_int!(u16, U16);
impl_int!(u32, U32);
impl_int!(u64, U64);
