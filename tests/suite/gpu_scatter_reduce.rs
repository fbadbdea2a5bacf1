//! The GPU `scatter_reduce` kernel (`src/backend/gpu/scatter_reduce.rs`)
//! against the CPU, bit for bit: every GPU dtype and combination through
//! `scatter_with`, `index_put` and `bincount`, the per-step rounding of the
//! half types, NaN and signed zeros, runs long enough for the CPU round
//! trip, and the backend primitive itself on other axes and strided views.

use crate::gpu::{assert_same, gpu, sample, ALL};
use rnx::backend::ScatterOp;
use rnx::ops::search::BincountOptions;
use rnx::ops::take::{IndexPutOptions, ScatterMode, ScatterOptions};
use rnx::{DType, Device, Tensor};

/// `n` positions in `0..len`, most of them in the first few (long runs
/// next to single ones), as i64.
fn positions(n: usize, len: usize, seed: u64) -> Vec<i64> {
    let mut s = seed | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let r = (s >> 20) as usize;
            (if r.is_multiple_of(3) { r % 4 } else { r % len }) as i64
        })
        .collect()
}

/// `x.scatter_with(i, u, axis, o)` on the GPU `g` and on the CPU: the same
/// result (asserted, naming `what`); the CPU's returned.
fn both(
    g: Device,
    what: &str,
    x: &Tensor,
    (i, u): (&Tensor, &Tensor),
    axis: isize,
    o: ScatterOptions,
) -> Tensor {
    let on = |t: &Tensor| t.to_device(g).unwrap();
    let c = x.scatter_with(i, u, axis, o).unwrap();
    assert_same(
        what,
        &on(x).scatter_with(&on(i), &on(u), axis, o).unwrap(),
        &c,
    );
    c
}

/// `mode` with the tensor's own values taking part.
fn with(mode: ScatterMode) -> ScatterOptions {
    ScatterOptions {
        mode,
        include_self: true,
    }
}

const MODES: [ScatterMode; 4] = [
    ScatterMode::Add,
    ScatterMode::Multiply,
    ScatterMode::Max,
    ScatterMode::Min,
];

/// Every GPU dtype x add/multiply/max/min x include_self, on a 1-D tensor
/// and along axis 1 of a 2-D one, with repeated positions (runs of up to
/// ~100): the GPU result equals the CPU's.
#[test]
fn every_dtype_and_mode_matches_the_cpu() {
    let Some(g) = gpu() else { return };
    for (k, dt) in ALL.into_iter().enumerate() {
        let seed = 0x5ca7 + k as u64;
        // Factors near 1 keep float products finite over ~100 steps.
        let r = if dt.is_float() { 1.5 } else { 1.0 };
        let x = sample(dt, &[37], seed, r);
        let u = sample(dt, &[300], seed ^ 0xff, r);
        let i = Tensor::create(DType::I64, &[300], &positions(300, 37, seed)).unwrap();
        let x2 = sample(dt, &[3, 9], seed ^ 0x33, r);
        let u2 = sample(dt, &[3, 40], seed ^ 0x44, r);
        let p2: Vec<i64> = positions(120, 9, seed ^ 0x55);
        let i2 = Tensor::create(DType::I64, &[3, 40], &p2).unwrap();
        for mode in MODES {
            for include_self in [true, false] {
                let o = ScatterOptions { mode, include_self };
                let what = format!("{dt} {mode:?} include_self {include_self}");
                both(g, &format!("{what} 1-D"), &x, (&i, &u), 0, o);
                both(g, &format!("{what} axis 1"), &x2, (&i2, &u2), 1, o);
            }
        }
    }
}

/// f16 and bf16 round at every step, as the CPU: `1 + h + h` with `h` half
/// an ulp of 1 stays 1 (each step is a tie to even); summed in f32 first it
/// would be `1 + 2h`.
#[test]
fn halves_round_at_every_step() {
    let Some(g) = gpu() else { return };
    for (dt, h) in [(DType::F16, 2f64.powi(-11)), (DType::BF16, 2f64.powi(-8))] {
        let x = Tensor::create(DType::F64, &[2], &[1.0, 1.0])
            .unwrap()
            .cast(dt)
            .unwrap();
        let u = Tensor::create(DType::F64, &[4], &[h, h, h, 2.0 * h])
            .unwrap()
            .cast(dt)
            .unwrap();
        let i = Tensor::create(DType::I32, &[4], &[0, 0, 1, 1]).unwrap();
        let c = both(
            g,
            &format!("{dt} per-step rounding"),
            &x,
            (&i, &u),
            0,
            with(ScatterMode::Add),
        );
        let got = c.cast(DType::F64).unwrap().to_vec::<f64>().unwrap();
        assert_eq!(got, [1.0, 1.0 + 2.0 * h], "{dt}");
    }
}

/// max/min: a NaN already there stays, a NaN arriving wins, ties (+0 after
/// -0 and the reverse) keep the value there: the CPU's rule, signed zeros
/// compared bit for bit.
#[test]
fn nan_and_signed_zeros() {
    let Some(g) = gpu() else { return };
    let nan = f64::NAN;
    let x = [nan, -0.0, 0.0, 1.0, 2.0, -0.0];
    let u = [5.0, 0.0, -0.0, nan, 3.0, -1.0, 4.0, 0.0];
    let i = [0i32, 1, 2, 3, 4, 3, 4, 5];
    for dt in [DType::F32, DType::F16, DType::F64] {
        let xt = Tensor::create(DType::F64, &[6], &x)
            .unwrap()
            .cast(dt)
            .unwrap();
        let ut = Tensor::create(DType::F64, &[8], &u)
            .unwrap()
            .cast(dt)
            .unwrap();
        let it = Tensor::create(DType::I32, &[8], &i).unwrap();
        for mode in [ScatterMode::Max, ScatterMode::Min] {
            let what = format!("{dt} {mode:?} NaN / signed zeros");
            both(g, &what, &xt, (&it, &ut), 0, with(mode));
        }
    }
}

/// Runs at the kernel's limit (4,096 sources on one element) and past it
/// (the CPU round trip), and `index_put` with `accumulate` and `bincount`
/// with weights, which take the same primitive.
#[test]
fn long_runs_index_put_and_bincount() {
    let Some(g) = gpu() else { return };
    let on = |t: &Tensor| t.to_device(g).unwrap();
    for n in [4096usize, 4097, 9000] {
        let x = sample(DType::F32, &[8], 7, 1.0);
        let u = sample(DType::F32, &[n], 8 + n as u64, 1.0);
        let mut p = vec![2i64; n];
        p[n / 2] = 5;
        let i = Tensor::create(DType::I64, &[n], &p).unwrap();
        both(
            g,
            &format!("run of {n}"),
            &x,
            (&i, &u),
            0,
            with(ScatterMode::Add),
        );
    }
    // Past the limit, the associative combinations run in two passes (the
    // run in chunks of 4,096, then the chunks in order; position 1 gets
    // n - 2 sources, 4,096 for the first n: one pass): integers of every
    // width, max/min of floats. Signed zeros tell the order of the chunks:
    // the run's first zero is -0 (position 10), a +0 lies in a later chunk,
    // and max keeps the first of the largest.
    for n in [4098usize, 4099, 9000, 20_000] {
        let mut p = vec![1i64; n];
        p[7] = 0;
        p[n - 1] = 3;
        let i = Tensor::create(DType::I64, &[n], &p).unwrap();
        for dt in [DType::I32, DType::U8, DType::I16, DType::I64] {
            let x = sample(dt, &[4], 40 + n as u64, 1.0);
            let u = sample(dt, &[n], 41 + n as u64, 1.0);
            for mode in MODES {
                both(
                    g,
                    &format!("{dt} {mode:?} run of {n}"),
                    &x,
                    (&i, &u),
                    0,
                    with(mode),
                );
            }
        }
        let mut v: Vec<f64> = (0..n).map(|k| -1.0 - (k % 7) as f64).collect();
        v[10] = -0.0;
        v[n - 100] = 0.0;
        v[n / 2] = -0.0;
        let mut w = v.clone();
        w[5000.min(n - 2)] = f64::NAN;
        for dt in [DType::F32, DType::F16, DType::F64] {
            for (vals, what) in [(&v, "signed zeros"), (&w, "a NaN")] {
                let x = Tensor::create(DType::F64, &[4], &[-9.0, -9.0, 9.0, 9.0])
                    .unwrap()
                    .cast(dt)
                    .unwrap();
                let u = Tensor::create(DType::F64, &[n], vals)
                    .unwrap()
                    .cast(dt)
                    .unwrap();
                for mode in [ScatterMode::Max, ScatterMode::Min] {
                    let what = format!("{dt} {mode:?} run of {n}, {what}");
                    both(g, &what, &x, (&i, &u), 0, with(mode));
                }
            }
        }
        // The expected maximum of the signed-zero run, by hand: -0 (first).
        let x = Tensor::create(DType::F32, &[4], &[-9.0f32; 4]).unwrap();
        let u = Tensor::create(DType::F64, &[n], &v)
            .unwrap()
            .cast(DType::F32)
            .unwrap();
        let r = on(&x)
            .scatter_with(&on(&i), &on(&u), 0, with(ScatterMode::Max))
            .unwrap()
            .to_device(Device::Cpu)
            .unwrap()
            .to_vec::<f32>()
            .unwrap();
        assert!(r[1] == 0.0 && r[1].is_sign_negative(), "run of {n}: {r:?}");
    }
    let big = Tensor::create(DType::I64, &[30_000], &vec![2i64; 30_000]).unwrap();
    assert_same(
        "bincount of one long run",
        &on(&big).bincount().unwrap(),
        &big.bincount().unwrap(),
    );
    let a = sample(DType::F32, &[6, 5], 11, 3.0);
    let r = Tensor::create(DType::I64, &[7], &[0, 5, 0, 2, 5, 5, 1]).unwrap();
    let c = Tensor::create(DType::I64, &[7], &[4, 4, 4, 0, 1, 4, 2]).unwrap();
    let v = sample(DType::F32, &[7], 12, 3.0);
    let acc = IndexPutOptions { accumulate: true };
    assert_same(
        "index_put accumulate",
        &on(&a)
            .index_put_with(&[&on(&r), &on(&c)], &on(&v), acc)
            .unwrap(),
        &a.index_put_with(&[&r, &c], &v, acc).unwrap(),
    );
    let x = Tensor::create(
        DType::I32,
        &[500],
        &positions(500, 23, 13)
            .iter()
            .map(|&p| p as i32)
            .collect::<Vec<_>>(),
    )
    .unwrap();
    let w = sample(DType::F32, &[500], 14, 2.0);
    let opts = |w: &Tensor| BincountOptions {
        weights: Some(w.clone()),
        minlength: 30,
    };
    assert_same(
        "bincount weights",
        &on(&x).bincount_with(opts(&on(&w))).unwrap(),
        &x.bincount_with(opts(&w)).unwrap(),
    );
    assert_same(
        "bincount",
        &on(&x).bincount().unwrap(),
        &x.bincount().unwrap(),
    );
}

/// The backend primitive itself, as a backend's user calls it: axis 1 of a
/// 3-D destination seen through a transposed, stepped view, a strided
/// source, i32 and i64 indices; the untouched positions of the view and the
/// elements of the base outside it keep their values. An index outside the
/// axis (the frontend never passes one) is an error naming it.
#[test]
fn backend_primitive_on_views() {
    let Some(g) = gpu() else { return };
    for (k, op) in [
        ScatterOp::Add,
        ScatterOp::Mul,
        ScatterOp::Max,
        ScatterOp::Min,
    ]
    .into_iter()
    .enumerate()
    {
        for idt in [DType::I32, DType::I64] {
            let base = sample(DType::F32, &[4, 5, 7], 21 + k as u64, 1.5);
            // dst: [4, 4, 5] (axis 1 has 4 positions, one never named), a
            // view of base.
            let view = |t: &Tensor| {
                t.transpose([0, 2, 1])
                    .unwrap()
                    .slice(rnx::s![.., 0..;2, ..])
                    .unwrap()
            };
            let src_full = sample(DType::F32, &[4, 10, 5], 31 + k as u64, 1.5);
            let src_view = |t: &Tensor| t.slice(rnx::s![.., 1..;2, ..]).unwrap();
            let idx = Tensor::create(DType::I64, &[5], &[2, 0, 2, 2, 1])
                .unwrap()
                .cast(idt)
                .unwrap();
            let (cb, gb) = (base.copy().unwrap(), base.to_device(g).unwrap());
            let (cs, gs) = (src_full.clone(), src_full.to_device(g).unwrap());
            let gi = idx.to_device(g).unwrap();
            cb.backend()
                .scatter_reduce(&src_view(&cs), 1, &idx, &view(&cb), op)
                .unwrap();
            gb.backend()
                .scatter_reduce(&src_view(&gs), 1, &gi, &view(&gb), op)
                .unwrap();
            assert_same(&format!("{op:?} {idt} through a view"), &gb, &cb);
        }
    }
    let dst = Tensor::zeros_on(DType::F32, &[4], g).unwrap();
    let src = Tensor::ones_on(DType::F32, &[2], g).unwrap();
    let bad = Tensor::create(DType::I32, &[2], &[1, 4])
        .unwrap()
        .to_device(g)
        .unwrap();
    let e = dst
        .backend()
        .scatter_reduce(&src, 0, &bad, &dst, ScatterOp::Add)
        .unwrap_err()
        .to_string();
    assert!(e.contains("index 4") && e.contains("0..4"), "{e}");
    let back = dst.to_device(Device::Cpu).unwrap().to_vec::<f32>().unwrap();
    assert_eq!(back, [0.0; 4], "nothing written on an error");
}
