//! One rounding into a narrow float format: f64 -> f16 / bf16 bits, rounded once
//! to nearest with ties to even, and integers -> f64 rounded to odd so that a
//! second rounding to f16 / bf16 is still the correct one. `half`'s `from_f64`
//! drops an f64's low 32 fraction bits (or goes through f32) before rounding, and
//! so rounds twice; the casts use these instead. Bit arithmetic only.

/// The bits of `x` rounded once, to nearest with ties to even, into the binary
/// format with `frac` fraction bits and `exp` exponent bits (f16: 10, 5; bf16:
/// 7, 8; f32: 23, 8), for `1 <= frac <= 52` and `2 <= exp <= 11`. Subnormal
/// results are kept (gradual underflow), magnitudes at or past the overflow
/// threshold give infinity, zeros keep their sign, and NaN gives a quiet NaN with
/// the sign and the leading fraction bits of `x`.
pub(crate) fn round_f64_bits(x: f64, frac: u32, exp: u32) -> u64 {
    let b = x.to_bits();
    let sign = (b >> 63) << (frac + exp);
    let inf = ((1u64 << exp) - 1) << frac;
    let e = ((b >> 52) & 0x7ff) as i32;
    let f = b & ((1u64 << 52) - 1);
    if e == 0x7ff {
        let nan = if f == 0 {
            0
        } else {
            (1u64 << (frac - 1)) | (f >> (52 - frac))
        };
        return sign | inf | nan;
    }
    // |x| = sig * 2^e2 exactly.
    let (sig, e2) = if e == 0 {
        (f, -1074)
    } else {
        (f | (1 << 52), e - 1075)
    };
    if sig == 0 {
        return sign;
    }
    let (frac_i, bias) = (frac as i32, (1i32 << (exp - 1)) - 1);
    let top = 63 - sig.leading_zeros() as i32 + e2; // floor(log2 |x|)
    if top > bias {
        return sign | inf;
    }
    // The spacing of the format at |x| is 2^qe, no finer than its subnormals'.
    let qe = (top - frac_i).max(1 - bias - frac_i);
    let drop = qe - e2;
    let q = if drop <= 0 {
        sig << -drop
    } else if drop >= 64 {
        0
    } else {
        let (q, rest, half) = (sig >> drop, sig & ((1u64 << drop) - 1), 1u64 << (drop - 1));
        q + u64::from(rest > half || (rest == half && q & 1 == 1))
    };
    // |result| = q * 2^qe with q <= 2^(frac + 1). Adding q to the biased exponent
    // minus one encodes normals (q's leading bit bumps the exponent field by
    // one), subnormals (qe at its minimum: the field is 0), and a carry into the
    // next binade or to infinity alike.
    sign | ((((qe + frac_i + bias - 1) as u64) << frac) + q)
}

/// `v` as an f64 rounded to odd: exact when it fits in 53 bits, otherwise its top
/// 53 bits with the last one set if any bit below was dropped. Rounding that once
/// more, to nearest even, into a format at least two bits narrower (f32, f16,
/// bf16) gives `v` correctly rounded (Boldo and Melquiond, "When double rounding
/// is odd", 2005).
pub(crate) fn i128_to_f64_odd(v: i128) -> f64 {
    let m = v.unsigned_abs();
    let drop = (128 - m.leading_zeros()).saturating_sub(53);
    if drop == 0 {
        return v as f64;
    }
    let t = (m >> drop) | u128::from(m & ((1u128 << drop) - 1) != 0);
    // t < 2^53 and 2^drop (drop <= 75) are exact, and so is their product.
    let r = t as f64 * f64::from_bits((1023 + drop as u64) << 52);
    if v < 0 {
        -r
    } else {
        r
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::{i128_to_f64_odd, round_f64_bits};
    use half::{bf16, f16};

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            // splitmix64
            self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = self.0;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        }
    }

    /// f64 inputs that stress a rounding into f32: random bit patterns, and
    /// random f32 values, the midpoints to their neighbours and one f64 unit
    /// either side of those midpoints, both signs.
    fn inputs() -> Vec<f64> {
        let mut r = Rng(7);
        let mut v = vec![
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
            f64::MAX,
        ];
        for _ in 0..200_000 {
            v.push(f64::from_bits(r.next()));
            let a = f32::from_bits(r.next() as u32 & 0x7fff_ffff);
            if !a.is_finite() {
                continue;
            }
            let b = f32::from_bits(a.to_bits() + 1);
            let mid = (a as f64 + b as f64) / 2.0;
            for m in [
                mid,
                f64::from_bits(mid.to_bits() + 1),
                f64::from_bits(mid.to_bits() - 1),
            ] {
                v.extend([m, -m]);
            }
        }
        v
    }

    pub(crate) fn f64_to_f32_bits_match_rust_as() {
        for x in inputs() {
            let got = round_f64_bits(x, 23, 8) as u32;
            let want = x as f32;
            if want.is_nan() {
                assert!(f32::from_bits(got).is_nan(), "{x:e}");
            } else {
                assert_eq!(
                    got,
                    want.to_bits(),
                    "{x:e}: {} vs {want}",
                    f32::from_bits(got)
                );
            }
        }
    }

    /// On an f32 input the f64 rounding agrees with `half`'s f32 conversions
    /// (one rounding there as well, as an f32 has no low word to drop).
    pub(crate) fn f32_inputs_match_half_from_f32() {
        let mut r = Rng(11);
        for _ in 0..400_000 {
            let a = f32::from_bits(r.next() as u32);
            if a.is_nan() {
                continue;
            }
            let x = a as f64;
            assert_eq!(
                round_f64_bits(x, 10, 5) as u16,
                f16::from_f32(a).to_bits(),
                "{a:e}"
            );
            assert_eq!(
                round_f64_bits(x, 7, 8) as u16,
                bf16::from_f32(a).to_bits(),
                "{a:e}"
            );
        }
    }

    pub(crate) fn halves_round_once_from_f64() {
        let x = 1.0 + 2f64.powi(-11) + 2f64.powi(-30);
        assert_eq!(
            f16::from_bits(round_f64_bits(x, 10, 5) as u16).to_f64(),
            1.0009765625
        );
        let x = 1.0 + 2f64.powi(-8) + 2f64.powi(-30);
        assert_eq!(
            bf16::from_bits(round_f64_bits(x, 7, 8) as u16).to_f64(),
            1.0078125
        );
        // Overflow threshold of f16 (65520) ties to infinity, just below stays.
        assert_eq!(round_f64_bits(65520.0, 10, 5), 0x7c00);
        assert_eq!(round_f64_bits(65519.99, 10, 5), 0x7bff);
        // Half the smallest subnormal ties to zero; one unit past it does not.
        assert_eq!(round_f64_bits(-(2f64.powi(-25)), 10, 5), 0x8000);
        assert_eq!(
            round_f64_bits(2f64.powi(-25) * (1.0 + f64::EPSILON), 10, 5),
            1
        );
        assert_eq!(round_f64_bits(f64::NAN, 10, 5) & 0x7e00, 0x7e00);
    }

    pub(crate) fn odd_rounding_then_f32_matches_rust_as() {
        let mut r = Rng(3);
        for _ in 0..200_000 {
            let (a, k) = (r.next(), r.next() % 64);
            for v in [(a >> k) as i128, -((a >> k) as i128), a as i64 as i128] {
                let f = i128_to_f64_odd(v);
                assert_eq!(f as f32, v as f32, "{v}");
                if v.unsigned_abs() < 1 << 53 {
                    assert_eq!(f, v as f64);
                }
            }
        }
        assert_eq!(
            i128_to_f64_odd((1 << 60) + (1 << 36) + 1) as f32,
            2f32.powi(60) + 2f32.powi(37)
        );
    }
}
