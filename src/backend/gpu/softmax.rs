//! GPU softmax, log_softmax and logsumexp (the `ReduceBackend::softmax`
//! primitive). Groups that are one contiguous run of at most [`CHUNK`]
//! elements (the last axis of a contiguous tensor) take the row kernel of
//! `softmax_rows.rs` (x read once, held in registers); other layouts the
//! general kernels, in one pass: `tn` invocations per group (as the general
//! reductions of `reduce.rs`: about one per 8 elements, 1 to 256) and
//! several groups to a workgroup. Groups of more than [`CHUNK`] elements
//! run in three passes (see the module doc of `reduce.rs` for the passes and
//! the error measured), the first and last by the row kernel over chunks of
//! 4,096 when the groups are contiguous. The kernels reuse the reduction
//! kernels' metadata, launch and tree helpers. f32, f16 and bf16 compute in
//! f32 with WGSL's built-in `exp`/`log`; f64 computes in f64 with rnx's f64
//! library (`math_f64.rs`: `m64_exp`, `m64_log`, 1 ULP each), chunk partials
//! in f64 too.

use super::kernel::windows;
use super::math_f64::MATH_F64;
use super::reduce::{chunk_loop, chunks, extra_decl, header, meta, Launch, CH, CHUNK, NP, WG};
use super::reduce_fast::launch;
use super::reduce_plan::{Class, Plan};
use super::softmax_rows::{softmax_rows_src, Pass};
use super::wgsl::Win;
use super::{via_cpu, wgsl, GpuBackend};
use crate::backend::{ReduceBackend, SoftmaxOp};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;
use std::fmt::Write;

/// The tree over each work item's `tn` invocations of `sa` with `comb`
/// (see `reduce_rows::tree`), leaving its result in the item's first slot.
fn tree(src: &mut String, comb: &str) {
    super::reduce_rows::tree(src, &format!("sa[lid] = {comb}(sa[lid], sa[lid + s]);"));
}

/// The compute (and partials) dtype of softmax over `xd`: f64 for f64, else f32.
pub(super) fn acc(xd: DType) -> DType {
    if xd == DType::F64 {
        DType::F64
    } else {
        DType::F32
    }
}

/// The WGSL pieces of compute dtype `a`: type name, `exp`, `log`, the
/// infinity test, and its literals 0 and 1.
pub(super) struct Fl {
    pub(super) t: &'static str,
    pub(super) exp: &'static str,
    pub(super) log: &'static str,
    pub(super) is_inf: &'static str,
    pub(super) zero: String,
    pub(super) one: String,
}

pub(super) fn fl(a: DType) -> Fl {
    let f64ish = a == DType::F64;
    Fl {
        t: if f64ish { "f64" } else { "f32" },
        exp: if f64ish { "m64_exp" } else { "exp" },
        log: if f64ish { "m64_log" } else { "log" },
        is_inf: if f64ish { "is_inf64" } else { "is_inf32" },
        zero: wgsl::lit(a, 0.0),
        one: wgsl::lit(a, 1.0),
    }
}

/// The stable maximum of the softmax kernels on compute dtype `a` (NaN
/// propagates), the sum, and for f64 rnx's f64 library.
pub(super) fn cmax(a: DType) -> String {
    let (t, nan) = if a == DType::F64 {
        ("f64", "is_nan64")
    } else {
        ("f32", "is_nan32")
    };
    let mut s = format!("fn cmax(a: {t}, b: {t}) -> {t} {{\n  if ({nan}(a)) {{ return a; }}\n  if ({nan}(b)) {{ return b; }}\n  if (a > b) {{ return a; }}\n  return b;\n}}\nfn cadd(a: {t}, b: {t}) -> {t} {{ return a + b; }}\n");
    if a == DType::F64 {
        s.push_str(MATH_F64);
    }
    s
}

/// The kernel source of the softmax family on `xd` (computed in `acc(xd)`).
fn softmax_src(op: SoftmaxOp, xd: DType, w: (Win, Win)) -> String {
    let a = acc(xd);
    let Fl {
        t,
        exp,
        log,
        is_inf,
        zero,
        one,
    } = fl(a);
    let mut src = header(xd, xd, w);
    src.push_str(&cmax(a));
    let ninf = wgsl::lit(a, f64::NEG_INFINITY);
    let cl = chunk_loop();
    let _ = writeln!(
        src,
        "var<workgroup> sa: array<{t}, {WG}>;\n@compute @workgroup_size({WG})\nfn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{\n{cl}    var a = {ninf};\n    for (var k = k0 + t; k < k1; k = k + tn) {{\n      a = cmax(a, ld0(u32(kb.x + red(k).x)));\n    }}\n    sa[lid] = a;"
    );
    tree(&mut src, "cmax");
    let _ = writeln!(
        src,
        "    let m = sa[lid - t];\n    workgroupBarrier();\n    var s = {zero};\n    for (var k = k0 + t; k < k1; k = k + tn) {{\n      s = s + {exp}(ld0(u32(kb.x + red(k).x)) - m);\n    }}\n    sa[lid] = s;"
    );
    tree(&mut src, "cadd");
    let body = match op {
        SoftmaxOp::LogSumExp => format!("    if (live && t == 0u) {{\n      var r = m + {log}(sa[lid - t]);\n      if ({is_inf}(m)) {{ r = m; }}\n      st1(u32(kb.y), r);\n    }}"),
        SoftmaxOp::LogSoftmax => format!("    let ls = {log}(sa[lid - t]);\n    for (var k = k0 + t; k < k1; k = k + tn) {{\n      let r = red(k);\n      st1(u32(kb.y + r.y), (ld0(u32(kb.x + r.x)) - m) - ls);\n    }}"),
        SoftmaxOp::Softmax => format!("    let inv = {one} / sa[lid - t];\n    for (var k = k0 + t; k < k1; k = k + tn) {{\n      let r = red(k);\n      st1(u32(kb.y + r.y), {exp}(ld0(u32(kb.x + r.x)) - m) * inv);\n    }}"),
    };
    src.push_str(&body);
    src.push_str("\n    workgroupBarrier();\n  }\n}\n");
    src
}

/// The first softmax pass over `xd`: per (output, chunk) work item `g` the
/// chunk's maximum (to the partials `y` at `g`, dtype `acc(xd)`) and its sum
/// of `exp(x - max)` (plain binding `ps` at `g`).
fn softmax_part_src(xd: DType, w: (Win, Win)) -> String {
    let a = acc(xd);
    let Fl { t, exp, zero, .. } = fl(a);
    let mut src = header(xd, a, w);
    src.push_str(&extra_decl(w, 0, "ps", t, true));
    src.push_str(&cmax(a));
    let ninf = wgsl::lit(a, f64::NEG_INFINITY);
    let cl = chunk_loop();
    let _ = writeln!(
        src,
        "var<workgroup> sa: array<{t}, {WG}>;\n@compute @workgroup_size({WG})\nfn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{\n{cl}    var a = {ninf};\n    for (var k = k0 + t; k < k1; k = k + tn) {{\n      a = cmax(a, ld0(u32(kb.x + red(k).x)));\n    }}\n    sa[lid] = a;"
    );
    tree(&mut src, "cmax");
    let _ = writeln!(
        src,
        "    let m = sa[lid - t];\n    workgroupBarrier();\n    var s = {zero};\n    for (var k = k0 + t; k < k1; k = k + tn) {{\n      s = s + {exp}(ld0(u32(kb.x + red(k).x)) - m);\n    }}\n    sa[lid] = s;"
    );
    tree(&mut src, "cadd");
    src.push_str("    if (live && t == 0u) {\n      st1(g, m);\n      ps[g] = sa[lid - t];\n    }\n    workgroupBarrier();\n  }\n}\n");
    src
}

/// The second softmax pass: per group, over its chunks' maxima `m_c` (the
/// input, partials of dtype `a`) and sums `s_c` (plain `ps`, same layout), `M
/// = max m_c` and `S = sum s_c exp(m_c - M)`, leaving out chunks that are
/// all -inf (their `s_c` is `exp(-inf - -inf)`, NaN, where they add 0).
/// `lse`: stores `M + log S` (`M` when infinite) at the output (dtype
/// `yd`); else `M` at the output and `S` to plain `gs` at `o`.
fn softmax_combine_src(lse: bool, a: DType, yd: DType, w: (Win, Win)) -> String {
    let Fl {
        t,
        exp,
        log,
        is_inf,
        zero,
        ..
    } = fl(a);
    let mut src = header(a, yd, w);
    src.push_str(&extra_decl(w, 0, "ps", t, false));
    if !lse {
        src.push_str(&extra_decl(w, 1, "gs", t, true));
    }
    src.push_str(&cmax(a));
    let ninf = wgsl::lit(a, f64::NEG_INFINITY);
    let cl = chunk_loop();
    let _ = writeln!(
        src,
        "var<workgroup> sa: array<{t}, {WG}>;\n@compute @workgroup_size({WG})\nfn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{\n{cl}    var a = {ninf};\n    for (var k = k0 + t; k < k1; k = k + tn) {{\n      a = cmax(a, ld0(u32(kb.x + red(k).x)));\n    }}\n    sa[lid] = a;"
    );
    tree(&mut src, "cmax");
    let _ = writeln!(
        src,
        "    let m = sa[lid - t];\n    workgroupBarrier();\n    var s = {zero};\n    for (var k = k0 + t; k < k1; k = k + tn) {{\n      let i = u32(kb.x + red(k).x);\n      let mc = ld0(i);\n      if (mc != {ninf}) {{ s = s + ps[i] * {exp}(mc - m); }}\n    }}\n    sa[lid] = s;"
    );
    tree(&mut src, "cadd");
    if lse {
        let _ = write!(src, "    if (live && t == 0u) {{\n      var r = m + {log}(sa[lid - t]);\n      if ({is_inf}(m)) {{ r = m; }}\n      st1(u32(kb.y), r);\n    }}");
    } else {
        src.push_str("    if (live && t == 0u) {\n      st1(u32(kb.y), m);\n      gs[o] = sa[lid - t];\n    }");
    }
    src.push_str("\n    workgroupBarrier();\n  }\n}\n");
    src
}

/// The last softmax pass (softmax, log_softmax) over `xd`: per (output,
/// chunk) work item each element of the chunk from the group's `M` (plain
/// `gm`) and `S` (plain `gs`), as the one-pass kernel: `exp(x - M) * (1 /
/// S)`, resp. `(x - M) - log S`.
fn softmax_apply_src(op: SoftmaxOp, xd: DType, w: (Win, Win)) -> String {
    let a = acc(xd);
    let Fl {
        t, exp, log, one, ..
    } = fl(a);
    let mut src = header(xd, xd, w);
    src.push_str(&extra_decl(w, 0, "gm", t, false));
    src.push_str(&extra_decl(w, 1, "gs", t, false));
    if a == DType::F64 {
        src.push_str(MATH_F64);
    }
    let (pre, val) = match op {
        SoftmaxOp::LogSoftmax => (
            format!("let ls = {log}(gs[o]);"),
            "(ld0(u32(kb.x + r.x)) - m) - ls".to_string(),
        ),
        _ => (
            format!("let inv = {one} / gs[o];"),
            format!("{exp}(ld0(u32(kb.x + r.x)) - m) * inv"),
        ),
    };
    let cl = chunk_loop();
    let _ = writeln!(
        src,
        "@compute @workgroup_size({WG})\nfn main(@builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>, @builtin(local_invocation_index) lid: u32) {{\n{cl}    if (live) {{\n      let m = gm[o];\n      {pre}\n      for (var k = k0 + t; k < k1; k = k + tn) {{\n        let r = red(k);\n        st1(u32(kb.y + r.y), {val});\n      }}\n    }}\n  }}\n}}"
    );
    src
}

/// Whether the row kernel may store `vec4` quads: an f32 output of the
/// input's shape whose rows run with stride 1 and start at the same offset
/// modulo 4 as the input's (so the quads of both are aligned), in windows of
/// whole quads.
fn vec_out(md: &[u32], p: &Plan, yd: DType, wy: Win) -> bool {
    let nk = md[3] as usize;
    let i = |k: usize| md[k] as i32 as i64;
    let ry = i(10 + 3 * nk + 2);
    let (kx, ky) = if nk == 1 { (i(11), i(12)) } else { (0, 0) };
    p.vec
        && yd.itemsize() == 4
        && wy.units.is_multiple_of(4)
        && ry == 1
        && (i(6) - i(5)) % 4 == 0
        && (ky - kx) % 4 == 0
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
        let gpu = matches!(
            x.dtype(),
            DType::F32 | DType::F16 | DType::BF16 | DType::F64
        );
        if gpu && nout > 0 && count > 0 {
            if let Some(p) = self.fast_plan("softmax", x, x.dtype(), &md, true)? {
                let ctx = self.ctx("softmax")?;
                let wy = windows(&ctx, out, out.dtype());
                let vec_out = vec_out(&md, &p, out.dtype(), wy) && op != SoftmaxOp::LogSumExp;
                return launch(self, &p, "softmax", &md, x, x.dtype(), out, &[], |w| {
                    softmax_rows_src(op, x.dtype(), &p, Pass::Whole, vec_out, w)
                });
            }
        }
        if gpu && count > CHUNK && nout > 0 {
            return self.softmax_chunked(op, x, axes, out, md);
        }
        if gpu {
            return Launch {
                op: "softmax",
                md: &md,
                items: nout,
                per_group: None,
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
    /// passes: per chunk its maximum `m_c` and `s_c = sum exp(x - m_c)` (f32,
    /// f64 for f64);
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
        let a = acc(xd);
        let (nout, count) = (md[0] as usize, md[1] as usize);
        // Contiguous groups: chunks of the row kernel (at most 65,536 of
        // them, which the combine pass loops over).
        let rows = self
            .fast_plan("softmax", x, xd, &md, false)?
            .filter(|p| p.class == Class::Rows && p.np <= 65_536);
        let (ch, np) = rows.map_or_else(|| chunks(count), |p| (p.ch, p.np));
        md[NP] = np as u32;
        md[CH] = ch as u32;
        let pm = self.partials(a, x, axes, np)?;
        let ps = self.partials(a, x, axes, np)?;
        let last = pm.shape().len() - 1;
        match &rows {
            Some(p) => launch(self, p, "softmax", &md, x, xd, &pm, &[&ps], |w| {
                softmax_rows_src(op, xd, p, Pass::Partial, false, w)
            })?,
            None => Launch {
                op: "softmax",
                md: &md,
                items: nout * np,
                per_group: None,
                x,
                xd,
                out: &pm,
                extra: &[&ps],
            }
            .run(self, |w| softmax_part_src(xd, w))?,
        }
        let gm = self.partials(a, x, axes, 1)?;
        let gs = self.partials(a, x, axes, 1)?;
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
            per_group: None,
            x: &pm,
            xd: a,
            out: &target,
            extra: &extra,
        }
        .run(self, |w| softmax_combine_src(lse, a, target.dtype(), w))?;
        if lse {
            return Ok(());
        }
        if let Some(p) = &rows {
            let ctx = self.ctx("softmax")?;
            let vec_out = vec_out(&md, p, out.dtype(), windows(&ctx, out, out.dtype()));
            return launch(self, p, "softmax", &md, x, xd, out, &[&gm, &gs], |w| {
                softmax_rows_src(op, xd, p, Pass::Apply, vec_out, w)
            });
        }
        Launch {
            op: "softmax",
            md: &md,
            items: nout * np,
            per_group: None,
            x,
            xd,
            out,
            extra: &[&gm, &gs],
        }
        .run(self, |w| softmax_apply_src(op, xd, w))
    }
}
