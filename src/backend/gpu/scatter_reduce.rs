//! GPU `scatter_reduce` (the `IndexBackend` primitive behind `scatter_with`'s
//! add/multiply/max/min, `index_put` with `accumulate` and `bincount`):
//! `dst[.., indices[j], ..] = op(dst[.., indices[j], ..], src[.., j, ..])`
//! for `j = 0, 1, ...` in this order, bit for bit the CPU's results.
//!
//! The order is the contract (float sums round at every step), so the
//! kernel runs one invocation per destination element and lets it fold its
//! sources in increasing `j`. To find them, the indices are read back once
//! and grouped on the host by a stable counting sort into CSR form: for
//! destination position `p` along the axis, `js[starts[p]..starts[p + 1]]`
//! are the source positions that land on it, increasing. Both lists travel
//! to the device in one u32 buffer; `src` and `dst` never leave it. The map
//! kernel (`kernel.rs`) runs over `dst`'s shape with `src` seen with stride
//! 0 along the axis (the base address of its line), the CSR offsets with
//! stride 1 along the axis and the list with stride 0 everywhere; positions
//! that no index names keep their value (nothing is stored there).
//!
//! Combining, per step, as the CPU's `combine`: integers wrap (sub-word
//! ones computed in 32 bits, whose low bits are the same), f16/bf16 add or
//! multiply in f32 and round to their own precision at every step (two
//! halves' sum or product rounded to f32 and then to the half type is their
//! exactly rounded result), `max`/`min` keep the current value unless it is
//! NaN or the new one is NaN or strictly larger (smaller).
//!
//! No invocation folds more than [`MAX_RUN`] sources: a run is one chain of
//! dependent steps, and lavapipe stops shader loops after about 2^15
//! iterations. Where a destination has more, integer sums and products
//! (wrapping) and max/min (the first NaN, else the first of the largest:
//! associative) run in two passes: the run cut into chunks of `MAX_RUN`
//! sources, each folded from its first source into a partial (its own
//! invocation), then each destination folds its chunks' partials in order,
//! which gives the sequential result. Float sums and products, whose
//! rounding depends on the order, take the CPU round trip instead
//! (download, CPU, upload), as do runs longer than `MAX_RUN^2` and 64-bit
//! dtypes on adapters without them.

use super::kernel::{Map, Operand};
use super::wgsl;
use super::GpuBackend;
use crate::backend::index::ScatterOp;
use crate::backend::CoreBackend;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::tensor::Tensor;
use std::sync::Arc;

/// Most sources one destination element folds on the GPU.
pub(super) const MAX_RUN: usize = 4096;

/// The indices grouped by destination: `starts` (`len + 1` offsets) then
/// the source positions `js`, increasing within each destination, and the
/// longest run. An index outside `0..len` (which the frontend never
/// passes) is an error.
fn csr(op: &str, idx: &[i64], len: usize) -> Result<(Vec<u32>, usize)> {
    let mut out = vec![0u32; len + 1 + idx.len()];
    for &i in idx {
        if i < 0 || i as usize >= len {
            return Err(Error::invalid(
                op,
                format!("index {i} is outside 0..{len} of the scattered axis"),
            ));
        }
        out[i as usize + 1] += 1;
    }
    let mut longest = 0;
    for p in 0..len {
        longest = longest.max(out[p + 1] as usize);
        out[p + 1] += out[p];
    }
    let mut next: Vec<u32> = out[..len].to_vec();
    for (j, &i) in idx.iter().enumerate() {
        let slot = &mut next[i as usize];
        out[len + 1 + *slot as usize] = j as u32;
        *slot += 1;
    }
    Ok((out, longest))
}

/// The two-level lists of CSR `lists` (`len + 1` offsets, then the
/// sources): every destination's run cut into chunks of at most
/// [`MAX_RUN`] sources, in order. Returns `[chunk offsets per destination
/// (len + 1), source offsets per chunk (chunks + 1), sources]` and the
/// number of chunks.
fn chunked(lists: &[u32], len: usize) -> (Vec<u32>, usize) {
    let (starts, js) = lists.split_at(len + 1);
    let mut per = Vec::with_capacity(len + 1);
    let mut bounds = Vec::new();
    per.push(0u32);
    for p in 0..len {
        let (a, e) = (starts[p] as usize, starts[p + 1] as usize);
        for c in (a..e).step_by(MAX_RUN) {
            bounds.push(c as u32);
        }
        per.push(bounds.len() as u32);
    }
    let chunks = bounds.len();
    bounds.push(js.len() as u32);
    let mut out = per;
    out.extend_from_slice(&bounds);
    out.extend_from_slice(js);
    (out, chunks)
}

/// The WGSL helpers of the kernel over `d`'s compute type `t`: `rnd(v)`
/// (rounding to `d`'s precision) and `comb(a, b)` for `op`.
fn helpers(d: DType, op: ScatterOp) -> String {
    let t = wgsl::compute_ty(d);
    let rnd = match d {
        DType::F16 => "f16_to_f32(f32_to_f16(v))",
        DType::BF16 => "bitcast<f32>(f32_to_bf16(v) << 16u)",
        _ => "v",
    };
    let body = match op {
        ScatterOp::Add => "return rnd(a + b);".to_string(),
        ScatterOp::Mul => "return rnd(a * b);".to_string(),
        ScatterOp::Max | ScatterOp::Min => {
            let cmp = if op == ScatterOp::Max {
                "b > a"
            } else {
                "b < a"
            };
            format!(
                "if ({}) {{ return a; }}\n  if ({} || {cmp}) {{ return b; }}\n  return a;",
                wgsl::is_nan(d, "a"),
                wgsl::is_nan(d, "b")
            )
        }
    };
    format!(
        "fn rnd(v: {t}) -> {t} {{ return {rnd}; }}\nfn comb(a: {t}, b: {t}) -> {t} {{\n  {body}\n}}\n"
    )
}

/// One fold kernel: each element of `out` (an element of `src`'s lines at
/// position `p` along `axis`) combines the sources `bounds[p]..bounds[p +
/// 1]` (a u32 list at an offset of the list tensor) in order: `src` at the
/// positions listed in `js` (a list at an offset), or at those positions
/// themselves without `js`; starting from its own value (`from_out`), or
/// from its first source (each range then holds one at least).
struct Fold<'a> {
    out: &'a Tensor,
    src: &'a Tensor,
    axis: usize,
    bounds: (&'a Tensor, usize),
    js: Option<(&'a Tensor, usize)>,
    from_out: bool,
}

impl Fold<'_> {
    fn run(self, be: &GpuBackend, d: DType, op: ScatterOp) -> Result<()> {
        let shape = self.out.shape().to_vec();
        let rank = shape.len();
        let axis = self.axis;
        // `src` at `[.., 0, ..]` of each line, the offsets along the axis,
        // the source list at the same element for every invocation.
        let mut ss = self.src.layout().strides().to_vec();
        let step = ss[axis] as i32;
        ss[axis] = 0;
        let base = self
            .src
            .with_layout(Layout::new(shape.clone(), ss, self.src.offset()));
        let mut bs = vec![0isize; rank];
        bs[axis] = 1;
        let (bt, bo) = self.bounds;
        let bounds = bt.with_layout(Layout::new(shape.clone(), bs, bo));
        let mut operands = vec![
            Operand::write(self.out),
            Operand::read(&base),
            Operand::read(&bounds),
        ];
        let js;
        let listed = match self.js {
            Some((jt, jo)) => {
                js = jt.with_layout(Layout::new(shape.clone(), vec![0; rank], jo));
                operands.push(Operand::read(&js));
                true
            }
            None => false,
        };
        // The source at list position `q` (a WGSL expression).
        let at = |q: &str| {
            if listed {
                format!("ld1(u32(i32(i1) + i32(ld3(i3 + {q})) * prm[0]))")
            } else {
                format!("ld1(u32(i32(i1) + i32({q}) * prm[0]))")
            }
        };
        let body = if self.from_out {
            format!(
                "    let a = ld2(i2);\n    let e = ld2(i2 + 1u);\n    if (a < e) {{\n      var v = ld0(i0);\n      for (var q = a; q < e; q = q + 1u) {{\n        v = comb(v, {});\n      }}\n      st0(i0, v);\n    }}",
                at("q")
            )
        } else {
            format!(
                "    let a = ld2(i2);\n    let e = ld2(i2 + 1u);\n    var v = {};\n    for (var q = a + 1u; q < e; q = q + 1u) {{\n      v = comb(v, {});\n    }}\n    st0(i0, v);",
                at("a"),
                at("q")
            )
        };
        Map {
            op: "scatter_reduce",
            operands,
            helpers: helpers(d, op),
            body,
            params: Some(("i32", step.to_ne_bytes().to_vec())),
            flag: false,
        }
        .run(&be.ctx("scatter_reduce")?)?;
        Ok(())
    }
}

impl GpuBackend {
    /// A contiguous GPU u32 tensor holding `v`.
    fn u32_list(&self, v: &[u32]) -> Result<Tensor> {
        let s = self.upload(DType::U32, bytemuck::cast_slice(v))?;
        Tensor::from_parts(Arc::new(s), Layout::contiguous(&[v.len()]))
    }

    /// The primitive (see the module doc); `false` when it needs the CPU
    /// round trip (a float sum or product with a run longer than
    /// [`MAX_RUN`], a run longer than `MAX_RUN^2`, a dtype the adapter
    /// lacks).
    pub(super) fn scatter_reduce_kernel(
        &self,
        src: &Tensor,
        axis: usize,
        indices: &Tensor,
        dst: &Tensor,
        op: ScatterOp,
    ) -> Result<bool> {
        let name = "scatter_reduce";
        let ctx = self.ctx(name)?;
        let d = dst.dtype();
        if ctx.check_dtype(name, d).is_err() {
            return Ok(false);
        }
        let n = indices.numel();
        if n == 0 || dst.numel() == 0 {
            return Ok(true);
        }
        let mut bytes = vec![0u8; indices.nbytes()];
        self.download(indices, &mut bytes)?;
        let idx: Vec<i64> = match indices.dtype() {
            DType::I32 => bytes
                .chunks_exact(4)
                .map(|b| i32::from_ne_bytes([b[0], b[1], b[2], b[3]]) as i64)
                .collect(),
            DType::I64 => bytes
                .chunks_exact(8)
                .map(|b| i64::from_ne_bytes(b.try_into().expect("8 bytes")))
                .collect(),
            other => {
                return Err(Error::invalid(
                    name,
                    format!("indices must be i32 or i64, got {other}"),
                ));
            }
        };
        let len = dst.shape()[axis];
        let (lists, longest) = csr(name, &idx, len)?;
        if longest <= MAX_RUN {
            // One pass: each destination folds its sources.
            let lists = self.u32_list(&lists)?;
            let fold = Fold {
                out: dst,
                src,
                axis,
                bounds: (&lists, 0),
                js: Some((&lists, len + 1)),
                from_out: true,
            };
            return fold.run(self, d, op).map(|()| true);
        }
        // Float sums and products must run in order: the CPU round trip.
        // Integer arithmetic (wrapping) and max/min (the first NaN, else the
        // first of the largest) are associative, so a long run splits into
        // chunks folded side by side, then folded in order.
        let associative = !d.is_float() || matches!(op, ScatterOp::Max | ScatterOp::Min);
        if !associative || longest.div_ceil(MAX_RUN) > MAX_RUN {
            return Ok(false);
        }
        let (two, chunks) = chunked(&lists, len);
        let two = self.u32_list(&two)?;
        let mut pshape = dst.shape().to_vec();
        pshape[axis] = chunks;
        let part = self.temp(d, &pshape)?;
        Fold {
            out: &part,
            src,
            axis,
            bounds: (&two, len + 1),
            js: Some((&two, len + chunks + 2)),
            from_out: false,
        }
        .run(self, d, op)?;
        Fold {
            out: dst,
            src: &part,
            axis,
            bounds: (&two, 0),
            js: None,
            from_out: true,
        }
        .run(self, d, op)?;
        Ok(true)
    }
}
