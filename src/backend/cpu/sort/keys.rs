//! Order-preserving unsigned keys for the sortable element types, their
//! inverse, and the items the radix sort moves: a bare key (value-only sorts) or
//! a key packed above its u32 source index (sorts that report indices). Knows
//! nothing about rows, layouts or threads.

use super::radix::Item;
use crate::dtype::Element;
use half::{bf16, f16};

/// An unsigned key type: a radix item on its own, and packable with an index.
pub(crate) trait Key: Item + std::ops::BitXor<Output = Self> {
    /// All bits set (XOR with it reverses the order, for descending sorts).
    const ONES: Self;
    /// A key above a u32 index: ordering packed items orders by key, then by
    /// index, so any sort of them is the stable sort by key.
    type Packed: Packed;
    /// Pack `self` above `i`.
    fn pack(self, i: u32) -> Self::Packed;
    /// Sort `v` ascending with the vectorised quicksort where this key width
    /// has one and the CPU runs it (`quick.rs`; ranges of at least `par_min`
    /// split over the pool); returns whether it ran.
    fn quick_sort(v: &mut [Self], par_min: usize) -> bool;
}

/// A key packed with its source index.
pub(crate) trait Packed: Item {
    /// The source index.
    fn index(self) -> u32;
    /// Sort `v` ascending with a vectorised quicksort where that beats the
    /// radix sort's passes and the CPU runs it (ranges of at least `par_min`
    /// split over the pool); returns whether it ran.
    fn quick_sort(v: &mut [Self], par_min: usize) -> bool {
        let _ = (v, par_min);
        false
    }
}

/// A key of at most 32 bits (`D` digit bytes) above a u32 index, in one u64.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
#[repr(transparent)]
pub(crate) struct P64<const D: usize>(u64);

// SAFETY: a transparent wrapper of u64: no padding, every bit pattern valid.
unsafe impl<const D: usize> bytemuck::Zeroable for P64<D> {}
// SAFETY: as above.
unsafe impl<const D: usize> bytemuck::Pod for P64<D> {}

impl<const D: usize> Item for P64<D> {
    const DIGITS: usize = D;
    #[inline(always)]
    fn digit(self, d: usize) -> usize {
        ((self.0 >> (32 + 8 * d)) & 0xff) as usize
    }
}

impl<const D: usize> Packed for P64<D> {
    #[inline(always)]
    fn index(self) -> u32 {
        self.0 as u32
    }
    /// 32-bit keys (four radix passes) at AVX-512: the 8-lane quicksort of
    /// the packed u64s (unique, so the order is the stable one); at AVX2 the
    /// radix sort is faster.
    fn quick_sort(v: &mut [Self], par_min: usize) -> bool {
        D == 4 && super::quick::try_sort64(bytemuck::cast_slice_mut(v), par_min, true)
    }
}

/// A 64-bit key above a u32 index, in one u128: `key << 64 | index`, so in
/// memory (little-endian) the index's u64 comes first, then the key's.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
#[repr(transparent)]
pub(crate) struct P128(pub(crate) u128);

// SAFETY: a transparent wrapper of u128: no padding, every bit pattern valid.
unsafe impl bytemuck::Zeroable for P128 {}
// SAFETY: as above.
unsafe impl bytemuck::Pod for P128 {}

impl Item for P128 {
    const DIGITS: usize = 8;
    #[inline(always)]
    fn digit(self, d: usize) -> usize {
        ((self.0 >> (64 + 8 * d)) & 0xff) as usize
    }
}

impl Packed for P128 {
    #[inline(always)]
    fn index(self) -> u32 {
        self.0 as u32
    }
    /// At AVX-512: the quicksort of (key, index) pairs, 8 to a vector pair
    /// (`lanes512.rs`), instead of eight radix passes over 16-byte items.
    fn quick_sort(v: &mut [Self], par_min: usize) -> bool {
        super::quick::try_sort_pairs(v, par_min)
    }
}

macro_rules! key {
    ($($u:ty => $p:ty, $wide:ty, $shift:literal, $ctor:expr, $quick:expr);*) => {$(
        impl Item for $u {
            const DIGITS: usize = std::mem::size_of::<$u>();
            #[inline(always)]
            fn digit(self, d: usize) -> usize {
                ((self as u64 >> (8 * d)) & 0xff) as usize
            }
        }
        impl Key for $u {
            const ONES: Self = <$u>::MAX;
            type Packed = $p;
            #[inline(always)]
            fn pack(self, i: u32) -> $p {
                $ctor(((self as $wide) << $shift) | i as $wide)
            }
            fn quick_sort(v: &mut [$u], par_min: usize) -> bool {
                $quick(v, par_min)
            }
        }
    )*};
}
/// 32-bit and 64-bit keys have a vectorised sort at AVX2 and AVX-512; 8- and
/// 16-bit keys take one or two radix passes.
fn no_quick<U>(_: &mut [U], _: usize) -> bool {
    false
}
key!(
    u8 => P64<1>, u64, 32, P64, no_quick;
    u16 => P64<2>, u64, 32, P64, no_quick;
    u32 => P64<4>, u64, 32, P64, super::quick::try_sort;
    u64 => P128, u128, 64, P128, |v, par_min| super::quick::try_sort64(v, par_min, false)
);

/// An element with an order-preserving key of its own width.
pub(crate) trait SortKey: Element {
    /// The key type.
    type Key: Key;
    /// Whether keys lose information (floats: every NaN maps to one key and -0.0
    /// to the key of 0.0); integer keys are a bijection.
    const FLOAT: bool;
    /// The key: `a < b` as numbers iff `key(a) < key(b)`; -0.0 has 0.0's key and
    /// every NaN the largest key.
    fn key(self) -> Self::Key;
    /// An element with key `k` (for floats: +0.0 for the zero key, some NaN for
    /// the NaN key).
    fn from_key(k: Self::Key) -> Self;
    /// Whether `from_key(key(self))` may differ from `self` in its bits: NaN or
    /// -0.0. False for integers.
    fn inexact(self) -> bool;
    /// Whether the element is NaN (false for integers).
    fn is_nan(self) -> bool;
    /// Whether the element is 0.0 or -0.0 (false for integers: not needed).
    fn is_zero(self) -> bool;
    /// The key of 0.0.
    fn zero_key() -> Self::Key;
    /// The key of every NaN.
    fn nan_key() -> Self::Key;
}

macro_rules! key_uint {
    ($($t:ty),*) => {$(
        impl SortKey for $t {
            type Key = $t;
            const FLOAT: bool = false;
            #[inline(always)]
            fn key(self) -> $t { self }
            #[inline(always)]
            fn from_key(k: $t) -> $t { k }
            #[inline(always)]
            fn inexact(self) -> bool { false }
            fn is_nan(self) -> bool { false }
            fn is_zero(self) -> bool { false }
            fn zero_key() -> $t { 0 }
            fn nan_key() -> $t { <$t>::MAX }
        }
    )*};
}
key_uint!(u8, u16, u32, u64);

macro_rules! key_int {
    ($($t:ty: $u:ty),*) => {$(
        impl SortKey for $t {
            type Key = $u;
            const FLOAT: bool = false;
            #[inline(always)]
            fn key(self) -> $u { (self as $u) ^ (1 << (<$u>::BITS - 1)) }
            #[inline(always)]
            fn from_key(k: $u) -> $t { (k ^ (1 << (<$u>::BITS - 1))) as $t }
            #[inline(always)]
            fn inexact(self) -> bool { false }
            fn is_nan(self) -> bool { false }
            fn is_zero(self) -> bool { false }
            fn zero_key() -> $u { 1 << (<$u>::BITS - 1) }
            fn nan_key() -> $u { <$u>::MAX }
        }
    )*};
}
key_int!(i8: u8, i16: u16, i32: u32, i64: u64);

// Floats: the sign-magnitude bits made two's-order (negative: all bits flipped;
// positive: the sign bit set), computed branch-free so the gather vectorises.
macro_rules! key_float {
    ($($t:ty: $u:ty, $inf:expr);*) => {$(
        impl SortKey for $t {
            type Key = $u;
            const FLOAT: bool = true;
            #[inline(always)]
            fn key(self) -> $u {
                const SIGN: $u = 1 << (<$u>::BITS - 1);
                let b = self.to_bits();
                let b = if b == SIGN { 0 } else { b }; // -0.0 sorts as 0.0
                let k = if b & SIGN != 0 { !b } else { b | SIGN };
                if b & !SIGN > $inf { <$u>::MAX } else { k }
            }
            #[inline(always)]
            fn from_key(k: $u) -> $t {
                const SIGN: $u = 1 << (<$u>::BITS - 1);
                <$t>::from_bits(if k & SIGN != 0 { k ^ SIGN } else { !k })
            }
            #[inline(always)]
            fn inexact(self) -> bool {
                const SIGN: $u = 1 << (<$u>::BITS - 1);
                let b = self.to_bits();
                b == SIGN || b & !SIGN > $inf
            }
            #[inline(always)]
            fn is_nan(self) -> bool {
                const SIGN: $u = 1 << (<$u>::BITS - 1);
                self.to_bits() & !SIGN > $inf
            }
            #[inline(always)]
            fn is_zero(self) -> bool {
                const SIGN: $u = 1 << (<$u>::BITS - 1);
                self.to_bits() & !SIGN == 0
            }
            fn zero_key() -> $u { 1 << (<$u>::BITS - 1) }
            fn nan_key() -> $u { <$u>::MAX }
        }
    )*};
}
key_float!(f32: u32, 0x7f80_0000; f64: u64, 0x7ff0_0000_0000_0000; f16: u16, 0x7c00; bf16: u16, 0x7f80);

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn float_keys_order_and_invert() {
        let v = [
            f32::NEG_INFINITY,
            -2.5,
            -1e-40,
            0.0,
            1e-40,
            3.0,
            f32::INFINITY,
        ];
        for w in v.windows(2) {
            assert!(w[0].key() < w[1].key(), "{w:?}");
        }
        for &x in &v {
            assert_eq!(f32::from_key(x.key()).to_bits(), x.to_bits());
        }
        assert_eq!((-0.0f32).key(), 0.0f32.key());
        assert_eq!(0.0f32.key(), f32::zero_key());
        assert_eq!(f32::from_bits(0xffc0_0001).key(), f32::nan_key());
        assert_eq!(f32::NAN.key(), u32::MAX);
        assert!(f32::from_key(u32::MAX).is_nan());
        assert!(f16::from_f32(-0.0).inexact() && !f16::from_f32(1.0).inexact());
        assert!(bf16::NAN.is_nan() && bf16::NAN.key() == u16::MAX);
        assert_eq!(i8::from_key((-128i8).key()), -128);
        assert!((-1i64).key() < 0i64.key());
    }

    pub(crate) fn packing_orders_by_key_then_index() {
        let a = 5u32.pack(9);
        let b = 6u32.pack(1);
        assert!(a < b && a.index() == 9 && b.digit(0) == 6);
        let c = u64::MAX.pack(u32::MAX);
        assert_eq!((c.index(), c.digit(7)), (u32::MAX, 0xff));
    }
}
