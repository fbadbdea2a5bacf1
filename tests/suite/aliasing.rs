//! Outputs and aliasing of elementwise ops (the cl-tensor rules): outputs of
//! any unique layout, errors before writes, and inputs that behave as if read
//! completely before the output is written, however they overlap it. Includes
//! a property test in the style of NumPy's `test_mem_overlap`.

use proptest::prelude::*;
use rnx::backend::elementwise::BinaryOp;
use rnx::ops::elementwise::binary_out;
use rnx::storage::Storage;
use rnx::{DType, Layout, Tensor};
use std::sync::Arc;

fn view(base: &Tensor, shape: &[usize], strides: &[isize], offset: usize) -> Tensor {
    Tensor::from_parts(
        base.storage().clone(),
        Layout::new(shape.to_vec(), strides.to_vec(), offset),
    )
    .unwrap()
}

fn all(base: &Tensor) -> Vec<i32> {
    let n = base.storage().len();
    view(base, &[n], &[1], 0).to_vec::<i32>().unwrap()
}

fn buffer(n: usize) -> Tensor {
    Tensor::from_vec((0..n as i32).collect::<Vec<_>>(), &[n]).unwrap()
}

#[test]
fn output_shifted_three_over_its_input() {
    let base = buffer(10);
    let input = view(&base, &[7], &[1], 0);
    let out = view(&base, &[7], &[1], 3);
    input.mul_out(10, &out).unwrap();
    assert_eq!(all(&base), vec![0, 1, 2, 0, 10, 20, 30, 40, 50, 60]);
    // And shifted the other way (output before the input).
    let base = buffer(10);
    let input = view(&base, &[7], &[1], 3);
    let out = view(&base, &[7], &[1], 0);
    input.add_out(&input, &out).unwrap();
    assert_eq!(all(&base), vec![6, 8, 10, 12, 14, 16, 18, 7, 8, 9]);
}

#[test]
fn output_is_the_transpose_of_its_input() {
    let base = buffer(9);
    let x = view(&base, &[3, 3], &[3, 1], 0);
    let xt = view(&base, &[3, 3], &[1, 3], 0);
    // out = x.T receives x + 100 * x: out[i, j] (address i + 3 j) = 101 x[i, j].
    let hundred_x = x.mul(100).unwrap();
    x.add_out(&hundred_x, &xt).unwrap();
    let got = all(&base);
    for i in 0..3 {
        for j in 0..3 {
            assert_eq!(got[i + 3 * j], 101 * (3 * i + j) as i32);
        }
    }
    // Unary into the transpose of its own input.
    let base = buffer(9);
    let x = view(&base, &[3, 3], &[3, 1], 0);
    let xt = view(&base, &[3, 3], &[1, 3], 0);
    x.neg_out(&xt).unwrap();
    let got = all(&base);
    for i in 0..3 {
        for j in 0..3 {
            assert_eq!(got[i + 3 * j], -((3 * i + j) as i32));
        }
    }
}

#[test]
fn add_out_with_a_row_of_the_output_reads_the_original_row() {
    let out = Tensor::from_vec(vec![1i32, 2, 3, 10, 20, 30], &[2, 3]).unwrap();
    let row0 = view(&out, &[3], &[1], 0);
    out.add_out(&row0, &out).unwrap();
    assert_eq!(out.to_vec::<i32>().unwrap(), vec![2, 4, 6, 11, 22, 33]);
    // The in-place form and the operator sugar follow the same rule.
    let mut t = Tensor::from_vec(vec![1i32, 2, 3, 10, 20, 30], &[2, 3]).unwrap();
    let r = view(&t, &[3], &[1], 0);
    t += &r;
    assert_eq!(t.to_vec::<i32>().unwrap(), vec![2, 4, 6, 11, 22, 33]);
}

#[test]
fn broadcast_output_is_an_error_and_memory_is_unchanged() {
    let base = buffer(6);
    let out = view(&base, &[2, 3], &[0, 1], 0);
    let a = Tensor::from_vec(vec![5i32; 6], &[2, 3]).unwrap();
    let err = a.add_out(1, &out).unwrap_err();
    assert!(matches!(err, rnx::Error::OverlappingOutput { .. }), "{err}");
    assert!(err.to_string().starts_with("add: output layout"), "{err}");
    assert_eq!(all(&base), vec![0, 1, 2, 3, 4, 5]);
    // Also for an empty output, and for other families.
    let empty = view(&base, &[0, 3], &[1, 0], 0);
    assert!(empty.layout().has_internal_overlap() || empty.size() == 0);
    let e = Tensor::zeros(DType::I32, &[0, 3]).unwrap();
    let bad = view(&base, &[2, 2], &[1, 1], 0);
    let b = Tensor::zeros(DType::I32, &[2, 2]).unwrap();
    assert!(b.neg_out(&bad).is_err());
    assert!(b.cmplt_out(&b, &view(&base, &[2, 2], &[0, 0], 0)).is_err());
    assert!(e.add_out(1, &e).is_ok());
    assert_eq!(all(&base), vec![0, 1, 2, 3, 4, 5]);
}

#[test]
fn empty_outputs_are_validated_before_anything() {
    let e = Tensor::zeros(DType::I32, &[0, 3]).unwrap();
    let wrong_shape = Tensor::zeros(DType::I32, &[3, 0]).unwrap();
    assert!(e.add_out(1, &wrong_shape).is_err());
    let wrong_dtype = Tensor::zeros(DType::F32, &[0, 3]).unwrap();
    assert!(e.add_out(1, &wrong_dtype).is_err());
    // A self-overlapping output of an empty-looking but non-empty shape.
    let base = buffer(4);
    let bad = view(&base, &[2, 2], &[0, 1], 0);
    let x = Tensor::zeros(DType::I32, &[2, 2]).unwrap();
    assert!(x.add_out(&x, &bad).is_err());
}

#[test]
fn padded_output_with_strides_2_3() {
    let base = Tensor::from_vec(vec![-1i32; 9], &[9]).unwrap();
    let out = view(&base, &[2, 3], &[2, 3], 0);
    let a = Tensor::from_vec(vec![1i32, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
    a.mul_out(2, &out).unwrap();
    // Addresses i*2 + j*3; 1, 4, 7 are padding and stay -1.
    assert_eq!(all(&base), vec![2, -1, 8, 4, -1, 10, 6, -1, 12]);
    assert_eq!(out.to_vec::<i32>().unwrap(), vec![2, 4, 6, 8, 10, 12]);
}

#[test]
fn reversed_output_and_reversed_input() {
    let base = buffer(5);
    let rev = view(&base, &[5], &[-1], 4);
    let fwd = view(&base, &[5], &[1], 0);
    fwd.add_out(1000, &rev).unwrap();
    assert_eq!(all(&base), vec![1004, 1003, 1002, 1001, 1000]);
}

#[test]
fn exact_in_place_is_not_copied_but_correct() {
    let t = Tensor::from_vec(vec![1.0f32, 2.0, 3.0, 4.0], &[2, 2]).unwrap();
    let tt = view(&t, &[2, 2], &[1, 2], 0);
    // In place on a transposed view: input == output view exactly.
    tt.mul_(&tt).unwrap();
    assert_eq!(t.to_vec::<f32>().unwrap(), vec![1.0, 4.0, 9.0, 16.0]);
    t.neg_().unwrap();
    assert_eq!(t.to_vec::<f32>().unwrap(), vec![-1.0, -4.0, -9.0, -16.0]);
}

#[test]
fn two_foreign_views_of_the_same_memory() {
    let mut mem: Vec<i32> = (0..8).collect();
    let p = mem.as_mut_ptr() as *mut u8;
    // SAFETY: `mem` outlives both storages (dropped at the end of the test);
    // only rnx touches it meanwhile, from this thread.
    let s1 = unsafe { Storage::from_foreign(DType::I32, p, 8, Box::new(())) }.unwrap();
    // SAFETY: as above; the second storage starts 2 elements later.
    let s2 = unsafe { Storage::from_foreign(DType::I32, p.add(8), 6, Box::new(())) }.unwrap();
    let a = Tensor::from_parts(Arc::new(s1), Layout::contiguous(&[6])).unwrap();
    let out = Tensor::from_parts(Arc::new(s2), Layout::contiguous(&[6])).unwrap();
    // out[i] = a[i] + 1, where out[i] is a[i + 2]: must use the original a.
    a.add_out(1, &out).unwrap();
    assert_eq!(a.to_vec::<i32>().unwrap(), vec![0, 1, 1, 2, 3, 4]);
    drop((a, out));
    assert_eq!(mem, vec![0, 1, 1, 2, 3, 4, 5, 6]);
}

type View = (Vec<isize>, usize);

/// A random shape, three random (strides, offset) views of it over a buffer
/// of 48 elements, which axes the second input broadcasts, and the op.
fn arb_case() -> impl Strategy<Value = (Vec<usize>, [View; 3], Vec<bool>, u8)> {
    (1usize..4).prop_flat_map(|nd| {
        let v = || (proptest::collection::vec(-4isize..5, nd), 0usize..48);
        (
            proptest::collection::vec(1usize..4, nd),
            [v(), v(), v()],
            proptest::collection::vec(any::<bool>(), nd),
            0u8..4,
        )
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// op_out(inputs, out) on overlapping views of one buffer equals computing
    /// on copies and then assigning (NumPy's test_mem_overlap).
    #[test]
    fn overlapping_views_behave_as_if_copied((shape, views, bcast, op) in arb_case()) {
        let n = 48;
        let [va, vb, vo] = views;
        let bshape: Vec<usize> = shape.iter().zip(&bcast).map(|(&d, &b)| if b { 1 } else { d }).collect();
        let la = Layout::new(shape.clone(), va.0.clone(), va.1);
        let lb = Layout::new(bshape.clone(), vb.0.clone(), vb.1);
        let lo = Layout::new(shape.clone(), vo.0.clone(), vo.1);
        prop_assume!(la.fits_in(n) && lb.fits_in(n) && lo.fits_in(n));
        prop_assume!(!lo.has_internal_overlap());
        let init: Vec<i32> = (0..n as i32).map(|i| i * 7 - 100).collect();
        let base = Tensor::from_vec(init.clone(), &[n]).unwrap();
        let a = view(&base, &shape, &va.0, va.1);
        let b = view(&base, &bshape, &vb.0, vb.1);
        let out = view(&base, &shape, &vo.0, vo.1);
        // Expected: compute on copies, then assign element by element.
        let (ac, bc) = (a.copy().unwrap(), b.copy().unwrap());
        let want = match op {
            0 => ac.sub(&bc).unwrap(),
            1 => ac.neg().unwrap(),
            2 => Tensor::where_cond(&ac.cmpgt(&bc).unwrap(), &bc, &ac).unwrap(),
            _ => ac.clamp(&bc, 50).unwrap(),
        }.to_vec::<i32>().unwrap();
        let mut expect = init.clone();
        let ol = out.layout();
        let mut idx = vec![0usize; ol.ndim()];
        for w in &want {
            expect[ol.index_offset(&idx)] = *w;
            for ax in (0..idx.len()).rev() {
                idx[ax] += 1;
                if idx[ax] < ol.shape()[ax] { break; }
                idx[ax] = 0;
            }
        }
        match op {
            0 => { a.sub_out(&b, &out).unwrap(); }
            1 => { a.neg_out(&out).unwrap(); }
            2 => { Tensor::where_cond_out(&a.cmpgt(&b).unwrap(), &b, &a, &out).unwrap(); }
            _ => { a.clamp_out(&b, 50, &out).unwrap(); }
        }
        prop_assert_eq!(all(&base), expect);
    }
}

#[test]
fn binary_out_of_two_scalars_takes_the_output_dtype() {
    let out = Tensor::zeros(DType::U8, &[]).unwrap();
    binary_out(BinaryOp::Add, 200, 100, &out).unwrap();
    assert_eq!(out.item::<u8>().unwrap(), 44); // wraps at the width
    let big = Tensor::zeros(DType::U8, &[1]).unwrap();
    assert!(binary_out(BinaryOp::Add, 1, 2, &big).is_err()); // must be rank 0
    assert!(binary_out(BinaryOp::Add, 1, 300, &out).is_err()); // not representable
}
