//! Casts to a float dtype that WGSL cannot do with one promised rounding —
//! f64 -> f32/f16/bf16, and integers into floats too narrow for all their
//! values — done in 64-bit integer arithmetic: the source as sign, integer
//! significand and exponent, rounded once to nearest-even into the target's
//! bits (subnormals, overflow to infinity), the same values as the CPU's
//! one-rounding casts. Needs SHADER_INT64 on the adapter (the caller falls
//! back to the CPU round trip without it).

use crate::dtype::DType;

/// WGSL helpers: the rounding of `(-1)^s * m * 2^e` into a float of `mb`
/// mantissa and `eb` exponent bits, ties to even, as the target's bits.
const ROUND_WGSL: &str = r#"
fn top64(m: u64) -> i32 {
  let hi = u32(m >> 32u);
  if (hi != 0u) { return 63 - i32(countLeadingZeros(hi)); }
  return 31 - i32(countLeadingZeros(u32(m)));
}
fn round_bits(s: u32, m: u64, e: i32, mb: u32, eb: u32) -> u64 {
  let sign = u64(s) << (mb + eb);
  let inf = ((1lu << eb) - 1lu) << mb;
  if (m == 0lu) { return sign; }
  let bias = i32((1u << (eb - 1u)) - 1u);
  let emin = 1 - bias;
  let big = top64(m) + e;
  if (big > bias) { return sign | inf; }
  let lsb = max(big, emin) - i32(mb);
  let shift = lsb - e;
  var q = 0lu;
  if (shift <= 0) {
    q = m << u32(-shift);
  } else if (shift <= 64) {
    var rem = m;
    var half = 1lu << 63u;
    if (shift < 64) {
      q = m >> u32(shift);
      rem = m & ((1lu << u32(shift)) - 1lu);
      half = 1lu << u32(shift - 1);
    }
    if (rem > half || (rem == half && (q & 1lu) == 1lu)) { q = q + 1lu; }
  }
  var bits = q;
  if (big >= emin) { bits = bits + (u64(u32(big + bias - 1)) << mb); }
  return sign | min(bits, inf);
}
fn i64_bits_to(v: i64, mb: u32, eb: u32) -> u64 {
  let neg = v < 0li;
  return round_bits(select(0u, 1u, neg), select(u64(v), ~u64(v) + 1lu, neg), 0, mb, eb);
}
fn i32_bits_to(v: i32, mb: u32, eb: u32) -> u64 {
  let neg = v < 0i;
  let m = select(u32(v), ~u32(v) + 1u, neg);
  return round_bits(select(0u, 1u, neg), u64(m), 0, mb, eb);
}
fn u64_bits_to(v: u64, mb: u32, eb: u32) -> u64 {
  return round_bits(0u, v, 0, mb, eb);
}
"#;

/// The f64 source's decomposition (only in shaders that use f64).
const F64_WGSL: &str = r#"
fn f64_bits_to(x: f64, mb: u32, eb: u32) -> u64 {
  let b = bitcast<u64>(x);
  let s = u32(b >> 63u);
  let ex = i32((b >> 52u) & 0x7fflu);
  let fr = b & 0xffffffffffffflu;
  if (ex == 0x7ff) {
    let inf = ((1lu << eb) - 1lu) << mb;
    var nan = 0lu;
    if (fr != 0lu) { nan = (1lu << (mb - 1u)) | (fr >> (52u - mb)); }
    return (u64(s) << (mb + eb)) | inf | nan;
  }
  if (ex == 0) { return round_bits(s, fr, -1074, mb, eb); }
  return round_bits(s, fr | (1lu << 52u), ex - 1075, mb, eb);
}
"#;

/// Mantissa and exponent bits of a float dtype, and the unsigned dtype its
/// bits are written as.
fn format(d: DType) -> Option<(u32, u32, DType)> {
    match d {
        DType::F64 => Some((52, 11, DType::U64)),
        DType::F32 => Some((23, 8, DType::U32)),
        DType::F16 => Some((10, 5, DType::U16)),
        DType::BF16 => Some((7, 8, DType::U16)),
        _ => None,
    }
}

/// For a cast `s -> d` into a float dtype: the helper functions, the WGSL
/// expression of the result's bits from the loaded value `x`, and the dtype
/// to write them as. `None` when `s` is not f64 or an integer, or `d` not a
/// float.
pub(crate) fn rounded_cast(s: DType, d: DType, x: &str) -> Option<(String, String, DType)> {
    let (mb, eb, bits) = format(d)?;
    let v = match s {
        DType::F64 => format!("f64_bits_to({x}, {mb}u, {eb}u)"),
        // Narrow signed sources are computed as i32: no conversion to i64
        // (whose sign extension some drivers get wrong).
        DType::I64 => format!("i64_bits_to({x}, {mb}u, {eb}u)"),
        _ if s.is_signed_int() => format!("i32_bits_to({x}, {mb}u, {eb}u)"),
        _ if s.is_int() => format!("u64_bits_to(u64({x}), {mb}u, {eb}u)"),
        _ => return None,
    };
    // Narrower bits are computed as u32 (sub-word stores keep the low bits).
    let expr = if bits == DType::U64 {
        v
    } else {
        format!("u32({v})")
    };
    let mut helpers = ROUND_WGSL.to_string();
    if s == DType::F64 {
        helpers.push_str(F64_WGSL);
    }
    Some((helpers, expr, bits))
}
