//! Shared helpers of the math and activation tests: input sets that cover the
//! whole float range plus edge values, ULP error against an f64 reference, and a
//! checker that runs a vmath kernel over at least 10^6 inputs in odd-sized chunks;
//! and `TmpDir`, a scratch directory for the file tests, removed on drop.
#![allow(dead_code)]

use rnx::backend::cpu::vmath::{self, Isa, MathFn};
use std::path::PathBuf;

/// Error of `y` in f32 ULPs of the reference `r` (an f64 far more precise than
/// f32); NaN must match NaN; a result that overflowed counts as 2^128.
pub fn ulp_err_f32(y: f32, r: f64) -> f64 {
    if r.is_nan() || y.is_nan() {
        return if r.is_nan() && y.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if y as f64 == r || y == r as f32 && (r as f32).is_infinite() {
        return 0.0;
    }
    if r.is_infinite() {
        return f64::INFINITY;
    }
    let yv = if y.is_infinite() {
        (2f64).powi(128).copysign(y as f64)
    } else {
        y as f64
    };
    let a = r.abs().max(f32::MIN_POSITIVE as f64);
    let e = ((a.to_bits() >> 52) as i32 - 1023).min(127);
    (yv - r).abs() / pow2(e - 23)
}

/// 2^e for e in [-1074, 1023], exactly.
pub fn pow2(e: i32) -> f64 {
    if e >= -1022 {
        f64::from_bits(((e + 1023) as u64) << 52)
    } else {
        f64::from_bits(1u64 << (e + 1074))
    }
}

/// Error of `y` in f64 ULPs of the reference `r` (itself a rounded f64 from a
/// libm within 1 ULP: the true error is at most this plus the reference's).
pub fn ulp_err_f64(y: f64, r: f64) -> f64 {
    if r.is_nan() || y.is_nan() {
        return if r.is_nan() && y.is_nan() {
            0.0
        } else {
            f64::INFINITY
        };
    }
    if y == r {
        return 0.0;
    }
    if r.is_infinite() || y.is_infinite() {
        // One of them overflowed: fine only at the edge of the range.
        let other = if r.is_infinite() { y } else { r };
        return if other.abs() >= f64::MAX * (1.0 - 1e-15) {
            1.0
        } else {
            f64::INFINITY
        };
    }
    let a = r.abs().max(f64::MIN_POSITIVE);
    let e = (a.to_bits() >> 52) as i32 - 1023;
    (y - r).abs() / pow2(e - 52)
}

/// A small deterministic generator (xorshift64*).
pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

const F32_EDGES: [f32; 16] = [
    0.0,
    -0.0,
    f32::INFINITY,
    f32::NEG_INFINITY,
    f32::NAN,
    f32::MIN_POSITIVE,
    -f32::MIN_POSITIVE,
    1e-45,
    -1e-45,
    1e-40,
    -1e-40,
    f32::MAX,
    f32::MIN,
    1.0,
    -1.0,
    f32::EPSILON,
];

/// At least 10^6 f32 inputs: 2^20 bit patterns spread evenly over all 2^32
/// (every sign, exponent, NaN, ±∞, subnormal), 2^18 points spread over each
/// `range`, the edge values and `extra` (thresholds of the function).
pub fn inputs_f32(ranges: &[(f32, f32)], extra: &[f32]) -> Vec<f32> {
    let mut v: Vec<f32> = (0u32..1 << 20)
        .map(|i| {
            f32::from_bits(
                i.wrapping_mul(4096)
                    .wrapping_add(i.wrapping_mul(2654435761) >> 20),
            )
        })
        .collect();
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for &(lo, hi) in ranges {
        for _ in 0..1 << 18 {
            v.push((lo as f64 + (hi as f64 - lo as f64) * rng.unit()) as f32);
        }
    }
    v.extend_from_slice(&F32_EDGES);
    for &x in extra {
        for d in -2i32..=2 {
            let b = (x.to_bits() as i64 + d as i64) as u32;
            v.push(f32::from_bits(b));
        }
    }
    v
}

const F64_EDGES: [f64; 16] = [
    0.0,
    -0.0,
    f64::INFINITY,
    f64::NEG_INFINITY,
    f64::NAN,
    f64::MIN_POSITIVE,
    -f64::MIN_POSITIVE,
    5e-324,
    -5e-324,
    1e-310,
    -1e-310,
    f64::MAX,
    f64::MIN,
    1.0,
    -1.0,
    f64::EPSILON,
];

/// At least 10^6 f64 inputs: 2^19 random bit patterns (every exponent), 2^18
/// random points in each `range`, edge values and `extra` (with neighbours).
pub fn inputs_f64(ranges: &[(f64, f64)], extra: &[f64]) -> Vec<f64> {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut v: Vec<f64> = (0..1 << 19).map(|_| f64::from_bits(rng.next())).collect();
    for &(lo, hi) in ranges {
        for _ in 0..1 << 18 {
            v.push(lo + (hi - lo) * rng.unit());
        }
    }
    while v.len() < 1_000_000 {
        // Log-uniform magnitudes in [1e-6, 1e6] of both signs.
        let m = (10f64).powf(rng.unit() * 12.0 - 6.0);
        v.push(if rng.next() & 1 == 1 { m } else { -m });
    }
    v.extend_from_slice(&F64_EDGES);
    for &x in extra {
        for d in -2i64..=2 {
            v.push(f64::from_bits((x.to_bits() as i64 + d) as u64));
        }
    }
    v
}

/// The worst error and its input.
#[derive(Debug)]
pub struct Worst<T> {
    pub ulp: f64,
    pub x: T,
    pub got: T,
    pub want: f64,
}

/// Run `func` over `xs` on `isa` in chunks of odd lengths (exercising the
/// vector tails) and return the largest ULP error against `reference`.
pub fn worst_f32(
    isa: Isa,
    func: MathFn,
    xs: &[f32],
    refs: &[f64],
    tol: &dyn Fn(f64, f64) -> f64,
) -> Worst<f32> {
    let mut out = vec![0f32; xs.len()];
    let mut i = 0;
    let mut k = 0;
    while i < xs.len() {
        let len = [4099, 17, 1, 4096, 33][k % 5].min(xs.len() - i);
        vmath::map_f32_with(isa, func, &xs[i..i + len], &mut out[i..i + len]);
        i += len;
        k += 1;
    }
    let mut w = Worst {
        ulp: 0.0,
        x: 0.0,
        got: 0.0,
        want: 0.0,
    };
    for ((&x, &y), &r) in xs.iter().zip(&out).zip(refs) {
        let e = ulp_err_f32(y, r);
        let e = if e == 0.0 { 0.0 } else { e / tol(x as f64, r) };
        if e > w.ulp || e.is_nan() {
            w = Worst {
                ulp: e,
                x,
                got: y,
                want: r,
            };
        }
    }
    w
}

/// As [`worst_f32`] for f64.
pub fn worst_f64(
    isa: Isa,
    func: MathFn,
    xs: &[f64],
    refs: &[f64],
    tol: &dyn Fn(f64, f64) -> f64,
) -> Worst<f64> {
    let mut out = vec![0f64; xs.len()];
    let mut i = 0;
    let mut k = 0;
    while i < xs.len() {
        let len = [4099, 9, 1, 4096, 33][k % 5].min(xs.len() - i);
        vmath::map_f64_with(isa, func, &xs[i..i + len], &mut out[i..i + len]);
        i += len;
        k += 1;
    }
    let mut w = Worst {
        ulp: 0.0,
        x: 0.0,
        got: 0.0,
        want: 0.0,
    };
    for ((&x, &y), &r) in xs.iter().zip(&out).zip(refs) {
        let e = ulp_err_f64(y, r);
        let e = if e == 0.0 { 0.0 } else { e / tol(x, r) };
        if e > w.ulp || e.is_nan() {
            w = Worst {
                ulp: e,
                x,
                got: y,
                want: r,
            };
        }
    }
    w
}

/// The paths to test: portable always, AVX2+FMA and AVX-512 where the CPU
/// has them (and `RNX_SIMD` does not cap them).
pub fn isas() -> Vec<Isa> {
    [Isa::Portable, Isa::Avx2Fma, Isa::Avx512]
        .into_iter()
        .filter(|&i| i <= Isa::best())
        .collect()
}

/// Check `func` on f32 against `reference` within `max_ulp` on every path.
pub fn check_f32(func: MathFn, xs: &[f32], max_ulp: f64, reference: impl Fn(f64) -> f64 + Copy) {
    assert!(xs.len() >= 1_000_000);
    let refs: Vec<f64> = xs.iter().map(|&x| reference(x as f64)).collect();
    for isa in isas() {
        let w = worst_f32(isa, func, xs, &refs, &|_, _| 1.0);
        println!("{func:?} f32 {isa:?}: max {:.3} ULP at {:?}", w.ulp, w);
        assert!(
            w.ulp <= max_ulp,
            "{func:?} f32 {isa:?}: {w:?} > {max_ulp} ULP"
        );
    }
}

/// Check `func` on f64 against `reference` within `max_ulp` on every path.
pub fn check_f64(func: MathFn, xs: &[f64], max_ulp: f64, reference: impl Fn(f64) -> f64 + Copy) {
    assert!(xs.len() >= 1_000_000);
    let refs: Vec<f64> = xs.iter().map(|&x| reference(x)).collect();
    for isa in isas() {
        let w = worst_f64(isa, func, xs, &refs, &|_, _| 1.0);
        println!("{func:?} f64 {isa:?}: max {:.3} ULP at {:?}", w.ulp, w);
        assert!(
            w.ulp <= max_ulp,
            "{func:?} f64 {isa:?}: {w:?} > {max_ulp} ULP"
        );
    }
}

/// Check `func` on f32 with a per-input allowance: the error in ULPs divided by
/// `tol(x, reference)` must stay within 1.
pub fn check_f32_tol(
    func: MathFn,
    xs: &[f32],
    reference: impl Fn(f64) -> f64,
    tol: impl Fn(f64, f64) -> f64,
) {
    assert!(xs.len() >= 1_000_000);
    let refs: Vec<f64> = xs.iter().map(|&x| reference(x as f64)).collect();
    for isa in isas() {
        let w = worst_f32(isa, func, xs, &refs, &tol);
        println!(
            "{func:?} f32 {isa:?}: max {:.3} of allowance at {:?}",
            w.ulp, w
        );
        assert!(
            w.ulp <= 1.0,
            "{func:?} f32 {isa:?}: {w:?} over the allowance"
        );
    }
}

/// As [`check_f32_tol`] for f64.
pub fn check_f64_tol(
    func: MathFn,
    xs: &[f64],
    reference: impl Fn(f64) -> f64,
    tol: impl Fn(f64, f64) -> f64,
) {
    assert!(xs.len() >= 1_000_000);
    let refs: Vec<f64> = xs.iter().map(|&x| reference(x)).collect();
    for isa in isas() {
        let w = worst_f64(isa, func, xs, &refs, &tol);
        println!(
            "{func:?} f64 {isa:?}: max {:.3} of allowance at {:?}",
            w.ulp, w
        );
        assert!(
            w.ulp <= 1.0,
            "{func:?} f64 {isa:?}: {w:?} over the allowance"
        );
    }
}

/// A fresh directory removed on drop.
pub(crate) struct TmpDir(pub(crate) PathBuf);

impl TmpDir {
    pub(crate) fn new(name: &str) -> TmpDir {
        let p = std::env::temp_dir().join(format!("rnx-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&p);
        std::fs::create_dir_all(&p).unwrap();
        TmpDir(p)
    }
    pub(crate) fn path(&self, f: &str) -> PathBuf {
        self.0.join(f)
    }
    /// The names of the files in the directory, sorted.
    pub(crate) fn files(&self) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(&self.0)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    }
}

impl Drop for TmpDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
