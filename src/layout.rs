//! `Layout`: shape + signed element strides + element offset. Every view is a pure
//! function `Layout -> Layout` here (no data, no dtype, no device). Contiguity and
//! the address span of a layout live here too; exact overlap analysis is in
//! `overlap.rs`.

use crate::dims::Dims;
use crate::error::{Error, Result};

/// Shape, signed strides (in elements) and offset (in elements) of a view.
///
/// ```
/// use rnx::Layout;
/// let l = Layout::contiguous(&[2, 3]);
/// assert_eq!(l.strides(), &[3, 1]);
/// let t = l.permute(&[1, 0]).unwrap();
/// assert_eq!(t.shape(), &[3, 2]);
/// assert_eq!(t.strides(), &[1, 3]);
/// assert!(!t.is_c_contiguous());
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Layout {
    shape: Dims<usize>,
    strides: Dims<isize>,
    offset: usize,
}

/// Row-major strides of `shape`.
pub fn c_strides(shape: &[usize]) -> Vec<isize> {
    c_strides_dims(shape).into()
}

/// Row-major strides of `shape`, inline for ordinary ranks.
fn c_strides_dims(shape: &[usize]) -> Dims<isize> {
    if shape.len() <= crate::dims::INLINE {
        // The usual rank: computed in a plain array (no per-entry dispatch
        // on the vector's representation), then copied in once.
        let mut s = Dims::from_elem(0isize, shape.len());
        let mut acc = 1isize;
        for i in (0..shape.len()).rev() {
            s[i] = acc;
            acc = acc.saturating_mul(shape[i].max(1) as isize);
        }
        return s;
    }
    let mut s = Dims::from_elem(0isize, shape.len());
    let mut acc = 1isize;
    for i in (0..shape.len()).rev() {
        s[i] = acc;
        acc = acc.saturating_mul(shape[i].max(1) as isize);
    }
    s
}

/// Number of elements of `shape` (1 for rank 0), or an error on overflow.
pub fn checked_numel(op: &str, shape: &[usize]) -> Result<usize> {
    shape.iter().try_fold(1usize, |acc, &d| {
        acc.checked_mul(d)
            .filter(|&n| n <= isize::MAX as usize)
            .ok_or_else(|| Error::invalid(op, format!("shape {shape:?} has too many elements")))
    })
}

/// Resolve a possibly negative axis against `ndim`.
pub fn normalize_axis(op: &str, axis: isize, ndim: usize) -> Result<usize> {
    let n = ndim as isize;
    let a = if axis < 0 { axis + n } else { axis };
    if a < 0 || a >= n {
        return Err(Error::AxisOutOfRange {
            op: op.to_string(),
            axis,
            ndim,
        });
    }
    Ok(a as usize)
}

impl Layout {
    /// A row-major layout of `shape` at offset 0.
    #[inline(always)]
    pub fn contiguous(shape: &[usize]) -> Layout {
        let n = shape.len();
        if n <= crate::dims::INLINE {
            // The usual rank: shape and strides built in two plain arrays in
            // one loop (every op's fresh output takes this path).
            let mut sh = [0usize; crate::dims::INLINE];
            let mut st = [0isize; crate::dims::INLINE];
            let mut acc = 1isize;
            for i in (0..crate::dims::INLINE).rev() {
                if i < n {
                    sh[i] = shape[i];
                    st[i] = acc;
                    acc = acc.saturating_mul(shape[i].max(1) as isize);
                }
            }
            return Layout {
                shape: Dims::from_inline(sh, n),
                strides: Dims::from_inline(st, n),
                offset: 0,
            };
        }
        Layout::contiguous_long(shape)
    }

    /// [`Layout::contiguous`] above the inline rank (not inlined).
    fn contiguous_long(shape: &[usize]) -> Layout {
        Layout {
            shape: Dims::from_slice(shape),
            strides: c_strides_dims(shape),
            offset: 0,
        }
    }

    /// A layout from parts. The caller guarantees that every element lies inside
    /// the buffer it will be used with (checked where tensors are built from it).
    pub fn new(shape: Vec<usize>, strides: Vec<isize>, offset: usize) -> Layout {
        assert_eq!(shape.len(), strides.len(), "Layout::new: rank mismatch");
        Layout {
            shape: shape.into(),
            strides: strides.into(),
            offset,
        }
    }

    /// [`Layout::new`] from slices (no allocation for ranks up to
    /// [`crate::dims::INLINE`]).
    pub fn from_slices(shape: &[usize], strides: &[isize], offset: usize) -> Layout {
        assert_eq!(
            shape.len(),
            strides.len(),
            "Layout::from_slices: rank mismatch"
        );
        Layout {
            shape: Dims::from_slice(shape),
            strides: Dims::from_slice(strides),
            offset,
        }
    }

    /// The dimensions.
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }
    /// Strides in elements (may be negative or zero).
    pub fn strides(&self) -> &[isize] {
        &self.strides
    }
    /// Offset of element `[0, 0, ...]` in elements.
    pub fn offset(&self) -> usize {
        self.offset
    }
    /// Rank.
    pub fn ndim(&self) -> usize {
        self.shape.len()
    }
    /// Number of elements.
    pub fn numel(&self) -> usize {
        self.shape.iter().product()
    }

    /// Row-major contiguous (size-1 axes may have any stride).
    #[inline]
    pub fn is_c_contiguous(&self) -> bool {
        // One pass: a zero dimension anywhere makes any strides contiguous,
        // so a stride mismatch is only remembered until the end.
        let (shape, strides) = (self.shape(), self.strides());
        let mut expected = 1isize;
        let mut ok = true;
        for (&d, &s) in shape.iter().zip(strides).rev() {
            if d == 0 {
                return true;
            }
            if d != 1 {
                ok &= s == expected;
                expected = expected.wrapping_mul(d as isize);
            }
        }
        ok
    }

    /// Element offset of a multi-index (no bounds check beyond debug).
    pub fn index_offset(&self, idx: &[usize]) -> usize {
        debug_assert_eq!(idx.len(), self.ndim());
        let mut off = self.offset as isize;
        for (i, &x) in idx.iter().enumerate() {
            off += x as isize * self.strides[i];
        }
        off as usize
    }

    /// Smallest and one-past-largest element offsets touched; `None` when empty.
    pub fn span(&self) -> Option<(usize, usize)> {
        if self.numel() == 0 {
            return None;
        }
        let mut lo = self.offset as isize;
        let mut hi = self.offset as isize;
        for (&d, &s) in self.shape.iter().zip(&self.strides) {
            let ext = (d as isize - 1) * s;
            if ext < 0 {
                lo += ext;
            } else {
                hi += ext;
            }
        }
        Some((lo as usize, hi as usize + 1))
    }

    /// Whether every element lies in a buffer of `len` elements.
    pub fn fits_in(&self, len: usize) -> bool {
        match self.span() {
            None => true,
            Some((lo, hi)) => {
                let lo_ok = {
                    // lo computed in isize could have been negative before the cast.
                    let mut l = self.offset as isize;
                    for (&d, &s) in self.shape.iter().zip(&self.strides) {
                        if s < 0 {
                            l += (d as isize - 1) * s;
                        }
                    }
                    l >= 0
                };
                lo_ok && lo <= hi && hi <= len
            }
        }
    }

    /// Reorder axes: result axis `i` is input axis `perm[i]`.
    pub fn permute(&self, perm: &[usize]) -> Result<Layout> {
        let n = self.ndim();
        let mut seen: Dims<bool> = Dims::from_elem(false, n);
        if perm.len() != n
            || perm
                .iter()
                .any(|&p| p >= n || std::mem::replace(&mut seen[p], true))
        {
            return Err(Error::invalid(
                "transpose",
                format!("axes {perm:?} are not a permutation of 0..{n}"),
            ));
        }
        Ok(Layout {
            shape: perm.iter().map(|&p| self.shape[p]).collect(),
            strides: perm.iter().map(|&p| self.strides[p]).collect(),
            offset: self.offset,
        })
    }

    /// Broadcast to `shape` (align right; each dim equal or 1) with stride-0 axes.
    pub fn broadcast_to(&self, shape: &[usize]) -> Result<Layout> {
        let n = shape.len();
        let m = self.ndim();
        let err = || {
            Error::shapes(
                "broadcast_to",
                &self.shape,
                shape,
                "are not broadcast-compatible",
            )
        };
        if m > n {
            return Err(err());
        }
        let mut strides = Dims::from_elem(0isize, n);
        for i in 0..m {
            let (d, s) = (self.shape[m - 1 - i], self.strides[m - 1 - i]);
            let t = shape[n - 1 - i];
            if d == t {
                strides[n - 1 - i] = if d == 1 { 0 } else { s };
            } else if d == 1 {
                strides[n - 1 - i] = 0;
            } else {
                return Err(err());
            }
        }
        Ok(Layout {
            shape: Dims::from_slice(shape),
            strides,
            offset: self.offset,
        })
    }

    /// Reverse `axis` (negative stride, offset moved to the last element).
    pub fn flip_axis(&self, axis: usize) -> Layout {
        let mut l = self.clone();
        let d = l.shape[axis];
        if d > 1 {
            l.offset = (l.offset as isize + (d as isize - 1) * l.strides[axis]) as usize;
        }
        l.strides[axis] = -l.strides[axis];
        l
    }

    /// Take `len` elements of `axis` starting at `start` with `step` (step != 0;
    /// the caller checked the range).
    pub fn slice_axis(&self, axis: usize, start: usize, len: usize, step: isize) -> Layout {
        let mut l = self.clone();
        l.slice_axis_in_place(axis, start, len, step);
        l
    }

    /// [`Layout::slice_axis`] applied to this layout.
    pub fn slice_axis_in_place(&mut self, axis: usize, start: usize, len: usize, step: isize) {
        if len > 0 {
            self.offset = (self.offset as isize + start as isize * self.strides[axis]) as usize;
        }
        self.shape[axis] = len;
        self.strides[axis] *= step;
    }

    /// Select index `i` of `axis` and drop the axis.
    pub fn select(&self, axis: usize, i: usize) -> Layout {
        let mut l = self.clone();
        l.offset = (l.offset as isize + i as isize * l.strides[axis]) as usize;
        l.shape.remove(axis);
        l.strides.remove(axis);
        l
    }

    /// Insert a size-1 axis at `axis` (0..=ndim).
    pub fn unsqueeze(&self, axis: usize) -> Layout {
        let mut l = self.clone();
        let s = if axis < l.ndim() {
            l.strides[axis] * l.shape[axis] as isize
        } else {
            1
        };
        l.shape.insert(axis, 1);
        l.strides.insert(axis, s);
        l
    }

    /// Remove the size-1 axis `axis`.
    pub fn squeeze(&self, axis: usize) -> Layout {
        let mut l = self.clone();
        debug_assert_eq!(l.shape[axis], 1);
        l.shape.remove(axis);
        l.strides.remove(axis);
        l
    }

    /// The same elements with a new shape as a view, if the strides allow it
    /// (NumPy's `_attempt_nocopy_reshape`); `None` when a copy is needed.
    pub fn reshape(&self, shape: &[usize]) -> Option<Layout> {
        let numel: usize = shape.iter().product();
        if numel != self.numel() {
            return None;
        }
        // An empty view has no addresses to preserve: any strides will do.
        if numel == 0 || self.is_c_contiguous() {
            return Some(Layout {
                shape: Dims::from_slice(shape),
                strides: c_strides_dims(shape),
                offset: self.offset,
            });
        }
        // Drop size-1 axes of the old layout, then match groups of axes.
        let old: Vec<(usize, isize)> = self
            .shape
            .iter()
            .zip(&self.strides)
            .filter(|&(&d, _)| d != 1)
            .map(|(&d, &s)| (d, s))
            .collect();
        let mut new_strides = Dims::from_elem(0isize, shape.len());
        let (mut oi, mut ni) = (0usize, 0usize);
        let (on, nn) = (old.len(), shape.len());
        while ni < nn && oi < on {
            // Grow groups [oi, oj) and [ni, nj) until their products agree.
            let (mut oj, mut nj) = (oi + 1, ni + 1);
            let mut op = old[oi].0;
            let mut np = shape[ni];
            while op != np {
                if np < op {
                    np *= shape[nj];
                    nj += 1;
                } else {
                    op *= old[oj].0;
                    oj += 1;
                }
            }
            // The old group must be contiguous within itself.
            for k in oi..oj - 1 {
                if old[k].1 != old[k + 1].1 * old[k + 1].0 as isize {
                    return None;
                }
            }
            // Strides of the new group, from the innermost old stride.
            let mut s = old[oj - 1].1;
            for k in (ni..nj).rev() {
                new_strides[k] = s;
                s *= shape[k] as isize;
            }
            oi = oj;
            ni = nj;
        }
        // Trailing size-1 axes of the new shape.
        for s in &mut new_strides[ni..nn] {
            *s = 1;
        }
        Some(Layout {
            shape: Dims::from_slice(shape),
            strides: new_strides,
            offset: self.offset,
        })
    }

    /// Whether two elements of this layout share an address (a stride-0 or
    /// otherwise self-overlapping layout). Proven without workspace by sorting the
    /// axes by |stride|: the layout is unique when each |stride| exceeds the
    /// extent of all smaller-stride axes together; only when that proof fails is
    /// the exact bounded search of `overlap.rs` used.
    pub fn has_internal_overlap(&self) -> bool {
        crate::overlap::internal_overlap(self)
    }
}
