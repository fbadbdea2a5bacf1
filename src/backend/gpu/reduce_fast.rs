//! The passes of reductions and arg-reductions on the fast kernels (rows and
//! columns, `reduce_plan.rs`): one pass when the plan has one chunk per
//! output; otherwise a pass of chunk partials (output-major), then the
//! partials reduced as rows (recursively, so each pass reduces by its chunk
//! length). `Var`/`Std` in four passes as in `reduce.rs` (chunk sums, mean,
//! chunk sums of squared deviations, finish); arg-reductions in two (chunk
//! best value and index, then the best of the chunks). Layouts without a
//! fast kernel return `false` and take the general kernel.

use super::reduce::{
    acc_dtype, arg_src, meta, reduce_src, ArgPass, Launch, Stage, CH, CHUNK, DIV, NP,
};
use super::reduce_cols::{col_arg_src, col_src};
use super::reduce_plan::{Class, Plan};
use super::reduce_rows::{row_arg_src, row_src};
use super::wgsl::Win;
use super::GpuBackend;
use crate::backend::{ArgOp, ReduceOp};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

/// One launch of a fast kernel: plan `p` over `x` (read as `xd`) with
/// metadata `md` (its chunking set from `p` here) into `out`.
#[allow(clippy::too_many_arguments)]
pub(super) fn launch(
    be: &GpuBackend,
    p: &Plan,
    op: &str,
    md: &[u32],
    x: &Tensor,
    xd: DType,
    out: &Tensor,
    extra: &[&Tensor],
    src: impl FnOnce((Win, Win)) -> String,
) -> Result<()> {
    let mut md = md.to_vec();
    md[NP] = p.np as u32;
    md[CH] = p.ch as u32;
    let (items, per_group) = p.items(md[0] as usize);
    Launch {
        op,
        md: &md,
        items,
        per_group: Some(per_group),
        x,
        xd,
        out,
        extra,
    }
    .run(be, src)
}

/// The reduction kernel source of plan `p`.
fn src_of(op: ReduceOp, xd: DType, yd: DType, stage: Stage, p: &Plan, w: (Win, Win)) -> String {
    match p.class {
        Class::Cols => col_src(op, xd, yd, stage, p, w),
        _ => row_src(op, xd, yd, stage, p, w),
    }
}

impl GpuBackend {
    /// Reduction `op` of `x` over `axes` into `out` (metadata `md`, `Mean`
    /// dividing by `md[DIV]`) on the fast kernels; `false` when its layout
    /// has none.
    pub(super) fn reduce_fast(
        &self,
        op: ReduceOp,
        x: &Tensor,
        axes: &[usize],
        out: &Tensor,
        md: &[u32],
    ) -> Result<bool> {
        let xd = x.dtype();
        let rd = super::reduce::pieces(op, xd, Stage::Whole).rd;
        let Some(p) = self.fast_plan("reduce", x, rd, md, false)? else {
            return Ok(false);
        };
        let var = matches!(op, ReduceOp::Var { .. } | ReduceOp::Std { .. });
        if var && p.np > CHUNK {
            return Ok(false);
        }
        let yd = out.dtype();
        if p.np == 1 {
            launch(self, &p, "reduce", md, x, rd, out, &[], |w| {
                src_of(op, xd, yd, Stage::Whole, &p, w)
            })?;
            return Ok(true);
        }
        let pd = match op {
            ReduceOp::All | ReduceOp::Any => DType::U32,
            _ => acc_dtype(xd),
        };
        let part = self.partials(pd, x, axes, p.np)?;
        let last = part.shape().len() - 1;
        let out1 = Self::with_unit_axis(out)?;
        let (count, div) = (md[1] as usize, md[DIV] as usize);
        if !var {
            let pop = if op == ReduceOp::Mean {
                ReduceOp::Sum
            } else {
                op
            };
            launch(self, &p, "reduce", md, x, rd, &part, &[], |w| {
                src_of(pop, xd, pd, Stage::Partial, &p, w)
            })?;
            self.reduce_div(op, &part, &[last], &out1, div)?;
            return Ok(true);
        }
        launch(self, &p, "reduce", md, x, xd, &part, &[], |w| {
            src_of(ReduceOp::Sum, xd, pd, Stage::Partial, &p, w)
        })?;
        let mean = self.partials(pd, x, axes, 1)?;
        self.reduce_div(ReduceOp::Mean, &part, &[last], &mean, count)?;
        launch(self, &p, "reduce", md, x, xd, &part, &[&mean], |w| {
            src_of(op, xd, pd, Stage::SqDev, &p, w)
        })?;
        let (fout, _, mut fmd) = meta(&part, &[last], &out1, md[2] as usize);
        fmd[DIV] = count as u32;
        match self.fast_plan("reduce", &part, pd, &fmd, true)? {
            Some(fp) => launch(self, &fp, "reduce", &fmd, &part, pd, &out1, &[], |w| {
                row_src(op, pd, yd, Stage::VarFinish, &fp, w)
            })?,
            None => Launch {
                op: "reduce",
                md: &fmd,
                items: fout,
                per_group: None,
                x: &part,
                xd: pd,
                out: &out1,
                extra: &[],
            }
            .run(self, |w| reduce_src(op, pd, yd, Stage::VarFinish, w))?,
        }
        Ok(true)
    }

    /// Arg-reduction `op` of `x` along `axis` into `out` (metadata `md`) on
    /// the fast kernels; `false` when its layout has none.
    pub(super) fn arg_fast(
        &self,
        op: ArgOp,
        x: &Tensor,
        axis: usize,
        out: &Tensor,
        md: &[u32],
    ) -> Result<bool> {
        let xd = x.dtype();
        let Some(p) = self.fast_plan("arg_reduce", x, xd, md, false)? else {
            return Ok(false);
        };
        if p.np > CHUNK {
            return Ok(false);
        }
        let src = |pass, w| match p.class {
            Class::Cols => col_arg_src(op, xd, pass, &p, w),
            _ => row_arg_src(op, xd, pass, &p, w),
        };
        if p.np == 1 {
            launch(self, &p, "arg_reduce", md, x, xd, out, &[], |w| {
                src(ArgPass::Whole, w)
            })?;
            return Ok(true);
        }
        let pd = acc_dtype(xd);
        let values = self.partials(pd, x, &[axis], p.np)?;
        let index = self.partials(DType::U32, x, &[axis], p.np)?;
        launch(self, &p, "arg_reduce", md, x, xd, &values, &[&index], |w| {
            src(ArgPass::Partial, w)
        })?;
        let last = values.shape().len() - 1;
        let out1 = Self::with_unit_axis(out)?;
        let (fout, _, fmd) = meta(&values, &[last], &out1, 0);
        match self.fast_plan("arg_reduce", &values, pd, &fmd, true)? {
            Some(fp) => launch(
                self,
                &fp,
                "arg_reduce",
                &fmd,
                &values,
                pd,
                &out1,
                &[&index],
                |w| row_arg_src(op, pd, ArgPass::Final, &fp, w),
            )?,
            None => Launch {
                op: "arg_reduce",
                md: &fmd,
                items: fout,
                per_group: None,
                x: &values,
                xd: pd,
                out: &out1,
                extra: &[&index],
            }
            .run(self, |w| arg_src(op, pd, ArgPass::Final, w))?,
        }
        Ok(true)
    }
}
