//! GPU reductions and arg-reductions against the CPU on the same data: exact
//! for integers, max/min/all/any/argmax/argmin; within stated bounds for float
//! sums, means, variances. Views (transposed, flipped, stepped) are taken on
//! the GPU tensor, so the kernels see strided layouts. Without an adapter the
//! tests print "skipped" and pass, unless RNX_REQUIRE_GPU=1.
#![allow(clippy::type_complexity)] // tables of view/op closures

use super::gpu::{assert_within, gpu};
use rnx::ops::index::Index;
use rnx::{DType, Device, Tensor};

const GPU: Device = Device::Gpu(0);

/// Deterministic values: integers in `lo..hi` (as f64).
fn ints(n: usize, lo: i64, hi: i64, seed: u64) -> Vec<f64> {
    let mut s = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (lo + ((s >> 33) % (hi - lo) as u64) as i64) as f64
        })
        .collect()
}

fn data(dtype: DType, shape: &[usize], seed: u64) -> Tensor {
    let n: usize = shape.iter().product();
    if dtype.is_float() {
        Tensor::randn(DType::F64, shape, seed)
            .unwrap()
            .cast(dtype)
            .unwrap()
    } else {
        let (lo, hi) = match dtype {
            DType::U8 => (0, 256),
            DType::I8 => (-128, 128),
            DType::U16 => (0, 65536),
            _ => (-100_000, 100_000),
        };
        let mut v = ints(n, lo, hi, seed);
        // Some zeros so that all/any see both answers.
        for (i, x) in v.iter_mut().enumerate() {
            if i % 7 == 3 {
                *x = 0.0;
            }
        }
        Tensor::create(dtype, shape, &v).unwrap()
    }
}

/// Values as f64 (exact for every dtype used here but large i64).
fn f64s(t: &Tensor) -> Vec<f64> {
    t.cast(DType::F64).unwrap().to_vec::<f64>().unwrap()
}

/// Integers as i64 (exact).
fn i64s(t: &Tensor) -> Vec<i64> {
    t.cast(DType::I64).unwrap().to_vec::<i64>().unwrap()
}

/// Run `op` on the CPU on `view(base)` and on the GPU on `view(base on gpu)`;
/// returns (cpu, gpu result back on the CPU).
fn both(
    base: &Tensor,
    view: &dyn Fn(&Tensor) -> Tensor,
    op: &dyn Fn(&Tensor) -> Tensor,
) -> (Tensor, Tensor) {
    let c = op(&view(base));
    let g = op(&view(&base.to_device(GPU).unwrap()));
    assert_eq!(g.device(), GPU);
    let g = g.to_device(Device::Cpu).unwrap();
    assert_eq!(c.shape(), g.shape());
    assert_eq!(c.dtype(), g.dtype());
    (c, g)
}

fn exact(c: &Tensor, g: &Tensor, what: &str) {
    if c.dtype().is_float() {
        let (a, b) = (f64s(c), f64s(g));
        for (i, (x, y)) in a.iter().zip(&b).enumerate() {
            assert!(
                x.to_bits() == y.to_bits() || (x.is_nan() && y.is_nan()),
                "{what}: element {i}: cpu {x} gpu {y}"
            );
        }
    } else {
        assert_eq!(i64s(c), i64s(g), "{what}");
    }
}

type View = (&'static str, fn(&Tensor) -> Tensor);

/// Views of a rank-3 base [a, b, c].
fn views() -> Vec<View> {
    vec![
        ("contiguous", |t| t.clone()),
        ("transposed", |t| t.transpose([2, 0, 1]).unwrap()),
        ("flipped", |t| t.flip([0, 2]).unwrap()),
        ("stepped", |t| {
            t.slice([
                Index::all(),
                Index::R(None, None, 2),
                Index::R(None, None, -3),
            ])
            .unwrap()
        }),
    ]
}

fn axes_sets() -> Vec<Option<Vec<isize>>> {
    vec![
        None,
        Some(vec![1]),
        Some(vec![0, 2]),
        Some(vec![-1]),
        Some(vec![]),
        Some(vec![0, 1, 2]),
    ]
}

/// Every reduction on one dtype, every view, every axes set, keepdims both.
fn all_reductions(dtype: DType, shape: &[usize], rtol: f64) {
    let base = data(dtype, shape, 7);
    for (vname, view) in views() {
        for axes in axes_sets() {
            for keep in [false, true] {
                let ax = axes.as_deref();
                let what = |op: &str| format!("{dtype:?} {op} {vname} axes {axes:?} keep {keep}");
                let ex: Vec<(&str, Box<dyn Fn(&Tensor) -> Tensor>)> = vec![
                    ("max", Box::new(move |t: &Tensor| t.max(ax, keep).unwrap())),
                    ("min", Box::new(move |t: &Tensor| t.min(ax, keep).unwrap())),
                    ("all", Box::new(move |t: &Tensor| t.all(ax, keep).unwrap())),
                    ("any", Box::new(move |t: &Tensor| t.any(ax, keep).unwrap())),
                ];
                for (name, f) in &ex {
                    let (c, g) = both(&base, &view, f.as_ref());
                    exact(&c, &g, &what(name));
                }
                let sums: Vec<(&str, Box<dyn Fn(&Tensor) -> Tensor>)> = vec![
                    ("sum", Box::new(move |t: &Tensor| t.sum(ax, keep).unwrap())),
                    (
                        "prod",
                        Box::new(move |t: &Tensor| t.prod(ax, keep).unwrap()),
                    ),
                ];
                for (name, f) in &sums {
                    let (c, g) = both(&base, &view, f.as_ref());
                    if dtype.is_float() {
                        assert_within(&what(name), &g, &c, rtol, rtol);
                    } else {
                        exact(&c, &g, &what(name));
                    }
                }
                if dtype.is_float() {
                    // ddof 1 needs at least 2 reduced elements.
                    let ddof = usize::from(axes.as_ref().is_none_or(|a| !a.is_empty()));
                    let stats: Vec<(&str, Box<dyn Fn(&Tensor) -> Tensor>)> = vec![
                        (
                            "mean",
                            Box::new(move |t: &Tensor| t.mean(ax, keep).unwrap()),
                        ),
                        (
                            "var0",
                            Box::new(move |t: &Tensor| t.var(ax, keep, 0).unwrap()),
                        ),
                        (
                            "std",
                            Box::new(move |t: &Tensor| t.std(ax, keep, ddof).unwrap()),
                        ),
                    ];
                    for (name, f) in &stats {
                        let (c, g) = both(&base, &view, f.as_ref());
                        assert_within(&what(name), &g, &c, rtol, rtol);
                    }
                }
            }
        }
    }
}

#[test]
fn gpu_reduce_f32_views_axes() {
    if gpu().is_none() {
        return;
    }
    // Counts here are at most 6 * 7 * 5 = 210: the sum bound is
    // (1 + 8) * 2^-24 * sum|x|, well inside 1e-5 relative plus 1e-5 absolute
    // for unit-normal data of these sizes.
    all_reductions(DType::F32, &[6, 7, 5], 1e-5);
}

#[test]
fn gpu_reduce_other_dtypes() {
    if gpu().is_none() {
        return;
    }
    // Halves: both devices accumulate in f32 and round once; the two f32
    // results differ by far less than one half ulp, so the stored values are
    // equal or one half ulp apart (2^-10 resp. 2^-7 relative).
    all_reductions(DType::F16, &[4, 6, 5], 2e-3);
    all_reductions(DType::BF16, &[4, 6, 5], 1.6e-2);
    for d in [DType::I32, DType::U8, DType::I8, DType::U16] {
        all_reductions(d, &[4, 6, 5], 0.0);
    }
    let info = &rnx::gpu_devices()[0];
    if info.f64 && info.i64 {
        all_reductions(DType::F64, &[4, 6, 5], 1e-13);
    }
    if info.i64 {
        all_reductions(DType::I64, &[4, 6, 5], 0.0);
    }
}

#[test]
fn gpu_reduce_empty_and_nan() {
    if gpu().is_none() {
        return;
    }
    for d in [DType::F32, DType::F16, DType::I32, DType::U8] {
        let base = Tensor::zeros(d, &[3, 0, 2]).unwrap();
        let id = |t: &Tensor| t.clone();
        let ops: Vec<Box<dyn Fn(&Tensor) -> Tensor>> = vec![
            Box::new(|t| t.sum([1], false).unwrap()),
            Box::new(|t| t.prod([1], true).unwrap()),
            Box::new(|t| t.all([1], false).unwrap()),
            Box::new(|t| t.any([1], false).unwrap()),
        ];
        for f in &ops {
            let (c, g) = both(&base, &id, f.as_ref());
            exact(&c, &g, &format!("{d:?} empty"));
        }
        if d.is_float() {
            let ops: Vec<Box<dyn Fn(&Tensor) -> Tensor>> = vec![
                Box::new(|t| t.mean([1], false).unwrap()),
                Box::new(|t| t.var([1], false, 0).unwrap()),
                Box::new(|t| t.std([1], false, 0).unwrap()),
            ];
            for f in &ops {
                let (c, g) = both(&base, &id, f.as_ref());
                assert!(f64s(&g).iter().all(|v| v.is_nan()));
                exact(&c, &g, &format!("{d:?} empty stat"));
            }
        }
    }
    // NaN propagates through max/min and wins argmax/argmin (the first NaN).
    for d in [DType::F32, DType::F16, DType::BF16] {
        let mut v: Vec<f64> = ints(5 * 300, -50, 50, 3);
        v[7] = f64::NAN;
        v[300 + 250] = f64::NAN;
        v[300 + 260] = f64::NAN;
        v[1200 + 299] = f64::NAN;
        let base = Tensor::create(d, &[5, 300], &v).unwrap();
        let id = |t: &Tensor| t.clone();
        let ops: Vec<Box<dyn Fn(&Tensor) -> Tensor>> = vec![
            Box::new(|t| t.max([1], false).unwrap()),
            Box::new(|t| t.min([-1], false).unwrap()),
            Box::new(|t| t.max(None, false).unwrap()),
            Box::new(|t| t.argmax(Some(1), false).unwrap()),
            Box::new(|t| t.argmin(Some(1), true).unwrap()),
            Box::new(|t| t.argmax(Some(0), false).unwrap()),
            Box::new(|t| t.all([1], false).unwrap()),
            Box::new(|t| t.any([0], false).unwrap()),
        ];
        for (k, f) in ops.iter().enumerate() {
            let (c, g) = both(&base, &id, f.as_ref());
            exact(&c, &g, &format!("{d:?} nan op {k}"));
        }
    }
}

#[test]
fn gpu_arg_reduce() {
    if gpu().is_none() {
        return;
    }
    let mut dts = vec![DType::F32, DType::F16, DType::I32, DType::U8, DType::I8];
    if rnx::gpu_devices()[0].i64 {
        dts.push(DType::I64);
    }
    for d in dts {
        // Few distinct values: many ties, the first must win.
        let v = ints(6 * 300 * 4, 0, 5, 11);
        let base = Tensor::create(d, &[6, 300, 4], &v).unwrap();
        for (vname, view) in views() {
            for axis in [0isize, 1, 2, -1] {
                for keep in [false, true] {
                    let fs: Vec<Box<dyn Fn(&Tensor) -> Tensor>> = vec![
                        Box::new(move |t| t.argmax(Some(axis), keep).unwrap()),
                        Box::new(move |t| t.argmin(Some(axis), keep).unwrap()),
                    ];
                    for f in &fs {
                        let (c, g) = both(&base, &view, f.as_ref());
                        exact(
                            &c,
                            &g,
                            &format!("{d:?} arg {vname} axis {axis} keep {keep}"),
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn gpu_reduce_many_outputs() {
    if gpu().is_none() {
        return;
    }
    // 70,001 outputs: past the 65,535 workgroups of one dispatch dimension.
    let base = data(DType::F32, &[70_001, 3], 5);
    let id = |t: &Tensor| t.clone();
    let (c, g) = both(&base, &id, &|t| t.max([1], false).unwrap());
    exact(&c, &g, "max many");
    let (c, g) = both(&base, &id, &|t| t.sum([1], false).unwrap());
    assert_within("sum many", &g, &c, 1e-6, 1e-6);
    let (c, g) = both(&base, &id, &|t| t.argmin(Some(1), false).unwrap());
    exact(&c, &g, "argmin many");
    // Sub-word output words shared by neighbouring workgroups.
    let base = data(DType::U8, &[70_001, 2], 6);
    let (c, g) = both(&base, &id, &|t| t.sum([1], false).unwrap());
    exact(&c, &g, "u8 sum many");
    let (c, g) = both(&base, &id, &|t| t.any([1], false).unwrap());
    exact(&c, &g, "u8 any many");
}

#[test]
fn gpu_sum_error_bound() {
    if gpu().is_none() {
        return;
    }
    // 2^20 + 3 contiguous elements: the row kernel in two passes (bound
    // stated in src/backend/gpu/reduce.rs): chunks of c = 4096 with t = 256
    // invocations, ceil(c / 4t) + 2 + log2 t = 14 roundings; then the 257
    // partials with t = 32, ceil(257 / 128) + 2 + 5 = 10:
    // |err| <= k u / (1 - k u) * sum|x|, k = 24, u = 2^-24.
    let n = (1 << 20) + 3;
    let x64 = Tensor::randn(DType::F64, &[n], 21).unwrap();
    let v = x64.to_vec::<f64>().unwrap();
    let x = x64.cast(DType::F32).unwrap();
    let xs: Vec<f64> = f64s(&x);
    let exact_sum: f64 = xs.iter().sum(); // f64: error ~1e-16 relative, negligible
    let abs_sum: f64 = xs.iter().map(|v| v.abs()).sum();
    let g = x.to_device(GPU).unwrap().sum(None, false).unwrap();
    let g = g.item::<f32>().unwrap() as f64;
    let k = 24.0;
    let u = 2f64.powi(-24);
    let bound = k * u / (1.0 - k * u) * abs_sum;
    let err = (g - exact_sum).abs();
    eprintln!(
        "gpu_sum_error_bound: n {n}, |err| {err:.3e}, |err|/sum|x| {:.3e}, bound {bound:.3e}",
        err / abs_sum
    );
    assert!(err <= bound, "error {err} above bound {bound}");
    // The mean and variance of the same data against f64.
    let mean = exact_sum / n as f64;
    let var: f64 = xs.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / n as f64;
    let gx = x.to_device(GPU).unwrap();
    let gm = gx.mean(None, false).unwrap().item::<f32>().unwrap() as f64;
    let gv = gx.var(None, false, 0).unwrap().item::<f32>().unwrap() as f64;
    eprintln!(
        "gpu_sum_error_bound: mean err {:.3e}, var rel err {:.3e}",
        (gm - mean).abs(),
        (gv - var).abs() / var
    );
    assert!((gm - mean).abs() <= bound / n as f64 * 1.01 + 1e-12);
    assert!((gv - var).abs() / var <= 1e-4);
    let _ = v;
}

#[test]
fn gpu_softmax_family() {
    if gpu().is_none() {
        return;
    }
    // WGSL exp/log are built-ins of vendor-defined precision: the bound
    // asserted is 1e-5 relative + 1e-6 absolute for f32 (the largest error
    // measured is printed), one half ulp (plus f32 noise) for f16/bf16.
    for (d, rtol) in [
        (DType::F32, 1e-5),
        (DType::F16, 2e-3),
        (DType::BF16, 1.6e-2),
        // f64 computes in f64 with rnx's 1 ULP exp/log (softmax.rs).
        (DType::F64, 1e-13),
    ] {
        let atol = if d == DType::F64 { 1e-15 } else { 1e-6 };
        let v: Vec<f64> = Tensor::randn(DType::F64, &[6 * 7 * 5], 9)
            .unwrap()
            .to_vec::<f64>()
            .unwrap()
            .iter()
            .map(|x| 4.0 * x)
            .collect();
        let base = Tensor::create(DType::F64, &[6, 7, 5], &v)
            .unwrap()
            .cast(d)
            .unwrap();
        let mut worst = 0f64;
        for (vname, view) in views() {
            for axes in [None, Some(vec![1isize]), Some(vec![0, 2]), Some(vec![-1])] {
                let ax = axes.clone();
                let fs: Vec<(&str, Box<dyn Fn(&Tensor) -> Tensor>)> = vec![
                    ("softmax", {
                        let ax = ax.clone();
                        Box::new(move |t: &Tensor| t.softmax(ax.as_deref()).unwrap())
                    }),
                    ("log_softmax", {
                        let ax = ax.clone();
                        Box::new(move |t: &Tensor| t.log_softmax(ax.as_deref()).unwrap())
                    }),
                    ("logsumexp", {
                        let ax = ax.clone();
                        Box::new(move |t: &Tensor| t.logsumexp(ax.as_deref(), true).unwrap())
                    }),
                ];
                for (name, f) in &fs {
                    let (c, g) = both(&base, &view, f.as_ref());
                    assert_within(
                        &format!("{d:?} {name} {vname} {axes:?}"),
                        &g,
                        &c,
                        rtol,
                        atol,
                    );
                    for (x, y) in f64s(&c).iter().zip(f64s(&g)) {
                        worst = worst.max((x - y).abs() / x.abs().max(1e-6));
                    }
                }
            }
        }
        eprintln!("gpu_softmax_family: {d:?} largest relative difference to the CPU {worst:.3e}");
    }
}

#[test]
fn gpu_scan_bit_identical() {
    if gpu().is_none() {
        return;
    }
    let mut dts = vec![
        DType::F32,
        DType::F16,
        DType::BF16,
        DType::I32,
        DType::U8,
        DType::I8,
    ];
    let info = &rnx::gpu_devices()[0];
    if info.f64 && info.i64 {
        dts.push(DType::F64);
    }
    if info.i64 {
        dts.push(DType::I64);
    }
    for d in dts {
        let base = data(d, &[5, 40, 6], 13);
        for (vname, view) in views() {
            for axis in [0isize, 1, -1] {
                let fs: Vec<Box<dyn Fn(&Tensor) -> Tensor>> = vec![
                    Box::new(move |t| t.cumsum(axis).unwrap()),
                    Box::new(move |t| t.cumprod(axis).unwrap()),
                ];
                for f in &fs {
                    let (c, g) = both(&base, &view, f.as_ref());
                    exact(&c, &g, &format!("{d:?} scan {vname} axis {axis}"));
                }
            }
        }
    }
}

/// Reductions, arg-reductions and scans over more elements per output than
/// one workgroup pass takes (two passes, chunked scans), against exact
/// answers: before they were chunked, lavapipe's loop limit made `ones(n)`
/// sum to 65534 and argmax of arange(n) stop at 8388224 for n >= 2^23.
#[test]
fn gpu_long_reductions() {
    if gpu().is_none() {
        return;
    }
    let n = (1usize << 23) + 77;
    let ones = Tensor::ones(DType::F32, &[n])
        .unwrap()
        .to_device(GPU)
        .unwrap();
    assert_eq!(
        ones.sum(None, false).unwrap().item::<f32>().unwrap(),
        n as f32
    );
    assert_eq!(ones.mean(None, false).unwrap().item::<f32>().unwrap(), 1.0);
    let ar = Tensor::arange(DType::I32, 0, n as i64, 1).unwrap();
    let g = ar.to_device(GPU).unwrap();
    let last = n as i32 - 1;
    assert_eq!(g.argmax(None, false).unwrap().item::<i32>().unwrap(), last);
    assert_eq!(g.argmin(None, false).unwrap().item::<i32>().unwrap(), 0);
    assert_eq!(g.max(None, false).unwrap().item::<i32>().unwrap(), last);
    assert_eq!(g.min(None, false).unwrap().item::<i32>().unwrap(), 0);
    // Wrapping i32 sum of 0..n: n (n - 1) / 2 mod 2^32.
    let want = ((n as u64 * (n as u64 - 1) / 2) as u32) as i32;
    assert_eq!(g.sum(None, false).unwrap().item::<i32>().unwrap(), want);
    // The extreme in the middle of a chunk, with ties: the first wins.
    let mut v = vec![1.0f64; n];
    v[5_000_001] = 7.0;
    v[6_000_000] = 7.0;
    v[123] = -3.0;
    v[8_000_000] = -3.0;
    let f = Tensor::create(DType::F16, &[n], &v)
        .unwrap()
        .to_device(GPU)
        .unwrap();
    assert_eq!(
        f.argmax(None, false).unwrap().item::<i32>().unwrap(),
        5_000_001
    );
    assert_eq!(f.argmin(None, false).unwrap().item::<i32>().unwrap(), 123);
    assert_eq!(
        f.max(None, false)
            .unwrap()
            .cast(DType::F64)
            .unwrap()
            .item::<f64>()
            .unwrap(),
        7.0
    );
    // f16 accumulates in f32: the mean (n + 4) / n rounds to 1 in f16.
    let mean = f.mean(None, false).unwrap().cast(DType::F64).unwrap();
    assert_eq!(mean.item::<f64>().unwrap(), 1.0);
    // The first NaN wins argmax; all/any see one element far out.
    v[7_777_777] = f64::NAN;
    let f = Tensor::create(DType::F32, &[n], &v)
        .unwrap()
        .to_device(GPU)
        .unwrap();
    assert_eq!(
        f.argmax(None, false).unwrap().item::<i32>().unwrap(),
        7_777_777
    );
    assert!(f.max(None, false).unwrap().item::<f32>().unwrap().is_nan());
    let mut b = vec![1.0f64; n];
    b[n - 2] = 0.0;
    let bt = Tensor::create(DType::U8, &[n], &b)
        .unwrap()
        .to_device(GPU)
        .unwrap();
    assert_eq!(bt.all(None, false).unwrap().item::<u8>().unwrap(), 0);
    assert_eq!(bt.any(None, false).unwrap().item::<u8>().unwrap(), 1);
    let z = Tensor::zeros(DType::U8, &[n])
        .unwrap()
        .to_device(GPU)
        .unwrap();
    assert_eq!(z.any(None, false).unwrap().item::<u8>().unwrap(), 0);
    // Several outputs, strided: columns of a [m, 3] tensor (reduce axis 0).
    let m = 40_003;
    let base = data(DType::I32, &[m, 3], 31);
    let id = |t: &Tensor| t.clone();
    for f in [
        (|t: &Tensor| t.sum([0], false).unwrap()) as fn(&Tensor) -> Tensor,
        |t| t.max([0], true).unwrap(),
        |t| t.prod([0], false).unwrap(),
        |t| t.argmax(Some(0), false).unwrap(),
        |t| t.argmin(Some(0), true).unwrap(),
        |t| t.cumsum(0).unwrap(),
        |t| t.cumprod(0).unwrap(),
    ] {
        let (c, g) = both(&base, &id, &f);
        exact(&c, &g, "i32 [40003, 3] axis 0");
        let (c, g) = both(&base, &|t: &Tensor| t.flip(None).unwrap(), &f);
        exact(&c, &g, "i32 [40003, 3] flipped, axis 0");
    }
    // A float mean over two axes, and a long f32 scan (carries added in
    // another order than the CPU's: within the float sum bound).
    let base = data(DType::F32, &[300, 4, 200], 32);
    let (c, g) = both(&base, &id, &|t| t.mean([0, 2], false).unwrap());
    assert_within("f32 mean over axes 0, 2", &g, &c, 1e-5, 1e-6);
    let (c, g) = both(&ones.to_device(Device::Cpu).unwrap(), &id, &|t| {
        t.cumsum(0).unwrap()
    });
    exact(&c, &g, "f32 cumsum of ones (exact below 2^24)");
    let base = data(DType::F32, &[3, 50_000], 33);
    let (c, g) = both(&base, &id, &|t| t.cumsum(1).unwrap());
    assert_within("f32 cumsum of long rows", &g, &c, 1e-4, 1e-3);
}

#[test]
fn general_kernels_at_every_lane_count() {
    if gpu().is_none() {
        return;
    }
    // Rows of n elements read backwards (stride -1: the general kernel, not
    // the row kernel), reduced along the rows and the columns: one invocation
    // per output for n <= 8, then 2, 4, ... up to 256, with several outputs
    // side by side in a workgroup (u8 outputs sharing 32-bit words too).
    let flip = |t: &Tensor| t.flip([1]).unwrap();
    for n in [
        1usize, 2, 3, 7, 8, 9, 15, 16, 17, 63, 64, 65, 255, 256, 257, 1023, 1024, 1025, 2049, 5000,
    ] {
        let base = data(DType::F32, &[7, n], n as u64);
        for axis in [1isize, 0] {
            let (c, g) = both(&base, &flip, &|t| t.max([axis], false).unwrap());
            exact(&c, &g, &format!("max n {n} axis {axis}"));
            let (c, g) = both(&base, &flip, &|t| t.argmax(Some(axis), false).unwrap());
            exact(&c, &g, &format!("argmax n {n} axis {axis}"));
            let (c, g) = both(&base, &flip, &|t| t.argmin(Some(axis), true).unwrap());
            exact(&c, &g, &format!("argmin n {n} axis {axis}"));
            let (c, g) = both(&base, &flip, &|t| t.sum([axis], false).unwrap());
            assert_within(&format!("sum n {n} axis {axis}"), &g, &c, 1e-5, 1e-5);
            let (c, g) = both(&base, &flip, &|t| t.mean([axis], false).unwrap());
            assert_within(&format!("mean n {n} axis {axis}"), &g, &c, 1e-5, 1e-5);
        }
        if n > 1 {
            let (c, g) = both(&base, &flip, &|t| t.var([1], false, 1).unwrap());
            assert_within(&format!("var n {n}"), &g, &c, 1e-4, 1e-5);
        }
        let small = data(DType::U8, &[7, n], n as u64 + 1);
        let (c, g) = both(&small, &flip, &|t| t.sum([1], false).unwrap());
        exact(&c, &g, &format!("u8 sum n {n}"));
    }
}

/// The reduction and softmax tests of this file again in a child process whose
/// launches dispatch at most 3 workgroups (`RNX_GPU_MAX_GROUPS=3`, read
/// once per process): every kernel strides over the work items the other
/// workgroups would have taken, on the fast kernels and (`RNX_GPU_FAST=0`)
/// the general ones. In the child this test does nothing.
#[test]
fn kernels_stride_past_the_dispatch_limit() {
    if gpu().is_none() || std::env::var_os("RNX_GPU_MAX_GROUPS").is_some() {
        return;
    }
    for fast in ["1", "0"] {
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .env("RNX_GPU_MAX_GROUPS", "3")
            .env("RNX_GPU_FAST", fast)
            .env("RNX_REQUIRE_GPU", "1")
            .args([
                "gpu_reduce::gpu_reduce_f32_views_axes",
                "gpu_reduce::gpu_arg_reduce",
                "gpu_reduce::gpu_reduce_many_outputs",
                "gpu_reduce::general_kernels_at_every_lane_count",
                "gpu_reduce::gpu_softmax_family",
                "--test-threads=2",
            ])
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout).into_owned()
            + &String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && text.contains("test result: ok. 5 passed"),
            "the reduction tests with RNX_GPU_MAX_GROUPS=3 RNX_GPU_FAST={fast}:\n{text}"
        );
    }
}
