//! Element arithmetic the reduction kernels need, as small traits over the
//! dtypes' Rust types: the accumulator type of sums and products (f32 for
//! f16/bf16, wrapping integers), the identities of max/min, and the float type
//! softmax computes in. No iteration or kernel code lives here.

use crate::dtype::half_bits::Half;
use crate::dtype::{Element, C32, C64};
use half::{bf16, f16};

/// An accumulator: addition and multiplication (wrapping for integers) and
/// division by an element count (for the mean).
pub(crate) trait AccNum: Copy + Send + Sync + 'static {
    const ZERO: Self;
    const ONE: Self;
    fn add(self, o: Self) -> Self;
    fn mul(self, o: Self) -> Self;
    /// `self / n`; NaN for floats when `n == 0`, 0 for integers.
    fn div_count(self, n: usize) -> Self;
}

macro_rules! acc_float {
    ($($t:ty),*) => {$(
        impl AccNum for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            #[inline(always)]
            fn add(self, o: Self) -> Self { self + o }
            #[inline(always)]
            fn mul(self, o: Self) -> Self { self * o }
            #[inline(always)]
            fn div_count(self, n: usize) -> Self { self / n as $t }
        }
    )*};
}
acc_float!(f32, f64);

macro_rules! acc_int {
    ($($t:ty),*) => {$(
        impl AccNum for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            #[inline(always)]
            fn add(self, o: Self) -> Self { self.wrapping_add(o) }
            #[inline(always)]
            fn mul(self, o: Self) -> Self { self.wrapping_mul(o) }
            #[inline(always)]
            fn div_count(self, n: usize) -> Self {
                if n == 0 { 0 } else { (self as i128 / n as i128) as $t }
            }
        }
    )*};
}
acc_int!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! acc_complex {
    ($($t:ty, $f:ty);*) => {$(
        impl AccNum for $t {
            const ZERO: Self = <$t>::new(0.0, 0.0);
            const ONE: Self = <$t>::new(1.0, 0.0);
            #[inline(always)]
            fn add(self, o: Self) -> Self { self + o }
            #[inline(always)]
            fn mul(self, o: Self) -> Self { self * o }
            #[inline(always)]
            fn div_count(self, n: usize) -> Self { <$t>::new(self.re / n as $f, self.im / n as $f) }
        }
    )*};
}
acc_complex!(C32, f32; C64, f64);

/// An element with the accumulator its sums and products use.
pub(crate) trait Summable: Element {
    type A: AccNum;
    fn to_acc(self) -> Self::A;
    fn from_acc(a: Self::A) -> Self;
}

macro_rules! summable_self {
    ($($t:ty),*) => {$(
        impl Summable for $t {
            type A = $t;
            #[inline(always)]
            fn to_acc(self) -> $t { self }
            #[inline(always)]
            fn from_acc(a: $t) -> $t { a }
        }
    )*};
}
summable_self!(f32, f64, C32, C64, i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! summable_half {
    ($($t:ty),*) => {$(
        impl Summable for $t {
            type A = f32;
            #[inline(always)]
            fn to_acc(self) -> f32 { self.widen() }
            #[inline(always)]
            fn from_acc(a: f32) -> $t { <$t>::narrow(a) }
        }
    )*};
}
summable_half!(f16, bf16);

/// A real element: ordered, with the identities of max and min.
pub(crate) trait Real: Element + PartialOrd {
    /// The smallest value (-inf for floats).
    const LOWEST: Self;
    /// The largest value (+inf for floats).
    const HIGHEST: Self;
    /// f16 / bf16: contiguous max/min runs convert blocks to f32 first
    /// ([`Element::exact_f32`]) and take the extreme there.
    const HALF: bool = false;
    /// Whether the value is NaN (never for integers).
    #[inline(always)]
    #[allow(clippy::eq_op)]
    fn is_nan(self) -> bool {
        self != self
    }
    /// `self > o`, false if either is NaN (the halves compare as f32: `half`'s
    /// own comparisons branch on the signs and do not vectorise).
    #[inline(always)]
    fn above(self, o: Self) -> bool {
        self > o
    }
    /// `self < o`, false if either is NaN.
    #[inline(always)]
    fn below(self, o: Self) -> bool {
        self < o
    }
}

macro_rules! real {
    ($($t:ty: $lo:expr, $hi:expr);*) => {$(
        impl Real for $t {
            const LOWEST: Self = $lo;
            const HIGHEST: Self = $hi;
        }
    )*};
}
macro_rules! real_half {
    ($($t:ty),*) => {$(
        impl Real for $t {
            const LOWEST: Self = <$t>::NEG_INFINITY;
            const HIGHEST: Self = <$t>::INFINITY;
            const HALF: bool = true;
            #[inline(always)]
            fn is_nan(self) -> bool {
                self.widen().is_nan()
            }
            #[inline(always)]
            fn above(self, o: Self) -> bool {
                self.widen() > o.widen()
            }
            #[inline(always)]
            fn below(self, o: Self) -> bool {
                self.widen() < o.widen()
            }
        }
    )*};
}
real_half!(f16, bf16);
real!(
    f32: f32::NEG_INFINITY, f32::INFINITY;
    f64: f64::NEG_INFINITY, f64::INFINITY;
    i8: i8::MIN, i8::MAX;
    i16: i16::MIN, i16::MAX;
    i32: i32::MIN, i32::MAX;
    i64: i64::MIN, i64::MAX;
    u8: u8::MIN, u8::MAX;
    u16: u16::MIN, u16::MAX;
    u32: u32::MIN, u32::MAX;
    u64: u64::MIN, u64::MAX
);

/// A float element and the float type it computes in (f32 for f16/bf16).
pub(crate) trait FloatElem: Element {
    type F: num_traits::Float + SoftmaxFloat + Send + Sync;
    fn to_f(self) -> Self::F;
    fn from_f(f: Self::F) -> Self;
}

impl FloatElem for f32 {
    type F = f32;
    #[inline(always)]
    fn to_f(self) -> f32 {
        self
    }
    #[inline(always)]
    fn from_f(f: f32) -> f32 {
        f
    }
}
impl FloatElem for f64 {
    type F = f64;
    #[inline(always)]
    fn to_f(self) -> f64 {
        self
    }
    #[inline(always)]
    fn from_f(f: f64) -> f64 {
        f
    }
}
macro_rules! float_half {
    ($($t:ty),*) => {$(
        impl FloatElem for $t {
            type F = f32;
            #[inline(always)]
            fn to_f(self) -> f32 { self.widen() }
            #[inline(always)]
            fn from_f(f: f32) -> $t { <$t>::narrow(f) }
        }
    )*};
}
float_half!(f16, bf16);

/// The vectorised pieces of softmax over a contiguous chunk, for the compute
/// types f32 and f64.
pub(crate) trait SoftmaxFloat: Sized + Copy {
    /// `x[i] = exp(x[i])` with the vmath kernel (stated ULP bound in `vmath`).
    fn exp_in_place(x: &mut [Self]);
    /// Sum in f64 lanes (one rounding per element into f64).
    fn sum_f64(x: &[Self]) -> f64;
    /// `o[i] = exp(x[i] - m)` (as `exp_in_place` of the rounded difference),
    /// returning the f64 sum of the `o[i]`: one pass (vmath's fused driver).
    fn exp_shift_sum(x: &[Self], m: Self, o: &mut [Self]) -> f64;
    /// The maximum of `m` and `x`; NaN if either holds a NaN.
    fn max_nan(x: &[Self], m: Self) -> Self;
}

/// Lanes of the softmax maximum loop: independent compare-and-select
/// accumulators (the sum is `reducers::f64_sum`).
const SOFTMAX_LANES: usize = 16;

macro_rules! softmax_float {
    ($t:ty, $inplace:ident, $shift:ident) => {
        impl SoftmaxFloat for $t {
            fn exp_in_place(x: &mut [$t]) {
                crate::backend::cpu::vmath::$inplace(crate::backend::cpu::vmath::MathFn::Exp, x)
            }
            fn exp_shift_sum(x: &[$t], m: $t, o: &mut [$t]) -> f64 {
                use crate::backend::cpu::vmath::{$shift, Isa};
                $shift(Isa::best(), x, m, o)
            }
            #[inline(always)]
            fn sum_f64(x: &[$t]) -> f64 {
                super::reducers::f64_sum(x, |v| v)
            }
            /// Compare and select with a NaN flag per lane, which
            /// vectorises (`max` with one flag shared by the lanes compiled
            /// to scalar vmaxss/vblendvps per element).
            #[inline(always)]
            fn max_nan(x: &[$t], m: $t) -> $t {
                let mut acc = [m; SOFTMAX_LANES];
                let mut nan = [false; SOFTMAX_LANES];
                let mut it = x.chunks_exact(SOFTMAX_LANES);
                for c in &mut it {
                    for k in 0..SOFTMAX_LANES {
                        acc[k] = if c[k] > acc[k] { c[k] } else { acc[k] };
                        nan[k] |= c[k].is_nan();
                    }
                }
                if m.is_nan() || nan.contains(&true) || it.remainder().iter().any(|v| v.is_nan()) {
                    return <$t>::NAN;
                }
                let m = it
                    .remainder()
                    .iter()
                    .fold(m, |a, &b| if b > a { b } else { a });
                acc.iter().fold(m, |a, &b| if b > a { b } else { a })
            }
        }
    };
}
softmax_float!(f32, map_f32_inplace, exp_shift_sum_f32);
softmax_float!(f64, map_f64_inplace, exp_shift_sum_f64);
