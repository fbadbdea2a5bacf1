//! The one elementwise kernel frame every map-like GPU primitive runs through:
//! a set of tensors of one shape (inputs and outputs), their dimensions merged
//! where every operand allows it, bound once per distinct storage (an input
//! that shares the output's storage reads through the output's binding), and a
//! body of WGSL statements run at every element. Also the dispatch itself:
//! metadata buffer, bind group, grid-stride launch. Op bodies live in the
//! family files (`core.rs`, `elementwise.rs`).

use super::buffer::{read_back, GpuBuffer};
use super::context::Context;
use super::wgsl;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::storage::Buffer;
use crate::tensor::Tensor;
use std::fmt::Write;
use std::sync::Arc;

/// Invocations per workgroup of every map kernel.
pub(crate) const WG: u32 = 256;

/// The wgpu buffer of a GPU tensor.
pub(crate) fn raw(t: &Tensor) -> &wgpu::Buffer {
    match t.storage().buffer() {
        Buffer::Gpu(b) => b.raw(),
        #[allow(unreachable_patterns)]
        _ => unreachable!("GPU backend called with a tensor on another device"),
    }
}

/// How the storage binding of `t` (accessed as `d`) splits into windows of at
/// most the context's binding window, at offsets aligned for it.
pub(crate) fn windows(ctx: &Context, t: &Tensor, d: DType) -> wgsl::Win {
    let unit = wgsl::unit_bytes(d);
    let align = (ctx.limits.min_storage_buffer_offset_alignment as u64).max(unit);
    let max = ctx.binding_window();
    let wbytes = (max / align * align).max(align);
    let total = raw(t).size();
    wgsl::Win {
        count: total.div_ceil(wbytes).max(1) as u32,
        units: (wbytes / unit) as u32,
    }
}

/// Bind group entries for the windows of `buf` from binding `slot` on.
pub(crate) fn window_entries<'b>(
    slot: usize,
    buf: &'b wgpu::Buffer,
    d: DType,
    win: wgsl::Win,
    entries: &mut Vec<wgpu::BindGroupEntry<'b>>,
) {
    let wbytes = win.units as u64 * wgsl::unit_bytes(d);
    for w in 0..win.count as u64 {
        let offset = w * wbytes;
        let size = (buf.size() - offset).min(wbytes);
        entries.push(wgpu::BindGroupEntry {
            binding: (slot as u64 + w) as u32,
            resource: wgpu::BindingResource::Buffer(wgpu::BufferBinding {
                buffer: buf,
                offset,
                size: wgpu::BufferSize::new(size),
            }),
        });
    }
}

/// An error when a kernel needs more storage bindings than the adapter has.
pub(crate) fn check_bindings(ctx: &Context, op: &str, n: usize) -> Result<()> {
    let max = ctx.limits.max_storage_buffers_per_shader_stage as usize;
    if n > max {
        return Err(Error::invalid(
            op,
            format!(
                "the tensors need {n} storage bindings on gpu:{} ({}), which allows {max}; \
                 use smaller tensors",
                ctx.index, ctx.name
            ),
        ));
    }
    Ok(())
}

/// The largest element index a kernel can address (i32 arithmetic).
pub(crate) const MAX_ELEMS: usize = i32::MAX as usize;

/// Check that every tensor fits the kernels' 32-bit index arithmetic.
pub(crate) fn check_size(op: &str, ts: &[&Tensor]) -> Result<()> {
    for t in ts {
        if t.storage().len() > MAX_ELEMS {
            return Err(Error::invalid(
                op,
                format!(
                    "a GPU buffer of {} elements is larger than the kernels address ({MAX_ELEMS})",
                    t.storage().len()
                ),
            ));
        }
    }
    Ok(())
}

/// Merge dimensions: drop size-1 axes, then join neighbours `d, d + 1` where
/// every operand has `stride[d] == stride[d + 1] * shape[d + 1]`. Returns the
/// merged shape and per-operand strides.
pub(crate) fn merge_dims(shape: &[usize], strides: &[Vec<isize>]) -> (Vec<usize>, Vec<Vec<isize>>) {
    let keep: Vec<usize> = (0..shape.len()).filter(|&d| shape[d] != 1).collect();
    let mut sh: Vec<usize> = Vec::new();
    let mut st: Vec<Vec<isize>> = vec![Vec::new(); strides.len()];
    for &d in &keep {
        let mergeable = !sh.is_empty()
            && strides
                .iter()
                .enumerate()
                .all(|(k, s)| *st[k].last().unwrap() == s[d] * shape[d] as isize);
        if mergeable {
            *sh.last_mut().unwrap() *= shape[d];
            for (k, s) in strides.iter().enumerate() {
                *st[k].last_mut().unwrap() = s[d];
            }
        } else {
            sh.push(shape[d]);
            for (k, s) in strides.iter().enumerate() {
                st[k].push(s[d]);
            }
        }
    }
    (sh, st)
}

/// One operand of a map kernel.
pub(crate) struct Operand<'a> {
    /// The tensor (its layout has the kernel's shape).
    pub t: &'a Tensor,
    /// Whether the body writes it (`st{k}`), else it is read (`ld{k}`).
    pub written: bool,
    /// The dtype its elements are read and written as (the tensor's own, or
    /// an unsigned type of the same width to move raw bits).
    pub dtype: DType,
}

impl<'a> Operand<'a> {
    /// An input read as its own dtype.
    pub(crate) fn read(t: &'a Tensor) -> Self {
        Operand {
            t,
            written: false,
            dtype: t.dtype(),
        }
    }
    /// An output written as its own dtype.
    pub(crate) fn write(t: &'a Tensor) -> Self {
        Operand {
            t,
            written: true,
            dtype: t.dtype(),
        }
    }
    /// The same operand read or written as `d` (same width).
    pub(crate) fn with_dtype(mut self, d: DType) -> Self {
        debug_assert_eq!(d.itemsize(), self.t.itemsize());
        self.dtype = d;
        self
    }
}

/// A map kernel: operands of one shape, a body of statements run per element
/// that may call `ld{k}(i{k})` / `st{k}(i{k}, v)` for operand `k`, read
/// `prm[j]` (parameters in `param_ty`), and set `flag` bits with
/// `atomicOr(&flag[0], b)`.
pub(crate) struct Map<'a> {
    pub op: &'a str,
    pub operands: Vec<Operand<'a>>,
    /// Extra helper functions (after the prelude).
    pub helpers: String,
    /// Statements run per element.
    pub body: String,
    /// Parameters: their WGSL type and bytes (one binding, read-only).
    pub params: Option<(&'static str, Vec<u8>)>,
    /// Whether the body reports through a flag word, returned by [`Map::run`].
    pub flag: bool,
}

/// Bytes of a parameter list in the compute type of `d` (f64 values
/// converted to that type).
pub(crate) fn param_bytes(d: DType, vals: &[f64]) -> (&'static str, Vec<u8>) {
    let t = wgsl::compute_ty(d);
    let mut out = Vec::new();
    for &v in vals {
        match t {
            "f32" => out.extend_from_slice(&(v as f32).to_ne_bytes()),
            "f64" => out.extend_from_slice(&v.to_ne_bytes()),
            "i32" => out.extend_from_slice(&(v as i32).to_ne_bytes()),
            "u32" => out.extend_from_slice(&(v as u32).to_ne_bytes()),
            "i64" => out.extend_from_slice(&(v as i64).to_ne_bytes()),
            "u64" => out.extend_from_slice(&(v as u64).to_ne_bytes()),
            _ => unreachable!("no complex parameters"),
        }
    }
    (t, out)
}

impl Map<'_> {
    /// Generate the source, dispatch it, and (when `flag`) wait for and return
    /// the flag word.
    pub(crate) fn run(self, ctx: &Arc<Context>) -> Result<u32> {
        let op = self.op;
        ctx.check_alive(op)?;
        let ts: Vec<&Tensor> = self.operands.iter().map(|o| o.t).collect();
        check_size(op, &ts)?;
        for o in &self.operands {
            ctx.check_dtype(op, o.dtype)?;
        }
        let shape = ts[0].shape().to_vec();
        let n: usize = shape.iter().product();
        if n == 0 {
            return Ok(0);
        }
        let strides: Vec<Vec<isize>> = ts.iter().map(|t| t.layout().strides().to_vec()).collect();
        let (mshape, mstrides) = merge_dims(&shape, &strides);
        let contiguous = mshape.len() <= 1 && mstrides.iter().all(|s| s.iter().all(|&x| x == 1));

        // Bindings: one per distinct storage, written if any operand on it is.
        let mut slots: Vec<(usize, bool)> = Vec::new(); // (first operand index, written)
        let mut slot_of = Vec::with_capacity(ts.len());
        for (k, o) in self.operands.iter().enumerate() {
            match slots.iter().position(|&(j, _)| ts[j].same_storage(o.t)) {
                Some(s) => {
                    slots[s].1 |= o.written;
                    slot_of.push(s);
                }
                None => {
                    slots.push((k, o.written));
                    slot_of.push(slots.len() - 1);
                }
            }
        }

        let uses_f64 = self
            .operands
            .iter()
            .any(|o| matches!(o.dtype, DType::F64 | DType::C64))
            || self.params.as_ref().is_some_and(|p| p.0 == "f64");
        let wins: Vec<wgsl::Win> = slots
            .iter()
            .map(|&(j, _)| windows(ctx, ts[j], self.operands[j].dtype))
            .collect();
        let nbind = wins.iter().map(|w| w.count as usize).sum::<usize>()
            + 1
            + self.params.is_some() as usize
            + self.flag as usize;
        check_bindings(ctx, op, nbind)?;
        let mut src = String::new();
        src.push_str("@group(0) @binding(0) var<storage, read> md: array<u32>;\n");
        let mut next = 1;
        let mut first = Vec::with_capacity(slots.len());
        for (s, &(j, w)) in slots.iter().enumerate() {
            first.push(next);
            src.push_str(&wgsl::decl(
                next,
                &format!("b{s}"),
                self.operands[j].dtype,
                w,
                wins[s],
            ));
            next += wins[s].count as usize;
        }
        let prm_slot = self.params.as_ref().map(|(ty, _)| {
            let _ = writeln!(
                src,
                "@group(0) @binding({next}) var<storage, read> prm: array<{ty}>;"
            );
            next += 1;
            next - 1
        });
        let flag_slot = self.flag.then(|| {
            let _ = writeln!(
                src,
                "@group(0) @binding({next}) var<storage, read_write> flag: array<atomic<u32>>;"
            );
            next += 1;
            next - 1
        });
        src.push_str(wgsl::PRELUDE);
        if uses_f64 {
            src.push_str(wgsl::PRELUDE_F64);
        }
        for (k, o) in self.operands.iter().enumerate() {
            let s = slot_of[k];
            let name = format!("b{s}");
            let d = o.dtype;
            if o.written {
                src.push_str(&wgsl::store_fn(k, &name, d));
            }
            src.push_str(&wgsl::load_fn(k, &name, d, slots[s].1));
        }
        src.push_str(&self.helpers);
        let nops = ts.len();
        let _ = writeln!(
            src,
            "@compute @workgroup_size({WG})\nfn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {{\n  let n = md[0];\n  let ndim = md[1];\n  let step = nwg.x * {WG}u;\n  for (var g = gid.x; g < n; g = g + step) {{"
        );
        if contiguous {
            for k in 0..nops {
                let _ = writeln!(src, "    let i{k} = md[2u + {k}u] + g;");
            }
        } else {
            // meta: n, ndim, shape[ndim], then per operand: offset, strides[ndim].
            for k in 0..nops {
                let _ = writeln!(
                    src,
                    "    var j{k} = bitcast<i32>(md[2u + ndim + {k}u * (ndim + 1u)]);"
                );
            }
            let _ = writeln!(
                src,
                "    var r = g;\n    for (var d = i32(ndim) - 1; d >= 0; d = d - 1) {{\n      let s = md[2u + u32(d)];\n      let q = r / s;\n      let c = i32(r - q * s);\n      r = q;"
            );
            for k in 0..nops {
                let _ = writeln!(
                    src,
                    "      j{k} = j{k} + c * bitcast<i32>(md[3u + ndim + {k}u * (ndim + 1u) + u32(d)]);"
                );
            }
            src.push_str("    }\n");
            for k in 0..nops {
                let _ = writeln!(src, "    let i{k} = u32(j{k});");
            }
        }
        src.push_str(&self.body);
        src.push_str("\n  }\n}\n");

        // Metadata.
        let mut meta: Vec<u32> = vec![n as u32];
        if contiguous {
            meta.push(0);
            for t in &ts {
                meta.push(t.offset() as u32);
            }
        } else {
            meta.push(mshape.len() as u32);
            meta.extend(mshape.iter().map(|&d| d as u32));
            for (k, t) in ts.iter().enumerate() {
                meta.push(t.offset() as u32);
                meta.extend(mstrides[k].iter().map(|&s| s as i32 as u32));
            }
        }

        let pipeline = ctx.pipeline(op, &src)?;
        let meta_buf = GpuBuffer::from_bytes(ctx, bytemuck::cast_slice(&meta), op)?;
        let prm_buf = match &self.params {
            Some((_, bytes)) => Some(GpuBuffer::from_bytes(ctx, bytes, op)?),
            None => None,
        };
        let flag_buf = match flag_slot {
            Some(_) => Some(GpuBuffer::new(ctx, 4, true, op)?),
            None => None,
        };
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: meta_buf.raw().as_entire_binding(),
        }];
        for (s, &(j, _)) in slots.iter().enumerate() {
            window_entries(
                first[s],
                raw(ts[j]),
                self.operands[j].dtype,
                wins[s],
                &mut entries,
            );
        }
        if let (Some(slot), Some(b)) = (prm_slot, &prm_buf) {
            entries.push(wgpu::BindGroupEntry {
                binding: slot as u32,
                resource: b.raw().as_entire_binding(),
            });
        }
        if let (Some(slot), Some(b)) = (flag_slot, &flag_buf) {
            entries.push(wgpu::BindGroupEntry {
                binding: slot as u32,
                resource: b.raw().as_entire_binding(),
            });
        }
        let groups = (n as u64).div_ceil(WG as u64).min(65_535) as u32;
        dispatch(ctx, op, &pipeline, &entries, (groups, 1, 1));
        match flag_buf {
            Some(b) => {
                let bytes = read_back(ctx, b.raw(), 0, 4, op)?;
                Ok(u32::from_ne_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]))
            }
            None => Ok(0),
        }
    }
}

/// Record one dispatch of `pipeline` with `entries` bound as group 0 into the
/// context's open encoder (submitted at once when it has 2^20 invocations or
/// more, else with the next batch; see [`Context::record`]).
pub(crate) fn dispatch(
    ctx: &Context,
    op: &str,
    pipeline: &wgpu::ComputePipeline,
    entries: &[wgpu::BindGroupEntry<'_>],
    groups: (u32, u32, u32),
) {
    let bind = ctx.device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(op),
        layout: &pipeline.get_bind_group_layout(0),
        entries,
    });
    let big = groups.0 as u64 * groups.1 as u64 * groups.2 as u64 >= 4096;
    ctx.record(big, |enc| {
        let mut pass = enc.begin_compute_pass(&wgpu::ComputePassDescriptor {
            label: Some(op),
            timestamp_writes: None,
        });
        pass.set_pipeline(pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups(groups.0, groups.1, groups.2);
    });
}
