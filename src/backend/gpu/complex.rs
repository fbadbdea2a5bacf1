//! Complex tensors (c32, and c64 on adapters with SHADER_F64) on the GPU:
//! the backend that `Device::Gpu(i)` hands to the ops, [`Routed`], which
//! sends every primitive to the GPU backend, except that a computing
//! primitive given a complex tensor for which no GPU kernel exists takes the
//! documented CPU round trip ([`super::via_cpu`]: download, the CPU
//! backend's kernel, upload; results exactly the CPU's).
//!
//! On the GPU itself, complex elements are `vec2<f32>` / `vec2<f64>` (real,
//! imaginary), the layout of `num_complex::Complex`. GPU kernels exist for
//! the data-moving primitives (alloc, upload, download, fill, copy, the
//! casts that need no rounding, `gather` / `scatter`, which move raw bits),
//! for add, sub, mul, div, neg, conj, square, recip, abs, sqrt, sign and c32
//! exp and log (`complex_ew.rs`), for sum, mean, cumsum and matmul (the
//! real kernels on the split parts, `complex_split.rs`) and for the Fourier
//! transforms (`fft.rs`); the comparisons `==` / `!=`, isnan / isinf /
//! isfinite and `where` / `select` have kernels too. Every other primitive
//! given a complex operand (the other elementwise ops, the other reductions
//! and scans, softmax, sort, `scatter_reduce`, the window primitives) takes
//! the round trip: the ops that complex tensors support on the CPU work on
//! GPU tensors too, with the CPU's results, at the cost of the transfers.
//! The round trip is listed in the README's device table.

use super::{via_cpu, GpuBackend};
use crate::backend::{
    ArgOp, BinaryOp, Checked, ClassOp, CmpOp, CoreBackend, DctSpec, DecompBackend, DecompOp,
    ElementwiseBackend, FftBackend, FftSpec, IndexBackend, LinalgBackend, NormOp, PoolWindow,
    RandomBackend, ReduceBackend, ReduceOp, ScanOp, ScatterOp, SoftmaxOp, SortBackend, TernaryOp,
    UnaryOp,
};
use crate::device::Device;
use crate::dtype::{DType, Scalar};
use crate::error::Result;
use crate::storage::Storage;
use crate::tensor::Tensor;

/// The GPU backend as the ops see it (see the module docs).
#[derive(Debug)]
pub(crate) struct Routed {
    /// The adapter's index.
    pub(crate) index: usize,
}

impl Routed {
    /// The GPU backend behind it.
    fn gpu(&self) -> &'static GpuBackend {
        &super::all()[self.index].0
    }
}

/// Whether any of the tensors is complex.
fn any_complex(ts: &[&Tensor]) -> bool {
    ts.iter().any(|t| t.dtype().is_complex())
}

/// Whether any of the optional tensors is complex.
fn any_complex_opt(ts: &[Option<&Tensor>]) -> bool {
    ts.iter().flatten().any(|t| t.dtype().is_complex())
}

impl CoreBackend for Routed {
    fn device(&self) -> Device {
        self.gpu().device()
    }
    fn alloc(&self, dtype: DType, len: usize) -> Result<Storage> {
        self.gpu().alloc(dtype, len)
    }
    fn alloc_for_overwrite(&self, dtype: DType, len: usize) -> Result<Storage> {
        self.gpu().alloc_for_overwrite(dtype, len)
    }
    fn upload(&self, dtype: DType, bytes: &[u8]) -> Result<Storage> {
        self.gpu().upload(dtype, bytes)
    }
    fn download(&self, src: &Tensor, dst: &mut [u8]) -> Result<()> {
        self.gpu().download(src, dst)
    }
    fn fill(&self, dst: &Tensor, value: Scalar) -> Result<()> {
        self.gpu().fill(dst, value)
    }
    fn copy(&self, src: &Tensor, dst: &Tensor) -> Result<()> {
        self.gpu().copy(src, dst)
    }
    /// The GPU kernel (casts between complex and real dtypes included; the
    /// GPU backend takes the round trip itself for the ones that round in a
    /// way WGSL does not promise).
    fn cast(&self, src: &Tensor, dst: &Tensor) -> Result<()> {
        self.gpu().cast(src, dst)
    }
}

impl ElementwiseBackend for Routed {
    fn unary(&self, op: UnaryOp, x: &Tensor, out: &Tensor) -> Result<()> {
        if any_complex(&[x, out]) {
            if x.dtype().is_complex() && super::complex_ew::unary(self.gpu(), op, x, out)? {
                return Ok(());
            }
            return via_cpu(&[x], &[out], |c, i, o| c.unary(op, &i[0], &o[0]));
        }
        self.gpu().unary(op, x, out)
    }
    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<()> {
        if any_complex(&[a, b, out]) {
            if super::complex_ew::binary(self.gpu(), op, a, b, out)? {
                return Ok(());
            }
            return via_cpu(&[a, b], &[out], |c, i, o| c.binary(op, &i[0], &i[1], &o[0]));
        }
        self.gpu().binary(op, a, b, out)
    }
    fn compare(&self, op: CmpOp, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<()> {
        if any_complex(&[a, b, out]) {
            if super::complex_ew::compare(self.gpu(), op, a, b, out)? {
                return Ok(());
            }
            return via_cpu(&[a, b], &[out], |c, i, o| {
                c.compare(op, &i[0], &i[1], &o[0])
            });
        }
        self.gpu().compare(op, a, b, out)
    }
    fn classify(&self, op: ClassOp, x: &Tensor, out: &Tensor) -> Result<()> {
        if x.dtype().is_complex() {
            return super::complex_ew::classify(self.gpu(), op, x, out);
        }
        self.gpu().classify(op, x, out)
    }
    fn select(&self, mask: &Tensor, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<()> {
        // The GPU kernel moves whole elements: complex ones too.
        self.gpu().select(mask, a, b, out)
    }
    fn ternary(
        &self,
        op: TernaryOp,
        a: &Tensor,
        b: &Tensor,
        c: &Tensor,
        out: &Tensor,
    ) -> Result<()> {
        if any_complex(&[a, b, c, out]) {
            return via_cpu(&[a, b, c], &[out], |cpu, i, o| {
                cpu.ternary(op, &i[0], &i[1], &i[2], &o[0])
            });
        }
        self.gpu().ternary(op, a, b, c, out)
    }
}

impl ReduceBackend for Routed {
    fn reduce(&self, op: ReduceOp, x: &Tensor, axes: &[usize], out: &Tensor) -> Result<()> {
        if any_complex(&[x, out]) {
            if super::complex_split::reduce(self.gpu(), op, x, axes, out)? {
                return Ok(());
            }
            return via_cpu(&[x], &[out], |c, i, o| c.reduce(op, &i[0], axes, &o[0]));
        }
        self.gpu().reduce(op, x, axes, out)
    }
    fn arg_reduce(&self, op: ArgOp, x: &Tensor, axis: usize, out: &Tensor) -> Result<()> {
        if any_complex(&[x, out]) {
            return via_cpu(&[x], &[out], |c, i, o| c.arg_reduce(op, &i[0], axis, &o[0]));
        }
        self.gpu().arg_reduce(op, x, axis, out)
    }
    fn softmax(&self, op: SoftmaxOp, x: &Tensor, axes: &[usize], out: &Tensor) -> Result<()> {
        if any_complex(&[x, out]) {
            return via_cpu(&[x], &[out], |c, i, o| c.softmax(op, &i[0], axes, &o[0]));
        }
        self.gpu().softmax(op, x, axes, out)
    }
    fn scan(&self, op: ScanOp, x: &Tensor, axis: usize, out: &Tensor) -> Result<()> {
        if any_complex(&[x, out]) {
            if super::complex_split::scan(self.gpu(), op, x, axis, out)? {
                return Ok(());
            }
            return via_cpu(&[x], &[out], |c, i, o| c.scan(op, &i[0], axis, &o[0]));
        }
        self.gpu().scan(op, x, axis, out)
    }
    fn window_mean(&self, x: &Tensor, axis: usize, size: usize, out: &Tensor) -> Result<()> {
        if any_complex(&[x, out]) {
            return via_cpu(&[x], &[out], |c, i, o| {
                c.window_mean(&i[0], axis, size, &o[0])
            });
        }
        self.gpu().window_mean(x, axis, size, out)
    }
    fn window_reduce(
        &self,
        op: ReduceOp,
        x: &Tensor,
        axis: usize,
        w: &PoolWindow,
        init: Scalar,
        out: &Tensor,
    ) -> Result<()> {
        if any_complex(&[x, out]) {
            return via_cpu(&[x], &[out], |c, i, o| {
                c.window_reduce(op, &i[0], axis, w, init, &o[0])
            });
        }
        self.gpu().window_reduce(op, x, axis, w, init, out)
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
        if !any_complex(&[x, out]) && !any_complex_opt(&[weight, bias]) {
            return self.gpu().norm(op, x, axes, weight, bias, out);
        }
        let ins: Vec<&Tensor> = [Some(x), weight, bias].into_iter().flatten().collect();
        via_cpu(&ins, &[out], |c, i, o| {
            let (w, b) = match (weight, bias) {
                (Some(_), Some(_)) => (Some(&i[1]), Some(&i[2])),
                (Some(_), None) => (Some(&i[1]), None),
                (None, Some(_)) => (None, Some(&i[1])),
                (None, None) => (None, None),
            };
            c.norm(op, &i[0], axes, w, b, &o[0])
        })
    }
}

impl LinalgBackend for Routed {
    fn matmul(&self, a: &Tensor, b: &Tensor, out: &Tensor, accumulate: bool) -> Result<()> {
        if any_complex(&[a, b, out]) {
            if super::complex_split::matmul(self.gpu(), a, b, out, accumulate)? {
                return Ok(());
            }
            return via_cpu(&[a, b], &[out], |c, i, o| {
                c.matmul(&i[0], &i[1], &o[0], accumulate)
            });
        }
        self.gpu().matmul(a, b, out, accumulate)
    }
    fn conv3x3(
        &self,
        x: &Tensor,
        w: &Tensor,
        out: &Tensor,
        groups: usize,
        accumulate: bool,
    ) -> Result<()> {
        self.gpu().conv3x3(x, w, out, groups, accumulate)
    }
}

impl IndexBackend for Routed {
    /// The GPU kernel, complex included (it moves raw bits).
    fn gather(&self, src: &Tensor, axis: usize, indices: &Tensor, out: &Tensor) -> Result<()> {
        self.gpu().gather(src, axis, indices, out)
    }
    fn gather_checking(
        &self,
        src: &Tensor,
        axis: usize,
        indices: &Tensor,
        out: &Tensor,
    ) -> Result<Checked> {
        self.gpu().gather_checking(src, axis, indices, out)
    }
    fn gather_along_checking(
        &self,
        src: &Tensor,
        axis: usize,
        indices: &Tensor,
        out: &Tensor,
    ) -> Result<Checked> {
        self.gpu().gather_along_checking(src, axis, indices, out)
    }
    /// The GPU kernel, complex included (it moves raw bits).
    fn scatter(&self, src: &Tensor, axis: usize, indices: &Tensor, dst: &Tensor) -> Result<()> {
        self.gpu().scatter(src, axis, indices, dst)
    }
    fn scatter_reduce(
        &self,
        src: &Tensor,
        axis: usize,
        indices: &Tensor,
        dst: &Tensor,
        op: ScatterOp,
    ) -> Result<()> {
        if any_complex(&[src, dst]) {
            return via_cpu(&[src, indices], &[dst], |c, i, o| {
                c.scatter_reduce(&i[0], axis, &i[1], &o[0], op)
            });
        }
        self.gpu().scatter_reduce(src, axis, indices, dst, op)
    }
    fn scatter_reduce_checking(
        &self,
        src: &Tensor,
        axis: usize,
        indices: &Tensor,
        dst: &Tensor,
        op: ScatterOp,
    ) -> Result<Checked> {
        if any_complex(&[src, dst]) {
            return Ok(Checked::Declined);
        }
        self.gpu()
            .scatter_reduce_checking(src, axis, indices, dst, op)
    }
}

impl FftBackend for Routed {
    /// The GPU kernels of `fft.rs`.
    fn fft(&self, x: &Tensor, axis: usize, spec: &FftSpec, out: &Tensor) -> Result<()> {
        self.gpu().fft(x, axis, spec, out)
    }
    fn dct(&self, x: &Tensor, axis: usize, spec: &DctSpec, out: &Tensor) -> Result<()> {
        self.gpu().dct(x, axis, spec, out)
    }
}

impl SortBackend for Routed {
    fn sort(
        &self,
        x: &Tensor,
        axis: usize,
        descending: bool,
        values: Option<&Tensor>,
        indices: Option<&Tensor>,
    ) -> Result<()> {
        if !any_complex(&[x]) && !any_complex_opt(&[values]) {
            return self.gpu().sort(x, axis, descending, values, indices);
        }
        let outs: Vec<&Tensor> = [values, indices].into_iter().flatten().collect();
        via_cpu(&[x], &outs, |c, i, o| {
            let (v, ix) = match (values, indices) {
                (Some(_), Some(_)) => (Some(&o[0]), Some(&o[1])),
                (Some(_), None) => (Some(&o[0]), None),
                (None, Some(_)) => (None, Some(&o[0])),
                (None, None) => (None, None),
            };
            c.sort(&i[0], axis, descending, v, ix)
        })
    }
    /// The GPU kernel (real and integer dtypes; complex never reaches it).
    fn searchsorted(
        &self,
        sorted: &Tensor,
        values: &Tensor,
        right: bool,
        out: &Tensor,
    ) -> Result<bool> {
        self.gpu().searchsorted(sorted, values, right, out)
    }
}

impl RandomBackend for Routed {
    /// The GPU kernels of `random.rs` (no complex draws exist).
    fn draw(&self, out: &Tensor, key: [u32; 2], draw: &crate::backend::Draw) -> Result<bool> {
        self.gpu().draw(out, key, draw)
    }
    fn threefry(&self, key: &Tensor, counter: &Tensor, out: &Tensor) -> Result<bool> {
        self.gpu().threefry(key, counter, out)
    }
}

impl DecompBackend for Routed {
    /// The GPU backend's CPU round trip (complex outputs of `eig` included).
    fn decomp(
        &self,
        op: DecompOp,
        inputs: &[&Tensor],
        outputs: &[&Tensor],
    ) -> Result<Option<usize>> {
        self.gpu().decomp(op, inputs, outputs)
    }
}
