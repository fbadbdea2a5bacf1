//! `take` / `put` / `scatter` on large index tensors (the one-pass position
//! building of `ops/positions.rs` and the CPU gather / scatter-add loops:
//! parallel gather with prefetching, index tensors read in place): brute-force
//! references over every mode, i32 and i64 indices, negative and repeated
//! indices, strided and reversed index views, element sizes 1 to 16 bytes,
//! index tensors that share the written tensor's storage, and errors with
//! nothing written.

use crate::common::Rng;
use rnx::ops::take::{IndexMode, ScatterMode, ScatterOptions, TakeOptions};
use rnx::{DType, Index, Tensor};

/// `m` random indices in `-n..n` (some far outside with `wide`), as an i32
/// or i64 tensor that is contiguous, a step-2 view or a reversed view; and
/// their values in the tensor's logical order.
fn indices(rng: &mut Rng, m: usize, n: usize, i64s: bool, wide: bool) -> (Tensor, Vec<i64>) {
    let span = if wide { 4 * n as u64 } else { 2 * n as u64 };
    let v: Vec<i64> = (0..2 * m)
        .map(|_| (rng.next() % span) as i64 - (span / 2) as i64)
        .collect();
    let base = if i64s {
        Tensor::from_slice(&v, &[2 * m]).unwrap()
    } else {
        let w: Vec<i32> = v.iter().map(|&x| x as i32).collect();
        Tensor::from_slice(&w, &[2 * m]).unwrap()
    };
    match rng.next() % 3 {
        0 => {
            let t = base.slice([Index::range(0, m as isize)]).unwrap();
            (t, v[..m].to_vec())
        }
        1 => {
            let t = base.slice([Index::R(None, None, 2)]).unwrap();
            (t, v.iter().step_by(2).copied().collect())
        }
        _ => {
            let t = base
                .slice([Index::range(0, m as isize)])
                .unwrap()
                .flip(0)
                .unwrap();
            (t, v[..m].iter().rev().copied().collect())
        }
    }
}

/// The 1-D index tensor of `iv`, as i64 or (values that fit) i32.
fn index_tensor(iv: &[i64], i64s: bool) -> Tensor {
    if i64s {
        Tensor::from_slice(iv, &[iv.len()]).unwrap()
    } else {
        let w: Vec<i32> = iv.iter().map(|&j| j as i32).collect();
        Tensor::from_slice(&w, &[w.len()]).unwrap()
    }
}

/// The position of index `k` on an axis of `n` under `mode`, or None
/// (out of range, mode raise).
fn pos(k: i64, n: usize, mode: IndexMode) -> Option<usize> {
    let n = n as i64;
    match mode {
        IndexMode::Raise => (-n..n).contains(&k).then(|| k.rem_euclid(n) as usize),
        IndexMode::Wrap => Some(k.rem_euclid(n) as usize),
        IndexMode::Clip => Some(k.clamp(0, n - 1) as usize),
    }
}

#[test]
fn large_flat_take_every_mode_and_item_size() {
    let mut rng = Rng(0x51ab);
    let n = 300_001;
    for (case, dt) in [DType::U8, DType::I16, DType::F32, DType::F64, DType::C64]
        .into_iter()
        .enumerate()
    {
        let src: Vec<f64> = (0..n).map(|i| (i % 251) as f64 - 125.0).collect();
        let x = Tensor::create(DType::F64, &[n], &src)
            .unwrap()
            .cast(dt)
            .unwrap();
        let xv: Vec<f64> = x.cast(DType::F64).unwrap().to_vec().unwrap();
        for mode in [IndexMode::Raise, IndexMode::Wrap, IndexMode::Clip] {
            let wide = mode != IndexMode::Raise;
            let m = 100_000 + case * 77;
            let (it, iv) = indices(&mut rng, m, n, case % 2 == 0, wide);
            let got = x.take_with(&it, None, TakeOptions { mode }).unwrap();
            let want: Vec<f64> = iv.iter().map(|&k| xv[pos(k, n, mode).unwrap()]).collect();
            let gv: Vec<f64> = got.cast(DType::F64).unwrap().to_vec().unwrap();
            assert_eq!(gv, want, "{dt} {mode:?}");
        }
    }
}

#[test]
fn large_take_along_an_axis() {
    // Rows of 3 along axis 1 of a transposed view: gathers of 3-element runs.
    let mut rng = Rng(0x77);
    let (r, c) = (5, 40_000);
    let base: Vec<f32> = (0..r * c).map(|i| i as f32).collect();
    let x = Tensor::from_slice(&base, &[c, r])
        .unwrap()
        .transpose(None)
        .unwrap(); // [r, c] view
    let (it, iv) = indices(&mut rng, 50_000, c, true, false);
    let got = x.take(&it, 1).unwrap().to_vec::<f32>().unwrap();
    let mut want = Vec::new();
    for i in 0..r {
        for &k in &iv {
            let j = pos(k, c, IndexMode::Raise).unwrap();
            want.push(base[j * r + i]);
        }
    }
    assert_eq!(got, want);
}

#[test]
fn large_scatter_add_is_the_sequential_sum() {
    let mut rng = Rng(0x5ca7);
    let (m, k) = (300_000, 1000);
    let add = ScatterOptions {
        mode: ScatterMode::Add,
        ..Default::default()
    };
    for case in 0..4 {
        let (it, iv) = indices(&mut rng, m, k, case % 2 == 0, false);
        let u: Vec<f32> = (0..m).map(|_| (rng.unit() as f32 - 0.3) * 1e3).collect();
        let init: Vec<f32> = (0..k).map(|i| i as f32 * 0.25).collect();
        let x = Tensor::from_slice(&init, &[k]).unwrap();
        let got = x
            .scatter_with(&it, &Tensor::from_slice(&u, &[m]).unwrap(), 0, add)
            .unwrap();
        // f32 arithmetic in index order: exactly the kernel's order.
        let mut want = init.clone();
        for (&j, &v) in iv.iter().zip(&u) {
            want[pos(j, k, IndexMode::Raise).unwrap()] += v;
        }
        assert_eq!(got.to_vec::<f32>().unwrap(), want, "case {case}");
        assert_eq!(x.to_vec::<f32>().unwrap(), init, "scatter is pure");
        // f64 and wrapping integers.
        let u64s: Vec<f64> = u.iter().map(|&v| v as f64).collect();
        let got = x
            .cast(DType::F64)
            .unwrap()
            .scatter_with(&it, &Tensor::from_slice(&u64s, &[m]).unwrap(), 0, add)
            .unwrap();
        let mut want: Vec<f64> = init.iter().map(|&v| v as f64).collect();
        for (&j, &v) in iv.iter().zip(&u64s) {
            want[pos(j, k, IndexMode::Raise).unwrap()] += v;
        }
        assert_eq!(got.to_vec::<f64>().unwrap(), want);
        let ub: Vec<u8> = (0..m).map(|i| (i * 7 % 256) as u8).collect();
        let got = Tensor::zeros(DType::U8, &[k])
            .unwrap()
            .scatter_with(&it, &Tensor::from_slice(&ub, &[m]).unwrap(), 0, add)
            .unwrap();
        let mut want = vec![0u8; k];
        for (&j, &v) in iv.iter().zip(&ub) {
            let p = pos(j, k, IndexMode::Raise).unwrap();
            want[p] = want[p].wrapping_add(v);
        }
        assert_eq!(got.to_vec::<u8>().unwrap(), want);
    }
}

#[test]
fn take_checks_indices_in_the_gather_loop() {
    // `take` (mode raise) gathers with the backend's loop that checks each
    // index as it reads, with no separate pass. An index out of range at the
    // start, middle or end of a run (one element per index, and rows of
    // several along axis 0, and columns along axis 1) gives the checked
    // path's error; a negative one sends the call back to the checked path,
    // which counts it from the end. Large enough for the parallel split.
    let mut rng = Rng(0x7a6e);
    let (r, c) = (50usize, 700usize);
    let x: Vec<i32> = (0..(r * c) as i32).map(|v| v * 3 - 7).collect();
    let t = Tensor::from_slice(&x, &[r, c]).unwrap();
    let m = 40_000usize;
    for (axis, n) in [(None, r * c), (Some(0isize), r), (Some(1), c)] {
        let base: Vec<i64> = (0..m).map(|_| (rng.next() % n as u64) as i64).collect();
        let nn = n as i64;
        for (late, at) in [
            (None, 0),
            (Some(nn), 0),
            (Some(nn + 5), m / 2),
            (Some(-nn - 1), m - 1),
            (Some(-1), m / 3),
            (Some(-nn), m - 1),
        ] {
            let mut iv = base.clone();
            if let Some(b) = late {
                iv[at] = b;
            }
            for i64s in [true, false] {
                let it = index_tensor(&iv, i64s);
                let what = format!("axis {axis:?} late {late:?} at {at} i64 {i64s}");
                let got = t.take(&it, axis);
                let ok = iv.iter().all(|&j| pos(j, n, IndexMode::Raise).is_some());
                if !ok {
                    let b = late.unwrap();
                    let ax = axis.unwrap_or(0);
                    let msg = format!("take: index {b} is out of bounds for axis {ax} of size {n}");
                    assert_eq!(got.unwrap_err().to_string(), msg, "{what}");
                    continue;
                }
                let got = got.unwrap().to_vec::<i32>().unwrap();
                let p = |j: i64| pos(j, n, IndexMode::Raise).unwrap();
                let want: Vec<i32> = match axis {
                    None => iv.iter().map(|&j| x[p(j)]).collect(),
                    Some(0) => iv
                        .iter()
                        .flat_map(|&j| x[p(j) * c..(p(j) + 1) * c].to_vec())
                        .collect(),
                    _ => (0..r)
                        .flat_map(|i| iv.iter().map(move |&j| (i, j)))
                        .map(|(i, j)| x[i * c + p(j)])
                        .collect(),
                };
                assert_eq!(got, want, "{what}");
            }
        }
    }
}

#[test]
fn scatter_add_and_multiply_check_indices_in_the_loop() {
    // A 1-D add or multiply of contiguous tensors runs the backend's loop that
    // checks each index as it combines (no separate pass). An index out of
    // range at the start, middle or end must give the checked path's error
    // and leave the tensor unchanged; a negative one there (valid, counted
    // from the end) sends the call back to the checked path, which must start
    // from the untouched tensor. References: wrapping i64 arithmetic in index
    // order, cast to the dtype (integers wrap; float values stay exact).
    let mut rng = Rng(0xf05e);
    let (m, k) = (5000usize, 37usize);
    let base: Vec<i64> = (0..m).map(|_| (rng.next() % k as u64) as i64).collect();
    let adds: Vec<i64> = (0..m).map(|_| (rng.next() % 21) as i64 - 10).collect();
    let muls: Vec<i64> = (0..m)
        .map(|_| match rng.next() % 16 {
            0 => 2,
            1..=7 => -1,
            _ => 1,
        })
        .collect();
    let init: Vec<i64> = (0..k as i64).map(|i| i % 5 + 1).collect();
    let kk = k as i64;
    let lates = [
        None,
        Some(-1),
        Some(-kk),
        Some(kk),
        Some(kk + 1000),
        Some(-kk - 1),
    ];
    let dts = [
        DType::F32,
        DType::F64,
        DType::I32,
        DType::U8,
        DType::I64,
        DType::U16,
    ];
    for (case, (&late, at)) in lates
        .iter()
        .zip([0, m / 2, m - 1, 0, m / 2, m - 1])
        .enumerate()
    {
        let mut iv = base.clone();
        if let Some(b) = late {
            iv[at] = b;
        }
        for (mode, vals) in [(ScatterMode::Add, &adds), (ScatterMode::Multiply, &muls)] {
            let opts = ScatterOptions {
                mode,
                ..Default::default()
            };
            let mut want = init.clone();
            let ok = iv.iter().zip(vals.iter()).all(|(&j, &v)| {
                let Some(p) = pos(j, k, IndexMode::Raise) else {
                    return false;
                };
                want[p] = if mode == ScatterMode::Add {
                    want[p].wrapping_add(v)
                } else {
                    want[p].wrapping_mul(v)
                };
                true
            });
            for dt in dts {
                let x = Tensor::from_slice(&init, &[k]).unwrap().cast(dt).unwrap();
                let u = Tensor::from_slice(vals, &[m]).unwrap().cast(dt).unwrap();
                for i64s in [true, false] {
                    let it = index_tensor(&iv, i64s);
                    let what = format!("case {case} {mode:?} {dt} i64 {i64s}");
                    let got = x.scatter_with(&it, &u, 0, opts);
                    let back = |t: &Tensor| t.cast(DType::I64).unwrap().to_vec::<i64>().unwrap();
                    if ok {
                        let w = Tensor::from_slice(&want, &[k]).unwrap().cast(dt).unwrap();
                        assert_eq!(back(&got.unwrap()), back(&w), "{what}");
                    } else {
                        let e = got.unwrap_err().to_string();
                        let b = late.unwrap();
                        let msg =
                            format!("scatter: index {b} is out of bounds for axis 0 of size {k}");
                        assert_eq!(e, msg, "{what}");
                    }
                    let unchanged = Tensor::from_slice(&init, &[k]).unwrap().cast(dt).unwrap();
                    assert_eq!(back(&x), back(&unchanged), "{what}: x unchanged");
                }
            }
        }
    }
}

#[test]
fn scatter_max_with_nan_and_a_2d_grid() {
    // Max along axis 1 of a [300, 50] tensor with [300, 40] indices (the
    // along-axis positions), a NaN among the updates.
    let mut rng = Rng(0x3a);
    let (r, c, w) = (300, 50, 40);
    let x: Vec<f32> = (0..r * c).map(|_| rng.unit() as f32).collect();
    let mut u: Vec<f32> = (0..r * w).map(|_| rng.unit() as f32 * 2.0).collect();
    u[777] = f32::NAN;
    let iv: Vec<i32> = (0..r * w)
        .map(|_| (rng.next() % (2 * c as u64)) as i32 - c as i32)
        .collect();
    let opts = ScatterOptions {
        mode: ScatterMode::Max,
        include_self: true,
    };
    let got = Tensor::from_slice(&x, &[r, c])
        .unwrap()
        .scatter_with(
            &Tensor::from_slice(&iv, &[r, w]).unwrap(),
            &Tensor::from_slice(&u, &[r, w]).unwrap(),
            1,
            opts,
        )
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    let mut want = x.clone();
    for i in 0..r {
        for j in 0..w {
            let p = i * c + pos(iv[i * w + j] as i64, c, IndexMode::Raise).unwrap();
            let v = u[i * w + j];
            if !want[p].is_nan() && (v.is_nan() || v > want[p]) {
                want[p] = v;
            }
        }
    }
    assert_eq!(got.len(), want.len());
    for (a, b) in got.iter().zip(&want) {
        assert!(a == b || (a.is_nan() && b.is_nan()), "{a} vs {b}");
    }
}

#[test]
fn put_with_indices_in_the_written_storage() {
    // The indices are a view of the tensor being written: they are read
    // before anything is written.
    let a = Tensor::arange(DType::I64, 0, 8, 1).unwrap();
    let idx = a.slice([Index::range(2, 5)]).unwrap(); // [2, 3, 4]
    let v = Tensor::from_slice(&[-1i64, -2, -3], &[3]).unwrap();
    a.put(&idx, &v).unwrap();
    assert_eq!(a.to_vec::<i64>().unwrap(), [0, 1, -1, -2, -3, 5, 6, 7]);
    // Repeated: the last wins; reversed view.
    let b = Tensor::from_slice(&[1i64, 1, 0, 3], &[4]).unwrap();
    let ib = b.flip(0).unwrap(); // [3, 0, 1, 1]
    let vb = Tensor::from_slice(&[10i64, 20, 30, 40], &[4]).unwrap();
    b.put(&ib, &vb).unwrap();
    assert_eq!(b.to_vec::<i64>().unwrap(), [20, 40, 0, 10]);
}

#[test]
fn bad_indices_are_errors_and_write_nothing() {
    let n = 70_000;
    let a = Tensor::zeros(DType::F32, &[n]).unwrap();
    let mut iv: Vec<i64> = (0..200_000).map(|i| (i % n) as i64 - 100).collect();
    iv[150_000] = n as i64; // the first bad one
    iv[190_000] = -(n as i64) - 1;
    let it = Tensor::from_slice(&iv, &[iv.len()]).unwrap();
    let v = Tensor::ones(DType::F32, &[iv.len()]).unwrap();
    let add = ScatterOptions {
        mode: ScatterMode::Add,
        ..Default::default()
    };
    for (op, e) in [
        ("put", a.put(&it, &v).unwrap_err()),
        ("take", a.take(&it, None).unwrap_err()),
        ("scatter", a.scatter_with(&it, &v, 0, add).unwrap_err()),
    ] {
        let want = format!("{op}: index 70000 is out of bounds for axis 0 of size 70000");
        assert_eq!(e.to_string(), want);
    }
    assert_eq!(a.sum(None, false).unwrap().item::<f32>().unwrap(), 0.0);
    // -n is valid, and i64 indices beyond i32 wrap exactly.
    let t = Tensor::arange(DType::I32, 0, 10, 1).unwrap();
    let far = Tensor::from_slice(&[-10i64, 1 << 40, -(1 << 40) - 3], &[3]).unwrap();
    assert!(t.take(&far, None).is_err());
    let w = TakeOptions {
        mode: IndexMode::Wrap,
    };
    let got = t.take_with(&far, None, w).unwrap().to_vec::<i32>().unwrap();
    let want: Vec<i32> = [-10i64, 1 << 40, -(1 << 40) - 3]
        .iter()
        .map(|&k| k.rem_euclid(10) as i32)
        .collect();
    assert_eq!(got, want);
    let c = TakeOptions {
        mode: IndexMode::Clip,
    };
    assert_eq!(
        t.take_with(&far, None, c).unwrap().to_vec::<i32>().unwrap(),
        [0, 9, 0]
    );
}
