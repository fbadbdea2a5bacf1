//! The row kernels: reductions and arg-reductions whose reduced elements of
//! each output are one contiguous run (`Class::Rows` of `reduce_plan.rs`).
//!
//! `t` invocations (a power of two, up to the workgroup's 256) take one
//! chunk of one row, so a workgroup takes `256 / t` rows: short rows do not
//! leave most of a workgroup idle. Invocation `i` of a row loads quads `i,
//! i + t, ..., i + (held - 1) t` of the chunk (quad `j`: elements `h + 4 j ..
//! h + 4 j + 4`, one `vec4` load for 4-byte dtypes; `h < 4` head elements
//! up to an aligned element, and the `< 4` elements after the last whole
//! quad, are loaded singly, spread over the invocations, in a small loop
//! where they are combined), the quads all before combining any, so `held`
//! loads per invocation are in flight at once.
//! Each of the four vector lanes accumulates its elements in order (the head
//! element into lane x, the tail element into lane y); then the lanes
//! combine as `(x, y), (z, w)`, then the row's `t` invocations in a tree in
//! workgroup memory. No index arithmetic per element beyond `base + 4 j`.
//!
//! The kernel computes `t` from the chunk length in the metadata and has a
//! fixed number of quad slots (`Plan::slots`: 4, 8 or 16) and head/tail
//! slots (3), those past a row's elements never loaded, so its source does
//! not depend on the row length: one pipeline per op, dtype and slot bucket
//! serves every length (compiling one per `t` and `held` took most of the GPU
//! tests' time on lavapipe, issue 26).
//!
//! Float sums: an element goes through at most `ceil(c / (4 t)) + 2 +
//! log2(t)` roundings in one pass over a chunk of `c` elements (`t =
//! min(256, next_pow2(ceil(c / 16)))`; plus 2 for `t = 1` and 1 for `t = 2`,
//! whose invocations take up to 3 resp. 2 single elements: at most 13 for
//! `c <= 4096`, `ceil(c / 1024) + 10` above); passes add (see `reduce.rs`).

use super::reduce::{arg_funcs, extra_decl, pieces, ArgPass, Pieces, Stage};
use super::reduce_plan::{fast_header, Plan, ROW_T};
use super::wgsl::{self, Win};
use crate::backend::{ArgOp, ReduceOp};
use crate::dtype::DType;
use std::fmt::Write;

/// The common opening of a row kernel's round: work item `g` (row `o`,
/// chunk `c`) of invocation `lid`, its chunk's first element `e0`, length
/// `len` (0 for invocations past the last item), head `h`, quads `nv` from
/// `qb`, tail `tl` from `te`, the row's invocations `tn` (its `t`) and rows
/// per workgroup `rn`; then the `slots()` quads `x{q}` (valid when `j{q} <
/// nv`) loaded. The head and tail elements are read where they are used
/// ([`head_loop`], [`tail_loop`]).
pub(super) fn opening(src: &mut String, p: &Plan, rt: &str) {
    let head = if p.vec {
        "min(len, (4u - (e0 & 3u)) & 3u)"
    } else {
        "0u"
    };
    let _ = write!(
        src,
        "@compute @workgroup_size(256)
fn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{
  let nout = md[0];
  let cnt = md[1];
  let np = md[7];
  let ch = md[8];
  let tn = {ROW_T};
  let rn = 256u / tn;
  var kx = 0;
  var ky = 0;
  if (md[3] == 1u) {{
    kx = mdi(11u);
    ky = mdi(12u);
  }}
  let t = lid & (tn - 1u);
  let items = nout * np;
  for (var g0 = wid.x * rn; g0 < items; g0 = g0 + nwg.x * rn) {{
    let g = g0 + lid / tn;
    let live = g < items;
    let o = g / np;
    let c = g - o * np;
    let k0 = c * ch;
    var len = 0u;
    if (live) {{ len = min(cnt, k0 + ch) - k0; }}
    let e0 = u32(mdi(5u) + i32(o) * kx) + k0;
    let yi = u32(mdi(6u) + i32(o) * ky);
    let h = {head};
    let nv = (len - h) >> 2u;
    let qb = e0 + h;
    let te = qb + 4u * nv;
    let tl = len - h - 4u * nv;
",
    );
    for q in 0..p.slots() {
        let _ = writeln!(
            src,
            "    let j{q} = t + {q}u * tn;\n    var x{q} = vec4<{rt}>();\n    if (j{q} < nv) {{ x{q} = ldq(qb + 4u * j{q}); }}"
        );
    }
}

/// A loop over the invocation's head elements (`h < 4` of them, spread over
/// the row's invocations: indices `t, t + tn, ...` below `h`), each loaded
/// as `sx` where it is used, its index in the chunk `sk`; `body` uses both.
/// Loops rather than 3 unrolled slots held from the opening: on lavapipe the
/// unrolled head/tail loads and stores took about half of a 4-quad f32
/// softmax kernel's compile time (~410 ms, ~210 ms without them; ~300 ms
/// with these loops; issue 26). A sweep reads its at most 3 elements again.
pub(super) fn head_loop(src: &mut String, body: &str) {
    single_loop(src, "h", "e0", body);
}

/// [`head_loop`] for the `tl < 4` tail elements after the last whole quad:
/// `sx` loaded from `te + sk`, its index in the chunk `te - e0 + sk`.
pub(super) fn tail_loop(src: &mut String, body: &str) {
    single_loop(src, "tl", "te", body);
}

/// The loop of [`head_loop`] and [`tail_loop`]: `count` elements from `from`.
fn single_loop(src: &mut String, count: &str, from: &str, body: &str) {
    let _ = writeln!(
        src,
        "    for (var sk = t; sk < {count}; sk = sk + tn) {{\n      let sx = ld0({from} + sk);\n      {body}\n    }}"
    );
}

/// One sweep over the held elements into `{into}` (a scalar of type `acc`):
/// lanes in order, then `(x, y), (z, w)`; `el(v)` the contribution of `v`.
fn sweep(
    src: &mut String,
    p: &Plan,
    acc: &str,
    ident: &str,
    el: &dyn Fn(&str) -> String,
    into: &str,
) {
    let _ = writeln!(
        src,
        "    var {into}: {acc};\n    {{\n    var a = vec4<{acc}>({ident});"
    );
    for q in 0..p.slots() {
        let _ = writeln!(
            src,
            "    if (j{q} < nv) {{\n      a = vec4<{acc}>(comb(a.x, {}), comb(a.y, {}), comb(a.z, {}), comb(a.w, {}));\n    }}",
            el(&format!("x{q}.x")),
            el(&format!("x{q}.y")),
            el(&format!("x{q}.z")),
            el(&format!("x{q}.w"))
        );
    }
    head_loop(src, &format!("a.x = comb(a.x, {});", el("sx")));
    tail_loop(src, &format!("a.y = comb(a.y, {});", el("sx")));
    let _ = writeln!(
        src,
        "    {into} = comb(comb(a.x, a.y), comb(a.z, a.w));\n    }}"
    );
}

/// The tree over each row's `t` invocations of `comb` on workgroup arrays
/// `arrays` (each `lid`'s slot written before), `step` the statement that
/// merges slot `lid + s` into `lid`.
pub(super) fn tree(src: &mut String, step: &str) {
    let _ = writeln!(
        src,
        "    workgroupBarrier();\n    for (var s = tn / 2u; s > 0u; s = s >> 1u) {{\n      if (t < s) {{\n        {step}\n      }}\n      workgroupBarrier();\n    }}"
    );
}

/// The row kernel of reduction `op` over `xd` into `yd` for pass `stage`.
pub(super) fn row_src(
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
        "fn el(v: {rt}, m: {ct}) -> {acc} {{ return {elem}; }}\nvar<workgroup> sa: array<{acc}, 256>;"
    );
    opening(&mut src, p, rt);
    if stage == Stage::SqDev {
        let _ = writeln!(src, "    var m = {ct}();\n    if (live) {{ m = mu[o]; }}");
    } else {
        let _ = writeln!(src, "    let m = {ct}();");
    }
    sweep(&mut src, p, acc, &ident, &|v| format!("el({v}, m)"), "mine");
    src.push_str("    sa[lid] = mine;\n");
    tree(&mut src, "sa[lid] = comb(sa[lid], sa[lid + s]);");
    let _ = writeln!(src, "    let tot = sa[lid - t];");
    let nanlit = wgsl::lit(xd, f64::NAN);
    let sq = if matches!(op, ReduceOp::Std { .. }) {
        "sqrt"
    } else {
        ""
    };
    match stage {
        Stage::Partial | Stage::SqDev => {
            let _ = writeln!(src, "    if (live && t == 0u) {{ st1(g, tot); }}");
        }
        Stage::VarFinish => {
            let _ = writeln!(
                src,
                "    if (live && t == 0u) {{\n      var res = {nanlit};\n      if (md[9] > 0u) {{ res = {sq}(tot / {ct}(md[9] - md[2])); }}\n      st1(yi, res);\n    }}"
            );
        }
        Stage::Whole if var => {
            // The second sweep: squared deviations from the row's mean.
            let _ = writeln!(
                src,
                "    let mean = tot / {ct}(cnt);\n    workgroupBarrier();"
            );
            sweep(
                &mut src,
                p,
                acc,
                &ident,
                &|v| format!("sqd({v}, mean)"),
                "dev",
            );
            src.push_str("    sa[lid] = dev;\n");
            tree(&mut src, "sa[lid] = comb(sa[lid], sa[lid + s]);");
            let _ = writeln!(
                src,
                "    if (live && t == 0u) {{\n      st1(yi, {sq}(sa[lid] / {ct}(cnt - md[2])));\n    }}"
            );
        }
        Stage::Whole if op == ReduceOp::Mean => {
            let _ = writeln!(
                src,
                "    if (live && t == 0u) {{\n      var res = {nanlit};\n      if (md[9] > 0u) {{ res = tot / {ct}(md[9]); }}\n      st1(yi, res);\n    }}"
            );
        }
        Stage::Whole => {
            let _ = writeln!(src, "    if (live && t == 0u) {{ st1(yi, tot); }}");
        }
    }
    src.push_str("    workgroupBarrier();\n  }\n}\n");
    src
}

/// The row kernel of arg-reduction `op` over `xd` for pass `pass` (`Final`:
/// over the partial values, one chunk per row; the index from `pi`).
pub(super) fn row_arg_src(op: ArgOp, xd: DType, pass: ArgPass, p: &Plan, w: (Win, Win)) -> String {
    let yd = if pass == ArgPass::Partial {
        super::reduce::acc_dtype(xd)
    } else {
        DType::I32
    };
    let ct = wgsl::compute_ty(xd);
    let mut src = fast_header(xd, yd, w, p.vec);
    if pass != ArgPass::Whole {
        src.push_str(&extra_decl(w, 0, "pi", "u32", pass == ArgPass::Partial));
    }
    src.push_str(&arg_funcs(op, xd));
    let _ = writeln!(
        src,
        "var<workgroup> sv: array<{ct}, 256>;\nvar<workgroup> si: array<u32, 256>;"
    );
    opening(&mut src, p, ct);
    // Candidates in increasing index (any order would do: `pick` is a total
    // order); index k is relative to the chunk.
    let _ = writeln!(src, "    var bv = {ct}();\n    var bi = 0xffffffffu;");
    head_loop(&mut src, "if (pick(bv, bi, sx, sk)) { bv = sx; bi = sk; }");
    for q in 0..p.slots() {
        for (l, lane) in ["x", "y", "z", "w"].iter().enumerate() {
            let _ = writeln!(
                src,
                "    if (j{q} < nv && pick(bv, bi, x{q}.{lane}, h + 4u * j{q} + {l}u)) {{ bv = x{q}.{lane}; bi = h + 4u * j{q} + {l}u; }}"
            );
        }
    }
    tail_loop(
        &mut src,
        "if (pick(bv, bi, sx, te - e0 + sk)) { bv = sx; bi = te - e0 + sk; }",
    );
    src.push_str("    sv[lid] = bv;\n    si[lid] = bi;\n");
    tree(
        &mut src,
        "if (pick(sv[lid], si[lid], sv[lid + s], si[lid + s])) {\n          sv[lid] = sv[lid + s];\n          si[lid] = si[lid + s];\n        }",
    );
    let store = match pass {
        ArgPass::Whole => "st1(yi, bitcast<i32>(si[lid]));",
        ArgPass::Partial => "st1(g, sv[lid]);\n      pi[g] = k0 + si[lid];",
        ArgPass::Final => "st1(yi, bitcast<i32>(pi[e0 + si[lid]]));",
    };
    let _ = writeln!(
        src,
        "    if (live && t == 0u) {{\n      {store}\n    }}\n    workgroupBarrier();\n  }}\n}}"
    );
    src
}
