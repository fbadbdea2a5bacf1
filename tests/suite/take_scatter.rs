//! Indexing with integer tensors and masks (`take`, `take_along_axis`/
//! `gather`, `put`, `put_along_axis`, `index_put`, `scatter`, `nonzero`,
//! `argwhere`, `extract`, `compress`, `set_mask`), `one_hot` and
//! `count_nonzero` (searchsorted, bincount, unique: search_unique.rs):
//! NumPy's and PyTorch's documented examples, brute-force reference loops over
//! random shapes, axes, repeated and negative indices and strided views,
//! every dtype, error cases (nothing written), and the GPU against the CPU.

use crate::common::Rng;
use rnx::ops::search::OneHotOptions;
use rnx::ops::take::{IndexMode, IndexPutOptions, ScatterMode, ScatterOptions, TakeOptions};
use rnx::{DType, Index, Tensor};

pub(crate) fn ti32(shape: &[usize], v: &[i32]) -> Tensor {
    Tensor::from_slice(v, shape).unwrap()
}
pub(crate) fn ti64(shape: &[usize], v: &[i64]) -> Tensor {
    Tensor::from_slice(v, shape).unwrap()
}
pub(crate) fn tf32(shape: &[usize], v: &[f32]) -> Tensor {
    Tensor::from_slice(v, shape).unwrap()
}
pub(crate) fn vi32(t: &Tensor) -> Vec<i32> {
    t.to_vec::<i32>().unwrap()
}
pub(crate) fn vi64(t: &Tensor) -> Vec<i64> {
    t.to_vec::<i64>().unwrap()
}

fn cstrides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1usize; shape.len()];
    for d in (0..shape.len().saturating_sub(1)).rev() {
        s[d] = s[d + 1] * shape[d + 1];
    }
    s
}
fn coords(shape: &[usize], mut e: usize) -> Vec<usize> {
    let mut c = vec![0; shape.len()];
    for d in (0..shape.len()).rev() {
        c[d] = e % shape[d].max(1);
        e /= shape[d].max(1);
    }
    c
}
fn flat_of(shape: &[usize], c: &[usize]) -> usize {
    cstrides(shape).iter().zip(c).map(|(s, c)| s * c).sum()
}

/// A random shape of rank `lo..=hi`, dims `1..=4`.
pub(crate) fn shape(rng: &mut Rng, lo: usize, hi: usize) -> Vec<usize> {
    let r = lo + (rng.next() as usize) % (hi - lo + 1);
    (0..r).map(|_| 1 + (rng.next() as usize) % 4).collect()
}

/// A tensor of `dtype` and logical `shape` with small values (-100..100), as
/// a random kind of view: contiguous, transposed, flipped or stepped.
pub(crate) fn view(rng: &mut Rng, shape: &[usize], dtype: DType) -> Tensor {
    let n: usize = shape.iter().product();
    let nd = shape.len();
    let base = |sh: &[usize], rng: &mut Rng| -> Tensor {
        let m: usize = sh.iter().product();
        let v: Vec<f64> = (0..m).map(|_| (rng.next() % 200) as f64 - 100.0).collect();
        Tensor::create(DType::F64, sh, &v)
            .unwrap()
            .cast(dtype)
            .unwrap()
    };
    let t = match rng.next() % 4 {
        1 if nd > 0 => {
            let rev: Vec<usize> = shape.iter().rev().copied().collect();
            let axes: Vec<isize> = (0..nd as isize).rev().collect();
            base(&rev, rng).transpose(axes).unwrap()
        }
        2 => base(shape, rng).flip(rnx::Axes::all()).unwrap(),
        3 if nd > 0 => {
            let mut big = shape.to_vec();
            big[nd - 1] *= 2;
            let mut spec = vec![Index::all(); nd];
            spec[nd - 1] = Index::R(None, None, 2);
            base(&big, rng).slice(spec).unwrap()
        }
        _ => base(shape, rng),
    };
    assert_eq!((t.shape(), t.size()), (shape, n));
    t
}

/// Real parts as f64 (every dtype, complex included).
fn re(t: &Tensor) -> Vec<f64> {
    if t.dtype().is_complex() {
        let c = t.cast(DType::C64).unwrap().to_vec::<rnx::C64>().unwrap();
        c.iter().map(|z| z.re).collect()
    } else {
        t.cast(DType::F64).unwrap().to_vec::<f64>().unwrap()
    }
}

fn norm(k: i64, n: usize) -> usize {
    if k < 0 {
        (k + n as i64) as usize
    } else {
        k as usize
    }
}

/// Random indices in `-n..n` of `shape`, as i32 or i64.
fn rand_idx(rng: &mut Rng, shape: &[usize], n: usize) -> (Tensor, Vec<i64>) {
    let m: usize = shape.iter().product();
    let v: Vec<i64> = (0..m)
        .map(|_| (rng.next() % (2 * n as u64)) as i64 - n as i64)
        .collect();
    let t = if rng.next().is_multiple_of(2) {
        ti64(shape, &v)
    } else {
        let w: Vec<i32> = v.iter().map(|&x| x as i32).collect();
        ti32(shape, &w)
    };
    (t, v)
}

#[test]
fn take_numpy_examples() {
    let a = ti32(&[6], &[4, 3, 5, 7, 6, 8]);
    assert_eq!(
        vi32(&a.take(&ti64(&[3], &[0, 1, 4]), None).unwrap()),
        [4, 3, 6]
    );
    let m = a.reshape([2, 3]).unwrap();
    let t = m.take(&ti64(&[2, 2], &[0, 1, 2, 1]), 1).unwrap();
    assert_eq!(t.shape(), &[2, 2, 2]);
    assert_eq!(vi32(&t), [4, 3, 5, 3, 7, 6, 8, 6]);
    // A 0-d index drops the axis.
    let s = m.take(&Tensor::scalar(DType::I64, -1).unwrap(), 0).unwrap();
    assert_eq!((s.shape(), vi32(&s)), (&[3usize][..], vec![7, 6, 8]));
    let i = ti32(&[4], &[-7, 6, 13, -1]);
    let wrap = TakeOptions {
        mode: IndexMode::Wrap,
    };
    let clip = TakeOptions {
        mode: IndexMode::Clip,
    };
    assert_eq!(vi32(&a.take_with(&i, None, wrap).unwrap()), [8, 4, 3, 8]);
    assert_eq!(vi32(&a.take_with(&i, None, clip).unwrap()), [4, 8, 8, 4]);
    // Empty indices, empty axis.
    let e = a.take(&ti64(&[0], &[]), None).unwrap();
    assert_eq!(e.shape(), &[0]);
    let z = Tensor::zeros(DType::I32, &[2, 0]).unwrap();
    assert!(z.take(&ti64(&[1], &[0]), 1).is_err());
    assert_eq!(z.take(&ti64(&[0], &[]), 1).unwrap().shape(), &[2, 0]);
}

#[test]
fn take_matches_brute_force_on_views() {
    let mut rng = Rng(0x7a4e);
    for case in 0..60 {
        let sh = shape(&mut rng, 1, 3);
        let a = view(&mut rng, &sh, DType::F64);
        let av = a.to_vec_f64().unwrap();
        let ishape = shape(&mut rng, 0, 2);
        if case % 2 == 0 {
            // Flattened.
            let n = a.size();
            let (it, iv) = rand_idx(&mut rng, &ishape, n);
            let out = a.take(&it, None).unwrap();
            assert_eq!(out.shape(), ishape.as_slice());
            let want: Vec<f64> = iv.iter().map(|&k| av[norm(k, n)]).collect();
            assert_eq!(out.to_vec_f64().unwrap(), want, "case {case}");
        } else {
            let ax = (rng.next() as usize) % sh.len();
            let (it, iv) = rand_idx(&mut rng, &ishape, sh[ax]);
            let out = a.take(&it, ax as isize).unwrap();
            let mut os = sh[..ax].to_vec();
            os.extend_from_slice(&ishape);
            os.extend_from_slice(&sh[ax + 1..]);
            assert_eq!(out.shape(), os.as_slice());
            let want: Vec<f64> = (0..out.size())
                .map(|e| {
                    let c = coords(&os, e);
                    let ir = ishape.len();
                    let k = iv[flat_of(&ishape, &c[ax..ax + ir])];
                    let mut ac = c[..ax].to_vec();
                    ac.push(norm(k, sh[ax]));
                    ac.extend_from_slice(&c[ax + ir..]);
                    av[flat_of(&sh, &ac)]
                })
                .collect();
            assert_eq!(out.to_vec_f64().unwrap(), want, "case {case}");
        }
    }
}

#[test]
fn take_along_axis_examples_and_brute_force() {
    let a = ti32(&[2, 3], &[10, 30, 20, 60, 40, 50]);
    let i = a.argsort(1, false).unwrap();
    assert_eq!(
        vi32(&a.take_along_axis(&i, 1).unwrap()),
        [10, 20, 30, 40, 50, 60]
    );
    // PyTorch's gather example.
    let t = tf32(&[2, 2], &[1., 2., 3., 4.]);
    let g = t.gather(&ti64(&[2, 2], &[0, 0, 1, 0]), 1).unwrap();
    assert_eq!(g.to_vec::<f32>().unwrap(), [1., 1., 4., 3.]);

    let mut rng = Rng(0x91);
    for case in 0..60 {
        let sh = shape(&mut rng, 1, 3);
        let a = view(&mut rng, &sh, DType::F64);
        let av = a.to_vec_f64().unwrap();
        let ax = (rng.next() as usize) % sh.len();
        let mut ishape = sh.clone();
        for (d, s) in ishape.iter_mut().enumerate() {
            if d == ax {
                *s = (rng.next() as usize) % 4;
            } else if rng.next().is_multiple_of(3) {
                *s = 1;
            }
        }
        let (it, iv) = rand_idx(&mut rng, &ishape, sh[ax]);
        let out = a
            .take_along_axis(&it, ax as isize - sh.len() as isize)
            .unwrap();
        let mut os = sh.clone();
        os[ax] = ishape[ax];
        assert_eq!(out.shape(), os.as_slice());
        let want: Vec<f64> = (0..out.size())
            .map(|e| {
                let c = coords(&os, e);
                let ic: Vec<usize> = c
                    .iter()
                    .zip(&ishape)
                    .map(|(&x, &s)| if s == 1 { 0 } else { x })
                    .collect();
                let mut ac = c.clone();
                ac[ax] = norm(iv[flat_of(&ishape, &ic)], sh[ax]);
                av[flat_of(&sh, &ac)]
            })
            .collect();
        assert_eq!(out.to_vec_f64().unwrap(), want, "case {case}");
    }
}

#[test]
fn put_examples() {
    let a = Tensor::arange(DType::I32, 0, 5, 1).unwrap();
    a.put(&ti64(&[2], &[0, 2]), &ti32(&[2], &[-44, -55]))
        .unwrap();
    assert_eq!(vi32(&a), [-44, 1, -55, 3, 4]);
    let a = Tensor::arange(DType::I32, 0, 5, 1).unwrap();
    let clip = TakeOptions {
        mode: IndexMode::Clip,
    };
    a.put_with(&ti32(&[1], &[22]), &ti32(&[1], &[-5]), clip)
        .unwrap();
    assert_eq!(vi32(&a), [0, 1, 2, 3, -5]);
    // Values repeat; the last of repeated indices wins; a transposed target.
    let b = Tensor::zeros(DType::I32, &[3, 2])
        .unwrap()
        .transpose([1, 0])
        .unwrap();
    b.put(&ti64(&[5], &[0, 5, -1, 3, 0]), &ti32(&[2], &[1, 2]))
        .unwrap();
    assert_eq!(vi32(&b.contiguous().unwrap()), [1, 0, 0, 2, 0, 1]);
    let wrap = TakeOptions {
        mode: IndexMode::Wrap,
    };
    let c = Tensor::zeros(DType::I32, &[3]).unwrap();
    c.put_with(&ti64(&[2], &[-4, 4]), &ti32(&[2], &[7, 8]), wrap)
        .unwrap();
    assert_eq!(vi32(&c), [0, 8, 7]);
}

#[test]
fn put_along_axis_and_index_put_brute_force() {
    let mut rng = Rng(0x5eed);
    for case in 0..60 {
        let sh = shape(&mut rng, 1, 3);
        let dst = view(&mut rng, &sh, DType::F64);
        let mut want = dst.to_vec_f64().unwrap();
        if case % 2 == 0 {
            let ax = (rng.next() as usize) % sh.len();
            let mut ishape = sh.clone();
            for (d, s) in ishape.iter_mut().enumerate() {
                if d == ax {
                    *s = (rng.next() as usize) % 5;
                } else if rng.next().is_multiple_of(3) {
                    *s = 1;
                }
            }
            let mut gshape = sh.clone();
            gshape[ax] = ishape[ax];
            let (it, iv) = rand_idx(&mut rng, &ishape, sh[ax]);
            let vals = view(&mut rng, &gshape, DType::F64);
            let vv = vals.to_vec_f64().unwrap();
            dst.put_along_axis(&it, &vals, ax as isize).unwrap();
            for (e, &v) in vv.iter().enumerate() {
                let c = coords(&gshape, e);
                let ic: Vec<usize> = c
                    .iter()
                    .zip(&ishape)
                    .map(|(&x, &s)| if s == 1 { 0 } else { x })
                    .collect();
                let mut dc = c.clone();
                dc[ax] = norm(iv[flat_of(&ishape, &ic)], sh[ax]);
                want[flat_of(&sh, &dc)] = v;
            }
        } else {
            let k = 1 + (rng.next() as usize) % sh.len();
            let m = (rng.next() as usize) % 6;
            let acc = rng.next().is_multiple_of(2);
            let idx: Vec<(Tensor, Vec<i64>)> =
                (0..k).map(|d| rand_idx(&mut rng, &[m], sh[d])).collect();
            let mut tshape = vec![m];
            tshape.extend_from_slice(&sh[k..]);
            let vals = view(&mut rng, &tshape, DType::F64);
            let vv = vals.to_vec_f64().unwrap();
            let refs: Vec<&Tensor> = idx.iter().map(|(t, _)| t).collect();
            let opts = IndexPutOptions { accumulate: acc };
            dst.index_put_with(&refs, &vals, opts).unwrap();
            let r: usize = sh[k..].iter().product();
            for j in 0..m {
                let base: usize = (0..k)
                    .map(|d| norm(idx[d].1[j], sh[d]) * cstrides(&sh)[d])
                    .sum();
                for i in 0..r {
                    let v = vv[j * r + i];
                    if acc {
                        want[base + i] += v;
                    } else {
                        want[base + i] = v;
                    }
                }
            }
        }
        assert_eq!(dst.to_vec_f64().unwrap(), want, "case {case}");
    }
}

#[test]
fn index_put_examples() {
    let a = Tensor::zeros(DType::I32, &[3, 3]).unwrap();
    a.index_put(
        &[&ti64(&[2], &[0, 2]), &ti64(&[2], &[1, -1])],
        &ti32(&[2], &[5, 7]),
    )
    .unwrap();
    assert_eq!(vi32(&a), [0, 5, 0, 0, 0, 0, 0, 0, 7]);
    // Broadcast index tensors: rows [[0],[2]] x cols [0, 1] -> a 2x2 grid.
    let b = Tensor::zeros(DType::I32, &[3, 3]).unwrap();
    b.index_put(
        &[&ti64(&[2, 1], &[0, 2]), &ti64(&[2], &[0, 1])],
        &ti32(&[2, 2], &[1, 2, 3, 4]),
    )
    .unwrap();
    assert_eq!(vi32(&b), [1, 2, 0, 0, 0, 0, 3, 4, 0]);
    // Whole rows, accumulate with repeats (PyTorch's index_put_ example shape).
    let c = Tensor::ones(DType::F32, &[3, 2]).unwrap();
    let acc = IndexPutOptions { accumulate: true };
    c.index_put_with(&[&ti64(&[3], &[0, 0, 2])], &tf32(&[2], &[1., 10.]), acc)
        .unwrap();
    assert_eq!(c.to_vec::<f32>().unwrap(), [3., 21., 1., 1., 2., 11.]);
}

/// PyTorch's scatter reduction, sequential (the definition).
#[allow(clippy::too_many_arguments)] // the reference takes the whole case
fn scatter_ref(
    x: &[f64],
    sh: &[usize],
    ax: usize,
    ishape: &[usize],
    iv: &[i64],
    u: &[f64],
    mode: ScatterMode,
    include_self: bool,
) -> Vec<f64> {
    let mut out = x.to_vec();
    let mut touched = vec![false; x.len()];
    for (e, &k) in iv.iter().enumerate() {
        let mut c = coords(ishape, e);
        c[ax] = norm(k, sh[ax]);
        let p = flat_of(sh, &c);
        let v = u[e];
        let first = !touched[p] && !include_self;
        touched[p] = true;
        out[p] = if first {
            v
        } else {
            match mode {
                ScatterMode::Set => v,
                ScatterMode::Add => out[p] + v,
                ScatterMode::Multiply => out[p] * v,
                ScatterMode::Max => out[p].max(v),
                ScatterMode::Min => out[p].min(v),
            }
        };
    }
    out
}

#[test]
fn scatter_torch_examples() {
    let src = Tensor::arange(DType::I32, 1, 11, 1)
        .unwrap()
        .reshape([2, 5])
        .unwrap();
    let z = Tensor::zeros(DType::I32, &[3, 5]).unwrap();
    let out = z.scatter(&ti64(&[1, 4], &[0, 1, 2, 0]), &src, 0).unwrap();
    assert_eq!(vi32(&out), [1, 0, 0, 4, 0, 0, 2, 0, 0, 0, 0, 0, 3, 0, 0]);
    assert_eq!(vi32(&z), vec![0; 15], "scatter is pure");
    let out = z
        .scatter(&ti64(&[2, 3], &[0, 1, 2, 0, 1, 4]), &src, 1)
        .unwrap();
    assert_eq!(vi32(&out), [1, 2, 3, 0, 0, 6, 7, 0, 0, 8, 0, 0, 0, 0, 0]);
    // scatter_reduce's documented example: sum and amax, include_self false.
    let s = tf32(&[6], &[1., 2., 3., 4., 5., 6.]);
    let i = ti64(&[6], &[0, 1, 0, 1, 2, 1]);
    let x = tf32(&[4], &[1., 2., 3., 4.]);
    let sum = ScatterOptions {
        mode: ScatterMode::Add,
        ..Default::default()
    };
    assert_eq!(
        x.scatter_with(&i, &s, 0, sum)
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        [5., 14., 8., 4.]
    );
    let amax = ScatterOptions {
        mode: ScatterMode::Max,
        include_self: false,
    };
    assert_eq!(
        x.scatter_with(&i, &s, 0, amax)
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        [3., 6., 5., 4.]
    );
}

#[test]
fn scatter_modes_brute_force() {
    let mut rng = Rng(0xabc);
    let modes = [
        ScatterMode::Set,
        ScatterMode::Add,
        ScatterMode::Multiply,
        ScatterMode::Max,
        ScatterMode::Min,
    ];
    for case in 0..80 {
        let sh = shape(&mut rng, 1, 3);
        let x = view(&mut rng, &sh, DType::F64);
        let ax = (rng.next() as usize) % sh.len();
        let ishape: Vec<usize> = sh
            .iter()
            .enumerate()
            .map(|(d, &s)| {
                if d == ax {
                    (rng.next() as usize) % 6
                } else {
                    1 + (rng.next() as usize) % s
                }
            })
            .collect();
        let (it, iv) = rand_idx(&mut rng, &ishape, sh[ax]);
        let u = view(&mut rng, &ishape, DType::F64);
        let mode = modes[case % 5];
        let include_self = rng.next().is_multiple_of(2);
        let out = x
            .scatter_with(&it, &u, ax as isize, ScatterOptions { mode, include_self })
            .unwrap();
        let want = scatter_ref(
            &x.to_vec_f64().unwrap(),
            &sh,
            ax,
            &ishape,
            &iv,
            &u.to_vec_f64().unwrap(),
            mode,
            include_self,
        );
        assert_eq!(
            out.to_vec_f64().unwrap(),
            want,
            "case {case} {mode:?} {include_self}"
        );
    }
}

#[test]
fn scatter_add_is_sequential_and_deterministic() {
    // Order-sensitive f32 sums: the result is exactly the left-to-right sum
    // rounded to f32 at every step, on every thread count.
    let n = 4000;
    let mut rng = Rng(3);
    let vals: Vec<f32> = (0..n).map(|_| (rng.unit() as f32 - 0.5) * 1e4).collect();
    let idx: Vec<i64> = (0..n).map(|_| (rng.next() % 3) as i64).collect();
    let mut want = [0f32; 3];
    for (v, &k) in vals.iter().zip(&idx) {
        want[k as usize] += v;
    }
    let add = ScatterOptions {
        mode: ScatterMode::Add,
        ..Default::default()
    };
    let z = Tensor::zeros(DType::F32, &[3]).unwrap();
    let got = z
        .scatter_with(&ti64(&[n], &idx), &tf32(&[n], &vals), 0, add)
        .unwrap();
    assert_eq!(got.to_vec::<f32>().unwrap(), want);
}

#[test]
fn every_dtype() {
    // (6 * 4 wraps in 4 bits: i4/u4 are tested against i8/u8 in int4_ops.rs.)
    let dts = DType::ALL.into_iter().filter(|d| !d.is_int4());
    let add = ScatterOptions {
        mode: ScatterMode::Add,
        ..Default::default()
    };
    for dt in dts {
        let a = Tensor::create(DType::F64, &[2, 3], &[1., 2., 3., 4., 5., 6.])
            .unwrap()
            .cast(dt)
            .unwrap();
        let t = a.take(&ti32(&[2], &[2, 0]), 1).unwrap();
        assert_eq!(t.dtype(), dt);
        assert_eq!(re(&t), [3., 1., 6., 4.], "{dt}");
        let s = a
            .scatter_with(&ti64(&[1, 3], &[1, 1, 0]), &a, 0, add)
            .unwrap();
        assert_eq!(re(&s), [1., 2., 6., 5., 7., 6.], "{dt}");
        let m = a.cmpne(1).unwrap();
        assert_eq!(re(&a.extract(&m).unwrap()), [2., 3., 4., 5., 6.], "{dt}");
        let mul = ScatterOptions {
            mode: ScatterMode::Multiply,
            ..Default::default()
        };
        let p = a.scatter_with(&ti64(&[2, 1], &[2, 2]), &a, 1, mul).unwrap();
        assert_eq!(re(&p), [1., 2., 3., 4., 5., 24.], "{dt}");
    }
    // Integers wrap; u64 adds exactly beyond 2^53.
    let x = Tensor::full(DType::I8, &[1], 100).unwrap();
    let i = ti64(&[2], &[0, 0]);
    let s = x
        .scatter_with(&i, &Tensor::full(DType::I8, &[2], 100).unwrap(), 0, add)
        .unwrap();
    assert_eq!(s.to_vec::<i8>().unwrap(), [44]);
    let big = Tensor::from_slice(&[u64::MAX - 10], &[1]).unwrap();
    let s = big
        .scatter_with(&i, &Tensor::from_slice(&[3u64, 4], &[2]).unwrap(), 0, add)
        .unwrap();
    assert_eq!(s.to_vec::<u64>().unwrap(), [u64::MAX - 3]);
    // NaN wins in max.
    let amax = ScatterOptions {
        mode: ScatterMode::Max,
        ..Default::default()
    };
    let f = tf32(&[1], &[1.]);
    let s = f
        .scatter_with(&i, &tf32(&[2], &[f32::NAN, 5.]), 0, amax)
        .unwrap();
    assert!(s.to_vec::<f32>().unwrap()[0].is_nan());
}

#[test]
fn errors_name_the_function_and_write_nothing() {
    let a = Tensor::arange(DType::I32, 0, 5, 1).unwrap();
    let before = vi32(&a);
    let e = a.take(&ti64(&[2], &[1, 5]), None).unwrap_err().to_string();
    assert_eq!(e, "take: index 5 is out of bounds for axis 0 of size 5");
    let e = a
        .put(&ti64(&[3], &[0, 1, -6]), &ti32(&[1], &[9]))
        .unwrap_err()
        .to_string();
    assert_eq!(e, "put: index -6 is out of bounds for axis 0 of size 5");
    assert_eq!(vi32(&a), before);
    let m = Tensor::zeros(DType::I32, &[2, 3]).unwrap();
    let e = m
        .index_put(
            &[&ti64(&[2], &[0, 1]), &ti64(&[2], &[0, 3])],
            &ti32(&[1], &[1]),
        )
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "index_put: index 3 is out of bounds for axis 1 of size 3"
    );
    let e = m
        .put_along_axis(&ti64(&[2, 1], &[0, -4]), &ti32(&[1], &[1]), 1)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "put_along_axis: index -4 is out of bounds for axis 1 of size 3"
    );
    let e = m
        .scatter(&ti64(&[1, 1], &[2]), &m, 0)
        .unwrap_err()
        .to_string();
    assert_eq!(e, "scatter: index 2 is out of bounds for axis 0 of size 2");
    let e = m
        .take_along_axis(&ti64(&[2, 1], &[0, 3]), 1)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("take_along_axis: index 3"), "{e}");
    assert_eq!(vi32(&m), vec![0; 6]);
    // Mask count mismatch, wrong dtypes, shapes.
    let mask = Tensor::create(DType::U8, &[5], &[1, 0, 1, 0, 1]).unwrap();
    let e = a
        .set_mask(&mask, &ti32(&[2], &[1, 2]))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("set_mask: cannot assign 2 values"), "{e}");
    assert_eq!(vi32(&a), before);
    let e = a.take(&tf32(&[1], &[0.]), None).unwrap_err().to_string();
    assert!(e.starts_with("take:") && e.contains("cast"), "{e}");
    assert!(a.extract(&a).unwrap_err().to_string().contains("u8"));
    assert!(a
        .put(&ti64(&[1], &[0]), &tf32(&[1], &[1.]))
        .unwrap_err()
        .to_string()
        .contains("cast"));
    assert!(m
        .take_along_axis(&ti64(&[2], &[0, 1]), 1)
        .unwrap_err()
        .to_string()
        .starts_with("take_along_axis:"));
    let c = Tensor::zeros(DType::C32, &[2]).unwrap();
    let amax = ScatterOptions {
        mode: ScatterMode::Max,
        ..Default::default()
    };
    assert!(c.scatter_with(&ti64(&[1], &[0]), &c, 0, amax).is_err());
    assert!(ti32(&[2], &[1, -1])
        .bincount()
        .unwrap_err()
        .to_string()
        .contains("-1"));
    assert!(m
        .searchsorted(&m)
        .unwrap_err()
        .to_string()
        .starts_with("searchsorted:"));
    assert!(a
        .compress(&Tensor::ones(DType::U8, &[6]).unwrap(), 0)
        .is_err());
    // A broadcast (self-overlapping) destination is rejected before writing.
    let b = Tensor::zeros(DType::I32, &[1])
        .unwrap()
        .broadcast_to(&[3])
        .unwrap();
    assert!(b.put(&ti64(&[1], &[0]), &ti32(&[1], &[1])).is_err());
}

#[test]
fn mask_selection() {
    let x = ti32(&[3, 3], &[3, 0, 0, 0, 4, 0, 5, 6, 0]);
    let nz = x.nonzero().unwrap();
    assert_eq!(vi64(&nz[0]), [0, 1, 2, 2]);
    assert_eq!(vi64(&nz[1]), [0, 1, 0, 1]);
    let w = x.argwhere().unwrap();
    assert_eq!(w.shape(), &[4, 2]);
    assert_eq!(vi64(&w), [0, 0, 1, 1, 2, 0, 2, 1]);
    // A transposed view, float NaN counts as non-zero.
    let t = x.transpose([1, 0]).unwrap();
    assert_eq!(vi64(&t.nonzero().unwrap()[0]), [0, 0, 1, 1]);
    assert_eq!(
        vi64(&tf32(&[3], &[0., f32::NAN, -0.]).nonzero().unwrap()[0]),
        [1]
    );
    let none = Tensor::zeros(DType::F32, &[2, 2])
        .unwrap()
        .argwhere()
        .unwrap();
    assert_eq!(none.shape(), &[0, 2]);
    // compress / extract on views.
    let a = ti32(&[3, 2], &[1, 2, 3, 4, 5, 6]);
    let m = Tensor::create(DType::U8, &[2], &[0, 1]).unwrap();
    assert_eq!(vi32(&a.compress(&m, 0).unwrap()), [3, 4]);
    assert_eq!(vi32(&a.compress(&m, 1).unwrap()), [2, 4, 6]);
    assert_eq!(vi32(&a.compress(&m, None).unwrap()), [2]);
    let m3 = Tensor::create(DType::U8, &[3], &[1, 0, 1]).unwrap();
    assert_eq!(
        vi32(&a.flip(0).unwrap().compress(&m3, 0).unwrap()),
        [5, 6, 1, 2]
    );
    let am = a.transpose([1, 0]).unwrap();
    assert_eq!(
        vi32(&am.extract(&am.cmpgt(2).unwrap()).unwrap()),
        [3, 5, 4, 6]
    );
    // A broadcast mask row selects per row.
    let row = Tensor::create(DType::U8, &[2], &[1, 0]).unwrap();
    assert_eq!(vi32(&a.extract(&row).unwrap()), [1, 3, 5]);
    // set_mask: scalar and per-element values, into a strided view.
    let base = Tensor::zeros(DType::I32, &[3, 4]).unwrap();
    let v = base.slice(rnx::s![.., ..;2]).unwrap(); // [3, 2], strided
    let mm = Tensor::create(DType::U8, &[3, 2], &[1, 0, 0, 1, 1, 1]).unwrap();
    v.set_mask(&mm, &ti32(&[4], &[1, 2, 3, 4])).unwrap();
    assert_eq!(vi32(&base), [1, 0, 0, 0, 0, 0, 2, 0, 3, 0, 4, 0]);
    v.set_mask(&mm, &Tensor::scalar(DType::I32, 9).unwrap())
        .unwrap();
    assert_eq!(vi32(&base), [9, 0, 0, 0, 0, 0, 9, 0, 9, 0, 9, 0]);
    // A value that is a view of the destination is read before writing.
    let y = ti32(&[4], &[1, 2, 3, 4]);
    let all = Tensor::ones(DType::U8, &[4]).unwrap();
    y.set_mask(&all, &y.flip(0).unwrap()).unwrap();
    assert_eq!(vi32(&y), [4, 3, 2, 1]);
}

#[test]
fn one_hot_and_count_nonzero() {
    let i = ti32(&[3], &[0, 2, 5]);
    let o = i.one_hot(3).unwrap();
    assert_eq!((o.dtype(), o.shape()), (DType::F32, &[3usize, 3][..]));
    assert_eq!(
        o.to_vec::<f32>().unwrap(),
        [1., 0., 0., 0., 0., 1., 0., 0., 0.]
    );
    let o = ti64(&[2, 2], &[1, 0, -1, 1])
        .one_hot_with(
            2,
            OneHotOptions {
                dtype: DType::I32,
                axis: 1,
            },
        )
        .unwrap();
    assert_eq!(o.shape(), &[2, 2, 2]);
    // o[a, d, b] = (i[a, b] == d)
    assert_eq!(vi32(&o), [0, 1, 1, 0, 0, 0, 0, 1]);
    assert!(tf32(&[1], &[0.]).one_hot(2).is_err());
    let a = tf32(&[2, 3], &[0., 1., 7., 0., f32::NAN, 3.]);
    assert_eq!(
        a.count_nonzero(None, false).unwrap().item::<i64>().unwrap(),
        4
    );
    assert_eq!(vi64(&a.count_nonzero(0, false).unwrap()), [0, 2, 2]);
    assert_eq!(
        vi64(
            &a.transpose([1, 0])
                .unwrap()
                .count_nonzero(-1, true)
                .unwrap()
        ),
        [0, 2, 2]
    );
}

#[cfg(feature = "gpu")]
#[test]
fn gpu_matches_cpu() {
    use crate::gpu::assert_same;
    let Some(g) = crate::gpu::gpu() else { return };
    let on = |t: &Tensor| t.to_device(g).unwrap();
    let mut rng = Rng(0x6b0);
    let add = ScatterOptions {
        mode: ScatterMode::Add,
        ..Default::default()
    };
    for dt in [DType::F32, DType::I32, DType::U8, DType::F16] {
        let x = view(&mut rng, &[3, 4], dt);
        let gx = on(&x).transpose([1, 0]).unwrap();
        let x = x.transpose([1, 0]).unwrap();
        let (it, _) = rand_idx(&mut rng, &[2, 3], 4);
        let gi = on(&it);
        assert_same("take", &gx.take(&gi, 0).unwrap(), &x.take(&it, 0).unwrap());
        assert_same(
            "take flat",
            &gx.take(&gi, None).unwrap(),
            &x.take(&it, None).unwrap(),
        );
        let (ia, _) = rand_idx(&mut rng, &[4, 2], 3);
        let ga = on(&ia);
        assert_same(
            "take_along_axis",
            &gx.take_along_axis(&ga, 1).unwrap(),
            &x.take_along_axis(&ia, 1).unwrap(),
        );
        let u = view(&mut rng, &[4, 2], dt);
        let gu = on(&u);
        assert_same(
            "scatter",
            &gx.scatter(&ga, &gu, 1).unwrap(),
            &x.scatter(&ia, &u, 1).unwrap(),
        );
        assert_same(
            "scatter add",
            &gx.scatter_with(&ga, &gu, 1, add).unwrap(),
            &x.scatter_with(&ia, &u, 1, add).unwrap(),
        );
        let m = x.cmpgt(0).unwrap();
        let gm = on(&m);
        assert_same(
            "extract",
            &gx.extract(&gm).unwrap(),
            &x.extract(&m).unwrap(),
        );
        assert_same("argwhere", &gx.argwhere().unwrap(), &x.argwhere().unwrap());
        // In place on GPU views.
        let (cx, cgx) = (x.copy().unwrap(), on(&x));
        let one = Tensor::ones(dt, &[1]).unwrap();
        cx.set_mask(&m, &one).unwrap();
        cgx.set_mask(&gm, &on(&one)).unwrap();
        assert_same("set_mask", &cgx, &cx);
        let (pi, _) = rand_idx(&mut rng, &[5], 12);
        cx.put(&pi, &u).unwrap();
        cgx.put(&on(&pi), &gu).unwrap();
        assert_same("put", &cgx, &cx);
        let acc = IndexPutOptions { accumulate: true };
        let r0 = ti64(&[3], &[0, 3, 0]);
        cx.index_put_with(&[&r0], &one, acc).unwrap();
        cgx.index_put_with(&[&on(&r0)], &on(&one), acc).unwrap();
        assert_same("index_put accumulate", &cgx, &cx);
    }
    let i = ti32(&[5], &[0, 3, 1, 3, 3]);
    assert_same(
        "one_hot",
        &on(&i).one_hot(4).unwrap(),
        &i.one_hot(4).unwrap(),
    );
    assert_same(
        "bincount",
        &on(&i).bincount().unwrap(),
        &i.bincount().unwrap(),
    );
    assert_same("unique", &on(&i).unique().unwrap(), &i.unique().unwrap());
    assert_same(
        "count_nonzero",
        &on(&i).count_nonzero(None, false).unwrap(),
        &i.count_nonzero(None, false).unwrap(),
    );
    let s = ti32(&[3], &[0, 1, 3]);
    assert_same(
        "searchsorted",
        &on(&s).searchsorted(&on(&i)).unwrap(),
        &s.searchsorted(&i).unwrap(),
    );
}

/// `take` of GPU tensors checks its indices in the gather kernel (one flag
/// word read back, `IndexBackend::gather_checking`): valid i32 and i64
/// indices give the CPU's rows bit for bit for every GPU dtype (an
/// embedding-style lookup of 20,000 rows from a 1000 x 7 table, and a
/// strided table); a negative index falls back to the checked path
/// (counting from the end) and an index past the end gives the CPU's
/// error.
#[cfg(feature = "gpu")]
#[test]
fn gpu_take_checks_indices_in_the_kernel() {
    use crate::gpu::assert_same;
    let Some(g) = crate::gpu::gpu() else { return };
    let on = |t: &Tensor| t.to_device(g).unwrap();
    let ids: Vec<i64> = (0..20_000i64).map(|i| (i * 7919 + 13) % 1000).collect();
    for dt in [
        DType::F32,
        DType::F64,
        DType::I64,
        DType::U8,
        DType::BF16,
        DType::C32,
    ] {
        if Tensor::zeros_on(dt, &[1], g).is_err() {
            continue;
        }
        let table = Tensor::arange(DType::I64, 0, 7000, 1)
            .unwrap()
            .reshape([1000, 7])
            .unwrap()
            .cast(dt)
            .unwrap();
        let gt = on(&table);
        for idt in [DType::I32, DType::I64] {
            let i = Tensor::from_slice(&ids, &[100, 200])
                .unwrap()
                .cast(idt)
                .unwrap();
            let w = format!("{dt} {idt}");
            let got = gt.take(&on(&i), 0).unwrap();
            assert_eq!(got.shape(), &[100, 200, 7], "{w}");
            assert_same(&w, &got, &table.take(&i, 0).unwrap());
            // A strided table (every other column of a transposed copy).
            let tt = table.transpose([1, 0]).unwrap();
            let gtt = gt.transpose([1, 0]).unwrap();
            assert_same(
                &format!("{w} strided"),
                &gtt.take(&on(&i), 1).unwrap(),
                &tt.take(&i, 1).unwrap(),
            );
            // Negative: counts from the end, as on the CPU.
            let neg = Tensor::from_slice(&[-1i64, 5, -1000], &[3])
                .unwrap()
                .cast(idt)
                .unwrap();
            assert_same(
                &format!("{w} negative"),
                &gt.take(&on(&neg), 0).unwrap(),
                &table.take(&neg, 0).unwrap(),
            );
            let bad = Tensor::from_slice(&[3i64, 1000], &[2])
                .unwrap()
                .cast(idt)
                .unwrap();
            let (ge, ce) = (
                gt.take(&on(&bad), 0).unwrap_err(),
                table.take(&bad, 0).unwrap_err(),
            );
            assert_eq!(ge.to_string(), ce.to_string(), "{w}");
        }
    }
}

/// `take_along_axis` (and its alias `gather`) of GPU tensors check their
/// indices in the kernel too (`IndexBackend::gather_along_checking`): a
/// per-row pick of 1,000 x 10 logits at i64 labels, indices broadcast
/// against the tensor (and the tensor against the indices), a transposed
/// source; negative indices and one past the end as on the CPU.
#[cfg(feature = "gpu")]
#[test]
fn gpu_take_along_axis_checks_indices_in_the_kernel() {
    use crate::gpu::assert_same;
    let Some(g) = crate::gpu::gpu() else { return };
    let on = |t: &Tensor| t.to_device(g).unwrap();
    let logits = Tensor::randn(DType::F32, &[1000, 10], 3).unwrap();
    let labels: Vec<i64> = (0..1000i64).map(|i| (i * 37 + 5) % 10).collect();
    for idt in [DType::I32, DType::I64] {
        let lab = Tensor::from_slice(&labels, &[1000, 1])
            .unwrap()
            .cast(idt)
            .unwrap();
        let w = format!("{idt}");
        assert_same(
            &format!("{w} pick"),
            &on(&logits).take_along_axis(&on(&lab), 1).unwrap(),
            &logits.take_along_axis(&lab, 1).unwrap(),
        );
        assert_same(
            &format!("{w} gather"),
            &on(&logits).gather(&on(&lab), 1).unwrap(),
            &logits.gather(&lab, 1).unwrap(),
        );
        // Indices [1, 3] broadcast over the rows; the tensor's rows [1, 10]
        // broadcast over 4 index rows; a transposed source along axis 0.
        let row = Tensor::from_slice(&[9i64, 0, 4], &[1, 3])
            .unwrap()
            .cast(idt)
            .unwrap();
        assert_same(
            &format!("{w} broadcast indices"),
            &on(&logits).take_along_axis(&on(&row), 1).unwrap(),
            &logits.take_along_axis(&row, 1).unwrap(),
        );
        let one = logits.slice(rnx::s![..1, ..]).unwrap();
        let four = Tensor::from_slice(&[1i64, 2, 3, 4, 5, 6, 7, 8], &[4, 2])
            .unwrap()
            .cast(idt)
            .unwrap();
        assert_same(
            &format!("{w} broadcast tensor"),
            &on(&one).take_along_axis(&on(&four), 1).unwrap(),
            &one.take_along_axis(&four, 1).unwrap(),
        );
        let t = logits.transpose([1, 0]).unwrap();
        let lab_t = lab.reshape([1, 1000]).unwrap();
        assert_same(
            &format!("{w} transposed"),
            &on(&logits)
                .transpose([1, 0])
                .unwrap()
                .take_along_axis(&on(&lab_t), 0)
                .unwrap(),
            &t.take_along_axis(&lab_t, 0).unwrap(),
        );
        let neg = Tensor::from_slice(&[-1i64, 3, -10], &[3, 1])
            .unwrap()
            .cast(idt)
            .unwrap();
        let top = logits.slice(rnx::s![..3, ..]).unwrap();
        assert_same(
            &format!("{w} negative"),
            &on(&top).take_along_axis(&on(&neg), 1).unwrap(),
            &top.take_along_axis(&neg, 1).unwrap(),
        );
        let bad = Tensor::from_slice(&[0i64, 10, 2], &[3, 1])
            .unwrap()
            .cast(idt)
            .unwrap();
        let (ge, ce) = (
            on(&top).take_along_axis(&on(&bad), 1).unwrap_err(),
            top.take_along_axis(&bad, 1).unwrap_err(),
        );
        assert_eq!(ge.to_string(), ce.to_string(), "{w}");
    }
}
