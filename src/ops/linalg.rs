//! Matrix products: `matmul` (NumPy's `@`), `matmul_out` and `dot`. This file
//! holds the shape rules (1-D promotion, batch broadcasting), validation and the
//! aliasing policy of outputs; the arithmetic is the backend's `matmul`.

use super::{locked, locked_fresh, same_device, same_dtype, unique_output};
use crate::dims::Dims;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// Broadcast two batch shapes (NumPy rules), or an error naming `op` and the
/// full operand shapes.
pub(crate) fn broadcast_batch(
    op: &str,
    x: &[usize],
    y: &[usize],
    lhs: &[usize],
    rhs: &[usize],
) -> Result<Dims<usize>> {
    let n = x.len().max(y.len());
    let mut out = Dims::from_elem(0usize, n);
    for i in 0..n {
        let dx = if i < n - x.len() {
            1
        } else {
            x[i - (n - x.len())]
        };
        let dy = if i < n - y.len() {
            1
        } else {
            y[i - (n - y.len())]
        };
        out[i] = if dx == dy || dy == 1 {
            dx
        } else if dx == 1 {
            dy
        } else {
            return Err(Error::shapes(
                op,
                lhs,
                rhs,
                format!("have batch dimensions {x:?} and {y:?} that do not broadcast"),
            ));
        };
    }
    Ok(out)
}

/// A matrix product reduced to the backend's canonical form.
struct Product {
    /// `a` as `[batch.., m, k]` (batch axes broadcast, stride 0 where repeated).
    a: Tensor,
    /// `b` as `[batch.., k, n]`.
    b: Tensor,
    /// `[batch.., m, n]`.
    full: Dims<usize>,
    /// The user-visible result shape (promoted 1-D axes removed).
    result: Dims<usize>,
    a_vec: bool,
    b_vec: bool,
}

fn plan(op: &str, a: &Tensor, b: &Tensor) -> Result<Product> {
    same_device(op, &[a, b])?;
    same_dtype(op, &[a, b])?;
    if a.ndim() == 0 || b.ndim() == 0 {
        return Err(Error::shapes(
            op,
            a.shape(),
            b.shape(),
            "cannot be multiplied: 0-D inputs are not allowed",
        ));
    }
    let (a_vec, b_vec) = (a.ndim() == 1, b.ndim() == 1);
    let al = if a_vec {
        a.layout().unsqueeze(0)
    } else {
        a.layout().clone()
    };
    let bl = if b_vec {
        b.layout().unsqueeze(1)
    } else {
        b.layout().clone()
    };
    let (ar, br) = (al.ndim(), bl.ndim());
    let (m, k) = (al.shape()[ar - 2], al.shape()[ar - 1]);
    let (k2, n) = (bl.shape()[br - 2], bl.shape()[br - 1]);
    if k != k2 {
        return Err(Error::invalid(
            op,
            format!(
                "inner dimensions differ: {:?} @ {:?} ({k} != {k2})",
                a.shape(),
                b.shape()
            ),
        ));
    }
    let batch = broadcast_batch(
        op,
        &al.shape()[..ar - 2],
        &bl.shape()[..br - 2],
        a.shape(),
        b.shape(),
    )?;
    let with = |mut s: Dims<usize>, x: usize, y: usize| {
        s.push(x);
        s.push(y);
        s
    };
    let al = al.broadcast_to(&with(batch.clone(), m, k))?;
    let bl = bl.broadcast_to(&with(batch.clone(), k, n))?;
    let full = with(batch.clone(), m, n);
    let mut result = batch;
    if !a_vec {
        result.push(m);
    }
    if !b_vec {
        result.push(n);
    }
    crate::layout::checked_numel(op, &full)?;
    Ok(Product {
        a: a.with_layout(al),
        b: b.with_layout(bl),
        full,
        result,
        a_vec,
        b_vec,
    })
}

impl Product {
    /// Compute into a fresh tensor of the user-visible shape.
    fn run(&self, op: &str, src_a: &Tensor, src_b: &Tensor) -> Result<Tensor> {
        let out = Tensor::empty_on(self.a.dtype(), &self.full, self.a.device())?;
        locked_fresh(op, &[src_a, src_b], &out, || {
            out.backend().matmul(&self.a, &self.b, &out, false)
        })?;
        let l = out
            .layout()
            .reshape(&self.result)
            .expect("a contiguous tensor reshapes to any shape of its size");
        Ok(out.with_layout(l))
    }
}

impl Tensor {
    /// Matrix product with NumPy's `@` rules.
    ///
    /// - 1-D × 1-D: inner product, a 0-D result.
    /// - 1-D `a` is treated as `[1, k]` and 1-D `b` as `[k, 1]`; the added axis
    ///   is removed from the result.
    /// - Otherwise the last two axes are the matrices and all leading (batch)
    ///   axes broadcast together: `[.., m, k] @ [.., k, n] -> [batch.., m, n]`.
    ///
    /// Every real, integer and complex dtype; integers wrap on overflow, f16 and
    /// bf16 accumulate in f32 and round once per result. Both operands must have
    /// the same dtype and device. Errors: 0-D inputs, different inner dimensions
    /// (the message names both shapes), batch dimensions that do not broadcast.
    /// Transposed, sliced and broadcast inputs are read in place (no copy).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::create(DType::F32, &[2, 2], &[1., 2., 3., 4.]).unwrap();
    /// let b = Tensor::create(DType::F32, &[2], &[5., 6.]).unwrap();
    /// assert_eq!(a.matmul(&b).unwrap().to_string(), "[17, 39]");
    /// let e = a.matmul(&Tensor::ones(DType::F32, &[3, 2]).unwrap()).unwrap_err();
    /// assert_eq!(e.to_string(), "matmul: inner dimensions differ: [2, 2] @ [3, 2] (2 != 3)");
    /// ```
    pub fn matmul(&self, other: &Tensor) -> Result<Tensor> {
        product_hook("matmul", self, other, None)
    }

    /// [`Tensor::matmul`] into `out`, which must have exactly the result's shape
    /// and dtype and must not map two elements to one address; any strides
    /// otherwise. Returns `out`. Inputs may overlap `out` (the product is then
    /// computed into a temporary first and copied).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::create(DType::I32, &[2, 2], &[1, 2, 3, 4]).unwrap();
    /// let out = Tensor::zeros(DType::I32, &[2, 2]).unwrap();
    /// a.matmul_out(&a, &out).unwrap();
    /// assert_eq!(out.to_vec::<i32>().unwrap(), vec![7, 10, 15, 22]);
    /// ```
    pub fn matmul_out(&self, other: &Tensor, out: &Tensor) -> Result<Tensor> {
        product_hook("matmul", self, other, Some(out))
    }

    fn matmul_out_core(&self, other: &Tensor, out: &Tensor) -> Result<Tensor> {
        let op = "matmul_out";
        let p = plan(op, self, other)?;
        same_device(op, &[self, out])?;
        same_dtype(op, &[self, out])?;
        if out.shape() != p.result.as_slice() {
            return Err(Error::shapes(
                op,
                out.shape(),
                &p.result,
                "differ: the output must have the result's shape",
            ));
        }
        unique_output(op, out)?;
        let overlaps = crate::overlap::tensors_overlap(self, out)
            || crate::overlap::tensors_overlap(other, out);
        if overlaps {
            let tmp = p.run(op, self, other)?;
            locked(op, &[&tmp], &[out], || out.backend().copy(&tmp, out))?;
            return Ok(out.clone());
        }
        let mut ol = out.layout().clone();
        if p.b_vec {
            ol = ol.unsqueeze(ol.ndim());
        }
        if p.a_vec {
            ol = ol.unsqueeze(ol.ndim() - 1);
        }
        debug_assert_eq!(ol.shape(), p.full.as_slice());
        let ov = out.with_layout(ol);
        locked(op, &[self, other], &[out], || {
            out.backend().matmul(&p.a, &p.b, &ov, false)
        })?;
        Ok(out.clone())
    }

    /// Generalised dot product (Nx `dot`): contracts the last axis of `self`
    /// with the only axis of a 1-D `other`, or with axis -2 of an N-D `other`.
    /// Batch axes broadcast, so the result is the broadcast batch dims, then
    /// `self`'s remaining axis, then `other`'s remaining axis — the same shapes
    /// and values as [`Tensor::matmul`] (unlike `numpy.dot`, which forms an
    /// outer product over the batch axes). 1-D × 1-D is the inner product (0-D).
    /// Errors: 0-D inputs, contraction axes of different sizes.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::ones(DType::F32, &[2, 3, 4, 5]).unwrap();
    /// let b = Tensor::ones(DType::F32, &[3, 5, 6]).unwrap();
    /// assert_eq!(a.dot(&b).unwrap().shape(), &[2, 3, 4, 6]);
    /// ```
    pub fn dot(&self, other: &Tensor) -> Result<Tensor> {
        product_hook("dot", self, other, None)
    }
}

/// `matmul`/`dot`/`matmul_out` after asking the extensions (`crate::ext`).
fn product_hook(op: &str, a: &Tensor, b: &Tensor, out: Option<&Tensor>) -> Result<Tensor> {
    crate::ext::hook(
        op,
        &[a.into(), b.into()],
        out,
        || {
            let shape = crate::ext::resolve::matmul_shape(op, a.shape(), b.shape())?;
            Ok((crate::ext::OpKind::Matmul, shape))
        },
        |o, out| {
            let (a, b) = (o[0].as_tensor(), o[1].as_tensor());
            match out {
                Some(out) => a.matmul_out_core(b, out),
                None => match matmul_2d(op, a, b) {
                    Some(r) => r,
                    None => plan(op, a, b)?.run(op, a, b),
                },
            }
        },
    )
}

/// The plain product of two matrices `[m, k] @ [k, n]` (m, k, n >= 2) of one
/// dtype on one device: no batch axis to broadcast, no promoted axis to
/// remove, and [`plan`]'s layouts would equal the operands' own (broadcasting
/// changes only the strides of size-1 axes), so the operands go to the
/// backend as they are. `None` for anything else (and for every error, which
/// the general path then reports).
fn matmul_2d(op: &str, a: &Tensor, b: &Tensor) -> Option<Result<Tensor>> {
    let (&[m, k], &[k2, n]) = (a.shape(), b.shape()) else {
        return None;
    };
    let fits = m.checked_mul(n).is_some_and(|e| e <= isize::MAX as usize);
    if k != k2 || m < 2 || k < 2 || n < 2 || !fits {
        return None;
    }
    if a.dtype() != b.dtype() || a.device() != b.device() {
        return None;
    }
    let run = || {
        let out = Tensor::empty_on(a.dtype(), &[m, n], a.device())?;
        locked_fresh(op, &[a, b], &out, || {
            out.backend().matmul(a, b, &out, false)
        })?;
        Ok(out)
    };
    Some(run())
}
