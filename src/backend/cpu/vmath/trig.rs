//! Trigonometric functions: sin, cos, tan as branch-free bodies, plus the scalar
//! inverse functions and atan2.
//!
//! Reduction: n = round(x·2/π) from the bits of x·2/π + 1.5·2⁵², r = x − n·π/2
//! with π/2 in three 33-bit parts (each n·part is exact for |n| < 2²⁰) and a tail, then
//! Taylor polynomials of sin and cos on |r| ≤ π/4 chosen by n mod 4. f32 inputs
//! are reduced and evaluated in f64 and rounded once (≤ 0.5 ULP + 2⁻²⁹). Lanes
//! with |x| beyond the fast range (10⁶ for f64, 10⁵ for f32, where |n| < 2²⁰
//! still holds) are recomputed with the platform libm (Payne-Hanek), per lane.

use super::{horner64, Fm};

const MAGIC64: f64 = 6_755_399_441_055_744.0; // 1.5 * 2^52
const PIO2_1: f64 = 1.570_796_326_734_125_6; // first 33 bits of pi/2
const PIO2_2: f64 = 6.077_100_506_303_966e-11; // next 33 bits
const PIO2_3: f64 = 2.022_266_248_711_166_5e-21; // next 33 bits
const PIO2_3T: f64 = 8.478_427_660_368_9e-32; // pi/2 - PIO2_1 - PIO2_2 - PIO2_3

/// Largest |x| handled by the vector path (f64 and f32 inputs).
pub(crate) const FAST_LIMIT64: f64 = 1.0e6;
pub(crate) const FAST_LIMIT32: f32 = 1.0e5;

/// (r, n mod 4) with x = n·π/2 + r.
#[inline(always)]
fn reduce<M: Fm>(x: f64) -> (f64, u64) {
    let t = M::fma64(x, std::f64::consts::FRAC_2_PI, MAGIC64);
    let nf = t - MAGIC64;
    let q = t.to_bits() & 3; // 2^51 + n ≡ n (mod 4)
    let r = M::fma64(nf, -PIO2_1, x);
    let r = M::fma64(nf, -PIO2_2, r);
    let r = M::fma64(nf, -PIO2_3, r);
    let r = M::fma64(nf, -PIO2_3T, r);
    (r, q)
}

/// Taylor coefficients of (sin r − r)/r³ in z = r², highest first (to r¹⁷).
const SIN_P: [f64; 8] = [
    1.0 / 355_687_428_096_000.0,
    -1.0 / 1_307_674_368_000.0,
    1.0 / 6_227_020_800.0,
    -1.0 / 39_916_800.0,
    1.0 / 362_880.0,
    -1.0 / 5040.0,
    1.0 / 120.0,
    -1.0 / 6.0,
];
/// Taylor coefficients of (cos r − 1 + r²/2)/r⁴ in z, highest first (to r¹⁶).
const COS_P: [f64; 7] = [
    1.0 / 20_922_789_888_000.0,
    -1.0 / 87_178_291_200.0,
    1.0 / 479_001_600.0,
    -1.0 / 3_628_800.0,
    1.0 / 40_320.0,
    -1.0 / 720.0,
    1.0 / 24.0,
];

/// (sin r, cos r) for |r| ≤ π/4 + ε.
#[inline(always)]
fn sincos_poly<M: Fm>(r: f64) -> (f64, f64) {
    let z = r * r;
    let s = M::fma64(r * z, horner64::<M, 8>(z, SIN_P), r);
    // cos = 1 − z/2 + z²·P, summed so the large part is exact.
    let hz = 0.5 * z;
    let w = 1.0 - hz;
    let c = w + M::fma64(z * z, horner64::<M, 7>(z, COS_P), (1.0 - w) - hz);
    (s, c)
}

/// Negate `v` when `neg` is set, by the sign bit (keeps NaN a NaN).
#[inline(always)]
fn flip(v: f64, neg: bool) -> f64 {
    f64::from_bits(v.to_bits() ^ ((neg as u64) << 63))
}

/// sin x for |x| ≤ [`FAST_LIMIT64`] (NaN and ±∞ give NaN).
#[inline(always)]
pub(crate) fn sin64<M: Fm>(x: f64) -> f64 {
    let (r, q) = reduce::<M>(x);
    let (s, c) = sincos_poly::<M>(r);
    let v = if q & 1 == 1 { c } else { s };
    let y = flip(v, q & 2 == 2);
    if x == 0.0 {
        x
    } else {
        y
    }
}

/// cos x for |x| ≤ [`FAST_LIMIT64`].
#[inline(always)]
pub(crate) fn cos64<M: Fm>(x: f64) -> f64 {
    let (r, q) = reduce::<M>(x);
    let (s, c) = sincos_poly::<M>(r);
    let v = if q & 1 == 1 { s } else { c };
    flip(v, (q + 1) & 2 == 2)
}

/// tan x for |x| ≤ [`FAST_LIMIT64`]: s/c or −c/s by quadrant.
#[inline(always)]
pub(crate) fn tan64<M: Fm>(x: f64) -> f64 {
    let (r, q) = reduce::<M>(x);
    let (s, c) = sincos_poly::<M>(r);
    let odd = q & 1 == 1;
    let num = if odd { c } else { s };
    let den = if odd { s } else { c };
    let y = flip(num / den, odd);
    if x == 0.0 {
        x
    } else {
        y
    }
}

/// sin x (f32, through f64).
#[inline(always)]
pub(crate) fn sin32<M: Fm>(x: f32) -> f32 {
    sin64::<M>(x as f64) as f32
}

/// cos x (f32, through f64).
#[inline(always)]
pub(crate) fn cos32<M: Fm>(x: f32) -> f32 {
    cos64::<M>(x as f64) as f32
}

/// tan x (f32, through f64).
#[inline(always)]
pub(crate) fn tan32<M: Fm>(x: f32) -> f32 {
    tan64::<M>(x as f64) as f32
}
