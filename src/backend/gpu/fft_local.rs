//! The GPU FFT of short power-of-two rows in workgroup memory: one dispatch
//! runs every Stockham pass of a row (radix 4, then a 2 when the length is
//! an odd power of two, the same passes and twiddles as the global passes of
//! `fft.rs`), one workgroup per row. Each pass reads its butterflies'
//! inputs into registers, waits at a barrier, and writes their outputs into
//! the same workgroup array, so a row of up to 16 KiB (the WebGPU default
//! workgroup storage: 2048 c32 or 1024 c64 elements) needs one array. The
//! source depends only on the precision and the direction (the length and
//! the row count are read from the metadata), so every length shares its
//! pipeline. Rows that do not qualify (other lengths, longer rows, a scratch
//! beyond one binding, `RNX_GPU_FAST=0`) take the global passes.

use super::buffer::GpuBuffer;
use super::kernel::{dispatch, raw, window_entries, windows};
use super::GpuBackend;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

/// Invocations per workgroup (each handles up to 2 radix-4 or 4 radix-2
/// butterflies of a pass: rows up to 2048 elements).
const WG: u32 = 256;

/// The longest row the kernel takes in `c` on an adapter with `storage`
/// bytes of workgroup memory (a power of two, at most 2048).
pub(super) fn max_len(c: DType, storage: u32) -> usize {
    let fit = storage as usize / c.itemsize();
    if fit < 2 {
        return 0;
    }
    (1usize << fit.ilog2()).min(2048)
}

/// The kernel's WGSL for part type `t` (`f32` / `f64`), rows up to `lmax`.
fn source(t: &str, inverse: bool, lmax: usize) -> String {
    let s = if inverse { "-" } else { "" };
    // (v1 - v3) times w = e^{-+2 pi i / 4} = -+i.
    let d = if inverse {
        format!("vec2<{t}>(-e.y, e.x)")
    } else {
        format!("vec2<{t}>(e.y, -e.x)")
    };
    format!(
        r#"@group(0) @binding(0) var<storage, read> md: array<u32>;
@group(0) @binding(1) var<storage, read_write> buf: array<vec2<{t}>>;
@group(0) @binding(2) var<storage, read> tw: array<vec2<{t}>>;
var<workgroup> sh: array<vec2<{t}>, {lmax}>;
fn cm(a: vec2<{t}>, b: vec2<{t}>) -> vec2<{t}> {{
  return vec2<{t}>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);
}}
fn twd(k: u32) -> vec2<{t}> {{
  let w = tw[k];
  return vec2<{t}>(w.x, {s}w.y);
}}
@compute @workgroup_size({WG})
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
  let l = md[0];
  let rows = md[1];
  for (var row = wid.x; row < rows; row = row + nwg.x) {{
    let base = row * l;
    for (var i = lid; i < l; i = i + {WG}u) {{
      sh[i] = buf[base + i];
    }}
    workgroupBarrier();
    var ns = 1u;
    loop {{
      if (ns >= l) {{
        break;
      }}
      var v: array<vec2<{t}>, 8>;
      if (ns * 4u <= l) {{
        let q = l / 4u;
        let step = l / (ns * 4u);
        for (var u = 0u; u < 2u; u = u + 1u) {{
          let j = lid + u * {WG}u;
          if (j < q) {{
            let k = j % ns;
            let v0 = sh[j];
            var v1 = sh[j + q];
            var v2 = sh[j + 2u * q];
            var v3 = sh[j + 3u * q];
            if (ns > 1u) {{
              v1 = cm(v1, twd(k * step));
              v2 = cm(v2, twd(2u * k * step));
              v3 = cm(v3, twd(3u * k * step));
            }}
            let a = v0 + v2;
            let b = v0 - v2;
            let c = v1 + v3;
            let e = v1 - v3;
            let d = {d};
            v[u * 4u] = a + c;
            v[u * 4u + 1u] = b + d;
            v[u * 4u + 2u] = a - c;
            v[u * 4u + 3u] = b - d;
          }}
        }}
        workgroupBarrier();
        for (var u = 0u; u < 2u; u = u + 1u) {{
          let j = lid + u * {WG}u;
          if (j < q) {{
            let k = j % ns;
            let o = (j / ns) * ns * 4u + k;
            sh[o] = v[u * 4u];
            sh[o + ns] = v[u * 4u + 1u];
            sh[o + 2u * ns] = v[u * 4u + 2u];
            sh[o + 3u * ns] = v[u * 4u + 3u];
          }}
        }}
        workgroupBarrier();
        ns = ns * 4u;
      }} else {{
        let q = l / 2u;
        let step = l / (ns * 2u);
        for (var u = 0u; u < 4u; u = u + 1u) {{
          let j = lid + u * {WG}u;
          if (j < q) {{
            let k = j % ns;
            let a = sh[j];
            var b = sh[j + q];
            if (ns > 1u) {{
              b = cm(b, twd(k * step));
            }}
            v[u * 2u] = a + b;
            v[u * 2u + 1u] = a - b;
          }}
        }}
        workgroupBarrier();
        for (var u = 0u; u < 4u; u = u + 1u) {{
          let j = lid + u * {WG}u;
          if (j < q) {{
            let k = j % ns;
            let o = (j / ns) * ns * 2u + k;
            sh[o] = v[u * 2u];
            sh[o + ns] = v[u * 2u + 1u];
          }}
        }}
        workgroupBarrier();
        ns = ns * 2u;
      }}
    }}
    for (var i = lid; i < l; i = i + {WG}u) {{
      buf[base + i] = sh[i];
    }}
    workgroupBarrier();
  }}
}}
"#
    )
}

impl GpuBackend {
    /// Transform the `rows` contiguous rows of `l` elements of `a` in place
    /// by the workgroup kernel with the twiddle table `tw` (`l` entries of
    /// `e^{-2 pi i k / l}`); `false` (nothing done) when the rows do not
    /// qualify (see the module docs).
    pub(super) fn local_passes(
        &self,
        a: &Tensor,
        tw: &Tensor,
        rows: usize,
        l: usize,
        inverse: bool,
    ) -> Result<bool> {
        let c = a.dtype();
        let ctx = self.ctx("fft")?;
        let lmax = max_len(c, ctx.limits.max_compute_workgroup_storage_size);
        if !l.is_power_of_two()
            || l < 2
            || l > lmax
            || !super::reduce_plan::fast_enabled()
            || windows(&ctx, a, c).count != 1
            || windows(&ctx, tw, c).count != 1
        {
            return Ok(false);
        }
        let t = super::wgsl::compute_ty(if c == DType::C32 {
            DType::F32
        } else {
            DType::F64
        });
        let pipeline = ctx.pipeline("fft", &source(t, inverse, lmax))?;
        let md =
            GpuBuffer::from_bytes(&ctx, bytemuck::cast_slice(&[l as u32, rows as u32]), "fft")?;
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: md.raw().as_entire_binding(),
        }];
        window_entries(1, raw(a), c, windows(&ctx, a, c), &mut entries);
        window_entries(2, raw(tw), c, windows(&ctx, tw, c), &mut entries);
        let groups = rows.min(65_535) as u32;
        dispatch(&ctx, "fft", &pipeline, &entries, (groups, 1, 1));
        Ok(true)
    }
}
