//! Elementwise cases: add (allocating, into an output, broadcast, transposed),
//! the transposed copy, exp/tanh/sigmoid/gelu, and the integer add/div.

use super::data::{positive_f32, transposed, SEED_A};
use super::{Case, Prepared, Scale, Work};
use std::hint::black_box;

/// Side of the 4096x4096 cases (quick: 48).
fn side(s: Scale) -> usize {
    s.pick(4096, 48)
}

fn bytes(n: usize, itemsize: usize, arrays: usize) -> Option<Work> {
    Some(Work::Bytes((n * itemsize * arrays) as f64))
}

const NEEDS_ADD: &str = "Tensor::add / add_out (issue 4, branch elem)";
const NEEDS_DIV: &str = "Tensor::div (issue 4, branch elem)";
const NEEDS_EXP: &str = "Tensor::exp / exp_out (issue 5, branch math)";
const NEEDS_TANH: &str = "Tensor::tanh / tanh_out (issue 5, branch math)";
const NEEDS_SIGMOID: &str = "Tensor::sigmoid (issue 5, branch math)";
const NEEDS_GELU: &str = "Tensor::gelu (issue 5, branch math)";

pub fn cases() -> Vec<Case> {
    vec![
        Case::missing("add_f32_10M", NEEDS_ADD),
        Case::missing("add_out_f32_10M", NEEDS_ADD),
        Case::missing("add_bcast_4096x4096", NEEDS_ADD),
        Case::missing("add_transposed_4096x4096", NEEDS_ADD),
        Case::ready("copy_transposed_4096x4096", |s| {
            let n = side(s);
            let a = positive_f32(&[n, n], SEED_A)?;
            let at = transposed(&a)?;
            Ok(Prepared::new(
                move || {
                    black_box(at.contiguous()?);
                    Ok(())
                },
                bytes(n * n, 4, 2),
            ))
        }),
        Case::missing("exp_f32_10M", NEEDS_EXP),
        Case::missing("exp_out_f32_10M", NEEDS_EXP),
        Case::missing("tanh_f32_10M", NEEDS_TANH),
        Case::missing("tanh_out_f32_10M", NEEDS_TANH),
        Case::missing("sigmoid_f32_10M", NEEDS_SIGMOID),
        Case::missing("gelu_tanh_f32_10M", NEEDS_GELU),
    ]
}

/// add_i32_10M and div_i64_10M (after the sort cases in issue 8's table).
/// Inputs: add_i32 a, b uniform integers in [-2^30, 2^30); div_i64 a in
/// [-10^12, 10^12), b in [1, 10^6) (rnx truncates toward zero, NumPy's `//` floors).
pub fn integer_cases() -> Vec<Case> {
    vec![
        Case::missing("add_i32_10M", NEEDS_ADD),
        Case::missing("div_i64_10M", NEEDS_DIV),
    ]
}
