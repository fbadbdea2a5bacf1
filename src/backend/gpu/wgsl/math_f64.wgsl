// rnx's f64 WGSL library: trunc, floor, ceil and round (half away from zero,
// as the CPU's `f64::round`) on the bits, exact for every f64 (signed zeros
// kept, integers, infinities and NaN returned as they are); exp, exp2, expm1,
// log, log2, log1p, sinh, cosh, tanh, sin, cos, tan (|x| < 2^20), sigmoid,
// silu, softplus, log_sigmoid, gelu, mish, softsign, leaky_relu,
// hard_sigmoid, hard_silu, elu, selu, rsqrt, atan, asin, acos, asinh, acosh,
// atanh, erf, gelu_erf, and the binary pow, atan2, hypot and fmod after fdlibm and the
// CPU's formulas (no WGSL built-in: Vulkan has no f64 transcendentals), with
// the exponent scaled on the bits. Needs SHADER_F64 and SHADER_INT64; the
// kernel prelude's `is_nan64`/`is_inf64`.

fn r64_trunc(x: f64) -> f64 {
  let b = bitcast<u64>(x);
  let e = i32((b >> 52u) & 0x7fflu) - 1023;
  if (e >= 52) { return x; }
  if (e < 0) { return bitcast<f64>(b & 0x8000000000000000lu); }
  return bitcast<f64>(b & ~((1lu << u32(52 - e)) - 1lu));
}

fn r64_floor(x: f64) -> f64 {
  let t = r64_trunc(x);
  return select(t, t - f64(1.0), x < t);
}

fn r64_ceil(x: f64) -> f64 {
  let t = r64_trunc(x);
  return select(t, t + f64(1.0), x > t);
}

fn r64_round(x: f64) -> f64 {
  let t = r64_trunc(x);
  let d = x - t;
  if (d >= f64(0.5)) { return t + f64(1.0); }
  if (d <= f64(-0.5)) { return t - f64(1.0); }
  return t;
}

// 2^k for k in [-1022, 1023].
fn p2_64(k: i32) -> f64 {
  return bitcast<f64>(u64(u32(k + 1023)) << 52u);
}

// exp (fdlibm's e_exp.c): x = k ln2 + r, |r| <= ln2 / 2, with r carried as
// hi - lo (k ln2_hi exact); a rational approximation of exp(r); y 2^k.
fn m64_exp(x: f64) -> f64 {
  if (is_nan64(x)) { return x; }
  if (x > bitcast<f64>(0x40862e42fefa39eflu)) { return bitcast<f64>(0x7ff0000000000000lu); }
  if (x < bitcast<f64>(0xc0874910d52d3052lu)) { return f64(0.0); }
  let kf = r64_floor(x * bitcast<f64>(0x3ff71547652b82felu) + f64(0.5));
  let hi = x - kf * bitcast<f64>(0x3fe62e42fee00000lu);
  let lo = kf * bitcast<f64>(0x3dea39ef35793c76lu);
  return exp_k64(hi, lo, i32(kf));
}

// e^(hi - lo) 2^k for |hi - lo| <= ln2 / 2 (about), lo tiny against hi, and a
// result that is not past the largest finite f64 (fdlibm's e_exp.c kernel).
fn exp_k64(hi: f64, lo: f64, k: i32) -> f64 {
  let r = hi - lo;
  let t = r * r;
  let c = r - t * (f64(1.66666666666666019037e-01) + t * (f64(-2.77777777770155933842e-03)
    + t * (f64(6.61375632143793436117e-05) + t * (f64(-1.65339022054652515390e-06)
    + t * f64(4.13813679705723846039e-08)))));
  let y = f64(1.0) - ((lo - (r * c) / (f64(2.0) - c)) - hi);
  // Scaled on the exponent bits (exact; no constant products the driver
  // could fold into an overflow); subnormal results in one rounding after.
  if (k >= -1021) { return sc64(y, k); }
  return sc64(y, k + 1000) * p2_64(-1000);
}

// 2^x: x = k + t, k = round(x), |t| <= 1/2 exact; t ln2 = hi - lo with hi =
// th ln2_hi exact (th: t's top 21 bits, ln2_hi: 32 bits) and the rest in lo.
// Exact at integers.
fn m64_exp2(x: f64) -> f64 {
  if (is_nan64(x)) { return x; }
  if (x >= f64(1024.0)) { return bitcast<f64>(0x7ff0000000000000lu); }
  if (x < f64(-1075.0)) { return f64(0.0); }
  let kf = r64_floor(x + f64(0.5));
  let t = x - kf;
  let th = hi_half64(t);
  let tl = t - th;
  let hi = th * bitcast<f64>(0x3fe62e42fee00000lu);
  let lo = -(th * bitcast<f64>(0x3dea39ef35793c76lu) + tl * bitcast<f64>(0x3fe62e42fefa39eflu));
  return exp_k64(hi, lo, i32(kf));
}

// e^x - 1 (fdlibm's s_expm1.c): x = k ln2 + r (r carried as x - c), a
// rational approximation of e^r - 1 and the 2^k scaling arranged so that no
// cancellation loses bits.
fn m64_expm1(x0: f64) -> f64 {
  if (is_nan64(x0)) { return x0; }
  let hx = u32(bitcast<u64>(x0) >> 32u) & 0x7fffffffu;
  let neg = x0 < f64(0.0);
  if (hx >= 0x4043687au) {
    if (neg) { return f64(-1.0); }
    if (x0 > bitcast<f64>(0x40862e42fefa39eflu)) { return bitcast<f64>(0x7ff0000000000000lu); }
  }
  var x = x0;
  var c = f64(0.0);
  var k = 0;
  if (hx > 0x3fd62e42u) {
    var hi: f64;
    var lo: f64;
    if (hx < 0x3ff0a2b2u) {
      if (!neg) {
        hi = x - bitcast<f64>(0x3fe62e42fee00000lu);
        lo = bitcast<f64>(0x3dea39ef35793c76lu);
        k = 1;
      } else {
        hi = x + bitcast<f64>(0x3fe62e42fee00000lu);
        lo = -bitcast<f64>(0x3dea39ef35793c76lu);
        k = -1;
      }
    } else {
      k = i32(bitcast<f64>(0x3ff71547652b82felu) * x + select(f64(0.5), f64(-0.5), neg));
      let t = f64(k);
      hi = x - t * bitcast<f64>(0x3fe62e42fee00000lu);
      lo = t * bitcast<f64>(0x3dea39ef35793c76lu);
    }
    x = hi - lo;
    c = (hi - x) - lo;
  } else if (hx < 0x3c900000u) {
    return x;
  }
  let hfx = f64(0.5) * x;
  let hxs = x * hfx;
  let r1 = f64(1.0) + hxs * (f64(-3.33333333333331316428e-02) + hxs * (f64(1.58730158725481460165e-03)
    + hxs * (f64(-7.93650757867487942473e-05) + hxs * (f64(4.00821782732936239552e-06)
    + hxs * f64(-2.01099218183624371326e-07)))));
  let t = f64(3.0) - r1 * hfx;
  var e = hxs * ((r1 - t) / (f64(6.0) - x * t));
  if (k == 0) { return x - (x * e - hxs); }
  e = x * (e - c) - c;
  e = e - hxs;
  if (k == -1) { return f64(0.5) * (x - e) - f64(0.5); }
  if (k == 1) {
    if (x < f64(-0.25)) { return f64(-2.0) * (e - (x + f64(0.5))); }
    return f64(1.0) + f64(2.0) * (x - e);
  }
  if (k <= -2 || k > 56) {
    let y = f64(1.0) - (e - x);
    return sc64(y, k) - f64(1.0);
  }
  if (k < 20) {
    let y = (f64(1.0) - p2_64(-k)) - (e - x);
    return sc64(y, k);
  }
  let y = (x - (e + p2_64(-k))) + f64(1.0);
  return sc64(y, k);
}

// y 2^k for y in [0.5, 2) and a normal finite result: the exponent bits plus k.
fn sc64(y: f64, k: i32) -> f64 {
  let b = bitcast<u64>(y);
  if (k >= 0) { return bitcast<f64>(b + (u64(u32(k)) << 52u)); }
  return bitcast<f64>(b - (u64(u32(-k)) << 52u));
}

// e^x / 2 for 22 <= x <= 710.4758600739439 (sinh's and cosh's overflow
// threshold): exp's reduction with the halving in the exponent bits, so no
// product of two large halves (a driver may reassociate (h w) w into
// h (w w), which overflows: NVIDIA did).
fn exp_half64(x: f64) -> f64 {
  let kf = r64_floor(x * bitcast<f64>(0x3ff71547652b82felu) + f64(0.5));
  let hi = x - kf * bitcast<f64>(0x3fe62e42fee00000lu);
  let lo = kf * bitcast<f64>(0x3dea39ef35793c76lu);
  return exp_k64(hi, lo, i32(kf) - 1);
}

// x e^v for v < -37 (where 1 + e^v rounds to 1, so x sigmoid(v) is x e^v)
// and finite x of v's sign: e^v = y 2^k from exp's reduction, x y = m 2^e
// (m in [1, 2) with x's sign), and m 2^(k+e) in one rounding, so a subnormal
// e^v never multiplies x (it has lost bits by then). A signed zero where e^v
// rounds to zero (v <= -745.1332191019412, m64_exp's threshold), as the CPU's
// x sigmoid(v).
fn mul_exp64(x: f64, v: f64) -> f64 {
  if (v <= bitcast<f64>(0xc0874910d52d3052lu)) { return select(f64(0.0), bitcast<f64>(0x8000000000000000lu), x < f64(0.0)); }
  let kf = r64_floor(v * bitcast<f64>(0x3ff71547652b82felu) + f64(0.5));
  let hi = v - kf * bitcast<f64>(0x3fe62e42fee00000lu);
  let lo = kf * bitcast<f64>(0x3dea39ef35793c76lu);
  let p = x * exp_k64(hi, lo, 0);
  let b = bitcast<u64>(p);
  let e = i32(u32(b >> 52u) & 0x7ffu) - 1023;
  let m = bitcast<f64>((b & 0x800ffffffffffffflu) | 0x3ff0000000000000lu);
  let k = i32(kf) + e;
  if (k >= -1021) { return sc64(m, k); }
  return sc64(m, k + 1000) * p2_64(-1000);
}

// log (fdlibm's e_log.c): x = 2^k (1 + f), 1 + f in [sqrt(2)/2, sqrt(2));
// log(1 + f) = f - (f^2/2 - s (f^2/2 + R(s^2))), s = f / (2 + f); plus k ln2
// as k ln2_hi (exact) + k ln2_lo.
fn m64_log(x0: f64) -> f64 {
  if (is_nan64(x0)) { return x0; }
  if (x0 < f64(0.0)) { return bitcast<f64>(0x7ff8000000000000lu); }
  if (x0 == f64(0.0)) { return bitcast<f64>(0xfff0000000000000lu); }
  if (is_inf64(x0)) { return x0; }
  return log_sum64(log_parts64(x0));
}

// The parts of k ln2 + log(1 + f): hfsq = f^2 / 2 and r = s (hfsq + R(s^2)),
// s = f / (2 + f), so that log(1 + f) = f - hfsq + r.
struct Log64 { k: f64, f: f64, hfsq: f64, r: f64 }

fn log_fparts64(k: f64, f: f64) -> Log64 {
  let s = f / (f64(2.0) + f);
  let z = s * s;
  let w = z * z;
  let t1 = w * (bitcast<f64>(0x3fd999999997fa04lu) + w * (bitcast<f64>(0x3fcc71c51d8e78aflu)
    + w * bitcast<f64>(0x3fc39a09d078c69flu)));
  let t2 = z * (bitcast<f64>(0x3fe5555555555593lu) + w * (bitcast<f64>(0x3fd2492494229359lu)
    + w * (bitcast<f64>(0x3fc7466496cb03delu) + w * bitcast<f64>(0x3fc2f112df3e5244lu))));
  let hfsq = f64(0.5) * f * f;
  return Log64(k, f, hfsq, s * (hfsq + t2 + t1));
}

// The parts of log x for a positive finite x: x = 2^k (1 + f) with 1 + f in
// [sqrt(2)/2, sqrt(2)).
fn log_parts64(x0: f64) -> Log64 {
  var x = x0;
  var k = 0;
  if (x < bitcast<f64>(0x0010000000000000lu)) {
    x = x * bitcast<f64>(0x4350000000000000lu);
    k = -54;
  }
  let b = bitcast<u64>(x);
  k = k + i32((b >> 52u) & 0x7fflu) - 1023;
  var m = bitcast<f64>((b & 0xffffffffffffflu) | 0x3ff0000000000000lu);
  if (m > bitcast<f64>(0x3ff6a09e667f3bcdlu)) {
    m = m * f64(0.5);
    k = k + 1;
  }
  return log_fparts64(f64(k), m - f64(1.0));
}

// k ln2 + log(1 + f) from its parts.
fn log_sum64(p: Log64) -> f64 {
  return p.k * bitcast<f64>(0x3fe62e42fee00000lu)
    - ((p.hfsq - (p.r + p.k * bitcast<f64>(0x3dea39ef35793c76lu))) - p.f);
}

// log2 (FreeBSD's e_log2.c): log(1 + f) = f - hfsq + r split as hi (top 21
// bits) + lo, each times 1/ln2 in two parts, k added in extra precision.
// Exact at powers of two.
fn m64_log2(x: f64) -> f64 {
  if (is_nan64(x)) { return x; }
  if (x < f64(0.0)) { return bitcast<f64>(0x7ff8000000000000lu); }
  if (x == f64(0.0)) { return bitcast<f64>(0xfff0000000000000lu); }
  if (is_inf64(x)) { return x; }
  let p = log_parts64(x);
  let hi = hi_half64(p.f - p.hfsq);
  let lo = ((p.f - hi) - p.hfsq) + p.r;
  let vh = hi * bitcast<f64>(0x3ff7154765200000lu);
  var vl = (lo + hi) * bitcast<f64>(0x3de705fc2eefa200lu) + lo * bitcast<f64>(0x3ff7154765200000lu);
  let w = p.k + vh;
  vl = vl + ((p.k - w) + vh);
  return vl + w;
}

// log(1 + x) = k ln2 + log(1 + f): k from the rounded u = 1 + x (u 2^-k in
// [sqrt(2)/2, sqrt(2))), and f = (1 + x) 2^-k - 1 = x 2^-k + (2^-k - 1) with
// both terms exact, so f has one rounding (no error-free sum a driver could
// fold away). x itself (minus x^2/2) where |x| < 2^-29; log x past 2^53.
fn m64_log1p(x: f64) -> f64 {
  if (is_nan64(x)) { return x; }
  if (x < f64(-1.0)) { return bitcast<f64>(0x7ff8000000000000lu); }
  if (x == f64(-1.0)) { return bitcast<f64>(0xfff0000000000000lu); }
  if (is_inf64(x)) { return x; }
  let ax = abs(x);
  if (ax < bitcast<f64>(0x3e20000000000000lu)) {
    if (ax < bitcast<f64>(0x3c90000000000000lu)) { return x; }
    return x - x * x * f64(0.5);
  }
  if (x >= bitcast<f64>(0x4340000000000000lu)) { return log_sum64(log_parts64(x)); }
  let b = bitcast<u64>(f64(1.0) + x);
  var k = i32((b >> 52u) & 0x7fflu) - 1023;
  let m = bitcast<f64>((b & 0xffffffffffffflu) | 0x3ff0000000000000lu);
  if (m > bitcast<f64>(0x3ff6a09e667f3bcdlu)) { k = k + 1; }
  let p = p2_64(-k);
  return log_sum64(log_fparts64(f64(k), x * p + (p - f64(1.0))));
}

// 1 / (1 + e^-x) in the CPU's sign-dependent form: z = e^-|x|, (1 or z) / (1 + z).
fn m64_sigmoid(x: f64) -> f64 {
  let z = m64_exp(-abs(x));
  return select(z, f64(1.0), x >= f64(0.0)) / (f64(1.0) + z);
}

// x sigmoid(x), as x e^x below -37; -0 at -inf (as the CPU).
fn m64_silu(x: f64) -> f64 {
  if (x == bitcast<f64>(0xfff0000000000000lu)) { return bitcast<f64>(0x8000000000000000lu); }
  if (x < f64(-37.0)) { return mul_exp64(x, x); }
  return x * m64_sigmoid(x);
}

// max(x, 0) + log1p(e^-|x|), NaN kept.
fn m64_softplus(x: f64) -> f64 {
  if (is_nan64(x)) { return x; }
  return select(f64(0.0), x, x > f64(0.0)) + m64_log1p(m64_exp(-abs(x)));
}

// min(x, 0) - log1p(e^-|x|), NaN kept.
fn m64_log_sigmoid(x: f64) -> f64 {
  if (is_nan64(x)) { return x; }
  return select(f64(0.0), x, x < f64(0.0)) - m64_log1p(m64_exp(-abs(x)));
}

// tanh (fdlibm's s_tanh.c): +-1 past 22; 1 - 2 / (expm1(2|x|) + 2) for |x| >= 1;
// -t / (t + 2), t = expm1(-2|x|), below; x where |x| < 2^-55.
fn m64_tanh(x: f64) -> f64 {
  if (is_nan64(x)) { return x; }
  let ax = abs(x);
  var z: f64;
  if (ax >= f64(22.0)) {
    z = f64(1.0);
  } else if (ax < bitcast<f64>(0x3c80000000000000lu)) {
    return x;
  } else if (ax >= f64(1.0)) {
    let t = m64_expm1(ax + ax);
    z = f64(1.0) - f64(2.0) / (t + f64(2.0));
  } else {
    let t = m64_expm1(f64(-2.0) * ax);
    z = -t / (t + f64(2.0));
  }
  return select(z, -z, x < f64(0.0));
}

// sinh (fdlibm's e_sinh.c): from expm1(|x|) below 22, then e^|x| / 2 with
// the halving in the exponent (exp_half64) up to the overflow threshold.
fn m64_sinh(x: f64) -> f64 {
  if (is_nan64(x)) { return x; }
  let ax = abs(x);
  let h = select(f64(0.5), f64(-0.5), x < f64(0.0));
  if (ax < f64(22.0)) {
    if (ax < bitcast<f64>(0x3e30000000000000lu)) { return x; }
    let t = m64_expm1(ax);
    if (ax < f64(1.0)) { return h * (f64(2.0) * t - t * t / (t + f64(1.0))); }
    return h * (t + t / (t + f64(1.0)));
  }
  if (ax <= bitcast<f64>(0x408633ce8fb9f87dlu)) {
    let e = exp_half64(ax);
    return select(e, -e, x < f64(0.0));
  }
  return select(bitcast<f64>(0x7ff0000000000000lu), bitcast<f64>(0xfff0000000000000lu), x < f64(0.0));
}

// cosh (fdlibm's e_cosh.c): 1 + t^2 / (2 (1 + t)), t = expm1(|x|), below
// ln2 / 2; (e^|x| + e^-|x|) / 2 below 22; then e^|x| / 2 as sinh.
fn m64_cosh(x: f64) -> f64 {
  if (is_nan64(x)) { return x; }
  let ax = abs(x);
  if (ax < bitcast<f64>(0x3fd62e42fefa39eflu)) {
    let t = m64_expm1(ax);
    let w = f64(1.0) + t;
    if (ax < bitcast<f64>(0x3c80000000000000lu)) { return w; }
    return f64(1.0) + (t * t) / (w + w);
  }
  if (ax < f64(22.0)) {
    let t = m64_exp(ax);
    return f64(0.5) * t + f64(0.5) / t;
  }
  if (ax <= bitcast<f64>(0x408633ce8fb9f87dlu)) { return exp_half64(ax); }
  return bitcast<f64>(0x7ff0000000000000lu);
}

// x = n pi/2 + (y0 + y1) for |x| < 2^20 pi/2 (fdlibm's e_rem_pio2.c, medium
// case): n = round(x 2/pi), pi/2 in three 33-bit parts, each further part
// taken only when the previous subtraction cancelled. n's low two bits in
// `n`.
struct Rem64 { n: i32, y0: f64, y1: f64 }

fn rem_pio2_64(x: f64) -> Rem64 {
  let fnn = r64_floor(x * bitcast<f64>(0x3fe45f306dc9c883lu) + f64(0.5));
  var r = x - fnn * bitcast<f64>(0x3ff921fb54400000lu);
  var w = fnn * bitcast<f64>(0x3dd0b4611a626331lu);
  let j = i32((bitcast<u64>(x) >> 52u) & 0x7fflu);
  var y0 = r - w;
  var i = j - i32((bitcast<u64>(y0) >> 52u) & 0x7fflu);
  if (i > 16) {
    var t = r;
    w = fnn * bitcast<f64>(0x3dd0b4611a600000lu);
    r = t - w;
    w = fnn * bitcast<f64>(0x3ba3198a2e037073lu) - ((t - r) - w);
    y0 = r - w;
    i = j - i32((bitcast<u64>(y0) >> 52u) & 0x7fflu);
    if (i > 49) {
      t = r;
      w = fnn * bitcast<f64>(0x3ba3198a2e000000lu);
      r = t - w;
      w = fnn * bitcast<f64>(0x397b839a252049c1lu) - ((t - r) - w);
      y0 = r - w;
    }
  }
  return Rem64(i32(fnn) & 3, y0, (r - y0) - w);
}

// sin(x + y) for |x + y| <= pi/4, y tiny against x (fdlibm's k_sin.c).
fn ksin64(x: f64, y: f64) -> f64 {
  let z = x * x;
  let v = z * x;
  let r = bitcast<f64>(0x3f8111111110f8a6lu) + z * (bitcast<f64>(0xbf2a01a019c161d5lu)
    + z * (bitcast<f64>(0x3ec71de357b1fe7dlu) + z * (bitcast<f64>(0xbe5ae5e68a2b9ceblu)
    + z * bitcast<f64>(0x3de5d93a5acfd57clu))));
  return x - ((z * (f64(0.5) * y - v * r) - y) - v * bitcast<f64>(0xbfc5555555555549lu));
}

// cos(x + y) for |x + y| <= pi/4 (FreeBSD's k_cos.c).
fn kcos64(x: f64, y: f64) -> f64 {
  let z = x * x;
  let w = z * z;
  let r = z * (bitcast<f64>(0x3fa555555555554clu) + z * (bitcast<f64>(0xbf56c16c16c15177lu)
    + z * bitcast<f64>(0x3efa01a019cb1590lu))) + w * w * (bitcast<f64>(0xbe927e4f809c52adlu)
    + z * (bitcast<f64>(0x3e21ee9ebdb4b1c4lu) + z * bitcast<f64>(0xbda8fae9be8838d4lu)));
  let hz = f64(0.5) * z;
  let v = f64(1.0) - hz;
  return v + (((f64(1.0) - v) - hz) + (z * r - x * y));
}

// The reduced argument of sin/cos/tan: x itself where |x| <= pi/4 (n = 0).
fn trig_arg64(x: f64) -> Rem64 {
  if (abs(x) <= bitcast<f64>(0x3fe921fb54442d18lu)) { return Rem64(0, x, f64(0.0)); }
  return rem_pio2_64(x);
}

// sin, cos, tan of |x| < 2^20 (the caller sends larger arguments to the
// CPU): fdlibm's kernels on the reduced argument; tan = sin / cos of it.
fn m64_sin(x: f64) -> f64 {
  if (is_nan64(x) || is_inf64(x)) { return bitcast<f64>(0x7ff8000000000000lu); }
  if (abs(x) < bitcast<f64>(0x3e40000000000000lu)) { return x; }
  let a = trig_arg64(x);
  var s: f64;
  if ((a.n & 1) == 0) { s = ksin64(a.y0, a.y1); } else { s = kcos64(a.y0, a.y1); }
  return select(s, -s, a.n >= 2);
}

fn m64_cos(x: f64) -> f64 {
  if (is_nan64(x) || is_inf64(x)) { return bitcast<f64>(0x7ff8000000000000lu); }
  if (abs(x) < bitcast<f64>(0x3e40000000000000lu)) { return f64(1.0); }
  let a = trig_arg64(x);
  var c: f64;
  if ((a.n & 1) == 0) { c = kcos64(a.y0, a.y1); } else { c = ksin64(a.y0, a.y1); }
  return select(c, -c, a.n == 1 || a.n == 2);
}

fn m64_tan(x: f64) -> f64 {
  if (is_nan64(x) || is_inf64(x)) { return bitcast<f64>(0x7ff8000000000000lu); }
  if (abs(x) < bitcast<f64>(0x3e40000000000000lu)) { return x; }
  let a = trig_arg64(x);
  let s = ksin64(a.y0, a.y1);
  let c = kcos64(a.y0, a.y1);
  if ((a.n & 1) == 0) { return s / c; }
  return -c / s;
}

// Tanh-form GELU as the CPU: x sigmoid(2 c (x + k x^3)), c = sqrt(2/pi) and
// k = 0.044715 in f64 (the product k x^2 x + x unfused); -0 at -inf.
fn m64_gelu(x: f64) -> f64 {
  if (x == bitcast<f64>(0xfff0000000000000lu)) { return bitcast<f64>(0x8000000000000000lu); }
  let c = bitcast<f64>(0x3fe9884533d43651lu);
  let u = (c + c) * ((f64(0.044715) * x * x) * x + x);
  if (u < f64(-37.0)) { return mul_exp64(x, u); }
  return x * m64_sigmoid(u);
}

// x tanh(softplus(x)) in the CPU's form without overflow: z = e^-|x|; x >= 0:
// x (1 + 2z) / (1 + 2z + 2z^2); x < 0: x n / (n + 2), n = z (z + 2); -0 at -inf.
fn m64_mish(x: f64) -> f64 {
  if (x == bitcast<f64>(0xfff0000000000000lu)) { return bitcast<f64>(0x8000000000000000lu); }
  let z = m64_exp(-abs(x));
  let tp = f64(2.0) * z + f64(1.0);
  let pos = tp / ((f64(2.0) * z) * z + tp);
  let n = z * (z + f64(2.0));
  let neg = n / (n + f64(2.0));
  return x * select(neg, pos, x >= f64(0.0));
}

// x / (1 + |x|), +-1 at +-inf (as the CPU: correctly rounded sum and quotient).
fn m64_softsign(x: f64) -> f64 {
  if (is_inf64(x)) { return select(f64(1.0), f64(-1.0), x < f64(0.0)); }
  return x / (f64(1.0) + abs(x));
}

// x if x > 0 else slope x, NaN kept (the CPU's formula: exact).
fn m64_leaky_relu(x: f64, slope: f64) -> f64 {
  if (is_nan64(x)) { return x; }
  return select(slope * x, x, x > f64(0.0));
}

// clamp(alpha x + beta, 0, 1) with one rounding (fma, as the CPU where it
// has FMA; a driver may unfuse it, then an ULP of beta near the lower
// corner), NaN kept.
fn m64_hard_sigmoid(x: f64, alpha: f64, beta: f64) -> f64 {
  if (is_nan64(x)) { return x; }
  let y = fma(alpha, x, beta);
  return select(select(y, f64(0.0), y <= f64(0.0)), f64(1.0), y > f64(1.0));
}

// x hard_sigmoid(x, 1/6, 1/2); -0 at -inf (as the CPU).
fn m64_hard_silu(x: f64) -> f64 {
  if (x == bitcast<f64>(0xfff0000000000000lu)) { return bitcast<f64>(0x8000000000000000lu); }
  return x * m64_hard_sigmoid(x, bitcast<f64>(0x3fc5555555555555lu), f64(0.5));
}

// x if x > 0 else alpha (e^x - 1), NaN kept.
fn m64_elu(x: f64, alpha: f64) -> f64 {
  if (is_nan64(x)) { return x; }
  return select(alpha * m64_expm1(x), x, x > f64(0.0));
}

// lambda elu(x, alpha) with SELU's constants (the CPU's f64 values).
fn m64_selu(x: f64) -> f64 {
  return bitcast<f64>(0x3ff0cfabd6a91132lu) * m64_elu(x, bitcast<f64>(0x3ffac5afad782cf2lu));
}

// 1 / sqrt(x) (the CPU's formula); +-inf at +-0 whatever sign the driver's
// sqrt gives -0.
fn m64_rsqrt(x: f64) -> f64 {
  if (x == f64(0.0)) {
    return bitcast<f64>((bitcast<u64>(x) & 0x8000000000000000lu) | 0x7ff0000000000000lu);
  }
  return f64(1.0) / sqrt(x);
}

// fdlibm's atan polynomial on the reduced argument: s1 + s2 (s_atan.c).
fn atan_poly64(x: f64) -> f64 {
  let z = x * x;
  let w = z * z;
  let s1 = z * (bitcast<f64>(0x3fd555555555550dlu) + w * (bitcast<f64>(0x3fc24924920083fflu)
    + w * (bitcast<f64>(0x3fb745cdc54c206elu) + w * (bitcast<f64>(0x3fb10d66a0d03d51lu)
    + w * (bitcast<f64>(0x3fa97b4b24760deblu) + w * bitcast<f64>(0x3f90ad3ae322da11lu))))));
  let s2 = w * (bitcast<f64>(0xbfc999999998ebc4lu) + w * (bitcast<f64>(0xbfbc71c6fe231671lu)
    + w * (bitcast<f64>(0xbfb3b0f2af749a6dlu) + w * (bitcast<f64>(0xbfadde2d52defd9alu)
    + w * bitcast<f64>(0xbfa2b4442c6a6c2flu)))));
  return s1 + s2;
}

// fdlibm's s_atan.c: |x| reduced against atan(0.5), atan(1), atan(1.5) or
// atan(inf) (hi + lo parts), odd polynomial; signed zeros kept.
fn m64_atan(x0: f64) -> f64 {
  if (is_nan64(x0)) { return x0; }
  let ax = abs(x0);
  let neg = x0 < f64(0.0);
  if (ax >= bitcast<f64>(0x4410000000000000lu)) {
    let r = bitcast<f64>(0x3ff921fb54442d18lu) + bitcast<f64>(0x3c91a62633145c07lu);
    return select(r, -r, neg);
  }
  if (ax < bitcast<f64>(0x3fdc000000000000lu)) {
    if (ax < bitcast<f64>(0x3e40000000000000lu)) { return x0; }
    return x0 - x0 * atan_poly64(x0);
  }
  var x: f64;
  var hi: f64;
  var lo: f64;
  if (ax < bitcast<f64>(0x3fe6000000000000lu)) {
    hi = bitcast<f64>(0x3fddac670561bb4flu);
    lo = bitcast<f64>(0x3c7a2b7f222f65e2lu);
    x = (f64(2.0) * ax - f64(1.0)) / (f64(2.0) + ax);
  } else if (ax < bitcast<f64>(0x3ff3000000000000lu)) {
    hi = bitcast<f64>(0x3fe921fb54442d18lu);
    lo = bitcast<f64>(0x3c81a62633145c07lu);
    x = (ax - f64(1.0)) / (ax + f64(1.0));
  } else if (ax < bitcast<f64>(0x4003800000000000lu)) {
    hi = bitcast<f64>(0x3fef730bd281f69blu);
    lo = bitcast<f64>(0x3c7007887af0cbbdlu);
    x = (ax - f64(1.5)) / (f64(1.0) + f64(1.5) * ax);
  } else {
    hi = bitcast<f64>(0x3ff921fb54442d18lu);
    lo = bitcast<f64>(0x3c91a62633145c07lu);
    x = f64(-1.0) / ax;
  }
  let z = hi - ((x * atan_poly64(x) - lo) - x);
  return select(z, -z, neg);
}

// fdlibm's rational approximation of (asin(sqrt(t)) - sqrt(t)) / sqrt(t)^3
// (e_asin.c's p / q).
fn asin_rat64(t: f64) -> f64 {
  let p = t * (bitcast<f64>(0x3fc5555555555555lu) + t * (bitcast<f64>(0xbfd4d61203eb6f7dlu)
    + t * (bitcast<f64>(0x3fc9c1550e884455lu) + t * (bitcast<f64>(0xbfa48228b5688f3blu)
    + t * (bitcast<f64>(0x3f49efe07501b288lu) + t * bitcast<f64>(0x3f023de10dfdf709lu))))));
  let q = f64(1.0) + t * (bitcast<f64>(0xc0033a271c8a2d4blu) + t * (bitcast<f64>(0x40002ae59c598ac8lu)
    + t * (bitcast<f64>(0xbfe6066c1b8d0159lu) + t * bitcast<f64>(0x3fb3b8c5b12e9282lu))));
  return p / q;
}

// x with its low 32 bits cleared: 21 significant bits, so products of two
// such halves are exact (fdlibm's SET_LOW_WORD(x, 0) splits).
fn hi_half64(s: f64) -> f64 {
  return bitcast<f64>(bitcast<u64>(s) & 0xffffffff00000000lu);
}

// fdlibm's e_asin.c: the rational form below 0.5, pi/2 - 2 asin(sqrt((1 -
// |x|) / 2)) above (with the square root's error term below 0.975).
fn m64_asin(x: f64) -> f64 {
  if (is_nan64(x)) { return x; }
  let ax = abs(x);
  let pio2_hi = bitcast<f64>(0x3ff921fb54442d18lu);
  let pio2_lo = bitcast<f64>(0x3c91a62633145c07lu);
  if (ax >= f64(1.0)) {
    if (ax == f64(1.0)) { return x * pio2_hi + x * pio2_lo; }
    return bitcast<f64>(0x7ff8000000000000lu);
  }
  if (ax < f64(0.5)) {
    if (ax < bitcast<f64>(0x3e50000000000000lu)) { return x; }
    return x + x * asin_rat64(x * x);
  }
  let t = (f64(1.0) - ax) * f64(0.5);
  let s = sqrt(t);
  var r: f64;
  if (ax >= bitcast<f64>(0x3fef333300000000lu)) {
    r = pio2_hi - (f64(2.0) * (s + s * asin_rat64(t)) - pio2_lo);
  } else {
    let pio4_hi = bitcast<f64>(0x3fe921fb54442d18lu);
    let w = hi_half64(s);
    let c = (t - w * w) / (s + w);
    let p = f64(2.0) * s * asin_rat64(t) - (pio2_lo - f64(2.0) * c);
    let q = pio4_hi - f64(2.0) * w;
    r = pio4_hi - (p - q);
  }
  return select(r, -r, x < f64(0.0));
}

// fdlibm's e_acos.c: pi/2 - (x + x R(x^2)) below 0.5, pi - 2 asin(sqrt((1 +
// x) / 2)) below -0.5, 2 asin(sqrt((1 - x) / 2)) above 0.5.
fn m64_acos(x: f64) -> f64 {
  if (is_nan64(x)) { return x; }
  let ax = abs(x);
  let pio2_hi = bitcast<f64>(0x3ff921fb54442d18lu);
  let pio2_lo = bitcast<f64>(0x3c91a62633145c07lu);
  let pi = bitcast<f64>(0x400921fb54442d18lu);
  if (ax >= f64(1.0)) {
    if (x == f64(1.0)) { return f64(0.0); }
    if (x == f64(-1.0)) { return pi + f64(2.0) * pio2_lo; }
    return bitcast<f64>(0x7ff8000000000000lu);
  }
  if (ax < f64(0.5)) {
    if (ax < bitcast<f64>(0x3c60000100000000lu)) { return pio2_hi + pio2_lo; }
    return pio2_hi - (x - (pio2_lo - x * asin_rat64(x * x)));
  }
  if (x < f64(0.0)) {
    let z = (f64(1.0) + x) * f64(0.5);
    let s = sqrt(z);
    let w = asin_rat64(z) * s - pio2_lo;
    return pi - f64(2.0) * (s + w);
  }
  let z = (f64(1.0) - x) * f64(0.5);
  let s = sqrt(z);
  let df = hi_half64(s);
  let c = (z - df * df) / (s + df);
  let w = asin_rat64(z) * s + c;
  return f64(2.0) * (df + w);
}

// fdlibm's s_asinh.c on the library's log and log1p.
fn m64_asinh(x: f64) -> f64 {
  if (is_nan64(x) || is_inf64(x)) { return x; }
  let ax = abs(x);
  if (ax < bitcast<f64>(0x3e30000000000000lu)) { return x; }
  var w: f64;
  if (ax > bitcast<f64>(0x41b0000000000000lu)) {
    w = m64_log(ax) + bitcast<f64>(0x3fe62e42fefa39eflu);
  } else if (ax > f64(2.0)) {
    w = m64_log(f64(2.0) * ax + f64(1.0) / (sqrt(x * x + f64(1.0)) + ax));
  } else {
    let t = x * x;
    w = m64_log1p(ax + t / (f64(1.0) + sqrt(f64(1.0) + t)));
  }
  return select(w, -w, x < f64(0.0));
}

// fdlibm's e_acosh.c on the library's log and log1p; NaN below 1.
fn m64_acosh(x: f64) -> f64 {
  if (is_nan64(x)) { return x; }
  if (x < f64(1.0)) { return bitcast<f64>(0x7ff8000000000000lu); }
  if (x >= bitcast<f64>(0x41b0000000000000lu)) {
    if (is_inf64(x)) { return x; }
    return m64_log(x) + bitcast<f64>(0x3fe62e42fefa39eflu);
  }
  if (x == f64(1.0)) { return f64(0.0); }
  if (x > f64(2.0)) {
    return m64_log(f64(2.0) * x - f64(1.0) / (x + sqrt(x * x - f64(1.0))));
  }
  let t = x - f64(1.0);
  return m64_log1p(t + sqrt(f64(2.0) * t + t * t));
}

// fdlibm's e_atanh.c on the library's log1p: +-inf at +-1, NaN past.
fn m64_atanh(x: f64) -> f64 {
  if (is_nan64(x)) { return x; }
  let ax = abs(x);
  if (ax > f64(1.0)) { return bitcast<f64>(0x7ff8000000000000lu); }
  if (ax == f64(1.0)) {
    return bitcast<f64>((bitcast<u64>(x) & 0x8000000000000000lu) | 0x7ff0000000000000lu);
  }
  if (ax < bitcast<f64>(0x3e30000000000000lu)) { return x; }
  var t: f64;
  if (ax < f64(0.5)) {
    let t2 = ax + ax;
    t = f64(0.5) * m64_log1p(t2 + t2 * ax / (f64(1.0) - ax));
  } else {
    t = f64(0.5) * m64_log1p((ax + ax) / (f64(1.0) - ax));
  }
  return select(t, -t, x < f64(0.0));
}

// erf and erfc after fdlibm's s_erf.c (the libm crate's, which the CPU
// calls): a rational form below 0.84375, erf(1 + s) - c around 1, and
// exp(-z z - 0.5625) exp((z - x)(z + x) + R/S) / x beyond (z: x with its
// low 32 bits cleared, so z z is exact).
fn erfc_near1_64(ax: f64) -> f64 {
  let s = ax - f64(1.0);
  let p = bitcast<f64>(0xbf6359b8bef77538lu) + s * (bitcast<f64>(0x3fda8d00ad92b34dlu) + s * (bitcast<f64>(0xbfd7d240fbb8c3f1lu) + s * (bitcast<f64>(0x3fd45fca805120e4lu) + s * (bitcast<f64>(0xbfbc63983d3e28eclu) + s * (bitcast<f64>(0x3fa22a36599795eblu) + s * (bitcast<f64>(0xbf61bf380a96073flu)))))));
  let q = f64(1.0) + s * (bitcast<f64>(0x3fbb3e6618eee323lu) + s * (bitcast<f64>(0x3fe14af092eb6f33lu) + s * (bitcast<f64>(0x3fb2635cd99fe9a7lu) + s * (bitcast<f64>(0x3fc02660e763351flu) + s * (bitcast<f64>(0x3f8bedc26b51dd1clu) + s * (bitcast<f64>(0x3f888b545735151dlu)))))));
  return f64(1.0) - bitcast<f64>(0x3feb0ac160000000lu) - p / q;
}

// erfc(|x|) for 0.84375 <= |x| < 28.
fn erfc_far64(ax: f64) -> f64 {
  if (ax < bitcast<f64>(0x3ff4000000000000lu)) { return erfc_near1_64(ax); }
  let s = f64(1.0) / (ax * ax);
  var r: f64;
  var bs: f64;
  if (ax < bitcast<f64>(0x4006db6d00000000lu)) {
    r = bitcast<f64>(0xbf843412600d6435lu) + s * (bitcast<f64>(0xbfe63416e4ba7360lu) + s * (bitcast<f64>(0xc0251e0441b0e726lu) + s * (bitcast<f64>(0xc04f300ae4cba38dlu) + s * (bitcast<f64>(0xc0644cb184282266lu) + s * (bitcast<f64>(0xc067135cebccabb2lu) + s * (bitcast<f64>(0xc054526557e4d2f2lu) + s * (bitcast<f64>(0xc023a0efc69ac25clu))))))));
    bs = f64(1.0) + s * (bitcast<f64>(0x4033a6b9bd707687lu) + s * (bitcast<f64>(0x4061350c526ae721lu) + s * (bitcast<f64>(0x407b290dd58a1a71lu) + s * (bitcast<f64>(0x40842b1921ec2868lu) + s * (bitcast<f64>(0x407ad02157700314lu) + s * (bitcast<f64>(0x405b28a3ee48ae2clu) + s * (bitcast<f64>(0x401a47ef8e484a93lu) + s * (bitcast<f64>(0xbfaeeff2ee749a62lu)))))))));
  } else {
    r = bitcast<f64>(0xbf84341239e86f4alu) + s * (bitcast<f64>(0xbfe993ba70c285delu) + s * (bitcast<f64>(0xc031c209555f995alu) + s * (bitcast<f64>(0xc064145d43c5ed98lu) + s * (bitcast<f64>(0xc083ec881375f228lu) + s * (bitcast<f64>(0xc09004616a2e5992lu) + s * (bitcast<f64>(0xc07e384e9bdc383flu)))))));
    bs = f64(1.0) + s * (bitcast<f64>(0x403e568b261d5190lu) + s * (bitcast<f64>(0x40745cae221b9f0alu) + s * (bitcast<f64>(0x409802eb189d5118lu) + s * (bitcast<f64>(0x40a8ffb7688c246alu) + s * (bitcast<f64>(0x40a3f219cedf3be6lu) + s * (bitcast<f64>(0x407da874e79fe763lu) + s * (bitcast<f64>(0xc03670e242712d62lu))))))));
  }
  let z = hi_half64(ax);
  return m64_exp(-z * z - f64(0.5625)) * m64_exp((z - ax) * (z + ax) + r / bs) / ax;
}

// (erf(x) - x) / x below 0.84375: p / q of x^2.
fn erf_rat64(x: f64) -> f64 {
  let z = x * x;
  let r = bitcast<f64>(0x3fc06eba8214db68lu) + z * (bitcast<f64>(0xbfd4cd7d691cb913lu) + z * (bitcast<f64>(0xbf9d2a51dbd7194flu) + z * (bitcast<f64>(0xbf77a291236668e4lu) + z * (bitcast<f64>(0xbef8ead6120016aclu)))));
  let s = f64(1.0) + z * (bitcast<f64>(0x3fd97779cddadc09lu) + z * (bitcast<f64>(0x3fb0a54c5536cebalu) + z * (bitcast<f64>(0x3f74d022c4d36b0flu) + z * (bitcast<f64>(0x3f215dc9221c1a10lu) + z * (bitcast<f64>(0xbed09c4342a26120lu))))));
  return r / s;
}

fn m64_erf(x: f64) -> f64 {
  if (is_nan64(x)) { return x; }
  let ax = abs(x);
  if (ax < bitcast<f64>(0x3feb000000000000lu)) {
    if (ax < bitcast<f64>(0x3e30000000000000lu)) {
      return f64(0.125) * (f64(8.0) * x + bitcast<f64>(0x3ff06eba8214db69lu) * x);
    }
    return x + x * erf_rat64(x);
  }
  var y = f64(1.0) - bitcast<f64>(0x0010000000000000lu);
  if (ax < f64(6.0)) { y = f64(1.0) - erfc_far64(ax); }
  return select(y, -y, x < f64(0.0));
}

fn m64_erfc(x: f64) -> f64 {
  if (is_nan64(x)) { return x; }
  let ax = abs(x);
  let neg = x < f64(0.0);
  if (ax < bitcast<f64>(0x3feb000000000000lu)) {
    if (ax < bitcast<f64>(0x3c70000000000000lu)) { return f64(1.0) - x; }
    let y = erf_rat64(x);
    if (neg || ax < f64(0.25)) { return f64(1.0) - (x + x * y); }
    return f64(0.5) - (x - f64(0.5) + x * y);
  }
  if (ax < f64(28.0)) {
    let r = erfc_far64(ax);
    return select(r, f64(2.0) - r, neg);
  }
  let tiny = bitcast<f64>(0x0010000000000000lu);
  return select(tiny * tiny, f64(2.0) - tiny, neg);
}

// Exact GELU 0.5 x erfc(-x / sqrt(2)) (the CPU's form); -0 at -inf.
fn m64_gelu_erf(x: f64) -> f64 {
  if (x == bitcast<f64>(0xfff0000000000000lu)) { return bitcast<f64>(0x8000000000000000lu); }
  return f64(0.5) * x * m64_erfc(-x * bitcast<f64>(0x3fe6a09e667f3bcdlu));
}


// ---------------------------------------------------------------- binary

// fdlibm's e_atan2.c on m64_atan: the quadrant from the signs, pi - (z -
// pi_lo) and (z - pi_lo) - pi for x < 0; the special values of C's atan2.
fn m64_atan2(y: f64, x: f64) -> f64 {
  if (is_nan64(x) || is_nan64(y)) { return x + y; }
  let pi = bitcast<f64>(0x400921fb54442d18lu);
  let pi_lo = bitcast<f64>(0x3ca1a62633145c07lu);
  let pio2 = bitcast<f64>(0x3ff921fb54442d18lu);
  let pio4 = bitcast<f64>(0x3fe921fb54442d18lu);
  if (x == f64(1.0)) { return m64_atan(y); }
  let ny = (bitcast<u64>(y) >> 63u) != 0lu;
  let nx = (bitcast<u64>(x) >> 63u) != 0lu;
  let ay = abs(y);
  let ax = abs(x);
  if (y == f64(0.0)) {
    if (!nx) { return y; }
    return select(pi, -pi, ny);
  }
  if (x == f64(0.0)) { return select(pio2, -pio2, ny); }
  if (is_inf64(x)) {
    var r: f64;
    if (is_inf64(y)) {
      r = select(pio4, bitcast<f64>(0x4002d97c7f3321d2lu), nx);
    } else {
      r = select(f64(0.0), pi, nx);
    }
    return select(r, -r, ny);
  }
  if (is_inf64(y)) { return select(pio2, -pio2, ny); }
  let k = i32((bitcast<u64>(ay) >> 52u) & 0x7fflu) - i32((bitcast<u64>(ax) >> 52u) & 0x7fflu);
  var z: f64;
  if (k > 60) {
    return select(pio2, -pio2, ny);
  } else if (nx && k < -60) {
    z = f64(0.0);
  } else {
    z = m64_atan(abs(y / x));
  }
  if (!nx) { return select(z, -z, ny); }
  if (!ny) { return pi - (z - pi_lo); }
  return (z - pi_lo) - pi;
}

// sqrt(x^2 + y^2) after fdlibm's e_hypot.c: scaled by 2^-600 / 2^600 (or
// 2^1022 for subnormals) into the middle range, then the sum of squares from
// halves whose products are exact; inf if either is inf (also with a NaN).
fn m64_hypot(x: f64, y: f64) -> f64 {
  var a = abs(x);
  var b = abs(y);
  if (b > a) {
    let t = a;
    a = b;
    b = t;
  }
  if (is_inf64(a) || is_inf64(b)) { return bitcast<f64>(0x7ff0000000000000lu); }
  if (is_nan64(a) || is_nan64(b)) { return x + y; }
  let ea = i32(bitcast<u64>(a) >> 52u);
  let eb = i32(bitcast<u64>(b) >> 52u);
  if (ea - eb > 60) { return a + b; }
  var k = 0;
  if (ea > 0x5f3) {
    a = a * p2_64(-600);
    b = b * p2_64(-600);
    k = 600;
  }
  if (b == f64(0.0)) { return a * p2_64(k); }
  if (eb < 0x20b) {
    if (eb == 0) {
      a = a * p2_64(1022);
      b = b * p2_64(1022);
      k = k - 1022;
    } else {
      a = a * p2_64(600);
      b = b * p2_64(600);
      k = k - 600;
    }
  }
  var w = a - b;
  if (w > b) {
    let t1 = hi_half64(a);
    let t2 = a - t1;
    w = sqrt(t1 * t1 - (b * (-b) - t2 * (a + t1)));
  } else {
    let a2 = a + a;
    let y1 = hi_half64(b);
    let y2 = b - y1;
    let t1 = bitcast<f64>(bitcast<u64>(hi_half64(a)) + 0x0010000000000000lu);
    let t2 = a2 - t1;
    w = sqrt(t1 * y1 - (w * (-w) - (t1 * y2 + t2 * b)));
  }
  if (k != 0) { return w * p2_64(k); }
  return w;
}

// Leading zeros of a u64.
fn clz64(v: u64) -> u32 {
  let hi = u32(v >> 32u);
  if (hi != 0u) { return countLeadingZeros(hi); }
  return 32u + countLeadingZeros(u32(v & 0xfffffffflu));
}

// C fmod: x - trunc(x/y) y, exact (integer long division of the
// significands, one bit per step: at most 2098 steps).
fn m64_fmod(x: f64, y: f64) -> f64 {
  let ux = bitcast<u64>(x);
  let sx = ux & 0x8000000000000000lu;
  let ax = ux & 0x7ffffffffffffffflu;
  let ay = bitcast<u64>(y) & 0x7ffffffffffffffflu;
  if (ay == 0lu || ax >= 0x7ff0000000000000lu || ay > 0x7ff0000000000000lu) {
    return bitcast<f64>(0x7ff8000000000000lu);
  }
  if (ax < ay) { return x; }
  if (ax == ay) { return bitcast<f64>(sx); }
  var ex = i32(ax >> 52u);
  var ey = i32(ay >> 52u);
  var mx = (ax & 0xffffffffffffflu) | 0x10000000000000lu;
  var my = (ay & 0xffffffffffffflu) | 0x10000000000000lu;
  if (ex == 0) {
    let sh = clz64(ax) - 11u;
    mx = ax << sh;
    ex = 1 - i32(sh);
  }
  if (ey == 0) {
    let sh = clz64(ay) - 11u;
    my = ay << sh;
    ey = 1 - i32(sh);
  }
  for (; ex > ey; ex = ex - 1) {
    if (mx >= my) { mx = mx - my; }
    mx = mx << 1u;
  }
  if (mx >= my) { mx = mx - my; }
  if (mx == 0lu) { return bitcast<f64>(sx); }
  let sh = clz64(mx) - 11u;
  mx = mx << sh;
  ex = ex - i32(sh);
  if (ex > 0) {
    return bitcast<f64>(sx | (u64(u32(ex)) << 52u) | (mx & 0xffffffffffffflu));
  }
  return bitcast<f64>(sx | (mx >> u32(1 - ex)));
}

// The high and low 32-bit words of an f64, and one from a high word.
fn hw64(x: f64) -> i32 { return bitcast<i32>(u32(bitcast<u64>(x) >> 32u)); }
fn lw64(x: f64) -> u32 { return u32(bitcast<u64>(x) & 0xfffffffflu); }
fn with_hw64(x: f64, h: u32) -> f64 {
  return bitcast<f64>((u64(h) << 32u) | (bitcast<u64>(x) & 0xfffffffflu));
}

// |v| with the sign of s (on the bits: a compiler that ignores the sign of
// zeros would drop it from s * 0).
fn sgn64(s: f64, v: f64) -> f64 {
  let m = bitcast<u64>(v) & 0x7ffffffffffffffflu;
  return bitcast<f64>(select(m, m | 0x8000000000000000lu, s < f64(0.0)));
}

// x^y after fdlibm's e_pow.c (the `libm` crate's `pow`): log2|x| in two
// pieces (the first with 29 trailing zero bits), y log2|x| = n + y' in
// simulated extra precision, 2^n e^(y' ln 2); C99's special values, the
// sign for negative x and integer y. Its splits clear low words (bit
// masks), which a reassociating compiler cannot fold.
fn m64_pow(x: f64, y: f64) -> f64 {
  let hx = hw64(x);
  let lx = lw64(x);
  let hy = hw64(y);
  let ly = lw64(y);
  var ix = hx & 0x7fffffff;
  let iy = hy & 0x7fffffff;
  if ((u32(iy) | ly) == 0u) { return f64(1.0); }
  if (hx == 0x3ff00000 && lx == 0u) { return f64(1.0); }
  if (ix > 0x7ff00000 || (ix == 0x7ff00000 && lx != 0u) || iy > 0x7ff00000 || (iy == 0x7ff00000 && ly != 0u)) {
    return x + y;
  }
  // y an odd integer (1), an even one (2) or neither (0), where x < 0.
  var yisint = 0;
  if (hx < 0) {
    if (iy >= 0x43400000) {
      yisint = 2;
    } else if (iy >= 0x3ff00000) {
      let k = (iy >> 20u) - 0x3ff;
      if (k > 20) {
        let j = ly >> u32(52 - k);
        if ((j << u32(52 - k)) == ly) { yisint = 2 - i32(j & 1u); }
      } else if (ly == 0u) {
        let j = iy >> u32(20 - k);
        if ((j << u32(20 - k)) == iy) { yisint = 2 - (j & 1); }
      }
    }
  }
  if (ly == 0u) {
    if (iy == 0x7ff00000) {
      if (((ix - 0x3ff00000) | i32(lx)) == 0) { return f64(1.0); }
      if (ix >= 0x3ff00000) { return select(f64(0.0), y, hy >= 0); }
      return select(-y, f64(0.0), hy >= 0);
    }
    if (iy == 0x3ff00000) { return select(f64(1.0) / x, x, hy >= 0); }
    if (hy == 0x40000000) { return x * x; }
    if (hy == 0x3fe00000 && hx >= 0) { return sqrt(x); }
  }
  var ax = abs(x);
  if (lx == 0u && (ix == 0x7ff00000 || ix == 0 || ix == 0x3ff00000)) {
    var z = ax;
    if (hy < 0) { z = f64(1.0) / z; }
    if (hx < 0) {
      if (((ix - 0x3ff00000) | yisint) == 0) {
        z = bitcast<f64>(0x7ff8000000000000lu);
      } else if (yisint == 1) {
        z = -z;
      }
    }
    return z;
  }
  var s = f64(1.0);
  if (hx < 0) {
    if (yisint == 0) { return bitcast<f64>(0x7ff8000000000000lu); }
    if (yisint == 1) { s = f64(-1.0); }
  }
  let inf = bitcast<f64>(0x7ff0000000000000lu);
  var t1: f64;
  var t2: f64;
  if (iy > 0x41e00000) {
    if (iy > 0x43f00000) {
      if (ix <= 0x3fefffff) { return select(f64(0.0), inf, hy < 0); }
      if (ix >= 0x3ff00000) { return select(f64(0.0), inf, hy > 0); }
    }
    if (ix < 0x3fefffff) { return sgn64(s, select(f64(0.0), inf, hy < 0)); }
    if (ix > 0x3ff00000) { return sgn64(s, select(f64(0.0), inf, hy > 0)); }
    let t = ax - f64(1.0);
    let w = (t * t) * (f64(0.5) - t * (bitcast<f64>(0x3fd5555555555555lu) - t * f64(0.25)));
    let u = bitcast<f64>(0x3ff7154760000000lu) * t;
    let v = t * bitcast<f64>(0x3e54ae0bf85ddf44lu) - w * bitcast<f64>(0x3ff71547652b82felu);
    t1 = hi_half64(u + v);
    t2 = v - (t1 - u);
  } else {
    var n = 0;
    if (ix < 0x00100000) {
      ax = ax * bitcast<f64>(0x4340000000000000lu);
      n = n - 53;
      ix = hw64(ax);
    }
    n = n + ((ix >> 20u) - 0x3ff);
    let j = ix & 0x000fffff;
    var k = 0;
    ix = j | 0x3ff00000;
    if (j <= 0x3988e) {
      k = 0;
    } else if (j < 0xbb67a) {
      k = 1;
    } else {
      k = 0;
      n = n + 1;
      ix = ix - 0x00100000;
    }
    ax = with_hw64(ax, u32(ix));
    let bp = select(f64(1.0), f64(1.5), k == 1);
    let dp_h = select(f64(0.0), bitcast<f64>(0x3fe2b80340000000lu), k == 1);
    let dp_l = select(f64(0.0), bitcast<f64>(0x3e4cfdeb43cfd006lu), k == 1);
    let u = ax - bp;
    let v = f64(1.0) / (ax + bp);
    let ss = u * v;
    let s_h = hi_half64(ss);
    let t_hw = bitcast<f64>((u64(((u32(ix) >> 1u) | 0x20000000u) + 0x00080000u + (u32(k) << 18u))) << 32u);
    let t_l = ax - (t_hw - bp);
    let s_l = v * ((u - s_h * t_hw) - s_h * t_l);
    let s2 = ss * ss;
    var r = s2 * s2 * (bitcast<f64>(0x3fe3333333333303lu) + s2 * (bitcast<f64>(0x3fdb6db6db6fabfflu) + s2 * (bitcast<f64>(0x3fd55555518f264dlu) + s2 * (bitcast<f64>(0x3fd17460a91d4101lu) + s2 * (bitcast<f64>(0x3fcd864a93c9db65lu) + s2 * bitcast<f64>(0x3fca7e284a454eeflu))))));
    r = r + s_l * (s_h + ss);
    let sh2 = s_h * s_h;
    let th = hi_half64(f64(3.0) + sh2 + r);
    let tl = r - ((th - f64(3.0)) - sh2);
    let uu = s_h * th;
    let vv = s_l * th + tl * ss;
    let p_h = hi_half64(uu + vv);
    let p_l = vv - (p_h - uu);
    let z_h = bitcast<f64>(0x3feec709e0000000lu) * p_h;
    let z_l = bitcast<f64>(0xbe3e2fe0145b01f5lu) * p_h + p_l * bitcast<f64>(0x3feec709dc3a03fdlu) + dp_l;
    let t = f64(n);
    t1 = hi_half64(((z_h + z_l) + dp_h) + t);
    t2 = z_l - (((t1 - t) - dp_h) - z_h);
  }
  let y1 = hi_half64(y);
  let p_l = (y - y1) * t1 + y * t2;
  var p_h = y1 * t1;
  let z0 = p_l + p_h;
  var j = hw64(z0);
  let i = lw64(z0);
  if (j >= 0x40900000) {
    if (((j - 0x40900000) | i32(i)) != 0) { return sgn64(s, inf); }
    if (p_l + bitcast<f64>(0x3c971547652b82felu) > z0 - p_h) { return sgn64(s, inf); }
  } else if ((j & 0x7fffffff) >= 0x4090cc00) {
    if (((u32(j) - 0xc090cc00u) | i) != 0u) { return sgn64(s, f64(0.0)); }
    if (p_l <= z0 - p_h) { return sgn64(s, f64(0.0)); }
  }
  let ii = j & 0x7fffffff;
  var k = (ii >> 20u) - 0x3ff;
  var n = 0;
  if (ii > 0x3fe00000) {
    n = j + (0x00100000 >> u32(k + 1));
    k = ((n & 0x7fffffff) >> 20u) - 0x3ff;
    let t = bitcast<f64>(u64(u32(n & ~(0x000fffff >> u32(k)))) << 32u);
    n = ((n & 0x000fffff) | 0x00100000) >> u32(20 - k);
    if (j < 0) { n = -n; }
    p_h = p_h - t;
  }
  let t = hi_half64(p_l + p_h);
  let u = t * bitcast<f64>(0x3fe62e4300000000lu);
  let v = (p_l - (t - p_h)) * bitcast<f64>(0x3fe62e42fefa39eflu) + t * bitcast<f64>(0xbe205c610ca86c39lu);
  var z = u + v;
  let w = v - (z - u);
  let tt = z * z;
  let tz = z - tt * (bitcast<f64>(0x3fc555555555553elu) + tt * (bitcast<f64>(0xbf66c16c16bebd93lu) + tt * (bitcast<f64>(0x3f11566aaf25de2clu) + tt * (bitcast<f64>(0xbebbbd41c5d26bf1lu) + tt * bitcast<f64>(0x3e66376972bea4d0lu)))));
  let rr = (z * tz) / (tz - f64(2.0)) - (w + z * w);
  z = f64(1.0) - (rr - z);
  var jz = hw64(z) + (n << 20u);
  if ((jz >> 20u) <= 0) {
    // Subnormal: 2^n z with one rounding (z in [0.5, 2), n >= -1076).
    z = (z * p2_64(n + 54)) * bitcast<f64>(0x3c90000000000000lu);
  } else {
    z = with_hw64(z, u32(jz));
  }
  return sgn64(s, z);
}
