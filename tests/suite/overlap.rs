//! The overlap solver against brute force: `Layout::has_internal_overlap`
//! (sorted-stride proof + exact search) and `overlap::tensors_overlap` /
//! `overlap::same_view` (exact bounded Diophantine search) compared with
//! enumerating every address of small random layouts.

use proptest::prelude::*;
use rnx::overlap::{same_view, tensors_overlap};
use rnx::{Layout, Tensor};
use std::collections::HashSet;

fn addresses(l: &Layout) -> Vec<isize> {
    let n = l.numel();
    let mut out = Vec::with_capacity(n);
    if n == 0 {
        return out;
    }
    let mut idx = vec![0usize; l.ndim()];
    loop {
        out.push(l.index_offset(&idx) as isize);
        let mut ax = l.ndim();
        loop {
            if ax == 0 {
                return out;
            }
            ax -= 1;
            idx[ax] += 1;
            if idx[ax] < l.shape()[ax] {
                break;
            }
            idx[ax] = 0;
        }
    }
}

fn arb_layout(n: usize) -> impl Strategy<Value = Layout> {
    (0usize..5)
        .prop_flat_map(move |nd| {
            (
                proptest::collection::vec(0usize..5, nd),
                proptest::collection::vec(-7isize..8, nd),
                0usize..n,
            )
        })
        .prop_filter_map("fits", move |(shape, strides, off)| {
            let l = Layout::new(shape, strides, off);
            l.fits_in(n).then_some(l)
        })
}

const N: usize = 64;

proptest! {
    #![proptest_config(ProptestConfig { cases: 1500, ..ProptestConfig::default() })]

    #[test]
    fn internal_overlap_matches_brute_force(l in arb_layout(N)) {
        let a = addresses(&l);
        let unique: HashSet<_> = a.iter().collect();
        prop_assert_eq!(l.has_internal_overlap(), unique.len() != a.len(), "{:?}", l);
    }

    #[test]
    fn tensors_overlap_matches_brute_force(a in arb_layout(N), b in arb_layout(N)) {
        let base = Tensor::from_vec(vec![0i32; N], &[N]).unwrap();
        let ta = Tensor::from_parts(base.storage().clone(), a.clone()).unwrap();
        let tb = Tensor::from_parts(base.storage().clone(), b.clone()).unwrap();
        let sa: HashSet<isize> = addresses(&a).into_iter().collect();
        let touch = addresses(&b).iter().any(|x| sa.contains(x));
        prop_assert_eq!(tensors_overlap(&ta, &tb), touch, "{:?} {:?}", a, b);
        prop_assert_eq!(tensors_overlap(&tb, &ta), touch);
        // A different storage never overlaps.
        let other = Tensor::from_vec(vec![0i32; N], &[N]).unwrap();
        let tc = Tensor::from_parts(other.storage().clone(), b.clone()).unwrap();
        prop_assert!(!tensors_overlap(&ta, &tc));
        // same_view: exactly the same addresses in the same order.
        let same = a.shape() == b.shape() && addresses(&a) == addresses(&b);
        if same_view(&ta, &tb) {
            prop_assert!(same, "same_view claimed for {:?} {:?}", a, b);
        }
        if a == b {
            prop_assert!(same_view(&ta, &tb));
        }
    }

    /// Byte-level overlap between dtypes of different widths over one buffer
    /// (a foreign-memory situation): element k of an i16 view covers bytes
    /// 2k, 2k+1, which overlap the i32 element k/2.
    #[test]
    fn overlap_counts_bytes_across_widths(a in arb_layout(N), b in arb_layout(2 * N)) {
        let mut mem = vec![0i32; N];
        let p = mem.as_mut_ptr() as *mut u8;
        // SAFETY: `mem` outlives both storages, which are dropped in this test;
        // nothing reads or writes through them.
        let s32 = unsafe { rnx::storage::Storage::from_foreign(rnx::DType::I32, p, N, Box::new(())) }.unwrap();
        // SAFETY: as above.
        let s16 = unsafe { rnx::storage::Storage::from_foreign(rnx::DType::I16, p, 2 * N, Box::new(())) }.unwrap();
        let t32 = Tensor::from_parts(std::sync::Arc::new(s32), a.clone()).unwrap();
        let t16 = Tensor::from_parts(std::sync::Arc::new(s16), b.clone()).unwrap();
        let bytes32: HashSet<isize> = addresses(&a).iter().flat_map(|&x| (4 * x)..(4 * x + 4)).collect();
        let touch = addresses(&b).iter().any(|&x| bytes32.contains(&(2 * x)) || bytes32.contains(&(2 * x + 1)));
        prop_assert_eq!(tensors_overlap(&t32, &t16), touch);
        drop((t32, t16));
        drop(mem);
    }
}
