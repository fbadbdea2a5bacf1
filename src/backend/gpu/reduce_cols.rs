//! The column kernels: reductions and arg-reductions over one axis of any
//! stride whose innermost kept axis is contiguous (`Class::Cols` of
//! `reduce_plan.rs`: axis 0 of a contiguous matrix, a middle axis).
//!
//! A workgroup takes `4 q` neighbouring columns (`q` column quads, a power
//! of two up to 32) of one chunk of rows, in `256 / q` row lanes: invocation
//! (quad, lane) reads its quad's four columns (one `vec4` load for 4-byte
//! dtypes when the offset and strides are multiples of 4) in rows `lane,
//! lane + lanes, ...` of the chunk, four rows' loads in flight before they
//! are combined, so the invocations of a warp read consecutive addresses of
//! one row. Each column accumulates its rows in order per lane; then the
//! lanes combine in a tree in workgroup memory. Chunks of rows are planned so
//! that an invocation reads 8 to 64 rows and about 1024 workgroups run; more
//! than one chunk writes partials (output-major, as every chunked pass) that
//! the row kernel reduces. The kernel computes `q` from the column count in
//! the metadata, so one pipeline serves every shape (issue 26).
//!
//! Float sums: an element goes through at most `ceil(c / lanes) - 1 +
//! log2(lanes)` roundings in one pass over a chunk of `c` rows (at most 71).

use super::reduce::{arg_funcs, extra_decl, pieces, ArgPass, Pieces, Stage};
use super::reduce_plan::{fast_header, Plan, COL_Q};
use super::wgsl::{self, Win};
use crate::backend::{ArgOp, ReduceOp};
use crate::dtype::DType;
use std::fmt::Write;

/// Helper functions: `ldqn(e, nl)`, the quad at `e` with only its first `nl`
/// lanes read (the others zero; all four are read in `vec4` mode, which
/// stays inside the 16-byte padded buffer), of compute type `rt`.
fn helpers(src: &mut String, p: &Plan, rt: &str) {
    if p.vec {
        let _ = writeln!(
            src,
            "fn ldqn(e: u32, nl: u32) -> vec4<{rt}> {{ return ldq(e); }}"
        );
    } else {
        let _ = writeln!(
            src,
            "fn ldqn(e: u32, nl: u32) -> vec4<{rt}> {{\n  if (nl == 4u) {{ return ldq(e); }}\n  var v = vec4<{rt}>();\n  if (nl > 0u) {{ v.x = ld0(e); }}\n  if (nl > 1u) {{ v.y = ld0(e + 1u); }}\n  if (nl > 2u) {{ v.z = ld0(e + 2u); }}\n  return v;\n}}"
        );
    }
}

/// The opening of a column kernel's round: work item `g` is chunk `c` of
/// column block `cb` of outer index `b`; this invocation's quad starts at
/// column `col` (`nl` of its lanes are columns), element `xb` in row 0;
/// rows `k0..k1`; `qn` quads per workgroup (the plan's `q`) in `lanes` row
/// lanes. Output `o0 + l` is column `col + l`.
fn opening(src: &mut String) {
    let _ = write!(
        src,
        "@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
  let nout = md[0];
  let cnt = md[1];
  let np = md[7];
  let ch = md[8];
  let nk = md[3];
  let cc = md[10u + nk - 1u];
  let kyi = mdi(10u + 3u * nk - 1u);
  var bx = 0;
  var by = 0;
  if (nk == 2u) {{
    bx = mdi(12u);
    by = mdi(14u);
  }}
  let rs = mdi(11u + 3u * nk);
  let qn = {COL_Q};
  let lanes = 256u / qn;
  let cw = 4u * qn;
  let ncb = (cc + cw - 1u) / cw;
  let items = ncb * (nout / cc) * np;
  let qi = lid & (qn - 1u);
  let lane = lid / qn;
  for (var g = wid.x; g < items; g = g + nwg.x) {{
    let c = g % np;
    let rest = g / np;
    let cb = rest % ncb;
    let b = rest / ncb;
    let col = cb * cw + 4u * qi;
    let nl = min(4u, cc - min(cc, col));
    let o0 = b * cc + col;
    let xb = mdi(5u) + i32(b) * bx + i32(col);
    let yb = mdi(6u) + i32(b) * by;
    let k0 = c * ch;
    let k1 = min(cnt, k0 + ch);
",
    );
}

/// One sweep over this invocation's rows into `a` (a `vec4<acc>`, declared
/// here), `el4(v)` the contribution of quad `v`; four rows' loads before
/// combining.
fn sweep(src: &mut String, acc: &str, ident: &str, el4: &dyn Fn(&str) -> String, a: &str) {
    let _ = writeln!(
        src,
        "    var {a} = vec4<{acc}>({ident});\n    for (var k = k0 + lane; k < k1; k = k + 4u * lanes) {{\n      let v0 = ldqn(u32(xb + i32(k) * rs), nl);"
    );
    for r in 1..4 {
        let _ = writeln!(
            src,
            "      var v{r} = v0;\n      let ok{r} = k + {r}u * lanes < k1;\n      if (ok{r}) {{ v{r} = ldqn(u32(xb + i32(k + {r}u * lanes) * rs), nl); }}"
        );
    }
    let _ = writeln!(src, "      {a} = comb4({a}, {});", el4("v0"));
    for r in 1..4 {
        let _ = writeln!(
            src,
            "      if (ok{r}) {{ {a} = comb4({a}, {}); }}",
            el4(&format!("v{r}"))
        );
    }
    src.push_str("    }\n");
}

/// The tree over the row lanes; `step` merges slot `lid + s q` into `lid`.
fn tree(src: &mut String, step: &str) {
    let _ = writeln!(
        src,
        "    workgroupBarrier();\n    for (var s = lanes / 2u; s > 0u; s = s >> 1u) {{\n      if (lane < s) {{\n        let u = lid + s * qn;\n        {step}\n      }}\n      workgroupBarrier();\n    }}"
    );
}

/// The column kernel of reduction `op` over `xd` into `yd` for pass `stage`.
pub(super) fn col_src(
    op: ReduceOp,
    xd: DType,
    yd: DType,
    stage: Stage,
    p: &Plan,
    w: (Win, Win),
) -> String {
    let Pieces {
        rd,
        t: ct,
        acc,
        ident,
        funcs,
        elem,
    } = pieces(op, xd, stage);
    let rt = wgsl::compute_ty(rd);
    let mut src = fast_header(rd, yd, w, p.vec);
    src.push_str(&funcs);
    helpers(&mut src, p, rt);
    let var = matches!(op, ReduceOp::Var { .. } | ReduceOp::Std { .. });
    if stage == Stage::SqDev {
        src.push_str(&extra_decl(w, 0, "mu", ct, false));
    }
    if var && stage == Stage::Whole {
        let _ = writeln!(
            src,
            "fn sqd(v: {ct}, m: {ct}) -> {ct} {{\n  let d = v - m;\n  return d * d;\n}}"
        );
    }
    let _ = writeln!(
        src,
        "fn el(v: {rt}, m: {ct}) -> {acc} {{ return {elem}; }}\nfn el4(v: vec4<{rt}>, m: vec4<{ct}>) -> vec4<{acc}> {{ return vec4<{acc}>(el(v.x, m.x), el(v.y, m.y), el(v.z, m.z), el(v.w, m.w)); }}\nfn comb4(a: vec4<{acc}>, b: vec4<{acc}>) -> vec4<{acc}> {{ return vec4<{acc}>(comb(a.x, b.x), comb(a.y, b.y), comb(a.z, b.z), comb(a.w, b.w)); }}\nvar<workgroup> sa: array<vec4<{acc}>, 256>;"
    );
    opening(&mut src);
    let _ = writeln!(src, "    var m = vec4<{ct}>();");
    if stage == Stage::SqDev {
        for (l, lane) in ["x", "y", "z", "w"].iter().enumerate() {
            let _ = writeln!(src, "    if ({l}u < nl) {{ m.{lane} = mu[o0 + {l}u]; }}");
        }
    }
    sweep(&mut src, acc, &ident, &|v| format!("el4({v}, m)"), "a");
    src.push_str("    sa[lid] = a;\n");
    tree(&mut src, "sa[lid] = comb4(sa[lid], sa[u]);");
    let _ = writeln!(src, "    let tot = sa[qi];");
    let nanlit = wgsl::lit(xd, f64::NAN);
    let sq = if matches!(op, ReduceOp::Std { .. }) {
        "sqrt"
    } else {
        ""
    };
    // The value stored for lane `l` of `tot` (or `dev`) and where.
    let (val, dest): (String, &str) = match stage {
        Stage::Partial | Stage::SqDev => ("tot[l]".into(), "(o0 + l) * np + c"),
        Stage::VarFinish => (
            format!("select({nanlit}, {sq}(tot[l] / {ct}(md[9] - md[2])), md[9] > 0u)"),
            "u32(yb + i32(col + l) * kyi)",
        ),
        Stage::Whole if var => {
            let _ = writeln!(
                src,
                "    let mean = tot / {ct}(cnt);\n    workgroupBarrier();"
            );
            sweep(
                &mut src,
                acc,
                &ident,
                &|v| {
                    format!("vec4<{ct}>(sqd({v}.x, mean.x), sqd({v}.y, mean.y), sqd({v}.z, mean.z), sqd({v}.w, mean.w))")
                },
                "a2",
            );
            src.push_str("    sa[lid] = a2;\n");
            tree(&mut src, "sa[lid] = comb4(sa[lid], sa[u]);");
            src.push_str("    let dev = sa[qi];\n");
            (
                format!("{sq}(dev[l] / {ct}(cnt - md[2]))"),
                "u32(yb + i32(col + l) * kyi)",
            )
        }
        Stage::Whole if op == ReduceOp::Mean => (
            format!("select({nanlit}, tot[l] / {ct}(md[9]), md[9] > 0u)"),
            "u32(yb + i32(col + l) * kyi)",
        ),
        Stage::Whole => ("tot[l]".into(), "u32(yb + i32(col + l) * kyi)"),
    };
    let _ = writeln!(
        src,
        "    if (lane == 0u) {{\n      for (var l = 0u; l < nl; l = l + 1u) {{ st1({dest}, {val}); }}\n    }}\n    workgroupBarrier();\n  }}\n}}"
    );
    src
}

/// The column kernel of arg-reduction `op` over `xd` for pass `pass`
/// (`Whole` or `Partial`; the final pass over the partials is a row kernel).
pub(super) fn col_arg_src(op: ArgOp, xd: DType, pass: ArgPass, p: &Plan, w: (Win, Win)) -> String {
    let yd = if pass == ArgPass::Partial {
        super::reduce::acc_dtype(xd)
    } else {
        DType::I32
    };
    let ct = wgsl::compute_ty(xd);
    let mut src = fast_header(xd, yd, w, p.vec);
    helpers(&mut src, p, ct);
    if pass == ArgPass::Partial {
        src.push_str(&extra_decl(w, 0, "pi", "u32", true));
    }
    src.push_str(&arg_funcs(op, xd));
    let _ = writeln!(
        src,
        "var<workgroup> sv: array<vec4<{ct}>, 256>;\nvar<workgroup> si: array<vec4<u32>, 256>;"
    );
    opening(&mut src);
    // Rows in increasing order per lane: a later equal value never wins.
    let _ = writeln!(
        src,
        "    var bv = vec4<{ct}>();\n    var bi = vec4<u32>(0xffffffffu);\n    for (var k = k0 + lane; k < k1; k = k + lanes) {{\n      let v = ldqn(u32(xb + i32(k) * rs), nl);"
    );
    for lane in ["x", "y", "z", "w"] {
        let _ = writeln!(
            src,
            "      if (pick(bv.{lane}, bi.{lane}, v.{lane}, k)) {{ bv.{lane} = v.{lane}; bi.{lane} = k; }}"
        );
    }
    src.push_str("    }\n    sv[lid] = bv;\n    si[lid] = bi;\n");
    let mut step = String::new();
    for lane in ["x", "y", "z", "w"] {
        let _ = write!(
            step,
            "if (pick(sv[lid].{lane}, si[lid].{lane}, sv[u].{lane}, si[u].{lane})) {{ sv[lid].{lane} = sv[u].{lane}; si[lid].{lane} = si[u].{lane}; }}\n        "
        );
    }
    tree(&mut src, step.trim_end());
    let store = match pass {
        ArgPass::Partial => {
            "st1((o0 + l) * np + c, sv[qi][l]);\n        pi[(o0 + l) * np + c] = si[qi][l];"
        }
        _ => "st1(u32(yb + i32(col + l) * kyi), bitcast<i32>(si[qi][l]));",
    };
    let _ = writeln!(
        src,
        "    if (lane == 0u) {{\n      for (var l = 0u; l < nl; l = l + 1u) {{\n        {store}\n      }}\n    }}\n    workgroupBarrier();\n  }}\n}}"
    );
    src
}
