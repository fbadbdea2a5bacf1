//! Copies, casts and unary, binary and ternary ops whose operands are
//! transposed against each other at sizes that take the tiled paths (tiles of
//! 64 with the transposed inputs staged, register transposes of 8 x 8 and
//! 4 x 4, scalar edges): values against index arithmetic for element sizes 1,
//! 2, 4, 8 and 16 bytes, 2-D and 3-D, sizes that are not multiples of 8, and
//! the float math kernels on transposed inputs against f64 math.

use rnx::{DType, Element, Tensor, C64};

/// A row-major tensor of `shape` whose element `k` is `k % 97` (exact in
/// every dtype).
fn ramp<T: Element>(shape: &[usize], shift: usize) -> (Tensor, Vec<f64>) {
    let n: usize = shape.iter().product();
    let vals: Vec<f64> = (0..n).map(|k| ((k + shift) % 97) as f64).collect();
    let data: Vec<T> = vals.iter().map(|&v| T::from_f64(v)).collect();
    (Tensor::from_vec(data, shape).unwrap(), vals)
}

fn to_f64<T: Element>(t: &Tensor) -> Vec<f64> {
    t.to_vec::<T>()
        .unwrap()
        .iter()
        .map(|v| v.to_f64())
        .collect()
}

/// Row-major values of `x` (row-major `shape`, values `v`) permuted by `perm`.
fn permuted(v: &[f64], shape: &[usize], perm: &[usize]) -> Vec<f64> {
    let nd = shape.len();
    let out_shape: Vec<usize> = perm.iter().map(|&p| shape[p]).collect();
    let n = v.len();
    let mut out = Vec::with_capacity(n);
    for k in 0..n {
        // Output index -> input index.
        let mut rem = k;
        let mut idx = vec![0usize; nd];
        for ax in (0..nd).rev() {
            idx[ax] = rem % out_shape[ax];
            rem /= out_shape[ax];
        }
        let mut src = vec![0usize; nd];
        for (ax, &p) in perm.iter().enumerate() {
            src[p] = idx[ax];
        }
        out.push(v[src.iter().zip(shape).fold(0, |acc, (&i, &d)| acc * d + i)]);
    }
    out
}

fn check_type<T: Element>() {
    for (shape, perm) in [
        (vec![131usize, 75], vec![1usize, 0]),
        (vec![64, 64], vec![1, 0]),
        (vec![200, 129], vec![1, 0]),
        (vec![3, 70, 66], vec![0, 2, 1]),
        (vec![67, 3, 90], vec![2, 1, 0]),
    ] {
        let (x, xv) = ramp::<T>(&shape, 0);
        let xt = x
            .transpose(perm.iter().map(|&p| p as isize).collect::<Vec<_>>())
            .unwrap();
        let want = permuted(&xv, &shape, &perm);
        let what = format!("{} {shape:?} {perm:?}", T::DTYPE);
        // A contiguous copy of the transposed view.
        assert_eq!(to_f64::<T>(&xt.contiguous().unwrap()), want, "copy {what}");
        // Transposed input on either side of a binary op.
        let (y, yv) = ramp::<T>(xt.shape(), 5);
        let sum: Vec<f64> = want.iter().zip(&yv).map(|(a, b)| a + b).collect();
        assert_eq!(to_f64::<T>(&xt.add(&y).unwrap()), sum, "a.T + b {what}");
        assert_eq!(to_f64::<T>(&y.add(&xt).unwrap()), sum, "b + a.T {what}");
        // One input (the square of values below 97 fits every dtype but u8,
        // whose square wraps mod 256 as documented).
        let sq: Vec<f64> = want
            .iter()
            .map(|&v| {
                if T::DTYPE == DType::U8 {
                    (v * v) % 256.0
                } else {
                    v * v
                }
            })
            .collect();
        assert_eq!(to_f64::<T>(&xt.square().unwrap()), sq, "square(a.T) {what}");
        // A cast of the transposed view (to c64: exact for every value here).
        let c = xt.astype(DType::C64).unwrap();
        let re: Vec<f64> = c.to_vec::<C64>().unwrap().iter().map(|z| z.re).collect();
        assert_eq!(re, want, "a.T as c64 {what}");
        // Three inputs, the transposed one in each slot: where(a.T > 40, a.T, b)
        // and where(b > 40, b, a.T).
        if T::DTYPE != DType::C64 {
            let pick = |c: &[f64], t: &[f64], f: &[f64]| -> Vec<f64> {
                c.iter()
                    .zip(t)
                    .zip(f)
                    .map(|((&c, &t), &f)| if c > 40.0 { t } else { f })
                    .collect()
            };
            let cx = xt.greater(40).unwrap();
            let got = Tensor::where_cond(&cx, &xt, &y).unwrap();
            assert_eq!(
                to_f64::<T>(&got),
                pick(&want, &want, &yv),
                "where(a.T) {what}"
            );
            let cy = y.greater(40).unwrap();
            let got = Tensor::where_cond(&cy, &y, &xt).unwrap();
            assert_eq!(to_f64::<T>(&got), pick(&yv, &yv, &want), "where(b) {what}");
        }
        // Contiguous inputs into a transposed output.
        let out = Tensor::zeros(T::DTYPE, &shape).unwrap();
        let out_t = out
            .transpose(perm.iter().map(|&p| p as isize).collect::<Vec<_>>())
            .unwrap();
        y.add_out(&y, &out_t).unwrap();
        let twice: Vec<f64> = yv.iter().map(|v| 2.0 * v).collect();
        assert_eq!(
            to_f64::<T>(&out_t.contiguous().unwrap()),
            twice,
            "out.T = b + b {what}"
        );
    }
}

#[test]
fn every_element_size() {
    check_type::<u8>();
    check_type::<i16>();
    check_type::<f32>();
    check_type::<i32>();
    check_type::<f64>();
    check_type::<i64>();
    check_type::<C64>();
}

/// The vectorised math kernels (one and two inputs) on transposed inputs, for
/// f32 and f64, against f64 math.
#[test]
fn math_on_transposed_inputs() {
    fn check<T: Element>(tol: f64) {
        let shape = [131usize, 75];
        let (x, xv) = ramp::<T>(&shape, 1);
        let xt = x.transpose(None).unwrap();
        let want = permuted(&xv, &shape, &[1, 0]);
        let (y, yv) = ramp::<T>(xt.shape(), 7);
        let close = |got: Vec<f64>, want: Vec<f64>, what: &str| {
            assert_eq!(got.len(), want.len());
            for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                assert!(
                    (g - w).abs() <= tol * w.abs().max(1.0),
                    "{what} {}: {g} vs {w} at {i}",
                    T::DTYPE
                );
            }
        };
        close(
            to_f64::<T>(&xt.sqrt().unwrap()),
            want.iter().map(|v| v.sqrt()).collect(),
            "sqrt(a.T)",
        );
        let at: Vec<f64> = want.iter().zip(&yv).map(|(a, b)| a.atan2(*b)).collect();
        close(to_f64::<T>(&xt.atan2(&y).unwrap()), at, "atan2(a.T, b)");
        let at: Vec<f64> = yv.iter().zip(&want).map(|(a, b)| a.atan2(*b)).collect();
        close(to_f64::<T>(&y.atan2(&xt).unwrap()), at, "atan2(b, a.T)");
    }
    check::<f32>(1e-6);
    check::<f64>(1e-15);
}
