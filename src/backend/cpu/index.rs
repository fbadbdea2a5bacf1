//! CPU gather along an axis: one planned traversal of the other axes, and for
//! each run the list of gathered positions. No validation (the frontend did it).

use super::strided::Plan;
use super::{base_ptr, CpuBackend};
use crate::backend::index::IndexBackend;
use crate::dtype::Element;
use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::Tensor;

/// Layout of `l` without `axis` (the offset is kept).
fn drop_axis(l: &Layout, axis: usize) -> Layout {
    let mut shape = l.shape().to_vec();
    let mut strides = l.strides().to_vec();
    shape.remove(axis);
    strides.remove(axis);
    Layout::new(shape, strides, l.offset())
}

/// # Safety
/// The frontend contract of [`IndexBackend::gather`]; `idx` holds valid
/// positions of `axis`.
unsafe fn gather_typed<T: Element>(src: &Tensor, axis: usize, idx: &[isize], out: &Tensor) {
    let (sl, ol) = (src.layout(), out.layout());
    let (ss, os) = (sl.strides()[axis], ol.strides()[axis]);
    let (rs, ro) = (drop_axis(sl, axis), drop_axis(ol, axis));
    let plan = Plan::new([&ro, &rs]);
    let [io, is] = plan.inner_strides();
    let (sp, op) = (base_ptr::<T>(src) as *const T, base_ptr::<T>(out));
    plan.for_each_run(0, plan.numel(), |[o0, s0], len| {
        for (j, &k) in idx.iter().enumerate() {
            let od = o0 + j as isize * os;
            let sd = s0 + k * ss;
            for i in 0..len as isize {
                // SAFETY: offsets of in-bounds layouts at valid positions.
                unsafe { *op.offset(od + i * io) = *sp.offset(sd + i * is) };
            }
        }
    });
}

impl IndexBackend for CpuBackend {
    fn gather(&self, src: &Tensor, axis: usize, indices: &Tensor, out: &Tensor) -> Result<()> {
        if out.size() == 0 {
            return Ok(());
        }
        let il = indices.layout();
        let ip = base_ptr::<i64>(indices);
        let idx: Vec<isize> = (0..indices.size())
            // SAFETY: a 1-D in-bounds layout of a locked i64 buffer.
            .map(
                |j| unsafe { *ip.offset(il.offset() as isize + j as isize * il.strides()[0]) }
                    as isize,
            )
            .collect();
        crate::dispatch!(src.dtype(), T => {
            // SAFETY: frontend contract (see the trait).
            unsafe { gather_typed::<T>(src, axis, &idx, out) };
        });
        Ok(())
    }
}
