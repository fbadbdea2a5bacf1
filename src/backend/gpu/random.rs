//! GPU keyed random draws and the tensor form of Threefry: one invocation
//! per element computes the Threefry-2x32-20 block of its counter (the
//! rounds unrolled, plain u32 arithmetic: the CPU's bits) and maps it as the
//! host path does (`src/ops/rng/`): uniforms and the exponential's and
//! Box-Muller's f64 arithmetic in the same operations and order, then one
//! rounding to the dtype in integer arithmetic (`round.rs`) and the host's
//! clamp on order keys; Bernoulli and integer draws in 64-bit integers.
//!
//! Vulkan lets a driver rewrite float arithmetic that SPIR-V does not mark
//! exact: fuse a product into a following addition, factor or reassociate
//! (lavapipe's NIR does, and its first version of this kernel differed from
//! the CPU in the last bit of 5% of the f64 exponential draws). The CPU's
//! plain f64 arithmetic never does, so every f64 operation here goes through
//! `op`, which ORs the result's bits with `zero`, a 0 the kernel reads from
//! memory: the driver must produce each rounded result as it stands and can
//! combine nothing across operations. Additions, subtractions and products
//! are correctly rounded on every Vulkan driver, so uniform draws are the
//! CPU's bits everywhere; the normal and exponential draws also use the
//! driver's f64 division and square root, correctly rounded on lavapipe
//! (the suite checks the bits there), which Vulkan does not promise
//! elsewhere.
//!
//! Needs SHADER_INT64 (64-bit words and parameters), and SHADER_F64 for the
//! float draws; without them the backend declines and the host draws.

use super::core::bits_dtype;
use super::kernel::{Map, Operand};
use super::GpuBackend;
use crate::backend::{Draw, RandomBackend};
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::layout::Layout;
use crate::ops::rng::normal::{C, LG, LN2_HI, LN2_LO, S, TAU_HI, TAU_LO};
use crate::random::ROT;
use crate::tensor::Tensor;
use std::fmt::Write;

/// An f64 constant as a WGSL expression with its exact bits.
fn lit(x: f64) -> String {
    format!("bitcast<f64>({:#x}lu)", x.to_bits())
}

/// WGSL `threefry(k0, k1, c0, c1)`: the block as `vec2<u32>`, the 20 rounds
/// of [`crate::random::threefry2x32`] unrolled.
fn threefry_wgsl() -> String {
    let mut s = String::from(
        "fn threefry(k0: u32, k1: u32, c0: u32, c1: u32) -> vec2<u32> {\n  \
         let k2 = 0x1bd11bdau ^ k0 ^ k1;\n  var x0 = c0 + k0;\n  var x1 = c1 + k1;\n",
    );
    let ks = ["k0", "k1", "k2"];
    for r in 0..20 {
        let rot = ROT[r % 8];
        let _ = writeln!(
            s,
            "  x0 = x0 + x1;\n  x1 = ((x1 << {rot}u) | (x1 >> {}u)) ^ x0;",
            32 - rot
        );
        if r % 4 == 3 {
            let j = (r + 1) / 4;
            let _ = writeln!(
                s,
                "  x0 = x0 + {};\n  x1 = x1 + {} + {j}u;",
                ks[j % 3],
                ks[(j + 1) % 3]
            );
        }
    }
    s.push_str("  return vec2<u32>(x0, x1);\n}\n");
    s
}

/// WGSL `ln64(x)` and `box_muller(b0, b1)`: `normal.rs`'s `ln`, `sin_cos`
/// and `box_muller_body`, operation for operation, every result passed
/// through `op` (see the module docs).
fn f64_wgsl() -> String {
    let lg: Vec<String> = LG.iter().map(|&x| lit(x)).collect();
    let sc: Vec<String> = S.iter().map(|&x| lit(x)).collect();
    let cc: Vec<String> = C.iter().map(|&x| lit(x)).collect();
    let (ln2_hi, ln2_lo) = (lit(LN2_HI), lit(LN2_LO));
    let (tau_hi, tau_lo) = (lit(TAU_HI), lit(TAU_LO));
    let two32 = lit(1.0 / 4_294_967_296.0);
    format!(
        r#"var<private> zero: u64;
fn op(x: f64) -> f64 {{
  return bitcast<f64>(bitcast<u64>(x) | zero);
}}
fn add(a: f64, b: f64) -> f64 {{
  return op(a + b);
}}
fn sub(a: f64, b: f64) -> f64 {{
  return op(a - b);
}}
fn mul(a: f64, b: f64) -> f64 {{
  return op(a * b);
}}
fn u64_to_f64(m: u64) -> f64 {{
  return add(mul(f64(u32(m >> 32u)), f64(4294967296.0)), f64(u32(m & 0xfffffffflu)));
}}
fn ln64(x: f64) -> f64 {{
  let bits = bitcast<u64>(x);
  let hx = u32(bits >> 32u);
  var k = i32(hx >> 20u) - 1023;
  let m = hx & 0x000fffffu;
  let i = (m + 0x95f64u) & 0x00100000u;
  let hy = m | (i ^ 0x3ff00000u);
  let y = bitcast<f64>((u64(hy) << 32u) | (bits & 0xfffffffflu));
  k = k + i32(i >> 20u);
  let f = sub(y, f64(1.0));
  let s = op(f / add(f64(2.0), f));
  let dk = f64(k);
  let z = mul(s, s);
  let w = mul(z, z);
  let t1 = mul(w, add({lg1}, mul(w, add({lg3}, mul(w, {lg5})))));
  let t2 = mul(z, add({lg0}, mul(w, add({lg2}, mul(w, add({lg4}, mul(w, {lg6})))))));
  let r = add(t2, t1);
  let hfsq = mul(mul(f64(0.5), f), f);
  let a = sub(mul(dk, {ln2_hi}), sub(sub(hfsq, add(mul(s, add(hfsq, r)), mul(dk, {ln2_lo}))), f));
  let b = sub(mul(dk, {ln2_hi}), sub(sub(mul(s, sub(f, r)), mul(dk, {ln2_lo})), f));
  let mi = bitcast<i32>(m);
  return select(b, a, ((mi - 0x6147a) | (0x6b851 - mi)) > 0);
}}
fn sin_cos64(x: f64) -> vec2<f64> {{
  let z = mul(x, x);
  let w = mul(z, z);
  let r = add(add({s1}, mul(z, add({s2}, mul(z, {s3})))), mul(mul(z, w), add({s4}, mul(z, {s5}))));
  let sn = add(x, mul(mul(z, x), add({s0}, mul(z, r))));
  let rc = add(mul(z, add({c0}, mul(z, add({c1}, mul(z, {c2}))))), mul(mul(w, w), add({c3}, mul(z, add({c4}, mul(z, {c5}))))));
  let hz = mul(f64(0.5), z);
  let v = sub(f64(1.0), hz);
  let cs = add(v, add(sub(sub(f64(1.0), v), hz), mul(z, rc)));
  return vec2<f64>(sn, cs);
}}
fn box_muller(b0: u32, b1: u32) -> f64 {{
  let u1 = mul(add(f64(b0), f64(1.0)), {two32});
  let rho = op(sqrt(mul(f64(-2.0), ln64(u1))));
  let qt = (b1 >> 30u) + ((b1 >> 29u) & 1u);
  let ri = bitcast<i32>(b1 - (qt << 30u));
  let rr = mul(f64(ri), {two32});
  let a = add(mul(rr, {tau_hi}), mul(rr, {tau_lo}));
  let sc = sin_cos64(a);
  var v = select(sc.y, sc.x, (qt & 1u) == 1u);
  v = select(v, -v, ((qt + 1u) & 2u) == 2u);
  return mul(rho, v);
}}
"#,
        lg0 = lg[0],
        lg1 = lg[1],
        lg2 = lg[2],
        lg3 = lg[3],
        lg4 = lg[4],
        lg5 = lg[5],
        lg6 = lg[6],
        s0 = sc[0],
        s1 = sc[1],
        s2 = sc[2],
        s3 = sc[3],
        s4 = sc[4],
        s5 = sc[5],
        c0 = cc[0],
        c1 = cc[1],
        c2 = cc[2],
        c3 = cc[3],
        c4 = cc[4],
        c5 = cc[5],
    )
}

/// WGSL `okey(b, w)`: the order key of the bits `b` of a `w`-bit float
/// (both zeros equal; no NaN reaches it).
const OKEY_WGSL: &str = r#"
fn okey(b: u64, w: u32) -> u64 {
  let top = 1lu << (w - 1u);
  let mag = b & (top - 1lu);
  return select(top + mag, top - mag, (b & top) != 0lu);
}
"#;

/// The bits of `x`, a value of the float dtype `d`, in `d`.
fn bits_of(d: DType, x: f64) -> u64 {
    match d {
        DType::F16 => <crate::f16 as Element>::from_f64(x).to_bits() as u64,
        DType::BF16 => <crate::bf16 as Element>::from_f64(x).to_bits() as u64,
        DType::F32 => (x as f32).to_bits() as u64,
        _ => x.to_bits(),
    }
}

impl RandomBackend for GpuBackend {
    /// One kernel per draw and dtype (see the module docs); declines on
    /// adapters without SHADER_INT64, float draws without SHADER_F64, and
    /// complex or 4-bit outputs (which no sampler writes).
    fn draw(&self, out: &Tensor, key: [u32; 2], draw: &Draw) -> Result<bool> {
        let ctx = self.ctx("random")?;
        let int64 = ctx.features.contains(wgpu::Features::SHADER_INT64);
        let f64ok = ctx.features.contains(wgpu::Features::SHADER_F64);
        let d = out.dtype();
        let float = matches!(
            draw,
            Draw::Uniform { .. } | Draw::Normal { .. } | Draw::Exponential
        );
        let float_out = matches!(d, DType::F16 | DType::BF16 | DType::F32 | DType::F64);
        if !int64 || (float && !(f64ok && float_out)) || d.is_complex() || d.is_int4() {
            return Ok(false);
        }
        let mut prm: Vec<u64> = vec![key[0] as u64, key[1] as u64, 0];
        let mut helpers = threefry_wgsl();
        let mut body = String::from(
            "    let b = threefry(u32(prm[0]), u32(prm[1]), g, 0u);\n    \
             let rb = (u64(b.x) << 32u) | u64(b.y);\n",
        );
        let op = match *draw {
            Draw::Uniform { .. } => "uniform",
            Draw::Normal { .. } => "normal",
            Draw::Exponential => "exponential",
            Draw::Bernoulli { .. } => "bernoulli",
            Draw::Randint { .. } => "randint",
            Draw::Bits => "random_bits",
        };
        if float {
            let (lo, hi) = match *draw {
                Draw::Uniform { lo, hi, .. } => (lo, hi),
                Draw::Exponential => (0.0, f64::INFINITY),
                _ => (f64::NEG_INFINITY, f64::INFINITY),
            };
            prm.extend([bits_of(d, lo), bits_of(d, hi)]);
            helpers.push_str(&f64_wgsl());
            helpers.push_str(OKEY_WGSL);
            body.push_str("    zero = prm[2];\n");
            match *draw {
                Draw::Uniform {
                    low, span, bits, ..
                } => {
                    prm.extend([low.to_bits(), span.to_bits()]);
                    let _ = writeln!(
                        body,
                        "    let u = mul(u64_to_f64(rb >> {}u), {});\n    let v = add(bitcast<f64>(prm[5]), mul(bitcast<f64>(prm[6]), u));",
                        64 - bits,
                        lit((-(bits as f64)).exp2())
                    );
                }
                Draw::Normal { mean, std } => {
                    prm.extend([mean.to_bits(), std.to_bits()]);
                    body.push_str(
                        "    let mean = bitcast<f64>(prm[5]);\n    \
                         let zs = mul(bitcast<f64>(prm[6]), box_muller(b.x, b.y));\n    \
                         let v = select(add(mean, zs), zs, mean == f64(0.0));\n",
                    );
                }
                _ => {
                    let _ = writeln!(
                        body,
                        "    let v = -ln64(sub(f64(1.0), mul(u64_to_f64(rb >> 11u), {})));",
                        lit((-53f64).exp2())
                    );
                }
            }
            let (rounded_helpers, expr, _) =
                super::round::rounded_cast(DType::F64, d, "v").expect("float dtypes round");
            helpers.push_str(&rounded_helpers);
            let w = d.itemsize() * 8;
            let _ = writeln!(
                body,
                "    let t = u64({expr});\n    let kt = okey(t, {w}u);\n    var o = t;\n    \
                 if (kt < okey(prm[3], {w}u)) {{ o = prm[3]; }}\n    \
                 if (kt > okey(prm[4], {w}u)) {{ o = prm[4]; }}"
            );
        } else {
            match *draw {
                Draw::Bernoulli { threshold } => {
                    prm.push(threshold);
                    body.push_str("    let o = select(0lu, 1lu, (rb >> 11u) < prm[3]);\n");
                }
                Draw::Randint { low, range } => {
                    prm.extend([low as u64, range]);
                    helpers.push_str(
                        "fn mulhi(a: u64, b: u64) -> u64 {\n  \
                         let a0 = a & 0xfffffffflu;\n  let a1 = a >> 32u;\n  \
                         let b0 = b & 0xfffffffflu;\n  let b1 = b >> 32u;\n  \
                         let p01 = a0 * b1;\n  let p10 = a1 * b0;\n  \
                         let mid = ((a0 * b0) >> 32u) + (p01 & 0xfffffffflu) + (p10 & 0xfffffffflu);\n  \
                         return a1 * b1 + (p01 >> 32u) + (p10 >> 32u) + (mid >> 32u);\n}\n",
                    );
                    body.push_str("    let o = prm[3] + mulhi(rb, prm[4]);\n");
                }
                Draw::Bits if d == DType::U64 => body.push_str("    let o = rb;\n"),
                _ => return Ok(false),
            }
        }
        let bd = bits_dtype(d, true);
        let store = if bd == DType::U64 { "o" } else { "u32(o)" };
        let _ = write!(body, "    st0(i0, {store});");
        let bytes: Vec<u8> = prm.iter().flat_map(|v| v.to_ne_bytes()).collect();
        Map {
            op,
            operands: vec![Operand::write(out).with_dtype(bd)],
            helpers,
            body,
            params: Some(("u64", bytes)),
            flag: false,
        }
        .run(&ctx)?;
        Ok(true)
    }

    /// One invocation per pair: the block of each (key, counter) pair,
    /// read through their (broadcast) strides. Any adapter.
    fn threefry(&self, key: &Tensor, counter: &Tensor, out: &Tensor) -> Result<bool> {
        let ctx = self.ctx("threefry2x32")?;
        let r = out.ndim() - 1;
        // Word `j` of every pair of `t`: the view without the last axis.
        let word = |t: &Tensor, j: usize| {
            let l = t.layout();
            t.with_layout(Layout::from_slices(
                &t.shape()[..r],
                &l.strides()[..r],
                (l.offset() as isize + j as isize * l.strides()[r]) as usize,
            ))
        };
        let ts = [
            word(key, 0),
            word(key, 1),
            word(counter, 0),
            word(counter, 1),
            word(out, 0),
            word(out, 1),
        ];
        Map {
            op: "threefry2x32",
            operands: vec![
                Operand::read(&ts[0]),
                Operand::read(&ts[1]),
                Operand::read(&ts[2]),
                Operand::read(&ts[3]),
                Operand::write(&ts[4]),
                Operand::write(&ts[5]),
            ],
            helpers: threefry_wgsl(),
            body: "    let b = threefry(ld0(i0), ld1(i1), ld2(i2), ld3(i3));\n    \
                   st4(i4, b.x);\n    st5(i5, b.y);"
                .into(),
            params: None,
            flag: false,
        }
        .run(&ctx)?;
        Ok(true)
    }
}
