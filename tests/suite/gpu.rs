//! The GPU backend against the CPU backend: transfers, views, copies, fills,
//! casts and every elementwise op, run on `Device::Gpu(0)` and compared with
//! the same op on the CPU (bit-identical for integers and correctly rounded
//! float ops, within a stated bound for the rest). Without an adapter the
//! tests return early, unless `RNX_REQUIRE_GPU=1` (CI), which makes them fail.
#![allow(clippy::type_complexity)] // tables of view/op closures

use rnx::backend::elementwise::{BinaryOp, CmpOp, MathFn, UnaryOp};
use rnx::ops::elementwise::{binary, unary};
use rnx::{s, DType, Device, Error, Tensor};

/// The GPU under test, or `None` (after saying so) when there is none and it
/// is not required, or when the test calling it runs in the second process
/// instead of this one (see `a_gpu_child`).
pub fn gpu() -> Option<Device> {
    if crate::a_gpu_child::this_test_delegated() {
        eprintln!("this test runs in the second process (a_gpu_child)");
        return None;
    }
    let d = Device::Gpu(0);
    if d.is_available() {
        return Some(d);
    }
    if std::env::var("RNX_REQUIRE_GPU").is_ok_and(|v| v == "1") {
        panic!(
            "RNX_REQUIRE_GPU=1 but gpu:0 is not available: {:?}",
            Tensor::zeros_on(DType::F32, &[1], d).err()
        );
    }
    eprintln!("no GPU adapter: GPU test skipped");
    None
}

/// Deterministic pseudo-random values (xorshift), as f64 in [-r, r].
fn values(n: usize, seed: u64, r: f64) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            ((s >> 11) as f64 / (1u64 << 53) as f64 * 2.0 - 1.0) * r
        })
        .collect()
}

/// A tensor of `dtype` with values in the dtype's range (integers: the
/// pattern wraps into the type; floats: in [-r, r]).
pub(crate) fn sample(dtype: DType, shape: &[usize], seed: u64, r: f64) -> Tensor {
    let n: usize = shape.iter().product();
    let v = values(n, seed, r);
    let t = Tensor::create(DType::F64, shape, &v).unwrap();
    if dtype.is_int() {
        // Through i64 (wrapping casts) so every bit pattern occurs.
        t.mul(1e12)
            .unwrap()
            .cast(DType::I64)
            .unwrap()
            .cast(dtype)
            .unwrap()
    } else {
        t.cast(dtype).unwrap()
    }
}

/// The elements as f64 bit-exact keys (NaN as one key, -0 distinct).
pub(crate) fn keys(t: &Tensor) -> Vec<u64> {
    let t = t.to_device(Device::Cpu).unwrap();
    let c = t.cast(DType::F64).unwrap().to_vec::<f64>().unwrap();
    c.iter()
        .map(|x| if x.is_nan() { u64::MAX } else { x.to_bits() })
        .collect()
}

/// The elements as f64 on the host, in logical order.
pub(crate) fn f64s(t: &Tensor) -> Vec<f64> {
    t.to_device(Device::Cpu)
        .unwrap()
        .cast(DType::F64)
        .unwrap()
        .contiguous()
        .unwrap()
        .to_vec::<f64>()
        .unwrap()
}

/// The unit roundoff of a float dtype's accumulation (f32 for the halves) and
/// the relative rounding of its final store (0 where the two are one).
pub(crate) fn units(d: DType) -> (f64, f64) {
    match d {
        DType::F64 => (2f64.powi(-53), 0.0),
        DType::F16 => (2f64.powi(-24), 2f64.powi(-11)),
        DType::BF16 => (2f64.powi(-24), 2f64.powi(-8)),
        _ => (2f64.powi(-24), 0.0),
    }
}

/// Integer views compared exactly (i64 and u64 do not fit f64).
pub(crate) fn ints(t: &Tensor) -> Vec<i128> {
    let t = t.to_device(Device::Cpu).unwrap();
    match t.dtype() {
        DType::U64 => t
            .to_vec::<u64>()
            .unwrap()
            .into_iter()
            .map(i128::from)
            .collect(),
        _ => t
            .cast(DType::I64)
            .unwrap()
            .to_vec::<i64>()
            .unwrap()
            .into_iter()
            .map(i128::from)
            .collect(),
    }
}

pub(crate) fn assert_same(what: &str, g: &Tensor, c: &Tensor) {
    assert_eq!(g.device(), Device::Gpu(0), "{what}: result left the GPU");
    assert_eq!(g.shape(), c.shape(), "{what}: shape");
    assert_eq!(g.dtype(), c.dtype(), "{what}: dtype");
    if c.dtype().is_int() {
        assert_eq!(ints(g), ints(c), "{what}");
    } else {
        assert_eq!(keys(g), keys(c), "{what}: {g} vs {c}");
    }
}

/// A tensor's values as f64, read back to the CPU from any device.
pub(crate) fn values_f64(t: &Tensor) -> Vec<f64> {
    t.to_device(Device::Cpu)
        .unwrap()
        .cast(DType::F64)
        .unwrap()
        .to_vec::<f64>()
        .unwrap()
}

/// `|g - c| <= atol + rtol |c|` element by element, as f64 (NaN matches NaN,
/// infinities must be equal); `g` on any device, shapes equal.
pub(crate) fn assert_within(what: &str, g: &Tensor, c: &Tensor, rtol: f64, atol: f64) {
    assert_eq!(g.shape(), c.shape(), "{what}: shape");
    for (i, (x, y)) in values_f64(c).iter().zip(values_f64(g)).enumerate() {
        let ok = (x.is_nan() && y.is_nan()) || *x == y || (x - y).abs() <= atol + rtol * x.abs();
        assert!(ok, "{what}[{i}]: cpu {x} gpu {y}");
    }
}

/// Float results within `rel` of the CPU's (relative to max(|c|, tiny)).
pub(crate) fn assert_close(what: &str, g: &Tensor, c: &Tensor, rel: f64) {
    assert_eq!(g.shape(), c.shape(), "{what}: shape");
    let (gv, cv) = (values_f64(g), values_f64(c));
    for (i, (a, b)) in gv.iter().zip(&cv).enumerate() {
        if a.is_nan() || b.is_nan() {
            assert!(a.is_nan() && b.is_nan(), "{what}[{i}]: {a} vs {b}");
            continue;
        }
        if a == b {
            continue;
        }
        let err = (a - b).abs() / b.abs().max(1e-30);
        assert!(
            err <= rel,
            "{what}[{i}]: gpu {a} cpu {b} (rel {err:e} > {rel:e})"
        );
    }
}

/// Math results of f32, f64 and halves (the GPU runs rnx's WGSL libraries,
/// see `src/backend/gpu/math.rs` and `math_f64.rs`) against the CPU's: within
/// `ulps(x)` ULPs of the dtype (both devices' documented bounds added; 3 more
/// on hardware adapters, whose division may be 2.5 ULP) at input `x`, or one
/// unit of a half type; NaN and infinities exactly.
pub(crate) fn assert_ulps(
    what: &str,
    g: &Tensor,
    c: &Tensor,
    x: &Tensor,
    ulps: impl Fn(f64) -> f64,
) {
    assert_eq!(g.shape(), c.shape(), "{what}: shape");
    let (gv, cv, xv) = (values_f64(g), values_f64(c), values_f64(x));
    let slack = if rnx::gpu_devices()[0].is_software {
        0.0
    } else {
        3.0
    };
    let (mant, emin) = match c.dtype() {
        DType::F16 => (10, -14),
        DType::BF16 => (7, -126),
        DType::F64 => (52, -1022),
        _ => (23, -126),
    };
    for (i, (a, b)) in gv.iter().zip(&cv).enumerate() {
        if a.is_nan() || b.is_nan() || a.is_infinite() || b.is_infinite() {
            assert!(
                a == b || (a.is_nan() && b.is_nan()),
                "{what}[{i}]: {a} vs {b}"
            );
            continue;
        }
        let e = if *b == 0.0 {
            emin
        } else {
            ((b.abs().to_bits() >> 52) as i64 - 1023).max(emin)
        };
        let unit = ((e - mant) as f64).exp2();
        let allowed = if matches!(c.dtype(), DType::F32 | DType::F64) {
            ulps(xv[i]) + slack
        } else {
            1.0
        };
        assert!(
            (a - b).abs() <= allowed * unit,
            "{what}[{i}] at {}: gpu {a:e} cpu {b:e} (more than {allowed} units)",
            xv[i]
        );
    }
}

pub(crate) const ALL: [DType; 12] = [
    DType::F32,
    DType::F16,
    DType::BF16,
    DType::F64,
    DType::I32,
    DType::U32,
    DType::I8,
    DType::U8,
    DType::I16,
    DType::U16,
    DType::I64,
    DType::U64,
];

#[test]
fn adapters_and_device_choice() {
    let Some(d) = gpu() else { return };
    let list = rnx::gpu_devices();
    assert!(!list.is_empty());
    assert_eq!(list[0].index, 0);
    assert!(!list[0].name.is_empty());
    assert!(Device::best().is_available());
    // best() never picks a software adapter.
    if let Device::Gpu(i) = Device::best() {
        assert!(!list[i].is_software);
    }
    let missing = Device::Gpu(list.len() + 7);
    assert!(!missing.is_available());
    let e = Tensor::zeros_on(DType::F32, &[2], missing).unwrap_err();
    assert!(
        e.to_string().contains(&format!("gpu:{}", list.len() + 7)),
        "{e}"
    );
    rnx::synchronize(d).unwrap();
}

#[test]
fn transfers_keep_every_bit() {
    let Some(d) = gpu() else { return };
    for dt in ALL {
        for shape in [
            &[][..],
            &[0][..],
            &[1][..],
            &[3][..],
            &[5, 7][..],
            &[2, 3, 5][..],
        ] {
            let c = sample(dt, shape, 7, 1e3);
            let g = c.to_device(d).unwrap();
            assert_eq!(g.device(), d);
            assert_same(&format!("{dt} {shape:?}"), &g, &c);
        }
    }
    // NaN payloads and signed zeros survive a round trip and a GPU copy.
    let bits: Vec<u32> = vec![
        0x7fc0_0001,
        0xffa0_0000,
        0x8000_0000,
        0x0000_0001,
        0x7f80_0000,
    ];
    let c = Tensor::from_vec(bits.iter().map(|&b| f32::from_bits(b)).collect(), &[5]).unwrap();
    let g = c.to_device(d).unwrap().flip(None).unwrap().copy().unwrap();
    let back: Vec<u32> = g
        .to_vec::<f32>()
        .unwrap()
        .iter()
        .map(|x| x.to_bits())
        .collect();
    let mut want = bits.clone();
    want.reverse();
    assert_eq!(back, want);
    // Items, Display and Debug read back.
    let t = Tensor::create(DType::I32, &[2, 2], &[1., 2., 3., 4.])
        .unwrap()
        .to_device(d)
        .unwrap();
    assert_eq!(t.to_string(), "[[1, 2],\n [3, 4]]");
    assert_eq!(t.item_at::<i32>(&[1, 0]).unwrap(), 3);
    assert!(format!("{t:?}").contains("gpu:0"), "{t:?}");
}

#[test]
fn fp8_is_rejected_with_the_adapter_named() {
    // (Complex tensors live on the GPU: tests/suite/gpu_complex.rs.)
    let Some(d) = gpu() else { return };
    let c = Tensor::zeros(DType::F8E4M3, &[2]).unwrap();
    match c.to_device(d) {
        Err(Error::UnsupportedDTypeOnDevice { dtype, device, .. }) => {
            assert_eq!((dtype, device), (DType::F8E4M3, d));
        }
        r => panic!("expected UnsupportedDTypeOnDevice, got {r:?}"),
    }
}

#[test]
fn views_copy_like_the_cpu() {
    let Some(d) = gpu() else { return };
    for dt in ALL {
        let c = sample(dt, &[4, 5, 6], 3, 100.0);
        let g = c.to_device(d).unwrap();
        let views: Vec<(&str, Box<dyn Fn(&Tensor) -> Tensor>)> = vec![
            ("transpose", Box::new(|t| t.transpose(None).unwrap())),
            ("flip", Box::new(|t| t.flip([1, 2]).unwrap())),
            (
                "step",
                Box::new(|t| t.slice(s![1.., ..;2, 5..0;-2]).unwrap()),
            ),
            (
                "broadcast",
                Box::new(|t| {
                    t.slice(s![.., 1..2, ..])
                        .unwrap()
                        .broadcast_to(&[4, 3, 6])
                        .unwrap()
                }),
            ),
            ("offset", Box::new(|t| t.slice(s![3, 1.., 1..]).unwrap())),
        ];
        for (name, v) in &views {
            let what = format!("{dt} {name}");
            assert_same(
                &what,
                &v(&g).contiguous().unwrap(),
                &v(&c).contiguous().unwrap(),
            );
            // Reading a view straight back (strided download).
            assert_eq!(ints_or_keys(&v(&g)), ints_or_keys(&v(&c)), "{what}");
        }
        // Copies and joins that go through the core primitives.
        assert_same(
            &format!("{dt} pad"),
            &g.pad(&[(1, 2), (0, 0), (2, 1)], 0).unwrap(),
            &c.pad(&[(1, 2), (0, 0), (2, 1)], 0).unwrap(),
        );
        assert_same(
            &format!("{dt} concatenate"),
            &Tensor::concatenate(&[&g, &g.flip(None).unwrap()], Some(1)).unwrap(),
            &Tensor::concatenate(&[&c, &c.flip(None).unwrap()], Some(1)).unwrap(),
        );
        assert_same(
            &format!("{dt} roll"),
            &g.roll(2, Some(-1)).unwrap(),
            &c.roll(2, Some(-1)).unwrap(),
        );
    }
}

fn ints_or_keys(t: &Tensor) -> Vec<i128> {
    if t.dtype().is_int() {
        ints(t)
    } else {
        keys(t).into_iter().map(i128::from).collect()
    }
}

#[test]
fn sub_word_writes_leave_neighbours_alone() {
    let Some(d) = gpu() else { return };
    for dt in [DType::U8, DType::I8, DType::U16, DType::F16, DType::BF16] {
        let base = Tensor::zeros_on(dt, &[67], d).unwrap();
        let even = base.slice(s![0..;2]).unwrap();
        let odd = base.slice(s![1..;2]).unwrap();
        even.fill(3).unwrap();
        odd.fill(5).unwrap();
        even.add_(1).unwrap();
        odd.mul_(2).unwrap();
        let got = keys(&base);
        let want: Vec<u64> = (0..67)
            .map(|i| if i % 2 == 0 { 4f64 } else { 10f64 }.to_bits())
            .collect();
        assert_eq!(got, want, "{dt}: interleaved views");
        // A reversed view with an odd offset written in place.
        let c = Tensor::arange(DType::I32, 0, 67, 1)
            .unwrap()
            .cast(dt)
            .unwrap();
        let g = c.to_device(d).unwrap();
        let rg = g.slice(s![65..0;-1]).unwrap();
        let rc = c.slice(s![65..0;-1]).unwrap();
        rg.add_(&rg.flip(None).unwrap().copy().unwrap()).unwrap();
        rc.add_(&rc.flip(None).unwrap().copy().unwrap()).unwrap();
        assert_same(&format!("{dt} reversed in place"), &g, &c);
    }
}

/// Casts into a float dtype that round (f64 -> f32/f16/bf16, wide integers ->
/// narrower floats) run on the GPU in integer arithmetic with one rounding:
/// the same bits as the CPU at midpoints and just past them, subnormals,
/// overflow and the ends of the integer ranges.
#[test]
fn rounding_casts_match_the_cpu_bit_for_bit() {
    let Some(d) = gpu() else { return };
    let p = |e: i32| 2f64.powi(e);
    let f64s = vec![
        1.0 + p(-11) + p(-30),
        1.0 + p(-11),
        1.0 + 3.0 * p(-11),
        1.0 + p(-8) + p(-30),
        1.0 + p(-8),
        1.0 + 3.0 * p(-8),
        1.0 + p(-24) + p(-60),
        1.0 + p(-24),
        -(1.0 + 3.0 * p(-24)),
        p(-25),
        p(-25) + p(-40),
        p(-24) * 1.5,
        p(-150),
        p(-150) + p(-170),
        p(-149) * 1.5,
        p(-133),
        p(-127) * 1.75,
        65504.0,
        65519.0,
        65520.0,
        3.4028235677973366e38,
        3.4028235e38,
        3.3895313892515355e38,
        1e300,
        -1e-300,
        5e-324,
        0.0,
        -0.0,
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::NAN,
        std::f64::consts::PI,
        -1.0 / 3.0,
    ];
    let x = Tensor::from_vec(f64s, &[33]).unwrap();
    let g = x.to_device(d).unwrap();
    for t in [DType::F32, DType::F16, DType::BF16] {
        assert_same(
            &format!("f64 -> {t}"),
            &g.cast(t).unwrap(),
            &x.cast(t).unwrap(),
        );
    }
    let i64s: Vec<i64> = vec![
        (1 << 60) + (1 << 36) + 1,
        (1 << 60) + (1 << 36),
        (1 << 60) + (3 << 36),
        i64::MAX,
        i64::MIN,
        i64::MIN + 1,
        -((1 << 53) + 1),
        (1 << 53) + 1,
        16_842_753,
        -16_842_753,
        16_777_217,
        2049,
        2051,
        65519,
        65520,
        -65520,
        0,
        -1,
    ];
    let n = i64s.len();
    let x = Tensor::from_vec(i64s, &[n]).unwrap();
    let g = x.to_device(d).unwrap();
    for s in [
        DType::I64,
        DType::U64,
        DType::I32,
        DType::U32,
        DType::I16,
        DType::U16,
    ] {
        let (xs, gs) = (x.cast(s).unwrap(), g.cast(s).unwrap());
        for t in [DType::F64, DType::F32, DType::F16, DType::BF16] {
            assert_same(
                &format!("{s} -> {t}"),
                &gs.cast(t).unwrap(),
                &xs.cast(t).unwrap(),
            );
        }
    }
}

#[test]
fn fill_and_cast_between_every_pair() {
    let Some(d) = gpu() else { return };
    for s in ALL {
        let c = sample(s, &[3, 41], 11, 300.0).slice(s![.., ..;-1]).unwrap();
        let g = c.to_device(d).unwrap().slice(s![.., ..;-1]).unwrap();
        let c = c.slice(s![.., ..;-1]).unwrap();
        for t in ALL {
            assert_same(
                &format!("cast {s} -> {t}"),
                &g.cast(t).unwrap(),
                &c.cast(t).unwrap(),
            );
        }
        let z = Tensor::zeros_on(s, &[4, 3], d).unwrap();
        z.slice(s![..;2, 1..]).unwrap().fill(7).unwrap();
        let zc = Tensor::zeros(s, &[4, 3]).unwrap();
        zc.slice(s![..;2, 1..]).unwrap().fill(7).unwrap();
        assert_same(&format!("fill {s}"), &z, &zc);
    }
    // Float -> int saturation and NaN -> 0, and the midpoint roundings of the
    // halves, on the GPU path.
    let c = Tensor::from_vec(
        vec![
            f32::NAN,
            1e20,
            -1e20,
            2.5,
            -2.5,
            65519.0,
            65520.0,
            1.0 + 1.0 / 2048.0,
        ],
        &[8],
    )
    .unwrap();
    let g = c.to_device(d).unwrap();
    for t in [
        DType::I8,
        DType::U8,
        DType::I32,
        DType::U32,
        DType::I64,
        DType::F16,
        DType::BF16,
    ] {
        assert_same(
            &format!("f32 -> {t}"),
            &g.cast(t).unwrap(),
            &c.cast(t).unwrap(),
        );
    }
}

fn binary_ops_for(dt: DType) -> Vec<BinaryOp> {
    use BinaryOp::*;
    [
        Add, Sub, Mul, Div, Rem, Pow, Max, Min, LogicalAnd, LogicalOr, LogicalXor, BitAnd, BitOr,
        BitXor, Shl, Shr, Atan2, Hypot,
    ]
    .into_iter()
    .filter(|op| op.supports(dt))
    .collect()
}

#[test]
fn binary_ops_match_the_cpu() {
    let Some(d) = gpu() else { return };
    for dt in ALL {
        // A broadcast pair with a transposed operand.
        let a = sample(dt, &[5, 7], 1, 50.0).transpose(None).unwrap();
        let mut b = sample(dt, &[1, 5], 2, 50.0);
        if dt.is_int() {
            // Non-zero divisors, shift counts and exponents in range.
            let pos = b.abs().unwrap().rem(7).unwrap().add(1).unwrap();
            b = pos;
        }
        let (ga, gb) = (a.to_device(d).unwrap(), b.to_device(d).unwrap());
        for op in binary_ops_for(dt) {
            let what = format!("{dt} {op:?}");
            let c = binary(op, &a, &b).unwrap();
            let g = binary(op, &ga, &gb).unwrap();
            let exact = dt.is_int()
                || matches!(
                    op,
                    BinaryOp::Add
                        | BinaryOp::Sub
                        | BinaryOp::Mul
                        | BinaryOp::Max
                        | BinaryOp::Min
                        | BinaryOp::LogicalAnd
                        | BinaryOp::LogicalOr
                        | BinaryOp::LogicalXor
                        | BinaryOp::Rem
                );
            if matches!(op, BinaryOp::Pow | BinaryOp::Atan2 | BinaryOp::Hypot) && !exact {
                // rnx's WGSL libraries: pow <= 4.5 ULP, atan2 <= 2, hypot <=
                // 1.5 (CPU: 0.5 + ε); f64 pow, atan2 and hypot: 2 (gpu_f64.rs).
                let ulps = if op == BinaryOp::Pow { 5.0 } else { 3.0 };
                assert_ulps(&what, &g, &c, &a, |_| ulps);
            } else if exact {
                assert_same(&what, &g, &c);
            } else {
                // Division: Vulkan promises 2.5 ULP for f32; 3 ULP allowed.
                let rel = if dt == DType::F64 { 1e-15 } else { 4e-7 };
                let rel = if dt.is_half() { 1e-2 } else { rel };
                assert_close(&what, &g, &c, rel);
            }
        }
    }
}

#[test]
fn integer_errors_leave_the_output_unchanged() {
    let Some(d) = gpu() else { return };
    for dt in [DType::I32, DType::U8, DType::I64] {
        let a = sample(dt, &[6], 4, 50.0).to_device(d).unwrap();
        let z = Tensor::create(dt, &[6], &[1., 2., 0., 4., 5., 6.])
            .unwrap()
            .to_device(d)
            .unwrap();
        let out = Tensor::full_on(dt, &[6], 9, d).unwrap();
        for op in [BinaryOp::Div, BinaryOp::Rem] {
            match rnx::ops::elementwise::binary_out(op, &a, &z, &out) {
                Err(Error::DivisionByZero { op: name }) => assert_eq!(name, op.name()),
                r => panic!("{dt} {op:?}: expected DivisionByZero, got {r:?}"),
            }
            assert_eq!(ints(&out), vec![9; 6], "{dt} {op:?}: output written");
        }
    }
    let a = Tensor::create(DType::I32, &[3], &[1., 2., 3.])
        .unwrap()
        .to_device(d)
        .unwrap();
    let e = a.lshift(-1).unwrap_err();
    assert!(e.to_string().contains("negative shift"), "{e}");
    // i32::MIN / -1 wraps, as on the CPU.
    let m = Tensor::from_vec(vec![i32::MIN, 7, -7], &[3]).unwrap();
    let gm = m.to_device(d).unwrap();
    assert_same("MIN / -1", &gm.div(-1).unwrap(), &m.div(-1).unwrap());
    assert_same("shr", &gm.rshift(1).unwrap(), &m.rshift(1).unwrap());
}

#[test]
fn unary_ops_match_the_cpu() {
    use MathFn::*;
    use UnaryOp::*;
    let Some(d) = gpu() else { return };
    let ops = [
        Neg,
        Abs,
        Sign,
        Square,
        Recip,
        LogicalNot,
        BitNot,
        Math(Sqrt),
        Math(Trunc),
        Math(Ceil),
        Math(Floor),
        Math(Round),
        Math(Relu),
        Math(Relu6),
        Math(HardTanh),
        Math(Softsign),
        Math(Exp),
        Math(Tanh),
        Math(Sigmoid),
        Math(Erf),
        Math(Gelu),
    ];
    for dt in ALL {
        let mut v = values(40, 9, 8.0);
        v.extend([
            0.5,
            -0.5,
            1.5,
            -2.5,
            0.49999997,
            0.0,
            -0.0,
            f64::NAN,
            f64::INFINITY,
        ]);
        let c = if dt.is_int() {
            sample(dt, &[49], 9, 100.0)
        } else {
            Tensor::create(DType::F64, &[49], &v)
                .unwrap()
                .cast(dt)
                .unwrap()
        };
        let g = c.to_device(d).unwrap();
        for op in ops.into_iter().filter(|op| op.supports(dt)) {
            let what = format!("{dt} {op:?}");
            let (cr, gr) = (unary(op, &c).unwrap(), unary(op, &g).unwrap());
            match op {
                // Vulkan's division and square root are not correctly rounded.
                Recip | Math(Sqrt) if dt == DType::F32 => assert_close(&what, &gr, &cr, 4e-7),
                Recip | Math(Sqrt) | Math(Softsign) if dt == DType::F64 => {
                    assert_close(&what, &gr, &cr, 1e-15)
                }
                // rnx's WGSL library against the CPU's kernels: both bounds added
                // (math.rs and vmath's `MathFn`).
                Math(Softsign) | Math(Exp) | Math(Tanh) | Math(Sigmoid) | Math(Gelu)
                | Math(Erf)
                    if dt != DType::F64 =>
                {
                    let ulps = |x: f64| match op {
                        Math(Softsign) => 3.0,
                        Math(Erf) => 2.5,
                        Math(Exp) => 3.5,
                        Math(Tanh) => 5.0,
                        Math(Sigmoid) => 5.5,
                        _ => {
                            let c = (2.0 / std::f64::consts::PI).sqrt();
                            let u2 = 2.0 * c * (x + 0.044715 * x * x * x);
                            7.0 + 6.0 * u2.abs()
                        }
                    };
                    assert_ulps(&what, &gr, &cr, &g, ulps)
                }
                // rnx's f64 WGSL library (math_f64.rs) against the CPU's
                // kernels: both devices' bounds added.
                Math(Exp) | Math(Tanh) | Math(Sigmoid) | Math(Gelu) if dt == DType::F64 => {
                    let b = super::gpu_f64::gpu_f64_bound(op).unwrap()
                        + super::gpu_f64::cpu_f64_bound(op);
                    let ulps = |x: f64| match op {
                        // The CPU's 3 + 3 |2u| (vmath's `MathFn::Gelu`).
                        Math(Gelu) => {
                            let c = (2.0 / std::f64::consts::PI).sqrt();
                            b + 3.0 * (2.0 * c * (x + 0.044715 * x * x * x)).abs()
                        }
                        _ => b,
                    };
                    assert_ulps(&what, &gr, &cr, &g, ulps)
                }
                // Exact or correctly rounded ops, and f64 math that still
                // takes the CPU round trip (erf): bit-identical.
                _ => assert_same(&what, &gr, &cr),
            }
        }
    }
}

#[test]
fn compare_classify_select_clamp_lerp() {
    let Some(d) = gpu() else { return };
    for dt in ALL {
        let mut a = sample(dt, &[3, 4], 5, 5.0);
        if dt.is_float() {
            a = a.round().unwrap();
            a.set_item(&[0, 1], f64::NAN).unwrap();
        }
        let b = sample(dt, &[4], 6, 5.0);
        let b = if dt.is_float() { b.round().unwrap() } else { b };
        let (ga, gb) = (a.to_device(d).unwrap(), b.to_device(d).unwrap());
        for op in [
            CmpOp::Eq,
            CmpOp::Ne,
            CmpOp::Lt,
            CmpOp::Le,
            CmpOp::Gt,
            CmpOp::Ge,
        ] {
            assert_same(
                &format!("{dt} {op:?}"),
                &ga.compare(op, &gb).unwrap(),
                &a.compare(op, &b).unwrap(),
            );
        }
        assert_same(
            &format!("{dt} isnan"),
            &ga.isnan().unwrap(),
            &a.isnan().unwrap(),
        );
        assert_same(
            &format!("{dt} isfinite"),
            &ga.isfinite().unwrap(),
            &a.isfinite().unwrap(),
        );
        let m = a.less(&b).unwrap();
        let gm = m.to_device(d).unwrap();
        assert_same(
            &format!("{dt} where"),
            &Tensor::where_cond(&gm, &ga, &gb).unwrap(),
            &Tensor::where_cond(&m, &a, &b).unwrap(),
        );
        let (lo, hi) = (
            b.minimum(&b.flip(None).unwrap()).unwrap(),
            b.maximum(&b.flip(None).unwrap()).unwrap(),
        );
        let (glo, ghi) = (lo.to_device(d).unwrap(), hi.to_device(d).unwrap());
        assert_same(
            &format!("{dt} clamp"),
            &ga.clamp(&glo, &ghi).unwrap(),
            &a.clamp(&lo, &hi).unwrap(),
        );
        if dt.is_float() {
            // The driver may fuse x + w * (y - x): one rounding less.
            let rel = match dt {
                DType::F32 => 1e-6,
                DType::F64 => 1e-15,
                _ => 1e-2,
            };
            assert_close(
                &format!("{dt} lerp"),
                &ga.lerp(&gb, 0.25).unwrap(),
                &a.lerp(&b, 0.25).unwrap(),
                rel,
            );
        }
    }
}

#[test]
fn out_forms_follow_the_alias_rules() {
    let Some(d) = gpu() else { return };
    let c = Tensor::arange(DType::F32, 0, 24, 1)
        .unwrap()
        .reshape([4, 6])
        .unwrap();
    let g = c.to_device(d).unwrap();
    // A shifted view of the output as an input: read as if copied first.
    let (co, go) = (c.slice(s![1.., ..]).unwrap(), g.slice(s![1.., ..]).unwrap());
    c.slice(s![..3, ..])
        .unwrap()
        .add_out(&c.slice(s![..3, ..]).unwrap(), &co)
        .unwrap();
    g.slice(s![..3, ..])
        .unwrap()
        .add_out(&g.slice(s![..3, ..]).unwrap(), &go)
        .unwrap();
    assert_same("shifted alias", &g, &c);
    // A transposed output.
    let (ct, gt) = (
        c.slice(s![..4, ..4]).unwrap(),
        g.slice(s![..4, ..4]).unwrap(),
    );
    ct.transpose(None).unwrap().mul_out(2, &ct).unwrap();
    gt.transpose(None).unwrap().mul_out(2, &gt).unwrap();
    assert_same("transposed alias", &g, &c);
    // A broadcast output is rejected before any write.
    let b = Tensor::zeros_on(DType::F32, &[1], d)
        .unwrap()
        .broadcast_to(&[3])
        .unwrap();
    let x = Tensor::zeros_on(DType::F32, &[3], d).unwrap();
    assert!(matches!(
        x.add_out(1, &b),
        Err(Error::OverlappingOutput { .. })
    ));
    // Mixed devices are an error naming both.
    let e = g.add(&c).unwrap_err();
    assert!(matches!(e, Error::DeviceMismatch { .. }), "{e}");
    assert!(
        e.to_string().contains("gpu:0") && e.to_string().contains("cpu"),
        "{e}"
    );
}

#[test]
fn round_trip_families_give_cpu_results() {
    // Families without a GPU kernel yet run through the CPU: same values.
    let Some(d) = gpu() else { return };
    let a = sample(DType::F32, &[8, 5], 21, 3.0);
    // (matmul has a GPU kernel now: tests/suite/gpu_linalg.rs.)
    let ga = a.to_device(d).unwrap();
    assert_same(
        "sort",
        &ga.sort(1, false).unwrap().0,
        &a.sort(1, false).unwrap().0,
    );
    assert_same(
        "argsort",
        &ga.argsort(0, true).unwrap(),
        &a.argsort(0, true).unwrap(),
    );
    // svdvals has no GPU kernel (faer on the CPU): bit-identical; f64 exp
    // runs rnx's f64 WGSL library: within both devices' 1 ULP bounds.
    let (a64, ga64) = (a.cast(DType::F64).unwrap(), ga.cast(DType::F64).unwrap());
    let sq = Tensor::randn(DType::F64, &[17, 17], 21)
        .unwrap()
        .add(
            &Tensor::eye(DType::F64, 17, None, 0)
                .unwrap()
                .mul(9)
                .unwrap(),
        )
        .unwrap();
    assert_same(
        "f64 svdvals",
        &sq.to_device(d).unwrap().svdvals().unwrap(),
        &sq.svdvals().unwrap(),
    );
    let ge = ga64.exp().unwrap();
    assert_eq!(ge.device(), d, "f64 exp left the GPU");
    assert_ulps("f64 exp", &ge, &a64.exp().unwrap(), &a64, |_| 2.0);
    assert_same(
        "gather",
        &ga.slice(s![vec![3, 0, 3], ..]).unwrap(),
        &a.slice(s![vec![3, 0, 3], ..]).unwrap(),
    );
}

#[test]
fn large_and_random_layouts() {
    let Some(d) = gpu() else { return };
    // More elements than one grid of 65,535 x 256 invocations.
    let n = (1usize << 24) + 4099;
    let c = Tensor::arange(DType::U8, 0, 251, 1)
        .unwrap()
        .tile(&[n / 251 + 1])
        .unwrap()
        .slice(s![..n])
        .unwrap()
        .contiguous()
        .unwrap();
    let g = c.to_device(d).unwrap();
    let (cs, gs) = (c.add(&c).unwrap(), g.add(&g).unwrap());
    assert_eq!(
        gs.to_device(Device::Cpu).unwrap().to_vec::<u8>().unwrap(),
        cs.to_vec::<u8>().unwrap()
    );
    // Random shapes, views and dtypes against the CPU.
    let dts = [
        DType::F32,
        DType::I32,
        DType::U8,
        DType::F16,
        DType::I64,
        DType::F64,
    ];
    for case in 0..24u64 {
        let v = values(8, 100 + case, 1.0);
        let dt = dts[case as usize % dts.len()];
        let shape: Vec<usize> = (0..1 + case as usize % 4)
            .map(|k| 1 + ((v[k].abs() * 7.0) as usize))
            .collect();
        let c = sample(dt, &shape, case, 20.0);
        let g = c.to_device(d).unwrap();
        let view = |t: &Tensor| -> Tensor {
            let mut t = t.clone();
            if t.ndim() >= 2 && v[4] > 0.0 {
                t = t.transpose(None).unwrap();
            }
            if v[5] > 0.0 {
                t = t.flip(None).unwrap();
            }
            if t.shape()[0] > 2 && v[6] > 0.0 {
                t = t.slice(s![1..;2]).unwrap();
            }
            t
        };
        let (vc, vg) = (view(&c), view(&g));
        let what = format!("case {case}: {dt} {shape:?}");
        assert_same(&what, &vg.mul(&vg).unwrap(), &vc.mul(&vc).unwrap());
        assert_same(
            &what,
            &vg.sub(&vg.flip(None).unwrap()).unwrap(),
            &vc.sub(&vc.flip(None).unwrap()).unwrap(),
        );
        assert_same(&what, &vg.maximum(3).unwrap(), &vc.maximum(3).unwrap());
    }
}
