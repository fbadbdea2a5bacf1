//! Computation on the 4-bit integers: every elementwise op over all 256 value
//! pairs, reductions and matrix products against i64 references wrapped to 4
//! bits (what computing in i32 and writing back once gives), the data-moving
//! ops against the same ops on i8/u8, the errors (naming i4/u4, not the i32
//! the kernels ran in), and the GPU's refusal.

use super::int4::{make, vals, values, wrap, INT4};
use rnx::ops::filters::{BoundaryMode, FilterOptions};
use rnx::ops::pool::PoolOptions;
use rnx::ops::take::{ScatterMode, ScatterOptions};
use rnx::{s, Axes, CmpOp, DType, Tensor};

/// All 256 pairs (a, b) of `dt`'s values, as two tensors of shape [16, 16].
fn pairs(dt: DType) -> (Tensor, Tensor, Vec<(i64, i64)>) {
    let v = values(dt);
    let p: Vec<(i64, i64)> = v
        .iter()
        .flat_map(|&a| v.iter().map(move |&b| (a, b)))
        .collect();
    let a: Vec<i64> = p.iter().map(|x| x.0).collect();
    let b: Vec<i64> = p.iter().map(|x| x.1).collect();
    (make(dt, &[16, 16], &a), make(dt, &[16, 16], &b), p)
}

/// rnx's integer shift rules at 32 bits (the compute width): `a << b` and
/// `a / 2^b` truncating, 0 for `b >= 32`.
fn shl32(a: i64, b: i64) -> i64 {
    if b >= 32 {
        0
    } else {
        a << b
    }
}
fn shr32(a: i64, b: i64) -> i64 {
    if b >= 32 {
        0
    } else {
        a / (1i64 << b)
    }
}

#[test]
fn binary_ops_over_all_pairs_match_i64_wrapped() {
    type Op = (
        &'static str,
        fn(&Tensor, &Tensor) -> rnx::Result<Tensor>,
        fn(i64, i64) -> i64,
    );
    let ops: [Op; 8] = [
        ("add", |a, b| a.add(b), |a, b| a + b),
        ("sub", |a, b| a.sub(b), |a, b| a - b),
        ("mul", |a, b| a.mul(b), |a, b| a * b),
        ("maximum", |a, b| a.maximum(b), |a, b| a.max(b)),
        ("minimum", |a, b| a.minimum(b), |a, b| a.min(b)),
        ("bitwise_and", |a, b| a.bitwise_and(b), |a, b| a & b),
        ("bitwise_or", |a, b| a.bitwise_or(b), |a, b| a | b),
        ("bitwise_xor", |a, b| a.bitwise_xor(b), |a, b| a ^ b),
    ];
    for dt in INT4 {
        let (a, b, p) = pairs(dt);
        for (name, f, r) in ops {
            let got = f(&a, &b).unwrap();
            assert_eq!(got.dtype(), dt);
            let want: Vec<i64> = p.iter().map(|&(x, y)| wrap(dt, r(x, y))).collect();
            assert_eq!(vals(&got), want, "{dt} {name}");
        }
        // Division and remainder (truncating; -8 / -1 wraps to -8) where b != 0.
        let nz: Vec<(i64, i64)> = p.iter().copied().filter(|&(_, y)| y != 0).collect();
        let (na, nb) = (
            make(dt, &[nz.len()], &nz.iter().map(|x| x.0).collect::<Vec<_>>()),
            make(dt, &[nz.len()], &nz.iter().map(|x| x.1).collect::<Vec<_>>()),
        );
        let want: Vec<i64> = nz.iter().map(|&(x, y)| wrap(dt, x / y)).collect();
        assert_eq!(vals(&na.div(&nb).unwrap()), want, "{dt} div");
        let want: Vec<i64> = nz.iter().map(|&(x, y)| wrap(dt, x % y)).collect();
        assert_eq!(vals(&na.rem(&nb).unwrap()), want, "{dt} rem");
        // Shifts and powers where b >= 0 (shifts past 4 bits give 0 or the
        // 32-bit result's low bits, which are 0 too).
        let nn: Vec<(i64, i64)> = p.iter().copied().filter(|&(_, y)| y >= 0).collect();
        let (pa, pb) = (
            make(dt, &[nn.len()], &nn.iter().map(|x| x.0).collect::<Vec<_>>()),
            make(dt, &[nn.len()], &nn.iter().map(|x| x.1).collect::<Vec<_>>()),
        );
        let want: Vec<i64> = nn.iter().map(|&(x, y)| wrap(dt, shl32(x, y))).collect();
        assert_eq!(vals(&pa.lshift(&pb).unwrap()), want, "{dt} lshift");
        let want: Vec<i64> = nn.iter().map(|&(x, y)| wrap(dt, shr32(x, y))).collect();
        assert_eq!(vals(&pa.rshift(&pb).unwrap()), want, "{dt} rshift");
        let want: Vec<i64> = nn
            .iter()
            .map(|&(x, y)| wrap(dt, x.wrapping_pow(y as u32)))
            .collect();
        assert_eq!(vals(&pa.pow(&pb).unwrap()), want, "{dt} pow");
        // Comparisons give u8 masks.
        for (op, f) in [
            (CmpOp::Eq, (|x, y| x == y) as fn(i64, i64) -> bool),
            (CmpOp::Lt, |x, y| x < y),
            (CmpOp::Ge, |x, y| x >= y),
        ] {
            let m = a.compare(op, &b).unwrap();
            assert_eq!(m.dtype(), DType::U8);
            let want: Vec<i64> = p.iter().map(|&(x, y)| f(x, y) as i64).collect();
            assert_eq!(vals(&m), want, "{dt} {op:?}");
        }
        // Scalars convert to the dtype and must fit.
        let (lo, hi) = (values(dt)[0], values(dt)[15]);
        assert_eq!(
            vals(&a.add(1).unwrap()),
            p.iter().map(|&(x, _)| wrap(dt, x + 1)).collect::<Vec<_>>()
        );
        let e = a.add(hi + 1).unwrap_err().to_string();
        assert!(e.contains(dt.name()), "{e}");
        assert!(a.mul(lo - 1).is_err());
    }
}

#[test]
fn unary_ops_and_selection_over_all_values() {
    for dt in INT4 {
        let v = values(dt);
        let t = make(dt, &[16], &v);
        let w = |f: fn(i64) -> i64| -> Vec<i64> { v.iter().map(|&x| wrap(dt, f(x))).collect() };
        assert_eq!(vals(&t.neg().unwrap()), w(|x| -x), "{dt} neg");
        assert_eq!(vals(&t.abs().unwrap()), w(|x| x.abs()), "{dt} abs");
        assert_eq!(vals(&t.square().unwrap()), w(|x| x * x), "{dt} square");
        // One tensor as both operands (widened once), and a reversed view.
        assert_eq!(vals(&t.mul(&t).unwrap()), w(|x| x * x), "{dt} x * x");
        let r = t.flip(None).unwrap();
        let mut want = w(|x| 2 * x);
        want.reverse();
        assert_eq!(vals(&r.add(&r).unwrap()), want, "{dt} r + r");
        assert_eq!(vals(&t.sign().unwrap()), w(|x| x.signum()), "{dt} sign");
        assert_eq!(
            vals(&t.bitwise_not().unwrap()),
            w(|x| !x),
            "{dt} bitwise_not"
        );
        let c = t.clamp(1, 5).unwrap();
        assert_eq!(vals(&c), w(|x| x.clamp(1, 5)), "{dt} clamp");
        let cmin = t.clamp_min(2).unwrap();
        assert_eq!(vals(&cmin), w(|x| x.max(2)), "{dt} clamp_min");
        let m = t.cmpgt(3).unwrap();
        let sel = Tensor::where_cond(&m, &t, &t.neg().unwrap()).unwrap();
        assert_eq!(vals(&sel), w(|x| if x > 3 { x } else { -x }), "{dt} where");
        // In place on a reversed, stepped view.
        let b = make(dt, &[16], &v);
        b.slice(s![15..0;-3]).unwrap().neg_().unwrap();
        let want: Vec<i64> = (0..16)
            .map(|i| {
                if i >= 3 && (15 - i) % 3 == 0 {
                    wrap(dt, -v[i])
                } else {
                    v[i]
                }
            })
            .collect();
        assert_eq!(vals(&b), want, "{dt} neg_ on a view");
    }
}

#[test]
fn reductions_match_i64_wrapped() {
    for dt in INT4 {
        let x = super::int4::noise(dt, &[6, 7], 11);
        let xv = vals(&x);
        let at = |i: usize, j: usize| xv[i * 7 + j];
        let sum0: Vec<i64> = (0..7)
            .map(|j| wrap(dt, (0..6).map(|i| at(i, j)).sum()))
            .collect();
        assert_eq!(vals(&x.sum(0, false).unwrap()), sum0, "{dt} sum axis 0");
        let sum1: Vec<i64> = (0..6)
            .map(|i| wrap(dt, (0..7).map(|j| at(i, j)).sum()))
            .collect();
        assert_eq!(vals(&x.sum(1, false).unwrap()), sum1, "{dt} sum axis 1");
        let all: i64 = wrap(dt, xv.iter().sum());
        assert_eq!(vals(&x.sum(None, false).unwrap()), vec![all]);
        let prod1: Vec<i64> = (0..6)
            .map(|i| wrap(dt, (0..7).fold(1i64, |p, j| wrap(dt, p * at(i, j)))))
            .collect();
        assert_eq!(vals(&x.prod(1, false).unwrap()), prod1, "{dt} prod");
        let max0: Vec<i64> = (0..7)
            .map(|j| (0..6).map(|i| at(i, j)).max().unwrap())
            .collect();
        assert_eq!(vals(&x.max(0, false).unwrap()), max0, "{dt} max");
        let min1: Vec<i64> = (0..6)
            .map(|i| (0..7).map(|j| at(i, j)).min().unwrap())
            .collect();
        assert_eq!(vals(&x.min(1, false).unwrap()), min1, "{dt} min");
        let am: Vec<i64> = (0..6)
            .map(|i| {
                let m = (0..7).map(|j| at(i, j)).max().unwrap();
                (0..7).position(|j| at(i, j) == m).unwrap() as i64
            })
            .collect();
        assert_eq!(vals(&x.argmax(1, false).unwrap()), am, "{dt} argmax");
        let mut acc = 0;
        let cs: Vec<i64> = xv
            .iter()
            .map(|&v| {
                acc = wrap(dt, acc + v);
                acc
            })
            .collect();
        assert_eq!(vals(&x.cumsum(None).unwrap()), cs, "{dt} cumsum");
        let any1: Vec<i64> = (0..6)
            .map(|i| (0..7).any(|j| at(i, j) != 0) as i64)
            .collect();
        assert_eq!(vals(&x.any(1, false).unwrap()), any1);
        // On a transposed, sliced view: the reduction reads the right nibbles.
        let v = x.transpose(None).unwrap().slice(s![1..;2, 1..]).unwrap();
        let want: Vec<i64> = [1, 3, 5]
            .iter()
            .map(|&j| wrap(dt, (1..6).map(|i| at(i, j)).sum()))
            .collect();
        assert_eq!(vals(&v.sum(1, false).unwrap()), want, "{dt} sum of a view");
        // Mean is for floats; the error names i4/u4.
        let e = x.mean(Axes::all(), false).unwrap_err().to_string();
        assert!(e.contains(dt.name()), "{e}");
    }
}

#[test]
fn matmul_matches_i64_wrapped() {
    for dt in INT4 {
        let (m, k, n) = (4, 9, 5);
        let a = super::int4::noise(dt, &[m, k], 1);
        let b = super::int4::noise(dt, &[k, n], 2);
        let (av, bv) = (vals(&a), vals(&b));
        let want: Vec<i64> = (0..m * n)
            .map(|p| {
                wrap(
                    dt,
                    (0..k).map(|q| av[p / n * k + q] * bv[q * n + p % n]).sum(),
                )
            })
            .collect();
        let c = a.matmul(&b).unwrap();
        assert_eq!(c.dtype(), dt);
        assert_eq!(vals(&c), want, "{dt} matmul");
        // A transposed operand (b stored as [n, k]) and a batch.
        let bt = b
            .transpose(None)
            .unwrap()
            .contiguous()
            .unwrap()
            .transpose(None)
            .unwrap();
        assert_eq!(
            vals(&a.matmul(&bt).unwrap()),
            want,
            "{dt} matmul, transposed b"
        );
        let a2 = Tensor::stack(&[&a, &a.neg().unwrap()], 0).unwrap();
        let c2 = a2.matmul(&b).unwrap();
        let neg: Vec<i64> = (0..m * n)
            .map(|p| {
                wrap(
                    dt,
                    -(0..k)
                        .map(|q| av[p / n * k + q] * bv[q * n + p % n])
                        .sum::<i64>(),
                )
            })
            .collect();
        assert_eq!(
            vals(&c2),
            [want.clone(), neg].concat(),
            "{dt} batched matmul"
        );
    }
}

/// A named data-moving operation.
type Case<'a> = (&'static str, Box<dyn Fn(&Tensor) -> Tensor + 'a>);

/// `f` on the 4-bit tensor equals `f` on its i8/u8 copy with each result
/// wrapped to 4 bits (the identity for ops that only move values).
fn same_as_bytes(dt: DType, x: &Tensor, f: impl Fn(&Tensor) -> Tensor, what: &str) {
    let byte = if dt == DType::I4 {
        DType::I8
    } else {
        DType::U8
    };
    let got = f(x);
    assert_eq!(got.dtype(), dt, "{what}");
    let want = f(&x.cast(byte).unwrap());
    assert_eq!(got.shape(), want.shape(), "{dt} {what}");
    let want: Vec<i64> = vals(&want).into_iter().map(|v| wrap(dt, v)).collect();
    assert_eq!(vals(&got), want, "{dt} {what}");
}

#[test]
fn data_movement_matches_the_same_ops_on_bytes() {
    for dt in INT4 {
        let x = super::int4::noise(dt, &[5, 7], 5);
        let y = super::int4::noise(dt, &[3, 7], 6);
        let z = super::int4::noise(dt, &[5, 3], 7);
        let byte = if dt == DType::I4 {
            DType::I8
        } else {
            DType::U8
        };
        let cases: Vec<Case<'_>> = vec![
            (
                "concatenate",
                Box::new(|t| {
                    let o = if t.dtype() == dt {
                        y.clone()
                    } else {
                        y.cast(byte).unwrap()
                    };
                    Tensor::concatenate(&[t.clone(), o.slice(s![1..]).unwrap()], 0).unwrap()
                }),
            ),
            (
                "concatenate axis 1",
                Box::new(|t| {
                    let o = if t.dtype() == dt {
                        z.clone()
                    } else {
                        z.cast(byte).unwrap()
                    };
                    Tensor::concatenate(&[o, t.clone()], 1).unwrap()
                }),
            ),
            (
                "stack",
                Box::new(|t| Tensor::stack(&[t.clone(), t.flip(None).unwrap()], 1).unwrap()),
            ),
            ("pad", Box::new(|t| t.pad(&[(1, 2), (3, 0)], 2).unwrap())),
            ("tile", Box::new(|t| t.tile(&[2, 1]).unwrap())),
            ("repeat", Box::new(|t| t.repeat(3, 1).unwrap())),
            ("roll", Box::new(|t| t.roll(4, None).unwrap())),
            (
                "reshape of a transpose",
                Box::new(|t| t.transpose(None).unwrap().reshape([5, 7]).unwrap()),
            ),
            (
                "take",
                Box::new(|t| {
                    let i = Tensor::create(DType::I64, &[4], &[6, 0, 3, 3]).unwrap();
                    t.take(&i, 1).unwrap()
                }),
            ),
            (
                "slice with a list",
                Box::new(|t| t.slice(s![[4, 0, 2], 1..;3]).unwrap()),
            ),
            ("sort", Box::new(|t| t.sort(1, false).unwrap().0)),
            ("sort descending", Box::new(|t| t.sort(0, true).unwrap().0)),
            (
                "scatter",
                Box::new(|t| {
                    let i = Tensor::create(DType::I64, &[2, 7], &[0i64; 14]).unwrap();
                    let i = i
                        .add(&Tensor::create(DType::I64, &[2, 1], &[4, 1]).unwrap())
                        .unwrap();
                    t.scatter(&i, &t.slice(s![0..2]).unwrap(), 0).unwrap()
                }),
            ),
            (
                "put",
                Box::new(|t| {
                    let i = Tensor::create(DType::I64, &[3], &[0, 17, 34]).unwrap();
                    t.put(&i, &t.slice(s![1, 0..3]).unwrap()).unwrap()
                }),
            ),
            (
                "scatter add",
                Box::new(|t| {
                    let i = Tensor::create(DType::I64, &[1, 7], &[4, 0, 0, 2, 1, 4, 4]).unwrap();
                    let o = ScatterOptions {
                        mode: ScatterMode::Add,
                        ..Default::default()
                    };
                    t.scatter_with(&i, &t.slice(s![2..3]).unwrap(), 0, o)
                        .unwrap()
                }),
            ),
            (
                "scatter multiply",
                Box::new(|t| {
                    let i = Tensor::create(DType::I64, &[5, 1], &[6, 6, 0, 3, 6]).unwrap();
                    let o = ScatterOptions {
                        mode: ScatterMode::Multiply,
                        ..Default::default()
                    };
                    t.scatter_with(&i, &t.slice(s![.., 2..3]).unwrap(), 1, o)
                        .unwrap()
                }),
            ),
            (
                "extract",
                Box::new(|t| t.extract(&t.cmpgt(2).unwrap()).unwrap()),
            ),
            (
                "max_pool2d",
                Box::new(|t| {
                    let o = PoolOptions {
                        stride: vec![1],
                        padding: vec![1],
                        ..Default::default()
                    };
                    t.reshape([1, 1, 5, 7])
                        .unwrap()
                        .max_pool2d([3, 2], &o)
                        .unwrap()
                }),
            ),
            (
                "maximum_filter",
                Box::new(|t| {
                    let o = FilterOptions {
                        mode: BoundaryMode::Wrap,
                        ..Default::default()
                    };
                    t.transpose(None)
                        .unwrap()
                        .maximum_filter(&[3, 2], &o)
                        .unwrap()
                }),
            ),
            (
                "minimum_filter",
                Box::new(|t| {
                    t.minimum_filter(&[2, 3], &FilterOptions::default())
                        .unwrap()
                }),
            ),
        ];
        for (name, f) in &cases {
            same_as_bytes(dt, &x, f, name);
        }
        // argsort gives i64 indices (stable order of the same values).
        let byte_x = x.cast(byte).unwrap();
        assert_eq!(
            vals(&x.argsort(1, false).unwrap()),
            vals(&byte_x.argsort(1, false).unwrap())
        );
        // set_slice with a list of positions writes only them.
        let t = x.copy().unwrap();
        t.set_slice(s![.., [1, 5]], &Tensor::zeros(dt, &[5, 2]).unwrap())
            .unwrap();
        let tv = vals(&t);
        let xv = vals(&x);
        for p in 0..35 {
            let want = if p % 7 == 1 || p % 7 == 5 { 0 } else { xv[p] };
            assert_eq!(tv[p], want, "{dt} set_slice at {p}");
        }
    }
}

#[test]
fn products_scans_and_sets_match_the_same_ops_on_bytes() {
    for dt in INT4 {
        let x = super::int4::noise(dt, &[4, 6], 3);
        let row = |t: &Tensor, i: isize| t.slice(s![i]).unwrap();
        let cases: Vec<Case<'_>> = vec![
            ("trace", Box::new(|t| t.trace().unwrap())),
            ("tril", Box::new(|t| t.tril(0).unwrap())),
            ("diag", Box::new(|t| row(t, 0).diag(1).unwrap())),
            ("outer", Box::new(|t| row(t, 0).outer(&row(t, 1)).unwrap())),
            ("inner", Box::new(|t| t.inner(t).unwrap())),
            (
                "kron",
                Box::new(|t| {
                    let a = t.slice(s![0..2, 0..2]).unwrap();
                    a.kron(&t.slice(s![1..3, 0..3]).unwrap()).unwrap()
                }),
            ),
            (
                "tensordot",
                Box::new(|t| t.tensordot(&t.transpose(None).unwrap(), 1).unwrap()),
            ),
            (
                "einsum",
                Box::new(|t| Tensor::einsum("ij,kj->ik", &[t, t]).unwrap()),
            ),
            (
                "matrix_power",
                Box::new(|t| t.slice(s![.., 1..5]).unwrap().matrix_power(3).unwrap()),
            ),
            (
                "cross",
                Box::new(|t| {
                    t.slice(s![.., 0..3])
                        .unwrap()
                        .cross(&t.slice(s![.., 3..6]).unwrap(), -1)
                        .unwrap()
                }),
            ),
            ("cummax", Box::new(|t| t.cummax(1).unwrap().0)),
            ("cumprod", Box::new(|t| t.cumprod(0).unwrap())),
            ("ptp", Box::new(|t| t.ptp(1, false).unwrap())),
            ("unique", Box::new(|t| t.unique().unwrap())),
            (
                "correlate",
                Box::new(|t| {
                    let m = rnx::ops::signal::SignalMode::Full;
                    row(t, 0)
                        .correlate(&t.slice(s![1, 0..3]).unwrap(), m)
                        .unwrap()
                }),
            ),
        ];
        for (name, f) in &cases {
            same_as_bytes(dt, &x, f, name);
        }
    }
}

#[test]
fn rust_values_and_promotion() {
    let t = make(DType::I4, &[3], &[-8, 0, 7]);
    let three = rnx::I4::new(3).unwrap();
    assert_eq!(vals(&t.add(three).unwrap()), vec![-5, 3, -6]);
    let u = Tensor::full(DType::U4, &[2], rnx::U4::MAX).unwrap();
    assert_eq!(vals(&u.add(rnx::U4::ONE).unwrap()), vec![0, 0]);
    // ml_dtypes' promotions (np.promote_types with ml_dtypes.int4/uint4).
    use rnx::ext::promotion::{numpy_promote, pytorch_promote};
    use DType::*;
    for (a, b, want) in [
        (I4, I4, I4),
        (I4, U4, I8),
        (I4, I8, I8),
        (I4, U8, I16),
        (U4, I8, I8),
        (U4, U8, U8),
        (I4, I32, I32),
        (I4, F16, F16),
        (U4, BF16, BF16),
        (U4, F32, F32),
    ] {
        assert_eq!(numpy_promote(a, b), Some(want), "{a} {b}");
        assert_eq!(numpy_promote(b, a), Some(want), "{b} {a}");
    }
    // PyTorch has no 4-bit integer arithmetic to follow.
    assert_eq!(pytorch_promote(I4, I8), None);
    assert_eq!(pytorch_promote(U4, U4), Some(U4));
}

#[test]
fn errors_name_the_4_bit_dtype() {
    for dt in INT4 {
        let a = make(dt, &[2], &[1, 2]);
        let e = a.rshift(&make(dt, &[2], &[1, values(dt)[0]])).map(|_| ());
        if dt == DType::I4 {
            let e = e.unwrap_err().to_string();
            assert!(
                e.contains("negative shift") && e.contains("i4") && !e.contains("i32"),
                "{e}"
            );
        } else {
            assert!(e.is_ok());
        }
        let e = a.div(&make(dt, &[2], &[1, 0])).unwrap_err().to_string();
        assert!(e.contains("division by zero"), "{e}");
        let e = a
            .add(&Tensor::zeros(DType::I8, &[2]).unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains(dt.name()) && e.contains("i8"), "{e}");
        let e = a.sqrt().unwrap_err().to_string();
        assert!(e.contains("sqrt") && e.contains(dt.name()), "{e}");
        let e = a.to_vec::<i8>().unwrap_err().to_string();
        assert!(e.contains(dt.name()), "{e}");
        // A failed op leaves the tensor unchanged.
        assert!(a.div_(&make(dt, &[2], &[0, 1])).is_err());
        assert_eq!(vals(&a), vec![1, 2]);
    }
}

#[cfg(feature = "gpu")]
#[test]
fn the_gpu_refuses_4_bit_tensors_naming_them() {
    let Some(d) = super::gpu::gpu() else { return };
    for dt in INT4 {
        let e = Tensor::zeros(dt, &[3]).unwrap().to_device(d).unwrap_err();
        assert!(
            matches!(e, rnx::Error::UnsupportedDTypeOnDevice { dtype, .. } if dtype == dt),
            "{e}"
        );
        assert!(e.to_string().contains(dt.name()), "{e}");
        let e = Tensor::zeros_on(dt, &[3], d).unwrap_err();
        assert!(
            matches!(e, rnx::Error::UnsupportedDTypeOnDevice { .. }),
            "{e}"
        );
        // A byte tensor on the GPU cannot be reinterpreted as 4-bit there.
        let b = Tensor::zeros(DType::U8, &[3])
            .unwrap()
            .to_device(d)
            .unwrap();
        assert!(b.bitcast(dt).is_err());
        assert!(b.cast(dt).is_err());
    }
}
