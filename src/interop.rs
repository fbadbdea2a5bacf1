//! Conversion from and to `ndarray::ArrayD` (cargo feature `ndarray`), Nx's
//! `of_bigarray` / `to_bigarray`. A standard-layout (C-contiguous) array becomes
//! a tensor without copying: the array itself is kept alive as the storage's
//! owner. Other arrays are copied. No element arithmetic here.

use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::storage::Storage;
use crate::tensor::Tensor;
use ndarray::{ArrayD, IxDyn};
use std::sync::Arc;

impl Tensor {
    /// A tensor from an `ndarray::ArrayD`, zero-copy when the array is in
    /// standard (C-contiguous) layout: the tensor then shares the array's
    /// memory, which it keeps alive. Other layouts are copied in row-major order.
    ///
    /// ```
    /// use rnx::Tensor;
    /// let a = ndarray::ArrayD::<f32>::zeros(ndarray::IxDyn(&[2, 3]));
    /// let t = Tensor::from_ndarray(a).unwrap();
    /// assert_eq!(t.to_string(), "[[0, 0, 0],\n [0, 0, 0]]");
    /// ```
    pub fn from_ndarray<T: Element>(mut a: ArrayD<T>) -> Result<Tensor> {
        let shape = a.shape().to_vec();
        if !a.is_standard_layout() {
            let v: Vec<T> = a.iter().copied().collect();
            return Tensor::from_vec(v, &shape);
        }
        let len = a.len();
        if len == 0 {
            return Tensor::from_vec(Vec::<T>::new(), &shape);
        }
        let ptr = a.as_mut_ptr() as *mut u8;
        // SAFETY: a standard-layout array of `len` elements occupies
        // `ptr..ptr + len` (aligned for T); the array is moved into the storage
        // as its owner (moving it does not move its heap buffer), so the memory
        // lives as long as the storage and nothing else can reach it.
        let storage = unsafe { Storage::from_foreign(T::DTYPE, ptr, len, Box::new(a))? };
        Tensor::from_parts(Arc::new(storage), Layout::contiguous(&shape))
    }

    /// A row-major `ndarray::ArrayD` copy of the elements; `T` must be the
    /// tensor's element type.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let t = Tensor::create(DType::I32, &[2, 2], &[1, 2, 3, 4]).unwrap();
    /// let a = t.to_ndarray::<i32>().unwrap();
    /// assert_eq!(a.shape(), &[2, 2]);
    /// assert_eq!(a[[1, 0]], 3);
    /// ```
    pub fn to_ndarray<T: Element>(&self) -> Result<ArrayD<T>> {
        let v = self.to_vec::<T>()?;
        ArrayD::from_shape_vec(IxDyn(self.shape()), v)
            .map_err(|e| Error::invalid("to_ndarray", e.to_string()))
    }
}
