//! Indexing with Nx's index spec (`I` select, `L` fancy index, `R` range, `N`
//! new axis, `M` mask; the spec type and `s![..]` are in `index_spec.rs`):
//! slice, set_slice, slice_ranges, set_slice_ranges, set; and the
//! overlap-aware assignments blit and fill. Views for `I`/`R`, a backend
//! gather for `L`. Assignments validate everything, then snapshot a source that
//! overlaps its destination (copy-first semantics), then write.

pub use super::index_spec::{Index, IntoRange, NewAxis};
use super::{locked, same_device, same_dtype, unique_output};
use crate::device::Device;
use crate::dtype::Scalar;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::overlap::{same_view, tensors_overlap};
use crate::tensor::Tensor;

/// A spec resolved against a tensor: the view for the `I`/`R` entries, and the
/// `L` entries as (axis of the view, validated positions).
struct Resolved {
    view: Layout,
    gathers: Vec<(usize, Vec<isize>)>,
}

/// Start and length of a range on an axis of `size` (strict bounds).
fn range_of(
    op: &str,
    axis: usize,
    size: usize,
    start: Option<isize>,
    stop: Option<isize>,
    step: isize,
) -> Result<(usize, usize)> {
    if step == 0 {
        return Err(Error::invalid(op, format!("step 0 on axis {axis}")));
    }
    let n = size as isize;
    let (lo, hi) = if step > 0 { (0, n) } else { (-1, n - 1) };
    let norm = |v: isize| -> Result<isize> {
        let w = if v < 0 { v + n } else { v };
        // A negative-step stop of exactly -size-1 (the "before first" position)
        // normalises to -1, which is allowed below.
        if w < lo || w > hi {
            return Err(Error::IndexOutOfBounds {
                op: op.into(),
                index: v,
                axis,
                size,
            });
        }
        Ok(w)
    };
    let s = match start {
        Some(v) => norm(v)?,
        None => {
            if step > 0 {
                0
            } else {
                n - 1
            }
        }
    };
    let e = match stop {
        Some(v) => norm(v)?,
        None => {
            if step > 0 {
                n
            } else {
                -1
            }
        }
    };
    let len = if step > 0 {
        if e > s {
            (e - s + step - 1) / step
        } else {
            0
        }
    } else if s > e {
        (s - e + (-step) - 1) / (-step)
    } else {
        0
    };
    Ok((if len > 0 { s as usize } else { 0 }, len as usize))
}

/// The view of a spec of ranges only (the usual slice), built in one layout
/// in place: what [`resolve`] gives for it, with the same errors, without its
/// passes and copies. `None` for any other spec.
fn ranges_view(t: &Tensor, spec: &[Index]) -> Result<Option<Layout>> {
    if spec.len() > t.ndim() || !spec.iter().all(|ix| matches!(ix, Index::R(..))) {
        return Ok(None);
    }
    let mut view = t.layout().clone();
    for (axis, ix) in spec.iter().enumerate() {
        if let Index::R(start, stop, step) = ix {
            let size = t.shape()[axis];
            let (s, len) = range_of("slice", axis, size, *start, *stop, *step)?;
            view.slice_axis_in_place(axis, s, len, *step);
        }
    }
    Ok(Some(view))
}

fn resolve(op: &str, t: &Tensor, spec: &[Index]) -> Result<Resolved> {
    let consumed = spec.iter().filter(|ix| !matches!(ix, Index::N)).count();
    if consumed > t.ndim() {
        return Err(Error::invalid(
            op,
            format!(
                "{consumed} index entries (besides new axes) given for a tensor of rank {}",
                t.ndim()
            ),
        ));
    }
    let mut view = t.layout().clone();
    let mut gathers = Vec::new();
    let mut r = 0usize; // axis in the view being built
    let mut axis = 0usize; // axis of the input
    for ix in spec {
        // A new axis may come after the last input axis: no size then.
        let size = t.shape().get(axis).copied().unwrap_or(0);
        let check = |i: isize| -> Result<isize> {
            let j = if i < 0 { i + size as isize } else { i };
            if j < 0 || j >= size as isize {
                return Err(Error::IndexOutOfBounds {
                    op: op.into(),
                    index: i,
                    axis,
                    size,
                });
            }
            Ok(j)
        };
        match ix {
            Index::I(i) => {
                let j = check(*i)?;
                view = view.select(r, j as usize);
            }
            Index::L(v) => {
                let idx = v.iter().map(|&i| check(i)).collect::<Result<Vec<_>>>()?;
                gathers.push((r, idx));
                r += 1;
            }
            Index::M(m) => {
                let pos = super::mask::true_positions(op, m, t)?;
                if m.ndim() != 1 || m.size() != size {
                    return Err(Error::invalid(
                        op,
                        format!(
                            "mask of shape {:?} does not match axis {axis} of size {size} \
                             (an M entry is a 1-D mask as long as its axis)",
                            m.shape()
                        ),
                    ));
                }
                gathers.push((r, pos));
                r += 1;
            }
            Index::R(start, stop, step) => {
                let (s, len) = range_of(op, axis, size, *start, *stop, *step)?;
                view.slice_axis_in_place(r, s, len, *step);
                r += 1;
            }
            Index::N => {
                view = view.unsqueeze(r);
                r += 1;
                continue;
            }
        }
        axis += 1;
    }
    Ok(Resolved { view, gathers })
}

/// The shape selected by a resolved spec (the view's, with `L` axes resized).
fn target_shape(res: &Resolved) -> Vec<usize> {
    let mut shape = res.view.shape().to_vec();
    for (axis, idx) in &res.gathers {
        shape[*axis] = idx.len();
    }
    shape
}

impl Tensor {
    /// `out` gathered from `self` at positions `idx` of `axis` (validated).
    fn gather_axis(&self, axis: usize, idx: &[isize]) -> Result<Tensor> {
        let mut shape = self.shape().to_vec();
        shape[axis] = idx.len();
        let out = Tensor::empty_on(self.dtype(), &shape, self.device())?;
        let it = index_tensor(idx, self.shape()[axis], self.device())?;
        locked("slice", &[self, &it], &[&out], || {
            self.backend().gather(self, axis, &it, &out)
        })?;
        Ok(out)
    }

    /// The sub-tensor selected by an index spec (see [`Index`] and [`crate::s!`]):
    /// a view when the spec has no `L` entry, else a copy.
    ///
    /// ```
    /// use rnx::{s, Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[5], &[0, 1, 2, 3, 4]).unwrap();
    /// assert_eq!(x.slice(s![1..3]).unwrap().to_string(), "[1, 2]");
    /// assert_eq!(x.slice(s![4..0;-2]).unwrap().to_string(), "[4, 2]");
    /// assert!(x.slice(s![5]).is_err());
    /// ```
    pub fn slice(&self, spec: impl AsRef<[Index]>) -> Result<Tensor> {
        if let Some(view) = ranges_view(self, spec.as_ref())? {
            return Ok(self.with_layout(view));
        }
        let res = resolve("slice", self, spec.as_ref())?;
        let mut cur = self.with_layout(res.view);
        for (axis, idx) in &res.gathers {
            cur = cur.gather_axis(*axis, idx)?;
        }
        Ok(cur)
    }

    /// Write `value` (broadcast to the selected shape) into the sub-tensor
    /// selected by `spec`. With `L` entries each listed position is written
    /// (for a repeated position the last one wins). A `value` overlapping the
    /// destination is read as if copied first. Errors (dtype, device, shape, a
    /// destination mapping two elements to one address) come before any write.
    ///
    /// ```
    /// use rnx::{s, Tensor, DType};
    /// let x = Tensor::zeros(DType::I32, &[2, 3]).unwrap();
    /// x.set_slice(s![.., [0, 2]], &Tensor::create(DType::I32, &[2, 1], &[7, 8]).unwrap()).unwrap();
    /// assert_eq!(x.to_string(), "[[7, 0, 7],\n [8, 0, 8]]");
    /// ```
    pub fn set_slice(&self, spec: impl AsRef<[Index]>, value: &Tensor) -> Result<()> {
        let res = resolve("set_slice", self, spec.as_ref())?;
        let target = target_shape(&res);
        let gathers = res.gathers;
        assign(
            "set_slice",
            &self.with_layout(res.view),
            &target,
            &gathers,
            value,
            true,
        )
    }

    /// Nx's `slice_ranges`: `R(starts[i], stops[i], steps[i])` for the leading
    /// axes (steps default to 1); the lists must have equal lengths ≤ rank.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[3, 3], &[1, 2, 3, 4, 5, 6, 7, 8, 9]).unwrap();
    /// assert_eq!(x.slice_ranges(&[0, 1], &[2, 3], None).unwrap().to_string(), "[[2, 3],\n [5, 6]]");
    /// ```
    pub fn slice_ranges(
        &self,
        starts: &[isize],
        stops: &[isize],
        steps: Option<&[isize]>,
    ) -> Result<Tensor> {
        let spec = ranges_spec("slice_ranges", self, starts, stops, steps)?;
        self.slice(spec)
    }

    /// Nx's `set_slice_ranges`: [`Tensor::set_slice`] on the ranges of
    /// [`Tensor::slice_ranges`].
    pub fn set_slice_ranges(
        &self,
        starts: &[isize],
        stops: &[isize],
        steps: Option<&[isize]>,
        value: &Tensor,
    ) -> Result<()> {
        let spec = ranges_spec("set_slice_ranges", self, starts, stops, steps)?;
        let res = resolve("set_slice_ranges", self, &spec)?;
        let target = res.view.shape().to_vec();
        assign(
            "set_slice_ranges",
            &self.with_layout(res.view),
            &target,
            &[],
            value,
            true,
        )
    }

    /// Nx's `set`: write `value` (broadcast) into the sub-tensor [`Tensor::get`]
    /// returns for `indices`.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::zeros(DType::I32, &[2, 2]).unwrap();
    /// x.set(&[1], &Tensor::scalar(DType::I32, 4).unwrap()).unwrap();
    /// assert_eq!(x.to_string(), "[[0, 0],\n [4, 4]]");
    /// ```
    pub fn set(&self, indices: &[isize], value: &Tensor) -> Result<()> {
        let view = self.get_view("set", indices)?;
        let target = view.shape().to_vec();
        assign("set", &view, &target, &[], value, true)
    }

    /// Copy `self` into `dst` (Nx's `blit src dst`); shapes must match exactly.
    /// A source overlapping `dst` is read as if copied first.
    ///
    /// ```
    /// use rnx::{s, Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[5], &[1, 2, 3, 4, 5]).unwrap();
    /// x.slice(s![0..4]).unwrap().blit(&x.slice(s![1..5]).unwrap()).unwrap();
    /// assert_eq!(x.to_string(), "[1, 1, 2, 3, 4]");
    /// ```
    pub fn blit(&self, dst: &Tensor) -> Result<()> {
        if self.shape() != dst.shape() {
            return Err(Error::shapes(
                "blit",
                self.shape(),
                dst.shape(),
                "differ (blit needs equal shapes)",
            ));
        }
        assign("blit", dst, dst.shape(), &[], self, false)
    }

    /// Set every element to `value` in place and return this tensor (a view of
    /// the same storage). The value must be representable in the dtype; a view
    /// mapping two elements to one address is an error.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::zeros(DType::F32, &[2, 3]).unwrap();
    /// let y = x.fill(5.0).unwrap();
    /// assert!(y.same_storage(&x));
    /// assert_eq!(x.to_string(), "[[5, 5, 5],\n [5, 5, 5]]");
    /// ```
    pub fn fill(&self, value: impl Into<Scalar>) -> Result<Tensor> {
        let v = value.into().to_dtype(self.dtype(), "fill")?;
        unique_output("fill", self)?;
        if self.size() > 0 {
            locked("fill", &[], &[self], || self.backend().fill(self, v))?;
        }
        Ok(self.clone())
    }
}

fn ranges_spec(
    op: &str,
    t: &Tensor,
    starts: &[isize],
    stops: &[isize],
    steps: Option<&[isize]>,
) -> Result<Vec<Index>> {
    let n = starts.len();
    if stops.len() != n || steps.is_some_and(|s| s.len() != n) {
        return Err(Error::invalid(
            op,
            format!(
                "starts {starts:?}, stops {stops:?} and steps {:?} differ in length",
                steps.unwrap_or(&[])
            ),
        ));
    }
    if n > t.ndim() {
        return Err(Error::invalid(
            op,
            format!("{n} ranges given for a tensor of rank {}", t.ndim()),
        ));
    }
    Ok((0..n)
        .map(|i| Index::range_step(starts[i], stops[i], steps.map_or(1, |s| s[i])))
        .collect())
}

/// Write `value` into `dst` (a view of the destination before the `L` entries
/// `gathers`, whose selected shape is `target`). `broadcast`: whether `value`
/// may broadcast to `target`. All checks first, then one locked write.
fn assign(
    op: &str,
    dst: &Tensor,
    target: &[usize],
    gathers: &[(usize, Vec<isize>)],
    value: &Tensor,
    broadcast: bool,
) -> Result<()> {
    same_dtype(op, &[dst, value])?;
    same_device(op, &[dst, value])?;
    let v = if broadcast {
        value.broadcast_to(target).map_err(|_| {
            Error::shapes(
                op,
                value.shape(),
                target,
                "value cannot be broadcast to the selected shape",
            )
        })?
    } else {
        value.clone()
    };
    unique_output(op, dst)?;
    if target.contains(&0) {
        return Ok(());
    }
    // Copy-first semantics: snapshot a source that overlaps the destination,
    // unless it is exactly the destination (a true in-place copy).
    let exact = gathers.is_empty() && same_view(&v, dst);
    let v = if !exact && tensors_overlap(value, dst) {
        value.copy()?.broadcast_to(v.shape())?
    } else {
        v
    };
    locked(op, &[&v], &[dst], || write_gathered(dst, &v, gathers))
}

/// The 1-D index tensor of positions `idx` along an axis of length `len`, on
/// `device`: i32 when `len` fits (devices without 64-bit integers can read
/// it), else i64 (the [`crate::backend::IndexBackend`] contract).
pub(crate) fn index_tensor(idx: &[isize], len: usize, device: Device) -> Result<Tensor> {
    let t = if len <= i32::MAX as usize {
        let v: Vec<i32> = idx.iter().map(|&i| i as i32).collect();
        Tensor::from_slice(&v, &[v.len()])?
    } else {
        let v: Vec<i64> = idx.iter().map(|&i| i as i64).collect();
        Tensor::from_slice(&v, &[v.len()])?
    };
    t.to_device(device)
}

/// The positions `j` of the last occurrence of each distinct value of `idx`,
/// and those values, in the order of `j`.
pub(crate) fn last_occurrences(idx: &[isize]) -> (Vec<isize>, Vec<isize>) {
    let mut seen = std::collections::HashSet::with_capacity(idx.len());
    let mut kept: Vec<(isize, isize)> = idx
        .iter()
        .enumerate()
        .rev()
        .filter(|&(_, &k)| seen.insert(k))
        .map(|(j, &k)| (j as isize, k))
        .collect();
    kept.reverse();
    kept.into_iter().unzip()
}

/// Copy `v` into `dst`, expanding the `L` entries (positions along an axis of
/// `dst`) one axis at a time: a scatter along the first listed axis (of the
/// last occurrence of each repeated position: the last write wins), and for
/// further listed axes a gather of the selected slabs, written recursively,
/// then scattered back. Runs with the storages locked; the temporaries are
/// fresh tensors.
fn write_gathered(dst: &Tensor, v: &Tensor, gathers: &[(usize, Vec<isize>)]) -> Result<()> {
    let Some(((axis, idx), rest)) = gathers.split_first() else {
        return dst.backend().copy(v, dst);
    };
    let (axis, len) = (*axis, dst.shape()[*axis]);
    let (js, ks) = last_occurrences(idx);
    let fresh = |like: &Tensor, n: usize| {
        let mut shape = like.shape().to_vec();
        shape[axis] = n;
        Tensor::empty_on(like.dtype(), &shape, like.device())
    };
    let v = if js.len() < idx.len() {
        let picked = fresh(v, js.len())?;
        let ji = index_tensor(&js, v.shape()[axis], v.device())?;
        v.backend().gather(v, axis, &ji, &picked)?;
        picked
    } else {
        v.clone()
    };
    let ki = index_tensor(&ks, len, dst.device())?;
    if rest.is_empty() {
        return dst.backend().scatter(&v, axis, &ki, dst);
    }
    let slabs = fresh(dst, ks.len())?;
    dst.backend().gather(dst, axis, &ki, &slabs)?;
    write_gathered(&slabs, &v, rest)?;
    dst.backend().scatter(&slabs, axis, &ki, dst)
}
