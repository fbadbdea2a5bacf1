// rnx's f64 WGSL library: trunc, floor, ceil and round (half away from zero,
// as the CPU's `f64::round`) on the bits, exact for every f64 (signed zeros
// kept, integers, infinities and NaN returned as they are). Needs
// SHADER_F64 and SHADER_INT64.

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
  let k = i32(kf);
  let hi = x - kf * bitcast<f64>(0x3fe62e42fee00000lu);
  let lo = kf * bitcast<f64>(0x3dea39ef35793c76lu);
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

// y 2^k for y in [0.5, 2) and a normal finite result: the exponent bits plus k.
fn sc64(y: f64, k: i32) -> f64 {
  let b = bitcast<u64>(y);
  if (k >= 0) { return bitcast<f64>(b + (u64(u32(k)) << 52u)); }
  return bitcast<f64>(b - (u64(u32(-k)) << 52u));
}

// log (fdlibm's e_log.c): x = 2^k (1 + f), 1 + f in [sqrt(2)/2, sqrt(2));
// log(1 + f) = f - (f^2/2 - s (f^2/2 + R(s^2))), s = f / (2 + f); plus k ln2
// as k ln2_hi (exact) + k ln2_lo.
fn m64_log(x0: f64) -> f64 {
  if (is_nan64(x0)) { return x0; }
  if (x0 < f64(0.0)) { return bitcast<f64>(0x7ff8000000000000lu); }
  if (x0 == f64(0.0)) { return bitcast<f64>(0xfff0000000000000lu); }
  if (is_inf64(x0)) { return x0; }
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
  let f = m - f64(1.0);
  let s = f / (f64(2.0) + f);
  let dk = f64(k);
  let z = s * s;
  let w = z * z;
  let t1 = w * (bitcast<f64>(0x3fd999999997fa04lu) + w * (bitcast<f64>(0x3fcc71c51d8e78aflu)
    + w * bitcast<f64>(0x3fc39a09d078c69flu)));
  let t2 = z * (bitcast<f64>(0x3fe5555555555593lu) + w * (bitcast<f64>(0x3fd2492494229359lu)
    + w * (bitcast<f64>(0x3fc7466496cb03delu) + w * bitcast<f64>(0x3fc2f112df3e5244lu))));
  let r = t2 + t1;
  let hfsq = f64(0.5) * f * f;
  return dk * bitcast<f64>(0x3fe62e42fee00000lu)
    - ((hfsq - (s * (hfsq + r) + dk * bitcast<f64>(0x3dea39ef35793c76lu))) - f);
}
