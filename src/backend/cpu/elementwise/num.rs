//! Scalar arithmetic per number kind, shared by the elementwise kernels:
//! `Flt` (f16/bf16/f32/f64 with their compute type: halves compute in f32),
//! `Int` (wrapping integer arithmetic, truncating division, shifts, powers).
//! Pure functions on single values; no iteration, no tensors.

use crate::dtype::{half_bits, Element};
use half::{bf16, f16};
use num_traits::{CheckedRem, Float, PrimInt, WrappingAdd, WrappingMul, WrappingNeg, WrappingSub};

/// A real float dtype and the type it is computed in.
pub trait Flt: Element + PartialOrd {
    /// The compute type (f32 for the halves, itself otherwise).
    type C: Float + Send + Sync + 'static;
    /// Widen to the compute type.
    fn ld(self) -> Self::C;
    /// Round the result back to the storage type (once per result).
    fn st(c: Self::C) -> Self;
}

impl Flt for f32 {
    type C = f32;
    #[inline(always)]
    fn ld(self) -> f32 {
        self
    }
    #[inline(always)]
    fn st(c: f32) -> f32 {
        c
    }
}
impl Flt for f64 {
    type C = f64;
    #[inline(always)]
    fn ld(self) -> f64 {
        self
    }
    #[inline(always)]
    fn st(c: f64) -> f64 {
        c
    }
}
impl Flt for f16 {
    type C = f32;
    #[inline(always)]
    fn ld(self) -> f32 {
        half_bits::f16_to_f32(self)
    }
    #[inline(always)]
    fn st(c: f32) -> f16 {
        half_bits::f32_to_f16(c)
    }
}
impl Flt for bf16 {
    type C = f32;
    #[inline(always)]
    fn ld(self) -> f32 {
        half_bits::bf16_to_f32(self)
    }
    #[inline(always)]
    fn st(c: f32) -> bf16 {
        half_bits::f32_to_bf16(c)
    }
}

/// Maximum with NaN propagation (`a > b`, `a <= b` both false only for NaN).
#[inline(always)]
pub fn fmax<C: Float>(a: C, b: C) -> C {
    if a > b {
        a
    } else if a <= b {
        b
    } else {
        a + b
    }
}

/// Minimum with NaN propagation.
#[inline(always)]
pub fn fmin<C: Float>(a: C, b: C) -> C {
    if a < b {
        a
    } else if a >= b {
        b
    } else {
        a + b
    }
}

/// -1, 0 or 1 (NaN and ±0 returned as they are).
#[inline(always)]
pub fn fsign<C: Float>(a: C) -> C {
    if a > C::zero() {
        C::one()
    } else if a < C::zero() {
        -C::one()
    } else {
        a
    }
}

/// An integer dtype with wrapping arithmetic.
pub trait Int:
    Element + PrimInt + CheckedRem + WrappingAdd + WrappingSub + WrappingMul + WrappingNeg + Sync
{
    /// Bits of the type.
    const WIDTH: u32;
    /// `|x|`, wrapping (`abs(MIN) == MIN`; identity for unsigned).
    fn wabs(self) -> Self;
    /// -1, 0 or 1 (0 or 1 for unsigned).
    fn sign(self) -> Self;
    /// Whether the value is below zero.
    fn is_negative(self) -> bool;
    /// Division truncating toward zero; `MIN / -1 == MIN`; `x / 0 == 0` (the
    /// caller reports zero divisors before computing).
    #[inline(always)]
    fn tdiv(self, b: Self) -> Self {
        if b == <Self as Element>::zero() {
            <Self as Element>::zero()
        } else {
            self.checked_div(&b).unwrap_or(self)
        }
    }
    /// Remainder with the sign of the dividend; `MIN % -1 == 0`; `x % 0 == 0`.
    #[inline(always)]
    fn trem(self, b: Self) -> Self {
        if b == <Self as Element>::zero() {
            <Self as Element>::zero()
        } else {
            self.checked_rem(&b).unwrap_or(<Self as Element>::zero())
        }
    }
    /// `self << b`, 0 when `b >= WIDTH` (the caller rejects negative `b`).
    #[inline(always)]
    fn shl_by(self, b: Self) -> Self {
        match b.to_u32() {
            Some(s) if s < Self::WIDTH => self << s as usize,
            _ => <Self as Element>::zero(),
        }
    }
    /// `self / 2^b` truncating toward zero, 0 when `b >= WIDTH`.
    #[inline(always)]
    fn shr_by(self, b: Self) -> Self {
        match b.to_u32() {
            Some(s) if s < Self::WIDTH => {
                if self.is_negative() {
                    // Bias by 2^s - 1 so the arithmetic shift rounds toward zero.
                    let bias = (<Self as Element>::one() << s as usize)
                        .wrapping_sub(&<Self as Element>::one());
                    self.wrapping_add(&bias) >> s as usize
                } else {
                    self >> s as usize
                }
            }
            _ => <Self as Element>::zero(),
        }
    }
    /// `self ** e` wrapping (the caller rejects negative `e`).
    #[inline(always)]
    fn wpow(self, e: Self) -> Self {
        let mut e = e.to_u64().unwrap_or(0);
        let mut base = self;
        let mut acc = <Self as Element>::one();
        while e > 0 {
            if e & 1 == 1 {
                acc = acc.wrapping_mul(&base);
            }
            base = base.wrapping_mul(&base);
            e >>= 1;
        }
        acc
    }
}

macro_rules! int_signed {
    ($($t:ty),*) => {$(
        impl Int for $t {
            const WIDTH: u32 = <$t>::BITS;
            #[inline(always)]
            fn wabs(self) -> Self {
                self.wrapping_abs()
            }
            #[inline(always)]
            fn sign(self) -> Self {
                self.signum()
            }
            #[inline(always)]
            fn is_negative(self) -> bool {
                self < 0
            }
        }
    )*};
}
macro_rules! int_unsigned {
    ($($t:ty),*) => {$(
        impl Int for $t {
            const WIDTH: u32 = <$t>::BITS;
            #[inline(always)]
            fn wabs(self) -> Self {
                self
            }
            #[inline(always)]
            fn sign(self) -> Self {
                (self != 0) as $t
            }
            #[inline(always)]
            fn is_negative(self) -> bool {
                false
            }
        }
    )*};
}
int_signed!(i8, i16, i32, i64);
int_unsigned!(u8, u16, u32, u64);

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn shifts_and_division() {
        assert_eq!((-7i32).shr_by(1), -3);
        assert_eq!((-8i32).shr_by(2), -2);
        assert_eq!(i8::MIN.shr_by(7), -1);
        assert_eq!(i8::MIN.shr_by(8), 0);
        assert_eq!(1u8.shl_by(8), 0);
        assert_eq!(i32::MIN.tdiv(-1), i32::MIN);
        assert_eq!(i32::MIN.trem(-1), 0);
        assert_eq!((-7i32).trem(2), -1);
        assert_eq!(3i8.wpow(5), (243u8 as i8));
        assert!(fmax(f32::NAN, 1.0).is_nan());
        assert!(fmin(1.0, f32::NAN).is_nan());
    }
}
