//! The one place where the storage dtypes meet the compute kernels: the 8-bit
//! floats (f8e4m3, f8e5m2), computed in f32, and the packed 4-bit integers,
//! i4 computed in i32 and u4 in u32. [`Widen`] wraps a backend and, for every
//! computing primitive that is given such a tensor, casts each narrow input
//! into a fresh tensor of its wide dtype and the same shape, gives each
//! narrow output a wide stand-in (filled from the output when the primitive
//! reads it: `accumulate`, `scatter`, `scatter_reduce`), runs the wrapped
//! backend's wide primitive, and casts every stand-in back into its output:
//! fp8 rounds once per result; i4/u4 keep the low 4 bits of each result (the
//! wrap of every integer dtype at its width; i32 arithmetic wrapped to 4 bits
//! gives the same bits as 4-bit arithmetic for `+ - *`, sums, products and
//! matrix products, and shifts by up to 15 behave as 32-bit shifts). Tensors
//! of other dtypes are passed through untouched, and so are the data-moving
//! primitives (alloc, upload, download, fill, copy, cast), which the backend
//! handles for every dtype; `gather` and `scatter` pass fp8 through as 1-byte
//! elements and widen i4/u4, whose packed memory only the core primitives
//! address. So no compute kernel is instantiated for fp8 or 4-bit integers.
//!
//! The stand-ins are separate buffers, so the frontend's aliasing contract
//! (an input is exactly the output's view or touches none of it) holds for
//! the wrapped call, and an in-place op on a narrow tensor reads all of it
//! before the result is written back. Only the CPU backend is wrapped: the GPU
//! refuses fp8 and 4-bit tensors at allocation.

use super::{
    ArgOp, Backend, BinaryOp, Checked, ClassOp, CmpOp, CoreBackend, DctSpec, DecompBackend,
    DecompOp, ElementwiseBackend, FftBackend, FftSpec, IndexBackend, LinalgBackend, NormOp,
    RandomBackend, ReduceBackend, ReduceOp, ScanOp, ScatterOp, SoftmaxOp, SortBackend, TernaryOp,
    UnaryOp,
};
use crate::device::Device;
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::storage::Storage;
use crate::tensor::Tensor;

/// A backend that computes the fp8 and 4-bit storage dtypes in a wide dtype
/// (see the module docs).
pub(crate) struct Widen<B: 'static>(pub &'static B);

/// The CPU backend behind the widening.
pub(crate) static CPU: Widen<super::cpu::CpuBackend> = Widen(&super::cpu::CpuBackend);

/// The dtype that `d` computes in, for the storage dtypes; `None` for the
/// dtypes the kernels handle themselves.
fn wide_dtype(d: DType) -> Option<DType> {
    match d {
        DType::F8E4M3 | DType::F8E5M2 => Some(DType::F32),
        DType::I4 => Some(DType::I32),
        DType::U4 => Some(DType::U32),
        _ => None,
    }
}

fn any_narrow(ts: &[&Tensor]) -> bool {
    ts.iter().any(|t| wide_dtype(t.dtype()).is_some())
}

fn any_int4(ts: &[&Tensor]) -> bool {
    ts.iter().any(|t| t.dtype().is_int4())
}

impl<B: Backend> Widen<B> {
    /// `t` in its wide dtype if it is narrow (a copy, exact: every fp8 value
    /// is an f32, every i4/u4 value an i32/u32), else `t` itself. The copy is
    /// contiguous, except that a broadcast axis (stride 0) stays one: a
    /// scalar operand broadcast over a large output is widened once.
    fn wide(&self, t: &Tensor) -> Result<Tensor> {
        let Some(wd) = wide_dtype(t.dtype()) else {
            return Ok(t.clone());
        };
        let l = t.layout();
        let compact: Vec<usize> = l
            .shape()
            .iter()
            .zip(l.strides())
            .map(|(&d, &s)| if s == 0 { d.min(1) } else { d })
            .collect();
        if compact == l.shape() {
            let w = Tensor::empty_on(wd, t.shape(), t.device())?;
            self.0.cast(t, &w)?;
            return Ok(w);
        }
        let src = t.with_layout(Layout::from_slices(&compact, l.strides(), l.offset()));
        let w = Tensor::empty_on(wd, &compact, t.device())?;
        self.0.cast(&src, &w)?;
        let strides: Vec<isize> = w
            .layout()
            .strides()
            .iter()
            .zip(l.strides())
            .map(|(&ws, &s)| if s == 0 { 0 } else { ws })
            .collect();
        Ok(w.with_layout(Layout::from_slices(t.shape(), &strides, 0)))
    }

    /// [`Widen::wide`] of each input, once per distinct view (`x.mul(&x)`
    /// widens `x` once).
    fn wide_all(&self, inputs: &[&Tensor]) -> Result<Vec<Tensor>> {
        let mut out: Vec<Tensor> = Vec::with_capacity(inputs.len());
        for (k, t) in inputs.iter().enumerate() {
            let same = inputs[..k]
                .iter()
                .position(|u| u.same_storage(t) && u.layout() == t.layout());
            out.push(match same {
                Some(j) => out[j].clone(),
                None => self.wide(t)?,
            });
        }
        Ok(out)
    }

    /// The stand-in for output `t`: `t` itself unless narrow; a tensor of its
    /// wide dtype and shape otherwise, holding its values when the primitive
    /// reads them.
    fn stand_in(&self, t: &Tensor, read: bool) -> Result<Tensor> {
        match wide_dtype(t.dtype()) {
            None => Ok(t.clone()),
            Some(_) if read => self.wide(t),
            Some(wd) => Tensor::empty_on(wd, t.shape(), t.device()),
        }
    }

    /// Write the stand-in `w` back into the output `t`, once per element
    /// (nothing when `t` is not narrow): rounded into fp8, the low 4 bits
    /// into i4/u4.
    fn narrow(&self, w: &Tensor, t: &Tensor) -> Result<()> {
        if wide_dtype(t.dtype()).is_some() {
            self.0.cast(w, t)?;
        }
        Ok(())
    }

    /// Run `f` over the widened inputs and one widened output.
    fn run1(
        &self,
        inputs: &[&Tensor],
        out: &Tensor,
        read_out: bool,
        f: impl FnOnce(&[Tensor], &Tensor) -> Result<()>,
    ) -> Result<()> {
        let ins = self.wide_all(inputs)?;
        let o = self.stand_in(out, read_out)?;
        f(&ins, &o).map_err(|e| renamed(e, inputs.iter().copied().chain([out])))?;
        self.narrow(&o, out)
    }
}

/// An error of a wide primitive told in the narrow dtype of the operands
/// (the kernels name the dtype they ran in: "negative shift for integer
/// dtype i32" is about an i4 tensor's values).
fn renamed<'a>(e: Error, operands: impl Iterator<Item = &'a Tensor>) -> Error {
    let mut narrow = operands
        .map(|t| t.dtype())
        .filter(|&d| wide_dtype(d).is_some());
    let Some(to) = narrow.next() else {
        return e;
    };
    let from = wide_dtype(to).expect("a narrow dtype");
    match e {
        Error::UnsupportedDType { op, dtype } if dtype == from => {
            Error::UnsupportedDType { op, dtype: to }
        }
        Error::InvalidArgument { op, msg } => Error::InvalidArgument {
            op,
            msg: msg.replace(&format!("dtype {from}"), &format!("dtype {to}")),
        },
        e => e,
    }
}

impl<B: Backend> CoreBackend for Widen<B> {
    fn device(&self) -> Device {
        self.0.device()
    }
    fn alloc(&self, dtype: DType, len: usize) -> Result<Storage> {
        self.0.alloc(dtype, len)
    }
    fn alloc_for_overwrite(&self, dtype: DType, len: usize) -> Result<Storage> {
        self.0.alloc_for_overwrite(dtype, len)
    }
    fn upload(&self, dtype: DType, bytes: &[u8]) -> Result<Storage> {
        self.0.upload(dtype, bytes)
    }
    fn download(&self, src: &Tensor, dst: &mut [u8]) -> Result<()> {
        self.0.download(src, dst)
    }
    fn fill(&self, dst: &Tensor, value: Scalar) -> Result<()> {
        self.0.fill(dst, value)
    }
    fn copy(&self, src: &Tensor, dst: &Tensor) -> Result<()> {
        self.0.copy(src, dst)
    }
    fn cast(&self, src: &Tensor, dst: &Tensor) -> Result<()> {
        self.0.cast(src, dst)
    }
}

impl<B: Backend> ElementwiseBackend for Widen<B> {
    fn unary(&self, op: UnaryOp, x: &Tensor, out: &Tensor) -> Result<()> {
        if !any_narrow(&[x, out]) {
            return self.0.unary(op, x, out);
        }
        self.run1(&[x], out, false, |i, o| self.0.unary(op, &i[0], o))
    }
    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<()> {
        if !any_narrow(&[a, b, out]) {
            return self.0.binary(op, a, b, out);
        }
        self.run1(&[a, b], out, false, |i, o| {
            self.0.binary(op, &i[0], &i[1], o)
        })
    }
    fn compare(&self, op: CmpOp, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<()> {
        if !any_narrow(&[a, b, out]) {
            return self.0.compare(op, a, b, out);
        }
        self.run1(&[a, b], out, false, |i, o| {
            self.0.compare(op, &i[0], &i[1], o)
        })
    }
    fn classify(&self, op: ClassOp, x: &Tensor, out: &Tensor) -> Result<()> {
        if !any_narrow(&[x, out]) {
            return self.0.classify(op, x, out);
        }
        self.run1(&[x], out, false, |i, o| self.0.classify(op, &i[0], o))
    }
    fn select(&self, mask: &Tensor, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<()> {
        if !any_narrow(&[mask, a, b, out]) {
            return self.0.select(mask, a, b, out);
        }
        self.run1(&[mask, a, b], out, false, |i, o| {
            self.0.select(&i[0], &i[1], &i[2], o)
        })
    }
    fn ternary(
        &self,
        op: TernaryOp,
        a: &Tensor,
        b: &Tensor,
        c: &Tensor,
        out: &Tensor,
    ) -> Result<()> {
        if !any_narrow(&[a, b, c, out]) {
            return self.0.ternary(op, a, b, c, out);
        }
        self.run1(&[a, b, c], out, false, |i, o| {
            self.0.ternary(op, &i[0], &i[1], &i[2], o)
        })
    }
}

impl<B: Backend> ReduceBackend for Widen<B> {
    fn reduce(&self, op: ReduceOp, x: &Tensor, axes: &[usize], out: &Tensor) -> Result<()> {
        if !any_narrow(&[x, out]) {
            return self.0.reduce(op, x, axes, out);
        }
        self.run1(&[x], out, false, |i, o| self.0.reduce(op, &i[0], axes, o))
    }
    fn arg_reduce(&self, op: ArgOp, x: &Tensor, axis: usize, out: &Tensor) -> Result<()> {
        if !any_narrow(&[x, out]) {
            return self.0.arg_reduce(op, x, axis, out);
        }
        self.run1(&[x], out, false, |i, o| {
            self.0.arg_reduce(op, &i[0], axis, o)
        })
    }
    fn softmax(&self, op: SoftmaxOp, x: &Tensor, axes: &[usize], out: &Tensor) -> Result<()> {
        if !any_narrow(&[x, out]) {
            return self.0.softmax(op, x, axes, out);
        }
        self.run1(&[x], out, false, |i, o| self.0.softmax(op, &i[0], axes, o))
    }
    fn scan(&self, op: ScanOp, x: &Tensor, axis: usize, out: &Tensor) -> Result<()> {
        if !any_narrow(&[x, out]) {
            return self.0.scan(op, x, axis, out);
        }
        self.run1(&[x], out, false, |i, o| self.0.scan(op, &i[0], axis, o))
    }
    fn window_mean(&self, x: &Tensor, axis: usize, size: usize, out: &Tensor) -> Result<()> {
        if !any_narrow(&[x, out]) {
            return self.0.window_mean(x, axis, size, out);
        }
        self.run1(&[x], out, false, |i, o| {
            self.0.window_mean(&i[0], axis, size, o)
        })
    }
    fn window_reduce(
        &self,
        op: ReduceOp,
        x: &Tensor,
        axis: usize,
        w: &super::PoolWindow,
        init: crate::dtype::Scalar,
        out: &Tensor,
    ) -> Result<()> {
        if !any_narrow(&[x, out]) {
            return self.0.window_reduce(op, x, axis, w, init, out);
        }
        self.run1(&[x], out, false, |i, o| {
            self.0.window_reduce(op, &i[0], axis, w, init, o)
        })
    }
    fn norm(
        &self,
        op: NormOp,
        x: &Tensor,
        axes: &[usize],
        weight: Option<&Tensor>,
        bias: Option<&Tensor>,
        out: &Tensor,
    ) -> Result<()> {
        if !any_narrow(&[x, out]) {
            return self.0.norm(op, x, axes, weight, bias, out);
        }
        let ins: Vec<&Tensor> = [Some(x), weight, bias].into_iter().flatten().collect();
        self.run1(&ins, out, false, |i, o| {
            let (w, b) = match (weight, bias) {
                (Some(_), Some(_)) => (Some(&i[1]), Some(&i[2])),
                (Some(_), None) => (Some(&i[1]), None),
                (None, Some(_)) => (None, Some(&i[1])),
                (None, None) => (None, None),
            };
            self.0.norm(op, &i[0], axes, w, b, o)
        })
    }
}

impl<B: Backend> LinalgBackend for Widen<B> {
    fn matmul(&self, a: &Tensor, b: &Tensor, out: &Tensor, accumulate: bool) -> Result<()> {
        if !any_narrow(&[a, b, out]) {
            return self.0.matmul(a, b, out, accumulate);
        }
        self.run1(&[a, b], out, accumulate, |i, o| {
            self.0.matmul(&i[0], &i[1], o, accumulate)
        })
    }
    fn conv3x3(
        &self,
        x: &Tensor,
        w: &Tensor,
        out: &Tensor,
        groups: usize,
        accumulate: bool,
    ) -> Result<()> {
        if !any_narrow(&[x, w, out]) {
            return self.0.conv3x3(x, w, out, groups, accumulate);
        }
        self.run1(&[x, w], out, accumulate, |i, o| {
            self.0.conv3x3(&i[0], &i[1], o, groups, accumulate)
        })
    }
}

impl<B: Backend> IndexBackend for Widen<B> {
    fn gather(&self, src: &Tensor, axis: usize, indices: &Tensor, out: &Tensor) -> Result<()> {
        if !any_int4(&[src, out]) {
            return self.0.gather(src, axis, indices, out);
        }
        self.run1(&[src], out, false, |i, o| {
            self.0.gather(&i[0], axis, indices, o)
        })
    }
    /// The wrapped backend's, for dtypes it runs itself.
    fn gather_checking(
        &self,
        src: &Tensor,
        axis: usize,
        indices: &Tensor,
        out: &Tensor,
    ) -> Result<Checked> {
        if any_int4(&[src, out]) {
            return Ok(Checked::Declined);
        }
        self.0.gather_checking(src, axis, indices, out)
    }
    fn scatter(&self, src: &Tensor, axis: usize, indices: &Tensor, dst: &Tensor) -> Result<()> {
        if !any_int4(&[src, dst]) {
            return self.0.scatter(src, axis, indices, dst);
        }
        self.run1(&[src], dst, true, |i, o| {
            self.0.scatter(&i[0], axis, indices, o)
        })
    }
    fn scatter_reduce(
        &self,
        src: &Tensor,
        axis: usize,
        indices: &Tensor,
        dst: &Tensor,
        op: ScatterOp,
    ) -> Result<()> {
        if !any_narrow(&[src, dst]) {
            return self.0.scatter_reduce(src, axis, indices, dst, op);
        }
        self.run1(&[src], dst, true, |i, o| {
            self.0.scatter_reduce(&i[0], axis, indices, o, op)
        })
    }
    /// The wrapped backend's, for dtypes it runs itself.
    fn scatter_reduce_checking(
        &self,
        src: &Tensor,
        axis: usize,
        indices: &Tensor,
        dst: &Tensor,
        op: ScatterOp,
    ) -> Result<Checked> {
        if any_narrow(&[src, dst]) {
            return Ok(Checked::Declined);
        }
        self.0.scatter_reduce_checking(src, axis, indices, dst, op)
    }
}

impl<B: Backend> FftBackend for Widen<B> {
    fn fft(&self, x: &Tensor, axis: usize, spec: &FftSpec, out: &Tensor) -> Result<()> {
        if !any_narrow(&[x, out]) {
            return self.0.fft(x, axis, spec, out);
        }
        self.run1(&[x], out, false, |i, o| self.0.fft(&i[0], axis, spec, o))
    }
    fn dct(&self, x: &Tensor, axis: usize, spec: &DctSpec, out: &Tensor) -> Result<()> {
        if !any_narrow(&[x, out]) {
            return self.0.dct(x, axis, spec, out);
        }
        self.run1(&[x], out, false, |i, o| self.0.dct(&i[0], axis, spec, o))
    }
}

impl<B: Backend> SortBackend for Widen<B> {
    fn sort(
        &self,
        x: &Tensor,
        axis: usize,
        descending: bool,
        values: Option<&Tensor>,
        indices: Option<&Tensor>,
    ) -> Result<()> {
        let vals_narrow = values.is_some_and(|v| wide_dtype(v.dtype()).is_some());
        if wide_dtype(x.dtype()).is_none() && !vals_narrow {
            return self.0.sort(x, axis, descending, values, indices);
        }
        let wx = self.wide(x)?;
        let wv = values.map(|v| self.stand_in(v, false)).transpose()?;
        self.0.sort(&wx, axis, descending, wv.as_ref(), indices)?;
        if let (Some(w), Some(v)) = (&wv, values) {
            self.narrow(w, v)?;
        }
        Ok(())
    }
}

impl<B: Backend> RandomBackend for Widen<B> {
    /// The inner backend's draws (the samplers write no 8-bit float dtype).
    fn draw(&self, out: &Tensor, key: [u32; 2], draw: &super::Draw) -> Result<bool> {
        self.0.draw(out, key, draw)
    }
    fn threefry(&self, key: &Tensor, counter: &Tensor, out: &Tensor) -> Result<bool> {
        self.0.threefry(key, counter, out)
    }
}

impl<B: Backend> DecompBackend for Widen<B> {
    fn decomp(
        &self,
        op: DecompOp,
        inputs: &[&Tensor],
        outputs: &[&Tensor],
    ) -> Result<Option<usize>> {
        if !any_narrow(inputs) && !any_narrow(outputs) {
            return self.0.decomp(op, inputs, outputs);
        }
        let ins = self.wide_all(inputs)?;
        let outs = outputs
            .iter()
            .map(|t| self.stand_in(t, false))
            .collect::<Result<Vec<_>>>()?;
        let (ir, or): (Vec<&Tensor>, Vec<&Tensor>) = (ins.iter().collect(), outs.iter().collect());
        let r = self.0.decomp(op, &ir, &or)?;
        for (w, t) in outs.iter().zip(outputs) {
            self.narrow(w, t)?;
        }
        Ok(r)
    }
}
