//! Property tests of the GPU against the CPU: a random dtype (every GPU
//! dtype), a random base shape (rank 1-4, dims 1-9), a random chain of views
//! (transpose, flip, stepped slice, broadcast, reshape) taken the same way on
//! the GPU tensor and on the CPU tensor, then one random operation on both.
//! Every result must have the CPU's shape and dtype, stay on the GPU, and hold
//! the CPU's values: bit for bit where README's "Devices" section promises it
//! (integer ops, correctly rounded float ops, casts, max/min/arg-reductions,
//! short scans, sort, gathers and scatters, copies), within the stated bound
//! otherwise (f32 sqrt, exp of f32 and halves, float sums, float matmul).
//! A failure names the dtype, the base shape, the view chain and the op.
//! Without an adapter the tests return early, unless `RNX_REQUIRE_GPU=1`.

use super::gpu::{assert_close, assert_same, assert_ulps, f64s, gpu, sample, units, ALL};
use proptest::prelude::*;
use rnx::backend::elementwise::{BinaryOp, MathFn, UnaryOp};
use rnx::ops::elementwise::{binary, unary};
use rnx::ops::index::Index;
use rnx::{DType, Device, Tensor};

/// The GPU, or `None` when there is no adapter (and none is required) or
/// when the adapter lacks `dt` (f64 / 64-bit integers).
fn dev(dt: DType) -> Option<Device> {
    let d = gpu()?;
    Tensor::zeros_on(dt, &[1], d).ok()?;
    Some(d)
}

/// One step of a view chain: a kind and three random parameters.
type Step = (u8, u32, u32, u32);

fn dtype() -> impl Strategy<Value = DType> {
    (0..ALL.len()).prop_map(|i| ALL[i])
}

fn base_shape() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(1usize..=9, 1..=4)
}

fn chain() -> impl Strategy<Value = Vec<Step>> {
    prop::collection::vec((0u8..5, any::<u32>(), any::<u32>(), any::<u32>()), 0..5)
}

/// A permutation of `0..n` from two random words.
fn perm_of(n: usize, a: u32, b: u32) -> Vec<usize> {
    let mut perm: Vec<usize> = (0..n).collect();
    let mut s = a as usize;
    for i in (1..n).rev() {
        perm.swap(i, s % (i + 1));
        s = s / (i + 1) + b as usize;
    }
    perm
}

/// Apply one view step to `t` (the same on either device: it depends only on
/// the shape and layout), appending its description to `desc`. Steps that do
/// not apply leave `t` unchanged. `bcast` false skips broadcasts (views that
/// are written through).
fn step(t: &Tensor, s: Step, bcast: bool, desc: &mut Vec<String>) -> Tensor {
    let (kind, a, b, c) = s;
    let sh = t.shape().to_vec();
    let nd = sh.len();
    match kind {
        0 => {
            let perm = perm_of(nd, a, b);
            desc.push(format!("transpose{perm:?}"));
            t.transpose(perm.iter().map(|&p| p as isize).collect::<Vec<_>>())
                .unwrap()
        }
        1 => {
            let ax = a as usize % nd;
            desc.push(format!("flip({ax})"));
            t.flip([ax as isize]).unwrap()
        }
        2 => {
            let ax = a as usize % nd;
            let st = [1isize, 2, 3, -1, -2, -3][b as usize % 6];
            let start = (c as usize % sh[ax]) as isize;
            let mut spec = vec![Index::all(); ax];
            spec.push(Index::R(Some(start), None, st));
            desc.push(format!("axis {ax} [{start}::{st}]"));
            t.slice(&spec).unwrap()
        }
        3 if bcast => {
            let mut shape: Vec<usize> = sh
                .iter()
                .enumerate()
                .map(|(i, &d)| {
                    if d == 1 && (a >> i) & 1 == 1 {
                        (b as usize >> (2 * i)) % 4 + 1
                    } else {
                        d
                    }
                })
                .collect();
            if c % 2 == 1 && nd < 4 {
                shape.insert(0, (c as usize / 2) % 3 + 1);
            }
            if shape == sh {
                return t.clone();
            }
            desc.push(format!("broadcast_to{shape:?}"));
            t.broadcast_to(&shape).unwrap()
        }
        4 if t.is_c_contiguous() => {
            let new: Vec<usize> = if a % 3 == 0 || (a % 3 == 1 && nd < 2) {
                vec![sh.iter().product()]
            } else if a % 3 == 1 {
                let i = b as usize % (nd - 1);
                let mut s = sh[..i].to_vec();
                s.push(sh[i] * sh[i + 1]);
                s.extend_from_slice(&sh[i + 2..]);
                s
            } else if nd < 4 {
                let i = b as usize % nd;
                let d = sh[i];
                let divs: Vec<usize> = (1..=d).filter(|f| d.is_multiple_of(*f)).collect();
                let f = divs[c as usize % divs.len()];
                let mut s = sh[..i].to_vec();
                s.extend([f, d / f]);
                s.extend_from_slice(&sh[i + 1..]);
                s
            } else {
                return t.clone();
            };
            desc.push(format!("reshape{new:?}"));
            let spec: Vec<isize> = new.iter().map(|&d| d as isize).collect();
            t.reshape(&spec).unwrap()
        }
        _ => t.clone(),
    }
}

/// The same view chain on the GPU copy and on the CPU tensor `c`.
fn chained(d: Device, c: &Tensor, steps: &[Step], bcast: bool) -> (Tensor, Tensor, Vec<String>) {
    let mut g = c.to_device(d).unwrap();
    let mut c = c.clone();
    let mut desc = Vec::new();
    for &s in steps {
        let mut dg = Vec::new();
        g = step(&g, s, bcast, &mut dg);
        c = step(&c, s, bcast, &mut desc);
        assert_eq!(dg, desc[desc.len() - dg.len()..], "chain differs by device");
        assert_eq!(g.shape(), c.shape(), "{desc:?}: view shapes differ");
    }
    (g, c, desc)
}

/// A strided tensor of `shape` (its base permuted, every axis stepped by 1
/// or 2, some flipped) on the GPU and on the CPU, with its description.
fn strided(
    d: Device,
    dt: DType,
    shape: &[usize],
    seed: u64,
    r: f64,
    sp: u32,
) -> (Tensor, Tensor, String) {
    let n = shape.len();
    let perm = perm_of(n, seed as u32, (seed >> 32) as u32);
    let steps: Vec<isize> = (0..n)
        .map(|i| {
            let s = 1 + ((seed >> (8 + i)) & 1) as isize;
            if (seed >> (20 + i)) & 1 == 1 {
                -s
            } else {
                s
            }
        })
        .collect();
    // The view's axis i is the base's axis perm[i], of size shape[i] * |step|.
    let mut bshape = vec![0; n];
    for i in 0..n {
        bshape[perm[i]] = shape[i] * steps[i].unsigned_abs();
    }
    let base = base(dt, &bshape, seed, r, sp);
    let spec: Vec<Index> = steps.iter().map(|&s| Index::R(None, None, s)).collect();
    let view = |t: &Tensor| {
        t.transpose(perm.iter().map(|&p| p as isize).collect::<Vec<_>>())
            .unwrap()
            .slice(&spec)
            .unwrap()
    };
    let (g, c) = (view(&base.to_device(d).unwrap()), view(&base));
    assert_eq!(c.shape(), shape);
    (
        g,
        c,
        format!("{shape:?} strided perm {perm:?} steps {steps:?}"),
    )
}

/// `sample`, and in a third of the float cases (by `sp`) a few elements
/// replaced by NaN, infinities and signed zeros.
fn base(dt: DType, shape: &[usize], seed: u64, r: f64, sp: u32) -> Tensor {
    let t = sample(dt, shape, seed, r);
    if dt.is_int() || !sp.is_multiple_of(3) {
        return t;
    }
    let n = t.size();
    let flat = t.reshape([-1]).unwrap();
    let specials = [f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 0.0];
    for j in 0..(sp as usize / 3) % 4 + 1 {
        let v = specials[(sp as usize >> (4 + 3 * j)) % specials.len()];
        let i = (sp as usize >> (2 + 5 * j)).wrapping_mul(2654435761) % n;
        flat.set_item(&[i as isize], v).unwrap();
    }
    t
}

/// A shape that broadcasts against `shape`: leading axes dropped, some axes 1.
fn broadcastable(shape: &[usize], bits: u32) -> Vec<usize> {
    let drop = (bits as usize % 3).min(shape.len() - 1);
    shape[drop..]
        .iter()
        .enumerate()
        .map(|(i, &d)| if (bits >> (2 + i)) & 1 == 1 { 1 } else { d })
        .collect()
}

fn cfg() -> ProptestConfig {
    ProptestConfig {
        // PROPTEST_CASES overrides (for longer bug hunts).
        cases: std::env::var("PROPTEST_CASES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(128),
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// A float GPU result `g` against an f64 reference `r` (`absr`: the same
/// computation on absolute values): `|g - r| <= k u / (1 - k u) absr` (twice
/// that for f64, whose reference is rounded like the result) plus one
/// rounding of a half; or exactly the CPU's result `c` (NaN, infinities).
fn check_bound(what: &str, g: &Tensor, c: &Tensor, r: &Tensor, absr: &Tensor, k: f64) {
    assert_eq!(g.device(), Device::Gpu(0), "{what}: result left the GPU");
    assert_eq!(g.shape(), r.shape(), "{what}: shape");
    let (u, h) = units(g.dtype());
    let ref_err = if g.dtype() == DType::F64 { 2.0 } else { 1.0 };
    let tiny = if g.dtype() == DType::F16 {
        2f64.powi(-25)
    } else {
        1e-300
    };
    let (gv, cv, rv, av) = (f64s(g), f64s(c), f64s(r), f64s(absr));
    for i in 0..gv.len() {
        // The CPU's value (NaN and overflow to infinity included) is right.
        if gv[i] == cv[i] || (gv[i].is_nan() && cv[i].is_nan()) {
            continue;
        }
        let err = (gv[i] - rv[i]).abs();
        let bound = ref_err * k * u / (1.0 - k * u) * av[i] * (1.0001 + h) + h * rv[i].abs() + tiny;
        assert!(
            err <= bound,
            "{what}[{i}]: gpu {} exact {} err {err:e} > bound {bound:e}",
            gv[i],
            rv[i]
        );
    }
}

fn exact_or(what: &str, g: &Tensor, c: &Tensor) {
    assert_eq!(g.dtype(), c.dtype(), "{what}: dtype");
    assert_same(what, g, c);
}

proptest! {
    #![proptest_config(cfg())]

    /// Binary elementwise ops between a view and a strided operand that
    /// broadcasts against it (either order): bit-identical.
    #[test]
    fn gpu_props_binary(
        dt in dtype(), shape in base_shape(), steps in chain(),
        op in 0usize..8, bits in any::<u32>(), seed in any::<u64>(), sp in any::<u32>(), swap in any::<bool>(),
    ) {
        let Some(d) = dev(dt) else { return Ok(()) };
        let (ga, ca, desc) = chained(d, &base(dt, &shape, seed, 100.0, sp), &steps, true);
        let bshape = broadcastable(ca.shape(), bits);
        let (gb, cb, bdesc) = strided(d, dt, &bshape, seed ^ 0x5555, 100.0, sp >> 1);
        let ops = if dt.is_int() {
            &[BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Max, BinaryOp::Min,
              BinaryOp::BitAnd, BinaryOp::BitOr, BinaryOp::BitXor][..]
        } else {
            &[BinaryOp::Add, BinaryOp::Sub, BinaryOp::Mul, BinaryOp::Max, BinaryOp::Min][..]
        };
        let op = ops[op % ops.len()];
        let what = format!("{dt} base {shape:?} views {desc:?} {op:?} {bdesc} (swapped {swap})");
        let (g, c) = if swap {
            (binary(op, &gb, &ga).unwrap(), binary(op, &cb, &ca).unwrap())
        } else {
            (binary(op, &ga, &gb).unwrap(), binary(op, &ca, &cb).unwrap())
        };
        exact_or(&what, &g, &c);
    }

    /// Unary ops: neg/abs/square bit-identical; sqrt and exp within the
    /// README's bounds (f32 sqrt follows the adapter: 4e-7 relative, as
    /// `gpu::unary_ops_match_the_cpu`; exp of f32: 1.5 ULP GPU + 2 CPU;
    /// halves one unit; f64 exp runs on the CPU).
    #[test]
    fn gpu_props_unary(
        dt in dtype(), shape in base_shape(), steps in chain(),
        op in 0usize..5, seed in any::<u64>(), sp in any::<u32>(),
    ) {
        let Some(d) = dev(dt) else { return Ok(()) };
        let (gx, cx, desc) = chained(d, &base(dt, &shape, seed, 12.0, sp), &steps, true);
        let ops = if dt.is_int() {
            &[UnaryOp::Neg, UnaryOp::Abs, UnaryOp::Square][..]
        } else {
            &[UnaryOp::Neg, UnaryOp::Abs, UnaryOp::Square, UnaryOp::Math(MathFn::Sqrt), UnaryOp::Math(MathFn::Exp)][..]
        };
        let op = ops[op % ops.len()];
        let what = format!("{dt} base {shape:?} views {desc:?} {op:?}");
        let (g, c) = (unary(op, &gx).unwrap(), unary(op, &cx).unwrap());
        assert_eq!(g.dtype(), c.dtype(), "{what}: dtype");
        assert_eq!(g.device(), d, "{what}: result left the GPU");
        match op {
            UnaryOp::Math(MathFn::Sqrt) if dt == DType::F32 => assert_close(&what, &g, &c, 4e-7),
            UnaryOp::Math(MathFn::Sqrt) if dt == DType::F64 => assert_close(&what, &g, &c, 1e-15),
            UnaryOp::Math(MathFn::Exp) if dt != DType::F64 => assert_ulps(&what, &g, &c, &gx, |_| 3.5),
            // rnx's f64 exp and the CPU's: 1 ULP each (math_f64.rs, vmath).
            UnaryOp::Math(MathFn::Exp) => assert_ulps(&what, &g, &c, &gx, |_| 2.0),
            _ => assert_same(&what, &g, &c),
        }
    }

    /// Casts between every pair of GPU dtypes: bit-identical.
    #[test]
    fn gpu_props_cast(
        dt in dtype(), to in dtype(), shape in base_shape(), steps in chain(),
        seed in any::<u64>(), sp in any::<u32>(), big in any::<bool>(),
    ) {
        let Some(d) = dev(dt) else { return Ok(()) };
        if Tensor::zeros_on(to, &[1], d).is_err() { return Ok(()) }
        let r = if big { 1e6 } else { 300.0 };
        let (gx, cx, desc) = chained(d, &base(dt, &shape, seed, r, sp), &steps, true);
        let what = format!("{dt} base {shape:?} views {desc:?} cast -> {to}");
        exact_or(&what, &gx.cast(to).unwrap(), &cx.cast(to).unwrap());
    }

    /// sum/max/min over a random set of axes and argmax over one axis (or
    /// all), keepdims random: integers and max/min/argmax bit-identical,
    /// float sums within README's bound `k u / (1 - k u) sum|x|`, k =
    /// ceil(n / 256) + 7, against an f64 reference.
    #[test]
    fn gpu_props_reduce(
        dt in dtype(), shape in base_shape(), steps in chain(),
        op in 0usize..4, axes in any::<u32>(), keep in any::<bool>(), seed in any::<u64>(), sp in any::<u32>(),
    ) {
        let Some(d) = dev(dt) else { return Ok(()) };
        let (gx, cx, desc) = chained(d, &base(dt, &shape, seed, 100.0, sp), &steps, true);
        let nd = cx.ndim();
        let all = axes % 5 == 0;
        let list: Vec<isize> = (0..nd)
            .filter(|i| (axes >> (3 + i)) & 1 == 1)
            .map(|i| if (axes >> (10 + i)) & 1 == 1 { i as isize - nd as isize } else { i as isize })
            .collect();
        let ax = || -> rnx::Axes { if all { None::<&[isize]>.into() } else { list.clone().into() } };
        let one: Option<isize> = if all { None } else { Some((axes as usize % nd) as isize) };
        let name = ["sum", "max", "min", "argmax"][op];
        let what = format!(
            "{dt} base {shape:?} views {desc:?} {name} axes {} keepdims {keep}",
            if op == 3 { format!("{one:?}") } else if all { "all".into() } else { format!("{list:?}") }
        );
        let f = |t: &Tensor| match op {
            0 => t.sum(ax(), keep).unwrap(),
            1 => t.max(ax(), keep).unwrap(),
            2 => t.min(ax(), keep).unwrap(),
            _ => t.argmax(one, keep).unwrap(),
        };
        let (g, c) = (f(&gx), f(&cx));
        assert_eq!(g.dtype(), c.dtype(), "{what}: dtype");
        assert_eq!(g.shape(), c.shape(), "{what}: shape");
        if op == 0 && dt.is_float() {
            let n = (cx.size() / c.size().max(1)) as f64;
            let k = (n / 256.0).ceil() + 7.0;
            let x64 = cx.cast(DType::F64).unwrap();
            let r = x64.sum(ax(), keep).unwrap();
            let absr = x64.abs().unwrap().sum(ax(), keep).unwrap();
            check_bound(&what, &g, &c, &r, &absr, k);
        } else if (op == 1 || op == 2) && dt.is_float() {
            // Bit for bit, except the sign of a zero extreme of a group
            // holding both -0 and +0 (src/backend/gpu/reduce.rs: the CPU's
            // answer depends on its order too).
            assert_eq!(g.device(), d, "{what}: result left the GPU");
            let (gv, cv) = (f64s(&g), f64s(&c));
            for (i, (a, b)) in gv.iter().zip(&cv).enumerate() {
                let same = a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan()) || (*a == 0.0 && *b == 0.0);
                assert!(same, "{what}[{i}]: gpu {a:e} cpu {b:e}");
            }
        } else {
            assert_same(&what, &g, &c);
        }
    }

    /// cumsum along a random axis: bit-identical for integers and for float
    /// rows up to 1,024 elements (one pass, the CPU's order); longer float
    /// rows (a flattened base) within the summation bound of README.
    #[test]
    fn gpu_props_cumsum(
        dt in dtype(), shape in base_shape(), steps in chain(),
        axis in any::<u32>(), seed in any::<u64>(), sp in any::<u32>(),
    ) {
        let Some(d) = dev(dt) else { return Ok(()) };
        let (gx, cx, desc) = chained(d, &base(dt, &shape, seed, 100.0, sp), &steps, true);
        let nd = cx.ndim() as isize;
        let ax = (axis as isize % (2 * nd)) - nd;
        let what = format!("{dt} base {shape:?} views {desc:?} cumsum({ax})");
        let (g, c) = (gx.cumsum(ax).unwrap(), cx.cumsum(ax).unwrap());
        let row = cx.shape()[ax.rem_euclid(nd) as usize];
        if dt.is_float() && row > 1024 {
            // Chunks of 1,024 with carries, added in another order than the
            // CPU's: within the bound of any summation order of `row` terms.
            assert_eq!(g.dtype(), c.dtype(), "{what}: dtype");
            let x64 = cx.cast(DType::F64).unwrap();
            let r = x64.cumsum(ax).unwrap();
            let absr = x64.abs().unwrap().cumsum(ax).unwrap();
            check_bound(&what, &g, &c, &r, &absr, row as f64);
        } else {
            exact_or(&what, &g, &c);
        }
    }

    /// sort (values and indices) and argsort along a random axis, ascending
    /// or descending: values bit for bit, indices exact (stable). Small
    /// value ranges make ties.
    #[test]
    fn gpu_props_sort(
        dt in dtype(), shape in base_shape(), steps in chain(),
        axis in any::<u32>(), desc_order in any::<bool>(), arg in any::<bool>(),
        seed in any::<u64>(), sp in any::<u32>(), ties in any::<bool>(),
    ) {
        let Some(d) = dev(dt) else { return Ok(()) };
        let mut x = base(dt, &shape, seed, 100.0, sp);
        if ties {
            x = x.cast(DType::F64).unwrap().rem(4).unwrap().round().unwrap().cast(dt).unwrap();
        }
        let (gx, cx, desc) = chained(d, &x, &steps, true);
        let nd = cx.ndim() as isize;
        let ax = (axis as isize % (2 * nd)) - nd;
        let what = format!(
            "{dt} base {shape:?} (ties {ties}) views {desc:?} {}({ax}, descending {desc_order})",
            if arg { "argsort" } else { "sort" }
        );
        if arg {
            exact_or(&what, &gx.argsort(ax, desc_order).unwrap(), &cx.argsort(ax, desc_order).unwrap());
        } else {
            let (gv, gi) = gx.sort(ax, desc_order).unwrap();
            let (cv, ci) = cx.sort(ax, desc_order).unwrap();
            exact_or(&format!("{what} values"), &gv, &cv);
            exact_or(&format!("{what} indices"), &gi, &ci);
        }
    }

    /// matmul of a view (a random chain on a 2-D/3-D base; whatever rank
    /// it ends with, 1-D included) with a strided 2-D/3-D operand whose batch
    /// broadcasts: integers bit-identical, floats within `(k + 2) u
    /// sum|a||b|` of an f64 reference (the bound of
    /// `src/backend/gpu/matmul.rs`).
    #[test]
    fn gpu_props_matmul(
        dt in dtype(), shape in prop::collection::vec(1usize..=9, 2..=3), steps in chain(),
        n in 1usize..=9, bbatch in 0usize..=2, swap in any::<bool>(), seed in any::<u64>(),
    ) {
        let Some(d) = dev(dt) else { return Ok(()) };
        let (ga, ca, desc) = chained(d, &sample(dt, &shape, seed, 4.0), &steps, true);
        let nd = ca.ndim();
        let k = if swap { ca.shape()[0] } else { ca.shape()[nd - 1] };
        let batch = if nd >= 3 { ca.shape()[nd - 3] } else { 1 };
        // b @ a when swapped (a's first axis contracted: a 1-D or 2-D a only).
        let swap = swap && nd <= 2;
        let k = if swap { k } else { ca.shape()[nd - 1] };
        let bshape: Vec<usize> = match (bbatch, swap) {
            (0, _) | (_, true) => if swap { vec![n, k] } else { vec![k, n] },
            (1, _) => vec![batch, k, n],
            _ => vec![1, k, n],
        };
        let (gb, cb, bdesc) = strided(d, dt, &bshape, seed ^ 0xABCD, 4.0, 1);
        let what = format!("{dt} base {shape:?} views {desc:?} matmul {bdesc} (b @ a: {swap})");
        let mm = |a: &Tensor, b: &Tensor| if swap { b.matmul(a).unwrap() } else { a.matmul(b).unwrap() };
        let (g, c) = (mm(&ga, &gb), mm(&ca, &cb));
        assert_eq!(g.dtype(), c.dtype(), "{what}: dtype");
        if dt.is_int() {
            assert_same(&what, &g, &c);
        } else {
            assert_eq!(g.shape(), c.shape(), "{what}: shape");
            let a64 = ca.cast(DType::F64).unwrap();
            let b64 = cb.cast(DType::F64).unwrap();
            let r = mm(&a64, &b64);
            let absr = mm(&a64.abs().unwrap(), &b64.abs().unwrap());
            check_bound(&what, &g, &c, &r, &absr, k as f64 + 2.0);
        }
    }

    /// `slice` with an `L` list (repeats, negative positions) on one axis and
    /// a stepped range on another: bit-identical.
    #[test]
    fn gpu_props_gather(
        dt in dtype(), shape in base_shape(), steps in chain(),
        axis in any::<u32>(), list in prop::collection::vec(any::<u32>(), 1..6),
        st in 0usize..4, seed in any::<u64>(), sp in any::<u32>(),
    ) {
        let Some(d) = dev(dt) else { return Ok(()) };
        let (gx, cx, desc) = chained(d, &base(dt, &shape, seed, 100.0, sp), &steps, true);
        let sh = cx.shape().to_vec();
        let ax = axis as usize % sh.len();
        let dim = sh[ax] as isize;
        let l: Vec<isize> = list
            .iter()
            .map(|&v| { let p = (v >> 1) as isize % dim; if v & 1 == 1 { p - dim } else { p } })
            .collect();
        let mut spec = vec![Index::all(); sh.len()];
        spec[ax] = Index::L(l);
        if sh.len() > 1 {
            let other = (ax + 1 + axis as usize / 7 % (sh.len() - 1)) % sh.len();
            spec[other] = Index::R(None, None, [1, 2, -1, -2][st]);
        }
        let what = format!("{dt} base {shape:?} views {desc:?} slice {spec:?}");
        exact_or(&what, &gx.slice(&spec).unwrap(), &cx.slice(&spec).unwrap());
    }

    /// `set_slice` through a view (no broadcast in the chain, so the writes
    /// reach the base) with an `L` list of distinct positions and a
    /// broadcastable strided value: the whole base bit-identical afterwards.
    #[test]
    fn gpu_props_scatter(
        dt in dtype(), shape in base_shape(), steps in chain(),
        axis in any::<u32>(), pick in any::<u32>(), bits in any::<u32>(),
        st in 0usize..4, seed in any::<u64>(), sp in any::<u32>(),
    ) {
        let Some(d) = dev(dt) else { return Ok(()) };
        let cbase = base(dt, &shape, seed, 100.0, sp);
        let gbase = cbase.to_device(d).unwrap();
        let mut desc = Vec::new();
        let (mut gx, mut cx) = (gbase.clone(), cbase.clone());
        for &s in &steps {
            gx = step(&gx, s, false, &mut Vec::new());
            cx = step(&cx, s, false, &mut desc);
        }
        let sh = cx.shape().to_vec();
        let ax = axis as usize % sh.len();
        let dim = sh[ax];
        // Distinct positions, shuffled, some negative.
        let chosen: Vec<usize> = (0..dim).filter(|i| (pick >> (i % 32)) & 1 == 1).collect();
        let chosen = if chosen.is_empty() { vec![pick as usize % dim] } else { chosen };
        let order = perm_of(chosen.len(), pick.rotate_left(7), pick.rotate_left(13));
        let l: Vec<isize> = order
            .iter()
            .map(|&o| {
                let p = chosen[o] as isize;
                if (pick >> (o % 32)) & 2 == 2 { p - dim as isize } else { p }
            })
            .collect();
        let mut spec = vec![Index::all(); sh.len()];
        spec[ax] = Index::L(l);
        if sh.len() > 1 {
            let other = (ax + 1 + axis as usize / 7 % (sh.len() - 1)) % sh.len();
            spec[other] = Index::R(None, None, [1, 2, -1, -2][st]);
        }
        let target = cx.slice(&spec).unwrap().shape().to_vec();
        let vshape = broadcastable(&target, bits);
        let (gv, cv, vdesc) = strided(d, dt, &vshape, seed ^ 0x77, 100.0, sp >> 1);
        let what = format!("{dt} base {shape:?} views {desc:?} set_slice {spec:?} value {vdesc}");
        gx.set_slice(&spec, &gv).unwrap();
        cx.set_slice(&spec, &cv).unwrap();
        exact_or(&what, &gbase, &cbase);
    }

    /// concatenate a view with a strided tensor of the same shape but along
    /// the axis (either order), or of both flattened: bit-identical.
    #[test]
    fn gpu_props_concatenate(
        dt in dtype(), shape in base_shape(), steps in chain(),
        axis in any::<u32>(), len in 1usize..=4, swap in any::<bool>(), seed in any::<u64>(), sp in any::<u32>(),
    ) {
        let Some(d) = dev(dt) else { return Ok(()) };
        let (ga, ca, desc) = chained(d, &base(dt, &shape, seed, 100.0, sp), &steps, true);
        let nd = ca.ndim();
        let flat = axis % 6 == 0;
        let ax = axis as usize / 6 % nd;
        let mut bshape = ca.shape().to_vec();
        bshape[ax] = len;
        let (gb, cb, bdesc) = strided(d, dt, &bshape, seed ^ 0x99, 100.0, sp >> 1);
        let a_ax: Option<isize> = if flat { None } else { Some(ax as isize) };
        let what = format!("{dt} base {shape:?} views {desc:?} concatenate with {bdesc} axis {a_ax:?} swapped {swap}");
        let cat = |a: &Tensor, b: &Tensor| {
            if swap {
                Tensor::concatenate(&[b, a], a_ax).unwrap()
            } else {
                Tensor::concatenate(&[a, b], a_ax).unwrap()
            }
        };
        exact_or(&what, &cat(&ga, &gb), &cat(&ca, &cb));
    }
}
