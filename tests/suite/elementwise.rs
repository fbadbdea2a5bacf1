//! Elementwise arithmetic: the seeds' examples with exact values, dtype and
//! scalar rules, integer edge cases at every width, float edge cases (NaN,
//! ±inf, -0.0), halves, complex, and a property test of the kernels against
//! an f64 reference over random strided and broadcast layouts.

use proptest::prelude::*;
use rnx::backend::elementwise::{BinaryOp, UnaryOp};
use rnx::ops::elementwise::{binary, unary};
use rnx::{bf16, f16, DType, Error, Layout, Tensor, C32, C64};

fn f32s(t: &Tensor) -> Vec<f32> {
    t.to_vec::<f32>().unwrap()
}

// ----- seed examples -----

#[test]
fn seed_broadcast_add() {
    // cl-tensor: (add a b) with a = ((1) (2)), b = (10 20 30).
    let a = Tensor::create(DType::F32, &[2, 1], &[1, 2]).unwrap();
    let b = Tensor::create(DType::F32, &[3], &[10, 20, 30]).unwrap();
    let r = a.add(&b).unwrap();
    assert_eq!((r.dtype(), r.shape()), (DType::F32, &[2, 3][..]));
    assert_eq!(f32s(&r), vec![11., 21., 31., 12., 22., 32.]);
    assert_eq!(r.to_string(), "[[11, 21, 31],\n [12, 22, 32]]");
    let s = &a + &b;
    assert_eq!(f32s(&s), f32s(&r));
}

#[test]
fn seed_div() {
    let x = Tensor::create(DType::F32, &[3], &[7., 8., 9.]).unwrap();
    let y = Tensor::create(DType::F32, &[3], &[2., 2., 2.]).unwrap();
    assert_eq!(x.div(&y).unwrap().to_string(), "[3.5, 4, 4.5]");
    let x = Tensor::create(DType::I32, &[3], &[7, 8, 9]).unwrap();
    let y = Tensor::create(DType::I32, &[3], &[2, 2, 2]).unwrap();
    assert_eq!(x.div(&y).unwrap().to_vec::<i32>().unwrap(), vec![3, 4, 4]);
    let x = Tensor::create(DType::I32, &[2], &[-7, 8]).unwrap();
    let y = Tensor::create(DType::I32, &[2], &[2, 2]).unwrap();
    assert_eq!(x.div(&y).unwrap().to_string(), "[-3, 4]");
}

#[test]
fn seed_sign() {
    let x = Tensor::create(DType::F32, &[3], &[-2., 0., 3.5]).unwrap();
    assert_eq!(f32s(&x.sign().unwrap()), vec![-1., 0., 1.]);
    let u = Tensor::create(DType::U8, &[3], &[0, 7, 255]).unwrap();
    assert_eq!(u.sign().unwrap().to_vec::<u8>().unwrap(), vec![0, 1, 1]);
}

#[test]
fn seed_lerp() {
    let s = Tensor::scalar(DType::F32, 0.).unwrap();
    let e = Tensor::scalar(DType::F32, 10.).unwrap();
    let w = Tensor::scalar(DType::F32, 0.3).unwrap();
    let r = s.lerp(&e, &w).unwrap().item::<f32>().unwrap();
    assert_eq!(r, 0.0f32 + 0.3f32 * (10.0f32 - 0.0));
    assert_eq!(r.round(), 3.0);
    let s = Tensor::create(DType::F32, &[2], &[1., 2.]).unwrap();
    let e = Tensor::create(DType::F32, &[2], &[5., 8.]).unwrap();
    let w = Tensor::create(DType::F32, &[2], &[0.25, 0.5]).unwrap();
    assert_eq!(f32s(&s.lerp(&e, &w).unwrap()), vec![2., 5.]);
    // Scalar weight (lerp_scalar_weight).
    assert_eq!(f32s(&s.lerp(&e, 0.5).unwrap()), vec![3., 5.]);
}

// ----- dtype and scalar rules -----

#[test]
fn dtypes_must_match_and_scalars_must_fit() {
    let a = Tensor::zeros(DType::I32, &[2]).unwrap();
    let b = Tensor::zeros(DType::F32, &[2]).unwrap();
    let e = a.add(&b).unwrap_err();
    assert_eq!(
        e.to_string(),
        "add: dtypes differ: i32 and f32 (convert with cast)"
    );
    assert!(matches!(
        a.add(2.5).unwrap_err(),
        Error::ScalarNotRepresentable { .. }
    ));
    let u = Tensor::zeros(DType::U8, &[2]).unwrap();
    assert!(u.add(300).is_err());
    assert!(u.add(-1).is_err());
    assert_eq!(u.add(255).unwrap().to_vec::<u8>().unwrap(), vec![255, 255]);
    assert_eq!(a.rsub(5).unwrap().to_vec::<i32>().unwrap(), vec![5, 5]);
    let sh = Tensor::zeros(DType::I32, &[3]).unwrap();
    let e = a.add(&sh).unwrap_err();
    assert!(e.to_string().starts_with("add: shapes"), "{e}");
    // Unsupported dtypes name the op.
    assert!(b.bitwise_and(&b).is_err());
    assert!(a.recip().is_err());
}

#[test]
fn output_must_match_shape_and_dtype() {
    let a = Tensor::zeros(DType::F32, &[2, 3]).unwrap();
    assert!(a
        .add_out(1.0, &Tensor::zeros(DType::F32, &[3, 2]).unwrap())
        .is_err());
    assert!(a
        .add_out(1.0, &Tensor::zeros(DType::F64, &[2, 3]).unwrap())
        .is_err());
    assert!(a
        .add_out(1.0, &Tensor::zeros(DType::F32, &[1, 3]).unwrap())
        .is_err());
    // In place must keep self's shape: broadcasting self up is an error.
    let row = Tensor::zeros(DType::F32, &[3]).unwrap();
    assert!(row.add_(&a).is_err());
    let out = Tensor::zeros(DType::F32, &[2, 3]).unwrap();
    let r = a.add_out(1.0, &out).unwrap();
    assert!(r.same_storage(&out));
    assert_eq!(f32s(&out), vec![1.0; 6]);
}

#[test]
fn broadcasting_zero_with_one_gives_zero() {
    let a = Tensor::zeros(DType::F32, &[0, 1]).unwrap();
    let b = Tensor::zeros(DType::F32, &[1, 4]).unwrap();
    assert_eq!(a.add(&b).unwrap().shape(), &[0, 4]);
    let c = Tensor::zeros(DType::F32, &[2, 4]).unwrap();
    assert!(a.add(&c).is_err());
}

#[test]
fn operators_panic_with_the_named_message() {
    let a = Tensor::zeros(DType::I32, &[2]).unwrap();
    let b = Tensor::zeros(DType::F32, &[2]).unwrap();
    let want = a.add(&b).unwrap_err().to_string();
    let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| &a + &b)).unwrap_err();
    assert_eq!(got.downcast_ref::<String>().unwrap(), &want);
    let x = Tensor::from_vec(vec![1i32, 2, 3], &[3]).unwrap();
    assert_eq!((&x * 2).to_vec::<i32>().unwrap(), vec![2, 4, 6]);
    assert_eq!((10 - &x).to_vec::<i32>().unwrap(), vec![9, 8, 7]);
    assert_eq!((-&x).to_vec::<i32>().unwrap(), vec![-1, -2, -3]);
    assert_eq!((!&x).to_vec::<i32>().unwrap(), vec![-2, -3, -4]);
    assert_eq!((&x << 2).to_vec::<i32>().unwrap(), vec![4, 8, 12]);
    let mut y = x.copy().unwrap();
    y += &x;
    y *= 3;
    assert_eq!(y.to_vec::<i32>().unwrap(), vec![6, 12, 18]);
    let z = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| &x / 0)).unwrap_err();
    assert_eq!(
        z.downcast_ref::<String>().unwrap(),
        "div: integer division by zero"
    );
}

// ----- integers at every width -----

macro_rules! int_edges {
    ($($name:ident: $t:ty, $dt:expr;)*) => {$(
        #[test]
        fn $name() {
            let v = |xs: &[$t]| Tensor::from_vec(xs.to_vec(), &[xs.len()]).unwrap();
            let get = |t: Tensor| t.to_vec::<$t>().unwrap();
            let (min, max) = (<$t>::MIN, <$t>::MAX);
            assert_eq!(get(v(&[max, min]).add(&v(&[1, 0])).unwrap()), vec![min, min]);
            assert_eq!(get(v(&[min]).sub(&v(&[1])).unwrap()), vec![max]);
            assert_eq!(get(v(&[max]).mul(&v(&[2])).unwrap()), vec![max.wrapping_mul(2)]);
            assert_eq!(get(v(&[min, 7]).neg().unwrap()), vec![min.wrapping_neg(), (7 as $t).wrapping_neg()]);
            assert_eq!(get(v(&[min]).abs().unwrap()), vec![min.wrapping_abs_compat()]);
            assert_eq!(get(v(&[max]).square().unwrap()), vec![max.wrapping_mul(max)]);
            // Division by zero is an error raised before any write.
            let out = v(&[9, 9]);
            let e = v(&[1, 2]).div_out(&v(&[1, 0]), &out).unwrap_err();
            assert_eq!(e, Error::DivisionByZero { op: "div".into() });
            assert_eq!(get(out.clone()), vec![9, 9]);
            assert!(v(&[1]).rem(&v(&[0])).is_err());
            // Shifts by the width give 0; negative shifts are errors.
            let w = <$t>::BITS as $t;
            assert_eq!(get(v(&[1, 1]).lshift(&v(&[w, w - 1])).unwrap()), vec![0, (1 as $t) << (w - 1)]);
            assert_eq!(get(v(&[max]).rshift(w).unwrap()), vec![0]);
            assert_eq!(get(v(&[max]).rshift(&v(&[w - 1])).unwrap()), vec![max >> (w - 1)]);
            assert_eq!(get(v(&[6]).pow(&v(&[2])).unwrap()), vec![36]);
            assert_eq!(get(v(&[2]).pow(w).unwrap()), vec![0]);
            assert_eq!(get(v(&[5, 3]).bitwise_xor(&v(&[3, 3])).unwrap()), vec![6, 0]);
            assert_eq!(get(v(&[min, max]).maximum(&v(&[0, 0])).unwrap()), vec![0, max]);
            assert_eq!(get(v(&[0, 5]).logical_not().unwrap()), vec![1, 0]);
            // The sign-free kernels (run on the signed twin for unsigned
            // dtypes): bitwise, logical, equality, classification.
            assert_eq!(get(v(&[min, max]).bitwise_not().unwrap()), vec![!min, !max]);
            assert_eq!(get(v(&[max, 6]).bitwise_and(&v(&[min, 3])).unwrap()), vec![max & min, 2]);
            assert_eq!(get(v(&[min, 4]).bitwise_or(&v(&[1, 3])).unwrap()), vec![min | 1, 7]);
            assert_eq!(get(v(&[min, 0, max]).logical_and(&v(&[max, max, 0])).unwrap()), vec![(min != 0) as $t, 0, 0]);
            assert_eq!(get(v(&[min, 0]).logical_or(&v(&[0, 0])).unwrap()), vec![(min != 0) as $t, 0]);
            let u8s = |t: Tensor| t.to_vec::<u8>().unwrap();
            assert_eq!(u8s(v(&[min, max, 3]).equal(&v(&[min, min, 3])).unwrap()), vec![1, 0, 1]);
            assert_eq!(u8s(v(&[min, max, 3]).not_equal(&v(&[min, min, 3])).unwrap()), vec![0, 1, 0]);
            assert_eq!(u8s(v(&[min, max]).less(&v(&[max, min])).unwrap()), vec![1, 0]);
            assert_eq!(u8s(v(&[min, max]).isfinite().unwrap()), vec![1, 1]);
            assert_eq!(u8s(v(&[min, max]).isnan().unwrap()), vec![0, 0]);
            // `all` / `any` (the reducer runs on the signed twin too), over
            // a strided column so the traversal's general path runs.
            let m = Tensor::from_vec(vec![max, 0, min, 0, 1, max], &[3, 2]).unwrap();
            assert_eq!(u8s(m.all(0, false).unwrap()), vec![(min != 0) as u8, 0]);
            assert_eq!(u8s(m.any(0, false).unwrap()), vec![1, 1]);
            assert_eq!(u8s(m.any(1, false).unwrap()), vec![1, (min != 0) as u8, 1]);
            assert_eq!(u8s(v(&[max, 1]).all(None, false).unwrap()), vec![1]);
            assert_eq!($dt, v(&[0]).dtype());
        }
    )*};
}

trait WrapAbs {
    fn wrapping_abs_compat(self) -> Self;
}
macro_rules! wrap_abs {
    (signed $($t:ty),*) => {$(impl WrapAbs for $t { fn wrapping_abs_compat(self) -> Self { self.wrapping_abs() } })*};
    (unsigned $($t:ty),*) => {$(impl WrapAbs for $t { fn wrapping_abs_compat(self) -> Self { self } })*};
}
wrap_abs!(signed i8, i16, i32, i64);
wrap_abs!(unsigned u8, u16, u32, u64);

int_edges! {
    edges_i8: i8, DType::I8;
    edges_i16: i16, DType::I16;
    edges_i32: i32, DType::I32;
    edges_i64: i64, DType::I64;
    edges_u8: u8, DType::U8;
    edges_u16: u16, DType::U16;
    edges_u32: u32, DType::U32;
    edges_u64: u64, DType::U64;
}

#[test]
fn signed_division_rem_and_shift_semantics() {
    let v = |xs: &[i32]| Tensor::from_vec(xs.to_vec(), &[xs.len()]).unwrap();
    let a = v(&[7, -7, 7, -7, i32::MIN]);
    let b = v(&[2, 2, -2, -2, -1]);
    assert_eq!(
        a.div(&b).unwrap().to_vec::<i32>().unwrap(),
        vec![3, -3, -3, 3, i32::MIN]
    );
    assert_eq!(
        a.rem(&b).unwrap().to_vec::<i32>().unwrap(),
        vec![1, -1, 1, -1, 0]
    );
    assert_eq!(
        v(&[-7, -8, 7]).rshift(1).unwrap().to_vec::<i32>().unwrap(),
        vec![-3, -4, 3]
    );
    assert!(v(&[1]).lshift(-1).is_err());
    assert!(v(&[2]).pow(-1).is_err());
    assert_eq!(v(&[-2]).pow(3).unwrap().to_vec::<i32>().unwrap(), vec![-8]);
    assert_eq!(v(&[3]).rmod(10).unwrap().to_vec::<i32>().unwrap(), vec![1]);
    assert_eq!(v(&[3]).rdiv(10).unwrap().to_vec::<i32>().unwrap(), vec![3]);
    assert_eq!(v(&[3]).rpow(2).unwrap().to_vec::<i32>().unwrap(), vec![8]);
}

// ----- floats -----

#[test]
fn float_edge_cases() {
    let nan = f64::NAN;
    let x = Tensor::from_vec(vec![nan, 1.0, f64::INFINITY, -0.0, 0.0], &[5]).unwrap();
    let y = Tensor::from_vec(vec![1.0, nan, f64::NEG_INFINITY, 0.0, -0.0], &[5]).unwrap();
    let mx = x.maximum(&y).unwrap().to_vec::<f64>().unwrap();
    assert!(mx[0].is_nan() && mx[1].is_nan());
    assert_eq!(mx[2], f64::INFINITY);
    let mn = x.minimum(&y).unwrap().to_vec::<f64>().unwrap();
    assert!(mn[0].is_nan() && mn[1].is_nan());
    assert_eq!(mn[2], f64::NEG_INFINITY);
    let n = x.neg().unwrap().to_vec::<f64>().unwrap();
    assert!(n[3].to_bits() == 0.0f64.to_bits() && n[4].to_bits() == (-0.0f64).to_bits());
    let d = Tensor::from_vec(vec![1.0f32, -1.0, 0.0], &[3])
        .unwrap()
        .div(0.0)
        .unwrap();
    let d = f32s(&d);
    assert!(d[0] == f32::INFINITY && d[1] == f32::NEG_INFINITY && d[2].is_nan());
    let r = Tensor::from_vec(vec![-7.5f64, 7.5], &[2])
        .unwrap()
        .rem(2.0)
        .unwrap();
    assert_eq!(r.to_vec::<f64>().unwrap(), vec![-1.5, 1.5]);
    let s = x.sign().unwrap().to_vec::<f64>().unwrap();
    assert!(s[0].is_nan() && s[1] == 1.0 && s[2] == 1.0);
    let c = x.clamp(0.5, 2.0).unwrap().to_vec::<f64>().unwrap();
    assert!(c[0].is_nan());
    assert_eq!(&c[1..], &[1.0, 2.0, 0.5, 0.5]);
    let p = Tensor::from_vec(vec![2.0f32, 9.0], &[2])
        .unwrap()
        .pow(0.5)
        .unwrap();
    assert_eq!(f32s(&p), vec![2f32.sqrt(), 3.0]);
    let l = Tensor::from_vec(vec![0.0f32, 2.0, nan as f32], &[3]).unwrap();
    assert_eq!(f32s(&l.logical_not().unwrap()), vec![1.0, 0.0, 0.0]);
}

#[test]
fn halves_compute_in_f32_and_round_once() {
    let a = Tensor::from_vec(vec![f16::from_f32(1.0), f16::from_f32(2.5)], &[2]).unwrap();
    let r = a.mul(&a).unwrap().add(0.25).unwrap();
    assert_eq!(
        r.to_vec::<f16>().unwrap(),
        vec![f16::from_f32(1.25), f16::from_f32(6.5)]
    );
    let b = Tensor::from_vec(vec![bf16::from_f32(3.0)], &[1]).unwrap();
    let q = b.div(bf16::from_f32(3.0)).unwrap().recip().unwrap();
    assert_eq!(q.to_vec::<bf16>().unwrap(), vec![bf16::from_f32(1.0)]);
    // One rounding: (1 + 2^-11) computed in f32 then rounded to f16 is 1.
    let x = Tensor::from_vec(vec![f16::from_f32(1.0)], &[1]).unwrap();
    let y = x.add(f16::from_f32(0.000_488_281_25)).unwrap();
    assert_eq!(y.to_vec::<f16>().unwrap(), vec![f16::from_f32(1.0)]);
}

#[test]
fn complex_arithmetic() {
    let a = Tensor::from_vec(vec![C64::new(1.0, 2.0), C64::new(3.0, -4.0)], &[2]).unwrap();
    let b = Tensor::from_vec(vec![C64::new(0.0, 1.0), C64::new(1.0, 1.0)], &[2]).unwrap();
    let v = |t: Tensor| t.to_vec::<C64>().unwrap();
    assert_eq!(
        v(a.add(&b).unwrap()),
        vec![C64::new(1.0, 3.0), C64::new(4.0, -3.0)]
    );
    assert_eq!(
        v(a.sub(&b).unwrap()),
        vec![C64::new(1.0, 1.0), C64::new(2.0, -5.0)]
    );
    assert_eq!(
        v(a.mul(&b).unwrap()),
        vec![C64::new(-2.0, 1.0), C64::new(7.0, -1.0)]
    );
    assert_eq!(
        v(a.div(&b).unwrap()),
        vec![C64::new(2.0, -1.0), C64::new(-0.5, -3.5)]
    );
    assert_eq!(
        v(a.neg().unwrap()),
        vec![C64::new(-1.0, -2.0), C64::new(-3.0, 4.0)]
    );
    assert_eq!(
        v(a.square().unwrap()),
        vec![C64::new(-3.0, 4.0), C64::new(-7.0, -24.0)]
    );
    assert_eq!(v(b.recip().unwrap())[0], C64::new(0.0, -1.0));
    let m = a.abs().unwrap();
    assert_eq!(m.dtype(), DType::F64);
    let m = m.to_vec::<f64>().unwrap();
    assert!((m[0] - 5f64.sqrt()).abs() < 1e-15 && m[1] == 5.0);
    let c = Tensor::from_vec(vec![C32::new(3.0, 4.0)], &[1]).unwrap();
    assert_eq!(c.abs().unwrap().to_vec::<f32>().unwrap(), vec![5.0]);
    assert!(c.abs_().is_err()); // the result dtype (f32) is not the tensor's
    assert_eq!(a.cmpeq(&a).unwrap().to_vec::<u8>().unwrap(), vec![1, 1]);
    assert_eq!(a.cmpne(&b).unwrap().to_vec::<u8>().unwrap(), vec![1, 1]);
    assert!(a.cmplt(&b).is_err());
    assert!(a.maximum(&b).is_err());
    assert_eq!(v(a.add(C64::new(1.0, 1.0)).unwrap())[0], C64::new(2.0, 3.0));
}

// ----- kernels against an f64 reference on random layouts -----

fn arb_layout() -> impl Strategy<Value = (Vec<usize>, Vec<isize>, bool)> {
    (1usize..4).prop_flat_map(|nd| {
        (
            proptest::collection::vec(1usize..6, nd),
            proptest::collection::vec(prop_oneof![Just(0isize), 1isize..4, -3isize..0], nd),
            any::<bool>(),
        )
    })
}

/// A view with the given strides over a buffer big enough for it, `data` placed at
/// the layout's addresses. Strides may map two indices to one address; the second
/// value written wins, so the values the view really holds are returned with it.
fn strided(data: &[f64], shape: &[usize], strides: &[isize]) -> (Tensor, Vec<f64>) {
    let l = Layout::new(shape.to_vec(), strides.to_vec(), 0);
    let mut lo = 0isize;
    let mut hi = 0isize;
    for (&d, &s) in shape.iter().zip(strides) {
        let e = (d as isize - 1) * s;
        if e < 0 {
            lo += e
        } else {
            hi += e
        }
    }
    let n = (hi - lo + 1) as usize;
    let mut buf = vec![0.0f64; n];
    let off = (-lo) as usize;
    let l = Layout::new(l.shape().to_vec(), l.strides().to_vec(), off);
    let mut idx = vec![0usize; shape.len()];
    for &v in data {
        buf[l.index_offset(&idx)] = v;
        for ax in (0..idx.len()).rev() {
            idx[ax] += 1;
            if idx[ax] < shape[ax] {
                break;
            }
            idx[ax] = 0;
        }
    }
    let mut held = Vec::with_capacity(data.len());
    let mut idx = vec![0usize; shape.len()];
    for _ in data {
        held.push(buf[l.index_offset(&idx)]);
        for ax in (0..idx.len()).rev() {
            idx[ax] += 1;
            if idx[ax] < shape[ax] {
                break;
            }
            idx[ax] = 0;
        }
    }
    let base = Tensor::from_vec(buf, &[n]).unwrap();
    (Tensor::from_parts(base.storage().clone(), l).unwrap(), held)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 120, ..ProptestConfig::default() })]

    #[test]
    fn kernels_match_f64_reference((shape, sa, stride0) in arb_layout(), seed in 0u64..1000) {
        let n: usize = shape.iter().product();
        let data: Vec<f64> = (0..n).map(|i| ((i as u64 * 7919 + seed) % 200) as f64 / 8.0 - 12.0).collect();
        let data2: Vec<f64> = data.iter().map(|v| v * 0.5 + 3.0).collect();
        // Distinct element positions need non-zero strides for the data to differ.
        let sa: Vec<isize> = sa.iter().map(|&s| if s == 0 { 1 } else { s }).collect();
        let (a, data) = strided(&data, &shape, &sa);
        let b = if stride0 {
            Tensor::from_vec(vec![2.5f64], &[1]).unwrap()
        } else {
            Tensor::from_vec(data2.clone(), &shape).unwrap()
        };
        let bv: Vec<f64> = if stride0 { vec![2.5; n] } else { data2 };
        for (op, f) in [
            (BinaryOp::Add, (|x, y| x + y) as fn(f64, f64) -> f64),
            (BinaryOp::Sub, |x, y| x - y),
            (BinaryOp::Mul, |x, y| x * y),
            (BinaryOp::Div, |x, y| x / y),
            (BinaryOp::Max, f64::max),
        ] {
            let got = binary(op, &a, &b).unwrap().to_vec::<f64>().unwrap();
            let want: Vec<f64> = data.iter().zip(&bv).map(|(&x, &y)| f(x, y)).collect();
            prop_assert_eq!(got, want);
            // f32 through the same layouts.
            let got32 = binary(op, &a.cast(DType::F32).unwrap(), &b.cast(DType::F32).unwrap())
                .unwrap().to_vec::<f32>().unwrap();
            let want32: Vec<f32> = data.iter().zip(&bv)
                .map(|(&x, &y)| f(x as f32 as f64, y as f32 as f64) as f32).collect();
            prop_assert_eq!(got32, want32);
        }
        let got = unary(UnaryOp::Square, &a).unwrap().to_vec::<f64>().unwrap();
        prop_assert_eq!(got, data.iter().map(|x| x * x).collect::<Vec<_>>());
        let ints = a.cast(DType::I64).unwrap();
        let got = ints.mul(3).unwrap().to_vec::<i64>().unwrap();
        prop_assert_eq!(got, data.iter().map(|&x| (x as i64) * 3).collect::<Vec<_>>());
    }
}

// ----- unsigned integers through the signed kernels -----

// Wrapping add/sub/mul, bitwise and logical ops, `==`/`!=` and neg/square/not
// run the signed twin's kernel on unsigned tensors (the bits are the same):
// every unsigned width, on values with the high bit set, contiguous, through
// a transposed (strided) view, in place and against a scalar, against Rust's
// own wrapping ops.
macro_rules! sign_free_unsigned {
    ($($name:ident: $t:ty;)*) => {$(
        #[test]
        fn $name() {
            let hi = <$t>::MAX / 2 + 1;
            let xs: Vec<$t> = vec![0, 1, 7, hi, hi + 3, <$t>::MAX, <$t>::MAX - 1, 2, 0];
            let ys: Vec<$t> = vec![<$t>::MAX, 1, 0, hi, 5, <$t>::MAX, 2, hi + 1, 0];
            let a = Tensor::from_vec(xs.clone(), &[3, 3]).unwrap();
            let b = Tensor::from_vec(ys.clone(), &[3, 3]).unwrap();
            let get = |t: Tensor| t.to_vec::<$t>().unwrap();
            let u8s = |t: Tensor| t.to_vec::<u8>().unwrap();
            let zip = |f: fn($t, $t) -> $t| -> Vec<$t> {
                xs.iter().zip(&ys).map(|(&x, &y)| f(x, y)).collect()
            };
            let truth = |f: fn(bool, bool) -> bool| -> Vec<$t> {
                xs.iter().zip(&ys).map(|(&x, &y)| f(x != 0, y != 0) as $t).collect()
            };
            assert_eq!(get(a.add(&b).unwrap()), zip(|x, y| x.wrapping_add(y)));
            assert_eq!(get(a.sub(&b).unwrap()), zip(|x, y| x.wrapping_sub(y)));
            assert_eq!(get(a.mul(&b).unwrap()), zip(|x, y| x.wrapping_mul(y)));
            assert_eq!(get(a.bitwise_and(&b).unwrap()), zip(|x, y| x & y));
            assert_eq!(get(a.bitwise_or(&b).unwrap()), zip(|x, y| x | y));
            assert_eq!(get(a.bitwise_xor(&b).unwrap()), zip(|x, y| x ^ y));
            assert_eq!(get(a.logical_and(&b).unwrap()), truth(|x, y| x && y));
            assert_eq!(get(a.logical_or(&b).unwrap()), truth(|x, y| x || y));
            assert_eq!(get(a.logical_xor(&b).unwrap()), truth(|x, y| x != y));
            let eq: Vec<u8> = xs.iter().zip(&ys).map(|(x, y)| (x == y) as u8).collect();
            assert_eq!(u8s(a.equal(&b).unwrap()), eq);
            assert_eq!(u8s(a.not_equal(&b).unwrap()), eq.iter().map(|e| 1 - e).collect::<Vec<_>>());
            // Ordering is not sign-free: the high bit is large.
            assert_eq!(u8s(Tensor::from_vec(vec![hi], &[1]).unwrap().greater(&Tensor::from_vec(vec![1 as $t], &[1]).unwrap()).unwrap()), vec![1]);
            assert_eq!(get(a.neg().unwrap()), xs.iter().map(|x| x.wrapping_neg()).collect::<Vec<_>>());
            assert_eq!(get(a.square().unwrap()), xs.iter().map(|x| x.wrapping_mul(*x)).collect::<Vec<_>>());
            assert_eq!(get(a.bitwise_not().unwrap()), xs.iter().map(|x| !x).collect::<Vec<_>>());
            // A transposed view: strided runs through the block buffers.
            let (at, bt) = (a.transpose(None).unwrap(), b.transpose(None).unwrap());
            let want_t: Vec<$t> = (0..9).map(|k| { let (i, j) = (k / 3, k % 3); xs[j * 3 + i].wrapping_add(ys[j * 3 + i]) }).collect();
            assert_eq!(get(at.add(&bt).unwrap()), want_t);
            assert_eq!(get(at.add(&b.transpose(None).unwrap().contiguous().unwrap()).unwrap()), want_t);
            // In place, and a scalar partner.
            let c = a.copy().unwrap();
            c.mul_(&b).unwrap();
            assert_eq!(get(c), zip(|x, y| x.wrapping_mul(y)));
            assert_eq!(get(a.add(hi).unwrap()), xs.iter().map(|x| x.wrapping_add(hi)).collect::<Vec<_>>());
        }
    )*};
}

sign_free_unsigned! {
    sign_free_ops_u8: u8;
    sign_free_ops_u16: u16;
    sign_free_ops_u32: u32;
    sign_free_ops_u64: u64;
}
