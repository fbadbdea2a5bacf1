//! The 8-bit float storage dtypes f8e4m3 (E4M3FN) and f8e5m2: all 256 bit
//! patterns decoded against a brute-force decoder and encoded back, rounding
//! (midpoints, one f64 unit either side, overflow) against a brute-force
//! nearest-value search, casts from and to every dtype, creation, printing,
//! views, arithmetic/reductions/matmul computed in f32 and rounded once,
//! .npy (with files written by ml_dtypes) and .safetensors round trips, and
//! the errors.

use crate::common::TmpDir;
use rnx::{load_npy, save_npy, Axes, DType, Tensor, F8E4M3, F8E5M2};

const FP8: [DType; 2] = [DType::F8E4M3, DType::F8E5M2];

/// The value of `bits` from the format's definition: `(exp bits, frac bits,
/// bias, has_inf)`; E4M3FN has NaN only at S.1111.111.
fn decode(dt: DType, bits: u8) -> f64 {
    let (eb, fb, bias) = if dt == DType::F8E4M3 {
        (4, 3, 7)
    } else {
        (5, 2, 15)
    };
    let sign = if bits & 0x80 != 0 { -1.0 } else { 1.0 };
    let e = ((bits & 0x7f) >> fb) as i32;
    let f = (bits & ((1 << fb) - 1)) as f64;
    let emax = (1 << eb) - 1;
    if dt == DType::F8E4M3 && e == emax && f == 7.0 {
        return f64::NAN;
    }
    if dt == DType::F8E5M2 && e == emax {
        return if f == 0.0 {
            sign * f64::INFINITY
        } else {
            f64::NAN
        };
    }
    let scale = 2f64.powi(fb);
    if e == 0 {
        sign * f / scale * 2f64.powi(1 - bias)
    } else {
        sign * (1.0 + f / scale) * 2f64.powi(e - bias)
    }
}

/// The bits `x` rounds to, by searching every finite value for the nearest
/// (ties to the even bit pattern), with the formats' overflow rules: E4M3FN
/// gives NaN past 464 (its rounding boundary above 448), E5M2 infinity at or
/// past 61440.
fn encode_ref(dt: DType, x: f64) -> u8 {
    let sign = if x.is_sign_negative() { 0x80 } else { 0 };
    if x.is_nan() {
        return if dt == DType::F8E4M3 { 0x7f } else { 0x7e } | sign;
    }
    let a = x.abs();
    if dt == DType::F8E4M3 && a > 464.0 {
        return 0x7f | sign;
    }
    if dt == DType::F8E5M2 && a >= 61440.0 {
        return 0x7c | sign;
    }
    let mut best = 0u8;
    for b in 0u8..0x7f {
        let v = decode(dt, b);
        if !v.is_finite() {
            continue;
        }
        let (d, db) = ((v - a).abs(), (decode(dt, best) - a).abs());
        if d < db || (d == db && b & 1 == 0 && best & 1 == 1) {
            best = b;
        }
    }
    best | sign
}

/// The 256 bit patterns of `dt`, in order.
fn bits_tensor(dt: DType) -> Tensor {
    if dt == DType::F8E4M3 {
        Tensor::from_vec((0..=255).map(F8E4M3).collect(), &[256]).unwrap()
    } else {
        Tensor::from_vec((0..=255).map(F8E5M2).collect(), &[256]).unwrap()
    }
}

/// The bit patterns of an fp8 tensor, row-major.
fn to_bits(t: &Tensor) -> Vec<u8> {
    if t.dtype() == DType::F8E4M3 {
        t.to_vec::<F8E4M3>()
            .unwrap()
            .into_iter()
            .map(|v| v.0)
            .collect()
    } else {
        t.to_vec::<F8E5M2>()
            .unwrap()
            .into_iter()
            .map(|v| v.0)
            .collect()
    }
}

fn same(a: f64, b: f64) -> bool {
    (a.is_nan() && b.is_nan()) || a.to_bits() == b.to_bits()
}

#[test]
fn all_256_patterns_decode_exactly() {
    for dt in FP8 {
        let x = bits_tensor(dt);
        for (to, vals) in [
            (
                DType::F32,
                x.cast(DType::F32)
                    .unwrap()
                    .to_vec::<f32>()
                    .unwrap()
                    .into_iter()
                    .map(f64::from)
                    .collect::<Vec<_>>(),
            ),
            (
                DType::F64,
                x.cast(DType::F64).unwrap().to_vec::<f64>().unwrap(),
            ),
        ] {
            for (b, v) in vals.into_iter().enumerate() {
                assert!(same(v, decode(dt, b as u8)), "{dt} {b:#04x} -> {to}: {v}");
            }
        }
        for b in 0..=255u8 {
            let want = decode(dt, b);
            let got = if dt == DType::F8E4M3 {
                F8E4M3(b).to_f64()
            } else {
                F8E5M2(b).to_f64()
            };
            assert!(same(got, want), "{dt} {b:#04x}");
        }
    }
}

#[test]
fn all_256_patterns_encode_back() {
    for dt in FP8 {
        let vals: Vec<f64> = (0..=255u8).map(|b| decode(dt, b)).collect();
        for src in [DType::F64, DType::F32, DType::F16] {
            let t = Tensor::from_vec(vals.clone(), &[256])
                .unwrap()
                .cast(src)
                .unwrap();
            let back = to_bits(&t.cast(dt).unwrap());
            for (b, got) in back.into_iter().enumerate() {
                let b = b as u8;
                if vals[b as usize].is_nan() {
                    assert!(decode(dt, got).is_nan(), "{dt} from {src}: {b:#04x}");
                } else {
                    assert_eq!(got, b, "{dt} from {src}: {}", vals[b as usize]);
                }
            }
        }
    }
}

#[test]
fn midpoints_round_to_even_and_overflow_by_the_format() {
    for dt in FP8 {
        let mut xs = vec![0.0, -0.0, f64::INFINITY, f64::NEG_INFINITY, f64::NAN, 1e300];
        let finite: Vec<f64> = (0..0x7fu8)
            .map(|b| decode(dt, b))
            .filter(|v| v.is_finite())
            .collect();
        for w in finite.windows(2) {
            let mid = (w[0] + w[1]) / 2.0;
            for m in [
                mid,
                f64::from_bits(mid.to_bits() + 1),
                f64::from_bits(mid.to_bits() - 1),
            ] {
                xs.extend([m, -m]);
            }
        }
        // Past the largest finite value: the boundary and around it.
        let top = *finite.last().unwrap();
        let gap = top - finite[finite.len() - 2];
        for k in [0.25, 0.5, 0.75, 1.0, 2.0] {
            let m = top + k * gap;
            xs.extend([
                m,
                f64::from_bits(m.to_bits() + 1),
                f64::from_bits(m.to_bits() - 1),
            ]);
        }
        let want: Vec<u8> = xs.iter().map(|&x| encode_ref(dt, x)).collect();
        let got = to_bits(
            &Tensor::from_vec(xs.clone(), &[xs.len()])
                .unwrap()
                .cast(dt)
                .unwrap(),
        );
        for ((x, w), g) in xs.iter().zip(&want).zip(&got) {
            if decode(dt, *w).is_nan() {
                assert!(decode(dt, *g).is_nan(), "{dt} {x:e}: {g:#04x}");
            } else {
                assert_eq!(g, w, "{dt} {x:e}");
            }
        }
        // The scalar types agree with the tensor cast.
        for (x, g) in xs.iter().zip(&got) {
            let s = if dt == DType::F8E4M3 {
                F8E4M3::from_f64(*x).to_bits()
            } else {
                F8E5M2::from_f64(*x).to_bits()
            };
            assert_eq!(s, *g, "{dt} {x:e}");
        }
    }
}

#[test]
fn values_written_by_ml_dtypes_round_the_same() {
    // ml_dtypes 0.7: np.array([...], np.float64).astype(float8_*).view(np.uint8).
    let x = [
        0.3,
        464.0,
        465.0,
        500.0,
        -1e9,
        2f64.powi(-10),
        2f64.powi(-11),
        1.0 + 2f64.powi(-4) + 2f64.powi(-40),
    ];
    let t = Tensor::from_vec(x.to_vec(), &[8]).unwrap();
    assert_eq!(
        to_bits(&t.cast(DType::F8E4M3).unwrap()),
        [42, 126, 127, 127, 255, 0, 0, 57]
    );
    assert_eq!(
        to_bits(&t.cast(DType::F8E5M2).unwrap()),
        [53, 95, 95, 96, 252, 20, 16, 60]
    );
    // Rounding once from f64: through f32 the last value would tie down to 1.
    assert_eq!(
        F8E4M3::from_f32((1.0 + 2f64.powi(-4) + 2f64.powi(-40)) as f32).to_f32(),
        1.0
    );
}

#[test]
fn casts_from_and_to_every_dtype() {
    for dt in FP8 {
        // Integers round once from their exact value.
        let ints = Tensor::from_vec(vec![0i64, 17, 19, -300, 448, 465, 100_000], &[7]).unwrap();
        let got = ints
            .cast(dt)
            .unwrap()
            .cast(DType::F64)
            .unwrap()
            .to_vec::<f64>()
            .unwrap();
        let want: Vec<f64> = [0i64, 17, 19, -300, 448, 465, 100_000]
            .iter()
            .map(|&i| decode(dt, encode_ref(dt, i as f64)))
            .collect();
        for (g, w) in got.iter().zip(&want) {
            assert!(same(*g, *w), "{dt}: {g} vs {w}");
        }
        // (The 4-bit integers cannot hold 12: their casts with fp8 are
        // tested in int4.rs.)
        for src in DType::ALL.into_iter().filter(|d| !d.is_int4()) {
            if src.is_complex() {
                let c = Tensor::create(
                    src,
                    &[2],
                    &[rnx::C64::new(2.5, 1.0), rnx::C64::new(-3.0, 0.0)],
                )
                .unwrap();
                assert_eq!(
                    c.cast(dt).unwrap().to_string(),
                    "[2.5, -3]",
                    "{src} -> {dt}"
                );
                let back = Tensor::create(dt, &[1], &[1.5]).unwrap().cast(src).unwrap();
                assert_eq!(back.to_string(), "[1.5+0i]", "{dt} -> {src}");
                continue;
            }
            let s = Tensor::create(src, &[3], &[0, 3, 12]).unwrap();
            assert_eq!(
                s.cast(dt).unwrap().to_string(),
                "[0, 3, 12]",
                "{src} -> {dt}"
            );
            let f = Tensor::create(dt, &[3], &[0.0, 3.0, 12.0]).unwrap();
            assert_eq!(
                f.cast(src).unwrap().to_string(),
                "[0, 3, 12]",
                "{dt} -> {src}"
            );
        }
        // To integers: truncate, saturate, NaN -> 0.
        let v = Tensor::create(DType::F32, &[4], &[-2.5f32, 448.0, f32::NAN, 6.0])
            .unwrap()
            .cast(dt)
            .unwrap();
        assert_eq!(
            v.cast(DType::I8).unwrap().to_vec::<i8>().unwrap(),
            [-2, 127, 0, 6]
        );
        assert_eq!(
            v.cast(DType::U8).unwrap().to_vec::<u8>().unwrap(),
            [0, 255, 0, 6]
        );
    }
    // Between the two fp8 formats: one rounding.
    let e4 = Tensor::create(DType::F32, &[3], &[1.125f32, 448.0, 0.001953125])
        .unwrap()
        .cast(DType::F8E4M3)
        .unwrap();
    assert_eq!(
        e4.cast(DType::F8E5M2).unwrap().to_string(),
        "[1, 448, 0.00195312]"
    );
    let e5 = Tensor::create(DType::F32, &[3], &[57344f32, 1.25, f32::INFINITY])
        .unwrap()
        .cast(DType::F8E5M2)
        .unwrap();
    assert_eq!(
        e5.cast(DType::F8E4M3).unwrap().to_string(),
        "[nan, 1.25, nan]"
    );
}

#[test]
fn creation_printing_items_and_views() {
    let z = Tensor::zeros(DType::F8E4M3, &[2, 2]).unwrap();
    assert_eq!(to_bits(&z), [0; 4]);
    let o = Tensor::ones(DType::F8E5M2, &[3]).unwrap();
    assert_eq!(to_bits(&o), [0x3c; 3]);
    let f = Tensor::full(DType::F8E4M3, &[2], 0.3).unwrap();
    assert_eq!(f.to_vec::<F8E4M3>().unwrap(), [F8E4M3(42); 2]);
    assert_eq!(f.to_string(), "[0.3125, 0.3125]");
    let v = Tensor::from_vec(
        vec![
            F8E5M2::from_f32(1.5),
            F8E5M2::INFINITY,
            F8E5M2::from_f32(-0.0),
        ],
        &[3],
    )
    .unwrap();
    assert_eq!(v.dtype(), DType::F8E5M2);
    assert_eq!(v.to_string(), "[1.5, inf, -0]");
    assert_eq!(v.item_at::<F8E5M2>(&[0]).unwrap().to_f32(), 1.5);
    assert_eq!(format!("{:?}", F8E4M3::MAX), "448.0");
    assert_eq!(F8E5M2::MAX.to_f32(), 57344.0);
    assert_eq!(F8E4M3::EPSILON.to_f32(), 0.125);
    assert!(F8E4M3::NAN != F8E4M3::NAN);
    assert_eq!(F8E4M3(0x80), F8E4M3(0));
    assert_eq!(
        Tensor::full(DType::F8E4M3, &[], 2.0)
            .unwrap()
            .item::<F8E4M3>()
            .unwrap()
            .to_f32(),
        2.0
    );
    assert_eq!(DType::F8E4M3.itemsize(), 1);
    assert_eq!(DType::F8E5M2.name(), "f8e5m2");
    assert!(DType::F8E4M3.is_float() && DType::F8E4M3.is_fp8() && !DType::F16.is_fp8());
    // Strided views, copies and negative strides move the bytes.
    let m = bits_tensor(DType::F8E4M3).reshape([16, 16]).unwrap();
    let t = m.transpose(None).unwrap().copy().unwrap();
    let bits = to_bits(&t);
    for i in 0..16 {
        for j in 0..16 {
            assert_eq!(bits[i * 16 + j] as usize, j * 16 + i);
        }
    }
    let flipped = to_bits(&m.flip(None).unwrap().copy().unwrap());
    assert_eq!(flipped[0], 255);
    assert_eq!(flipped[255], 0);
}

/// f32 reference of one op on every pair of values (NaN-aware bit compare).
fn check_pairs(
    dt: DType,
    op: &str,
    t: impl Fn(&Tensor, &Tensor) -> Tensor,
    f: impl Fn(f32, f32) -> f32,
) {
    let n = 256;
    let a = bits_tensor(dt)
        .reshape([n, 1])
        .unwrap()
        .broadcast_to(&[n, n])
        .unwrap();
    let b = bits_tensor(dt)
        .reshape([1, n])
        .unwrap()
        .broadcast_to(&[n, n])
        .unwrap();
    let got = to_bits(&t(&a, &b));
    let dec = |b: u8| decode(dt, b) as f32;
    for i in 0..n {
        for j in 0..n {
            let r = f(dec(i as u8), dec(j as u8)) as f64;
            let want = encode_ref(dt, r);
            let g = got[i * n + j];
            if decode(dt, want).is_nan() {
                assert!(decode(dt, g).is_nan(), "{dt} {op} {i:#04x} {j:#04x}");
            } else {
                assert_eq!(g, want, "{dt} {op} {i:#04x} {j:#04x}: {r}");
            }
        }
    }
}

#[test]
fn arithmetic_computes_in_f32_and_rounds_once() {
    for dt in FP8 {
        check_pairs(dt, "add", |a, b| a.add(b).unwrap(), |x, y| x + y);
        check_pairs(dt, "mul", |a, b| a.mul(b).unwrap(), |x, y| x * y);
        check_pairs(dt, "div", |a, b| a.div(b).unwrap(), |x, y| x / y);
        let x = Tensor::create(DType::F32, &[4], &[1.0f32, 4.0, 9.0, 2.0])
            .unwrap()
            .cast(dt)
            .unwrap();
        assert_eq!(
            x.sqrt().unwrap().to_string(),
            if dt == DType::F8E4M3 {
                "[1, 2, 3, 1.375]"
            } else {
                "[1, 2, 3, 1.5]"
            }
        );
        assert_eq!(
            x.add(1.5).unwrap().to_string(),
            if dt == DType::F8E4M3 {
                "[2.5, 5.5, 10, 3.5]"
            } else {
                "[2.5, 6, 10, 3.5]"
            }
        );
        // Comparisons give u8 masks; in place and out forms write fp8.
        let y = Tensor::create(dt, &[4], &[2.0, 4.0, 1.0, 2.0]).unwrap();
        assert_eq!(x.less(&y).unwrap().to_vec::<u8>().unwrap(), [1, 0, 0, 0]);
        let z = x.copy().unwrap();
        z.mul_(&y).unwrap();
        // (9 is not an f8e5m2 value: it ties to 8 there.)
        let e4 = dt == DType::F8E4M3;
        assert_eq!(
            z.to_string(),
            if e4 { "[2, 16, 9, 4]" } else { "[2, 16, 8, 4]" }
        );
        let out = Tensor::zeros(dt, &[4]).unwrap();
        x.sub_out(&y, &out).unwrap();
        assert_eq!(
            out.to_string(),
            if e4 { "[-1, 0, 8, 0]" } else { "[-1, 0, 7, 0]" }
        );
        // Reductions: accumulate in f32, round the result once.
        let s = Tensor::create(DType::F32, &[4], &[1.0f32, 0.125, 0.125, 0.125])
            .unwrap()
            .cast(dt)
            .unwrap();
        let sum = s.sum(Axes::all(), false).unwrap();
        assert_eq!(sum.dtype(), dt);
        assert_eq!(
            sum.to_string(),
            // 1.375 ties to 1.5 in f8e5m2.
            if e4 { "1.375" } else { "1.5" }
        );
        assert_eq!(
            x.max(Axes::all(), false).unwrap().to_string(),
            if e4 { "9" } else { "8" }
        );
        assert_eq!(x.argmax(0, false).unwrap().item_i64().unwrap(), 2);
        // Matmul: f32 accumulation, one rounding per result.
        let a = Tensor::create(dt, &[2, 3], &[1.0, 2.0, 3.0, 0.5, 0.25, 0.125]).unwrap();
        let b = Tensor::create(dt, &[3, 2], &[1.0, 0.0, 0.0, 1.0, 1.0, 1.0]).unwrap();
        let p = a.matmul(&b).unwrap();
        assert_eq!(p.dtype(), dt);
        assert_eq!(p.to_string(), "[[4, 5],\n [0.625, 0.375]]");
        // Sorting.
        let srt = y.sort_values(0, false).unwrap();
        assert_eq!(srt.to_string(), "[1, 2, 2, 4]");
    }
}

#[test]
fn npy_files_written_by_ml_dtypes_load_and_round_trip() {
    let tmpd = TmpDir::new("fp8-npy_files_written_by_ml_dtypes_load_and_round_trip");
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/npy");
    for (dt, file, descr) in [
        (DType::F8E4M3, "ml_f8e4m3fn.npy", "'<V1'"),
        (DType::F8E5M2, "ml_f8e5m2.npy", "'<f1'"),
    ] {
        let t = load_npy(dir.join(file)).unwrap();
        assert_eq!((t.dtype(), t.shape()), (dt, &[16usize, 16][..]));
        assert_eq!(to_bits(&t), (0..=255u8).collect::<Vec<_>>());
        // A strided view written out and read back.
        let p = tmpd.path(file);
        let v = t
            .transpose(None)
            .unwrap()
            .slice_ranges(&[0, 1], &[16, 16], Some(&[2, 3]))
            .unwrap();
        save_npy(&p, &v).unwrap();
        let header = std::fs::read(&p).unwrap();
        assert!(
            String::from_utf8_lossy(&header[..80]).contains(descr),
            "{dt}"
        );
        let back = load_npy(&p).unwrap();
        assert_eq!(back.dtype(), dt);
        assert_eq!(to_bits(&back), to_bits(&v.copy().unwrap()));
    }
}

#[cfg(feature = "safetensors")]
#[test]
fn safetensors_round_trip() {
    let tmpd = TmpDir::new("fp8-safetensors_round_trip");
    let p = tmpd.path("f8.safetensors");
    let a = bits_tensor(DType::F8E4M3).reshape([4, 64]).unwrap();
    let b = bits_tensor(DType::F8E5M2)
        .slice_ranges(&[3], &[200], Some(&[7]))
        .unwrap();
    rnx::save_safetensors(&p, [("a", &a), ("b", &b)], &Default::default()).unwrap();
    let got = rnx::load_safetensors(&p).unwrap();
    assert_eq!(got[0].0, "a");
    assert_eq!(
        (got[0].1.dtype(), got[0].1.shape()),
        (DType::F8E4M3, &[4usize, 64][..])
    );
    assert_eq!(to_bits(&got[0].1), to_bits(&a));
    assert_eq!(got[1].1.dtype(), DType::F8E5M2);
    assert_eq!(to_bits(&got[1].1), to_bits(&b.copy().unwrap()));
    // The header names the safetensors dtypes.
    let bytes = std::fs::read(&p).unwrap();
    let text = String::from_utf8_lossy(&bytes[..200]);
    assert!(
        text.contains("F8_E4M3") && text.contains("F8_E5M2"),
        "{text}"
    );
}

#[test]
fn errors_name_the_op_and_the_dtype() {
    let a = Tensor::ones(DType::F8E4M3, &[2]).unwrap();
    let b = Tensor::ones(DType::F8E5M2, &[2]).unwrap();
    let e = a.add(&b).unwrap_err().to_string();
    assert!(e.contains("f8e4m3") && e.contains("f8e5m2"), "{e}");
    let e = a.bitwise_and(&a).unwrap_err().to_string();
    assert!(e.contains("f8e4m3"), "{e}");
    assert!(Tensor::full(DType::F8E4M3, &[1], rnx::C64::new(0.0, 1.0)).is_err());
    let e = a.to_vec::<u8>().unwrap_err().to_string();
    assert!(e.contains("f8e4m3"), "{e}");
}

#[cfg(feature = "gpu")]
#[test]
fn the_gpu_refuses_fp8_naming_it() {
    let Some(d) = super::gpu::gpu() else { return };
    for dt in FP8 {
        let e = Tensor::zeros(dt, &[2])
            .unwrap()
            .to_device(d)
            .unwrap_err()
            .to_string();
        assert!(e.contains(dt.name()), "{e}");
    }
}
