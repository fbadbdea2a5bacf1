//! Creation on the GPU (`*_on`): the tensor is on the device and holds the
//! CPU's values bit for bit, random ones included (same seed). Without an
//! adapter the test returns early, unless `RNX_REQUIRE_GPU=1` (CI).

use super::gpu::gpu;
use rnx::{DType, Device, Tensor};

/// `g` is on `d` and equals `c` (same dtype, shape, bits).
fn same(what: &str, g: Tensor, c: Tensor, d: Device) {
    assert_eq!(g.device(), d, "{what}");
    assert_eq!((g.dtype(), g.shape()), (c.dtype(), c.shape()), "{what}");
    // Every dtype here converts to f64 exactly.
    let bits = |t: &Tensor| -> Vec<u64> {
        let v = t.to_device(Device::Cpu).unwrap().cast(DType::F64).unwrap();
        v.to_vec::<f64>()
            .unwrap()
            .iter()
            .map(|x| x.to_bits())
            .collect()
    };
    let (gb, cb) = (bits(&g), bits(&c));
    assert_eq!(gb, cb, "{what}");
}

#[test]
fn creation_on_the_gpu_equals_the_cpu() {
    let Some(d) = gpu() else { return };
    let (n, seed) = (10_007, 99);
    for dt in [DType::F32, DType::F16, DType::BF16] {
        same(
            "rand",
            Tensor::rand_on(dt, &[n], seed, d).unwrap(),
            Tensor::rand(dt, &[n], seed).unwrap(),
            d,
        );
        same(
            "randn",
            Tensor::randn_on(dt, &[7, 11], seed, d).unwrap(),
            Tensor::randn(dt, &[7, 11], seed).unwrap(),
            d,
        );
    }
    for dt in [DType::I32, DType::U8, DType::I16] {
        same(
            "randint",
            Tensor::randint_on(dt, &[n], 0, 100, seed, d).unwrap(),
            Tensor::randint(dt, &[n], 0, 100, seed).unwrap(),
            d,
        );
    }
    same(
        "eye",
        Tensor::eye_on(DType::I32, 4, Some(3), 1, d).unwrap(),
        Tensor::eye(DType::I32, 4, Some(3), 1).unwrap(),
        d,
    );
    same(
        "identity",
        Tensor::identity_on(DType::F32, 5, d).unwrap(),
        Tensor::identity(DType::F32, 5).unwrap(),
        d,
    );
    same(
        "arange",
        Tensor::arange_on(DType::I32, 10, -7, -3, d).unwrap(),
        Tensor::arange(DType::I32, 10, -7, -3).unwrap(),
        d,
    );
    same(
        "arange_f",
        Tensor::arange_f_on(DType::F32, 0.0, 1.0, 0.1, d).unwrap(),
        Tensor::arange_f(DType::F32, 0.0, 1.0, 0.1).unwrap(),
        d,
    );
    same(
        "linspace",
        Tensor::linspace_on(DType::F32, -1.0, 1.0, 9, true, d).unwrap(),
        Tensor::linspace(DType::F32, -1.0, 1.0, 9, true).unwrap(),
        d,
    );
    // Known values: the identity's diagonal, arange's ends.
    let e = Tensor::identity_on(DType::F32, 3, d)
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    assert_eq!(e, [1., 0., 0., 0., 1., 0., 0., 0., 1.]);
    let a = Tensor::arange_on(DType::I32, 0, 5, 2, d)
        .unwrap()
        .to_vec::<i32>()
        .unwrap();
    assert_eq!(a, [0, 2, 4]);
    // Bad input is the CPU's error.
    assert!(Tensor::randint_on(DType::F32, &[3], 0, 10, 1, d).is_err());
    assert!(Tensor::arange_on(DType::I32, 0, 5, 0, d).is_err());
}
