//! GPU sort, argsort and sort_values: a stable sort of every row along one
//! axis over (key, index) pairs: a bitonic network in workgroup memory for
//! rows up to a block, a stable LSD radix sort (radix.rs) for longer rows.
//!
//! # Design
//! 1. **Keys** (one dispatch). Every element becomes an order-preserving
//!    unsigned key, read from its raw bits through the input's strided
//!    layout: unsigned integers as they are, signed integers with the sign bit
//!    flipped, floats (f16, bf16, f32, f64) with the sign-magnitude trick
//!    (negative: all bits flipped; positive: sign bit set), -0.0 read as 0.0
//!    and every NaN mapped to the largest key (above +inf). Descending sorts
//!    complement the key, so NaNs come last ascending and first descending,
//!    as on the CPU. The keys of the sort (`x`'s rows, the axis moved last)
//!    go to a contiguous scratch of `rows * p` pairs; each pair is the key
//!    (one u32, or two u32 words, high then low, for 64-bit dtypes) and the
//!    element's index in its row. Short rows (`n <= B`, below) are padded to
//!    `p = n.next_power_of_two()`, padding pairs holding the largest key and
//!    an index past the row; long rows are not padded (`p = n`).
//! 2. **Sort**, chosen by the row length `n` against the block `B` (2048
//!    32-bit pairs, or what the adapter's workgroup memory holds: 1024
//!    64-bit pairs on 16 KiB):
//!    - `n <= B`: one dispatch of the bitonic network, one workgroup per
//!      block of `B` pairs in workgroup memory (several rows per block). The
//!      order is (key, index): every pair is distinct and the index breaks
//!      ties, so the (unstable) network yields the stable order, equal
//!      elements keeping their input order in both directions; padding sorts
//!      after every element of its row. The network is the "flip" form
//!      (stage `k` compares `i` with `i ^ (k - 1)`, then half-cleaners
//!      compare `i` with `i + j`), whose stages up to `p` never cross a
//!      `p`-aligned segment, so all rows sort at once.
//!    - `n > B`: a stable LSD radix sort, `O(n)` work: one pass of 8 bits
//!      per byte of the dtype (the key words above its width are constant),
//!      over the low word first for 64-bit keys (8 passes). Each pass: a
//!      histogram per tile of 2048 pairs (workgroup atomics; tiles never
//!      cross rows), an exclusive reduce-then-scan over the counts laid out
//!      as (row, digit, tile) (blocks of 1024 scanned in workgroup memory,
//!      the block totals scanned the same way, then added back: `2L - 1`
//!      dispatches for `L` levels, 3 for a row of 2^20), which gives every
//!      (row, digit, tile) its first place in the flat scratch (rows stay in
//!      their own ranges), and a stable scatter into a second scratch: in
//!      chunks of 256 pairs in input order, an invocation's rank among the
//!      chunk's equal digits is the count of lower bits in a per-digit
//!      bit mask of the chunk's invocations (set with `atomicOr`), plus a
//!      running count per digit across chunks. The ascending stable order
//!      of the (possibly complemented) key is the stable order of the sort
//!      in both directions. No spins, no look-back: every pass is a fixed
//!      number of dispatches, `2L + 1`.
//! 3. **Outputs** (one dispatch): the sorted indices go to `indices` (i32)
//!    and the elements they name, as raw bits (NaN payloads and zero signs
//!    kept), to `values`, both through their strided layouts.
//!
//! No loop in a kernel runs more than a few dozen iterations per launch item
//! (lavapipe stops shader loops after about 2^15); launches over more items
//! than 65,535 workgroups cover them with grid-stride loops.
//!
//! # Limits
//! The input and outputs may be larger than one storage binding (they are
//! bound as windows). The scratch is not: the sort takes the CPU round trip
//! (same results) when one scratch array of `rows * p` u32 (or the radix
//! histogram of `rows * ceil(n / 2048) * 256` u32) needs a buffer larger than
//! the adapter's largest storage binding (lavapipe: 128 MiB, 2^25 pairs; the
//! radix sort allocates its pairs twice), or for 64-bit dtypes on an adapter
//! without SHADER_INT64.
//!
//! # Tests
//! `tests/suite/gpu_sort.rs` checks both paths against the CPU bit for bit;
//! row lengths just below and above the block choose the path, so no knob is
//! needed to force the radix sort on short rows.

use super::buffer::GpuBuffer;
use super::context::Context;
use super::kernel::{
    check_bindings, check_size, dispatch, merge_dims, raw, window_entries, windows,
};
use super::radix;
use super::wgsl::{self, Win};
use super::GpuBackend;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;
use std::fmt::Write;

/// Invocations per workgroup of every sort kernel.
const WG: u32 = 256;

/// The largest block of pairs sorted in workgroup memory (a power of two).
const MAX_BLOCK: usize = 2048;

/// The unsigned dtype of `d`'s width (the raw bits read and written).
fn raw_dtype(d: DType) -> DType {
    match d.itemsize() {
        1 => DType::U8,
        2 => DType::U16,
        4 => DType::U32,
        _ => DType::U64,
    }
}

/// The key of raw bits `b` (a `u32` for dtypes up to 32 bits, else `u64`)
/// as a WGSL function `mk(b) -> (u32|u64)`: order-preserving, -0.0 as 0.0,
/// every NaN the largest key.
fn key_fn(d: DType) -> String {
    let w = d.itemsize() * 8;
    let (ty, suf) = if w == 64 { ("u64", "lu") } else { ("u32", "u") };
    let sign: u64 = 1 << (w - 1);
    let mask: u64 = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    let body = if d.is_float() {
        let inf: u64 = match d {
            DType::F16 => 0x7c00,
            DType::BF16 => 0x7f80,
            DType::F32 => 0x7f80_0000,
            _ => 0x7ff0_0000_0000_0000,
        };
        format!(
            "  var c = b;\n  if (c == {sign:#x}{suf}) {{ c = 0{suf}; }}\n  \
             if ((c & {m:#x}{suf}) > {inf:#x}{suf}) {{ return {mask:#x}{suf}; }}\n  \
             if ((c & {sign:#x}{suf}) != 0{suf}) {{ return (~c) & {mask:#x}{suf}; }}\n  \
             return c | {sign:#x}{suf};",
            m = sign - 1
        )
    } else if d.is_signed_int() {
        format!("  return b ^ {sign:#x}{suf};")
    } else {
        "  return b;".to_string()
    };
    format!("fn mk(b: {ty}) -> {ty} {{\n{body}\n}}\n")
}

/// Metadata of the key and output kernels: `[n, p, rows, nk, xoff, voff,
/// ioff, sx, sv, si, N, desc, kshape[nk], kx[nk], kv[nk], ki[nk]]` (strides
/// as two's-complement i32; `v`/`i` strides 0 for an absent output).
const MD_BASE: usize = 12;

/// WGSL: the (x, values, indices) element index of row `r`'s first element.
const ROW: &str = r#"
fn row_base(r: u32) -> vec3<i32> {
  let nk = md[3];
  var q = r;
  var xi = bitcast<i32>(md[4]);
  var vi = bitcast<i32>(md[5]);
  var ii = bitcast<i32>(md[6]);
  for (var d = i32(nk) - 1; d >= 0; d = d - 1) {
    let s = md[12u + u32(d)];
    let qq = q / s;
    let c = i32(q - qq * s);
    q = qq;
    xi = xi + c * bitcast<i32>(md[12u + nk + u32(d)]);
    vi = vi + c * bitcast<i32>(md[12u + 2u * nk + u32(d)]);
    ii = ii + c * bitcast<i32>(md[12u + 3u * nk + u32(d)]);
  }
  return vec3<i32>(xi, vi, ii);
}
"#;

/// The key kernel: scratch keys `k0` (`k1`: low words of 64-bit keys) and
/// indices `ix` of pair `e` (row `e / p`, position `e % p`) for `x` read as
/// raw bits `xd` in windows `wx`, the key computed as for `kd`.
fn keys_src(kd: DType, xd: DType, wx: Win) -> String {
    let wide = xd.itemsize() == 8;
    let mut src = String::from("@group(0) @binding(0) var<storage, read> md: array<u32>;\n");
    src.push_str(&wgsl::decl(1, "bx", xd, false, wx));
    let s = 1 + wx.count as usize;
    let _ = writeln!(
        src,
        "@group(0) @binding({s}) var<storage, read_write> k0: array<u32>;"
    );
    let ix = if wide {
        let _ = writeln!(
            src,
            "@group(0) @binding({}) var<storage, read_write> k1: array<u32>;",
            s + 1
        );
        s + 2
    } else {
        s + 1
    };
    let _ = writeln!(
        src,
        "@group(0) @binding({ix}) var<storage, read_write> ix: array<u32>;"
    );
    src.push_str(&wgsl::load_fn(0, "bx", xd, false));
    src.push_str(&key_fn(kd));
    src.push_str(ROW);
    let store = if wide {
        "    var kk = 0xfffffffffffffffflu;\n    if (k < n) {\n      kk = mk(ld0(u32(row_base(r).x + i32(k) * sx)));\n      if (desc) { kk = ~kk; }\n    }\n    k0[e] = u32(kk >> 32u);\n    k1[e] = u32(kk & 0xfffffffflu);"
    } else {
        "    var kk = 0xffffffffu;\n    if (k < n) {\n      kk = mk(ld0(u32(row_base(r).x + i32(k) * sx)));\n      if (desc) { kk = ~kk; }\n    }\n    k0[e] = kk;"
    };
    let _ = writeln!(
        src,
        "@compute @workgroup_size({WG})\nfn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {{\n  let n = md[0];\n  let p = md[1];\n  let sx = bitcast<i32>(md[7]);\n  let total = md[10];\n  let desc = md[11] != 0u;\n  for (var e = gid.x; e < total; e = e + nwg.x * {WG}u) {{\n    let r = e / p;\n    let k = e - r * p;\n{store}\n    ix[e] = k;\n  }}\n}}"
    );
    src
}

/// The comparison and exchange of pairs at `a` and `b` in arrays `k0`
/// (`k1`), `ix` (workgroup or storage): `gt(a, b)` when pair `a` orders
/// after pair `b`; `cx(a, b)` puts the smaller at `a`.
fn cmp_fns(wide: bool, k0: &str, k1: &str, ix: &str) -> String {
    let mid = if wide {
        format!("  if ({k1}[a] != {k1}[b]) {{ return {k1}[a] > {k1}[b]; }}\n")
    } else {
        String::new()
    };
    let swap1 = if wide {
        format!("    let t1 = {k1}[a];\n    {k1}[a] = {k1}[b];\n    {k1}[b] = t1;\n")
    } else {
        String::new()
    };
    format!(
        "fn gt(a: u32, b: u32) -> bool {{\n  if ({k0}[a] != {k0}[b]) {{ return {k0}[a] > {k0}[b]; }}\n{mid}  return {ix}[a] > {ix}[b];\n}}\nfn cx(a: u32, b: u32) {{\n  if (gt(a, b)) {{\n    let t0 = {k0}[a];\n    {k0}[a] = {k0}[b];\n    {k0}[b] = t0;\n{swap1}    let ti = {ix}[a];\n    {ix}[a] = {ix}[b];\n    {ix}[b] = ti;\n  }}\n}}\n"
    )
}

/// Declarations of the scratch pairs `k0` (`k1`), `ix` from binding 1 on.
fn scratch_decl(wide: bool) -> String {
    let mut src = String::from("@group(0) @binding(0) var<storage, read> md: array<u32>;\n@group(0) @binding(1) var<storage, read_write> k0: array<u32>;\n");
    if wide {
        src.push_str("@group(0) @binding(2) var<storage, read_write> k1: array<u32>;\n@group(0) @binding(3) var<storage, read_write> ix: array<u32>;\n");
    } else {
        src.push_str("@group(0) @binding(2) var<storage, read_write> ix: array<u32>;\n");
    }
    src
}

/// The block kernel: each workgroup loads a block of `b` pairs into
/// workgroup memory and runs every stage `k <= min(p, b)` of the network
/// (`p <= b`: rows longer than a block take the radix passes). `md = [N,
/// p]`.
fn block_src(wide: bool, b: usize) -> String {
    let mut src = scratch_decl(wide);
    let _ = writeln!(src, "var<workgroup> s0: array<u32, {b}>;");
    if wide {
        let _ = writeln!(src, "var<workgroup> s1: array<u32, {b}>;");
    }
    let _ = writeln!(src, "var<workgroup> si: array<u32, {b}>;");
    src.push_str(&cmp_fns(wide, "s0", "s1", "si"));
    let (ld1, st1) = if wide {
        (
            "      s1[t] = k1[base + t];\n",
            "      k1[base + t] = s1[t];\n",
        )
    } else {
        ("", "")
    };
    let h = b / 2;
    let _ = writeln!(
        src,
        "fn cleaners(j0: u32, len: u32, lid: u32) {{\n  for (var j = j0; j > 0u; j = j >> 1u) {{\n    for (var t = lid; t < {h}u; t = t + {WG}u) {{\n      let i = (t / j) * 2u * j + (t % j);\n      if (i + j < len) {{ cx(i, i + j); }}\n    }}\n    workgroupBarrier();\n  }}\n}}\n\
@compute @workgroup_size({WG})\nfn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{\n  let total = md[0];\n  let p = md[1];\n  let nb = (total + {bm1}u) / {b}u;\n  for (var g = wid.x; g < nb; g = g + nwg.x) {{\n    let base = g * {b}u;\n    let len = min({b}u, total - base);\n    for (var t = lid; t < len; t = t + {WG}u) {{\n      s0[t] = k0[base + t];\n{ld1}      si[t] = ix[base + t];\n    }}\n    workgroupBarrier();\n    {{\n      let kmax = min(p, {b}u);\n      for (var k = 2u; k <= kmax; k = k << 1u) {{\n        let hk = k >> 1u;\n        for (var t = lid; t < {h}u; t = t + {WG}u) {{\n          let i = (t / hk) * k + (t % hk);\n          let l = i ^ (k - 1u);\n          if (l < len) {{ cx(i, l); }}\n        }}\n        workgroupBarrier();\n        cleaners(hk >> 1u, len, lid);\n      }}\n    }}\n    for (var t = lid; t < len; t = t + {WG}u) {{\n      k0[base + t] = s0[t];\n{st1}      ix[base + t] = si[t];\n    }}\n    workgroupBarrier();\n  }}\n}}",
        bm1 = b - 1
    );
    src
}

/// The output kernel: for position `k < n` of row `r`, the sorted pair's
/// index `ix[r * p + k]` to `indices` (i32, when `has_i`) and the element it
/// names (raw bits `xd`) to `values` (when `has_v`).
fn out_src(xd: DType, wv: Option<(Win, Win)>, wi: Option<Win>) -> String {
    let mut src = String::from(
        "@group(0) @binding(0) var<storage, read> md: array<u32>;\n\
         @group(0) @binding(1) var<storage, read> ix: array<u32>;\n",
    );
    let mut s = 2;
    let mut body = String::new();
    if let Some((wx, wv)) = wv {
        src.push_str(&wgsl::decl(s, "bx", xd, false, wx));
        src.push_str(&wgsl::load_fn(0, "bx", xd, false));
        s += wx.count as usize;
        src.push_str(&wgsl::decl(s, "bv", xd, true, wv));
        src.push_str(&wgsl::store_fn(1, "bv", xd));
        s += wv.count as usize;
        body.push_str(
            "    st1(u32(rb.y + i32(k) * bitcast<i32>(md[8])), ld0(u32(rb.x + i32(from_i) * bitcast<i32>(md[7]))));\n",
        );
    }
    if let Some(w) = wi {
        src.push_str(&wgsl::decl(s, "bi", DType::I32, true, w));
        src.push_str(&wgsl::store_fn(2, "bi", DType::I32));
        body.push_str("    st2(u32(rb.z + i32(k) * bitcast<i32>(md[9])), bitcast<i32>(from_i));\n");
    }
    src.push_str(ROW);
    let _ = writeln!(
        src,
        "@compute @workgroup_size({WG})\nfn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {{\n  let n = md[0];\n  let p = md[1];\n  let total = md[2] * n;\n  for (var e = gid.x; e < total; e = e + nwg.x * {WG}u) {{\n    let r = e / n;\n    let k = e - r * n;\n    let from_i = ix[r * p + k];\n    let rb = row_base(r);\n{body}  }}\n}}"
    );
    src
}

/// A plain (whole-buffer) binding entry.
pub(super) fn whole(binding: usize, b: &wgpu::Buffer) -> wgpu::BindGroupEntry<'_> {
    wgpu::BindGroupEntry {
        binding: binding as u32,
        resource: b.as_entire_binding(),
    }
}

/// Workgroups of a grid-stride launch over `items` work items, `per` per
/// workgroup.
pub(super) fn groups(items: usize, per: usize) -> (u32, u32, u32) {
    (items.div_ceil(per).clamp(1, 65_535) as u32, 1, 1)
}

/// The scratch pairs of one sort: key words and indices.
pub(super) struct Scratch {
    pub(super) k0: GpuBuffer,
    pub(super) k1: Option<GpuBuffer>,
    pub(super) ix: GpuBuffer,
}

impl Scratch {
    /// The bind group entries `md`, `k0`, (`k1`), `ix`.
    fn entries<'a>(&'a self, md: &'a GpuBuffer) -> Vec<wgpu::BindGroupEntry<'a>> {
        let mut e = vec![whole(0, md.raw()), whole(1, self.k0.raw())];
        if let Some(k1) = &self.k1 {
            e.push(whole(2, k1.raw()));
        }
        e.push(whole(e.len(), self.ix.raw()));
        e
    }
}

/// The pairs one workgroup sorts in its memory on `ctx`: at most
/// [`MAX_BLOCK`], as many as `bytes` per pair allow in workgroup memory, a
/// power of two.
fn block_len(ctx: &Context, bytes: usize) -> usize {
    let cap = ctx.limits.max_compute_workgroup_storage_size as usize / bytes;
    let mut b = MAX_BLOCK;
    while b > 2 && b > cap {
        b /= 2;
    }
    b
}

impl GpuBackend {
    /// Sort on the GPU (see the module doc); `Ok(false)` when this sort is
    /// outside the kernels' limits and the caller takes the CPU round trip.
    pub(super) fn sort_kernel(
        &self,
        x: &Tensor,
        axis: usize,
        descending: bool,
        values: Option<&Tensor>,
        indices: Option<&Tensor>,
    ) -> Result<bool> {
        let op = "sort";
        let ctx = self.ctx(op)?;
        ctx.check_alive(op)?;
        let mut ts = vec![x];
        ts.extend(values);
        ts.extend(indices);
        check_size(op, &ts)?;
        let dt = x.dtype();
        ctx.check_dtype(op, dt)?;
        let wide = dt.itemsize() == 8;
        if wide && !ctx.features.contains(wgpu::Features::SHADER_INT64) {
            return Ok(false);
        }
        let shape = x.shape();
        let n = shape[axis];
        let rows: usize = (0..shape.len())
            .filter(|&d| d != axis)
            .map(|d| shape[d])
            .product();
        if n == 0 || rows == 0 {
            return Ok(true);
        }
        // Rows up to a block: the bitonic network over rows padded to a
        // power of two; longer rows: the radix passes, unpadded.
        let b = block_len(&ctx, 4 * (2 + wide as usize));
        let long = n > b;
        let p = if long { n } else { n.next_power_of_two() };
        let total = rows.saturating_mul(p);
        let max_bind = ctx.binding_window().min(ctx.limits.max_buffer_size);
        if total > (1usize << 31)
            || super::buffer::padded(total * 4) > max_bind
            || (long && !radix::fits(rows, n, max_bind))
        {
            return Ok(false);
        }

        // Metadata of the key and output kernels.
        let kept: Vec<usize> = (0..shape.len()).filter(|&d| d != axis).collect();
        let strides = |t: Option<&Tensor>| -> Vec<isize> {
            t.map_or(vec![0; shape.len()], |t| t.layout().strides().to_vec())
        };
        let (xs, vs, is) = (strides(Some(x)), strides(values), strides(indices));
        let kshape: Vec<usize> = kept.iter().map(|&d| shape[d]).collect();
        let pick = |s: &[isize]| kept.iter().map(|&d| s[d]).collect::<Vec<isize>>();
        let (kshape, kst) = merge_dims(&kshape, &[pick(&xs), pick(&vs), pick(&is)]);
        let i32b = |s: isize| s as i32 as u32;
        let mut md: Vec<u32> = vec![
            n as u32,
            p as u32,
            rows as u32,
            kshape.len() as u32,
            x.offset() as u32,
            values.map_or(0, |t| t.offset() as u32),
            indices.map_or(0, |t| t.offset() as u32),
            i32b(xs[axis]),
            i32b(vs[axis]),
            i32b(is[axis]),
            total as u32,
            descending as u32,
        ];
        debug_assert_eq!(md.len(), MD_BASE);
        md.extend(kshape.iter().map(|&d| d as u32));
        for s in &kst {
            md.extend(s.iter().map(|&v| i32b(v)));
        }
        let md_buf = GpuBuffer::from_bytes(&ctx, bytemuck::cast_slice(&md), op)?;

        // 1. Keys.
        let xd = raw_dtype(dt);
        let wx = windows(&ctx, x, xd);
        check_bindings(&ctx, op, 1 + wx.count as usize + 2 + wide as usize)?;
        let scratch = Scratch {
            k0: GpuBuffer::new(&ctx, total * 4, false, op)?,
            k1: if wide {
                Some(GpuBuffer::new(&ctx, total * 4, false, op)?)
            } else {
                None
            },
            ix: GpuBuffer::new(&ctx, total * 4, false, op)?,
        };
        {
            let pipeline = ctx.pipeline(op, &keys_src(dt, xd, wx))?;
            let mut entries = vec![whole(0, md_buf.raw())];
            window_entries(1, raw(x), xd, wx, &mut entries);
            let s = 1 + wx.count as usize;
            entries.push(whole(s, scratch.k0.raw()));
            if let Some(k1) = &scratch.k1 {
                entries.push(whole(s + 1, k1.raw()));
            }
            entries.push(whole(s + 1 + wide as usize, scratch.ix.raw()));
            dispatch(&ctx, op, &pipeline, &entries, groups(total, WG as usize));
        }

        // 2. The network in workgroup memory (rows up to a block), or the
        // radix passes (longer rows).
        let scratch = if long {
            radix::radix_sort(&ctx, op, scratch, rows, n, dt.itemsize())?
        } else {
            let block = ctx.pipeline(op, &block_src(wide, b))?;
            let m =
                GpuBuffer::from_bytes(&ctx, bytemuck::cast_slice(&[total as u32, p as u32]), op)?;
            dispatch(&ctx, op, &block, &scratch.entries(&m), groups(total, b));
            scratch
        };

        // 3. Outputs (x is read only for the values).
        let wv = values.map(|v| (wx, windows(&ctx, v, xd)));
        let wi = indices.map(|i| windows(&ctx, i, DType::I32));
        let nb = 2
            + wv.map_or(0, |(a, b)| (a.count + b.count) as usize)
            + wi.map_or(0, |w| w.count as usize);
        check_bindings(&ctx, op, nb)?;
        let pipeline = ctx.pipeline(op, &out_src(xd, wv, wi))?;
        let mut entries = vec![whole(0, md_buf.raw()), whole(1, scratch.ix.raw())];
        let mut s = 2;
        if let (Some(v), Some((wx, w))) = (values, wv) {
            window_entries(s, raw(x), xd, wx, &mut entries);
            s += wx.count as usize;
            window_entries(s, raw(v), xd, w, &mut entries);
            s += w.count as usize;
        }
        if let (Some(i), Some(w)) = (indices, wi) {
            window_entries(s, raw(i), DType::I32, w, &mut entries);
        }
        dispatch(&ctx, op, &pipeline, &entries, groups(rows * n, WG as usize));
        Ok(true)
    }
}
