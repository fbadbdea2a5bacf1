//! The tiled transposed copy: `copy` of 4-byte elements between layouts that
//! merge to `[rows, cols]` (or a batch of them) where the source is
//! contiguous along the rows and the destination along the columns (a
//! `contiguous()` of a transposed matrix). The strided copy kernel reads
//! such a source with a stride of a whole row per element; here a workgroup
//! of 32x8 invocations moves a 32x32 tile through workgroup memory (rows
//! padded to 33 words, so neither phase has bank conflicts): it reads the
//! tile along the source's contiguous axis and writes it along the
//! destination's, both coalesced. Raw bits move, as in every copy. Other
//! copies take the kernel of `core.rs`.

use super::buffer::GpuBuffer;
use super::kernel::{
    check_bindings, check_size, dispatch, merge_dims, raw, window_entries, windows,
};
use super::reduce_plan::fast_enabled;
use super::wgsl;
use super::GpuBackend;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;
use std::fmt::Write;

/// The tile edge.
const T: usize = 32;

/// The transposed shape `[batch, rows, cols]` and strides `[batch, row,
/// col]` of source and destination when `copy(src, dst)` is one (see the
/// module doc), else `None`.
fn transposed(src: &Tensor, dst: &Tensor) -> Option<([usize; 3], [[isize; 3]; 2])> {
    if src.itemsize() != 4 || src.numel() == 0 || src.same_storage(dst) || !fast_enabled() {
        return None;
    }
    let (shape, st) = merge_dims(
        src.shape(),
        &[
            src.layout().strides().to_vec(),
            dst.layout().strides().to_vec(),
        ],
    );
    let (s, d) = (&st[0], &st[1]);
    match shape.len() {
        2 if s[0] == 1 && d[1] == 1 => {
            Some(([1, shape[0], shape[1]], [[0, s[0], s[1]], [0, d[0], d[1]]]))
        }
        3 if s[1] == 1 && d[2] == 1 => Some((
            [shape[0], shape[1], shape[2]],
            [[s[0], s[1], s[2]], [d[0], d[1], d[2]]],
        )),
        _ => None,
    }
}

impl GpuBackend {
    /// `copy(src, dst)` by the tiled kernel when it is a transposed copy of
    /// 4-byte elements; `false` (nothing done) otherwise.
    pub(super) fn copy_transposed(&self, src: &Tensor, dst: &Tensor) -> Result<bool> {
        let Some((shape, st)) = transposed(src, dst) else {
            return Ok(false);
        };
        let op = "copy";
        let ctx = self.ctx(op)?;
        ctx.check_alive(op)?;
        check_size(op, &[src, dst])?;
        let d = DType::U32;
        let (ws, wd) = (windows(&ctx, src, d), windows(&ctx, dst, d));
        check_bindings(&ctx, op, 1 + (ws.count + wd.count) as usize)?;
        let mut s = String::new();
        s.push_str("@group(0) @binding(0) var<storage, read> md: array<u32>;\n");
        s.push_str(&wgsl::decl(1, "bs", d, false, ws));
        s.push_str(&wgsl::decl(1 + ws.count as usize, "bd", d, true, wd));
        let _ = write!(
            s,
            r#"fn mdi(i: u32) -> i32 {{ return bitcast<i32>(md[i]); }}
var<workgroup> tile: array<u32, {tt}>;
@compute @workgroup_size({T}, 8)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_id) l: vec3<u32>) {{
  let nb = md[0];
  let rows = md[1];
  let cols = md[2];
  let tr = (rows + {t1}u) / {T}u;
  let tc = (cols + {t1}u) / {T}u;
  for (var b = wid.z; b < nb; b = b + nwg.z) {{
    let sb = mdi(3u) + i32(b) * mdi(5u);
    let db = mdi(4u) + i32(b) * mdi(8u);
    for (var bi = wid.y; bi < tr; bi = bi + nwg.y) {{
      for (var bj = wid.x; bj < tc; bj = bj + nwg.x) {{
        let i0 = bi * {T}u;
        let j0 = bj * {T}u;
        // Read along the rows (the source's contiguous axis).
        let i = i0 + l.x;
        for (var r = l.y; r < {T}u; r = r + 8u) {{
          let j = j0 + r;
          if (i < rows && j < cols) {{
            tile[r * {tp}u + l.x] = bs_rd(u32(sb + i32(i) * mdi(6u) + i32(j) * mdi(7u)));
          }}
        }}
        workgroupBarrier();
        // Write along the columns (the destination's contiguous axis).
        let j = j0 + l.x;
        for (var r = l.y; r < {T}u; r = r + 8u) {{
          let i = i0 + r;
          if (i < rows && j < cols) {{
            bd_wr(u32(db + i32(i) * mdi(9u) + i32(j) * mdi(10u)), tile[l.x * {tp}u + r]);
          }}
        }}
        workgroupBarrier();
      }}
    }}
  }}
}}
"#,
            tt = T * (T + 1),
            tp = T + 1,
            t1 = T - 1,
        );
        let i = |x: isize| x as i32 as u32;
        let md: Vec<u32> = vec![
            shape[0] as u32,
            shape[1] as u32,
            shape[2] as u32,
            src.offset() as u32,
            dst.offset() as u32,
            i(st[0][0]),
            i(st[0][1]),
            i(st[0][2]),
            i(st[1][0]),
            i(st[1][1]),
            i(st[1][2]),
        ];
        let pipeline = ctx.pipeline(op, &s)?;
        let meta = GpuBuffer::from_bytes(&ctx, bytemuck::cast_slice(&md), op)?;
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: meta.raw().as_entire_binding(),
        }];
        window_entries(1, raw(src), d, ws, &mut entries);
        window_entries(1 + ws.count as usize, raw(dst), d, wd, &mut entries);
        let groups = (
            shape[2].div_ceil(T).min(65_535) as u32,
            shape[1].div_ceil(T).min(65_535) as u32,
            shape[0].min(65_535) as u32,
        );
        dispatch(&ctx, op, &pipeline, &entries, groups);
        Ok(true)
    }
}
