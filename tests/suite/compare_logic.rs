//! Comparisons, logic, bits, classification and selection: the seeds'
//! examples with exact values, plus the dtype rules of each.

use rnx::backend::elementwise::CmpOp;
use rnx::{DType, Tensor};

fn u8s(t: &Tensor) -> Vec<u8> {
    assert_eq!(t.dtype(), DType::U8);
    t.to_vec::<u8>().unwrap()
}

#[test]
fn seed_compare_gt_and_select_with_dtype() {
    // (ct:select (ct:compare :gt (ct:arange 4) 1) 10 0 :dtype :s16) => 0 0 10 10
    let x = Tensor::arange(DType::F32, 0, 4, 1).unwrap();
    let m = x.compare(CmpOp::Gt, 1).unwrap();
    assert_eq!(u8s(&m), vec![0, 0, 1, 1]);
    let r = Tensor::select(&m, 10, 0, Some(DType::I16)).unwrap();
    assert_eq!(r.dtype(), DType::I16);
    assert_eq!(r.to_vec::<i16>().unwrap(), vec![0, 0, 10, 10]);
    // Both scalars without a dtype: an error that says what to do.
    assert!(Tensor::select(&m, 10, 0, None).is_err());
    // select! into an output takes the output's dtype.
    let out = Tensor::zeros(DType::U16, &[4]).unwrap();
    Tensor::select_out(&m, 7, 1, &out).unwrap();
    assert_eq!(out.to_vec::<u16>().unwrap(), vec![1, 1, 7, 7]);
    // The mask broadcasts against tensor branches.
    let rows = Tensor::zeros(DType::U16, &[2, 4]).unwrap();
    let r = Tensor::select(&m, &rows, 5, None).unwrap();
    assert_eq!(r.to_vec::<u16>().unwrap(), vec![5, 5, 0, 0, 5, 5, 0, 0]);
    // A non-u8 mask is an error for select.
    assert!(Tensor::select(&x, 1.0, 0.0, None).is_err());
}

#[test]
fn seed_comparisons_all_names() {
    let a = Tensor::create(DType::I32, &[3], &[1, 2, 3]).unwrap();
    let b = Tensor::create(DType::I32, &[3], &[3, 2, 1]).unwrap();
    assert_eq!(u8s(&a.cmplt(&b).unwrap()), vec![1, 0, 0]);
    assert_eq!(u8s(&a.less(&b).unwrap()), vec![1, 0, 0]);
    assert_eq!(u8s(&a.cmple(&b).unwrap()), vec![1, 1, 0]);
    assert_eq!(u8s(&a.less_equal(&b).unwrap()), vec![1, 1, 0]);
    assert_eq!(u8s(&a.cmpgt(&b).unwrap()), vec![0, 0, 1]);
    assert_eq!(u8s(&a.greater(&b).unwrap()), vec![0, 0, 1]);
    assert_eq!(u8s(&a.cmpge(&b).unwrap()), vec![0, 1, 1]);
    assert_eq!(u8s(&a.greater_equal(&b).unwrap()), vec![0, 1, 1]);
    assert_eq!(u8s(&a.cmpeq(&b).unwrap()), vec![0, 1, 0]);
    assert_eq!(u8s(&a.equal(&b).unwrap()), vec![0, 1, 0]);
    assert_eq!(u8s(&a.cmpne(&b).unwrap()), vec![1, 0, 1]);
    assert_eq!(u8s(&a.not_equal(&b).unwrap()), vec![1, 0, 1]);
    let out = Tensor::zeros(DType::U8, &[3]).unwrap();
    a.cmpge_out(2, &out).unwrap();
    assert_eq!(u8s(&out), vec![0, 1, 1]);
    assert!(a
        .cmpge_out(2, &Tensor::zeros(DType::I32, &[3]).unwrap())
        .is_err());
    // NaN compares unequal to everything.
    let n = Tensor::from_vec(vec![f32::NAN, 1.0], &[2]).unwrap();
    assert_eq!(u8s(&n.cmpeq(&n).unwrap()), vec![0, 1]);
    assert_eq!(u8s(&n.cmpne(&n).unwrap()), vec![1, 0]);
    assert_eq!(u8s(&n.cmplt(2.0).unwrap()), vec![0, 1]);
}

#[test]
fn seed_array_equal() {
    let x = Tensor::create(DType::I32, &[3], &[1, 2, 3]).unwrap();
    let y = Tensor::create(DType::I32, &[3], &[1, 2, 3]).unwrap();
    let r = x.array_equal(&y).unwrap();
    assert_eq!((r.ndim(), r.item::<u8>().unwrap()), (0, 1));
    let x = Tensor::create(DType::I32, &[2], &[1, 2]).unwrap();
    let y = Tensor::create(DType::I32, &[2], &[1, 3]).unwrap();
    assert_eq!(x.array_equal(&y).unwrap().item::<u8>().unwrap(), 0);
    let z = Tensor::create(DType::I32, &[3], &[1, 2, 3]).unwrap();
    assert_eq!(x.array_equal(&z).unwrap().item::<u8>().unwrap(), 0);
    let row = Tensor::create(DType::I32, &[2, 2], &[1, 2, 1, 2]).unwrap();
    assert_eq!(x.array_equal(&row).unwrap().item::<u8>().unwrap(), 1);
}

#[test]
fn seed_logical() {
    // Nx's prose: non-zero becomes 0 (its example's -4 contradicts it).
    let x = Tensor::create(DType::I32, &[3], &[0, 1, 5]).unwrap();
    assert_eq!(
        x.logical_not().unwrap().to_vec::<i32>().unwrap(),
        vec![1, 0, 0]
    );
    let a = Tensor::create(DType::I32, &[4], &[0, 0, 3, -2]).unwrap();
    let b = Tensor::create(DType::I32, &[4], &[0, 7, 0, 9]).unwrap();
    let v = |t: Tensor| t.to_vec::<i32>().unwrap();
    assert_eq!(v(a.logical_and(&b).unwrap()), vec![0, 0, 0, 1]);
    assert_eq!(v(a.logical_or(&b).unwrap()), vec![0, 1, 1, 1]);
    assert_eq!(v(a.logical_xor(&b).unwrap()), vec![0, 1, 1, 0]);
    assert!(Tensor::zeros(DType::C32, &[1])
        .unwrap()
        .logical_not()
        .is_err());
}

#[test]
fn seed_classification() {
    let inf = f64::INFINITY;
    let x = Tensor::create(DType::F32, &[4], &[1., inf, -inf, f64::NAN]).unwrap();
    assert_eq!(u8s(&x.isinf().unwrap()), vec![0, 1, 1, 0]);
    let x = Tensor::create(DType::F32, &[3], &[1., f64::NAN, inf]).unwrap();
    assert_eq!(u8s(&x.isnan().unwrap()), vec![0, 1, 0]);
    let x = Tensor::create(DType::F32, &[4], &[1., inf, f64::NAN, -0.]).unwrap();
    assert_eq!(u8s(&x.isfinite().unwrap()), vec![1, 0, 0, 1]);
    let i = Tensor::create(DType::I64, &[2], &[0, i64::MAX]).unwrap();
    assert_eq!(u8s(&i.isnan().unwrap()), vec![0, 0]);
    assert_eq!(u8s(&i.isinf().unwrap()), vec![0, 0]);
    assert_eq!(u8s(&i.isfinite().unwrap()), vec![1, 1]);
    let h = Tensor::from_vec(vec![rnx::f16::INFINITY, rnx::f16::NAN], &[2]).unwrap();
    assert_eq!(u8s(&h.isinf().unwrap()), vec![1, 0]);
    assert_eq!(u8s(&h.isnan().unwrap()), vec![0, 1]);
}

#[test]
fn seed_where() {
    let cond = Tensor::create(DType::U8, &[3], &[1, 0, 1]).unwrap();
    let t = Tensor::create(DType::I32, &[3], &[2, 3, 4]).unwrap();
    let f = Tensor::create(DType::I32, &[3], &[5, 6, 7]).unwrap();
    let r = Tensor::where_cond(&cond, &t, &f).unwrap();
    assert_eq!(r.to_string(), "[2, 6, 4]");
    let x = Tensor::create(DType::F32, &[4], &[-1., 2., -3., 4.]).unwrap();
    let zero = Tensor::scalar(DType::F32, 0.).unwrap();
    let r = Tensor::where_cond(&x.cmpgt(&zero).unwrap(), &x, &zero).unwrap();
    assert_eq!(r.to_string(), "[0, 2, 0, 4]");
    // All three broadcast; a non-u8 condition counts non-zero as true.
    let c = Tensor::create(DType::I32, &[2, 1], &[0, 9]).unwrap();
    let r = Tensor::where_cond(&c, &t, 0).unwrap();
    assert_eq!(r.to_vec::<i32>().unwrap(), vec![0, 0, 0, 2, 3, 4]);
    assert!(Tensor::where_cond(&cond, &t, &x).is_err());
    let bad = Tensor::create(DType::U8, &[2], &[1, 0]).unwrap();
    assert!(Tensor::where_cond(&bad, &t, &f).is_err());
}

#[test]
fn seed_shifts_and_bits() {
    let x = Tensor::create(DType::I32, &[3], &[1, 2, 3]).unwrap();
    assert_eq!(x.lshift(2).unwrap().to_string(), "[4, 8, 12]");
    let x = Tensor::create(DType::I32, &[3], &[8, 9, 10]).unwrap();
    assert_eq!(x.rshift(2).unwrap().to_string(), "[2, 2, 2]");
    assert!(x.lshift(-1).is_err());
    let f = Tensor::create(DType::F32, &[1], &[1.]).unwrap();
    assert!(f.lshift(1).is_err());
    let u = Tensor::create(DType::U8, &[3], &[0b1100, 0xff, 0]).unwrap();
    let w = Tensor::create(DType::U8, &[3], &[0b1010, 0x0f, 0]).unwrap();
    assert_eq!(
        u.bitwise_and(&w).unwrap().to_vec::<u8>().unwrap(),
        vec![0b1000, 0x0f, 0]
    );
    assert_eq!(
        u.bitwise_or(&w).unwrap().to_vec::<u8>().unwrap(),
        vec![0b1110, 0xff, 0]
    );
    assert_eq!(
        u.bitwise_xor(&w).unwrap().to_vec::<u8>().unwrap(),
        vec![0b0110, 0xf0, 0]
    );
    assert_eq!(
        u.invert().unwrap().to_vec::<u8>().unwrap(),
        vec![0b1111_0011, 0, 0xff]
    );
    assert_eq!(
        u.bitwise_not().unwrap().to_vec::<u8>().unwrap(),
        vec![0b1111_0011, 0, 0xff]
    );
}

#[test]
fn select_in_place_on_its_mask() {
    // The u8 output may be the mask itself (true in place).
    let m = Tensor::create(DType::U8, &[4], &[0, 3, 0, 1]).unwrap();
    Tensor::select_out(&m, 9, 4, &m).unwrap();
    assert_eq!(m.to_vec::<u8>().unwrap(), vec![4, 9, 4, 9]);
}
