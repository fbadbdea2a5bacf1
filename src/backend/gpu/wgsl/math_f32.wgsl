// rnx's f32 math library for the GPU backend (included by math.rs after the
// kernel prelude, whose is_nan32/is_inf32 it uses). Every function is written
// with range reduction and polynomials in plain f32 arithmetic: no WGSL
// built-in transcendental is called (their precision is implementation
// defined). Besides + - * and integer operations only sqrt, division, round,
// trunc, fma, min/max/clamp, select and countLeadingZeros are used; fma is
// never relied on to be fused (Vulkan may split it).
//
// Rules that keep the code correct under drivers that reassociate float
// arithmetic (lavapipe's LLVM does): no "add and subtract a magic number"
// rounding (round() is used), no error-free transformations that a compiler
// could fold (a - (a - b)); splits into high and low parts are made with bit
// masks, and Cody-Waite products k*C1 are exact because C1 has few bits.
// Scalings by two constants in a row are written as one constant: the
// compiler folds (x*c1)*c2 into x*(c1*c2), which can overflow to inf.
// Subnormal inputs and results are handled as IEEE says; a GPU that flushes
// denormals flushes them here too. Accuracy per function: math.rs.

// ---------------------------------------------------------------- bits

fn m_nan() -> f32 { return bitcast<f32>(0x7fc00000u); }
fn m_inf() -> f32 { return bitcast<f32>(0x7f800000u); }
fn m_abs(x: f32) -> f32 { return bitcast<f32>(bitcast<u32>(x) & 0x7fffffffu); }
fn m_copysign(a: f32, s: f32) -> f32 {
  return bitcast<f32>((bitcast<u32>(a) & 0x7fffffffu) | (bitcast<u32>(s) & 0x80000000u));
}
fn m_is_zero(x: f32) -> bool { return (bitcast<u32>(x) & 0x7fffffffu) == 0u; }
fn m_is_neg_inf(x: f32) -> bool { return bitcast<u32>(x) == 0xff800000u; }
fn m_neg_zero() -> f32 { return bitcast<f32>(0x80000000u); }
// x with the low 12 significand bits cleared (x*x of the result is exact).
fn m_trunc12(x: f32) -> f32 { return bitcast<f32>(bitcast<u32>(x) & 0xfffff000u); }
// 2^k for -126 <= k <= 127.
fn m_pow2(k: i32) -> f32 { return bitcast<f32>(u32(k + 127) << 23u); }
// p * 2^k with one rounding (for p near 1 and |k| <= 250).
fn m_scale(p: f32, k: i32) -> f32 {
  var y = p;
  var n = k;
  if (n > 127) {
    y = y * m_pow2(127);
    n = n - 127;
    if (n > 127) {
      y = y * m_pow2(127);
      n = min(n - 127, 127);
    }
  }
  if (n < -126) {
    y = y * m_pow2(-100);
    n = n + 100;
    if (n < -126) {
      y = y * m_pow2(-100);
      n = max(n + 100, -126);
    }
  }
  return y * m_pow2(n);
}

// ---------------------------------------------------------------- exp family

const M_LOG2E: f32 = 1.4426950408889634;
// ln 2 = M_LN2_HI + M_LN2_LO; M_LN2_HI has 15 significant bits, so k * M_LN2_HI
// is exact for |k| < 512.
const M_LN2_HI: f32 = 0.693145751953125;
const M_LN2_LO: f32 = 1.428606765330187e-06;

// exp(x) = p * 2^k for |x| <= 110: returns (p, k), p in [0.7, 1.42].
fn m_exp_pk(x: f32) -> vec2<f32> {
  let k = round(x * M_LOG2E);
  let r1 = x - k * M_LN2_HI;
  let r = r1 - k * M_LN2_LO;
  // Taylor to degree 8 on |r| <= 0.35 (truncation < 2^-27).
  let q = 0.5 + r * (0.16666666666666666 + r * (0.041666666666666664 + r * (0.008333333333333333
    + r * (0.001388888888888889 + r * (0.0001984126984126984 + r * 2.48015873015873e-05)))));
  let p = 1.0 + (r + r * r * q);
  return vec2<f32>(p, k);
}

fn m_exp(x: f32) -> f32 {
  if (is_nan32(x)) { return x; }
  let pk = m_exp_pk(clamp(x, -110.0, 100.0));
  return m_scale(pk.x, i32(pk.y));
}

fn m_exp2(x: f32) -> f32 {
  if (is_nan32(x)) { return x; }
  let c = clamp(x, -160.0, 160.0);
  let k = round(c);
  let r = c - k;
  // 2^r = sum (r ln2)^n / n!, |r| <= 1/2 (truncation < 2^-32).
  let p = 1.0 + r * (0.6931471805599453 + r * (0.2402265069591007 + r * (0.055504108664821576
    + r * (0.009618129107628477 + r * (0.0013333558146428441 + r * (0.00015403530393381606
    + r * (1.5252733804059838e-05 + r * 1.3215486790144305e-06)))))));
  return m_scale(p, i32(k));
}

fn m_expm1(x: f32) -> f32 {
  if (is_nan32(x) || m_is_zero(x)) { return x; }
  if (x < -18.0) { return -1.0; }
  let c = min(x, 100.0);
  let k = round(c * M_LOG2E);
  let r1 = c - k * M_LN2_HI;
  let r = r1 - k * M_LN2_LO;
  let q = 0.5 + r * (0.16666666666666666 + r * (0.041666666666666664 + r * (0.008333333333333333
    + r * (0.001388888888888889 + r * (0.0001984126984126984 + r * 2.48015873015873e-05)))));
  let p = r + r * r * q;
  let ki = i32(k);
  if (ki == 0) { return p; }
  if (ki >= -24 && ki <= 24) {
    // 2^k - 1 is exact: one rounding of a sum.
    let t = m_pow2(ki);
    return t * p + (t - 1.0);
  }
  return m_scale(p + 1.0, ki) - 1.0;
}

// ---------------------------------------------------------------- log family

// Positive finite non-zero x = 2^k (1 + f) with 1 + f in [sqrt(1/2), sqrt(2)):
// returns (k, f), f exact.
fn m_split(x: f32) -> vec2<f32> {
  var u = bitcast<u32>(x);
  var k = 0;
  if (u < 0x00800000u) {
    u = bitcast<u32>(x * 8388608.0);
    k = -23;
  }
  var e = i32(u >> 23u) - 127;
  var mb = (u & 0x007fffffu) | 0x3f800000u;
  if (mb > 0x3fb504f3u) {
    mb = mb - 0x00800000u;
    e = e + 1;
  }
  return vec2<f32>(f32(k + e), bitcast<f32>(mb) - 1.0);
}

// k ln2 + ln(1 + f) for f in [sqrt(1/2) - 1, sqrt(2) - 1]: with s = f/(2 + f),
// ln(1 + f) = 2 atanh(s) = f - f^2/2 + s (f^2/2 + R(s^2)), R a Taylor series
// (truncation < 2^-30 relative).
fn m_log_kf(k: f32, f: f32) -> f32 {
  let s = f / (2.0 + f);
  let z = s * s;
  let r = z * (0.6666666666666666 + z * (0.4 + z * (0.2857142857142857 + z * (0.2222222222222222
    + z * (0.18181818181818182 + z * 0.15384615384615385)))));
  let hfsq = 0.5 * f * f;
  return k * M_LN2_HI - ((hfsq - (s * (hfsq + r) + k * M_LN2_LO)) - f);
}

// ln/log2 of NaN, zero, negative and +inf arguments: (result, 1), else (0, 0).
fn m_log_special(x: f32) -> vec2<f32> {
  let u = bitcast<u32>(x);
  if (is_nan32(x)) { return vec2<f32>(x, 1.0); }
  if ((u & 0x7fffffffu) == 0u) { return vec2<f32>(-m_inf(), 1.0); }
  if (u >= 0x80000000u) { return vec2<f32>(m_nan(), 1.0); }
  if (u == 0x7f800000u) { return vec2<f32>(x, 1.0); }
  return vec2<f32>(0.0, 0.0);
}

fn m_log(x: f32) -> f32 {
  let sp = m_log_special(x);
  if (sp.y != 0.0) { return sp.x; }
  let kf = m_split(x);
  return m_log_kf(kf.x, kf.y);
}

fn m_log2(x: f32) -> f32 {
  let sp = m_log_special(x);
  if (sp.y != 0.0) { return sp.x; }
  let kf = m_split(x);
  // ln(1 + f) = hi + lo with hi of 12 bits (by mask), so hi * 1/ln2 with the
  // 12-bit high part of 1/ln2 is exact; the rest is a small correction.
  let f = kf.y;
  let s = f / (2.0 + f);
  let z = s * s;
  let r = z * (0.6666666666666666 + z * (0.4 + z * (0.2857142857142857 + z * (0.2222222222222222
    + z * (0.18181818181818182 + z * 0.15384615384615385)))));
  let hfsq = 0.5 * f * f;
  let hi = m_trunc12(f - hfsq);
  let lo = ((f - hi) - hfsq) + s * (hfsq + r);
  return (lo + hi) * -1.7605291103661713e-04 + lo * 1.4428710938 + hi * 1.4428710938 + kf.x;
}

fn m_log1p(x: f32) -> f32 {
  if (is_nan32(x) || m_is_zero(x)) { return x; }
  if (x == -1.0) { return -m_inf(); }
  if (x < -1.0) { return m_nan(); }
  if (is_inf32(x)) { return x; }
  // k from the rounded 1 + x; f = (1 + x) 2^-k - 1 = x 2^-k + (2^-k - 1) with
  // both terms exact, so f has one rounding.
  let k = i32(m_split(1.0 + x).x);
  let xs = m_scale(x, -k);
  var c = -1.0;
  if (k < 25) { c = m_pow2(-k) - 1.0; }
  return m_log_kf(f32(k), xs + c);
}

// ---------------------------------------------------------------- trigonometric

// 32x32 -> 64-bit product as (hi, lo).
fn m_mul32(a: u32, b: u32) -> vec2<u32> {
  let a0 = a & 0xffffu;
  let a1 = a >> 16u;
  let b0 = b & 0xffffu;
  let b1 = b >> 16u;
  let p00 = a0 * b0;
  let p01 = a0 * b1;
  let p10 = a1 * b0;
  let p11 = a1 * b1;
  let mid = (p00 >> 16u) + (p01 & 0xffffu) + (p10 & 0xffffu);
  let lo = (mid << 16u) | (p00 & 0xffffu);
  let hi = p11 + (p01 >> 16u) + (p10 >> 16u) + (mid >> 16u);
  return vec2<u32>(hi, lo);
}

fn m_carry(sum: u32, a: u32) -> u32 { return select(0u, 1u, sum < a); }

// Payne-Hanek reduction in integer arithmetic, exact for every finite f32:
// x = (q + t) pi/2 with q an integer and |t| <= 1/2; returns (r_hi, r_lo, q mod 4)
// with r_hi + r_lo = t pi/2 to about 2^-48 relative. |x| <= pi/4 is returned as is.
fn m_rem_pio2(x: f32) -> vec3<f32> {
  let ux = bitcast<u32>(x);
  let ax = ux & 0x7fffffffu;
  if (ax < 0x3f490fdbu) { return vec3<f32>(x, 0.0, 0.0); }
  // Bits of 2/pi after 64 zero bits.
  var t = array<u32, 14>(0u, 0u, 0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u,
    0x3c439041u, 0xfe5163abu, 0xdebbc561u, 0xb7246e3au, 0x424dd2e0u, 0x06492eeau, 0x09d1921cu);
  let e = i32(ax >> 23u) - 127;
  let m = (ax & 0x7fffffu) | 0x800000u;
  // x = m 2^(e-23). A 128-bit window W of the table starting after bit
  // s = e + 9 makes bit 96 of m*W the units bit of x*2/pi; the bits before the
  // window only add multiples of 4.
  let s = u32(e + 9);
  let j = s >> 5u;
  let sh = s & 31u;
  var w: array<u32, 4>;
  for (var i = 0u; i < 4u; i = i + 1u) {
    let a = t[j + i];
    let b = t[j + i + 1u];
    w[i] = select((a << sh) | (b >> (32u - sh)), a, sh == 0u);
  }
  let p3 = m_mul32(m, w[3]);
  let p2 = m_mul32(m, w[2]);
  let p1 = m_mul32(m, w[1]);
  let p0lo = m * w[0];
  let l1 = p3.x + p2.y;
  let c1 = m_carry(l1, p3.x);
  let l2a = p2.x + p1.y;
  let c2a = m_carry(l2a, p2.x);
  let l2 = l2a + c1;
  let c2b = m_carry(l2, l2a);
  let l3 = p1.x + p0lo + c2a + c2b;
  var q = l3 & 3u;
  var fh = l2;
  var fl = l1;
  var neg = false;
  if (fh >= 0x80000000u) {
    // Fraction >= 1/2: next quadrant, t = fraction - 1.
    q = (q + 1u) & 3u;
    fl = ~fl + 1u;
    fh = ~fh + select(0u, 1u, fl == 0u);
    neg = true;
  }
  // H = floor(F * C / 2^64) with F = fh:fl (fraction * 2^64) and
  // C = pi/2 * 2^63, so r = H * 2^-63.
  let ch = 0xc90fdaa2u;
  let cl = 0x2168c235u;
  let a = m_mul32(fh, ch);
  let b = m_mul32(fh, cl);
  let c = m_mul32(fl, ch);
  let d = m_mul32(fl, cl);
  let m1 = b.y + c.y;
  let k1 = m_carry(m1, b.y);
  let m2 = m1 + d.x;
  let k2 = m_carry(m2, m1);
  let h1 = a.y + b.x;
  var hc = m_carry(h1, a.y);
  let h2 = h1 + c.x;
  hc = hc + m_carry(h2, h1);
  let h3 = h2 + k1 + k2;
  hc = hc + m_carry(h3, h2);
  let hh = a.x + hc;
  var lz = countLeadingZeros(hh);
  if (hh == 0u) { lz = 32u + countLeadingZeros(h3); }
  var n1 = hh;
  var n0 = h3;
  if (lz >= 32u) {
    n1 = h3 << (lz - 32u);
    n0 = 0u;
  } else if (lz > 0u) {
    n1 = (hh << lz) | (h3 >> (32u - lz));
    n0 = h3 << lz;
  }
  let hi24 = n1 >> 8u;
  let lo24 = ((n1 & 0xffu) << 16u) | (n0 >> 16u);
  let l = i32(min(lz, 64u));
  var rh = f32(hi24) * m_pow2(-23 - l);
  var rl = f32(lo24) * m_pow2(-47 - l);
  if (neg) {
    rh = -rh;
    rl = -rl;
  }
  if (ux >= 0x80000000u) {
    rh = -rh;
    rl = -rl;
    q = (4u - q) & 3u;
  }
  return vec3<f32>(rh, rl, f32(q));
}

// sin(x + y) for |x| <= pi/4, |y| <= 2^-20 |x| (Taylor to x^13, truncation < 2^-36).
fn m_sin_k(x: f32, y: f32) -> f32 {
  let z = x * x;
  let v = z * x;
  let p = -0.16666666666666666 + z * (0.008333333333333333 + z * (-0.0001984126984126984
    + z * (2.7557319223985893e-06 + z * (-2.505210838544172e-08 + z * 1.6059043836821613e-10))));
  return x + (v * p + y * (1.0 - 0.5 * z));
}

// cos(x + y) as m_sin_k; 1 - x^2/2 is split so that its rounding error is kept.
fn m_cos_k(x: f32, y: f32) -> f32 {
  let z = x * x;
  let p = z * z * (0.041666666666666664 + z * (-0.001388888888888889 + z * (2.48015873015873e-05
    + z * (-2.755731922398589e-07 + z * (2.08767569878681e-09 + z * -1.1470745597729725e-11)))));
  let hz = 0.5 * z;
  let hzh = m_trunc12(hz);
  let hzl = hz - hzh;
  return (1.0 - hzh) + ((p - x * y) - hzl);
}

fn m_sin(x: f32) -> f32 {
  if (is_nan32(x) || m_is_zero(x)) { return x; }
  if (is_inf32(x)) { return m_nan(); }
  let r = m_rem_pio2(x);
  let q = u32(r.z);
  var s = m_sin_k(r.x, r.y);
  if ((q & 1u) != 0u) { s = m_cos_k(r.x, r.y); }
  if ((q & 2u) != 0u) { s = -s; }
  return s;
}

fn m_cos(x: f32) -> f32 {
  if (is_nan32(x)) { return x; }
  if (is_inf32(x)) { return m_nan(); }
  let r = m_rem_pio2(x);
  let q = u32(r.z);
  var c = m_cos_k(r.x, r.y);
  if ((q & 1u) != 0u) { c = m_sin_k(r.x, r.y); }
  if (q == 1u || q == 2u) { c = -c; }
  return c;
}

fn m_tan(x: f32) -> f32 {
  if (is_nan32(x) || m_is_zero(x)) { return x; }
  if (is_inf32(x)) { return m_nan(); }
  let r = m_rem_pio2(x);
  let s = m_sin_k(r.x, r.y);
  let c = m_cos_k(r.x, r.y);
  if ((u32(r.z) & 1u) != 0u) { return -c / s; }
  return s / c;
}

// atan(t) for |t| <= 7/16 (Taylor to t^23, truncation < 2^-30 relative).
fn m_atan_k(t: f32) -> f32 {
  let z = t * t;
  let p = z * (-0.3333333333333333 + z * (0.2 + z * (-0.14285714285714285 + z * (0.1111111111111111
    + z * (-0.09090909090909091 + z * (0.07692307692307693 + z * (-0.06666666666666667
    + z * (0.058823529411764705 + z * (-0.05263157894736842 + z * (0.047619047619047616
    + z * -0.043478260869565216))))))))));
  return t + t * p;
}

// atan(a) for a >= 0 (inf included): reduced to |t| <= 7/16 around
// 0, atan(1/2), atan(1), atan(3/2), pi/2 (each as a high and a low part).
fn m_atan_pos(a: f32) -> f32 {
  if (a < 0.4375) { return m_atan_k(a); }
  if (a < 0.6875) {
    return 0.46364760398864746 + (5.01215868808913e-09 + m_atan_k((2.0 * a - 1.0) / (2.0 + a)));
  }
  if (a < 1.1875) {
    return 0.7853981852531433 + (-2.1855694143368964e-08 + m_atan_k((a - 1.0) / (a + 1.0)));
  }
  if (a < 2.4375) {
    return 0.9827937483787537 + (-2.5131424052915463e-08 + m_atan_k((a - 1.5) / (1.0 + 1.5 * a)));
  }
  return 1.5707963705062866 + (-4.371138828673793e-08 + m_atan_k(-1.0 / a));
}

fn m_atan(x: f32) -> f32 {
  if (is_nan32(x) || m_is_zero(x)) { return x; }
  return m_copysign(m_atan_pos(m_abs(x)), x);
}

// (asin(x) - x) / x^3 as a series in z = x^2 <= 1/4 (truncation < 2^-33).
fn m_asin_p(z: f32) -> f32 {
  return 0.16666666666666666 + z * (0.075 + z * (0.044642857142857144 + z * (0.030381944444444444
    + z * (0.022372159090909092 + z * (0.017352764423076924 + z * (0.01396484375
    + z * (0.011551800896139705 + z * (0.009761609529194078 + z * (0.008390335809616815
    + z * (0.0073125258735988454 + z * 0.006447210311889649))))))))));
}

// For z = (1 - a)/2 in [0, 1/4]: w = sqrt(z) as wh + wl (wh with 12 bits, wl
// its correction), and p = w z P(z): asin(w) = wh + (wl + p).
fn m_asin_half(z: f32) -> vec3<f32> {
  let w = sqrt(z);
  let wh = m_trunc12(w);
  let wl = select((z - wh * wh) / (w + wh), 0.0, w == 0.0);
  return vec3<f32>(wh, wl, w * z * m_asin_p(z));
}

const M_PIO2_HI: f32 = 1.5707963705062866;
const M_PIO2_LO: f32 = -4.371138828673793e-08;
const M_PI_HI: f32 = 3.1415927410125732;
const M_PI_LO: f32 = -8.742277657347586e-08;

fn m_asin(x: f32) -> f32 {
  if (is_nan32(x) || m_is_zero(x)) { return x; }
  let a = m_abs(x);
  if (a > 1.0) { return m_nan(); }
  var r: f32;
  if (a <= 0.5) {
    let z = a * a;
    r = a + a * z * m_asin_p(z);
  } else {
    // pi/2 - 2 asin(sqrt((1 - a)/2)); pi/2 - 2 wh is exact.
    let h = m_asin_half(0.5 * (1.0 - a));
    r = (M_PIO2_HI - 2.0 * h.x) - (2.0 * (h.y + h.z) - M_PIO2_LO);
  }
  return m_copysign(r, x);
}

fn m_acos(x: f32) -> f32 {
  if (is_nan32(x)) { return x; }
  let a = m_abs(x);
  if (a > 1.0) { return m_nan(); }
  if (a <= 0.5) {
    let z = x * x;
    return M_PIO2_HI - (x + (x * z * m_asin_p(z) - M_PIO2_LO));
  }
  if (x > 0.0) {
    let h = m_asin_half(0.5 * (1.0 - x));
    return 2.0 * h.x + 2.0 * (h.y + h.z);
  }
  let h = m_asin_half(0.5 * (1.0 + x));
  let w = h.x + h.y;
  return M_PI_HI - (2.0 * (w + h.z) - M_PI_LO);
}

// ---------------------------------------------------------------- hyperbolic

fn m_sinh(x: f32) -> f32 {
  if (is_nan32(x) || m_is_zero(x)) { return x; }
  let a = m_abs(x);
  var r: f32;
  if (a < 1.0) {
    let z = a * a;
    r = a + a * z * (0.16666666666666666 + z * (0.008333333333333333 + z * (0.0001984126984126984
      + z * (2.7557319223985893e-06 + z * (2.505210838544172e-08 + z * 1.6059043836821613e-10)))));
  } else if (a < 10.0) {
    let t = m_expm1(a);
    r = 0.5 * (t + t / (t + 1.0));
  } else {
    let pk = m_exp_pk(min(a, 100.0));
    r = m_scale(pk.x, i32(pk.y) - 1);
  }
  return m_copysign(r, x);
}

fn m_cosh(x: f32) -> f32 {
  if (is_nan32(x)) { return x; }
  let a = m_abs(x);
  if (a < 1.0) {
    let z = a * a;
    return 1.0 + z * (0.5 + z * (0.041666666666666664 + z * (0.001388888888888889
      + z * (2.48015873015873e-05 + z * (2.755731922398589e-07 + z * 2.08767569878681e-09)))));
  }
  if (a < 10.0) {
    let e = m_exp(a);
    return 0.5 * e + 0.5 / e;
  }
  let pk = m_exp_pk(min(a, 100.0));
  return m_scale(pk.x, i32(pk.y) - 1);
}

fn m_tanh(x: f32) -> f32 {
  if (is_nan32(x) || m_is_zero(x)) { return x; }
  let a = m_abs(x);
  var r = 1.0;
  if (a < 9.1) {
    let e = m_expm1(a + a);
    r = e / (e + 2.0);
  }
  return m_copysign(r, x);
}

fn m_asinh(x: f32) -> f32 {
  if (is_nan32(x) || m_is_zero(x) || is_inf32(x)) { return x; }
  let a = m_abs(x);
  var r: f32;
  if (a > 4096.0) {
    // ln(2a) (the rest is below 2^-26 relative).
    let kf = m_split(a);
    r = m_log_kf(kf.x + 1.0, kf.y);
  } else if (a > 2.0) {
    r = m_log(2.0 * a + 1.0 / (sqrt(a * a + 1.0) + a));
  } else if (a < 0.000244140625) {
    r = a;
  } else {
    let z = a * a;
    r = m_log1p(a + z / (1.0 + sqrt(1.0 + z)));
  }
  return m_copysign(r, x);
}

fn m_acosh(x: f32) -> f32 {
  if (is_nan32(x)) { return x; }
  if (x < 1.0) { return m_nan(); }
  if (is_inf32(x)) { return x; }
  if (x > 4096.0) {
    let kf = m_split(x);
    return m_log_kf(kf.x + 1.0, kf.y);
  }
  if (x > 2.0) {
    return m_log(2.0 * x - 1.0 / (x + sqrt(x * x - 1.0)));
  }
  let t = x - 1.0;
  return m_log1p(t + sqrt(2.0 * t + t * t));
}

fn m_atanh(x: f32) -> f32 {
  if (is_nan32(x) || m_is_zero(x)) { return x; }
  let a = m_abs(x);
  if (a > 1.0) { return m_nan(); }
  if (a == 1.0) { return m_copysign(m_inf(), x); }
  var r: f32;
  if (a < 0.5) {
    let t = a + a;
    r = 0.5 * m_log1p(t + t * a / (1.0 - a));
  } else {
    r = 0.5 * m_log1p((a + a) / (1.0 - a));
  }
  return m_copysign(r, x);
}

// ---------------------------------------------------------------- error function

// Clenshaw sums of c0 + c[0] T_1(u) + c[1] T_2(u) + ... (Chebyshev), with c0
// given as hi + lo.
fn m_cheb10(c: array<f32, 9>, u: f32, hi: f32, lo: f32) -> f32 {
  var cc = c;
  var b1 = 0.0;
  var b2 = 0.0;
  for (var k = 8; k >= 0; k = k - 1) {
    let b0 = 2.0 * u * b1 - b2 + cc[k];
    b2 = b1;
    b1 = b0;
  }
  return (u * b1 - b2 + lo) + hi;
}

fn m_cheb18(c: array<f32, 17>, u: f32, hi: f32, lo: f32) -> f32 {
  var cc = c;
  var b1 = 0.0;
  var b2 = 0.0;
  for (var k = 16; k >= 0; k = k - 1) {
    let b0 = 2.0 * u * b1 - b2 + cc[k];
    b2 = b1;
    b1 = b0;
  }
  return (u * b1 - b2 + lo) + hi;
}

// erfc(x) e^(x^2) for x >= 1/2, as h(1/x) / x with h(t) = erfc(1/t) e^(1/t^2) / t
// (which varies little: 0.31 to 0.56) interpolated in Chebyshev form on
// t in [1/10.5, 0.4] and [0.4, 2] (relative error of h below 1.2e-8 with f32
// coefficients; coefficients computed from an f64 erfc at Chebyshev nodes).
fn m_erfcx(x: f32) -> f32 {
  let t = 1.0 / x;
  var h: f32;
  if (t < 0.4) {
    let c = array<f32, 9>(-0.017510291188955307, -0.00197057006880641, 0.0001872116408776492,
      -7.514323669965961e-07, -1.4394106528925477e-06, 1.4752976085219416e-07,
      -2.9878860496879156e-10, -1.7728021273200056e-09, 2.354530459491855e-10);
    h = m_cheb10(c, max(t * 6.5625 - 1.625, -1.0), 0.546311616897583, -1.2408210459113889e-08);
  } else {
    let c = array<f32, 17>(-0.11053366959095001, 0.009679625742137432, 0.0007283615414053202,
      -0.0006542773335240781, 0.00021120964083820581, -4.994457049178891e-05, 8.948642062023282e-06,
      -8.940650104705128e-07, -1.6109196110392077e-07, 1.3216661898241e-07, -5.112016054908963e-08,
      1.5266794051171928e-08, -3.784200508505364e-09, 7.564190385167535e-10, -9.747623541667139e-11,
      -7.351000884392445e-12, 9.651476666483472e-12);
    h = m_cheb18(c, t * 1.25 - 1.5, 0.40845587849617004, 4.892149352286879e-09);
  }
  return h / x;
}

// erfc(a) for 1/2 <= a (0 beyond 10.5), given a^2 = sh + sl with sh exact:
// e^-sh e^-sl erfcx(a), so the steep factor e^(-a^2) has no rounded argument.
fn m_erfc_sq(a: f32, sh: f32, sl: f32) -> f32 {
  if (a > 10.5) { return 0.0; }
  return m_exp(-sh) * (m_exp(-sl) * m_erfcx(a));
}

// erfc(a) for a >= 1/2: a = ah + al with ah of 12 bits, a^2 = ah^2 + (a + ah) al.
fn m_erfc_big(a: f32) -> f32 {
  let ah = m_trunc12(a);
  return m_erfc_sq(a, ah * ah, (a + ah) * (a - ah));
}

fn m_erf(x: f32) -> f32 {
  if (is_nan32(x) || m_is_zero(x)) { return x; }
  let a = m_abs(x);
  var r = 1.0;
  if (a < 0.84375) {
    // Taylor: erf(a) = a + a Q(a^2), Q(0) = 2/sqrt(pi) - 1 (truncation < 2^-30).
    let z = a * a;
    r = a + a * (0.12837916709551256 + z * (-0.37612638903183754 + z * (0.11283791670955126
      + z * (-0.026866170645131252 + z * (0.005223977625442188 + z * (-0.0008548327023450852
      + z * (0.00012055332981789664 + z * (-1.492565035840625e-05 + z * (1.6462114365889246e-06
      + z * (-1.6365844691234924e-07 + z * (1.4807192815879218e-08 + z * -1.2290555301717926e-09)))))))))));
  } else if (a < 4.0) {
    r = 1.0 - m_erfc_big(a);
  }
  return m_copysign(r, x);
}

// Exact GELU 0.5 x erfc(-x/sqrt(2)): erfc from erf where that does not cancel,
// else from m_erfc_sq (relative accuracy down to the subnormals).
fn m_gelu_erf(x: f32) -> f32 {
  if (is_nan32(x)) { return x; }
  if (m_is_neg_inf(x)) { return m_neg_zero(); }
  let a = x * -0.7071067811865476;
  var c: f32;
  if (a >= 0.5) {
    // a^2 = x^2 / 2 from the exact x^2 = xh^2 + (x + xh) xl: the rounding of
    // a itself only moves the slowly varying erfcx(a).
    let xh = m_trunc12(x);
    c = m_erfc_sq(a, 0.5 * (xh * xh), 0.5 * ((x + xh) * (x - xh)));
  } else if (a > -0.84375) {
    c = 1.0 - m_erf(a);
  } else {
    c = 2.0 - select(m_erfc_big(-a), 0.0, a < -4.0);
  }
  return (0.5 * x) * c;
}

// ---------------------------------------------------------------- activations

// 1/sqrt(x) = r (1 + d/(2x)) with y = sqrt(x), r = 1/y and d = y^2 - x
// computed exactly from a 12-bit split of y: the correction removes the
// rounding (or the looser driver precision) of sqrt, leaving the division's.
// x is scaled by 2^(+-126) into [2^-100, 2^100] so the squares stay normal.
fn m_rsqrt(x: f32) -> f32 {
  if (m_is_zero(x)) { return bitcast<f32>(bitcast<u32>(x) | 0x7f800000u); }
  if (is_nan32(x) || x < 0.0) { return m_nan(); }
  if (is_inf32(x)) { return 0.0; }
  var xs = x;
  var sc = 1.0;
  if (x < 7.888609052210118e-31) {
    xs = x * m_pow2(126);
    sc = m_pow2(63);
  } else if (x > 1.2676506002282294e30) {
    xs = x * m_pow2(-126);
    sc = m_pow2(-63);
  }
  let y = sqrt(xs);
  let r = 1.0 / y;
  let yh = m_trunc12(y);
  let yl = y - yh;
  let d = ((yh * yh - xs) + 2.0 * yh * yl) + yl * yl;
  return (r + r * (d / (2.0 * xs))) * sc;
}

// 1/(1 + e^-x), sign-dependent (no overflow, no cancellation).
fn m_sigmoid(x: f32) -> f32 {
  if (is_nan32(x)) { return x; }
  let z = m_exp(-m_abs(x));
  return select(z, 1.0, x >= 0.0) / (1.0 + z);
}

// x sigmoid(v) with no subnormal intermediate, for drivers that flush them
// (NVIDIA does): for |v| < 2^-24 it is x/2 rounded (x v / 4 is below half an
// ULP); for v < -17, 1 + e^v rounds to 1, so it is x e^v, formed as
// (x p) 2^k from exp's parts with one rounding at the end; a signed zero
// where e^v rounds to zero (v < ln 2^-150), as the CPU's x sigmoid(v). x and
// v have one sign (silu, gelu).
fn m_mul_sigmoid(x: f32, v: f32) -> f32 {
  if (m_abs(v) < 5.9604645e-8) { return x * 0.5; }
  if (v < -17.0) {
    if (v < -103.97208) { return m_copysign(0.0, x); }
    let pk = m_exp_pk(v);
    return m_scale(x * pk.x, i32(pk.y));
  }
  return x * m_sigmoid(v);
}

fn m_silu(x: f32) -> f32 {
  if (is_nan32(x)) { return x; }
  if (m_is_neg_inf(x)) { return m_neg_zero(); }
  return m_mul_sigmoid(x, x);
}

// Tanh-form GELU as x sigmoid(2u), u = sqrt(2/pi) (x + 0.044715 x^3) with the
// constants in f32 (as the CPU).
fn m_gelu(x: f32) -> f32 {
  if (is_nan32(x)) { return x; }
  if (m_is_neg_inf(x)) { return m_neg_zero(); }
  let c = 0.7978845608028654;
  let u = (c + c) * fma(0.044715 * x * x, x, x);
  return m_mul_sigmoid(x, u);
}

fn m_softplus(x: f32) -> f32 {
  if (is_nan32(x)) { return x; }
  let z = m_exp(-m_abs(x));
  return select(0.0, x, x > 0.0) + m_log1p(z);
}

fn m_log_sigmoid(x: f32) -> f32 {
  if (is_nan32(x)) { return x; }
  let z = m_exp(-m_abs(x));
  return select(0.0, x, x < 0.0) - m_log1p(z);
}

// x tanh(softplus(x)) = x n/(n + 2), n = e^x (e^x + 2), written in z = e^-|x|.
fn m_mish(x: f32) -> f32 {
  if (is_nan32(x)) { return x; }
  if (m_is_neg_inf(x)) { return m_neg_zero(); }
  let z = m_exp(-m_abs(x));
  let tp = fma(2.0, z, 1.0);
  let pos = tp / fma(2.0 * z, z, tp);
  let n = z * (z + 2.0);
  let neg = n / (n + 2.0);
  return x * select(neg, pos, x >= 0.0);
}

fn m_elu(x: f32, alpha: f32) -> f32 {
  if (is_nan32(x)) { return x; }
  return select(alpha * m_expm1(x), x, x > 0.0);
}

fn m_selu(x: f32) -> f32 {
  return 1.0507009873554805 * m_elu(x, 1.6732632423543772);
}

fn m_hard_sigmoid(x: f32, alpha: f32, beta: f32) -> f32 {
  if (is_nan32(x)) { return x; }
  let y = fma(alpha, x, beta);
  return select(select(y, 0.0, y <= 0.0), 1.0, y > 1.0);
}

fn m_hard_silu(x: f32) -> f32 {
  if (m_is_neg_inf(x)) { return m_neg_zero(); }
  return x * m_hard_sigmoid(x, 0.16666666666666666, 0.5);
}

fn m_leaky_relu(x: f32, slope: f32) -> f32 {
  if (is_nan32(x)) { return x; }
  return select(slope * x, x, x > 0.0);
}

fn m_softsign(x: f32) -> f32 {
  if (is_inf32(x)) { return m_copysign(1.0, x); }
  return x / (1.0 + m_abs(x));
}

// ---------------------------------------------------------------- binary

// C fmod: x - trunc(x/y) y, exact (integer long division of the significands).
fn m_fmod(x: f32, y: f32) -> f32 {
  let ux = bitcast<u32>(x);
  let sx = ux & 0x80000000u;
  let ax = ux & 0x7fffffffu;
  let ay = bitcast<u32>(y) & 0x7fffffffu;
  if (ay == 0u || ax >= 0x7f800000u || ay > 0x7f800000u) { return m_nan(); }
  if (ax < ay) { return x; }
  if (ax == ay) { return bitcast<f32>(sx); }
  var ex = i32(ax >> 23u);
  var ey = i32(ay >> 23u);
  var mx = (ax & 0x7fffffu) | 0x800000u;
  var my = (ay & 0x7fffffu) | 0x800000u;
  if (ex == 0) {
    let sh = countLeadingZeros(ax) - 8u;
    mx = ax << sh;
    ex = 1 - i32(sh);
  }
  if (ey == 0) {
    let sh = countLeadingZeros(ay) - 8u;
    my = ay << sh;
    ey = 1 - i32(sh);
  }
  for (; ex > ey; ex = ex - 1) {
    if (mx >= my) { mx = mx - my; }
    mx = mx << 1u;
  }
  if (mx >= my) { mx = mx - my; }
  if (mx == 0u) { return bitcast<f32>(sx); }
  let sh = countLeadingZeros(mx) - 8u;
  mx = mx << sh;
  ex = ex - i32(sh);
  if (ex > 0) {
    return bitcast<f32>(sx | (u32(ex) << 23u) | (mx & 0x7fffffu));
  }
  return bitcast<f32>(sx | (mx >> u32(1 - ex)));
}

// |x|^y for finite x > 0, y, as 2^(y log2 x) with log2 x and the product
// carried in several exact parts (masks), so the error of the exponent stays
// far below an ULP of the result even for results near the overflow.
fn m_pow_pos(x: f32, y: f32) -> f32 {
  let kf = m_split(x);
  let k = kf.x;
  let f = kf.y;
  // ln(1 + f) = 2 atanh(s), s = f/(2 + f) = sh + sl with sh of 12 bits and
  // sl = (f - 2 sh - sh f)/(2 + f) from exact products.
  let d = 2.0 + f;
  let s = f / d;
  let sh = m_trunc12(s);
  let fh = m_trunc12(f);
  let sl = (((f - 2.0 * sh) - sh * fh) - sh * (f - fh)) / d;
  let z = s * s;
  let t = 2.0 * sl + 2.0 * s * z * (0.3333333333333333 + z * (0.2 + z * (0.14285714285714285
    + z * (0.1111111111111111 + z * (0.09090909090909091 + z * 0.07692307692307693)))));
  // log2(1 + f) = a1 + a2 with a1 = 2 sh C_hi exact (C = 1/ln 2 = C_hi + C_lo).
  let a1 = 2.0 * sh * 1.4423828125;
  let a2 = 2.0 * sh * 0.00031222839606925845 + t * 1.4426950408889634;
  // Overflow and underflow from a rough exponent.
  let rough = y * (k + (a1 + a2));
  if (rough > 129.0) { return m_inf(); }
  if (rough < -152.0) { return 0.0; }
  // y (k + a1 + a2) = e1 + e2 + e3 + e4 with e1..e3 exact.
  let yh = m_trunc12(y);
  let yl = y - yh;
  let a1h = m_trunc12(a1);
  let e1 = yh * k;
  let e2 = yh * a1h;
  let e3 = yl * k;
  let e4 = yh * (a1 - a1h) + yl * a1 + y * a2;
  let n = round(e1 + e2 + e3 + e4);
  let r = (((e1 - n) + e2) + e3) + e4;
  let p = 1.0 + r * (0.6931471805599453 + r * (0.2402265069591007 + r * (0.055504108664821576
    + r * (0.009618129107628477 + r * (0.0013333558146428441 + r * (0.00015403530393381606
    + r * (1.5252733804059838e-05 + r * 1.3215486790144305e-06)))))));
  return m_scale(p, i32(n));
}

// C pow (as Rust's powf): pow(x, ±0) = pow(1, y) = 1, pow(-1, ±inf) = 1, signs
// of zeros and infinities by the parity of integer y, NaN for x < 0 and
// non-integer y.
fn m_pow(x: f32, y: f32) -> f32 {
  if (m_is_zero(y) || x == 1.0) { return 1.0; }
  if (is_nan32(x) || is_nan32(y)) { return x + y; }
  let ax = m_abs(x);
  let ay = m_abs(y);
  let yint = ay >= 16777216.0 || trunc(y) == y;
  let yodd = ay < 16777216.0 && yint && (i32(y) & 1) != 0;
  let xneg = (bitcast<u32>(x) & 0x80000000u) != 0u;
  if (is_inf32(y)) {
    if (ax == 1.0) { return 1.0; }
    return select(0.0, m_inf(), (ax > 1.0) == (y > 0.0));
  }
  if (m_is_zero(x) || is_inf32(x)) {
    // |x|^y is 0 or inf; the sign is x's for odd integer y.
    var m = select(m_inf(), 0.0, (y > 0.0) == m_is_zero(x));
    if (xneg && yodd) { m = -m; }
    return m;
  }
  if (y == 1.0) { return x; }
  if (xneg && !yint) { return m_nan(); }
  let r = m_pow_pos(ax, y);
  return select(r, -r, xneg && yodd);
}

fn m_atan2(y: f32, x: f32) -> f32 {
  if (is_nan32(x) || is_nan32(y)) { return x + y; }
  let ay = m_abs(y);
  let ax = m_abs(x);
  var a: f32;
  if (is_inf32(ax) && is_inf32(ay)) {
    a = 0.7853981852531433;
  } else if (m_is_zero(ay)) {
    a = 0.0;
  } else if (ax > 4.2535295865117308e37) {
    // Past 2^125 a driver's y * (1/x) division flushes 1/x (NVIDIA does):
    // scale both by 1/4 (exact for the larger; the ratio is unchanged).
    a = m_atan_pos((ay * 0.25) / (ax * 0.25));
  } else {
    a = m_atan_pos(ay / ax);
  }
  if ((bitcast<u32>(x) & 0x80000000u) != 0u) {
    a = M_PI_HI - (a - M_PI_LO);
  }
  return m_copysign(a, y);
}

// sqrt(x^2 + y^2), scaled by a power of two so nothing overflows or underflows.
fn m_hypot(x: f32, y: f32) -> f32 {
  var a = m_abs(x);
  var b = m_abs(y);
  if (is_inf32(a) || is_inf32(b)) { return m_inf(); }
  if (is_nan32(a) || is_nan32(b)) { return x + y; }
  if (b > a) {
    let t = a;
    a = b;
    b = t;
  }
  if (m_is_zero(b)) { return a; }
  var sc = 1.0;
  if (a > 1.152921504606847e18) {
    a = a * m_pow2(-80);
    b = b * m_pow2(-80);
    sc = m_pow2(80);
  } else if (a < 8.673617379884035e-19) {
    a = a * m_pow2(100);
    b = b * m_pow2(100);
    sc = m_pow2(-100);
  }
  return sqrt(a * a + b * b) * sc;
}
