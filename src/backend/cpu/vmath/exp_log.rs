//! Exponential and logarithm family (exp, exp2, expm1, log, log2, log1p) for f32
//! and f64 as branch-free scalar bodies for the chunk drivers of `mod.rs`.
//!
//! exp: Cody-Waite reduction x = n·ln2 + r (ln2 split in a short high part and a
//! tail, so n·ln2_hi is exact), Taylor polynomial of eʳ − 1 on |r| ≤ ln2/2
//! (degree 7 for f32, 13 for f64, truncation below 0.1 ULP), then 2ⁿ scaling in
//! two steps so subnormal results and overflow come out right without branches.
//! n is read from the bits of x·log2e + 1.5·2^mantissa (no float-to-int
//! conversion). log: x = 2ᵏ·(1+f) with 1+f in [√½, √2), s = f/(2+f) and
//! ln(1+f) = f − (f²/2 − s·(f²/2 + R(s²))) with R the atanh series (fdlibm's
//! arrangement), k·ln2 added in two parts. No libm calls here.

use super::{horner32, horner64, Fm};

const MAGIC32: f32 = 12_582_912.0; // 1.5 * 2^23
const MAGIC64: f64 = 6_755_399_441_055_744.0; // 1.5 * 2^52
const LN2_HI32: f32 = 0.693_359_4; // 0x3f318000: 9 significant bits
const LN2_LO32: f32 = -2.121_944_4e-4; // ln2 - LN2_HI32
const LN2_HI64: f64 = 0.693_147_180_369_123_8; // 0x3fe62e42fee00000: 32 significant bits
const LN2_LO64: f64 = 1.908_214_929_270_587_7e-10; // ln2 - LN2_HI64

/// Taylor coefficients of (eʳ − 1 − r)/r², highest degree first (f32: to r⁷).
const EXPM1_P32: [f32; 6] = [
    1.0 / 5040.0,
    1.0 / 720.0,
    1.0 / 120.0,
    1.0 / 24.0,
    1.0 / 6.0,
    0.5,
];
/// As [`EXPM1_P32`] for f64 (to r¹³).
const EXPM1_P64: [f64; 12] = [
    1.0 / 6_227_020_800.0,
    1.0 / 479_001_600.0,
    1.0 / 39_916_800.0,
    1.0 / 3_628_800.0,
    1.0 / 362_880.0,
    1.0 / 40_320.0,
    1.0 / 5040.0,
    1.0 / 720.0,
    1.0 / 120.0,
    1.0 / 24.0,
    1.0 / 6.0,
    0.5,
];

/// eʳ − 1 for |r| ≤ ln2/2 + ε.
#[inline(always)]
fn expm1_poly32<M: Fm>(r: f32) -> f32 {
    M::fma32(r * r, horner32::<M, 6>(r, EXPM1_P32), r)
}

#[inline(always)]
fn expm1_poly64<M: Fm>(r: f64) -> f64 {
    M::fma64(r * r, horner64::<M, 12>(r, EXPM1_P64), r)
}

/// The reduction of eˣ for x already clamped to [−104, 89]: (eʳ − 1, 2^⌊n/2⌋,
/// 2^⌈n/2⌉). NaN gives a NaN polynomial.
#[inline(always)]
fn exp_parts32<M: Fm>(x: f32) -> (f32, f32, f32) {
    let t = M::fma32(x, std::f32::consts::LOG2_E, MAGIC32);
    let nf = t - MAGIC32;
    let m = t.to_bits() & 0x007f_ffff; // 2^22 + n
    let r = M::fma32(nf, -LN2_HI32, x);
    let r = M::fma32(nf, -LN2_LO32, r);
    let (s1, s2) = split_scale32(m);
    (expm1_poly32::<M>(r), s1, s2)
}

/// 2^⌊n/2⌋ and 2^⌈n/2⌉ from m = 2^22 + n (n in [−252, 252]).
#[inline(always)]
fn split_scale32(m: u32) -> (f32, f32) {
    let h = m >> 1; // 2^21 + floor(n/2)
    let e1 = h.wrapping_sub(1 << 21).wrapping_add(127);
    let e2 = m.wrapping_sub(h).wrapping_sub(1 << 21).wrapping_add(127);
    (f32::from_bits(e1 << 23), f32::from_bits(e2 << 23))
}

#[inline(always)]
fn exp_parts64<M: Fm>(x: f64) -> (f64, f64, f64) {
    let t = M::fma64(x, std::f64::consts::LOG2_E, MAGIC64);
    let nf = t - MAGIC64;
    let m = t.to_bits() & 0x000f_ffff_ffff_ffff; // 2^51 + n
    let r = M::fma64(nf, -LN2_HI64, x);
    let r = M::fma64(nf, -LN2_LO64, r);
    let (s1, s2) = split_scale64(m);
    (expm1_poly64::<M>(r), s1, s2)
}

#[inline(always)]
fn split_scale64(m: u64) -> (f64, f64) {
    let h = m >> 1; // 2^50 + floor(n/2)
    let e1 = h.wrapping_sub(1 << 50).wrapping_add(1023);
    let e2 = m.wrapping_sub(h).wrapping_sub(1 << 50).wrapping_add(1023);
    (f64::from_bits(e1 << 52), f64::from_bits(e2 << 52))
}

#[inline(always)]
fn clamp32(x: f32, lo: f32, hi: f32) -> f32 {
    // Comparisons are false for NaN, which passes through.
    let x = if x > hi { hi } else { x };
    if x < lo {
        lo
    } else {
        x
    }
}

#[inline(always)]
fn clamp64(x: f64, lo: f64, hi: f64) -> f64 {
    let x = if x > hi { hi } else { x };
    if x < lo {
        lo
    } else {
        x
    }
}

/// eˣ (f32).
#[inline(always)]
pub(crate) fn exp32<M: Fm>(x: f32) -> f32 {
    let (q, s1, s2) = exp_parts32::<M>(clamp32(x, -104.0, 89.0));
    (1.0 + q) * s1 * s2
}

/// eˣ (f64).
#[inline(always)]
pub(crate) fn exp64<M: Fm>(x: f64) -> f64 {
    let (q, s1, s2) = exp_parts64::<M>(clamp64(x, -746.0, 710.0));
    (1.0 + q) * s1 * s2
}

/// eˣ − 1 (f32): 2ⁿ·q + (2ⁿ − 1) for moderate n, eˣ where it is the same.
#[inline(always)]
pub(crate) fn expm1_32<M: Fm>(x: f32) -> f32 {
    let (q, s1, s2) = exp_parts32::<M>(clamp32(x, -104.0, 89.0));
    let s = s1 * s2;
    let small = M::fma32(s, q, s - 1.0);
    let big = (1.0 + q) * s1 * s2;
    let y = if x > 20.0 { big } else { small };
    if x == 0.0 {
        x
    } else {
        y
    }
}

/// eˣ − 1 for x in [0, 20] or NaN (f32): [`expm1_32`]'s moderate branch,
/// bit for bit, without what only other arguments need (the clamp, the
/// two-step scale, the large-x form, the zero test: here n is in [0, 29], so
/// 2ⁿ is one normal float, and x = 0 gives r = 0, q = 0, 2⁰·0 + 0 = 0).
#[inline(always)]
pub(crate) fn expm1_bounded32<M: Fm>(x: f32) -> f32 {
    let t = M::fma32(x, std::f32::consts::LOG2_E, MAGIC32);
    let nf = t - MAGIC32;
    let r = M::fma32(nf, -LN2_HI32, x);
    let r = M::fma32(nf, -LN2_LO32, r);
    // t's low bits hold 2^22 + n; the shift drops the 2^22 and the rest.
    let s = f32::from_bits(t.to_bits().wrapping_add(127) << 23);
    M::fma32(s, expm1_poly32::<M>(r), s - 1.0)
}

/// As [`expm1_bounded32`] for f64 and x in [0, 40] or NaN (n in [0, 58]).
#[inline(always)]
pub(crate) fn expm1_bounded64<M: Fm>(x: f64) -> f64 {
    let t = M::fma64(x, std::f64::consts::LOG2_E, MAGIC64);
    let nf = t - MAGIC64;
    let r = M::fma64(nf, -LN2_HI64, x);
    let r = M::fma64(nf, -LN2_LO64, r);
    // t's low bits hold 2^51 + n; the shift drops the 2^51 and the rest.
    let s = f64::from_bits(t.to_bits().wrapping_add(1023) << 52);
    M::fma64(s, expm1_poly64::<M>(r), s - 1.0)
}

/// eˣ − 1 (f64).
#[inline(always)]
pub(crate) fn expm1_64<M: Fm>(x: f64) -> f64 {
    let (q, s1, s2) = exp_parts64::<M>(clamp64(x, -746.0, 710.0));
    let s = s1 * s2;
    let small = M::fma64(s, q, s - 1.0);
    let big = (1.0 + q) * s1 * s2;
    let y = if x > 40.0 { big } else { small };
    if x == 0.0 {
        x
    } else {
        y
    }
}

/// 2ˣ (f32).
#[inline(always)]
pub(crate) fn exp2_32<M: Fm>(x: f32) -> f32 {
    let x = clamp32(x, -152.0, 129.0);
    let t = x + MAGIC32;
    let nf = t - MAGIC32;
    let m = t.to_bits() & 0x007f_ffff;
    let r = (x - nf) * std::f32::consts::LN_2;
    let (s1, s2) = split_scale32(m);
    (1.0 + expm1_poly32::<M>(r)) * s1 * s2
}

/// 2ˣ (f64).
#[inline(always)]
pub(crate) fn exp2_64<M: Fm>(x: f64) -> f64 {
    let x = clamp64(x, -1076.0, 1025.0);
    let t = x + MAGIC64;
    let nf = t - MAGIC64;
    let m = t.to_bits() & 0x000f_ffff_ffff_ffff;
    let r = (x - nf) * std::f64::consts::LN_2;
    let (s1, s2) = split_scale64(m);
    (1.0 + expm1_poly64::<M>(r)) * s1 * s2
}

/// atanh-series coefficients of R(z) = 2(z/3 + z²/5 + …)/z, highest first.
const LOG_R32: [f32; 4] = [2.0 / 9.0, 2.0 / 7.0, 2.0 / 5.0, 2.0 / 3.0];
const LOG_R64: [f64; 10] = [
    2.0 / 21.0,
    2.0 / 19.0,
    2.0 / 17.0,
    2.0 / 15.0,
    2.0 / 13.0,
    2.0 / 11.0,
    2.0 / 9.0,
    2.0 / 7.0,
    2.0 / 5.0,
    2.0 / 3.0,
];

/// For positive finite x: (k, ln(1+f)) with x = 2ᵏ(1+f), 1+f in [√½, √2).
/// Other inputs give garbage that the callers replace.
#[inline(always)]
fn log_parts32<M: Fm>(x: f32) -> (f32, f32) {
    let sub = x < f32::MIN_POSITIVE;
    let xs = if sub { x * 8_388_608.0 } else { x };
    let ix = xs.to_bits().wrapping_add(0x3f80_0000 - 0x3f35_04f3);
    let kb = (ix >> 23) as i32 - 0x7f - if sub { 23 } else { 0 };
    let m = f32::from_bits((ix & 0x007f_ffff) + 0x3f35_04f3);
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let r = z * horner32::<M, 4>(z, LOG_R32);
    let hfsq = 0.5 * f * f;
    (kb as f32, f - (hfsq - s * (hfsq + r)))
}

#[inline(always)]
fn log_parts64<M: Fm>(x: f64) -> (f64, f64) {
    let sub = x < f64::MIN_POSITIVE;
    let xs = if sub { x * 18_014_398_509_481_984.0 } else { x }; // 2^54
    let ix = xs
        .to_bits()
        .wrapping_add(0x3ff0_0000_0000_0000 - 0x3fe6_a09e_667f_3bcd);
    // Biased exponent as a float without an int-to-float conversion.
    let kb = f64::from_bits(0x4330_0000_0000_0000 | (ix >> 52)) - 4_503_599_627_370_496.0;
    let k = kb - 1023.0 - if sub { 54.0 } else { 0.0 };
    let m = f64::from_bits((ix & 0x000f_ffff_ffff_ffff) + 0x3fe6_a09e_667f_3bcd);
    let f = m - 1.0;
    let s = f / (2.0 + f);
    let z = s * s;
    let r = z * horner64::<M, 10>(z, LOG_R64);
    let hfsq = 0.5 * f * f;
    (k, f - (hfsq - s * (hfsq + r)))
}

/// The special cases of a logarithm: NaN below 0 and for NaN, −∞ at 0, +∞ at +∞.
#[inline(always)]
fn log_special32(x: f32, y: f32) -> f32 {
    let y = if x == 0.0 { f32::NEG_INFINITY } else { y };
    let y = if x == f32::INFINITY { x } else { y };
    if x >= 0.0 {
        y
    } else {
        f32::NAN
    }
}

#[inline(always)]
fn log_special64(x: f64, y: f64) -> f64 {
    let y = if x == 0.0 { f64::NEG_INFINITY } else { y };
    let y = if x == f64::INFINITY { x } else { y };
    if x >= 0.0 {
        y
    } else {
        f64::NAN
    }
}

/// ln x (f32).
#[inline(always)]
pub(crate) fn log32<M: Fm>(x: f32) -> f32 {
    let (k, l) = log_parts32::<M>(x);
    log_special32(x, M::fma32(k, LN2_HI32, M::fma32(k, LN2_LO32, l)))
}

/// ln x (f64).
#[inline(always)]
pub(crate) fn log64<M: Fm>(x: f64) -> f64 {
    let (k, l) = log_parts64::<M>(x);
    log_special64(x, M::fma64(k, LN2_HI64, M::fma64(k, LN2_LO64, l)))
}

/// log₂ x (f32).
#[inline(always)]
pub(crate) fn log2_32<M: Fm>(x: f32) -> f32 {
    let (k, l) = log_parts32::<M>(x);
    log_special32(x, M::fma32(l, std::f32::consts::LOG2_E, k))
}

/// log₂ x (f64): k + l·log₂e with log₂e in two parts.
#[inline(always)]
pub(crate) fn log2_64<M: Fm>(x: f64) -> f64 {
    const LOG2E_HI: f64 = std::f64::consts::LOG2_E;
    const LOG2E_LO: f64 = 2.035_527_374_093_103_4e-17;
    let (k, l) = log_parts64::<M>(x);
    log_special64(x, k + M::fma64(l, LOG2E_HI, l * LOG2E_LO))
}

/// ln(1 + x) (f32): ln(u) for u = 1 + x, corrected by (x − (u − 1))/u.
#[inline(always)]
pub(crate) fn log1p32<M: Fm>(x: f32) -> f32 {
    let u = 1.0 + x;
    let c = (x - (u - 1.0)) / u;
    let y = log32::<M>(u) + c;
    let y = if x == f32::INFINITY { x } else { y };
    let y = if x == -1.0 { f32::NEG_INFINITY } else { y };
    if x == 0.0 {
        x
    } else {
        y
    }
}

/// ln(1 + x) (f64).
#[inline(always)]
pub(crate) fn log1p64<M: Fm>(x: f64) -> f64 {
    let u = 1.0 + x;
    let c = (x - (u - 1.0)) / u;
    let y = log64::<M>(u) + c;
    let y = if x == f64::INFINITY { x } else { y };
    let y = if x == -1.0 { f64::NEG_INFINITY } else { y };
    if x == 0.0 {
        x
    } else {
        y
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;
    use crate::backend::cpu::vmath::{Fused, Plain};

    /// `expm1_bounded32/64` give `expm1_32/64`'s bits on their whole domain
    /// (tanh's argument 2|x| after its clamp): f32 every 37th bit pattern
    /// in [0, 20] and every pattern near the points where n steps (k·ln2 /
    /// 2, where the reduction switches), f64 a stride through [0, 40]; both
    /// multiply-add policies; NaN stays NaN.
    pub(crate) fn expm1_bounded_matches_expm1() {
        let top = 20f32.to_bits();
        let mut xs: Vec<f32> = (0..=top).step_by(37).map(f32::from_bits).collect();
        xs.push(20.0);
        for k in 0..=58 {
            let c = ((k as f32) + 0.5) * std::f32::consts::LN_2;
            let b = c.to_bits();
            xs.extend((b.saturating_sub(64)..b + 64).map(f32::from_bits));
        }
        xs.retain(|&x| x <= 20.0);
        for &x in &xs {
            let (p, q) = (expm1_bounded32::<Plain>(x), expm1_32::<Plain>(x));
            assert_eq!(p.to_bits(), q.to_bits(), "plain f32 {x:e}");
        }
        for &x in xs.iter().step_by(41) {
            let (p, q) = (expm1_bounded32::<Fused>(x), expm1_32::<Fused>(x));
            assert_eq!(p.to_bits(), q.to_bits(), "fused f32 {x:e}");
        }
        let top = 40f64.to_bits();
        let step = (top / 3_000_017) as usize;
        for b in (0..=top).step_by(step).chain([top]) {
            let x = f64::from_bits(b);
            let (p, q) = (expm1_bounded64::<Plain>(x), expm1_64::<Plain>(x));
            assert_eq!(p.to_bits(), q.to_bits(), "plain f64 {x:e}");
            if b % 17 == 0 {
                let (p, q) = (expm1_bounded64::<Fused>(x), expm1_64::<Fused>(x));
                assert_eq!(p.to_bits(), q.to_bits(), "fused f64 {x:e}");
            }
        }
        assert!(expm1_bounded32::<Plain>(f32::NAN).is_nan());
        assert!(expm1_bounded64::<Fused>(f64::NAN).is_nan());
    }
}
