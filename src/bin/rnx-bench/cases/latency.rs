//! Small-tensor latency cases (issue 27): each timed run makes `CALLS` calls
//! of one operation on a tiny tensor, and the report divides by `CALLS`, so the
//! times read as nanoseconds per call with the timer's own cost spread thin.

use super::{Case, Prepared, Scale};
use rnx::{s, DType, Tensor};
use std::hint::black_box;

/// Calls per timed run (the quick scale makes a handful).
fn calls(s: Scale) -> usize {
    s.pick(2000, 3)
}

/// A latency case: `make` builds the input (untimed), `f` is one call.
fn case(
    name: &str,
    make: fn() -> rnx::Result<Tensor>,
    f: fn(&Tensor) -> rnx::Result<Tensor>,
) -> Case {
    Case::ready(name, move |s| {
        let x = make()?.to_device(super::device())?;
        let n = calls(s);
        Ok(Prepared::repeated(n, move || {
            for _ in 0..n {
                black_box(f(black_box(&x))?);
            }
            Ok(())
        }))
    })
}

fn f32_n(n: usize) -> rnx::Result<Tensor> {
    let v: Vec<f32> = (0..n).map(|i| 0.25 + i as f32 / n as f32).collect();
    Tensor::from_vec(v, &[n])
}

pub fn cases() -> Vec<Case> {
    vec![
        // `&a + &b` of two tensors (two storages to lock), as the issue times it.
        Case::ready("latency_add_f32_16", |s| {
            let a = f32_n(16)?.to_device(super::device())?;
            let b = a.copy()?;
            let n = calls(s);
            Ok(Prepared::repeated(n, move || {
                for _ in 0..n {
                    black_box(black_box(&a) + black_box(&b));
                }
                Ok(())
            }))
        }),
        case("latency_exp_f32_100", || f32_n(100), |x| x.exp()),
        case("latency_sum_f32_16", || f32_n(16), |x| x.sum(None, false)),
        case("latency_softmax_f32_16", || f32_n(16), |x| x.softmax(0)),
        case(
            "latency_matmul_f32_4x4",
            || f32_n(16)?.reshape([4, 4]),
            |x| x.matmul(x),
        ),
        case(
            "latency_slice_view",
            || f32_n(16)?.reshape([4, 4]),
            |x| x.slice(s![1..3, ..]),
        ),
        case(
            "latency_zeros_f32_16",
            || f32_n(16),
            |_| Tensor::zeros(DType::F32, &[16]),
        ),
    ]
}
