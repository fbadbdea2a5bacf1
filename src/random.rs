//! Random tensors from a counter-based generator (Threefry-2x32, 20 rounds, as
//! Nx and JAX): element i is a pure function of (seed, i), so the same seed gives
//! the same values on every run, every thread count and every device.

use crate::device::Device;
use crate::dtype::{DType, Element};
use crate::error::{Error, Result};
use crate::layout::checked_numel;
use crate::tensor::Tensor;

/// Threefry-2x32's rotation distances, round `r` rotating by `ROT[r % 8]`.
pub(crate) const ROT: [u32; 8] = [13, 15, 26, 6, 17, 29, 16, 24];

/// Threefry-2x32 with 20 rounds: the 64-bit block for `counter` under `key`.
/// The tensor form is [`Tensor::threefry2x32`].
///
/// ```
/// assert_eq!(rnx::random::threefry2x32([0, 0], [0, 0]), [0x6b20_0159, 0x99ba_4efe]);
/// ```
pub fn threefry2x32(key: [u32; 2], counter: [u32; 2]) -> [u32; 2] {
    let ks = [key[0], key[1], 0x1BD1_1BDA ^ key[0] ^ key[1]];
    let mut x0 = counter[0].wrapping_add(ks[0]);
    let mut x1 = counter[1].wrapping_add(ks[1]);
    for r in 0..20 {
        x0 = x0.wrapping_add(x1);
        x1 = x1.rotate_left(ROT[r % 8]);
        x1 ^= x0;
        if r % 4 == 3 {
            let s = (r + 1) / 4;
            x0 = x0.wrapping_add(ks[s % 3]);
            x1 = x1.wrapping_add(ks[(s + 1) % 3]).wrapping_add(s as u32);
        }
    }
    [x0, x1]
}

/// The checks of `rand` and `randn` before their key's sampler: a valid
/// shape and a float dtype (f16, bf16, f32, f64, and the 8-bit floats,
/// drawn in f64 and rounded once); the error names `op`.
pub(crate) fn seeded_float(op: &str, dtype: DType, shape: &[usize]) -> Result<()> {
    checked_numel(op, shape)?;
    if dtype.is_float() {
        Ok(())
    } else {
        Err(Error::UnsupportedDType {
            op: op.into(),
            dtype,
        })
    }
}

impl Tensor {
    /// Threefry-2x32 (20 rounds) as a tensor operation, Nx's `threefry`: `key`
    /// and `counter` are u32 tensors whose last axis has size 2 (one 64-bit
    /// key or counter block per row, `[low word, high word]`); their leading
    /// axes broadcast. Row `r` of the result (u32, last axis 2) is
    /// [`threefry2x32`]`(key[r], counter[r])`, the same block the scalar
    /// function gives, on every device (the result is on `key`'s device;
    /// a GPU computes it in a kernel, other backends on the host).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let key = Tensor::create(DType::U32, &[2], &[0, 0]).unwrap();
    /// let ctr = Tensor::create(DType::U32, &[3, 2], &[0, 0, 1, 0, 2, 0]).unwrap();
    /// let out = Tensor::threefry2x32(&key, &ctr).unwrap();
    /// assert_eq!(out.shape(), &[3, 2]);
    /// let v = out.to_vec::<u32>().unwrap();
    /// assert_eq!([v[0], v[1]], rnx::random::threefry2x32([0, 0], [0, 0]));
    /// assert_eq!([v[4], v[5]], rnx::random::threefry2x32([0, 0], [2, 0]));
    /// ```
    pub fn threefry2x32(key: &Tensor, counter: &Tensor) -> Result<Tensor> {
        let op = "threefry2x32";
        crate::ops::same_device(op, &[key, counter])?;
        for t in [key, counter] {
            if t.dtype() != DType::U32 {
                return Err(Error::invalid(
                    op,
                    format!("key and counter must be u32, got {}", t.dtype()),
                ));
            }
            if t.shape().last() != Some(&2) {
                return Err(Error::invalid(
                    op,
                    format!(
                        "key and counter need a last axis of size 2, got shape {:?}",
                        t.shape()
                    ),
                ));
            }
        }
        let (k, c) = key.broadcasted(counter, false).map_err(|_| {
            Error::shapes(
                op,
                key.shape(),
                counter.shape(),
                "cannot be broadcast together",
            )
        })?;
        let shape = k.shape().to_vec();
        if key.device() != Device::Cpu {
            let out = Tensor::empty_on(DType::U32, &shape, key.device())?;
            let backend = crate::backend::get(key.device(), op)?;
            if crate::ops::locked_fresh(op, &[&k, &c], &out, || backend.threefry(&k, &c, &out))? {
                return Ok(out);
            }
        }
        let kv = k.to_vec::<u32>()?;
        let cv = c.to_vec::<u32>()?;
        let out: Vec<u32> = kv
            .chunks_exact(2)
            .zip(cv.chunks_exact(2))
            .flat_map(|(k, c)| threefry2x32([k[0], k[1]], [c[0], c[1]]))
            .collect();
        Tensor::from_slice(&out, &shape)?.to_device(key.device())
    }

    /// Uniform values in `[0, 1)` for float dtypes (f16, bf16, f32, f64,
    /// f8e4m3, f8e5m2), from `seed`. Each value is a multiple of 2^-p for the dtype's precision p, so
    /// rounding never produces 1. The values of `Key::new(seed).uniform(dtype,
    /// shape, 0.0, 1.0, ..)`: element `i` is the top p bits of Threefry block
    /// `i` times 2^-p.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::rand(DType::F32, &[1000], 42).unwrap();
    /// let b = Tensor::rand(DType::F32, &[1000], 42).unwrap();
    /// assert_eq!(a.to_vec::<f32>().unwrap(), b.to_vec::<f32>().unwrap());
    /// assert!(a.to_vec::<f32>().unwrap().iter().all(|&x| (0.0..1.0).contains(&x)));
    /// ```
    pub fn rand(dtype: DType, shape: &[usize], seed: u64) -> Result<Tensor> {
        seeded_float("rand", dtype, shape)?;
        crate::ops::rng::Key::new(seed).uniform(dtype, shape, 0.0, 1.0, crate::Device::Cpu)
    }

    /// Standard normal values for float dtypes, from `seed`: Box-Muller on
    /// one Threefry block `(b0, b1)` per element, `sqrt(-2 ln u1) cos(2 pi
    /// u2)` with `u1 = (b0 + 1) 2^-32` and `u2 = b1 2^-32`, computed in f64
    /// (the same bits on every SIMD level; `ops/rng/normal.rs`) and rounded
    /// once. The values of `Key::new(seed).normal(dtype, shape, 0.0, 1.0, ..)`.
    pub fn randn(dtype: DType, shape: &[usize], seed: u64) -> Result<Tensor> {
        seeded_float("randn", dtype, shape)?;
        crate::ops::rng::Key::new(seed).normal(dtype, shape, 0.0, 1.0, crate::Device::Cpu)
    }

    /// Integers uniform in `[low, high)` (high exclusive, NumPy's convention) for
    /// integer dtypes, from `seed`. `low >= high`, a non-integer dtype, or bounds
    /// the dtype cannot hold are errors. (Nx's default `high` is 10.)
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let t = Tensor::randint(DType::I32, &[100], -3, 4, 7).unwrap();
    /// assert!(t.to_vec::<i32>().unwrap().iter().all(|&x| (-3..4).contains(&x)));
    /// assert!(Tensor::randint(DType::F32, &[3], 0, 10, 7).is_err());
    /// assert!(Tensor::randint(DType::I32, &[3], 5, 5, 7).is_err());
    /// ```
    pub fn randint(
        dtype: DType,
        shape: &[usize],
        low: i64,
        high: i64,
        seed: u64,
    ) -> Result<Tensor> {
        randint_on(
            dtype,
            shape,
            low,
            high,
            crate::ops::rng::Key::new(seed).words(),
            Device::Cpu,
        )
    }
}

/// [`Tensor::randint`] under `key`, drawn on `device` (its kernel, else on
/// the host and uploaded).
pub(crate) fn randint_on(
    dtype: DType,
    shape: &[usize],
    low: i64,
    high: i64,
    key: [u32; 2],
    device: Device,
) -> Result<Tensor> {
    if !dtype.is_int() {
        return Err(Error::invalid(
            "randint",
            format!("dtype must be an integer type, got {dtype}"),
        ));
    }
    if low >= high {
        return Err(Error::invalid(
            "randint",
            format!("low {low} must be less than high {high}"),
        ));
    }
    crate::Scalar::I64(low).to_dtype(dtype, "randint")?;
    crate::Scalar::I64(high - 1).to_dtype(dtype, "randint")?;
    if dtype.is_int4() {
        // The same draws as in 8 bits (the values fit), then packed.
        let byte = if dtype == DType::I4 {
            DType::I8
        } else {
            DType::U8
        };
        return randint_on(byte, shape, low, high, key, Device::Cpu)?
            .cast(dtype)?
            .to_device(device);
    }
    checked_numel("randint", shape)?;
    let range = (high as i128 - low as i128) as u128;
    let draw = crate::backend::Draw::Randint {
        low,
        range: range as u64,
    };
    if let Some(t) = crate::ops::rng::draw::on_device("randint", dtype, shape, device, key, draw)? {
        return Ok(t);
    }
    crate::dispatch!(@int dtype, "randint", T => {
        crate::ops::rng::draw::par_fill_blocks::<T>(shape, key, move |[x0, x1]| {
            let r = (x0 as u64) << 32 | x1 as u64;
            let k = ((r as u128 * range) >> 64) as i128;
            T::from_i128_saturating(low as i128 + k)
        })
    })?
    .to_device(device)
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::threefry2x32;

    // Known-answer vectors of Random123's Threefry-2x32-20 (also used by JAX).
    pub(crate) fn threefry_known_answers() {
        assert_eq!(threefry2x32([0, 0], [0, 0]), [0x6b20_0159, 0x99ba_4efe]);
        assert_eq!(
            threefry2x32([0x1319_8a2e, 0x0370_7344], [0x243f_6a88, 0x85a3_08d3]),
            [0xc492_3a9c, 0x483d_f7a0]
        );
        assert_eq!(
            threefry2x32([u32::MAX, u32::MAX], [u32::MAX, u32::MAX]),
            [0x1cb9_96fc, 0xbb00_2be7]
        );
    }
}
