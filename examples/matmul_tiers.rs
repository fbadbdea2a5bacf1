//! Times f32 matrix products around the CPU backend's threading tiers (one
//! product per thread below `TINY_FLOPS`, whole products per task below
//! `SMALL_FLOPS` when batched, threads inside one product above): single
//! `n x n` products and batches of 16. Used to place the thresholds in
//! `src/backend/cpu/matmul/mod.rs`; run on a quiet machine with
//! `cargo run --release --example matmul_tiers`.

use rnx::{DType, Tensor};
use std::time::Instant;

/// Median seconds of `f` over enough runs for about 0.3 s (at least 5).
fn median(mut f: impl FnMut()) -> f64 {
    f();
    let t0 = Instant::now();
    f();
    let once = t0.elapsed().as_secs_f64().max(1e-7);
    let reps = ((0.3 / once) as usize).clamp(5, 20_000);
    let mut v: Vec<f64> = (0..reps)
        .map(|_| {
            let t = Instant::now();
            f();
            t.elapsed().as_secs_f64()
        })
        .collect();
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() -> rnx::Result<()> {
    println!("threads: {}", rnx::num_threads());
    println!(
        "{:>6} {:>14} {:>14} {:>14}",
        "n", "n^3 MACs", "single us", "16 x batch us"
    );
    for n in [4, 8, 12, 16, 24, 32, 40, 48, 64, 80, 96, 128, 160, 192, 256] {
        let a = Tensor::rand(DType::F32, &[n, n], 1)?;
        let b = Tensor::rand(DType::F32, &[n, n], 2)?;
        let ab = Tensor::rand(DType::F32, &[16, n, n], 3)?;
        let bb = Tensor::rand(DType::F32, &[16, n, n], 4)?;
        let single = median(|| {
            a.matmul(&b).unwrap();
        });
        let batch = median(|| {
            ab.matmul(&bb).unwrap();
        });
        println!(
            "{n:>6} {:>14} {:>14.2} {:>14.2}",
            n * n * n,
            single * 1e6,
            batch * 1e6
        );
    }
    Ok(())
}
