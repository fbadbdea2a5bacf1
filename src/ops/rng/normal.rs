//! Standard normals by Box-Muller, in batches: Threefry blocks for 16
//! counters at a time and the transform `sqrt(-2 ln u1) cos(2 pi u2)` as one
//! branch-free f64 body (fdlibm's logarithm and its sine/cosine kernels on an
//! exact reduction of `u2`), which LLVM vectorises over 16 lanes at the
//! widest SIMD level. Plain f64 arithmetic only (no fused multiply-add, no
//! libm), so every SIMD level, the scalar form [`box_muller`] and every
//! thread count give the same bits. Writes straight into the result's
//! buffer, chunk by chunk over the pool.

use super::lanes::{counters, threefry_lanes, L};
use crate::backend::cpu::elementwise::simd::with_widest;
use crate::device::Device;
use crate::dtype::{DType, Element};
use crate::error::Result;
use crate::layout::checked_numel;
use crate::random::threefry2x32;
use crate::tensor::Tensor;

/// Elements per parallel task.
const TASK: usize = 1 << 14;

// fdlibm's e_log.c constants (its digits, which parse to its bits).
#[allow(clippy::excessive_precision)]
pub(crate) const LN2_HI: f64 = 6.931_471_803_691_238_164_90e-01;
#[allow(clippy::excessive_precision)]
pub(crate) const LN2_LO: f64 = 1.908_214_929_270_587_700_02e-10;
#[allow(clippy::excessive_precision)]
pub(crate) const LG: [f64; 7] = [
    6.666_666_666_666_735_130e-01,
    3.999_999_999_940_941_908e-01,
    2.857_142_874_366_239_149e-01,
    2.222_219_843_214_978_396e-01,
    1.818_357_216_161_805_012e-01,
    1.531_383_769_920_937_332e-01,
    1.479_819_860_511_658_591e-01,
];

/// ln x for a positive normal f64 (fdlibm's `__ieee754_log` without its
/// special cases, both of its final arrangements computed and one selected:
/// under 1 ULP). Plain f64 arithmetic: the same bits on every platform
/// and SIMD level (also `exponential`'s logarithm).
#[inline(always)]
pub(super) fn ln(x: f64) -> f64 {
    let bits = x.to_bits();
    let hx = (bits >> 32) as u32;
    let mut k = (hx >> 20) as i32 - 1023;
    let m = hx & 0x000f_ffff;
    let i = (m.wrapping_add(0x95f64)) & 0x0010_0000;
    // x or x/2 scaled into [sqrt(2)/2, sqrt(2)).
    let hy = m | (i ^ 0x3ff0_0000);
    let y = f64::from_bits(((hy as u64) << 32) | (bits & 0xffff_ffff));
    k += (i >> 20) as i32;
    let f = y - 1.0;
    let s = f / (2.0 + f);
    let dk = k as f64;
    let z = s * s;
    let w = z * z;
    let t1 = w * (LG[1] + w * (LG[3] + w * LG[5]));
    let t2 = z * (LG[0] + w * (LG[2] + w * (LG[4] + w * LG[6])));
    let r = t2 + t1;
    let hfsq = 0.5 * f * f;
    let a = dk * LN2_HI - ((hfsq - (s * (hfsq + r) + dk * LN2_LO)) - f);
    let b = dk * LN2_HI - ((s * (f - r) - dk * LN2_LO) - f);
    let sel = ((m as i32).wrapping_sub(0x6147a) | (0x6b851i32.wrapping_sub(m as i32))) > 0;
    if sel {
        a
    } else {
        b
    }
}

// fdlibm's k_sin.c / k_cos.c constants (its digits, which parse to its
// bits).
#[allow(clippy::excessive_precision)]
pub(crate) const S: [f64; 6] = [
    -1.666_666_666_666_663_243_48e-01,
    8.333_333_333_322_489_461_24e-03,
    -1.984_126_982_985_794_931_34e-04,
    2.755_731_370_707_006_767_89e-06,
    -2.505_076_025_340_686_341_95e-08,
    1.589_690_995_211_550_102_21e-10,
];
#[allow(clippy::excessive_precision)]
pub(crate) const C: [f64; 6] = [
    4.166_666_666_666_660_190_37e-02,
    -1.388_888_888_887_410_957_49e-03,
    2.480_158_728_947_672_941_78e-05,
    -2.755_731_435_139_066_330_35e-07,
    2.087_572_321_298_174_827_90e-09,
    -1.135_964_755_778_819_482_65e-11,
];

/// sin x and cos x for |x| <= pi/4 (fdlibm's kernels with no tail).
#[inline(always)]
fn sin_cos(x: f64) -> (f64, f64) {
    let z = x * x;
    let w = z * z;
    let r = S[1] + z * (S[2] + z * S[3]) + z * w * (S[4] + z * S[5]);
    let sin = x + z * x * (S[0] + z * r);
    let rc = z * (C[0] + z * (C[1] + z * C[2])) + w * w * (C[3] + z * (C[4] + z * C[5]));
    let hz = 0.5 * z;
    let v = 1.0 - hz;
    let cos = v + (((1.0 - v) - hz) + z * rc);
    (sin, cos)
}

/// 2 pi as the sum of a 21-bit part (so that `TAU_HI * r` is exact for the
/// reduced `r`, 30 significant bits at most) and the rest.
pub(crate) const TAU_HI: f64 = 6.283_184_051_513_672; // 0x401921fb00000000
pub(crate) const TAU_LO: f64 = 1.255_665_914_601_925_2e-6;

/// The standard normal of one Threefry block: `u1 = (b0 + 1) 2^-32` in
/// `(0, 1]`, `u2 = b1 2^-32` in `[0, 1)`, `sqrt(-2 ln u1) cos(2 pi u2)`.
/// `cos(2 pi u2)` is reduced exactly: `u2 = q/4 + r` with `|r| <= 1/8`, then
/// the kernel of `+-cos` or `+-sin` at `2 pi r`. |value| <= 6.66.
#[inline(always)]
pub(super) fn box_muller_body(b0: u32, b1: u32) -> f64 {
    let u1 = (b0 as f64 + 1.0) * (1.0 / 4_294_967_296.0);
    let rho = (-2.0 * ln(u1)).sqrt();
    // Quarter turns: q = round(4 u2) (0..=4), r = u2 - q/4, both exact.
    let q = (b1 >> 30).wrapping_add((b1 >> 29) & 1); // 0..=4
                                                     // b1 - q 2^30 in [-2^29, 2^29) (q = 4 wraps to b1 - 2^32).
    let ri = b1.wrapping_sub(q.wrapping_shl(30)) as i32;
    let r = ri as f64 * (1.0 / 4_294_967_296.0);
    let a = r * TAU_HI + r * TAU_LO;
    let (s, c) = sin_cos(a);
    // cos(2 pi (q/4 + r)) = cos a, -sin a, -cos a, sin a for q mod 4 = 0..3
    // (selects, no branches).
    let v = if q & 1 == 1 { s } else { c };
    let v = if (q.wrapping_add(1)) & 2 == 2 { -v } else { v };
    rho * v
}

/// [`box_muller_body`] of the block of `counter` under `key`.
pub(super) fn box_muller(key: [u32; 2], counter: u64) -> f64 {
    let [b0, b1] = threefry2x32(key, [counter as u32, (counter >> 32) as u32]);
    box_muller_body(b0, b1)
}

/// `out[j] = f(normal of counter start + j)`, 16 lanes at a time.
#[inline(always)]
fn batch(key: [u32; 2], start: u64, out: &mut [f64]) {
    let mut it = out.chunks_exact_mut(L);
    let mut c = start;
    for chunk in &mut it {
        let (lo, hi) = counters(c);
        let (b0, b1) = threefry_lanes(key, &lo, &hi);
        let mut z = [0f64; L];
        for l in 0..L {
            z[l] = box_muller_body(b0[l], b1[l]);
        }
        chunk.copy_from_slice(&z);
        c += L as u64;
    }
    for (j, o) in it.into_remainder().iter_mut().enumerate() {
        *o = box_muller(key, c + j as u64);
    }
}

/// Normals `mean + std z` (z standard, element `i` from counter `i` under
/// `key`) of `shape` in the float `dtype` (rounded once), on `device`.
pub(super) fn fill(
    op: &str,
    dtype: DType,
    shape: &[usize],
    device: Device,
    key: [u32; 2],
    (mean, std): (f64, f64),
) -> Result<Tensor> {
    checked_numel(op, shape)?;
    if dtype.is_fp8() {
        // Drawn in f64, then one rounding by the cast.
        let wide = fill(op, DType::F64, shape, Device::Cpu, key, (mean, std))?;
        return wide.cast(dtype)?.to_device(device);
    }
    let out = crate::dispatch!(@float dtype, op, T => {
        Tensor::cpu_filled::<T>(shape, |all| write::<T>(all, key, mean, std))?
    });
    out.to_device(device)
}

fn write<T: Element>(all: &mut [T], key: [u32; 2], mean: f64, std: f64) {
    crate::backend::cpu::team::par_chunks_mut(all, TASK, &|start, chunk| {
        let mut buf = [0f64; 1024];
        for (k, part) in chunk.chunks_mut(buf.len()).enumerate() {
            let b = &mut buf[..part.len()];
            let first = (start + k * 1024) as u64;
            with_widest(
                #[inline(always)]
                || {
                    batch(key, first, b);
                    for (o, &z) in part.iter_mut().zip(b.iter()) {
                        let z = std * z;
                        *o = T::from_f64(if mean == 0.0 { z } else { mean + z });
                    }
                },
            );
        }
    });
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;

    /// `Key::exponential` (f64) gives `-ln(1 - u)` with this file's `ln`,
    /// computed here one element at a time outside any SIMD copy, bit for
    /// bit (the suite reruns this at every SIMD level), and within 1 ULP of
    /// the platform's libm: lengths around the lane count and a chunk edge.
    pub(crate) fn exponential_uses_the_plain_logarithm() {
        use crate::ops::rng::{draw::unit53, Key};
        let key = Key::new(0x0e0e_1234);
        for n in [1usize, 15, 16, 17, 1025, 16_401] {
            let got = key
                .exponential(DType::F64, &[n], Device::Cpu)
                .unwrap()
                .to_vec::<f64>()
                .unwrap();
            for (i, &g) in got.iter().enumerate() {
                let u = unit53(threefry2x32(key.words(), [i as u32, 0]));
                let want = -ln(1.0 - u);
                assert_eq!(g.to_bits(), want.to_bits(), "n {n} element {i}");
                let libm = -(1.0 - u).ln();
                let ulps = (g.to_bits() as i64 - libm.to_bits() as i64).abs();
                assert!(ulps <= 1, "n {n} element {i}: {g} against libm {libm}");
            }
        }
    }

    /// The lane form of Threefry gives the scalar blocks, and the batch
    /// (16-lane part and tail) gives the scalar transform's bits, also where
    /// the counters cross 2^32 (the high word changes).
    pub(crate) fn lanes_and_batches_match_the_scalar_forms() {
        let key = [0x1234_5678, 0x9abc_def0];
        let lo: [u32; L] = std::array::from_fn(|l| (l as u32).wrapping_mul(0x9e37_79b9));
        let hi: [u32; L] = std::array::from_fn(|l| l as u32 * 3);
        let (b0, b1) = threefry_lanes(key, &lo, &hi);
        for l in 0..L {
            assert_eq!([b0[l], b1[l]], threefry2x32(key, [lo[l], hi[l]]));
        }
        for start in [0u64, (1 << 32) - 37] {
            let mut out = vec![0f64; 103];
            with_widest(|| batch(key, start, &mut out));
            for (j, &v) in out.iter().enumerate() {
                assert_eq!(v.to_bits(), box_muller(key, start + j as u64).to_bits());
            }
        }
    }

    /// The transform stays within 1e-14 (relative, absolute below 1) of the
    /// libm formula it replaces, on the quarter-turn edges of `b1` and on
    /// 200,000 pseudo-random blocks; `ln` within 2 ULP of the platform's.
    pub(crate) fn transform_matches_the_libm_formula() {
        let mut worst = 0f64;
        let edges = [
            0u32,
            1,
            2,
            0x1fff_ffff,
            0x2000_0000,
            0x3fff_ffff,
            0x4000_0000,
        ];
        let mut s = 7u64;
        for k in 0..200_000u64 {
            s = s
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let (b0, b1) = if k < 49 {
                let e = |j: u64| {
                    edges[(j % 7) as usize].wrapping_add(if j > 20 { 0xc000_0000 } else { 0 })
                };
                (e(k / 7), e(k))
            } else {
                ((s >> 32) as u32, s as u32)
            };
            let u1 = (b0 as f64 + 1.0) * (-32f64).exp2();
            let u2 = b1 as f64 * (-32f64).exp2();
            let want = (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos();
            let got = box_muller_body(b0, b1);
            // The old formula rounds 2 pi u2 first: an absolute error of
            // about 1e-15 near the zeros of the cosine.
            worst = worst.max((got - want).abs() / want.abs().max(1.0));
        }
        assert!(worst < 1e-14, "error {worst}");
        // Exact values: u1 = 1 gives 0; b1 = 0 gives cos 0 = 1 and
        // b1 = 2^31 gives cos pi = -1, times sqrt(-2 ln 2^-32) for b0 = 0.
        assert_eq!(box_muller_body(u32::MAX, 12345), 0.0);
        let r = (64.0 * std::f64::consts::LN_2).sqrt();
        assert!((box_muller_body(0, 0) - r).abs() <= 4.0 * f64::EPSILON * r);
        assert!((box_muller_body(0, 1 << 31) + r).abs() <= 4.0 * f64::EPSILON * r);
        for &x in &[
            2f64.powi(-32),
            1e-5,
            0.3,
            // Either side of ln's switch at sqrt(2)/2.
            std::f64::consts::FRAC_1_SQRT_2 - 1e-5,
            std::f64::consts::FRAC_1_SQRT_2 + 1e-5,
            0.999_999,
            1.0,
            1.5,
            1e10,
        ] {
            let (a, b) = (ln(x), x.ln());
            assert!(
                (a - b).abs() <= 2.0 * f64::EPSILON * b.abs().max(1e-300),
                "ln {x}: {a} vs {b}"
            );
        }
    }
}
