//! Random generation cases (issue 31): `randn_f32_10M` draws 10^7 standard
//! normals with `Key::normal` (the values of `Tensor::randn`) and
//! `rand_f32_10M` 10^7 uniforms in [0, 1) with `Key::uniform` (those of
//! `Tensor::rand`), `gamma_f32_1M` 10^6 Gamma(2) values with `Key::gamma`
//! (Marsaglia-Tsang rejection), on the cases' device; counted as the 4 bytes
//! written per element.

use super::data::SEED_A;
use super::{device, Case, Prepared, Work};
use rnx::{DType, Key, Tensor};
use std::hint::black_box;

pub fn cases() -> Vec<Case> {
    vec![
        draw("randn_f32_10M", 10_000_000, |k, n| {
            k.normal(DType::F32, &[n], 0.0, 1.0, device())
        }),
        draw("rand_f32_10M", 10_000_000, |k, n| {
            k.uniform(DType::F32, &[n], 0.0, 1.0, device())
        }),
        draw("gamma_f32_1M", 1_000_000, |k, n| {
            k.gamma(DType::F32, &[n], 2.0, device())
        }),
    ]
}

/// A case that draws `n` f32 values with `f(key, n)`.
fn draw(name: &'static str, n: usize, f: fn(Key, usize) -> rnx::Result<Tensor>) -> Case {
    Case::ready(name, move |s| {
        let n = s.pick(n, 1000);
        let key = Key::new(SEED_A);
        Ok(Prepared::new(
            move || {
                black_box(f(key, n)?);
                Ok(())
            },
            Some(Work::Bytes((n * 4) as f64)),
        ))
    })
}
