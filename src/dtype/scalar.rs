//! `Scalar`: one typed value of any dtype, its conversions from Rust numbers
//! and to a tensor's dtype (refusing values the dtype cannot hold), and its
//! printing.

use super::{DType, Element, C32, C64, F8E4M3, F8E5M2, I4, U4};
use crate::dispatch;
use crate::error::{Error, Result};
use half::{bf16, f16};
use std::fmt;

/// A single typed value: one variant per dtype.
///
/// Rust numbers convert into a `Scalar` with `From` (`Scalar::from(2.5)` is an f64
/// scalar); [`Scalar::to_dtype`] converts to a tensor's dtype and refuses values the
/// dtype cannot hold (2.5 into i32, 300 into u8, a complex value into a real dtype).
///
/// ```
/// use rnx::{DType, Scalar};
/// assert_eq!(Scalar::from(3).to_dtype(DType::U8, "full").unwrap(), Scalar::U8(3));
/// assert!(Scalar::from(300).to_dtype(DType::U8, "full").is_err());
/// assert!(Scalar::from(2.5).to_dtype(DType::I32, "full").is_err());
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    F16(f16),
    BF16(bf16),
    F32(f32),
    F64(f64),
    C32(C32),
    C64(C64),
    I8(i8),
    I16(i16),
    I32(i32),
    I64(i64),
    U8(u8),
    U16(u16),
    U32(u32),
    U64(u64),
    F8E4M3(F8E4M3),
    F8E5M2(F8E5M2),
    I4(I4),
    U4(U4),
}

impl Scalar {
    /// The dtype of this value.
    pub fn dtype(&self) -> DType {
        match self {
            Scalar::F16(_) => DType::F16,
            Scalar::BF16(_) => DType::BF16,
            Scalar::F32(_) => DType::F32,
            Scalar::F64(_) => DType::F64,
            Scalar::C32(_) => DType::C32,
            Scalar::C64(_) => DType::C64,
            Scalar::I8(_) => DType::I8,
            Scalar::I16(_) => DType::I16,
            Scalar::I32(_) => DType::I32,
            Scalar::I64(_) => DType::I64,
            Scalar::U8(_) => DType::U8,
            Scalar::U16(_) => DType::U16,
            Scalar::U32(_) => DType::U32,
            Scalar::U64(_) => DType::U64,
            Scalar::F8E4M3(_) => DType::F8E4M3,
            Scalar::F8E5M2(_) => DType::F8E5M2,
            Scalar::I4(_) => DType::I4,
            Scalar::U4(_) => DType::U4,
        }
    }

    /// Real part as f64.
    pub fn to_f64(&self) -> f64 {
        self.to_re_im().0
    }

    /// (real, imaginary) as f64.
    pub fn to_re_im(&self) -> (f64, f64) {
        match *self {
            Scalar::C32(c) => (c.re as f64, c.im as f64),
            Scalar::C64(c) => (c.re, c.im),
            s => (s.real_f64(), 0.0),
        }
    }

    fn real_f64(&self) -> f64 {
        match *self {
            Scalar::F16(v) => v.to_f64(),
            Scalar::BF16(v) => v.to_f64(),
            Scalar::F32(v) => v as f64,
            Scalar::F64(v) => v,
            Scalar::C32(v) => v.re as f64,
            Scalar::C64(v) => v.re,
            Scalar::I8(v) => v as f64,
            Scalar::I16(v) => v as f64,
            Scalar::I32(v) => v as f64,
            Scalar::I64(v) => v as f64,
            Scalar::U8(v) => v as f64,
            Scalar::U16(v) => v as f64,
            Scalar::U32(v) => v as f64,
            Scalar::U64(v) => v as f64,
            Scalar::F8E4M3(v) => v.to_f64(),
            Scalar::F8E5M2(v) => v.to_f64(),
            Scalar::I4(v) => v.get() as f64,
            Scalar::U4(v) => v.get() as f64,
        }
    }

    /// The exact integer value, if this is an integer scalar.
    pub fn to_i128(&self) -> Option<i128> {
        match *self {
            Scalar::I8(v) => Some(v as i128),
            Scalar::I16(v) => Some(v as i128),
            Scalar::I32(v) => Some(v as i128),
            Scalar::I64(v) => Some(v as i128),
            Scalar::U8(v) => Some(v as i128),
            Scalar::U16(v) => Some(v as i128),
            Scalar::U32(v) => Some(v as i128),
            Scalar::U64(v) => Some(v as i128),
            Scalar::I4(v) => Some(v.get() as i128),
            Scalar::U4(v) => Some(v.get() as i128),
            _ => None,
        }
    }

    /// The value as the element type `T` (no representability check: the caller
    /// converted the scalar to `T::DTYPE` first).
    pub fn get<T: Element>(self) -> T {
        T::from_scalar_unchecked(self)
    }

    /// Convert to `dtype`, refusing values that the dtype cannot represent:
    /// a fractional, non-finite or out-of-range value into an integer dtype, a
    /// complex value with non-zero imaginary part into a real dtype. Floats accept
    /// any real value (rounded to the nearest representable). `op` names the caller
    /// in the error.
    pub fn to_dtype(self, dtype: DType, op: &str) -> Result<Scalar> {
        if self.dtype() == dtype {
            return Ok(self);
        }
        let (re, im) = self.to_re_im();
        let bad = || Error::ScalarNotRepresentable {
            op: op.to_string(),
            value: self.to_string(),
            dtype,
        };
        if im != 0.0 && !dtype.is_complex() {
            return Err(bad());
        }
        if let Some((lo, hi)) = dtype.int_range() {
            let i: i128 = match self.to_i128() {
                Some(i) => i,
                None => {
                    if !re.is_finite() || re.fract() != 0.0 || re.abs() > 1.8e19 {
                        return Err(bad());
                    }
                    re as i128
                }
            };
            if i < lo || i > hi {
                return Err(bad());
            }
            return Ok(dispatch!(dtype, T => T::from_i128_saturating(i).to_scalar()));
        }
        // To a float or complex dtype: one rounding, from the exact value.
        if let Some(i) = self.to_i128() {
            return Ok(dispatch!(dtype, T => T::from_i128_wrapping(i).to_scalar()));
        }
        if dtype.is_complex() {
            return Ok(dispatch!(@complex dtype, op, T => T::from_re_im(re, im).to_scalar()));
        }
        Ok(dispatch!(dtype, T => <T as Element>::from_f64(re).to_scalar()))
    }

    /// Whether the value is zero.
    pub fn is_zero(&self) -> bool {
        let (re, im) = self.to_re_im();
        re == 0.0 && im == 0.0
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            Scalar::F16(v) => write!(f, "{v}"),
            Scalar::BF16(v) => write!(f, "{v}"),
            Scalar::F32(v) => write!(f, "{v}"),
            Scalar::F64(v) => write!(f, "{v}"),
            Scalar::C32(v) => write!(f, "{v}"),
            Scalar::C64(v) => write!(f, "{v}"),
            Scalar::I8(v) => write!(f, "{v}"),
            Scalar::I16(v) => write!(f, "{v}"),
            Scalar::I32(v) => write!(f, "{v}"),
            Scalar::I64(v) => write!(f, "{v}"),
            Scalar::U8(v) => write!(f, "{v}"),
            Scalar::U16(v) => write!(f, "{v}"),
            Scalar::U32(v) => write!(f, "{v}"),
            Scalar::U64(v) => write!(f, "{v}"),
            Scalar::F8E4M3(v) => write!(f, "{v}"),
            Scalar::F8E5M2(v) => write!(f, "{v}"),
            Scalar::I4(v) => write!(f, "{v}"),
            Scalar::U4(v) => write!(f, "{v}"),
        }
    }
}

macro_rules! scalar_from {
    ($($t:ty),*) => {$(
        impl From<$t> for Scalar {
            fn from(v: $t) -> Scalar {
                v.to_scalar()
            }
        }
    )*};
}
scalar_from!(
    f16, bf16, f32, f64, C32, C64, i8, i16, i32, i64, u8, u16, u32, u64, F8E4M3, F8E5M2, I4, U4
);

impl From<usize> for Scalar {
    fn from(v: usize) -> Scalar {
        Scalar::U64(v as u64)
    }
}
impl From<isize> for Scalar {
    fn from(v: isize) -> Scalar {
        Scalar::I64(v as i64)
    }
}
impl From<bool> for Scalar {
    fn from(v: bool) -> Scalar {
        Scalar::U8(v as u8)
    }
}
