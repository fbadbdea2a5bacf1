//! Creation on a device: the `*_on` forms of the creation functions whose
//! values are computed elementwise on the host (`eye`, `identity`, `arange`,
//! `arange_f`, `linspace`, `rand`, `randn`, `randint`). Each builds the
//! tensor on the CPU and moves it with one upload, so the values on a GPU are
//! bit-identical to the CPU's (the random ones included: same seed, same
//! tensor on every device). `zeros_on`, `ones_on`, `full_on` and `empty_on`
//! fill on the device itself (no transfer) and live with the other fills.

use crate::device::Device;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

impl Tensor {
    /// [`Tensor::eye`] on `device`.
    ///
    /// ```
    /// use rnx::{Tensor, DType, Device};
    /// let t = Tensor::eye_on(DType::F32, 2, None, 0, Device::Cpu).unwrap();
    /// assert_eq!(t.to_vec::<f32>().unwrap(), vec![1.0, 0.0, 0.0, 1.0]);
    /// ```
    pub fn eye_on(
        dtype: DType,
        n: usize,
        m: Option<usize>,
        k: isize,
        device: Device,
    ) -> Result<Tensor> {
        Tensor::eye(dtype, n, m, k)?.to_device(device)
    }

    /// [`Tensor::identity`] on `device`.
    pub fn identity_on(dtype: DType, n: usize, device: Device) -> Result<Tensor> {
        Tensor::identity(dtype, n)?.to_device(device)
    }

    /// [`Tensor::arange`] on `device`.
    ///
    /// ```
    /// use rnx::{Tensor, DType, Device};
    /// let t = Tensor::arange_on(DType::I32, 0, 6, 2, Device::Cpu).unwrap();
    /// assert_eq!(t.to_vec::<i32>().unwrap(), vec![0, 2, 4]);
    /// ```
    pub fn arange_on(
        dtype: DType,
        start: i64,
        stop: i64,
        step: i64,
        device: Device,
    ) -> Result<Tensor> {
        Tensor::arange(dtype, start, stop, step)?.to_device(device)
    }

    /// [`Tensor::arange_f`] on `device`.
    pub fn arange_f_on(
        dtype: DType,
        start: f64,
        stop: f64,
        step: f64,
        device: Device,
    ) -> Result<Tensor> {
        Tensor::arange_f(dtype, start, stop, step)?.to_device(device)
    }

    /// [`Tensor::linspace`] on `device`.
    pub fn linspace_on(
        dtype: DType,
        start: f64,
        stop: f64,
        count: usize,
        endpoint: bool,
        device: Device,
    ) -> Result<Tensor> {
        Tensor::linspace(dtype, start, stop, count, endpoint)?.to_device(device)
    }

    /// [`Tensor::rand`] on `device`: the same values as on the CPU for the
    /// same seed.
    ///
    /// ```
    /// use rnx::{Tensor, DType, Device};
    /// let a = Tensor::rand_on(DType::F32, &[4], 7, Device::Cpu).unwrap();
    /// let b = Tensor::rand(DType::F32, &[4], 7).unwrap();
    /// assert_eq!(a.to_vec::<f32>().unwrap(), b.to_vec::<f32>().unwrap());
    /// ```
    pub fn rand_on(dtype: DType, shape: &[usize], seed: u64, device: Device) -> Result<Tensor> {
        crate::random::seeded_float("rand", dtype, shape)?;
        crate::ops::rng::Key::new(seed).uniform(dtype, shape, 0.0, 1.0, device)
    }

    /// [`Tensor::randn`] on `device`: the same values as on the CPU for the
    /// same seed.
    pub fn randn_on(dtype: DType, shape: &[usize], seed: u64, device: Device) -> Result<Tensor> {
        crate::random::seeded_float("randn", dtype, shape)?;
        crate::ops::rng::Key::new(seed).normal(dtype, shape, 0.0, 1.0, device)
    }

    /// [`Tensor::randint`] on `device`: the same values as on the CPU for the
    /// same seed.
    pub fn randint_on(
        dtype: DType,
        shape: &[usize],
        low: i64,
        high: i64,
        seed: u64,
        device: Device,
    ) -> Result<Tensor> {
        let key = crate::ops::rng::Key::new(seed).words();
        crate::random::randint_on(dtype, shape, low, high, key, device)
    }
}
