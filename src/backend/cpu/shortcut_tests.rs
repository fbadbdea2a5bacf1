//! Tests that hold the small-input shortcuts (flat elementwise runs, direct
//! full reductions, small softmax groups, the direct small matrix product)
//! to the general paths: every case runs twice through the public API, once
//! as usual and once inside `general_only`, and the results must be the same
//! bits (or the same error). Inputs cover every dtype, scalars, empty
//! tensors, broadcasting, strided views and out-forms over overlapping
//! memory.

use super::{general_only, CpuBackend};
use crate::backend::cpu::matmul::{crate_gemm, direct_gemm, Mat};
use crate::backend::cpu::strided::SendPtr;
use crate::backend::LinalgBackend;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

/// Deterministic test values: small integers, fractions, signed zeros and a
/// few NaN / infinities (which integer casts saturate or zero).
fn values(n: usize, seed: u64, specials: bool) -> Vec<f64> {
    let mut s = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    (0..n)
        .map(|i| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            let r = (s % 1000) as f64 / 100.0 - 4.0;
            match (specials, i % 37) {
                (true, 5) => f64::NAN,
                (true, 11) => -0.0,
                (true, 23) => f64::INFINITY,
                _ if i % 3 == 0 => r.round(),
                _ => r,
            }
        })
        .collect()
}

fn tensor(dt: DType, shape: &[usize], seed: u64) -> Tensor {
    let n = shape.iter().product();
    Tensor::from_vec(values(n, seed, dt.is_float()), shape)
        .and_then(|t| t.cast(dt))
        .expect("test tensor")
}

fn bytes(t: &Tensor) -> Vec<u8> {
    if t.dtype().is_int4() {
        // Packed memory: compare one element per byte.
        let b = t.bitcast(DType::U8).expect("bitcast");
        return b.to_vec::<u8>().expect("bytes");
    }
    let c = t.contiguous().expect("contiguous");
    let b = c.as_bytes("test").expect("bytes");
    b.to_vec()
}

/// Run `f` with and without the shortcuts; the results must agree bit for
/// bit (shape, dtype, bytes) or fail with the same message.
fn agree(what: &str, f: impl Fn() -> Result<Tensor>) {
    let fast = f();
    let general = general_only(&f);
    match (fast, general) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.shape(), b.shape(), "{what}: shapes");
            assert_eq!(a.dtype(), b.dtype(), "{what}: dtypes");
            assert_eq!(bytes(&a), bytes(&b), "{what}: values differ");
        }
        (Err(a), Err(b)) => assert_eq!(a.to_string(), b.to_string(), "{what}: errors"),
        (a, b) => panic!("{what}: one path failed: {:?} vs {:?}", a.err(), b.err()),
    }
}

const SHAPES: [&[usize]; 8] = [&[], &[0], &[1], &[7], &[16], &[3, 5], &[2, 0], &[2, 300]];

pub(crate) fn elementwise_shortcut_matches_the_general_path() {
    for dt in DType::ALL {
        for (k, &sh) in SHAPES.iter().enumerate() {
            let w = |s: &str| format!("{dt} {sh:?} {s}");
            let (x, y) = (tensor(dt, sh, k as u64), tensor(dt, sh, 100 + k as u64));
            agree(&w("add"), || x.add(&y));
            agree(&w("mul"), || x.mul(&y));
            agree(&w("maximum"), || x.maximum(&y));
            agree(&w("add scalar"), || x.add(2));
            agree(&w("neg"), || x.neg());
            agree(&w("abs"), || x.abs());
            agree(&w("exp"), || x.exp());
            agree(&w("flipped"), || x.flip(None)?.mul(&y));
            agree(&w("transposed"), || {
                x.transpose(None)?.add(&y.transpose(None)?)
            });
            // In place: the first input is the output.
            agree(&w("add_"), || {
                let z = x.copy()?;
                z.add_(&y)?;
                Ok(z)
            });
            agree(&w("add_ self"), || {
                let z = x.copy()?;
                z.add_(&z)?;
                Ok(z)
            });
            // A rank-0 tensor broadcast against x.
            let s = tensor(dt, &[], 7 + k as u64);
            agree(&w("scalar tensor"), || x.sub(&s));
            agree(&w("scalar tensor left"), || s.sub(&x));
            // A [1, 1] tensor: every stride 0 after broadcasting.
            let one = tensor(dt, &[1, 1], 9);
            agree(&w("[1,1] broadcast"), || x.reshape([-1, 1])?.mul(&one));
        }
        let w = |s: &str| format!("{dt} {s}");
        let (a, b) = (tensor(dt, &[3, 1], 1), tensor(dt, &[1, 5], 2));
        agree(&w("outer broadcast"), || a.add(&b));
        agree(&w("row broadcast"), || {
            tensor(dt, &[3, 5], 3).add(&tensor(dt, &[5], 4))
        });
        // Output over memory the input partially overlaps (a shifted view).
        agree(&w("shifted out"), || {
            let buf = tensor(dt, &[17], 5);
            let (src, dst) = (buf.slice(crate::s![0..16])?, buf.slice(crate::s![1..17])?);
            src.add_out(&src, &dst)?;
            Ok(buf)
        });
        // A transposed output.
        agree(&w("transposed out"), || {
            let out = Tensor::zeros(dt, &[5, 3])?;
            tensor(dt, &[3, 5], 6).neg_out(&out.transpose(None)?)?;
            Ok(out)
        });
    }
}

pub(crate) fn full_reduction_shortcut_matches_the_general_path() {
    let shapes: [&[usize]; 8] = [
        &[],
        &[0],
        &[1],
        &[16],
        &[3, 5],
        &[1, 7, 1],
        &[1000],
        &[3001],
    ];
    for dt in DType::ALL {
        for (k, &sh) in shapes.iter().enumerate() {
            let x = tensor(dt, sh, 40 + k as u64);
            let w = |s: &str| format!("{dt} {sh:?} {s}");
            agree(&w("sum"), || x.sum(None, false));
            agree(&w("sum keepdims"), || x.sum(None, true));
            agree(&w("prod"), || x.prod(None, false));
            agree(&w("max"), || x.max(None, false));
            agree(&w("min"), || x.min(None, true));
            agree(&w("mean"), || x.mean(None, false));
            agree(&w("any"), || x.any(None, false));
            agree(&w("flipped sum"), || x.flip(None)?.sum(None, false));
            if !sh.is_empty() {
                agree(&w("sum axis 0"), || x.sum(0, false));
            }
        }
    }
}

pub(crate) fn softmax_shortcut_matches_the_general_path() {
    type Case = (&'static [usize], Option<&'static [isize]>);
    let cases: [Case; 11] = [
        (&[], None),
        (&[0], None),
        (&[1], None),
        (&[16], None),
        (&[3, 5], None),
        (&[3, 5], Some(&[0])),
        (&[3, 5], Some(&[0, 1])),
        (&[2, 3, 4], Some(&[1, 2])),
        (&[2, 0, 4], Some(&[2])),
        (&[64, 64], None),
        (&[65, 64], Some(&[1])),
    ];
    for dt in [DType::F32, DType::F64, DType::F16, DType::BF16] {
        for (k, (sh, axes)) in cases.iter().enumerate() {
            let x = tensor(dt, sh, 70 + k as u64);
            let ax = || axes.map(crate::Axes::from).unwrap_or_default();
            let w = |s: &str| format!("{dt} {sh:?} {axes:?} {s}");
            agree(&w("softmax"), || x.softmax(ax()));
            agree(&w("log_softmax"), || x.log_softmax(ax()));
            agree(&w("softmax flipped"), || x.flip(None)?.softmax(ax()));
            // Without NaN/inf, so that the values themselves are exercised.
            let y = Tensor::from_vec(values(x.numel(), k as u64, false), sh)
                .and_then(|t| t.cast(dt))
                .expect("tensor");
            agree(&w("softmax finite"), || y.softmax(ax()));
            agree(&w("softmax scaled"), || y.mul(40)?.softmax(ax()));
        }
    }
}

pub(crate) fn small_matmul_shortcut_matches_the_general_path() {
    let dims = [
        (1, 1, 1),
        (4, 4, 4),
        (2, 3, 5),
        (5, 1, 7),
        (16, 8, 16),
        (3, 16, 2),
        (17, 4, 4),
    ];
    for dt in [DType::F32, DType::F64] {
        for (i, &(m, k, n)) in dims.iter().enumerate() {
            let w = |s: &str| format!("{dt} {m}x{k}x{n} {s}");
            // Integer values: both paths are exact, so the bits agree.
            let ints = |sh: &[usize], seed: u64| {
                let v: Vec<f64> = values(sh.iter().product(), seed, false)
                    .iter()
                    .map(|v| v.round())
                    .collect();
                Tensor::from_vec(v, sh)
                    .and_then(|t| t.cast(dt))
                    .expect("tensor")
            };
            let (a, b) = (ints(&[m, k], i as u64), ints(&[k, n], 50 + i as u64));
            agree(&w("matmul"), || a.matmul(&b));
            agree(&w("transposed"), || {
                a.transpose(None)?.contiguous()?.transpose(None)?.matmul(&b)
            });
            agree(&w("vector"), || a.matmul(&ints(&[k], 3)));
            agree(&w("batched"), || ints(&[3, m, k], 4).matmul(&b));
            if m == k && k == n {
                agree(&w("out overlapping both inputs"), || {
                    let c = a.copy()?;
                    c.matmul_out(&c, &c)
                });
            }
            // Fractions: the sums may round differently (summation order,
            // fused multiply-adds in the gemm crate), so within a tolerance.
            let (x, y) = (tensor(dt, &[m, k], 9), tensor(dt, &[k, n], 10));
            let (x, y) = (x.cast(DType::F64).unwrap(), y.cast(DType::F64).unwrap());
            let (x, y) = (x.where_finite_or_zero(), y.where_finite_or_zero());
            let fast = x.matmul(&y).unwrap().to_vec_f64().unwrap();
            let slow = general_only(|| x.matmul(&y)).unwrap().to_vec_f64().unwrap();
            for (p, q) in fast.iter().zip(&slow) {
                assert!(
                    (p - q).abs() <= 1e-12 * (1.0 + q.abs()),
                    "{}: {p} vs {q}",
                    w("fractions")
                );
            }
        }
    }
}

impl Tensor {
    /// NaN and infinities replaced by 0 (test inputs for tolerance checks).
    fn where_finite_or_zero(&self) -> Tensor {
        let v: Vec<f64> = self
            .to_vec_f64()
            .unwrap()
            .into_iter()
            .map(|v| if v.is_finite() { v } else { 0.0 })
            .collect();
        Tensor::from_vec(v, self.shape()).unwrap()
    }
}

pub(crate) fn direct_gemm_accumulates_like_the_gemm_crate() {
    for &(m, k, n) in &[(1usize, 1usize, 1usize), (4, 4, 4), (3, 7, 5), (16, 8, 16)] {
        let a: Vec<f32> = values(m * k, 1, false)
            .iter()
            .map(|v| v.round() as f32)
            .collect();
        let b: Vec<f32> = values(k * n, 2, false)
            .iter()
            .map(|v| v.round() as f32)
            .collect();
        let start: Vec<f32> = values(m * n, 3, false)
            .iter()
            .map(|v| v.round() as f32)
            .collect();
        for accumulate in [false, true] {
            let (mut o1, mut o2) = (start.clone(), start.clone());
            let (mut a1, mut b1) = (a.clone(), b.clone());
            // a as a column-major view (transposed strides), b row-major.
            let mat = |p: &mut Vec<f32>, rs: isize, cs: isize| Mat {
                ptr: SendPtr(p.as_mut_ptr()),
                rs,
                cs,
            };
            let am = mat(&mut a1, 1, m as isize);
            let bm = mat(&mut b1, n as isize, 1);
            let (om1, om2) = (mat(&mut o1, n as isize, 1), mat(&mut o2, n as isize, 1));
            // SAFETY: every matrix lies inside its own live Vec; the outputs
            // are distinct Vecs, not overlapping the inputs.
            unsafe {
                direct_gemm(m, n, k, am, bm, om1, accumulate);
                crate_gemm(
                    m,
                    n,
                    k,
                    am,
                    bm,
                    om2,
                    accumulate,
                    super::matmul::Threads::One,
                );
            }
            assert_eq!(o1, o2, "{m}x{k}x{n} accumulate={accumulate}");
        }
    }
    // The backend entry itself, through a tensor product into a fresh output.
    let a = tensor(DType::F32, &[4, 4], 1)
        .where_finite_or_zero()
        .cast(DType::F32)
        .unwrap();
    let out = Tensor::zeros(DType::F32, &[4, 4]).unwrap();
    crate::ops::locked("test", &[&a], &[&out], || {
        CpuBackend.matmul(&a, &a, &out, false)
    })
    .unwrap();
    let want = general_only(|| a.matmul(&a))
        .unwrap()
        .to_vec::<f32>()
        .unwrap();
    let got = out.to_vec::<f32>().unwrap();
    for (p, q) in got.iter().zip(&want) {
        assert!((p - q).abs() <= 1e-5 * (1.0 + q.abs()), "{p} vs {q}");
    }
}
