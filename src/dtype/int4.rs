//! The two 4-bit integer storage types, `I4` (-8..=7) and `U4` (0..=15): the
//! Rust element types (one value per byte, in the low nibble, as `ml_dtypes`
//! holds them) and the packing rule of their tensors (two values per byte).
//! Only the scalar types, their `Element` casts and the byte-level packing
//! live here; the strided data movement over packed memory is
//! `crate::backend::cpu::packed`, and computation goes through
//! `crate::backend::widen`.
//!
//! # Packing
//! A tensor of `i4` or `u4` stores element `n` of its buffer in byte `n / 2`:
//! an even `n` in the low nibble (bits 0-3), an odd `n` in the high nibble
//! (bits 4-7): the first element is the low nibble, as in ONNX's
//! `INT4`/`UINT4` tensors (onnxruntime's `Int4x2`), TensorFlow Lite's dense
//! int4 buffers and Keras' `pack_int4`. (`ml_dtypes` arrays are not packed:
//! one value per byte, which is the form of [`I4`]/[`U4`] and of `.npy`
//! files; the `safetensors` format has no 4-bit integers.) A buffer of `len`
//! elements takes
//! `len.div_ceil(2)` bytes; the unused high nibble of an odd-length buffer
//! is zero.

use super::{DType, Element, Scalar};
use std::cmp::Ordering;
use std::fmt;
use std::hash::{Hash, Hasher};

/// A 4-bit signed integer (dtype `i4`, Nx's `{:s, 4}`, `ml_dtypes.int4`),
/// -8 ..= 7, two's complement.
///
/// In memory the value is one byte whose low nibble holds the two's
/// complement bits (what `ml_dtypes.int4` stores: -1 is `0x0f`); the high
/// nibble is ignored on reading, so every byte is some `I4`. Tensors of
/// dtype `i4` pack two values per byte (see [`crate::dtype`]); `to_vec::<I4>`
/// and `from_vec` convert at that boundary.
///
/// ```
/// use rnx::I4;
/// assert_eq!(I4::new(-3).unwrap().get(), -3);
/// assert!(I4::new(8).is_none());
/// assert_eq!(I4::wrapping(9).get(), -7); // the low 4 bits: 9 = 0b1001
/// assert_eq!(I4::saturating(100).get(), 7);
/// assert_eq!(I4::new(-1).unwrap().to_bits(), 0x0f);
/// ```
#[repr(transparent)]
#[derive(Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct I4(u8);

/// A 4-bit unsigned integer (dtype `u4`, Nx's `{:u, 4}`, `ml_dtypes.uint4`),
/// 0 ..= 15.
///
/// In memory one byte whose low nibble is the value (the high nibble is
/// ignored on reading). Tensors of dtype `u4` pack two values per byte.
///
/// ```
/// use rnx::U4;
/// assert_eq!(U4::new(15).unwrap().get(), 15);
/// assert!(U4::new(16).is_none());
/// assert_eq!(U4::wrapping(-1).get(), 15);
/// assert_eq!(U4::saturating(-5).get(), 0);
/// ```
#[repr(transparent)]
#[derive(Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct U4(u8);

impl I4 {
    /// -8.
    pub const MIN: I4 = I4(0x8);
    /// 7.
    pub const MAX: I4 = I4(0x7);
    /// 0.
    pub const ZERO: I4 = I4(0);
    /// 1.
    pub const ONE: I4 = I4(1);
    /// Bits per value.
    pub const BITS: u32 = 4;

    /// `v` if it lies in -8 ..= 7.
    pub const fn new(v: i8) -> Option<I4> {
        if v >= -8 && v <= 7 {
            Some(I4(v as u8 & 0xf))
        } else {
            None
        }
    }
    /// The low 4 bits of `v`, two's complement (Rust `as` to 4 bits).
    pub const fn wrapping(v: i64) -> I4 {
        I4(v as u8 & 0xf)
    }
    /// `v` clamped to -8 ..= 7.
    pub const fn saturating(v: i64) -> I4 {
        I4::wrapping(if v < -8 {
            -8
        } else if v > 7 {
            7
        } else {
            v
        })
    }
    /// The value of the low nibble of `bits` (two's complement).
    pub const fn from_bits(bits: u8) -> I4 {
        I4(bits & 0xf)
    }
    /// The 4 bits of the value, 0 ..= 15 (-1 gives `0x0f`).
    pub const fn to_bits(self) -> u8 {
        self.0 & 0xf
    }
    /// The value.
    pub const fn get(self) -> i8 {
        ((self.0 << 4) as i8) >> 4
    }
}

impl U4 {
    /// 0.
    pub const MIN: U4 = U4(0);
    /// 15.
    pub const MAX: U4 = U4(0xf);
    /// 0.
    pub const ZERO: U4 = U4(0);
    /// 1.
    pub const ONE: U4 = U4(1);
    /// Bits per value.
    pub const BITS: u32 = 4;

    /// `v` if it lies in 0 ..= 15.
    pub const fn new(v: u8) -> Option<U4> {
        if v <= 15 {
            Some(U4(v))
        } else {
            None
        }
    }
    /// The low 4 bits of `v` (Rust `as` to 4 bits: -1 gives 15).
    pub const fn wrapping(v: i64) -> U4 {
        U4(v as u8 & 0xf)
    }
    /// `v` clamped to 0 ..= 15.
    pub const fn saturating(v: i64) -> U4 {
        U4::wrapping(if v < 0 {
            0
        } else if v > 15 {
            15
        } else {
            v
        })
    }
    /// The value of the low nibble of `bits`.
    pub const fn from_bits(bits: u8) -> U4 {
        U4(bits & 0xf)
    }
    /// The 4 bits of the value (the value itself).
    pub const fn to_bits(self) -> u8 {
        self.0 & 0xf
    }
    /// The value.
    pub const fn get(self) -> u8 {
        self.0 & 0xf
    }
}

macro_rules! nibble_traits {
    ($t:ident, $v:ty) => {
        impl PartialEq for $t {
            fn eq(&self, other: &$t) -> bool {
                self.get() == other.get()
            }
        }
        impl Eq for $t {}
        impl PartialOrd for $t {
            fn partial_cmp(&self, other: &$t) -> Option<Ordering> {
                Some(self.cmp(other))
            }
        }
        impl Ord for $t {
            fn cmp(&self, other: &$t) -> Ordering {
                self.get().cmp(&other.get())
            }
        }
        impl Hash for $t {
            fn hash<H: Hasher>(&self, state: &mut H) {
                self.get().hash(state)
            }
        }
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.get(), f)
            }
        }
        impl fmt::Debug for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.get(), f)
            }
        }
        impl fmt::LowerExp for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::LowerExp::fmt(&self.get(), f)
            }
        }
        impl From<$t> for $v {
            fn from(x: $t) -> $v {
                x.get()
            }
        }
        impl From<$t> for i32 {
            fn from(x: $t) -> i32 {
                x.get() as i32
            }
        }
        impl From<$t> for i64 {
            fn from(x: $t) -> i64 {
                x.get() as i64
            }
        }
        impl From<$t> for f32 {
            fn from(x: $t) -> f32 {
                x.get() as f32
            }
        }
        impl From<$t> for f64 {
            fn from(x: $t) -> f64 {
                x.get() as f64
            }
        }
    };
}
nibble_traits!(I4, i8);
nibble_traits!(U4, u8);

// The element casts at width 4 (see `Element`): integers keep the low 4
// bits, floats truncate and saturate (NaN -> 0).
macro_rules! impl_int4 {
    ($t:ident, $d:ident) => {
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
                $t::ZERO
            }
            fn one() -> Self {
                $t::ONE
            }
            #[inline]
            fn to_f64(self) -> f64 {
                self.get() as f64
            }
            /// Truncates toward zero and saturates; NaN gives 0.
            #[inline]
            fn from_f64(v: f64) -> Self {
                // `as i64` truncates, saturates and maps NaN to 0.
                $t::saturating(v as i64)
            }
            /// The low 4 bits (two's complement for `I4`).
            #[inline]
            fn from_i128_wrapping(v: i128) -> Self {
                $t::wrapping(v as i64)
            }
            #[inline]
            fn to_i128(self) -> Option<i128> {
                Some(self.get() as i128)
            }
            #[inline]
            fn from_i128_saturating(v: i128) -> Self {
                $t::saturating(v.clamp(-16, 16) as i64)
            }
        }
    };
}
impl_int4!(I4, I4);
impl_int4!(U4, U4);

/// Bytes that a packed buffer of `len` 4-bit elements takes.
pub(crate) const fn packed_len(len: usize) -> usize {
    len.div_ceil(2)
}

/// Pack `src` (one element per byte, the value in the low nibble) into `dst`
/// (two per byte, element `2k` in the low nibble of byte `k`); a trailing odd
/// element leaves the high nibble of the last byte zero.
pub(crate) fn pack(src: &[u8], dst: &mut [u8]) {
    debug_assert_eq!(dst.len(), packed_len(src.len()));
    let mut pairs = src.chunks_exact(2);
    for (d, p) in dst.iter_mut().zip(&mut pairs) {
        *d = (p[0] & 0xf) | (p[1] << 4);
    }
    if let [last] = pairs.remainder() {
        dst[src.len() / 2] = last & 0xf;
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn values_and_bits() {
        for b in 0u8..=255 {
            let i = I4::from_bits(b);
            let want = if b & 0xf >= 8 {
                (b & 0xf) as i8 - 16
            } else {
                (b & 0xf) as i8
            };
            assert_eq!(i.get(), want);
            assert_eq!(i.to_bits(), b & 0xf);
            assert_eq!(U4::from_bits(b).get(), b & 0xf);
            // A byte with the high nibble set reads as its low nibble.
            assert_eq!(bytemuck::cast::<u8, I4>(b), i);
        }
        for v in -8i8..=7 {
            assert_eq!(I4::new(v).unwrap().get(), v);
            assert_eq!(I4::wrapping(v as i64 + 16).get(), v);
        }
        assert_eq!(I4::saturating(-100), I4::MIN);
        assert_eq!(U4::saturating(100), U4::MAX);
    }

    pub(crate) fn pack_order() {
        let mut d = [0u8; 2];
        pack(&[1, 2, 0xff], &mut d);
        assert_eq!(d, [0x21, 0x0f]);
        assert_eq!(packed_len(0), 0);
        assert_eq!(packed_len(3), 2);
    }
}
