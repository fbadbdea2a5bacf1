//! Complex numbers' parts and construction: [`Tensor::real`],
//! [`Tensor::imag`] and [`Tensor::angle`] (NumPy's `np.real`, `np.imag`,
//! `np.angle`), [`Tensor::complex`] and [`Tensor::polar`] (PyTorch's
//! `torch.complex`, `torch.polar`). The math functions of complex tensors
//! (`exp`, `log`, `sqrt`, the trigonometric and hyperbolic functions and
//! their inverses) are the usual methods (`src/ops/math.rs`).
//!
//! Rules: the parts of a c32 are f32 and of a c64 f64. `real` and `imag` of a
//! real tensor are the tensor itself and zeros of its dtype (as NumPy);
//! `angle` of a real float tensor is `atan2(0, x)`: `π` for negative numbers
//! and -0.0, 0 otherwise, NaN for NaN (as NumPy). `complex` and `polar` take
//! two real float tensors of one dtype (f16/bf16/f32 give c32, f64 gives
//! c64) that broadcast together, and build each element from the bits of
//! its parts exactly (signed zeros and NaN payloads kept).

use crate::backend::UnaryOp;
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::ops::elementwise::unary_impl;
use crate::ops::frame::broadcast_shapes;
use crate::ops::{same_device, same_dtype};
use crate::tensor::Tensor;

impl Tensor {
    /// The real part (NumPy's `np.real`): a new tensor of the parts' dtype
    /// for a complex tensor, the tensor itself (a view of the same storage)
    /// for any other dtype.
    ///
    /// ```
    /// use rnx::{DType, Tensor, C64};
    /// let z = Tensor::from_vec(vec![C64::new(1.5, -2.0), C64::new(0.0, 3.0)], &[2])?;
    /// assert_eq!(z.real()?.dtype(), DType::F64);
    /// assert_eq!(z.real()?.to_vec::<f64>()?, vec![1.5, 0.0]);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn real(&self) -> Result<Tensor> {
        if self.dtype().is_complex() {
            self.cast(self.dtype().real())
        } else {
            Ok(self.clone())
        }
    }

    /// The imaginary part (NumPy's `np.imag`): a new tensor of the parts'
    /// dtype for a complex tensor, zeros of the tensor's dtype and shape for
    /// any other dtype.
    ///
    /// ```
    /// use rnx::{Tensor, C32};
    /// let z = Tensor::from_vec(vec![C32::new(1.5, -2.0), C32::new(0.0, 3.0)], &[2])?;
    /// assert_eq!(z.imag()?.to_vec::<f32>()?, vec![-2.0, 3.0]);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn imag(&self) -> Result<Tensor> {
        if self.dtype().is_complex() {
            unary_impl("imag", UnaryOp::Imag, self, None)
        } else {
            Tensor::zeros_on(self.dtype(), self.shape(), self.device())
        }
    }

    /// The argument in radians, in `[-π, π]` (NumPy's `np.angle`): `atan2(im,
    /// re)` of a complex tensor in the parts' dtype (C99's `carg`: signed
    /// zeros pick the side of the branch cut, `angle(-1 - 0i) = -π`); for a
    /// real float tensor `atan2(0, x)` (`π` for negative numbers and -0.0, 0
    /// otherwise, NaN for NaN). Integers are an error (cast to a float first).
    ///
    /// ```
    /// use rnx::{Tensor, C64};
    /// let z = Tensor::from_vec(vec![C64::new(0.0, 2.0), C64::new(-1.0, 0.0)], &[2])?;
    /// let a = z.angle()?.to_vec::<f64>()?;
    /// assert_eq!(a, vec![std::f64::consts::FRAC_PI_2, std::f64::consts::PI]);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn angle(&self) -> Result<Tensor> {
        let dt = self.dtype();
        if dt.is_complex() {
            return unary_impl("angle", UnaryOp::Angle, self, None);
        }
        if !dt.is_float() {
            return Err(Error::invalid(
                "angle",
                format!("dtype {dt} is not a float or complex dtype: cast to a float first"),
            ));
        }
        self.zeros_like()?.atan2(self)
    }

    /// The complex tensor `re + i·im` (PyTorch's `torch.complex`): `re` and
    /// `im` are real float tensors of one dtype that broadcast together
    /// (f16, bf16 and f32 give c32, f64 gives c64); each element holds the
    /// bits of its two parts exactly.
    ///
    /// ```
    /// use rnx::{Tensor, C32};
    /// let re = Tensor::from_vec(vec![1.0f32, -0.5], &[2])?;
    /// let im = Tensor::from_vec(vec![2.0f32], &[1])?;
    /// let z = Tensor::complex(&re, &im)?;
    /// assert_eq!(z.to_vec::<C32>()?, vec![C32::new(1.0, 2.0), C32::new(-0.5, 2.0)]);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn complex(re: &Tensor, im: &Tensor) -> Result<Tensor> {
        complex_impl("complex", re, im)
    }

    /// The complex tensor `abs·(cos angle + i·sin angle)` (PyTorch's
    /// `torch.polar`): `abs` and `angle` are real float tensors of one dtype
    /// that broadcast together (the dtype rules of [`Tensor::complex`]).
    ///
    /// ```
    /// use rnx::{Tensor, C64};
    /// let r = Tensor::from_vec(vec![2.0f64], &[1])?;
    /// let th = Tensor::from_vec(vec![0.0f64, std::f64::consts::PI], &[2])?;
    /// let z = Tensor::polar(&r, &th)?.to_vec::<C64>()?;
    /// assert_eq!(z[0], C64::new(2.0, 0.0));
    /// assert!((z[1].re + 2.0).abs() < 1e-15 && z[1].im.abs() < 1e-15);
    /// # Ok::<(), rnx::Error>(())
    /// ```
    pub fn polar(abs: &Tensor, angle: &Tensor) -> Result<Tensor> {
        check_parts("polar", abs, angle)?;
        let re = abs.mul(&angle.cos()?)?;
        let im = abs.mul(&angle.sin()?)?;
        complex_impl("polar", &re, &im)
    }
}

/// The complex dtype built from the parts `re` and `im`, or an error naming
/// `op`.
fn check_parts(op: &str, re: &Tensor, im: &Tensor) -> Result<DType> {
    same_device(op, &[re, im])?;
    same_dtype(op, &[re, im])?;
    match re.dtype() {
        DType::F16 | DType::BF16 | DType::F32 => Ok(DType::C32),
        DType::F64 => Ok(DType::C64),
        d => Err(Error::invalid(
            op,
            format!("the parts must be real floats (f16, bf16, f32 or f64), not {d}"),
        )),
    }
}

/// `re + i·im` exactly: `conj(cast(re)) = (re, -0)` plus `i·cast(im) = (-0,
/// im)`; adding -0 keeps every value (signed zeros and NaNs included).
fn complex_impl(op: &str, re: &Tensor, im: &Tensor) -> Result<Tensor> {
    let c = check_parts(op, re, im)?;
    let shape = broadcast_shapes(op, &[re.shape(), im.shape()])?;
    let r = re.broadcast_to(&shape)?.cast(c)?;
    crate::ops::elementwise::unary_out(UnaryOp::Conj, &r, &r)?;
    let i = im.broadcast_to(&shape)?.cast(c)?;
    let i = unary_impl("complex", UnaryOp::MulI, &i, None)?;
    r.add_(&i)
}
