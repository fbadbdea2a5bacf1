//! Shared helpers of the reduction/sort/softmax tests: strided views built from
//! a contiguous base (transposed, flipped, stepped), and element access through
//! a layout for brute-force references.
#![allow(dead_code)]

use proptest::prelude::*;
use rnx::{Layout, Tensor};

/// How to turn a contiguous base into a strided view of `shape`.
#[derive(Clone, Debug)]
pub struct ViewSpec {
    pub shape: Vec<usize>,
    pub step2: Vec<bool>,
    pub flip: Vec<bool>,
    pub perm: Vec<usize>,
}

pub fn view_spec(max_rank: usize, max_dim: usize) -> impl Strategy<Value = ViewSpec> {
    prop::collection::vec(0..=max_dim, 1..=max_rank).prop_flat_map(|shape| {
        let n = shape.len();
        (
            Just(shape),
            prop::collection::vec(any::<bool>(), n),
            prop::collection::vec(any::<bool>(), n),
            Just((0..n).collect::<Vec<_>>()).prop_shuffle(),
        )
            .prop_map(|(shape, step2, flip, perm)| ViewSpec {
                shape,
                step2,
                flip,
                perm,
            })
    })
}

impl ViewSpec {
    /// Shape of the base the view is cut from (stepped axes doubled), in the
    /// base's axis order (before permutation).
    pub fn base_shape(&self) -> Vec<usize> {
        // Axis i of the view is base axis perm[i].
        let n = self.shape.len();
        let mut b = vec![0; n];
        for i in 0..n {
            let p = self.perm[i];
            b[p] = if self.step2[i] {
                self.shape[i] * 2
            } else {
                self.shape[i]
            };
        }
        b
    }

    /// The view's layout over a contiguous base of `base_shape()`.
    pub fn layout(&self) -> Layout {
        let n = self.shape.len();
        let mut l = Layout::contiguous(&self.base_shape())
            .permute(&self.perm)
            .unwrap();
        for i in 0..n {
            if self.step2[i] {
                l = l.slice_axis(i, 0, self.shape[i], 2);
            }
            if self.flip[i] {
                l = l.flip_axis(i);
            }
        }
        assert_eq!(l.shape(), &self.shape[..]);
        l
    }

    /// A view over `base` (contiguous, of `base_shape()`).
    pub fn view(&self, base: &Tensor) -> Tensor {
        Tensor::from_parts(base.storage().clone(), self.layout()).unwrap()
    }
}

/// Row-major multi-indices of `shape`.
pub fn indices(shape: &[usize]) -> Vec<Vec<usize>> {
    let n: usize = shape.iter().product();
    let mut out = Vec::with_capacity(n);
    let mut idx = vec![0usize; shape.len()];
    for _ in 0..n {
        out.push(idx.clone());
        for a in (0..shape.len()).rev() {
            idx[a] += 1;
            if idx[a] < shape[a] {
                break;
            }
            idx[a] = 0;
        }
    }
    out
}

/// The element of `data` (the base's row-major values) at `idx` of layout `l`.
pub fn at<T: Copy>(data: &[T], l: &Layout, idx: &[usize]) -> T {
    data[l.index_offset(idx)]
}

/// A view of `t` with a custom layout (test-only access to strided views).
pub fn with_layout(t: &Tensor, l: Layout) -> Tensor {
    Tensor::from_parts(t.storage().clone(), l).unwrap()
}
