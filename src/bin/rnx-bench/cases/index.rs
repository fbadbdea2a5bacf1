//! Indexing and searching cases of issue 31: take, scatter-add, nonzero,
//! unique, searchsorted, median. Inputs: f32 uniform in [0.5, 1.5) (take, scatter
//! updates) or [-10^6, 10^6) (searchsorted), integers from `randint`.

use super::data::{on, uniform, SEED_A, SEED_B};
use super::{Case, Prepared, Work};
use rnx::ops::take::{ScatterMode, ScatterOptions};
use rnx::{DType, Tensor};
use std::hint::black_box;

pub fn cases() -> Vec<Case> {
    vec![
        Case::ready("take_f32_10M_idx1M", |s| {
            let (n, m) = (s.pick(10_000_000, 1000), s.pick(1_000_000, 100));
            let x = uniform(DType::F32, &[n], SEED_A, 0.5, 1.5)?;
            let idx = on(Tensor::randint(DType::I64, &[m], 0, n as i64, SEED_B))?;
            Ok(Prepared::new(
                move || {
                    black_box(x.take(&idx, None)?);
                    Ok(())
                },
                Some(Work::Bytes((m * 16) as f64)),
            ))
        }),
        Case::ready("scatter_add_f32_1M_into_1K", |s| {
            let (m, k) = (s.pick(1_000_000, 1000), s.pick(1000, 10));
            let z = on(Tensor::zeros(DType::F32, &[k]))?;
            let idx = on(Tensor::randint(DType::I64, &[m], 0, k as i64, SEED_A))?;
            let u = uniform(DType::F32, &[m], SEED_B, 0.5, 1.5)?;
            let add = ScatterOptions {
                mode: ScatterMode::Add,
                ..Default::default()
            };
            Ok(Prepared::new(
                move || {
                    black_box(z.scatter_with(&idx, &u, 0, add)?);
                    Ok(())
                },
                Some(Work::Bytes((m * 12) as f64)),
            ))
        }),
        Case::ready("nonzero_u8_10M_half", |s| {
            let n = s.pick(10_000_000, 1000);
            let mask = on(Tensor::randint(DType::U8, &[n], 0, 2, SEED_A))?;
            Ok(Prepared::new(
                move || {
                    black_box(mask.nonzero()?);
                    Ok(())
                },
                Some(Work::Bytes((n + n / 2 * 8) as f64)),
            ))
        }),
        Case::ready("unique_i32_1M", |s| {
            let n = s.pick(1_000_000, 1000);
            let x = on(Tensor::randint(DType::I32, &[n], 0, n as i64, SEED_A))?;
            Ok(Prepared::new(
                move || {
                    black_box(x.unique()?);
                    Ok(())
                },
                Some(Work::Bytes((n * 8) as f64)),
            ))
        }),
        Case::ready("searchsorted_f32_1M_in_1M", |s| {
            let n = s.pick(1_000_000, 1000);
            let a = uniform(DType::F32, &[n], SEED_A, -1e6, 1e6)?.sort_values(-1, false)?;
            let v = uniform(DType::F32, &[n], SEED_B, -1e6, 1e6)?;
            Ok(Prepared::new(
                move || {
                    black_box(a.searchsorted(&v)?);
                    Ok(())
                },
                Some(Work::Bytes((n * 16) as f64)),
            ))
        }),
        Case::ready("median_axis1_4096x4096", |s| {
            let n = s.pick(4096, 64);
            let x = uniform(DType::F32, &[n, n], SEED_A, -1.0, 1.0)?;
            Ok(Prepared::new(
                move || {
                    black_box(x.median(1, false)?);
                    Ok(())
                },
                Some(Work::Bytes((n * n * 4) as f64)),
            ))
        }),
    ]
}
