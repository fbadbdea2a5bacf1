//! The index spec: [`Index`] (Nx's `I`, `L`, `R`, `N`, `M` entries), its
//! conversions from integers, Rust ranges, lists and masks, and the `s![..]`
//! macro that builds a spec with Rust syntax. Resolving a spec against a
//! tensor (views, gathers, assignments) is `index.rs`'s.

use crate::tensor::Tensor;

/// One entry of an index spec (Nx's `I`, `L`, `R`, `N`, `M`), per axis from the
/// first; missing trailing entries select everything. `N` (or the [`NewAxis`]
/// marker in [`crate::s!`]) inserts a size-1 axis and consumes no input axis.
///
/// Negative positions count from the end. Ranges follow NumPy's rules with
/// strict bounds: `R(start, stop, step)` visits `start, start+step, ...` while
/// before `stop` (exclusive) in the step's direction; `None` means "from the
/// first element in the step's direction" for `start` and "to the end" for
/// `stop`. After adding the size to negative values, bounds must lie in
/// `0..=size` for a positive step and `-1..size` for a negative one (an error
/// otherwise); a range whose stop is not after its start is empty.
///
/// ```
/// use rnx::{s, Tensor, DType};
/// use rnx::ops::index::Index;
/// let x = Tensor::create(DType::I32, &[2, 4], &[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
/// assert_eq!(x.slice(&[Index::I(1)]).unwrap().to_string(), "[5, 6, 7, 8]");
/// assert_eq!(x.slice(s![.., ..;-2]).unwrap().to_string(), "[[4, 2],\n [8, 6]]");
/// assert_eq!(x.slice(s![1, [0, -1]]).unwrap().to_string(), "[5, 8]");
/// assert_eq!(x.slice(&[Index::N, Index::I(0)]).unwrap().shape(), &[1, 4]);
/// // A mask: the columns where it is true (a copy).
/// assert_eq!(x.slice(s![.., [true, false, false, true]]).unwrap().to_string(), "[[1, 4],\n [5, 8]]");
/// ```
#[derive(Clone, Debug)]
pub enum Index {
    /// Select one position and drop the axis.
    I(isize),
    /// Fancy index: the listed positions, in order (copies).
    L(Vec<isize>),
    /// Range `(start, stop, step)`; `step != 0`. A view.
    R(Option<isize>, Option<isize>, isize),
    /// A new axis of size 1 here (Nx's `N`, NumPy's `np.newaxis`); consumes no
    /// axis of the input. A view.
    N,
    /// Boolean mask (Nx's `M`, NumPy's `a[:, mask]`): a 1-D u8 tensor (0
    /// false, non-zero true) as long as the axis; keeps the positions where it
    /// is true, in order, like [`Tensor::compress`] along that axis. A copy,
    /// never a view (as NumPy's boolean indexing copies); in
    /// [`Tensor::set_slice`] it is masked assignment along the axis. Several
    /// `L`/`M` entries select independently per axis (the outer product of
    /// the selections), as `L` does. `s![.., [true, false]]` builds one from
    /// bools. Errors (naming `slice`/`set_slice`): a mask that is not u8, not
    /// 1-D, of another length than the axis, or on another device than the
    /// tensor. For an n-D mask over several axes use [`Tensor::extract`] /
    /// [`Tensor::set_mask`].
    M(Tensor),
}

/// Structural equality; two `M` masks are equal when they have the same
/// dtype, shape and elements (masks that cannot be read, as on a lost
/// device, equal only themselves: the same view of the same storage).
impl PartialEq for Index {
    fn eq(&self, other: &Index) -> bool {
        match (self, other) {
            (Index::I(a), Index::I(b)) => a == b,
            (Index::L(a), Index::L(b)) => a == b,
            (Index::R(a, b, c), Index::R(d, e, f)) => (a, b, c) == (d, e, f),
            (Index::N, Index::N) => true,
            (Index::M(a), Index::M(b)) => {
                if a.same_storage(b) && a.layout() == b.layout() {
                    return true;
                }
                a.dtype() == b.dtype()
                    && a.shape() == b.shape()
                    && matches!((a.to_vec_f64(), b.to_vec_f64()), (Ok(x), Ok(y)) if x == y)
            }
            _ => false,
        }
    }
}

impl Eq for Index {}

impl From<Vec<bool>> for Index {
    fn from(v: Vec<bool>) -> Index {
        Index::from(&v[..])
    }
}

impl From<&[bool]> for Index {
    fn from(v: &[bool]) -> Index {
        let m: Vec<u8> = v.iter().map(|&b| b as u8).collect();
        Index::M(Tensor::from_slice_1d(&m))
    }
}

impl<const N: usize> From<[bool; N]> for Index {
    fn from(v: [bool; N]) -> Index {
        Index::from(&v[..])
    }
}

/// The new-axis marker for [`crate::s!`]: `s![NewAxis, ..]` is
/// `[Index::N, Index::all()]`.
///
/// ```
/// use rnx::{s, NewAxis, Tensor, DType};
/// let x = Tensor::create(DType::I32, &[3], &[1, 2, 3]).unwrap();
/// assert_eq!(x.slice(s![.., NewAxis]).unwrap().shape(), &[3, 1]);
/// assert_eq!(x.slice(s![NewAxis, 1..]).unwrap().to_string(), "[[2, 3]]");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewAxis;

impl From<NewAxis> for Index {
    fn from(_: NewAxis) -> Index {
        Index::N
    }
}

impl Index {
    /// Synonym of [`Index::N`].
    #[allow(non_upper_case_globals)]
    pub const NewAxis: Index = Index::N;
}

impl Index {
    /// The whole axis.
    pub fn all() -> Index {
        Index::R(None, None, 1)
    }
    /// `start..stop` with step 1.
    pub fn range(start: isize, stop: isize) -> Index {
        Index::R(Some(start), Some(stop), 1)
    }
    /// Nx's `R [start; stop; step]`.
    pub fn range_step(start: isize, stop: isize, step: isize) -> Index {
        Index::R(Some(start), Some(stop), step)
    }
    /// A Rust range with a step (what `s![a..b; step]` expands to). An
    /// inclusive range's end is included in the step's direction.
    pub fn stepped<R: IntoRange>(r: R, step: isize) -> Index {
        let (start, stop, inclusive) = r.into_range();
        let stop = match (stop, inclusive) {
            (Some(b), true) => {
                if step > 0 {
                    (b != -1).then_some(b + 1)
                } else {
                    (b != 0).then_some(b - 1)
                }
            }
            (s, _) => s,
        };
        Index::R(start, stop, step)
    }
}

/// Rust range types usable as an [`Index::R`]: `(start, end, end_is_inclusive)`.
pub trait IntoRange {
    /// The bounds of the range.
    fn into_range(self) -> (Option<isize>, Option<isize>, bool);
}

/// `From<range of $t>` for [`Index`]: the range with step 1.
macro_rules! range_index {
    ($t:ty: $($r:ident),*) => {$(
        impl From<std::ops::$r<$t>> for Index {
            fn from(r: std::ops::$r<$t>) -> Index {
                Index::stepped(r, 1)
            }
        }
    )*};
}

macro_rules! index_from_int {
    ($($t:ty),*) => {$(
        impl From<$t> for Index {
            fn from(i: $t) -> Index {
                Index::I(i as isize)
            }
        }
        impl From<Vec<$t>> for Index {
            fn from(v: Vec<$t>) -> Index {
                Index::L(v.into_iter().map(|i| i as isize).collect())
            }
        }
        impl From<&[$t]> for Index {
            fn from(v: &[$t]) -> Index {
                Index::L(v.iter().map(|&i| i as isize).collect())
            }
        }
        impl<const N: usize> From<[$t; N]> for Index {
            fn from(v: [$t; N]) -> Index {
                Index::L(v.iter().map(|&i| i as isize).collect())
            }
        }
        impl IntoRange for std::ops::Range<$t> {
            fn into_range(self) -> (Option<isize>, Option<isize>, bool) {
                (Some(self.start as isize), Some(self.end as isize), false)
            }
        }
        impl IntoRange for std::ops::RangeInclusive<$t> {
            fn into_range(self) -> (Option<isize>, Option<isize>, bool) {
                (Some(*self.start() as isize), Some(*self.end() as isize), true)
            }
        }
        impl IntoRange for std::ops::RangeFrom<$t> {
            fn into_range(self) -> (Option<isize>, Option<isize>, bool) {
                (Some(self.start as isize), None, false)
            }
        }
        impl IntoRange for std::ops::RangeTo<$t> {
            fn into_range(self) -> (Option<isize>, Option<isize>, bool) {
                (None, Some(self.end as isize), false)
            }
        }
        impl IntoRange for std::ops::RangeToInclusive<$t> {
            fn into_range(self) -> (Option<isize>, Option<isize>, bool) {
                (None, Some(self.end as isize), true)
            }
        }
        range_index!($t: Range, RangeInclusive, RangeFrom, RangeTo, RangeToInclusive);
    )*};
}
index_from_int!(i32, i64, isize, usize);

impl IntoRange for std::ops::RangeFull {
    fn into_range(self) -> (Option<isize>, Option<isize>, bool) {
        (None, None, false)
    }
}
impl From<std::ops::RangeFull> for Index {
    fn from(_: std::ops::RangeFull) -> Index {
        Index::all()
    }
}

/// Build an index spec (an array `[Index; N]`, on the stack: every op that
/// takes a spec takes `impl AsRef<[Index]>`, so an array, a slice or a `Vec`
/// all serve) with Rust syntax: an integer selects
/// (`I`), a range is `R` (`a..b`, `a..`, `..b`, `a..=b`, `..`), `range; step`
/// gives a step (negative steps walk backwards, NumPy-style: `4..0;-1`,
/// `..;-1`), an array or `Vec` of integers is a fancy index (`L`), and
/// [`NewAxis`] inserts a size-1 axis (`N`).
///
/// ```
/// use rnx::{s, Tensor, DType};
/// let t = Tensor::arange(DType::I32, 0, 24, 1).unwrap().reshape(&[2, 3, 4]).unwrap();
/// let v = t.slice(s![1, .., 0..4;2]).unwrap();
/// assert_eq!(v.to_string(), "[[12, 14],\n [16, 18],\n [20, 22]]");
/// assert_eq!(t.slice(s![-1, -1, ..;-1]).unwrap().to_string(), "[23, 22, 21, 20]");
/// ```
#[macro_export]
macro_rules! s {
    (@one $e:expr) => {
        $crate::ops::index::Index::from($e)
    };
    (@one $e:expr; $st:expr) => {
        $crate::ops::index::Index::stepped($e, $st)
    };
    () => {{
        let v: [$crate::ops::index::Index; 0] = [];
        v
    }};
    ($($e:expr $(; $st:expr)?),+ $(,)?) => {{
        // `4..0;-1` is a NumPy-style downward range, not an empty Rust range.
        #[allow(clippy::reversed_empty_ranges)]
        let v = [$($crate::s!(@one $e $(; $st)?)),+];
        v
    }};
}
