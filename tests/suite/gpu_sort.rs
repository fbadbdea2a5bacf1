//! The GPU sort kernel against the CPU sort: sort, sort_values and argsort on
//! `Device::Gpu(0)` give the CPU's values bit for bit (NaN payloads, zero
//! signs) and the CPU's indices, for every dtype the GPU holds, both
//! directions, every axis of 3-D tensors, strided views, row lengths from 1
//! to a long row of 300k, and empty tensors. Without an adapter the tests
//! return early, unless `RNX_REQUIRE_GPU=1`.

use crate::gpu::gpu;
use half::{bf16, f16};
use rnx::{s, DType, Device, Tensor};

/// A named view of a tensor.
type View = (&'static str, Box<dyn Fn(&Tensor) -> Tensor>);

/// Every dtype the GPU sorts (f64/i64/u64 where the adapter has them).
const DTYPES: [DType; 12] = [
    DType::F32,
    DType::F16,
    DType::BF16,
    DType::F64,
    DType::I8,
    DType::I16,
    DType::I32,
    DType::I64,
    DType::U8,
    DType::U16,
    DType::U32,
    DType::U64,
];

/// xorshift64.
fn next(s: &mut u64) -> u64 {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    *s
}

/// Raw bits of `n` elements of float `d` (`w` bits wide): many duplicates of
/// small numbers, +-0, +-inf, NaNs with several payloads and signs, and some
/// random bit patterns.
fn float_bits(d: DType, n: usize, seed: u64) -> Vec<u64> {
    let to_bits = |v: f64| -> u64 {
        match d {
            DType::F32 => (v as f32).to_bits() as u64,
            DType::F64 => v.to_bits(),
            DType::F16 => f16::from_f64(v).to_bits() as u64,
            _ => bf16::from_f64(v).to_bits() as u64,
        }
    };
    let w = d.itemsize() * 8;
    let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    let sign = 1u64 << (w - 1);
    let qnan = to_bits(f64::NAN);
    let special = [
        to_bits(0.0),
        sign,
        to_bits(f64::INFINITY),
        to_bits(f64::NEG_INFINITY),
        qnan,
        qnan | 1,
        qnan | sign,
        (qnan | sign) | 3,
    ];
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            let r = next(&mut s);
            match r % 8 {
                0 => special[(r >> 8) as usize % special.len()],
                1 => (r >> 3) & mask,
                _ => to_bits(((r >> 8) % 17) as f64 / 2.0 - 4.0),
            }
        })
        .collect()
}

/// Raw bits of `n` elements of integer `d`: duplicates of small values
/// (negative ones too), the extremes, and random bit patterns.
fn int_bits(d: DType, n: usize, seed: u64) -> Vec<u64> {
    let w = d.itemsize() * 8;
    let mask = if w == 64 { u64::MAX } else { (1u64 << w) - 1 };
    let special = [0, mask, mask >> 1, (mask >> 1) + 1, 1];
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            let r = next(&mut s);
            match r % 8 {
                0 => special[(r >> 8) as usize % special.len()],
                1 => (r >> 3) & mask,
                _ => (((r >> 8) % 13) as i64 - 6) as u64 & mask,
            }
        })
        .collect()
}

/// A CPU tensor of `d` and `shape` holding raw bits `b`.
fn from_bits(d: DType, shape: &[usize], b: &[u64]) -> Tensor {
    match d {
        DType::F32 => {
            Tensor::from_vec(b.iter().map(|&x| f32::from_bits(x as u32)).collect(), shape)
        }
        DType::F64 => Tensor::from_vec(b.iter().map(|&x| f64::from_bits(x)).collect(), shape),
        DType::F16 => {
            Tensor::from_vec(b.iter().map(|&x| f16::from_bits(x as u16)).collect(), shape)
        }
        DType::BF16 => Tensor::from_vec(
            b.iter().map(|&x| bf16::from_bits(x as u16)).collect(),
            shape,
        ),
        DType::I8 => Tensor::from_vec(b.iter().map(|&x| x as i8).collect(), shape),
        DType::I16 => Tensor::from_vec(b.iter().map(|&x| x as i16).collect(), shape),
        DType::I32 => Tensor::from_vec(b.iter().map(|&x| x as i32).collect(), shape),
        DType::I64 => Tensor::from_vec(b.iter().map(|&x| x as i64).collect(), shape),
        DType::U8 => Tensor::from_vec(b.iter().map(|&x| x as u8).collect(), shape),
        DType::U16 => Tensor::from_vec(b.iter().map(|&x| x as u16).collect(), shape),
        DType::U32 => Tensor::from_vec(b.iter().map(|&x| x as u32).collect(), shape),
        DType::U64 => Tensor::from_vec(b.to_vec(), shape),
        d => panic!("no sort test data for {d}"),
    }
    .unwrap()
}

/// A CPU test tensor of `d` and `shape`.
fn sample(d: DType, shape: &[usize], seed: u64) -> Tensor {
    let n = shape.iter().product();
    let b = if d.is_float() {
        float_bits(d, n, seed)
    } else {
        int_bits(d, n, seed)
    };
    from_bits(d, shape, &b)
}

/// The elements of a CPU tensor of `T`, each widened to u64 bits by `f`.
fn widened<T: rnx::Element>(t: &Tensor, f: impl Fn(T) -> u64) -> Vec<u64> {
    t.to_vec::<T>().unwrap().into_iter().map(f).collect()
}

/// The raw bits of every element (any device, any layout), in order.
fn bits(t: &Tensor) -> Vec<u64> {
    let t = t.to_device(Device::Cpu).unwrap();
    match t.dtype() {
        DType::F32 => widened(&t, |x: f32| x.to_bits() as u64),
        DType::F64 => widened(&t, |x: f64| x.to_bits()),
        DType::F16 => widened(&t, |x: f16| x.to_bits() as u64),
        DType::BF16 => widened(&t, |x: bf16| x.to_bits() as u64),
        DType::I8 => widened(&t, |x: i8| x as u8 as u64),
        DType::I16 => widened(&t, |x: i16| x as u16 as u64),
        DType::I32 => widened(&t, |x: i32| x as u32 as u64),
        DType::I64 => widened(&t, |x: i64| x as u64),
        DType::U8 => widened(&t, |x: u8| x as u64),
        DType::U16 => widened(&t, |x: u16| x as u64),
        DType::U32 => widened(&t, |x: u32| x as u64),
        DType::U64 => widened(&t, |x: u64| x),
        d => panic!("no bits for {d}"),
    }
}

/// Whether the adapter holds `d`.
fn holds(dev: Device, d: DType) -> bool {
    Tensor::zeros_on(d, &[1], dev).is_ok()
}

/// `x` (a GPU tensor) and `c` (the same elements on the CPU, any layout)
/// sorted along `axis` both ways with all three entry points: the GPU's
/// values equal the CPU's bit for bit, its indices equal.
fn check(what: &str, x: &Tensor, c: &Tensor, axis: isize) {
    for desc in [false, true] {
        let w = format!("{what} axis {axis} desc {desc}");
        let (gv, gi) = x.sort(axis, desc).unwrap();
        let (cv, ci) = c.sort(axis, desc).unwrap();
        assert_eq!(gv.shape(), cv.shape(), "{w}");
        assert_eq!(gv.device(), x.device(), "{w}");
        assert_eq!(bits(&gi), bits(&ci), "{w}: sort indices");
        assert_eq!(bits(&gv), bits(&cv), "{w}: sort values");
        let gv = x.sort_values(axis, desc).unwrap();
        assert_eq!(bits(&gv), bits(&cv), "{w}: sort_values");
        let gi = x.argsort(axis, desc).unwrap();
        assert_eq!(bits(&gi), bits(&ci), "{w}: argsort");
    }
}

#[test]
fn gpu_sort_every_dtype_and_axis_matches_the_cpu() {
    let Some(dev) = gpu() else { return };
    for (k, d) in DTYPES.into_iter().enumerate() {
        if !holds(dev, d) {
            eprintln!("gpu:0 does not hold {d}: skipped");
            continue;
        }
        let c = sample(d, &[5, 7, 33], 10 + k as u64);
        let x = c.to_device(dev).unwrap();
        for axis in [0, 1, 2, -1] {
            check(&format!("{d} [5, 7, 33]"), &x, &c, axis);
        }
    }
}

#[test]
fn gpu_sort_row_lengths() {
    let Some(dev) = gpu() else { return };
    for d in [DType::F32, DType::F16, DType::I64, DType::U8] {
        if !holds(dev, d) {
            continue;
        }
        for (k, n) in [1usize, 2, 3, 1000, 2049, 5000].into_iter().enumerate() {
            let rows = if n < 100 { 9 } else { 3 };
            let c = sample(d, &[rows, n], 100 + k as u64);
            let x = c.to_device(dev).unwrap();
            check(&format!("{d} [{rows}, {n}]"), &x, &c, -1);
        }
    }
}

#[test]
fn gpu_sort_strided_views() {
    let Some(dev) = gpu() else { return };
    for d in [DType::F32, DType::I16, DType::F64] {
        if !holds(dev, d) {
            continue;
        }
        let c = sample(d, &[6, 40, 5], 7);
        let x = c.to_device(dev).unwrap();
        // A transposed view, a reversed (negative-stride) view, and both.
        let views: [View; 3] = [
            ("transpose", Box::new(|t| t.transpose([2, 0, 1]).unwrap())),
            ("flip", Box::new(|t| t.flip(1).unwrap())),
            (
                "flip+transpose",
                Box::new(|t| t.flip([0, 1]).unwrap().transpose([1, 2, 0]).unwrap()),
            ),
        ];
        for (name, f) in &views {
            let (xv, cv) = (f(&x), f(&c));
            for axis in 0..3 {
                check(&format!("{d} {name}"), &xv, &cv, axis);
            }
        }
    }
}

#[test]
fn gpu_sort_long_rows() {
    let Some(dev) = gpu() else { return };
    // One row of 300k: 2^19 pairs, the global network steps.
    let c = sample(DType::F32, &[300_000], 3);
    let x = c.to_device(dev).unwrap();
    check("f32 [300000]", &x, &c, 0);
    // 64-bit keys across blocks (two key words).
    if holds(dev, DType::I64) {
        let c = sample(DType::I64, &[2, 40_000], 4);
        let x = c.to_device(dev).unwrap();
        check("i64 [2, 40000]", &x, &c, 1);
    }
    // 2^21 + elements: 1025 rows of 2049 along axis 0 of a transposed view.
    let c = sample(DType::F32, &[1025, 2049], 5);
    let x = c.to_device(dev).unwrap();
    let (gv, gi) = x.sort(1, false).unwrap();
    let (cv, ci) = c.sort(1, false).unwrap();
    assert_eq!(bits(&gi), bits(&ci), "f32 [1025, 2049] indices");
    assert_eq!(bits(&gv), bits(&cv), "f32 [1025, 2049] values");
}

#[test]
fn gpu_sort_specials_in_order() {
    let Some(dev) = gpu() else { return };
    let nan1 = f32::from_bits(0x7fc0_0001);
    let nan2 = f32::from_bits(0xffc0_0002);
    let v = vec![
        nan1,
        -0.0,
        0.0,
        nan2,
        1.0,
        f32::NEG_INFINITY,
        0.0,
        -0.0,
        f32::INFINITY,
    ];
    let x = Tensor::from_vec(v.clone(), &[9])
        .unwrap()
        .to_device(dev)
        .unwrap();
    let (s, i) = x.sort(0, false).unwrap();
    assert_eq!(i.to_vec::<i32>().unwrap(), vec![5, 1, 2, 6, 7, 4, 8, 0, 3]);
    let want: Vec<u32> = [5, 1, 2, 6, 7, 4, 8, 0, 3]
        .iter()
        .map(|&k| v[k].to_bits())
        .collect();
    let got: Vec<u32> = s
        .to_vec::<f32>()
        .unwrap()
        .iter()
        .map(|x| x.to_bits())
        .collect();
    assert_eq!(got, want);
    let (_, i) = x.sort(0, true).unwrap();
    assert_eq!(i.to_vec::<i32>().unwrap(), vec![0, 3, 8, 4, 1, 2, 6, 7, 5]);
}

#[test]
fn gpu_sort_empty_and_scalar() {
    let Some(dev) = gpu() else { return };
    for (shape, axis) in [
        (vec![0, 5], 1),
        (vec![5, 0], 1),
        (vec![3, 0, 2], 0),
        (vec![0], 0),
    ] {
        let x = Tensor::zeros_on(DType::F32, &shape, dev).unwrap();
        let (v, i) = x.sort(axis, false).unwrap();
        assert_eq!((v.shape(), i.shape()), (&shape[..], &shape[..]));
        assert_eq!(x.argsort(axis, true).unwrap().shape(), &shape[..]);
    }
    let x = Tensor::create(DType::I32, &[], &[7])
        .unwrap()
        .to_device(dev)
        .unwrap();
    let (v, i) = x.sort(-1, false).unwrap();
    assert_eq!(
        (v.to_vec::<i32>().unwrap(), i.to_vec::<i32>().unwrap()),
        (vec![7], vec![0])
    );
}

#[test]
fn gpu_sort_views_across_binding_windows() {
    let Some(dev) = gpu() else { return };
    let wb = crate::gpu_memory::test_window(dev);
    for d in [DType::U8, DType::F32] {
        // A storage one binding and a bit long (two windows), with 4500
        // test elements across the window boundary at `w`.
        let w = wb / d.itemsize();
        let big = Tensor::zeros_on(d, &[w + 5000], dev).unwrap();
        let (a, b) = ((w - 2000) as isize, (w + 2500) as isize);
        let c = sample(d, &[3, 1500], 9);
        big.set_slice(
            s![a..b],
            &c.reshape([4500]).unwrap().to_device(dev).unwrap(),
        )
        .unwrap();
        let x = big.slice(s![a..b]).unwrap().reshape([3, 1500]).unwrap();
        for axis in [0, 1] {
            check(&format!("{d} across windows"), &x, &c, axis);
        }
        let (xf, cf) = (x.flip(1).unwrap(), c.flip(1).unwrap());
        check(&format!("{d} across windows, flipped"), &xf, &cf, 1);
    }
}

#[test]
fn gpu_sort_radix_rows_around_the_block_every_dtype() {
    let Some(dev) = gpu() else { return };
    // Rows longer than a workgroup block (2048 pairs of 32-bit keys, 1024
    // of 64-bit keys on 16 KiB of workgroup memory) take the radix passes:
    // lengths just below and above both blocks and the 2048-element radix
    // tile, several rows, both directions, every dtype.
    for (k, d) in DTYPES.into_iter().enumerate() {
        if !holds(dev, d) {
            continue;
        }
        for (j, n) in [1023usize, 1024, 1025, 2048, 2049, 4097]
            .into_iter()
            .enumerate()
        {
            let c = sample(d, &[3, n], 1000 + (10 * k + j) as u64);
            let x = c.to_device(dev).unwrap();
            check(&format!("{d} [3, {n}]"), &x, &c, -1);
        }
    }
}

#[test]
fn gpu_sort_radix_strided_long_rows() {
    let Some(dev) = gpu() else { return };
    for d in [DType::F32, DType::U16, DType::F64] {
        if !holds(dev, d) {
            continue;
        }
        // Rows of 2600 along axis 0 of a [2600, 3] tensor (stride 3), the
        // same flipped (negative stride), and a transposed view.
        let c = sample(d, &[2600, 3], 21);
        let x = c.to_device(dev).unwrap();
        check(&format!("{d} [2600, 3]"), &x, &c, 0);
        let (xf, cf) = (x.flip(0).unwrap(), c.flip(0).unwrap());
        check(&format!("{d} [2600, 3] flipped"), &xf, &cf, 0);
        let (xt, ct) = (x.transpose([1, 0]).unwrap(), c.transpose([1, 0]).unwrap());
        check(&format!("{d} [3, 2600] transposed"), &xt, &ct, 1);
    }
}

#[test]
fn gpu_sort_radix_specials_and_duplicates_are_stable() {
    let Some(dev) = gpu() else { return };
    // A long row of NaNs (two payloads, both signs), +-0.0 and +-inf only:
    // every element has many equals, so the indices show stability.
    let pat = [
        f32::from_bits(0x7fc0_0001),
        -0.0,
        0.0,
        f32::from_bits(0xffc0_0002),
        f32::INFINITY,
        f32::NEG_INFINITY,
        1.5,
    ];
    let v: Vec<f32> = (0..5000usize).map(|i| pat[(i * 7 + i / 3) % 7]).collect();
    let c = Tensor::from_vec(v.clone(), &[5000]).unwrap();
    let x = c.to_device(dev).unwrap();
    check("f32 specials [5000]", &x, &c, 0);
    // Ascending: -inf, the zeros (in input order, either sign), 1.5, +inf,
    // then the NaNs in input order.
    let i = x.argsort(0, false).unwrap().to_vec::<i32>().unwrap();
    let class = |k: usize| -> u8 {
        let y = v[k];
        if y.is_nan() {
            4
        } else if y == f32::NEG_INFINITY {
            0
        } else if y == 0.0 {
            1
        } else if y == 1.5 {
            2
        } else {
            3
        }
    };
    for w in i.windows(2) {
        let (a, b) = (w[0] as usize, w[1] as usize);
        assert!(
            class(a) < class(b) || (class(a) == class(b) && a < b),
            "{a} before {b}"
        );
    }
}

#[test]
fn gpu_sort_radix_row_of_2_pow_20() {
    let Some(dev) = gpu() else { return };
    // One row of 2^20 f32 (many duplicates, NaNs, zeros of both signs):
    // indices and values against the CPU, both directions.
    let c = sample(DType::F32, &[1 << 20], 77);
    let x = c.to_device(dev).unwrap();
    for desc in [false, true] {
        let (gv, gi) = x.sort(0, desc).unwrap();
        let (cv, ci) = c.sort(0, desc).unwrap();
        assert_eq!(bits(&gi), bits(&ci), "2^20 desc {desc}: indices");
        assert_eq!(bits(&gv), bits(&cv), "2^20 desc {desc}: values");
    }
}

/// searchsorted on the GPU (`src/backend/gpu/search.rs`): the CPU's indices
/// exactly for every dtype, both sides, duplicates, NaNs (several payloads:
/// all one key, above every number), +-0 (one key), a reversed view of a
/// descending tensor as the sorted input, values of any shape and layout,
/// the `sorter` option, and empty inputs.
#[test]
fn gpu_searchsorted_matches_the_cpu() {
    use rnx::ops::search::{SearchSortedOptions, Side};
    let Some(dev) = gpu() else { return };
    for d in DTYPES {
        if !holds(dev, d) {
            continue;
        }
        let a = sample(d, &[300], 91).sort_values(0, false).unwrap();
        let v = sample(d, &[7, 40], 92);
        let (ga, gv) = (a.to_device(dev).unwrap(), v.to_device(dev).unwrap());
        let desc = sample(d, &[120], 93).sort_values(0, true).unwrap();
        let gdesc = desc.to_device(dev).unwrap();
        let shuffled = sample(d, &[64], 94);
        let gshuf = shuffled.to_device(dev).unwrap();
        for side in [Side::Left, Side::Right] {
            let o = SearchSortedOptions {
                side,
                ..Default::default()
            };
            let cases: Vec<(&str, Tensor, Tensor)> = vec![
                (
                    "plain",
                    ga.searchsorted_with(&gv, o.clone()).unwrap(),
                    a.searchsorted_with(&v, o.clone()).unwrap(),
                ),
                (
                    "transposed values, reversed sorted view",
                    gdesc
                        .flip(None)
                        .unwrap()
                        .searchsorted_with(&gv.transpose(None).unwrap(), o.clone())
                        .unwrap(),
                    desc.flip(None)
                        .unwrap()
                        .searchsorted_with(&v.transpose(None).unwrap(), o.clone())
                        .unwrap(),
                ),
                (
                    "sorter",
                    gshuf
                        .searchsorted_with(
                            &gv,
                            SearchSortedOptions {
                                side,
                                sorter: Some(gshuf.argsort(0, false).unwrap()),
                            },
                        )
                        .unwrap(),
                    shuffled
                        .searchsorted_with(
                            &v,
                            SearchSortedOptions {
                                side,
                                sorter: Some(shuffled.argsort(0, false).unwrap()),
                            },
                        )
                        .unwrap(),
                ),
                (
                    "empty sorted",
                    ga.slice(s![..0])
                        .unwrap()
                        .searchsorted_with(&gv, o.clone())
                        .unwrap(),
                    a.slice(s![..0])
                        .unwrap()
                        .searchsorted_with(&v, o.clone())
                        .unwrap(),
                ),
            ];
            for (what, g, c) in cases {
                assert_eq!(g.device(), dev, "{d} {what}: the result left the GPU");
                assert_eq!(g.shape(), c.shape(), "{d} {what}");
                assert_eq!(
                    g.to_vec::<i64>().unwrap(),
                    c.to_vec::<i64>().unwrap(),
                    "{d} {what} {side:?}"
                );
            }
        }
    }
    // Signed zeros are one key wherever the search probes: -0 and 0
    // interleaved in the sorted input, searched both ways.
    for d in [DType::F32, DType::F64, DType::F16, DType::BF16] {
        if !holds(dev, d) {
            continue;
        }
        let z = Tensor::create(d, &[7], &[-1.0, 0.0, -0.0, 0.0, -0.0, f64::NAN, f64::NAN])
            .unwrap()
            .to_device(dev)
            .unwrap();
        let q = Tensor::create(d, &[4], &[-0.0, 0.0, f64::NAN, -f64::NAN])
            .unwrap()
            .to_device(dev)
            .unwrap();
        let left = z.searchsorted(&q).unwrap().to_vec::<i64>().unwrap();
        let o = SearchSortedOptions {
            side: Side::Right,
            ..Default::default()
        };
        let right = z.searchsorted_with(&q, o).unwrap().to_vec::<i64>().unwrap();
        assert_eq!((left, right), (vec![1, 1, 5, 5], vec![5, 5, 7, 7]), "{d}");
    }
}

/// `nonzero` and `argwhere` of GPU tensors compact on the device (a stable
/// argsort of the zero flags, `src/ops/mask.rs`): the CPU's coordinates for
/// every rank, masks longer than a sort block (the radix path), NaN as
/// non-zero, no and all elements non-zero, strided inputs.
#[test]
fn gpu_nonzero_and_argwhere_match_the_cpu() {
    let Some(dev) = gpu() else { return };
    let i64s = |t: &Tensor| {
        assert_eq!(t.device(), dev, "the result left the GPU");
        t.to_vec::<i64>().unwrap()
    };
    let mut s = 0x0dd_ba11_u64;
    let mut bits = |n: usize, p: u64| -> Vec<f64> {
        (0..n)
            .map(|_| {
                s ^= s << 13;
                s ^= s >> 7;
                s ^= s << 17;
                match s % 100 {
                    k if k < p => 0.0,
                    99 => f64::NAN,
                    k => k as f64,
                }
            })
            .collect()
    };
    let shapes: [&[usize]; 7] = [
        &[0],
        &[1],
        &[7],
        &[5000],
        &[3, 4, 5],
        &[2, 3000],
        &[4, 1, 6],
    ];
    for (k, shape) in shapes.iter().enumerate() {
        let n: usize = shape.iter().product();
        for p in [0u64, 50, 100] {
            for d in [DType::U8, DType::F32, DType::I32] {
                let v = bits(n, p);
                let c = Tensor::create(DType::F64, shape, &v)
                    .unwrap()
                    .cast(d)
                    .unwrap();
                let c = if d == DType::U8 {
                    c
                } else {
                    c.mul(-1).unwrap()
                };
                let g = c.to_device(dev).unwrap();
                let (gn, cn) = (g.nonzero().unwrap(), c.nonzero().unwrap());
                assert_eq!(gn.len(), cn.len());
                for (a, b) in gn.iter().zip(&cn) {
                    assert_eq!(
                        i64s(a),
                        b.to_vec::<i64>().unwrap(),
                        "nonzero {shape:?} {d} p {p}"
                    );
                }
                let (ga, ca) = (g.argwhere().unwrap(), c.argwhere().unwrap());
                assert_eq!(ga.shape(), ca.shape(), "argwhere {shape:?} {d}");
                assert_eq!(
                    i64s(&ga),
                    ca.to_vec::<i64>().unwrap(),
                    "argwhere {shape:?} {d} p {p}"
                );
                if k == 5 {
                    // A strided view.
                    let (gv, cv) = (
                        g.slice(s![.., 1..;3]).unwrap(),
                        c.slice(s![.., 1..;3]).unwrap(),
                    );
                    assert_eq!(
                        i64s(&gv.argwhere().unwrap()),
                        cv.argwhere().unwrap().to_vec::<i64>().unwrap()
                    );
                }
            }
        }
    }
}

/// `extract` and `compress` of GPU tensors gather at device-compacted
/// positions, and `set_mask` scatters there: the CPU's values bit for bit,
/// broadcast masks, masks shorter than the axis, every axis, none and all
/// selected, one value or one per position, a strided destination.
#[test]
fn gpu_extract_and_compress_match_the_cpu() {
    let Some(dev) = gpu() else { return };
    for d in DTYPES {
        if !holds(dev, d) {
            continue;
        }
        let x = sample(d, &[6, 700], 95);
        let gx = x.to_device(dev).unwrap();
        let m = sample(DType::U8, &[6, 700], 96).bitwise_and(1).unwrap();
        let row = sample(DType::U8, &[1, 700], 97).bitwise_and(3).unwrap();
        for (what, mask) in [
            ("mask", m.clone()),
            ("broadcast row", row.clone()),
            ("none", Tensor::zeros(DType::U8, &[6, 700]).unwrap()),
            ("all", Tensor::ones(DType::U8, &[1]).unwrap()),
        ] {
            let g = gx.extract(&mask.to_device(dev).unwrap()).unwrap();
            let c = x.extract(&mask).unwrap();
            assert_eq!(g.device(), dev);
            assert_eq!(bits(&g), bits(&c), "extract {what} {d}");
            // set_mask: one value everywhere, then the reversed selection.
            let one = sample(d, &[1], 100);
            let (cx, cg) = (x.copy().unwrap(), gx.copy().unwrap());
            cx.set_mask(&mask, &one).unwrap();
            cg.set_mask(&mask.to_device(dev).unwrap(), &one.to_device(dev).unwrap())
                .unwrap();
            assert_eq!(bits(&cg), bits(&cx), "set_mask one value, {what} {d}");
            let vals = c.flip(None).unwrap();
            cx.set_mask(&mask, &vals).unwrap();
            cg.set_mask(&mask.to_device(dev).unwrap(), &vals.to_device(dev).unwrap())
                .unwrap();
            assert_eq!(bits(&cg), bits(&cx), "set_mask values, {what} {d}");
        }
        // set_mask into a strided view (written through a contiguous copy).
        let (cx, cg) = (x.copy().unwrap(), gx.copy().unwrap());
        let (cv, gv) = (
            cx.slice(s![..;2, 3..;-1]).unwrap(),
            cg.slice(s![..;2, 3..;-1]).unwrap(),
        );
        let vm = sample(DType::U8, cv.shape(), 101).bitwise_and(1).unwrap();
        let v1 = sample(d, &[1], 102);
        cv.set_mask(&vm, &v1).unwrap();
        gv.set_mask(&vm.to_device(dev).unwrap(), &v1.to_device(dev).unwrap())
            .unwrap();
        assert_eq!(bits(&cg), bits(&cx), "set_mask of a strided view {d}");
        let short = sample(DType::U8, &[5], 98).bitwise_and(1).unwrap();
        let long = sample(DType::U8, &[700], 99).bitwise_and(1).unwrap();
        for (what, mask, axis) in [
            ("axis 0, short mask", &short, Some(0isize)),
            ("axis 1", &long, Some(1)),
            ("flat", &long, None),
        ] {
            let g = gx.compress(&mask.to_device(dev).unwrap(), axis).unwrap();
            let c = x.compress(mask, axis).unwrap();
            assert_eq!(g.shape(), c.shape(), "compress {what} {d}");
            assert_eq!(bits(&g), bits(&c), "compress {what} {d}");
        }
    }
}

/// `unique_with` of GPU tensors runs on the device (compare, compaction,
/// gather, cumsum and scatter kernels) and gives the CPU's values bit for
/// bit (the first occurrence's -0/0 and NaN payload), first indices,
/// inverse (in the input's shape) and counts: every dtype the adapter
/// holds, data with many duplicates, +-0 and NaNs, 2-D and strided inputs,
/// one element and none; every result stays on the GPU.
#[test]
fn gpu_unique_matches_the_cpu() {
    use rnx::ops::search::UniqueOptions;
    let Some(dev) = gpu() else { return };
    let all = UniqueOptions {
        return_index: true,
        return_inverse: true,
        return_counts: true,
    };
    for (k, d) in DTYPES.into_iter().enumerate() {
        if !holds(dev, d) {
            continue;
        }
        for shape in [&[0usize][..], &[1], &[9, 37], &[3000]] {
            let c = sample(d, shape, 50 + k as u64);
            let views: [Tensor; 2] = [c.clone(), c.flip(0).unwrap()];
            for c in views {
                let g = c.to_device(dev).unwrap();
                let w = format!("{d} {shape:?}");
                let (gu, cu) = (g.unique_with(all).unwrap(), c.unique_with(all).unwrap());
                assert_eq!(gu.values.device(), dev, "{w}");
                assert_eq!(bits(&gu.values), bits(&cu.values), "{w}: values");
                for (name, gx, cx) in [
                    ("indices", &gu.indices, &cu.indices),
                    ("inverse", &gu.inverse, &cu.inverse),
                    ("counts", &gu.counts, &cu.counts),
                ] {
                    let (gx, cx) = (gx.as_ref().unwrap(), cx.as_ref().unwrap());
                    assert_eq!(gx.device(), dev, "{w}: {name}");
                    assert_eq!(gx.shape(), cx.shape(), "{w}: {name}");
                    assert_eq!(bits(gx), bits(cx), "{w}: {name}");
                }
                // Values only (integers skip the argsort).
                assert_eq!(bits(&g.unique().unwrap()), bits(&cu.values), "{w}: unique");
            }
        }
    }
}
