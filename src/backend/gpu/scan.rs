//! GPU scans (cumsum, cumprod): one invocation per (row, chunk), sequential in
//! the CPU's order within the chunk; rows longer than [`SCAN_CHUNK`] run in
//! three passes (chunk totals with the reduction kernel, a scan of the
//! totals, each chunk from its carry-in). See the module doc of `reduce.rs`
//! for the precision.

use super::reduce::{acc_dtype, extra_decl, header, meta, reduce_src, Launch, Stage, CH, NP};
use super::wgsl::Win;
use super::{wgsl, GpuBackend};
use crate::backend::{ReduceOp, ScanOp};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;
use std::fmt::Write;

/// Rows longer than this scan in chunks of this length.
pub(super) const SCAN_CHUNK: usize = 1024;

/// Invocations per workgroup of the scan kernel (one row chunk each).
const SCAN_WG: u32 = 64;

/// The kernel source of a scan of `xd`: one invocation per (row, chunk),
/// sequential in the CPU's order within the chunk, starting from the
/// inclusive scan of the previous chunks' totals (plain binding `cy` of the
/// accumulator type) when `carry`.
fn scan_src(op: ScanOp, xd: DType, carry: bool, w: (Win, Win)) -> String {
    let mut src = header(xd, xd, w);
    let t = wgsl::compute_ty(xd);
    if carry {
        src.push_str(&extra_decl(w, 0, "cy", t, false));
    }
    let (ident, f) = match op {
        ScanOp::Sum => (wgsl::lit(xd, 0.0), "a + v"),
        ScanOp::Prod => (wgsl::lit(xd, 1.0), "a * v"),
    };
    let start = if carry {
        "\n    if (c > 0u) { a = cy[g - 1u]; }"
    } else {
        ""
    };
    let _ = writeln!(
        src,
        "@compute @workgroup_size({SCAN_WG})\nfn main(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {{\n  let nout = md[0];\n  let cnt = md[1];\n  let np = md[7];\n  let ch = md[8];\n  for (var g = gid.x; g < nout * np; g = g + nwg.x * {SCAN_WG}u) {{\n    let o = g / np;\n    let c = g - o * np;\n    let kb = kept(o);\n    var a: {t} = {ident};{start}\n    let k1 = min(cnt, c * ch + ch);\n    for (var k = c * ch; k < k1; k = k + 1u) {{\n      let r = red(k);\n      let v = ld0(u32(kb.x + r.x));\n      a = {f};\n      st1(u32(kb.y + r.y), a);\n    }}\n  }}\n}}"
    );
    src
}

impl GpuBackend {
    /// The scan primitive (see the module doc).
    pub(super) fn scan_kernel(
        &self,
        op: ScanOp,
        x: &Tensor,
        axis: usize,
        out: &Tensor,
    ) -> Result<()> {
        let (nout, count, mut md) = meta(x, &[axis], out, 0);
        let xd = x.dtype();
        let mut carry = None;
        if count > SCAN_CHUNK && nout > 0 {
            // Chunk totals, their inclusive scan (recursively), then each
            // chunk from its carry-in.
            let np = count.div_ceil(SCAN_CHUNK);
            let pd = acc_dtype(xd);
            let part = self.partials(pd, x, &[axis], np)?;
            let mut pmd = md.clone();
            pmd[NP] = np as u32;
            pmd[CH] = SCAN_CHUNK as u32;
            let rop = match op {
                ScanOp::Sum => ReduceOp::Sum,
                ScanOp::Prod => ReduceOp::Prod,
            };
            // `md` was made for `out`; the partials are contiguous in `g`.
            Launch {
                op: "scan",
                md: &pmd,
                items: nout * np,
                per_group: None,
                x,
                xd,
                out: &part,
                extra: &[],
            }
            .run(self, |w| reduce_src(rop, xd, pd, Stage::Partial, w))?;
            let last = part.shape().len() - 1;
            let scanned = self.temp(pd, part.shape())?;
            self.scan_kernel(op, &part, last, &scanned)?;
            md[NP] = np as u32;
            md[CH] = SCAN_CHUNK as u32;
            carry = Some(scanned);
        }
        let np = md[NP] as usize;
        let extra: Vec<&Tensor> = carry.iter().collect();
        Launch {
            op: "scan",
            md: &md,
            items: nout * np,
            per_group: Some(SCAN_WG as usize),
            x,
            xd,
            out,
            extra: &extra,
        }
        .run(self, |w| scan_src(op, xd, carry.is_some(), w))
    }
}
