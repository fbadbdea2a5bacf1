//! Keyed random draws on the GPU (`src/backend/gpu/random.rs`): uniform,
//! normal, exponential, bernoulli and randint draws on `Device::Gpu(0)` are
//! the CPU's bit for bit (every float dtype, bounds that clamp, signed
//! zeros, every integer dtype with ranges up to 2^64 - 1), as are the
//! seeded `rand_on` / `randn_on` / `randint_on`, `permutation` and
//! `shuffle` (keys drawn and sorted on the device) and the tensor form of
//! Threefry with broadcast keys. Lengths cross the 256-invocation
//! workgroups. Without an adapter the tests return early, unless
//! `RNX_REQUIRE_GPU=1`.

use crate::gpu::gpu;
use rnx::{DType, Device, Key, Tensor};

const CPU: Device = Device::Cpu;

/// Every element's bits (floats through the exact f64 cast, integers
/// through the wrapping i64 cast).
fn bits(t: &Tensor) -> Vec<u64> {
    let t = t.to_device(CPU).unwrap();
    if t.dtype().is_float() {
        let v = t.cast(DType::F64).unwrap().to_vec::<f64>().unwrap();
        v.iter().map(|x| x.to_bits()).collect()
    } else {
        let v = t.cast(DType::I64).unwrap().to_vec::<i64>().unwrap();
        v.iter().map(|&x| x as u64).collect()
    }
}

/// `g` is on `d` and holds `c`'s dtype, shape and bits.
fn same(what: &str, g: &Tensor, c: &Tensor, d: Device) {
    assert_eq!(g.device(), d, "{what}");
    assert_eq!((g.dtype(), g.shape()), (c.dtype(), c.shape()), "{what}");
    let (gb, cb) = (bits(g), bits(c));
    if let Some(i) = (0..gb.len()).find(|&i| gb[i] != cb[i]) {
        panic!(
            "{what}: element {i} of {}: gpu bits {:#x}, cpu bits {:#x}",
            gb.len(),
            gb[i],
            cb[i]
        );
    }
}

const FLOATS: [DType; 4] = [DType::F32, DType::F16, DType::BF16, DType::F64];

#[test]
fn gpu_float_draws_equal_the_cpu() {
    let Some(d) = gpu() else { return };
    let k = Key::new(0x5eed_0001).fold_in(7);
    for dt in FLOATS {
        // 100,003 elements: 391 workgroups and a ragged last one.
        let n = if dt == DType::F32 { 100_003 } else { 4099 };
        for (low, high) in [
            (0.0, 1.0),
            (-2.0, 5.0),
            // 1 sits on the grid's last step in f16/bf16: rounding reaches
            // the excluded bound and the clamp steps below it.
            (0.999, 1.0),
            (-1e4, 1e-3),
            (3.0, 3.000_001),
        ] {
            let what = format!("uniform {dt} [{low}, {high})");
            let c = k.uniform(dt, &[n], low, high, CPU);
            let g = k.uniform(dt, &[n], low, high, d);
            match (c, g) {
                (Ok(c), Ok(g)) => same(&what, &g, &c, d),
                // No value of the dtype in the interval: the same error.
                (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{what}"),
                (c, g) => panic!("{what}: cpu {:?} gpu {:?}", c.err(), g.err()),
            }
        }
        for (mean, std) in [(0.0, 1.0), (3.0, 0.5), (-1e3, 7.0), (0.0, 0.0), (2.5, 0.0)] {
            let what = format!("normal {dt} ({mean}, {std})");
            let c = k.normal(dt, &[n], mean, std, CPU).unwrap();
            let g = k.normal(dt, &[n], mean, std, d).unwrap();
            same(&what, &g, &c, d);
        }
        let c = k.exponential(dt, &[n], CPU).unwrap();
        let g = k.exponential(dt, &[n], d).unwrap();
        same(&format!("exponential {dt}"), &g, &c, d);
    }
    // std 0, mean 0: the zeros keep z's sign (-0.0 for negative z) on both.
    let z = k.normal(DType::F32, &[64], 0.0, 0.0, d).unwrap();
    let neg = bits(&z).iter().filter(|&&b| b == (-0f64).to_bits()).count();
    assert!(neg > 10 && neg < 54, "{neg} negative zeros of 64");
    // The seeded forms draw on the device with the CPU's values.
    for dt in FLOATS {
        same(
            "rand_on",
            &Tensor::rand_on(dt, &[3, 333], 99, d).unwrap(),
            &Tensor::rand(dt, &[3, 333], 99).unwrap(),
            d,
        );
        same(
            "randn_on",
            &Tensor::randn_on(dt, &[3, 333], 99, d).unwrap(),
            &Tensor::randn(dt, &[3, 333], 99).unwrap(),
            d,
        );
    }
}

#[test]
fn gpu_integer_and_bernoulli_draws_equal_the_cpu() {
    let Some(d) = gpu() else { return };
    let k = Key::new(77);
    let n = 20_011;
    for p in [0.0, 1.0, 0.3, 1e-4, 0.5 + f64::EPSILON, 1.0 - 1e-16] {
        let c = k.bernoulli(&[n], p, CPU).unwrap();
        let g = k.bernoulli(&[n], p, d).unwrap();
        same(&format!("bernoulli {p}"), &g, &c, d);
    }
    let ones = k.bernoulli(&[n], 0.3, d).unwrap().to_vec::<u8>().unwrap();
    let frac = ones.iter().map(|&b| b as f64).sum::<f64>() / n as f64;
    assert!((frac - 0.3).abs() < 0.02, "{frac}");
    let cases: [(DType, i64, i64); 12] = [
        (DType::I8, -128, 128),
        (DType::I8, -5, 6),
        (DType::U8, 250, 256),
        (DType::I16, -30_000, 31_111),
        (DType::U16, 0, 65_536),
        (DType::I32, i32::MIN as i64, i32::MAX as i64),
        (DType::I32, -3, 4),
        (DType::U32, 7, 3_000_000_019),
        (DType::I64, i64::MIN, i64::MAX),
        (DType::I64, -7, 1 << 40),
        (DType::U64, 0, i64::MAX),
        (DType::U64, 1 << 62, (1 << 62) + 3),
    ];
    for (dt, low, high) in cases {
        let what = format!("randint {dt} [{low}, {high})");
        let c = k.randint(dt, &[n], low, high, CPU).unwrap();
        let g = k.randint(dt, &[n], low, high, d).unwrap();
        same(&what, &g, &c, d);
        same(
            "randint_on",
            &Tensor::randint_on(dt, &[n], low, high, 5, d).unwrap(),
            &Tensor::randint(dt, &[n], low, high, 5).unwrap(),
            d,
        );
    }
    // The 4-bit dtypes stay on the host (the GPU holds none): the same error.
    let e = k.randint(DType::I4, &[4], 0, 3, d).unwrap_err();
    assert!(e.to_string().contains("i4"), "{e}");
}

#[test]
fn gpu_threefry_tensor_equals_the_scalar_function() {
    let Some(d) = gpu() else { return };
    // Random123's known answers, then a broadcast key over 1,000 counters
    // (also a transposed counter view) against the scalar function.
    let key = Tensor::from_slice(&[0x1319_8a2e_u32, 0x0370_7344], &[2])
        .unwrap()
        .to_device(d)
        .unwrap();
    let ctr = Tensor::from_slice(&[0x243f_6a88_u32, 0x85a3_08d3], &[2])
        .unwrap()
        .to_device(d)
        .unwrap();
    let out = Tensor::threefry2x32(&key, &ctr).unwrap();
    assert_eq!(out.device(), d);
    assert_eq!(out.to_vec::<u32>().unwrap(), vec![0xc492_3a9c, 0x483d_f7a0]);
    let n = 1000u32;
    let words: Vec<u32> = (0..2 * n).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    let ctr = Tensor::from_slice(&words, &[n as usize, 2]).unwrap();
    let g = Tensor::threefry2x32(&key, &ctr.to_device(d).unwrap()).unwrap();
    let c = Tensor::threefry2x32(&key.to_device(CPU).unwrap(), &ctr).unwrap();
    assert_eq!(g.shape(), &[n as usize, 2]);
    let gv = g.to_vec::<u32>().unwrap();
    assert_eq!(gv, c.to_vec::<u32>().unwrap());
    for i in 0..n as usize {
        let want =
            rnx::random::threefry2x32([0x1319_8a2e, 0x0370_7344], [words[2 * i], words[2 * i + 1]]);
        assert_eq!([gv[2 * i], gv[2 * i + 1]], want, "pair {i}");
    }
    // Counters as a transposed view: [2, n] seen as [n, 2].
    let t = Tensor::from_slice(&words, &[2, n as usize]).unwrap();
    let tg = t.to_device(d).unwrap().transpose([1, 0]).unwrap();
    let tc = t.transpose([1, 0]).unwrap();
    let g = Tensor::threefry2x32(&key, &tg).unwrap();
    let c = Tensor::threefry2x32(&key.to_device(CPU).unwrap(), &tc).unwrap();
    assert_eq!(g.to_vec::<u32>().unwrap(), c.to_vec::<u32>().unwrap());
}

#[test]
fn gpu_permutation_and_shuffle_equal_the_cpu() {
    let Some(d) = gpu() else { return };
    let k = Key::new(31).fold_in(2);
    for (dt, n) in [
        (DType::I32, 1usize),
        (DType::I64, 1000),
        (DType::U16, 5000),
        (DType::I32, 100_003),
    ] {
        let g = k.permutation(dt, n, d).unwrap();
        let c = k.permutation(dt, n, CPU).unwrap();
        same(&format!("permutation {dt} {n}"), &g, &c, d);
    }
    // A permutation: every index once.
    let mut p = k
        .permutation(DType::I64, 5000, d)
        .unwrap()
        .to_vec::<i64>()
        .unwrap();
    p.sort_unstable();
    assert!(p.iter().enumerate().all(|(i, &v)| v == i as i64));
    // Rows of a 2-D tensor and of a transposed view move whole.
    let t = Tensor::arange(DType::F32, 0, 3 * 700, 1)
        .unwrap()
        .reshape([700, 3])
        .unwrap();
    for v in [
        t.clone(),
        t.reshape([3, 700]).unwrap().transpose([1, 0]).unwrap(),
    ] {
        let g = k.shuffle(&v.to_device(d).unwrap()).unwrap();
        let c = k.shuffle(&v).unwrap();
        same("shuffle", &g, &c, d);
    }
}
