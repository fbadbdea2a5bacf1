//! matmul (f32, f64; all threads and `_1t`), batched matmul and the 3x3 "same"
//! convolution. Inputs: uniform in [-1, 1).

use super::data::{uniform, SEED_A, SEED_B};
use super::{Case, Prepared, Scale, Work};
use rnx::ops::conv::{Conv2dOptions, Padding};
use rnx::DType;
use std::hint::black_box;

/// The input shape of a matmul case at a scale.
type Dims = fn(Scale) -> Vec<usize>;

/// A case and its single-thread twin (`_1t`).
fn both(make: impl Fn() -> Case) -> [Case; 2] {
    [make(), make().single_thread()]
}

/// `a.matmul(b)` on two inputs of shape `dims(scale)`: `[n, n]`, or
/// `[batch, n, n]` for a batched product.
fn matmul(name: String, dtype: DType, dims: Dims) -> Case {
    Case::ready(name, move |s| {
        let dims = dims(s);
        let a = uniform(dtype, &dims, SEED_A, -1.0, 1.0)?;
        let b = uniform(dtype, &dims, SEED_B, -1.0, 1.0)?;
        let n = dims[dims.len() - 1] as f64;
        let batch = dims[..dims.len() - 2].iter().product::<usize>() as f64;
        Ok(Prepared::new(
            move || {
                black_box(a.matmul(&b)?);
                Ok(())
            },
            Some(Work::Flops(2.0 * batch * n * n * n)),
        ))
    })
}

/// `x.correlate2d(w)` with `Same` padding, f32: x `[8, 64, 56, 56]`, w
/// `[64, 64, 3, 3]` (quick: `[1, 4, 6, 6]`, `[4, 4, 3, 3]`), the sizes of the
/// NumPy/PyTorch side.
fn conv2d() -> Case {
    Case::ready("conv2d_8x64x56x56_k3_same", |s: Scale| {
        let (batch, ch, hw) = (s.pick(8, 1), s.pick(64, 4), s.pick(56, 6));
        let x = uniform(DType::F32, &[batch, ch, hw, hw], SEED_A, -1.0, 1.0)?;
        let w = uniform(DType::F32, &[ch, ch, 3, 3], SEED_B, -1.0, 1.0)?;
        let o = Conv2dOptions {
            padding: Padding::Same,
            ..Default::default()
        };
        let flops = 2.0 * (batch * ch * ch * 9 * hw * hw) as f64;
        Ok(Prepared::new(
            move || {
                black_box(x.correlate2d(&w, &o)?);
                Ok(())
            },
            Some(Work::Flops(flops)),
        ))
    })
}

pub fn cases() -> Vec<Case> {
    let mut v = Vec::new();
    for (dt, dtype) in [("f32", DType::F32), ("f64", DType::F64)] {
        // Quick sizes 16, 24, 32.
        let sizes: [(usize, Dims); 3] = [
            (256, |s| vec![s.pick(256, 16); 2]),
            (1024, |s| vec![s.pick(1024, 24); 2]),
            (2048, |s| vec![s.pick(2048, 32); 2]),
        ];
        for (n, dims) in sizes {
            v.extend(both(|| matmul(format!("matmul_{dt}_{n}"), dtype, dims)));
        }
    }
    v.extend(both(|| {
        matmul("bmm_f32_64x128x128".into(), DType::F32, |s| {
            vec![s.pick(64, 2), s.pick(128, 8), s.pick(128, 8)]
        })
    }));
    v.push(conv2d());
    v
}
