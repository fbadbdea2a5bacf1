//! Tensor products and matrix helpers (issue 29, products): NumPy's documented
//! examples for tensordot, inner, outer, vdot, vecdot, kron, cross,
//! multi_dot, matrix_power, einsum, trace, diagonal, diag, tril, triu,
//! matrix_transpose and conjugate (exact values); einsum against a brute-force
//! nested-loop evaluator on random subscripts (proptest); integer wrapping;
//! strided, flipped and broadcast inputs; `diagonal` as a view; error cases.

use proptest::prelude::*;
use rnx::{s, DType, DiagonalOptions, Tensor, C64};

fn t(dtype: DType, shape: &[usize], v: &[f64]) -> Tensor {
    Tensor::create(DType::F64, shape, v)
        .unwrap()
        .cast(dtype)
        .unwrap()
}

fn ar(dtype: DType, n: i64, shape: &[usize]) -> Tensor {
    Tensor::arange(dtype, 0, n, 1)
        .unwrap()
        .reshape(shape.iter().map(|&d| d as isize).collect::<Vec<_>>())
        .unwrap()
}

fn v(x: &Tensor) -> Vec<f64> {
    x.to_vec_f64().unwrap()
}

fn err(r: rnx::Result<Tensor>) -> String {
    r.unwrap_err().to_string()
}

// ----- tensordot, inner, outer, vdot, vecdot -----

#[test]
fn tensordot_numpy_examples() {
    for dt in [DType::F32, DType::I64, DType::F64] {
        let a = ar(dt, 60, &[3, 4, 5]);
        let b = ar(dt, 24, &[4, 3, 2]);
        let c = a.tensordot(&b, ([1, 0], [0, 1])).unwrap();
        assert_eq!(c.shape(), &[5, 2]);
        assert_eq!(
            v(&c),
            vec![4400., 4730., 4532., 4874., 4664., 5018., 4796., 5162., 4928., 5306.]
        );
        // Same through einsum.
        let e = Tensor::einsum("ijk,jil->kl", &[&a, &b]).unwrap();
        assert_eq!(v(&e), v(&c));
    }
    // Count form: 0 is the outer product, 2 the full contraction of matrices.
    let a = ar(DType::I32, 4, &[2, 2]);
    let o = a.tensordot(&a, 0).unwrap();
    assert_eq!(o.shape(), &[2, 2, 2, 2]);
    assert_eq!(o.item_at::<i32>(&[1, 1, 1, 0]).unwrap(), 6);
    assert_eq!(a.tensordot(&a, 2).unwrap().item::<i32>().unwrap(), 14);
    assert_eq!(v(&a.tensordot(&a, 1).unwrap()), v(&a.matmul(&a).unwrap()));
    // Vec pairs and negative axes.
    let x = ar(DType::F64, 24, &[2, 3, 4]);
    let y = ar(DType::F64, 12, &[4, 3]);
    let r = x.tensordot(&y, (vec![-1, 1], vec![0, -1])).unwrap();
    assert_eq!(r.shape(), &[2]);
    let mut want = [0.0; 2];
    for (i, w) in want.iter_mut().enumerate() {
        for j in 0..3 {
            for k in 0..4 {
                *w += ((i * 12 + j * 4 + k) * (k * 3 + j)) as f64;
            }
        }
    }
    assert_eq!(v(&r), want.to_vec());
}

#[test]
fn tensordot_strided_inputs_and_errors() {
    // Transposed, flipped and sliced views give the values of their copies.
    let a = ar(DType::F64, 60, &[3, 4, 5]);
    let av = a.transpose([2, 0, 1]).unwrap().flip(0).unwrap(); // [5, 3, 4]
    let b = ar(DType::F64, 40, &[5, 8]).slice(s![.., 0..8;2]).unwrap(); // [5, 4]
    let r = av.tensordot(&b, ([0], [0])).unwrap();
    let rc = av
        .contiguous()
        .unwrap()
        .tensordot(&b.contiguous().unwrap(), ([0], [0]))
        .unwrap();
    assert_eq!(r.shape(), &[3, 4, 4]);
    assert_eq!(v(&r), v(&rc));
    let m = ar(DType::F32, 6, &[2, 3]);
    assert!(err(m.tensordot(&m, 3)).starts_with("tensordot:"));
    let e = err(m.tensordot(&m, ([1], [1, 0])));
    assert!(e.contains("tensordot") && e.contains("length"), "{e}");
    let e = err(m.tensordot(&m, ([1], [0])));
    assert!(e.contains("tensordot") && e.contains("3 != 2"), "{e}");
    let e = err(m.tensordot(&m, ([0, 0], [0, 0])));
    assert!(e.contains("repeated"), "{e}");
    let e = err(m.tensordot(&m.cast(DType::F64).unwrap(), 1));
    assert!(e.contains("tensordot") && e.contains("cast"), "{e}");
}

#[test]
fn inner_outer_vdot_vecdot() {
    let a = t(DType::I32, &[3], &[1., 2., 3.]);
    let b = t(DType::I32, &[3], &[0., 1., 0.]);
    assert_eq!(a.inner(&b).unwrap().item::<i32>().unwrap(), 2);
    let a3 = ar(DType::I32, 24, &[2, 3, 4]);
    let b1 = ar(DType::I32, 4, &[4]);
    assert_eq!(
        v(&a3.inner(&b1).unwrap()),
        vec![14., 38., 62., 86., 110., 134.]
    );
    // NumPy: np.inner(np.eye(2), 7) == 7 * eye(2)
    let e = Tensor::eye(DType::F64, 2, None, 0).unwrap();
    let seven = Tensor::scalar(DType::F64, 7.0).unwrap();
    assert_eq!(v(&e.inner(&seven).unwrap()), vec![7., 0., 0., 7.]);
    // inner of 2-D with 2-D: a[i,:] . b[j,:]
    let m = ar(DType::F64, 6, &[2, 3]);
    assert_eq!(v(&m.inner(&m).unwrap()), vec![5., 14., 14., 50.]);
    assert!(err(m.inner(&a3.cast(DType::F64).unwrap())).starts_with("inner:"));

    // NumPy: np.outer(np.ones(5), np.linspace(-2, 2, 5)): rows of [-2..2]
    let o = Tensor::ones(DType::F64, &[5])
        .unwrap()
        .outer(&Tensor::linspace(DType::F64, -2.0, 2.0, 5, true).unwrap())
        .unwrap();
    assert_eq!(o.shape(), &[5, 5]);
    assert_eq!(v(&o.slice(s![3, ..]).unwrap()), vec![-2., -1., 0., 1., 2.]);
    // Outer flattens; integers wrap.
    let x = t(DType::I8, &[2, 1], &[100., -3.]);
    let y = t(DType::I8, &[2], &[2., 50.]);
    let oxy = x.outer(&y).unwrap();
    assert_eq!(oxy.shape(), &[2, 2]);
    assert_eq!(
        oxy.to_vec::<i8>().unwrap(),
        vec![
            100i8.wrapping_mul(2),
            100i8.wrapping_mul(50),
            -6,
            -150i32 as i8
        ]
    );

    // NumPy: np.vdot(a, b) == 30 for a = [[1, 4], [5, 6]], b = [[4, 1], [2, 2]]
    let a = t(DType::I64, &[2, 2], &[1., 4., 5., 6.]);
    let b = t(DType::I64, &[2, 2], &[4., 1., 2., 2.]);
    assert_eq!(a.vdot(&b).unwrap().item::<i64>().unwrap(), 30);
    assert_eq!(b.vdot(&a).unwrap().item::<i64>().unwrap(), 30);
    let za = Tensor::from_vec(vec![C64::new(1., 2.), C64::new(3., 4.)], &[2]).unwrap();
    let zb = Tensor::from_vec(vec![C64::new(5., 6.), C64::new(7., 8.)], &[2]).unwrap();
    assert_eq!(
        za.vdot(&zb).unwrap().item::<C64>().unwrap(),
        C64::new(70., -8.)
    );
    assert_eq!(
        zb.vdot(&za).unwrap().item::<C64>().unwrap(),
        C64::new(70., 8.)
    );
    assert!(err(a.vdot(&a3.cast(DType::I64).unwrap())).starts_with("vdot:"));

    // NumPy's vecdot example.
    let vs = t(DType::F64, &[3, 3], &[0., 5., 0., 0., 0., 10., 3., 4., 5.]);
    let n = t(DType::F64, &[3], &[0., 0., 1.]);
    assert_eq!(v(&vs.vecdot(&n, -1).unwrap()), vec![0., 10., 5.]);
    // Along axis 0 of the broadcast shape (column sums weighted by n).
    let n0 = t(DType::F64, &[3, 1], &[1., 2., 3.]);
    assert_eq!(v(&vs.vecdot(&n0, 0).unwrap()), vec![9., 17., 35.]);
    // Complex: conj of the first.
    let zz = za.vecdot(&za, -1).unwrap();
    assert_eq!(zz.item::<C64>().unwrap(), C64::new(30., 0.));
    let e = err(vs.vecdot(&t(DType::F64, &[2], &[1., 2.]), -1));
    assert!(e.starts_with("vecdot:"), "{e}");
}

// ----- kron, cross, multi_dot, matrix_power -----

#[test]
fn kron_numpy_examples() {
    let a = t(DType::I32, &[3], &[1., 10., 100.]);
    let b = t(DType::I32, &[3], &[5., 6., 7.]);
    assert_eq!(
        v(&a.kron(&b).unwrap()),
        vec![5., 6., 7., 50., 60., 70., 500., 600., 700.]
    );
    assert_eq!(
        v(&b.kron(&a).unwrap()),
        vec![5., 50., 500., 6., 60., 600., 7., 70., 700.]
    );
    // np.kron(np.eye(2), np.ones((2, 2)))
    let k = Tensor::eye(DType::F32, 2, None, 0)
        .unwrap()
        .kron(&Tensor::ones(DType::F32, &[2, 2]).unwrap())
        .unwrap();
    assert_eq!(
        v(&k),
        vec![1., 1., 0., 0., 1., 1., 0., 0., 0., 0., 1., 1., 0., 0., 1., 1.]
    );
    // NumPy: a = arange(100).reshape(2,5,2,5), b = arange(24).reshape(2,3,4):
    // kron(a, b).shape == (2, 10, 6, 20), c[K] == a[I] * b[J] for every index.
    let a = ar(DType::I64, 100, &[2, 5, 2, 5]);
    let b = ar(DType::I64, 24, &[2, 3, 4]);
    let c = a.kron(&b).unwrap();
    assert_eq!(c.shape(), &[2, 10, 6, 20]);
    let cv = c.to_vec::<i64>().unwrap();
    let bs = [1usize, 2, 3, 4];
    for i0 in 0..2 {
        for i1 in 0..5 {
            for i2 in 0..2 {
                for i3 in 0..5 {
                    for j1 in 0..2 {
                        for j2 in 0..3 {
                            for j3 in 0..4 {
                                let ia = ((i0 * 5 + i1) * 2 + i2) * 5 + i3;
                                let ib = (j1 * 3 + j2) * 4 + j3;
                                let k = [i0, i1 * bs[1] + j1, i2 * bs[2] + j2, i3 * bs[3] + j3];
                                let kc = ((k[0] * 10 + k[1]) * 6 + k[2]) * 20 + k[3];
                                assert_eq!(cv[kc], (ia * ib) as i64);
                            }
                        }
                    }
                }
            }
        }
    }
}

#[test]
fn cross_numpy_examples() {
    let x = t(DType::I32, &[3], &[1., 2., 3.]);
    let y = t(DType::I32, &[3], &[4., 5., 6.]);
    assert_eq!(v(&x.cross(&y, -1).unwrap()), vec![-3., 6., -3.]);
    let x2 = t(DType::F64, &[2, 3], &[1., 2., 3., 4., 5., 6.]);
    let y2 = t(DType::F64, &[2, 3], &[4., 5., 6., 1., 2., 3.]);
    assert_eq!(
        v(&x2.cross(&y2, -1).unwrap()),
        vec![-3., 6., -3., 3., -6., 3.]
    );
    let x3 = ar(DType::I64, 9, &[3, 3]).add(1).unwrap();
    let y3 = x3.flip(0).unwrap();
    assert_eq!(
        v(&x3.cross(&y3, -1).unwrap()),
        vec![-6., 12., -6., 0., 0., 0., 6., -12., 6.]
    );
    // axis 0 for both inputs and the result (NumPy's axisa=axisb=axisc=0).
    assert_eq!(
        v(&x3.cross(&y3, 0).unwrap()),
        vec![-24., -30., -36., 48., 60., 72., -24., -30., -36.]
    );
    // Broadcasting a single vector against a stack.
    assert_eq!(
        v(&t(DType::F64, &[3], &[1., 2., 3.]).cross(&y2, -1).unwrap()),
        vec![-3., 6., -3., 0., 0., 0.]
    );
    let e = err(t(DType::F64, &[2], &[1., 2.]).cross(&y2, -1));
    assert!(e.starts_with("cross:") && e.contains("not 3"), "{e}");
}

#[test]
fn multi_dot_values_and_errors() {
    let a = ar(DType::F64, 12, &[3, 4]);
    let b = ar(DType::F64, 8, &[4, 2]).sub(3).unwrap();
    let c = ar(DType::F64, 10, &[2, 5]);
    let d = ar(DType::F64, 5, &[5]);
    let ref_ = a.matmul(&b).unwrap().matmul(&c).unwrap();
    assert_eq!(v(&Tensor::multi_dot(&[&a, &b, &c]).unwrap()), v(&ref_));
    let r = Tensor::multi_dot(&[&a, &b, &c, &d]).unwrap();
    assert_eq!(r.shape(), &[3]);
    assert_eq!(v(&r), v(&ref_.matmul(&d).unwrap()));
    let row = ar(DType::F64, 3, &[3]);
    let r = Tensor::multi_dot(&[&row, &a, &b, &c, &d]).unwrap();
    assert_eq!(r.shape(), &[] as &[usize]);
    assert_eq!(
        r.item::<f64>().unwrap(),
        row.matmul(&ref_.matmul(&d).unwrap())
            .unwrap()
            .item::<f64>()
            .unwrap()
    );
    // Integers wrap, the order does not change wrapped results.
    let w = t(DType::U8, &[2, 2], &[200., 3., 7., 250.]);
    let want = w.matmul(&w).unwrap().matmul(&w).unwrap();
    assert_eq!(
        Tensor::multi_dot(&[&w, &w, &w])
            .unwrap()
            .to_vec::<u8>()
            .unwrap(),
        want.to_vec::<u8>().unwrap()
    );
    let e = err(Tensor::multi_dot(&[&a, &c]));
    assert!(e.starts_with("multi_dot:") && e.contains("chain"), "{e}");
    assert!(err(Tensor::multi_dot(&[&a])).starts_with("multi_dot:"));
    let e = err(Tensor::multi_dot(&[&a, &ar(DType::F64, 8, &[4, 2, 1]), &c]));
    assert!(e.starts_with("multi_dot:"), "{e}");
}

#[test]
fn matrix_power_numpy_examples_and_wrap() {
    let i = t(DType::I32, &[2, 2], &[0., 1., -1., 0.]);
    assert_eq!(v(&i.matrix_power(3).unwrap()), vec![0., -1., 1., 0.]);
    assert_eq!(v(&i.matrix_power(0).unwrap()), vec![1., 0., 0., 1.]);
    assert_eq!(v(&i.matrix_power(2).unwrap()), vec![-1., 0., 0., -1.]);
    let p1 = i.matrix_power(1).unwrap();
    assert!(!p1.same_storage(&i));
    // NumPy: q = zeros((4, 4)); q[0:2, 0:2] = -i; q[2:4, 2:4] = i; q^2 == -I
    let q = Tensor::zeros(DType::I32, &[4, 4]).unwrap();
    q.set_slice(s![0..2, 0..2], &i.neg().unwrap()).unwrap();
    q.set_slice(s![2..4, 2..4], &i).unwrap();
    let q2 = q.matrix_power(2).unwrap();
    let mi = Tensor::eye(DType::I32, 4, None, 0).unwrap().neg().unwrap();
    assert_eq!(v(&q2), v(&mi));
    // Fibonacci in u8 wraps: [[1,1],[1,0]]^n = [[F(n+1), F(n)], [F(n), F(n-1)]]
    let f = t(DType::U8, &[2, 2], &[1., 1., 1., 0.]);
    let mut fib = vec![0u8, 1];
    for k in 2..40 {
        let n = fib[k - 1].wrapping_add(fib[k - 2]);
        fib.push(n);
    }
    for n in [5usize, 13, 30] {
        let p = f.matrix_power(n as i64).unwrap().to_vec::<u8>().unwrap();
        assert_eq!(p, vec![fib[n + 1], fib[n], fib[n], fib[n - 1]], "n = {n}");
    }
    // Batched.
    let bt = Tensor::stack(&[f.clone(), f.matrix_power(2).unwrap()], 0).unwrap();
    let p = bt.matrix_power(3).unwrap();
    assert_eq!(p.shape(), &[2, 2, 2]);
    assert_eq!(
        p.to_vec::<u8>().unwrap(),
        vec![fib[4], fib[3], fib[3], fib[2], fib[7], fib[6], fib[6], fib[5]]
    );
    let e = err(i.matrix_power(-1));
    assert!(e.starts_with("matrix_power:") && e.contains("inv"), "{e}");
    let e = err(ar(DType::F32, 6, &[2, 3]).matrix_power(2));
    assert!(
        e.starts_with("matrix_power:") && e.contains("square"),
        "{e}"
    );
}

// ----- trace, diagonal, diag, tril, triu, matrix_transpose, conjugate -----

#[test]
fn trace_and_diagonal_numpy_examples() {
    assert_eq!(
        Tensor::eye(DType::F64, 3, None, 0)
            .unwrap()
            .trace()
            .unwrap()
            .item::<f64>()
            .unwrap(),
        3.0
    );
    let a = ar(DType::I32, 8, &[2, 2, 2]);
    assert_eq!(v(&a.trace().unwrap()), vec![6., 8.]);
    let a4 = ar(DType::I32, 24, &[2, 2, 2, 3]);
    assert_eq!(a4.trace().unwrap().shape(), &[2, 3]);
    let m = ar(DType::I32, 4, &[2, 2]);
    assert_eq!(v(&m.diagonal().unwrap()), vec![0., 3.]);
    let o1 = DiagonalOptions {
        offset: 1,
        ..Default::default()
    };
    assert_eq!(v(&m.diagonal_with(o1).unwrap()), vec![1.]);
    assert_eq!(v(&a.diagonal().unwrap()), vec![0., 6., 1., 7.]);
    assert_eq!(a.diagonal().unwrap().shape(), &[2, 2]);
    // Offsets past the edge give empty diagonals and a zero trace.
    let far = DiagonalOptions {
        offset: -5,
        ..Default::default()
    };
    assert_eq!(m.diagonal_with(far).unwrap().shape(), &[0]);
    assert_eq!(m.trace_with(far).unwrap().item::<i32>().unwrap(), 0);
    // Trace of a u8 matrix wraps.
    let u = Tensor::full(DType::U8, &[3, 3], 200).unwrap();
    assert_eq!(u.trace().unwrap().item::<u8>().unwrap(), 600u32 as u8);
    // Rectangular, negative offset, last axes.
    let r = ar(DType::I64, 12, &[3, 4]);
    let o = DiagonalOptions {
        offset: -1,
        axis1: -2,
        axis2: -1,
    };
    assert_eq!(v(&r.diagonal_with(o).unwrap()), vec![4., 9.]);
    // Swapped axes read the transpose's diagonal.
    let o = DiagonalOptions {
        offset: 1,
        axis1: 1,
        axis2: 0,
    };
    assert_eq!(v(&r.diagonal_with(o).unwrap()), vec![4., 9.]);
    assert!(err(r.diagonal_with(DiagonalOptions {
        axis2: 0,
        ..Default::default()
    }))
    .starts_with("diagonal:"));
    assert!(err(ar(DType::I32, 3, &[3]).trace()).starts_with("trace:"));
}

#[test]
fn diagonal_is_a_view_of_strided_inputs() {
    let base = Tensor::zeros(DType::F32, &[4, 6]).unwrap();
    let view = base.slice(s![.., 0..6;2]).unwrap().flip(0).unwrap(); // [4, 3]
    let d = view.diagonal().unwrap();
    assert!(d.same_storage(&base));
    assert_eq!(d.shape(), &[3]);
    d.set_slice(s![..], &t(DType::F32, &[3], &[1., 2., 3.]))
        .unwrap();
    // view[i, i] = base[3 - i, 2 i]
    assert_eq!(base.item_at::<f32>(&[3, 0]).unwrap(), 1.0);
    assert_eq!(base.item_at::<f32>(&[2, 2]).unwrap(), 2.0);
    assert_eq!(base.item_at::<f32>(&[1, 4]).unwrap(), 3.0);
    assert_eq!(base.sum(None, false).unwrap().item::<f32>().unwrap(), 6.0);
    d.fill(0.0).unwrap();
    assert_eq!(base.sum(None, false).unwrap().item::<f32>().unwrap(), 0.0);
}

#[test]
fn diag_tril_triu_numpy_examples() {
    let x = ar(DType::I32, 9, &[3, 3]);
    assert_eq!(v(&x.diag(0).unwrap()), vec![0., 4., 8.]);
    assert_eq!(v(&x.diag(1).unwrap()), vec![1., 5.]);
    assert_eq!(v(&x.diag(-1).unwrap()), vec![3., 7.]);
    let dd = x.diag(0).unwrap().diag(0).unwrap();
    assert_eq!(v(&dd), vec![0., 0., 0., 0., 4., 0., 0., 0., 8.]);
    assert!(!x.diag(0).unwrap().same_storage(&x));
    let m = t(DType::F64, &[2], &[1., 2.]).diag(-1).unwrap();
    assert_eq!(v(&m), vec![0., 0., 0., 1., 0., 0., 0., 2., 0.]);
    assert!(err(ar(DType::I32, 8, &[2, 2, 2]).diag(0)).starts_with("diag:"));

    let a = ar(DType::I32, 12, &[4, 3]).add(1).unwrap();
    assert_eq!(
        v(&a.tril(-1).unwrap()),
        vec![0., 0., 0., 4., 0., 0., 7., 8., 0., 10., 11., 12.]
    );
    assert_eq!(
        v(&a.triu(-1).unwrap()),
        vec![1., 2., 3., 4., 5., 6., 0., 8., 9., 0., 0., 12.]
    );
    assert_eq!(v(&a.tril(100).unwrap()), v(&a));
    assert_eq!(v(&a.triu(-100).unwrap()), v(&a));
    assert_eq!(
        a.tril(-100)
            .unwrap()
            .sum(None, false)
            .unwrap()
            .item::<i32>()
            .unwrap(),
        0
    );
    // Batched over leading axes, transposed input.
    let b = ar(DType::F32, 18, &[2, 3, 3]).matrix_transpose().unwrap();
    let u = b.triu(0).unwrap();
    let bc = b.contiguous().unwrap();
    let bv = v(&bc);
    let mut want = bv.clone();
    for k in 0..2 {
        for i in 0..3 {
            for j in 0..3 {
                if j < i {
                    want[k * 9 + i * 3 + j] = 0.0;
                }
            }
        }
    }
    assert_eq!(v(&u), want);
    // tril + triu(1) == a
    let s2 = b.tril(0).unwrap().add(&b.triu(1).unwrap()).unwrap();
    assert_eq!(v(&s2), bv);
    assert!(err(ar(DType::I32, 3, &[3]).tril(0)).starts_with("tril:"));
}

#[test]
fn matrix_transpose_and_conjugate() {
    let a = ar(DType::F32, 24, &[2, 3, 4]);
    let tr = a.matrix_transpose().unwrap();
    assert!(tr.same_storage(&a));
    assert_eq!(tr.shape(), &[2, 4, 3]);
    assert_eq!(
        tr.item_at::<f32>(&[1, 3, 2]).unwrap(),
        12.0 + 2.0 * 4.0 + 3.0
    );
    assert!(err(ar(DType::F32, 3, &[3]).matrix_transpose()).starts_with("matrix_transpose:"));
    let z = Tensor::from_vec(vec![C64::new(1., 2.), C64::new(-3., -0.5)], &[2]).unwrap();
    assert_eq!(
        z.conjugate().unwrap().to_vec::<C64>().unwrap(),
        vec![C64::new(1., -2.), C64::new(-3., 0.5)]
    );
    let r = ar(DType::I16, 4, &[2, 2]);
    let c = r.conjugate().unwrap();
    assert!(!c.same_storage(&r));
    assert_eq!(v(&c), v(&r));
}

// ----- einsum -----

#[test]
fn einsum_numpy_examples() {
    let a = ar(DType::I32, 25, &[5, 5]);
    let b = ar(DType::I32, 5, &[5]);
    let c = ar(DType::I32, 6, &[2, 3]);
    let e = |s: &str, ops: &[&Tensor]| v(&Tensor::einsum(s, ops).unwrap());
    assert_eq!(e("ii", &[&a]), vec![60.]);
    assert_eq!(e("ii->i", &[&a]), vec![0., 6., 12., 18., 24.]);
    assert_eq!(e("ij->i", &[&a]), vec![10., 35., 60., 85., 110.]);
    assert_eq!(e("...j->...", &[&a]), vec![10., 35., 60., 85., 110.]);
    assert_eq!(e("ba", &[&c]), vec![0., 3., 1., 4., 2., 5.]);
    assert_eq!(e("ji", &[&c]), vec![0., 3., 1., 4., 2., 5.]);
    assert_eq!(e("ij->ji", &[&c]), vec![0., 3., 1., 4., 2., 5.]);
    assert_eq!(
        e("..., ...", &[&Tensor::scalar(DType::I32, 3).unwrap(), &c]),
        vec![0., 3., 6., 9., 12., 15.]
    );
    assert_eq!(e("i,i", &[&b, &b]), vec![30.]);
    assert_eq!(e("ij,j", &[&a, &b]), vec![30., 80., 130., 180., 230.]);
    assert_eq!(e("...j,j", &[&a, &b]), vec![30., 80., 130., 180., 230.]);
    assert_eq!(e("ij,j->i", &[&a, &b]), vec![30., 80., 130., 180., 230.]);
    let one2 = t(DType::I32, &[2], &[1., 2.]);
    assert_eq!(
        e("i,j", &[&one2, &b]),
        vec![0., 1., 2., 3., 4., 0., 2., 4., 6., 8.]
    );
    assert_eq!(
        e("ij,jk", &[&c, &c.matrix_transpose().unwrap()]),
        vec![5., 14., 14., 50.]
    );
    // Ellipsis broadcasting: (2, 1, 3) with (4, 3) -> (2, 4).
    let x = ar(DType::F64, 6, &[2, 1, 3]);
    let y = ar(DType::F64, 12, &[4, 3]);
    let r = Tensor::einsum("...i,...i->...", &[&x, &y]).unwrap();
    assert_eq!(r.shape(), &[2, 4]);
    let mut want = vec![];
    for p in 0..2 {
        for q in 0..4 {
            want.push(
                (0..3)
                    .map(|k| ((p * 3 + k) * (q * 3 + k)) as f64)
                    .sum::<f64>(),
            );
        }
    }
    assert_eq!(v(&r), want);
    // NumPy: np.einsum('ki,...k->i...', a, b) style: ellipsis at the output's end.
    let m = ar(DType::F64, 6, &[3, 2]);
    let r = Tensor::einsum("ki,...k->i...", &[&m, &y]).unwrap();
    assert_eq!(r.shape(), &[2, 4]);
    let r2 = m
        .matrix_transpose()
        .unwrap()
        .matmul(&y.matrix_transpose().unwrap())
        .unwrap();
    assert_eq!(v(&r), v(&r2));
    // Three operands, contraction order chosen by size: same values as
    // left to right.
    let p = ar(DType::F64, 20, &[4, 5]);
    let q = ar(DType::F64, 10, &[5, 2]);
    let s3 = ar(DType::F64, 6, &[2, 3]);
    let r = Tensor::einsum("ij,jk,kl->il", &[&p, &q, &s3]).unwrap();
    assert_eq!(v(&r), v(&p.matmul(&q).unwrap().matmul(&s3).unwrap()));
    // Result is a fresh tensor even for pure views.
    let id = Tensor::einsum("ij->ij", &[&c]).unwrap();
    assert!(!id.same_storage(&c));
}

#[test]
fn einsum_integer_wrap_and_views() {
    // i8 contraction wraps exactly as a wrapping brute-force loop.
    let a = t(
        DType::I8,
        &[3, 4],
        &[100., -100., 77., 5., 127., -128., 3., 99., 1., 2., 3., 4.],
    );
    let b = t(
        DType::I8,
        &[4, 2],
        &[90., -7., 33., 120., -128., 1., 55., 66.],
    );
    let r = Tensor::einsum("ij,jk->ik", &[&a, &b])
        .unwrap()
        .to_vec::<i8>()
        .unwrap();
    let av = a.to_vec::<i8>().unwrap();
    let bv = b.to_vec::<i8>().unwrap();
    for i in 0..3 {
        for k in 0..2 {
            let mut acc = 0i8;
            for j in 0..4 {
                acc = acc.wrapping_add(av[i * 4 + j].wrapping_mul(bv[j * 2 + k]));
            }
            assert_eq!(r[i * 2 + k], acc);
        }
    }
    // Strided (stepped, flipped, transposed, broadcast) operands.
    let big = ar(DType::F64, 48, &[6, 8]);
    let x = big.slice(s![0..6;2, ..]).unwrap().flip(1).unwrap(); // [3, 8]
    let y = ar(DType::F64, 8, &[8, 1]).broadcast_to(&[8, 3]).unwrap();
    let r = Tensor::einsum("ij,jk->ki", &[&x, &y]).unwrap();
    let r2 = x
        .contiguous()
        .unwrap()
        .matmul(&y.contiguous().unwrap())
        .unwrap();
    assert_eq!(
        v(&r),
        v(&r2.matrix_transpose().unwrap().contiguous().unwrap())
    );
}

#[test]
fn einsum_errors() {
    let a = ar(DType::F32, 6, &[2, 3]);
    let b = ar(DType::F32, 6, &[3, 2]);
    let c = ar(DType::F32, 9, &[3, 3]);
    let cases: Vec<(&str, Vec<&Tensor>, &str)> = vec![
        ("ij,jk->ik", vec![&a], "operands"),
        ("ij,j1->i", vec![&a, &b], "invalid character"),
        ("ijk", vec![&a], "rank"),
        ("ij,ij->i", vec![&a, &b], "sizes"),
        ("ij->ii", vec![&a], "repeated"),
        ("ij->k", vec![&a], "does not occur"),
        ("i.j", vec![&a], "'...'"),
        ("...i,...i", vec![&a, &c], "broadcast"),
        ("ij->i->j", vec![&a], "'->'"),
    ];
    for (s, ops, want) in cases {
        let e = err(Tensor::einsum(s, &ops));
        assert!(e.starts_with("einsum:") && e.contains(want), "{s}: {e}");
    }
    let e = err(Tensor::einsum("ij,jk", &[&a, &b.cast(DType::F64).unwrap()]));
    assert!(e.starts_with("einsum:") && e.contains("cast"), "{e}");
    let none: [&Tensor; 0] = [];
    assert!(err(Tensor::einsum("", &none)).starts_with("einsum:"));
}

/// A small deterministic generator for the property test's inputs.
struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Random subscripts over labels `a..d`, their operand shapes and the output
/// labels (explicit or NumPy's implicit rule computed here independently).
fn random_case(rng: &mut Rng) -> (String, Vec<Vec<u8>>, Vec<u8>, [usize; 4]) {
    let sizes = [
        1 + rng.below(3),
        1 + rng.below(3),
        1 + rng.below(3),
        1 + rng.below(3),
    ];
    let nops = 1 + rng.below(3);
    let mut terms: Vec<Vec<u8>> = vec![];
    for _ in 0..nops {
        let n = rng.below(4);
        terms.push((0..n).map(|_| b'a' + rng.below(4) as u8).collect());
    }
    let mut used: Vec<u8> = terms.iter().flatten().copied().collect();
    used.sort_unstable();
    used.dedup();
    let explicit = rng.below(2) == 0;
    let out: Vec<u8> = if explicit {
        let mut o: Vec<u8> = used.iter().copied().filter(|_| rng.below(2) == 0).collect();
        for i in (1..o.len()).rev() {
            o.swap(i, rng.below(i + 1));
        }
        o
    } else {
        used.iter()
            .copied()
            .filter(|l| terms.iter().flatten().filter(|x| *x == l).count() == 1)
            .collect()
    };
    let mut s = terms
        .iter()
        .map(|t| String::from_utf8(t.clone()).unwrap())
        .collect::<Vec<_>>()
        .join(",");
    if explicit {
        s.push_str("->");
        s.push_str(&String::from_utf8(out.clone()).unwrap());
    }
    (s, terms, out, sizes)
}

/// The nested-loop definition of einsum: every assignment of every label.
fn brute(terms: &[Vec<u8>], out: &[u8], sizes: &[usize; 4], data: &[Vec<f64>]) -> Vec<f64> {
    let sz = |l: u8| sizes[(l - b'a') as usize];
    let out_n: usize = out.iter().map(|&l| sz(l)).product();
    let mut res = vec![0.0; out_n];
    let total: usize = sizes.iter().product();
    for code in 0..total {
        let mut idx = [0usize; 4];
        let mut c = code;
        for (k, s) in sizes.iter().enumerate() {
            idx[k] = c % s;
            c /= s;
        }
        // Count each distinct assignment of the used labels once: labels that
        // no term uses must sit at 0.
        let used = |l: usize| terms.iter().flatten().any(|&x| (x - b'a') as usize == l);
        if (0..4).any(|l| !used(l) && idx[l] != 0) {
            continue;
        }
        let flat = |ls: &[u8]| {
            ls.iter()
                .fold(0usize, |f, &l| f * sz(l) + idx[(l - b'a') as usize])
        };
        let mut p = 1.0;
        for (term, d) in terms.iter().zip(data) {
            p *= d[flat(term)];
        }
        res[flat(out)] += p;
    }
    res
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn einsum_matches_brute_force(seed in any::<u64>(), int in any::<bool>()) {
        let mut rng = Rng(seed | 1);
        let (subs, terms, out, sizes) = random_case(&mut rng);
        let dt = if int { DType::I32 } else { DType::F64 };
        let mut data = vec![];
        let mut ops = vec![];
        for term in &terms {
            let shape: Vec<usize> = term.iter().map(|&l| sizes[(l - b'a') as usize]).collect();
            let n: usize = shape.iter().product();
            let vals: Vec<f64> = (0..n).map(|_| rng.below(7) as f64 - 3.0).collect();
            ops.push(t(dt, &shape, &vals));
            data.push(vals);
        }
        let r = Tensor::einsum(&subs, &ops).unwrap();
        let want_shape: Vec<usize> = out.iter().map(|&l| sizes[(l - b'a') as usize]).collect();
        prop_assert_eq!(r.shape(), want_shape.as_slice(), "{}", subs);
        prop_assert_eq!(r.dtype(), dt);
        prop_assert_eq!(v(&r), brute(&terms, &out, &sizes, &data), "{}", subs);
    }
}

/// The products on the GPU give the CPU's values (integer-valued data, so
/// f32 results are exact; i32 wraps the same way).
#[cfg(feature = "gpu")]
#[test]
fn products_on_the_gpu() {
    use rnx::Device;
    let Some(g) = crate::gpu::gpu() else { return };
    for dt in [DType::F32, DType::I32] {
        let a = ar(dt, 24, &[2, 3, 4]).sub(7).unwrap();
        let b = ar(dt, 16, &[2, 4, 2]);
        let m = ar(dt, 16, &[4, 4]).sub(5).unwrap();
        let w = ar(dt, 9, &[3, 3]).sub(4).unwrap();
        let x3 = ar(dt, 6, &[2, 3]).sub(2).unwrap();
        type F = fn(&[Tensor]) -> rnx::Result<Tensor>;
        let cases: Vec<(&str, Vec<Tensor>, F)> = vec![
            ("tensordot", vec![a.clone(), m.clone()], |t| {
                t[0].tensordot(&t[1], 1)
            }),
            ("einsum bij,bjk", vec![a.clone(), b.clone()], |t| {
                Tensor::einsum("bij,bjk->bik", t)
            }),
            ("einsum ii->i", vec![m.clone()], |t| {
                Tensor::einsum("ii->i", t)
            }),
            ("einsum ijk,ijk", vec![a.clone(), a.clone()], |t| {
                Tensor::einsum("ijk,ijk", t)
            }),
            ("trace", vec![m.clone()], |t| t[0].trace()),
            ("diagonal", vec![a.clone()], |t| {
                t[0].diagonal()?.contiguous()
            }),
            ("diag", vec![x3.slice(s![0, ..]).unwrap()], |t| t[0].diag(1)),
            ("tril", vec![a.clone()], |t| t[0].tril(0)),
            ("triu", vec![m.clone()], |t| t[0].triu(-1)),
            ("kron", vec![x3.clone(), w.clone()], |t| t[0].kron(&t[1])),
            (
                "cross",
                vec![x3.clone(), w.slice(s![0..2, ..]).unwrap()],
                |t| t[0].cross(&t[1], -1),
            ),
            ("outer", vec![x3.clone(), m.clone()], |t| t[0].outer(&t[1])),
            ("vecdot", vec![w.clone(), x3.clone()], |t| {
                t[0].slice(s![0..2, ..])?.vecdot(&t[1], 1)
            }),
            ("matrix_power", vec![w.clone()], |t| t[0].matrix_power(5)),
            (
                "multi_dot",
                vec![x3.clone(), w.clone(), m.slice(s![0..3, ..]).unwrap()],
                |t| Tensor::multi_dot(t),
            ),
            ("conjugate", vec![m.clone()], |t| t[0].conjugate()),
        ];
        for (name, ins, f) in cases {
            let cpu = f(&ins).unwrap();
            let gins: Vec<Tensor> = ins.iter().map(|t| t.to_device(g).unwrap()).collect();
            let gpu = f(&gins).unwrap();
            assert_eq!(gpu.device(), g, "{name}");
            assert_eq!(gpu.shape(), cpu.shape(), "{name} {dt}");
            let back = gpu.to_device(Device::Cpu).unwrap();
            assert_eq!(v(&back), v(&cpu), "{name} {dt}");
        }
    }
}
