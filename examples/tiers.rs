//! Times the operations whose CPU strategy switches at a size threshold, to
//! place those thresholds on a quiet machine:
//! - `matmul`: f32 products around the threading tiers of
//!   `src/backend/cpu/matmul/mod.rs` (one product per thread below
//!   `TINY_FLOPS`, whole products per task below `SMALL_FLOPS` when batched,
//!   threads inside one product above; packed kernels from `PACKED_MIN_FLOPS`):
//!   single `n x n` products and batches of 16;
//! - `conv`: 3x3 stride-1 `correlate2d` (f32, batch 8 or the second argument,
//!   Same padding) over a
//!   grid of image sizes and channel counts, for the Winograd rule of
//!   `src/ops/conv.rs` (`uses_winograd`); run it as is and with
//!   `RNX_WINOGRAD=0` (always im2col + matmul) and compare.
//!
//! `cargo run --release --example tiers -- matmul` (or `conv [batch]`).

use rnx::ops::conv::{Conv2dOptions, Padding};
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

fn matmul() -> rnx::Result<()> {
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

fn conv(batch: usize) -> rnx::Result<()> {
    println!(
        "threads: {}, RNX_WINOGRAD={}",
        rnx::num_threads(),
        std::env::var("RNX_WINOGRAD").unwrap_or_else(|_| "(unset)".into())
    );
    println!(
        "{:>6} {:>9} {:>7} {:>9} {:>12}",
        "image", "channels", "batch", "tiles", "ms"
    );
    let opts = Conv2dOptions {
        padding: Padding::Same,
        ..Conv2dOptions::default()
    };
    for hw in [8, 14, 28, 56, 112] {
        for c in [16, 32, 48, 64, 128, 256] {
            // Skip the products above ~8 GFLOP (seconds per run here).
            if 2 * batch * c * c * 9 * hw * hw > 8_000_000_000 {
                continue;
            }
            let x = Tensor::rand(DType::F32, &[batch, c, hw, hw], 1)?;
            let w = Tensor::rand(DType::F32, &[c, c, 3, 3], 2)?;
            let t = median(|| {
                x.correlate2d(&w, &opts).unwrap();
            });
            let tiles = batch * hw.div_ceil(4) * hw.div_ceil(4);
            println!("{hw:>6} {c:>9} {batch:>7} {tiles:>9} {:>12.3}", t * 1e3);
        }
    }
    Ok(())
}

fn main() -> rnx::Result<()> {
    match std::env::args().nth(1).as_deref() {
        Some("matmul") => matmul(),
        Some("conv") => conv(
            std::env::args()
                .nth(2)
                .and_then(|b| b.parse().ok())
                .unwrap_or(8),
        ),
        _ => {
            eprintln!("usage: tiers matmul | tiers conv [batch (default 8)]");
            Ok(())
        }
    }
}
