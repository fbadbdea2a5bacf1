//! CPU real trigonometric transforms (DCT/DST types 1-4): rows along the
//! axis are gathered into a contiguous buffer (zero padding or truncation on
//! the way), transformed by a cached plan of `dct_plan.rs` (each type computed
//! with one rustfft / realfft FFT; no DCT library), and scattered back through
//! the strides, in chunks of about `CHUNK_ELEMS` elements spread over the
//! pool with `team::for_each_chunk`. The plans compute half of SciPy's
//! unscaled transforms, so results are multiplied by `2 * scale`; the
//! `orthogonalize` pre- and post-scaling of [`DctSpec`] is applied here. Only
//! `FftBackend::dct` of the CPU calls this.

use super::base_ptr;
use super::dct_long::Post;
use super::dct_plan::{DctFloat, Plan};
use super::fft::Rows;
use super::fft_long::Row;
use super::strided::SendPtr;
use super::team::for_each_chunk;
use crate::backend::fft::{DctSpec, TrigKind};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use std::sync::Mutex;

/// Elements of work (rows x length) per chunk handed to one thread.
const CHUNK_ELEMS: usize = 1 << 15;

/// Run the transform of `spec` over every row of `x` along `axis` into `out`
/// (the contract of `FftBackend::dct`).
pub(crate) fn dct(x: &Tensor, axis: usize, spec: &DctSpec, out: &Tensor) -> Result<()> {
    match (x.dtype(), out.dtype()) {
        (DType::F32, DType::F32) => run::<f32>(x, axis, spec, out),
        (DType::F64, DType::F64) => run::<f64>(x, axis, spec, out),
        (d, _) => Err(Error::dtype("dct", d)),
    }
}

/// Which ends of a row the `orthogonalize` variant scales: (first, last) of
/// the input (times `sqrt 2`) and of the output (divided by `sqrt 2`).
fn ortho_ends(spec: &DctSpec) -> ([bool; 2], [bool; 2]) {
    if !spec.orthogonalize {
        return ([false; 2], [false; 2]);
    }
    match (spec.kind, spec.ty) {
        (TrigKind::Cos, 1) => ([true, true], [true, true]),
        (TrigKind::Cos, 2) => ([false, false], [true, false]),
        (TrigKind::Cos, 3) => ([true, false], [false, false]),
        (TrigKind::Sin, 2) => ([false, false], [false, true]),
        (TrigKind::Sin, 3) => ([false, true], [false, false]),
        _ => ([false; 2], [false; 2]),
    }
}

/// Multiply the first and/or last element of `row` by `f`.
fn scale_ends<T: DctFloat>(row: &mut [T], ends: [bool; 2], f: T) {
    let last = row.len() - 1;
    if ends[0] {
        row[0] = row[0] * f;
    }
    if ends[1] && (last != 0 || !ends[0]) {
        row[last] = row[last] * f;
    }
}

fn run<T: DctFloat>(x: &Tensor, axis: usize, spec: &DctSpec, out: &Tensor) -> Result<()> {
    let xr = Rows::new(x, axis);
    let or = Rows::new(out, axis);
    let rows: usize = or.outer.iter().product();
    let n = spec.n;
    if rows == 0 || n == 0 {
        return Ok(());
    }
    let m = x.shape()[axis].min(n);
    let plan = Plan::<T>::get(spec.kind, spec.ty, n);
    let (pre, post) = ortho_ends(spec);
    let sqrt2 = <T as Element>::from_f64(std::f64::consts::SQRT_2);
    let inv_sqrt2 = <T as Element>::from_f64(std::f64::consts::FRAC_1_SQRT_2);
    let scale = <T as Element>::from_f64(2.0 * spec.scale);
    let xp = SendPtr(base_ptr::<T>(x));
    let op = SendPtr(base_ptr::<T>(out));
    if rows < crate::device::num_threads() && spec.ty == 2 && !pre.contains(&true) {
        if let Some(long) = plan.long_dct2() {
            let first = if post.contains(&true) {
                inv_sqrt2
            } else {
                <T as Element>::one()
            };
            let post = Post {
                scale,
                first,
                sine: spec.kind == TrigKind::Sin,
            };
            for r in 0..rows {
                let src = Row {
                    // SAFETY: offset to the first element of row `r`.
                    ptr: SendPtr(unsafe { xp.get().offset(xr.base(r)) }),
                    step: xr.step,
                };
                let dst = Row {
                    // SAFETY: as above, of `out`.
                    ptr: SendPtr(unsafe { op.get().offset(or.base(r)) }),
                    step: or.step,
                };
                // SAFETY: row `r` of `x` has `m` readable elements, `step`
                // apart; row `r` of `out` has `n`, the frontend's fresh,
                // unique output, which nothing else touches meanwhile.
                unsafe { long.run(src, m, dst, post)? };
            }
            return Ok(());
        }
    }
    let per = (CHUNK_ELEMS / n).clamp(1, rows);
    let chunks = rows.div_ceil(per);
    let failed: Mutex<Option<Error>> = Mutex::new(None);
    for_each_chunk(chunks, &|c| {
        let mut work = plan.work();
        for r in c * per..((c + 1) * per).min(rows) {
            let (xb, ob) = (xr.base(r), or.base(r));
            for (j, b) in work.row.iter_mut().enumerate() {
                *b = if j < m {
                    // SAFETY: `xb + j * step` for `j < m <= x.shape[axis]` is
                    // an element of row `r` of `x` (a locked buffer).
                    unsafe { *xp.get().offset(xb + j as isize * xr.step) }
                } else {
                    <T as Element>::zero()
                };
            }
            scale_ends(&mut work.row, pre, sqrt2);
            if let Err(e) = plan.process(spec.kind, spec.ty, &mut work) {
                let mut f = failed.lock().unwrap_or_else(|p| p.into_inner());
                f.get_or_insert(Error::invalid("dct", e.to_string()));
            }
            scale_ends(&mut work.row, post, inv_sqrt2);
            for (j, &v) in work.row.iter().enumerate() {
                // SAFETY: row `r` of `out` has `n` elements and belongs to
                // this chunk alone (the frontend's fresh, unique output).
                unsafe { *op.get().offset(ob + j as isize * or.step) = v * scale };
            }
        }
        plan.give_back(work);
    });
    match failed.into_inner().unwrap_or_else(|p| p.into_inner()) {
        Some(e) => Err(e),
        None => Ok(()),
    }
}
