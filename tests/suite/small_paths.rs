//! The short paths for small calls (issue 27) against brute-force references
//! and against the general paths they bypass: the elementwise frame's
//! fresh-output path (inputs of the result's shape, any strides), the plain
//! 2-D matmul, the ranges-only slice view and the inline axis resolution of
//! reductions. Same values, same errors, same aliasing results.

use rnx::{s, DType, NewAxis, Tensor};

/// A `shape` tensor of `dt` with small distinct-ish values (exact in every dtype).
fn seq(dt: DType, shape: &[usize], start: f64) -> Tensor {
    let n: usize = shape.iter().product();
    let v: Vec<f64> = (0..n).map(|i| ((i * 7 + 3) % 11) as f64 + start).collect();
    Tensor::create(dt, shape, &v).unwrap()
}

/// Row-major values of `t` as f64 (any layout).
fn vals(t: &Tensor) -> Vec<f64> {
    t.to_vec_f64().unwrap()
}

const DTYPES: [DType; 7] = [
    DType::F32,
    DType::F64,
    DType::I32,
    DType::I64,
    DType::U8,
    DType::F16,
    DType::BF16,
];

#[test]
fn add_fresh_output_matches_reference_for_strided_inputs_of_the_result_shape() {
    for dt in DTYPES {
        let a = seq(dt, &[3, 4], 1.0);
        // Same shape, other layouts: a transposed view and a stepped slice.
        let bt = seq(dt, &[4, 3], 2.0).transpose(None).unwrap();
        let bs = seq(dt, &[3, 8], 0.0).slice(s![.., 7..;-2]).unwrap();
        for b in [&a, &bt, &bs] {
            let r = a.add(b).unwrap();
            assert_eq!(r.shape(), &[3, 4]);
            assert_eq!(r.dtype(), dt);
            let want: Vec<f64> = vals(&a).iter().zip(vals(b)).map(|(x, y)| x + y).collect();
            assert_eq!(vals(&r), want, "{dt} add");
            // The general path (an out-form) gives the same values.
            let out = Tensor::zeros(dt, &[3, 4]).unwrap();
            a.add_out(b, &out).unwrap();
            assert_eq!(vals(&out), want, "{dt} add_out");
        }
        // Broadcasting still goes through the general path.
        let row = seq(dt, &[4], 0.0);
        let r = a.add(&row).unwrap();
        let (av, rv) = (vals(&a), vals(&row));
        let want: Vec<f64> = (0..12).map(|i| av[i] + rv[i % 4]).collect();
        assert_eq!(vals(&r), want, "{dt} broadcast add");
    }
}

#[test]
fn unary_and_compare_fresh_outputs_match_reference() {
    let x = seq(DType::F64, &[2, 5], -4.0).transpose(None).unwrap();
    let e = x.exp().unwrap();
    for (y, v) in vals(&e).iter().zip(vals(&x)) {
        // rnx's exp is within an ULP or two of the exact value.
        assert!((y - v.exp()).abs() <= 4e-16 * v.exp(), "exp({v}) = {y}");
    }
    let n = x.neg().unwrap();
    assert_eq!(vals(&n), vals(&x).iter().map(|v| -v).collect::<Vec<_>>());
    let y = seq(DType::F64, &[5, 2], -3.0);
    let c = x.cmplt(&y).unwrap();
    assert_eq!(c.dtype(), DType::U8);
    let want: Vec<f64> = vals(&x)
        .iter()
        .zip(vals(&y))
        .map(|(a, b)| (*a < b) as u8 as f64)
        .collect();
    assert_eq!(vals(&c), want);
}

#[test]
fn overlapping_inputs_keep_their_aliasing_results() {
    // x + x (one storage read twice) and x + reversed x on the fresh path.
    let x = seq(DType::I32, &[6], 0.0);
    let xv = vals(&x);
    assert_eq!(
        vals(&x.add(&x).unwrap()),
        xv.iter().map(|v| 2.0 * v).collect::<Vec<_>>()
    );
    let f = x.flip([0]).unwrap();
    let want: Vec<f64> = (0..6).map(|i| xv[i] + xv[5 - i]).collect();
    assert_eq!(vals(&x.add(&f).unwrap()), want);
    // In place with a partially overlapping input: read as if copied first.
    x.add_(&f).unwrap();
    assert_eq!(vals(&x), want);
    // Shifted overlap through an out-form: out = a[0..5], input a[1..6].
    let a = seq(DType::F32, &[6], 0.0);
    let av = vals(&a);
    let (out, src) = (a.slice(s![0..5]).unwrap(), a.slice(s![1..6]).unwrap());
    src.mul_out(2.0, &out).unwrap();
    let mut want = av.clone();
    for i in 0..5 {
        want[i] = 2.0 * av[i + 1];
    }
    assert_eq!(vals(&a), want);
}

#[test]
fn elementwise_errors_are_unchanged() {
    let a = seq(DType::F32, &[3], 0.0);
    let b = seq(DType::F64, &[3], 0.0);
    let e = a.add(&b).unwrap_err().to_string();
    assert!(
        e.contains("add") && e.contains("f32") && e.contains("f64"),
        "{e}"
    );
    let c = seq(DType::F32, &[4], 0.0);
    let e = a.add(&c).unwrap_err().to_string();
    assert!(
        e.contains("add") && e.contains("[3]") && e.contains("[4]"),
        "{e}"
    );
    let e = seq(DType::I32, &[3], 0.0).exp().unwrap_err().to_string();
    assert!(e.contains("exp") && e.contains("i32"), "{e}");
    // Empty tensors on the fresh path.
    let z = Tensor::zeros(DType::F32, &[0, 3]).unwrap();
    let r = z.add(&z).unwrap();
    assert_eq!(r.shape(), &[0, 3]);
}

/// Brute-force `[m, k] @ [k, n]` of row-major values.
fn matmul_ref(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
        }
    }
    c
}

#[test]
fn matmul_2d_matches_reference_and_the_batched_path() {
    let shapes = [
        (2, 3, 4),
        (4, 4, 4),
        (5, 2, 3),
        (1, 3, 4),
        (3, 1, 2),
        (3, 4, 1),
    ];
    for dt in [DType::F32, DType::F64, DType::I32, DType::I64] {
        for &(m, k, n) in &shapes {
            let a = seq(dt, &[m, k], -2.0);
            let b = seq(dt, &[k, n], -5.0);
            let want = matmul_ref(&vals(&a), &vals(&b), m, k, n);
            let r = a.matmul(&b).unwrap();
            assert_eq!(r.shape(), &[m, n]);
            assert_eq!(r.dtype(), dt);
            assert_eq!(vals(&r), want, "{dt} {m}x{k}x{n}");
            // A transposed operand, read in place.
            let at = seq(dt, &[k, m], -2.0).transpose(None).unwrap();
            let want_t = matmul_ref(&vals(&at), &vals(&b), m, k, n);
            assert_eq!(vals(&at.matmul(&b).unwrap()), want_t, "{dt} transposed");
            // The batched (general) path gives the same values.
            let rb = a.expand_dims(0).unwrap().matmul(&b).unwrap();
            assert_eq!(rb.shape(), &[1, m, n]);
            assert_eq!(vals(&rb), want, "{dt} batched");
        }
    }
}

#[test]
fn matmul_2d_errors_are_unchanged() {
    let a = seq(DType::F32, &[2, 3], 0.0);
    let e = a
        .matmul(&seq(DType::F32, &[4, 2], 0.0))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("matmul") && e.contains("inner dimensions differ"),
        "{e}"
    );
    let e = a
        .matmul(&seq(DType::F64, &[3, 2], 0.0))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("matmul") && e.contains("f32") && e.contains("f64"),
        "{e}"
    );
}

#[test]
fn ranges_slice_is_a_view_with_reference_values() {
    let base = Tensor::arange(DType::I32, 0, 24, 1)
        .unwrap()
        .reshape([4, 6])
        .unwrap();
    // (spec, rows, cols) as explicit index lists.
    let cases: Vec<(Vec<rnx::Index>, Vec<usize>, Vec<usize>)> = vec![
        (s![1..3, ..].to_vec(), vec![1, 2], (0..6).collect()),
        (s![..;-1, 1..5;2].to_vec(), vec![3, 2, 1, 0], vec![1, 3]),
        (s![-3.., ..-1].to_vec(), vec![1, 2, 3], (0..5).collect()),
        (s![2..].to_vec(), vec![2, 3], (0..6).collect()),
        (s![4.., ..].to_vec(), vec![], (0..6).collect()),
    ];
    for (spec, rows, cols) in cases {
        let v = base.slice(&spec).unwrap();
        assert_eq!(v.shape(), &[rows.len(), cols.len()], "{spec:?}");
        let want: Vec<f64> = rows
            .iter()
            .flat_map(|r| cols.iter().map(move |c| (r * 6 + c) as f64))
            .collect();
        assert_eq!(vals(&v), want, "{spec:?}");
        // The general path (a trailing new axis) selects the same elements.
        let mut general = spec.clone();
        general.push(rnx::Index::N);
        assert_eq!(vals(&base.slice(&general).unwrap()), want, "{spec:?}");
    }
    // A view: writes to the base show through it.
    let v = base.slice(s![1..3, 2..4]).unwrap();
    base.add_(100).unwrap();
    assert_eq!(vals(&v), vec![108.0, 109.0, 114.0, 115.0]);
}

#[test]
fn ranges_slice_errors_match_the_general_path() {
    let t = Tensor::zeros(DType::F32, &[4, 6]).unwrap();
    let e = t.slice(s![5.., ..]).unwrap_err().to_string();
    let g = t.slice(s![5.., .., NewAxis]).unwrap_err().to_string();
    assert_eq!(e, g);
    assert!(e.contains("slice") && e.contains('5'), "{e}");
    let e = t.slice(s![.., 0..9]).unwrap_err().to_string();
    assert!(e.contains("slice") && e.contains('9'), "{e}");
    let e = t.slice(s![.., ..;0]).unwrap_err().to_string();
    assert!(e.contains("step 0"), "{e}");
    let e = t.slice(s![.., .., ..]).unwrap_err().to_string();
    assert!(e.contains("3 index entries"), "{e}");
}

#[test]
fn reductions_resolve_axes_as_before() {
    let x = seq(DType::F64, &[3, 4], 0.0);
    let xv = vals(&x);
    let total: f64 = xv.iter().sum();
    assert_eq!(x.sum(None, false).unwrap().item::<f64>().unwrap(), total);
    assert_eq!(x.sum([1, 0], false).unwrap().item::<f64>().unwrap(), total);
    let rows = x.sum([-1], true).unwrap();
    assert_eq!(rows.shape(), &[3, 1]);
    let want: Vec<f64> = (0..3).map(|r| xv[r * 4..r * 4 + 4].iter().sum()).collect();
    assert_eq!(vals(&rows), want);
    let cols = x.sum(0, false).unwrap();
    assert_eq!(cols.shape(), &[4]);
    let want: Vec<f64> = (0..4)
        .map(|c| (0..3).map(|r| xv[r * 4 + c]).sum())
        .collect();
    assert_eq!(vals(&cols), want);
    let e = x.sum([0, 0], false).unwrap_err().to_string();
    assert!(e.contains("sum") && e.contains("more than once"), "{e}");
    let e = x.sum([2], false).unwrap_err().to_string();
    assert!(e.contains("sum") && e.contains('2'), "{e}");
    // Rank above the inline capacity of the axis list.
    let big = Tensor::ones(DType::F32, &[1, 2, 1, 2, 1, 2, 2]).unwrap();
    assert_eq!(big.sum([6, 0, 3], false).unwrap().shape(), &[2, 1, 1, 2]);
    assert_eq!(big.sum(None, false).unwrap().item::<f32>().unwrap(), 16.0);
}

/// Every value of `v` equal to one of `allowed` and all equal to each other.
fn uniform_in(v: &[f64], allowed: &[f64]) -> bool {
    v.iter().all(|&x| x == v[0]) && allowed.contains(&v[0])
}

#[test]
fn fresh_outputs_still_lock_their_inputs() {
    // The ops that write only a buffer they just allocated skip its write
    // lock, not the read locks of their inputs: a writer on another thread
    // alternating the input between all-1 and all-2 is never seen half done.
    let a = Tensor::zeros(DType::F32, &[4, 4]).unwrap();
    a.fill(1.0).unwrap();
    std::thread::scope(|sc| {
        let w = a.clone();
        sc.spawn(move || {
            for i in 0..4000 {
                w.fill(if i % 2 == 0 { 2.0 } else { 1.0 }).unwrap();
            }
        });
        for _ in 0..2000 {
            assert!(uniform_in(&vals(&(&a + &a)), &[2.0, 4.0]));
            let e = vals(&a.exp().unwrap());
            assert!(uniform_in(&e, &[1f32.exp() as f64, 2f32.exp() as f64]));
            assert!(uniform_in(
                &vals(&a.sum(None, false).unwrap()),
                &[16.0, 32.0]
            ));
            assert!(uniform_in(&vals(&a.matmul(&a).unwrap()), &[4.0, 16.0]));
            // A torn read (a row of 1s and 2s) would not be uniform.
            assert!(uniform_in(&vals(&a.softmax(None).unwrap()), &[0.25]));
        }
    });
}

#[test]
fn two_input_ops_lock_both_inputs_in_one_order() {
    // `&a + &b` of two storages takes both read locks (never a torn input)
    // in the order every op uses (storage id). With writers of `a` and of `b`
    // waiting and an out form reading both, `a + b` and `b - a` locking their
    // inputs in argument order could deadlock (a cycle through the waiting
    // writers). The other threads run until the checks are done.
    use std::sync::atomic::{AtomicBool, Ordering};
    let a = Tensor::full(DType::F32, &[4, 4], 1.0).unwrap();
    let b = Tensor::full(DType::F32, &[4, 4], 10.0).unwrap();
    let c = Tensor::zeros(DType::F32, &[4, 4]).unwrap();
    let done = AtomicBool::new(false);
    std::thread::scope(|sc| {
        for (t, lo) in [(&a, 1.0), (&b, 10.0)] {
            let done = &done;
            sc.spawn(move || {
                let mut i = 0;
                while !done.load(Ordering::Relaxed) {
                    t.fill(if i % 2 == 0 { 2.0 * lo } else { lo }).unwrap();
                    i += 1;
                }
            });
        }
        let done2 = &done;
        let (a2, b2, c2) = (&a, &b, &c);
        sc.spawn(move || {
            while !done2.load(Ordering::Relaxed) {
                b2.add_out(a2, c2).unwrap(); // write c, read b and a
                let v = vals(c2);
                assert!(uniform_in(&v, &[11.0, 12.0, 21.0, 22.0]), "{v:?}");
            }
        });
        // Stops the other threads also when a check below panics.
        struct Stop<'a>(&'a AtomicBool);
        impl Drop for Stop<'_> {
            fn drop(&mut self) {
                self.0.store(true, Ordering::Relaxed);
            }
        }
        let _stop = Stop(&done);
        for _ in 0..20000 {
            let v = vals(&(&a + &b));
            assert!(uniform_in(&v, &[11.0, 12.0, 21.0, 22.0]), "{v:?}");
            let v = vals(&(&b - &a));
            assert!(uniform_in(&v, &[9.0, 8.0, 19.0, 18.0]), "{v:?}");
            let m = vals(&a.matmul(&b).unwrap());
            assert!(uniform_in(&m, &[40.0, 80.0, 80.0, 160.0]), "{m:?}");
        }
    });
}

#[test]
fn fresh_outputs_read_borrowed_inputs_and_out_forms_still_refuse_them() {
    let x = seq(DType::F32, &[4, 4], 1.0);
    let before = vals(&x);
    let held = x.as_slice::<f32>().unwrap();
    // Reading a borrowed tensor into a fresh output is allowed.
    let want: Vec<f64> = before.iter().map(|v| v + v).collect();
    assert_eq!(vals(&(&x + &x)), want);
    assert_eq!(
        vals(&x.sum(None, false).unwrap()),
        vec![before.iter().sum::<f64>()]
    );
    assert_eq!(
        vals(&x.matmul(&x).unwrap()),
        matmul_ref(&before, &before, 4, 4, 4)
    );
    let sm = x.softmax(None).unwrap();
    assert_eq!(sm.shape(), &[4, 4]);
    let row0: f64 = vals(&sm)[..4].iter().sum();
    assert!((row0 - 1.0).abs() < 1e-6, "{row0}");
    // Writing into it (the out forms, which lock their output) is refused and
    // leaves it as it was.
    assert!(matches!(
        x.add_out(&x, &x),
        Err(rnx::Error::Borrowed { .. })
    ));
    assert!(matches!(
        x.matmul_out(&x, &x),
        Err(rnx::Error::Borrowed { .. })
    ));
    assert_eq!(held.iter().map(|&v| v as f64).collect::<Vec<_>>(), before);
    drop(held);
    assert_eq!(vals(&x), before);
}

/// `f` over every element of `x` (row-major values), brute force.
fn fold(x: &Tensor, init: f64, f: impl Fn(f64, f64) -> f64) -> f64 {
    vals(x).into_iter().fold(init, f)
}

#[test]
fn full_reductions_match_brute_force_and_the_axis_list() {
    // The default and `Axes::all()` skip the axis resolution; an explicit
    // list of every axis takes the general path. Same values, shapes, errors.
    let shapes: [&[usize]; 6] = [&[], &[5], &[3, 4], &[2, 3, 2], &[0], &[2, 0]];
    for dt in DTYPES {
        for shape in shapes {
            let x = seq(dt, shape, 1.0);
            let xt = x.transpose(None).unwrap(); // non-contiguous from rank 2
            let every: Vec<isize> = (0..shape.len() as isize).collect();
            for t in [&x, &xt] {
                for keep in [false, true] {
                    let want_shape: Vec<usize> = if keep { vec![1; shape.len()] } else { vec![] };
                    let cases: [(&str, f64); 4] = [
                        ("sum", fold(t, 0.0, |a, v| a + v)),
                        ("max", fold(t, f64::NEG_INFINITY, f64::max)),
                        ("min", fold(t, f64::INFINITY, f64::min)),
                        ("any", fold(t, 0.0, |a, v| if v != 0.0 { 1.0 } else { a })),
                    ];
                    for (op, want) in cases {
                        let run = |axes: rnx::Axes| match op {
                            "sum" => t.sum(axes, keep),
                            "max" => t.max(axes, keep),
                            "min" => t.min(axes, keep),
                            _ => t.any(axes, keep),
                        };
                        let (d, a, l) = (
                            run(None.into()),
                            run(rnx::Axes::all()),
                            run((&every).into()),
                        );
                        let tag = format!("{dt} {op} {shape:?} keep={keep}");
                        match (d, a, l) {
                            (Ok(d), Ok(a), Ok(l)) => {
                                for r in [&d, &a, &l] {
                                    assert_eq!(r.shape(), &want_shape[..], "{tag}");
                                    assert_eq!(vals(r), vec![want], "{tag}");
                                }
                                let want_dt = if op == "any" { DType::U8 } else { dt };
                                assert_eq!(d.dtype(), want_dt, "{tag}");
                            }
                            // Max/min of nothing: the same error three ways.
                            (Err(d), Err(a), Err(l)) => {
                                assert!(t.size() == 0 && op != "sum" && op != "any", "{tag}");
                                assert_eq!(d.to_string(), l.to_string(), "{tag}");
                                assert_eq!(a.to_string(), l.to_string(), "{tag}");
                                assert!(d.to_string().contains(op), "{d}");
                            }
                            r => panic!("{tag}: paths disagree: {r:?}"),
                        }
                    }
                }
            }
        }
    }
    // Mean and var over everything; ddof too large is the same error.
    let x = seq(DType::F64, &[2, 3], 0.0);
    let xv = vals(&x);
    let mean = xv.iter().sum::<f64>() / 6.0;
    assert_eq!(x.mean(None, false).unwrap().item::<f64>().unwrap(), mean);
    let var = xv.iter().map(|v| (v - mean) * (v - mean)).sum::<f64>() / 5.0;
    let got = x.var(None, true, 1).unwrap();
    assert_eq!(got.shape(), &[1, 1]);
    assert!((got.item::<f64>().unwrap() - var).abs() < 1e-12);
    let (d, l) = (x.var(None, false, 6), x.var([0, 1], false, 6));
    assert_eq!(d.unwrap_err().to_string(), l.unwrap_err().to_string());
    // Rank 7 (above the short path's) and a dtype the op refuses.
    let big = seq(DType::I32, &[1, 2, 1, 2, 1, 2, 2], 0.0);
    assert_eq!(
        big.sum(None, true).unwrap().to_vec_f64().unwrap(),
        vec![fold(&big, 0.0, |a, v| a + v)]
    );
    let e = seq(DType::I32, &[3], 0.0).mean(None, false).unwrap_err();
    assert!(
        e.to_string().contains("mean") && e.to_string().contains("i32"),
        "{e}"
    );
}

#[test]
fn short_sums_equal_the_strided_sums_bit_for_bit() {
    // Up to 32 contiguous elements skip the blocked pairwise kernel; a
    // strided view of the same values takes the lane loop, which must give
    // the same bits (same lanes, same tree), also for -0.0 and NaN.
    for dt in [DType::F32, DType::F64] {
        for n in (0..=40).chain([63, 64, 65, 2047, 2048]) {
            let v: Vec<f64> = (0..n)
                .map(|i| ((i * 37 % 101) as f64 - 50.0) / 7.3)
                .collect();
            let c = Tensor::create(dt, &[n], &v).unwrap();
            let wide: Vec<f64> = v.iter().flat_map(|&x| [x, 1e30]).collect();
            let s = Tensor::create(dt, &[2 * n], &wide)
                .unwrap()
                .slice(s![..;2])
                .unwrap();
            assert_eq!(vals(&s), vals(&c));
            let (a, b) = (c.sum(None, false).unwrap(), s.sum(None, false).unwrap());
            assert_eq!(
                a.item_f64().unwrap().to_bits(),
                b.item_f64().unwrap().to_bits(),
                "{dt} n={n}"
            );
            let exact: f64 = v.iter().sum();
            let tol = if dt == DType::F32 { 1e-4 } else { 1e-12 };
            assert!((a.item_f64().unwrap() - exact).abs() <= tol * (1.0 + exact.abs()));
        }
        let z = Tensor::create(dt, &[3], &[-0.0, -0.0, -0.0]).unwrap();
        let zs = Tensor::create(dt, &[6], &[-0.0; 6])
            .unwrap()
            .slice(s![..;2])
            .unwrap();
        let (a, b) = (z.sum(None, false).unwrap(), zs.sum(None, false).unwrap());
        assert_eq!(
            a.item_f64().unwrap().to_bits(),
            b.item_f64().unwrap().to_bits()
        );
        let nan = Tensor::create(dt, &[3], &[1.0, f64::NAN, 2.0]).unwrap();
        assert!(nan.sum(None, false).unwrap().item_f64().unwrap().is_nan());
    }
    // Integers (wrapping) and halves (through f32) on the same short path.
    let u = Tensor::create(DType::U8, &[5], &[200.0, 100.0, 1.0, 2.0, 3.0]).unwrap();
    assert_eq!(u.sum(None, false).unwrap().item::<u8>().unwrap(), 50);
    let h = seq(DType::F16, &[7], 0.5);
    assert_eq!(
        h.sum(None, false).unwrap().item_f64().unwrap(),
        fold(&h, 0.0, |a, v| a + v)
    );
}

#[test]
fn direct_matmul_rows_equal_the_strided_loop_bit_for_bit() {
    // Products whose b has contiguous rows of 2, 3, 4, 8 or 16 run the
    // fixed-width rows; b as a transposed view (column stride != 1) runs the
    // general direct loop. Same products, same order of sums: same bits.
    for dt in [DType::F32, DType::F64] {
        for &(m, k) in &[(1usize, 1usize), (2, 3), (4, 4), (7, 2), (3, 16)] {
            for n in [1usize, 2, 3, 4, 5, 8, 16] {
                if m * n * k > 1 << 11 {
                    continue;
                }
                let av: Vec<f64> = (0..m * k)
                    .map(|i| ((i * 13 % 17) as f64 - 8.0) / 3.1)
                    .collect();
                let bv: Vec<f64> = (0..k * n)
                    .map(|i| ((i * 7 % 19) as f64 - 9.0) / 2.7)
                    .collect();
                let a = Tensor::create(dt, &[m, k], &av).unwrap();
                let b = Tensor::create(dt, &[k, n], &bv).unwrap();
                let bt = column_major(&b);
                assert_eq!(vals(&bt), vals(&b));
                let (r, rt) = (a.matmul(&b).unwrap(), a.matmul(&bt).unwrap());
                assert_eq!(r.shape(), &[m, n]);
                let bits =
                    |t: &Tensor| -> Vec<u64> { vals(t).iter().map(|v| v.to_bits()).collect() };
                assert_eq!(bits(&r), bits(&rt), "{dt} {m}x{k}x{n}");
                let want = matmul_ref(&av, &bv, m, k, n);
                let tol = if dt == DType::F32 { 1e-4 } else { 1e-12 };
                for (g, w) in vals(&r).iter().zip(&want) {
                    assert!(
                        (g - w).abs() <= tol * (1.0 + w.abs()),
                        "{dt} {m}x{k}x{n}: {g} vs {w}"
                    );
                }
            }
        }
    }
    // A sum of -0.0 products stays -0.0 on both paths (sums start from -0.0).
    let a = Tensor::create(DType::F32, &[2, 2], &[-0.0, -0.0, 1.0, -1.0]).unwrap();
    let b = Tensor::create(DType::F32, &[2, 2], &[1.0, 2.0, 1.0, 2.0]).unwrap();
    let bt = column_major(&b);
    for r in [a.matmul(&b).unwrap(), a.matmul(&bt).unwrap()] {
        let r = vals(&r);
        assert_eq!(r[0].to_bits(), (-0.0f64).to_bits());
        assert_eq!(r[1].to_bits(), (-0.0f64).to_bits());
        assert_eq!(&r[2..], &[0.0, 0.0]);
    }
}

#[test]
fn storage_ids_are_unique_across_threads() {
    // Ids come from per-thread blocks; every live storage still has its own.
    let ids: Vec<u64> = std::thread::scope(|sc| {
        let hs: Vec<_> = (0..4)
            .map(|_| {
                sc.spawn(|| {
                    let ts: Vec<Tensor> = (0..300)
                        .map(|_| Tensor::zeros(DType::F32, &[2]).unwrap())
                        .collect();
                    ts.iter().map(|t| t.storage().id()).collect::<Vec<u64>>()
                })
            })
            .collect();
        hs.into_iter().flat_map(|h| h.join().unwrap()).collect()
    });
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    sorted.dedup();
    assert_eq!(sorted.len(), ids.len());
}

/// `t`'s values in a column-major copy (a transposed view of a contiguous
/// transpose): the same matrix through strided rows.
fn column_major(t: &Tensor) -> Tensor {
    t.transpose(None)
        .unwrap()
        .copy()
        .unwrap()
        .transpose(None)
        .unwrap()
}

/// `CoreBackend::download` into byte buffers of any alignment: an empty
/// one (an empty `Vec<u8>`'s pointer is 1) and one offset by a byte from an
/// allocation, for 2-, 4-, 8- and 16-byte elements and a strided view.
#[test]
fn download_into_unaligned_byte_buffers() {
    let cpu = rnx::backend::get(rnx::Device::Cpu, "test").unwrap();
    let empty = rnx::Tensor::zeros(rnx::DType::F64, &[0, 4]).unwrap();
    cpu.download(&empty, &mut Vec::new()).unwrap();
    for dt in [
        rnx::DType::F16,
        rnx::DType::F32,
        rnx::DType::F64,
        rnx::DType::C64,
    ] {
        let t = rnx::Tensor::arange(rnx::DType::I32, 0, 12, 1)
            .unwrap()
            .reshape([3, 4])
            .unwrap()
            .cast(dt)
            .unwrap()
            .transpose([1, 0])
            .unwrap();
        let n = t.nbytes();
        let mut aligned = vec![0u64; n.div_ceil(8) + 2];
        let all: &mut [u8] = bytemuck::cast_slice_mut(&mut aligned);
        cpu.download(&t, &mut all[1..1 + n]).unwrap();
        let want = t.contiguous().unwrap();
        let mut w = vec![0u64; n.div_ceil(8)];
        let wb: &mut [u8] = bytemuck::cast_slice_mut(&mut w);
        cpu.download(&want, &mut wb[..n]).unwrap();
        assert_eq!(&all[1..1 + n], &wb[..n], "{dt}");
    }
}
