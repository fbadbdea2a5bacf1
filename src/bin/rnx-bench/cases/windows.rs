//! Pooling and filter cases (issue 30). Inputs uniform in [-1, 1) from seed 1.
//! `maxpool2d_8x64x112x112_k3s2` is the ResNet stem's pooling (kernel 3,
//! stride 2, padding 1); `uniform_filter_f32_2048x2048_size5` is SciPy's
//! `uniform_filter(x, size=5)` (mode reflect). Work is bytes read + written.

use super::data::{uniform, SEED_A};
use super::{Case, Prepared, Scale, Work};
use rnx::{DType, FilterOptions, PoolOptions};
use std::hint::black_box;

pub fn cases() -> Vec<Case> {
    vec![
        Case::ready("maxpool2d_8x64x112x112_k3s2", |s: Scale| {
            let (n, c, h) = (s.pick(8, 1), s.pick(64, 2), s.pick(112, 8));
            let x = uniform(DType::F32, &[n, c, h, h], SEED_A, -1.0, 1.0)?;
            let o = PoolOptions {
                stride: vec![2],
                padding: vec![1],
                ..Default::default()
            };
            let oh = (h + 2 - 3) / 2 + 1;
            let bytes = 4.0 * (n * c * (h * h + oh * oh)) as f64;
            Ok(Prepared::new(
                move || {
                    black_box(x.max_pool2d([3, 3], &o)?);
                    Ok(())
                },
                Some(Work::Bytes(bytes)),
            ))
        }),
        Case::ready("uniform_filter_f32_2048x2048_size5", |s: Scale| {
            let n = s.pick(2048, 16);
            let x = uniform(DType::F32, &[n, n], SEED_A, -1.0, 1.0)?;
            let o = FilterOptions::default();
            Ok(Prepared::new(
                move || {
                    black_box(x.uniform_filter(&[5], &o)?);
                    Ok(())
                },
                Some(Work::Bytes(8.0 * (n * n) as f64)),
            ))
        }),
    ]
}
