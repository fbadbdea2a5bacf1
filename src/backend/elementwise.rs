//! The elementwise family of backend primitives: unary, binary, comparison,
//! classification, selection and ternary maps, with the op enums they take.
//! Ops carry their parameters (`MathFn::LeakyRelu { slope }` style), so every
//! elementwise function, however composite, is ONE kernel pass.
//!
//! What the frontend (`src/ops/`) guarantees to every method:
//! - all tensors are on this backend's device and their storages are locked;
//! - every input's layout already has the output's shape (broadcasting is done
//!   as stride-0 views);
//! - dtypes are the op's: inputs of one dtype `T` (a mask is u8), the output `T`
//!   or u8 (compare, classify) or the real dtype of a complex input (`Abs`);
//! - the op is supported for that dtype (see each enum's doc);
//! - `out`'s layout maps distinct elements to distinct addresses;
//! - each input is either exactly `out`'s view (true in place) or touches no
//!   address of `out` (partially overlapping inputs were snapshotted).
//!
//! What a backend must do: write `f(inputs)` at every element of `out`, reading
//! each element of an in-place input before writing it. The only errors a
//! backend raises are data-dependent ones documented on the op (integer
//! division by zero, negative shifts and exponents); the CPU backend detects
//! them before writing anything.
//!
//! Adding an op: add a variant to the enum (with its parameters), say which
//! dtypes it accepts in [`UnaryOp::supports`] (or the enum's `supports`), and
//! add the arm in the CPU kernels (`src/backend/cpu/elementwise/kernels.rs`).
//! A float math function or activation is a [`MathFn`] variant (the one list
//! of them: `UnaryOp::Math` carries it, the CPU's `vmath` table and the GPU's
//! WGSL tables match on it), with its body in `vmath` and its arm in
//! `vmath/table.rs`.

use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

/// Dtype classes an op accepts.
fn class(dt: DType, float: bool, complex: bool, int: bool) -> bool {
    (float && dt.is_float()) || (complex && dt.is_complex()) || (int && dt.is_int())
}

/// A one-input map `T -> T` (`Abs`, `Imag` and `Angle` of a complex input
/// give its real dtype).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum UnaryOp {
    /// `-x` (integers wrap: `-MIN == MIN`; unsigned `-x == 0 - x` wrapping).
    Neg,
    /// `|x|` (integers wrap: `abs(MIN) == MIN`; complex: the modulus, real dtype).
    Abs,
    /// -1, 0 or 1 (NaN stays NaN; unsigned: 1 for non-zero; complex: `z /
    /// |z|`, 0 at 0, as NumPy 2).
    Sign,
    /// `x * x` (integers wrap).
    Square,
    /// `1 / x` (floats and complex).
    Recip,
    /// 1 where `x == 0`, else 0.
    LogicalNot,
    /// `!x` (integers).
    BitNot,
    /// A math function or activation ([`MathFn`]: floats; those of
    /// [`MathFn::complex`] also complex).
    Math(MathFn),
    /// Complex conjugate `re - i·im`; the identity for real and integer dtypes.
    Conj,
    /// The imaginary part of a complex `x`, in its real dtype (complex only).
    Imag,
    /// The argument `atan2(im, re)` of a complex `x`, in `(-π, π]`, in its
    /// real dtype (complex only; C99's `carg` special values).
    Angle,
    /// `i·x = -im + i·re`, exact (complex only): with a cast and an add it
    /// builds a complex tensor from two real ones bit for bit.
    MulI,
}

impl UnaryOp {
    /// The op's name in messages: the variant in snake case, a math
    /// function by its own (`UnaryOp::Math(MathFn::LogSigmoid)` is
    /// "log_sigmoid"), parameters left out.
    ///
    /// ```
    /// use rnx::backend::{MathFn, UnaryOp};
    /// assert_eq!(UnaryOp::LogicalNot.name(), "logical_not");
    /// assert_eq!(UnaryOp::Math(MathFn::Elu { alpha: 1.0 }).name(), "elu");
    /// ```
    pub fn name(self) -> String {
        let debug = match self {
            UnaryOp::Math(f) => format!("{f:?}"),
            op => format!("{op:?}"),
        };
        let mut name = String::new();
        for (i, c) in debug
            .chars()
            .take_while(|c| c.is_alphanumeric())
            .enumerate()
        {
            if c.is_uppercase() && i > 0 {
                name.push('_');
            }
            name.push(c.to_ascii_lowercase());
        }
        name
    }

    /// Whether the result of a complex input has the real dtype (`Abs`,
    /// `Imag`, `Angle`).
    pub fn real_result(self) -> bool {
        matches!(self, UnaryOp::Abs | UnaryOp::Imag | UnaryOp::Angle)
    }

    /// Whether the op is defined for `dt`.
    pub fn supports(self, dt: DType) -> bool {
        use UnaryOp::*;
        match self {
            Neg | Abs | Square | Conj => class(dt, true, true, true),
            Imag | Angle | MulI => dt.is_complex(),
            Sign => class(dt, true, true, true),
            LogicalNot => class(dt, true, false, true),
            Recip => class(dt, true, true, false),
            BitNot => dt.is_int(),
            Math(f) if f.complex() => class(dt, true, true, false),
            Math(_) => dt.is_float(),
        }
    }
}

/// A math function or activation of real floats, with its parameters (taken
/// in f64 and converted to the element precision once per call): the payload
/// of [`UnaryOp::Math`]. The accuracy stated on each is the CPU backend's,
/// measured as max ULP against a correctly rounded value (`vmath`'s module
/// docs say how); "≈" marks a relative bound. The functions of
/// [`MathFn::complex`] also take complex dtypes (principal branches,
/// num_complex's formulas); every other function real floats only.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MathFn {
    /// √x (correctly rounded).
    Sqrt,
    /// 1/√x (f32 ≤ 0.5 ULP + 2⁻²⁹: through f64; f64 ≤ 1.5 ULP: one rounded sqrt, one
    /// rounded division).
    Rsqrt,
    /// eˣ (f32 ≤ 1.1 ULP, f64 ≤ 1 ULP).
    Exp,
    /// 2ˣ (f32 ≤ 1.1 ULP, f64 ≤ 1 ULP; exact at integers).
    Exp2,
    /// eˣ − 1 (f32 ≤ 2 ULP, f64 ≤ 2 ULP).
    Expm1,
    /// ln x (f32 ≤ 1 ULP, f64 ≤ 1 ULP).
    Log,
    /// log₂ x (f32 ≤ 2 ULP, f64 ≤ 2 ULP; exact at powers of two).
    Log2,
    /// ln(1 + x) (f32 ≤ 2 ULP, f64 ≤ 2 ULP).
    Log1p,
    /// sin x (f32 ≤ 0.5 ULP + 2⁻²⁹: reduced and evaluated in f64; f64 ≤ 2 ULP; lanes
    /// with |x| > 10⁶ (f64) or 10⁵ (f32) use the scalar libm, per lane).
    Sin,
    /// cos x (as [`MathFn::Sin`]).
    Cos,
    /// tan x (f32 ≤ 0.5 ULP + 2⁻²⁹, f64 ≤ 3 ULP; large |x| as [`MathFn::Sin`]).
    Tan,
    /// arcsin x (scalar).
    Asin,
    /// arccos x (scalar).
    Acos,
    /// arctan x (scalar).
    Atan,
    /// sinh x (scalar).
    Sinh,
    /// cosh x (scalar).
    Cosh,
    /// tanh x (f32 ≤ 2.5 ULP, f64 ≤ 3.5 ULP).
    Tanh,
    /// arsinh x (scalar).
    Asinh,
    /// arcosh x (scalar).
    Acosh,
    /// artanh x (scalar).
    Atanh,
    /// Round toward zero (exact).
    Trunc,
    /// Round up (exact).
    Ceil,
    /// Round down (exact).
    Floor,
    /// Round to nearest, ties away from zero (exact).
    Round,
    /// The error function (scalar).
    Erf,
    /// max(x, 0) (NaN stays NaN).
    Relu,
    /// min(max(x, 0), 6).
    Relu6,
    /// 1/(1+e⁻ˣ), sign-dependent stable form (f32 ≤ 2.5 ULP, f64 ≤ 2.5 ULP).
    Sigmoid,
    /// x·sigmoid(x) (f32 ≤ 3.5 ULP, f64 ≤ 3 ULP, plus |x| subnormal ULPs where
    /// sigmoid(x) is subnormal).
    Silu,
    /// clamp(alpha·x + beta, 0, 1) (≤ 1 ULP, or one ULP of beta near the lower corner).
    HardSigmoid { alpha: f64, beta: f64 },
    /// x·hard_sigmoid(x) with alpha 1/6, beta 1/2.
    HardSilu,
    /// ln(1+eˣ) = max(x,0) + ln(1+e^−|x|) (no overflow; f32 ≤ 2 ULP, f64 ≤ 2 ULP).
    Softplus,
    /// ln(sigmoid(x)) = min(x,0) − ln(1+e^−|x|) (f32 ≤ 2 ULP, f64 ≤ 2 ULP).
    LogSigmoid,
    /// x if x > 0 else slope·x.
    LeakyRelu { slope: f64 },
    /// clamp(x, −1, 1).
    HardTanh,
    /// x if x > 0 else alpha·(eˣ − 1) (≤ 3 ULP for alpha = 0.3; ≤ 2 for alpha = 1).
    Elu { alpha: f64 },
    /// λ·(x if x > 0 else α·(eˣ − 1)), α = 1.6732632423543772, λ = 1.0507009873554805
    /// (constants rounded to the element precision; ≤ 3 ULP).
    Selu,
    /// Tanh-approximate GELU, 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) with the
    /// constants in the element precision, evaluated as the identical
    /// x·sigmoid(2·√(2/π)·(x + 0.044715·x³)) (no cancellation for x < 0, no NaN
    /// from the cube's overflow). Error ≤ 3 + 3·|2u| ULP with u the tanh argument:
    /// u is rounded in the element precision, which matters only where
    /// gelu(x) ≈ x·e^(2u) is tiny (x < −3).
    Gelu,
    /// Exact GELU 0.5·x·erfc(−x/√2) (scalar).
    GeluErf,
    /// x/(1 + |x|) (±1 at ±∞; ≤ 1.5 ULP).
    Softsign,
    /// x·tanh(softplus(x)) in a form without overflow (f32 ≤ 4.5 ULP, f64 ≤ 4.5 ULP,
    /// plus |x| subnormal ULPs where e⁻|x| is subnormal).
    Mish,
}

impl MathFn {
    /// Whether the function also takes complex dtypes (principal branches,
    /// num_complex's formulas): sqrt, exp, log, the trigonometric and
    /// hyperbolic functions and their inverses.
    pub fn complex(self) -> bool {
        use MathFn::*;
        matches!(
            self,
            Sqrt | Exp
                | Log
                | Sin
                | Cos
                | Tan
                | Asin
                | Acos
                | Atan
                | Sinh
                | Cosh
                | Tanh
                | Asinh
                | Acosh
                | Atanh
        )
    }
}

impl From<MathFn> for UnaryOp {
    fn from(f: MathFn) -> UnaryOp {
        UnaryOp::Math(f)
    }
}

/// A two-input map `(T, T) -> T`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BinaryOp {
    /// `a + b` (integers wrap).
    Add,
    /// `a - b` (integers wrap).
    Sub,
    /// `a * b` (integers wrap).
    Mul,
    /// `a / b`: true division for floats and complex; integers truncate toward
    /// zero, `MIN / -1 == MIN`; an integer zero divisor is `DivisionByZero`.
    Div,
    /// Remainder with the sign of the dividend (`fmod` for floats); an integer
    /// zero divisor is `DivisionByZero`; `MIN % -1 == 0`.
    Rem,
    /// `a ** b` (floats `powf`; integers wrap, a negative exponent is an error;
    /// complex: NumPy's `npy_cpow`, `exp(b ln a)` but small integer powers by
    /// repeated multiplication).
    Pow,
    /// Larger of the two; NaN if either is NaN.
    Max,
    /// Smaller of the two; NaN if either is NaN.
    Min,
    /// 1 if both are non-zero, else 0.
    LogicalAnd,
    /// 1 if either is non-zero, else 0.
    LogicalOr,
    /// 1 if exactly one is non-zero, else 0.
    LogicalXor,
    /// Bitwise and (integers).
    BitAnd,
    /// Bitwise or (integers).
    BitOr,
    /// Bitwise xor (integers).
    BitXor,
    /// `a << b` (integers; wraps; `b >= width` gives 0; negative `b` is an error).
    Shl,
    /// `a / 2^b` truncating toward zero (integers; `b >= width` gives 0;
    /// negative `b` is an error).
    Shr,
    /// atan2(a, b): the angle of the point (b, a) (floats).
    Atan2,
    /// √(a² + b²) without overflow or underflow (floats).
    Hypot,
}

impl BinaryOp {
    /// The user-facing name (the `Tensor` method), used in error messages.
    pub fn name(self) -> &'static str {
        use BinaryOp::*;
        match self {
            Add => "add",
            Sub => "sub",
            Mul => "mul",
            Div => "div",
            Rem => "rem",
            Pow => "pow",
            Max => "maximum",
            Min => "minimum",
            LogicalAnd => "logical_and",
            LogicalOr => "logical_or",
            LogicalXor => "logical_xor",
            BitAnd => "bitwise_and",
            BitOr => "bitwise_or",
            BitXor => "bitwise_xor",
            Shl => "lshift",
            Shr => "rshift",
            Atan2 => "atan2",
            Hypot => "hypot",
        }
    }
    /// Whether the op is defined for `dt`.
    pub fn supports(self, dt: DType) -> bool {
        use BinaryOp::*;
        match self {
            Add | Sub | Mul | Div => class(dt, true, true, true),
            Pow => class(dt, true, true, true),
            Rem | Max | Min | LogicalAnd | LogicalOr | LogicalXor => class(dt, true, false, true),
            BitAnd | BitOr | BitXor | Shl | Shr => dt.is_int(),
            Atan2 | Hypot => dt.is_float(),
        }
    }
}

/// A comparison `(T, T) -> u8` (1 true, 0 false). NaN compares unequal to all.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CmpOp {
    /// `a == b`
    Eq,
    /// `a != b`
    Ne,
    /// `a < b`
    Lt,
    /// `a <= b`
    Le,
    /// `a > b`
    Gt,
    /// `a >= b`
    Ge,
}

impl CmpOp {
    /// Whether the comparison is defined for `dt` (equality for every dtype,
    /// ordering for real and integer dtypes).
    pub fn supports(self, dt: DType) -> bool {
        matches!(self, CmpOp::Eq | CmpOp::Ne) || !dt.is_complex()
    }
    /// The seed's name (`eq`, `lt`, ...).
    pub fn name(self) -> &'static str {
        match self {
            CmpOp::Eq => "eq",
            CmpOp::Ne => "ne",
            CmpOp::Lt => "lt",
            CmpOp::Le => "le",
            CmpOp::Gt => "gt",
            CmpOp::Ge => "ge",
        }
    }
}

/// A classification `T -> u8` (real and integer dtypes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClassOp {
    /// NaN (integers: never).
    IsNan,
    /// ±infinity (integers: never).
    IsInf,
    /// Neither NaN nor infinite (integers: always).
    IsFinite,
}

/// A three-input map `(T, T, T) -> T`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TernaryOp {
    /// `clamp(x, lo, hi) = min(max(x, lo), hi)`; NaN in any input gives NaN
    /// (real and integer dtypes).
    Clamp,
    /// `lerp(a, b, w) = a + w * (b - a)` (floats).
    Lerp,
}

impl TernaryOp {
    /// Whether the op is defined for `dt`.
    pub fn supports(self, dt: DType) -> bool {
        match self {
            TernaryOp::Clamp => class(dt, true, false, true),
            TernaryOp::Lerp => dt.is_float(),
        }
    }
}

/// Elementwise maps. See the module docs for the contract.
pub trait ElementwiseBackend {
    /// `out = op(x)`.
    fn unary(&self, op: UnaryOp, x: &Tensor, out: &Tensor) -> Result<()>;
    /// `out = op(a, b)`.
    fn binary(&self, op: BinaryOp, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<()>;
    /// `out (u8) = op(a, b)`.
    fn compare(&self, op: CmpOp, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<()>;
    /// `out (u8) = op(x)`.
    fn classify(&self, op: ClassOp, x: &Tensor, out: &Tensor) -> Result<()>;
    /// `out = if mask != 0 { a } else { b }` (`mask` is u8).
    fn select(&self, mask: &Tensor, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<()>;
    /// `out = op(a, b, c)`.
    fn ternary(
        &self,
        op: TernaryOp,
        a: &Tensor,
        b: &Tensor,
        c: &Tensor,
        out: &Tensor,
    ) -> Result<()>;
}
