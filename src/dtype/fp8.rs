//! The two 8-bit float storage types, `F8E4M3` (OCP E4M3FN) and `F8E5M2`: bit
//! layouts, exact decoding and the one rounding from f64 into them. Only the
//! scalar types live here; tensors of them compute in f32 (see
//! `crate::backend::widen`).

use super::round::round_f64_bits;
use std::cmp::Ordering;
use std::fmt;

/// An 8-bit float in the E4M3FN format (dtype `f8e4m3`): 1 sign, 4 exponent
/// (bias 7) and 3 fraction bits, no infinities, NaN = `0x7f`/`0xff`, largest
/// finite value 448, smallest subnormal 2⁻⁹.
///
/// Conversion from a wider value rounds once to nearest even; a magnitude that
/// rounds past 448 (above 464), an infinity or a NaN gives NaN with the input's
/// sign, as `ml_dtypes.float8_e4m3fn` and PyTorch's `to(torch.float8_e4m3fn)` do.
///
/// ```
/// use rnx::F8E4M3;
/// assert_eq!(F8E4M3::from_f32(2.5).to_f32(), 2.5);
/// assert_eq!(F8E4M3::from_f32(464.0).to_f32(), 448.0); // tie to even
/// assert!(F8E4M3::from_f32(465.0).is_nan()); // no infinity: overflow is NaN
/// assert_eq!(F8E4M3::from_f32(1.0).to_bits(), 0x38);
/// ```
#[repr(transparent)]
#[derive(Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct F8E4M3(pub u8);

/// An 8-bit float in the E5M2 format (dtype `f8e5m2`): 1 sign, 5 exponent
/// (bias 15) and 2 fraction bits, IEEE-like (infinities at `0x7c`/`0xfc`, NaNs
/// above), largest finite value 57344, smallest subnormal 2⁻¹⁶.
///
/// Conversion from a wider value rounds once to nearest even; a magnitude at
/// or past 61440 (the midpoint to the next power of two) gives infinity, as
/// `ml_dtypes.float8_e5m2` and IEEE 754 do.
///
/// ```
/// use rnx::F8E5M2;
/// assert_eq!(F8E5M2::from_f32(1.25).to_f32(), 1.25);
/// assert_eq!(F8E5M2::from_f32(61439.0).to_f32(), 57344.0);
/// assert_eq!(F8E5M2::from_f32(61440.0).to_f32(), f32::INFINITY);
/// ```
#[repr(transparent)]
#[derive(Clone, Copy, Default, bytemuck::Pod, bytemuck::Zeroable)]
pub struct F8E5M2(pub u8);

/// `x` (an f64) rounded once to nearest even into E4M3FN bits.
pub(crate) fn f64_to_e4m3_bits(x: f64) -> u8 {
    // E4M3FN has the exponent range of an IEEE format with 5 exponent bits
    // (bias 15) scaled by 2⁸, and the same subnormal spacing; only its top
    // binade differs (exponent field 15 is finite, and 0x7f is NaN). Round in
    // that format (the scaling is exact, or underflows far below 2⁻¹⁰),
    // then anything above 0x7e is an overflow, an infinity or a NaN: NaN.
    let r = round_f64_bits(x * 2f64.powi(-8), 3, 5) as u16;
    let sign = ((r >> 8) & 1) as u8;
    let m = r & 0xff;
    if m > 0x7e {
        (sign << 7) | 0x7f
    } else {
        (sign << 7) | m as u8
    }
}

/// `x` (an f64) rounded once to nearest even into E5M2 bits.
pub(crate) fn f64_to_e5m2_bits(x: f64) -> u8 {
    round_f64_bits(x, 2, 5) as u8
}

/// The exact value of E4M3FN bits.
pub(crate) fn e4m3_bits_to_f32(b: u8) -> f32 {
    let (e, m) = ((b >> 3) & 0xf, b & 7);
    let mag = if e == 15 && m == 7 {
        f32::NAN
    } else if e == 0 {
        m as f32 * 2f32.powi(-9)
    } else {
        (8 + m) as f32 * 2f32.powi(e as i32 - 10)
    };
    if b & 0x80 != 0 {
        -mag
    } else {
        mag
    }
}

/// The exact value of E5M2 bits.
pub(crate) fn e5m2_bits_to_f32(b: u8) -> f32 {
    let (e, m) = ((b >> 2) & 0x1f, b & 3);
    let mag = if e == 31 {
        if m == 0 {
            f32::INFINITY
        } else {
            f32::NAN
        }
    } else if e == 0 {
        m as f32 * 2f32.powi(-16)
    } else {
        (4 + m) as f32 * 2f32.powi(e as i32 - 17)
    };
    if b & 0x80 != 0 {
        -mag
    } else {
        mag
    }
}

macro_rules! fp8_api {
    ($t:ident, $enc:ident, $dec:ident, $max:expr, $eps:expr) => {
        impl $t {
            /// Largest finite value.
            pub const MAX: $t = $t($max);
            /// Most negative finite value.
            pub const MIN: $t = $t($max | 0x80);
            /// Difference between 1 and the next larger value.
            pub const EPSILON: $t = $t($eps);
            /// A quiet NaN.
            pub const NAN: $t = $t(0x7f);
            /// Zero.
            pub const ZERO: $t = $t(0);
            /// One.
            pub const ONE: $t = $t(Self::ONE_BITS);

            /// The value with these bits.
            pub const fn from_bits(bits: u8) -> $t {
                $t(bits)
            }
            /// The bits of the value.
            pub const fn to_bits(self) -> u8 {
                self.0
            }
            /// The exact value as an f32.
            pub fn to_f32(self) -> f32 {
                $dec(self.0)
            }
            /// The exact value as an f64.
            pub fn to_f64(self) -> f64 {
                $dec(self.0) as f64
            }
            /// `x` rounded once to nearest even (see the type's doc for overflow).
            pub fn from_f32(x: f32) -> $t {
                $t($enc(x as f64))
            }
            /// `x` rounded once to nearest even (see the type's doc for overflow).
            pub fn from_f64(x: f64) -> $t {
                $t($enc(x))
            }
            /// Whether the value is a NaN.
            pub fn is_nan(self) -> bool {
                self.to_f32().is_nan()
            }
        }
        impl PartialEq for $t {
            /// Value equality (NaN is unequal to everything, `-0 == 0`).
            fn eq(&self, other: &$t) -> bool {
                self.to_f32() == other.to_f32()
            }
        }
        impl PartialOrd for $t {
            fn partial_cmp(&self, other: &$t) -> Option<Ordering> {
                self.to_f32().partial_cmp(&other.to_f32())
            }
        }
        impl fmt::Display for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.to_f32(), f)
            }
        }
        impl fmt::LowerExp for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::LowerExp::fmt(&self.to_f32(), f)
            }
        }
        impl fmt::Debug for $t {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Debug::fmt(&self.to_f32(), f)
            }
        }
        impl From<$t> for f32 {
            fn from(v: $t) -> f32 {
                v.to_f32()
            }
        }
        impl From<$t> for f64 {
            fn from(v: $t) -> f64 {
                v.to_f64()
            }
        }
    };
}

impl F8E4M3 {
    const ONE_BITS: u8 = 0x38;
}
impl F8E5M2 {
    const ONE_BITS: u8 = 0x3c;
    /// Positive infinity.
    pub const INFINITY: F8E5M2 = F8E5M2(0x7c);
    /// Negative infinity.
    pub const NEG_INFINITY: F8E5M2 = F8E5M2(0xfc);
}
fp8_api!(F8E4M3, f64_to_e4m3_bits, e4m3_bits_to_f32, 0x7e, 0x20);
fp8_api!(F8E5M2, f64_to_e5m2_bits, e5m2_bits_to_f32, 0x7b, 0x34);
