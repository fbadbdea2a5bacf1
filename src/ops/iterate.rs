//! Iteration for Rust users: `iter` (the elements of any view in logical,
//! row-major order), `map_item` / `fold_item` (Rust closures over elements,
//! Nx's `map`/`reduce` with a host function), and the conversions between
//! `Tensor` and `Vec<T>` / arrays (`From` one way, `TryFrom` back).
//!
//! These run on the host: a tensor on a GPU is downloaded first, and
//! `map_item` uploads its result back to the tensor's device.

use crate::dtype::Element;
use crate::error::{Error, Result};
use crate::tensor::Tensor;

impl Tensor {
    /// An iterator over the elements in logical (row-major) order, for any
    /// view (strided, broadcast, flipped) on any device. `T` must be the
    /// dtype's Rust type. The elements are copied out first, so the iterator
    /// owns them and does not keep `self` borrowed.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[2, 3], &[1, 2, 3, 4, 5, 6]).unwrap();
    /// let t = x.transpose(None).unwrap();
    /// assert_eq!(t.iter::<i32>().unwrap().collect::<Vec<_>>(), vec![1, 4, 2, 5, 3, 6]);
    /// assert!(x.iter::<f32>().is_err());
    /// ```
    pub fn iter<T: Element>(&self) -> Result<std::vec::IntoIter<T>> {
        Ok(self.to_vec::<T>()?.into_iter())
    }

    /// A tensor of the same shape and device holding `f(x)` for every element
    /// `x` (read as `T`, the dtype's type); the result's dtype is `U`'s.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::I32, &[3], &[1, -2, 3]).unwrap();
    /// let y = x.map_item(|v: i32| (v * 10) as f32).unwrap();
    /// assert_eq!((y.dtype(), y.to_string()), (DType::F32, "[10, -20, 30]".to_string()));
    /// ```
    pub fn map_item<T: Element, U: Element>(&self, f: impl FnMut(T) -> U) -> Result<Tensor> {
        let v: Vec<U> = self.to_vec::<T>()?.into_iter().map(f).collect();
        Tensor::from_vec(v, self.shape())?.to_device(self.device())
    }

    /// Fold the elements in row-major order: `f(..f(f(init, x0), x1).., xn)`.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::U8, &[2, 2], &[1, 2, 3, 4]).unwrap();
    /// assert_eq!(x.fold_item(0u32, |a, v: u8| a * 10 + v as u32).unwrap(), 1234);
    /// ```
    pub fn fold_item<T: Element, A>(&self, init: A, f: impl FnMut(A, T) -> A) -> Result<A> {
        Ok(self.to_vec::<T>()?.into_iter().fold(init, f))
    }
}

impl<T: Element> From<Vec<T>> for Tensor {
    /// A 1-D tensor owning the vector's elements (dtype from `T`).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let t = Tensor::from(vec![1.5f64, 2.5]);
    /// assert_eq!((t.dtype(), t.shape()), (DType::F64, &[2usize][..]));
    /// ```
    fn from(v: Vec<T>) -> Tensor {
        let n = v.len();
        Tensor::from_vec(v, &[n]).expect("a 1-D shape always matches its data")
    }
}

impl<T: Element, const N: usize> From<[T; N]> for Tensor {
    /// A 1-D tensor of the array's elements.
    fn from(v: [T; N]) -> Tensor {
        Tensor::from_slice_1d(&v)
    }
}

impl<T: Element, const N: usize, const M: usize> From<[[T; M]; N]> for Tensor {
    /// A 2-D tensor `[N, M]` of the nested array's rows.
    ///
    /// ```
    /// use rnx::Tensor;
    /// let t = Tensor::from([[1i32, 2, 3], [4, 5, 6]]);
    /// assert_eq!(t.shape(), &[2, 3]);
    /// assert_eq!(t.to_string(), "[[1, 2, 3],\n [4, 5, 6]]");
    /// ```
    fn from(v: [[T; M]; N]) -> Tensor {
        let flat: Vec<T> = v.iter().flatten().copied().collect();
        Tensor::from_vec(flat, &[N, M]).expect("an [N, M] array has N * M elements")
    }
}

impl<T: Element> TryFrom<&Tensor> for Vec<T> {
    type Error = Error;
    /// The elements in row-major order (any rank; [`Tensor::to_vec`]); an
    /// error when `T` is not the dtype's type.
    ///
    /// ```
    /// use rnx::Tensor;
    /// let t = Tensor::from([[1u16, 2], [3, 4]]);
    /// assert_eq!(Vec::<u16>::try_from(&t).unwrap(), vec![1, 2, 3, 4]);
    /// assert!(Vec::<i64>::try_from(&t).is_err());
    /// ```
    fn try_from(t: &Tensor) -> Result<Vec<T>> {
        t.to_vec::<T>()
    }
}

impl<T: Element> TryFrom<Tensor> for Vec<T> {
    type Error = Error;
    /// As `TryFrom<&Tensor>`.
    fn try_from(t: Tensor) -> Result<Vec<T>> {
        t.to_vec::<T>()
    }
}

impl<T: Element, const N: usize> TryFrom<&Tensor> for [T; N] {
    type Error = Error;
    /// The elements of a tensor of exactly `N` elements (any rank), else an
    /// error naming both counts.
    ///
    /// ```
    /// use rnx::Tensor;
    /// let t = Tensor::from(vec![1.0f32, 2.0, 3.0]);
    /// let a: [f32; 3] = (&t).try_into().unwrap();
    /// assert_eq!(a, [1.0, 2.0, 3.0]);
    /// assert!(<[f32; 2]>::try_from(&t).is_err());
    /// ```
    fn try_from(t: &Tensor) -> Result<[T; N]> {
        let v = t.to_vec::<T>()?;
        let len = v.len();
        v.try_into().map_err(|_| {
            Error::invalid(
                "try_from",
                format!(
                    "a tensor of shape {:?} has {len} elements, not {N}",
                    t.shape()
                ),
            )
        })
    }
}
