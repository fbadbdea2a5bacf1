//! matmul (f32, f64; all threads and `_1t`), batched matmul and the 3x3 "same"
//! convolution. Inputs: uniform in [-1, 1).

use super::Case;

const NEEDS_MATMUL: &str = "Tensor::matmul (issue 7, branch linalg)";
const NEEDS_CONV: &str = "Tensor::correlate2d (issue 7, branch linalg)";

/// A case and its single-thread twin (`_1t`).
fn both(make: impl Fn() -> Case) -> [Case; 2] {
    [make(), make().single_thread()]
}

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for dt in ["f32", "f64"] {
        for n in [256, 1024, 2048] {
            v.extend(both(|| {
                Case::missing(format!("matmul_{dt}_{n}"), NEEDS_MATMUL)
            }));
        }
    }
    v.extend(both(|| Case::missing("bmm_f32_64x128x128", NEEDS_MATMUL)));
    v.push(Case::missing("conv2d_8x64x56x56_k3_same", NEEDS_CONV));
    v
}
