//! Reduction, softmax, normalisation-layer and sort cases. Inputs: f32 in
//! [0.5, 1.5) for the reductions, [-4, 4) for softmax and the normalisation
//! layers (epsilon 1e-6, no weight or bias), [-10^6, 10^6) for the sorts
//! (f64 for `sort_f64_1M` and `argsort_f64_1M`).

use super::data::{uniform, SEED_A};
use super::{Case, Prepared, Scale, Work};
use rnx::{DType, Tensor};
use std::hint::black_box;

/// A case over one f32 input of shape `shape(scale)` with values in `[lo, hi)`;
/// `f` is timed and its results dropped inside the timed region.
fn case<R: 'static>(
    name: &str,
    shape: fn(Scale) -> Vec<usize>,
    lo: f64,
    hi: f64,
    f: fn(&Tensor) -> rnx::Result<R>,
) -> Case {
    case_of(DType::F32, name, shape, lo, hi, f)
}

/// As [`case`], with an input of `dtype` (f32 or f64).
fn case_of<R: 'static>(
    dtype: DType,
    name: &str,
    shape: fn(Scale) -> Vec<usize>,
    lo: f64,
    hi: f64,
    f: fn(&Tensor) -> rnx::Result<R>,
) -> Case {
    Case::ready(name, move |s| {
        let shape = shape(s);
        let n = shape.iter().product::<usize>();
        let x = uniform(dtype, &shape, SEED_A, lo, hi)?;
        Ok(Prepared::new(
            move || {
                black_box(f(&x)?);
                Ok(())
            },
            Some(Work::Bytes((n * dtype.itemsize()) as f64)),
        ))
    })
}

fn n10m(s: Scale) -> Vec<usize> {
    vec![s.pick(10_000_000, 1000)]
}

fn square(s: Scale) -> Vec<usize> {
    vec![s.pick(4096, 48); 2]
}

pub fn cases() -> Vec<Case> {
    let (lo, hi) = (0.5, 1.5);
    let (slo, shi) = (-1e6, 1e6);
    vec![
        case("sum_all_f32_10M", n10m, lo, hi, |x| x.sum(None, false)),
        case("max_all_f32_10M", n10m, lo, hi, |x| x.max(None, false)),
        case("sum_axis0_4096x4096", square, lo, hi, |x| x.sum([0], false)),
        case("sum_axis1_4096x4096", square, lo, hi, |x| x.sum([1], false)),
        case("mean_axis1_4096x4096", square, lo, hi, |x| {
            x.mean([1], false)
        }),
        case("var_axis1_4096x4096", square, lo, hi, |x| {
            x.var([1], false, 0)
        }),
        case("argmax_axis1_4096x4096", square, lo, hi, |x| {
            x.argmax(Some(1), false)
        }),
        case("softmax_lastaxis_4096x4096", square, -4.0, 4.0, |x| {
            x.softmax(None)
        }),
        case("rms_norm_f32_4096x4096", square, -4.0, 4.0, |x| {
            x.rms_norm(None, Default::default())
        }),
        case("layer_norm_f32_4096x4096", square, -4.0, 4.0, |x| {
            x.layer_norm(None, Default::default())
        }),
        case(
            "sort_f32_1M",
            |s| vec![s.pick(1_000_000, 1000)],
            slo,
            shi,
            |x| x.sort_values(-1, false),
        ),
        case("sort_f32_10M", n10m, slo, shi, |x| x.sort_values(-1, false)),
        case(
            "argsort_f32_1M",
            |s| vec![s.pick(1_000_000, 1000)],
            slo,
            shi,
            |x| x.argsort(-1, false),
        ),
        case_of(
            DType::F64,
            "sort_f64_1M",
            |s| vec![s.pick(1_000_000, 1000)],
            slo,
            shi,
            |x| x.sort_values(-1, false),
        ),
        case_of(
            DType::F64,
            "argsort_f64_1M",
            |s| vec![s.pick(1_000_000, 1000)],
            slo,
            shi,
            |x| x.argsort(-1, false),
        ),
        case(
            "sort_rows_1000x1000",
            |s| vec![s.pick(1000, 10); 2],
            slo,
            shi,
            |x| x.sort_values(-1, false),
        ),
    ]
}
