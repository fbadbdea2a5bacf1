//! matmul / matmul_out / dot: the seed's examples, NumPy `@` shape rules on
//! random batch shapes, and values against a naive reference over every dtype
//! with contiguous, transposed, sliced, flipped and broadcast operands.

use proptest::prelude::*;
use rnx::ops::index::Index;
use rnx::{bf16, f16, DType, Element, Layout, Tensor, C32, C64};

// ---------- seed examples ----------

#[test]
fn seed_dot() {
    let a = Tensor::create(DType::F32, &[2], &[1., 2.]).unwrap();
    let b = Tensor::create(DType::F32, &[2], &[3., 4.]).unwrap();
    let r = a.dot(&b).unwrap();
    assert_eq!(r.shape(), &[] as &[usize]);
    assert_eq!(r.item::<f32>().unwrap(), 11.0);
    let a = Tensor::create(DType::F32, &[2, 2], &[1., 2., 3., 4.]).unwrap();
    let b = Tensor::create(DType::F32, &[2, 2], &[5., 6., 7., 8.]).unwrap();
    let r = a.dot(&b).unwrap();
    assert_eq!(r.dtype(), DType::F32);
    assert_eq!(r.to_string(), "[[19, 22],\n [43, 50]]");
    let ones = |s: &[usize]| Tensor::ones(DType::F32, s).unwrap();
    assert_eq!(
        ones(&[3, 4, 5]).dot(&ones(&[5, 6])).unwrap().shape(),
        &[3, 4, 6]
    );
    assert_eq!(
        ones(&[2, 3, 4, 5]).dot(&ones(&[3, 5, 6])).unwrap().shape(),
        &[2, 3, 4, 6]
    );
}

#[test]
fn seed_matmul() {
    let a = Tensor::create(DType::F32, &[3], &[1., 2., 3.]).unwrap();
    let b = Tensor::create(DType::F32, &[3], &[4., 5., 6.]).unwrap();
    let r = a.matmul(&b).unwrap();
    assert_eq!(r.shape(), &[] as &[usize]);
    assert_eq!(r.item::<f32>().unwrap(), 32.0);
    let a = Tensor::create(DType::F32, &[2, 2], &[1., 2., 3., 4.]).unwrap();
    let b = Tensor::create(DType::F32, &[2], &[5., 6.]).unwrap();
    let r = a.matmul(&b).unwrap();
    assert_eq!(r.to_string(), "[17, 39]");
    assert_eq!(r.dtype(), DType::F32);
    let a = Tensor::create(DType::F32, &[2], &[1., 2.]).unwrap();
    let b = Tensor::create(DType::F32, &[2, 3], &[3., 4., 5., 6., 7., 8.]).unwrap();
    assert_eq!(a.matmul(&b).unwrap().to_string(), "[15, 18, 21]");
    let ones = |s: &[usize]| Tensor::ones(DType::F32, s).unwrap();
    let r = ones(&[10, 3, 4]).matmul(&ones(&[10, 4, 5])).unwrap();
    assert_eq!(r.shape(), &[10, 3, 5]);
    assert!(r.to_vec::<f32>().unwrap().iter().all(|&v| v == 4.0));
    let r = ones(&[1, 3, 4]).matmul(&ones(&[5, 4, 2])).unwrap();
    assert_eq!(r.shape(), &[5, 3, 2]);
    assert!(r.to_vec::<f32>().unwrap().iter().all(|&v| v == 4.0));
}

#[test]
fn errors() {
    let s = Tensor::scalar(DType::F32, 1.0).unwrap();
    let v = Tensor::ones(DType::F32, &[3]).unwrap();
    assert!(s.matmul(&v).is_err());
    assert!(v.matmul(&s).is_err());
    assert!(s.dot(&v).is_err());
    assert!(v.dot(&s).is_err());
    let a = Tensor::ones(DType::F32, &[2, 3]).unwrap();
    let b = Tensor::ones(DType::F32, &[4, 5]).unwrap();
    let e = a.matmul(&b).unwrap_err().to_string();
    assert_eq!(
        e,
        "matmul: inner dimensions differ: [2, 3] @ [4, 5] (3 != 4)"
    );
    let e = a.dot(&b).unwrap_err().to_string();
    assert!(e.starts_with("dot: inner dimensions differ"), "{e}");
    let a = Tensor::ones(DType::F32, &[2, 2, 3]).unwrap();
    let b = Tensor::ones(DType::F32, &[3, 3, 2]).unwrap();
    assert!(a.matmul(&b).is_err());
    let b = Tensor::ones(DType::F64, &[3, 2]).unwrap();
    assert!(a.matmul(&b).unwrap_err().to_string().contains("f32"));
    // matmul_out: shape, dtype and overlapping outputs are rejected before writing.
    let a = Tensor::ones(DType::F32, &[2, 3]).unwrap();
    let b = Tensor::ones(DType::F32, &[3, 2]).unwrap();
    assert!(a
        .matmul_out(&b, &Tensor::zeros(DType::F32, &[2, 3]).unwrap())
        .is_err());
    assert!(a
        .matmul_out(&b, &Tensor::zeros(DType::F64, &[2, 2]).unwrap())
        .is_err());
    let base = Tensor::zeros(DType::F32, &[2]).unwrap();
    let bc = Tensor::from_parts(
        base.storage().clone(),
        Layout::new(vec![2, 2], vec![0, 1], 0),
    )
    .unwrap();
    assert!(a.matmul_out(&b, &bc).is_err());
    assert_eq!(base.to_vec::<f32>().unwrap(), vec![0.0, 0.0]);
}

// ---------- reference ----------

struct Rng(u64);
impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// A random value: full-width bits for integers (to exercise wrapping), small
/// integers for halves (exact sums), reals in [-2, 2) for f32/f64/complex.
fn value<T: Element>(rng: &mut Rng) -> T {
    let d = T::DTYPE;
    if d.is_int() {
        T::from_i64_wrapping(rng.next() as i64)
    } else if d.is_half() {
        T::from_f64(rng.below(9) as f64 - 4.0)
    } else {
        let mut r = || (rng.next() >> 11) as f64 / (1u64 << 53) as f64 * 4.0 - 2.0;
        T::from_re_im(r(), r())
    }
}

/// A tensor with logical shape `shape` and random values, laid out at random:
/// axes permuted in memory, stepped (sliced), flipped, and stride-0 broadcast
/// on the leading `bcast_axes` axes.
fn operand<T: Element>(rng: &mut Rng, shape: &[usize], bcast_axes: usize) -> Tensor {
    let nd = shape.len();
    let steps: Vec<usize> = (0..nd).map(|_| 1 + rng.below(2)).collect();
    let mut perm: Vec<usize> = (0..nd).collect();
    for i in (1..nd).rev() {
        perm.swap(i, rng.below(i + 1));
    }
    let bcast: Vec<bool> = (0..nd)
        .map(|i| i < bcast_axes && rng.below(3) == 0)
        .collect();
    // Storage dims in memory order perm[0] (outermost) .. perm[nd-1].
    let ext = |i: usize| if bcast[i] { 1 } else { shape[i] * steps[i] };
    let mut strides = vec![0isize; nd];
    let mut acc = 1isize;
    for &ax in perm.iter().rev() {
        strides[ax] = acc * steps[ax] as isize;
        acc *= ext(ax).max(1) as isize;
    }
    let len = acc as usize + 3;
    let data: Vec<T> = (0..len).map(|_| value::<T>(rng)).collect();
    let mut offset = 1isize;
    for i in 0..nd {
        if bcast[i] {
            strides[i] = 0;
        } else if rng.below(3) == 0 && shape[i] > 0 {
            offset += (shape[i] as isize - 1) * strides[i];
            strides[i] = -strides[i];
        }
    }
    let base = Tensor::from_vec(data, &[len]).unwrap();
    Tensor::from_parts(
        base.storage().clone(),
        Layout::new(shape.to_vec(), strides, offset as usize),
    )
    .unwrap()
}

fn row_major_index(shape: &[usize], idx: &[usize]) -> usize {
    idx.iter().zip(shape).fold(0, |acc, (&i, &d)| acc * d + i)
}

/// Expected result of NumPy's `@`: shape and values (checked within a tolerance
/// for floats, exactly with wrapping for integers).
fn check<T: Element>(a: &Tensor, b: &Tensor, got: &Tensor) {
    let (sa, sb) = (a.shape().to_vec(), b.shape().to_vec());
    let sa2 = if sa.len() == 1 {
        vec![1, sa[0]]
    } else {
        sa.clone()
    };
    let sb2 = if sb.len() == 1 {
        vec![sb[0], 1]
    } else {
        sb.clone()
    };
    let (ra, rb) = (sa2.len(), sb2.len());
    let (m, k, n) = (sa2[ra - 2], sa2[ra - 1], sb2[rb - 1]);
    let nb = (ra - 2).max(rb - 2);
    let dim = |s: &[usize], r: usize, i: usize| {
        if i + r >= nb + 2 {
            s[i + r - nb - 2]
        } else {
            1
        }
    };
    let batch: Vec<usize> = (0..nb)
        .map(|i| dim(&sa2, ra, i).max(dim(&sb2, rb, i)))
        .collect();
    let mut expect_shape = batch.clone();
    if sa.len() > 1 {
        expect_shape.push(m);
    }
    if sb.len() > 1 {
        expect_shape.push(n);
    }
    assert_eq!(got.shape(), expect_shape.as_slice(), "{sa:?} @ {sb:?}");
    assert_eq!(got.dtype(), T::DTYPE);
    let (va, vb, vg) = (
        a.to_vec::<T>().unwrap(),
        b.to_vec::<T>().unwrap(),
        got.to_vec::<T>().unwrap(),
    );
    let tol = match T::DTYPE {
        DType::F64 | DType::C64 => 1e-13,
        DType::F32 | DType::C32 => 1e-5,
        _ => 0.0, // halves use exact small integers; ints are exact
    };
    let nbatch: usize = batch.iter().product();
    let mut bidx = vec![0usize; nb];
    for t in 0..nbatch {
        let mut rem = t;
        for ax in (0..nb).rev() {
            bidx[ax] = rem % batch[ax];
            rem /= batch[ax];
        }
        // Index into an operand's batch axes (broadcast: size-1 -> 0).
        let sub = |s: &[usize], r: usize| -> Vec<usize> {
            (0..r - 2)
                .map(|i| {
                    let bi = bidx[i + nb + 2 - r];
                    if s[i] == 1 {
                        0
                    } else {
                        bi
                    }
                })
                .collect()
        };
        let (ia, ib) = (sub(&sa2, ra), sub(&sb2, rb));
        // Element offsets of this batch element's matrices (the operands and
        // the result are row-major); `while` over the reduction: the test
        // profile does not inline range iterators.
        let a0 = row_major_index(&sa2[..ra - 2], &ia) * m * k;
        let b0 = row_major_index(&sb2[..rb - 2], &ib) * k * n;
        for i in 0..m {
            for j in 0..n {
                let (mut ire, mut re, mut im, mut mag) = (0i128, 0f64, 0f64, 0f64);
                let mut p = 0;
                while p < k {
                    let x = va[a0 + i * k + p];
                    let y = vb[b0 + p * n + j];
                    if let (Some(x), Some(y)) = (x.to_i128(), y.to_i128()) {
                        ire = ire.wrapping_add(x.wrapping_mul(y));
                    } else {
                        let (xr, xi, yr, yi) = (x.to_f64(), x.imag_f64(), y.to_f64(), y.imag_f64());
                        re += xr * yr - xi * yi;
                        im += xr * yi + xi * yr;
                        mag += (xr.abs() + xi.abs()) * (yr.abs() + yi.abs());
                    }
                    p += 1;
                }
                let mut oi = bidx.clone();
                oi.extend([i, j]);
                let g = vg[(t * m + i) * n + j];
                if T::DTYPE.is_int() {
                    assert_eq!(
                        g,
                        T::from_i64_wrapping(ire as i64),
                        "{sa:?}@{sb:?} at {oi:?}"
                    );
                } else {
                    let ok = (g.to_f64() - re).abs() <= tol * mag + 1e-300
                        && (g.imag_f64() - im).abs() <= tol * mag + 1e-300;
                    let exact = T::from_re_im(re, im);
                    assert!(
                        ok || g == exact,
                        "{:?}: {sa:?}@{sb:?} at {oi:?}: got {g:?}, want ({re}, {im})",
                        T::DTYPE
                    );
                }
            }
        }
    }
}

/// Random products of one dtype over sizes that include 0, 1 and primes, with
/// random layouts; through matmul, matmul_out (strided output) and dot.
fn random_products<T: Element>(seed: u64, cases: usize) {
    let mut rng = Rng(seed);
    const SIZES: [usize; 10] = [0, 1, 2, 3, 5, 7, 13, 17, 31, 37];
    for case in 0..cases {
        let mut d = || SIZES[rng.below(SIZES.len())];
        let (m, k, n) = (d(), d(), d());
        let nb = rng.below(3);
        let batch: Vec<usize> = (0..nb).map(|_| 1 + rng.below(3)).collect();
        let mut sa = batch.clone();
        sa.extend([m, k]);
        let mut sb: Vec<usize> = batch
            .iter()
            .map(|&x| if rng.below(3) == 0 { 1 } else { x })
            .collect();
        sb.extend([k, n]);
        if case % 5 == 1 {
            sa = vec![k];
        }
        if case % 7 == 2 {
            sb = vec![k];
        }
        let a = operand::<T>(&mut rng, &sa, sa.len().saturating_sub(2));
        let b = operand::<T>(&mut rng, &sb, sb.len().saturating_sub(2));
        let r = a.matmul(&b).unwrap();
        check::<T>(&a, &b, &r);
        // Into a strided (transposed or stepped) output.
        let os = r.shape().to_vec();
        let out = operand::<T>(&mut rng, &os, 0);
        let got = a.matmul_out(&b, &out).unwrap();
        check::<T>(&a, &b, &got);
        if T::DTYPE.is_int() {
            // Floats may round differently when the kernel sees another output
            // layout; integers are exact either way.
            assert_eq!(out.to_vec::<T>().unwrap(), r.to_vec::<T>().unwrap());
        }
        if case % 4 == 0 {
            check::<T>(&a, &b, &a.dot(&b).unwrap());
        }
    }
}

#[test]
fn values_all_dtypes() {
    random_products::<f32>(1, 40);
    random_products::<f64>(2, 40);
    random_products::<f16>(3, 20);
    random_products::<bf16>(4, 20);
    random_products::<C32>(5, 20);
    random_products::<C64>(6, 20);
    random_products::<i8>(7, 20);
    random_products::<i16>(8, 20);
    random_products::<i32>(9, 30);
    random_products::<i64>(10, 20);
    random_products::<u8>(11, 20);
    random_products::<u16>(12, 20);
    random_products::<u32>(13, 20);
    random_products::<u64>(14, 20);
}

/// Shapes that cross the packed f32/f64 kernels' block edges (AVX2: MC =
/// 144/72 rows, KC = 384/256 depth, NC = 4080 columns, 6 x 16 / 6 x 8 register
/// tiles; AVX-512: MC = 336/168, KC = 384/512, NC = 4096, 14 x 32 / 14 x 16 tiles),
/// on random (transposed, stepped, flipped) layouts, single product and
/// batched. The kernels this CPU runs are the ones tested (`RNX_SIMD=avx2`
/// caps them at AVX2).
#[test]
fn packed_block_edges() {
    let mut rng = Rng(77);
    for (m, k, n) in [
        (150, 300, 37),
        (73, 513, 20),
        (13, 257, 4081),
        (6, 16, 16),
        (12, 1, 8),
        (200, 2, 33),
        (145, 256, 17),
        (337, 257, 33),
        (15, 40, 4097),
        (169, 20, 65),
        (14, 9, 32),
    ] {
        let a = operand::<f32>(&mut rng, &[m, k], 0);
        let b = operand::<f32>(&mut rng, &[k, n], 0);
        check::<f32>(&a, &b, &a.matmul(&b).unwrap());
        let out = operand::<f32>(&mut rng, &[m, n], 0);
        check::<f32>(&a, &b, &a.matmul_out(&b, &out).unwrap());
        let a = operand::<f64>(&mut rng, &[2, m, k], 1);
        let b = operand::<f64>(&mut rng, &[2, k, n], 1);
        check::<f64>(&a, &b, &a.matmul(&b).unwrap());
    }
}

/// Small products (every dimension 1..130, around the register tiles' and
/// vectors' widths: the direct path of the packed kernels without packing),
/// on random (transposed, stepped, flipped) layouts and contiguous ones,
/// single and batched (with a broadcast batch axis), into fresh and given
/// outputs, against the f64 reference. Run at every `RNX_SIMD` level.
#[test]
fn small_products() {
    let mut rng = Rng(2027);
    const DIMS: [usize; 20] = [
        1, 2, 3, 5, 7, 8, 13, 14, 16, 17, 31, 32, 33, 47, 63, 64, 65, 127, 128, 130,
    ];
    for case in 0..36 {
        let mut d = || DIMS[rng.below(DIMS.len())];
        let (m, k, n) = match case {
            0 => (64, 64, 64),
            1 => (128, 128, 128),
            2 => (130, 129, 127),
            _ => (d(), d(), d()),
        };
        let a = operand::<f32>(&mut rng, &[m, k], 0);
        let b = operand::<f32>(&mut rng, &[k, n], 0);
        check::<f32>(&a, &b, &a.matmul(&b).unwrap());
        let out = operand::<f32>(&mut rng, &[m, n], 0);
        check::<f32>(&a, &b, &a.matmul_out(&b, &out).unwrap());
        let a = operand::<f64>(&mut rng, &[m, k], 0).contiguous().unwrap();
        let b = operand::<f64>(&mut rng, &[k, n], 0).contiguous().unwrap();
        check::<f64>(&a, &b, &a.matmul(&b).unwrap());
        if case % 4 == 0 {
            let a = operand::<f64>(&mut rng, &[3, m, k], 1);
            let b = operand::<f64>(&mut rng, &[3, k, n], 1);
            check::<f64>(&a, &b, &a.matmul(&b).unwrap());
            let a = operand::<f32>(&mut rng, &[2, m, k], 0)
                .contiguous()
                .unwrap();
            let b = operand::<f32>(&mut rng, &[2, k, n], 0)
                .contiguous()
                .unwrap();
            check::<f32>(&a, &b, &a.matmul(&b).unwrap());
        }
    }
}

/// Row-major operands through the packed kernels: contiguous ones and row
/// views of wider matrices (row stride above the width), with partial row
/// and column panels, odd depths and depths over one block, single product
/// and batched, into fresh outputs and given ones.
#[test]
fn row_major_operands() {
    let mut rng = Rng(31);
    let mut dense = |shape: &[usize], pad: usize| {
        let (rows, cols) = (
            shape[..shape.len() - 1].iter().product::<usize>(),
            shape[shape.len() - 1],
        );
        let data: Vec<f32> = (0..rows * (cols + pad))
            .map(|_| value::<f32>(&mut rng))
            .collect();
        let mut wide = shape.to_vec();
        *wide.last_mut().unwrap() += pad;
        let t = Tensor::from_vec(data, &wide).unwrap();
        let mut spec = vec![Index::all(); shape.len()];
        *spec.last_mut().unwrap() = Index::range(0, cols as isize);
        t.slice(spec).unwrap()
    };
    for (m, k, n, pad) in [
        (128, 128, 128, 0),
        (131, 77, 45, 0),
        (131, 77, 45, 3),
        (7, 300, 600, 5),
        (250, 257, 33, 0),
        (64, 1000, 30, 1),
    ] {
        let a = dense(&[m, k], pad);
        let b = dense(&[k, n], pad);
        check::<f32>(&a, &b, &a.matmul(&b).unwrap());
        let out = dense(&[m, n], 0);
        check::<f32>(&a, &b, &a.matmul_out(&b, &out).unwrap());
    }
    let a = dense(&[4, 100, 130], 2);
    let b = dense(&[4, 130, 90], 0);
    check::<f32>(&a, &b, &a.matmul(&b).unwrap());
}

/// Sizes that take every threading tier: tiny (single thread), many small
/// products (threads over the batch), one large product (threads inside),
/// and a deep one (depth at least 16 times both sides: the depth split over
/// the threads, each part's sum added into the output at the end; also
/// into given outputs of random layouts).
#[test]
fn threading_tiers() {
    let mut rng = Rng(99);
    for (sa, sb) in [
        (vec![2, 3], vec![3, 4]),
        (vec![6, 41, 43], vec![6, 43, 47]),
        (vec![131, 97], vec![97, 89]),
        (vec![1, 101, 103], vec![2, 103, 107]),
        (vec![24, 3001], vec![3001, 40]),
    ] {
        let a = operand::<f64>(&mut rng, &sa, sa.len() - 2);
        let b = operand::<f64>(&mut rng, &sb, sb.len() - 2);
        check::<f64>(&a, &b, &a.matmul(&b).unwrap());
        let a = operand::<i32>(&mut rng, &sa, sa.len() - 2);
        let b = operand::<i32>(&mut rng, &sb, sb.len() - 2);
        check::<i32>(&a, &b, &a.matmul(&b).unwrap());
        let a = operand::<bf16>(&mut rng, &sa, sa.len() - 2);
        let b = operand::<bf16>(&mut rng, &sb, sb.len() - 2);
        check::<bf16>(&a, &b, &a.matmul(&b).unwrap());
    }
    let (m, k, n) = (37, 5000, 29);
    let a = operand::<f32>(&mut rng, &[m, k], 0);
    let b = operand::<f32>(&mut rng, &[k, n], 0);
    check::<f32>(&a, &b, &a.matmul(&b).unwrap());
    let out = operand::<f32>(&mut rng, &[m, n], 0);
    check::<f32>(&a, &b, &a.matmul_out(&b, &out).unwrap());
    let a = operand::<f64>(&mut rng, &[m, k], 0);
    let b = operand::<f64>(&mut rng, &[k, n], 0);
    let out = operand::<f64>(&mut rng, &[m, n], 0);
    check::<f64>(&a, &b, &a.matmul_out(&b, &out).unwrap());
}

/// f16 and bf16 products accumulate in f32 and round once per result: with
/// integer operands whose partial sums pass the half type's exact-integer range
/// (2048 for f16, 256 for bf16) but stay exact in f32, every result is the
/// exact sum rounded once. Rounding partial sums to the half type fails this.
#[test]
fn halves_round_once() {
    let (m, k, n) = (5, 96, 7);
    let a: Vec<f64> = (0..m * k).map(|i| ((i * 7) % 13 + 1) as f64).collect();
    let b: Vec<f64> = (0..k * n).map(|i| ((i * 5) % 11 + 1) as f64).collect();
    let mut exact = vec![0f64; m * n];
    for i in 0..m {
        for j in 0..n {
            exact[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
        }
    }
    assert!(exact.iter().all(|&v| v > 2048.0 && v < (1 << 24) as f64));
    for dt in [DType::F16, DType::BF16] {
        let ta = Tensor::create(dt, &[m, k], &a).unwrap();
        let tb = Tensor::create(dt, &[k, n], &b).unwrap();
        let got = ta.matmul(&tb).unwrap().astype(DType::F64).unwrap();
        let want = Tensor::create(DType::F64, &[m, n], &exact)
            .unwrap()
            .astype(dt)
            .unwrap()
            .astype(DType::F64)
            .unwrap();
        assert_eq!(
            got.to_vec::<f64>().unwrap(),
            want.to_vec::<f64>().unwrap(),
            "{dt:?}"
        );
    }
}

/// An input that overlaps the output: the result is as if the inputs were read
/// completely first.
#[test]
fn out_overlapping_inputs() {
    let a = Tensor::create(DType::F64, &[2, 2], &[1., 2., 3., 4.]).unwrap();
    let want = a.matmul(&a).unwrap().to_vec::<f64>().unwrap();
    a.matmul_out(&a, &a).unwrap();
    assert_eq!(a.to_vec::<f64>().unwrap(), want);
    // Output = transposed view of the input.
    let a = Tensor::create(DType::I64, &[2, 2], &[1, 2, 3, 4]).unwrap();
    let at =
        Tensor::from_parts(a.storage().clone(), Layout::new(vec![2, 2], vec![1, 2], 0)).unwrap();
    let want = a.matmul(&a).unwrap().to_vec::<i64>().unwrap();
    a.matmul_out(&a, &at).unwrap();
    assert_eq!(at.to_vec::<i64>().unwrap(), want);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// NumPy `@` shape rules on random batch shapes (values in f64).
    #[test]
    fn shape_rules(
        common in prop::collection::vec(1usize..4, 0..4),
        ka in 0usize..4, kb in 0usize..4,
        ones_a in any::<u8>(), ones_b in any::<u8>(),
        m in 0usize..4, k in 0usize..4, n in 0usize..4,
        a_vec in any::<bool>(), b_vec in any::<bool>(), seed in any::<u64>(),
    ) {
        let mut rng = Rng(seed);
        let drop_a = ka.min(common.len());
        let drop_b = kb.min(common.len());
        let mut sa: Vec<usize> = common[drop_a..].iter().enumerate()
            .map(|(i, &d)| if ones_a >> (i % 8) & 1 == 1 { 1 } else { d }).collect();
        let mut sb: Vec<usize> = common[drop_b..].iter().enumerate()
            .map(|(i, &d)| if ones_b >> (i % 8) & 1 == 1 { 1 } else { d }).collect();
        if a_vec { sa = vec![k] } else { sa.extend([m, k]) }
        if b_vec { sb = vec![k] } else { sb.extend([k, n]) }
        let a = operand::<f64>(&mut rng, &sa, 0);
        let b = operand::<f64>(&mut rng, &sb, 0);
        check::<f64>(&a, &b, &a.matmul(&b).unwrap());
        // A mismatched inner dimension is always an error.
        let mut sc = sb.clone();
        let inner = if b_vec { 0 } else { sc.len() - 2 };
        sc[inner] = k + 1;
        let c = Tensor::zeros(DType::F64, &sc).unwrap();
        prop_assert!(a.matmul(&c).is_err());
    }
}
