//! CPU real trigonometric transforms (DCT/DST types 1-4) over rustdct, whose
//! plans (built on rustfft) are cached per (type, length) in one planner per
//! precision behind a Mutex. rustdct computes half of SciPy's unscaled
//! transforms for every type, so results are multiplied by `2 * scale`; the
//! `orthogonalize` pre- and post-scaling of [`DctSpec`] is applied here. Rows
//! along the axis are gathered into a contiguous buffer (zero padding or
//! truncation on the way) and scattered back through the strides, in chunks
//! of about `CHUNK_ELEMS` elements spread over the pool with
//! `team::for_each_chunk`. Only `FftBackend::dct` of the CPU calls this.

use super::base_ptr;
use super::fft::Rows;
use super::strided::SendPtr;
use super::team::for_each_chunk;
use crate::backend::fft::{DctSpec, TrigKind};
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use rustdct::{Dct1, DctNum, DctPlanner, Dst1, TransformType2And3, TransformType4};
use std::sync::{Arc, Mutex, OnceLock};

/// Elements of work (rows x length) per chunk handed to one thread.
const CHUNK_ELEMS: usize = 1 << 15;

/// A precision that rustdct and rnx both know (f32, f64).
trait DctFloat: DctNum + Element {
    /// This precision's planner (one per process; it caches its plans).
    fn planner() -> &'static Mutex<DctPlanner<Self>>;
}

macro_rules! impl_dct_float {
    ($t:ty) => {
        impl DctFloat for $t {
            fn planner() -> &'static Mutex<DctPlanner<$t>> {
                static P: OnceLock<Mutex<DctPlanner<$t>>> = OnceLock::new();
                P.get_or_init(|| Mutex::new(DctPlanner::new()))
            }
        }
    };
}
impl_dct_float!(f32);
impl_dct_float!(f64);

/// Run the transform of `spec` over every row of `x` along `axis` into `out`
/// (the contract of `FftBackend::dct`).
pub(crate) fn dct(x: &Tensor, axis: usize, spec: &DctSpec, out: &Tensor) -> Result<()> {
    match (x.dtype(), out.dtype()) {
        (DType::F32, DType::F32) => run::<f32>(x, axis, spec, out),
        (DType::F64, DType::F64) => run::<f64>(x, axis, spec, out),
        (d, _) => Err(Error::dtype("dct", d)),
    }
}

/// One planned transform of one length.
enum Plan<T: DctNum> {
    Dct1(Arc<dyn Dct1<T>>),
    Dst1(Arc<dyn Dst1<T>>),
    Type23(Arc<dyn TransformType2And3<T>>),
    Type4(Arc<dyn TransformType4<T>>),
}

impl<T: DctFloat> Plan<T> {
    fn new(spec: &DctSpec) -> Plan<T> {
        let mut p = T::planner().lock().unwrap_or_else(|e| e.into_inner());
        let n = spec.n;
        match (spec.kind, spec.ty) {
            (TrigKind::Cos, 1) => Plan::Dct1(p.plan_dct1(n)),
            (TrigKind::Sin, 1) => Plan::Dst1(p.plan_dst1(n)),
            (_, 4) => Plan::Type4(p.plan_dct4(n)),
            _ => Plan::Type23(p.plan_dct2(n)),
        }
    }
    fn scratch_len(&self) -> usize {
        match self {
            Plan::Dct1(p) => p.get_scratch_len(),
            Plan::Dst1(p) => p.get_scratch_len(),
            Plan::Type23(p) => p.get_scratch_len(),
            Plan::Type4(p) => p.get_scratch_len(),
        }
    }
    /// Transform `buf` in place (rustdct's convention: half of SciPy's).
    fn process(&self, spec: &DctSpec, buf: &mut [T], scratch: &mut [T]) {
        match (self, spec.kind, spec.ty) {
            (Plan::Dct1(p), _, _) => p.process_dct1_with_scratch(buf, scratch),
            (Plan::Dst1(p), _, _) => p.process_dst1_with_scratch(buf, scratch),
            (Plan::Type23(p), TrigKind::Cos, 2) => p.process_dct2_with_scratch(buf, scratch),
            (Plan::Type23(p), TrigKind::Cos, _) => p.process_dct3_with_scratch(buf, scratch),
            (Plan::Type23(p), TrigKind::Sin, 2) => p.process_dst2_with_scratch(buf, scratch),
            (Plan::Type23(p), TrigKind::Sin, _) => p.process_dst3_with_scratch(buf, scratch),
            (Plan::Type4(p), TrigKind::Cos, _) => p.process_dct4_with_scratch(buf, scratch),
            (Plan::Type4(p), TrigKind::Sin, _) => p.process_dst4_with_scratch(buf, scratch),
        }
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
    let plan = Plan::<T>::new(spec);
    let (pre, post) = ortho_ends(spec);
    let sqrt2 = <T as Element>::from_f64(std::f64::consts::SQRT_2);
    let inv_sqrt2 = <T as Element>::from_f64(std::f64::consts::FRAC_1_SQRT_2);
    let scale = <T as Element>::from_f64(2.0 * spec.scale);
    let xp = SendPtr(base_ptr::<T>(x));
    let op = SendPtr(base_ptr::<T>(out));
    let per = (CHUNK_ELEMS / n).clamp(1, rows);
    let chunks = rows.div_ceil(per);
    for_each_chunk(chunks, &|c| {
        let mut buf = vec![<T as Element>::zero(); n];
        let mut scratch = vec![<T as Element>::zero(); plan.scratch_len()];
        for r in c * per..((c + 1) * per).min(rows) {
            let (xb, ob) = (xr.base(r), or.base(r));
            for (j, b) in buf.iter_mut().enumerate() {
                *b = if j < m {
                    // SAFETY: `xb + j * step` for `j < m <= x.shape[axis]` is
                    // an element of row `r` of `x` (a locked buffer).
                    unsafe { *xp.get().offset(xb + j as isize * xr.step) }
                } else {
                    <T as Element>::zero()
                };
            }
            scale_ends(&mut buf, pre, sqrt2);
            plan.process(spec, &mut buf, &mut scratch);
            scale_ends(&mut buf, post, inv_sqrt2);
            for (j, &v) in buf.iter().enumerate() {
                // SAFETY: row `r` of `out` has `n` elements and belongs to
                // this chunk alone (the frontend's fresh, unique output).
                unsafe { *op.get().offset(ob + j as isize * or.step) = v * scale };
            }
        }
    });
    Ok(())
}
