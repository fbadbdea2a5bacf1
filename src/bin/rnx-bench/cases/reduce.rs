//! Reduction, softmax and sort cases. Inputs: f32 in [0.5, 1.5) for the
//! reductions, [-4, 4) for softmax, [-10^6, 10^6) for the sorts.

use super::Case;

const NEEDS_SUM: &str = "Tensor::sum (issue 6, branch reduce)";
const NEEDS_MAX: &str = "Tensor::max (issue 6, branch reduce)";
const NEEDS_MEAN: &str = "Tensor::mean (issue 6, branch reduce)";
const NEEDS_VAR: &str = "Tensor::var (issue 6, branch reduce)";
const NEEDS_ARGMAX: &str = "Tensor::argmax (issue 6, branch reduce)";
const NEEDS_SOFTMAX: &str = "Tensor::softmax (issue 6, branch reduce)";
const NEEDS_SORT: &str = "Tensor::sort (issue 6, branch reduce)";
const NEEDS_ARGSORT: &str = "Tensor::argsort (issue 6, branch reduce)";

pub fn cases() -> Vec<Case> {
    vec![
        Case::missing("sum_all_f32_10M", NEEDS_SUM),
        Case::missing("max_all_f32_10M", NEEDS_MAX),
        Case::missing("sum_axis0_4096x4096", NEEDS_SUM),
        Case::missing("sum_axis1_4096x4096", NEEDS_SUM),
        Case::missing("mean_axis1_4096x4096", NEEDS_MEAN),
        Case::missing("var_axis1_4096x4096", NEEDS_VAR),
        Case::missing("argmax_axis1_4096x4096", NEEDS_ARGMAX),
        Case::missing("softmax_lastaxis_4096x4096", NEEDS_SOFTMAX),
        Case::missing("sort_f32_1M", NEEDS_SORT),
        Case::missing("argsort_f32_1M", NEEDS_ARGSORT),
        Case::missing("sort_rows_1000x1000", NEEDS_SORT),
    ]
}
