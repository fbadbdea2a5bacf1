//! `std::ops` sugar for tensors: `&a + &b`, `&a - 1.0`, `2.0 * &a`, `a += &b`,
//! `-&a`, `!&a` (bitwise not), `&a & &b`, `&a << 2`, for `&Tensor`, `Tensor`
//! and Rust scalars on either side.
//!
//! A scalar on the right may be any Rust numeric type; a scalar on the left is
//! an `i32` or `f64` (so unsuffixed literals infer), e.g. `2.0 * &t`, `1 - &t`;
//! for a typed left scalar such as `n: i64` write `t.rsub(n)`. Either way the
//! scalar is converted to the tensor's dtype.
//!
//! These operators PANIC where the named function returns an error (dtype or
//! shape mismatch, unrepresentable scalar, integer division by zero), with the
//! same message, as `std` indexing does. Use the named functions (`add`,
//! `sub_`, ...) to handle errors.

use crate::backend::elementwise::BinaryOp;
use crate::error::Result;
use crate::ops::elementwise::binary;
use crate::tensor::Tensor;
use std::ops;

#[track_caller]
fn ok(r: Result<Tensor>) -> Tensor {
    r.unwrap_or_else(|e| panic!("{e}"))
}

macro_rules! bin_ops {
    ($($Trait:ident, $method:ident, $Assign:ident, $amethod:ident, $op:ident;)*) => {$(
        impl ops::$Trait<&Tensor> for &Tensor {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: &Tensor) -> Tensor {
                ok(binary(BinaryOp::$op, self, rhs))
            }
        }
        impl ops::$Trait<Tensor> for &Tensor {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: Tensor) -> Tensor {
                ok(binary(BinaryOp::$op, self, &rhs))
            }
        }
        impl ops::$Trait<&Tensor> for Tensor {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: &Tensor) -> Tensor {
                ok(binary(BinaryOp::$op, &self, rhs))
            }
        }
        impl ops::$Trait<Tensor> for Tensor {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: Tensor) -> Tensor {
                ok(binary(BinaryOp::$op, &self, &rhs))
            }
        }
        impl ops::$Assign<&Tensor> for Tensor {
            /// Writes into this tensor's storage (shared with its other views).
            #[track_caller]
            fn $amethod(&mut self, rhs: &Tensor) {
                ok(crate::ops::elementwise::binary_out(BinaryOp::$op, &*self, rhs, self));
            }
        }
        impl ops::$Assign<Tensor> for Tensor {
            #[track_caller]
            fn $amethod(&mut self, rhs: Tensor) {
                ok(crate::ops::elementwise::binary_out(BinaryOp::$op, &*self, &rhs, self));
            }
        }
        impl<S: OperatorScalar> ops::$Trait<S> for &Tensor {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: S) -> Tensor {
                ok(binary(BinaryOp::$op, self, Into::<crate::dtype::Scalar>::into(rhs)))
            }
        }
        impl<S: OperatorScalar> ops::$Trait<S> for Tensor {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: S) -> Tensor {
                ok(binary(BinaryOp::$op, &self, Into::<crate::dtype::Scalar>::into(rhs)))
            }
        }
        impl<S: OperatorScalar> ops::$Assign<S> for Tensor {
            #[track_caller]
            fn $amethod(&mut self, rhs: S) {
                ok(crate::ops::elementwise::binary_out(BinaryOp::$op, &*self, Into::<crate::dtype::Scalar>::into(rhs), self));
            }
        }
        // Left-hand scalars only as `i32` and `f64`, Rust's literal defaults:
        // one impl per literal kind keeps `2.0 * &t` and `10 - &t` inferable.
        // Other scalar types go through the named `r*` forms (`t.rsub(n)`).
        bin_ops!(@scalars $Trait, $method, $op; f64, i32);
    )*};
    (@scalars $Trait:ident, $method:ident, $op:ident; $($S:ty),*) => {$(
        impl ops::$Trait<&Tensor> for $S {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: &Tensor) -> Tensor {
                ok(binary(BinaryOp::$op, self, rhs))
            }
        }
        impl ops::$Trait<Tensor> for $S {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: Tensor) -> Tensor {
                ok(binary(BinaryOp::$op, self, &rhs))
            }
        }
    )*};
}

mod sealed {
    pub trait Sealed {}
}

/// Rust scalar types accepted on the right of a tensor operator (`&t * 2`,
/// `t += 1.5`). The impls are generic over this trait so that an unsuffixed
/// literal (`2`, `2.0`) takes Rust's default type (`i32`, `f64`) and is then
/// converted to the tensor's dtype (an error, hence a panic, if it is not
/// representable there).
pub trait OperatorScalar: sealed::Sealed + Into<crate::dtype::Scalar> + Copy {}

macro_rules! operator_scalars {
    ($($S:ty),*) => {$(
        impl sealed::Sealed for $S {}
        impl OperatorScalar for $S {}
    )*};
}
operator_scalars!(f32, f64, i8, i16, i32, i64, u8, u16, u32, u64);

bin_ops! {
    Add, add, AddAssign, add_assign, Add;
    Sub, sub, SubAssign, sub_assign, Sub;
    Mul, mul, MulAssign, mul_assign, Mul;
    Div, div, DivAssign, div_assign, Div;
    Rem, rem, RemAssign, rem_assign, Rem;
    BitAnd, bitand, BitAndAssign, bitand_assign, BitAnd;
    BitOr, bitor, BitOrAssign, bitor_assign, BitOr;
    BitXor, bitxor, BitXorAssign, bitxor_assign, BitXor;
    Shl, shl, ShlAssign, shl_assign, Shl;
    Shr, shr, ShrAssign, shr_assign, Shr;
}

impl ops::Neg for &Tensor {
    type Output = Tensor;
    #[track_caller]
    fn neg(self) -> Tensor {
        ok(Tensor::neg(self))
    }
}
impl ops::Neg for Tensor {
    type Output = Tensor;
    #[track_caller]
    fn neg(self) -> Tensor {
        ok(Tensor::neg(&self))
    }
}
impl ops::Not for &Tensor {
    type Output = Tensor;
    /// Bitwise not (integers), as `!` on Rust integers.
    #[track_caller]
    fn not(self) -> Tensor {
        ok(self.bitwise_not())
    }
}
impl ops::Not for Tensor {
    type Output = Tensor;
    #[track_caller]
    fn not(self) -> Tensor {
        ok(self.bitwise_not())
    }
}
