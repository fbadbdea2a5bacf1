//! GPU var/std and softmax/log_softmax/logsumexp over long groups, which run
//! in several passes (per-chunk partials, then a combine) above 16,384
//! elements per output (`src/backend/gpu/reduce.rs`), against the CPU on the
//! same data: groups just below, at and above that threshold, above the old
//! one-workgroup limit of 2^21 elements, strided views, several outputs, and
//! NaN / infinity propagation. Without an adapter the tests print "skipped"
//! and pass, unless RNX_REQUIRE_GPU=1.

use super::gpu::gpu;
use rnx::{DType, Device, Tensor};

const GPU: Device = Device::Gpu(0);

/// The multi-pass threshold of the GPU kernels (elements per output).
const CHUNK: usize = 16_384;

/// `scale * randn` of `shape` in `d`.
fn data(d: DType, shape: &[usize], seed: u64, scale: f64, shift: f64) -> Tensor {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = Tensor::randn(DType::F64, &[n], seed)
        .unwrap()
        .to_vec::<f64>()
        .unwrap()
        .iter()
        .map(|x| scale * x + shift)
        .collect();
    Tensor::create(DType::F64, shape, &v)
        .unwrap()
        .cast(d)
        .unwrap()
}

fn f64s(t: &Tensor) -> Vec<f64> {
    t.cast(DType::F64).unwrap().to_vec::<f64>().unwrap()
}

/// `op` on the CPU and on the GPU (the same view of the same data); the
/// largest relative difference, after asserting `|c - g| <= atol + rtol |c|`
/// element by element (NaN matches NaN, infinities must be equal).
fn compare(base: &Tensor, op: &dyn Fn(&Tensor) -> Tensor, rtol: f64, atol: f64, what: &str) -> f64 {
    let c = op(base);
    let g = op(&base.to_device(GPU).unwrap());
    assert_eq!(g.device(), GPU, "{what}");
    let g = g.to_device(Device::Cpu).unwrap();
    assert_eq!(c.shape(), g.shape(), "{what}");
    assert_eq!(c.dtype(), g.dtype(), "{what}");
    let mut worst = 0f64;
    for (i, (x, y)) in f64s(&c).iter().zip(f64s(&g)).enumerate() {
        let ok = (x.is_nan() && y.is_nan()) || *x == y || (x - y).abs() <= atol + rtol * x.abs();
        assert!(ok, "{what}: element {i}: cpu {x} gpu {y}");
        if x.is_finite() && *x != 0.0 {
            worst = worst.max((x - y).abs() / x.abs());
        }
    }
    worst
}

/// A named view of a test tensor.
type View = (&'static str, fn(&Tensor) -> Tensor);

/// (dtype, relative tolerance of var/std against the CPU): the one- and
/// multi-pass kernels' bound (see reduce.rs) with margin; f16/bf16 results
/// are rounded once to their storage type.
const VAR_DTYPES: [(DType, f64); 4] = [
    (DType::F32, 2e-5),
    (DType::F64, 1e-12),
    (DType::F16, 1e-3),
    (DType::BF16, 8e-3),
];

#[test]
fn gpu_var_std_long_groups() {
    if gpu().is_none() {
        return;
    }
    for (d, rtol) in VAR_DTYPES {
        let mut worst = 0f64;
        // Per output: just below / at the threshold (one pass), just above
        // (two chunks), and several chunks with a short last one.
        for n in [CHUNK - 1, CHUNK, CHUNK + 1, 3 * CHUNK + 77] {
            let x = data(d, &[2, n], n as u64, 3.0, 10.0);
            for ddof in [0, 1] {
                let what = format!("{d:?} n {n} ddof {ddof}");
                worst = worst.max(compare(
                    &x,
                    &|t| t.var([1], false, ddof).unwrap(),
                    rtol,
                    0.0,
                    &format!("var {what}"),
                ));
                worst = worst.max(compare(
                    &x,
                    &|t| t.std([-1], true, ddof).unwrap(),
                    rtol,
                    0.0,
                    &format!("std {what}"),
                ));
            }
        }
        // Strided: reduced axes that are not innermost, a flipped view, and
        // two reduced axes of 150 x 121 elements each.
        let x = data(d, &[150, 3, 121], 5, 2.0, -1.0);
        let views: [View; 2] = [
            ("contiguous", |t| t.clone()),
            ("flipped", |t| t.flip([0, 2]).unwrap()),
        ];
        for (vname, view) in &views {
            worst = worst.max(compare(
                &x,
                &|t| view(t).var([0, 2], false, 1).unwrap(),
                rtol,
                0.0,
                &format!("var {d:?} {vname} axes [0, 2]"),
            ));
            worst = worst.max(compare(
                &x,
                &|t| view(t).std(None, false, 0).unwrap(),
                rtol,
                0.0,
                &format!("std {d:?} {vname} all"),
            ));
        }
        eprintln!("gpu_var_std_long_groups: {d:?} largest relative difference {worst:.3e}");
    }
}

#[test]
fn gpu_var_std_past_old_limit_and_specials() {
    if gpu().is_none() {
        return;
    }
    // Just below and above 2^21 elements (the old limit of the one-workgroup
    // kernel, past which var/std went through the CPU).
    for n in [(1 << 21) - 3, (1 << 21) + 5] {
        let x = data(DType::F32, &[n], 21, 1.5, 100.0);
        let w = compare(
            &x,
            &|t| t.var(None, false, 1).unwrap(),
            2e-5,
            0.0,
            &format!("var f32 n {n}"),
        );
        eprintln!("gpu_var_std_past_old_limit: n {n} relative difference {w:.3e}");
    }
    // NaN and infinity in one chunk of a long group: NaN results, as on the
    // CPU; the other row is finite.
    let mut v = f64s(&data(DType::F64, &[2, 3 * CHUNK], 8, 1.0, 0.0));
    v[CHUNK + 5] = f64::NAN;
    v[3 * CHUNK + 2 * CHUNK + 9] = f64::INFINITY;
    for d in [DType::F32, DType::F64] {
        let x = Tensor::create(DType::F64, &[2, 3 * CHUNK], &v)
            .unwrap()
            .cast(d)
            .unwrap();
        let g = x
            .to_device(GPU)
            .unwrap()
            .var([1], false, 0)
            .unwrap()
            .to_device(Device::Cpu)
            .unwrap();
        let g = f64s(&g);
        assert!(
            g[0].is_nan() && g[1].is_nan(),
            "{d:?} var with NaN / inf: {g:?}"
        );
        compare(
            &x,
            &|t| t.std([1], false, 0).unwrap(),
            2e-5,
            0.0,
            &format!("std {d:?} NaN / inf"),
        );
    }
}

#[test]
fn gpu_softmax_long_groups() {
    if gpu().is_none() {
        return;
    }
    // The one-pass kernel's bound (gpu_reduce.rs) for f32, half an ulp of
    // the storage type plus f32 noise for f16/bf16.
    for (d, rtol) in [
        (DType::F32, 1e-5),
        (DType::F16, 2e-3),
        (DType::BF16, 1.6e-2),
    ] {
        let mut worst = 0f64;
        let mut cases: Vec<(Tensor, Vec<isize>, &str)> = Vec::new();
        // Exactly CHUNK elements run the one-pass kernel with its largest
        // slot bucket (16 quads), on f32 only: that kernel is the generator's
        // slot loop run longer, the same for every dtype, and each dtype's
        // copy costs lavapipe 4-7 s of shader compilation on CI's one queue
        // thread (issue 26). f16 runs buckets 4 and 8, bf16 bucket 4, in
        // gpu_reduce_fast::softmax_rows, and both the multi-pass path here.
        let lens: &[usize] = if d == DType::F32 {
            &[CHUNK, CHUNK + 1, 3 * CHUNK + 77]
        } else {
            &[CHUNK + 1, 3 * CHUNK + 77]
        };
        for &n in lens {
            cases.push((data(d, &[2, n], n as u64, 4.0, 1.0), vec![1], "rows"));
        }
        // A strided group: axes 0 and 2 of a flipped [150, 3, 121] view.
        let x = data(d, &[150, 3, 121], 11, 4.0, 0.0).flip([0, 2]).unwrap();
        cases.push((x, vec![0, 2], "flipped axes [0, 2]"));
        for (x, axes, what) in &cases {
            let n = x.shape()[axes[0] as usize];
            let ax = axes.clone();
            let what = format!("{d:?} {what} n {n}");
            // f16 results below 2^-14 are subnormal: half an ulp there is
            // 2^-25 absolute (the sums' order decides which way a value
            // near a tie rounds).
            let atol = if d == DType::F16 {
                2f64.powi(-24)
            } else {
                1e-12
            };
            worst = worst.max(compare(
                x,
                &|t| t.softmax(ax.as_slice()).unwrap(),
                rtol,
                atol,
                &format!("softmax {what}"),
            ));
            worst = worst.max(compare(
                x,
                &|t| t.log_softmax(ax.as_slice()).unwrap(),
                rtol,
                1e-6,
                &format!("log_softmax {what}"),
            ));
            worst = worst.max(compare(
                x,
                &|t| t.logsumexp(ax.as_slice(), false).unwrap(),
                rtol,
                1e-6,
                &format!("logsumexp {what}"),
            ));
        }
        eprintln!("gpu_softmax_long_groups: {d:?} largest relative difference {worst:.3e}");
    }
}

#[test]
fn gpu_softmax_past_old_limit_and_specials() {
    if gpu().is_none() {
        return;
    }
    for n in [(1 << 21) - 3, (1 << 21) + 5] {
        let x = data(DType::F32, &[n], 3, 4.0, 0.0);
        let w = compare(
            &x,
            &|t| t.logsumexp(None, true).unwrap(),
            1e-5,
            0.0,
            &format!("logsumexp f32 n {n}"),
        );
        let w2 = compare(
            &x,
            &|t| t.softmax(None).unwrap(),
            1e-5,
            1e-14,
            &format!("softmax f32 n {n}"),
        );
        eprintln!("gpu_softmax_past_old_limit: n {n} relative difference {w:.3e}, {w2:.3e}");
    }
    // Rows of 3 chunks: a NaN in one chunk, +inf in one chunk, all -inf, and
    // a row whose maximum sits in its last chunk only.
    let n = 3 * CHUNK;
    let mut v = f64s(&data(DType::F64, &[4, n], 4, 2.0, 0.0));
    v[CHUNK + 3] = f64::NAN;
    v[n + 2 * CHUNK + 1] = f64::INFINITY;
    for x in &mut v[2 * n..3 * n] {
        *x = f64::NEG_INFINITY;
    }
    v[3 * n + n - 1] = 60.0;
    let x = Tensor::create(DType::F64, &[4, n], &v)
        .unwrap()
        .cast(DType::F32)
        .unwrap();
    for axes in [[1isize], [-1]] {
        compare(
            &x,
            &|t| t.softmax(axes).unwrap(),
            1e-5,
            1e-12,
            "softmax specials",
        );
        compare(
            &x,
            &|t| t.log_softmax(axes).unwrap(),
            1e-5,
            1e-6,
            "log_softmax specials",
        );
        compare(
            &x,
            &|t| t.logsumexp(axes, true).unwrap(),
            1e-5,
            1e-6,
            "logsumexp specials",
        );
    }
}
