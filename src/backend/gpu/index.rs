//! GPU gather and scatter along an axis, as map kernels over the gathered
//! (scattered) side: the indexed tensor is given to the map frame as a view
//! with stride 0 along the axis, and each element adds `indices[j] * stride`
//! to its address. Elements move as raw bits (NaN payloads kept). Indices are
//! i32 (or i64 on adapters with 64-bit integers), per the trait contract.
//! `scatter_reduce` (repeated indices combine in order) is in
//! `scatter_reduce.rs`.

use super::core::bits_dtype;
use super::kernel::{Map, Operand};
use super::GpuBackend;
use crate::backend::index::{Checked, IndexBackend, ScatterOp};
use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::Tensor;

/// `t` viewed with `shape` (the other side's) and stride 0 along `axis`:
/// the address of element `[.., j, ..]` before the index is added.
fn axis_base(t: &Tensor, axis: usize, shape: &[usize]) -> Tensor {
    let mut strides = t.layout().strides().to_vec();
    strides[axis] = 0;
    t.with_layout(Layout::new(shape.to_vec(), strides, t.offset()))
}

/// `indices` broadcast along every axis but `axis` of `shape`.
fn index_view(indices: &Tensor, axis: usize, shape: &[usize]) -> Tensor {
    let mut strides = vec![0isize; shape.len()];
    strides[axis] = indices.layout().strides()[0];
    indices.with_layout(Layout::new(shape.to_vec(), strides, indices.offset()))
}

impl GpuBackend {
    /// Gather (`scatter == false`: `a` is the output, `b` the source) or
    /// scatter (`a` is the source, `b` the destination); `a` has the
    /// indices' length along `axis`.
    fn move_axis(
        &self,
        op: &str,
        a: &Tensor,
        b: &Tensor,
        axis: usize,
        indices: &Tensor,
        scatter: bool,
    ) -> Result<()> {
        let ctx = self.ctx(op)?;
        let bd = bits_dtype(
            a.dtype(),
            ctx.features.contains(wgpu::Features::SHADER_INT64),
        );
        let stride = b.layout().strides()[axis] as i32;
        let based = axis_base(b, axis, a.shape());
        let iv = index_view(indices, axis, a.shape());
        // Operand 0 is the side in `a`'s shape, 1 the indexed side, 2 the
        // indices; the indexed address is `i1 + indices[j] * stride`.
        let (ops, body) = if scatter {
            (
                vec![
                    Operand::read(a).with_dtype(bd),
                    Operand::write(&based).with_dtype(bd),
                    Operand::read(&iv),
                ],
                "    st1(u32(i32(i1) + i32(ld2(i2)) * prm[0]), ld0(i0));",
            )
        } else {
            (
                vec![
                    Operand::write(a).with_dtype(bd),
                    Operand::read(&based).with_dtype(bd),
                    Operand::read(&iv),
                ],
                "    st0(i0, ld1(u32(i32(i1) + i32(ld2(i2)) * prm[0])));",
            )
        };
        Map {
            op,
            operands: ops,
            helpers: String::new(),
            body: body.into(),
            params: Some(("i32", stride.to_ne_bytes().to_vec())),
            flag: false,
        }
        .run(&ctx)?;
        Ok(())
    }
}

impl GpuBackend {
    /// The checking gathers: the gather map kernel over `out`, `iv` the
    /// indices seen in `out`'s shape, each invocation first checking its
    /// index against `0..len` (an index outside sets the flag word instead
    /// of reading).
    fn gather_checked(
        &self,
        src: &Tensor,
        axis: usize,
        iv: &Tensor,
        out: &Tensor,
    ) -> Result<Checked> {
        let ctx = self.ctx("gather")?;
        let bd = bits_dtype(
            out.dtype(),
            ctx.features.contains(wgpu::Features::SHADER_INT64),
        );
        let len = src.shape()[axis];
        if len > i32::MAX as usize {
            return Ok(Checked::Declined);
        }
        let stride = src.layout().strides()[axis] as i32;
        let based = axis_base(src, axis, out.shape());
        let ty = super::wgsl::compute_ty(iv.dtype());
        let prm: Vec<u8> = [stride, len as i32]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        let flag = Map {
            op: "gather_checking",
            operands: vec![
                Operand::write(out).with_dtype(bd),
                Operand::read(&based).with_dtype(bd),
                Operand::read(iv),
            ],
            helpers: String::new(),
            body: format!(
                "    let ix = ld2(i2);\n    if (ix < {ty}(0) || ix >= {ty}(prm[1])) {{\n      \
                 atomicOr(&flag[0], 1u);\n    }} else {{\n      \
                 st0(i0, ld1(u32(i32(i1) + i32(ix) * prm[0])));\n    }}"
            ),
            params: Some(("i32", prm)),
            flag: true,
        }
        .run(&ctx)?;
        Ok(if flag == 0 {
            Checked::Done
        } else {
            Checked::OutOfRange
        })
    }
}

impl IndexBackend for GpuBackend {
    /// A map kernel over `out` that checks each index as it reads (one
    /// flag word read back): `take` of GPU tensors reads no index on the
    /// host unless one is negative or out of range.
    fn gather_checking(
        &self,
        src: &Tensor,
        axis: usize,
        indices: &Tensor,
        out: &Tensor,
    ) -> Result<Checked> {
        let iv = index_view(indices, axis, out.shape());
        self.gather_checked(src, axis, &iv, out)
    }

    /// The same kernel with the indices in `out`'s shape (`take_along_axis`
    /// and `gather` of GPU tensors read no index on the host unless one is
    /// negative or out of range).
    fn gather_along_checking(
        &self,
        src: &Tensor,
        axis: usize,
        indices: &Tensor,
        out: &Tensor,
    ) -> Result<Checked> {
        self.gather_checked(src, axis, indices, out)
    }

    /// A map kernel over `out`.
    fn gather(&self, src: &Tensor, axis: usize, indices: &Tensor, out: &Tensor) -> Result<()> {
        self.move_axis("gather", out, src, axis, indices, false)
    }

    /// A map kernel over `src` (the indices are distinct: no write races).
    fn scatter(&self, src: &Tensor, axis: usize, indices: &Tensor, dst: &Tensor) -> Result<()> {
        self.move_axis("scatter", src, dst, axis, indices, true)
    }

    /// The kernel of `scatter_reduce.rs` (one invocation per destination
    /// element folding its sources in order; the indices read back once and
    /// grouped on the host; longer runs of the associative combinations in
    /// two passes); the CPU round trip (download, CPU `scatter_reduce`,
    /// upload) for a float sum or product where a destination has more than
    /// [`super::scatter_reduce::MAX_RUN`] sources, or a dtype the adapter
    /// lacks. Results are the CPU's, bit for bit, either way.
    fn scatter_reduce(
        &self,
        src: &Tensor,
        axis: usize,
        indices: &Tensor,
        dst: &Tensor,
        op: ScatterOp,
    ) -> Result<()> {
        if self.scatter_reduce_kernel(src, axis, indices, dst, op)? {
            return Ok(());
        }
        super::via_cpu(&[src, indices], &[dst], |cpu, i, o| {
            cpu.scatter_reduce(&i[0], axis, &i[1], &o[0], op)
        })
    }
}
