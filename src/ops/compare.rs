//! Comparisons returning u8 masks (1 true, 0 false): `compare(op, ..)`, the Nx
//! names `cmpeq`..`cmpge` and their synonyms (`equal`, `less`, ...), each also
//! `_out`; and `array_equal`. Equality for every dtype, ordering for real and
//! integer dtypes; NaN compares unequal to everything (so `ne` is 1).

use super::frame::{require, resolve, run, Operand};
use crate::backend::elementwise::CmpOp;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

fn compare_impl(
    name: &str,
    op: CmpOp,
    a: Operand<'_>,
    b: Operand<'_>,
    out: Option<&Tensor>,
) -> Result<Tensor> {
    let operands = [a, b];
    crate::ext::hook(
        name,
        &operands,
        out,
        || {
            let shape = super::elementwise::result_shape(name, &operands)?;
            Ok((crate::ext::OpKind::Compare(op), shape))
        },
        |o, out| compare_core(name, op, o, out),
    )
}

fn compare_core(
    name: &str,
    op: CmpOp,
    operands: &[Operand<'_>],
    out: Option<&Tensor>,
) -> Result<Tensor> {
    let ts = resolve(name, operands, out)?;
    let dt = ts[0].dtype();
    require(name, op.supports(dt), dt)?;
    run(name, &[&ts[0], &ts[1]], DType::U8, out, |be, v, o| {
        be.compare(op, v[0], v[1], o)
    })
}

impl Tensor {
    /// `op(self, other)` as a u8 mask (cl-tensor `compare`).
    ///
    /// ```
    /// use rnx::{Tensor, DType, backend::elementwise::CmpOp};
    /// let x = Tensor::arange(DType::F32, 0, 4, 1).unwrap();
    /// let m = x.compare(CmpOp::Gt, 1).unwrap();
    /// assert_eq!((m.dtype(), m.to_string()), (DType::U8, "[0, 0, 1, 1]".to_string()));
    /// ```
    pub fn compare<'a>(&self, op: CmpOp, other: impl Into<Operand<'a>>) -> Result<Tensor> {
        compare_impl(op.name(), op, Operand::Tensor(self), other.into(), None)
    }
    /// [`Tensor::compare`] written into the u8 tensor `out`; returns `out`.
    pub fn compare_out<'a>(
        &self,
        op: CmpOp,
        other: impl Into<Operand<'a>>,
        out: &Tensor,
    ) -> Result<Tensor> {
        compare_impl(
            op.name(),
            op,
            Operand::Tensor(self),
            other.into(),
            Some(out),
        )
    }

    /// 1 (u8, rank 0) when the tensors broadcast together and every element is
    /// equal, else 0 (also when the shapes do not broadcast). Different dtypes
    /// are an error, as everywhere. NaN is unequal to itself.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[3], &[1, 2, 3]).unwrap();
    /// assert_eq!(x.array_equal(&x).unwrap().item::<u8>().unwrap(), 1);
    /// let y = Tensor::create(DType::I32, &[2], &[1, 3]).unwrap();
    /// assert_eq!(x.array_equal(&y).unwrap().item::<u8>().unwrap(), 0);
    /// ```
    pub fn array_equal(&self, other: &Tensor) -> Result<Tensor> {
        super::same_device("array_equal", &[self, other])?;
        super::same_dtype("array_equal", &[self, other])?;
        let equal =
            match super::frame::broadcast_shapes("array_equal", &[self.shape(), other.shape()]) {
                Err(_) => false,
                Ok(_) => {
                    let m =
                        compare_impl("array_equal", CmpOp::Ne, self.into(), other.into(), None)?;
                    // Until the reduction family exists: scan the mask on the host.
                    m.to_vec::<u8>()?.iter().all(|&v| v == 0)
                }
            };
        Tensor::scalar(DType::U8, equal as u8)?.to_device(self.device())
    }
}

macro_rules! cmp_methods {
    ($($name:ident, $syn:ident, $out:ident => $op:ident, $sym:literal;)*) => {
        impl Tensor {$(
            #[doc = concat!("1 (u8) where `self ", $sym, " other`, else 0; broadcasting; `other` a tensor or scalar.")]
            pub fn $name<'a>(&self, other: impl Into<Operand<'a>>) -> Result<Tensor> {
                compare_impl(stringify!($name), CmpOp::$op, Operand::Tensor(self), other.into(), None)
            }
            #[doc = concat!("Synonym of [`Tensor::", stringify!($name), "`](crate::Tensor::", stringify!($name), ").")]
            pub fn $syn<'a>(&self, other: impl Into<Operand<'a>>) -> Result<Tensor> {
                compare_impl(stringify!($syn), CmpOp::$op, Operand::Tensor(self), other.into(), None)
            }
            #[doc = concat!("[`Tensor::", stringify!($name), "`](crate::Tensor::", stringify!($name), ") written into the u8 tensor `out`; returns `out`.")]
            pub fn $out<'a>(&self, other: impl Into<Operand<'a>>, out: &Tensor) -> Result<Tensor> {
                compare_impl(stringify!($name), CmpOp::$op, Operand::Tensor(self), other.into(), Some(out))
            }
        )*}
    };
}

cmp_methods! {
    cmpeq, equal, cmpeq_out => Eq, "==";
    cmpne, not_equal, cmpne_out => Ne, "!=";
    cmplt, less, cmplt_out => Lt, "<";
    cmple, less_equal, cmple_out => Le, "<=";
    cmpgt, greater, cmpgt_out => Gt, ">";
    cmpge, greater_equal, cmpge_out => Ge, ">=";
}
