//! `cast` between the 14 dtypes against expectations computed without rnx (Rust's
//! `as`, and a search over the 16-bit formats' values for f16 / bf16):
//! integer -> integer wraps as `as` does (every ordered pair of the eight integer
//! dtypes, at and past both ends of every range); every cast to a float dtype
//! rounds once, to nearest even (each source dtype to each float dtype, on values
//! at and one unit either side of rounding midpoints, both signs); float ->
//! integer truncates and saturates with NaN -> 0; complex -> real keeps the real
//! part. Each check runs on a contiguous input, a flipped stepped view (stride
//! -2) and a transposed view (the tiled path), of 2^16 elements or more (enough to
//! be split over threads) unless said otherwise.

use crate::common::pow2;
use rnx::{bf16, f16, Complex, DType, Element, Scalar, Tensor};
use std::cmp::Ordering;

const ALL: [DType; 14] = [
    DType::F16,
    DType::BF16,
    DType::F32,
    DType::F64,
    DType::C32,
    DType::C64,
    DType::I8,
    DType::I16,
    DType::I32,
    DType::I64,
    DType::U8,
    DType::U16,
    DType::U32,
    DType::U64,
];

const FLOATS: [DType; 6] = [
    DType::F16,
    DType::BF16,
    DType::F32,
    DType::F64,
    DType::C32,
    DType::C64,
];

/// Columns of the transposed view ([rows, COLS] over a [COLS, rows] base); the
/// tiled path needs both extents >= 64.
const COLS: usize = 64;

// ----- running a cast through the three layouts -----

fn tensor_of(dt: DType, vals: &[Scalar], shape: &[usize]) -> Tensor {
    rnx::dispatch!(dt, T => {
        Tensor::from_vec(vals.iter().map(|s| s.get::<T>()).collect(), shape).unwrap()
    })
}

fn values_of(t: &Tensor) -> Vec<Scalar> {
    rnx::dispatch!(t.dtype(), T => {
        t.to_vec::<T>().unwrap().into_iter().map(|x| x.to_scalar()).collect()
    })
}

/// Same dtype and same value: integers exactly, floats bit for bit (so the sign
/// of zero counts), any NaN matching any NaN.
fn same(a: Scalar, b: Scalar) -> bool {
    if a.dtype() != b.dtype() {
        return false;
    }
    if let (Some(x), Some(y)) = (a.to_i128(), b.to_i128()) {
        return x == y;
    }
    let (ar, ai) = a.to_re_im();
    let (br, bi) = b.to_re_im();
    let eq = |x: f64, y: f64| (x.is_nan() && y.is_nan()) || x.to_bits() == y.to_bits();
    eq(ar, br) && eq(ai, bi)
}

/// Cast `input` (scalars of one dtype) to `dst` and compare element i with
/// `want[i]`, through a contiguous tensor, a flipped stepped view and a
/// transposed view, each of at least `min_len` elements (`input` repeated).
fn check(input: &[Scalar], dst: DType, want: &[Scalar], min_len: usize, what: &str) {
    assert_eq!(input.len(), want.len());
    let src = input[0].dtype();
    let n = min_len.max(COLS * COLS).max(input.len()).div_ceil(COLS) * COLS;
    let at = |i: usize| i % input.len();
    let cyc: Vec<Scalar> = (0..n).map(|i| input[at(i)]).collect();
    let contiguous = tensor_of(src, &cyc, &[n]);
    // base[2n - 1 - 2i] = cyc[i]; flipped, then every second element.
    let mut b = vec![cyc[0]; 2 * n];
    for (i, &v) in cyc.iter().enumerate() {
        b[2 * n - 1 - 2 * i] = v;
    }
    let stepped = tensor_of(src, &b, &[2 * n])
        .flip(None)
        .unwrap()
        .slice_ranges(&[0], &[2 * n as isize], Some(&[2]))
        .unwrap();
    // view[i][j] = base[j][i] = cyc[i * COLS + j].
    let rows = n / COLS;
    let mut t = vec![cyc[0]; n];
    for i in 0..rows {
        for j in 0..COLS {
            t[j * rows + i] = cyc[i * COLS + j];
        }
    }
    let transposed = tensor_of(src, &t, &[COLS, rows]).transpose(None).unwrap();
    for (name, v) in [
        ("contiguous", contiguous),
        ("stepped", stepped),
        ("transposed", transposed),
    ] {
        assert_eq!(v.is_c_contiguous(), name == "contiguous");
        let c = v.cast(dst).unwrap();
        assert_eq!(c.shape(), v.shape());
        let got = values_of(&c);
        let bad: Vec<usize> = (0..n).filter(|&i| !same(got[i], want[at(i)])).collect();
        if let Some(&i) = bad.first() {
            panic!(
                "{what}: {src} -> {dst} ({name}, {n} elements): {} wrong; {:?} gave {:?}, expected {:?}",
                bad.len(),
                input[at(i)],
                got[i],
                want[at(i)]
            );
        }
    }
}

// ----- integer -> integer: wraps, as Rust's `as` -----

/// Every integer dtype's ends and the values just past them, and a few more.
fn int_edges() -> Vec<i128> {
    let ends: [(i128, i128); 8] = [
        (i8::MIN as i128, i8::MAX as i128),
        (i16::MIN as i128, i16::MAX as i128),
        (i32::MIN as i128, i32::MAX as i128),
        (i64::MIN as i128, i64::MAX as i128),
        (0, u8::MAX as i128),
        (0, u16::MAX as i128),
        (0, u32::MAX as i128),
        (0, u64::MAX as i128),
    ];
    let mut v: Vec<i128> = vec![300, -300, 38683, -38683, 0x1234_5678_9abc_def0];
    for (lo, hi) in ends {
        for d in -2..=2 {
            v.extend([lo + d, hi + d]);
        }
    }
    v
}

/// `S -> D` on every edge value `S` holds, against `conv` (an `as`).
fn int_pair<S: Element + TryFrom<i128>, D: Element>(conv: fn(S) -> D) {
    let xs: Vec<S> = int_edges()
        .into_iter()
        .filter_map(|v| S::try_from(v).ok())
        .collect();
    let input: Vec<Scalar> = xs.iter().map(|x| x.to_scalar()).collect();
    let want: Vec<Scalar> = xs.iter().map(|&x| conv(x).to_scalar()).collect();
    check(&input, D::DTYPE, &want, 1 << 16, "integer -> integer");
}

macro_rules! int_pairs {
    ($($s:ty),*) => {$(
        int_pairs!(@to $s: i8, i16, i32, i64, u8, u16, u32, u64);
    )*};
    (@to $s:ty: $($d:ty),*) => {$(
        int_pair::<$s, $d>(|x| x as $d);
    )*};
}

#[test]
fn integer_casts_wrap_like_as() {
    int_pairs!(i8, i16, i32, i64, u8, u16, u32, u64);
}

// ----- to a float dtype: one rounding -----

/// A real source value, exactly: an integer, or an f64 (every float dtype's
/// values are exact in f64).
#[derive(Clone, Copy, Debug)]
enum Real {
    Int(i128),
    Float(f64),
}

/// The real and imaginary parts of a scalar, exactly.
fn parts(s: Scalar) -> (Real, f64) {
    match s.to_i128() {
        Some(i) => (Real::Int(i), 0.0),
        None => {
            let (re, im) = s.to_re_im();
            (Real::Float(re), im)
        }
    }
}

/// |m| compared with a non-negative f64 `y`, exactly.
fn cmp_mag(m: Real, y: f64) -> Ordering {
    match m {
        Real::Float(f) => f.abs().partial_cmp(&y).unwrap(),
        Real::Int(i) => {
            let i = i.unsigned_abs();
            if y >= pow2(100) {
                Ordering::Less
            } else if y.fract() == 0.0 {
                i.cmp(&(y as u128))
            } else if i <= y.floor() as u128 {
                Ordering::Less
            } else {
                Ordering::Greater
            }
        }
    }
}

/// The bits of `x` rounded once, to nearest with ties to even, into a 16-bit
/// float format given by its bit -> value map (exact in f64) and its infinity.
/// The non-negative values increase with their bits, so a binary search finds
/// the two neighbours of |x|; the midpoint between them (one bit longer than the
/// format: exact in f64) decides. Past the largest finite value the next
/// neighbour is the power of two where the exponent would go on (infinity).
fn nearest16(x: Real, value: fn(u16) -> f64, inf: u16) -> u16 {
    let (neg, nan) = match x {
        Real::Int(i) => (i < 0, false),
        Real::Float(f) => (f.is_sign_negative(), f.is_nan()),
    };
    let sign = if neg { 0x8000 } else { 0 };
    if nan {
        return inf | 0x40 | sign;
    }
    let v = |b: u16| {
        if b == inf {
            2.0 * value(inf - 1) - value(inf - 2)
        } else {
            value(b)
        }
    };
    // The largest b in 0..=inf with v(b) <= |x|.
    let (mut lo, mut hi) = (0u16, inf);
    while lo < hi {
        let m = lo + (hi - lo).div_ceil(2);
        if cmp_mag(x, v(m)) == Ordering::Less {
            hi = m - 1;
        } else {
            lo = m;
        }
    }
    let b = if lo == inf || cmp_mag(x, v(lo)) == Ordering::Equal {
        lo
    } else {
        match cmp_mag(x, (v(lo) + v(lo + 1)) / 2.0) {
            Ordering::Less => lo,
            Ordering::Greater => lo + 1,
            Ordering::Equal => lo + (lo & 1),
        }
    };
    b | sign
}

fn f16_value(b: u16) -> f64 {
    f16::from_bits(b).to_f64()
}
fn bf16_value(b: u16) -> f64 {
    bf16::from_bits(b).to_f64()
}

/// The real `x` in the real float dtype `dt`: Rust's `as` for f32 and f64
/// (one rounding, from any integer or f64), [`nearest16`] for the halves.
fn round_real(x: Real, dt: DType) -> Scalar {
    match (dt, x) {
        (DType::F32, Real::Int(i)) => Scalar::F32(i as f32),
        (DType::F32, Real::Float(f)) => Scalar::F32(f as f32),
        (DType::F64, Real::Int(i)) => Scalar::F64(i as f64),
        (DType::F64, Real::Float(f)) => Scalar::F64(f),
        (DType::F16, x) => Scalar::F16(f16::from_bits(nearest16(x, f16_value, 0x7c00))),
        (DType::BF16, x) => Scalar::BF16(bf16::from_bits(nearest16(x, bf16_value, 0x7f80))),
        _ => unreachable!("{dt} is not a real float dtype"),
    }
}

/// What `cast` to the float dtype `dt` must give for `s`.
fn round_to_float(s: Scalar, dt: DType) -> Scalar {
    let (re, im) = parts(s);
    match dt {
        DType::C32 => Scalar::C32(Complex::new(
            round_real(re, DType::F32).to_f64() as f32,
            im as f32,
        )),
        DType::C64 => Scalar::C64(Complex::new(round_real(re, DType::F64).to_f64(), im)),
        d => round_real(re, d),
    }
}

/// `v` as a scalar of the real float dtype `dt` with its bits, when `dt` holds
/// `v` exactly.
fn exact_bits(dt: DType, v: f64) -> Option<u64> {
    match dt {
        DType::F16 => Some(f16::from_f64(v))
            .filter(|h| h.to_f64() == v)
            .map(|h| h.to_bits() as u64),
        DType::BF16 => Some(bf16::from_f64(v))
            .filter(|h| h.to_f64() == v)
            .map(|h| h.to_bits() as u64),
        DType::F32 => Some(v as f32)
            .filter(|&f| f as f64 == v)
            .map(|f| f.to_bits() as u64),
        _ => Some(v.to_bits()),
    }
}

fn from_bits(dt: DType, b: u64) -> f64 {
    match dt {
        DType::F16 => f16_value(b as u16),
        DType::BF16 => bf16_value(b as u16),
        DType::F32 => f32::from_bits(b as u32) as f64,
        _ => f64::from_bits(b),
    }
}

/// A scalar of `dt` holding the f64 values `re`, `im` (exact in `dt`).
fn scalar(dt: DType, re: f64, im: f64) -> Scalar {
    let s = match dt {
        DType::F16 => Scalar::F16(f16::from_f64(re)),
        DType::BF16 => Scalar::BF16(bf16::from_f64(re)),
        DType::F32 => Scalar::F32(re as f32),
        DType::F64 => Scalar::F64(re),
        DType::C32 => Scalar::C32(Complex::new(re as f32, im as f32)),
        _ => Scalar::C64(Complex::new(re, im)),
    };
    let (r, i) = s.to_re_im();
    assert!(r.to_bits() == re.to_bits() || r.is_nan() && re.is_nan());
    assert!(i == im || i.is_nan() && im.is_nan() || !dt.is_complex());
    s
}

/// Inputs of dtype `dt` at and one unit either side of the rounding midpoints of
/// every float dtype, both signs: `2^k (1 + m 2^-j)` for m = 1, 3 (the lower
/// neighbour even, and odd) at the binades around 1, the subnormals and the
/// overflow thresholds of f16, bf16 and f32; for integers `2^k + m 2^j` and one
/// either side. Plus zeros, infinities, NaN and the integer edges.
fn rounding_inputs(dt: DType) -> Vec<Scalar> {
    if dt.is_int() {
        let mut v = int_edges();
        for k in 0..64 {
            for j in 0..k {
                for m in [1i128, 3] {
                    let c = (1i128 << k) + (m << j);
                    v.extend([c - 1, c, c + 1, -c - 1, -c, 1 - c]);
                }
            }
        }
        return v
            .into_iter()
            .filter_map(|i| {
                let s = if i < 0 {
                    Scalar::I64(i64::try_from(i).ok()?)
                } else {
                    Scalar::U64(u64::try_from(i).ok()?)
                };
                s.to_dtype(dt, "test").ok()
            })
            .collect();
    }
    let real = match dt {
        DType::C32 => DType::F32,
        DType::C64 => DType::F64,
        d => d,
    };
    let mut centres: Vec<f64> = vec![
        65504.0,
        65520.0,
        65536.0,
        bf16::MAX.to_f64(),
        bf16::MAX.to_f64() + pow2(119),
        f32::MAX as f64,
        f32::MAX as f64 + pow2(103),
        f64::MAX,
        f64::MIN_POSITIVE,
    ];
    let ks = [
        -151, -150, -149, -148, -135, -134, -133, -132, -127, -126, -125, -26, -25, -24, -23, -15,
        -14, -13, -1, 0, 1, 10, 11, 15, 16, 24, 25, 53, 64, 126, 127,
    ];
    for k in ks {
        for j in 1..=60 {
            for m in [1.0, 3.0] {
                centres.push(pow2(k) * (1.0 + m * pow2(-j)));
            }
        }
    }
    let mut re: Vec<f64> = vec![0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN];
    for c in centres {
        if let Some(b) = exact_bits(real, c) {
            for b in [b.saturating_sub(1), b, b + 1] {
                let v = from_bits(real, b);
                re.extend([v, -v]);
            }
        }
    }
    // Imaginary parts: the same values in another order.
    (0..re.len())
        .map(|i| scalar(dt, re[i], re[(i * 7 + 3) % re.len()]))
        .collect()
}

#[test]
fn casts_to_float_round_once() {
    for &s in &ALL {
        let input = rounding_inputs(s);
        for &d in &FLOATS {
            let want: Vec<Scalar> = input.iter().map(|&x| round_to_float(x, d)).collect();
            check(&input, d, &want, 1 << 16, "one rounding");
        }
    }
}

/// `cast` of one value.
fn cast1<S: Element, D: Element>(x: S) -> D {
    let t = Tensor::from_vec(vec![x], &[1]).unwrap();
    t.cast(D::DTYPE).unwrap().to_vec::<D>().unwrap()[0]
}

#[test]
fn examples_from_the_issue() {
    // Integer -> integer keeps the low bits.
    assert_eq!(cast1::<i8, u8>(-128), 128);
    assert_eq!(cast1::<u16, i16>(38683), -26853);
    assert_eq!(cast1::<i32, i8>(300), 44);
    assert_eq!(cast1::<i32, u32>(i32::MIN), 2_147_483_648);
    assert_eq!(cast1::<u64, i64>(u64::MAX - 1), -2);
    // To a float dtype: one rounding, also where an intermediate f32 or f64
    // would land on the midpoint and tie the other way.
    let near_f16 = 1.0 + pow2(-11) + pow2(-30);
    let near_bf16 = 1.0 + pow2(-8) + pow2(-30);
    assert_eq!(cast1::<f64, f16>(near_f16).to_f64(), 1.0009765625);
    assert_eq!(cast1::<f64, f16>(-near_f16).to_f64(), -1.0009765625);
    assert_eq!(cast1::<f64, bf16>(near_bf16).to_f64(), 1.0078125);
    let c = rnx::C64::new(near_f16, near_bf16);
    assert_eq!(cast1::<rnx::C64, f16>(c).to_f64(), 1.0009765625);
    assert_eq!(cast1::<rnx::C64, bf16>(c).to_f64(), 1.0);
    let b = 16_842_753; // 2^24 + 2^16 + 1
    assert_eq!(cast1::<i32, bf16>(b).to_f64(), 16_908_288.0);
    assert_eq!(cast1::<i32, bf16>(-b).to_f64(), -16_908_288.0);
    assert_eq!(cast1::<i64, bf16>(b as i64).to_f64(), 16_908_288.0);
    assert_eq!(cast1::<u32, bf16>(b as u32).to_f64(), 16_908_288.0);
    assert_eq!(cast1::<u64, bf16>(b as u64).to_f64(), 16_908_288.0);
    let w = (1i64 << 60) + (1 << 36) + 1;
    assert_eq!(cast1::<i64, f32>(w), (pow2(60) + pow2(37)) as f32);
    assert_eq!(cast1::<i64, f32>(-w), -(pow2(60) + pow2(37)) as f32);
    assert_eq!(cast1::<u64, f32>(w as u64), (pow2(60) + pow2(37)) as f32);
    assert_eq!(cast1::<i64, rnx::C32>(w).re, (pow2(60) + pow2(37)) as f32);
    let u = (1u64 << 63) + (1 << 39) + 1;
    assert_eq!(cast1::<u64, f32>(u), (pow2(63) + pow2(40)) as f32);
    // 2^60 + 2^52 + 1: through an f64 it would tie (2^60 + 2^52) and go to even.
    let t = (1i64 << 60) + (1 << 52) + 1;
    assert_eq!(cast1::<i64, bf16>(t).to_f64(), pow2(60) + pow2(53));
    assert_eq!(cast1::<i64, f16>(65519), f16::from_f64(65504.0));
    assert!(cast1::<i64, f16>(65520).is_infinite());
    // Rust scalars keep their own rule: refused unless representable, and
    // converted to a float dtype with one rounding as well.
    assert!(Scalar::from(300).to_dtype(DType::U8, "t").is_err());
    assert!(Scalar::from(-1).to_dtype(DType::U32, "t").is_err());
    assert_eq!(
        Scalar::I64(w).to_dtype(DType::F32, "t").unwrap(),
        Scalar::F32((pow2(60) + pow2(37)) as f32)
    );
    assert_eq!(
        Scalar::I32(b).to_dtype(DType::BF16, "t").unwrap(),
        Scalar::BF16(bf16::from_f64(16_908_288.0))
    );
}

// ----- all 14 x 14 pairs on a few values -----

/// Test values of a dtype as (re, im) with exact integer values for integers.
fn samples(dt: DType) -> Vec<Scalar> {
    let f: Vec<f64> = vec![
        0.0, 1.0, -1.0, 2.5, -2.5, 3.99, -3.99, 127.0, 300.7, -300.7, 70000.5, -1e20, 1e20,
    ];
    let mut out: Vec<Scalar> = Vec::new();
    if dt.is_int() {
        let ints: Vec<i128> = vec![
            0,
            1,
            -1,
            127,
            128,
            255,
            256,
            -129,
            32767,
            -32769,
            65535,
            1 << 31,
            -(1 << 31) - 1,
            u32::MAX as i128,
            i64::MAX as i128,
            i64::MIN as i128,
            u64::MAX as i128,
        ];
        let (lo, hi): (i128, i128) = match dt {
            DType::I8 => (i8::MIN as i128, i8::MAX as i128),
            DType::I16 => (i16::MIN as i128, i16::MAX as i128),
            DType::I32 => (i32::MIN as i128, i32::MAX as i128),
            DType::I64 => (i64::MIN as i128, i64::MAX as i128),
            DType::U8 => (0, u8::MAX as i128),
            DType::U16 => (0, u16::MAX as i128),
            DType::U32 => (0, u32::MAX as i128),
            _ => (0, u64::MAX as i128),
        };
        for i in ints.into_iter().filter(|&i| i >= lo && i <= hi) {
            let s = if i < 0 {
                Scalar::I64(i as i64)
            } else {
                Scalar::U64(i as u64)
            };
            out.push(s.to_dtype(dt, "test").unwrap());
        }
    } else {
        let mut fs = f.clone();
        fs.extend([f64::NAN, f64::INFINITY, f64::NEG_INFINITY]);
        for (k, &v) in fs.iter().enumerate() {
            let s = if dt.is_complex() {
                let im = if k % 2 == 0 { 0.5 } else { -7.0 };
                if dt == DType::C32 {
                    Scalar::C32(rnx::Complex::new(v as f32, im))
                } else {
                    Scalar::C64(rnx::Complex::new(v, im as f64))
                }
            } else {
                Scalar::F64(v).to_dtype(dt, "test").unwrap()
            };
            out.push(s);
        }
    }
    out
}

fn int_range(dt: DType) -> (i128, i128) {
    match dt {
        DType::I8 => (i8::MIN as i128, i8::MAX as i128),
        DType::I16 => (i16::MIN as i128, i16::MAX as i128),
        DType::I32 => (i32::MIN as i128, i32::MAX as i128),
        DType::I64 => (i64::MIN as i128, i64::MAX as i128),
        DType::U8 => (0, u8::MAX as i128),
        DType::U16 => (0, u16::MAX as i128),
        DType::U32 => (0, u32::MAX as i128),
        _ => (0, u64::MAX as i128),
    }
}

/// What a cast of `src` to `dt` must give: integer -> integer keeps the low
/// bits (`as` on the exact value); float -> integer truncates toward zero and
/// saturates, NaN -> 0; complex -> integer does so with the real part; to a
/// float dtype [`round_to_float`].
fn expected(src: Scalar, dt: DType) -> Scalar {
    if !dt.is_int() {
        return round_to_float(src, dt);
    }
    let v: i128 = match src.to_i128() {
        Some(i) => i,
        None => {
            let (re, (lo, hi)) = (src.to_f64(), int_range(dt));
            if re.is_nan() {
                0
            } else if re >= 1e30 {
                hi
            } else if re <= -1e30 {
                lo
            } else {
                (re.trunc() as i128).clamp(lo, hi)
            }
        }
    };
    match dt {
        DType::I8 => Scalar::I8(v as i8),
        DType::I16 => Scalar::I16(v as i16),
        DType::I32 => Scalar::I32(v as i32),
        DType::I64 => Scalar::I64(v as i64),
        DType::U8 => Scalar::U8(v as u8),
        DType::U16 => Scalar::U16(v as u16),
        DType::U32 => Scalar::U32(v as u32),
        _ => Scalar::U64(v as u64),
    }
}

#[test]
fn cast_all_dtype_pairs() {
    for &s in &ALL {
        let vals = samples(s);
        for &d in &ALL {
            let want: Vec<Scalar> = vals.iter().map(|&v| expected(v, d)).collect();
            check(&vals, d, &want, 0, "all pairs");
        }
    }
}

#[test]
fn cast_rules_named() {
    let f = Tensor::create(DType::F64, &[6], &[2.9, -2.9, f64::NAN, 1e10, -1e10, 255.9]).unwrap();
    assert_eq!(
        f.cast(DType::I32).unwrap().to_vec::<i32>().unwrap(),
        vec![2, -2, 0, i32::MAX, i32::MIN, 255]
    );
    assert_eq!(
        f.cast(DType::U8).unwrap().to_vec::<u8>().unwrap(),
        vec![2, 0, 0, 255, 0, 255]
    );
    let c = Tensor::from_vec(
        vec![rnx::C64::new(1.5, 2.0), rnx::C64::new(-3.7, -1.0)],
        &[2],
    )
    .unwrap();
    assert_eq!(
        c.cast(DType::F64).unwrap().to_vec::<f64>().unwrap(),
        vec![1.5, -3.7]
    );
    assert_eq!(
        c.cast(DType::I8).unwrap().to_vec::<i8>().unwrap(),
        vec![1, -3]
    );
    let i = Tensor::from_vec(vec![300i32, -5], &[2]).unwrap();
    assert_eq!(
        i.cast(DType::U8).unwrap().to_vec::<u8>().unwrap(),
        vec![44, 251]
    );
    assert_eq!(
        i.astype(DType::I8).unwrap().to_vec::<i8>().unwrap(),
        vec![44, -5]
    );
    // A cast of a strided view reads the view.
    let v = Tensor::from_vec(vec![1.5f32, 2.5, 3.5, 4.5], &[2, 2])
        .unwrap()
        .transpose(None)
        .unwrap();
    assert_eq!(
        v.cast(DType::I64).unwrap().to_vec::<i64>().unwrap(),
        vec![1, 3, 2, 4]
    );
}

/// Every f16 and every bf16 bit pattern cast to f32, contiguous (the
/// vectorised widening, F16C for f16 where the CPU has it) and through a
/// transposed view (the element loop): bit for bit `half`'s `to_f32`, NaN
/// payloads included.
#[test]
fn halves_widen_to_f32_bit_exact_every_pattern() {
    let bits: Vec<u16> = (0..=u16::MAX).collect();
    let check = |got: &[f32], want: &[f32], what: &str| {
        for (i, (g, w)) in got.iter().zip(want).enumerate() {
            assert_eq!(g.to_bits(), w.to_bits(), "{what}: pattern {i:#06x}");
        }
    };
    let h: Vec<f16> = bits.iter().map(|&b| f16::from_bits(b)).collect();
    let b: Vec<bf16> = bits.iter().map(|&b| bf16::from_bits(b)).collect();
    let want_h: Vec<f32> = h.iter().map(|x| x.to_f32()).collect();
    let want_b: Vec<f32> = b.iter().map(|x| x.to_f32()).collect();
    let th = Tensor::from_vec(h, &[256, 256]).unwrap();
    let tb = Tensor::from_vec(b, &[256, 256]).unwrap();
    for (t, want, name) in [(&th, &want_h, "f16"), (&tb, &want_b, "bf16")] {
        let got = t.cast(DType::F32).unwrap().to_vec::<f32>().unwrap();
        check(&got, want, &format!("{name} contiguous"));
        // Transposed: element (i, j) of the result is pattern j * 256 + i.
        let tt = t.transpose(None).unwrap().cast(DType::F32).unwrap();
        let got = tt.to_vec::<f32>().unwrap();
        let want_t: Vec<f32> = (0..65536)
            .map(|x| want[(x % 256) * 256 + x / 256])
            .collect();
        check(&got, &want_t, &format!("{name} transposed"));
    }
}
