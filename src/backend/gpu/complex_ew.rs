//! GPU kernels for the elementwise ops on complex tensors that the CPU
//! computes with num_complex's formulas: add, sub, mul, div (`(a conj b) /
//! |b|^2`, no scaling, as num_complex), neg, conj, square, recip (`1 / v`
//! by the same division) and abs (`hypot` of the parts, rnx's WGSL math
//! library: 1 ULP), imag, angle (`atan2`, the same library) and `i·v`
//! (`MulI`), the comparisons `==` / `!=`, isnan / isinf / isfinite, and the
//! c32 `exp` and `log` (num_complex's formulas on the f32 library). add, sub, neg, conj, imag and
//! `MulI` are exact, so bit-identical to
//! the CPU; the products and quotients are the same formulas, which a
//! driver may evaluate with fused multiply-adds (a last-bit difference).
//! The other complex ops take the CPU round trip (`complex.rs`).

use super::kernel::{Map, Operand};
use super::GpuBackend;
use crate::backend::{BinaryOp, ClassOp, CmpOp, MathFn, UnaryOp};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

/// num_complex's `exp` of a c32 (its corner cases for infinite and NaN real
/// parts, then `e^re (cos im, sin im)`), on the f32 library.
const C32_EXP: &str = r#"
fn c_exp(v: vec2<f32>) -> vec2<f32> {
  let inf = is_inf32(v.x);
  let im_finite = !(is_nan32(v.y) || is_inf32(v.y));
  if (inf && v.x < 0.0) {
    if (!im_finite) {
      return vec2<f32>(0.0, 0.0);
    }
  } else if (inf) {
    if (v.y == 0.0 || !im_finite) {
      if (is_inf32(v.y)) {
        return vec2<f32>(v.x, bitcast<f32>(0x7fc00000u));
      }
      return v;
    }
  } else if (is_nan32(v.x) && v.y == 0.0) {
    return v;
  }
  let m = m_exp(v.x);
  return vec2<f32>(m * m_cos(v.y), m * m_sin(v.y));
}
"#;

/// num_complex's `sqrt` of a complex over part type `t` on the math library
/// whose functions start with `pre` (`m` for f32, `m64` for f64): the real
/// axes exactly (`sqrt(x)` or `i sqrt(-x)` with the imaginary part's sign,
/// `sqrt(|y| / 2) (1 +- i)`), else `sqrt(|z|)` at half the angle.
fn c_sqrt(t: &str, pre: &str) -> String {
    let (bits, sh) = if t == "f32" {
        ("u32", "31u")
    } else {
        ("u64", "63u")
    };
    format!(
        "fn c_sqrt(v: vec2<{t}>) -> vec2<{t}> {{
           let im_pos = (bitcast<{bits}>(v.y) >> {sh}) == {bits}(0);
           if (v.y == {t}(0)) {{
             if ((bitcast<{bits}>(v.x) >> {sh}) == {bits}(0)) {{ return vec2<{t}>(sqrt(v.x), v.y); }}
             let im = sqrt(-v.x);
    return vec2<{t}>({t}(0), select(-im, im, im_pos));
  }}
           if (v.x == {t}(0)) {{
    let x = sqrt(abs(v.y) / {t}(2));
             return vec2<{t}>(x, select(-x, x, im_pos));
  }}
           let r = sqrt({pre}_hypot(v.x, v.y));
  let th = {pre}_atan2(v.y, v.x) / {t}(2);
           return vec2<{t}>(r * {pre}_cos(th), r * {pre}_sin(th));
}}
"
    )
}

/// WGSL helpers over part type `t`: the complex product and quotient.
fn helpers(t: &str) -> String {
    format!(
        "fn c_mul(a: vec2<{t}>, b: vec2<{t}>) -> vec2<{t}> {{\n  return vec2<{t}>(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);\n}}\n\
         fn c_div(a: vec2<{t}>, b: vec2<{t}>) -> vec2<{t}> {{\n  let n = b.x * b.x + b.y * b.y;\n  return vec2<{t}>((a.x * b.x + a.y * b.y) / n, (a.y * b.x - a.x * b.y) / n);\n}}\n"
    )
}

/// The WGSL expression in `x`, `y` of the math library's binary `op` in
/// part type `p`, with the library appended to the helpers `h`.
fn math2(p: DType, op: BinaryOp, h: &mut String) -> &'static str {
    let e = if p == DType::F32 {
        h.push_str(super::math::MATH_F32);
        super::math::binary(op)
    } else {
        h.push_str(super::math_f64::MATH_F64);
        super::math_f64::binary(op)
    };
    e.expect("a binary math op of the library")
}

/// `out = op(x)` for a complex `x` by a kernel; `false` (nothing done) for
/// the ops without one.
pub(super) fn unary(be: &GpuBackend, op: UnaryOp, x: &Tensor, out: &Tensor) -> Result<bool> {
    let c = x.dtype();
    let p = c.real();
    let t = super::wgsl::compute_ty(p);
    let mut h = helpers(t);
    let e = match op {
        UnaryOp::Neg => "-v".to_string(),
        UnaryOp::Conj => format!("vec2<{t}>(v.x, -v.y)"),
        UnaryOp::MulI => format!("vec2<{t}>(-v.y, v.x)"),
        UnaryOp::Imag => "{ res = v.y; }".into(),
        UnaryOp::Square => "c_mul(v, v)".into(),
        UnaryOp::Recip => format!(
            "c_div(vec2<{t}>({}, {}), v)",
            super::wgsl::lit(p, 1.0),
            super::wgsl::lit(p, 0.0)
        ),
        UnaryOp::Abs => format!(
            "{{ let x = v.x; let y = v.y; res = {}; }}",
            math2(p, BinaryOp::Hypot, &mut h)
        ),
        // atan2(im, re): the library's `(x, y)` are atan2's arguments.
        UnaryOp::Angle => format!(
            "{{ let x = v.y; let y = v.x; res = {}; }}",
            math2(p, BinaryOp::Atan2, &mut h)
        ),
        // c32 exp and log by the f32 library (num_complex's formulas and
        // corner cases); c64 takes the round trip (the f64 library's sin and
        // cos reduce |x| < 2^20 only).
        UnaryOp::Math(MathFn::Exp) if c == DType::C32 => {
            h.push_str(super::math::MATH_F32);
            h.push_str(C32_EXP);
            "c_exp(v)".into()
        }
        // NumPy 2's complex sign, the CPU's formula: z / |z|, 0 at 0.
        UnaryOp::Sign => {
            let hyp = math2(p, BinaryOp::Hypot, &mut h);
            h.push_str(&format!(
                "fn c_sign(v: vec2<{t}>) -> vec2<{t}> {{\n  let x = v.x;\n  let y = v.y;\n  \
                 let m = {hyp};\n  if (m == {t}(0)) {{ return vec2<{t}>({t}(0), {t}(0)); }}\n  \
                 return vec2<{t}>(v.x / m, v.y / m);\n}}\n"
            ));
            "c_sign(v)".into()
        }
        // Both precisions: the angle is halved into [-pi/2, pi/2], inside
        // the f64 library's sine and cosine reduction.
        UnaryOp::Math(MathFn::Sqrt) => {
            let pre = if c == DType::C32 {
                h.push_str(super::math::MATH_F32);
                "m"
            } else {
                h.push_str(super::math_f64::MATH_F64);
                "m64"
            };
            h.push_str(&c_sqrt(t, pre));
            "c_sqrt(v)".into()
        }
        UnaryOp::Math(MathFn::Log) if c == DType::C32 => {
            h.push_str(super::math::MATH_F32);
            "vec2<f32>(m_log(m_hypot(v.x, v.y)), m_atan2(v.y, v.x))".into()
        }
        _ => return Ok(false),
    };
    let want = if op.real_result() { p } else { c };
    if out.dtype() != want {
        return Ok(false);
    }
    let body = if op.real_result() {
        format!("    let v = ld0(i0);\n    var res: {t};\n    {e}\n    st1(i1, res);")
    } else {
        format!("    let v = ld0(i0);\n    st1(i1, {e});")
    };
    Map {
        op: op_name(op),
        operands: vec![Operand::read(x), Operand::write(out)],
        helpers: h,
        body,
        params: None,
        flag: false,
    }
    .run(&be.ctx(op_name(op))?)?;
    Ok(true)
}

/// `out = op(a, b)` for complex `a`, `b`, `out` of one dtype by a kernel;
/// `false` (nothing done) for the ops without one.
pub(super) fn binary(
    be: &GpuBackend,
    op: BinaryOp,
    a: &Tensor,
    b: &Tensor,
    out: &Tensor,
) -> Result<bool> {
    let c = out.dtype();
    if a.dtype() != c || b.dtype() != c {
        return Ok(false);
    }
    let e = match op {
        BinaryOp::Add => "x + y",
        BinaryOp::Sub => "x - y",
        BinaryOp::Mul => "c_mul(x, y)",
        BinaryOp::Div => "c_div(x, y)",
        _ => return Ok(false),
    };
    let name = match op {
        BinaryOp::Add => "add",
        BinaryOp::Sub => "sub",
        BinaryOp::Mul => "mul",
        _ => "div",
    };
    Map {
        op: name,
        operands: vec![Operand::read(a), Operand::read(b), Operand::write(out)],
        helpers: helpers(super::wgsl::compute_ty(c.real())),
        body: format!("    let x = ld0(i0);\n    let y = ld1(i1);\n    st2(i2, {e});"),
        params: None,
        flag: false,
    }
    .run(&be.ctx(name)?)?;
    Ok(true)
}

/// `out = a op b` (u8) for complex `a`, `b` of one dtype, `op` equality or
/// inequality (the only comparisons of complex numbers): equal when both
/// parts are, never when a part is NaN.
pub(super) fn compare(
    be: &GpuBackend,
    op: CmpOp,
    a: &Tensor,
    b: &Tensor,
    out: &Tensor,
) -> Result<bool> {
    if a.dtype() != b.dtype() || !matches!(op, CmpOp::Eq | CmpOp::Ne) {
        return Ok(false);
    }
    let nan = |e: &str| super::wgsl::is_nan(a.dtype().real(), e);
    let eq = format!(
        "!({} || {} || {} || {}) && x.x == y.x && x.y == y.y",
        nan("x.x"),
        nan("x.y"),
        nan("y.x"),
        nan("y.y")
    );
    let c = if op == CmpOp::Eq {
        eq
    } else {
        format!("!({eq})")
    };
    Map {
        op: op.name(),
        operands: vec![Operand::read(a), Operand::read(b), Operand::write(out)],
        helpers: String::new(),
        body: format!(
            "    let x = ld0(i0);\n    let y = ld1(i1);\n    st2(i2, select(0u, 1u, {c}));"
        ),
        params: None,
        flag: false,
    }
    .run(&be.ctx(op.name())?)?;
    Ok(true)
}

/// `out = op(x)` (u8) for a complex `x`: NaN or infinite when a part is,
/// finite when both are (NumPy's rules; the tests on the bits).
pub(super) fn classify(be: &GpuBackend, op: ClassOp, x: &Tensor, out: &Tensor) -> Result<()> {
    let d = x.dtype().real();
    let (nan, inf) = (super::wgsl::is_nan, super::wgsl::is_inf);
    let c = match op {
        ClassOp::IsNan => format!("{} || {}", nan(d, "v.x"), nan(d, "v.y")),
        ClassOp::IsInf => format!("{} || {}", inf(d, "v.x"), inf(d, "v.y")),
        ClassOp::IsFinite => format!(
            "!({} || {} || {} || {})",
            nan(d, "v.x"),
            nan(d, "v.y"),
            inf(d, "v.x"),
            inf(d, "v.y")
        ),
    };
    let name = match op {
        ClassOp::IsNan => "isnan",
        ClassOp::IsInf => "isinf",
        ClassOp::IsFinite => "isfinite",
    };
    Map {
        op: name,
        operands: vec![Operand::read(x), Operand::write(out)],
        helpers: String::new(),
        body: format!("    let v = ld0(i0);\n    st1(i1, select(0u, 1u, {c}));"),
        params: None,
        flag: false,
    }
    .run(&be.ctx(name)?)?;
    Ok(())
}

/// The name of a complex unary op in errors.
fn op_name(op: UnaryOp) -> &'static str {
    match op {
        UnaryOp::Neg => "neg",
        UnaryOp::Conj => "conjugate",
        UnaryOp::Square => "square",
        UnaryOp::Recip => "recip",
        UnaryOp::MulI => "complex",
        UnaryOp::Imag => "imag",
        UnaryOp::Angle => "angle",
        UnaryOp::Math(MathFn::Exp) => "exp",
        UnaryOp::Math(MathFn::Log) => "log",
        UnaryOp::Math(MathFn::Sqrt) => "sqrt",
        UnaryOp::Sign => "sign",
        _ => "abs",
    }
}
