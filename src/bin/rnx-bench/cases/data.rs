//! Benchmark inputs: fixed seeds, non-zero data, reproduced bit for bit by
//! bench/bench_numpy.py (which reimplements rnx's Threefry-2x32 generator).
//! Nothing here is timed.
//!
//! - `uniform(dtype, shape, seed, lo, hi)`: u = `Tensor::rand(dtype, [n], seed)`
//!   (exact multiples of 2^-24 for f32, 2^-53 for f64), value = lo + (hi - lo) * u
//!   computed in f64 and rounded once to the dtype.
//! - `randint(dtype, shape, lo, hi, seed)`: `Tensor::randint` as is.
//!
//! Inputs are made on the CPU and then moved to the device of the run
//! (`--device`), so they hold the same values on every device.

use rnx::{DType, Tensor};

/// Seeds of the first and second input of a case (the Python side uses the
/// same ones).
pub const SEED_A: u64 = 1;
pub const SEED_B: u64 = 2;

/// `t` on the device of the run.
pub fn on(t: rnx::Result<Tensor>) -> rnx::Result<Tensor> {
    t?.to_device(super::device())
}

/// Uniform values in `[lo, hi)` for f32 or f64 (see the file comment), on
/// the device of the run.
pub fn uniform(dtype: DType, shape: &[usize], seed: u64, lo: f64, hi: f64) -> rnx::Result<Tensor> {
    on(uniform_host(dtype, shape, seed, lo, hi))
}

fn uniform_host(dtype: DType, shape: &[usize], seed: u64, lo: f64, hi: f64) -> rnx::Result<Tensor> {
    let n = shape.iter().product::<usize>();
    let u = Tensor::rand(dtype, &[n], seed)?;
    match dtype {
        DType::F32 => {
            let v: Vec<f32> = u
                .to_vec::<f32>()?
                .into_iter()
                .map(|x| (lo + (hi - lo) * x as f64) as f32)
                .collect();
            Tensor::from_vec(v, shape)
        }
        DType::F64 => {
            let v: Vec<f64> = u
                .to_vec::<f64>()?
                .into_iter()
                .map(|x| lo + (hi - lo) * x)
                .collect();
            Tensor::from_vec(v, shape)
        }
        other => Err(rnx::Error::invalid(
            "rnx-bench uniform",
            format!("dtype {other} is not f32 or f64"),
        )),
    }
}

/// Uniform f32 in `[0.5, 1.5)`: positive, away from zero (the default input).
pub fn positive_f32(shape: &[usize], seed: u64) -> rnx::Result<Tensor> {
    uniform(DType::F32, shape, seed, 0.5, 1.5)
}

/// The transposed view of a 2-D tensor (no copy).
pub fn transposed(t: &Tensor) -> rnx::Result<Tensor> {
    t.transpose(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The first values; bench/bench_numpy.py --selftest checks that it
    /// reproduces exactly these.
    #[test]
    fn known_values() {
        let a = uniform(DType::F32, &[3], SEED_A, 0.5, 1.5).unwrap();
        let b = uniform(DType::F64, &[2], SEED_B, -1.0, 1.0).unwrap();
        let i = Tensor::randint(
            DType::I64,
            &[2],
            -1_000_000_000_000,
            1_000_000_000_000,
            SEED_A,
        )
        .unwrap();
        assert_eq!(
            a.to_vec::<f32>().unwrap(),
            [1.2039437, 0.55771494, 0.5101152]
        );
        assert_eq!(
            b.to_vec::<f64>().unwrap(),
            [0.23928383927059382, -0.6323695446138025]
        );
        assert_eq!(i.to_vec::<i64>().unwrap(), [407887456281, -884570068597]);
    }
}
