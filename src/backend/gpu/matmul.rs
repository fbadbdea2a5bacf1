//! The GPU matrix product: batched, strided `out (+)= a @ b` (the contract of
//! [`LinalgBackend::matmul`](crate::backend::LinalgBackend::matmul)).
//!
//! # Design
//! One workgroup of 16x16 invocations computes a 64x64 tile of one batch
//! element's output; each invocation keeps a 4x4 block of accumulators in
//! registers, at rows `ty + 16 r` and columns `tx + 16 c` of the tile (so that
//! neighbouring invocations read neighbouring workgroup-memory words and write
//! neighbouring output elements). The reduction axis advances in K-tiles of
//! 16: the workgroup loads the 64x16 slice of `a` and the 16x64 slice of `b`
//! into workgroup memory (4 elements of each per invocation, out-of-range
//! elements as zero), waits at a barrier, and every invocation with an
//! output in range does 16 x 16 multiply-adds from it (in an edge tile the
//! others only help load: a 2 x 3 output keeps 6 of the 256 invocations
//! multiplying). Tiles beyond 65,535 per grid axis (and batches
//! beyond 65,535) are taken by the same workgroups in grid-stride loops.
//!
//! Operands are read through their strides, one element at a time, with the
//! load functions of [`super::wgsl`] (sub-word dtypes unpacked from their
//! 32-bit words, f16/bf16 widened exactly to f32): any layout works
//! unchanged, including stride-0 broadcast batch axes, transposed and
//! negative strides, and the overlapping im2col view of `ops/conv.rs`. The
//! rule is therefore simple: no operand is ever copied to a contiguous
//! buffer first (each element of `a` is read `ceil(n / 64)` times and each
//! of `b` `ceil(m / 64)` times, whatever its layout, so a copy would only add
//! a pass). Vectorised loads for contiguous operands are not implemented yet
//! (lavapipe, the only adapter this was developed on, cannot measure them).
//! Batch axes are merged where all three operands allow it and travel with
//! shapes, strides and offsets in a metadata buffer, so one pipeline serves
//! every shape of one (dtype, binding-window) combination. Tensors larger
//! than one storage binding (lavapipe: 128 MiB) are bound as several windows
//! (see [`super::kernel::windows`]). An input that shares its storage with
//! `out` (a disjoint part of it; the frontend guarantees no overlap) is read
//! through `out`'s binding, since wgpu forbids binding one buffer both
//! read-only and writable in a dispatch.
//!
//! # Long reductions: K in chunks
//! Mesa's lavapipe silently stops a shader loop after about 2^15 iterations.
//! So one dispatch reduces at most [`K_CHUNK`] = 16384 elements of K (1024
//! K-tiles of 16); a longer K runs as `ceil(k / K_CHUNK)` dispatches of the
//! same pipeline, each adding its chunk's partial product to `out` (the
//! first one overwrites it, unless `accumulate`). The K loop thus runs at
//! most 1024 iterations for any input, the K-tile loop 16, and the
//! grid-stride loops over tiles and batch elements `ceil(count / 65535)`.
//! (Measured on this project's lavapipe: this particular K loop, which
//! contains barriers, still gave correct results unchunked at 75,000
//! iterations, so the limit seems to spare it; the chunks are kept so that
//! correctness does not depend on that, at the cost of one extra read and
//! write of `out` per 16384 of K.) For f16/bf16 with more than one chunk, the
//! partial products are summed in an f32 scratch tensor (cast from `out`
//! first when accumulating) and cast to the half type once at the end, so
//! every result is still rounded exactly once.
//!
//! # Precision
//! Each invocation sums its products in K order in the accumulator type
//! (`f32` for f32, f16 and bf16; `f64` for f64; 32-bit integers for i32, u32
//! and the sub-word integers, 64-bit for i64/u64), starting from the value in
//! `out` when accumulating or from the previous chunk's result. So a result
//! of a sum of `k` products goes through at most `k + 1` roundings of the
//! accumulator type (a multiply-add may be fused by the compiler, which only
//! removes roundings): `|computed - exact| <= (k + 1) u / (1 - (k + 1) u) *
//! sum_p |a_ip| |b_pj|` (+ `|out|` when accumulating) with `u = 2^-24` (f32,
//! and f16/bf16 before their one final rounding to the half type) or `u =
//! 2^-53` (f64). The CPU sums in another order, so floats agree with it
//! within twice that bound. Integer products and sums wrap at 32 or 64 bits
//! and the store keeps the dtype's low bits, so integer results are
//! bit-identical to the CPU's.

use super::buffer::GpuBuffer;
use super::context::Context;
use super::kernel::{
    check_bindings, check_size, dispatch, merge_dims, raw, window_entries, windows,
};
use super::matmul_tiled::{operand, tile_for, tiled_source, Tiled};
use super::reduce_plan::fast_enabled;
use super::wgsl::{self, Win};
use super::GpuBackend;
use crate::backend::CoreBackend;
use crate::dtype::{DType, Scalar};
use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::Tensor;
use std::fmt::Write;
use std::sync::Arc;

/// Output tile edge of one workgroup (rows and columns).
const TILE: usize = 64;

/// Reduction elements loaded into workgroup memory per step.
const KT: usize = 16;

/// Reduction elements one dispatch handles at most (a multiple of [`KT`]):
/// 1024 K-tile iterations, far below lavapipe's loop limit of about 2^15.
pub(crate) const K_CHUNK: usize = 16_384;

/// Metadata slots: `[m, n, k0, k1, add_out, nbatch, batch_rank, off_a,
/// off_b, off_out, a_m, a_k, b_k, b_n, o_m, o_n, shape[r], a_s[r], b_s[r],
/// o_s[r]]` (strides and offsets as two's-complement i32).
const MD_BATCH: usize = 16;

/// The WGSL lines of both matmul kernels that read the product's metadata
/// (sizes, the k range, accumulate flag, batch count, element strides).
pub(super) const MD_LETS: &str = "  let m = md[0];
  let n = md[1];
  let k0 = md[2];
  let k1 = md[3];
  let add_out = md[4] != 0u;
  let nbt = md[5];
  let am = mdi(10u);
  let ak = mdi(11u);
  let bk = mdi(12u);
  let bn = mdi(13u);
  let om = mdi(14u);
  let on = mdi(15u);
";

/// Which storage binding an input is read through.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Src {
    /// Its own read-only binding.
    Own,
    /// The binding of `a` (b shares `a`'s storage).
    A,
    /// The output's binding (it shares `out`'s storage).
    Out,
}

/// The kernel source for inputs of dtype `d` and an output of dtype `od`
/// (`d`, or an f32 scratch for multi-chunk halves), with the bindings' window
/// counts and which binding each input reads through.
fn source(d: DType, od: DType, wins: [Win; 3], srcs: [Src; 2]) -> String {
    let t = wgsl::compute_ty(d);
    let zero = wgsl::lit(d, 0.0);
    let mut s = String::new();
    s.push_str("@group(0) @binding(0) var<storage, read> md: array<u32>;\n");
    let mut slot = 1;
    if srcs[0] == Src::Own {
        s.push_str(&wgsl::decl(slot, "ba", d, false, wins[0]));
        slot += wins[0].count as usize;
    }
    if srcs[1] == Src::Own {
        s.push_str(&wgsl::decl(slot, "bb", d, false, wins[1]));
        slot += wins[1].count as usize;
    }
    s.push_str(&wgsl::decl(slot, "bo", od, true, wins[2]));
    s.push_str(wgsl::PRELUDE);
    if d == DType::F64 {
        s.push_str(wgsl::PRELUDE_F64);
    }
    // ld0: a, ld1: b, ld2/st2: out.
    let name = |src: Src, own: &str| match src {
        Src::Own => own.to_string(),
        Src::A => "ba".to_string(),
        Src::Out => "bo".to_string(),
    };
    s.push_str(&wgsl::load_fn(
        0,
        &name(srcs[0], "ba"),
        d,
        srcs[0] == Src::Out,
    ));
    let bsrc = if srcs[1] == Src::A && srcs[0] == Src::Out {
        Src::Out
    } else {
        srcs[1]
    };
    s.push_str(&wgsl::load_fn(1, &name(bsrc, "bb"), d, bsrc == Src::Out));
    s.push_str(&wgsl::load_fn(2, "bo", od, true));
    s.push_str(&wgsl::store_fn(2, "bo", od));
    let tiles = TILE * KT;
    s.push_str(&batch_fn());
    let _ = write!(
        s,
        r#"var<workgroup> sa: array<{t}, {tiles}>;
var<workgroup> sb: array<{t}, {tiles}>;
@compute @workgroup_size(16, 16)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_id) l: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
{MD_LETS}  let tm = (m + {TILE}u - 1u) / {TILE}u;
  let tn = (n + {TILE}u - 1u) / {TILE}u;
  for (var z = wid.z; z < nbt; z = z + nwg.z) {{
    let off = batch(z);
    for (var ty = wid.y; ty < tm; ty = ty + nwg.y) {{
      for (var tx = wid.x; tx < tn; tx = tx + nwg.x) {{
        let i0 = ty * {TILE}u;
        let j0 = tx * {TILE}u;
        let act = i0 + l.y < m && j0 + l.x < n;
"#
    );
    for r in 0..4 {
        for c in 0..4 {
            let _ = writeln!(s, "        var c{r}{c}: {t} = {zero};");
        }
    }
    let _ = writeln!(s, "        for (var kt = k0; kt < k1; kt = kt + {KT}u) {{");
    // Loads: 4 elements of each tile per invocation.
    for r in 0..4 {
        let e = r * 256;
        let _ = write!(
            s,
            r#"          {{
            let e = lid + {e}u;
            let ii = e / {KT}u;
            let pp = e % {KT}u;
            let gi = i0 + ii;
            let gp = kt + pp;
            var v: {t} = {zero};
            if (gi < m && gp < k1) {{ v = ld0(u32(off.x + i32(gi) * am + i32(gp) * ak)); }}
            sa[pp * {TILE}u + ii] = v;
          }}
          {{
            let e = lid + {e}u;
            let pp = e / {TILE}u;
            let jj = e % {TILE}u;
            let gj = j0 + jj;
            let gp = kt + pp;
            var v: {t} = {zero};
            if (gj < n && gp < k1) {{ v = ld1(u32(off.y + i32(gp) * bk + i32(gj) * bn)); }}
            sb[pp * {TILE}u + jj] = v;
          }}
"#
        );
    }
    let _ = writeln!(
        s,
        "          workgroupBarrier();\n          if (act) {{\n          for (var p = 0u; p < {KT}u; p = p + 1u) {{\n            let base = p * {TILE}u;"
    );
    for r in 0..4 {
        let _ = writeln!(s, "            let a{r} = sa[base + l.y + {}u];", 16 * r);
    }
    for c in 0..4 {
        let _ = writeln!(s, "            let b{c} = sb[base + l.x + {}u];", 16 * c);
    }
    for r in 0..4 {
        for c in 0..4 {
            let _ = writeln!(s, "            c{r}{c} = c{r}{c} + a{r} * b{c};");
        }
    }
    s.push_str("          }\n          }\n          workgroupBarrier();\n        }\n");
    // Stores: the halves' scratch (od = f32) and every other output take the
    // sum in the compute type; `st2` rounds halves once, keeps integer bits.
    for r in 0..4 {
        for c in 0..4 {
            let _ = write!(
                s,
                r#"        {{
          let gi = i0 + l.y + {ro}u;
          let gj = j0 + l.x + {co}u;
          if (gi < m && gj < n) {{
            let o = u32(off.z + i32(gi) * om + i32(gj) * on);
            var v = c{r}{c};
            if (add_out) {{ v = ld2(o) + v; }}
            st2(o, v);
          }}
        }}
"#,
                ro = 16 * r,
                co = 16 * c
            );
        }
    }
    s.push_str("      }\n    }\n  }\n}\n");
    s
}

/// The WGSL helpers over the metadata: `mdi(i)` (a word as i32) and
/// `batch(z)` (the element offsets of batch element `z` in a, b and out).
fn batch_fn() -> String {
    format!(
        r#"fn mdi(i: u32) -> i32 {{ return bitcast<i32>(md[i]); }}
fn batch(z: u32) -> vec3<i32> {{
  let nb = md[6];
  var r = z;
  var o = vec3<i32>(mdi(7u), mdi(8u), mdi(9u));
  for (var d = i32(nb) - 1; d >= 0; d = d - 1) {{
    let e = {MD_BATCH}u + u32(d);
    let q = r / md[e];
    let c = i32(r - q * md[e]);
    r = q;
    o = o + c * vec3<i32>(mdi(e + nb), mdi(e + 2u * nb), mdi(e + 3u * nb));
  }}
  return o;
}}
"#
    )
}

/// `out (+)= a @ b` on the GPU (shapes and layouts as the trait documents).
pub(crate) fn matmul(
    be: &GpuBackend,
    a: &Tensor,
    b: &Tensor,
    out: &Tensor,
    accumulate: bool,
) -> Result<()> {
    let op = "matmul";
    let ctx = be.ctx(op)?;
    ctx.check_alive(op)?;
    let d = a.dtype();
    ctx.check_dtype(op, d)?;
    check_size(op, &[a, b, out])?;
    let r = out.ndim();
    let (m, k, n) = (a.shape()[r - 2], a.shape()[r - 1], out.shape()[r - 1]);
    if out.numel() == 0 {
        return Ok(());
    }
    if k == 0 {
        if !accumulate {
            be.fill(out, Scalar::from(0i32).to_dtype(d, op)?)?;
        }
        return Ok(());
    }
    let chunks = k.div_ceil(K_CHUNK);
    if d.is_half() && chunks > 1 {
        // Sum the chunks in f32, round once at the end.
        let s = super::new_storage(&ctx, DType::F32, out.numel(), false, op)?;
        let scratch = Tensor::from_parts(Arc::new(s), Layout::contiguous(out.shape()))?;
        if accumulate {
            be.cast(out, &scratch)?;
        }
        run(&ctx, a, b, &scratch, accumulate, [m, n, k])?;
        return be.cast(&scratch, out);
    }
    run(&ctx, a, b, out, accumulate, [m, n, k])
}

/// The tiled kernel's plan for these operands (`matmul_tiled.rs`), or
/// `None` for the general kernel: 4-byte dtypes without a half scratch,
/// `a` and `b` each contiguous along a matrix axis and aligned, neither
/// read through `out`'s binding.
#[allow(clippy::too_many_arguments)]
fn tiled_plan(
    a: &Tensor,
    b: &Tensor,
    d: DType,
    od: DType,
    wins: [Win; 3],
    srcs: [Src; 2],
    [m, n, nbatch]: [usize; 3],
    bst: &[Vec<isize>],
) -> Option<Tiled> {
    let four = matches!(d, DType::F32 | DType::I32 | DType::U32) && od == d;
    if !four || !fast_enabled() || srcs[0] != Src::Own || srcs[1] == Src::Out {
        return None;
    }
    let r = a.ndim();
    let (sa, sb) = (a.layout().strides(), b.layout().strides());
    let a_k = operand(sa[r - 2], sa[r - 1], &bst[0], a.offset(), wins[0])?;
    let b_n = operand(sb[r - 2], sb[r - 1], &bst[1], b.offset(), wins[1])?;
    Some(Tiled {
        tile: tile_for(m, n, nbatch),
        a_k,
        b_n,
    })
}

/// The dispatches of `out (+)= a @ b` (`out` of the inputs' dtype, or f32
/// for half inputs): one per chunk of [`K_CHUNK`] along K.
fn run(
    ctx: &Arc<Context>,
    a: &Tensor,
    b: &Tensor,
    out: &Tensor,
    accumulate: bool,
    [m, n, k]: [usize; 3],
) -> Result<()> {
    let op = "matmul";
    let (d, od) = (a.dtype(), out.dtype());
    ctx.check_dtype(op, od)?;
    let r = out.ndim();
    let (sa, sb, so) = (
        a.layout().strides(),
        b.layout().strides(),
        out.layout().strides(),
    );
    let (bshape, bst) = merge_dims(
        &out.shape()[..r - 2],
        &[
            sa[..r - 2].to_vec(),
            sb[..r - 2].to_vec(),
            so[..r - 2].to_vec(),
        ],
    );
    let nbatch: usize = out.shape()[..r - 2].iter().product();
    // Bindings: a (unless it shares out's storage), b (unless it shares a's
    // or out's), out.
    let srcs = [
        if a.same_storage(out) {
            Src::Out
        } else {
            Src::Own
        },
        if b.same_storage(out) {
            Src::Out
        } else if b.same_storage(a) {
            Src::A
        } else {
            Src::Own
        },
    ];
    let wins = [
        windows(ctx, a, d),
        windows(ctx, b, d),
        windows(ctx, out, od),
    ];
    let nbind = 1
        + wins[2].count as usize
        + if srcs[0] == Src::Own {
            wins[0].count as usize
        } else {
            0
        }
        + if srcs[1] == Src::Own {
            wins[1].count as usize
        } else {
            0
        };
    check_bindings(ctx, op, nbind)?;
    let tiled = tiled_plan(a, b, d, od, wins, srcs, [m, n, nbatch], &bst);
    let src = match tiled {
        Some(t) => tiled_source(d, t, wins, srcs[1] == Src::A, &batch_fn()),
        None => source(d, od, wins, srcs),
    };
    let pipeline = ctx.pipeline(op, &src)?;
    let i = |s: isize| s as i32 as u32;
    let mut md: Vec<u32> = vec![
        m as u32,
        n as u32,
        0,
        0,
        0,
        nbatch as u32,
        bshape.len() as u32,
        a.offset() as u32,
        b.offset() as u32,
        out.offset() as u32,
        i(sa[r - 2]),
        i(sa[r - 1]),
        i(sb[r - 2]),
        i(sb[r - 1]),
        i(so[r - 2]),
        i(so[r - 1]),
    ];
    debug_assert_eq!(md.len(), MD_BATCH);
    md.extend(bshape.iter().map(|&x| x as u32));
    for st in &bst {
        md.extend(st.iter().map(|&x| i(x)));
    }
    let tile = tiled.map_or(TILE, |t| t.tile);
    let groups = (
        n.div_ceil(tile).min(65_535) as u32,
        m.div_ceil(tile).min(65_535) as u32,
        nbatch.min(65_535) as u32,
    );
    for c in 0..k.div_ceil(K_CHUNK) {
        md[2] = (c * K_CHUNK) as u32;
        md[3] = ((c + 1) * K_CHUNK).min(k) as u32;
        md[4] = (accumulate || c > 0) as u32;
        let meta = GpuBuffer::from_bytes(ctx, bytemuck::cast_slice(&md), op)?;
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: meta.raw().as_entire_binding(),
        }];
        let mut slot = 1;
        if srcs[0] == Src::Own {
            window_entries(slot, raw(a), d, wins[0], &mut entries);
            slot += wins[0].count as usize;
        }
        if srcs[1] == Src::Own {
            window_entries(slot, raw(b), d, wins[1], &mut entries);
            slot += wins[1].count as usize;
        }
        window_entries(slot, raw(out), od, wins[2], &mut entries);
        dispatch(ctx, op, &pipeline, &entries, groups);
    }
    Ok(())
}
