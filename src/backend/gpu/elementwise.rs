//! GPU elementwise primitives: unary, binary, compare, classify, select and
//! ternary maps, each one WGSL body in the shared map kernel (`kernel.rs`).
//! Integer division by zero, negative shifts and negative integer exponents
//! are found by a check pass (one flag word read back) before anything is
//! written. Transcendental math, activations, float `rem`, `pow`, atan2 and
//! hypot of f32, f16 and bf16 run rnx's own WGSL library (`math.rs`, with its
//! accuracy table); every f64 math function and activation, and f64 `rem`,
//! `pow`, atan2 and hypot, run `math_f64.rs` (its table); f64 sin/cos/tan of
//! a tensor holding a finite |x| >= 2^20 go through the CPU (`via_cpu`): the
//! README's device table lists it.

use super::kernel::{param_bytes, Map, Operand};
use super::wgsl::{compute_ty, is_inf, is_nan, lit};
use super::{math, math_f64};
use super::{via_cpu, GpuBackend};
use crate::backend::elementwise::{BinaryOp, ClassOp, CmpOp, MathFn, TernaryOp, UnaryOp};
use crate::backend::ElementwiseBackend;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

/// NaN-propagating max/min of the CPU (`fmax`/`fmin` in `cpu/elementwise/num.rs`)
/// for compute type `t`, and the wrapping integer power.
fn helpers(d: DType) -> String {
    let t = compute_ty(d);
    let nan_a = is_nan(d, "a");
    let nan_b = is_nan(d, "b");
    let one = lit(d, 1.0);
    let mut s = format!(
        "fn fmax_(a: {t}, b: {t}) -> {t} {{ if ({nan_a} || {nan_b}) {{ return a + b; }} return select(b, a, a > b); }}\n\
         fn fmin_(a: {t}, b: {t}) -> {t} {{ if ({nan_a} || {nan_b}) {{ return a + b; }} return select(b, a, a < b); }}\n"
    );
    if d.is_int() {
        s.push_str(&format!(
            "fn ipow_(x: {t}, y: {t}) -> {t} {{ var acc = {one}; var b = x; var e = y; loop {{ if (e == {zero}) {{ break; }} if ((e & {one}) == {one}) {{ acc = acc * b; }} b = b * b; e = e >> 1u; }} return acc; }}\n",
            zero = lit(d, 0.0),
        ));
    }
    s
}

/// Bits of an integer dtype (its width, not its compute type's).
fn width(d: DType) -> u32 {
    d.itemsize() as u32 * 8
}

/// The WGSL expression of a unary op on `x` in `d`, or `None` when the op runs
/// through the CPU.
fn unary_expr(op: UnaryOp, d: DType) -> Option<String> {
    use MathFn as M;
    use UnaryOp::*;
    let f = d.is_float();
    let t = compute_ty(d);
    let zero = lit(d, 0.0);
    let one = lit(d, 1.0);
    let f32ish = t == "f32";
    Some(match op {
        _ if t == "f64" && math_f64::unary(op).is_some() => math_f64::unary(op)?.0.into(),
        Neg if d.is_unsigned_int() => format!("{zero} - x"),
        Neg => "-x".into(),
        Conj => "x".into(),
        Abs if f32ish => "bitcast<f32>(bitcast<u32>(x) & 0x7fffffffu)".into(),
        Abs if d.is_unsigned_int() => "x".into(),
        Abs => "abs(x)".into(),
        Sign if f => format!("select(select(x, {one}, x > {zero}), -{one}, x < {zero})"),
        Sign if d.is_unsigned_int() => format!("select({zero}, {one}, x != {zero})"),
        Sign => format!("select(select({zero}, {one}, x > {zero}), -{one}, x < {zero})"),
        Square => "x * x".into(),
        Recip => format!("{one} / x"),
        LogicalNot => format!("select({zero}, {one}, x == {zero})"),
        BitNot => "~x".into(),
        Math(M::Sqrt) => "sqrt(x)".into(),
        Math(M::Trunc) if f32ish => "trunc(x)".into(),
        Math(M::Ceil) if f32ish => "ceil(x)".into(),
        Math(M::Floor) if f32ish => "floor(x)".into(),
        // Half away from zero (WGSL's round() is half to even); x - trunc(x) is exact.
        // (f64 rounding runs rnx's bit-exact library: lavapipe's f64 trunc loses -0.)
        Math(M::Round) if f32ish => format!(
            "select(trunc(x), trunc(x) + select(-{one}, {one}, x > {zero}), abs(x - trunc(x)) >= {half})",
            half = lit(d, 0.5)
        ),
        // -0 gives +0 and NaN stays NaN, as on the CPU.
        // fmax_ tests NaN by its bits: a compare-and-select lets a driver fold it
        // into a hardware max, which drops NaN (NVIDIA did).
        Math(M::Relu) if f => format!("fmax_(x, {zero})"),
        Math(M::Relu6) if f => format!("fmin_(fmax_(x, {zero}), {six})", six = lit(d, 6.0)),
        Math(M::HardTanh) if f => format!("fmin_(fmax_(x, -{one}), {one})"),
        _ => return None,
    })
}

impl ElementwiseBackend for GpuBackend {
    fn unary(&self, op: UnaryOp, x: &Tensor, out: &Tensor) -> Result<()> {
        let d = x.dtype();
        if compute_ty(d) == "f32" {
            if let Some((e, prm)) = math::unary(op) {
                let ctx = self.ctx("unary")?;
                Map {
                    op: "unary",
                    operands: vec![Operand::read(x), Operand::write(out)],
                    helpers: format!("{}{}", helpers(d), math::MATH_F32),
                    body: format!("    let x = ld0(i0);\n    st1(i1, {e});"),
                    params: (!prm.is_empty()).then(|| param_bytes(d, &prm)),
                    flag: false,
                }
                .run(&ctx)?;
                return Ok(());
            }
        }
        let Some(e) = unary_expr(op, d) else {
            return via_cpu(&[x], &[out], |cpu, i, o| cpu.unary(op, &i[0], &o[0]));
        };
        if d == DType::F64 && math_f64::needs_range_check(op) {
            // f64 sin/cos/tan reduce |x| < 2^20 only: one flag pass (read
            // back) sends a tensor with a larger finite argument to the CPU.
            let ctx = self.ctx("unary")?;
            let large = Map {
                op: "unary",
                operands: vec![Operand::read(x)],
                helpers: String::new(),
                body: format!(
                    "    let x = ld0(i0);\n    if (abs(x) >= {lim} && !is_inf64(x)) {{ atomicOr(&flag[0], 1u); }}",
                    lim = lit(d, math_f64::TRIG_LIMIT)
                ),
                params: None,
                flag: true,
            }
            .run(&ctx)?;
            if large != 0 {
                return via_cpu(&[x], &[out], |cpu, i, o| cpu.unary(op, &i[0], &o[0]));
            }
        }
        let mut helpers = helpers(d);
        let mut params = None;
        if d == DType::F64 {
            helpers.push_str(math_f64::MATH_F64);
            params = math_f64::unary(op)
                .filter(|(_, p)| !p.is_empty())
                .map(|(_, p)| param_bytes(d, &p));
        }
        let ctx = self.ctx("unary")?;
        Map {
            op: "unary",
            operands: vec![Operand::read(x), Operand::write(out)],
            helpers,
            body: format!("    let x = ld0(i0);\n    st1(i1, {e});"),
            params,
            flag: false,
        }
        .run(&ctx)?;
        Ok(())
    }

    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<()> {
        use BinaryOp::*;
        let d = a.dtype();
        let f = d.is_float();
        let zero = lit(d, 0.0);
        let one = lit(d, 1.0);
        let w = width(d);
        let f32ish = compute_ty(d) == "f32";
        let mut helpers = helpers(d);
        let e = match op {
            Rem | Pow | Atan2 | Hypot if f32ish => {
                helpers.push_str(math::MATH_F32);
                math::binary(op).expect("a math op").to_string()
            }
            Rem | Pow | Atan2 | Hypot if d == DType::F64 => {
                helpers.push_str(math_f64::MATH_F64);
                math_f64::binary(op).expect("an f64 math op").to_string()
            }
            Add => "x + y".to_string(),
            Sub => "x - y".into(),
            Mul => "x * y".into(),
            Div if f => "x / y".into(),
            // WGSL integer division truncates; MIN / -1 == MIN (zeros were checked).
            Div => "x / y".into(),
            Rem if !f => "x % y".into(),
            Pow if !f => "ipow_(x, y)".into(),
            Max if f => "fmax_(x, y)".into(),
            Min if f => "fmin_(x, y)".into(),
            Max => "max(x, y)".into(),
            Min => "min(x, y)".into(),
            LogicalAnd => format!("select({zero}, {one}, x != {zero} && y != {zero})"),
            LogicalOr => format!("select({zero}, {one}, x != {zero} || y != {zero})"),
            LogicalXor => format!("select({zero}, {one}, (x != {zero}) != (y != {zero}))"),
            BitAnd => "x & y".into(),
            BitOr => "x | y".into(),
            BitXor => "x ^ y".into(),
            Shl => format!(
                "select({zero}, x << u32(min(y, {wl})), y < {wl})",
                wl = lit(d, w as f64)
            ),
            Shr if d.is_unsigned_int() => format!(
                "select({zero}, x >> u32(min(y, {wl})), y < {wl})",
                wl = lit(d, w as f64)
            ),
            // Signed: truncate toward zero (bias negative values by 2^y - 1).
            Shr => format!(
                "select({zero}, select(x >> u32(min(y, {wl})), (x + ((({one}) << u32(min(y, {wl}))) - {one})) >> u32(min(y, {wl})), x < {zero}), y < {wl})",
                wl = lit(d, w as f64)
            ),
            _ => {
                return via_cpu(&[a, b], &[out], |cpu, i, o| {
                    cpu.binary(op, &i[0], &i[1], &o[0])
                })
            }
        };
        let ctx = self.ctx(op.name())?;
        // Data-dependent errors first, so nothing is written on error.
        let check = match op {
            Div | Rem if !f => Some((
                format!("y == {zero}"),
                Error::DivisionByZero {
                    op: op.name().into(),
                },
            )),
            Shl | Shr | Pow if d.is_signed_int() => {
                let what = if op == Pow { "exponent" } else { "shift" };
                Some((
                    format!("y < {zero}"),
                    Error::invalid(op.name(), format!("negative {what} for integer dtype {d}")),
                ))
            }
            _ => None,
        };
        if let Some((pred, err)) = check {
            let flagged = Map {
                op: op.name(),
                operands: vec![Operand::read(b)],
                helpers: String::new(),
                body: format!(
                    "    let y = ld0(i0);\n    if ({pred}) {{ atomicOr(&flag[0], 1u); }}"
                ),
                params: None,
                flag: true,
            }
            .run(&ctx)?;
            if flagged != 0 {
                return Err(err);
            }
        }
        Map {
            op: op.name(),
            operands: vec![Operand::read(a), Operand::read(b), Operand::write(out)],
            helpers,
            body: format!("    let x = ld0(i0);\n    let y = ld1(i1);\n    st2(i2, {e});"),
            params: None,
            flag: false,
        }
        .run(&ctx)?;
        Ok(())
    }

    fn compare(&self, op: CmpOp, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<()> {
        let d = a.dtype();
        let nan = format!("({} || {})", is_nan(d, "x"), is_nan(d, "y"));
        let c = match op {
            CmpOp::Eq => format!("!{nan} && x == y"),
            CmpOp::Ne => format!("{nan} || x != y"),
            CmpOp::Lt => format!("!{nan} && x < y"),
            CmpOp::Le => format!("!{nan} && x <= y"),
            CmpOp::Gt => format!("!{nan} && x > y"),
            CmpOp::Ge => format!("!{nan} && x >= y"),
        };
        let ctx = self.ctx(op.name())?;
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
        .run(&ctx)?;
        Ok(())
    }

    fn classify(&self, op: ClassOp, x: &Tensor, out: &Tensor) -> Result<()> {
        let d = x.dtype();
        let c = match op {
            ClassOp::IsNan => is_nan(d, "x"),
            ClassOp::IsInf => is_inf(d, "x"),
            ClassOp::IsFinite if d.is_float() => {
                format!("!({} || {})", is_nan(d, "x"), is_inf(d, "x"))
            }
            ClassOp::IsFinite => "true".into(),
        };
        let ctx = self.ctx("classify")?;
        Map {
            op: "classify",
            operands: vec![Operand::read(x), Operand::write(out)],
            helpers: String::new(),
            // `x` is read even when the answer is constant (integers), so that
            // the binding is used.
            body: format!("    let x = ld0(i0);\n    st1(i1, select(0u, 1u, {c}));"),
            params: None,
            flag: false,
        }
        .run(&ctx)?;
        Ok(())
    }

    fn select(&self, mask: &Tensor, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<()> {
        let ctx = self.ctx("select")?;
        Map {
            op: "select",
            operands: vec![
                Operand::read(mask),
                Operand::read(a),
                Operand::read(b),
                Operand::write(out),
            ],
            helpers: String::new(),
            body: "    st3(i3, select(ld2(i2), ld1(i1), ld0(i0) != 0u));".into(),
            params: None,
            flag: false,
        }
        .run(&ctx)?;
        Ok(())
    }

    fn ternary(
        &self,
        op: TernaryOp,
        a: &Tensor,
        b: &Tensor,
        c: &Tensor,
        out: &Tensor,
    ) -> Result<()> {
        let d = a.dtype();
        let e = match op {
            TernaryOp::Clamp if d.is_float() => "fmin_(fmax_(x, y), z)",
            TernaryOp::Clamp => "min(max(x, y), z)",
            TernaryOp::Lerp => "x + z * (y - x)",
        };
        let ctx = self.ctx("ternary")?;
        Map {
            op: "ternary",
            operands: vec![
                Operand::read(a),
                Operand::read(b),
                Operand::read(c),
                Operand::write(out),
            ],
            helpers: helpers(d),
            body: format!(
                "    let x = ld0(i0);\n    let y = ld1(i1);\n    let z = ld2(i2);\n    st3(i3, {e});"
            ),
            params: None,
            flag: false,
        }
        .run(&ctx)?;
        Ok(())
    }
}
