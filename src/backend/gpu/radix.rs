//! The GPU sort's stable LSD radix passes for rows longer than a workgroup
//! block: per-tile digit histograms, a reduce-then-scan over (row, digit,
//! tile), and a stable scatter, 8 bits per pass, over the (key, index)
//! scratch that sort.rs's key kernel fills (the design is in sort.rs's
//! module doc).

use super::buffer::GpuBuffer;
use super::context::Context;
use super::kernel::dispatch;
use super::sort::{groups, whole, Scratch};
use crate::error::Result;
use std::fmt::Write;
use std::sync::Arc;

/// Invocations per workgroup of every radix kernel.
const WG: usize = 256;

/// Elements of one tile: one workgroup of the histogram and scatter kernels,
/// `TILE / WG` chunks of one element per invocation.
pub(super) const TILE: usize = 2048;

/// Digits of one pass (8 bits).
const RADIX: usize = 256;

/// Elements one workgroup of the scan kernel scans (4 per invocation).
const SCAN: usize = 4 * WG;

/// WGSL shared by the histogram and scatter kernels: the tile `g` of the
/// launch as `(row, tile, start, end)`, `md = [total, n, tpr, ntiles, shift,
/// low]` (`tpr` tiles per row; the digit is bits `shift..shift + 8` of `k1`
/// when `low`, else of `k0`).
fn tile_fn() -> String {
    format!(
        "fn tile(g: u32) -> vec4<u32> {{\n  let n = md[1];\n  let tpr = md[2];\n  \
         let r = g / tpr;\n  let t = g - r * tpr;\n  \
         return vec4<u32>(r, t, r * n + t * {TILE}u, r * n + min(n, (t + 1u) * {TILE}u));\n}}\n"
    )
}

/// The histogram kernel: the digit counts of every tile to `hist[(row *
/// 256 + digit) * tpr + tile]`, the digit read from `kw`.
fn hist_src() -> String {
    let mut src = String::from(
        "@group(0) @binding(0) var<storage, read> md: array<u32>;\n\
         @group(0) @binding(1) var<storage, read> kw: array<u32>;\n\
         @group(0) @binding(2) var<storage, read_write> hist: array<u32>;\n",
    );
    let _ = writeln!(src, "var<workgroup> h: array<atomic<u32>, {RADIX}>;");
    src.push_str(&tile_fn());
    let _ = writeln!(
        src,
        "@compute @workgroup_size({WG})\nfn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{\n  \
         let tpr = md[2];\n  let ntiles = md[3];\n  let shift = md[4];\n  \
         for (var g = wid.x; g < ntiles; g = g + nwg.x) {{\n    let tl = tile(g);\n    \
         atomicStore(&h[lid], 0u);\n    workgroupBarrier();\n    \
         for (var c = 0u; c < {chunks}u; c = c + 1u) {{\n      let i = tl.z + c * {WG}u + lid;\n      \
         if (i < tl.w) {{ atomicAdd(&h[(kw[i] >> shift) & 255u], 1u); }}\n    }}\n    \
         workgroupBarrier();\n    hist[(tl.x * {RADIX}u + lid) * tpr + tl.y] = atomicLoad(&h[lid]);\n    \
         workgroupBarrier();\n  }}\n}}",
        chunks = TILE / WG
    );
    src
}

/// The scan kernel: an exclusive scan of every block of [`SCAN`] elements
/// of `data` (`md = [len]`) in place, each block's total to `sums[block]`.
fn scan_src() -> String {
    format!(
        "@group(0) @binding(0) var<storage, read> md: array<u32>;\n\
         @group(0) @binding(1) var<storage, read_write> data: array<u32>;\n\
         @group(0) @binding(2) var<storage, read_write> sums: array<u32>;\n\
         var<workgroup> sh: array<u32, {WG}>;\n\
         @compute @workgroup_size({WG})\nfn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{\n  \
         let len = md[0];\n  let nb = (len + {sm1}u) / {SCAN}u;\n  \
         for (var g = wid.x; g < nb; g = g + nwg.x) {{\n    let base = g * {SCAN}u + lid * 4u;\n    \
         var v = array<u32, 4>(0u, 0u, 0u, 0u);\n    var s = 0u;\n    \
         for (var j = 0u; j < 4u; j = j + 1u) {{\n      var x = 0u;\n      \
         if (base + j < len) {{ x = data[base + j]; }}\n      v[j] = s;\n      s = s + x;\n    }}\n    \
         sh[lid] = s;\n    workgroupBarrier();\n    \
         for (var o = 1u; o < {WG}u; o = o << 1u) {{\n      var a = 0u;\n      \
         if (lid >= o) {{ a = sh[lid - o]; }}\n      workgroupBarrier();\n      \
         sh[lid] = sh[lid] + a;\n      workgroupBarrier();\n    }}\n    \
         let excl = sh[lid] - s;\n    \
         for (var j = 0u; j < 4u; j = j + 1u) {{\n      \
         if (base + j < len) {{ data[base + j] = excl + v[j]; }}\n    }}\n    \
         if (lid == {wm1}u) {{ sums[g] = sh[lid]; }}\n    workgroupBarrier();\n  }}\n}}",
        sm1 = SCAN - 1,
        wm1 = WG - 1
    )
}

/// The add kernel: the scanned block totals `sums` added to every element
/// of their block of `data` (`md = [len]`).
fn add_src() -> String {
    format!(
        "@group(0) @binding(0) var<storage, read> md: array<u32>;\n\
         @group(0) @binding(1) var<storage, read_write> data: array<u32>;\n\
         @group(0) @binding(2) var<storage, read> sums: array<u32>;\n\
         @compute @workgroup_size({WG})\nfn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {{\n  \
         let len = md[0];\n  \
         for (var e = gid.x; e < len; e = e + nwg.x * {WG}u) {{\n    \
         data[e] = data[e] + sums[e / {SCAN}u];\n  }}\n}}"
    )
}

/// The scatter kernel: every pair of the source scratch (`sk0`, `sk1`,
/// `six`) to its place in the destination (`dk0`, `dk1`, `dix`), stably:
/// the tile's first place for its digit (`off`, the scanned histogram) plus
/// the pairs of that digit before it in the tile. Within a chunk of [`WG`]
/// pairs (one per invocation, in input order) the rank among equal digits
/// counts the bits below the invocation's own in a per-digit mask of the
/// chunk's invocations (8 words of 32 bits, set with `atomicOr`); the
/// running count per digit carries it across chunks.
fn scatter_src(wide: bool) -> String {
    let mut src = String::from(
        "@group(0) @binding(0) var<storage, read> md: array<u32>;\n\
         @group(0) @binding(1) var<storage, read> sk0: array<u32>;\n",
    );
    let mut s = 2;
    if wide {
        let _ = writeln!(
            src,
            "@group(0) @binding({s}) var<storage, read> sk1: array<u32>;"
        );
        s += 1;
    }
    let _ = writeln!(
        src,
        "@group(0) @binding({s}) var<storage, read> six: array<u32>;\n\
         @group(0) @binding({}) var<storage, read_write> dk0: array<u32>;",
        s + 1
    );
    s += 2;
    if wide {
        let _ = writeln!(
            src,
            "@group(0) @binding({s}) var<storage, read_write> dk1: array<u32>;"
        );
        s += 1;
    }
    let _ = writeln!(
        src,
        "@group(0) @binding({s}) var<storage, read_write> dix: array<u32>;\n\
         @group(0) @binding({}) var<storage, read> off: array<u32>;",
        s + 1
    );
    let words = WG / 32;
    let _ = writeln!(
        src,
        "var<workgroup> mask: array<atomic<u32>, {}>;\nvar<workgroup> run: array<u32, {RADIX}>;",
        RADIX * words
    );
    src.push_str(&tile_fn());
    let (word, mv1) = if wide {
        (
            "select(sk0[i], sk1[i], md[5] != 0u)",
            "        dk1[dst] = sk1[i];\n",
        )
    } else {
        ("sk0[i]", "")
    };
    let _ = writeln!(
        src,
        "fn clear(lid: u32) {{\n  for (var j = 0u; j < {words}u; j = j + 1u) {{ atomicStore(&mask[lid * {words}u + j], 0u); }}\n}}\n\
         @compute @workgroup_size({WG})\nfn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{\n  \
         let tpr = md[2];\n  let ntiles = md[3];\n  let shift = md[4];\n  \
         for (var g = wid.x; g < ntiles; g = g + nwg.x) {{\n    let tl = tile(g);\n    \
         run[lid] = off[(tl.x * {RADIX}u + lid) * tpr + tl.y];\n    clear(lid);\n    workgroupBarrier();\n    \
         for (var c = 0u; c < {chunks}u; c = c + 1u) {{\n      let i = tl.z + c * {WG}u + lid;\n      \
         let ok = i < tl.w;\n      var d = 0u;\n      \
         if (ok) {{\n        d = ({word} >> shift) & 255u;\n        \
         atomicOr(&mask[d * {words}u + lid / 32u], 1u << (lid % 32u));\n      }}\n      \
         workgroupBarrier();\n      var last = false;\n      var tot = 0u;\n      \
         if (ok) {{\n        let wv = lid / 32u;\n        \
         var rank = countOneBits(atomicLoad(&mask[d * {words}u + wv]) & ((1u << (lid % 32u)) - 1u));\n        \
         for (var j = 0u; j < {words}u; j = j + 1u) {{\n          \
         let m = countOneBits(atomicLoad(&mask[d * {words}u + j]));\n          \
         if (j < wv) {{ rank = rank + m; }}\n          tot = tot + m;\n        }}\n        \
         let dst = run[d] + rank;\n        dk0[dst] = sk0[i];\n{mv1}        dix[dst] = six[i];\n        \
         last = rank + 1u == tot;\n      }}\n      workgroupBarrier();\n      \
         if (last) {{ run[d] = run[d] + tot; }}\n      clear(lid);\n      workgroupBarrier();\n    }}\n  }}\n}}",
        chunks = TILE / WG
    );
    src
}

/// Whether the radix scratch of `rows` rows of `n` fits `max_bind` bytes
/// per binding: the pairs (checked by the caller) and the histogram.
pub(super) fn fits(rows: usize, n: usize, max_bind: u64) -> bool {
    let m = rows.saturating_mul(n.div_ceil(TILE)).saturating_mul(RADIX);
    m < (1usize << 31) && super::buffer::padded(m * 4) <= max_bind
}

/// Sorts every row of `n` pairs in `a` (`rows * n` pairs, row after row) by
/// its key: `bytes` LSD passes of 8 bits (the key's width in bytes; the
/// words above it are constant), over the low word `k1` first when there is
/// one. Returns the scratch that holds the sorted pairs (`a` or a second
/// one, by the passes' parity).
pub(super) fn radix_sort(
    ctx: &Arc<Context>,
    op: &str,
    a: Scratch,
    rows: usize,
    n: usize,
    bytes: usize,
) -> Result<Scratch> {
    let total = rows * n;
    let wide = a.k1.is_some();
    let tpr = n.div_ceil(TILE);
    let ntiles = rows * tpr;
    let m = ntiles * RADIX;
    // The histogram and its scan levels: each level's block totals, down to
    // one block (whose total goes to a last level of one).
    let mut lens = vec![m];
    while *lens.last().unwrap_or(&1) > SCAN {
        let l = lens[lens.len() - 1].div_ceil(SCAN);
        lens.push(l);
    }
    let mut levels = Vec::with_capacity(lens.len() + 1);
    for &l in &lens {
        levels.push(GpuBuffer::new(ctx, l * 4, false, op)?);
    }
    levels.push(GpuBuffer::new(ctx, 4, false, op)?);
    let b = Scratch {
        k0: GpuBuffer::new(ctx, total * 4, false, op)?,
        k1: if wide {
            Some(GpuBuffer::new(ctx, total * 4, false, op)?)
        } else {
            None
        },
        ix: GpuBuffer::new(ctx, total * 4, false, op)?,
    };
    let hist = ctx.pipeline(op, &hist_src())?;
    let scan = ctx.pipeline(op, &scan_src())?;
    let add = ctx.pipeline(op, &add_src())?;
    let scatter = ctx.pipeline(op, &scatter_src(wide))?;
    let md_of = |v: &[u32]| GpuBuffer::from_bytes(ctx, bytemuck::cast_slice(v), op);
    let lens_md = lens
        .iter()
        .map(|&l| md_of(&[l as u32]))
        .collect::<Result<Vec<_>>>()?;
    let (mut src, mut dst) = (a, b);
    for pass in 0..bytes {
        // 64-bit keys: the low word's 4 digits, then the high word's.
        let low = wide && pass < 4;
        let shift = 8 * (pass % 4) as u32;
        let md = md_of(&[
            total as u32,
            n as u32,
            tpr as u32,
            ntiles as u32,
            shift,
            low as u32,
        ])?;
        let kw = match (&src.k1, low) {
            (Some(k1), true) => k1,
            _ => &src.k0,
        };
        dispatch(
            ctx,
            op,
            &hist,
            &[
                whole(0, md.raw()),
                whole(1, kw.raw()),
                whole(2, levels[0].raw()),
            ],
            groups(ntiles, 1),
        );
        for (l, &len) in lens.iter().enumerate() {
            dispatch(
                ctx,
                op,
                &scan,
                &[
                    whole(0, lens_md[l].raw()),
                    whole(1, levels[l].raw()),
                    whole(2, levels[l + 1].raw()),
                ],
                groups(len, SCAN),
            );
        }
        for l in (0..lens.len() - 1).rev() {
            dispatch(
                ctx,
                op,
                &add,
                &[
                    whole(0, lens_md[l].raw()),
                    whole(1, levels[l].raw()),
                    whole(2, levels[l + 1].raw()),
                ],
                groups(lens[l], WG),
            );
        }
        let mut e = vec![whole(0, md.raw()), whole(1, src.k0.raw())];
        if let Some(k1) = &src.k1 {
            e.push(whole(e.len(), k1.raw()));
        }
        e.push(whole(e.len(), src.ix.raw()));
        e.push(whole(e.len(), dst.k0.raw()));
        if let Some(k1) = &dst.k1 {
            e.push(whole(e.len(), k1.raw()));
        }
        e.push(whole(e.len(), dst.ix.raw()));
        e.push(whole(e.len(), levels[0].raw()));
        dispatch(ctx, op, &scatter, &e, groups(ntiles, 1));
        std::mem::swap(&mut src, &mut dst);
    }
    Ok(src)
}
