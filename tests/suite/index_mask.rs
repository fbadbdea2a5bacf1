//! The `M` mask entry of the index spec (`slice` / `set_slice` with
//! `Index::M`, `s![.., [true, false]]`): NumPy's documented boolean-indexing
//! examples, agreement with `compress` on every axis, mixing with `I`/`L`/`R`/`N`,
//! copies (never views), masked assignment, and the errors (dtype, rank,
//! length, device) before anything is written.

use rnx::ops::index::Index;
use rnx::{s, DType, Tensor};

fn i32s(t: &Tensor) -> Vec<i32> {
    t.to_vec::<i32>().unwrap()
}

fn mask(v: &[u8]) -> Index {
    Index::M(Tensor::from_slice_1d(v))
}

#[test]
fn mask_spec_numpy_examples() {
    // NumPy, "Boolean array indexing": x[rowsum <= 2, :].
    let x = Tensor::create(DType::I32, &[3, 2], &[0, 1, 1, 1, 2, 2]).unwrap();
    let rowsum = x.sum(-1, false).unwrap();
    let keep = rowsum.cmple(2).unwrap();
    let r = x.slice([Index::M(keep.clone()), Index::all()]).unwrap();
    assert_eq!(r.shape(), &[2, 2]);
    assert_eq!(i32s(&r), vec![0, 1, 1, 1]);
    // x = arange(35).reshape(5, 7); b = x > 20; x[b[:, 5]] -> rows 3 and 4.
    let x = Tensor::arange(DType::I32, 0, 35, 1)
        .unwrap()
        .reshape([5, 7])
        .unwrap();
    let b = x.cmpgt(20).unwrap();
    let col = b.slice(s![.., 5]).unwrap();
    assert_eq!(col.to_vec::<u8>().unwrap(), vec![0, 0, 0, 1, 1]);
    let r = x.slice([Index::M(col)]).unwrap();
    assert_eq!(i32s(&r), (21..35).collect::<Vec<_>>());
    // a = arange(12).reshape(3, 4); b1 = [F, T, T]; b2 = [T, F, T, F].
    let a = Tensor::arange(DType::I32, 0, 12, 1)
        .unwrap()
        .reshape([3, 4])
        .unwrap();
    let (b1, b2) = ([false, true, true], [true, false, true, false]);
    // a[b1, :] and a[b1] -> [[4, 5, 6, 7], [8, 9, 10, 11]].
    assert_eq!(
        i32s(&a.slice(s![b1, ..]).unwrap()),
        (4..12).collect::<Vec<_>>()
    );
    assert_eq!(i32s(&a.slice(s![b1]).unwrap()), (4..12).collect::<Vec<_>>());
    // a[:, b2] -> [[0, 2], [4, 6], [8, 10]].
    let r = a.slice(s![.., b2]).unwrap();
    assert_eq!(r.shape(), &[3, 2]);
    assert_eq!(i32s(&r), vec![0, 2, 4, 6, 8, 10]);
    // Two masks select per axis, as NumPy's a[np.ix_(b1, b2)] -> [[4, 6], [8, 10]].
    let r = a.slice(s![b1, b2]).unwrap();
    assert_eq!(r.shape(), &[2, 2]);
    assert_eq!(i32s(&r), vec![4, 6, 8, 10]);
}

#[test]
fn mask_spec_matches_compress_and_mixes_with_other_entries() {
    let x = Tensor::arange(DType::F32, 0, 60, 1)
        .unwrap()
        .reshape([3, 4, 5])
        .unwrap();
    let masks: [&[u8]; 4] = [
        &[0, 0, 0, 0, 0],
        &[1, 1, 1, 1, 1],
        &[7, 0, 255, 0, 1],
        &[0, 1, 0, 0, 0],
    ];
    for m in masks {
        let mt = Tensor::from_slice_1d(m);
        let r = x
            .slice(s![.., .., m.iter().map(|&v| v != 0).collect::<Vec<bool>>()])
            .unwrap();
        let c = x.compress(&mt, 2).unwrap();
        assert_eq!(r.shape(), c.shape());
        assert_eq!(r.to_vec::<f32>().unwrap(), c.to_vec::<f32>().unwrap());
        // A non-zero u8 other than 1 is true too.
        let r2 = x.slice([Index::all(), Index::all(), mask(m)]).unwrap();
        assert_eq!(r2.to_vec::<f32>().unwrap(), c.to_vec::<f32>().unwrap());
    }
    // With I (drops an axis), R (stepped, negative), L and N, on a view.
    let v = x.flip(1).unwrap(); // rows 3, 2, 1, 0 of every block
    let r = v
        .slice([
            Index::I(-1),
            mask(&[1, 0, 1, 0]),
            Index::N,
            Index::R(None, None, -2),
        ])
        .unwrap();
    assert_eq!(r.shape(), &[2, 1, 3]);
    // block 2, rows 3 and 1, columns 4, 2, 0.
    assert_eq!(
        r.to_vec::<f32>().unwrap(),
        vec![59., 57., 55., 49., 47., 45.]
    );
    let r = x
        .slice([Index::L(vec![2, 0]), mask(&[0, 1, 1, 0])])
        .unwrap();
    assert_eq!(r.shape(), &[2, 2, 5]);
    assert_eq!(
        r.to_vec::<f32>().unwrap(),
        [45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14]
            .iter()
            .map(|&i| i as f32)
            .collect::<Vec<_>>()
    );
    // An all-false mask: an empty axis.
    assert_eq!(
        x.slice(s![[false, false, false]]).unwrap().shape(),
        &[0, 4, 5]
    );
    // A copy, not a view: writing the result leaves the tensor alone.
    let r = x.slice(s![.., [true, true, true, true]]).unwrap();
    assert!(!r.same_storage(&x));
    r.fill(-1.0).unwrap();
    assert_eq!(x.sum(None, false).unwrap().item_f64().unwrap(), 1770.0);
    // Equality of specs compares mask values.
    assert_eq!(s![[true, false]].to_vec(), vec![mask(&[1, 0])]);
    assert_ne!(s![[true, false]].to_vec(), vec![mask(&[1, 1])]);
    assert_ne!(s![[true, false]].to_vec(), vec![Index::L(vec![0])]);
}

#[test]
fn mask_spec_set_slice_is_masked_assignment() {
    // NumPy: x[rowsum <= 2, :] = 0.
    let x = Tensor::create(DType::I32, &[3, 2], &[0, 1, 1, 1, 2, 2]).unwrap();
    let keep = x.sum(-1, false).unwrap().cmple(2).unwrap();
    x.set_slice([Index::M(keep)], &Tensor::scalar(DType::I32, 0).unwrap())
        .unwrap();
    assert_eq!(i32s(&x), vec![0, 0, 0, 0, 2, 2]);
    // a[:, b2] = values broadcast over rows.
    let a = Tensor::arange(DType::I32, 0, 12, 1)
        .unwrap()
        .reshape([3, 4])
        .unwrap();
    let v = Tensor::create(DType::I32, &[2], &[-1, -2]).unwrap();
    a.set_slice(s![.., [false, true, false, true]], &v).unwrap();
    assert_eq!(i32s(&a), vec![0, -1, 2, -2, 4, -1, 6, -2, 8, -1, 10, -2]);
    // Two masks: the outer product of the selections.
    let v = Tensor::create(DType::I32, &[2, 2], &[100, 101, 102, 103]).unwrap();
    a.set_slice(s![[true, false, true], [true, false, false, true]], &v)
        .unwrap();
    assert_eq!(
        i32s(&a),
        vec![100, -1, 2, 101, 4, -1, 6, -2, 102, -1, 10, 103]
    );
    // Through a view: the tensor's own memory is written.
    let b = Tensor::zeros(DType::I32, &[2, 3]).unwrap();
    let bt = b.transpose(None).unwrap(); // [3, 2]
    bt.set_slice(
        s![[true, false, true], 1],
        &Tensor::scalar(DType::I32, 5).unwrap(),
    )
    .unwrap();
    assert_eq!(i32s(&b), vec![0, 0, 0, 5, 0, 5]);
    // An all-false mask writes nothing.
    a.set_slice(
        s![[false, false, false]],
        &Tensor::scalar(DType::I32, 9).unwrap(),
    )
    .unwrap();
    assert_eq!(i32s(&a)[0], 100);
}

#[test]
fn mask_spec_errors() {
    let a = Tensor::arange(DType::I32, 0, 12, 1)
        .unwrap()
        .reshape([3, 4])
        .unwrap();
    let before = i32s(&a);
    let one = Tensor::scalar(DType::I32, 1).unwrap();
    let bad: Vec<(Vec<Index>, &str)> = vec![
        // Length mismatch (NumPy: "boolean index did not match").
        (
            s![[true, false]].to_vec(),
            "does not match axis 0 of size 3",
        ),
        (
            s![.., [true, false, true]].to_vec(),
            "does not match axis 1 of size 4",
        ),
        (
            s![.., [true, false, true, true, false]].to_vec(),
            "of size 4",
        ),
        // Dtype: u8 only, the message says how to convert.
        (
            vec![Index::M(
                Tensor::create(DType::F32, &[3], &[1., 0., 1.]).unwrap(),
            )],
            "cast",
        ),
        (
            vec![Index::M(
                Tensor::create(DType::I32, &[3], &[1, 0, 1]).unwrap(),
            )],
            "must be u8, got i32",
        ),
        // Rank: a 1-D mask per axis.
        (
            vec![Index::M(Tensor::ones(DType::U8, &[3, 4]).unwrap())],
            "shape [3, 4]",
        ),
        (
            vec![Index::M(Tensor::ones(DType::U8, &[]).unwrap())],
            "shape []",
        ),
        // Too many entries.
        (s![[true, true, true], .., [true]].to_vec(), "rank 2"),
    ];
    for (spec, words) in bad {
        let e = a.slice(&spec).unwrap_err().to_string();
        assert!(e.starts_with("slice"), "{e}");
        assert!(e.contains(words), "{e} lacks {words:?}");
        let e = a.set_slice(&spec, &one).unwrap_err().to_string();
        assert!(e.starts_with("set_slice"), "{e}");
        assert!(e.contains(words), "{e} lacks {words:?}");
    }
    // A value of the wrong shape for the selection.
    let e = a
        .set_slice(
            s![.., [true, false, true, false]],
            &Tensor::zeros(DType::I32, &[3]).unwrap(),
        )
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("set_slice"), "{e}");
    assert_eq!(i32s(&a), before, "nothing written");
}
