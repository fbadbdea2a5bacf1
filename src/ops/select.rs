//! Selection: `where_cond(cond, a, b)` (Nx `where`: all three broadcast; any
//! dtype of condition, non-zero is true) and `select(mask, a, b, dtype)`
//! (cl-tensor: a u8 mask, tensor or scalar branches, an explicit dtype when
//! both branches are scalars), each also `_out`.

use super::frame::{resolve_as, run, Operand};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

fn select_impl(
    name: &str,
    mask: &Tensor,
    a: Operand<'_>,
    b: Operand<'_>,
    dtype: Option<DType>,
    out: Option<&Tensor>,
) -> Result<Tensor> {
    let operands = [Operand::Tensor(mask), a, b];
    crate::ext::hook(
        name,
        &operands,
        out,
        || {
            let shape = super::elementwise::result_shape(name, &operands)?;
            Ok((crate::ext::OpKind::Select { dtype }, shape))
        },
        |o, out| {
            select_core(
                name,
                o[0].as_tensor(),
                o[1].clone(),
                o[2].clone(),
                dtype,
                out,
            )
        },
    )
}

fn select_core(
    name: &str,
    mask: &Tensor,
    a: Operand<'_>,
    b: Operand<'_>,
    dtype: Option<DType>,
    out: Option<&Tensor>,
) -> Result<Tensor> {
    let fallback = dtype
        .map(|d| (d, mask.device()))
        .or(out.map(|o| (o.dtype(), o.device())));
    let ts = resolve_as(name, &[a, b], fallback)?;
    let dt = ts[0].dtype();
    if let Some(d) = dtype {
        if d != dt {
            return Err(Error::DTypeMismatch {
                op: name.into(),
                lhs: dt,
                rhs: d,
            });
        }
    }
    super::same_device(name, &[mask, &ts[0]])?;
    run(name, &[mask, &ts[0], &ts[1]], dt, out, |be, v, o| {
        be.select(v[0], v[1], v[2], o)
    })
}

/// A u8 mask for `cond` (itself when already u8, else `cond != 0`).
fn as_mask(cond: &Tensor) -> Result<Tensor> {
    if cond.dtype() == DType::U8 {
        Ok(cond.clone())
    } else {
        cond.cmpne(0)
    }
}

fn require_u8(name: &str, mask: &Tensor) -> Result<()> {
    if mask.dtype() != DType::U8 {
        return Err(Error::invalid(
            name,
            format!("the mask must have dtype u8, not {}", mask.dtype()),
        ));
    }
    Ok(())
}

impl Tensor {
    /// Nx `where`: `if_true` where `cond` is non-zero, else `if_false`; all
    /// three broadcast. A condition of another dtype than u8 is first turned
    /// into a u8 mask (`cond != 0`, one extra pass).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F32, &[4], &[-1., 2., -3., 4.]).unwrap();
    /// let r = Tensor::where_cond(&x.cmpgt(0).unwrap(), &x, 0).unwrap();
    /// assert_eq!(r.to_string(), "[0, 2, 0, 4]");
    /// ```
    #[doc(alias = "where")]
    pub fn where_cond<'a>(
        cond: &Tensor,
        if_true: impl Into<Operand<'a>>,
        if_false: impl Into<Operand<'a>>,
    ) -> Result<Tensor> {
        let m = as_mask(cond)?;
        select_impl("where", &m, if_true.into(), if_false.into(), None, None)
    }

    /// [`Tensor::where_cond`] written into `out`; returns `out`.
    pub fn where_cond_out<'a>(
        cond: &Tensor,
        if_true: impl Into<Operand<'a>>,
        if_false: impl Into<Operand<'a>>,
        out: &Tensor,
    ) -> Result<Tensor> {
        let m = as_mask(cond)?;
        select_impl(
            "where",
            &m,
            if_true.into(),
            if_false.into(),
            None,
            Some(out),
        )
    }

    /// cl-tensor `select`: `on_true` where the u8 `mask` is non-zero, else
    /// `on_false`; all broadcast. Branches are tensors of one dtype or scalars;
    /// when both are scalars give `dtype` (otherwise `dtype`, if given, must be
    /// the branches' dtype).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let m = Tensor::arange(DType::F32, 0, 4, 1).unwrap().cmpgt(1).unwrap();
    /// let r = Tensor::select(&m, 10, 0, Some(DType::I16)).unwrap();
    /// assert_eq!((r.dtype(), r.to_string()), (DType::I16, "[0, 0, 10, 10]".to_string()));
    /// ```
    pub fn select<'a>(
        mask: &Tensor,
        on_true: impl Into<Operand<'a>>,
        on_false: impl Into<Operand<'a>>,
        dtype: Option<DType>,
    ) -> Result<Tensor> {
        require_u8("select", mask)?;
        select_impl("select", mask, on_true.into(), on_false.into(), dtype, None)
    }

    /// [`Tensor::select`] written into `out` (scalar branches take `out`'s
    /// dtype); returns `out`.
    pub fn select_out<'a>(
        mask: &Tensor,
        on_true: impl Into<Operand<'a>>,
        on_false: impl Into<Operand<'a>>,
        out: &Tensor,
    ) -> Result<Tensor> {
        require_u8("select", mask)?;
        select_impl(
            "select",
            mask,
            on_true.into(),
            on_false.into(),
            None,
            Some(out),
        )
    }
}
