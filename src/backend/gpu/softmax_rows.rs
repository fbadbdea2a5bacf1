//! The row kernel of softmax, log_softmax and logsumexp: groups that are one
//! contiguous run of at most `CHUNK` elements (`Class::Rows` of
//! `reduce_plan.rs`: the last axis of a contiguous tensor), with the row
//! reduction kernel's layout (`reduce_rows.rs`: `t` invocations per row,
//! `vec4` loads for f32, head and tail elements singly). Each invocation
//! keeps its elements in registers, so `x` is read once: the maximum (a
//! tree), then `exp(x - max)` kept in place of `x` for softmax and summed in
//! four lanes then a tree, then the outputs from the registers (`vec4`
//! stores where the output is an f32 run aligned like `x`). The formulas are
//! the general kernel's (`softmax.rs`): `exp(x - M) * (1 / S)`, `(x - M) -
//! log S`, `M + log S`; only the order of the sum differs.

use super::reduce_plan::{fast_header_io, Plan};
use super::reduce_rows::{opening, singles, tree};
use super::softmax::{acc, cmax, fl, Fl};
use super::wgsl::{self, Win};
use crate::backend::SoftmaxOp;
use crate::dtype::DType;
use std::fmt::Write;

const LANES: [&str; 4] = ["x", "y", "z", "w"];

/// The row kernel of softmax-family `op` over `xd` (computed in `acc(xd)`),
/// the output written as `vec4` quads when `vec_out`.
pub(super) fn softmax_rows_src(
    op: SoftmaxOp,
    xd: DType,
    p: &Plan,
    vec_out: bool,
    w: (Win, Win),
) -> String {
    let a = acc(xd);
    let Fl {
        t,
        exp,
        log,
        is_inf,
        zero,
        one,
    } = fl(a);
    let mut src = fast_header_io(xd, xd, w, p.vec, vec_out);
    src.push_str(&cmax(a));
    let _ = writeln!(
        src,
        "fn vexp(v: vec4<{t}>) -> vec4<{t}> {{ return vec4<{t}>({exp}(v.x), {exp}(v.y), {exp}(v.z), {exp}(v.w)); }}\nvar<workgroup> sa: array<{t}, 256>;"
    );
    opening(&mut src, p, t);
    let ninf = wgsl::lit(a, f64::NEG_INFINITY);
    let held = p.held();
    // The maximum (NaN propagates; any order gives the same value).
    let _ = writeln!(
        src,
        "    let ry = mdi(12u + 3u * md[3]);\n    var mx = {ninf};"
    );
    for q in 0..held {
        let _ = writeln!(
            src,
            "    if (j{q} < nv) {{ mx = cmax(mx, cmax(cmax(x{q}.x, x{q}.y), cmax(x{q}.z, x{q}.w))); }}"
        );
    }
    for i in 0..singles(p) {
        let _ = writeln!(
            src,
            "    if (s{i} < h) {{ mx = cmax(mx, hx{i}); }}\n    if (s{i} < tl) {{ mx = cmax(mx, tx{i}); }}"
        );
    }
    src.push_str("    sa[lid] = mx;\n");
    tree(&mut src, p, "sa[lid] = cmax(sa[lid], sa[lid + s]);");
    let _ = writeln!(
        src,
        "    let m = sa[lid - t];\n    workgroupBarrier();\n    var a = vec4<{t}>({zero});"
    );
    // exp(x - m), summed per lane in order; kept in place for softmax.
    let keep = op == SoftmaxOp::Softmax;
    for q in 0..held {
        let e = if keep {
            format!("x{q} = vexp(x{q} - vec4<{t}>(m));\n      a = a + x{q};")
        } else {
            format!("a = a + vexp(x{q} - vec4<{t}>(m));")
        };
        let _ = writeln!(src, "    if (j{q} < nv) {{\n      {e}\n    }}");
    }
    for i in 0..singles(p) {
        let (eh, et) = if keep {
            (
                format!("hx{i} = {exp}(hx{i} - m);\n      a.x = a.x + hx{i};"),
                format!("tx{i} = {exp}(tx{i} - m);\n      a.y = a.y + tx{i};"),
            )
        } else {
            (
                format!("a.x = a.x + {exp}(hx{i} - m);"),
                format!("a.y = a.y + {exp}(tx{i} - m);"),
            )
        };
        let _ = writeln!(
            src,
            "    if (s{i} < h) {{\n      {eh}\n    }}\n    if (s{i} < tl) {{\n      {et}\n    }}"
        );
    }
    src.push_str("    sa[lid] = (a.x + a.y) + (a.z + a.w);\n");
    tree(&mut src, p, "sa[lid] = cadd(sa[lid], sa[lid + s]);");
    let _ = writeln!(src, "    let sum = sa[lid - t];");
    // The outputs: value of a held element `v` (x, or exp(x - m) for softmax).
    match op {
        SoftmaxOp::LogSumExp => {
            let _ = writeln!(
                src,
                "    if (live && t == 0u) {{\n      var r = m + {log}(sum);\n      if ({is_inf}(m)) {{ r = m; }}\n      st1(yi, r);\n    }}\n    workgroupBarrier();\n  }}\n}}"
            );
            return src;
        }
        SoftmaxOp::LogSoftmax => {
            let _ = writeln!(src, "    let ls = {log}(sum);");
        }
        SoftmaxOp::Softmax => {
            let _ = writeln!(src, "    let inv = {one} / sum;");
        }
    }
    let val = |v: &str| match op {
        SoftmaxOp::LogSoftmax => format!("({v} - m) - ls"),
        _ => format!("{v} * inv"),
    };
    let at = |k: &str| format!("u32(i32(yi) + i32({k}) * ry)");
    for q in 0..held {
        let k = format!("h + 4u * j{q}");
        if vec_out {
            let _ = writeln!(
                src,
                "    if (j{q} < nv) {{ stq(yi + {k}, {}); }}",
                val(&format!("x{q}"))
            );
        } else {
            let mut body = String::new();
            for (l, lane) in LANES.iter().enumerate() {
                let _ = write!(
                    body,
                    "\n      st1({}, {});",
                    at(&format!("{k} + {l}u")),
                    val(&format!("x{q}.{lane}"))
                );
            }
            let _ = writeln!(src, "    if (j{q} < nv) {{{body}\n    }}");
        }
    }
    for i in 0..singles(p) {
        let _ = writeln!(
            src,
            "    if (s{i} < h) {{ st1({}, {}); }}\n    if (s{i} < tl) {{ st1({}, {}); }}",
            at(&format!("s{i}")),
            val(&format!("hx{i}")),
            at(&format!("te - e0 + s{i}")),
            val(&format!("tx{i}"))
        );
    }
    src.push_str("    workgroupBarrier();\n  }\n}\n");
    src
}
