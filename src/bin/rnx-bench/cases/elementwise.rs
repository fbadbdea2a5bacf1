//! Elementwise cases: add (allocating, into an output, broadcast, transposed),
//! the transposed copy, exp/tanh/sigmoid/gelu, and the integer add/div.

use super::data::{on, positive_f32, transposed, uniform, SEED_A, SEED_B};
use super::{Case, Prepared, Scale, Work};
use rnx::{DType, Tensor};
use std::hint::black_box;

/// Side of the 4096x4096 cases (quick: 48).
fn side(s: Scale) -> usize {
    s.pick(4096, 48)
}

/// Length of the 10M cases (quick: 1000).
fn n10m(s: Scale) -> usize {
    s.pick(10_000_000, 1000)
}

fn bytes(n: usize, itemsize: usize, arrays: usize) -> Option<Work> {
    Some(Work::Bytes((n * itemsize * arrays) as f64))
}

/// A timed closure that drops the result of `f` inside the timed region.
fn timed(mut f: impl FnMut() -> rnx::Result<Tensor> + 'static, work: Option<Work>) -> Prepared {
    Prepared::new(
        move || {
            black_box(f()?);
            Ok(())
        },
        work,
    )
}

/// `a + b` with `a` of shape `sa` and `b` of shape `sb` (both in [0.5, 1.5)).
fn add(name: &str, sa: fn(Scale) -> Vec<usize>, sb: fn(Scale) -> Vec<usize>) -> Case {
    Case::ready(name, move |s| {
        let (sa, sb) = (sa(s), sb(s));
        let n = sa.iter().product::<usize>();
        let a = positive_f32(&sa, SEED_A)?;
        let b = positive_f32(&sb, SEED_B)?;
        Ok(timed(move || a.add(&b), bytes(n, 4, 3)))
    })
}

/// A unary function of 10^7 f32 in `[lo, hi)`, allocating or (`out`) into
/// an output of ones.
fn unary(
    name: &str,
    lo: f64,
    hi: f64,
    out: bool,
    f: fn(&Tensor) -> rnx::Result<Tensor>,
    f_out: fn(&Tensor, &Tensor) -> rnx::Result<Tensor>,
) -> Case {
    Case::ready(name, move |s| {
        let n = n10m(s);
        let x = uniform(DType::F32, &[n], SEED_A, lo, hi)?;
        if out {
            let o = on(Tensor::ones(DType::F32, &[n]))?;
            Ok(timed(move || f_out(&x, &o), bytes(n, 4, 2)))
        } else {
            Ok(timed(move || f(&x), bytes(n, 4, 2)))
        }
    })
}

pub fn cases() -> Vec<Case> {
    vec![
        add("add_f32_10M", |s| vec![n10m(s)], |s| vec![n10m(s)]),
        Case::ready("add_out_f32_10M", |s| {
            let n = n10m(s);
            let a = positive_f32(&[n], SEED_A)?;
            let b = positive_f32(&[n], SEED_B)?;
            let out = on(Tensor::ones(DType::F32, &[n]))?;
            Ok(timed(move || a.add_out(&b, &out), bytes(n, 4, 3)))
        }),
        add(
            "add_bcast_4096x4096",
            |s| vec![side(s), side(s)],
            |s| vec![side(s)],
        ),
        Case::ready("add_transposed_4096x4096", |s| {
            let n = side(s);
            let a = positive_f32(&[n, n], SEED_A)?;
            let b = positive_f32(&[n, n], SEED_B)?;
            let at = transposed(&a)?;
            Ok(timed(move || at.add(&b), bytes(n * n, 4, 3)))
        }),
        Case::ready("copy_transposed_4096x4096", |s| {
            let n = side(s);
            let a = positive_f32(&[n, n], SEED_A)?;
            let at = transposed(&a)?;
            Ok(timed(move || at.contiguous(), bytes(n * n, 4, 2)))
        }),
        unary(
            "exp_f32_10M",
            -4.0,
            4.0,
            false,
            Tensor::exp,
            Tensor::exp_out,
        ),
        unary(
            "exp_out_f32_10M",
            -4.0,
            4.0,
            true,
            Tensor::exp,
            Tensor::exp_out,
        ),
        unary(
            "tanh_f32_10M",
            -4.0,
            4.0,
            false,
            Tensor::tanh,
            Tensor::tanh_out,
        ),
        unary(
            "tanh_out_f32_10M",
            -4.0,
            4.0,
            true,
            Tensor::tanh,
            Tensor::tanh_out,
        ),
        unary(
            "sigmoid_f32_10M",
            -8.0,
            8.0,
            false,
            Tensor::sigmoid,
            Tensor::sigmoid_out,
        ),
        unary(
            "gelu_tanh_f32_10M",
            -4.0,
            4.0,
            false,
            Tensor::gelu,
            Tensor::gelu_out,
        ),
    ]
}

/// add_i32_10M and div_i64_10M (after the sort cases in issue 8's table).
/// Inputs: add_i32 a, b uniform integers in [-2^30, 2^30); div_i64 a in
/// [-10^12, 10^12), b in [1, 10^6) (rnx truncates toward zero, NumPy's `//` floors).
pub fn integer_cases() -> Vec<Case> {
    vec![
        Case::ready("add_i32_10M", |s| {
            let n = n10m(s);
            let a = on(Tensor::randint(
                DType::I32,
                &[n],
                -(1 << 30),
                1 << 30,
                SEED_A,
            ))?;
            let b = on(Tensor::randint(
                DType::I32,
                &[n],
                -(1 << 30),
                1 << 30,
                SEED_B,
            ))?;
            Ok(timed(move || a.add(&b), bytes(n, 4, 3)))
        }),
        Case::ready("div_i64_10M", |s| {
            let n = n10m(s);
            let a = on(Tensor::randint(
                DType::I64,
                &[n],
                -1_000_000_000_000,
                1_000_000_000_000,
                SEED_A,
            ))?;
            let b = on(Tensor::randint(DType::I64, &[n], 1, 1_000_000, SEED_B))?;
            Ok(timed(move || a.div(&b), bytes(n, 8, 3)))
        }),
    ]
}
