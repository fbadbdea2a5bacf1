//! Logical and bitwise ops: logical_and/or/xor/not (non-zero is true; results
//! 0/1 in the input dtype; `logical_not(5) == 0`), bitwise_and/or/xor/not
//! (`invert`), lshift/rshift (integers), and the u8 classifications
//! isnan/isinf/isfinite (integers: all 0 / all 0 / all 1). Each with `_` (in
//! place) and `_out` forms where the dtype allows.

use super::elementwise::{binary_methods, unary_methods};
use super::frame::run;
use crate::backend::elementwise::ClassOp;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

binary_methods! {
    /// 1 where both are non-zero, else 0 (input dtype; real and integer).
    logical_and, logical_and_, logical_and_out => LogicalAnd;
    /// 1 where either is non-zero, else 0.
    logical_or, logical_or_, logical_or_out => LogicalOr;
    /// 1 where exactly one is non-zero, else 0.
    logical_xor, logical_xor_, logical_xor_out => LogicalXor;
    /// Bitwise and (integers).
    bitwise_and, bitwise_and_, bitwise_and_out => BitAnd;
    /// Bitwise or (integers).
    bitwise_or, bitwise_or_, bitwise_or_out => BitOr;
    /// Bitwise xor (integers).
    bitwise_xor, bitwise_xor_, bitwise_xor_out => BitXor;
    /// `self << shift` (integers; wraps; a shift of the width or more gives 0;
    /// a negative shift or a non-integer dtype is an error, raised before any
    /// write). `shift` is a scalar or a tensor of the same dtype.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[3], &[1, 2, 3]).unwrap();
    /// assert_eq!(x.lshift(2).unwrap().to_string(), "[4, 8, 12]");
    /// assert!(x.lshift(-1).is_err());
    /// ```
    lshift, lshift_, lshift_out => Shl;
    /// `self / 2^shift` rounded toward zero, as Nx documents (so `-7 >> 1 ==
    /// -3`, unlike an arithmetic shift); a shift of the width or more gives 0;
    /// negative shifts and non-integer dtypes are errors.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[3], &[8, 9, 10]).unwrap();
    /// assert_eq!(x.rshift(2).unwrap().to_string(), "[2, 2, 2]");
    /// ```
    rshift, rshift_, rshift_out => Shr;
}

unary_methods! {
    /// 1 where the element is zero, else 0 (non-zero is true, so
    /// `logical_not(5) == 0`); input dtype, real and integer.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[3], &[0, 1, 5]).unwrap();
    /// assert_eq!(x.logical_not().unwrap().to_string(), "[1, 0, 0]");
    /// ```
    logical_not, logical_not_, logical_not_out => LogicalNot;
    /// Bitwise not (integers).
    #[doc(alias = "invert")]
    bitwise_not, bitwise_not_, bitwise_not_out => BitNot;
}

fn classify_impl(name: &str, op: ClassOp, x: &Tensor, out: Option<&Tensor>) -> Result<Tensor> {
    crate::ext::hook(
        name,
        &[x.into()],
        out,
        || Ok((crate::ext::OpKind::Classify(op), x.shape().to_vec())),
        |o, out| classify_core(name, op, o[0].as_tensor(), out),
    )
}

fn classify_core(name: &str, op: ClassOp, x: &Tensor, out: Option<&Tensor>) -> Result<Tensor> {
    run(name, &[x], DType::U8, out, |be, v, o| {
        be.classify(op, v[0], o)
    })
}

impl Tensor {
    /// Synonym of [`Tensor::bitwise_not`].
    pub fn invert(&self) -> Result<Tensor> {
        self.bitwise_not()
    }

    /// 1 (u8) where NaN, else 0 (integers: all 0).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F32, &[3], &[1., f64::NAN, f64::INFINITY]).unwrap();
    /// assert_eq!(x.isnan().unwrap().to_string(), "[0, 1, 0]");
    /// ```
    pub fn isnan(&self) -> Result<Tensor> {
        classify_impl("isnan", ClassOp::IsNan, self, None)
    }
    /// [`Tensor::isnan`] into the u8 tensor `out`; returns `out`.
    pub fn isnan_out(&self, out: &Tensor) -> Result<Tensor> {
        classify_impl("isnan", ClassOp::IsNan, self, Some(out))
    }
    /// 1 (u8) where ±infinity, else 0 (integers: all 0).
    pub fn isinf(&self) -> Result<Tensor> {
        classify_impl("isinf", ClassOp::IsInf, self, None)
    }
    /// [`Tensor::isinf`] into the u8 tensor `out`; returns `out`.
    pub fn isinf_out(&self, out: &Tensor) -> Result<Tensor> {
        classify_impl("isinf", ClassOp::IsInf, self, Some(out))
    }
    /// 1 (u8) where neither NaN nor infinite, else 0 (integers: all 1).
    pub fn isfinite(&self) -> Result<Tensor> {
        classify_impl("isfinite", ClassOp::IsFinite, self, None)
    }
    /// [`Tensor::isfinite`] into the u8 tensor `out`; returns `out`.
    pub fn isfinite_out(&self, out: &Tensor) -> Result<Tensor> {
        classify_impl("isfinite", ClassOp::IsFinite, self, Some(out))
    }
}
