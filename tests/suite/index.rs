//! Indexing: the index spec (I/L/R), the `s!` macro, slice/set_slice,
//! slice_ranges/set_slice_ranges, get/set, element access, blit and fill — every
//! seed example with exact values, the errors, and copy-first assignment.

use rnx::ops::index::Index;
use rnx::{s, DType, Error, Tensor};

fn i32t(shape: &[usize], data: &[i32]) -> Tensor {
    Tensor::from_slice(data, shape).unwrap()
}
fn vals(t: &Tensor) -> Vec<i32> {
    t.to_vec::<i32>().unwrap()
}
fn ar(shape: &[usize]) -> Tensor {
    let n: usize = shape.iter().product();
    let s: Vec<isize> = shape.iter().map(|&d| d as isize).collect();
    Tensor::arange(DType::I32, 0, n as i64, 1)
        .unwrap()
        .reshape(&s)
        .unwrap()
}

#[test]
fn slice_seed() {
    let x = i32t(&[2, 4], &[1, 2, 3, 4, 5, 6, 7, 8]);
    assert_eq!(x.slice([Index::I(1)]).unwrap().to_string(), "[5, 6, 7, 8]");
    let x = i32t(&[5], &[0, 1, 2, 3, 4]);
    let r = x.slice([Index::range(1, 3)]).unwrap();
    assert_eq!(r.to_string(), "[1, 2]");
    assert!(r.same_storage(&x));
}

#[test]
fn macro_forms() {
    let t = ar(&[2, 3, 4]);
    assert_eq!(
        t.slice(s![1, .., 0..4;2]).unwrap().to_string(),
        "[[12, 14],\n [16, 18],\n [20, 22]]"
    );
    assert_eq!(
        s![1, .., 0..4;2],
        [Index::I(1), Index::all(), Index::range_step(0, 4, 2)]
    );
    assert_eq!(s![..;-1].to_vec(), vec![Index::R(None, None, -1)]);
    assert_eq!(s![2..].to_vec(), vec![Index::R(Some(2), None, 1)]);
    assert_eq!(s![..-1].to_vec(), vec![Index::R(None, Some(-1), 1)]);
    assert_eq!(s![1..=-1].to_vec(), vec![Index::R(Some(1), None, 1)]);
    assert_eq!(s![1..=2].to_vec(), vec![Index::R(Some(1), Some(3), 1)]);
    assert_eq!(s![3..=0;-1].to_vec(), vec![Index::R(Some(3), None, -1)]);
    assert_eq!(s![[0, 2]].to_vec(), vec![Index::L(vec![0, 2])]);
    assert_eq!(s![vec![1usize]].to_vec(), vec![Index::L(vec![1])]);
    assert!(s![].is_empty());
    let x = ar(&[6]);
    assert_eq!(vals(&x.slice(s![..;-1]).unwrap()), vec![5, 4, 3, 2, 1, 0]);
    assert_eq!(vals(&x.slice(s![4..0;-2]).unwrap()), vec![4, 2]);
    assert_eq!(vals(&x.slice(s![-2..]).unwrap()), vec![4, 5]);
    assert_eq!(vals(&x.slice(s![..;-4]).unwrap()), vec![5, 1]);
    assert_eq!(vals(&x.slice(s![3..=0;-1]).unwrap()), vec![3, 2, 1, 0]);
    assert_eq!(vals(&x.slice(s![1..=-1]).unwrap()), vec![1, 2, 3, 4, 5]);
    assert_eq!(vals(&x.slice(s![4..2]).unwrap()), Vec::<i32>::new());
    assert_eq!(vals(&x.slice(s![2..4;-1]).unwrap()), Vec::<i32>::new());
    assert_eq!(vals(&x.slice(s![0..6;4]).unwrap()), vec![0, 4]);
    // Nx's R with a stop of -size-1 means "before the first" for a negative step.
    assert_eq!(
        vals(&x.slice([Index::range_step(2, -7, -1)]).unwrap()),
        vec![2, 1, 0]
    );
}

#[test]
fn slice_errors() {
    let x = ar(&[2, 3]);
    assert!(matches!(
        x.slice(s![2]),
        Err(Error::IndexOutOfBounds { .. })
    ));
    assert!(matches!(
        x.slice(s![-3]),
        Err(Error::IndexOutOfBounds { .. })
    ));
    assert!(x.slice(s![0, 0, 0]).is_err());
    assert!(x.slice(s![.., 0..4]).is_err());
    assert!(x.slice(s![.., 0..3;0]).is_err());
    assert!(x.slice(s![.., [0, 3]]).is_err());
    assert!(x.slice(s![.., -4..]).is_err());
    let e = x.slice(s![5]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "slice: index 5 is out of bounds for axis 0 of size 2"
    );
}

#[test]
fn fancy_index() {
    let x = ar(&[3, 4]);
    let g = x.slice(s![[2, 0, -1], 1..]).unwrap();
    assert_eq!(g.to_string(), "[[9, 10, 11],\n [1, 2, 3],\n [9, 10, 11]]");
    assert!(!g.same_storage(&x));
    // Orthogonal (per-axis) fancy indexing on two axes.
    let g = x.slice(s![[0, 2], [3, 0]]).unwrap();
    assert_eq!(g.to_string(), "[[3, 0],\n [11, 8]]");
    // L together with I on a later axis, and on a strided/flipped view.
    let g = x.flip(None).unwrap().slice(s![[0, 1], 2]).unwrap();
    assert_eq!(vals(&g), vec![9, 5]);
    let g = x.slice(s![.., Vec::<i32>::new()]).unwrap();
    assert_eq!(g.shape(), &[3, 0]);
    // All dtypes go through the gather.
    for dt in [DType::F16, DType::C64, DType::U8, DType::F64, DType::I64] {
        let t = x.cast(dt).unwrap();
        let g = t.slice(s![[1], [1, 3]]).unwrap();
        assert_eq!(vals(&g.cast(DType::I32).unwrap()), vec![5, 7]);
    }
}

#[test]
fn slice_ranges_seed() {
    let x = i32t(&[3, 3], &[1, 2, 3, 4, 5, 6, 7, 8, 9]);
    assert_eq!(
        x.slice_ranges(&[0, 1], &[2, 3], None).unwrap().to_string(),
        "[[2, 3],\n [5, 6]]"
    );
    let e = Tensor::eye(DType::I32, 4, None, 0).unwrap();
    assert_eq!(
        e.slice_ranges(&[0, 0], &[4, 2], Some(&[2, 1]))
            .unwrap()
            .to_string(),
        "[[1, 0],\n [0, 0]]"
    );
    assert!(x.slice_ranges(&[0], &[2, 3], None).is_err());
    assert!(x.slice_ranges(&[0, 0], &[2, 3], Some(&[1])).is_err());
    assert!(x.slice_ranges(&[0, 0, 0], &[1, 1, 1], None).is_err());
    assert!(x.slice_ranges(&[0], &[4], None).is_err());
}

#[test]
fn set_slice_ranges_seed() {
    let x = Tensor::zeros(DType::F32, &[3, 3]).unwrap();
    x.set_slice_ranges(
        &[1, 2],
        &[2, 3],
        None,
        &Tensor::ones(DType::F32, &[1, 1]).unwrap(),
    )
    .unwrap();
    assert_eq!(x.item_at::<f32>(&[1, 2]).unwrap(), 1.0);
    assert_eq!(x.to_vec::<f32>().unwrap().iter().sum::<f32>(), 1.0);
    let bad = Tensor::ones(DType::F32, &[2, 2]).unwrap();
    assert!(x.set_slice_ranges(&[1, 2], &[2, 3], None, &bad).is_err());
    let y = Tensor::zeros(DType::I32, &[4, 4]).unwrap();
    y.set_slice_ranges(&[0, 3], &[4, 0], Some(&[2, -2]), &i32t(&[2], &[1, 2]))
        .unwrap();
    assert_eq!(
        y.to_string(),
        "[[0, 2, 0, 1],\n [0, 0, 0, 0],\n [0, 2, 0, 1],\n [0, 0, 0, 0]]"
    );
}

#[test]
fn set_slice_broadcast_and_fancy() {
    let x = Tensor::zeros(DType::I32, &[3, 4]).unwrap();
    x.set_slice(s![1..;1, ..;2], &i32t(&[2], &[7, 8])).unwrap();
    assert_eq!(
        x.to_string(),
        "[[0, 0, 0, 0],\n [7, 0, 8, 0],\n [7, 0, 8, 0]]"
    );
    x.set_slice(s![0], &Tensor::scalar(DType::I32, 5).unwrap())
        .unwrap();
    assert_eq!(vals(&x.get(&[0]).unwrap()), vec![5; 4]);
    x.set_slice(s![[2, 0], [3]], &i32t(&[2, 1], &[-1, -2]))
        .unwrap();
    assert_eq!(
        x.to_string(),
        "[[5, 5, 5, -2],\n [7, 0, 8, 0],\n [7, 0, 8, -1]]"
    );
    // Repeated fancy positions: the last write wins.
    let y = Tensor::zeros(DType::I32, &[3]).unwrap();
    y.set_slice(s![[1, 1]], &i32t(&[2], &[3, 4])).unwrap();
    assert_eq!(vals(&y), vec![0, 4, 0]);
    // Errors before any write.
    let before = vals(&x);
    assert!(x.set_slice(s![.., 0..2], &i32t(&[3], &[1, 2, 3])).is_err());
    assert!(x
        .set_slice(s![0], &Tensor::zeros(DType::F32, &[4]).unwrap())
        .is_err());
    assert!(x
        .set_slice(s![5], &Tensor::scalar(DType::I32, 1).unwrap())
        .is_err());
    assert_eq!(vals(&x), before);
}

#[test]
fn get_set_seed() {
    let x = i32t(&[2, 2, 2], &[0, 1, 2, 3, 4, 5, 6, 7]);
    assert_eq!(x.get(&[1, 1, 1]).unwrap().to_string(), "7");
    let x = i32t(&[2, 3], &[1, 2, 3, 4, 5, 6]);
    assert_eq!(x.get(&[1]).unwrap().to_string(), "[4, 5, 6]");
    x.set(&[0], &i32t(&[3], &[9, 8, 7])).unwrap();
    x.set(&[1, -1], &Tensor::scalar(DType::I32, 0).unwrap())
        .unwrap();
    assert_eq!(x.to_string(), "[[9, 8, 7],\n [4, 5, 0]]");
    assert!(x
        .set(&[2], &Tensor::scalar(DType::I32, 0).unwrap())
        .is_err());
    assert!(x.set(&[0], &i32t(&[2], &[1, 2])).is_err());
    // Element access (Nx's unsafe_get / unsafe_set) with bounds checks.
    assert_eq!(x.item_at::<i32>(&[1, 0]).unwrap(), 4);
    assert!(x.item_at::<i32>(&[1]).is_err());
    assert!(x.item_at::<i32>(&[1, 3]).is_err());
    x.set_item(&[-1, 0], 11).unwrap();
    assert_eq!(x.item_at::<i32>(&[1, 0]).unwrap(), 11);
    assert!(x.set_item(&[2, 0], 1).is_err());
    assert!(x.set_item(&[0, 0], 1.5).is_err());
}

#[test]
fn blit_seed() {
    let dst = Tensor::zeros(DType::F32, &[3, 3]).unwrap();
    Tensor::ones(DType::F32, &[3, 3])
        .unwrap()
        .blit(&dst)
        .unwrap();
    assert_eq!(dst.to_vec::<f32>().unwrap(), vec![1.0; 9]);
    assert!(Tensor::ones(DType::F32, &[3]).unwrap().blit(&dst).is_err());
    assert!(Tensor::ones(DType::F64, &[3, 3])
        .unwrap()
        .blit(&dst)
        .is_err());
    // A broadcast destination is an error before any write.
    let b = Tensor::zeros(DType::F32, &[3]).unwrap();
    let bv = b.broadcast_to(&[3, 3]).unwrap();
    assert!(matches!(
        Tensor::ones(DType::F32, &[3, 3]).unwrap().blit(&bv),
        Err(Error::OverlappingOutput { .. })
    ));
    assert_eq!(b.to_vec::<f32>().unwrap(), vec![0.0; 3]);
    assert!(matches!(bv.fill(1.0), Err(Error::OverlappingOutput { .. })));
}

#[test]
fn fill_seed() {
    let x = Tensor::zeros(DType::F32, &[2, 3]).unwrap();
    let y = x.fill(5.0).unwrap();
    assert!(y.same_storage(&x));
    assert_eq!(y.layout(), x.layout());
    assert_eq!(x.to_string(), "[[5, 5, 5],\n [5, 5, 5]]");
    assert!(x.fill(rnx::C64::new(1.0, 1.0)).is_err());
    let z = Tensor::zeros(DType::U8, &[2]).unwrap();
    assert!(z.fill(256).is_err());
    let t = ar(&[3, 3]);
    t.slice(s![.., 1]).unwrap().fill(-1).unwrap();
    assert_eq!(vals(&t), vec![0, -1, 2, 3, -1, 5, 6, -1, 8]);
}

#[test]
fn overlapping_assignments_copy_first() {
    // Shift right by one through overlapping views.
    let x = ar(&[6]);
    x.slice(s![0..5])
        .unwrap()
        .blit(&x.slice(s![1..6]).unwrap())
        .unwrap();
    assert_eq!(vals(&x), vec![0, 0, 1, 2, 3, 4]);
    // Shift left.
    let x = ar(&[6]);
    x.slice(s![1..6])
        .unwrap()
        .blit(&x.slice(s![0..5]).unwrap())
        .unwrap();
    assert_eq!(vals(&x), vec![1, 2, 3, 4, 5, 5]);
    // Reverse in place.
    let x = ar(&[5]);
    x.flip(None).unwrap().blit(&x).unwrap();
    assert_eq!(vals(&x), vec![4, 3, 2, 1, 0]);
    // Transpose in place.
    let m = ar(&[3, 3]);
    m.transpose(None).unwrap().blit(&m).unwrap();
    assert_eq!(vals(&m), vec![0, 3, 6, 1, 4, 7, 2, 5, 8]);
    // set_slice from an overlapping broadcast value.
    let m = ar(&[3, 3]);
    m.set_slice(s![.., 1..], &m.slice(s![.., 0..1]).unwrap())
        .unwrap();
    assert_eq!(vals(&m), vec![0, 0, 0, 3, 3, 3, 6, 6, 6]);
    // Fancy set_slice with an overlapping value.
    let v = ar(&[4]);
    v.set_slice(s![[3, 2, 1, 0]], &v).unwrap();
    assert_eq!(vals(&v), vec![3, 2, 1, 0]);
    // Exact self-assignment keeps values.
    let v = ar(&[4]);
    v.blit(&v).unwrap();
    assert_eq!(vals(&v), vec![0, 1, 2, 3]);
}

#[test]
fn borrowed_storage_refuses_writes() {
    let x = ar(&[4]);
    let s = x.as_slice::<i32>().unwrap();
    assert!(matches!(x.fill(1), Err(Error::Borrowed { .. })));
    assert!(ar(&[4]).blit(&x).is_err());
    drop(s);
    assert_eq!(vals(&x), vec![0, 1, 2, 3]);
}

#[cfg(feature = "ndarray")]
#[test]
fn ndarray_roundtrip() {
    use ndarray::{ArrayD, IxDyn};
    // of_bigarray seed: a zero-filled 2x3 array.
    let a = ArrayD::<f32>::zeros(IxDyn(&[2, 3]));
    let t = Tensor::from_ndarray(a).unwrap();
    assert_eq!(t.to_string(), "[[0, 0, 0],\n [0, 0, 0]]");
    // Zero-copy: the tensor's memory is the array's buffer.
    let a = ArrayD::from_shape_vec(IxDyn(&[2, 2]), vec![1i64, 2, 3, 4]).unwrap();
    let p = a.as_ptr() as usize;
    let t = Tensor::from_ndarray(a).unwrap();
    assert_eq!(t.storage().host_ptr().unwrap() as usize, p);
    t.set_item(&[0, 1], 20i64).unwrap();
    assert_eq!(t.to_vec::<i64>().unwrap(), vec![1, 20, 3, 4]);
    // Non-standard layout copies in logical order.
    let a = ArrayD::from_shape_vec(IxDyn(&[2, 3]), vec![1i32, 2, 3, 4, 5, 6]).unwrap();
    let t = Tensor::from_ndarray(a.reversed_axes()).unwrap();
    assert_eq!(t.to_string(), "[[1, 4],\n [2, 5],\n [3, 6]]");
    // to_ndarray of a strided view; and shapes (to_bigarray seed).
    let x = i32t(&[2, 3], &[1, 2, 3, 4, 5, 6]);
    let b = x.transpose(None).unwrap().to_ndarray::<i32>().unwrap();
    assert_eq!(b.shape(), &[3, 2]);
    assert_eq!(
        b.iter().copied().collect::<Vec<_>>(),
        vec![1, 4, 2, 5, 3, 6]
    );
    assert_eq!(x.to_ndarray::<i32>().unwrap().shape(), x.shape());
    assert!(x.to_ndarray::<f32>().is_err());
    let e = Tensor::from_ndarray(ArrayD::<u8>::zeros(IxDyn(&[0, 4]))).unwrap();
    assert_eq!(e.shape(), &[0, 4]);
}
