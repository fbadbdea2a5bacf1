//! sort and argsort: the seed examples, NaN placement, stability with many
//! duplicates at every size class (insertion, merge, radix), every real and
//! integer dtype, and property tests on strided views against a brute-force
//! stable sort.

use crate::views::*;
use proptest::prelude::*;
use rnx::{DType, Tensor};
use std::cmp::Ordering;

fn i32t(shape: &[usize], v: &[i64]) -> Tensor {
    Tensor::create(DType::I32, shape, v).unwrap()
}

#[test]
fn seed_sort() {
    let x = i32t(&[5], &[3, 1, 4, 1, 5]);
    let (v, i) = x.sort(-1, false).unwrap();
    assert_eq!(
        (v.to_string(), i.to_string()),
        ("[1, 1, 3, 4, 5]".into(), "[1, 3, 0, 2, 4]".into())
    );
    assert_eq!((v.dtype(), i.dtype()), (DType::I32, DType::I32));
    let x = i32t(&[2, 2], &[3, 1, 1, 4]);
    let (v, i) = x.sort(0, true).unwrap();
    assert_eq!(v.to_string(), "[[3, 4],\n [1, 1]]");
    assert_eq!(i.to_string(), "[[0, 1],\n [1, 0]]");
    let x = Tensor::create(DType::F32, &[4], &[f64::NAN, 1., 2., f64::NAN]).unwrap();
    let (v, i) = x.sort(-1, false).unwrap();
    let vv = v.to_vec::<f32>().unwrap();
    assert_eq!(&vv[..2], &[1.0, 2.0]);
    assert!(vv[2].is_nan() && vv[3].is_nan());
    assert_eq!(v.to_string(), "[1, 2, nan, nan]");
    assert_eq!(i.to_vec::<i32>().unwrap(), vec![1, 2, 0, 3]);
}

#[test]
fn seed_argsort() {
    let x = i32t(&[5], &[3, 1, 4, 1, 5]);
    assert_eq!(x.argsort(-1, false).unwrap().to_string(), "[1, 3, 0, 2, 4]");
    let x = i32t(&[2, 3], &[3, 1, 4, 2, 5, 0]);
    assert_eq!(
        x.argsort(1, false).unwrap().to_string(),
        "[[1, 0, 2],\n [2, 0, 1]]"
    );
}

#[test]
fn errors_and_scalars() {
    let x = i32t(&[2, 2], &[1, 2, 3, 4]);
    let e = x.sort(2, false).unwrap_err().to_string();
    assert!(e.starts_with("sort:") && e.contains("axis 2"), "{e}");
    assert!(x
        .argsort(-3, false)
        .unwrap_err()
        .to_string()
        .starts_with("argsort:"));
    // Complex tensors sort lexicographically (tests/suite/complex_api.rs).
    let c = Tensor::zeros(DType::C32, &[3]).unwrap();
    assert_eq!(
        c.sort(-1, false).unwrap().1.to_vec::<i32>().unwrap(),
        vec![0, 1, 2]
    );
    let s = Tensor::scalar(DType::F32, 2.5).unwrap();
    let (v, i) = s.sort(-1, false).unwrap();
    assert_eq!(
        (v.item::<f32>().unwrap(), i.item::<i32>().unwrap()),
        (2.5, 0)
    );
    let e = Tensor::zeros(DType::F32, &[0, 3]).unwrap();
    assert_eq!(e.argsort(0, false).unwrap().shape(), &[0, 3]);
}

#[test]
fn nan_first_descending_and_signed_zero() {
    let x = Tensor::create(
        DType::F64,
        &[5],
        &[f64::NAN, 1., f64::INFINITY, f64::NAN, f64::NEG_INFINITY],
    )
    .unwrap();
    let (v, i) = x.sort(-1, true).unwrap();
    assert_eq!(i.to_vec::<i32>().unwrap(), vec![0, 3, 2, 1, 4]);
    let v = v.to_vec::<f64>().unwrap();
    assert!(v[0].is_nan() && v[1].is_nan() && v[2] == f64::INFINITY && v[4] == f64::NEG_INFINITY);
    let z = Tensor::from_vec(vec![0.0f32, -0.0, 0.0, -1.0, -0.0], &[5]).unwrap();
    let (v, i) = z.sort(-1, false).unwrap();
    assert_eq!(i.to_vec::<i32>().unwrap(), vec![3, 0, 1, 2, 4]);
    let bits: Vec<u32> = v
        .to_vec::<f32>()
        .unwrap()
        .iter()
        .map(|f| f.to_bits())
        .collect();
    assert_eq!(
        bits,
        vec![(-1.0f32).to_bits(), 0, 0x8000_0000, 0, 0x8000_0000]
    );
    assert_eq!(
        z.argsort(-1, true).unwrap().to_vec::<i32>().unwrap(),
        vec![0, 1, 2, 4, 3]
    );
}

/// Brute-force stable order of `v` (NaN greatest, -0 == 0).
fn brute(v: &[f64], desc: bool) -> Vec<usize> {
    let cmp = |a: f64, b: f64| match (a.is_nan(), b.is_nan()) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(&b).unwrap(),
    };
    let mut idx: Vec<usize> = (0..v.len()).collect();
    idx.sort_by(|&a, &b| {
        if desc {
            cmp(v[b], v[a])
        } else {
            cmp(v[a], v[b])
        }
    });
    idx
}

#[test]
fn stable_with_many_duplicates_every_size() {
    for &n in &[7usize, 31, 33, 500, 1024, 1025, 5000, 70_000] {
        for desc in [false, true] {
            let data: Vec<i64> = (0..n).map(|i| ((i * 7919) % 5) as i64 - 2).collect();
            let x = Tensor::from_vec(data.clone(), &[n]).unwrap();
            let i = x.argsort(0, desc).unwrap().to_vec::<i32>().unwrap();
            let f: Vec<f64> = data.iter().map(|&v| v as f64).collect();
            let want: Vec<i32> = brute(&f, desc).iter().map(|&k| k as i32).collect();
            assert_eq!(i, want, "n {n} desc {desc}");
        }
    }
}

#[test]
fn every_real_dtype() {
    let vals: [f64; 10] = [3.0, -1.0, 0.0, 7.0, -1.0, 2.0, 100.0, -100.0, 0.0, 5.0];
    for dt in DType::ALL {
        // (fp8 and the 4-bit integers cannot hold 100 exactly: sorting them
        // is tested in fp8.rs and int4_ops.rs.)
        if dt.is_complex() || dt.is_fp8() || dt.is_int4() {
            continue;
        }
        let v: Vec<f64> = if dt.is_unsigned_int() {
            vals.iter().map(|v| v.abs()).collect()
        } else {
            vals.to_vec()
        };
        // Long enough rows for the radix path too (the pattern repeats).
        for reps in [1usize, 300] {
            let data: Vec<f64> = v.iter().cycle().take(v.len() * reps).cloned().collect();
            let x = Tensor::create(dt, &[data.len()], &data).unwrap();
            for desc in [false, true] {
                let (sv, si) = x.sort(0, desc).unwrap();
                let want = brute(&data, desc);
                let got: Vec<usize> = si
                    .to_vec::<i32>()
                    .unwrap()
                    .iter()
                    .map(|&k| k as usize)
                    .collect();
                assert_eq!(got, want, "{dt} desc {desc}");
                let sorted: Vec<f64> = want.iter().map(|&k| data[k]).collect();
                let back = sv.cast(DType::F64).unwrap().to_vec::<f64>().unwrap();
                assert_eq!(back, sorted, "{dt}");
            }
        }
    }
    // Extremes of the integer keys.
    let x = Tensor::from_vec(vec![i64::MAX, i64::MIN, 0, -1], &[4]).unwrap();
    assert_eq!(
        x.sort(0, false).unwrap().0.to_vec::<i64>().unwrap(),
        vec![i64::MIN, -1, 0, i64::MAX]
    );
    let x = Tensor::from_vec(vec![u64::MAX, 0, 1 << 63], &[3]).unwrap();
    assert_eq!(
        x.sort(0, false).unwrap().0.to_vec::<u64>().unwrap(),
        vec![0, 1 << 63, u64::MAX]
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn sort_matches_brute_force_on_views(
        spec in view_spec(3, 7),
        axis_pick in any::<usize>(),
        desc in any::<bool>(),
        seed in any::<u64>(),
        specials in any::<bool>(),
    ) {
        let bshape = spec.base_shape();
        let n: usize = bshape.iter().product();
        let special = [f32::NAN, -0.0, 0.0, f32::INFINITY, f32::NEG_INFINITY];
        let data: Vec<f32> = (0..n).map(|i| {
            let h = (i as u64).wrapping_mul(0x9E3779B97F4A7C15).wrapping_add(seed);
            if specials && h % 4 == 0 { special[(h >> 8) as usize % 5] } else { (h >> 20) as f32 % 4.0 - 1.5 }
        }).collect();
        let base = Tensor::from_vec(data.clone(), &bshape).unwrap();
        let x = spec.view(&base);
        let l = spec.layout();
        let axis = axis_pick % spec.shape.len();
        let (v, i) = x.sort(axis as isize, desc).unwrap();
        let a = x.argsort(axis as isize, desc).unwrap();
        prop_assert_eq!((v.shape(), i.shape(), a.shape()), (&spec.shape[..], &spec.shape[..], &spec.shape[..]));
        let (vv, iv) = (v.to_vec::<f32>().unwrap(), i.to_vec::<i32>().unwrap());
        prop_assert_eq!(&a.to_vec::<i32>().unwrap(), &iv);
        let out = rnx::Layout::contiguous(&spec.shape);
        let len = spec.shape[axis];
        let mut rshape = spec.shape.clone();
        rshape[axis] = 1;
        for r in indices(&rshape) {
            let mut idx = r.clone();
            let row: Vec<f64> = (0..len).map(|k| { idx[axis] = k; at(&data, &l, &idx) as f64 }).collect();
            let want = brute(&row, desc);
            for (p, &k) in want.iter().enumerate() {
                idx[axis] = p;
                let o = out.index_offset(&idx);
                prop_assert_eq!(iv[o], k as i32);
                // The values are the indexed elements, bit for bit.
                idx[axis] = k;
                prop_assert_eq!(vv[o].to_bits(), at(&data, &l, &idx).to_bits());
            }
        }
    }
}

// ---------------------------------------------------------------------------
// Every dtype against a brute-force stable sort, bit for bit.

/// The total order the sort promises: NaN above everything, -0.0 == 0.0.
fn total<T: PartialOrd>(a: &T, b: &T) -> Ordering {
    #[allow(clippy::eq_op)]
    match (a != a, b != b) {
        (true, true) => Ordering::Equal,
        (true, false) => Ordering::Greater,
        (false, true) => Ordering::Less,
        _ => a.partial_cmp(b).expect("non-NaN elements compare"),
    }
}

/// A sortable test element: its bits, and a generator of values from a hash
/// (`dup`: few distinct values, so stability matters; floats also draw NaNs
/// with different payloads, -0.0, 0.0 and infinities).
trait Elem: rnx::Element + PartialOrd {
    fn bits(self) -> u64;
    fn sample(h: u64, dup: bool) -> Self;
}

macro_rules! elem_int {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            fn bits(self) -> u64 { self as u64 }
            fn sample(h: u64, dup: bool) -> Self {
                if dup { ((h >> 7) % 5) as $t } else { (h >> 3) as $t }
            }
        }
    )*};
}
elem_int!(i8, i16, i32, i64, u8, u16, u32, u64);

macro_rules! elem_float {
    ($($t:ty: $bits:ty, $from:expr, $nan:expr, $negnan:expr);*) => {$(
        impl Elem for $t {
            fn bits(self) -> u64 { self.to_bits() as u64 }
            fn sample(h: u64, dup: bool) -> Self {
                let f: fn(f64) -> $t = $from;
                match (h >> 5) % 16 {
                    // NaNs with different payloads and signs.
                    0 => <$t>::from_bits($nan | ((h >> 12) as $bits & 0x3f)),
                    1 => <$t>::from_bits($negnan | ((h >> 12) as $bits & 0x7)),
                    2 => f(-0.0),
                    3 => f(0.0),
                    4 => f(if h & (1 << 20) != 0 { f64::INFINITY } else { f64::NEG_INFINITY }),
                    _ if dup => f(((h >> 9) % 7) as f64 - 3.0),
                    _ => f(((h >> 11) % 200_000) as f64 / 8.0 - 12_500.0),
                }
            }
        }
    )*};
}
elem_float!(
    f32: u32, |v| v as f32, 0x7fc0_0000, 0xffc0_0000;
    f64: u64, |v| v, 0x7ff8_0000_0000_0000, 0xfff8_0000_0000_0000;
    rnx::f16: u16, rnx::f16::from_f64, 0x7e00, 0xfe00;
    rnx::bf16: u16, rnx::bf16::from_f64, 0x7fc0, 0xffc0
);

fn hash(i: usize, seed: u64) -> u64 {
    let mut z = (i as u64)
        .wrapping_add(seed)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z ^ (z >> 27)
}

/// Sort `x` (2-D, any view) along `axis` with `sort`, `sort_values` and
/// `argsort`, ascending and descending, and compare every row with the
/// brute-force stable sort of its elements: indices exactly, values bit for
/// bit.
fn check_2d<T: Elem>(x: &Tensor, axis: usize, what: &str) {
    let (r, c) = (x.shape()[0], x.shape()[1]);
    let data = x.to_vec::<T>().unwrap();
    let at = |i: usize, j: usize| data[i * c + j];
    let (rows, len) = if axis == 1 { (r, c) } else { (c, r) };
    let elem = |row: usize, k: usize| if axis == 1 { at(row, k) } else { at(k, row) };
    // The stable ascending order of each row by `total` (std's sort: the
    // costly part of these tests in the test profile, so once per row), and
    // the descending one from it: the runs of equal keys in reverse order,
    // each run in its own (index) order.
    let asc: Vec<Vec<usize>> = (0..rows)
        .map(|row| {
            let mut o: Vec<usize> = (0..len).collect();
            o.sort_by(|&p, &q| total(&elem(row, p), &elem(row, q)));
            o
        })
        .collect();
    let desc_of = |row: usize| {
        let o = &asc[row];
        let mut runs: Vec<&[usize]> = Vec::new();
        let mut start = 0;
        for p in 1..=o.len() {
            if p == o.len() || total(&elem(row, o[p - 1]), &elem(row, o[p])) != Ordering::Equal {
                runs.push(&o[start..p]);
                start = p;
            }
        }
        runs.iter()
            .rev()
            .flat_map(|run| run.iter().copied())
            .collect::<Vec<usize>>()
    };
    for desc in [false, true] {
        let what = format!("{what} desc {desc}");
        let (v, i) = x.sort(axis as isize, desc).unwrap();
        let vo = x.sort_values(axis as isize, desc).unwrap();
        let a = x.argsort(axis as isize, desc).unwrap();
        assert_eq!(v.shape(), x.shape());
        assert_eq!(
            (vo.shape(), a.shape(), i.dtype()),
            (x.shape(), x.shape(), DType::I32)
        );
        let (vv, iv, vov, av) = (
            v.to_vec::<T>().unwrap(),
            i.to_vec::<i32>().unwrap(),
            vo.to_vec::<T>().unwrap(),
            a.to_vec::<i32>().unwrap(),
        );
        assert_eq!(iv, av, "{what}: argsort differs from sort's indices");
        for (row, up) in asc.iter().enumerate() {
            let d;
            let want: &[usize] = if desc {
                d = desc_of(row);
                &d
            } else {
                up
            };
            for (pos, &k) in want.iter().enumerate() {
                let o = if axis == 1 {
                    row * c + pos
                } else {
                    pos * c + row
                };
                let wb = elem(row, k).bits();
                assert_eq!(iv[o], k as i32, "{what}: row {row} pos {pos} index");
                assert_eq!(vv[o].bits(), wb, "{what}: row {row} pos {pos} value");
                assert_eq!(vov[o].bits(), wb, "{what}: row {row} pos {pos} sort_values");
            }
        }
    }
}

fn every_size_for<T: Elem>() {
    let name = std::any::type_name::<T>();
    // Row lengths around the size classes: empty, one, two, sort_unstable
    // (<= 256), then the vectorised quicksort (32-bit value-only sorts on AVX2
    // CPUs) or radix (the lone row of 70_000 too; rows of 2^19 and more split
    // their work over the pool, see `one_long_row`).
    for &(rows, len) in &[
        (1usize, 0usize),
        (3, 0),
        (1, 1),
        (4, 1),
        (5, 2),
        (7, 17),
        (3, 256),
        (3, 257),
        (4, 1000),
        (1, 70_000),
    ] {
        for (s, dup) in [(1u64, true), (2, false)] {
            let data: Vec<T> = (0..rows * len)
                .map(|i| T::sample(hash(i, s), dup))
                .collect();
            let base = Tensor::from_vec(data, &[rows, len]).unwrap();
            let what = format!("{name} {rows}x{len} dup {dup}");
            check_2d::<T>(&base, 1, &what);
            // The same rows as columns of a transposed view (strided axis).
            let t = base.transpose(None).unwrap();
            check_2d::<T>(&t, 0, &format!("{what} transposed"));
            if len <= 1000 {
                // Along axis 0 of the plain tensor, and a reversed view.
                check_2d::<T>(&base, 0, &format!("{what} axis 0"));
                let f = base.flip([1]).unwrap();
                check_2d::<T>(&f, 1, &format!("{what} flipped"));
            }
        }
    }
}

#[test]
fn every_dtype_every_size_bit_exact() {
    every_size_for::<f32>();
    every_size_for::<f64>();
    every_size_for::<rnx::f16>();
    every_size_for::<rnx::bf16>();
    every_size_for::<i8>();
    every_size_for::<i16>();
    every_size_for::<i32>();
    every_size_for::<i64>();
    every_size_for::<u8>();
    every_size_for::<u16>();
    every_size_for::<u32>();
    every_size_for::<u64>();
}

#[test]
fn zeros_and_nan_payloads_keep_input_order() {
    // A value-only sort reads its zeros and NaNs back from the input: -0.0 and
    // 0.0 interleaved, NaNs of several payloads, in short, radix-sized and
    // parallel-sized rows.
    let pattern: [u32; 6] = [
        0x8000_0000,
        0x7fc0_0001,
        0,
        0xffc0_0002,
        0x8000_0000,
        0x7fc0_0003,
    ];
    for &n in &[6usize, 600, 70_002] {
        let data: Vec<f32> = (0..n)
            .map(|i| {
                if i % 3 == 0 {
                    f32::from_bits(pattern[(i / 3) % 6])
                } else {
                    (i % 11) as f32 - 5.0
                }
            })
            .collect();
        let x = Tensor::from_vec(data.clone(), &[1, n]).unwrap();
        check_2d::<f32>(&x, 1, &format!("zeros/nans n {n}"));
        for desc in [false, true] {
            let v = x.sort_values(-1, desc).unwrap().to_vec::<f32>().unwrap();
            let zeros_in: Vec<u32> = data
                .iter()
                .filter(|f| **f == 0.0)
                .map(|f| f.to_bits())
                .collect();
            let zeros_out: Vec<u32> = v
                .iter()
                .filter(|f| **f == 0.0)
                .map(|f| f.to_bits())
                .collect();
            assert_eq!(zeros_in, zeros_out);
            let nans_in: Vec<u32> = data
                .iter()
                .filter(|f| f.is_nan())
                .map(|f| f.to_bits())
                .collect();
            let nans_out: Vec<u32> = v
                .iter()
                .filter(|f| f.is_nan())
                .map(|f| f.to_bits())
                .collect();
            assert_eq!(nans_in, nans_out);
        }
    }
}

#[test]
fn sort_values_errors_and_scalar() {
    let x = i32t(&[2, 2], &[1, 2, 3, 4]);
    let e = x.sort_values(2, false).unwrap_err().to_string();
    assert!(e.starts_with("sort_values:") && e.contains("axis 2"), "{e}");
    assert!(Tensor::zeros(DType::C64, &[2])
        .unwrap()
        .sort_values(3, false)
        .is_err());
    let s = Tensor::scalar(DType::I8, -3).unwrap();
    assert_eq!(s.sort_values(-1, true).unwrap().item::<i8>().unwrap(), -3);
    let e = Tensor::zeros(DType::U16, &[4, 0]).unwrap();
    assert_eq!(e.sort_values(1, false).unwrap().shape(), &[4, 0]);
}

/// One row past the parallel single-row threshold (2^19): its radix passes
/// split over the pool; keys of 4 and 8 bytes (packed with their index as
/// u64 / u128) and 2 bytes, with and without duplicates, both directions.
#[test]
fn one_long_row() {
    fn run<T: Elem>() {
        let len = 600_000;
        for (s, dup) in [(3u64, true), (4, false)] {
            let data: Vec<T> = (0..len).map(|i| T::sample(hash(i, s), dup)).collect();
            let base = Tensor::from_vec(data, &[1, len]).unwrap();
            let what = format!("{} 1x{len} dup {dup}", std::any::type_name::<T>());
            check_2d::<T>(&base, 1, &what);
        }
    }
    run::<f32>();
    run::<i64>();
    run::<u16>();
}

/// Row lengths around the vectorised quicksort's vector, step, leaf and block
/// sizes (value-only 32-bit sorts of more than 256 keys take it: AVX2 or
/// AVX-512 by `RNX_SIMD`), with NaN, -0.0, infinities and the integer extremes
/// among duplicates, sorted and reversed rows: bit-exact against brute force.
#[test]
fn quicksort_boundaries_with_specials() {
    let specials = [
        f32::NAN,
        -0.0,
        0.0,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::from_bits(0xffc0_0001),
        f32::MAX,
        f32::MIN,
    ];
    let lens = [
        257usize, 258, 271, 272, 273, 383, 384, 385, 511, 512, 513, 1023, 1024, 1025, 4095, 4097,
        100_003,
    ];
    for &n in &lens {
        let h = |i: usize| hash(i, n as u64);
        let f: Vec<f32> = (0..n)
            .map(|i| match h(i) % 4 {
                0 => specials[(h(i) >> 8) as usize % specials.len()],
                1 => ((h(i) >> 8) % 7) as f32 - 3.0,
                _ => f32::from_bits((h(i) >> 16) as u32),
            })
            .collect();
        let mut sorted = f.clone();
        sorted.sort_by(|a, b| a.total_cmp(b));
        let rev: Vec<f32> = sorted.iter().rev().copied().collect();
        for (what, d) in [("mixed", &f), ("sorted", &sorted), ("reversed", &rev)] {
            let x = Tensor::from_vec(d.clone(), &[1, n]).unwrap();
            check_2d::<f32>(&x, 1, &format!("f32 {what} n {n}"));
        }
        let i: Vec<i32> = (0..n)
            .map(|k| match h(k) % 3 {
                0 => [i32::MIN, i32::MAX, 0, -1][(h(k) >> 8) as usize % 4],
                _ => (h(k) >> 20) as i32,
            })
            .collect();
        let u: Vec<u32> = i.iter().map(|&v| v as u32).collect();
        let what = format!("n {n}");
        check_2d::<i32>(&Tensor::from_vec(i.clone(), &[1, n]).unwrap(), 1, &what);
        check_2d::<u32>(&Tensor::from_vec(u.clone(), &[1, n]).unwrap(), 1, &what);
    }
}
