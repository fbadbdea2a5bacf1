//! Selection with u8 masks (0 false, non-zero true): `nonzero`, `argwhere`,
//! `extract`, `compress` and the masked assignment `set_mask` (NumPy's
//! `a[mask] = v`). The mask is read on the host (mask compaction is
//! data-dependent: a parallel count pass, then each chunk's positions written
//! at its offset); the data moves through the backend's gather and scatter,
//! so every dtype and device works. On other devices than the CPU,
//! `nonzero`, `argwhere`, `extract`, `compress` and `set_mask` compact on
//! the device instead (a stable argsort of the zero flags puts the non-zero
//! positions first, in order; one count is read back), so neither the mask
//! nor the positions cross to the host.

use super::take::{flat, gather_at, gather_pos, one_axis, write_flat, write_pos};
use super::{same_device, same_dtype};
use crate::backend::cpu::strided::SendPtr;
use crate::backend::cpu::team;
use crate::device::Device;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::c_strides;
use crate::tensor::Tensor;

/// Mask elements per parallel chunk of [`compact`].
const CHUNK: usize = 1 << 16;

/// The positions `i` (as `T`) where `m[i] != 0`, in order: a parallel count
/// pass per chunk, then each chunk written branch-free at its offset into the
/// `total`-element buffer that `alloc(total)` returns (a fresh `Vec`, or a
/// fresh tensor's memory).
fn compact<T: Copy + Default + Send + Sync>(
    m: &[u8],
    conv: fn(usize) -> T,
    alloc: impl FnOnce(usize) -> Result<*mut T>,
) -> Result<usize> {
    let chunks = m.len().div_ceil(CHUNK);
    let mut counts = vec![0usize; chunks];
    let cp = SendPtr(counts.as_mut_ptr());
    team::for_each_chunk(chunks, &|c| {
        let s = &m[c * CHUNK..((c + 1) * CHUNK).min(m.len())];
        let n: usize = s.iter().map(|&b| (b != 0) as usize).sum();
        // SAFETY: chunk c writes only its own count.
        unsafe { *cp.get().add(c) = n };
    });
    let mut total = 0usize;
    for c in counts.iter_mut() {
        let n = *c;
        *c = total;
        total += n;
    }
    let out = SendPtr(alloc(total)?);
    if total == 0 {
        return Ok(0);
    }
    team::for_each_chunk(chunks, &|c| {
        let start = c * CHUNK;
        let s = &m[start..(start + CHUNK).min(m.len())];
        let mut at = counts[c];
        let mut buf = [T::default(); 1024];
        for (b, block) in s.chunks(1024).enumerate() {
            let base = start + b * 1024;
            let mut w = 0usize;
            for (i, &v) in block.iter().enumerate() {
                // w <= i < 1024: in bounds.
                buf[w] = conv(base + i);
                w += (v != 0) as usize;
            }
            // SAFETY: chunk c owns output positions counts[c]..counts[c] +
            // its count (the prefix sums above), inside the `total` elements.
            unsafe { std::ptr::copy_nonoverlapping(buf.as_ptr(), out.get().add(at), w) };
            at += w;
        }
    });
    Ok(total)
}

/// `f` over the host bytes of the u8 `mask` in row-major order: borrowed
/// when the mask is a contiguous CPU tensor, else copied.
fn with_mask_bytes<R>(mask: &Tensor, f: impl FnOnce(&[u8]) -> Result<R>) -> Result<R> {
    if mask.device() == Device::Cpu && mask.is_c_contiguous() {
        let s = mask.as_slice::<u8>()?;
        f(&s)
    } else {
        f(&mask.to_vec::<u8>()?)
    }
}

/// The row-major positions of the true elements of the u8 `mask` (any
/// layout); an error naming `op` for another dtype or device than `like`'s.
pub(crate) fn true_positions(op: &str, mask: &Tensor, like: &Tensor) -> Result<Vec<isize>> {
    check_mask(op, mask, like)?;
    with_mask_bytes(mask, |m| {
        let mut v: Vec<isize> = Vec::new();
        let n = compact(
            m,
            |i| i as isize,
            |n| {
                v = Vec::with_capacity(n);
                Ok(v.as_mut_ptr())
            },
        )?;
        // SAFETY: `compact` wrote all `n` elements of the capacity.
        unsafe { v.set_len(n) };
        Ok(v)
    })
}

/// An error naming `op` unless `mask` is u8 on `like`'s device.
fn check_mask(op: &str, mask: &Tensor, like: &Tensor) -> Result<()> {
    same_device(op, &[like, mask])?;
    if mask.dtype() != DType::U8 {
        return Err(Error::invalid(
            op,
            format!(
                "the mask must be u8, got {} (convert with cast or cmpne(0))",
                mask.dtype()
            ),
        ));
    }
    Ok(())
}

/// A fresh 1-D i64 CPU tensor of `n` elements and its memory, for one writer.
fn fresh_i64(n: usize) -> Result<(Tensor, *mut i64)> {
    let t = Tensor::empty_on(DType::I64, &[n], Device::Cpu)?;
    let p = t
        .storage()
        .host_ptr()
        .expect("a CPU tensor has host memory") as *mut i64;
    Ok((t, p))
}

/// `mask` broadcast to `shape`, or an error naming `op`.
fn mask_to(op: &str, mask: &Tensor, shape: &[usize]) -> Result<Tensor> {
    mask.broadcast_to(shape).map_err(|_| {
        Error::shapes(
            op,
            mask.shape(),
            shape,
            "mask cannot be broadcast to the tensor's shape",
        )
    })
}

/// The non-zero positions of `t` (any dtype: compared with zero first).
fn nonzero_positions(op: &str, t: &Tensor) -> Result<Vec<isize>> {
    let m = if t.dtype() == DType::U8 {
        t.clone()
    } else {
        t.cmpne(0)?
    };
    true_positions(op, &m, t)
}

/// The row-major positions `pos` split into one coordinate list per axis of
/// `shape`.
fn coordinates(pos: &[isize], shape: &[usize]) -> Vec<Vec<i64>> {
    let cs = c_strides(shape);
    (0..shape.len())
        .map(|d| {
            pos.iter()
                .map(|&p| ((p / cs[d].max(1)) % shape[d].max(1) as isize) as i64)
                .collect()
        })
        .collect()
}

/// The row-major positions (i32, 1-D, valid indices) of the non-zero
/// elements of the u8 `m`, computed on `m`'s device by its kernels (see the
/// module docs), or `None` on the CPU (which compacts on the host) and when
/// the mask has more elements than the sort's i32 indices.
pub(crate) fn device_positions(m: &Tensor) -> Result<Option<Tensor>> {
    let n = m.size();
    if m.device() == Device::Cpu || m.ndim() == 0 || n > i32::MAX as usize {
        return Ok(None);
    }
    let count = m.count_nonzero(None, false)?.item::<i64>()? as isize;
    let zero = m.reshape([n])?.cmpeq(0)?;
    let order = zero.argsort(0, false)?;
    Ok(Some(order.slice(crate::s![..count])?))
}

/// The coordinates along each axis of `shape` of the row-major positions
/// `pos` (i64, on any device): `(pos / stride) % dim` per axis.
fn device_coordinates(pos: &Tensor, shape: &[usize]) -> Result<Vec<Tensor>> {
    let cs = c_strides(shape);
    (0..shape.len())
        .map(|d| pos.div(cs[d].max(1) as i64)?.rem(shape[d].max(1) as i64))
        .collect()
}

impl Tensor {
    /// NumPy's `nonzero` (also Nx's one-argument `where`): for each axis, the
    /// i64 coordinates of the non-zero elements in row-major order (a
    /// non-u8 tensor is compared with zero first; NaN counts as non-zero).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[3, 3], &[3, 0, 0, 0, 4, 0, 5, 6, 0]).unwrap();
    /// let nz = x.nonzero().unwrap();
    /// assert_eq!(nz[0].to_vec::<i64>().unwrap(), vec![0, 1, 2, 2]);
    /// assert_eq!(nz[1].to_vec::<i64>().unwrap(), vec![0, 1, 0, 1]);
    /// ```
    pub fn nonzero(&self) -> Result<Vec<Tensor>> {
        let op = "nonzero";
        let m = if self.dtype() == DType::U8 {
            self.clone()
        } else {
            self.cmpne(0)?
        };
        check_mask(op, &m, self)?;
        if let Some(pos) = device_positions(&m)? {
            let pos = pos.cast(DType::I64)?;
            return if self.ndim() == 1 {
                Ok(vec![pos])
            } else {
                device_coordinates(&pos, self.shape())
            };
        }
        // The row-major positions, written straight into a fresh tensor.
        let mut flat_pos = None;
        let total = with_mask_bytes(&m, |bytes| {
            compact(
                bytes,
                |i| i as i64,
                |n| {
                    let (t, p) = fresh_i64(n)?;
                    flat_pos = Some(t);
                    Ok(p)
                },
            )
        })?;
        let flat_pos = flat_pos.expect("compact allocates");
        let shape = self.shape();
        let out = if shape.len() == 1 {
            vec![flat_pos]
        } else {
            let pos = flat_pos.as_slice::<i64>()?;
            let cs = c_strides(shape);
            let mut axes = Vec::with_capacity(shape.len());
            for d in 0..shape.len() {
                let (st, dim) = (cs[d].max(1) as i64, shape[d].max(1) as i64);
                let (t, p) = fresh_i64(total)?;
                let p = SendPtr(p);
                let pos = &pos[..];
                team::for_each_chunk(total.div_ceil(CHUNK), &|c| {
                    let r = c * CHUNK..((c + 1) * CHUNK).min(total);
                    for i in r {
                        // SAFETY: chunk c writes only its own elements of
                        // the fresh `total`-element tensor.
                        unsafe { *p.get().add(i) = (pos[i] / st) % dim };
                    }
                });
                axes.push(t);
            }
            axes
        };
        out.into_iter()
            .map(|t| t.to_device(self.device()))
            .collect()
    }

    /// NumPy's `argwhere`: the i64 coordinates of the non-zero elements, one
    /// row each (shape `[count, rank]`), in row-major order.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::arange(DType::I32, 0, 6, 1).unwrap().reshape([2, 3]).unwrap();
    /// let w = x.cmpgt(1).unwrap().argwhere().unwrap();
    /// assert_eq!(w.to_string(), "[[0, 2],\n [1, 0],\n [1, 1],\n [1, 2]]");
    /// ```
    pub fn argwhere(&self) -> Result<Tensor> {
        let m = if self.dtype() == DType::U8 {
            self.clone()
        } else {
            self.cmpne(0)?
        };
        if let Some(pos) = device_positions(&m)? {
            let coords = device_coordinates(&pos.cast(DType::I64)?, self.shape())?;
            return Tensor::stack(&coords, 1);
        }
        let pos = nonzero_positions("argwhere", self)?;
        let coords = coordinates(&pos, self.shape());
        let nd = self.ndim();
        let mut rows = vec![0i64; pos.len() * nd];
        for (d, c) in coords.iter().enumerate() {
            for (i, &v) in c.iter().enumerate() {
                rows[i * nd + d] = v;
            }
        }
        Tensor::from_slice(&rows, &[pos.len(), nd])?.to_device(self.device())
    }

    /// NumPy's `extract` (and `a[mask]`): the elements where the u8 `mask`
    /// (broadcast to the tensor's shape) is non-zero, as a 1-D tensor in
    /// row-major order.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::arange(DType::F32, 0, 6, 1).unwrap().reshape([2, 3]).unwrap();
    /// let m = x.cmpge(4).unwrap();
    /// assert_eq!(x.extract(&m).unwrap().to_string(), "[4, 5]");
    /// ```
    pub fn extract(&self, mask: &Tensor) -> Result<Tensor> {
        let op = "extract";
        let m = mask_to(op, mask, self.shape())?;
        check_mask(op, &m, self)?;
        if let Some(pos) = device_positions(&m)? {
            return gather_pos(op, &flat(self)?, 0, &pos);
        }
        let pos = true_positions(op, &m, self)?;
        gather_at(op, &flat(self)?, 0, &pos)
    }

    /// NumPy's `compress`: the slices along `axis` (the flattened tensor when
    /// `None`) where the 1-D u8 `mask` is non-zero. A mask shorter than the
    /// axis counts as false beyond its end; a longer one is an error.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let a = Tensor::create(DType::I32, &[3, 2], &[1, 2, 3, 4, 5, 6]).unwrap();
    /// let m = Tensor::create(DType::U8, &[2], &[0, 1]).unwrap();
    /// assert_eq!(a.compress(&m, 0).unwrap().to_string(), "[[3, 4]]");
    /// assert_eq!(a.compress(&m, 1).unwrap().to_string(), "[[2],\n [4],\n [6]]");
    /// assert_eq!(a.compress(&m, None).unwrap().to_string(), "[2]");
    /// ```
    pub fn compress(&self, mask: &Tensor, axis: impl Into<Option<isize>>) -> Result<Tensor> {
        let op = "compress";
        let (src, axis) = match axis.into() {
            None => (flat(self)?, 0),
            Some(a) => (self.clone(), one_axis(op, a, self.ndim())?),
        };
        if mask.ndim() != 1 {
            return Err(Error::invalid(
                op,
                format!("the mask must be 1-D, got shape {:?}", mask.shape()),
            ));
        }
        if mask.size() > src.shape()[axis] {
            return Err(Error::invalid(
                op,
                format!(
                    "mask of length {} is longer than axis {axis} of size {}",
                    mask.size(),
                    src.shape()[axis]
                ),
            ));
        }
        check_mask(op, mask, self)?;
        if let Some(pos) = device_positions(mask)? {
            return gather_pos(op, &src, axis, &pos);
        }
        let pos = true_positions(op, mask, self)?;
        gather_at(op, &src, axis, &pos)
    }

    /// NumPy's `a[mask] = values` (in place, the mask counterpart of
    /// [`Tensor::set_slice`]): the elements where the u8 `mask` (broadcast to
    /// the tensor's shape) is non-zero take, in row-major order, the elements
    /// of `values`, which has as many elements as the mask has non-zeros, or
    /// one (then written everywhere). Errors come before any write. Returns
    /// `self`.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F32, &[4], &[-1., 2., -3., 4.]).unwrap();
    /// x.set_mask(&x.cmplt(0).unwrap(), &Tensor::scalar(DType::F32, 0).unwrap()).unwrap();
    /// assert_eq!(x.to_string(), "[0, 2, 0, 4]");
    /// let m = Tensor::create(DType::U8, &[4], &[1, 0, 0, 1]).unwrap();
    /// x.set_mask(&m, &Tensor::create(DType::F32, &[2], &[7., 8.]).unwrap()).unwrap();
    /// assert_eq!(x.to_string(), "[7, 2, 0, 8]");
    /// ```
    pub fn set_mask(&self, mask: &Tensor, values: &Tensor) -> Result<Tensor> {
        let op = "set_mask";
        same_dtype(op, &[self, values])?;
        same_device(op, &[self, values])?;
        let m = mask_to(op, mask, self.shape())?;
        check_mask(op, &m, self)?;
        if let Some(pos) = device_positions(&m)? {
            let v = mask_values(op, values, pos.size())?;
            write_pos(op, self, &pos, &v, None, true)?;
            return Ok(self.clone());
        }
        let pos = true_positions(op, &m, self)?;
        let v = mask_values(op, values, pos.len())?;
        write_flat(op, self, &pos, &v, None)?;
        Ok(self.clone())
    }
}

/// The values `set_mask` writes at `count` positions: `values` flattened, or
/// its one element broadcast; an error naming `op` for another count.
fn mask_values(op: &str, values: &Tensor, count: usize) -> Result<Tensor> {
    if values.size() == 1 {
        flat(values)?.broadcast_to(&[count])
    } else if values.size() == count {
        flat(values)
    } else {
        Err(Error::invalid(
            op,
            format!(
                "cannot assign {} values to the {count} elements where the mask is true",
                values.size()
            ),
        ))
    }
}
