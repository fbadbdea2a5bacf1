//! Pooling (PyTorch `max_pool1d/2d`, `avg_pool1d/2d`, and the matching
//! `min_pool`): options, PyTorch's output-size and padding rules, and the
//! lowering to the backend's `window_reduce` primitive: one 1-D pass per
//! spatial axis (max, min and sums are separable), the padding taps skipped
//! as if they held the reduction's identity (the CPU kernel reads no padded
//! copy; other devices compose pad + window view + reduce). Average pooling
//! sums in f32 or f64, then divides by the window counts. Max-pool indices
//! come from an argmax over a padded copy of the windows
//! (`patches::window_view`). Every device runs it.

use super::patches::{extent, per_axis, window_view};
use crate::backend::{PoolWindow, ReduceOp};
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::tensor::Tensor;
use half::{bf16, f16};

/// Options of the pooling functions ([`Tensor::max_pool2d`] and friends).
/// `stride`, `padding` and `dilation` hold one value per spatial axis or one
/// value for all (empty: the default).
///
/// ```
/// use rnx::ops::pool::PoolOptions;
/// let o = PoolOptions { stride: vec![1], ceil_mode: true, ..Default::default() };
/// assert!(o.count_include_pad);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolOptions {
    /// Step between windows (>= 1; empty = the kernel size, as PyTorch).
    pub stride: Vec<usize>,
    /// Implicit padding on both sides (at most half the kernel size; empty = 0).
    /// Max pooling pads with -inf (the dtype's minimum for integers), min
    /// pooling with +inf (the maximum), average pooling with zeros.
    pub padding: Vec<usize>,
    /// Spacing between window taps (>= 1; empty = 1).
    pub dilation: Vec<usize>,
    /// Output size rounded up instead of down; a window that would start in
    /// the right padding (past the input) is dropped, as PyTorch does.
    pub ceil_mode: bool,
    /// Average pooling: divide by the window size including the padding (but
    /// not the extra right margin `ceil_mode` adds), as PyTorch's default;
    /// `false` divides by the number of input elements in the window.
    pub count_include_pad: bool,
}

impl Default for PoolOptions {
    fn default() -> Self {
        PoolOptions {
            stride: Vec::new(),
            padding: Vec::new(),
            dilation: Vec::new(),
            ceil_mode: false,
            count_include_pad: true,
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Max,
    Min,
    Avg,
}

/// A validated pooling problem: the input as `[N, C, spatial..]`, the
/// per-axis geometry, and the padding after each axis (which may exceed
/// `padding` under `ceil_mode`, or be less when the last window ends early).
struct Plan {
    x: Tensor,
    unbatched: bool,
    kernel: Vec<usize>,
    stride: Vec<usize>,
    dilation: Vec<usize>,
    padding: Vec<usize>,
    after: Vec<usize>,
    out: Vec<usize>,
}

fn plan(op: &str, x: &Tensor, kernel: &[usize], o: &PoolOptions) -> Result<Plan> {
    let k = kernel.len();
    let nd = x.ndim();
    if nd != k + 1 && nd != k + 2 {
        return Err(Error::invalid(
            op,
            format!(
                "input of shape {:?} must have rank {} ([N, C, spatial..]) or {} ([C, spatial..])",
                x.shape(),
                k + 2,
                k + 1
            ),
        ));
    }
    if kernel.contains(&0) {
        return Err(Error::invalid(
            op,
            format!("kernel size {kernel:?} must be at least 1"),
        ));
    }
    let stride = if o.stride.is_empty() {
        kernel.to_vec()
    } else {
        per_axis(op, "stride", &o.stride, k, 1)?
    };
    let padding = per_axis(op, "padding", &o.padding, k, 0)?;
    let dilation = per_axis(op, "dilation", &o.dilation, k, 1)?;
    if stride.contains(&0) || dilation.contains(&0) {
        return Err(Error::invalid(
            op,
            format!("stride {stride:?} and dilation {dilation:?} must be at least 1"),
        ));
    }
    if (0..k).any(|i| padding[i] > kernel[i] / 2) {
        return Err(Error::invalid(
            op,
            format!("padding {padding:?} must be at most half the kernel size {kernel:?}"),
        ));
    }
    let unbatched = nd == k + 1;
    let x = if unbatched {
        x.with_layout(x.layout().unsqueeze(0))
    } else {
        x.clone()
    };
    let spatial = x.shape()[2..].to_vec();
    let mut out = Vec::with_capacity(k);
    let mut after = Vec::with_capacity(k);
    for i in 0..k {
        let e = extent(op, kernel[i], dilation[i])? as i128;
        let (len, p, s) = (spatial[i] as i128, padding[i] as i128, stride[i] as i128);
        let num = len + 2 * p - e + if o.ceil_mode { s - 1 } else { 0 };
        let mut n = num.div_euclid(s) + 1;
        if o.ceil_mode && n > 0 && (n - 1) * s >= len + p {
            n -= 1;
        }
        if n < 1 {
            return Err(Error::invalid(
                op,
                format!(
                    "output size is too small: input {:?} with kernel {kernel:?}, stride {stride:?}, padding {padding:?}, dilation {dilation:?} gives no window",
                    x.shape()
                ),
            ));
        }
        out.push(n as usize);
        after.push(((n - 1) * s + e - len - p).max(0) as usize);
    }
    Ok(Plan {
        x,
        unbatched,
        kernel: kernel.to_vec(),
        stride,
        dilation,
        padding,
        after,
        out,
    })
}

/// The identity of a max (`max = true`: -inf, or the integer minimum) or min
/// reduction in `dtype`.
fn identity(dtype: DType, max: bool) -> Scalar {
    macro_rules! int {
        ($v:ident, $t:ty) => {
            Scalar::$v(if max { <$t>::MIN } else { <$t>::MAX })
        };
    }
    let inf = if max {
        f64::NEG_INFINITY
    } else {
        f64::INFINITY
    };
    match dtype {
        DType::F16 => Scalar::F16(f16::from_f64(inf)),
        DType::BF16 => Scalar::BF16(bf16::from_f64(inf)),
        DType::F8E5M2 => Scalar::F8E5M2(crate::F8E5M2::from_f64(inf)),
        // E4M3FN has no infinity: its extreme finite values are the identities.
        DType::F8E4M3 => Scalar::F8E4M3(if max {
            crate::F8E4M3::MIN
        } else {
            crate::F8E4M3::MAX
        }),
        DType::F32 => Scalar::F32(inf as f32),
        DType::I8 => int!(I8, i8),
        DType::I16 => int!(I16, i16),
        DType::I32 => int!(I32, i32),
        DType::I64 => int!(I64, i64),
        DType::U8 => int!(U8, u8),
        DType::U16 => int!(U16, u16),
        DType::U32 => int!(U32, u32),
        DType::U64 => int!(U64, u64),
        DType::I4 => int!(I4, crate::I4),
        DType::U4 => int!(U4, crate::U4),
        _ => Scalar::F64(inf),
    }
}

impl Plan {
    /// The windows `[N, C, out.., kernel..]` of the input padded with `fill`.
    fn windows(&self, op: &str, fill: Scalar) -> Result<Tensor> {
        let k = self.kernel.len();
        let xp = if self.padding.iter().chain(&self.after).any(|&p| p > 0) {
            let mut pads = vec![(0isize, 0isize); 2];
            pads.extend((0..k).map(|i| (self.padding[i] as isize, self.after[i] as isize)));
            self.x.pad(&pads, fill.to_dtype(self.x.dtype(), op)?)?
        } else {
            self.x.clone()
        };
        Ok(window_view(
            &xp,
            &self.kernel,
            &self.stride,
            &self.dilation,
            &self.out,
        ))
    }

    /// `x` (the plan's input, maybe cast) pooled by `op` starting from
    /// `init`: one `window_reduce` pass per spatial axis, the last axis
    /// first, each into a fresh tensor (max, min and sums are separable).
    fn passes(&self, name: &str, op: ReduceOp, x: &Tensor, init: Scalar) -> Result<Tensor> {
        let mut cur = if x.layout().is_c_contiguous() {
            x.clone()
        } else {
            x.contiguous()?
        };
        for i in (0..self.kernel.len()).rev() {
            let axis = 2 + i;
            let mut shape = cur.shape().to_vec();
            shape[axis] = self.out[i];
            let out = Tensor::empty_on(cur.dtype(), &shape, cur.device())?;
            let w = PoolWindow {
                size: self.kernel[i],
                stride: self.stride[i],
                dilation: self.dilation[i],
                before: self.padding[i],
            };
            super::locked_fresh(name, &[&cur], &out, || {
                cur.backend().window_reduce(op, &cur, axis, &w, init, &out)
            })?;
            cur = out;
        }
        Ok(cur)
    }

    fn window_axes(&self) -> Vec<isize> {
        (1..=self.kernel.len() as isize).map(|i| -i).collect()
    }

    fn finish(&self, t: Tensor) -> Tensor {
        if self.unbatched {
            t.with_layout(t.layout().squeeze(0))
        } else {
            t
        }
    }

    /// The divisor of average pooling per output position, `[out..]`.
    fn divisor(&self, dtype: DType, include_pad: bool) -> Result<Tensor> {
        let k = self.kernel.len();
        let mut div = vec![1.0f64];
        for i in 0..k {
            let len = self.x.shape()[2 + i] as i64;
            let p = self.padding[i] as i64;
            let (lo, hi) = if include_pad { (-p, len + p) } else { (0, len) };
            let counts: Vec<f64> = (0..self.out[i] as i64)
                .map(|o| {
                    (0..self.kernel[i] as i64)
                        .map(|t| o * self.stride[i] as i64 - p + t * self.dilation[i] as i64)
                        .filter(|&q| q >= lo && q < hi)
                        .count() as f64
                })
                .collect();
            div = div
                .iter()
                .flat_map(|&a| counts.iter().map(move |&c| a * c))
                .collect();
        }
        Tensor::create(dtype, &self.out, &div)?.to_device(self.x.device())
    }
}

fn pool(op: &str, x: &Tensor, kernel: &[usize], o: &PoolOptions, kind: Kind) -> Result<Tensor> {
    if x.dtype().is_complex() {
        return Err(Error::dtype(op, x.dtype()));
    }
    if kind == Kind::Avg && !x.dtype().is_float() {
        return Err(Error::invalid(
            op,
            format!(
                "dtype {} is not supported: average pooling needs a float dtype (cast to f32 or f64 first)",
                x.dtype()
            ),
        ));
    }
    let p = plan(op, x, kernel, o)?;
    let r = match kind {
        Kind::Max => p.passes(op, ReduceOp::Max, &p.x, identity(x.dtype(), true))?,
        Kind::Min => p.passes(op, ReduceOp::Min, &p.x, identity(x.dtype(), false))?,
        Kind::Avg => {
            let dt = x.dtype();
            let work = if dt.is_half() || dt.is_fp8() {
                DType::F32
            } else {
                dt
            };
            let xw = if work != dt {
                p.x.cast(work)?
            } else {
                p.x.clone()
            };
            let s = p.passes(op, ReduceOp::Sum, &xw, Scalar::from(0.0))?;
            let s = s.div(&p.divisor(work, o.count_include_pad)?)?;
            if work != dt {
                s.cast(dt)?
            } else {
                s
            }
        }
    };
    Ok(p.finish(r))
}

fn max_pool_indices(
    op: &str,
    x: &Tensor,
    kernel: &[usize],
    o: &PoolOptions,
) -> Result<(Tensor, Tensor)> {
    if x.dtype().is_complex() {
        return Err(Error::dtype(op, x.dtype()));
    }
    let p = plan(op, x, kernel, o)?;
    let k = kernel.len();
    let w = p.windows(op, identity(x.dtype(), true))?.copy()?;
    let values = w.max(p.window_axes(), false)?;
    let mut flat_shape = w.shape()[..2 + k].to_vec();
    flat_shape.push(kernel.iter().product());
    let mut j = w
        .reshape_exact(&flat_shape)?
        .argmax(-1, false)?
        .cast(DType::I64)?;
    // The tap (t_0..t_k) of the window, last axis first, then its position
    // in the input: o * stride - padding + t * dilation, moved forward to the
    // first tap inside the input when it lies in the left padding (only
    // possible when every element of the window is the padding value: then
    // PyTorch reports the window's first element inside the input).
    let dev = x.device();
    let mut index: Option<Tensor> = None;
    let mut plane = 1i64;
    for i in (0..k).rev() {
        let ki = kernel[i] as i64;
        let t = j.rem(ki)?;
        j = j.div(ki)?;
        let mut oshape = vec![p.out[i]];
        oshape.extend(vec![1usize; k - 1 - i]);
        let o_i = Tensor::arange(DType::I64, 0, p.out[i] as i64, 1)?
            .to_device(dev)?
            .reshape_exact(&oshape)?;
        let (s, pd, d) = (
            p.stride[i] as i64,
            p.padding[i] as i64,
            p.dilation[i] as i64,
        );
        let mut pos = o_i.mul(s)?.sub(pd)?.add(&t.mul(d)?)?;
        if pd > 0 {
            let neg = pos.mul(-1i64)?.clamp_min(0i64)?;
            let steps = neg.add(d - 1)?.div(d)?;
            pos = pos.add(&steps.mul(d)?)?;
        }
        let term = pos.mul(plane)?;
        index = Some(match index {
            None => term,
            Some(acc) => acc.add(&term)?,
        });
        plane *= p.x.shape()[2 + i] as i64;
    }
    let index = index.expect("at least one spatial axis");
    // Broadcast adds may leave a smaller shape when every window axis has
    // one output; bring it to the values' shape.
    let index = if index.shape() != values.shape() {
        index.broadcast_to(values.shape())?.copy()?
    } else {
        index
    };
    Ok((p.finish(values), p.finish(index)))
}

impl Tensor {
    /// 1-D max pooling (PyTorch `max_pool1d`) of `self` `[N, C, L]` or
    /// unbatched `[C, L]` with a window of `kernel` taps, giving `[N, C,
    /// L_out]` with
    /// `L_out = floor_or_ceil((L + 2 padding - dilation (kernel - 1) - 1) / stride) + 1`
    /// (see [`PoolOptions`]). Every real and integer
    /// dtype, exact; NaN propagates. A window holding no input element (only
    /// possible with dilation, e.g. kernel 2, dilation 2, padding 1 on a
    /// length-1 axis) gives the padding value; its index is unspecified.
    /// Errors: wrong rank, a zero kernel, stride
    /// or dilation, padding above `kernel / 2`, no window (output size 0),
    /// complex dtypes.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// use rnx::ops::pool::PoolOptions;
    /// let x = Tensor::create(DType::I32, &[1, 5], &[1, 3, 2, 5, 4]).unwrap();
    /// let y = x.max_pool1d(2, &PoolOptions::default()).unwrap();
    /// assert_eq!(y.to_vec::<i32>().unwrap(), vec![3, 5]);
    /// let o = PoolOptions { ceil_mode: true, ..Default::default() };
    /// assert_eq!(x.max_pool1d(2, &o).unwrap().to_vec::<i32>().unwrap(), vec![3, 5, 4]);
    /// ```
    pub fn max_pool1d(&self, kernel: usize, options: &PoolOptions) -> Result<Tensor> {
        pool("max_pool1d", self, &[kernel], options, Kind::Max)
    }

    /// 2-D max pooling (PyTorch `max_pool2d`) of `[N, C, H, W]` or unbatched
    /// `[C, H, W]` with a `[kh, kw]` window; per axis the rules of
    /// [`Tensor::max_pool1d`].
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// use rnx::ops::pool::PoolOptions;
    /// let x = Tensor::arange(DType::F32, 0, 16, 1).unwrap().reshape([1, 1, 4, 4]).unwrap();
    /// let y = x.max_pool2d([2, 2], &PoolOptions::default()).unwrap();
    /// assert_eq!(y.to_vec::<f32>().unwrap(), vec![5., 7., 13., 15.]);
    /// ```
    pub fn max_pool2d(&self, kernel: [usize; 2], options: &PoolOptions) -> Result<Tensor> {
        pool("max_pool2d", self, &kernel, options, Kind::Max)
    }

    /// [`Tensor::max_pool1d`] also returning, per output, the index (i64) of
    /// the maximum in the input's length axis (PyTorch `return_indices`): the
    /// first maximum of the window in tap order; NaN counts as the largest.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// use rnx::ops::pool::PoolOptions;
    /// let x = Tensor::create(DType::F32, &[1, 1, 4], &[1., 3., 2., 5.]).unwrap();
    /// let (v, i) = x.max_pool1d_with_indices(2, &PoolOptions::default()).unwrap();
    /// assert_eq!(v.to_vec::<f32>().unwrap(), vec![3., 5.]);
    /// assert_eq!(i.to_vec::<i64>().unwrap(), vec![1, 3]);
    /// ```
    pub fn max_pool1d_with_indices(
        &self,
        kernel: usize,
        options: &PoolOptions,
    ) -> Result<(Tensor, Tensor)> {
        max_pool_indices("max_pool1d_with_indices", self, &[kernel], options)
    }

    /// [`Tensor::max_pool2d`] also returning the flat index `h * W + w` (i64)
    /// of each maximum in its input plane (PyTorch `return_indices`).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// use rnx::ops::pool::PoolOptions;
    /// let x = Tensor::arange(DType::F32, 0, 16, 1).unwrap().reshape([1, 4, 4]).unwrap();
    /// let (_, i) = x.max_pool2d_with_indices([2, 2], &PoolOptions::default()).unwrap();
    /// assert_eq!(i.to_vec::<i64>().unwrap(), vec![5, 7, 13, 15]);
    /// ```
    pub fn max_pool2d_with_indices(
        &self,
        kernel: [usize; 2],
        options: &PoolOptions,
    ) -> Result<(Tensor, Tensor)> {
        max_pool_indices("max_pool2d_with_indices", self, &kernel, options)
    }

    /// 1-D min pooling: [`Tensor::max_pool1d`] with the minimum (padding is
    /// +inf, or the integer maximum).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// use rnx::ops::pool::PoolOptions;
    /// let x = Tensor::create(DType::U8, &[1, 4], &[4, 3, 2, 5]).unwrap();
    /// assert_eq!(x.min_pool1d(2, &PoolOptions::default()).unwrap().to_vec::<u8>().unwrap(), vec![3, 2]);
    /// ```
    pub fn min_pool1d(&self, kernel: usize, options: &PoolOptions) -> Result<Tensor> {
        pool("min_pool1d", self, &[kernel], options, Kind::Min)
    }

    /// 2-D min pooling: [`Tensor::max_pool2d`] with the minimum.
    pub fn min_pool2d(&self, kernel: [usize; 2], options: &PoolOptions) -> Result<Tensor> {
        pool("min_pool2d", self, &kernel, options, Kind::Min)
    }

    /// 1-D average pooling (PyTorch `avg_pool1d`, which has no dilation; here
    /// dilation spaces the taps as for max pooling). The sum of the window
    /// (zero padding) divided by its size counting the padding
    /// ([`PoolOptions::count_include_pad`], the default) or only the input
    /// elements. Float dtypes only (f16/bf16 computed in f32, rounded once):
    /// integers are an error that says to cast, as PyTorch has no integer
    /// average pooling.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// use rnx::ops::pool::PoolOptions;
    /// let x = Tensor::create(DType::F64, &[1, 1, 4], &[1., 2., 3., 4.]).unwrap();
    /// let o = PoolOptions { padding: vec![1], ..Default::default() };
    /// assert_eq!(x.avg_pool1d(2, &o).unwrap().to_vec::<f64>().unwrap(), vec![0.5, 2.5, 2.0]);
    /// let o = PoolOptions { padding: vec![1], count_include_pad: false, ..Default::default() };
    /// assert_eq!(x.avg_pool1d(2, &o).unwrap().to_vec::<f64>().unwrap(), vec![1.0, 2.5, 4.0]);
    /// ```
    pub fn avg_pool1d(&self, kernel: usize, options: &PoolOptions) -> Result<Tensor> {
        pool("avg_pool1d", self, &[kernel], options, Kind::Avg)
    }

    /// 2-D average pooling (PyTorch `avg_pool2d`); per axis the rules of
    /// [`Tensor::avg_pool1d`].
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// use rnx::ops::pool::PoolOptions;
    /// let x = Tensor::arange(DType::F32, 0, 16, 1).unwrap().reshape([1, 1, 4, 4]).unwrap();
    /// let y = x.avg_pool2d([2, 2], &PoolOptions::default()).unwrap();
    /// assert_eq!(y.to_vec::<f32>().unwrap(), vec![2.5, 4.5, 10.5, 12.5]);
    /// ```
    pub fn avg_pool2d(&self, kernel: [usize; 2], options: &PoolOptions) -> Result<Tensor> {
        pool("avg_pool2d", self, &kernel, options, Kind::Avg)
    }
}
