//! `Dims<T>`: a small vector of plain values (dimensions, strides, axis lists)
//! stored inline up to [`INLINE`] entries and on the heap beyond, so that the
//! layouts and traversal plans of ordinary tensors (rank <= 6) allocate
//! nothing. Derefs to a slice; compares, hashes and prints like one. No
//! tensor or layout logic lives here.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::ops::{Deref, DerefMut};

/// Entries held without a heap allocation.
pub const INLINE: usize = 6;

/// A vector of `Copy` values, inline up to [`INLINE`] entries.
///
/// ```
/// use rnx::Dims;
/// let mut d: Dims<usize> = Dims::from_slice(&[2, 3]);
/// d.push(4);
/// d.insert(0, 1);
/// assert_eq!(&d[..], &[1, 2, 3, 4]);
/// assert_eq!(d.remove(1), 2);
/// assert_eq!(d, vec![1, 3, 4]);
/// let big: Dims<usize> = (0..10).collect();
/// assert_eq!(big.len(), 10);
/// ```
#[derive(Clone)]
pub struct Dims<T: Copy + Default> {
    repr: Repr<T>,
}

#[derive(Clone)]
enum Repr<T: Copy + Default> {
    Inline { len: usize, buf: [T; INLINE] },
    Heap(Vec<T>),
}

impl<T: Copy + Default> Dims<T> {
    /// An empty vector (no allocation).
    #[inline]
    pub fn new() -> Dims<T> {
        Dims {
            repr: Repr::Inline {
                len: 0,
                buf: [T::default(); INLINE],
            },
        }
    }

    /// A copy of `s` (inline when it fits).
    #[inline]
    pub fn from_slice(s: &[T]) -> Dims<T> {
        if s.len() <= INLINE {
            // A fixed-length loop, not a `copy_from_slice` of variable length:
            // that becomes a `memcpy` call whose narrow stores the next move of
            // the `Dims` reads back with wide loads (a store-forwarding stall
            // on every layout built).
            let mut buf = [T::default(); INLINE];
            for (i, b) in buf.iter_mut().enumerate() {
                if i < s.len() {
                    *b = s[i];
                }
            }
            Dims {
                repr: Repr::Inline { len: s.len(), buf },
            }
        } else {
            Dims {
                repr: Repr::Heap(s.to_vec()),
            }
        }
    }

    /// The first `len` (<= [`INLINE`]) entries of `buf`, held inline (no
    /// copy loop: the array moves in whole).
    #[inline]
    pub(crate) fn from_inline(buf: [T; INLINE], len: usize) -> Dims<T> {
        debug_assert!(len <= INLINE);
        Dims {
            repr: Repr::Inline { len, buf },
        }
    }

    /// `n` copies of `v`.
    #[inline]
    pub fn from_elem(v: T, n: usize) -> Dims<T> {
        if n <= INLINE {
            Dims {
                repr: Repr::Inline {
                    len: n,
                    buf: [v; INLINE],
                },
            }
        } else {
            Dims {
                repr: Repr::Heap(vec![v; n]),
            }
        }
    }

    /// The entries.
    #[inline]
    pub fn as_slice(&self) -> &[T] {
        match &self.repr {
            Repr::Inline { len, buf } => &buf[..*len],
            Repr::Heap(v) => v,
        }
    }

    /// The entries, mutable.
    #[inline]
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        match &mut self.repr {
            Repr::Inline { len, buf } => &mut buf[..*len],
            Repr::Heap(v) => v,
        }
    }

    /// Move the entries to the heap (before growing past [`INLINE`]).
    fn spill(&mut self) -> &mut Vec<T> {
        if let Repr::Inline { len, buf } = &self.repr {
            let mut v = Vec::with_capacity(INLINE * 2);
            v.extend_from_slice(&buf[..*len]);
            self.repr = Repr::Heap(v);
        }
        match &mut self.repr {
            Repr::Heap(v) => v,
            Repr::Inline { .. } => unreachable!("spilled just above"),
        }
    }

    /// Append `v`.
    #[inline]
    pub fn push(&mut self, v: T) {
        match &mut self.repr {
            Repr::Inline { len, buf } if (*len) < INLINE => {
                buf[*len] = v;
                *len += 1;
            }
            _ => self.spill().push(v),
        }
    }

    /// Insert `v` at `index` (<= len), shifting the later entries.
    pub fn insert(&mut self, index: usize, v: T) {
        match &mut self.repr {
            Repr::Inline { len, buf } if (*len) < INLINE => {
                let n = *len;
                assert!(index <= n, "Dims::insert: index {index} > len {n}");
                buf.copy_within(index..n, index + 1);
                buf[index] = v;
                *len += 1;
            }
            _ => self.spill().insert(index, v),
        }
    }

    /// Remove and return the entry at `index` (< len).
    pub fn remove(&mut self, index: usize) -> T {
        match &mut self.repr {
            Repr::Inline { len, buf } => {
                let n = *len;
                assert!(index < n, "Dims::remove: index {index} >= len {n}");
                let v = buf[index];
                buf.copy_within(index + 1..n, index);
                *len -= 1;
                v
            }
            Repr::Heap(v) => v.remove(index),
        }
    }

    /// Remove and return the last entry.
    pub fn pop(&mut self) -> Option<T> {
        match &mut self.repr {
            Repr::Inline { len, buf } => {
                if *len == 0 {
                    None
                } else {
                    *len -= 1;
                    Some(buf[*len])
                }
            }
            Repr::Heap(v) => v.pop(),
        }
    }

    /// Keep the first `n` entries.
    pub fn truncate(&mut self, n: usize) {
        match &mut self.repr {
            Repr::Inline { len, .. } => *len = (*len).min(n),
            Repr::Heap(v) => v.truncate(n),
        }
    }

    /// Whether the entries live on the heap (more than [`INLINE`] of them at
    /// some point).
    pub fn spilled(&self) -> bool {
        matches!(self.repr, Repr::Heap(_))
    }
}

impl<T: Copy + Default> Default for Dims<T> {
    fn default() -> Self {
        Dims::new()
    }
}

impl<T: Copy + Default> Deref for Dims<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: Copy + Default> DerefMut for Dims<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        self.as_mut_slice()
    }
}

impl<T: Copy + Default> AsRef<[T]> for Dims<T> {
    fn as_ref(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: Copy + Default> std::borrow::Borrow<[T]> for Dims<T> {
    fn borrow(&self) -> &[T] {
        self.as_slice()
    }
}

impl<T: Copy + Default> From<&[T]> for Dims<T> {
    fn from(s: &[T]) -> Self {
        Dims::from_slice(s)
    }
}

impl<T: Copy + Default> From<Vec<T>> for Dims<T> {
    fn from(v: Vec<T>) -> Self {
        if v.len() <= INLINE {
            Dims::from_slice(&v)
        } else {
            Dims {
                repr: Repr::Heap(v),
            }
        }
    }
}

impl<T: Copy + Default> From<Dims<T>> for Vec<T> {
    fn from(d: Dims<T>) -> Self {
        match d.repr {
            Repr::Heap(v) => v,
            Repr::Inline { len, buf } => buf[..len].to_vec(),
        }
    }
}

impl<T: Copy + Default> FromIterator<T> for Dims<T> {
    #[inline]
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut buf = [T::default(); INLINE];
        let mut it = iter.into_iter();
        for len in 0..=INLINE {
            let Some(v) = it.next() else {
                return Dims {
                    repr: Repr::Inline { len, buf },
                };
            };
            if len == INLINE {
                let mut heap = Vec::with_capacity(INLINE * 2);
                heap.extend_from_slice(&buf);
                heap.push(v);
                heap.extend(it);
                return Dims {
                    repr: Repr::Heap(heap),
                };
            }
            buf[len] = v;
        }
        unreachable!("the loop returns by its last iteration")
    }
}

impl<T: Copy + Default> Extend<T> for Dims<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for v in iter {
            self.push(v);
        }
    }
}

impl<'a, T: Copy + Default> IntoIterator for &'a Dims<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.as_slice().iter()
    }
}

impl<T: Copy + Default + fmt::Debug> fmt::Debug for Dims<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_slice(), f)
    }
}

impl<T: Copy + Default + PartialEq> PartialEq for Dims<T> {
    #[inline]
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Copy + Default + Eq> Eq for Dims<T> {}

impl<T: Copy + Default + PartialEq> PartialEq<[T]> for Dims<T> {
    fn eq(&self, other: &[T]) -> bool {
        self.as_slice() == other
    }
}

impl<T: Copy + Default + PartialEq> PartialEq<&[T]> for Dims<T> {
    fn eq(&self, other: &&[T]) -> bool {
        self.as_slice() == *other
    }
}

impl<T: Copy + Default + PartialEq> PartialEq<Vec<T>> for Dims<T> {
    fn eq(&self, other: &Vec<T>) -> bool {
        self.as_slice() == other.as_slice()
    }
}

impl<T: Copy + Default + Hash> Hash for Dims<T> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.as_slice().hash(state)
    }
}

#[cfg(feature = "internal-tests")]
pub(crate) mod tests {
    use super::*;

    /// Every operation against `Vec` over lengths around the inline capacity.
    pub(crate) fn matches_vec_around_the_inline_capacity() {
        for n in 0..=INLINE + 3 {
            let v: Vec<i64> = (0..n as i64).map(|i| i * 7 - 3).collect();
            let d: Dims<i64> = Dims::from_slice(&v);
            assert_eq!(d, v);
            assert_eq!(d.spilled(), n > INLINE);
            assert_eq!(Dims::from(v.clone()), v);
            assert_eq!(v.iter().copied().collect::<Dims<i64>>(), v);
            assert_eq!(Vec::from(d.clone()), v);
            assert_eq!(format!("{d:?}"), format!("{v:?}"));
            for i in 0..=n {
                let (mut a, mut b) = (d.clone(), v.clone());
                a.insert(i, 99);
                b.insert(i, 99);
                assert_eq!(a, b);
                if i < n {
                    let (mut a, mut b) = (d.clone(), v.clone());
                    assert_eq!(a.remove(i), b.remove(i));
                    assert_eq!(a, b);
                }
                let (mut a, mut b) = (d.clone(), v.clone());
                a.truncate(i);
                b.truncate(i);
                assert_eq!(a, b);
            }
            let (mut a, mut b) = (d.clone(), v.clone());
            a.push(5);
            b.push(5);
            assert_eq!(a, b);
            assert_eq!(a.pop(), b.pop());
            assert_eq!(a.pop(), b.pop());
            assert_eq!(a, b);
            assert_eq!(Dims::from_elem(4i64, n), vec![4i64; n]);
        }
    }

    pub(crate) fn hashes_like_a_slice() {
        use std::collections::hash_map::DefaultHasher;
        let h = |x: &dyn Fn(&mut DefaultHasher)| {
            let mut s = DefaultHasher::new();
            x(&mut s);
            s.finish()
        };
        let d: Dims<usize> = Dims::from_slice(&[3, 1, 4]);
        let v = vec![3usize, 1, 4];
        assert_eq!(h(&|s| d.hash(s)), h(&|s| v.as_slice().hash(s)));
    }
}
