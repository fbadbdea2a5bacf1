//! The measured FP32 arithmetic peak of an adapter, for the benchmark's
//! "fraction of the device's limit" column when the user does not give the
//! datasheet peak: a kernel of independent `fma` chains (eight vec4
//! accumulators per invocation, no memory traffic but one store), timed over
//! several dispatches. A lower bound of the true peak; not used by any op.

use super::buffer::GpuBuffer;
use super::kernel::dispatch;
use std::time::Instant;

/// `fma` iterations per accumulator (well below lavapipe's ~2^15 loop cap).
const ITERS: u32 = 256;
/// Invocations per workgroup.
const WG: u32 = 256;

const SRC: &str = "
@group(0) @binding(0) var<storage, read_write> out: array<f32>;
@compute @workgroup_size(256)
fn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
  let i = gid.x + gid.y * nwg.x * 256u;
  let s = f32(i) * 1e-9;
  var a0 = vec4<f32>(s, s + 1.0, s + 2.0, s + 3.0);
  var a1 = a0 + 0.5; var a2 = a0 + 1.5; var a3 = a0 + 2.5;
  var a4 = a0 + 3.5; var a5 = a0 + 4.5; var a6 = a0 + 5.5; var a7 = a0 + 6.5;
  let m = vec4<f32>(0.9999);
  let c = vec4<f32>(1e-6);
  for (var k = 0u; k < ITERSu; k = k + 1u) {
    a0 = fma(a0, m, c); a1 = fma(a1, m, c); a2 = fma(a2, m, c); a3 = fma(a3, m, c);
    a4 = fma(a4, m, c); a5 = fma(a5, m, c); a6 = fma(a6, m, c); a7 = fma(a7, m, c);
  }
  let t = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
  out[i] = t.x + t.y + t.z + t.w;
}
";

/// GFLOP/s (2 per `fma` lane) of `reps` dispatches of `groups` workgroups on
/// adapter `index`, after one untimed warm-up dispatch.
pub fn fma_peak_gflops(index: usize, groups: u32, reps: u32) -> crate::Result<f64> {
    let op = "fma_peak";
    let ctx = super::context::context(index, op)?;
    let src = SRC.replace("ITERS", &ITERS.to_string());
    let pipeline = ctx.pipeline(op, &src)?;
    let (gx, gy) = (groups.clamp(1, 65_535), groups.div_ceil(65_535).max(1));
    let invocations = gx as u64 * gy as u64 * WG as u64;
    let out = GpuBuffer::new(&ctx, invocations as usize * 4, false, op)?;
    let entries = [wgpu::BindGroupEntry {
        binding: 0,
        resource: out.raw().as_entire_binding(),
    }];
    dispatch(&ctx, op, &pipeline, &entries, (gx, gy, 1));
    ctx.wait(op)?;
    let t = Instant::now();
    for _ in 0..reps.max(1) {
        dispatch(&ctx, op, &pipeline, &entries, (gx, gy, 1));
    }
    ctx.wait(op)?;
    let s = t.elapsed().as_secs_f64();
    let flops = invocations as f64 * (ITERS as f64 * 8.0 * 4.0 * 2.0) * reps.max(1) as f64;
    Ok(flops / s / 1e9)
}
