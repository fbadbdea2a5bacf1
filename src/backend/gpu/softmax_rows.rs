//! The row kernel of softmax, log_softmax and logsumexp: groups that are one
//! contiguous run (`Class::Rows` of `reduce_plan.rs`: the last axis of a
//! contiguous tensor) of at most `CHUNK` elements whole, longer ones in
//! chunks of 4,096 as the first pass (chunk maxima and sums) and the last
//! (the outputs from the row's `M` and `S`) of `softmax.rs`'s three, with
//! the row reduction kernel's layout (`reduce_rows.rs`: `t` invocations per
//! row, `vec4` loads for f32, head and tail elements singly). Each
//! invocation keeps its quads in registers, so `x` is read once per pass
//! (the at most 3 head and 3 tail elements of a row are read in each of
//! the three steps, in small loops: `reduce_rows::head_loop`): the maximum (a
//! tree), then `exp(x - max)` kept in place of `x` for softmax and summed in
//! four lanes then a tree, then the outputs from the registers (`vec4`
//! stores where the output is an f32 run aligned like `x`). The formulas are
//! the general kernel's (`softmax.rs`): `exp(x - M) * (1 / S)`, `(x - M) -
//! log S`, `M + log S`; only the order of the sum differs.

use super::reduce::extra_decl;
use super::reduce_plan::{fast_header_io, Plan};
use super::reduce_rows::{head_loop, opening, tail_loop, tree};
use super::softmax::{acc, cmax, fl, Fl};
use super::wgsl::{self, Win};
use crate::backend::SoftmaxOp;
use crate::dtype::DType;
use std::fmt::Write;

const LANES: [&str; 4] = ["x", "y", "z", "w"];

/// The passes the row kernel runs.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Pass {
    /// Whole rows: the maximum, the sum, the outputs.
    Whole,
    /// Chunks of long rows: each chunk's maximum `m_c` (to the partials `y`
    /// at work item `g`) and `s_c = sum exp(x - m_c)` (plain binding `ps`).
    Partial,
    /// Chunks of long rows: the outputs from the row's `M` and `S` (plain
    /// bindings `gm`, `gs` at the row), as the general kernel's last pass.
    Apply,
}

/// The row kernel of softmax-family `op` over `xd` (computed in `acc(xd)`)
/// for pass `pass`, the output written as `vec4` quads when `vec_out`.
pub(super) fn softmax_rows_src(
    op: SoftmaxOp,
    xd: DType,
    p: &Plan,
    pass: Pass,
    vec_out: bool,
    w: (Win, Win),
) -> String {
    let a = acc(xd);
    let f = fl(a);
    let Fl { t, exp, zero, .. } = &f;
    let yd = if pass == Pass::Partial { a } else { xd };
    let mut src = fast_header_io(xd, yd, w, p.vec, vec_out);
    src.push_str(&cmax(a));
    match pass {
        Pass::Partial => src.push_str(&extra_decl(w, 0, "ps", t, true)),
        Pass::Apply => {
            src.push_str(&extra_decl(w, 0, "gm", t, false));
            src.push_str(&extra_decl(w, 1, "gs", t, false));
        }
        Pass::Whole => {}
    }
    let _ = writeln!(
        src,
        "fn vexp(v: vec4<{t}>) -> vec4<{t}> {{ return vec4<{t}>({exp}(v.x), {exp}(v.y), {exp}(v.z), {exp}(v.w)); }}\nvar<workgroup> sa: array<{t}, 256>;"
    );
    opening(&mut src, p, t);
    let held = p.slots();
    let _ = writeln!(src, "    let ry = mdi(12u + 3u * md[3]);");
    if pass == Pass::Apply {
        let _ = writeln!(
            src,
            "    var m = {zero};\n    var sum = {};\n    if (live) {{\n      m = gm[o];\n      sum = gs[o];\n    }}",
            f.one
        );
        outputs(&mut src, op, p, pass, vec_out, &f);
        return src;
    }
    let ninf = wgsl::lit(a, f64::NEG_INFINITY);
    // The maximum (NaN propagates; any order gives the same value).
    let _ = writeln!(src, "    var mx = {ninf};");
    for q in 0..held {
        let _ = writeln!(
            src,
            "    if (j{q} < nv) {{ mx = cmax(mx, cmax(cmax(x{q}.x, x{q}.y), cmax(x{q}.z, x{q}.w))); }}"
        );
    }
    head_loop(&mut src, "mx = cmax(mx, sx);");
    tail_loop(&mut src, "mx = cmax(mx, sx);");
    src.push_str("    sa[lid] = mx;\n");
    tree(&mut src, "sa[lid] = cmax(sa[lid], sa[lid + s]);");
    let _ = writeln!(
        src,
        "    let m = sa[lid - t];\n    workgroupBarrier();\n    var a = vec4<{t}>({zero});"
    );
    // exp(x - m), summed per lane in order; kept in place for softmax.
    let keep = op == SoftmaxOp::Softmax && pass == Pass::Whole;
    for q in 0..held {
        let e = if keep {
            format!("x{q} = vexp(x{q} - vec4<{t}>(m));\n      a = a + x{q};")
        } else {
            format!("a = a + vexp(x{q} - vec4<{t}>(m));")
        };
        let _ = writeln!(src, "    if (j{q} < nv) {{\n      {e}\n    }}");
    }
    // The head and tail elements are read again where they are stored.
    head_loop(&mut src, &format!("a.x = a.x + {exp}(sx - m);"));
    tail_loop(&mut src, &format!("a.y = a.y + {exp}(sx - m);"));
    src.push_str("    sa[lid] = (a.x + a.y) + (a.z + a.w);\n");
    tree(&mut src, "sa[lid] = cadd(sa[lid], sa[lid + s]);");
    let _ = writeln!(src, "    let sum = sa[lid - t];");
    outputs(&mut src, op, p, pass, vec_out, &f);
    src
}

/// The end of a round: the partials (`Partial`), logsumexp's result, or
/// every output from `m` and `sum`, closing the kernel. `Whole` softmax
/// holds `exp(x - m)` in place of `x`; `Apply` holds `x`.
fn outputs(src: &mut String, op: SoftmaxOp, p: &Plan, pass: Pass, vec_out: bool, f: &Fl) {
    let Fl {
        t,
        exp,
        log,
        is_inf,
        one,
        ..
    } = f;
    let close = "    workgroupBarrier();\n  }\n}\n";
    if pass == Pass::Partial {
        let _ = write!(
            src,
            "    if (live && t == 0u) {{\n      st1(g, m);\n      ps[g] = sum;\n    }}\n{close}"
        );
        return;
    }
    match op {
        SoftmaxOp::LogSumExp => {
            let _ = write!(
                src,
                "    if (live && t == 0u) {{\n      var r = m + {log}(sum);\n      if ({is_inf}(m)) {{ r = m; }}\n      st1(yi, r);\n    }}\n{close}"
            );
            return;
        }
        SoftmaxOp::LogSoftmax => {
            let _ = writeln!(src, "    let ls = {log}(sum);");
        }
        SoftmaxOp::Softmax => {
            let _ = writeln!(src, "    let inv = {one} / sum;");
        }
    }
    // A held quad's outputs (`Whole` softmax holds `exp(x - m)`).
    let quad = |v: &str| match (op, pass) {
        (SoftmaxOp::LogSoftmax, _) => format!("({v} - vec4<{t}>(m)) - vec4<{t}>(ls)"),
        (_, Pass::Whole) => format!("{v} * inv"),
        _ => format!("vexp({v} - vec4<{t}>(m)) * inv"),
    };
    let at = |k: &str| format!("u32(i32(yi) + i32(k0 + {k}) * ry)");
    for q in 0..p.slots() {
        let k = format!("h + 4u * j{q}");
        if vec_out {
            let _ = writeln!(
                src,
                "    if (j{q} < nv) {{ stq(yi + k0 + {k}, {}); }}",
                quad(&format!("x{q}"))
            );
        } else {
            let _ = writeln!(
                src,
                "    if (j{q} < nv) {{\n      let v = {};",
                quad(&format!("x{q}"))
            );
            for (l, lane) in LANES.iter().enumerate() {
                let _ = writeln!(src, "      st1({}, v.{lane});", at(&format!("{k} + {l}u")));
            }
            src.push_str("    }\n");
        }
    }
    // A head or tail element's output: it is read again here (never held,
    // also in `Whole` softmax).
    let single = match op {
        SoftmaxOp::LogSoftmax => "(sx - m) - ls".to_string(),
        _ => format!("{exp}(sx - m) * inv"),
    };
    head_loop(src, &format!("st1({}, {single});", at("sk")));
    tail_loop(src, &format!("st1({}, {single});", at("te - e0 + sk")));
    src.push_str(close);
}
