//! CPU cumulative sum and product along one axis (inclusive). Accumulates in the
//! reducer accumulator type (f32 for f16/bf16, wrapping integers) and rounds
//! each output once. When the axis is the contiguous one each line is scanned on
//! its own; otherwise a block of adjacent lines advances together, one input row
//! at a time.

use super::num::{AccNum, Summable};
use crate::backend::cpu::base_ptr;
use crate::backend::cpu::strided::{Plan, SendPtr, PAR_MIN_ELEMS};
use crate::backend::reduce::ScanOp;
use crate::tensor::Tensor;

/// The combining function of a scan.
type Combine<A> = fn(A, A) -> A;

/// Lines advanced together in the across-rows loop.
const BLOCK: usize = 256;

/// Scan `x` along `axis` into `out` (same shape; no overlap with x).
pub(super) fn run<T: Summable>(op: ScanOp, x: &Tensor, axis: usize, out: &Tensor) {
    let n = x.shape()[axis];
    if out.numel() == 0 {
        return;
    }
    let (sa, oa) = (x.layout().strides()[axis], out.layout().strides()[axis]);
    let plan = Plan::new([&out.layout().select(axis, 0), &x.layout().select(axis, 0)]);
    let [so, sx] = plan.inner_strides();
    let xp = SendPtr(base_ptr::<T>(x));
    let op_ = SendPtr(base_ptr::<T>(out));
    let (init, f): (T::A, Combine<T::A>) = match op {
        ScanOp::Sum => (T::A::ZERO, T::A::add),
        ScanOp::Prod => (T::A::ONE, T::A::mul),
    };
    let min = (PAR_MIN_ELEMS / n).max(1);
    // SAFETY (all reads and writes below): offsets come from x's and out's
    // in-bounds layouts; out is unique, does not overlap x, and each task owns
    // its lines.
    let at = move |o: isize| unsafe { *{ xp }.0.offset(o) }.to_acc();
    let put = move |o: isize, a: T::A| unsafe { *{ op_ }.0.offset(o) = T::from_acc(a) };
    crate::backend::cpu::team::install_for(x.numel(), || {
        plan.par_for_each_run(min, |[oo, xo], len| {
            if len == 1 || sa.unsigned_abs() <= sx.unsigned_abs() {
                for j in 0..len as isize {
                    let (xb, ob) = (xo + j * sx, oo + j * so);
                    let mut acc = init;
                    for k in 0..n as isize {
                        acc = f(acc, at(xb + k * sa));
                        put(ob + k * oa, acc);
                    }
                }
                return;
            }
            let mut acc = [init; BLOCK];
            let mut c0 = 0;
            while c0 < len {
                let w = BLOCK.min(len - c0);
                acc[..w].fill(init);
                for k in 0..n as isize {
                    let (xb, ob) = (
                        xo + k * sa + c0 as isize * sx,
                        oo + k * oa + c0 as isize * so,
                    );
                    for (j, a) in acc[..w].iter_mut().enumerate() {
                        *a = f(*a, at(xb + j as isize * sx));
                        put(ob + j as isize * so, *a);
                    }
                }
                c0 += w;
            }
        })
    });
}
