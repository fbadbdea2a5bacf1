//! The GPU matmul kernel and the convolutions built on it, against the CPU:
//! integers bit-identical, floats within the bound of
//! `src/backend/gpu/matmul.rs` against an f64 reference: `|gpu - exact| <=
//! (k + 2) u sum |a||b|` (u = 2^-24 for f32 and halves, 2^-53 for f64) plus
//! one rounding to the dtype for halves. Shapes that are not multiples of
//! the tile sizes, empty ones, batch broadcasting, 1-D operands, strided and
//! negative-stride views, outputs sharing storage with inputs, a K longer
//! than lavapipe's loop limit, and every convolution option. Without an
//! adapter the tests print "skipped" and pass, unless RNX_REQUIRE_GPU=1.

use super::gpu::{f64s, gpu, ints, units, ALL};
use rnx::{s, Conv1dOptions, Conv2dOptions, DType, Device, Padding, Tensor};
use std::sync::Mutex;

/// Deterministic data of `dtype`: floats normal, integers wrapping into the
/// dtype from a wide range (so products and sums wrap).
pub(crate) fn data(dtype: DType, shape: &[usize], seed: u64) -> Tensor {
    let t = Tensor::randn(DType::F64, shape, seed).unwrap();
    if dtype.is_int() {
        t.mul(1e5)
            .unwrap()
            .cast(DType::I64)
            .unwrap()
            .cast(dtype)
            .unwrap()
    } else {
        t.cast(dtype).unwrap()
    }
}

/// `|x|` as an f64 CPU tensor.
fn abs64(t: &Tensor) -> Tensor {
    let v: Vec<f64> = f64s(t).iter().map(|x| x.abs()).collect();
    Tensor::create(DType::F64, t.shape(), &v).unwrap()
}

fn cpu64(t: &Tensor) -> Tensor {
    t.to_device(Device::Cpu).unwrap().cast(DType::F64).unwrap()
}

/// The largest error ratio `|gpu - exact| / (k u sum|a||b|)` seen so far
/// (reported by the tests that print it).
static WORST: Mutex<f64> = Mutex::new(0.0);

/// Check a float GPU result `g` against the f64 reference `r` (`absr` the
/// sum of absolute products, `k` products per element): within `(k + 2) u
/// absr + half-rounding |r|` (plus `extra * absr` for a reference that is
/// itself rounded, e.g. the CPU's f64 Winograd).
fn check_float(what: &str, g: &Tensor, r: &Tensor, absr: &Tensor, k: usize, extra: f64) {
    assert_eq!(g.device(), Device::Gpu(0), "{what}: result left the GPU");
    assert_eq!(g.shape(), r.shape(), "{what}: shape");
    let (u, h) = units(g.dtype());
    let (gv, rv, av) = (f64s(g), f64s(r), f64s(absr));
    // An f64 reference is rounded like the result (twice the bound); f16
    // results may be subnormal (absolute rounding 2^-25).
    let ref_err = if g.dtype() == DType::F64 { 2.0 } else { 1.0 };
    let tiny = if g.dtype() == DType::F16 {
        2f64.powi(-25)
    } else {
        1e-300
    };
    let mut worst = 0.0f64;
    for i in 0..gv.len() {
        let err = (gv[i] - rv[i]).abs();
        let bound =
            ((k + 2) as f64 * u * ref_err + extra) * av[i] * (1.0001 + h) + h * rv[i].abs() + tiny;
        assert!(
            err <= bound,
            "{what}[{i}]: gpu {} ref {} err {err:e} > bound {bound:e}",
            gv[i],
            rv[i]
        );
        if h == 0.0 && av[i] > 0.0 {
            worst = worst.max(err / (k.max(1) as f64 * u * av[i]));
        }
    }
    let mut w = WORST.lock().unwrap_or_else(|e| e.into_inner());
    *w = w.max(worst);
}

/// Compare a GPU matmul result with the CPU's: integers exactly, floats
/// within the bound against an f64 reference of the same inputs.
pub(crate) fn check_matmul(
    what: &str,
    g: &Tensor,
    a: &Tensor,
    b: &Tensor,
    f: impl Fn(&Tensor, &Tensor) -> Tensor,
) {
    let d = g.dtype();
    assert_eq!(g.device(), Device::Gpu(0), "{what}: result left the GPU");
    let (ac, bc) = (
        a.to_device(Device::Cpu).unwrap(),
        b.to_device(Device::Cpu).unwrap(),
    );
    if d.is_int() {
        let c = f(&ac, &bc);
        assert_eq!(g.shape(), c.shape(), "{what}: shape");
        assert_eq!(ints(g), ints(&c), "{what}: {d}");
        return;
    }
    let r = f(&cpu64(&ac), &cpu64(&bc));
    let absr = f(&abs64(&ac), &abs64(&bc));
    let k = if a.ndim() == 1 {
        a.shape()[0]
    } else {
        a.shape()[a.ndim() - 1]
    };
    check_float(what, g, &r, &absr, k, 0.0);
}

pub(crate) fn mm(a: &Tensor, b: &Tensor) -> Tensor {
    a.matmul(b).unwrap()
}

#[test]
fn matmul_every_dtype_matches_cpu() {
    let Some(d) = gpu() else { return };
    for (i, &dt) in ALL.iter().enumerate() {
        let seed = 10 * i as u64;
        for &(m, k, n) in &[(1, 1, 1), (67, 33, 95), (5, 17, 3)] {
            let a = data(dt, &[m, k], seed + 1);
            let b = data(dt, &[k, n], seed + 2);
            let (ga, gb) = (a.to_device(d).unwrap(), b.to_device(d).unwrap());
            let what = format!("{dt} [{m}, {k}] @ [{k}, {n}]");
            check_matmul(&what, &ga.matmul(&gb).unwrap(), &ga, &gb, mm);
        }
    }
    eprintln!(
        "gpu_linalg: worst f32/f64 error so far {:.3} k u sum|a||b|",
        *WORST.lock().unwrap()
    );
}

#[test]
fn matmul_shapes_batches_and_vectors() {
    let Some(d) = gpu() else { return };
    for dt in [DType::F32, DType::I32] {
        let g = |shape: &[usize], seed| data(dt, shape, seed).to_device(d).unwrap();
        // k == 0: zeros; m == 0 and n == 0: empty results.
        let z = g(&[3, 0], 1).matmul(&g(&[0, 4], 2)).unwrap();
        assert_eq!(z.shape(), &[3, 4]);
        assert!(f64s(&z).iter().all(|&x| x == 0.0), "{dt} k = 0");
        assert_eq!(
            g(&[0, 5], 3).matmul(&g(&[5, 4], 4)).unwrap().shape(),
            &[0, 4]
        );
        assert_eq!(
            g(&[3, 5], 3).matmul(&g(&[5, 0], 4)).unwrap().shape(),
            &[3, 0]
        );
        // Batch broadcasting (stride-0 batch axes).
        let (a, b) = (g(&[2, 1, 5, 7], 5), g(&[3, 7, 4], 6));
        let r = a.matmul(&b).unwrap();
        assert_eq!(r.shape(), &[2, 3, 5, 4]);
        check_matmul(&format!("{dt} broadcast"), &r, &a, &b, mm);
        let (a, b) = (g(&[4, 66, 20], 7), g(&[20, 70], 8));
        check_matmul(
            &format!("{dt} batch @ matrix"),
            &a.matmul(&b).unwrap(),
            &a,
            &b,
            mm,
        );
        // 1-D operands: matrix @ vector, vector @ matrix, vector @ vector, dot.
        let (v, w, mtx) = (g(&[7], 9), g(&[7], 10), g(&[3, 7], 11));
        check_matmul(
            &format!("{dt} mat @ vec"),
            &mtx.matmul(&v).unwrap(),
            &mtx,
            &v,
            mm,
        );
        let mt = mtx.transpose(None).unwrap();
        let vv = g(&[3], 12);
        check_matmul(
            &format!("{dt} vec @ mat"),
            &vv.matmul(&mtx).unwrap(),
            &vv,
            &mtx,
            mm,
        );
        check_matmul(
            &format!("{dt} vec @ mat^T"),
            &v.matmul(&mt).unwrap(),
            &v,
            &mt,
            mm,
        );
        check_matmul(
            &format!("{dt} vec @ vec"),
            &v.matmul(&w).unwrap(),
            &v,
            &w,
            mm,
        );
        let dot = |a: &Tensor, b: &Tensor| a.dot(b).unwrap();
        check_matmul(&format!("{dt} dot"), &v.dot(&w).unwrap(), &v, &w, dot);
        let (a3, b3) = (g(&[2, 3, 6], 13), g(&[2, 6, 5], 14));
        check_matmul(
            &format!("{dt} dot 3-D"),
            &a3.dot(&b3).unwrap(),
            &a3,
            &b3,
            dot,
        );
    }
}

#[test]
fn matmul_strided_views_and_outputs() {
    let Some(d) = gpu() else { return };
    for dt in [DType::F32, DType::U8, DType::F16, DType::I64] {
        let g = |shape: &[usize], seed| data(dt, shape, seed).to_device(d).unwrap();
        // Transposed operands, negative strides, stepped slices.
        let a = g(&[40, 70], 1).transpose(None).unwrap(); // [70, 40]
        let b = g(&[40, 30], 2).flip(None).unwrap();
        check_matmul(
            &format!("{dt} a^T @ flip(b)"),
            &a.matmul(&b).unwrap(),
            &a,
            &b,
            mm,
        );
        let a = g(&[9, 50], 3).slice(s![..;-2, 1..;3]).unwrap(); // [5, 17]
        let b = g(&[34, 20], 4).slice(s![..;2, ..;-1]).unwrap(); // [17, 20]
        check_matmul(&format!("{dt} stepped"), &a.matmul(&b).unwrap(), &a, &b, mm);
        // The same storage on both sides: x @ x^T.
        let x = g(&[13, 21], 5);
        let xt = x.transpose(None).unwrap();
        check_matmul(
            &format!("{dt} x @ x^T"),
            &x.matmul(&xt).unwrap(),
            &x,
            &xt,
            mm,
        );
        // A broadcast (stride-0) matrix operand.
        let row = g(&[1, 6], 6).broadcast_to(&[11, 6]).unwrap();
        let b = g(&[6, 9], 7);
        check_matmul(
            &format!("{dt} broadcast rows"),
            &row.matmul(&b).unwrap(),
            &row,
            &b,
            mm,
        );
        // matmul_out into a transposed view, and into a part of the storage
        // the inputs live in (disjoint): the kernel reads through `out`'s binding.
        let (a, b) = (g(&[6, 5], 8), g(&[5, 7], 9));
        let outt = Tensor::zeros_on(dt, &[7, 6], d).unwrap();
        let ov = outt.transpose(None).unwrap();
        a.matmul_out(&b, &ov).unwrap();
        check_matmul(&format!("{dt} out transposed"), &ov, &a, &b, mm);
        let big = g(&[3, 8, 8], 10);
        let (a, b, o) = (
            big.slice(s![0, ..5, ..]).unwrap(),
            big.slice(s![1, .., ..3]).unwrap(),
            big.slice(s![2, 1..6, 2..5]).unwrap(),
        );
        a.matmul_out(&b, &o).unwrap();
        check_matmul(
            &format!("{dt} out shares the inputs' storage"),
            &o,
            &a,
            &b,
            mm,
        );
        // The rest of `big`'s last plane (sub-word neighbours) is unchanged.
        let before = data(dt, &[3, 8, 8], 10);
        let rest = |t: &Tensor| {
            let p = t.slice(s![2, .., ..]).unwrap();
            [
                p.slice(s![.., ..2]).unwrap(),
                p.slice(s![.., 5..]).unwrap(),
                p.slice(s![0, ..]).unwrap(),
                p.slice(s![6.., ..]).unwrap(),
            ]
            .iter()
            .flat_map(ints_or_bits)
            .collect::<Vec<_>>()
        };
        assert_eq!(rest(&big), rest(&before), "{dt}: neighbours of out");
    }
}

fn ints_or_bits(t: &Tensor) -> Vec<i128> {
    if t.dtype().is_int() {
        ints(t)
    } else {
        f64s(t).iter().map(|x| x.to_bits() as i128).collect()
    }
}

/// K longer than one dispatch handles (16384): the kernel splits K into
/// dispatches (halves sum them in f32 scratch). K = 40000 is more than 2^15
/// elements; K = 600,000 is more than 2^15 K-tiles of 16 (the iterations
/// one unchunked K loop would run; lavapipe stops some loops after about
/// 2^15 iterations).
#[test]
fn matmul_long_k_in_chunks() {
    let Some(d) = gpu() else { return };
    let a = data(DType::F32, &[2, 600_000], 1).to_device(d).unwrap();
    let b = data(DType::F32, &[600_000, 3], 2).to_device(d).unwrap();
    check_matmul("f32 K = 600000", &a.matmul(&b).unwrap(), &a, &b, mm);
    for dt in [DType::F32, DType::I32, DType::F16, DType::U8] {
        let a = data(dt, &[2, 40_000], 1).to_device(d).unwrap();
        let b = data(dt, &[40_000, 3], 2).to_device(d).unwrap();
        check_matmul(
            &format!("{dt} [2, 40000] @ [40000, 3]"),
            &a.matmul(&b).unwrap(),
            &a,
            &b,
            mm,
        );
    }
    // A long K through the accumulate path (conv with bias): k = 20000 * 2.
    let x = data(DType::F32, &[1, 20_000, 3], 3).to_device(d).unwrap();
    let w = data(DType::F32, &[2, 20_000, 2], 4).to_device(d).unwrap();
    let bias = data(DType::F32, &[2], 5).to_device(d).unwrap();
    let o = Conv1dOptions {
        bias: Some(bias),
        ..Default::default()
    };
    check_conv1("long k conv1d + bias", &x, &w, &o, false);
    eprintln!(
        "gpu_linalg: worst f32/f64 error so far {:.3} k u sum|a||b|",
        *WORST.lock().unwrap()
    );
}

/// Runs the same 1-D convolution on the GPU and checks it against the CPU.
fn check_conv1(what: &str, x: &Tensor, w: &Tensor, o: &Conv1dOptions, flip: bool) {
    let f = |x: &Tensor, w: &Tensor, o: &Conv1dOptions| {
        if flip {
            x.convolve1d(w, o).unwrap()
        } else {
            x.correlate1d(w, o).unwrap()
        }
    };
    let g = f(x, w, o);
    let k = w.shape()[1] * w.shape()[2] + o.bias.is_some() as usize;
    let cpu = |t: &Tensor| t.to_device(Device::Cpu).unwrap();
    if g.dtype().is_int() {
        let oc = Conv1dOptions {
            bias: o.bias.as_ref().map(cpu),
            ..o.clone()
        };
        assert_eq!(ints(&g), ints(&f(&cpu(x), &cpu(w), &oc)), "{what}");
        return;
    }
    let o64 = Conv1dOptions {
        bias: o.bias.as_ref().map(cpu64),
        ..o.clone()
    };
    let oabs = Conv1dOptions {
        bias: o.bias.as_ref().map(abs64),
        fillvalue: o.fillvalue.abs(),
        ..o.clone()
    };
    let r = f(&cpu64(x), &cpu64(w), &o64);
    let absr = f(&abs64(x), &abs64(w), &oabs);
    check_float(what, &g, &r, &absr, k, 0.0);
}

fn check_conv2(what: &str, x: &Tensor, w: &Tensor, o: &Conv2dOptions, flip: bool) {
    let f = |x: &Tensor, w: &Tensor, o: &Conv2dOptions| {
        if flip {
            x.convolve2d(w, o).unwrap()
        } else {
            x.correlate2d(w, o).unwrap()
        }
    };
    let g = f(x, w, o);
    let k = w.shape()[1] * w.shape()[2] * w.shape()[3] + o.bias.is_some() as usize;
    let cpu = |t: &Tensor| t.to_device(Device::Cpu).unwrap();
    if g.dtype().is_int() {
        let oc = Conv2dOptions {
            bias: o.bias.as_ref().map(cpu),
            ..o.clone()
        };
        assert_eq!(ints(&g), ints(&f(&cpu(x), &cpu(w), &oc)), "{what}");
        return;
    }
    let o64 = Conv2dOptions {
        bias: o.bias.as_ref().map(cpu64),
        ..o.clone()
    };
    let oabs = Conv2dOptions {
        bias: o.bias.as_ref().map(abs64),
        fillvalue: o.fillvalue.abs(),
        ..o.clone()
    };
    let r = f(&cpu64(x), &cpu64(w), &o64);
    let absr = f(&abs64(x), &abs64(w), &oabs);
    // The f64 reference may itself use the CPU's Winograd (2e-14 of absr).
    check_float(what, &g, &r, &absr, k, 2e-14);
}

#[test]
fn conv_every_option_matches_cpu() {
    let Some(d) = gpu() else { return };
    let pads = [Padding::Valid, Padding::Same, Padding::Full];
    let mut case = 0u64;
    for dt in [DType::F32, DType::I32, DType::F16, DType::F64, DType::I8] {
        for (pi, &padding) in pads.iter().enumerate() {
            for &(groups, stride, dilation) in &[(1, 1, 1), (2, 2, 1), (3, 1, 2), (1, 3, 3)] {
                case += 1;
                let (n, c, o) = (2, 6, 3 * groups);
                let c = c / groups * groups;
                let gt = |shape: &[usize], seed| data(dt, shape, seed).to_device(d).unwrap();
                let bias = case.is_multiple_of(2).then(|| gt(&[o], case + 3));
                let fillvalue = if pi == 1 { 2.0 } else { 0.0 };
                let flip = case.is_multiple_of(3);
                // 1-D.
                let x = gt(&[n, c, 19], case);
                let w = gt(&[o, c / groups, 4], case + 1);
                let o1 = Conv1dOptions {
                    groups,
                    stride,
                    padding,
                    dilation,
                    fillvalue,
                    bias: bias.clone(),
                };
                let what =
                    format!("{dt} 1d {padding:?} g{groups} s{stride} d{dilation} flip {flip}");
                check_conv1(&what, &x, &w, &o1, flip);
                // 2-D, with a strided (transposed) input view.
                let x = gt(&[n, c, 11, 9], case + 2)
                    .transpose([0, 1, 3, 2])
                    .unwrap();
                let w = gt(&[o, c / groups, 3, 2], case + 4);
                let o2 = Conv2dOptions {
                    groups,
                    stride: [stride, 1 + stride % 2],
                    padding,
                    dilation: [dilation, 1],
                    fillvalue,
                    bias,
                };
                let what =
                    format!("{dt} 2d {padding:?} g{groups} s{stride} d{dilation} flip {flip}");
                check_conv2(&what, &x, &w, &o2, flip);
            }
        }
    }
    // A shape the CPU runs with Winograd (3x3, 32 channels, 512 tiles): the
    // GPU runs it as im2col + matmul, within the bound of the f64 reference.
    assert!(rnx::ops::conv::uses_winograd(
        DType::F32,
        [3, 3],
        [1, 1],
        [1, 1],
        [32, 32],
        2,
        [64, 64]
    ));
    let x = data(DType::F32, &[2, 32, 66, 66], 90).to_device(d).unwrap();
    let w = data(DType::F32, &[32, 32, 3, 3], 91).to_device(d).unwrap();
    let b = data(DType::F32, &[32], 92).to_device(d).unwrap();
    let o = Conv2dOptions {
        bias: Some(b),
        ..Default::default()
    };
    check_conv2(
        "f32 3x3 32 channels (Winograd on the CPU)",
        &x,
        &w,
        &o,
        false,
    );
    eprintln!(
        "gpu_linalg: worst f32/f64 error {:.3} k u sum|a||b|",
        *WORST.lock().unwrap()
    );
}

/// Operands and outputs in storages larger than one binding (lavapipe: 128
/// MiB) are bound as several windows: views inside the last window and
/// views whose elements lie in both windows give the CPU's results.
#[test]
fn matmul_across_binding_windows() {
    let Some(d) = gpu() else { return };
    let wb = crate::gpu_memory::test_window(d);
    // i32: two windows.
    let n = wb / 4 + 1_000_003;
    let step = (n / 64) as isize;
    let big = Tensor::arange_on(DType::I32, 0, n as i64, 1, d).unwrap();
    let tail = |t: &Tensor, len: usize| t.slice(s![(n - len) as isize..]).unwrap();
    let spread = |t: &Tensor| t.slice(s![..64 * step;step]).unwrap();
    let a = tail(&big, 40).reshape([5, 8]).unwrap();
    let b = spread(&big).reshape([8, 8]).unwrap();
    check_matmul(
        "i32 windows: tail @ spread",
        &a.matmul(&b).unwrap(),
        &a,
        &b,
        mm,
    );
    let out = Tensor::zeros_on(DType::I32, &[n], d).unwrap();
    let o = tail(&out, 40).reshape([5, 8]).unwrap();
    a.matmul_out(&b, &o).unwrap();
    check_matmul("i32 windows: out in the last window", &o, &a, &b, mm);
    let o = spread(&out).reshape([8, 8]).unwrap();
    b.matmul_out(&b, &o).unwrap();
    check_matmul("i32 windows: out across windows", &o, &b, &b, mm);
}
