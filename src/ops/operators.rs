//! `std::ops` sugar for tensors: `&a + &b`, `&a - 1.0`, `2.0 * &a`, `a += &b`,
//! `-&a`, `!&a` (bitwise not), `&a & &b`, `&a << 2`, for `&Tensor`, `Tensor`
//! and Rust scalars on either side.
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
        bin_ops!(@scalars $Trait, $method, $Assign, $amethod, $op;
            f32, f64, i8, i16, i32, i64, u8, u16, u32, u64);
    )*};
    (@scalars $Trait:ident, $method:ident, $Assign:ident, $amethod:ident, $op:ident; $($S:ty),*) => {$(
        impl ops::$Trait<$S> for &Tensor {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: $S) -> Tensor {
                ok(binary(BinaryOp::$op, self, rhs))
            }
        }
        impl ops::$Trait<$S> for Tensor {
            type Output = Tensor;
            #[track_caller]
            fn $method(self, rhs: $S) -> Tensor {
                ok(binary(BinaryOp::$op, &self, rhs))
            }
        }
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
        impl ops::$Assign<$S> for Tensor {
            #[track_caller]
            fn $amethod(&mut self, rhs: $S) {
                ok(crate::ops::elementwise::binary_out(BinaryOp::$op, &*self, rhs, self));
            }
        }
    )*};
}

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
