//! The two argument types of the conventions: [`Axes`] (an optional list of
//! signed axes, what every axis-list parameter takes) and [`NewShape`] (a shape
//! that may hold one `-1`, taken only by `reshape`, `expand` and `unflatten`).
//! Conversions and validation only; no tensor code lives here.

use crate::dims::Dims;
use crate::error::{Error, Result};
use crate::layout::normalize_axis;

/// A list of axes, or the operation's default. Every parameter that names a
/// set of axes takes `impl Into<Axes>`, so all of these work:
///
/// | argument | meaning |
/// |---|---|
/// | `None` | the operation's default (all axes for reductions and `flip`, the last axis for `softmax`, reversed order for `transpose`, every size-1 axis for `squeeze`) |
/// | `Axes::all()` | every axis, in order |
/// | `1`, `-1` | one axis |
/// | `[0, 1]`, `&[0, 1]`, `&v[..]`, `v`, `&v` (`v: Vec<isize>`) | the listed axes |
///
/// Axes are `isize`: negative values count from the end (`-1` is the last).
/// Out-of-range or repeated axes are errors that name the operation.
///
/// ```
/// use rnx::{Axes, Tensor, DType};
/// let x = Tensor::create(DType::F32, &[2, 3], &[1., 2., 3., 4., 5., 6.]).unwrap();
/// assert_eq!(x.sum(None, false).unwrap().item_f64().unwrap(), 21.0);
/// assert_eq!(x.sum(Axes::all(), false).unwrap().item_f64().unwrap(), 21.0);
/// assert_eq!(x.sum(0, false).unwrap().to_vec_f64().unwrap(), vec![5., 7., 9.]);
/// assert_eq!(x.sum([-1], false).unwrap().to_vec_f64().unwrap(), vec![6., 15.]);
/// let v: Vec<isize> = vec![0, 1];
/// assert_eq!(x.sum(&v, false).unwrap().item_f64().unwrap(), 21.0);
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub struct Axes(Repr);

#[derive(Clone, Debug, PartialEq, Eq, Default)]
enum Repr {
    #[default]
    Default,
    All,
    List(Dims<isize>),
}

impl Axes {
    /// Every axis, in order (`0..ndim`).
    pub fn all() -> Axes {
        Axes(Repr::All)
    }

    /// The operation's default (what `None` converts to).
    pub fn default_axes() -> Axes {
        Axes(Repr::Default)
    }

    /// Whether this is the operation's default (`None`).
    pub fn is_default(&self) -> bool {
        self.0 == Repr::Default
    }

    /// Whether this is the default (`None`) or [`Axes::all`]: no list.
    pub(crate) fn is_default_or_all(&self) -> bool {
        !matches!(self.0, Repr::List(_))
    }

    /// The listed axes as given (not normalised); `None` for the default and
    /// for [`Axes::all`].
    pub fn as_list(&self) -> Option<&[isize]> {
        match &self.0 {
            Repr::List(v) => Some(v.as_slice()),
            _ => None,
        }
    }

    /// The axes for a tensor of rank `ndim`, normalised (non-negative), in the
    /// given order; the default and [`Axes::all`] give `0..ndim`. Out-of-range
    /// and repeated axes are errors naming `op`.
    pub fn resolve(&self, op: &str, ndim: usize) -> Result<Vec<usize>> {
        Ok(self.resolve_dims(op, ndim)?.into())
    }

    /// [`Axes::resolve`] into a [`Dims`] (inline for the usual rank: no
    /// allocation).
    pub(crate) fn resolve_dims(&self, op: &str, ndim: usize) -> Result<Dims<usize>> {
        let list = match &self.0 {
            Repr::Default | Repr::All => return Ok(every_axis(ndim)),
            Repr::List(v) => v,
        };
        let mut seen = Dims::from_elem(false, ndim);
        list.iter()
            .map(|&a| {
                let u = normalize_axis(op, a, ndim)?;
                if std::mem::replace(&mut seen[u], true) {
                    return Err(Error::invalid(
                        op,
                        format!("axis {a} appears more than once in {list:?}"),
                    ));
                }
                Ok(u)
            })
            .collect()
    }

    /// [`Axes::resolve`], sorted ascending.
    pub fn resolve_sorted(&self, op: &str, ndim: usize) -> Result<Vec<usize>> {
        Ok(self.resolve_sorted_dims(op, ndim)?.into())
    }

    /// [`Axes::resolve_sorted`] into a [`Dims`] (no allocation for the usual
    /// rank).
    pub(crate) fn resolve_sorted_dims(&self, op: &str, ndim: usize) -> Result<Dims<usize>> {
        let mut v = self.resolve_dims(op, ndim)?;
        // The default, `Axes::all()` and most lists come sorted already.
        if !v.is_sorted() {
            v.sort_unstable();
        }
        Ok(v)
    }
}

/// `0..ndim` (inline, without a push per axis, for the usual rank).
#[inline]
fn every_axis(ndim: usize) -> Dims<usize> {
    if ndim <= crate::dims::INLINE {
        let mut buf = [0usize; crate::dims::INLINE];
        for (i, b) in buf.iter_mut().enumerate() {
            *b = i;
        }
        return Dims::from_inline(buf, ndim);
    }
    (0..ndim).collect()
}

impl From<isize> for Axes {
    fn from(a: isize) -> Axes {
        Axes(Repr::List(Dims::from_slice(&[a])))
    }
}
impl From<&[isize]> for Axes {
    fn from(a: &[isize]) -> Axes {
        Axes(Repr::List(Dims::from_slice(a)))
    }
}
impl<const N: usize> From<[isize; N]> for Axes {
    fn from(a: [isize; N]) -> Axes {
        Axes(Repr::List(Dims::from_slice(&a[..])))
    }
}
impl<const N: usize> From<&[isize; N]> for Axes {
    fn from(a: &[isize; N]) -> Axes {
        Axes(Repr::List(Dims::from_slice(&a[..])))
    }
}
impl From<Vec<isize>> for Axes {
    fn from(a: Vec<isize>) -> Axes {
        Axes(Repr::List(a.into()))
    }
}
impl From<&Vec<isize>> for Axes {
    fn from(a: &Vec<isize>) -> Axes {
        Axes(Repr::List(Dims::from_slice(a)))
    }
}
/// `None` is the operation's default; `Some(list)` the list.
impl From<Option<&[isize]>> for Axes {
    fn from(a: Option<&[isize]>) -> Axes {
        match a {
            None => Axes(Repr::Default),
            Some(a) => a.into(),
        }
    }
}
impl From<&Axes> for Axes {
    fn from(a: &Axes) -> Axes {
        a.clone()
    }
}

/// A target shape for `reshape`, `expand` and `unflatten`, the only operations
/// that infer a dimension (Nx's `-1`). Everywhere else a shape is `&[usize]`.
///
/// Build it from what you have: `&[usize]` (e.g. another tensor's `shape()`),
/// `[usize; N]`, `Vec<usize>`, or the signed forms `&[isize]`, `[isize; N]`,
/// `Vec<isize>` (and integer literals such as `[3, -1]`), where one entry may be
/// `-1`: inferred from the element count in `reshape`/`unflatten`, "keep this
/// dimension" in `expand`. Any other negative value, or a second `-1` where one
/// is inferred, is an error naming the operation and the shape.
///
/// ```
/// use rnx::{Tensor, DType};
/// let t = Tensor::arange(DType::I32, 0, 6, 1).unwrap();
/// assert_eq!(t.reshape([2, 3]).unwrap().shape(), &[2, 3]);
/// assert_eq!(t.reshape([3, -1]).unwrap().shape(), &[3, 2]);
/// let like = Tensor::zeros(DType::I32, &[6, 1]).unwrap();
/// assert_eq!(t.reshape(like.shape()).unwrap().shape(), &[6, 1]);
/// let e = t.reshape([2, 3]).unwrap().reshape([-1, -1]).unwrap_err();
/// assert!(e.to_string().contains("reshape"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NewShape(ShapeRepr);

#[derive(Clone, Debug, PartialEq, Eq)]
enum ShapeRepr {
    Known(Vec<usize>),
    Signed(Vec<isize>),
}

impl NewShape {
    /// The entries for `op`: `Some(d)` a known dimension, `None` a `-1`. Any
    /// other negative value is an error naming `op`.
    pub(crate) fn entries(&self, op: &str) -> Result<Vec<Option<usize>>> {
        match &self.0 {
            ShapeRepr::Known(v) => Ok(v.iter().map(|&d| Some(d)).collect()),
            ShapeRepr::Signed(v) => v
                .iter()
                .map(|&d| match d {
                    -1 => Ok(None),
                    d if d < 0 => Err(Error::invalid(
                        op,
                        format!("shape {v:?} has a negative dimension {d} (only -1 is allowed)"),
                    )),
                    d => Ok(Some(d as usize)),
                })
                .collect(),
        }
    }

    /// Number of entries.
    pub fn len(&self) -> usize {
        match &self.0 {
            ShapeRepr::Known(v) => v.len(),
            ShapeRepr::Signed(v) => v.len(),
        }
    }

    /// Whether the shape has no entries (a rank-0 target).
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The shape resolved against `numel` elements (at most one `-1`, which is
    /// inferred); `from` is the source shape, for messages.
    pub(crate) fn infer(&self, op: &str, numel: usize, from: &[usize]) -> Result<Vec<usize>> {
        let entries = self.entries(op)?;
        if entries.iter().filter(|d| d.is_none()).count() > 1 {
            return Err(Error::invalid(
                op,
                format!("shape {self} has more than one -1"),
            ));
        }
        let mut known = 1usize;
        for d in entries.iter().flatten() {
            known = known
                .checked_mul(*d)
                .ok_or_else(|| Error::invalid(op, format!("shape {self} has too many elements")))?;
        }
        let bad = || {
            Error::invalid(
                op,
                format!("cannot reshape {from:?} ({numel} elements) to {self}"),
            )
        };
        let inferred = match entries.iter().any(|d| d.is_none()) {
            true if known == 0 || !numel.is_multiple_of(known) => return Err(bad()),
            true => numel / known,
            false if known != numel => return Err(bad()),
            false => 0,
        };
        Ok(entries.iter().map(|d| d.unwrap_or(inferred)).collect())
    }
}

impl std::fmt::Display for NewShape {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.0 {
            ShapeRepr::Known(v) => write!(f, "{v:?}"),
            ShapeRepr::Signed(v) => write!(f, "{v:?}"),
        }
    }
}

macro_rules! new_shape_from {
    ($variant:ident, $conv:expr, $($t:ty),*) => {$(
        impl From<&[$t]> for NewShape {
            fn from(v: &[$t]) -> NewShape {
                NewShape(ShapeRepr::$variant(v.iter().map(|&d| $conv(d)).collect()))
            }
        }
        impl<const N: usize> From<[$t; N]> for NewShape {
            fn from(v: [$t; N]) -> NewShape {
                NewShape::from(&v[..])
            }
        }
        impl<const N: usize> From<&[$t; N]> for NewShape {
            fn from(v: &[$t; N]) -> NewShape {
                NewShape::from(&v[..])
            }
        }
        impl From<Vec<$t>> for NewShape {
            fn from(v: Vec<$t>) -> NewShape {
                NewShape::from(&v[..])
            }
        }
        impl From<&Vec<$t>> for NewShape {
            fn from(v: &Vec<$t>) -> NewShape {
                NewShape::from(&v[..])
            }
        }
    )*};
}
new_shape_from!(Known, |d: usize| d, usize);
// Signed entries; `i32` is what integer literals such as `[3, -1]` default to.
// A value past isize's range cannot be a valid dimension and maps to -2, which
// `entries` rejects.
new_shape_from!(Signed, |d: isize| d, isize);
new_shape_from!(Signed, |d: i32| isize::try_from(d).unwrap_or(-2), i32);
new_shape_from!(Signed, |d: i64| isize::try_from(d).unwrap_or(-2), i64);

impl From<&NewShape> for NewShape {
    fn from(s: &NewShape) -> NewShape {
        s.clone()
    }
}
