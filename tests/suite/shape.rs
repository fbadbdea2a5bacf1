//! Shape functions (views and copies): every seed example with exact values,
//! the errors the seed names, and view sharing. (The cast rules are in
//! `cast.rs`.)

use rnx::ops::join::Sections;
use rnx::{DType, Error, Tensor};

fn i32t(shape: &[usize], data: &[i32]) -> Tensor {
    Tensor::from_slice(data, shape).unwrap()
}
fn vals(t: &Tensor) -> Vec<i32> {
    t.to_vec::<i32>().unwrap()
}

#[test]
fn reshape_seed() {
    let t = i32t(&[2, 3], &[1, 2, 3, 4, 5, 6]);
    let r = t.reshape([6]).unwrap();
    assert_eq!(r.to_string(), "[1, 2, 3, 4, 5, 6]");
    assert!(r.same_storage(&t));
    let t = i32t(&[6], &[1, 2, 3, 4, 5, 6]);
    let r = t.reshape([3, -1]).unwrap();
    assert_eq!(r.shape(), &[3, 2]);
    assert_eq!(r.to_string(), "[[1, 2],\n [3, 4],\n [5, 6]]");
}

#[test]
fn reshape_rules() {
    let t = i32t(&[2, 3], &[1, 2, 3, 4, 5, 6]);
    assert!(t.reshape([-1, -1]).is_err());
    assert!(t.reshape([4, -1]).is_err());
    assert!(t.reshape([4]).is_err());
    assert!(t.reshape([-2, 3]).is_err());
    // Non-viewable: transposed tensor to 1-D copies, with the right order.
    let tt = t.transpose(None).unwrap();
    let r = tt.reshape([-1]).unwrap();
    assert_eq!(vals(&r), vec![1, 4, 2, 5, 3, 6]);
    assert!(!r.same_storage(&t));
    // Viewable non-contiguous: splitting a transposed axis stays a view.
    let big = Tensor::arange(DType::I32, 0, 24, 1).unwrap();
    let v = big.reshape([4, 6]).unwrap().transpose(None).unwrap(); // [6, 4]
    let w = v.reshape([2, 3, 4]).unwrap();
    assert!(w.same_storage(&big));
    assert_eq!(vals(&w), vals(&v.contiguous().unwrap()));
    // Zero-sized with -1.
    let z = Tensor::zeros(DType::F32, &[0, 3]).unwrap();
    assert!(z.reshape([3, -1]).is_err() || z.reshape([3, -1]).unwrap().shape() == [3, 0]);
    assert_eq!(z.reshape([3, 0]).unwrap().shape(), &[3, 0]);
    // Rank 0 <-> [1].
    let s = Tensor::scalar(DType::I32, 7).unwrap();
    assert_eq!(s.reshape([1, 1]).unwrap().to_string(), "[[7]]");
    assert_eq!(s.reshape(Vec::<usize>::new()).unwrap().to_string(), "7");
}

#[test]
fn broadcast_seed() {
    let t = i32t(&[1, 3], &[1, 2, 3]);
    let b = t.broadcast_to(&[3, 3]).unwrap();
    assert_eq!(b.to_string(), "[[1, 2, 3],\n [1, 2, 3],\n [1, 2, 3]]");
    assert_eq!(b.layout().strides(), &[0, 1]);
    let t = Tensor::ones(DType::F32, &[3, 1]).unwrap();
    assert_eq!(t.broadcast_to(&[2, 3, 4]).unwrap().shape(), &[2, 3, 4]);
    assert!(t.broadcast_to(&[2, 4, 4]).is_err());
    assert!(t.broadcast_to(&[3]).is_err());

    let t1 = Tensor::ones(DType::F32, &[3, 1]).unwrap();
    let t2 = Tensor::ones(DType::F32, &[1, 5]).unwrap();
    let (a, b) = t1.broadcasted(&t2, false).unwrap();
    assert_eq!((a.shape(), b.shape()), (&[3, 5][..], &[3, 5][..]));
    let x = i32t(&[2, 1], &[1, 2]);
    let y = i32t(&[3], &[7, 8, 9]);
    let (p, q) = x.broadcasted(&y, true).unwrap();
    assert_eq!(p.to_string(), "[[7, 8, 9],\n [7, 8, 9]]");
    assert_eq!(q.to_string(), "[[1, 1, 1],\n [2, 2, 2]]");
    assert!(i32t(&[2], &[1, 2]).broadcasted(&y, false).is_err());
}

#[test]
fn expand_seed() {
    let t = Tensor::ones(DType::F32, &[1, 4, 1]).unwrap();
    assert_eq!(t.expand([3, -1, 5]).unwrap().shape(), &[3, 4, 5]);
    let t = Tensor::ones(DType::F32, &[5, 5]).unwrap();
    assert_eq!(t.expand([-1, -1]).unwrap().shape(), &[5, 5]);
    let t = i32t(&[2], &[1, 2]);
    let e = t.expand([3, -1]).unwrap();
    assert_eq!(e.to_string(), "[[1, 2],\n [1, 2],\n [1, 2]]");
    assert!(t.expand([-1, 2]).is_err());
    assert!(t.expand([3]).is_err());
}

#[test]
fn flatten_unflatten_seed() {
    let z = Tensor::zeros(DType::F32, &[2, 3, 4]).unwrap();
    assert_eq!(z.flatten(0, -1).unwrap().shape(), &[24]);
    let z = Tensor::zeros(DType::F32, &[2, 3, 4, 5]).unwrap();
    assert_eq!(z.flatten(1, 2).unwrap().shape(), &[2, 12, 5]);
    assert!(z.flatten(0, 4).is_err());
    assert!(z.flatten(2, 1).is_err());
    let z = Tensor::zeros(DType::F32, &[2, 12, 5]).unwrap();
    assert_eq!(z.unflatten(1, [3, 4]).unwrap().shape(), &[2, 3, 4, 5]);
    let o = Tensor::ones(DType::F32, &[6, 5]).unwrap();
    assert_eq!(o.unflatten(0, [-1, 2]).unwrap().shape(), &[3, 2, 5]);
    assert!(o.unflatten(0, [4, -1]).is_err());
    assert!(o.unflatten(2, [5]).is_err());
    assert!(o.unflatten(0, [-1, -1]).is_err());
    // Values survive flatten of a transposed view.
    let t = i32t(&[2, 3], &[1, 2, 3, 4, 5, 6]).transpose(None).unwrap();
    assert_eq!(vals(&t.flatten(0, -1).unwrap()), vec![1, 4, 2, 5, 3, 6]);
    assert_eq!(
        Tensor::scalar(DType::I32, 3)
            .unwrap()
            .flatten(0, -1)
            .unwrap()
            .shape(),
        &[1]
    );
}

#[test]
fn ravel_seed() {
    let x = i32t(&[2, 3], &[1, 2, 3, 4, 5, 6]);
    assert_eq!(x.ravel().unwrap().to_string(), "[1, 2, 3, 4, 5, 6]");
    let t = Tensor::ones(DType::F32, &[3, 4])
        .unwrap()
        .transpose(None)
        .unwrap();
    assert!(!t.is_c_contiguous());
    let r = t.ravel().unwrap();
    assert!(r.is_c_contiguous());
    assert_eq!(r.shape(), &[12]);
}

#[test]
fn squeeze_unsqueeze_seed() {
    let o = Tensor::ones(DType::F32, &[1, 3, 1, 4]).unwrap();
    assert_eq!(o.squeeze(None).unwrap().shape(), &[3, 4]);
    assert_eq!(o.squeeze([0, 2]).unwrap().shape(), &[3, 4]);
    let o2 = Tensor::ones(DType::F32, &[3, 4, 1]).unwrap();
    assert_eq!(o2.squeeze([-1]).unwrap().shape(), &[3, 4]);
    assert!(o.squeeze([1]).is_err());
    assert!(o.squeeze([0, 0]).is_err());
    assert!(o.squeeze([4]).is_err());
    assert_eq!(o.squeeze_axis(2).unwrap().shape(), &[1, 3, 4]);
    assert!(o.squeeze_axis(1).is_err());

    let t = Tensor::create(DType::F32, &[3], &[1., 2., 3.]).unwrap();
    assert_eq!(t.unsqueeze([0, 2]).unwrap().shape(), &[1, 3, 1]);
    let t2 = Tensor::create(DType::F32, &[2], &[5., 6.]).unwrap();
    assert_eq!(t2.unsqueeze([1]).unwrap().shape(), &[2, 1]);
    assert_eq!(t2.unsqueeze([1]).unwrap().to_string(), "[[5],\n [6]]");
    assert!(t.unsqueeze([0, 0]).is_err());
    assert!(t.unsqueeze([3]).is_err());
    assert_eq!(t.unsqueeze([-1]).unwrap().shape(), &[3, 1]);
    assert_eq!(t.expand_dims([0]).unwrap().shape(), &[1, 3]);
    assert_eq!(t.unsqueeze_axis(1).unwrap().shape(), &[3, 1]);
    assert!(t.unsqueeze_axis(2).is_err());
}

#[test]
fn transpose_flip_seed() {
    let x = i32t(&[2, 3], &[1, 2, 3, 4, 5, 6]);
    let t = x.transpose(None).unwrap();
    assert_eq!(t.to_string(), "[[1, 4],\n [2, 5],\n [3, 6]]");
    assert!(t.same_storage(&x));
    let z = Tensor::zeros(DType::F32, &[2, 3, 4]).unwrap();
    assert_eq!(z.transpose([2, 0, 1]).unwrap().shape(), &[4, 2, 3]);
    assert!(z.transpose([0, 0, 1]).is_err());
    assert!(z.transpose([0, 1]).is_err());
    // transpose(Some([1, 0])) and transpose(None) agree on 2-D but are
    // different functions in general (3-D differs).
    assert_eq!(
        x.transpose([1, 0]).unwrap().to_string(),
        x.transpose(None).unwrap().to_string()
    );

    assert_eq!(
        x.flip(None).unwrap().to_string(),
        "[[6, 5, 4],\n [3, 2, 1]]"
    );
    assert_eq!(x.flip([1]).unwrap().to_string(), "[[3, 2, 1],\n [6, 5, 4]]");
    let f = x.flip(None).unwrap();
    assert!(f.same_storage(&x));
    assert!(f.layout().strides().iter().all(|&s| s < 0));
    assert!(x.flip([2]).is_err());
}

#[test]
fn moveaxis_swapaxes() {
    let t = Tensor::arange(DType::I32, 0, 24, 1)
        .unwrap()
        .reshape([2, 3, 4])
        .unwrap();
    let m = t.moveaxis(0, -1).unwrap();
    assert_eq!(m.shape(), &[3, 4, 2]);
    assert_eq!(m.item_at::<i32>(&[1, 2, 1]).unwrap(), 12 + 4 + 2);
    let m2 = t.moveaxis(2, 0).unwrap();
    assert_eq!(m2.shape(), &[4, 2, 3]);
    assert_eq!(m2.item_at::<i32>(&[3, 1, 2]).unwrap(), 12 + 8 + 3);
    assert!(t.moveaxis(3, 0).is_err());
    let s = t.swapaxes(0, 2).unwrap();
    assert_eq!(s.shape(), &[4, 3, 2]);
    assert_eq!(s.item_at::<i32>(&[3, 2, 1]).unwrap(), 12 + 8 + 3);
    assert!(t.swapaxes(0, -4).is_err());
}

#[test]
fn shrink_and_get_seed() {
    let x = i32t(&[3, 3], &[1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert_eq!(
        x.shrink(&[(1, 3), (0, 2)]).unwrap().to_string(),
        "[[4, 5],\n [7, 8]]"
    );
    assert!(x.shrink(&[(0, 4)]).is_err());
    assert!(x.shrink(&[(2, 1)]).is_err());
    let x = i32t(&[2, 2, 2], &[0, 1, 2, 3, 4, 5, 6, 7]);
    let g = x.get(&[1, 1, 1]).unwrap();
    assert_eq!((g.ndim(), g.to_string()), (0, "7".to_string()));
    let x = i32t(&[2, 3], &[1, 2, 3, 4, 5, 6]);
    assert_eq!(x.get(&[1]).unwrap().to_string(), "[4, 5, 6]");
    assert!(matches!(x.get(&[2]), Err(Error::IndexOutOfBounds { .. })));
    assert!(x.get(&[0, 0, 0]).is_err());
    assert_eq!(x.get(&[-1, -1]).unwrap().to_string(), "6");
}

#[test]
fn roll_seed() {
    let x = i32t(&[5], &[1, 2, 3, 4, 5]);
    assert_eq!(x.roll(2, None).unwrap().to_string(), "[4, 5, 1, 2, 3]");
    let x = i32t(&[2, 3], &[1, 2, 3, 4, 5, 6]);
    assert_eq!(
        x.roll(1, Some(1)).unwrap().to_string(),
        "[[3, 1, 2],\n [6, 4, 5]]"
    );
    let x = i32t(&[2, 2], &[1, 2, 3, 4]);
    assert_eq!(
        x.roll(-1, Some(0)).unwrap().to_string(),
        "[[3, 4],\n [1, 2]]"
    );
    assert!(x.roll(1, Some(2)).is_err());
    // Flattened roll of a 2-D tensor, and shifts beyond the length.
    let x = i32t(&[2, 3], &[1, 2, 3, 4, 5, 6]);
    assert_eq!(vals(&x.roll(-7, None).unwrap()), vec![2, 3, 4, 5, 6, 1]);
    assert_eq!(x.roll(7, None).unwrap().shape(), &[2, 3]);
}

#[test]
fn pad_seed() {
    let x = i32t(&[2, 2], &[1, 2, 3, 4]);
    let p = x.pad(&[(1, 1), (2, 2)], 0).unwrap();
    assert_eq!(
        p.to_string(),
        "[[0, 0, 0, 0, 0, 0],\n [0, 0, 1, 2, 0, 0],\n [0, 0, 3, 4, 0, 0],\n [0, 0, 0, 0, 0, 0]]"
    );
    assert!(x.pad(&[(1, 1)], 0).is_err());
    assert!(x.pad(&[(1, 1), (-1, 0)], 0).is_err());
    assert!(x.pad(&[(1, 1), (0, 0)], 2.5).is_err());
    let p = x.flip(None).unwrap().pad(&[(0, 1), (1, 0)], -1).unwrap();
    assert_eq!(vals(&p), vec![-1, 4, 3, -1, 2, 1, -1, -1, -1]);
}

#[test]
fn tile_seed() {
    let x = i32t(&[1, 2], &[1, 2]);
    assert_eq!(
        x.tile(&[2, 3]).unwrap().to_string(),
        "[[1, 2, 1, 2, 1, 2],\n [1, 2, 1, 2, 1, 2]]"
    );
    let x = i32t(&[2], &[1, 2]);
    let t = x.tile(&[2, 1, 3]).unwrap();
    assert_eq!(t.shape(), &[2, 1, 6]);
    assert_eq!(vals(&t), [1, 2].repeat(6));
    assert_eq!(x.tile(&[0]).unwrap().shape(), &[0]);
    let y = i32t(&[2, 2], &[1, 2, 3, 4]);
    assert_eq!(
        y.tile(&[2]).unwrap().to_string(),
        "[[1, 2, 1, 2],\n [3, 4, 3, 4]]"
    );
}

#[test]
fn repeat_seed() {
    let x = i32t(&[3], &[1, 2, 3]);
    assert_eq!(x.repeat(2, None).unwrap().to_string(), "[1, 1, 2, 2, 3, 3]");
    let x = i32t(&[1, 2], &[1, 2]);
    assert_eq!(
        x.repeat(3, Some(0)).unwrap().to_string(),
        "[[1, 2],\n [1, 2],\n [1, 2]]"
    );
    let y = i32t(&[2, 2], &[1, 2, 3, 4]);
    assert_eq!(
        y.repeat(2, Some(1)).unwrap().to_string(),
        "[[1, 1, 2, 2],\n [3, 3, 4, 4]]"
    );
    assert_eq!(y.repeat(0, Some(1)).unwrap().shape(), &[2, 0]);
    assert!(y.repeat(2, Some(2)).is_err());
}

#[test]
fn concatenate_seed() {
    let x1 = i32t(&[2, 2], &[1, 2, 3, 4]);
    let x2 = i32t(&[1, 2], &[5, 6]);
    let c = Tensor::concatenate(&[&x1, &x2], Some(0)).unwrap();
    assert_eq!(c.to_string(), "[[1, 2],\n [3, 4],\n [5, 6]]");
    assert!(c.is_c_contiguous());
    let c = Tensor::concatenate(&[&x1, &x2], None).unwrap();
    assert_eq!(c.to_string(), "[1, 2, 3, 4, 5, 6]");
    assert!(Tensor::concatenate(&[&x1, &x2], Some(1)).is_err());
    assert!(Tensor::concatenate::<Tensor>(&[], Some(0)).is_err());
    let f = Tensor::zeros(DType::F32, &[1, 2]).unwrap();
    assert!(matches!(
        Tensor::concatenate(&[&x1, &f], Some(0)),
        Err(Error::DTypeMismatch { .. })
    ));
    let c = Tensor::concatenate(&[x1.transpose(None).unwrap(), x1.clone()], Some(1)).unwrap();
    assert_eq!(c.to_string(), "[[1, 3, 1, 2],\n [2, 4, 3, 4]]");
}

#[test]
fn stack_seed() {
    let x1 = i32t(&[2], &[1, 2]);
    let x2 = i32t(&[2], &[3, 4]);
    assert_eq!(
        Tensor::stack(&[&x1, &x2], 0).unwrap().to_string(),
        "[[1, 2],\n [3, 4]]"
    );
    assert_eq!(
        Tensor::stack(&[&x1, &x2], 1).unwrap().to_string(),
        "[[1, 3],\n [2, 4]]"
    );
    let a = Tensor::ones(DType::F32, &[2, 3]).unwrap();
    let b = Tensor::zeros(DType::F32, &[2, 3]).unwrap();
    assert_eq!(Tensor::stack(&[&a, &b], -1).unwrap().shape(), &[2, 3, 2]);
    assert!(Tensor::stack(&[&a, &b], 3).is_err());
    assert!(Tensor::stack(&[&x1, &i32t(&[3], &[1, 2, 3])], 0).is_err());
    assert!(Tensor::stack::<&Tensor>(&[], 0).is_err());
}

#[test]
fn vstack_hstack_dstack_seed() {
    let x1 = i32t(&[3], &[1, 2, 3]);
    let x2 = i32t(&[3], &[4, 5, 6]);
    assert_eq!(
        Tensor::vstack(&[&x1, &x2]).unwrap().to_string(),
        "[[1, 2, 3],\n [4, 5, 6]]"
    );
    let a = i32t(&[1, 2], &[1, 2]);
    let b = i32t(&[2, 2], &[3, 4, 5, 6]);
    assert_eq!(
        Tensor::vstack(&[&a, &b]).unwrap().to_string(),
        "[[1, 2],\n [3, 4],\n [5, 6]]"
    );
    assert!(Tensor::vstack(&[&x1, &a]).is_err());

    assert_eq!(
        Tensor::hstack(&[&x1, &x2]).unwrap().to_string(),
        "[1, 2, 3, 4, 5, 6]"
    );
    let a = i32t(&[2, 1], &[1, 2]);
    let b = i32t(&[2, 1], &[3, 4]);
    assert_eq!(
        Tensor::hstack(&[&a, &b]).unwrap().to_string(),
        "[[1, 3],\n [2, 4]]"
    );
    let a = i32t(&[2, 2], &[1, 2, 3, 4]);
    let b = i32t(&[2, 1], &[5, 6]);
    assert_eq!(
        Tensor::hstack(&[&a, &b]).unwrap().to_string(),
        "[[1, 2, 5],\n [3, 4, 6]]"
    );
    let e = Tensor::hstack(&[&a, &i32t(&[3, 1], &[1, 2, 3])]).unwrap_err();
    assert!(e.to_string().starts_with("hstack:"), "{e}");

    let x1 = i32t(&[2], &[1, 2]);
    let x2 = i32t(&[2], &[3, 4]);
    let d = Tensor::dstack(&[&x1, &x2]).unwrap();
    assert_eq!(d.shape(), &[1, 2, 2]);
    assert_eq!(d.to_string(), "[[[1, 3],\n  [2, 4]]]");
    let x1 = i32t(&[2, 2], &[1, 2, 3, 4]);
    let x2 = i32t(&[2, 2], &[5, 6, 7, 8]);
    let d = Tensor::dstack(&[&x1, &x2]).unwrap();
    assert_eq!(d.shape(), &[2, 2, 2]);
    assert_eq!(vals(&d), vec![1, 5, 2, 6, 3, 7, 4, 8]);
    assert_eq!(
        d.to_string(),
        "[[[1, 5],\n  [2, 6]],\n [[3, 7],\n  [4, 8]]]"
    );
}

#[test]
fn broadcast_arrays_seed() {
    let a = Tensor::ones(DType::F32, &[3, 1]).unwrap();
    let b = Tensor::ones(DType::F32, &[1, 5]).unwrap();
    let v = Tensor::broadcast_arrays(&[&a, &b]).unwrap();
    assert_eq!(
        v.iter().map(|t| t.shape().to_vec()).collect::<Vec<_>>(),
        vec![vec![3, 5]; 2]
    );
    let s = Tensor::scalar(DType::F32, 5.0).unwrap();
    let o = Tensor::ones(DType::F32, &[2, 3, 4]).unwrap();
    let v = Tensor::broadcast_arrays(&[&s, &o]).unwrap();
    assert_eq!(
        v.iter().map(|t| t.shape().to_vec()).collect::<Vec<_>>(),
        vec![vec![2, 3, 4]; 2]
    );
    assert!(Tensor::broadcast_arrays::<Tensor>(&[]).is_err());
    assert!(Tensor::broadcast_arrays(&[&a, &Tensor::ones(DType::F32, &[2, 5]).unwrap()]).is_err());
}

#[test]
fn split_seed() {
    let x = i32t(&[5], &[1, 2, 3, 4, 5]);
    let p = x.array_split(Sections::Count(3), 0).unwrap();
    let s: Vec<String> = p.iter().map(|t| t.to_string()).collect();
    assert_eq!(s, ["[1, 2]", "[3, 4]", "[5]"]);
    let x = i32t(&[6], &[1, 2, 3, 4, 5, 6]);
    let p = x.array_split(Sections::Indices(vec![2, 4]), 0).unwrap();
    let s: Vec<String> = p.iter().map(|t| t.to_string()).collect();
    assert_eq!(s, ["[1, 2]", "[3, 4]", "[5, 6]"]);
    assert!(p[0].same_storage(&x));
    assert!(x.array_split(Sections::Count(0), 0).is_err());
    assert!(x.array_split(Sections::Indices(vec![4, 2]), 0).is_err());
    assert!(x.array_split(Sections::Indices(vec![7]), 0).is_err());
    assert!(x.array_split(Sections::Count(2), 1).is_err());
    let p = x.array_split(Sections::Count(8), 0).unwrap();
    assert_eq!(
        p.iter().map(|t| t.size()).collect::<Vec<_>>(),
        [1, 1, 1, 1, 1, 1, 0, 0]
    );

    let x = i32t(&[4, 2], &[1, 2, 3, 4, 5, 6, 7, 8]);
    let p = x.split(2, 0).unwrap();
    assert_eq!(p[0].to_string(), "[[1, 2],\n [3, 4]]");
    assert_eq!(p[1].to_string(), "[[5, 6],\n [7, 8]]");
    assert!(x.split(3, 0).is_err());
    assert_eq!(
        x.split(2, 1).unwrap()[1].to_string(),
        "[[2],\n [4],\n [6],\n [8]]"
    );
}

#[test]
fn contiguous_copy_seed() {
    let t = Tensor::ones(DType::F32, &[3, 4])
        .unwrap()
        .transpose(None)
        .unwrap();
    assert!(t.contiguous().unwrap().is_c_contiguous());
    let c = Tensor::ones(DType::F32, &[3, 4]).unwrap();
    assert!(c.contiguous().unwrap().same_storage(&c));
    let x = Tensor::create(DType::F32, &[3], &[1., 2., 3.]).unwrap();
    let y = x.copy().unwrap();
    y.set_item(&[0], 999.).unwrap();
    assert_eq!(
        (x.to_string(), y.to_string()),
        ("[1, 2, 3]".into(), "[999, 2, 3]".into())
    );
    let x = Tensor::create(DType::F32, &[3], &[1.5, 2.7, 3.1]).unwrap();
    assert_eq!(x.cast(DType::I32).unwrap().to_string(), "[1, 2, 3]");
}

#[test]
fn views_share_writes() {
    let x = Tensor::zeros(DType::I32, &[3, 4]).unwrap();
    let t = x.transpose(None).unwrap();
    let f = x.flip([1]).unwrap();
    let r = x.reshape([12]).unwrap();
    t.set_item(&[1, 2], 5).unwrap(); // x[2, 1]
    assert_eq!(x.item_at::<i32>(&[2, 1]).unwrap(), 5);
    assert_eq!(f.item_at::<i32>(&[2, 2]).unwrap(), 5);
    assert_eq!(r.item_at::<i32>(&[9]).unwrap(), 5);
    r.set_item(&[0], 1).unwrap();
    assert_eq!(f.item_at::<i32>(&[0, 3]).unwrap(), 1);
    x.get(&[1]).unwrap().fill(2).unwrap();
    assert_eq!(vals(&t.get(&[0]).unwrap()), vec![1, 2, 0]);
}
