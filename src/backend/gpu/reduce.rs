//! GPU reductions, arg-reductions and scans, and the passes of the softmax
//! family (whose kernels are in `softmax.rs`).
//!
//! The general kernels (any layout) of reductions and arg-reductions run
//! `tn` invocations per output element ([`gen_t`]: a power of two up to
//! [`WG`], about one per 8 reduced elements, so one invocation per output for
//! rows of at most 8) and `WG / tn` outputs side by side in a workgroup of
//! [`WG`]; softmax runs one workgroup per group (`softmax.rs`). The input is
//! seen as the index space `[kept..., reduced...]` (kept and reduced axes each
//! merged where the strides allow): output `o` picks the kept coordinates, and
//! its invocation `t` accumulates the reduced elements `t, t + tn, t + 2 tn,
//! ...` sequentially, then the `tn` partial results combine in a binary tree
//! in workgroup memory. Workgroups stride over the outputs when there are
//! more than 65,535 groups of them. Shapes, strides and counts travel
//! in a metadata buffer (`md`), so one pipeline serves every shape of one (op,
//! dtype) pair.
//!
//! # Long reductions: two passes
//! No invocation loops over more than a few thousand elements: a kernel that
//! does runs one workgroup where hundreds could, and Mesa's lavapipe stops
//! loops after about 2^15 iterations (an infinite-loop guard), which gave
//! wrong sums and arg-maxima past 2^23 reduced elements. So when more than
//! [`CHUNK`] elements reduce into one output, `Sum`, `Prod`, `Max`, `Min`,
//! `All`, `Any`, `Mean` and the arg-reductions run in two passes: the first
//! reduces chunks of `ch = max(CHUNK, ceil(n / CHUNK))` elements into a
//! partial per (output, chunk) in the accumulator dtype (f32 for f16/bf16,
//! 32-bit for the sub-word integers; arg-reductions keep value and index),
//! the second reduces each output's `ceil(n / ch) <= CHUNK` partials. Scans
//! of rows longer than [`super::scan::SCAN_CHUNK`] run in three: chunk totals, a scan of
//! the totals (recursively), and each chunk's scan from its carry-in. `Var`
//! and `Std` of more than [`CHUNK`] elements per output run in four passes
//! with the one-pass kernel's arithmetic: chunk sums, the mean from them (in
//! the accumulator dtype), chunk sums of squared deviations from that mean,
//! their sum divided by `n - ddof` (and its root). Softmax groups of more
//! than [`CHUNK`] elements run in three: per chunk its maximum `m_c` and
//! `s_c = sum exp(x - m_c)`; per group `M = max m_c`, `S = sum s_c exp(m_c -
//! M)` over the chunks not all -inf (logsumexp stores `M + log S`); per
//! chunk the outputs from `M` and `S`. Contiguous groups (rows) run the
//! first and last of these in the row kernel (`softmax_rows.rs`) over chunks
//! of 4,096.
//!
//! # Fast kernels
//! Two layouts take kernels without per-element index arithmetic
//! (`reduce_plan.rs`): contiguous reduced runs (rows: the last axis, all
//! elements) in `reduce_rows.rs`, contiguous kept columns (axis 0, a middle
//! axis) in `reduce_cols.rs`, with their own chunk plans (`reduce_fast.rs`
//! drives their passes: chunk partials, then the partials as rows). The
//! kernel above serves every other layout.
//!
//! # Float sums: error bound
//! Each kernel adds elements into an accumulator in sequence, then combines
//! accumulators in a fixed tree, so every element goes through at most `k`
//! roundings, `k` the sum over the passes of, for a pass over chunks of `c`
//! elements: the general kernel `ceil(c / tn) - 1 + log2(tn)` with `tn =
//! min(256, next_pow2(ceil(c / 8)))` (at most 14 for `c <= 1024`, `ceil(c /
//! 256) + 7` above; one pass up to
//! [`CHUNK`] elements, else chunks of `max(CHUNK, ceil(n / CHUNK))` and the
//! partials); the row kernel `ceil(c / (4 t)) + 2 + log2(t)` with `t =
//! min(256, next_pow2(ceil(c / 16)))` (+2 for `t = 1`, +1 for `t = 2`; at
//! most 13 for `c <= 4096`, `ceil(c / 1024) + 10` above; one pass up to
//! 4,096 elements, or 16,384 with 512 or more outputs, else chunks of 4,096
//! (16,384 past 2^28 elements); at most 48 over all passes for any `n`);
//! the column kernel `ceil(c / lanes) - 1 + log2(lanes)` (at most 71; its
//! partials then as rows). Then `|computed - exact| <= k u / (1 - k u) *
//! sum |x_i|` with `u = 2^-24` (f32, and f16/bf16, which accumulate in f32 and
//! add one rounding to their own precision when stored: `2^-11` resp. `2^-8`
//! relative) or `u = 2^-53` (f64). `Mean` adds one division (Vulkan: at most
//! 2.5 ulp), `Var` sums squared deviations from the computed mean with the
//! same bound; `Std` takes a `sqrt` of it. Integer sums and products wrap at
//! the dtype's width (computed in 32 or 64 bits; the store keeps the low
//! bits), so they equal the CPU's exactly; so do `Max`, `Min`, `All`, `Any`
//! and the arg-reductions (except that the sign of a zero maximum among both
//! `-0` and `+0` may differ: the CPU's answer depends on its own order too).
//!
//! NaN: `Max`/`Min` propagate NaN like the CPU's `fmax`/`fmin`, and the
//! arg-reductions return the first NaN; NaN is tested on the bits (WGSL lets
//! compilers assume no NaN in float compares).
//!
//! Softmax of f64 computes in f64 with rnx's f64 `exp`/`log` (1 ULP each,
//! `math_f64.rs`), partials in f64: within 1e-13 relative of the CPU's (plus
//! 1e-13 absolute for the logarithms), `tests/suite/gpu_f64.rs`. Softmax
//! (f32/f16/bf16) uses the built-in `exp`/`log`; measured on lavapipe against the CPU: within 1e-5
//! relative + 1e-6 absolute (f32), for the chunked groups too (their `S` adds
//! one `exp` and one product per chunk: `tests/suite/gpu_reduce_long.rs`). Scans of rows up to [`super::scan::SCAN_CHUNK`] run one
//! invocation per row in the CPU's order: bit-identical to the CPU; longer
//! float rows add the chunks' carries in another order (integers: exact).

use super::buffer::GpuBuffer;
use super::kernel::{
    check_bindings, check_size, dispatch, merge_dims, raw, window_entries, windows,
};
use super::reduce_rows::tree;
use super::wgsl::Win;
use super::{wgsl, GpuBackend};
use crate::backend::{ArgOp, CoreBackend, ReduceBackend, ReduceOp, ScanOp, SoftmaxOp};
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::Tensor;
use std::fmt::Write;
use std::sync::{Arc, OnceLock};

/// Invocations per workgroup of the reduction kernels (a power of two).
pub(super) const WG: u32 = 256;

/// Reduced elements per output above which reductions run in two passes, and
/// the smallest chunk of the first pass (64 elements per invocation).
pub(super) const CHUNK: usize = WG as usize * 64;

/// Metadata slots: outputs, reduced count, ddof, kept and reduced rank,
/// offsets, chunks per output, chunk length, divisor of `Mean`.
pub(super) const NP: usize = 7;
pub(super) const CH: usize = 8;
pub(super) const DIV: usize = 9;

/// The metadata of one reduction: `[nout, count, ddof, nk, nr, xoff, yoff,
/// np, ch, div, kshape[nk], kx[nk], ky[nk], rshape[nr], rx[nr], ry[nr]]`
/// (strides as two's-complement i32). `ry` are the output's strides along the
/// reduced axes (softmax writes every element; zero elsewhere). One chunk of
/// the whole count (`np = 1`, `ch = count`) and `div = count` by default.
pub(super) fn meta(
    x: &Tensor,
    axes: &[usize],
    out: &Tensor,
    ddof: usize,
) -> (usize, usize, Vec<u32>) {
    let xs = x.layout().strides();
    let ys = out.layout().strides();
    let shape = x.shape();
    let kept: Vec<usize> = (0..shape.len()).filter(|d| !axes.contains(d)).collect();
    let kshape: Vec<usize> = kept.iter().map(|&d| shape[d]).collect();
    let (kshape, kst) = merge_dims(
        &kshape,
        &[
            kept.iter().map(|&d| xs[d]).collect(),
            kept.iter().map(|&d| ys[d]).collect(),
        ],
    );
    let rshape: Vec<usize> = axes.iter().map(|&d| shape[d]).collect();
    let ry: Vec<isize> = if out.shape() == shape {
        axes.iter().map(|&d| ys[d]).collect()
    } else {
        vec![0; axes.len()]
    };
    let (rshape, rst) = merge_dims(&rshape, &[axes.iter().map(|&d| xs[d]).collect(), ry]);
    let count: usize = axes.iter().map(|&d| shape[d]).product();
    // Shapes with a zero-size kept axis have no outputs.
    let nout = if shape
        .iter()
        .enumerate()
        .any(|(d, &s)| s == 0 && !axes.contains(&d))
    {
        0
    } else {
        kshape.iter().product()
    };
    let mut md = vec![
        nout as u32,
        count as u32,
        ddof as u32,
        kshape.len() as u32,
        rshape.len() as u32,
        x.offset() as u32,
        out.offset() as u32,
        1,
        count as u32,
        count as u32,
    ];
    let i = |s: &isize| *s as i32 as u32;
    md.extend(kshape.iter().map(|&d| d as u32));
    md.extend(kst[0].iter().map(i));
    md.extend(kst[1].iter().map(i));
    md.extend(rshape.iter().map(|&d| d as u32));
    md.extend(rst[0].iter().map(i));
    md.extend(rst[1].iter().map(i));
    (nout, count, md)
}

/// WGSL helpers over `md`: `kept(o)` -> (input, output) element index of
/// output `o`'s first element; `red(k)` -> (input, output) offsets of reduced
/// element `k`.
const INDEX: &str = r#"
fn p2(v: u32) -> u32 { return 1u << (32u - countLeadingZeros(max(v, 1u) - 1u)); }
fn kept(o: u32) -> vec2<i32> {
  let nk = md[3];
  var r = o;
  var xi = bitcast<i32>(md[5]);
  var yi = bitcast<i32>(md[6]);
  for (var d = i32(nk) - 1; d >= 0; d = d - 1) {
    let s = md[10u + u32(d)];
    let q = r / s;
    let c = i32(r - q * s);
    r = q;
    xi = xi + c * bitcast<i32>(md[10u + nk + u32(d)]);
    yi = yi + c * bitcast<i32>(md[10u + 2u * nk + u32(d)]);
  }
  return vec2<i32>(xi, yi);
}
fn red(k: u32) -> vec2<i32> {
  let nr = md[4];
  let b = 10u + 3u * md[3];
  if (nr == 1u) {
    return vec2<i32>(i32(k) * bitcast<i32>(md[b + 1u]), i32(k) * bitcast<i32>(md[b + 2u]));
  }
  var r = k;
  var xi = 0;
  var yi = 0;
  for (var d = i32(nr) - 1; d >= 0; d = d - 1) {
    let s = md[b + u32(d)];
    let q = r / s;
    let c = i32(r - q * s);
    r = q;
    xi = xi + c * bitcast<i32>(md[b + nr + u32(d)]);
    yi = yi + c * bitcast<i32>(md[b + 2u * nr + u32(d)]);
  }
  return vec2<i32>(xi, yi);
}
"#;

/// Invocations per work item of the general kernels for chunks of `ch`
/// elements: a power of two up to [`WG`], each invocation holding up to 8
/// elements (one invocation per output for rows of at most 8). The kernels
/// compute the same from `md[CH]` ([`GEN_T`]), so their source does not
/// depend on the length.
pub(super) fn gen_t(ch: usize) -> u32 {
    (ch.div_ceil(8).next_power_of_two() as u32).min(WG)
}

/// [`gen_t`] in WGSL, of the kernel's `ch`.
const GEN_T: &str = "min(256u, p2((ch + 7u) / 8u))";

/// Work items per workgroup of a general kernel launched with metadata `md`.
fn gen_per_group(md: &[u32]) -> usize {
    (WG / gen_t(md[CH] as usize)) as usize
}

/// The opening of a chunked workgroup loop: the workgroup's `WG / tn` work
/// items side by side, `tn` invocations each (`t` the invocation's lane);
/// work item `g` is chunk `c` of output `o`, reduced elements `k0..k1` (none
/// when `g` is past the last item: `live` false; such invocations still
/// reach every barrier).
pub(super) fn chunk_loop() -> String {
    format!(
        "  let nout = md[0];\n  let cnt = md[1];\n  let np = md[7];\n  let ch = md[8];\n  let tn = {GEN_T};\n  let rn = {WG}u / tn;\n  let t = lid & (tn - 1u);\n  let items = nout * np;\n  for (var g0 = wid.x * rn; g0 < items; g0 = g0 + nwg.x * rn) {{\n    let g = g0 + lid / tn;\n    let live = g < items;\n    let o = g / np;\n    let c = g - o * np;\n    var kb = vec2<i32>(0, 0);\n    let k0 = c * ch;\n    var k1 = k0;\n    if (live) {{\n      kb = kept(o);\n      k1 = min(cnt, k0 + ch);\n    }}\n"
    )
}

/// The unsigned dtype of `d`'s width (raw bits).
fn raw_dtype(d: DType) -> DType {
    match d.itemsize() {
        1 => DType::U8,
        2 => DType::U16,
        4 => DType::U32,
        _ => DType::U64,
    }
}

/// The dtype partial results of `d` are kept in between passes: its WGSL
/// compute type (never a packed sub-word dtype).
pub(super) fn acc_dtype(d: DType) -> DType {
    match d {
        DType::F16 | DType::BF16 => DType::F32,
        DType::I8 | DType::I16 => DType::I32,
        DType::U8 | DType::U16 => DType::U32,
        d => d,
    }
}

/// The chunk length and chunk count of a two-pass reduction of `count`
/// elements per output: at most [`CHUNK`] chunks.
pub(super) fn chunks(count: usize) -> (usize, usize) {
    let ch = CHUNK.max(count.div_ceil(CHUNK));
    (ch, count.div_ceil(ch))
}

/// The source header: bindings `md`, `x` (input, read as `xd`, in `wx`
/// windows), `y` (output, written as `yd`, in `wy` windows), prelude,
/// load/store functions and index helpers.
pub(super) fn header(xd: DType, yd: DType, (wx, wy): (Win, Win)) -> String {
    let mut src = String::new();
    src.push_str("@group(0) @binding(0) var<storage, read> md: array<u32>;\n");
    src.push_str(&wgsl::decl(1, "bx", xd, false, wx));
    src.push_str(&wgsl::decl(1 + wx.count as usize, "by", yd, true, wy));
    src.push_str(wgsl::PRELUDE);
    if xd == DType::F64 || yd == DType::F64 {
        src.push_str(wgsl::PRELUDE_F64);
    }
    src.push_str(&wgsl::load_fn(0, "bx", xd, false));
    src.push_str(&wgsl::store_fn(1, "by", yd));
    src.push_str(INDEX);
    src
}

/// The declaration of plain binding number `slot` after the windows `w` of
/// `x` and `y`.
pub(super) fn extra_decl(w: (Win, Win), k: usize, name: &str, ty: &str, written: bool) -> String {
    let access = if written { "read_write" } else { "read" };
    format!(
        "@group(0) @binding({}) var<storage, {access}> {name}: array<{ty}>;\n",
        1 + (w.0.count + w.1.count) as usize + k
    )
}

/// Most workgroups one reduction launch dispatches: 65,535 (the limit of a
/// dispatch dimension every device has); the kernels stride over the rest.
/// `RNX_GPU_MAX_GROUPS` (1 to 65,535) lowers it, so that tests reach the
/// striding with small tensors.
fn max_groups() -> usize {
    static MAX: OnceLock<usize> = OnceLock::new();
    *MAX.get_or_init(|| {
        crate::env::number("RNX_GPU_MAX_GROUPS")
            .filter(|n| (1..=65_535).contains(n))
            .unwrap_or(65_535)
    })
}

/// One kernel launch: source from the windows of `x` and `out`, metadata,
/// the work items, and plain bindings after the windows.
pub(super) struct Launch<'a> {
    pub(super) op: &'a str,
    pub(super) md: &'a [u32],
    /// Work items (workgroups, or invocations for the scan).
    pub(super) items: usize,
    /// Work items per workgroup; `None` for the general reduction and
    /// arg-reduction kernels ([`gen_per_group`] of `md`).
    pub(super) per_group: Option<usize>,
    pub(super) x: &'a Tensor,
    pub(super) xd: DType,
    pub(super) out: &'a Tensor,
    pub(super) extra: &'a [&'a Tensor],
}

impl Launch<'_> {
    pub(super) fn run(self, b: &GpuBackend, src: impl FnOnce((Win, Win)) -> String) -> Result<()> {
        let op = self.op;
        let ctx = b.ctx(op)?;
        ctx.check_alive(op)?;
        check_size(op, &[self.x, self.out])?;
        ctx.check_dtype(op, self.x.dtype())?;
        ctx.check_dtype(op, self.xd)?;
        ctx.check_dtype(op, self.out.dtype())?;
        if self.items == 0 {
            return Ok(());
        }
        let (wx, wy) = (
            windows(&ctx, self.x, self.xd),
            windows(&ctx, self.out, self.out.dtype()),
        );
        let nb = 1 + (wx.count + wy.count) as usize;
        check_bindings(&ctx, op, nb + self.extra.len())?;
        let pipeline = ctx.pipeline(op, &src((wx, wy)))?;
        let meta_buf = GpuBuffer::from_bytes(&ctx, bytemuck::cast_slice(self.md), op)?;
        let mut entries = vec![wgpu::BindGroupEntry {
            binding: 0,
            resource: meta_buf.raw().as_entire_binding(),
        }];
        window_entries(1, raw(self.x), self.xd, wx, &mut entries);
        window_entries(
            1 + wx.count as usize,
            raw(self.out),
            self.out.dtype(),
            wy,
            &mut entries,
        );
        for (k, t) in self.extra.iter().enumerate() {
            entries.push(wgpu::BindGroupEntry {
                binding: (nb + k) as u32,
                resource: raw(t).as_entire_binding(),
            });
        }
        let per_group = self.per_group.unwrap_or_else(|| gen_per_group(self.md));
        let groups = self.items.div_ceil(per_group).min(max_groups()) as u32;
        dispatch(&ctx, op, &pipeline, &entries, (groups, 1, 1));
        Ok(())
    }
}

/// The passes of a reduction kernel.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Stage {
    /// Each output's one chunk, finished (`Mean` divides, `Var`/`Std` sum the
    /// squared deviations from the mean in a second sweep) and stored at the
    /// output's element.
    Whole,
    /// Chunk results, unfinished (no `Mean` division), to the contiguous
    /// partials at work item `g`.
    Partial,
    /// Chunk sums of squared deviations from output `o`'s mean (plain binding
    /// `mu`, element `o`) to the partials at work item `g` (`Var`/`Std`).
    SqDev,
    /// `Var`/`Std` from the partial sums of squared deviations: their sum
    /// divided by `md[9] - ddof` (`md[9]`: the first pass's element count),
    /// its root for `Std`, stored at the output's element.
    VarFinish,
}

/// The WGSL pieces of reduction `op` over `xd` (raw bits for `All`/`Any`)
/// that every reduction kernel shares.
pub(super) struct Pieces {
    /// The dtype `x` is read as (raw bits for `All`/`Any`).
    pub(super) rd: DType,
    /// Its compute type.
    pub(super) t: &'static str,
    /// The accumulator type.
    pub(super) acc: &'static str,
    /// The identity literal.
    pub(super) ident: String,
    /// `fn comb(a: acc, b: acc) -> acc` (and `fn sqd(v, m)` for `SqDev`).
    pub(super) funcs: String,
    /// The contribution of an element `v` (`SqDev`: its squared deviation
    /// from `m`).
    pub(super) elem: String,
}

/// The [`Pieces`] of `op` over `xd` for the pass `stage`.
pub(super) fn pieces(op: ReduceOp, xd: DType, stage: Stage) -> Pieces {
    let rd = match op {
        ReduceOp::All | ReduceOp::Any => raw_dtype(xd),
        _ => xd,
    };
    let t = wgsl::compute_ty(xd);
    let float = xd.is_float();
    let acc = match op {
        ReduceOp::All | ReduceOp::Any => "u32",
        _ => t,
    };
    let nan = wgsl::is_nan(xd, "a");
    let nanb = wgsl::is_nan(xd, "b");
    // Identity literal and combine function.
    let (ident, mut funcs): (String, String) = match op {
        ReduceOp::Sum | ReduceOp::Mean | ReduceOp::Var { .. } | ReduceOp::Std { .. } => (
            wgsl::lit(xd, 0.0),
            format!("fn comb(a: {t}, b: {t}) -> {t} {{ return a + b; }}\n"),
        ),
        ReduceOp::Prod => (
            wgsl::lit(xd, 1.0),
            format!("fn comb(a: {t}, b: {t}) -> {t} {{ return a * b; }}\n"),
        ),
        ReduceOp::Max | ReduceOp::Min => {
            let max = op == ReduceOp::Max;
            let ident = if float {
                wgsl::lit(
                    xd,
                    if max {
                        f64::NEG_INFINITY
                    } else {
                        f64::INFINITY
                    },
                )
            } else {
                extreme_lit(xd, max)
            };
            let f = if float {
                let cmp = if max { "a > b" } else { "a < b" };
                format!(
                    "fn comb(a: {t}, b: {t}) -> {t} {{\n  if ({nan}) {{ return a; }}\n  if ({nanb}) {{ return b; }}\n  if ({cmp}) {{ return a; }}\n  return b;\n}}\n"
                )
            } else {
                let m = if max { "max" } else { "min" };
                format!("fn comb(a: {t}, b: {t}) -> {t} {{ return {m}(a, b); }}\n")
            };
            (ident, f)
        }
        ReduceOp::All => (
            "1u".into(),
            "fn comb(a: u32, b: u32) -> u32 { return a & b; }\n".into(),
        ),
        ReduceOp::Any => (
            "0u".into(),
            "fn comb(a: u32, b: u32) -> u32 { return a | b; }\n".into(),
        ),
    };
    if stage == Stage::SqDev {
        let _ = writeln!(
            funcs,
            "fn sqd(v: {t}, m: {t}) -> {t} {{\n  let d = v - m;\n  return d * d;\n}}"
        );
    }
    // The value an element contributes.
    let elem = match op {
        _ if stage == Stage::SqDev => "sqd(v, m)".into(),
        ReduceOp::All | ReduceOp::Any => {
            let rt = wgsl::compute_ty(rd);
            let mask = match (float, xd.itemsize()) {
                (false, _) => format!("~{rt}(0)"),
                (true, 2) => "0x7fffu".into(),
                (true, 4) => "0x7fffffffu".into(),
                (true, _) => "0x7ffffffffffffffflu".into(),
            };
            format!("select(0u, 1u, (v & {mask}) != {rt}(0))")
        }
        _ => "v".into(),
    };
    Pieces {
        rd,
        t,
        acc,
        ident,
        funcs,
        elem,
    }
}

/// The kernel source of a reduction of `xd` (raw bits for `All`/`Any`) into
/// `yd`, for the pass `stage`: the general kernel (any layout).
pub(super) fn reduce_src(
    op: ReduceOp,
    xd: DType,
    yd: DType,
    stage: Stage,
    w: (Win, Win),
) -> String {
    let Pieces {
        rd,
        t,
        acc,
        ident,
        funcs,
        elem,
    } = pieces(op, xd, stage);
    let mut src = header(rd, yd, w);
    src.push_str(&funcs);
    if stage == Stage::SqDev {
        src.push_str(&extra_decl(w, 0, "mu", t, false));
    }
    let elem = elem.replace("sqd(v, m)", "sqd(v, mu[o])");
    let _ = writeln!(
        src,
        "var<workgroup> sa: array<{acc}, {WG}>;\n@compute @workgroup_size({WG})\nfn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{\n{}    var a: {acc} = {ident};\n    for (var k = k0 + t; k < k1; k = k + tn) {{\n      let v = ld0(u32(kb.x + red(k).x));\n      a = comb(a, {elem});\n    }}\n    sa[lid] = a;",
        chunk_loop()
    );
    let comb = "sa[lid] = comb(sa[lid], sa[lid + s]);";
    tree(&mut src, comb);
    let nanlit = wgsl::lit(xd, f64::NAN);
    let sq = if matches!(op, ReduceOp::Std { .. }) {
        "sqrt"
    } else {
        ""
    };
    // Lane 0 of each live work item holds its result in `sa[lid]`.
    match op {
        _ if matches!(stage, Stage::Partial | Stage::SqDev) => {
            let _ = writeln!(src, "    if (live && t == 0u) {{ st1(g, sa[lid]); }}");
        }
        ReduceOp::Var { .. } | ReduceOp::Std { .. } if stage == Stage::VarFinish => {
            let _ = writeln!(
                src,
                "    if (live && t == 0u) {{\n      var r = {nanlit};\n      if (md[9] > 0u) {{ r = {sq}(sa[lid] / {t}(md[9] - md[2])); }}\n      st1(u32(kb.y), r);\n    }}"
            );
        }
        ReduceOp::Var { .. } | ReduceOp::Std { .. } => {
            // The second sweep: squared deviations from the item's mean.
            let _ = writeln!(
                src,
                "    let mean = sa[lid - t] / {t}(cnt);\n    workgroupBarrier();\n    var q: {t} = {ident};\n    for (var k = k0 + t; k < k1; k = k + tn) {{\n      let d = ld0(u32(kb.x + red(k).x)) - mean;\n      q = q + d * d;\n    }}\n    sa[lid] = q;"
            );
            tree(&mut src, comb);
            let _ = writeln!(
                src,
                "    if (live && t == 0u) {{\n      var r = {nanlit};\n      if (cnt > 0u) {{ r = {sq}(sa[lid] / {t}(cnt - md[2])); }}\n      st1(u32(kb.y), r);\n    }}"
            );
        }
        ReduceOp::Mean => {
            let _ = writeln!(
                src,
                "    if (live && t == 0u) {{\n      var r = {nanlit};\n      if (md[9] > 0u) {{ r = sa[lid] / {t}(md[9]); }}\n      st1(u32(kb.y), r);\n    }}"
            );
        }
        _ => {
            let _ = writeln!(
                src,
                "    if (live && t == 0u) {{ st1(u32(kb.y), sa[lid]); }}"
            );
        }
    }
    src.push_str("    workgroupBarrier();\n  }\n}\n");
    src
}

/// The smallest (`min`) or largest value of an integer compute type, as a
/// WGSL expression.
fn extreme_lit(d: DType, min: bool) -> String {
    match (wgsl::compute_ty(d), min) {
        ("i32", true) => "bitcast<i32>(0x80000000u)".into(),
        ("i32", false) => "bitcast<i32>(0x7fffffffu)".into(),
        ("u32", true) => "0u".into(),
        ("u32", false) => "0xffffffffu".into(),
        ("i64", true) => "bitcast<i64>(0x8000000000000000lu)".into(),
        ("i64", false) => "bitcast<i64>(0x7ffffffffffffffflu)".into(),
        ("u64", true) => "0lu".into(),
        ("u64", false) => "0xfffffffffffffffflu".into(),
        (t, _) => unreachable!("integer compute types only, not {t}"),
    }
}

/// The passes of an arg-reduction.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum ArgPass {
    /// One pass: the index into the i32 output.
    Whole,
    /// First of two: each chunk's best value into the partials `y` (at work
    /// item `g`), its index into the plain binding `pi`.
    Partial,
    /// Second of two over the partial values: the winner's index from `pi`.
    Final,
}

/// `fn better(a, b)` (value `a` replaces the current best `b`: the CPU's
/// rule, NaN first) and `fn pick(va, ia, vb, ib)` (candidate `(vb, ib)`
/// replaces `(va, ia)`: the better value, on equal ones the smaller index;
/// index `0xffffffff` is none) of arg-reduction `op` over `xd`. `pick` is
/// a total order, so candidates may be combined in any order.
pub(super) fn arg_funcs(op: ArgOp, xd: DType) -> String {
    let t = wgsl::compute_ty(xd);
    let cmp = if op == ArgOp::Max { "a > b" } else { "a < b" };
    let nan_a = wgsl::is_nan(xd, "a");
    let nan_b = wgsl::is_nan(xd, "b");
    format!(
        "fn better(a: {t}, b: {t}) -> bool {{\n  if ({nan_b}) {{ return false; }}\n  if ({nan_a}) {{ return true; }}\n  return {cmp};\n}}\nfn pick(va: {t}, ia: u32, vb: {t}, ib: u32) -> bool {{\n  return ib != 0xffffffffu && (ia == 0xffffffffu || better(vb, va) || (!better(va, vb) && ib < ia));\n}}\n"
    )
}

/// The kernel source of an arg-reduction pass over `xd`.
pub(super) fn arg_src(op: ArgOp, xd: DType, pass: ArgPass, w: (Win, Win)) -> String {
    let yd = if pass == ArgPass::Partial {
        acc_dtype(xd)
    } else {
        DType::I32
    };
    let mut src = header(xd, yd, w);
    if pass != ArgPass::Whole {
        src.push_str(&extra_decl(w, 0, "pi", "u32", pass == ArgPass::Partial));
    }
    let t = wgsl::compute_ty(xd);
    src.push_str(&arg_funcs(op, xd));
    let store = match pass {
        ArgPass::Whole => "st1(u32(kb.y), bitcast<i32>(si[lid]));",
        ArgPass::Partial => "st1(g, sv[lid]);\n      pi[g] = si[lid];",
        ArgPass::Final => "st1(u32(kb.y), bitcast<i32>(pi[u32(kb.x) + si[lid]]));",
    };
    // Each invocation keeps the first best of its elements (increasing k);
    // the tree merges with `pick` (a total order: the better value, on equal
    // ones the smaller index).
    let _ = writeln!(
        src,
        "var<workgroup> sv: array<{t}, {WG}>;\nvar<workgroup> si: array<u32, {WG}>;\n@compute @workgroup_size({WG})\nfn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{\n{}    var bi = 0xffffffffu;\n    var bv = {t}();\n    for (var k = k0 + t; k < k1; k = k + tn) {{\n      let v = ld0(u32(kb.x + red(k).x));\n      if (bi == 0xffffffffu || better(v, bv)) {{ bv = v; bi = k; }}\n    }}\n    sv[lid] = bv;\n    si[lid] = bi;",
        chunk_loop()
    );
    tree(
        &mut src,
        "if (pick(sv[lid], si[lid], sv[lid + s], si[lid + s])) {\n          sv[lid] = sv[lid + s];\n          si[lid] = si[lid + s];\n        }",
    );
    let _ = writeln!(
        src,
        "    if (live && t == 0u) {{\n      {store}\n    }}\n    workgroupBarrier();\n  }}\n}}"
    );
    src
}

impl GpuBackend {
    /// A new contiguous GPU tensor of `shape` (contents undefined).
    pub(super) fn temp(&self, d: DType, shape: &[usize]) -> Result<Tensor> {
        let s = self.alloc_for_overwrite(d, shape.iter().product())?;
        Tensor::from_parts(Arc::new(s), Layout::contiguous(shape))
    }

    /// The partials of a chunked reduction of `x` over `axes`: `x`'s shape
    /// with the reduced axes 1 and a last axis of `np` chunks (contiguous, so
    /// chunk `c` of output `o` is element `o * np + c`).
    pub(super) fn partials(
        &self,
        d: DType,
        x: &Tensor,
        axes: &[usize],
        np: usize,
    ) -> Result<Tensor> {
        let mut shape: Vec<usize> = x.shape().to_vec();
        for &a in axes {
            shape[a] = 1;
        }
        shape.push(np);
        self.temp(d, &shape)
    }

    /// `out` (keepdims shape) seen with a last axis of one element: the
    /// output of a reduction over the partials' last axis.
    pub(super) fn with_unit_axis(out: &Tensor) -> Result<Tensor> {
        let l = out.layout();
        let mut shape = l.shape().to_vec();
        let mut strides = l.strides().to_vec();
        shape.push(1);
        strides.push(1);
        Tensor::from_parts(
            Arc::clone(out.storage()),
            Layout::new(shape, strides, l.offset()),
        )
    }

    /// A reduction whose `Mean` divides by `div` (the element count of the
    /// first pass when `x` holds partials).
    pub(super) fn reduce_div(
        &self,
        op: ReduceOp,
        x: &Tensor,
        axes: &[usize],
        out: &Tensor,
        div: usize,
    ) -> Result<()> {
        let ddof = match op {
            ReduceOp::Var { ddof } | ReduceOp::Std { ddof } => ddof,
            _ => 0,
        };
        let (nout, count, mut md) = meta(x, axes, out, ddof);
        md[DIV] = div as u32;
        let xd = x.dtype();
        let rd = if matches!(op, ReduceOp::All | ReduceOp::Any) {
            raw_dtype(xd)
        } else {
            xd
        };
        if nout > 0 && count > 0 && self.reduce_fast(op, x, axes, out, &md)? {
            return Ok(());
        }
        let var = matches!(op, ReduceOp::Var { .. } | ReduceOp::Std { .. });
        if count > CHUNK && var && nout > 0 {
            return self.var_chunked(op, x, axes, out, md);
        }
        if count > CHUNK && nout > 0 {
            let (ch, np) = chunks(count);
            let pd = match op {
                ReduceOp::All | ReduceOp::Any => DType::U32,
                _ => acc_dtype(xd),
            };
            let part = self.partials(pd, x, axes, np)?;
            md[NP] = np as u32;
            md[CH] = ch as u32;
            let pop = if op == ReduceOp::Mean {
                ReduceOp::Sum
            } else {
                op
            };
            Launch {
                op: "reduce",
                md: &md,
                items: nout * np,
                per_group: None,
                x,
                xd: rd,
                out: &part,
                extra: &[],
            }
            .run(self, |w| reduce_src(pop, xd, pd, Stage::Partial, w))?;
            let last = part.shape().len() - 1;
            return self.reduce_div(op, &part, &[last], &Self::with_unit_axis(out)?, div);
        }
        Launch {
            op: "reduce",
            md: &md,
            items: nout,
            per_group: None,
            x,
            xd: rd,
            out,
            extra: &[],
        }
        .run(self, |w| reduce_src(op, xd, out.dtype(), Stage::Whole, w))
    }
}

impl GpuBackend {
    /// `Var`/`Std` of more than [`CHUNK`] elements per output, in the one-pass
    /// kernel's order of operations: the mean from chunked sums (two passes),
    /// then chunked sums of squared deviations from it, then their sum divided
    /// by `count - ddof` (and its root). `md` is `x`'s metadata for `out`.
    fn var_chunked(
        &self,
        op: ReduceOp,
        x: &Tensor,
        axes: &[usize],
        out: &Tensor,
        mut md: Vec<u32>,
    ) -> Result<()> {
        let xd = x.dtype();
        let pd = acc_dtype(xd);
        let (nout, count) = (md[0] as usize, md[1] as usize);
        let (ch, np) = chunks(count);
        md[NP] = np as u32;
        md[CH] = ch as u32;
        let part = self.partials(pd, x, axes, np)?;
        let last = part.shape().len() - 1;
        // The mean, kept in the accumulator dtype (contiguous: output `o` at `o`).
        let mean = self.partials(pd, x, axes, 1)?;
        Launch {
            op: "reduce",
            md: &md,
            items: nout * np,
            per_group: None,
            x,
            xd,
            out: &part,
            extra: &[],
        }
        .run(self, |w| {
            reduce_src(ReduceOp::Sum, xd, pd, Stage::Partial, w)
        })?;
        self.reduce_div(ReduceOp::Mean, &part, &[last], &mean, count)?;
        Launch {
            op: "reduce",
            md: &md,
            items: nout * np,
            per_group: None,
            x,
            xd,
            out: &part,
            extra: &[&mean],
        }
        .run(self, |w| reduce_src(op, xd, pd, Stage::SqDev, w))?;
        let out1 = Self::with_unit_axis(out)?;
        let ddof = md[2] as usize;
        let (nout, _, mut fmd) = meta(&part, &[last], &out1, ddof);
        fmd[DIV] = count as u32;
        Launch {
            op: "reduce",
            md: &fmd,
            items: nout,
            per_group: None,
            x: &part,
            xd: pd,
            out: &out1,
            extra: &[],
        }
        .run(self, |w| {
            reduce_src(op, pd, out.dtype(), Stage::VarFinish, w)
        })
    }
}

impl ReduceBackend for GpuBackend {
    fn reduce(&self, op: ReduceOp, x: &Tensor, axes: &[usize], out: &Tensor) -> Result<()> {
        let count = axes.iter().map(|&a| x.shape()[a]).product();
        self.reduce_div(op, x, axes, out, count)
    }
    fn arg_reduce(&self, op: ArgOp, x: &Tensor, axis: usize, out: &Tensor) -> Result<()> {
        let (nout, count, mut md) = meta(x, &[axis], out, 0);
        let xd = x.dtype();
        if nout > 0 && count > 0 && self.arg_fast(op, x, axis, out, &md)? {
            return Ok(());
        }
        if count <= CHUNK || nout == 0 {
            return Launch {
                op: "arg_reduce",
                md: &md,
                items: nout,
                per_group: None,
                x,
                xd,
                out,
                extra: &[],
            }
            .run(self, |w| arg_src(op, xd, ArgPass::Whole, w));
        }
        let (ch, np) = chunks(count);
        let pd = acc_dtype(xd);
        let values = self.partials(pd, x, &[axis], np)?;
        let index = self.partials(DType::U32, x, &[axis], np)?;
        md[NP] = np as u32;
        md[CH] = ch as u32;
        Launch {
            op: "arg_reduce",
            md: &md,
            items: nout * np,
            per_group: None,
            x,
            xd,
            out: &values,
            extra: &[&index],
        }
        .run(self, |w| arg_src(op, xd, ArgPass::Partial, w))?;
        let last = values.shape().len() - 1;
        let out1 = Self::with_unit_axis(out)?;
        let (nout, _, md) = meta(&values, &[last], &out1, 0);
        Launch {
            op: "arg_reduce",
            md: &md,
            items: nout,
            per_group: None,
            x: &values,
            xd: pd,
            out: &out1,
            extra: &[&index],
        }
        .run(self, |w| arg_src(op, pd, ArgPass::Final, w))
    }
    /// f32, f16 and bf16 run on the GPU (computed in f32 with the WGSL
    /// `exp`/`log` built-ins, whose precision is vendor-defined; see the
    /// module doc for the error measured). f64 takes the CPU round trip:
    /// Vulkan's `exp`/`log` built-ins do not take f64.
    fn softmax(&self, op: SoftmaxOp, x: &Tensor, axes: &[usize], out: &Tensor) -> Result<()> {
        self.softmax_family(op, x, axes, out)
    }
    fn scan(&self, op: ScanOp, x: &Tensor, axis: usize, out: &Tensor) -> Result<()> {
        self.scan_kernel(op, x, axis, out)
    }
}
