//! The elementwise family of backend primitives: unary, binary, comparison,
//! classification, selection and ternary maps, with the op enums they take.
//! Ops carry their parameters (`UnaryOp::LeakyRelu { slope }` style), so every
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

use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

/// Dtype classes an op accepts.
fn class(dt: DType, float: bool, complex: bool, int: bool) -> bool {
    (float && dt.is_float()) || (complex && dt.is_complex()) || (int && dt.is_int())
}

/// A one-input map `T -> T` (`Abs` of a complex input gives its real dtype).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum UnaryOp {
    /// `-x` (integers wrap: `-MIN == MIN`; unsigned `-x == 0 - x` wrapping).
    Neg,
    /// `|x|` (integers wrap: `abs(MIN) == MIN`; complex: the modulus, real dtype).
    Abs,
    /// -1, 0 or 1 (NaN stays NaN; unsigned: 1 for non-zero).
    Sign,
    /// `x * x` (integers wrap).
    Square,
    /// `1 / x` (floats and complex).
    Recip,
    /// 1 where `x == 0`, else 0.
    LogicalNot,
    /// `!x` (integers).
    BitNot,
    // ----- math functions and activations (floats; `Sqrt` also complex) -----
    /// √x (complex: principal branch).
    Sqrt,
    /// 1/√x.
    Rsqrt,
    /// eˣ.
    Exp,
    /// 2ˣ.
    Exp2,
    /// eˣ − 1.
    Expm1,
    /// ln x.
    Log,
    /// log₂ x.
    Log2,
    /// ln(1 + x).
    Log1p,
    /// sin x.
    Sin,
    /// cos x.
    Cos,
    /// tan x.
    Tan,
    /// arcsin x.
    Asin,
    /// arccos x.
    Acos,
    /// arctan x.
    Atan,
    /// sinh x.
    Sinh,
    /// cosh x.
    Cosh,
    /// tanh x.
    Tanh,
    /// arsinh x.
    Asinh,
    /// arcosh x.
    Acosh,
    /// artanh x.
    Atanh,
    /// Round toward zero.
    Trunc,
    /// Round up.
    Ceil,
    /// Round down.
    Floor,
    /// Round half away from zero.
    Round,
    /// erf x.
    Erf,
    /// max(x, 0).
    Relu,
    /// min(max(x, 0), 6).
    Relu6,
    /// 1/(1 + e⁻ˣ) (sign-dependent stable form).
    Sigmoid,
    /// x·sigmoid(x).
    Silu,
    /// clamp(alpha·x + beta, 0, 1).
    HardSigmoid { alpha: f64, beta: f64 },
    /// x·hard_sigmoid(x) (alpha 1/6, beta 1/2).
    HardSilu,
    /// ln(1 + eˣ) without overflow.
    Softplus,
    /// ln(sigmoid(x)), stable.
    LogSigmoid,
    /// x if x > 0 else slope·x.
    LeakyRelu { slope: f64 },
    /// clamp(x, −1, 1).
    HardTanh,
    /// x if x > 0 else alpha·(eˣ − 1).
    Elu { alpha: f64 },
    /// Scaled ELU (fixed α, λ).
    Selu,
    /// Tanh-approximate GELU (constants in the input precision).
    Gelu,
    /// Exact (erf) GELU.
    GeluErf,
    /// x/(1 + |x|).
    Softsign,
    /// x·tanh(softplus(x)).
    Mish,
    /// Complex conjugate `re - i·im`; the identity for real and integer dtypes.
    Conj,
}

impl UnaryOp {
    /// Whether the op is defined for `dt`.
    pub fn supports(self, dt: DType) -> bool {
        use UnaryOp::*;
        match self {
            Neg | Abs | Square | Conj => class(dt, true, true, true),
            Sign | LogicalNot => class(dt, true, false, true),
            Recip => class(dt, true, true, false),
            BitNot => dt.is_int(),
            Sqrt => class(dt, true, true, false),
            _ => dt.is_float(),
        }
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
    /// `a ** b` (floats `powf`; integers wrap, a negative exponent is an error).
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
            Rem | Pow | Max | Min | LogicalAnd | LogicalOr | LogicalXor => {
                class(dt, true, false, true)
            }
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
