//! Complex tensors (c32, c64) on the GPU against the CPU: transfers, views
//! and copies keep every bit, fills and casts between complex and every real
//! GPU dtype give the CPU's values, the primitives without a complex kernel
//! (arithmetic, math, reductions, matmul, compare, select, sort) give the
//! CPU's results through the round trip and leave them on the GPU, the
//! data-moving ops (take, set_slice, concatenate) run on complex tensors, and
//! `eig` returns its complex results on the GPU.

#![allow(clippy::type_complexity)] // tables of view/op closures
use crate::gpu::{gpu, sample, ALL};
use rnx::{s, DType, Device, Tensor, C32, C64};

/// The complex dtypes the adapter holds (c64 needs f64).
fn complex_dtypes(d: Device) -> Vec<DType> {
    let mut v = vec![DType::C32];
    if Tensor::zeros_on(DType::C64, &[1], d).is_ok() {
        v.push(DType::C64);
    }
    v
}

/// The (real, imaginary) bits of every element, read back in logical order;
/// with `exact` false every NaN is one key (computations on differently laid
/// out copies may propagate another NaN payload).
fn bits(t: &Tensor, exact: bool) -> Vec<(u64, u64)> {
    let h = t.to_device(Device::Cpu).unwrap().contiguous().unwrap();
    let k = |b: u64, nan: bool| if nan && !exact { u64::MAX } else { b };
    match h.dtype() {
        DType::C32 => h
            .to_vec::<C32>()
            .unwrap()
            .iter()
            .map(|z| {
                (
                    k(z.re.to_bits() as u64, z.re.is_nan()),
                    k(z.im.to_bits() as u64, z.im.is_nan()),
                )
            })
            .collect(),
        DType::C64 => h
            .to_vec::<C64>()
            .unwrap()
            .iter()
            .map(|z| {
                (
                    k(z.re.to_bits(), z.re.is_nan()),
                    k(z.im.to_bits(), z.im.is_nan()),
                )
            })
            .collect(),
        _ => h
            .cast(DType::F64)
            .unwrap()
            .to_vec::<f64>()
            .unwrap()
            .iter()
            .map(|x| (if x.is_nan() { u64::MAX } else { x.to_bits() }, 0))
            .collect(),
    }
}

/// The same bits (NaN payloads too), dtype and shape, and the GPU result on
/// the GPU.
fn same(what: &str, g: &Tensor, c: &Tensor) {
    same_as(what, g, c, true)
}

/// [`same`], with any NaN matching any NaN unless `exact`.
fn same_as(what: &str, g: &Tensor, c: &Tensor, exact: bool) {
    assert_eq!(
        g.device(),
        Device::Gpu(0),
        "{what}: the result left the GPU"
    );
    assert_eq!((g.dtype(), g.shape()), (c.dtype(), c.shape()), "{what}");
    if c.dtype().is_int() {
        assert_eq!(crate::gpu::ints(g), crate::gpu::ints(c), "{what}");
    } else {
        assert_eq!(bits(g, exact), bits(c, exact), "{what}: {g} vs {c}");
    }
}

/// A complex sample of `dtype` with special values at the front: NaN with a
/// payload, infinities, signed zeros.
fn csample(dtype: DType, shape: &[usize], seed: u64) -> Tensor {
    let n: usize = shape.iter().product();
    let re = sample(DType::F64, &[n], seed, 5.0).to_vec::<f64>().unwrap();
    let im = sample(DType::F64, &[n], seed + 1, 5.0)
        .to_vec::<f64>()
        .unwrap();
    let special = [
        f64::from_bits(0x7ff8_0000_0000_0123),
        f64::INFINITY,
        -0.0,
        f64::NEG_INFINITY,
        0.0,
    ];
    let v: Vec<C64> = (0..n)
        .map(|i| match i {
            0..5 => C64::new(special[i], special[4 - i]),
            _ => C64::new(re[i], im[i]),
        })
        .collect();
    Tensor::from_vec(v, shape).unwrap().cast(dtype).unwrap()
}

#[test]
fn transfers_views_and_fills_keep_every_bit() {
    let Some(d) = gpu() else { return };
    for dt in complex_dtypes(d) {
        let c = csample(dt, &[4, 5, 6], 3);
        let g = c.to_device(d).unwrap();
        same("upload", &g, &c);
        let views: Vec<(&str, Box<dyn Fn(&Tensor) -> Tensor>)> = vec![
            ("transpose", Box::new(|t| t.transpose(None).unwrap())),
            ("flip", Box::new(|t| t.flip([1, 2]).unwrap())),
            (
                "step",
                Box::new(|t| t.slice(s![1.., ..;2, 5..0;-2]).unwrap()),
            ),
        ];
        for (name, v) in &views {
            same(
                &format!("{dt} {name} copy"),
                &v(&g).copy().unwrap(),
                &v(&c).copy().unwrap(),
            );
        }
        let z = C64::new(-1.5, f64::from_bits(0x7ff8_0000_0000_0042));
        same(
            &format!("{dt} full"),
            &Tensor::full_on(dt, &[3, 7], z, d).unwrap(),
            &Tensor::full(dt, &[3, 7], z).unwrap(),
        );
        same(
            &format!("{dt} zeros"),
            &Tensor::zeros_on(dt, &[9], d).unwrap(),
            &Tensor::zeros(dt, &[9]).unwrap(),
        );
        // Filling a strided view leaves the rest alone.
        let t = g.copy().unwrap();
        t.slice(s![.., 1..;2, ..]).unwrap().fill(z).unwrap();
        let h = c.copy().unwrap();
        h.slice(s![.., 1..;2, ..]).unwrap().fill(z).unwrap();
        same(&format!("{dt} fill_ of a view"), &t, &h);
    }
}

#[test]
fn casts_to_and_from_complex_match_the_cpu() {
    let Some(d) = gpu() else { return };
    let cds = complex_dtypes(d);
    for &cd in &cds {
        let c = csample(cd, &[37], 7);
        let g = c.to_device(d).unwrap();
        for rd in ALL {
            if Tensor::zeros_on(rd, &[1], d).is_err() {
                continue;
            }
            let r = sample(rd, &[37], 11, 300.0);
            same(
                &format!("{rd} -> {cd}"),
                &r.to_device(d).unwrap().cast(cd).unwrap(),
                &r.cast(cd).unwrap(),
            );
            same(
                &format!("{cd} -> {rd}"),
                &g.cast(rd).unwrap(),
                &c.cast(rd).unwrap(),
            );
        }
        for &to in &cds {
            same(
                &format!("{cd} -> {to}"),
                &g.cast(to).unwrap(),
                &c.cast(to).unwrap(),
            );
        }
        // A strided source.
        same(
            &format!("{cd} -> f32, stepped"),
            &g.slice(s![..;-3]).unwrap().cast(DType::F32).unwrap(),
            &c.slice(s![..;-3]).unwrap().cast(DType::F32).unwrap(),
        );
    }
    // Rounding casts round once, as on the CPU: c64 -> c32 of 1 + 2^-24 + 2^-40.
    if cds.contains(&DType::C64) {
        let x = 1.0 + 2f64.powi(-24) + 2f64.powi(-40);
        let c = Tensor::from_vec(vec![C64::new(x, -x)], &[1]).unwrap();
        let g = c.to_device(d).unwrap().cast(DType::C32).unwrap();
        let want = C32::new(1.0 + 2f32.powi(-23), -1.0 - 2f32.powi(-23));
        assert_eq!(g.to_vec::<C32>().unwrap(), vec![want]);
    }
}

#[test]
fn primitives_without_a_complex_kernel_give_the_cpu_results() {
    let Some(d) = gpu() else { return };
    for dt in complex_dtypes(d) {
        let a = csample(dt, &[6, 4], 21).slice(s![5.., ..]).unwrap();
        let a = Tensor::concatenate(&[&a, &csample(dt, &[5, 4], 5)], 0).unwrap();
        let b = csample(dt, &[6, 4], 31);
        let (ga, gb) = (a.to_device(d).unwrap(), b.to_device(d).unwrap());
        let ops: Vec<(&str, Box<dyn Fn(&Tensor, &Tensor) -> Tensor>)> = vec![
            ("cmpeq", Box::new(|x, y| x.cmpeq(y).unwrap())),
            (
                "where",
                Box::new(|x, y| {
                    let m = x.abs().unwrap().cmplt(4.0).unwrap();
                    Tensor::where_cond(&m, x, y).unwrap()
                }),
            ),
            ("prod", Box::new(|x, _| x.prod([1], true).unwrap())),
        ];
        for (name, f) in &ops {
            same_as(&format!("{dt} {name}"), &f(&ga, &gb), &f(&a, &b), false);
        }
    }
}

#[test]
fn data_moving_ops_and_eig_on_complex_gpu_tensors() {
    let Some(d) = gpu() else { return };
    for dt in complex_dtypes(d) {
        let a = csample(dt, &[5, 4], 41);
        let ga = a.to_device(d).unwrap();
        same(
            &format!("{dt} take"),
            &ga.slice(s![vec![4, 0, 4], ..]).unwrap(),
            &a.slice(s![vec![4, 0, 4], ..]).unwrap(),
        );
        let put = |t: &Tensor| {
            let t = t.copy().unwrap();
            let v = t.slice(s![..2, ..]).unwrap().copy().unwrap();
            t.set_slice(s![vec![3, 1], ..], &v).unwrap();
            t
        };
        same(&format!("{dt} set_slice"), &put(&ga), &put(&a));
        same(
            &format!("{dt} concatenate"),
            &Tensor::concatenate(&[&ga, &ga.flip(None).unwrap()], 1).unwrap(),
            &Tensor::concatenate(&[&a, &a.flip(None).unwrap()], 1).unwrap(),
        );
    }
    // eig's complex results stay on the GPU (faer on the CPU, as every
    // decomposition): a rotation's eigenvalues are +-i.
    let m = Tensor::from_vec(vec![0.0f32, -1.0, 1.0, 0.0], &[2, 2]).unwrap();
    let (w, v) = m.to_device(d).unwrap().eig().unwrap();
    let (cw, cv) = m.eig().unwrap();
    same("eig values", &w, &cw);
    same("eig vectors", &v, &cv);
    let mut ims: Vec<f32> = w.to_vec::<C32>().unwrap().iter().map(|z| z.im).collect();
    ims.sort_by(f32::total_cmp);
    assert_eq!(ims, vec![-1.0, 1.0]);
}

/// The (real, imaginary) parts of a complex tensor as f64, interleaved,
/// read back in logical order from any device.
fn c64_parts(t: &Tensor) -> Vec<f64> {
    t.to_device(Device::Cpu)
        .unwrap()
        .cast(DType::C64)
        .unwrap()
        .contiguous()
        .unwrap()
        .to_vec::<C64>()
        .unwrap()
        .iter()
        .flat_map(|z| [z.re, z.im])
        .collect()
}

/// The magnitude of every element of a complex tensor, as f64.
fn norms(t: &Tensor) -> Vec<f64> {
    c64_parts(t).chunks(2).map(|p| p[0].hypot(p[1])).collect()
}

/// Every part of `g` within `tol` times the element's `scale` of `c`'s, or
/// both NaN, or both the same infinity (equal where the scale is not finite).
fn close(what: &str, g: &Tensor, c: &Tensor, scale: &[f64], tol: f64) {
    assert_eq!(
        g.device(),
        Device::Gpu(0),
        "{what}: the result left the GPU"
    );
    assert_eq!((g.dtype(), g.shape()), (c.dtype(), c.shape()), "{what}");
    let parts = |t: &Tensor| -> Vec<f64> {
        if t.dtype().is_complex() {
            c64_parts(t)
        } else {
            crate::gpu::values_f64(t)
        }
    };
    let (gv, cv) = (parts(g), parts(c));
    let per = gv.len() / scale.len();
    for (k, (a, b)) in gv.iter().zip(&cv).enumerate() {
        let ok = if b.is_nan() || b.is_infinite() || !scale[k / per].is_finite() {
            (a.is_nan() && b.is_nan()) || a == b
        } else {
            (a - b).abs() <= tol * scale[k / per]
        };
        assert!(
            ok,
            "{what}[{k}]: gpu {a} cpu {b} (scale {})",
            scale[k / per]
        );
    }
}

#[test]
fn complex_arithmetic_kernels_match_the_cpu() {
    let Some(d) = gpu() else { return };
    for dt in complex_dtypes(d) {
        let u = unit(dt);
        let a = csample(dt, &[7, 9], 51);
        let b = csample(dt, &[7, 9], 52).flip(None).unwrap();
        let (ga, gb) = (a.to_device(d).unwrap(), b.to_device(d).unwrap());
        let (ma, mb) = (norms(&a), norms(&b));
        // add, sub, neg, conj are exact: the CPU's bits (NaN payloads aside).
        for (what, g, c) in [
            ("add", ga.add(&gb).unwrap(), a.add(&b).unwrap()),
            ("sub", ga.sub(&gb).unwrap(), a.sub(&b).unwrap()),
            ("neg", ga.neg().unwrap(), a.neg().unwrap()),
            ("conjugate", ga.conjugate().unwrap(), a.conjugate().unwrap()),
            // (NaN parts make an element unequal to itself.)
            ("cmpeq self", ga.cmpeq(&ga).unwrap(), a.cmpeq(&a).unwrap()),
            ("cmpne self", ga.cmpne(&ga).unwrap(), a.cmpne(&a).unwrap()),
            ("cmpeq", ga.cmpeq(&gb).unwrap(), a.cmpeq(&b).unwrap()),
            (
                "cmpne of a copy with one part changed",
                ga.cmpne(
                    &ga.add(C64::new(0.0, 1.0))
                        .unwrap()
                        .cmpeq(&ga)
                        .unwrap()
                        .cast(dt)
                        .unwrap()
                        .mul(&ga)
                        .unwrap(),
                )
                .unwrap(),
                a.cmpne(
                    &a.add(C64::new(0.0, 1.0))
                        .unwrap()
                        .cmpeq(&a)
                        .unwrap()
                        .cast(dt)
                        .unwrap()
                        .mul(&a)
                        .unwrap(),
                )
                .unwrap(),
            ),
            (
                "where",
                Tensor::where_cond(&ga.abs().unwrap().cmplt(3.0).unwrap(), &ga, &gb).unwrap(),
                Tensor::where_cond(&a.abs().unwrap().cmplt(3.0).unwrap(), &a, &b).unwrap(),
            ),
            (
                "add of a broadcast scalar",
                ga.add(C64::new(0.5, -2.0)).unwrap(),
                a.add(C64::new(0.5, -2.0)).unwrap(),
            ),
        ] {
            same_as(&format!("{dt} {what}"), &g, &c, false);
        }
        // The products and quotients: num_complex's formulas, up to fused
        // multiply-adds: within a few roundings of the operands' scale.
        let prod: Vec<f64> = ma.iter().zip(&mb).map(|(x, y)| x * y).collect();
        let quot: Vec<f64> = ma.iter().zip(&mb).map(|(x, y)| x / y).collect();
        let sq: Vec<f64> = ma.iter().map(|x| x * x).collect();
        let inv: Vec<f64> = ma.iter().map(|x| 1.0 / x).collect();
        for (what, g, c, scale, tol) in [
            ("mul", ga.mul(&gb), a.mul(&b), &prod, 4.0),
            ("div", ga.div(&gb), a.div(&b), &quot, 8.0),
            ("square", ga.square(), a.square(), &sq, 4.0),
            ("recip", ga.recip(), a.recip(), &inv, 8.0),
            ("abs", ga.abs(), a.abs(), &ma, 2.0),
        ] {
            close(
                &format!("{dt} {what}"),
                &g.unwrap(),
                &c.unwrap(),
                scale,
                tol * u,
            );
        }
        // In place on a view of a transposed copy.
        let inplace = |x: &Tensor, y: &Tensor| {
            let t = x.transpose(None).unwrap().copy().unwrap();
            t.slice(s![1..4, ..])
                .unwrap()
                .mul_(&y.transpose(None).unwrap().slice(s![..3, ..]).unwrap())
                .unwrap();
            t
        };
        let (gi, ci) = (inplace(&ga, &gb), inplace(&a, &b));
        let mut scale = norms(&a.transpose(None).unwrap());
        let mt = norms(&b.transpose(None).unwrap());
        for k in 7..28 {
            scale[k] *= mt[k - 7];
        }
        close(&format!("{dt} mul_ of a view"), &gi, &ci, &scale, 4.0 * u);
    }
}

/// The unit roundoff of a complex dtype's parts.
fn unit(dt: DType) -> f64 {
    if dt == DType::C32 {
        2f64.powi(-24)
    } else {
        2f64.powi(-53)
    }
}

/// A complex sample of finite values in [-5, 5] (no special values).
fn finite(dtype: DType, shape: &[usize], seed: u64) -> Tensor {
    let n: usize = shape.iter().product();
    let re = sample(DType::F64, &[n], seed, 5.0);
    let im = sample(DType::F64, &[n], seed + 1, 5.0);
    let z = re
        .cast(DType::C64)
        .unwrap()
        .add(
            &im.cast(DType::C64)
                .unwrap()
                .mul(C64::new(0.0, 1.0))
                .unwrap(),
        )
        .unwrap();
    z.reshape(shape).unwrap().cast(dtype).unwrap()
}

#[test]
fn sums_and_products_by_the_real_kernels_match_the_cpu() {
    let Some(d) = gpu() else { return };
    for dt in complex_dtypes(d) {
        let u = unit(dt);
        let a = finite(dt, &[3, 20, 30], 61);
        let b = finite(dt, &[30, 12], 62);
        let (ga, gb) = (a.to_device(d).unwrap(), b.to_device(d).unwrap());
        let abs = |t: &Tensor| t.abs().unwrap().cast(DType::F64).unwrap();
        let flat = |t: Tensor| t.contiguous().unwrap().to_vec::<f64>().unwrap();
        // Each result within (terms) u times the sum of the magnitudes.
        let (sa, sb) = (abs(&a), abs(&b));
        for (what, g, c, scale, terms) in [
            (
                "sum axis 1",
                ga.sum([1], false).unwrap(),
                a.sum([1], false).unwrap(),
                flat(sa.sum([1], false).unwrap()),
                20.0,
            ),
            (
                "mean of all",
                ga.mean(None, true).unwrap(),
                a.mean(None, true).unwrap(),
                flat(sa.mean(None, true).unwrap()),
                1800.0,
            ),
            (
                "cumsum axis 2",
                ga.cumsum(2).unwrap(),
                a.cumsum(2).unwrap(),
                flat(sa.cumsum(2).unwrap()),
                30.0,
            ),
            (
                "matmul (batched, b broadcast)",
                ga.matmul(&gb).unwrap(),
                a.matmul(&b).unwrap(),
                flat(sa.matmul(&sb).unwrap()),
                60.0,
            ),
            (
                "matmul of a transposed view",
                gb.transpose(None)
                    .unwrap()
                    .matmul(&ga.slice(s![1, .., ..]).unwrap().transpose(None).unwrap())
                    .unwrap(),
                b.transpose(None)
                    .unwrap()
                    .matmul(&a.slice(s![1, .., ..]).unwrap().transpose(None).unwrap())
                    .unwrap(),
                flat(
                    sb.transpose(None)
                        .unwrap()
                        .matmul(&sa.slice(s![1, .., ..]).unwrap().transpose(None).unwrap())
                        .unwrap(),
                ),
                60.0,
            ),
        ] {
            close(&format!("{dt} {what}"), &g, &c, &scale, terms * u);
        }
        // The backend's product accumulating onto `out` (what a bias uses):
        // out += a @ b.
        let bias = finite(dt, &[20, 12], 63);
        let acc = |x: &Tensor, y: &Tensor, z: &Tensor| {
            let o = z.copy().unwrap();
            rnx::backend::get(o.device(), "test")
                .unwrap()
                .matmul(x, y, &o, true)
                .unwrap();
            o
        };
        let a1 = a.slice(s![0, .., ..]).unwrap();
        let ga1 = ga.slice(s![0, .., ..]).unwrap();
        let gbias = bias.to_device(d).unwrap();
        let scale = flat(abs(&a1).matmul(&sb).unwrap().add(&abs(&bias)).unwrap());
        close(
            &format!("{dt} matmul_out"),
            &acc(&ga1, &gb, &gbias),
            &acc(&a1, &b, &bias),
            &scale,
            60.0 * u,
        );
    }
}

#[test]
fn parts_construction_and_math_on_the_gpu() {
    let Some(d) = gpu() else { return };
    for dt in complex_dtypes(d) {
        let u = unit(dt);
        let z = csample(dt, &[4, 6], 71);
        let gz = z.to_device(d).unwrap();
        same(
            &format!("{dt} real"),
            &gz.real().unwrap(),
            &z.real().unwrap(),
        );
        same(
            &format!("{dt} imag"),
            &gz.imag().unwrap(),
            &z.imag().unwrap(),
        );
        // The real-result kernels on a strided view (the map's general
        // index path).
        let (tg, tc) = (gz.transpose(None).unwrap(), z.transpose(None).unwrap());
        same(
            &format!("{dt} imag of a view"),
            &tg.imag().unwrap(),
            &tc.imag().unwrap(),
        );
        let mags = norms(&tc);
        close(
            &format!("{dt} abs of a view"),
            &tg.abs().unwrap(),
            &tc.abs().unwrap(),
            &mags,
            2.0 * u,
        );
        // complex(re, im) from the bits of the parts (payloads kept), with
        // broadcasting.
        let (re, im) = (
            z.real().unwrap(),
            z.imag().unwrap().slice(s![1..2, ..]).unwrap(),
        );
        let (gre, gim) = (re.to_device(d).unwrap(), im.to_device(d).unwrap());
        same(
            &format!("{dt} complex"),
            &Tensor::complex(&gre, &gim).unwrap(),
            &Tensor::complex(&re, &im).unwrap(),
        );
        // angle: the GPU library's atan2, within 2 units of roundoff of pi.
        let pi = vec![std::f64::consts::PI; 24];
        close(
            &format!("{dt} angle"),
            &gz.angle().unwrap(),
            &z.angle().unwrap(),
            &pi,
            2.0 * u,
        );
        // polar and exp compose GPU kernels and the round trip: the CPU's
        // values up to the GPU's cos/sin.
        let a = finite(dt, &[24], 72).real().unwrap();
        let r = a.abs().unwrap();
        let (ga, gr) = (a.to_device(d).unwrap(), r.to_device(d).unwrap());
        let scale = r.to_vec_f64().unwrap();
        close(
            &format!("{dt} polar"),
            &Tensor::polar(&gr, &ga).unwrap(),
            &Tensor::polar(&r, &a).unwrap(),
            &scale,
            4.0 * u,
        );
        let f = finite(dt, &[24], 73);
        let gf = f.to_device(d).unwrap();
        // exp and log: c32 kernels (the f32 library: within a few units of
        // roundoff of each result's magnitude), c64 the round trip; the
        // corner cases of num_complex's exp (infinite and NaN parts).
        let (ce, cl) = (f.exp().unwrap(), f.log().unwrap());
        let mag = |t: &Tensor| -> Vec<f64> { norms(t).iter().map(|m| m + 1.0).collect() };
        close(
            &format!("{dt} exp"),
            &gf.exp().unwrap(),
            &ce,
            &mag(&ce),
            8.0 * u,
        );
        close(
            &format!("{dt} log"),
            &gf.log().unwrap(),
            &cl,
            &mag(&cl),
            8.0 * u,
        );
        let (nan, inf) = (f64::NAN, f64::INFINITY);
        let corners: Vec<C64> = [
            (inf, 0.0),
            (inf, 2.0),
            (inf, inf),
            (inf, nan),
            (-inf, 1.0),
            (-inf, inf),
            (-inf, nan),
            (nan, 0.0),
            (nan, 1.0),
            (0.0, inf),
            (1.0, nan),
        ]
        .iter()
        .map(|&(a, b)| C64::new(a, b))
        .collect();
        let k = Tensor::from_vec(corners, &[11]).unwrap().cast(dt).unwrap();
        let ones = vec![1.0; 11];
        close(
            &format!("{dt} exp corners"),
            &k.to_device(d).unwrap().exp().unwrap(),
            &k.exp().unwrap(),
            &ones,
            8.0 * u,
        );
        let e = finite(dt, &[24], 74).mul(0.2).unwrap();
        same_as(
            &format!("{dt} pow (round trip)"),
            &gf.pow(&e.to_device(d).unwrap()).unwrap(),
            &f.pow(&e).unwrap(),
            false,
        );
        // sign: a kernel (z / |z|), within a few units of roundoff of 1.
        let zs = z.sign().unwrap();
        close(
            &format!("{dt} sign"),
            &gz.sign().unwrap(),
            &zs,
            &vec![1.0; zs.size()],
            8.0 * u,
        );
        // isnan / isinf / isfinite: kernels, NumPy's rules, exact (a
        // special value in one part only, either part).
        let (nan, inf) = (f64::NAN, f64::INFINITY);
        let sp = Tensor::from_vec(
            vec![
                C64::new(1.0, 2.0),
                C64::new(nan, 0.0),
                C64::new(0.0, inf),
                C64::new(inf, 1.0),
                C64::new(2.0, nan),
                C64::new(-inf, nan),
            ],
            &[6],
        )
        .unwrap()
        .cast(dt)
        .unwrap();
        let gsp = sp.to_device(d).unwrap();
        for (what, g, c) in [
            (
                "isnan of specials",
                gsp.isnan().unwrap(),
                sp.isnan().unwrap(),
            ),
            (
                "isinf of specials",
                gsp.isinf().unwrap(),
                sp.isinf().unwrap(),
            ),
            (
                "isfinite of specials",
                gsp.isfinite().unwrap(),
                sp.isfinite().unwrap(),
            ),
            ("isnan", gz.isnan().unwrap(), z.isnan().unwrap()),
            ("isinf", gz.isinf().unwrap(), z.isinf().unwrap()),
            ("isfinite", gz.isfinite().unwrap(), z.isfinite().unwrap()),
            (
                "isclose",
                gz.isclose(&gz.flip(None).unwrap(), Default::default())
                    .unwrap(),
                z.isclose(&z.flip(None).unwrap(), Default::default())
                    .unwrap(),
            ),
        ] {
            same(&format!("{dt} {what}"), &g, &c);
        }
        // var / std: the parts' variances by the real kernels.
        let var = f.var(None, true, 1).unwrap();
        let scale = vec![var.cast(DType::F64).unwrap().item::<f64>().unwrap()];
        close(
            &format!("{dt} var"),
            &gf.var(None, true, 1).unwrap(),
            &var,
            &scale,
            64.0 * u,
        );
    }
}

#[test]
fn complex_sort_on_the_gpu() {
    let Some(d) = gpu() else { return };
    crate::complex_api::check_complex_sort(d);
    // unique on the GPU: the CPU's values and inverse.
    for dt in complex_dtypes(d) {
        let z = csample(dt, &[50], 81).mul(0.3).unwrap().round_parts();
        let all = rnx::ops::search::UniqueOptions {
            return_index: true,
            return_inverse: true,
            return_counts: true,
        };
        let (g, c) = (
            z.to_device(d).unwrap().unique_with(all).unwrap(),
            z.unique_with(all).unwrap(),
        );
        same_as(&format!("{dt} unique"), &g.values, &c.values, false);
        same(
            &format!("{dt} unique inverse"),
            &g.inverse.unwrap(),
            &c.inverse.unwrap(),
        );
        same(
            &format!("{dt} unique counts"),
            &g.counts.unwrap(),
            &c.counts.unwrap(),
        );
    }
}

/// Complex values with many repeats: each part rounded to an integer.
trait RoundParts {
    fn round_parts(&self) -> Tensor;
}
impl RoundParts for Tensor {
    fn round_parts(&self) -> Tensor {
        Tensor::complex(
            &self.real().unwrap().round().unwrap(),
            &self.imag().unwrap().round().unwrap(),
        )
        .unwrap()
    }
}

/// `sqrt` and `sign` of complex GPU tensors are kernels (num_complex's
/// formula / z over |z| on the GPU's math library, c32 and c64): within 8
/// units of roundoff of |z|^0.5 (of 1 for sign) of the CPU's values on
/// finite samples, and exactly the CPU's on the axes (both zeros' signs,
/// the negative real axis from either side, the imaginary axis) and for
/// NaN.
#[test]
fn complex_sqrt_and_sign_on_the_gpu() {
    let Some(d) = gpu() else { return };
    for dt in complex_dtypes(d) {
        let z = finite(dt, &[40, 25], 77);
        let g = z.to_device(d).unwrap().sqrt().unwrap();
        let c = z.sqrt().unwrap();
        let scale: Vec<f64> = norms(&c).iter().map(|r| r.max(1e-30)).collect();
        close(&format!("{dt} sqrt"), &g, &c, &scale, 8.0 * unit(dt));
        // sign: z / |z| (0 at 0), NumPy 2's; within the same bound.
        let g = z.to_device(d).unwrap().sign().unwrap();
        let c = z.sign().unwrap();
        close(
            &format!("{dt} sign"),
            &g,
            &c,
            &vec![1.0; 1000],
            8.0 * unit(dt),
        );
        let axes = [
            C64::new(4.0, 0.0),
            C64::new(4.0, -0.0),
            C64::new(-4.0, 0.0),
            C64::new(-4.0, -0.0),
            C64::new(0.0, 8.0),
            C64::new(-0.0, -8.0),
            C64::new(0.0, 0.0),
            C64::new(-0.0, -0.0),
            C64::new(f64::NAN, 1.0),
        ];
        let e = Tensor::from_slice(&axes, &[axes.len()])
            .unwrap()
            .cast(dt)
            .unwrap();
        let (g, c) = (e.to_device(d).unwrap().sqrt().unwrap(), e.sqrt().unwrap());
        assert_eq!(g.device(), d);
        same_as(&format!("{dt} sqrt on the axes"), &g, &c, true);
        // sign on the axes, zeros and NaN: exact (|z| is exact there).
        let (g, c) = (e.to_device(d).unwrap().sign().unwrap(), e.sign().unwrap());
        same_as(&format!("{dt} sign on the axes"), &g, &c, true);
    }
}
