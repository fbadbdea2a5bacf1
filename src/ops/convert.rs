//! Copies and conversions that every family uses: `cast`/`astype`, `contiguous`,
//! `copy`, and moving between devices. Overlap-aware assignment (`blit`,
//! `set_slice`, `fill`) lives with the indexing family.

use crate::device::Device;
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;

impl Tensor {
    /// A contiguous copy converted to `dtype`, element by element as Rust's `as`
    /// converts:
    ///
    /// - integer -> integer **wraps**: the result keeps the low bits of the
    ///   two's-complement value (300 as u8 is 44, -1 as u32 is 4294967295, u64
    ///   2^64 - 2 as i64 is -2), as NumPy's `astype`, PyTorch's `to` and Nx's
    ///   `cast` do;
    /// - float -> integer truncates toward zero and **saturates** at the range;
    ///   NaN gives 0;
    /// - every cast to a float dtype (f16, bf16, f32, f64, and the parts of c32,
    ///   c64) rounds **once**, to nearest with ties to even, from the exact source
    ///   value — never through an intermediate type (f64 -> f16 does not pass
    ///   through f32, i64 -> f32 not through f64); out-of-range magnitudes give
    ///   infinity;
    /// - the 8-bit floats round the same way, once; out of range, f8e5m2 gives
    ///   infinity (magnitudes at or past 61440) and f8e4m3 (E4M3FN, which has no
    ///   infinity) gives NaN with the input's sign (magnitudes above 464, and
    ///   infinities), as `ml_dtypes` and PyTorch's `to(torch.float8_e4m3fn)` do;
    /// - the 4-bit integers follow the integer rules at width 4: integer -> i4/u4
    ///   keeps the low 4 bits (300 as i4 is -4, -1 as u4 is 15), float -> i4/u4
    ///   truncates and saturates at -8..=7 / 0..=15 (NaN gives 0; `ml_dtypes`
    ///   instead gives 0 for values out of range), and i4/u4 -> anything is
    ///   exact;
    /// - complex -> real takes the real part; real -> complex has imaginary 0.
    ///
    /// (This is not the rule for Rust scalars given to an operation, which must be
    /// representable in the tensor's dtype: see [`crate::Scalar::to_dtype`].)
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F32, &[3], &[1.5, 2.7, 3.1]).unwrap();
    /// assert_eq!(x.cast(DType::I32).unwrap().to_string(), "[1, 2, 3]");
    /// let y = Tensor::create(DType::F64, &[3], &[-1e20, f64::NAN, 300.0]).unwrap();
    /// assert_eq!(y.cast(DType::U8).unwrap().to_vec::<u8>().unwrap(), vec![0, 0, 255]);
    /// let i = Tensor::create(DType::I32, &[3], &[300, -1, -128]).unwrap();
    /// assert_eq!(i.cast(DType::U8).unwrap().to_vec::<u8>().unwrap(), vec![44, 255, 128]);
    /// // 2^24 + 2^16 + 1 is past the midpoint between two bf16 values: it rounds up.
    /// let n = Tensor::create(DType::I32, &[1], &[16_842_753]).unwrap();
    /// assert_eq!(n.cast(DType::BF16).unwrap().to_vec::<rnx::bf16>().unwrap()[0].to_f64(), 16_908_288.0);
    /// let w = Tensor::create(DType::F32, &[3], &[0.3f32, 464.0, 500.0]).unwrap();
    /// assert_eq!(w.cast(DType::F8E4M3).unwrap().to_string(), "[0.3125, 448, nan]");
    /// assert_eq!(w.cast(DType::F8E5M2).unwrap().to_string(), "[0.3125, 448, 512]");
    /// let q = Tensor::create(DType::F32, &[4], &[2.9, -9.5, 100.0, f32::NAN]).unwrap();
    /// assert_eq!(q.cast(DType::I4).unwrap().to_string(), "[2, -8, 7, 0]");
    /// assert_eq!(i.cast(DType::I4).unwrap().to_string(), "[-4, -1, 0]");
    /// ```
    pub fn cast(&self, dtype: DType) -> Result<Tensor> {
        crate::ext::hook(
            "cast",
            &[self.into()],
            None,
            || Ok((crate::ext::OpKind::Cast(dtype), self.shape().to_vec())),
            |o, _| o[0].as_tensor().cast_builtin(dtype),
        )
    }

    /// [`Tensor::cast`] under the built-in rules only (no extension asked).
    pub(crate) fn cast_builtin(&self, dtype: DType) -> Result<Tensor> {
        let out = Tensor::empty_on(dtype, self.shape(), self.device())?;
        super::locked("cast", &[self], &[&out], || self.backend().cast(self, &out))?;
        Ok(out)
    }

    /// Synonym of [`Tensor::cast`].
    pub fn astype(&self, dtype: DType) -> Result<Tensor> {
        self.cast(dtype)
    }

    /// This tensor if it is already C-contiguous (O(1), shares storage), otherwise
    /// a contiguous copy.
    pub fn contiguous(&self) -> Result<Tensor> {
        if self.is_c_contiguous() {
            return Ok(self.clone());
        }
        self.copy()
    }

    /// A deep, contiguous copy (always new memory).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F32, &[3], &[1., 2., 3.]).unwrap();
    /// let y = x.copy().unwrap();
    /// y.set_item(&[0], 999.).unwrap();
    /// assert_eq!((x.to_string(), y.to_string()), ("[1, 2, 3]".into(), "[999, 2, 3]".into()));
    /// ```
    pub fn copy(&self) -> Result<Tensor> {
        let out = Tensor::empty_on(self.dtype(), self.shape(), self.device())?;
        super::locked("copy", &[self], &[&out], || self.backend().copy(self, &out))?;
        Ok(out)
    }

    /// A contiguous copy whose elements have the bytes of this tensor's, read
    /// as `dtype` (NumPy's `view(dtype)` and Nx's `bitcast`, as a copy): the
    /// two dtypes must have the same [`DType::itemsize`]. Bytes are
    /// little-endian; a complex element is its real part's bytes, then its
    /// imaginary part's. An i4/u4 element is one byte with its 4 bits in the
    /// low nibble and a zero high nibble (the form of `ml_dtypes.int4`/`uint4`
    /// arrays: -1 is `0x0f`), and into i4/u4 each byte keeps its low 4 bits.
    /// This is how an `.npy` file of `ml_dtypes.int4` values, which
    /// [`crate::load_npy`] reads as f8e4m3 (both are `<V1` files), becomes an
    /// i4 tensor.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::create(DType::F32, &[2], &[1.0, -2.0]).unwrap();
    /// assert_eq!(x.bitcast(DType::U32).unwrap().to_vec::<u32>().unwrap(), vec![0x3f80_0000, 0xc000_0000]);
    /// let b = Tensor::create(DType::U8, &[3], &[0x0f, 0x07, 0xf8]).unwrap();
    /// assert_eq!(b.bitcast(DType::I4).unwrap().to_string(), "[-1, 7, -8]");
    /// let i = Tensor::create(DType::I4, &[2], &[-1, 3]).unwrap();
    /// assert_eq!(i.bitcast(DType::U8).unwrap().to_vec::<u8>().unwrap(), vec![0x0f, 0x03]);
    /// assert!(x.bitcast(DType::F64).is_err());
    /// ```
    pub fn bitcast(&self, dtype: DType) -> Result<Tensor> {
        if dtype.itemsize() != self.dtype().itemsize() {
            return Err(crate::Error::invalid(
                "bitcast",
                format!(
                    "{} ({} bytes per element) and {dtype} ({} bytes) differ in size",
                    self.dtype(),
                    self.itemsize(),
                    dtype.itemsize()
                ),
            ));
        }
        let mut bytes = vec![0u8; self.nbytes()];
        super::locked("bitcast", &[self], &[], || {
            self.backend().download(self, &mut bytes)
        })?;
        let storage = crate::backend::get(self.device(), "bitcast")?.upload(dtype, &bytes)?;
        Tensor::from_parts(
            std::sync::Arc::new(storage),
            crate::Layout::contiguous(self.shape()),
        )
    }

    /// A contiguous copy on `device` (a cheap view when already there).
    pub fn to_device(&self, device: Device) -> Result<Tensor> {
        if device == self.device() {
            return Ok(self.clone());
        }
        let bytes = crate::dispatch!(self.dtype(), T => {
            bytemuck::cast_slice::<T, u8>(&self.to_vec::<T>()?).to_vec()
        });
        let storage = crate::backend::get(device, "to_device")?.upload(self.dtype(), &bytes)?;
        Tensor::from_parts(
            std::sync::Arc::new(storage),
            crate::Layout::contiguous(self.shape()),
        )
    }
}
