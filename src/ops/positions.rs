//! Index tensors turned into the validated positions that the backend's
//! gather / scatter primitives take, in one pass over the index values (plus
//! one vectorised min/max scan): the mode (raise / wrap / clip) applied,
//! negative indices counted from the end and, for the `*_along_axis` family
//! and `scatter`, each index placed at its grid element's row-major position.
//! On the CPU an index tensor whose values already are valid positions goes
//! to the backend as it is, with no copy. Reads only; the callers write.

use super::same_device;
use super::take::IndexMode;
use crate::backend::cpu::elementwise::simd::with_widest;
use crate::backend::cpu::team;
use crate::device::Device;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::layout::{c_strides, Layout};
use crate::tensor::Tensor;
use std::sync::Mutex;

/// What the indices select.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Target<'a> {
    /// Length of the indexed axis (an index must lie in `-size..size`).
    pub size: usize,
    /// The indexed axis (named in errors).
    pub axis: usize,
    /// For the along-axis family: the grid shape (the indices' shape) and
    /// the indexed tensor's shape. Index `e` (row-major in the grid) then
    /// lands at the row-major position in that tensor of the grid element's
    /// own coordinates (0 on axes where the tensor has size 1), with the
    /// index on `axis`. `None`: the position is the index along the axis.
    pub along: Option<(&'a [usize], &'a [usize])>,
}

/// The integer types of index tensors.
trait Idx: Element + Ord {
    const LO: Self;
    const HI: Self;
    fn wide(self) -> i64;
}

impl Idx for i32 {
    const LO: Self = i32::MIN;
    const HI: Self = i32::MAX;
    #[inline(always)]
    fn wide(self) -> i64 {
        self as i64
    }
}

impl Idx for i64 {
    const LO: Self = i64::MIN;
    const HI: Self = i64::MAX;
    #[inline(always)]
    fn wide(self) -> i64 {
        self
    }
}

/// The integer types of position tensors.
trait Pos: Element {
    fn narrow(v: i64) -> Self;
}

impl Pos for i32 {
    #[inline(always)]
    fn narrow(v: i64) -> Self {
        v as i32
    }
}

impl Pos for i64 {
    #[inline(always)]
    fn narrow(v: i64) -> Self {
        v
    }
}

/// The validated positions of the i32/i64 tensor `indices` (any shape and
/// layout; row-major order) in `t`, as a 1-D index tensor on `like`'s
/// device: on the CPU i32 or i64, elsewhere i32 whenever the positions fit
/// (the backend contract). An error naming `op` for another dtype or device,
/// or (mode raise) for an index outside `-size..size`, naming the first such
/// index.
pub(crate) fn positions(
    op: &str,
    indices: &Tensor,
    like: &Tensor,
    t: Target<'_>,
    mode: IndexMode,
) -> Result<Tensor> {
    same_device(op, &[like, indices])?;
    match indices.dtype() {
        DType::I64 => typed::<i64>(op, indices, like.device(), t, mode),
        DType::I32 => typed::<i32>(op, indices, like.device(), t, mode),
        d => Err(Error::invalid(
            op,
            format!("indices must be i32 or i64, got {d} (convert with cast)"),
        )),
    }
}

/// The row-major positions as host values (a download for device tensors).
pub(crate) fn host_positions(pos: &Tensor) -> Result<Vec<isize>> {
    Ok(match pos.dtype() {
        DType::I32 => pos
            .to_vec::<i32>()?
            .into_iter()
            .map(|k| k as isize)
            .collect(),
        _ => pos
            .to_vec::<i64>()?
            .into_iter()
            .map(|k| k as isize)
            .collect(),
    })
}

/// The smallest and largest value of `ks` (`(HI, LO)` when empty): one
/// vectorised pass, split over the pool above `2 * PAR_RUN` values.
fn min_max<I: Idx>(ks: &[I]) -> (I, I) {
    /// Values per task.
    const PAR_RUN: usize = 1 << 18;
    let run = |ks: &[I]| {
        with_widest(
            #[inline(always)]
            || {
                let (mut lo, mut hi) = (I::HI, I::LO);
                for &k in ks {
                    lo = lo.min(k);
                    hi = hi.max(k);
                }
                (lo, hi)
            },
        )
    };
    let threads = crate::device::num_threads();
    if ks.len() < 2 * PAR_RUN || threads <= 1 {
        return run(ks);
    }
    // A multiple of the thread count: 3 tasks on 2 threads ran 2/3 of the
    // values on one of them.
    let tasks = (ks.len() / PAR_RUN).min(threads * 2) / threads * threads;
    let chunk = ks.len().div_ceil(tasks);
    let parts: Vec<Mutex<(I, I)>> = (0..tasks).map(|_| Mutex::new((I::HI, I::LO))).collect();
    team::for_each_chunk(tasks, &|t| {
        let r = run(&ks[t * chunk..((t + 1) * chunk).min(ks.len())]);
        *parts[t].lock().unwrap_or_else(|e| e.into_inner()) = r;
    });
    parts
        .into_iter()
        .map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()))
        .fold((I::HI, I::LO), |(lo, hi), (a, b)| (lo.min(a), hi.max(b)))
}

fn typed<I: Idx>(
    op: &str,
    indices: &Tensor,
    device: Device,
    t: Target<'_>,
    mode: IndexMode,
) -> Result<Tensor> {
    let n = t.size as i64;
    let oob = |i: i64| Error::IndexOutOfBounds {
        op: op.into(),
        index: i as isize,
        axis: t.axis,
        size: t.size,
    };
    let c = indices.contiguous()?;
    let (borrowed, owned);
    let ks: &[I] = if device == Device::Cpu {
        borrowed = c.as_slice::<I>()?;
        &borrowed
    } else {
        owned = c.to_vec::<I>()?;
        &owned
    };
    let (lo, hi) = min_max(ks);
    let (lo, hi) = (lo.wide(), hi.wide());
    if !ks.is_empty() && (n == 0 || (mode == IndexMode::Raise && (lo < -n || hi >= n))) {
        let &bad = ks
            .iter()
            .find(|&&k| !(-n..n).contains(&k.wide()))
            .expect("a bad index was seen");
        return Err(oob(bad.wide()));
    }
    // Positions already: the index values themselves (a 1-D view).
    let identity = match t.along {
        None => true,
        Some((grid, _)) => grid.len() == 1,
    };
    if device == Device::Cpu && identity && (ks.is_empty() || (lo >= 0 && hi < n)) {
        return Ok(c.with_layout(Layout::new(vec![c.size()], vec![1], c.offset())));
    }
    let total: usize = match t.along {
        None => t.size,
        Some((_, target)) => target.iter().product(),
    };
    let norm = move |k: i64| -> i64 {
        match mode {
            IndexMode::Raise => k + if k < 0 { n } else { 0 },
            IndexMode::Wrap => k.rem_euclid(n),
            IndexMode::Clip => k.clamp(0, n - 1),
        }
    };
    let out = if total <= i32::MAX as usize {
        fill::<I, i32>(ks, t, norm)?
    } else {
        fill::<I, i64>(ks, t, norm)?
    };
    out.to_device(device)
}

/// A fresh 1-D CPU tensor of `P` holding the position of every index of
/// `ks` (normalised by `norm`) under `t`.
fn fill<I: Idx, P: Pos>(ks: &[I], t: Target<'_>, norm: impl Fn(i64) -> i64) -> Result<Tensor> {
    Tensor::cpu_filled::<P>(&[ks.len()], |ps| match t.along {
        None => ps
            .iter_mut()
            .zip(ks)
            .for_each(|(d, &k)| *d = P::narrow(norm(k.wide()))),
        Some((grid, target)) => along(ks, grid, target, t.axis, norm, ps),
    })
}

/// For each element of the grid `shape` (row-major), the row-major position
/// in a tensor of shape `target`: the grid's own coordinate on every axis but
/// `axis` (0 where `target` has size 1 there: broadcast), and `norm(ks[e])`
/// on `axis`.
fn along<I: Idx, P: Pos>(
    ks: &[I],
    shape: &[usize],
    target: &[usize],
    axis: usize,
    norm: impl Fn(i64) -> i64,
    out: &mut [P],
) {
    let nd = shape.len();
    let ts = c_strides(target);
    let kstride = ts[axis] as i64;
    if nd == 1 {
        for (d, &k) in out.iter_mut().zip(ks) {
            *d = P::narrow(norm(k.wide()) * kstride);
        }
        return;
    }
    let mut st: Vec<isize> = ts.clone();
    for d in 0..nd {
        if (target[d] == 1 && shape[d] != 1) || d == axis {
            st[d] = 0;
        }
    }
    // Rows along the last axis: the outer coordinates' part of the position
    // once per row, then one step per element.
    let inner = shape[nd - 1].max(1);
    let step = st[nd - 1] as i64;
    let mut coord = vec![0usize; nd - 1];
    for (row, orow) in ks.chunks(inner).zip(out.chunks_mut(inner)) {
        let base: i64 = (0..nd - 1).map(|d| coord[d] as i64 * st[d] as i64).sum();
        for (i, (d, &k)) in orow.iter_mut().zip(row).enumerate() {
            *d = P::narrow(base + i as i64 * step + norm(k.wide()) * kstride);
        }
        for d in (0..nd - 1).rev() {
            coord[d] += 1;
            if coord[d] < shape[d] {
                break;
            }
            coord[d] = 0;
        }
    }
}
