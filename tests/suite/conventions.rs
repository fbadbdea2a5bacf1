//! The API conventions of the crate docs, checked on real values: `Axes` in
//! every axis-list parameter, `NewShape` for the three ops that infer `-1`,
//! `Operand` bounds of clamp, the optional axis of scans/arg-reductions/joins,
//! the root and prelude exports, the dtype-free accessors, the `N` index spec,
//! softmax's scale option and the Threefry tensor op.

// `&[1]` and `&[2, -1]` are forms users write; they are tested on purpose.
#![allow(clippy::needless_borrows_for_generic_args)]

use rnx::prelude::*;

fn f32t(shape: &[usize], v: &[f32]) -> Tensor {
    Tensor::from_slice(v, shape).unwrap()
}

fn i32t(shape: &[usize], v: &[i32]) -> Tensor {
    Tensor::from_slice(v, shape).unwrap()
}

fn x23() -> Tensor {
    f32t(&[2, 3], &[1., 2., 3., 4., 5., 6.])
}

// ----- Axes -----

#[test]
fn axes_every_form_gives_the_same_sum() {
    let x = x23();
    let sum = |t: Tensor| t.to_vec_f64().unwrap();
    let v: Vec<isize> = vec![1];
    let sl: &[isize] = &[1];
    let want = vec![6.0, 15.0];
    assert_eq!(sum(x.sum(1, false).unwrap()), want);
    assert_eq!(sum(x.sum(-1, false).unwrap()), want);
    assert_eq!(sum(x.sum([1], false).unwrap()), want);
    assert_eq!(sum(x.sum(&[1], false).unwrap()), want);
    assert_eq!(sum(x.sum(sl, false).unwrap()), want);
    assert_eq!(sum(x.sum(Some(sl), false).unwrap()), want);
    assert_eq!(sum(x.sum(&v, false).unwrap()), want);
    assert_eq!(sum(x.sum(v.clone(), false).unwrap()), want);
    assert_eq!(sum(x.sum(Axes::from(1), false).unwrap()), want);
    assert_eq!(x.sum(None, false).unwrap().item_f64().unwrap(), 21.0);
    assert_eq!(x.sum(Axes::all(), false).unwrap().item_f64().unwrap(), 21.0);
    assert_eq!(x.sum([0, 1], true).unwrap().shape(), &[1, 1]);
    // An empty list reduces nothing.
    assert_eq!(sum(x.sum([], false).unwrap()), vec![1., 2., 3., 4., 5., 6.]);
}

#[test]
fn axes_errors_name_the_op() {
    let x = x23();
    let e = x.sum(2, false).unwrap_err().to_string();
    assert!(e.contains("sum"), "{e}");
    let e = x.mean([0, -2], false).unwrap_err().to_string();
    assert!(e.contains("mean") && e.contains("more than once"), "{e}");
    let e = x.softmax(5).unwrap_err().to_string();
    assert!(e.contains("softmax"), "{e}");
    let e = x.flip([-3]).unwrap_err().to_string();
    assert!(e.contains("flip"), "{e}");
}

#[test]
fn axes_in_every_reduction() {
    let x = x23();
    let v = |t: Tensor| t.to_vec_f64().unwrap();
    assert_eq!(v(x.prod(0, false).unwrap()), vec![4., 10., 18.]);
    assert_eq!(v(x.max([1], false).unwrap()), vec![3., 6.]);
    assert_eq!(v(x.min(&[0], false).unwrap()), vec![1., 2., 3.]);
    assert_eq!(v(x.mean(-1, false).unwrap()), vec![2., 5.]);
    assert_eq!(v(x.var(1, false, 0).unwrap()), vec![(2f32 / 3.0) as f64; 2]);
    assert_eq!(v(x.std(0, false, 0).unwrap()), vec![1.5, 1.5, 1.5]);
    let b = i32t(&[2, 2], &[1, 0, 1, 1]);
    assert_eq!(v(b.all(1, false).unwrap()), vec![0., 1.]);
    assert_eq!(v(b.any(vec![0], false).unwrap()), vec![1., 1.]);
    let l = f32t(&[2, 2], &[0., 0., 1., 1.]).cast(DType::F64).unwrap();
    let got = v(l.logsumexp(1, false).unwrap());
    assert!((got[0] - 2f64.ln()).abs() < 1e-12 && (got[1] - (1.0 + 2f64.ln())).abs() < 1e-12);
}

#[test]
fn softmax_default_is_last_axis_and_all_is_every_axis() {
    let x = f32t(&[2, 2], &[0., 0., 0., 0.]);
    assert_eq!(x.softmax(None).unwrap().to_vec_f64().unwrap(), vec![0.5; 4]);
    assert_eq!(x.softmax(-1).unwrap().to_vec_f64().unwrap(), vec![0.5; 4]);
    assert_eq!(
        x.softmax(Axes::all()).unwrap().to_vec_f64().unwrap(),
        vec![0.25; 4]
    );
    assert_eq!(
        x.softmax([0, 1]).unwrap().to_vec_f64().unwrap(),
        vec![0.25; 4]
    );
    let l = x.log_softmax(0).unwrap().to_vec_f64().unwrap();
    assert!(l.iter().all(|&v| (v + 2f64.ln()).abs() < 1e-6), "{l:?}");
}

#[test]
fn transpose_takes_signed_axes() {
    let z = Tensor::arange(DType::I32, 0, 24, 1)
        .unwrap()
        .reshape([2, 3, 4])
        .unwrap();
    assert_eq!(z.transpose([2, 0, 1]).unwrap().shape(), &[4, 2, 3]);
    assert_eq!(z.transpose([-1, 0, -2]).unwrap().shape(), &[4, 2, 3]);
    assert_eq!(z.transpose(None).unwrap().shape(), &[4, 3, 2]);
    assert_eq!(z.transpose(Axes::all()).unwrap().shape(), &[2, 3, 4]);
    let t = z.transpose([0, -1, 1]).unwrap();
    // t[0, 1, 2] = z[0, 2, 1] = 9
    assert_eq!(t.item_at::<i32>(&[0, 1, 2]).unwrap(), 9);
    assert!(z.transpose([0, 0, 1]).is_err());
    assert!(z.transpose([0, 1]).is_err());
    let e = z.transpose([0, 1, 3]).unwrap_err().to_string();
    assert!(e.contains("transpose"), "{e}");
}

#[test]
fn squeeze_and_flip_take_axes() {
    let o = Tensor::ones(DType::F32, &[1, 3, 1]).unwrap();
    assert_eq!(o.squeeze(None).unwrap().shape(), &[3]);
    assert_eq!(o.squeeze(0).unwrap().shape(), &[3, 1]);
    assert_eq!(o.squeeze([0, -1]).unwrap().shape(), &[3]);
    assert!(o.squeeze(1).is_err());
    assert!(o.squeeze(Axes::all()).is_err());
    let x = i32t(&[2, 2], &[1, 2, 3, 4]);
    assert_eq!(
        x.flip(1).unwrap().to_vec_f64().unwrap(),
        vec![2., 1., 4., 3.]
    );
    assert_eq!(
        x.flip(None).unwrap().to_vec_f64().unwrap(),
        vec![4., 3., 2., 1.]
    );
}

// ----- NewShape -----

#[test]
fn new_shape_every_form() {
    let t = Tensor::arange(DType::I32, 0, 6, 1).unwrap();
    let us: &[usize] = &[2, 3];
    let is: &[isize] = &[3, -1];
    assert_eq!(t.reshape(us).unwrap().shape(), &[2, 3]);
    assert_eq!(t.reshape([2usize, 3]).unwrap().shape(), &[2, 3]);
    assert_eq!(t.reshape(vec![6usize]).unwrap().shape(), &[6]);
    assert_eq!(t.reshape(is).unwrap().shape(), &[3, 2]);
    assert_eq!(t.reshape([-1isize, 1]).unwrap().shape(), &[6, 1]);
    assert_eq!(t.reshape(vec![1isize, -1]).unwrap().shape(), &[1, 6]);
    assert_eq!(t.reshape([3, -1]).unwrap().shape(), &[3, 2]);
    assert_eq!(t.reshape(&[2, -1]).unwrap().shape(), &[2, 3]);
    let other = Tensor::zeros(DType::F32, &[3, 2]).unwrap();
    let r = t.reshape(other.shape()).unwrap();
    assert_eq!(r.item_at::<i32>(&[2, 1]).unwrap(), 5);
}

#[test]
fn new_shape_errors_name_the_op() {
    let t = Tensor::arange(DType::I32, 0, 6, 1).unwrap();
    for (bad, what) in [
        (t.reshape([-1, -1]), "more than one -1"),
        (t.reshape([-2, 3]), "negative"),
        (t.reshape([4, -1]), "cannot reshape"),
        (t.reshape([4usize]), "cannot reshape"),
    ] {
        let e = bad.unwrap_err().to_string();
        assert!(e.contains("reshape") && e.contains(what), "{e}");
    }
    let e = t.unflatten(0, [-1, -1]).unwrap_err().to_string();
    assert!(e.contains("unflatten"), "{e}");
    let e = t.expand([-3]).unwrap_err().to_string();
    assert!(e.contains("expand") && e.contains("negative"), "{e}");
}

#[test]
fn expand_and_unflatten_take_new_shape() {
    let t = f32t(&[1, 2], &[1., 2.]);
    let e = t.expand([3, -1]).unwrap();
    assert_eq!(e.shape(), &[3, 2]);
    assert_eq!(e.to_vec_f64().unwrap(), vec![1., 2., 1., 2., 1., 2.]);
    assert_eq!(t.expand([2usize, 3, 2]).unwrap().shape(), &[2, 3, 2]);
    assert_eq!(t.expand([-1, -1]).unwrap().shape(), &[1, 2]);
    let o = Tensor::ones(DType::F32, &[6, 5]).unwrap();
    assert_eq!(o.unflatten(0, [-1, 2]).unwrap().shape(), &[3, 2, 5]);
    assert_eq!(o.unflatten(-1, [5usize, 1]).unwrap().shape(), &[6, 5, 1]);
}

// ----- Operand bounds -----

#[test]
fn clamp_takes_operands() {
    let x = i32t(&[4], &[-5, 0, 5, 10]);
    let v = |t: Tensor| t.to_vec_f64().unwrap();
    assert_eq!(v(x.clamp(0, 6).unwrap()), vec![0., 0., 5., 6.]);
    let hi = i32t(&[4], &[1, 1, 9, 9]);
    assert_eq!(v(x.clamp(-1, &hi).unwrap()), vec![-1., 0., 5., 9.]);
    assert_eq!(v(x.clip(1, 2).unwrap()), vec![1., 1., 2., 2.]);
    assert_eq!(v(x.clamp_min(1).unwrap()), vec![1., 1., 5., 10.]);
    assert_eq!(v(x.clamp_max(1).unwrap()), vec![-5., 0., 1., 1.]);
    assert_eq!(v(x.clamp_min(&hi).unwrap()), vec![1., 1., 9., 10.]);
    let e = x.clamp(0.5, 1).unwrap_err().to_string();
    assert!(e.contains("clamp"), "{e}");
    // In-place and out forms.
    let y = x.copy().unwrap();
    y.clamp_(0, 3).unwrap();
    assert_eq!(v(y), vec![0., 0., 3., 3.]);
    let out = Tensor::zeros(DType::I32, &[4]).unwrap();
    x.clamp_max_out(2, &out).unwrap();
    assert_eq!(v(out.clone()), vec![-5., 0., 2., 2.]);
    x.clamp_min_(0).unwrap();
    assert_eq!(v(x), vec![0., 0., 5., 10.]);
    let f = f32t(&[3], &[f32::NAN, -1.0, 2.0]);
    let c = f.clamp_min(0.0).unwrap().to_vec_f64().unwrap();
    assert!(c[0].is_nan() && c[1] == 0.0 && c[2] == 2.0);
}

// ----- optional single axis -----

#[test]
fn scans_without_axis_run_over_the_flattened_tensor() {
    let x = i32t(&[2, 3], &[1, 2, 3, 4, 5, 6]);
    let s = x.cumsum(None).unwrap();
    assert_eq!(s.shape(), &[6]);
    assert_eq!(s.to_vec_f64().unwrap(), vec![1., 3., 6., 10., 15., 21.]);
    assert_eq!(x.cumsum(1).unwrap().shape(), &[2, 3]);
    assert_eq!(
        x.cumsum(Some(-1)).unwrap().to_vec_f64().unwrap(),
        vec![1., 3., 6., 4., 9., 15.]
    );
    // Row-major order of the logical tensor, also for a transposed view.
    let t = x.transpose(None).unwrap(); // [[1, 4], [2, 5], [3, 6]]
    let p = t.cumprod(None).unwrap();
    assert_eq!(p.to_vec_f64().unwrap(), vec![1., 4., 8., 40., 120., 720.]);
    let z = Tensor::scalar(DType::I32, 7).unwrap();
    assert_eq!(z.cumsum(None).unwrap().shape(), &[1]);
}

#[test]
fn optional_axis_of_arg_roll_repeat_concatenate() {
    let x = i32t(&[2, 3], &[1, 5, 3, 2, 4, 6]);
    assert_eq!(x.argmax(None, false).unwrap().item_i64().unwrap(), 5);
    assert_eq!(
        x.argmax(1, false).unwrap().to_vec_f64().unwrap(),
        vec![1., 2.]
    );
    assert_eq!(
        x.argmin(Some(0), false).unwrap().to_vec_f64().unwrap(),
        vec![0., 1., 0.]
    );
    assert_eq!(
        x.roll(1, None).unwrap().to_vec_f64().unwrap(),
        vec![6., 1., 5., 3., 2., 4.]
    );
    assert_eq!(
        x.roll(1, 1).unwrap().to_vec_f64().unwrap(),
        vec![3., 1., 5., 6., 2., 4.]
    );
    let r = i32t(&[3], &[1, 2, 3]);
    assert_eq!(
        r.repeat(2, None).unwrap().to_vec_f64().unwrap(),
        vec![1., 1., 2., 2., 3., 3.]
    );
    assert_eq!(r.repeat(2, 0).unwrap().shape(), &[6]);
    let a = i32t(&[1, 2], &[1, 2]);
    let c = Tensor::concatenate(&[&a, &a], None).unwrap();
    assert_eq!(c.shape(), &[4]);
    assert_eq!(Tensor::concatenate(&[&a, &a], 0).unwrap().shape(), &[2, 2]);
    assert_eq!(Tensor::concatenate(&[&a, &a], -1).unwrap().shape(), &[1, 4]);
    assert!(Tensor::concatenate(&[&a, &a], 2).is_err());
}

// ----- exports -----

#[test]
fn what_users_need_is_at_the_root_and_in_the_prelude() {
    // Each name resolves from the prelude (glob above) and from the root.
    let _: rnx::Axes = Axes::all();
    let _: rnx::NewShape = NewShape::from([2usize, 3]);
    let spec: [rnx::Index; 3] = s![1, .., NewAxis];
    assert!(s![].is_empty());
    assert_eq!(spec, [Index::I(1), Index::all(), Index::N]);
    assert_eq!(rnx::NewAxis, NewAxis);
    let t = f32t(&[2], &[1., 2.]);
    let op: rnx::Operand<'_> = Operand::from(&t);
    assert_eq!(t.add(op).unwrap().to_vec_f64().unwrap(), vec![2., 4.]);
    let parts = t.array_split(Sections::Count(2), 0).unwrap();
    assert_eq!(parts.len(), 2);
    let o1 = rnx::Conv1dOptions {
        padding: Padding::Same,
        ..Conv1dOptions::default()
    };
    assert_eq!(o1.padding, rnx::Padding::Same);
    let o2 = Conv2dOptions::default();
    assert_eq!(o2.stride, [1, 1]);
    let gt = t.compare(CmpOp::Gt, 1.5).unwrap();
    assert_eq!(gt.to_vec_f64().unwrap(), vec![0., 1.]);
    let (gx, _) = Tensor::meshgrid(&t, &t, rnx::Indexing::Ij).unwrap();
    assert_eq!(gx.shape(), &[2, 2]);
    let so = rnx::SoftmaxOptions::default();
    assert_eq!(so.scale, 1.0);
    assert_eq!(t.device(), Device::Cpu);
    let r: rnx::Result<Tensor> = t.reshape([5]);
    let _: rnx::Error = r.unwrap_err();
    let _: Result<()> = Ok(());
}

// ----- dtype-free accessors -----

#[test]
fn to_vec_f64_and_items_for_every_real_dtype() {
    let base = i32t(&[4], &[-2, 0, 3, 100]);
    for dt in [
        DType::F16,
        DType::BF16,
        DType::F32,
        DType::F64,
        DType::I8,
        DType::I16,
        DType::I32,
        DType::I64,
    ] {
        let t = base.cast(dt).unwrap();
        assert_eq!(t.to_vec_f64().unwrap(), vec![-2., 0., 3., 100.], "{dt}");
        let one = t.slice(s![2]).unwrap();
        assert_eq!(one.item_f64().unwrap(), 3.0, "{dt}");
        assert_eq!(one.item_i64().unwrap(), 3, "{dt}");
    }
    for dt in [DType::U8, DType::U16, DType::U32, DType::U64] {
        let t = i32t(&[2], &[0, 200]).cast(dt).unwrap();
        assert_eq!(t.to_vec_f64().unwrap(), vec![0., 200.], "{dt}");
        assert_eq!(t.slice(s![1]).unwrap().item_i64().unwrap(), 200, "{dt}");
    }
    // A strided view reads in logical order.
    let v = i32t(&[2, 2], &[1, 2, 3, 4]).transpose(None).unwrap();
    assert_eq!(v.to_vec_f64().unwrap(), vec![1., 3., 2., 4.]);
}

#[test]
fn item_accessors_refuse_what_they_cannot_represent() {
    let big = Tensor::from_vec(vec![u64::MAX], &[]).unwrap();
    assert!(big.item_i64().unwrap_err().to_string().contains("item_i64"));
    assert_eq!(big.item_f64().unwrap(), u64::MAX as f64);
    let min = Tensor::from_vec(vec![i64::MIN], &[1]).unwrap();
    assert_eq!(min.item_i64().unwrap(), i64::MIN);
    let frac = Tensor::from_vec(vec![2.5f64], &[]).unwrap();
    assert!(frac.item_i64().is_err());
    let nan = Tensor::from_vec(vec![f32::NAN], &[]).unwrap();
    assert!(nan.item_i64().is_err());
    assert!(nan.item_f64().unwrap().is_nan());
    let two = f32t(&[2], &[1., 2.]);
    let e = two.item_f64().unwrap_err().to_string();
    assert!(e.contains("item_f64") && e.contains("2 elements"), "{e}");
    let z = Tensor::from_vec(vec![C32::new(1.0, 2.0)], &[1]).unwrap();
    for e in [
        z.to_vec_f64().map(|_| ()).unwrap_err(),
        z.item_f64().map(|_| ()).unwrap_err(),
        z.item_i64().map(|_| ()).unwrap_err(),
    ] {
        assert!(e.to_string().contains("complex"), "{e}");
    }
}

// ----- the N (new axis) index spec -----

#[test]
fn new_axis_in_index_specs() {
    let x = i32t(&[2, 3], &[1, 2, 3, 4, 5, 6]);
    let a = x.slice(s![NewAxis, ..]).unwrap();
    assert_eq!(a.shape(), &[1, 2, 3]);
    assert!(a.same_storage(&x));
    let b = x.slice(s![.., NewAxis, 1..]).unwrap();
    assert_eq!(b.shape(), &[2, 1, 2]);
    assert_eq!(b.to_vec_f64().unwrap(), vec![2., 3., 5., 6.]);
    let c = x.slice(s![1, NewAxis]).unwrap();
    assert_eq!(c.shape(), &[1, 3]);
    assert_eq!(c.to_vec_f64().unwrap(), vec![4., 5., 6.]);
    // After every input axis, and several at once.
    let d = x
        .slice([Index::all(), Index::all(), Index::N, Index::NewAxis])
        .unwrap();
    assert_eq!(d.shape(), &[2, 3, 1, 1]);
    // With a fancy index.
    let f = x.slice(s![NewAxis, [1, 0], -1]).unwrap();
    assert_eq!(f.shape(), &[1, 2]);
    assert_eq!(f.to_vec_f64().unwrap(), vec![6., 3.]);
    // New axes do not count against the rank; other entries still do.
    assert!(x.slice(s![NewAxis, 0, 0, NewAxis]).is_ok());
    let e = x.slice(s![0, 0, 0]).unwrap_err().to_string();
    assert!(e.contains("slice"), "{e}");
    // set_slice through a new axis.
    let y = Tensor::zeros(DType::I32, &[2, 2]).unwrap();
    y.set_slice(s![NewAxis, 1], &i32t(&[1, 2], &[7, 8]))
        .unwrap();
    assert_eq!(y.to_vec_f64().unwrap(), vec![0., 0., 7., 8.]);
}

// ----- softmax scale -----

#[test]
fn softmax_scale_option() {
    let v = [0.5f64, -1.0, 2.0, 3.5];
    let x = Tensor::from_slice(&v, &[4]).unwrap();
    for scale in [1.0, 2.0, 0.5, -1.5, 0.0] {
        let opts = SoftmaxOptions { scale };
        let p = x.softmax_with(None, opts).unwrap().to_vec_f64().unwrap();
        let lp = x.log_softmax_with(0, opts).unwrap().to_vec_f64().unwrap();
        let z: f64 = v.iter().map(|a| (scale * a).exp()).sum();
        for i in 0..4 {
            let want = (scale * v[i]).exp() / z;
            assert!((p[i] - want).abs() < 1e-12, "scale {scale}: {p:?}");
            assert!((lp[i] - want.ln()).abs() < 1e-12, "scale {scale}: {lp:?}");
        }
    }
    let d = x.softmax_with(None, SoftmaxOptions::default()).unwrap();
    assert_eq!(
        d.to_vec_f64().unwrap(),
        x.softmax(None).unwrap().to_vec_f64().unwrap()
    );
    let e = x
        .log_softmax_with(
            None,
            SoftmaxOptions {
                scale: f64::INFINITY,
            },
        )
        .unwrap_err()
        .to_string();
    assert!(e.contains("log_softmax") && e.contains("scale"), "{e}");
    let i = i32t(&[2], &[1, 2]);
    assert!(i.softmax_with(None, SoftmaxOptions { scale: 2.0 }).is_err());
}

// ----- Threefry as a tensor op -----

#[test]
fn threefry_tensor_matches_known_answers_and_the_scalar_function() {
    // Random123's known-answer vectors for Threefry-2x32-20.
    let key = Tensor::from_vec(
        vec![0u32, 0, u32::MAX, u32::MAX, 0x1319_8a2e, 0x0370_7344],
        &[3, 2],
    )
    .unwrap();
    let ctr = Tensor::from_vec(
        vec![0u32, 0, u32::MAX, u32::MAX, 0x243f_6a88, 0x85a3_08d3],
        &[3, 2],
    )
    .unwrap();
    let out = Tensor::threefry2x32(&key, &ctr).unwrap();
    assert_eq!(out.dtype(), DType::U32);
    assert_eq!(
        out.to_vec::<u32>().unwrap(),
        vec![
            0x6b20_0159,
            0x99ba_4efe,
            0x1cb9_96fc,
            0xbb00_2be7,
            0xc492_3a9c,
            0x483d_f7a0
        ]
    );
    // Broadcasting one key over a [2, 3, 2] block of counters.
    let k = Tensor::from_vec(vec![7u32, 9], &[2]).unwrap();
    let c: Vec<u32> = (0..12u32).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    let ct = Tensor::from_vec(c.clone(), &[2, 3, 2]).unwrap();
    let got = Tensor::threefry2x32(&k, &ct).unwrap();
    assert_eq!(got.shape(), &[2, 3, 2]);
    let got = got.to_vec::<u32>().unwrap();
    for r in 0..6 {
        let want = rnx::random::threefry2x32([7, 9], [c[2 * r], c[2 * r + 1]]);
        assert_eq!([got[2 * r], got[2 * r + 1]], want, "row {r}");
    }
}

#[test]
fn threefry_tensor_rejects_bad_input() {
    let k = Tensor::from_vec(vec![1u32, 2], &[2]).unwrap();
    let bad_dt = Tensor::from_vec(vec![1i32, 2], &[2]).unwrap();
    let bad_last = Tensor::from_vec(vec![1u32, 2, 3], &[3]).unwrap();
    let bad_bcast = Tensor::from_vec(vec![0u32; 12], &[3, 2, 2]).unwrap();
    let k3 = Tensor::from_vec(vec![0u32; 8], &[2, 2, 2]).unwrap();
    for e in [
        Tensor::threefry2x32(&k, &bad_dt).unwrap_err(),
        Tensor::threefry2x32(&bad_last, &k).unwrap_err(),
        Tensor::threefry2x32(&k3, &bad_bcast).unwrap_err(),
    ] {
        assert!(e.to_string().contains("threefry2x32"), "{e}");
    }
}
