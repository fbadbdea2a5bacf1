//! Selection with u8 masks (0 false, non-zero true): `nonzero`, `argwhere`,
//! `extract`, `compress` and the masked assignment `set_mask` (NumPy's
//! `a[mask] = v`). The mask is read on the host (mask compaction is
//! data-dependent); the data moves through the backend's gather and scatter,
//! so every dtype and device works.

use super::take::{flat, gather_at, one_axis, write_flat};
use super::{same_device, same_dtype};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::c_strides;
use crate::tensor::Tensor;

/// The row-major positions of the true elements of the u8 `mask` (any
/// layout); an error naming `op` for another dtype or device than `like`'s.
fn true_positions(op: &str, mask: &Tensor, like: &Tensor) -> Result<Vec<isize>> {
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
    Ok(mask
        .to_vec::<u8>()?
        .iter()
        .enumerate()
        .filter(|&(_, &m)| m != 0)
        .map(|(i, _)| i as isize)
        .collect())
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
        let pos = nonzero_positions("nonzero", self)?;
        coordinates(&pos, self.shape())
            .into_iter()
            .map(|c| Tensor::from_slice(&c, &[c.len()])?.to_device(self.device()))
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
        let pos = true_positions(op, &m, self)?;
        let v = if values.size() == 1 {
            flat(values)?.broadcast_to(&[pos.len()])?
        } else if values.size() == pos.len() {
            flat(values)?
        } else {
            return Err(Error::invalid(
                op,
                format!(
                    "cannot assign {} values to the {} elements where the mask is true",
                    values.size(),
                    pos.len()
                ),
            ));
        };
        write_flat(op, self, &pos, &v, None)?;
        Ok(self.clone())
    }
}
