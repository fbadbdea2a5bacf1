//! Tensor properties, data access, storage sharing and borrowing, foreign memory,
//! printing (Display/Debug), thread safety, for every dtype where it applies.

use rnx::{Complex, DType, Device, Error, Layout, Tensor};
use std::sync::Arc;

fn int_tensor() -> Tensor {
    Tensor::create(DType::I32, &[2, 3], &[1, 2, 3, 4, 5, 6]).unwrap()
}

#[test]
fn properties_as_nx() {
    let t = int_tensor();
    assert_eq!(t.shape(), &[2, 3]);
    assert_eq!(t.dims(), &[2, 3]);
    assert_eq!(t.dim(0).unwrap(), 2);
    assert_eq!(t.dim(-1).unwrap(), 3);
    assert_eq!(t.ndim(), 2);
    assert_eq!(t.dtype(), DType::I32);
    assert_eq!(t.strides(), vec![12, 4]);
    assert_eq!(t.stride(0).unwrap(), 12);
    assert_eq!(t.stride(-1).unwrap(), 4);
    assert_eq!(t.itemsize(), 4);
    assert_eq!(t.size(), 6);
    assert_eq!(t.numel(), 6);
    assert_eq!(t.nbytes(), 24);
    assert_eq!(t.offset(), 0);
    assert!(t.is_c_contiguous());
    assert_eq!(t.device(), Device::Cpu);
    assert!(Device::Cpu.is_available());
    let s = Tensor::scalar(DType::F64, 1.0).unwrap();
    assert_eq!((s.ndim(), s.size(), s.strides()), (0, 1, vec![]));
}

#[test]
fn axis_out_of_range_is_an_error() {
    let t = int_tensor();
    let e = t.dim(2).unwrap_err();
    assert_eq!(
        e.to_string(),
        "dim: axis 2 is out of range for a tensor of rank 2"
    );
    assert!(matches!(t.stride(-3), Err(Error::AxisOutOfRange { .. })));
    assert!(Tensor::scalar(DType::U8, 1).unwrap().dim(0).is_err());
}

#[test]
fn itemsize_of_every_dtype() {
    let want = [2, 2, 4, 8, 8, 16, 1, 2, 4, 8, 1, 2, 4, 8];
    for (&d, &w) in DType::ALL.iter().zip(&want) {
        let t = Tensor::zeros(d, &[3]).unwrap();
        assert_eq!(
            (t.itemsize(), t.nbytes(), t.strides()),
            (w, 3 * w, vec![w as isize]),
            "{d}"
        );
    }
}

#[test]
fn to_vec_requires_the_right_type() {
    let t = int_tensor();
    assert_eq!(t.to_vec::<i32>().unwrap(), vec![1, 2, 3, 4, 5, 6]);
    let e = t.to_vec::<f32>().unwrap_err();
    assert_eq!(
        e.to_string(),
        "to_vec: tensor has dtype i32 but f32 was requested"
    );
}

#[test]
fn strided_views_read_in_row_major_order() {
    let t = int_tensor();
    // A transposed view built from a layout: shape [3, 2], strides [1, 3].
    let tt =
        Tensor::from_parts(t.storage().clone(), Layout::new(vec![3, 2], vec![1, 3], 0)).unwrap();
    assert!(!tt.is_c_contiguous());
    assert_eq!(tt.to_vec::<i32>().unwrap(), vec![1, 4, 2, 5, 3, 6]);
    assert_eq!(tt.to_string(), "[[1, 4],\n [2, 5],\n [3, 6]]");
    assert_eq!(tt.strides(), vec![4, 12]);
    // Reversed rows: negative stride.
    let r =
        Tensor::from_parts(t.storage().clone(), Layout::new(vec![2, 3], vec![-3, 1], 3)).unwrap();
    assert_eq!(r.to_vec::<i32>().unwrap(), vec![4, 5, 6, 1, 2, 3]);
    assert_eq!(r.offset(), 3);
    // contiguous() copies a strided view and is O(1) otherwise.
    let c = tt.contiguous().unwrap();
    assert!(c.is_c_contiguous() && !c.same_storage(&t));
    assert!(t.contiguous().unwrap().same_storage(&t));
    // A layout reaching outside the buffer is refused.
    assert!(
        Tensor::from_parts(t.storage().clone(), Layout::new(vec![3, 3], vec![3, 1], 0)).is_err()
    );
    assert!(Tensor::from_parts(t.storage().clone(), Layout::new(vec![2], vec![-1], 0)).is_err());
}

#[test]
fn element_access_with_bounds_checks() {
    let t = int_tensor();
    assert_eq!(t.item_at::<i32>(&[1, 2]).unwrap(), 6);
    assert_eq!(t.item_at::<i32>(&[-1, -3]).unwrap(), 4);
    let e = t.item_at::<i32>(&[2, 0]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "scalar_at: index 2 is out of bounds for axis 0 of size 2"
    );
    assert!(t.item_at::<i32>(&[0]).is_err());
    assert!(t.item_at::<i64>(&[0, 0]).is_err());
    t.set_item(&[0, 1], 20).unwrap();
    assert_eq!(t.to_vec::<i32>().unwrap(), vec![1, 20, 3, 4, 5, 6]);
    assert!(t.set_item(&[0, 1], 2.5).is_err());
    assert!(t.set_item(&[5, 1], 2).is_err());
    assert_eq!(t.to_vec::<i32>().unwrap(), vec![1, 20, 3, 4, 5, 6]);
    assert!(t.item::<i32>().is_err());
    assert_eq!(
        Tensor::scalar(DType::U16, 9)
            .unwrap()
            .item::<u16>()
            .unwrap(),
        9
    );
}

#[test]
fn clone_is_a_view_and_writes_are_shared() {
    let t = int_tensor();
    let v = t.clone();
    assert!(v.same_storage(&t));
    v.set_item(&[1, 1], 50).unwrap();
    assert_eq!(t.item_at::<i32>(&[1, 1]).unwrap(), 50);
    let c = t.copy().unwrap();
    c.set_item(&[0, 0], -1).unwrap();
    assert_eq!(t.item_at::<i32>(&[0, 0]).unwrap(), 1);
}

#[test]
fn borrowed_slice_blocks_writes() {
    let t = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3]).unwrap();
    {
        let s = t.as_slice::<f32>().unwrap();
        assert_eq!(&*s, &[1.0, 2.0, 3.0]);
        let e = t.set_item(&[0], 5.0).unwrap_err();
        assert_eq!(
            e,
            Error::Borrowed {
                op: "set_item".into()
            }
        );
        // Reads still work while borrowed.
        assert_eq!(t.to_vec::<f32>().unwrap(), vec![1.0, 2.0, 3.0]);
    }
    t.set_item(&[0], 5.0).unwrap();
    assert_eq!(t.to_vec::<f32>().unwrap(), vec![5.0, 2.0, 3.0]);
    assert!(t.as_slice::<f64>().is_err());
    let tt = Tensor::from_parts(t.storage().clone(), Layout::new(vec![3], vec![-1], 2)).unwrap();
    assert!(tt.as_slice::<f32>().is_err());
}

#[test]
fn foreign_memory_is_shared_without_copy() {
    let mut data: Box<[f64]> = vec![1.0, 2.0, 3.0, 4.0].into_boxed_slice();
    let ptr = data.as_mut_ptr() as *mut u8;
    // SAFETY: `data` is moved into the owner box and lives as long as the storage;
    // nothing else touches it.
    let storage =
        unsafe { rnx::storage::Storage::from_foreign(DType::F64, ptr, 4, Box::new(data)) }.unwrap();
    let storage = Arc::new(storage);
    let a = Tensor::from_parts(storage.clone(), Layout::contiguous(&[2, 2])).unwrap();
    let b = Tensor::from_parts(storage, Layout::new(vec![2], vec![1], 2)).unwrap();
    a.set_item(&[1, 0], 30.0).unwrap();
    assert_eq!(b.to_vec::<f64>().unwrap(), vec![30.0, 4.0]);
    assert_eq!(a.to_string(), "[[1, 2],\n [30, 4]]");
}

#[test]
fn zero_sized_and_rank0_work() {
    let z = Tensor::zeros(DType::F32, &[3, 0, 2]).unwrap();
    assert_eq!((z.size(), z.nbytes()), (0, 0));
    assert_eq!(z.to_vec::<f32>().unwrap(), Vec::<f32>::new());
    assert_eq!(z.to_string(), "[]");
    assert_eq!(Tensor::zeros(DType::F32, &[0]).unwrap().to_string(), "[]");
    assert!(z.copy().unwrap().is_c_contiguous());
    assert_eq!(z.cast(DType::I8).unwrap().shape(), &[3, 0, 2]);
    let s = Tensor::scalar(DType::I8, -3).unwrap();
    assert_eq!(s.copy().unwrap().to_string(), "-3");
    assert_eq!(s.cast(DType::F32).unwrap().to_string(), "-3");
}

#[test]
fn display_nx_style() {
    let f = Tensor::create(DType::F32, &[3], &[-10.0 / 11.0, 0.0, 10.0 / 11.0]).unwrap();
    assert_eq!(f.to_string(), "[-0.909091, 0, 0.909091]");
    let sp = Tensor::create(
        DType::F64,
        &[5],
        &[f64::NAN, f64::INFINITY, f64::NEG_INFINITY, -0.0, 1e-7],
    )
    .unwrap();
    assert_eq!(sp.to_string(), "[nan, inf, -inf, -0, 1e-07]");
    let big = Tensor::create(DType::F64, &[3], &[1e6, 123456.0, 1234567.0]).unwrap();
    assert_eq!(big.to_string(), "[1e+06, 123456, 1.23457e+06]");
    let t3 = Tensor::create(DType::I32, &[2, 2, 2], &[1, 5, 2, 6, 3, 7, 4, 8]).unwrap();
    assert_eq!(
        t3.to_string(),
        "[[[1, 5],\n  [2, 6]],\n [[3, 7],\n  [4, 8]]]"
    );
    let c = Tensor::from_vec(
        vec![Complex::new(1.0f32, 2.0), Complex::new(0.5, -1.5)],
        &[2],
    )
    .unwrap();
    assert_eq!(c.to_string(), "[1+2i, 0.5-1.5i]");
    let h = Tensor::create(DType::F16, &[2], &[0.5, 3.0]).unwrap();
    assert_eq!(h.to_string(), "[0.5, 3]");
    let u = Tensor::create(DType::U64, &[1], &[u64::MAX]).unwrap();
    assert_eq!(u.to_string(), "[18446744073709551615]");
}

#[test]
fn display_summarises_large_tensors() {
    let t = Tensor::arange(DType::I32, 0, 2000, 1).unwrap();
    assert_eq!(t.to_string(), "[0, 1, 2, ..., 1997, 1998, 1999]");
    let m = Tensor::init(DType::I32, &[100, 100], |i| (i[0] * 100 + i[1]) as i32).unwrap();
    let s = m.to_string();
    let lines: Vec<&str> = s.lines().collect();
    assert_eq!(lines.len(), 7);
    assert_eq!(lines[0], "[[0, 1, 2, ..., 97, 98, 99],");
    assert_eq!(lines[3], " ...,");
    assert_eq!(lines[6], " [9900, 9901, 9902, ..., 9997, 9998, 9999]]");
    // Exactly at the threshold nothing is summarised.
    let small = Tensor::arange(DType::I32, 0, 1000, 1).unwrap().to_string();
    assert!(!small.contains("..."));
}

#[test]
fn debug_adds_dtype_shape_device() {
    let t = Tensor::create(DType::U8, &[2], &[1, 2]).unwrap();
    assert_eq!(format!("{t:?}"), "Tensor<u8, [2], cpu>\n[1, 2]");
}

#[test]
fn tensor_is_send_sync_and_threads_see_writes() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Tensor>();
    let t = Tensor::zeros(DType::I64, &[8]).unwrap();
    std::thread::scope(|s| {
        for i in 0..8 {
            let v = t.clone();
            s.spawn(move || v.set_item(&[i], i as i64 * 10).unwrap());
        }
    });
    assert_eq!(
        t.to_vec::<i64>().unwrap(),
        (0..8).map(|i| i * 10).collect::<Vec<i64>>()
    );
}

#[test]
fn cast_rules_on_creation_dtypes() {
    let x = Tensor::create(DType::F32, &[3], &[1.5, 2.7, 3.1]).unwrap();
    assert_eq!(x.cast(DType::I32).unwrap().to_string(), "[1, 2, 3]");
    let y = Tensor::create(DType::F64, &[5], &[-2.9, f64::NAN, 1e20, -1e20, 255.9]).unwrap();
    assert_eq!(
        y.cast(DType::I8).unwrap().to_vec::<i8>().unwrap(),
        vec![-2, 0, 127, -128, 127]
    );
    assert_eq!(
        y.cast(DType::U8).unwrap().to_vec::<u8>().unwrap(),
        vec![0, 0, 255, 0, 255]
    );
    let c = Tensor::from_vec(vec![Complex::new(1.5f64, 2.0)], &[1]).unwrap();
    assert_eq!(
        c.cast(DType::F32).unwrap().to_vec::<f32>().unwrap(),
        vec![1.5]
    );
    let i = Tensor::create(DType::I64, &[2], &[-1, 300]).unwrap();
    assert_eq!(
        i.cast(DType::U8).unwrap().to_vec::<u8>().unwrap(),
        vec![255, 44]
    );
    assert_eq!(i.cast(DType::C32).unwrap().to_string(), "[-1+0i, 300+0i]");
    assert_eq!(i.astype(DType::BF16).unwrap().to_string(), "[-1, 300]");
}

#[test]
fn thread_count_is_positive() {
    assert!(rnx::num_threads() >= 1);
    assert!(rnx::set_num_threads(0).is_err());
}

#[test]
fn large_buffers_are_reused_and_zeros_stay_zero() {
    // 4 MiB: above the cache threshold.
    let n = 1 << 20;
    let a = Tensor::full(DType::F32, &[n], 7.0).unwrap();
    let pa = a.storage().host_ptr().unwrap() as usize;
    drop(a);
    let b = Tensor::empty(DType::F32, &[n]).unwrap();
    // Other tests run in parallel and may take the buffer first; when we got it,
    // the stale contents show (documented), and zeros never reuse it.
    if b.storage().host_ptr().unwrap() as usize == pa {
        assert_eq!(b.item_at::<f32>(&[0]).unwrap(), 7.0);
    }
    drop(b);
    let z = Tensor::zeros(DType::F32, &[n]).unwrap();
    assert!(z.to_vec::<f32>().unwrap().iter().all(|&x| x == 0.0));
    let o = Tensor::full(DType::F32, &[n], -0.0).unwrap();
    assert!(o
        .to_vec::<f32>()
        .unwrap()
        .iter()
        .all(|&x| x == 0.0 && x.is_sign_negative()));
}

#[test]
fn large_transposed_copy_and_cast_match_index_arithmetic() {
    let (r, c) = (300usize, 200usize);
    let t = Tensor::init(DType::I32, &[r, c], |i| (i[0] * c + i[1]) as i32).unwrap();
    let tt = Tensor::from_parts(
        t.storage().clone(),
        Layout::new(vec![c, r], vec![1, c as isize], 0),
    )
    .unwrap();
    let v = tt.contiguous().unwrap().to_vec::<i32>().unwrap();
    let f = tt.cast(DType::F64).unwrap().to_vec::<f64>().unwrap();
    for i in 0..c {
        for j in 0..r {
            assert_eq!(v[i * r + j], (j * c + i) as i32);
            assert_eq!(f[i * r + j], (j * c + i) as f64);
        }
    }
}
