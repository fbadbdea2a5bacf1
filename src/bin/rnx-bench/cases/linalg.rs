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
        // Every size of issue 27 (quick sizes 8 .. 40); 4096 only on all
        // threads (one product takes seconds on one core).
        let sizes: [(usize, Dims); 7] = [
            (64, |s| vec![s.pick(64, 8); 2]),
            (128, |s| vec![s.pick(128, 12); 2]),
            (256, |s| vec![s.pick(256, 16); 2]),
            (512, |s| vec![s.pick(512, 20); 2]),
            (1024, |s| vec![s.pick(1024, 24); 2]),
            (2048, |s| vec![s.pick(2048, 32); 2]),
            (4096, |s| vec![s.pick(4096, 40); 2]),
        ];
        for (n, dims) in sizes {
            let name = format!("matmul_{dt}_{n}");
            if n == 4096 {
                v.push(matmul(name, dtype, dims));
            } else {
                v.extend(both(|| matmul(name.clone(), dtype, dims)));
            }
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

/// Issue 29's decomposition and solver cases. Inputs: `x` uniform in [-1, 1)
/// (seed A; seed B for a right-hand side); Cholesky factors `x x^T + n I`,
/// eigh `x + x^T` (made before timing, as in bench/bench_numpy.py).
pub fn decomp_cases() -> Vec<Case> {
    type Run = fn(&rnx::Tensor, &rnx::Tensor) -> rnx::Result<()>;
    // (name, dtype, (batch, n full, n quick), input kind, flops(n), run)
    #[allow(clippy::type_complexity)]
    let specs: [(&str, DType, (usize, usize, usize), u8, fn(f64) -> f64, Run); 7] = [
        (
            "svd_f64_512",
            DType::F64,
            (1, 512, 16),
            0,
            |n| 12.0 * n * n * n,
            |a, _| {
                black_box(a.svd()?);
                Ok(())
            },
        ),
        (
            "qr_f64_1024",
            DType::F64,
            (1, 1024, 24),
            0,
            |n| 4.0 / 3.0 * n * n * n,
            |a, _| {
                black_box(a.qr()?);
                Ok(())
            },
        ),
        (
            "cholesky_f64_2048",
            DType::F64,
            (1, 2048, 32),
            1,
            |n| n * n * n / 3.0,
            |a, _| {
                black_box(a.cholesky()?);
                Ok(())
            },
        ),
        (
            "solve_f64_1024",
            DType::F64,
            (1, 1024, 24),
            0,
            |n| 2.0 / 3.0 * n * n * n + 2.0 * n * n,
            |a, b| {
                black_box(a.solve(b)?);
                Ok(())
            },
        ),
        (
            "inv_f64_1024",
            DType::F64,
            (1, 1024, 24),
            0,
            |n| 2.0 * n * n * n,
            |a, _| {
                black_box(a.inv()?);
                Ok(())
            },
        ),
        (
            "eigh_f64_512",
            DType::F64,
            (1, 512, 16),
            2,
            |n| 9.0 * n * n * n,
            |a, _| {
                black_box(a.eigh()?);
                Ok(())
            },
        ),
        (
            "det_f32_batch_1000x8x8",
            DType::F32,
            (1000, 8, 8),
            0,
            |n| 2.0 / 3.0 * n * n * n,
            |a, _| {
                black_box(a.det()?);
                Ok(())
            },
        ),
    ];
    specs
        .into_iter()
        .map(|(name, dtype, (batch, full, quick), kind, flops, run)| {
            Case::ready(name, move |s: Scale| {
                let n = s.pick(full, quick);
                let batch = if batch > 1 { s.pick(batch, 10) } else { 1 };
                let shape: Vec<usize> = if batch > 1 {
                    vec![batch, n, n]
                } else {
                    vec![n, n]
                };
                let x = uniform(dtype, &shape, SEED_A, -1.0, 1.0)?;
                let a = match kind {
                    1 => {
                        let eye = rnx::Tensor::eye_on(dtype, n, None, 0, x.device())?;
                        x.matmul(&x.matrix_transpose()?)?.add(&eye.mul(n as f64)?)?
                    }
                    2 => x.add(&x.matrix_transpose()?)?,
                    _ => x,
                };
                let b = uniform(dtype, &[n], SEED_B, -1.0, 1.0)?;
                let work = Some(Work::Flops(batch as f64 * flops(n as f64)));
                Ok(Prepared::new(move || run(&a, &b), work))
            })
        })
        .collect()
}
