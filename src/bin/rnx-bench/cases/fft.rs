//! Fourier transform cases (issue 30). Inputs: real parts from seed 1 and
//! imaginary parts from seed 2, uniform in [-1, 1), made on the host and
//! moved to the run's device. Work is counted as the usual `5 n log2 n` flops of a
//! complex transform (`2.5 n log2 n` for a real one, and for a DCT).

use super::data::{on, uniform, SEED_A, SEED_B};
use super::{Case, Prepared, Scale, Work};
use rnx::{DType, FftnOptions, Tensor, C32, C64};
use std::hint::black_box;

/// A complex tensor of `shape` and precision `dtype` (f32 -> c32, f64 ->
/// c64), on the run's device.
fn complex(dtype: DType, shape: &[usize]) -> rnx::Result<Tensor> {
    on(complex_host(dtype, shape))
}

fn complex_host(dtype: DType, shape: &[usize]) -> rnx::Result<Tensor> {
    let re = uniform(dtype, shape, SEED_A, -1.0, 1.0)?.to_vec_f64()?;
    let im = uniform(dtype, shape, SEED_B, -1.0, 1.0)?.to_vec_f64()?;
    match dtype {
        DType::F32 => {
            let v: Vec<C32> = re
                .iter()
                .zip(&im)
                .map(|(&a, &b)| C32::new(a as f32, b as f32))
                .collect();
            Tensor::from_vec(v, shape)
        }
        _ => {
            let v: Vec<C64> = re.iter().zip(&im).map(|(&a, &b)| C64::new(a, b)).collect();
            Tensor::from_vec(v, shape)
        }
    }
}

/// `5 n log2 n` flops for transforms of length `len` over `total` elements.
fn flops(total: usize, len: usize, per: f64) -> Option<Work> {
    Some(Work::Flops(per * total as f64 * (len as f64).log2()))
}

/// The real FFT of 10^6 values of `dtype` (1000 at the quick scale).
fn rfft(s: Scale, dtype: DType) -> rnx::Result<Prepared> {
    let n = s.pick(1_000_000, 1000);
    let x = uniform(dtype, &[n], SEED_A, -1.0, 1.0)?;
    Ok(Prepared::new(
        move || {
            black_box(x.rfft()?);
            Ok(())
        },
        flops(n, n, 2.5),
    ))
}

pub fn cases() -> Vec<Case> {
    vec![
        Case::ready("fft_c64_1M", |s: Scale| {
            let n = s.pick(1_000_000, 1000);
            let x = complex(DType::F64, &[n])?;
            Ok(Prepared::new(
                move || {
                    black_box(x.fft()?);
                    Ok(())
                },
                flops(n, n, 5.0),
            ))
        }),
        Case::ready("rfft_f32_1M", |s: Scale| rfft(s, DType::F32)),
        Case::ready("rfft_f64_1M", |s: Scale| rfft(s, DType::F64)),
        Case::ready("irfft_f64_1M", |s: Scale| {
            // The half spectrum of a real signal of 10^6 values.
            let n = s.pick(1_000_000, 1000);
            let x = complex(DType::F64, &[n / 2 + 1])?;
            let o = rnx::FftOptions {
                n: Some(n),
                ..Default::default()
            };
            Ok(Prepared::new(
                move || {
                    black_box(x.irfft_with(&o)?);
                    Ok(())
                },
                flops(n, n, 2.5),
            ))
        }),
        Case::ready("fft2_c32_1024x1024", |s: Scale| {
            let n = s.pick(1024, 32);
            let x = complex(DType::F32, &[n, n])?;
            Ok(Prepared::new(
                move || {
                    black_box(x.fft2_with(&FftnOptions::default())?);
                    Ok(())
                },
                flops(n * n, n * n, 5.0),
            ))
        }),
        Case::ready("fft_c64_batch_1000x1000", |s: Scale| {
            let n = s.pick(1000, 10);
            let x = complex(DType::F64, &[n, n])?;
            Ok(Prepared::new(
                move || {
                    black_box(x.fft()?);
                    Ok(())
                },
                flops(n * n, n, 5.0),
            ))
        }),
        Case::ready("dct_f64_1M", |s: Scale| {
            let n = s.pick(1_000_000, 1000);
            let x = uniform(DType::F64, &[n], SEED_A, -1.0, 1.0)?;
            Ok(Prepared::new(
                move || {
                    black_box(x.dct()?);
                    Ok(())
                },
                flops(n, n, 2.5),
            ))
        }),
    ]
}
