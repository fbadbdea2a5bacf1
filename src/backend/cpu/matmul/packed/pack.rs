//! Packing for the packed GEMM: copies a block of A into row panels of `MR`
//! rows (`k`-major inside a panel) and a block of B into column panels of `NR`
//! columns, zero-padding the last panel, so the micro-kernel reads both
//! operands sequentially whatever their strides.

use super::super::Mat;
use crate::dtype::Element;

/// Pack the `mc x kc` block of `a` (starting at its first element) into
/// `ceil(mc / mr)` panels of `mr x kc`, panel `p` at `dst + p * mr * kc`, element
/// `(i, k)` of a panel at `k * mr + i`.
///
/// # Safety
/// The block's elements are readable; `dst` has room for the padded panels.
pub(super) unsafe fn pack_a<T: Element>(mc: usize, kc: usize, mr: usize, a: Mat<T>, dst: *mut T) {
    for (p, r0) in (0..mc).step_by(mr).enumerate() {
        let rows = mr.min(mc - r0);
        // SAFETY: caller contract; offsets stay in the block and the panel.
        unsafe {
            let panel = dst.add(p * mr * kc);
            for i in 0..mr {
                if i >= rows {
                    for k in 0..kc {
                        *panel.add(k * mr + i) = T::zero();
                    }
                    continue;
                }
                let src = a.ptr.get().offset((r0 + i) as isize * a.rs);
                if a.cs == 1 {
                    for k in 0..kc {
                        *panel.add(k * mr + i) = *src.add(k);
                    }
                } else {
                    for k in 0..kc {
                        *panel.add(k * mr + i) = *src.offset(k as isize * a.cs);
                    }
                }
            }
        }
    }
}

/// Pack the `kc x nc` block of `b` into `ceil(nc / nr)` panels of `kc x nr`,
/// panel `q` at `dst + q * nr * kc`, element `(k, j)` of a panel at
/// `k * nr + j`.
///
/// # Safety
/// The block's elements are readable; `dst` has room for panels `q0..q1`.
pub(super) unsafe fn pack_b<T: Element>(
    kc: usize,
    nc: usize,
    nr: usize,
    b: Mat<T>,
    dst: *mut T,
    panels: std::ops::Range<usize>,
) {
    // A constant width makes a full unit-stride row a fixed-size copy.
    // SAFETY: caller contract, passed on.
    unsafe {
        match nr {
            8 => pack_b_n::<T, 8>(kc, nc, b, dst, panels),
            16 => pack_b_n::<T, 16>(kc, nc, b, dst, panels),
            32 => pack_b_n::<T, 32>(kc, nc, b, dst, panels),
            _ => unreachable!("no packed kernel is {nr} columns wide"),
        }
    }
}

/// [`pack_b`] for a constant panel width `NR`.
///
/// # Safety
/// As [`pack_b`].
unsafe fn pack_b_n<T: Element, const NR: usize>(
    kc: usize,
    nc: usize,
    b: Mat<T>,
    dst: *mut T,
    panels: std::ops::Range<usize>,
) {
    let nr = NR;
    for q in panels {
        let c0 = q * nr;
        let cols = nr.min(nc - c0);
        // SAFETY: caller contract; offsets stay in the block and the panel.
        unsafe {
            let panel = dst.add(q * nr * kc);
            let src = b.ptr.get().offset(c0 as isize * b.cs);
            for k in 0..kc {
                let row = src.offset(k as isize * b.rs);
                let out = panel.add(k * nr);
                if b.cs == 1 && cols == nr {
                    std::ptr::copy_nonoverlapping(row, out, nr);
                } else {
                    for j in 0..nr {
                        *out.add(j) = if j < cols {
                            *row.offset(j as isize * b.cs)
                        } else {
                            T::zero()
                        };
                    }
                }
            }
        }
    }
}
