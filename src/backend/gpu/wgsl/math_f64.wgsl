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
