//! Which kernel a reduction runs (the layout classes of the fast paths and
//! their chunk plans) and the source header the fast kernels share. The
//! kernels themselves are in `reduce_rows.rs`, `reduce_cols.rs` and
//! `softmax_rows.rs`; the passes are driven from `reduce.rs`.
//!
//! A reduction's metadata (`reduce::meta`) sees the input as `[kept...,
//! reduced...]` with axes merged where the strides allow. Two layouts cover
//! most reductions and run without per-element index arithmetic:
//! - **rows**: one reduced axis of stride 1 (the reduced elements of each
//!   output are one contiguous run) and at most one kept axis: `sum`, `max`,
//!   `argmax`, `softmax` over the last axis of a contiguous tensor, and every
//!   reduction of all elements of a contiguous tensor;
//! - **columns**: one reduced axis of any stride and the innermost kept axis
//!   of stride 1 (at most one kept axis outside it): axis 0 of a contiguous
//!   matrix, a middle axis of a contiguous 3-D tensor.
//!
//! Everything else takes the general kernel of `reduce.rs`.
//!
//! Elements of 4-byte dtypes are read as `vec4` (16 bytes per load) where the
//! layout allows: rows always (a row's first elements up to a multiple of 4
//! and its last ones are read singly), columns when the offset and strides
//! are multiples of 4. Other dtypes read four elements with four loads in
//! the same pattern.

use super::kernel::windows;
use super::reduce::{CHUNK, WG};
use super::wgsl::{self, Win};
use super::GpuBackend;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;
use std::fmt::Write;
use std::sync::OnceLock;

/// The layout class of a reduction (from its metadata).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Class {
    /// The general kernel.
    General,
    /// Each output's reduced elements are one contiguous run.
    Rows,
    /// The innermost kept axis is contiguous; one reduced axis.
    Cols,
}

/// How one pass of a fast reduction runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Plan {
    pub(super) class: Class,
    /// Reduced elements per chunk (`md[CH]`) and chunks per output (`md[NP]`);
    /// one chunk (`np == 1`) finishes the reduction in this pass.
    pub(super) ch: usize,
    pub(super) np: usize,
    /// Rows: invocations per output chunk (a power of two up to [`WG`]).
    /// Columns: column quads per workgroup (a power of two up to 32); the
    /// workgroup's other dimension is `lanes = WG / t` row lanes.
    pub(super) t: u32,
    /// Whether `x` is read as `vec4` (see the module doc).
    pub(super) vec: bool,
    /// Columns: workgroups per chunk across the kept axes.
    pub(super) groups: usize,
}

impl Plan {
    /// Rows: the quad slots each invocation has, at least the
    /// `ceil(ch / (4 t))` quads it holds, rounded up to 4, 8 or 16 (slots
    /// past a row's quads are never loaded). The kernel source depends on
    /// this bucket, not on `ch` or `t` (which it derives from `ch`), so one
    /// pipeline serves every row length up to 4,096 (issue 26).
    pub(super) fn slots(&self) -> u32 {
        (self.ch.div_ceil(4 * self.t as usize) as u32)
            .next_power_of_two()
            .max(4)
    }
    /// Work items of one launch and how many one workgroup takes.
    pub(super) fn items(&self, nout: usize) -> (usize, usize) {
        match self.class {
            Class::Rows => (nout * self.np, (WG / self.t) as usize),
            _ => (self.groups * self.np, 1),
        }
    }
}

/// Metadata slots the fast kernels read (see `reduce::meta`).
fn md_at(md: &[u32], i: usize) -> i64 {
    md[i] as i32 as i64
}

/// The class of a reduction with metadata `md` (nonempty: `nout > 0`,
/// `count > 0`).
pub(super) fn class(md: &[u32]) -> Class {
    let (nk, nr) = (md[3] as usize, md[4] as usize);
    if nr != 1 {
        return Class::General;
    }
    let rx = md_at(md, 10 + 3 * nk + 1);
    if rx == 1 && nk <= 1 {
        return Class::Rows;
    }
    if (1..=2).contains(&nk) && md_at(md, 10 + nk + nk - 1) == 1 {
        return Class::Cols;
    }
    Class::General
}

/// Whether the fast kernels of the GPU backend (reductions, softmax, matmul,
/// transposed copies) are used: yes, unless the environment variable
/// `RNX_GPU_FAST` is `0` when the first kernel runs (for measuring them
/// against the general kernels, which every layout can take).
pub(super) fn fast_enabled() -> bool {
    static ON: OnceLock<bool> = OnceLock::new();
    *ON.get_or_init(|| crate::env::switch_on("RNX_GPU_FAST"))
}

/// Rows of more than this many elements (with few outputs) run in chunks.
const ROW_ONE_PASS: usize = 4096;

/// Rows: the invocations per chunk of `ch` elements, a power of two (each
/// holding up to 16 elements) up to [`WG`]. The kernels compute the same from
/// `md[CH]` ([`ROW_T`]), so their source does not depend on the length.
fn row_t(ch: usize) -> u32 {
    (ch.div_ceil(16).next_power_of_two() as u32).min(WG)
}

/// [`row_t`] in WGSL, of the kernel's `ch` (`p2` from [`fast_header`]).
pub(super) const ROW_T: &str = "min(256u, p2((ch + 15u) / 16u))";

/// Columns: the column quads per workgroup for `c` columns, a power of two up
/// to 32; the kernels compute the same from the column count ([`COL_Q`]).
fn col_q(c: usize) -> u32 {
    (c.div_ceil(4).next_power_of_two() as u32).min(32)
}

/// [`col_q`] in WGSL, of the kernel's column count `cc`.
pub(super) const COL_Q: &str = "min(32u, p2((cc + 3u) / 4u))";

/// The plan of one pass over `x` (read as `xd`, whose windows are `wx`)
/// with metadata `md`, or `None` for the general kernel. `one_pass`: only a
/// plan of one chunk per output (rows of at most [`CHUNK`] elements).
pub(super) fn plan(md: &[u32], xd: DType, wx: Win, one_pass: bool) -> Option<Plan> {
    let (nout, n) = (md[0] as usize, md[1] as usize);
    if nout == 0 || n == 0 || !fast_enabled() {
        return None;
    }
    let four = xd.itemsize() == 4 && wx.units.is_multiple_of(4);
    match class(md) {
        Class::General => None,
        Class::Rows if one_pass && n > CHUNK => None,
        Class::Cols if one_pass => None,
        Class::Rows => {
            let ch = if n <= ROW_ONE_PASS || (n <= CHUNK && nout >= 512) || one_pass {
                n
            } else if n <= ROW_ONE_PASS * 65_536 {
                ROW_ONE_PASS
            } else {
                CHUNK
            };
            let t = row_t(ch);
            Some(Plan {
                class: Class::Rows,
                ch,
                np: n.div_ceil(ch),
                t,
                vec: four,
                groups: 0,
            })
        }
        Class::Cols => {
            let nk = md[3] as usize;
            let c = md[10 + nk - 1] as usize;
            let b = if nk == 2 { md[10] as usize } else { 1 };
            let off = md_at(md, 5);
            let rs = md_at(md, 10 + 3 * nk + 1);
            let bx = if nk == 2 { md_at(md, 12) } else { 0 };
            let vec = four && off % 4 == 0 && rs % 4 == 0 && bx % 4 == 0;
            let t = col_q(c);
            let lanes = (WG / t) as usize;
            let groups = c.div_ceil(4 * t as usize) * b;
            // 8 to 64 rows per invocation, about 1024 workgroups in all.
            let np_min = n.div_ceil(64 * lanes);
            let np_max = (n / (8 * lanes)).max(1);
            let np = 1024usize.div_ceil(groups).min(np_max).max(np_min).max(1);
            let ch = n.div_ceil(np).div_ceil(lanes) * lanes;
            Some(Plan {
                class: Class::Cols,
                ch,
                np: n.div_ceil(ch),
                t,
                vec,
                groups,
            })
        }
    }
}

impl GpuBackend {
    /// The plan of a reduction pass over `x` read as `xd` (see [`plan`]).
    pub(super) fn fast_plan(
        &self,
        op: &str,
        x: &Tensor,
        xd: DType,
        md: &[u32],
        one_pass: bool,
    ) -> Result<Option<Plan>> {
        let ctx = self.ctx(op)?;
        Ok(plan(md, xd, windows(&ctx, x, xd), one_pass))
    }
}

/// The source header of a fast kernel: bindings `md`, `x` (read as `xd`; as
/// `vec4` windows when `vec`), `y` (written as `yd`); prelude; `ld0(i)`,
/// `ldq(e) -> vec4` (elements `e..e + 4`; `e` a multiple of 4 when `vec`),
/// `st1(i, v)`, and `mdi(i)` (a metadata word as i32).
pub(super) fn fast_header(xd: DType, yd: DType, w: (Win, Win), vec: bool) -> String {
    fast_header_io(xd, yd, w, vec, false)
}

/// [`fast_header`] with `y` written as `vec4` windows too when `vec_out`
/// (a 4-byte `yd` whose windows hold whole quads): then also `stq(e, v)`
/// stores the quad at element `e` (a multiple of 4).
pub(super) fn fast_header_io(
    xd: DType,
    yd: DType,
    (wx, wy): (Win, Win),
    vec: bool,
    vec_out: bool,
) -> String {
    let mut src = String::new();
    src.push_str("@group(0) @binding(0) var<storage, read> md: array<u32>;\n");
    let t = wgsl::compute_ty(xd);
    if vec {
        let w4 = Win {
            count: wx.count,
            units: wx.units / 4,
        };
        src.push_str(&wgsl::decl_ty(1, "bx", &format!("vec4<{t}>"), false, w4));
    } else {
        src.push_str(&wgsl::decl(1, "bx", xd, false, wx));
    }
    if vec_out {
        let w4 = Win {
            count: wy.count,
            units: wy.units / 4,
        };
        let ty = format!("vec4<{}>", wgsl::compute_ty(yd));
        src.push_str(&wgsl::decl_ty(1 + wx.count as usize, "by", &ty, true, w4));
    } else {
        src.push_str(&wgsl::decl(1 + wx.count as usize, "by", yd, true, wy));
    }
    src.push_str(wgsl::PRELUDE);
    if xd == DType::F64 || yd == DType::F64 {
        src.push_str(wgsl::PRELUDE_F64);
    }
    if vec {
        let _ = writeln!(
            src,
            "fn ld0(i: u32) -> {t} {{ return bx_rd(i >> 2u)[i & 3u]; }}\nfn ldq(e: u32) -> vec4<{t}> {{ return bx_rd(e >> 2u); }}"
        );
    } else {
        src.push_str(&wgsl::load_fn(0, "bx", xd, false));
        let _ = writeln!(
            src,
            "fn ldq(e: u32) -> vec4<{t}> {{ return vec4<{t}>(ld0(e), ld0(e + 1u), ld0(e + 2u), ld0(e + 3u)); }}"
        );
    }
    if vec_out {
        let ty = wgsl::compute_ty(yd);
        let _ = writeln!(
            src,
            "fn st1(i: u32, v: {ty}) {{ by_wr1(i >> 2u, i & 3u, v); }}\nfn stq(e: u32, v: vec4<{ty}>) {{ by_wr(e >> 2u, v); }}"
        );
    } else {
        src.push_str(&wgsl::store_fn(1, "by", yd));
    }
    src.push_str("fn mdi(i: u32) -> i32 { return bitcast<i32>(md[i]); }\n");
    // The least power of two >= v (1 for v <= 1), as `next_power_of_two`.
    src.push_str(
        "fn p2(v: u32) -> u32 { return 1u << (32u - countLeadingZeros(max(v, 1u) - 1u)); }\n",
    );
    src
}
