//! The tensor-product cases of issue 29: `einsum("bij,bjk->bik")` on
//! `[64, 128, 128]` f32 operands (one batched matmul after planning) and
//! `tensordot` of a `[256, 256, 64]` with a `[256, 64, 256]` f32 tensor over
//! the pairs (1, 0), (2, 1) (one `[256, 16384] @ [16384, 256]` matmul).
//! Inputs: uniform in [-1, 1).

use super::data::{uniform, SEED_A, SEED_B};
use super::{Case, Prepared, Scale, Work};
use rnx::{DType, Tensor};
use std::hint::black_box;

fn einsum_bmm() -> Case {
    Case::ready("einsum_bij_bjk_f32_64x128x128", |s: Scale| {
        let dims = [s.pick(64, 2), s.pick(128, 8), s.pick(128, 8)];
        let a = uniform(DType::F32, &dims, SEED_A, -1.0, 1.0)?;
        let b = uniform(DType::F32, &dims, SEED_B, -1.0, 1.0)?;
        let flops = 2.0 * (dims[0] * dims[1] * dims[2] * dims[2]) as f64;
        Ok(Prepared::new(
            move || {
                black_box(Tensor::einsum("bij,bjk->bik", &[&a, &b])?);
                Ok(())
            },
            Some(Work::Flops(flops)),
        ))
    })
}

fn tensordot() -> Case {
    Case::ready("tensordot_f32_256x256x64", |s: Scale| {
        let (n, k) = (s.pick(256, 8), s.pick(64, 4));
        let a = uniform(DType::F32, &[n, n, k], SEED_A, -1.0, 1.0)?;
        let b = uniform(DType::F32, &[n, k, n], SEED_B, -1.0, 1.0)?;
        let flops = 2.0 * (n * n * n * k) as f64;
        Ok(Prepared::new(
            move || {
                black_box(a.tensordot(&b, ([1, 2], [0, 1]))?);
                Ok(())
            },
            Some(Work::Flops(flops)),
        ))
    })
}

pub fn cases() -> Vec<Case> {
    vec![einsum_bmm(), tensordot()]
}
