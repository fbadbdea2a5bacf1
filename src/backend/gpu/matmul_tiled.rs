//! The tiled matmul kernel for contiguous 4-byte operands (f32, i32, u32):
//! `a` and `b` each contiguous along one of their two matrix axes (row- or
//! column-major, any batch strides), offsets and leading strides multiples
//! of 4, so that every global load is a `vec4`. Other layouts and dtypes take
//! the general kernel of `matmul.rs`, whose metadata, chunking along K and
//! precision contract this kernel shares.
//!
//! One workgroup of 16x16 invocations computes a `tile` x `tile` block of
//! the output (`tile` 128, or 64 when 128-tiles would be too few to fill a
//! large GPU); each invocation keeps `(tile / 16)^2` accumulators (8x8 or
//! 4x4) as `vec4`s, at rows `64 g + 4 ty + i` and columns `64 h + 4 tx + j`
//! of the tile. K advances in steps of 16: the `tile x 16` slice of `a` and
//! the `16 x tile` slice of `b` are loaded as `vec4`s (one or two of each per
//! invocation; out-of-range elements zero) into registers, then stored into
//! workgroup memory k-major (`a` transposed on the way when it is row-major,
//! `b` when it is column-major), so that each k step reads `tile / 64`
//! `vec4`s of each operand per invocation for `(tile / 16)^2`
//! multiply-adds. Two workgroup buffers alternate: the loads of step `s + 1`
//! are issued before the multiply-adds of step `s` and stored after them,
//! one barrier per step.
//!
//! Precision: each result sums its products in K order from zero in the
//! accumulator type (`fma` for floats), then adds `out` when accumulating:
//! the bound of `matmul.rs`.

use super::matmul::MD_LETS;
use super::wgsl::{self, Win};
use crate::dtype::DType;
use std::fmt::Write;

/// K elements per step.
const BK: usize = 16;

/// How the tiled kernel runs one product.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Tiled {
    /// Output tile edge: 64 or 128.
    pub(super) tile: usize,
    /// `a` is contiguous along K (row-major), else along M.
    pub(super) a_k: bool,
    /// `b` is contiguous along N (row-major), else along K.
    pub(super) b_n: bool,
}

/// The operand layout the tiled kernel needs of one operand with matrix
/// strides `(s0, s1)` (rows, columns), batch strides `bs`, element offset
/// `off`, windows `w`: `Some(true)` when contiguous along its columns,
/// `Some(false)` along its rows, `None` when neither (or unaligned).
pub(super) fn operand(s0: isize, s1: isize, bs: &[isize], off: usize, w: Win) -> Option<bool> {
    let aligned =
        off.is_multiple_of(4) && w.units.is_multiple_of(4) && bs.iter().all(|s| s % 4 == 0);
    if !aligned {
        return None;
    }
    if s1 == 1 && s0 % 4 == 0 && s0 > 0 {
        Some(true)
    } else if s0 == 1 && s1 % 4 == 0 && s1 > 0 {
        Some(false)
    } else {
        None
    }
}

/// The tile edge for an `m x n` output of `nbatch` matrices: 128 when that
/// gives at least 512 workgroups, else 64.
pub(super) fn tile_for(m: usize, n: usize, nbatch: usize) -> usize {
    if m.div_ceil(128) * n.div_ceil(128) * nbatch >= 512 {
        128
    } else {
        64
    }
}

/// The kernel source for dtype `d` (f32, i32 or u32; `out` of the same
/// dtype), windows `[a, b, out]`, `b` read through `a`'s binding when
/// `b_is_a` (it shares `a`'s storage). `batch_fn` is the matmul metadata's
/// `mdi` and `batch` helpers (`matmul.rs`).
pub(super) fn tiled_source(
    d: DType,
    t: Tiled,
    wins: [Win; 3],
    b_is_a: bool,
    batch_fn: &str,
) -> String {
    let ty = wgsl::compute_ty(d);
    let v4 = format!("vec4<{ty}>");
    let bm = t.tile;
    let q = bm / 4; // vec4s per k row of a tile
    let g = bm / 64; // row (and column) groups per invocation
    let nl = bm * BK / 4 / 256; // vec4 loads of each operand per invocation
    let half = BK * bm / 4; // vec4s of one buffer of one operand
    let mut s = String::new();
    s.push_str("@group(0) @binding(0) var<storage, read> md: array<u32>;\n");
    let w4 = |w: Win| Win {
        count: w.count,
        units: w.units / 4,
    };
    let mut slot = 1;
    s.push_str(&wgsl::decl_ty(slot, "ba", &v4, false, w4(wins[0])));
    slot += wins[0].count as usize;
    if !b_is_a {
        s.push_str(&wgsl::decl_ty(slot, "bb", &v4, false, w4(wins[1])));
        slot += wins[1].count as usize;
    }
    s.push_str(&wgsl::decl(slot, "bo", d, true, wins[2]));
    s.push_str(&wgsl::load_fn(2, "bo", d, true));
    s.push_str(&wgsl::store_fn(2, "bo", d));
    let bname = if b_is_a { "ba" } else { "bb" };
    let _ = writeln!(
        s,
        "fn lda(e: u32) -> {v4} {{ return ba_rd(e >> 2u); }}\nfn ldb(e: u32) -> {v4} {{ return {bname}_rd(e >> 2u); }}\nconst LANE = vec4<u32>(0u, 1u, 2u, 3u);"
    );
    s.push_str(batch_fn);
    let _ = write!(
        s,
        r#"var<workgroup> sa: array<{v4}, {two}>;
var<workgroup> sb: array<{v4}, {two}>;
@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>,
        @builtin(local_invocation_index) lid: u32) {{
  let tx = lid & 15u;
  let ty = lid >> 4u;
{MD_LETS}  let tm = (m + {bm1}u) / {bm}u;
  let tn = (n + {bm1}u) / {bm}u;
"#,
        two = 2 * half,
        bm1 = bm - 1,
    );
    // Per-invocation load coordinates (fixed for the whole kernel).
    for l in 0..nl {
        let e = format!("(lid + {}u)", 256 * l);
        let (ar, ac) = if t.a_k {
            // a row-major: tile row `ar`, k quad `ac`.
            (format!("{e} >> 2u"), format!("{e} & 3u"))
        } else {
            // a column-major: k row `ar`, m quad `ac`.
            (format!("{e} / {q}u"), format!("{e} % {q}u"))
        };
        let (br, bc) = if t.b_n {
            (format!("{e} / {q}u"), format!("{e} % {q}u"))
        } else {
            (format!("{e} >> 2u"), format!("{e} & 3u"))
        };
        let _ = writeln!(
            s,
            "  let ar{l} = {ar};\n  let ac{l} = {ac};\n  let br{l} = {br};\n  let bc{l} = {bc};"
        );
    }
    let _ = writeln!(
        s,
        "  for (var z = wid.z; z < nbt; z = z + nwg.z) {{\n    let off = batch(z);\n    for (var tyi = wid.y; tyi < tm; tyi = tyi + nwg.y) {{\n      for (var txi = wid.x; txi < tn; txi = txi + nwg.x) {{\n        let i0 = tyi * {bm}u;\n        let j0 = txi * {bm}u;"
    );
    for r in 0..4 * g {
        for h in 0..g {
            let _ = writeln!(s, "        var c{r}_{h} = {v4}();");
        }
    }
    for l in 0..nl {
        let _ = writeln!(
            s,
            "        var pa{l} = {v4}();\n        var pb{l} = {v4}();"
        );
    }
    let loads = |kt: &str| -> String {
        let mut o = String::new();
        for l in 0..nl {
            let a = if t.a_k {
                format!(
                    "let gi = i0 + ar{l};\n          let gp = {kt} + 4u * ac{l};\n          pa{l} = {v4}();\n          if (gi < m && gp < k1) {{\n            pa{l} = select({v4}(), lda(u32(off.x + i32(gi) * am + i32(gp))), vec4<u32>(gp) + LANE < vec4<u32>(k1));\n          }}"
                )
            } else {
                format!(
                    "let gi = i0 + 4u * ac{l};\n          let gp = {kt} + ar{l};\n          pa{l} = {v4}();\n          if (gi < m && gp < k1) {{\n            pa{l} = select({v4}(), lda(u32(off.x + i32(gi) + i32(gp) * ak)), vec4<u32>(gi) + LANE < vec4<u32>(m));\n          }}"
                )
            };
            let b = if t.b_n {
                format!(
                    "let gj = j0 + 4u * bc{l};\n          let gp = {kt} + br{l};\n          pb{l} = {v4}();\n          if (gj < n && gp < k1) {{\n            pb{l} = select({v4}(), ldb(u32(off.y + i32(gp) * bk + i32(gj))), vec4<u32>(gj) + LANE < vec4<u32>(n));\n          }}"
                )
            } else {
                format!(
                    "let gj = j0 + br{l};\n          let gp = {kt} + 4u * bc{l};\n          pb{l} = {v4}();\n          if (gj < n && gp < k1) {{\n            pb{l} = select({v4}(), ldb(u32(off.y + i32(gj) * bn + i32(gp))), vec4<u32>(gp) + LANE < vec4<u32>(k1));\n          }}"
                )
            };
            let _ = writeln!(
                o,
                "        {{\n          {a}\n        }}\n        {{\n          {b}\n        }}"
            );
        }
        o
    };
    let stores = |buf: &str| -> String {
        let mut o = String::new();
        let _ = writeln!(o, "        let sbase = ({buf}) * {half}u;");
        for l in 0..nl {
            if t.a_k {
                for c in 0..4 {
                    let _ = writeln!(
                        o,
                        "        sa[sbase + (4u * ac{l} + {c}u) * {q}u + (ar{l} >> 2u)][ar{l} & 3u] = pa{l}[{c}];"
                    );
                }
            } else {
                let _ = writeln!(o, "        sa[sbase + ar{l} * {q}u + ac{l}] = pa{l};");
            }
            if t.b_n {
                let _ = writeln!(o, "        sb[sbase + br{l} * {q}u + bc{l}] = pb{l};");
            } else {
                for c in 0..4 {
                    let _ = writeln!(
                        o,
                        "        sb[sbase + (4u * bc{l} + {c}u) * {q}u + (br{l} >> 2u)][br{l} & 3u] = pb{l}[{c}];"
                    );
                }
            }
        }
        o
    };
    s.push_str(&loads("k0"));
    s.push_str("        {\n");
    s.push_str(&stores("0u"));
    s.push_str("        }\n        workgroupBarrier();\n        var buf = 0u;\n");
    let _ = writeln!(
        s,
        "        for (var kt = k0; kt < k1; kt = kt + {BK}u) {{\n        let nxt = kt + {BK}u;\n        if (nxt < k1) {{"
    );
    s.push_str(&loads("nxt"));
    s.push_str("        }\n        let cbase = buf * ");
    let _ = writeln!(s, "{half}u;");
    let float = d.is_float();
    for p in 0..BK {
        let _ = writeln!(s, "        {{");
        for gg in 0..g {
            let _ = writeln!(
                s,
                "          let a{gg} = sa[cbase + {}u + ty];\n          let b{gg} = sb[cbase + {}u + tx];",
                p * q + gg * 16,
                p * q + gg * 16
            );
        }
        for r in 0..4 * g {
            let (gg, i) = (r / 4, r % 4);
            for h in 0..g {
                if float {
                    let _ = writeln!(
                        s,
                        "          c{r}_{h} = fma({v4}(a{gg}[{i}]), b{h}, c{r}_{h});"
                    );
                } else {
                    let _ = writeln!(
                        s,
                        "          c{r}_{h} = c{r}_{h} + {v4}(a{gg}[{i}]) * b{h};"
                    );
                }
            }
        }
        let _ = writeln!(s, "        }}");
    }
    s.push_str("        if (nxt < k1) {\n");
    s.push_str(&stores("1u - buf"));
    s.push_str("        }\n        workgroupBarrier();\n        buf = 1u - buf;\n        }\n");
    // Stores: rows 64 gg + 4 ty + i, columns 64 h + 4 tx + j.
    for r in 0..4 * g {
        let (gg, i) = (r / 4, r % 4);
        let _ = writeln!(
            s,
            "        {{\n          let gi = i0 + {}u + 4u * ty + {i}u;\n          if (gi < m) {{",
            64 * gg
        );
        for h in 0..g {
            for (j, lane) in ["x", "y", "z", "w"].iter().enumerate() {
                let _ = writeln!(
                    s,
                    "            {{\n              let gj = j0 + {}u + 4u * tx;\n              if (gj < n) {{\n                let o = u32(off.z + i32(gi) * om + i32(gj) * on);\n                var v = c{r}_{h}.{lane};\n                if (add_out) {{ v = ld2(o) + v; }}\n                st2(o, v);\n              }}\n            }}",
                    64 * h + j
                );
            }
        }
        s.push_str("          }\n        }\n");
    }
    s.push_str("      }\n    }\n  }\n}\n");
    s
}
