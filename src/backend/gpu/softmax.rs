//! GPU softmax, log_softmax and logsumexp (the `ReduceBackend::softmax`
//! primitive): one workgroup per group in one pass, or three passes for
//! groups of more than [`CHUNK`] elements (see the module doc of `reduce.rs`
//! for the passes and the error measured). The kernels reuse the reduction
//! kernels' metadata, launch and tree helpers.

use super::reduce::{
    chunks, extra_decl, header, meta, tree, Launch, CH, CHUNK, CHUNK_LOOP, NP, WG,
};
use super::wgsl::Win;
use super::{via_cpu, wgsl, GpuBackend};
use crate::backend::{ReduceBackend, SoftmaxOp};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;
use std::fmt::Write;

/// The kernel source of the softmax family on `xd` (f32 compute type).
fn softmax_src(op: SoftmaxOp, xd: DType, w: (Win, Win)) -> String {
    let mut src = header(xd, xd, w);
    src.push_str(CMAX);
    let ninf = wgsl::lit(xd, f64::NEG_INFINITY);
    let _ = writeln!(
        src,
        "var<workgroup> sa: array<f32, {WG}>;\n@compute @workgroup_size({WG})\nfn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{\n  let nout = md[0];\n  let cnt = md[1];\n  for (var o = wid.x; o < nout; o = o + nwg.x) {{\n    let kb = kept(o);\n    var a = {ninf};\n    for (var k = lid; k < cnt; k = k + {WG}u) {{\n      a = cmax(a, ld0(u32(kb.x + red(k).x)));\n    }}\n    sa[lid] = a;"
    );
    tree(&mut src, "cmax");
    let _ = writeln!(
        src,
        "    let m = sa[0];\n    workgroupBarrier();\n    var s = 0.0f;\n    for (var k = lid; k < cnt; k = k + {WG}u) {{\n      s = s + exp(ld0(u32(kb.x + red(k).x)) - m);\n    }}\n    sa[lid] = s;"
    );
    tree(&mut src, "cadd");
    let body = match op {
        SoftmaxOp::LogSumExp => "    if (lid == 0u) {\n      var r = m + log(sa[0]);\n      if (is_inf32(m)) { r = m; }\n      st1(u32(kb.y), r);\n    }".to_string(),
        SoftmaxOp::LogSoftmax => format!("    let ls = log(sa[0]);\n    for (var k = lid; k < cnt; k = k + {WG}u) {{\n      let r = red(k);\n      st1(u32(kb.y + r.y), (ld0(u32(kb.x + r.x)) - m) - ls);\n    }}"),
        SoftmaxOp::Softmax => format!("    let inv = 1.0f / sa[0];\n    for (var k = lid; k < cnt; k = k + {WG}u) {{\n      let r = red(k);\n      st1(u32(kb.y + r.y), exp(ld0(u32(kb.x + r.x)) - m) * inv);\n    }}"),
    };
    src.push_str(&body);
    src.push_str("\n    workgroupBarrier();\n  }\n}\n");
    src
}

/// The stable maximum of the softmax kernels (NaN propagates).
const CMAX: &str = "fn cmax(a: f32, b: f32) -> f32 {\n  if (is_nan32(a)) { return a; }\n  if (is_nan32(b)) { return b; }\n  if (a > b) { return a; }\n  return b;\n}\nfn cadd(a: f32, b: f32) -> f32 { return a + b; }\n";

/// The first softmax pass over `xd`: per (output, chunk) work item `g` the
/// chunk's maximum (to the f32 partials `y` at `g`) and its sum of `exp(x -
/// max)` (plain binding `ps` at `g`).
fn softmax_part_src(xd: DType, w: (Win, Win)) -> String {
    let mut src = header(xd, DType::F32, w);
    src.push_str(&extra_decl(w, 0, "ps", "f32", true));
    src.push_str(CMAX);
    let ninf = wgsl::lit(DType::F32, f64::NEG_INFINITY);
    let _ = writeln!(
        src,
        "var<workgroup> sa: array<f32, {WG}>;\n@compute @workgroup_size({WG})\nfn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{\n{CHUNK_LOOP}    var a = {ninf};\n    for (var k = k0 + lid; k < k1; k = k + {WG}u) {{\n      a = cmax(a, ld0(u32(kb.x + red(k).x)));\n    }}\n    sa[lid] = a;"
    );
    tree(&mut src, "cmax");
    let _ = writeln!(
        src,
        "    let m = sa[0];\n    workgroupBarrier();\n    var s = 0.0f;\n    for (var k = k0 + lid; k < k1; k = k + {WG}u) {{\n      s = s + exp(ld0(u32(kb.x + red(k).x)) - m);\n    }}\n    sa[lid] = s;"
    );
    tree(&mut src, "cadd");
    src.push_str("    if (lid == 0u) {\n      st1(g, m);\n      ps[g] = sa[0];\n    }\n    workgroupBarrier();\n  }\n}\n");
    src
}

/// The second softmax pass: per group, over its chunks' maxima `m_c` (the
/// f32 input) and sums `s_c` (plain `ps`, same layout), `M = max m_c` and `S
/// = sum s_c exp(m_c - M)`. `lse`: stores `M + log S` (`M` when infinite) at
/// the output (dtype `yd`); else `M` at the output and `S` to plain `gs` at
/// `o`.
fn softmax_combine_src(lse: bool, yd: DType, w: (Win, Win)) -> String {
    let mut src = header(DType::F32, yd, w);
    src.push_str(&extra_decl(w, 0, "ps", "f32", false));
    if !lse {
        src.push_str(&extra_decl(w, 1, "gs", "f32", true));
    }
    src.push_str(CMAX);
    let ninf = wgsl::lit(DType::F32, f64::NEG_INFINITY);
    let _ = writeln!(
        src,
        "var<workgroup> sa: array<f32, {WG}>;\n@compute @workgroup_size({WG})\nfn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{\n  let nout = md[0];\n  let cnt = md[1];\n  for (var o = wid.x; o < nout; o = o + nwg.x) {{\n    let kb = kept(o);\n    var a = {ninf};\n    for (var k = lid; k < cnt; k = k + {WG}u) {{\n      a = cmax(a, ld0(u32(kb.x + red(k).x)));\n    }}\n    sa[lid] = a;"
    );
    tree(&mut src, "cmax");
    let _ = writeln!(
        src,
        "    let m = sa[0];\n    workgroupBarrier();\n    var s = 0.0f;\n    for (var k = lid; k < cnt; k = k + {WG}u) {{\n      let i = u32(kb.x + red(k).x);\n      s = s + ps[i] * exp(ld0(i) - m);\n    }}\n    sa[lid] = s;"
    );
    tree(&mut src, "cadd");
    if lse {
        src.push_str("    if (lid == 0u) {\n      var r = m + log(sa[0]);\n      if (is_inf32(m)) { r = m; }\n      st1(u32(kb.y), r);\n    }");
    } else {
        src.push_str("    if (lid == 0u) {\n      st1(u32(kb.y), m);\n      gs[o] = sa[0];\n    }");
    }
    src.push_str("\n    workgroupBarrier();\n  }\n}\n");
    src
}

/// The last softmax pass (softmax, log_softmax) over `xd`: per (output,
/// chunk) work item each element of the chunk from the group's `M` (plain
/// `gm`) and `S` (plain `gs`), as the one-pass kernel: `exp(x - M) * (1 /
/// S)`, resp. `(x - M) - log S`.
fn softmax_apply_src(op: SoftmaxOp, xd: DType, w: (Win, Win)) -> String {
    let mut src = header(xd, xd, w);
    src.push_str(&extra_decl(w, 0, "gm", "f32", false));
    src.push_str(&extra_decl(w, 1, "gs", "f32", false));
    let (pre, val) = match op {
        SoftmaxOp::LogSoftmax => ("let ls = log(gs[o]);", "(ld0(u32(kb.x + r.x)) - m) - ls"),
        _ => (
            "let inv = 1.0f / gs[o];",
            "exp(ld0(u32(kb.x + r.x)) - m) * inv",
        ),
    };
    let _ = writeln!(
        src,
        "@compute @workgroup_size({WG})\nfn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{\n{CHUNK_LOOP}    let m = gm[o];\n    {pre}\n    for (var k = k0 + lid; k < k1; k = k + {WG}u) {{\n      let r = red(k);\n      st1(u32(kb.y + r.y), {val});\n    }}\n  }}\n}}"
    );
    src
}

impl GpuBackend {
    pub(super) fn softmax_family(
        &self,
        op: SoftmaxOp,
        x: &Tensor,
        axes: &[usize],
        out: &Tensor,
    ) -> Result<()> {
        let (nout, count, md) = meta(x, axes, out, 0);
        let f32ish = matches!(x.dtype(), DType::F32 | DType::F16 | DType::BF16);
        if f32ish && count > CHUNK && nout > 0 {
            return self.softmax_chunked(op, x, axes, out, md);
        }
        if f32ish {
            return Launch {
                op: "softmax",
                md: &md,
                items: nout,
                per_group: 1,
                x,
                xd: x.dtype(),
                out,
                extra: &[],
            }
            .run(self, |w| softmax_src(op, x.dtype(), w));
        }
        via_cpu(&[x], &[out], |cpu, i, o| {
            cpu.softmax(op, &i[0], axes, &o[0])
        })
    }

    /// The softmax family over groups of more than [`CHUNK`] elements, in
    /// passes: per chunk its maximum `m_c` and `s_c = sum exp(x - m_c)` (f32);
    /// per group `M = max m_c` and `S = sum s_c exp(m_c - M)` (logsumexp
    /// stores `M + log S` and is done); then per chunk each output element
    /// from `M` and `S` with the one-pass kernel's formulas. `md` is `x`'s
    /// metadata for `out`.
    fn softmax_chunked(
        &self,
        op: SoftmaxOp,
        x: &Tensor,
        axes: &[usize],
        out: &Tensor,
        mut md: Vec<u32>,
    ) -> Result<()> {
        let xd = x.dtype();
        let (nout, count) = (md[0] as usize, md[1] as usize);
        let (ch, np) = chunks(count);
        md[NP] = np as u32;
        md[CH] = ch as u32;
        let pm = self.partials(DType::F32, x, axes, np)?;
        let ps = self.partials(DType::F32, x, axes, np)?;
        let last = pm.shape().len() - 1;
        Launch {
            op: "softmax",
            md: &md,
            items: nout * np,
            per_group: 1,
            x,
            xd,
            out: &pm,
            extra: &[&ps],
        }
        .run(self, |w| softmax_part_src(xd, w))?;
        let gm = self.partials(DType::F32, x, axes, 1)?;
        let gs = self.partials(DType::F32, x, axes, 1)?;
        let lse = op == SoftmaxOp::LogSumExp;
        let target = if lse {
            Self::with_unit_axis(out)?
        } else {
            gm.clone()
        };
        let (cout, _, cmd) = meta(&pm, &[last], &target, 0);
        let extra: Vec<&Tensor> = if lse { vec![&ps] } else { vec![&ps, &gs] };
        Launch {
            op: "softmax",
            md: &cmd,
            items: cout,
            per_group: 1,
            x: &pm,
            xd: DType::F32,
            out: &target,
            extra: &extra,
        }
        .run(self, |w| softmax_combine_src(lse, target.dtype(), w))?;
        if lse {
            return Ok(());
        }
        Launch {
            op: "softmax",
            md: &md,
            items: nout * np,
            per_group: 1,
            x,
            xd,
            out,
            extra: &[&gm, &gs],
        }
        .run(self, |w| softmax_apply_src(op, xd, w))
    }
}
