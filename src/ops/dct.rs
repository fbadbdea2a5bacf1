//! Real trigonometric transforms (SciPy's `scipy.fft`): `dct`, `idct`, `dst`,
//! `idst` (types 1-4) and their n-D forms `dctn`, `idctn`, `dstn`, `idstn`.
//! This file validates arguments and turns `norm` / `orthogonalize` / `n` into
//! 1-D passes of the backend's `FftBackend::dct` primitive (no transform
//! arithmetic here; the definitions are at [`crate::backend::DctSpec`]).
//!
//! Rules (SciPy's, with rnx's strict dtypes):
//! - dtypes: f32 and f64, the result has the input's dtype. Integers and
//!   halves are an error that says to cast; complex input is an error too
//!   (SciPy transforms real and imaginary parts separately: do that by hand).
//! - `n` (1-D) / `s` (n-D): the transform length; a longer input is
//!   truncated, a shorter one padded with zeros at the end. At least 1, and at
//!   least 2 for the DCT of type 1 (SciPy's rule).
//! - `norm`: with `N'` the length of the underlying FFT (`2 (n - 1)` for
//!   DCT-1, `2 (n + 1)` for DST-1, `2 n` otherwise), [`Norm::Backward`]
//!   leaves the forward transform unscaled and scales the inverse by `1/N'`,
//!   [`Norm::Ortho`] scales both by `1/sqrt(N')`, [`Norm::Forward`] scales
//!   the forward by `1/N'`. `orthogonalize` (default: `norm == Ortho`, as in
//!   SciPy >= 1.8) also scales the end terms of types 1-3 so that with
//!   `Ortho` the transform matrix is orthonormal.
//! - Inverses: `idct` of type 1, 2, 3, 4 is the DCT of type 1, 3, 2, 4 with
//!   backward and forward norm exchanged (likewise `idst`), so
//!   `idct(dct(x)) == x` for every type and norm.
//! - n-D: one 1-D pass per axis, each with its own norm factor; the default
//!   axes are all of them (the last `s.len()` when `s` is given).
//! - Devices: every device; on a GPU one complex FFT per row between two
//!   twiddle passes (`src/backend/gpu/dct.rs`), f64 where the adapter has it.

use crate::axes::Axes;
use crate::backend::{DctSpec, TrigKind};
use crate::dtype::DType;
use crate::error::{Error, Result};
use crate::layout::normalize_axis;
use crate::ops::fft::Norm;
use crate::tensor::Tensor;

/// Options of the 1-D transforms `dct`, `idct`, `dst`, `idst`:
/// `DctOptions { ty: 4, norm: Norm::Ortho, ..Default::default() }`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DctOptions {
    /// The transform type, 1 to 4 (SciPy's `type`; default 2).
    pub ty: u8,
    /// Transform length (pads with zeros or truncates); `None`: the input's.
    pub n: Option<usize>,
    /// The axis (default `-1`, the last).
    pub axis: isize,
    /// Scaling (default [`Norm::Backward`]).
    pub norm: Norm,
    /// SciPy's `orthogonalize`; `None` (default): `norm == Norm::Ortho`.
    pub orthogonalize: Option<bool>,
}

impl Default for DctOptions {
    fn default() -> Self {
        DctOptions {
            ty: 2,
            n: None,
            axis: -1,
            norm: Norm::Backward,
            orthogonalize: None,
        }
    }
}

/// Options of the n-D transforms `dctn`, `idctn`, `dstn`, `idstn`:
/// `DctnOptions { s: Some(vec![8, 8]), ..Default::default() }`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DctnOptions {
    /// The transform type, 1 to 4 (default 2).
    pub ty: u8,
    /// Transform length per axis of `axes`; `None`: the input's lengths.
    pub s: Option<Vec<usize>>,
    /// The axes; default every axis, or the last `s.len()` when `s` is given.
    /// Repeated axes are an error.
    pub axes: Axes,
    /// Scaling per axis (default [`Norm::Backward`]).
    pub norm: Norm,
    /// SciPy's `orthogonalize`; `None` (default): `norm == Norm::Ortho`.
    pub orthogonalize: Option<bool>,
}

impl Default for DctnOptions {
    fn default() -> Self {
        DctnOptions {
            ty: 2,
            s: None,
            axes: Axes::default_axes(),
            norm: Norm::Backward,
            orthogonalize: None,
        }
    }
}

/// Which transform a function computes.
#[derive(Clone, Copy)]
struct Which {
    kind: TrigKind,
    inverse: bool,
}

/// The input dtype, or an error naming `op` that says to cast.
fn check_dtype(op: &str, x: &Tensor) -> Result<()> {
    match x.dtype() {
        DType::F32 | DType::F64 => Ok(()),
        d if d.is_complex() => Err(Error::invalid(
            op,
            format!(
                "dtype {d} is not supported: transform the real and imaginary parts \
                 separately as f32/f64 tensors"
            ),
        )),
        d => Err(Error::invalid(
            op,
            format!("dtype {d} is not supported: cast to f32 or f64 first"),
        )),
    }
}

/// The transform type, or an error naming `op`.
fn check_type(op: &str, ty: u8) -> Result<()> {
    if (1..=4).contains(&ty) {
        Ok(())
    } else {
        Err(Error::invalid(
            op,
            format!("type {ty} is not a transform type: use 1, 2, 3 or 4"),
        ))
    }
}

/// The length of one pass: `n`, else the input's `m`; checked.
fn length(op: &str, n: Option<usize>, m: usize, kind: TrigKind, ty: u8) -> Result<usize> {
    let n = n.unwrap_or(m);
    let min = if kind == TrigKind::Cos && ty == 1 {
        2
    } else {
        1
    };
    if n < min {
        let what = if n == 0 && m == 0 {
            " (an empty axis needs n)"
        } else {
            ""
        };
        return Err(Error::invalid(
            op,
            format!(
                "invalid number of data points ({n}){what}: must be at least {min} for type {ty}"
            ),
        ));
    }
    Ok(n)
}

/// The spec of one 1-D pass of length `n` along an axis.
fn spec(w: Which, ty: u8, n: usize, norm: Norm, orthogonalize: Option<bool>) -> DctSpec {
    // An inverse is the forward transform of the inverse type with backward
    // and forward norm exchanged.
    let (ty, norm) = if w.inverse {
        let inv_ty = match ty {
            2 => 3,
            3 => 2,
            t => t,
        };
        let norm = match norm {
            Norm::Backward => Norm::Forward,
            Norm::Forward => Norm::Backward,
            Norm::Ortho => Norm::Ortho,
        };
        (inv_ty, norm)
    } else {
        (ty, norm)
    };
    let logical = match (w.kind, ty) {
        (TrigKind::Cos, 1) => 2 * (n - 1),
        (TrigKind::Sin, 1) => 2 * (n + 1),
        _ => 2 * n,
    } as f64;
    let scale = match norm {
        Norm::Backward => 1.0,
        Norm::Ortho => 1.0 / logical.sqrt(),
        Norm::Forward => 1.0 / logical,
    };
    DctSpec {
        kind: w.kind,
        ty,
        n,
        scale,
        orthogonalize: orthogonalize.unwrap_or(norm == Norm::Ortho),
    }
}

/// One 1-D pass along `axis` into a fresh tensor.
fn pass(op: &str, x: &Tensor, axis: usize, spec: &DctSpec) -> Result<Tensor> {
    let mut shape = x.shape().to_vec();
    shape[axis] = spec.n;
    let out = Tensor::empty_on(x.dtype(), &shape, x.device())?;
    super::locked(op, &[x], &[&out], || x.backend().dct(x, axis, spec, &out))?;
    Ok(out)
}

fn one_d(op: &str, x: &Tensor, o: &DctOptions, w: Which) -> Result<Tensor> {
    check_dtype(op, x)?;
    check_type(op, o.ty)?;
    let axis = normalize_axis(op, o.axis, x.ndim())?;
    let n = length(op, o.n, x.shape()[axis], w.kind, o.ty)?;
    pass(op, x, axis, &spec(w, o.ty, n, o.norm, o.orthogonalize))
}

fn n_d(op: &str, x: &Tensor, o: &DctnOptions, w: Which) -> Result<Tensor> {
    check_dtype(op, x)?;
    check_type(op, o.ty)?;
    let axes = super::fft::nd_axes(op, x.ndim(), &o.axes, o.s.as_deref(), x.ndim())?;
    if axes.is_empty() {
        return Err(Error::invalid(op, "at least one axis is needed"));
    }
    let specs = axes
        .iter()
        .enumerate()
        .map(|(i, &a)| {
            let n = length(op, o.s.as_ref().map(|s| s[i]), x.shape()[a], w.kind, o.ty)?;
            Ok(spec(w, o.ty, n, o.norm, o.orthogonalize))
        })
        .collect::<Result<Vec<_>>>()?;
    let mut cur = x.clone();
    for (&a, sp) in axes.iter().zip(&specs).rev() {
        cur = pass(op, &cur, a, sp)?;
    }
    Ok(cur)
}

const DCT: Which = Which {
    kind: TrigKind::Cos,
    inverse: false,
};
const IDCT: Which = Which {
    kind: TrigKind::Cos,
    inverse: true,
};
const DST: Which = Which {
    kind: TrigKind::Sin,
    inverse: false,
};
const IDST: Which = Which {
    kind: TrigKind::Sin,
    inverse: true,
};

impl Tensor {
    /// The discrete cosine transform of type 2 along the last axis, unscaled
    /// (SciPy's `scipy.fft.dct`): `y_k = 2 sum_j x_j cos(π k (2j+1) / (2n))`.
    /// f32 gives f32, f64 gives f64; other dtypes are an error (cast first).
    /// See [`Tensor::dct_with`] for the type, `n`, `axis`, `norm` and
    /// `orthogonalize`, and [`crate::backend::DctSpec`] for every definition.
    ///
    /// ```
    /// use rnx::{DctOptions, Tensor, DType};
    /// // SciPy's example: the DCT-1 is the DFT of the even extension
    /// // [4, 3, 5, 10, 5, 3], whose real part is [30, -8, 6, -2, 6, -8].
    /// let x = Tensor::create(DType::F64, &[4], &[4.0, 3.0, 5.0, 10.0]).unwrap();
    /// let y = x.dct_with(&DctOptions { ty: 1, ..Default::default() }).unwrap();
    /// let y = y.to_vec::<f64>().unwrap();
    /// assert!(y.iter().zip([30.0, -8.0, 6.0, -2.0]).all(|(a, b)| (a - b).abs() < 1e-12));
    /// // Type 2 (the default): y_0 = 2 * sum(x).
    /// assert!((x.dct().unwrap().to_vec::<f64>().unwrap()[0] - 44.0).abs() < 1e-12);
    /// ```
    pub fn dct(&self) -> Result<Tensor> {
        self.dct_with(&DctOptions::default())
    }
    /// [`Tensor::dct`] with options: `ty` (1-4), `n` pads (zeros) or
    /// truncates the axis, `axis` picks the axis (any strides; the other
    /// axes are a batch), `norm` the scaling, `orthogonalize` SciPy's variant
    /// (see the [module rules](crate::ops::dct)).
    ///
    /// ```
    /// use rnx::{DctOptions, Norm, Tensor, DType};
    /// let x = Tensor::create(DType::F64, &[3], &[1.0, 2.0, 3.0]).unwrap();
    /// // The orthonormal DCT-1 keeps the Euclidean norm.
    /// let o = DctOptions { ty: 1, norm: Norm::Ortho, ..Default::default() };
    /// let y = x.dct_with(&o).unwrap().to_vec::<f64>().unwrap();
    /// let e: f64 = y.iter().map(|v| v * v).sum();
    /// assert!((e - 14.0).abs() < 1e-12);
    /// ```
    pub fn dct_with(&self, o: &DctOptions) -> Result<Tensor> {
        one_d("dct", self, o, DCT)
    }
    /// The inverse of [`Tensor::dct`] (SciPy's `idct`): `idct(dct(x)) == x`.
    pub fn idct(&self) -> Result<Tensor> {
        self.idct_with(&DctOptions::default())
    }
    /// [`Tensor::idct`] with options (see [`Tensor::dct_with`]): the DCT of
    /// the inverse type (1, 3, 2, 4 for `ty` 1, 2, 3, 4) with backward and
    /// forward norm exchanged.
    ///
    /// ```
    /// use rnx::{DctOptions, Norm, Tensor, DType};
    /// let x = Tensor::create(DType::F32, &[5], &[1., 2., 3., 4., 5.]).unwrap();
    /// for ty in 1..=4 {
    ///     let o = DctOptions { ty, norm: Norm::Forward, ..Default::default() };
    ///     let back = x.dct_with(&o).unwrap().idct_with(&o).unwrap().to_vec::<f32>().unwrap();
    ///     assert!(back.iter().zip([1., 2., 3., 4., 5.]).all(|(a, b)| (a - b).abs() < 1e-5));
    /// }
    /// ```
    pub fn idct_with(&self, o: &DctOptions) -> Result<Tensor> {
        one_d("idct", self, o, IDCT)
    }
    /// The discrete sine transform of type 2 along the last axis, unscaled
    /// (SciPy's `scipy.fft.dst`): `y_k = 2 sum_j x_j sin(π (k+1) (2j+1) / (2n))`.
    /// The rules of [`Tensor::dct`].
    pub fn dst(&self) -> Result<Tensor> {
        self.dst_with(&DctOptions::default())
    }
    /// [`Tensor::dst`] with options (see [`Tensor::dct_with`]).
    pub fn dst_with(&self, o: &DctOptions) -> Result<Tensor> {
        one_d("dst", self, o, DST)
    }
    /// The inverse of [`Tensor::dst`] (SciPy's `idst`): `idst(dst(x)) == x`.
    pub fn idst(&self) -> Result<Tensor> {
        self.idst_with(&DctOptions::default())
    }
    /// [`Tensor::idst`] with options (see [`Tensor::idct_with`]).
    pub fn idst_with(&self, o: &DctOptions) -> Result<Tensor> {
        one_d("idst", self, o, IDST)
    }
    /// The n-D DCT (SciPy's `dctn`) over every axis: one 1-D [`Tensor::dct`]
    /// per axis. See [`Tensor::dctn_with`].
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// let x = Tensor::ones(DType::F64, &[2, 3]).unwrap();
    /// let y = x.dctn().unwrap().to_vec::<f64>().unwrap();
    /// // Only the zero-frequency term is non-zero: (2*2) * (2*3).
    /// assert!((y[0] - 24.0).abs() < 1e-12);
    /// assert!(y[1..].iter().all(|v| v.abs() < 1e-12));
    /// ```
    pub fn dctn(&self) -> Result<Tensor> {
        self.dctn_with(&DctnOptions::default())
    }
    /// [`Tensor::dctn`] with options: `ty`, `s` (lengths per axis), `axes`,
    /// `norm` (per axis), `orthogonalize`.
    pub fn dctn_with(&self, o: &DctnOptions) -> Result<Tensor> {
        n_d("dctn", self, o, DCT)
    }
    /// The inverse of [`Tensor::dctn`] (SciPy's `idctn`).
    pub fn idctn(&self) -> Result<Tensor> {
        self.idctn_with(&DctnOptions::default())
    }
    /// [`Tensor::idctn`] with options (see [`Tensor::dctn_with`]).
    pub fn idctn_with(&self, o: &DctnOptions) -> Result<Tensor> {
        n_d("idctn", self, o, IDCT)
    }
    /// The n-D DST (SciPy's `dstn`) over every axis.
    pub fn dstn(&self) -> Result<Tensor> {
        self.dstn_with(&DctnOptions::default())
    }
    /// [`Tensor::dstn`] with options (see [`Tensor::dctn_with`]).
    pub fn dstn_with(&self, o: &DctnOptions) -> Result<Tensor> {
        n_d("dstn", self, o, DST)
    }
    /// The inverse of [`Tensor::dstn`] (SciPy's `idstn`).
    pub fn idstn(&self) -> Result<Tensor> {
        self.idstn_with(&DctnOptions::default())
    }
    /// [`Tensor::idstn`] with options (see [`Tensor::dctn_with`]).
    pub fn idstn_with(&self, o: &DctnOptions) -> Result<Tensor> {
        n_d("idstn", self, o, IDST)
    }
}
