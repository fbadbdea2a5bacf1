//! f16 and bf16 through the vectorised conversions of `dtype/half_bits.rs`:
//! elementwise arithmetic, math, comparisons, max/min/argmax and sums give
//! what computing each value in f32 with `half`'s own conversions and
//! rounding once gives, on values that include zeros of both signs,
//! subnormals, the largest finite values, infinities and NaN, in contiguous
//! and transposed layouts, long enough for the vector loops and the threads.

use rnx::{bf16, f16, DType, Tensor};

/// 4096 values of `dtype` (as f32): specials first, then a spread of
/// magnitudes from subnormal to the largest finite, both signs.
fn values(dtype: DType) -> Vec<f32> {
    let (max, tiny) = match dtype {
        DType::F16 => (65504.0, 5.96e-8),
        _ => (3.3895e38, 9.2e-41),
    };
    let mut v = vec![
        0.0,
        -0.0,
        tiny,
        -tiny,
        max,
        -max,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        1.0,
        -1.0,
        0.5,
    ];
    let mut s = 12345u64;
    while v.len() < 4096 {
        s = s
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        let u = (s >> 40) as f32 / (1u64 << 24) as f32; // [0, 1)
        let e = ((s >> 20) % 40) as i32 - 24;
        let sign = if s & 1 == 0 { 1.0 } else { -1.0 };
        v.push(sign * (1.0 + u) * 2f32.powi(e));
    }
    v
}

/// `v` rounded to `dtype` and back, with `half`'s conversions.
fn round(dtype: DType, v: f32) -> f32 {
    match dtype {
        DType::F16 => f16::from_f32(v).to_f32(),
        _ => bf16::from_f32(v).to_f32(),
    }
}

/// The finite values of [`values`], rounded to `dtype`.
fn finite_values(dtype: DType) -> Vec<f32> {
    values(dtype)
        .iter()
        .map(|&x| round(dtype, x))
        .filter(|x| x.is_finite())
        .collect()
}

fn tensor(dtype: DType, v: &[f32], shape: &[usize]) -> Tensor {
    Tensor::from_vec(v.to_vec(), shape)
        .unwrap()
        .cast(dtype)
        .unwrap()
}

fn read(t: &Tensor) -> Vec<f32> {
    t.cast(DType::F32).unwrap().to_vec::<f32>().unwrap()
}

fn same(got: &[f32], want: &[f32], what: &str) {
    assert_eq!(got.len(), want.len(), "{what}: length");
    for (i, (g, w)) in got.iter().zip(want).enumerate() {
        assert!(
            g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
            "{what}: element {i}: {g} vs {w}"
        );
    }
}

#[test]
fn arithmetic_and_math_round_the_f32_result_once() {
    for dtype in [DType::F16, DType::BF16] {
        let av: Vec<f32> = values(dtype).iter().map(|&x| round(dtype, x)).collect();
        let bv: Vec<f32> = av.iter().rev().copied().collect();
        let (a, b) = (tensor(dtype, &av, &[64, 64]), tensor(dtype, &bv, &[64, 64]));
        // The same values read through a transposed view.
        let at = tensor(dtype, &av, &[64, 64]).transpose([1, 0]).unwrap();
        let at_vals: Vec<f32> = (0..4096).map(|i| av[(i % 64) * 64 + i / 64]).collect();
        type F2 = fn(f32, f32) -> f32;
        type Op = fn(&Tensor, &Tensor) -> rnx::Result<Tensor>;
        let binary: [(&str, Op, F2); 4] = [
            ("add", |x, y| x.add(y), |x, y| x + y),
            ("mul", |x, y| x.mul(y), |x, y| x * y),
            ("div", |x, y| x.div(y), |x, y| x / y),
            (
                "maximum",
                |x, y| x.maximum(y),
                |x, y| {
                    if x.is_nan() || y.is_nan() {
                        f32::NAN
                    } else {
                        x.max(y)
                    }
                },
            ),
        ];
        for (name, op, f) in binary {
            let want: Vec<f32> = av
                .iter()
                .zip(&bv)
                .map(|(&x, &y)| round(dtype, f(x, y)))
                .collect();
            same(
                &read(&op(&a, &b).unwrap()),
                &want,
                &format!("{dtype:?} {name}"),
            );
            let want_t: Vec<f32> = at_vals
                .iter()
                .zip(&bv)
                .map(|(&x, &y)| round(dtype, f(x, y)))
                .collect();
            same(
                &read(&op(&at, &b).unwrap()),
                &want_t,
                &format!("{dtype:?} {name} transposed"),
            );
        }
        // sqrt is correctly rounded in f32, so once more in the half type.
        let want: Vec<f32> = av.iter().map(|&x| round(dtype, x.sqrt())).collect();
        same(&read(&a.sqrt().unwrap()), &want, &format!("{dtype:?} sqrt"));
        let lt: Vec<u8> = av.iter().zip(&bv).map(|(x, y)| (x < y) as u8).collect();
        assert_eq!(
            a.less(&b).unwrap().to_vec::<u8>().unwrap(),
            lt,
            "{dtype:?} less"
        );
    }
}

#[test]
fn max_min_argmax_and_sums_compare_and_add_in_f32() {
    for dtype in [DType::F16, DType::BF16] {
        // Finite values: the extremes and their positions.
        let fin: Vec<f32> = finite_values(dtype).into_iter().take(4000).collect();
        let t = tensor(dtype, &fin, &[40, 100]);
        for (axis, rows, cols) in [(1isize, 40, 100), (0, 100, 40)] {
            let mut want_max = vec![];
            let mut want_min = vec![];
            let mut want_arg = vec![];
            for r in 0..rows {
                // Element k of output r along `axis`.
                let get = |k: usize| {
                    if axis == 1 {
                        fin[r * 100 + k]
                    } else {
                        fin[k * 100 + r]
                    }
                };
                let (mut mx, mut mn, mut arg) = (f32::NEG_INFINITY, f32::INFINITY, 0i64);
                for k in 0..cols {
                    let x = get(k);
                    if x > mx {
                        mx = x;
                        arg = k as i64;
                    }
                    mn = mn.min(x);
                }
                want_max.push(mx);
                want_min.push(mn);
                want_arg.push(arg);
            }
            same(
                &read(&t.max([axis], false).unwrap()),
                &want_max,
                &format!("{dtype:?} max axis {axis}"),
            );
            same(
                &read(&t.min([axis], false).unwrap()),
                &want_min,
                &format!("{dtype:?} min axis {axis}"),
            );
            let got = t.argmax(axis, false).unwrap().cast(DType::I64).unwrap();
            assert_eq!(
                got.to_vec::<i64>().unwrap(),
                want_arg,
                "{dtype:?} argmax axis {axis}"
            );
        }
        // NaN wins max and argmax (the first NaN).
        let mut with_nan = fin.clone();
        with_nan[1234] = f32::NAN;
        with_nan[2345] = f32::NAN;
        let t = tensor(dtype, &with_nan, &[4000]);
        assert!(
            read(&t.max(None, false).unwrap())[0].is_nan(),
            "{dtype:?} max with NaN"
        );
        let arg = t.argmax(None, false).unwrap().cast(DType::I64).unwrap();
        assert_eq!(
            arg.to_vec::<i64>().unwrap(),
            vec![1234],
            "{dtype:?} argmax with NaN"
        );
        // Sums of small integers are exact in the f32 accumulator whatever the
        // order: 0..4096 % 17 - 8 sums to the integer sum, rounded once.
        let ints: Vec<f32> = (0..4096).map(|i| (i % 17) as f32 - 8.0).collect();
        let t = tensor(dtype, &ints, &[4096]);
        let want: f32 = ints.iter().sum();
        same(
            &read(&t.sum(None, false).unwrap()),
            &[round(dtype, want)],
            &format!("{dtype:?} sum"),
        );
        let rows = tensor(dtype, &ints, &[64, 64]).sum([0], false).unwrap();
        let want: Vec<f32> = (0..64)
            .map(|c| round(dtype, (0..64).map(|r| ints[r * 64 + c]).sum()))
            .collect();
        same(&read(&rows), &want, &format!("{dtype:?} column sums"));
    }
}

/// The index of the first extreme of `row`: the first NaN if there is one,
/// else the first element no other element beats (strictly).
fn first_extreme(row: &[f32], max: bool) -> i64 {
    if let Some(i) = row.iter().position(|x| x.is_nan()) {
        return i as i64;
    }
    let mut best = 0;
    for (i, &x) in row.iter().enumerate() {
        if (max && x > row[best]) || (!max && x < row[best]) {
            best = i;
        }
    }
    best as i64
}

/// argmax/argmin of f16/bf16 rows longer than the 2048 elements the CPU
/// widens to f32 at a time: the extreme in the first, a middle and the last
/// block, a tie with an equal value in a later block (the first wins), zeros
/// of both signs as the extreme (equal: the first wins), subnormals, NaN in
/// a later block after a larger finite value, and at every SIMD level the
/// suite runs at (`simd_levels`). Against a brute-force search of the same
/// values in f32.
#[test]
fn argmax_argmin_of_long_half_rows() {
    for dtype in [DType::F16, DType::BF16] {
        let pool = finite_values(dtype);
        let len = 5000;
        let mut rows: Vec<Vec<f32>> = Vec::new();
        for r in 0..8 {
            let mut row: Vec<f32> = (0..len)
                .map(|i| pool[(i * 7 + r * 131) % pool.len()] * 1e-3)
                .collect();
            match r {
                // The largest and smallest in the first block, repeated in the last.
                0 => {
                    row[5] = 7.0;
                    row[4999] = 7.0;
                    row[6] = -7.0;
                    row[4500] = -7.0;
                }
                // In the middle block only.
                1 => {
                    row[3000] = 9.0;
                    row[2049] = -9.0;
                }
                // In the last (partial) block only.
                2 => {
                    row[4990] = 11.0;
                    row[4991] = -11.0;
                }
                // All zeros of both signs: the first is the extreme.
                3 => {
                    for (i, x) in row.iter_mut().enumerate() {
                        *x = if i % 3 == 0 { 0.0 } else { -0.0 };
                    }
                }
                // Subnormals only, the extremes in the middle block.
                4 => {
                    let tiny = if dtype == DType::F16 {
                        5.96e-8
                    } else {
                        9.2e-41
                    };
                    let tiny = round(dtype, tiny);
                    for x in row.iter_mut() {
                        *x = tiny;
                    }
                    row[2500] = round(dtype, tiny * 3.0);
                    row[2600] = -tiny;
                }
                // NaN in the middle block after a larger value in the first.
                5 => {
                    row[10] = 1e4;
                    row[3333] = f32::NAN;
                    row[4444] = f32::NAN;
                }
                // Infinities.
                6 => {
                    row[4000] = f32::INFINITY;
                    row[100] = f32::NEG_INFINITY;
                    row[4100] = f32::NEG_INFINITY;
                }
                _ => {}
            }
            // The values the tensor holds.
            rows.push(row.iter().map(|&x| round(dtype, x)).collect());
        }
        let flat: Vec<f32> = rows.concat();
        let t = tensor(dtype, &flat, &[rows.len(), len]);
        for max in [true, false] {
            let want: Vec<i64> = rows.iter().map(|r| first_extreme(r, max)).collect();
            let got = if max {
                t.argmax(1, false)
            } else {
                t.argmin(1, false)
            };
            let got = got
                .unwrap()
                .cast(DType::I64)
                .unwrap()
                .to_vec::<i64>()
                .unwrap();
            assert_eq!(got, want, "{dtype:?} max {max}");
            // The same values through the max/min reductions.
            let ext = if max {
                t.max([1], false)
            } else {
                t.min([1], false)
            };
            let want_v: Vec<f32> = rows
                .iter()
                .zip(&want)
                .map(|(r, &i)| r[i as usize])
                .collect();
            same(
                &read(&ext.unwrap()),
                &want_v,
                &format!("{dtype:?} max {max} values"),
            );
        }
    }
}
