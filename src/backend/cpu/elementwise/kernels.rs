//! The per-op scalar functions of the CPU elementwise family: for each op enum
//! and number kind (float, integer, complex) the closure the engine maps.
//! Adding a unary float op = one arm in `float_unary` (plus `UnaryOp::supports`).
//! No iteration here (that is `engine.rs`), no argument validation (ops/).

use super::engine::{any, map1, map2, map3, GRAIN_CHEAP, GRAIN_COSTLY};
use super::num::{fmax, fmin, fsign, Flt, Int};
use crate::backend::elementwise::{BinaryOp, TernaryOp, UnaryOp};
use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use num_complex::Complex;
use num_traits::{Float, One, Zero};

/// The error of a unary op on a dtype it does not take.
fn unsupported_unary(op: UnaryOp, t: &Tensor) -> Error {
    Error::dtype(&op.name(), t.dtype())
}

fn unsupported(op: impl std::fmt::Debug, t: &Tensor) -> Error {
    Error::dtype(&format!("{op:?}").to_lowercase(), t.dtype())
}

// ----- unary -----

/// `out = op(x)` for a float dtype `T` (halves computed in f32).
pub fn float_unary<T: Flt>(op: UnaryOp, x: &Tensor, out: &Tensor) -> Result<()> {
    use UnaryOp::*;
    macro_rules! go {
        ($grain:expr, $f:expr) => {{
            let g = $f;
            // SAFETY: element types are the tensors' (dispatch); frontend contract.
            unsafe { map1::<T, T, _>(out, x, $grain, move |v: T| T::st(g(v.ld()))) };
        }};
    }
    let zero = <T::C as Zero>::zero();
    let one = <T::C as One>::one();
    match op {
        Neg => go!(GRAIN_CHEAP, |v: T::C| -v),
        Conj => go!(GRAIN_CHEAP, |v: T::C| v),
        Abs => go!(GRAIN_CHEAP, |v: T::C| v.abs()),
        Sign => go!(GRAIN_CHEAP, fsign::<T::C>),
        Square => go!(GRAIN_CHEAP, |v: T::C| v * v),
        Recip => go!(GRAIN_CHEAP, move |v: T::C| one / v),
        LogicalNot => go!(GRAIN_CHEAP, move |v: T::C| if v == zero {
            one
        } else {
            zero
        }),
        BitNot => return Err(unsupported_unary(op, x)),
        // Math functions and activations: the vectorised vmath kernels.
        _ => return super::math::unary(op, x, out),
    }
    let _ = GRAIN_COSTLY;
    Ok(())
}

/// `out = op(x)` for an integer dtype `T` (wrapping): the ops whose result
/// bits depend on the sign (`Abs`, `Sign`); the others are
/// [`int_unary_bits`].
pub fn int_unary<T: Int>(op: UnaryOp, x: &Tensor, out: &Tensor) -> Result<()> {
    use UnaryOp::*;
    macro_rules! go {
        ($f:expr) => {{
            // SAFETY: element types are the tensors' (dispatch); frontend contract.
            unsafe { map1::<T, T, _>(out, x, GRAIN_CHEAP, $f) };
        }};
    }
    match op {
        Abs => go!(|v: T| v.wabs()),
        Sign => go!(|v: T| v.sign()),
        // The sign-free ops: `int_unary_bits` on the signed twin (dispatch).
        _ => return Err(unsupported_unary(op, x)),
    }
    Ok(())
}

/// `out = op(x)` for the integer ops whose result bits do not depend on the
/// sign (`Neg`, `Conj`, `Square`, `LogicalNot`, `BitNot`, wrapping): compiled
/// for the signed types, which unsigned tensors reach through their signed
/// twin (`super::sign_free_unary`), so each op's loop exists four times, not
/// eight.
pub fn int_unary_bits<T: Int>(op: UnaryOp, x: &Tensor, out: &Tensor) -> Result<()> {
    use UnaryOp::*;
    macro_rules! go {
        ($f:expr) => {{
            // SAFETY: element types are the tensors' (dispatch); frontend contract.
            unsafe { map1::<T, T, _>(out, x, GRAIN_CHEAP, $f) };
        }};
    }
    match op {
        Neg => go!(|v: T| v.wrapping_neg()),
        Conj => go!(|v: T| v),
        Square => go!(|v: T| v.wrapping_mul(&v)),
        LogicalNot => go!(|v: T| if v == <T as Element>::zero() {
            <T as Element>::one()
        } else {
            <T as Element>::zero()
        }),
        BitNot => go!(|v: T| !v),
        _ => return Err(unsupported_unary(op, x)),
    }
    Ok(())
}

/// `out = op(x)` for a complex dtype; `Abs` writes the real dtype `F`.
pub fn complex_unary<F>(op: UnaryOp, x: &Tensor, out: &Tensor) -> Result<()>
where
    F: Float + Element + Send + Sync,
    Complex<F>: Element,
{
    use UnaryOp::*;
    macro_rules! go {
        ($f:expr) => {{
            // SAFETY: element types are the tensors' (dispatch); frontend contract.
            unsafe { map1::<Complex<F>, Complex<F>, _>(out, x, GRAIN_CHEAP, $f) };
        }};
    }
    match op {
        Neg => go!(|v: Complex<F>| -v),
        Conj => go!(|v: Complex<F>| v.conj()),
        Square => go!(|v: Complex<F>| v * v),
        Recip => go!(|v: Complex<F>| Complex::new(<F as One>::one(), <F as Zero>::zero()) / v),
        MulI => go!(|v: Complex<F>| Complex::new(-v.im, v.re)),
        // NumPy 2's complex sign: z / |z|, 0 at 0 (NaN parts give NaN).
        Sign => go!(|v: Complex<F>| {
            let m = v.re.hypot(v.im);
            if m == <F as Zero>::zero() {
                Complex::new(<F as Zero>::zero(), <F as Zero>::zero())
            } else {
                Complex::new(v.re / m, v.im / m)
            }
        }),
        Math(f) => {
            use crate::backend::elementwise::MathFn as M;
            match f {
                M::Sqrt => go!(|v: Complex<F>| v.sqrt()),
                M::Exp => go!(|v: Complex<F>| v.exp()),
                M::Log => go!(|v: Complex<F>| v.ln()),
                M::Sin => go!(|v: Complex<F>| v.sin()),
                M::Cos => go!(|v: Complex<F>| v.cos()),
                M::Tan => go!(|v: Complex<F>| v.tan()),
                M::Asin => go!(|v: Complex<F>| v.asin()),
                M::Acos => go!(|v: Complex<F>| v.acos()),
                M::Atan => go!(|v: Complex<F>| v.atan()),
                M::Sinh => go!(|v: Complex<F>| v.sinh()),
                M::Cosh => go!(|v: Complex<F>| v.cosh()),
                M::Tanh => go!(|v: Complex<F>| v.tanh()),
                M::Asinh => go!(|v: Complex<F>| v.asinh()),
                M::Acosh => go!(|v: Complex<F>| v.acosh()),
                M::Atanh => go!(|v: Complex<F>| v.atanh()),
                _ => return Err(unsupported_unary(op, x)),
            }
        }
        // SAFETY: `out` has the real dtype `F` (frontend contract); as above.
        Abs => unsafe { map1::<Complex<F>, F, _>(out, x, GRAIN_CHEAP, |v| v.re.hypot(v.im)) },
        // SAFETY: as for `Abs`.
        Imag => unsafe { map1::<Complex<F>, F, _>(out, x, GRAIN_CHEAP, |v| v.im) },
        // SAFETY: as for `Abs`.
        Angle => unsafe { map1::<Complex<F>, F, _>(out, x, GRAIN_CHEAP, |v| v.im.atan2(v.re)) },
        _ => return Err(unsupported_unary(op, x)),
    }
    Ok(())
}

// ----- binary -----

/// `out = op(a, b)` for a float dtype.
pub fn float_binary<T: Flt>(op: BinaryOp, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<()> {
    use BinaryOp::*;
    macro_rules! go {
        ($grain:expr, $f:expr) => {{
            let g = $f;
            // SAFETY: element types are the tensors' (dispatch); frontend contract.
            unsafe {
                map2::<T, T, T, _>(out, a, b, $grain, move |x: T, y: T| {
                    T::st(g(x.ld(), y.ld()))
                })
            };
        }};
    }
    let zero = <T::C as Zero>::zero();
    let one = <T::C as One>::one();
    let truth = move |c: bool| if c { one } else { zero };
    match op {
        Add => go!(GRAIN_CHEAP, |x: T::C, y: T::C| x + y),
        Sub => go!(GRAIN_CHEAP, |x: T::C, y: T::C| x - y),
        Mul => go!(GRAIN_CHEAP, |x: T::C, y: T::C| x * y),
        Div => go!(GRAIN_CHEAP, |x: T::C, y: T::C| x / y),
        Rem => go!(GRAIN_COSTLY, |x: T::C, y: T::C| x % y),
        Pow => go!(GRAIN_COSTLY, |x: T::C, y: T::C| x.powf(y)),
        Max => go!(GRAIN_CHEAP, fmax::<T::C>),
        Min => go!(GRAIN_CHEAP, fmin::<T::C>),
        LogicalAnd => go!(GRAIN_CHEAP, move |x: T::C, y: T::C| truth(
            x != zero && y != zero
        )),
        LogicalOr => go!(GRAIN_CHEAP, move |x: T::C, y: T::C| truth(
            x != zero || y != zero
        )),
        LogicalXor => go!(GRAIN_CHEAP, move |x: T::C, y: T::C| truth(
            (x != zero) != (y != zero)
        )),
        BitAnd | BitOr | BitXor | Shl | Shr => return Err(unsupported(op, a)),
        Atan2 | Hypot => return super::math::binary(op, a, b, out),
    }
    Ok(())
}

/// `out = op(a, b)` for an integer dtype: the ops whose result bits depend on
/// the sign (the others are [`int_binary_bits`]). Zero divisors (Div, Rem),
/// negative shifts and negative exponents are reported before anything is
/// written.
pub fn int_binary<T: Int>(op: BinaryOp, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<()> {
    use BinaryOp::*;
    macro_rules! go {
        ($grain:expr, $f:expr) => {{
            // SAFETY: element types are the tensors' (dispatch); frontend contract.
            unsafe { map2::<T, T, T, _>(out, a, b, $grain, $f) };
        }};
    }
    let name = op.name().to_string();
    match op {
        Div | Rem if any::<T>(b, |v| v == <T as Element>::zero()) => {
            return Err(Error::DivisionByZero { op: name })
        }
        Shl | Shr | Pow if any::<T>(b, |v| v.is_negative()) => {
            let what = if op == Pow { "exponent" } else { "shift" };
            return Err(Error::invalid(
                &name,
                format!("negative {what} for integer dtype {}", a.dtype()),
            ));
        }
        _ => {}
    }
    match op {
        Div => go!(GRAIN_COSTLY, |x: T, y: T| x.tdiv(y)),
        Rem => go!(GRAIN_COSTLY, |x: T, y: T| x.trem(y)),
        Pow => go!(GRAIN_COSTLY, |x: T, y: T| x.wpow(y)),
        Max => go!(GRAIN_CHEAP, |x: T, y: T| if x > y { x } else { y }),
        Min => go!(GRAIN_CHEAP, |x: T, y: T| if x < y { x } else { y }),
        Shl => go!(GRAIN_CHEAP, |x: T, y: T| x.shl_by(y)),
        Shr => go!(GRAIN_CHEAP, |x: T, y: T| x.shr_by(y)),
        // The sign-free ops: `int_binary_bits` on the signed twin (dispatch).
        _ => return Err(unsupported(op, a)),
    }
    Ok(())
}

/// `out = op(a, b)` for the integer ops whose result bits do not depend on
/// the sign (wrapping `Add`, `Sub`, `Mul`, the bitwise and logical ops):
/// compiled for the signed types, which unsigned tensors reach through their
/// signed twin (`super::sign_free_binary`), so each op's loops exist four
/// times, not eight.
pub fn int_binary_bits<T: Int>(op: BinaryOp, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<()> {
    use BinaryOp::*;
    macro_rules! go {
        ($f:expr) => {{
            // SAFETY: element types are the tensors' (dispatch, or the signed
            // twin's: `bits_ptr`); frontend contract.
            unsafe { map2::<T, T, T, _>(out, a, b, GRAIN_CHEAP, $f) };
        }};
    }
    let truth = |c: bool| {
        if c {
            <T as Element>::one()
        } else {
            <T as Element>::zero()
        }
    };
    let z = <T as Element>::zero();
    match op {
        Add => go!(|x: T, y: T| x.wrapping_add(&y)),
        Sub => go!(|x: T, y: T| x.wrapping_sub(&y)),
        Mul => go!(|x: T, y: T| x.wrapping_mul(&y)),
        LogicalAnd => go!(move |x: T, y: T| truth(x != z && y != z)),
        LogicalOr => go!(move |x: T, y: T| truth(x != z || y != z)),
        LogicalXor => go!(move |x: T, y: T| truth((x != z) != (y != z))),
        BitAnd => go!(|x: T, y: T| x & y),
        BitOr => go!(|x: T, y: T| x | y),
        BitXor => go!(|x: T, y: T| x ^ y),
        _ => return Err(unsupported(op, a)),
    }
    Ok(())
}

/// `out = op(a, b)` for a complex dtype (add, sub, mul, div).
pub fn complex_binary<F>(op: BinaryOp, a: &Tensor, b: &Tensor, out: &Tensor) -> Result<()>
where
    F: Float + Element + Send + Sync,
    Complex<F>: Element,
{
    use BinaryOp::*;
    type C<F> = Complex<F>;
    macro_rules! go {
        ($f:expr) => {{
            // SAFETY: element types are the tensors' (dispatch); frontend contract.
            unsafe { map2::<C<F>, C<F>, C<F>, _>(out, a, b, GRAIN_CHEAP, $f) };
        }};
    }
    match op {
        Add => go!(|x: C<F>, y: C<F>| x + y),
        Sub => go!(|x: C<F>, y: C<F>| x - y),
        Mul => go!(|x: C<F>, y: C<F>| x * y),
        Div => go!(|x: C<F>, y: C<F>| x / y),
        Pow => go!(cpow::<F>),
        _ => return Err(unsupported(op, a)),
    }
    Ok(())
}

/// NumPy's complex power (`npy_cpow`): `x^0 = 1`; `0^y = 0` for `re y > 0`
/// (NaN otherwise); a real integer exponent of magnitude below 100 by
/// repeated squaring (exact where the products are, as NumPy); else
/// `exp(y ln x)`.
fn cpow<F>(x: Complex<F>, y: Complex<F>) -> Complex<F>
where
    F: Float,
{
    let zero = <F as Zero>::zero();
    let one = Complex::new(<F as One>::one(), zero);
    if y.re == zero && y.im == zero {
        return one;
    }
    if x.re == zero && x.im == zero {
        return if y.re > zero && y.im == zero {
            Complex::new(zero, zero)
        } else {
            Complex::new(F::nan(), F::nan())
        };
    }
    if y.im == zero && y.re == y.re.round() && y.re.abs() < F::from(100).expect("100") {
        let n = y.re.to_i32().expect("|n| < 100");
        let (mut acc, mut base, mut e) = (one, x, n.unsigned_abs());
        while e > 0 {
            if e & 1 == 1 {
                acc = acc * base;
            }
            base = base * base;
            e >>= 1;
        }
        return if n < 0 { one / acc } else { acc };
    }
    (y * x.ln()).exp()
}

// ----- ternary -----

/// `out = op(a, b, c)` for a float dtype.
pub fn float_ternary<T: Flt>(
    op: TernaryOp,
    a: &Tensor,
    b: &Tensor,
    c: &Tensor,
    out: &Tensor,
) -> Result<()> {
    macro_rules! go {
        ($f:expr) => {{
            let g = $f;
            // SAFETY: element types are the tensors' (dispatch); frontend contract.
            unsafe {
                map3::<T, T, T, T, _>(out, a, b, c, GRAIN_CHEAP, move |x: T, y: T, z: T| {
                    T::st(g(x.ld(), y.ld(), z.ld()))
                })
            };
        }};
    }
    match op {
        TernaryOp::Clamp => go!(|x: T::C, lo: T::C, hi: T::C| fmin(fmax(x, lo), hi)),
        TernaryOp::Lerp => go!(|x: T::C, y: T::C, w: T::C| x + w * (y - x)),
    }
    Ok(())
}

/// `out = op(a, b, c)` for an integer dtype (clamp).
pub fn int_ternary<T: Int>(
    op: TernaryOp,
    a: &Tensor,
    b: &Tensor,
    c: &Tensor,
    out: &Tensor,
) -> Result<()> {
    match op {
        TernaryOp::Clamp => {
            // SAFETY: element types are the tensors' (dispatch); frontend contract.
            unsafe {
                map3::<T, T, T, T, _>(out, a, b, c, GRAIN_CHEAP, |x: T, lo: T, hi: T| {
                    let y = if x < lo { lo } else { x };
                    if y > hi {
                        hi
                    } else {
                        y
                    }
                })
            };
            Ok(())
        }
        TernaryOp::Lerp => Err(unsupported(op, a)),
    }
}
