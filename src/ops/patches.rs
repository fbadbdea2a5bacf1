//! Sliding-window patches (Nx `extract_patches` / `combine_patches`, PyTorch
//! `unfold` / `fold`) and the strided window VIEW that pooling and filters
//! share: a window over a tensor is a layout with one extra axis per spatial
//! axis (no copy), the same trick as the im2col view of `conv.rs`. Everything
//! here composes existing ops (pad, copy, add), so every device runs it.

use crate::dtype::Scalar;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::tensor::Tensor;

/// Options of [`Tensor::extract_patches`] and [`Tensor::combine_patches`].
/// Each field holds one value per spatial axis, or one value for every axis,
/// or nothing (the default: stride 1, dilation 1, padding 0).
///
/// ```
/// use rnx::ops::patches::PatchOptions;
/// let o = PatchOptions { stride: vec![2], ..Default::default() };
/// assert!(o.padding.is_empty());
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PatchOptions {
    /// Step between windows (>= 1; empty = 1).
    pub stride: Vec<usize>,
    /// Spacing between window taps (>= 1; empty = 1).
    pub dilation: Vec<usize>,
    /// Zeros added on both sides of each spatial axis (empty = 0).
    pub padding: Vec<usize>,
}

/// `v` resolved to `k` per-axis values: empty gives `default`, one value is
/// repeated, `k` values are taken as they are; anything else is an error
/// naming `op` and the option `name`.
pub(crate) fn per_axis(
    op: &str,
    name: &str,
    v: &[usize],
    k: usize,
    default: usize,
) -> Result<Vec<usize>> {
    match v.len() {
        0 => Ok(vec![default; k]),
        1 => Ok(vec![v[0]; k]),
        n if n == k => Ok(v.to_vec()),
        n => Err(Error::invalid(
            op,
            format!("{name} {v:?} has {n} values but there are {k} spatial axes (give 1 or {k})"),
        )),
    }
}

/// The extent `dilation * (k - 1) + 1` of a dilated window, or an error on overflow.
pub(crate) fn extent(op: &str, k: usize, dilation: usize) -> Result<usize> {
    dilation
        .checked_mul(k.saturating_sub(1))
        .and_then(|e| e.checked_add(1))
        .ok_or_else(|| {
            Error::invalid(
                op,
                format!("dilation {dilation} with kernel size {k} overflows"),
            )
        })
}

/// `t` (whose last `kernel.len()` axes are spatial) viewed as `[lead..,
/// out_1..out_k, kernel_1..kernel_k]`: element `[.., o, j]` is
/// `t[.., o * stride + j * dilation]`. No copy. The caller guarantees every
/// window lies inside `t`: `(out - 1) * stride + dilation * (kernel - 1) < len`
/// on each axis with `out > 0`.
pub(crate) fn window_view(
    t: &Tensor,
    kernel: &[usize],
    stride: &[usize],
    dilation: &[usize],
    out: &[usize],
) -> Tensor {
    let k = kernel.len();
    let lead = t.ndim() - k;
    let s = t.layout().strides();
    let mut shape = t.shape()[..lead].to_vec();
    let mut strides = s[..lead].to_vec();
    shape.extend_from_slice(out);
    shape.extend_from_slice(kernel);
    strides.extend((0..k).map(|i| s[lead + i] * stride[i] as isize));
    strides.extend((0..k).map(|i| s[lead + i] * dilation[i] as isize));
    t.with_layout(Layout::new(shape, strides, t.layout().offset()))
}

/// Validated geometry shared by extract and combine: per-axis stride,
/// dilation, padding and the number of windows.
struct Geometry {
    stride: Vec<usize>,
    dilation: Vec<usize>,
    padding: Vec<usize>,
    out: Vec<usize>,
}

fn geometry(op: &str, spatial: &[usize], kernel: &[usize], o: &PatchOptions) -> Result<Geometry> {
    let k = kernel.len();
    if k == 0 || kernel.contains(&0) {
        return Err(Error::invalid(
            op,
            format!("kernel size {kernel:?} must be non-empty with every entry at least 1"),
        ));
    }
    let stride = per_axis(op, "stride", &o.stride, k, 1)?;
    let dilation = per_axis(op, "dilation", &o.dilation, k, 1)?;
    let padding = per_axis(op, "padding", &o.padding, k, 0)?;
    if stride.contains(&0) || dilation.contains(&0) {
        return Err(Error::invalid(
            op,
            format!("stride {stride:?} and dilation {dilation:?} must be at least 1"),
        ));
    }
    let mut out = Vec::with_capacity(k);
    for i in 0..k {
        let e = extent(op, kernel[i], dilation[i])?;
        let len = padding[i]
            .checked_mul(2)
            .and_then(|p| p.checked_add(spatial[i]))
            .ok_or_else(|| Error::invalid(op, format!("padding {padding:?} overflows")))?;
        if len < e {
            return Err(Error::invalid(
                op,
                format!(
                    "spatial size {spatial:?} with padding {padding:?} is smaller than the dilated kernel (kernel {kernel:?}, dilation {dilation:?}): no window fits"
                ),
            ));
        }
        out.push((len - e) / stride[i] + 1);
    }
    Ok(Geometry {
        stride,
        dilation,
        padding,
        out,
    })
}

impl Tensor {
    /// Sliding-window patches (PyTorch `unfold`, Nx `extract_patches`): for
    /// `self` `[N, C, d_1..d_k]` (or unbatched `[C, d_1..d_k]`) and a window of
    /// `kernel` `[k_1..k_k]`, returns `[N, C * k_1*..*k_k, L]` (or `[C * prod(k),
    /// L]`) where `L = prod(out_i)` and
    /// `out_i = (d_i + 2 p_i - dil_i (k_i - 1) - 1) / s_i + 1`. Row `c * prod(k) + j` (window tap `j` row-major) of column
    /// `l` (window `l` row-major) is the input at `o * stride - padding + j *
    /// dilation`, zero in the padding. Any number of spatial axes (PyTorch: 2).
    /// Every dtype. Errors: rank other than `k + 1` or `k + 2`, a zero kernel,
    /// stride or dilation, or a padded input smaller than the dilated kernel.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// use rnx::ops::patches::PatchOptions;
    /// let x = Tensor::arange(DType::I32, 0, 9, 1).unwrap().reshape([1, 1, 3, 3]).unwrap();
    /// let p = x.extract_patches(&[2, 2], &PatchOptions::default()).unwrap();
    /// assert_eq!(p.shape(), &[1, 4, 4]);
    /// // Tap (0, 0) of the four windows, then tap (0, 1), ...
    /// assert_eq!(p.to_vec::<i32>().unwrap(),
    ///            vec![0, 1, 3, 4, 1, 2, 4, 5, 3, 4, 6, 7, 4, 5, 7, 8]);
    /// ```
    pub fn extract_patches(&self, kernel: &[usize], options: &PatchOptions) -> Result<Tensor> {
        let op = "extract_patches";
        let k = kernel.len();
        let nd = self.ndim();
        if k == 0 || (nd != k + 1 && nd != k + 2) {
            return Err(Error::invalid(
                op,
                format!(
                    "input of shape {:?} must have rank {} ([N, C, spatial..]) or {} ([C, spatial..]) for a kernel {kernel:?}",
                    self.shape(),
                    k + 2,
                    k + 1
                ),
            ));
        }
        let x = if nd == k + 1 {
            self.with_layout(self.layout().unsqueeze(0))
        } else {
            self.clone()
        };
        let g = geometry(op, &x.shape()[2..], kernel, options)?;
        let (n, c) = (x.shape()[0], x.shape()[1]);
        let kk: usize = kernel.iter().product();
        let l: usize = g.out.iter().product();
        crate::layout::checked_numel(op, &[n, c, kk, l])?;
        let xp = if g.padding.iter().any(|&p| p > 0) {
            let mut pads = vec![(0isize, 0isize); 2];
            pads.extend(g.padding.iter().map(|&p| (p as isize, p as isize)));
            x.pad(&pads, Scalar::from(0).to_dtype(x.dtype(), op)?)?
        } else {
            x
        };
        let v = window_view(&xp, kernel, &g.stride, &g.dilation, &g.out);
        // [N, C, out.., kernel..] -> [N, C, kernel.., out..]
        let mut perm: Vec<usize> = vec![0, 1];
        perm.extend(2 + k..2 + 2 * k);
        perm.extend(2..2 + k);
        let v = v.with_layout(v.layout().permute(&perm)?);
        let r = v.copy()?;
        let shape: Vec<usize> = if nd == k + 1 {
            vec![c * kk, l]
        } else {
            vec![n, c * kk, l]
        };
        r.reshape_exact(&shape)
    }

    /// The inverse arrangement of [`Tensor::extract_patches`] (PyTorch `fold`,
    /// Nx `combine_patches`): `self` `[N, C * prod(kernel), L]` (or unbatched
    /// `[C * prod(kernel), L]`) is scattered back into `[N, C, output_size..]`,
    /// SUMMING the contributions of overlapping windows (so `combine(extract(x))
    /// = x * coverage count`, and `= x` for non-overlapping windows covering x).
    /// Taps that fall in the padding are dropped. `L` must equal the number of
    /// windows of `output_size` under the options. Every dtype (integers wrap;
    /// f16/bf16 round after each added tap).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// use rnx::ops::patches::PatchOptions;
    /// let x = Tensor::arange(DType::F32, 0, 16, 1).unwrap().reshape([1, 1, 4, 4]).unwrap();
    /// let o = PatchOptions { stride: vec![2], ..Default::default() };
    /// let p = x.extract_patches(&[2, 2], &o).unwrap();
    /// let back = p.combine_patches(&[4, 4], &[2, 2], &o).unwrap();
    /// assert_eq!(back.to_vec::<f32>().unwrap(), x.to_vec::<f32>().unwrap());
    /// ```
    pub fn combine_patches(
        &self,
        output_size: &[usize],
        kernel: &[usize],
        options: &PatchOptions,
    ) -> Result<Tensor> {
        let op = "combine_patches";
        let k = kernel.len();
        if k == 0 || output_size.len() != k {
            return Err(Error::invalid(
                op,
                format!("output size {output_size:?} and kernel {kernel:?} must have the same non-zero length"),
            ));
        }
        let nd = self.ndim();
        if nd != 2 && nd != 3 {
            return Err(Error::invalid(
                op,
                format!(
                    "input of shape {:?} must have rank 3 ([N, C * prod(kernel), L]) or 2",
                    self.shape()
                ),
            ));
        }
        let x = if nd == 2 {
            self.with_layout(self.layout().unsqueeze(0))
        } else {
            self.clone()
        };
        let g = geometry(op, output_size, kernel, options)?;
        let kk: usize = kernel.iter().product();
        let l: usize = g.out.iter().product();
        let (n, ckk, lx) = (x.shape()[0], x.shape()[1], x.shape()[2]);
        if ckk % kk != 0 || lx != l {
            return Err(Error::invalid(
                op,
                format!(
                    "input of shape {:?} does not match kernel {kernel:?} and output size {output_size:?}: dimension 1 must be a multiple of {kk} and dimension 2 must be {l} (the number of windows)",
                    self.shape()
                ),
            ));
        }
        let c = ckk / kk;
        let mut pshape = vec![n, c];
        pshape.extend((0..k).map(|i| output_size[i] + 2 * g.padding[i]));
        crate::layout::checked_numel(op, &pshape)?;
        let out = Tensor::zeros_on(x.dtype(), &pshape, x.device())?;
        // The patches as [N, C, kernel.., out..].
        let mut xshape = vec![n, c];
        xshape.extend_from_slice(kernel);
        xshape.extend_from_slice(&g.out);
        let xv = x.reshape_exact(&xshape)?;
        // One strided add per window tap: for a fixed tap the windows hit
        // distinct positions, so each add is a plain elementwise update.
        let os = out.layout().strides().to_vec();
        let mut tap = vec![0usize; k];
        for _ in 0..kk {
            let mut src = xv.clone();
            for &t in tap.iter() {
                src = src.with_layout(src.layout().select(2, t));
            }
            let mut offset = out.layout().offset() as isize;
            for i in 0..k {
                offset += os[2 + i] * (tap[i] * g.dilation[i]) as isize;
            }
            let mut shape = vec![n, c];
            shape.extend_from_slice(&g.out);
            let mut strides = vec![os[0], os[1]];
            strides.extend((0..k).map(|i| os[2 + i] * g.stride[i] as isize));
            let dst = out.with_layout(Layout::new(shape, strides, offset as usize));
            dst.add_(&src)?;
            for i in (0..k).rev() {
                tap[i] += 1;
                if tap[i] < kernel[i] {
                    break;
                }
                tap[i] = 0;
            }
        }
        let mut crop = out.layout().clone();
        for (i, (&p, &len)) in g.padding.iter().zip(output_size).enumerate() {
            crop = crop.slice_axis(2 + i, p, len, 1);
        }
        let r = out.with_layout(crop).copy()?;
        Ok(if nd == 2 {
            r.with_layout(r.layout().squeeze(0))
        } else {
            r
        })
    }
}
