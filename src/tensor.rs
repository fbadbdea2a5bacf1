//! `Tensor` = shared storage + layout; its accessors (the Nx tensor properties),
//! construction from Rust data, and getting data out. Operations live in `ops/`.

use crate::backend::{self, Backend};
use crate::device::Device;
use crate::dtype::{DType, Element, Scalar};
use crate::error::{Error, Result};
use crate::layout::{checked_numel, normalize_axis, Layout};
use crate::storage::Storage;
use std::sync::Arc;

/// An n-dimensional array: a view (shape, strides, offset) over shared device
/// storage of one dtype.
///
/// `clone()` is O(1) and shares the storage, like every view; copies are explicit
/// (`copy`, `contiguous`). `Tensor` is `Send + Sync`: views of one buffer may be
/// used from several threads, each operation locking the buffers it touches.
///
/// ```
/// use rnx::Tensor;
/// let t = Tensor::from_vec(vec![1i32, 2, 3, 4, 5, 6], &[2, 3]).unwrap();
/// assert_eq!(t.shape(), &[2, 3]);
/// assert_eq!(t.strides(), vec![12, 4]); // bytes, as Nx
/// assert_eq!(t.to_string(), "[[1, 2, 3],\n [4, 5, 6]]");
/// ```
#[derive(Clone)]
pub struct Tensor {
    storage: Arc<Storage>,
    layout: Layout,
}

impl Tensor {
    /// A tensor over `storage` with `layout`; errors if the layout reaches outside.
    pub fn from_parts(storage: Arc<Storage>, layout: Layout) -> Result<Tensor> {
        if !layout.fits_in(storage.len()) {
            return Err(Error::invalid(
                "from_parts",
                format!(
                    "layout (shape {:?}, strides {:?}, offset {}) reaches outside a buffer of {} elements",
                    layout.shape(),
                    layout.strides(),
                    layout.offset(),
                    storage.len()
                ),
            ));
        }
        Ok(Tensor { storage, layout })
    }

    /// A new view of the same storage (the layout was derived from this tensor's
    /// by a view function, so it stays in bounds).
    pub(crate) fn with_layout(&self, layout: Layout) -> Tensor {
        debug_assert!(layout.fits_in(self.storage.len()));
        Tensor {
            storage: self.storage.clone(),
            layout,
        }
    }

    /// This tensor's storage under another layout (as [`Tensor::with_layout`],
    /// consuming `self`: no reference count is touched).
    pub(crate) fn into_layout(self, layout: Layout) -> Tensor {
        debug_assert!(layout.fits_in(self.storage.len()));
        Tensor {
            storage: self.storage,
            layout,
        }
    }

    /// A fresh zero-filled contiguous tensor on `device`.
    pub fn zeros_on(dtype: DType, shape: &[usize], device: Device) -> Result<Tensor> {
        let n = checked_numel("zeros", shape)?;
        let storage = match device {
            // The CPU backend's `alloc`, called directly (as in `empty_on`).
            Device::Cpu => Storage::cpu_zeroed(dtype, n)?,
            _ => backend::get(device, "zeros")?.alloc(dtype, n)?,
        };
        Ok(Tensor {
            storage: Arc::new(storage),
            layout: Layout::contiguous(shape),
        })
    }

    /// A fresh contiguous tensor on `device` whose contents are unspecified (stale
    /// values of freed tensors may show; never uninitialised memory). For outputs
    /// that are overwritten completely: large buffers are reused without
    /// page faults.
    pub fn empty_on(dtype: DType, shape: &[usize], device: Device) -> Result<Tensor> {
        let n = checked_numel("empty", shape)?;
        let storage = match device {
            // What the CPU backend's `alloc_for_overwrite` does, without the
            // two dynamic calls that return the storage through memory (every
            // allocating op's output comes from here); a small buffer from
            // the thread's cache first.
            Device::Cpu => match Storage::cpu_cached_shared(dtype, n) {
                Some(s) => s,
                None => Arc::new(Storage::cpu_for_overwrite(dtype, n)?),
            },
            _ => Arc::new(backend::get(device, "empty")?.alloc_for_overwrite(dtype, n)?),
        };
        Ok(Tensor {
            storage,
            layout: Layout::contiguous(shape),
        })
    }

    /// A fresh contiguous CPU tensor of `shape` (dtype from the element type)
    /// whose every element `f` writes, through one mutable slice in row-major
    /// order: no `Vec` to copy in afterwards.
    pub(crate) fn cpu_filled<T: Element>(
        shape: &[usize],
        f: impl FnOnce(&mut [T]),
    ) -> Result<Tensor> {
        let out = Tensor::empty_on(T::DTYPE, shape, Device::Cpu)?;
        let n = out.size();
        if n > 0 {
            let p = out
                .storage()
                .host_ptr()
                .expect("a CPU tensor has host memory") as *mut T;
            // SAFETY: the fresh tensor's buffer holds `n` initialised (see
            // `empty_on`), aligned elements of `T`, and nothing else refers
            // to it yet.
            f(unsafe { std::slice::from_raw_parts_mut(p, n) });
        }
        Ok(out)
    }

    /// A tensor of `shape` from a `Vec` (dtype from the element type), taking the
    /// vector's values. Length must equal the shape's product.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let t = Tensor::from_vec(vec![1.5f64, 2.5], &[2]).unwrap();
    /// assert_eq!(t.dtype(), DType::F64);
    /// ```
    pub fn from_vec<T: Element>(data: Vec<T>, shape: &[usize]) -> Result<Tensor> {
        Tensor::from_slice(&data, shape)
    }

    /// A tensor of `shape` from a slice (copied; dtype from the element type).
    pub fn from_slice<T: Element>(data: &[T], shape: &[usize]) -> Result<Tensor> {
        let n = checked_numel("create", shape)?;
        if data.len() != n {
            return Err(Error::DataLength {
                op: "create".into(),
                len: data.len(),
                shape: shape.to_vec(),
                expected: n,
            });
        }
        let storage =
            backend::get(Device::Cpu, "create")?.upload(T::DTYPE, bytemuck::cast_slice(data))?;
        Ok(Tensor {
            storage: Arc::new(storage),
            layout: Layout::contiguous(shape),
        })
    }

    /// A 1-D tensor from a slice.
    pub fn from_slice_1d<T: Element>(data: &[T]) -> Tensor {
        Tensor::from_slice(data, &[data.len()]).expect("1-D shape always matches its data")
    }

    /// Nx's `create dtype shape data`: values converted to `dtype`, each of which
    /// must be representable there; the length must equal the shape's product.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let t = Tensor::create(DType::F32, &[2, 3], &[1., 2., 3., 4., 5., 6.]).unwrap();
    /// assert_eq!(t.to_string(), "[[1, 2, 3],\n [4, 5, 6]]");
    /// assert!(Tensor::create(DType::F32, &[2, 2], &[1., 2., 3.]).is_err());
    /// ```
    pub fn create<S: Into<Scalar> + Copy>(
        dtype: DType,
        shape: &[usize],
        data: &[S],
    ) -> Result<Tensor> {
        let n = checked_numel("create", shape)?;
        if data.len() != n {
            return Err(Error::DataLength {
                op: "create".into(),
                len: data.len(),
                shape: shape.to_vec(),
                expected: n,
            });
        }
        crate::dispatch!(dtype, T => {
            let v: Vec<T> = data
                .iter()
                .map(|&s| s.into().to_dtype(dtype, "create").map(|s| s.get::<T>()))
                .collect::<Result<_>>()?;
            Tensor::from_slice(&v, shape)
        })
    }

    // ----- properties (the Nx names) -----

    /// Dimensions (empty for a scalar).
    pub fn shape(&self) -> &[usize] {
        self.layout.shape()
    }
    /// Synonym of [`Tensor::shape`].
    pub fn dims(&self) -> &[usize] {
        self.shape()
    }
    /// Size of dimension `i` (negative counts from the end).
    pub fn dim(&self, i: isize) -> Result<usize> {
        Ok(self.shape()[normalize_axis("dim", i, self.ndim())?])
    }
    /// Rank.
    pub fn ndim(&self) -> usize {
        self.layout.ndim()
    }
    /// Element type.
    pub fn dtype(&self) -> DType {
        self.storage.dtype()
    }
    /// Strides in bytes, as Nx: the element strides times [`Tensor::itemsize`].
    /// For the packed 4-bit dtypes, whose itemsize is 1 but whose elements take
    /// half a byte in memory, these are the strides of the one-byte-per-element
    /// form (`to_vec`, NumPy's `ml_dtypes` arrays), which are the element
    /// strides; the distance in memory is `stride * bits / 8` bytes (see
    /// [`crate::dtype`]).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let t = Tensor::zeros(DType::I4, &[2, 3]).unwrap();
    /// assert_eq!(t.strides(), vec![3, 1]);
    /// assert_eq!(t.dtype().bits(), 4); // in memory: 1.5 bytes and 0.5 bytes
    /// ```
    pub fn strides(&self) -> Vec<isize> {
        let b = self.itemsize() as isize;
        self.layout.strides().iter().map(|&s| s * b).collect()
    }
    /// Byte stride of dimension `i` (negative counts from the end), in the
    /// units of [`Tensor::strides`].
    pub fn stride(&self, i: isize) -> Result<isize> {
        let a = normalize_axis("stride", i, self.ndim())?;
        Ok(self.layout.strides()[a] * self.itemsize() as isize)
    }
    /// Bytes per element ([`DType::itemsize`]: 1 for the 4-bit dtypes, which
    /// pack two elements per byte in memory).
    pub fn itemsize(&self) -> usize {
        self.dtype().itemsize()
    }
    /// Number of elements.
    pub fn size(&self) -> usize {
        self.layout.numel()
    }
    /// Synonym of [`Tensor::size`].
    pub fn numel(&self) -> usize {
        self.size()
    }
    /// `size * itemsize`: the bytes of the elements one per `itemsize` (as
    /// `to_vec` returns them and NumPy reports). A 4-bit tensor's elements take
    /// half of that in memory, rounded up (`dtype().buffer_bytes(size())`).
    pub fn nbytes(&self) -> usize {
        self.size() * self.itemsize()
    }
    /// Element offset of the view in its storage.
    pub fn offset(&self) -> usize {
        self.layout.offset()
    }
    /// Row-major contiguous.
    pub fn is_c_contiguous(&self) -> bool {
        self.layout.is_c_contiguous()
    }
    /// Where the storage lives.
    pub fn device(&self) -> Device {
        self.storage.device()
    }
    /// The layout (shape, element strides, offset).
    pub fn layout(&self) -> &Layout {
        &self.layout
    }
    /// The shared storage.
    pub fn storage(&self) -> &Arc<Storage> {
        &self.storage
    }
    /// Whether two tensors are views of the same storage.
    pub fn same_storage(&self, other: &Tensor) -> bool {
        Arc::ptr_eq(&self.storage, &other.storage)
    }
    /// The backend of this tensor's device.
    pub fn backend(&self) -> &'static dyn Backend {
        backend::get(self.device(), "backend").expect("a tensor's device always has a backend")
    }

    // ----- data out -----

    fn check_type<T: Element>(&self, op: &str) -> Result<()> {
        if T::DTYPE != self.dtype() {
            return Err(Error::TypeMismatch {
                op: op.into(),
                actual: self.dtype(),
                requested: T::DTYPE,
            });
        }
        Ok(())
    }

    /// A copy of the elements in row-major order; `T` must be the dtype's type.
    ///
    /// ```
    /// use rnx::Tensor;
    /// let t = Tensor::from_vec(vec![1u8, 2, 3, 4], &[2, 2]).unwrap();
    /// assert_eq!(t.to_vec::<u8>().unwrap(), vec![1, 2, 3, 4]);
    /// assert!(t.to_vec::<f32>().is_err());
    /// ```
    pub fn to_vec<T: Element>(&self) -> Result<Vec<T>> {
        self.check_type::<T>("to_vec")?;
        let mut out = vec![T::zero(); self.size()];
        crate::ops::locked("to_vec", &[self], &[], || {
            self.backend()
                .download(self, bytemuck::cast_slice_mut(&mut out))
        })?;
        Ok(out)
    }

    /// The element at a full multi-index (negative indices count from the end).
    pub fn item_at<T: Element>(&self, index: &[isize]) -> Result<T> {
        self.check_type::<T>("item_at")?;
        Ok(self.scalar_at(index)?.get::<T>())
    }

    /// The element at a full multi-index as a typed [`Scalar`].
    pub fn scalar_at(&self, index: &[isize]) -> Result<Scalar> {
        let view = self.element_view("scalar_at", index)?;
        crate::dispatch!(self.dtype(), T => {
            let mut v = [T::zero()];
            crate::ops::locked("scalar_at", &[self], &[], || {
                self.backend().download(&view, bytemuck::cast_slice_mut(&mut v))
            })?;
            Ok(v[0].to_scalar())
        })
    }

    /// The only element of a one-element tensor (any rank).
    pub fn item<T: Element>(&self) -> Result<T> {
        self.check_type::<T>("item")?;
        if self.size() != 1 {
            return Err(Error::invalid(
                "item",
                format!(
                    "tensor of shape {:?} has {} elements, not 1",
                    self.shape(),
                    self.size()
                ),
            ));
        }
        Ok(self.to_vec::<T>()?[0])
    }

    /// The elements as `f64` in row-major order, for any real or integer
    /// dtype (no need to name the Rust type: printing, tests, interop).
    /// Integers above 2^53 in magnitude round to the nearest f64. Complex
    /// dtypes are an error, so an imaginary part is never dropped silently
    /// (`cast` to f32/f64 first to take the real part).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let t = Tensor::create(DType::I16, &[3], &[-1, 0, 7]).unwrap();
    /// assert_eq!(t.to_vec_f64().unwrap(), vec![-1.0, 0.0, 7.0]);
    /// ```
    pub fn to_vec_f64(&self) -> Result<Vec<f64>> {
        self.real_only("to_vec_f64")?;
        crate::dispatch!(self.dtype(), T => {
            Ok(self.to_vec::<T>()?.into_iter().map(Element::to_f64).collect())
        })
    }

    /// The only element of a one-element tensor as `f64` (real and integer
    /// dtypes; complex is an error, as in [`Tensor::to_vec_f64`]).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let t = Tensor::create(DType::U8, &[1, 1], &[200]).unwrap();
    /// assert_eq!(t.item_f64().unwrap(), 200.0);
    /// ```
    pub fn item_f64(&self) -> Result<f64> {
        self.real_only("item_f64")?;
        Ok(self.only_element("item_f64")?.to_f64())
    }

    /// The only element of a one-element tensor as `i64`: integer dtypes give
    /// the exact value, float dtypes a whole number that fits (3.0 gives 3);
    /// a fraction, NaN, a value outside i64 (u64 above `i64::MAX`) or a
    /// complex dtype is an error.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let t = Tensor::create(DType::F32, &[], &[3.0]).unwrap();
    /// assert_eq!(t.item_i64().unwrap(), 3);
    /// assert!(Tensor::create(DType::F32, &[], &[2.5]).unwrap().item_i64().is_err());
    /// ```
    pub fn item_i64(&self) -> Result<i64> {
        self.real_only("item_i64")?;
        let v = self
            .only_element("item_i64")?
            .to_dtype(DType::I64, "item_i64")?;
        Ok(v.get::<i64>())
    }

    /// An error naming `op` for the packed 4-bit dtypes, whose memory is not
    /// one element per `itemsize` bytes.
    fn not_packed(&self, op: &str) -> Result<()> {
        if self.dtype().is_int4() {
            return Err(Error::invalid(
                op,
                format!(
                    "{} elements are packed two per byte and cannot be borrowed as a slice; use to_vec",
                    self.dtype()
                ),
            ));
        }
        Ok(())
    }

    fn real_only(&self, op: &str) -> Result<()> {
        if self.dtype().is_complex() {
            return Err(Error::invalid(
                op,
                format!(
                    "dtype {} is complex; cast to a real dtype first to take the real part",
                    self.dtype()
                ),
            ));
        }
        Ok(())
    }

    /// The single element as a [`Scalar`], or an error naming `op`.
    fn only_element(&self, op: &str) -> Result<Scalar> {
        if self.size() != 1 {
            return Err(Error::invalid(
                op,
                format!(
                    "tensor of shape {:?} has {} elements, not 1",
                    self.shape(),
                    self.size()
                ),
            ));
        }
        let zeros = vec![0isize; self.ndim()];
        self.scalar_at(&zeros)
    }

    /// A rank-0 view of one element, with bounds checks: [`Tensor::get`]'s
    /// view with a full multi-index.
    pub(crate) fn element_view(&self, op: &str, index: &[isize]) -> Result<Tensor> {
        if index.len() != self.ndim() {
            return Err(Error::invalid(
                op,
                format!(
                    "{} indices given for a tensor of rank {}",
                    index.len(),
                    self.ndim()
                ),
            ));
        }
        self.get_view(op, index)
    }

    /// Write one element at a full multi-index (the value must be representable).
    ///
    /// ```
    /// use rnx::Tensor;
    /// let t = Tensor::zeros(rnx::DType::I32, &[2, 2]).unwrap();
    /// t.set_item(&[1, -1], 7).unwrap();
    /// assert_eq!(t.to_vec::<i32>().unwrap(), vec![0, 0, 0, 7]);
    /// ```
    pub fn set_item(&self, index: &[isize], value: impl Into<Scalar>) -> Result<()> {
        let view = self.element_view("set_item", index)?;
        let v = value.into().to_dtype(self.dtype(), "set_item")?;
        crate::ops::locked("set_item", &[], &[self], || self.backend().fill(&view, v))
    }

    /// Borrow the elements of a contiguous host tensor without copying.
    ///
    /// While the returned slice lives, operations that write this storage return
    /// [`Error::Borrowed`] instead of racing with the reader.
    ///
    /// ```
    /// use rnx::Tensor;
    /// let t = Tensor::from_vec(vec![1.0f32, 2.0, 3.0], &[3]).unwrap();
    /// let s = t.as_slice::<f32>().unwrap();
    /// assert_eq!(&*s, &[1.0, 2.0, 3.0]);
    /// ```
    ///
    /// The packed 4-bit dtypes have no slice of [`crate::I4`]/[`crate::U4`]
    /// values in memory (two share a byte): an error that says to use
    /// `to_vec`.
    pub fn as_slice<T: Element>(&self) -> Result<SliceRef<'_, T>> {
        self.check_type::<T>("as_slice")?;
        self.not_packed("as_slice")?;
        if !self.is_c_contiguous() {
            return Err(Error::invalid(
                "as_slice",
                format!(
                    "tensor (shape {:?}, strides {:?}) is not contiguous; call contiguous() first",
                    self.shape(),
                    self.layout.strides()
                ),
            ));
        }
        let base = self
            .storage
            .host_ptr()
            .ok_or_else(|| Error::UnsupportedOnDevice {
                op: "as_slice".into(),
                device: self.device(),
            })?;
        self.storage.add_borrow()?;
        let len = self.size();
        let ptr = if len == 0 {
            std::ptr::NonNull::<T>::dangling().as_ptr()
        } else {
            // SAFETY: offset + len lies inside the buffer (layout fits, checked at
            // construction), the buffer is aligned for T.
            unsafe { (base as *mut T).add(self.offset()) }
        };
        Ok(SliceRef {
            storage: &self.storage,
            ptr,
            len,
        })
    }
}

impl Tensor {
    /// The bytes of a C-contiguous host tensor (any dtype), borrowed like
    /// [`Tensor::as_slice`]: writes to the storage fail while they live. For
    /// the file writers of `io`.
    pub(crate) fn as_bytes(&self, op: &str) -> Result<SliceRef<'_, u8>> {
        self.not_packed(op)?;
        let base = self
            .storage
            .host_ptr()
            .ok_or_else(|| Error::UnsupportedOnDevice {
                op: op.into(),
                device: self.device(),
            })?;
        if !self.is_c_contiguous() {
            return Err(Error::invalid(op, "tensor is not contiguous"));
        }
        self.storage.add_borrow()?;
        let len = self.nbytes();
        let ptr = if len == 0 {
            std::ptr::NonNull::<u8>::dangling().as_ptr()
        } else {
            // SAFETY: the elements offset..offset + size lie inside the buffer
            // (layout fits, checked at construction); bytes need no alignment.
            unsafe { base.add(self.offset() * self.itemsize()) }
        };
        Ok(SliceRef {
            storage: &self.storage,
            ptr,
            len,
        })
    }
}

/// A borrowed, read-only slice of a contiguous host tensor (see
/// [`Tensor::as_slice`]). Derefs to `&[T]`.
pub struct SliceRef<'a, T> {
    storage: &'a Storage,
    ptr: *const T,
    len: usize,
}

impl<T> std::ops::Deref for SliceRef<'_, T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: ptr/len were checked in `as_slice`; writes to the storage fail
        // while this borrow is registered, so the memory is not mutated.
        unsafe { std::slice::from_raw_parts(self.ptr, self.len) }
    }
}

impl<T> Drop for SliceRef<'_, T> {
    fn drop(&mut self) {
        self.storage.release_borrow();
    }
}
