//! Convolutions (Nx `correlate1d`, `correlate2d`, `convolve1d`, `convolve2d`):
//! option structs, validation, output geometry, padding with `fillvalue`,
//! kernel flipping (a view) and the lowering to backend primitives: im2col (a
//! strided view of the padded input, copied by the backend) followed by one
//! batched matmul, or, on the CPU only, the backend's 3x3 kernel (Winograd
//! F(4,3)) where [`uses_winograd`] says it pays; GPU tensors always take
//! im2col + the GPU matmul kernel. Bias is copied into the output first
//! and the product accumulates onto it (no separate add pass, one rounding).
//! No host memory is touched here: every data movement is a backend call.

use super::{locked, same_device, same_dtype};
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::tensor::Tensor;

/// How much padding a convolution adds around the input.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Padding {
    /// No padding: only windows that lie fully inside the input.
    /// Output size `(len - dilation*(k-1) - 1) / stride + 1` (0 when the
    /// dilated kernel is longer than the input).
    #[default]
    Valid,
    /// Output size `ceil(len / stride)`; the total padding is
    /// `(out - 1) * stride + dilation*(k-1) + 1 - len` (at least 0). When it is
    /// odd (even kernels with stride 1), a correlation pads one more at the end
    /// (bottom/right, the seed's SciPy rule) and a convolution one more at the
    /// start (top/left, NumPy `convolve(.., "same")`).
    Same,
    /// Every overlap: `dilation*(k-1)` on both sides. Output size
    /// `(len + dilation*(k-1) - 1) / stride + 1` (0 for an empty input with a
    /// 1-tap kernel).
    Full,
}

/// Options of [`Tensor::correlate1d`] and [`Tensor::convolve1d`].
///
/// ```
/// use rnx::ops::conv::{Conv1dOptions, Padding};
/// let o = Conv1dOptions { padding: Padding::Same, ..Default::default() };
/// assert_eq!((o.groups, o.stride, o.dilation), (1, 1, 1));
/// ```
#[derive(Clone, Debug)]
pub struct Conv1dOptions {
    /// Channel groups: input channels and output channels are split into
    /// `groups` equal parts, part `i` of the output seeing part `i` of the input.
    pub groups: usize,
    /// Step between windows (>= 1).
    pub stride: usize,
    /// Padding mode.
    pub padding: Padding,
    /// Spacing between kernel taps (>= 1).
    pub dilation: usize,
    /// Value of the padded elements (converted to the dtype; must be representable).
    pub fillvalue: f64,
    /// Optional per-output-channel bias, shape `[channels_out]`.
    pub bias: Option<Tensor>,
}

impl Default for Conv1dOptions {
    fn default() -> Self {
        Conv1dOptions {
            groups: 1,
            stride: 1,
            padding: Padding::Valid,
            dilation: 1,
            fillvalue: 0.0,
            bias: None,
        }
    }
}

/// Options of [`Tensor::correlate2d`] and [`Tensor::convolve2d`]; pairs are
/// (height, width).
#[derive(Clone, Debug)]
pub struct Conv2dOptions {
    /// Channel groups (see [`Conv1dOptions::groups`]).
    pub groups: usize,
    /// Step between windows (>= 1).
    pub stride: [usize; 2],
    /// Padding mode.
    pub padding: Padding,
    /// Spacing between kernel taps (>= 1).
    pub dilation: [usize; 2],
    /// Value of the padded elements (converted to the dtype; must be representable).
    pub fillvalue: f64,
    /// Optional per-output-channel bias, shape `[channels_out]`.
    pub bias: Option<Tensor>,
}

impl Default for Conv2dOptions {
    fn default() -> Self {
        Conv2dOptions {
            groups: 1,
            stride: [1, 1],
            padding: Padding::Valid,
            dilation: [1, 1],
            fillvalue: 0.0,
            bias: None,
        }
    }
}

/// Elements of the im2col buffer per chunk of samples (bounds its memory; a
/// chunk holds at least one sample).
const COLS_MAX_ELEMS: usize = 1 << 22;

/// Input and output channels per group from which Winograd may be used.
pub const WINOGRAD_MIN_CHANNELS: usize = 32;

/// Output tiles (4x4, over the whole batch) from which Winograd is used when
/// the channels per group are at least [`WINOGRAD_MIN_CHANNELS`] but under
/// [`WINOGRAD_WIDE_CHANNELS`].
pub const WINOGRAD_MIN_TILES: usize = 512;

/// Channels per group from which Winograd already pays at
/// [`WINOGRAD_WIDE_MIN_TILES`] output tiles.
pub const WINOGRAD_WIDE_CHANNELS: usize = 64;

/// Output tiles from which Winograd is used with at least
/// [`WINOGRAD_WIDE_CHANNELS`] channels per group.
pub const WINOGRAD_WIDE_MIN_TILES: usize = 192;

/// Whether a correlation of CPU tensors runs through the backend's Winograd
/// F(4,3) kernel instead of im2col + matmul (on the GPU the caller never uses
/// Winograd: it was not measured to win there). The rule: arithmetic in f32 or f64 (`dtype`;
/// f16/bf16 convolutions compute in f32 and follow the f32 rule), a 3x3
/// kernel, stride 1 and dilation 1 on both axes, an output of at least 4x4
/// (one full tile), and enough work in the 36 channel products: with
/// `c = min(cg, og)` channels per group and `tiles = batch * ceil(oh / 4) *
/// ceil(ow / 4)` output tiles (the column count of each product), Winograd
/// runs when `c >= 64` and `tiles >= 192`, or `c >= 32` and `tiles >= 512`.
///
/// Winograd does 36 instead of 144 multiplies per 4x4 tile and channel pair
/// but pays for tile transforms and runs 36 narrow products, so it needs
/// wide enough products. The bounds come from a grid timed with `cargo run
/// --release --example tiers -- conv B` for batch B in 1, 2, 4, 8, 16, 32
/// and with `RNX_WINOGRAD=0` (2-core EPYC VM, f32, images 8x8 to 112x112,
/// 16 to 256 channels; best of two runs each, Winograd time / im2col time):
/// at 16 channels the two tie (0.84-1.3) at every size; below 192 tiles
/// Winograd loses at every channel count from 32 to 128 (e.g. 14x14 batch
/// 8, 128 tiles, 64 channels: 2.7 vs 1.8 ms; 8x8 batch 1, 256 channels: 9.8
/// vs 1.2 ms); from 192 to 511 tiles it wins or ties from 64 channels
/// (28x28 batch 4: 0.90-0.99; 28x28 batch 8: 0.75-0.87) but loses at 32-48
/// (56x56 batch 2: 1.17-1.38); from 512 tiles it wins from 32 channels
/// (0.61-0.97; 112x112 batch 2, 128 channels: 54.6 vs 75.2 ms; 14x14 batch
/// 32, 32 channels: 2.6 vs 2.9 ms).
///
/// Tolerance: its results match the direct sum within 1e-5 (f32) and
/// 2e-14 (f64) of the sum of absolute products and bias per output, the
/// bounds `tests/suite/conv.rs` asserts (worst measured there: 2.3e-6 and 5.0e-15).
///
/// ```
/// use rnx::DType;
/// use rnx::ops::conv::uses_winograd;
/// // 8 images of 56x56: 8 * 14 * 14 = 1568 tiles.
/// assert!(uses_winograd(DType::F32, [3, 3], [1, 1], [1, 1], [64, 64], 8, [56, 56]));
/// assert!(uses_winograd(DType::F32, [3, 3], [1, 1], [1, 1], [32, 32], 8, [56, 56]));
/// // One 8x8 image is 4 tiles: too narrow.
/// assert!(!uses_winograd(DType::F32, [3, 3], [1, 1], [1, 1], [256, 256], 1, [8, 8]));
/// assert!(!uses_winograd(DType::F32, [3, 3], [2, 2], [1, 1], [64, 64], 8, [56, 56]));
/// assert!(!uses_winograd(DType::F16, [3, 3], [1, 1], [1, 1], [64, 64], 8, [56, 56]));
/// ```
#[doc(hidden)]
pub fn uses_winograd(
    dtype: DType,
    kernel: [usize; 2],
    stride: [usize; 2],
    dilation: [usize; 2],
    [cg, og]: [usize; 2],
    batch: usize,
    [oh, ow]: [usize; 2],
) -> bool {
    let channels = cg.min(og);
    let tiles = batch
        .saturating_mul(oh.div_ceil(4))
        .saturating_mul(ow.div_ceil(4));
    let wide_enough = (channels >= WINOGRAD_WIDE_CHANNELS && tiles >= WINOGRAD_WIDE_MIN_TILES)
        || (channels >= WINOGRAD_MIN_CHANNELS && tiles >= WINOGRAD_MIN_TILES);
    winograd_enabled()
        && matches!(dtype, DType::F32 | DType::F64)
        && kernel == [3, 3]
        && stride == [1, 1]
        && dilation == [1, 1]
        && oh >= 4
        && ow >= 4
        && wide_enough
}

/// Whether Winograd may be used at all: `RNX_WINOGRAD=0` in the environment
/// (read once) turns it off, so every correlation takes im2col + matmul (to
/// compare speed or rounding).
fn winograd_enabled() -> bool {
    static ON: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    *ON.get_or_init(|| crate::env::switch_on("RNX_WINOGRAD"))
}

/// Padding (before, after) and output length of one spatial axis, or an error
/// naming `op` when the dilated kernel's extent overflows.
fn axis_plan(
    op: &str,
    len: usize,
    k: usize,
    stride: usize,
    dil: usize,
    mode: Padding,
    flip: bool,
) -> Result<(usize, usize, usize)> {
    let ke = dil
        .checked_mul(k - 1)
        .and_then(|e| e.checked_add(1))
        .filter(|e| {
            e.checked_add(len)
                .is_some_and(|t| t.checked_add(*e).is_some())
        })
        .ok_or_else(|| {
            Error::invalid(
                op,
                format!("dilation {dil} with kernel size {k} overflows on an axis of {len}"),
            )
        })?;
    Ok(match mode {
        Padding::Valid => (
            0,
            0,
            if len >= ke {
                (len - ke) / stride + 1
            } else {
                0
            },
        ),
        Padding::Full => {
            let windows = len + ke - 1;
            (
                ke - 1,
                ke - 1,
                if windows == 0 {
                    0
                } else {
                    (windows - 1) / stride + 1
                },
            )
        }
        Padding::Same => {
            let out = len.div_ceil(stride);
            let total = (out.saturating_sub(1) * stride + ke).saturating_sub(len);
            let (lo, hi) = if flip {
                (total - total / 2, total / 2)
            } else {
                (total / 2, total - total / 2)
            };
            (lo, hi, out)
        }
    })
}

/// The shared 2-D implementation (1-D runs with height 1); `shapes` are the
/// caller's input and kernel shapes, for error messages.
#[allow(clippy::too_many_arguments)]
fn conv2d(
    op: &str,
    shapes: [&[usize]; 2],
    x: &Tensor,
    w: &Tensor,
    groups: usize,
    stride: [usize; 2],
    padding: Padding,
    dilation: [usize; 2],
    fillvalue: f64,
    bias: Option<&Tensor>,
    flip: bool,
) -> Result<Tensor> {
    let (n, c, h, wd) = (x.shape()[0], x.shape()[1], x.shape()[2], x.shape()[3]);
    let (o, cg, kh, kw) = (w.shape()[0], w.shape()[1], w.shape()[2], w.shape()[3]);
    if groups == 0 || c % groups != 0 || o % groups != 0 {
        return Err(Error::invalid(
            op,
            format!("groups {groups} must divide channels_in {c} and channels_out {o}"),
        ));
    }
    if cg != c / groups {
        return Err(Error::shapes(
            op,
            shapes[0],
            shapes[1],
            format!(
                "do not match: the kernel has {cg} input channels but channels_in / groups = {c} / {groups} = {}",
                c / groups
            ),
        ));
    }
    if kh == 0 || kw == 0 {
        return Err(Error::invalid(
            op,
            format!("kernel shape {:?} has an empty spatial axis", shapes[1]),
        ));
    }
    let dtype = x.dtype();
    let fill = Scalar::from(fillvalue).to_dtype(dtype, op)?;
    let (pt, pb, oh) = axis_plan(op, h, kh, stride[0], dilation[0], padding, flip)?;
    let (pl, pr, ow) = axis_plan(op, wd, kw, stride[1], dilation[1], padding, flip)?;
    if let Some(b) = bias {
        same_device(op, &[x, b])?;
        same_dtype(op, &[x, b])?;
        if b.shape() != [o] {
            return Err(Error::shapes(
                op,
                b.shape(),
                &[o],
                "differ: bias must have shape [channels_out]",
            ));
        }
    }
    crate::layout::checked_numel(op, &[n, o, oh, ow])?;
    crate::layout::checked_numel(op, &[n, c, h + pt + pb, wd + pl + pr])?;
    if matches!(dtype, DType::F16 | DType::BF16) {
        // Halves: computed in f32 (inputs widened exactly, the fill value as
        // the half holds it) and rounded once per result.
        let wide = |t: &Tensor| t.cast(DType::F32);
        let b32 = bias.map(wide).transpose()?;
        let r = conv2d(
            op,
            shapes,
            &wide(x)?,
            &wide(w)?,
            groups,
            stride,
            padding,
            dilation,
            fill.to_re_im().0,
            b32.as_ref(),
            flip,
        )?;
        return r.cast(dtype);
    }
    // Every element is written below: by the bias copy, or by the product.
    let out = Tensor::empty_on(dtype, &[n, o, oh, ow], x.device())?;
    if out.numel() == 0 {
        return Ok(out);
    }
    // The padded input (filled, then the interior overwritten).
    let xp = if pt + pb + pl + pr == 0 {
        x.clone()
    } else {
        let xp = Tensor::empty_on(dtype, &[n, c, h + pt + pb, wd + pl + pr], x.device())?;
        let inner = xp.with_layout(xp.layout().slice_axis(2, pt, h, 1).slice_axis(3, pl, wd, 1));
        locked(op, &[x], &[&xp], || {
            xp.backend().fill(&xp, fill)?;
            xp.backend().copy(x, &inner)
        })?;
        xp
    };
    // Convolution = correlation with the kernel flipped (a view).
    let wf = if flip {
        w.with_layout(w.layout().flip_axis(2).flip_axis(3))
    } else {
        w.clone()
    };
    let accumulate = bias.is_some();
    if let Some(b) = bias {
        let bl = Layout::new(
            vec![n, o, oh, ow],
            vec![0, b.layout().strides()[0], 0, 0],
            b.layout().offset(),
        );
        let bv = b.with_layout(bl);
        locked(op, &[b], &[&out], || out.backend().copy(&bv, &out))?;
    }
    // Winograd is a CPU kernel: on other devices (the GPU) every correlation
    // runs as im2col + the device's matmul kernel.
    let winograd = x.device() == crate::Device::Cpu
        && uses_winograd(
            dtype,
            [kh, kw],
            stride,
            dilation,
            [cg, o / groups],
            n,
            [oh, ow],
        );
    // The padded input may extend past the last window (stride > 1): crop it.
    let (hn, wn) = (
        (oh - 1) * stride[0] + dilation[0] * (kh - 1) + 1,
        (ow - 1) * stride[1] + dilation[1] * (kw - 1) + 1,
    );
    let xp = xp.with_layout(xp.layout().slice_axis(2, 0, hn, 1).slice_axis(3, 0, wn, 1));
    if winograd {
        locked(op, &[&xp, w], &[&out], || {
            out.backend().conv3x3(&xp, &wf, &out, groups, accumulate)
        })?;
        return Ok(out);
    }
    im2col_gemm(
        op,
        &xp,
        &wf,
        &out,
        groups,
        stride,
        dilation,
        accumulate,
        [kh, kw],
    )?;
    Ok(out)
}

/// `out (+)= correlate(xp, w)` through an im2col buffer and one batched matmul,
/// in chunks of samples that bound the buffer's size.
#[allow(clippy::too_many_arguments)]
fn im2col_gemm(
    op: &str,
    xp: &Tensor,
    w: &Tensor,
    out: &Tensor,
    groups: usize,
    stride: [usize; 2],
    dilation: [usize; 2],
    accumulate: bool,
    [kh, kw]: [usize; 2],
) -> Result<()> {
    let (n, c) = (xp.shape()[0], xp.shape()[1]);
    let (o, oh, ow) = (out.shape()[1], out.shape()[2], out.shape()[3]);
    let (cg, og) = (c / groups, o / groups);
    let kk = cg * kh * kw;
    // Weights as [groups, og, cg*kh*kw] (copied only if the view cannot be).
    let wg = match w.layout().reshape(&[groups, og, kk]) {
        Some(l) => w.with_layout(l),
        None => {
            let wc = w.copy()?;
            wc.with_layout(wc.layout().reshape(&[groups, og, kk]).expect("contiguous"))
        }
    };
    let per_sample = c
        .saturating_mul(kh * kw)
        .saturating_mul(oh)
        .saturating_mul(ow);
    let chunk = (COLS_MAX_ELEMS / per_sample.max(1)).clamp(1, n);
    let xs = xp.layout().strides().to_vec();
    let mut s0 = 0;
    while s0 < n {
        let nc = chunk.min(n - s0);
        let xl = xp.layout().slice_axis(0, s0, nc, 1);
        // The im2col view: [nc, groups, cg, kh, kw, oh, ow].
        let view = Layout::new(
            vec![nc, groups, cg, kh, kw, oh, ow],
            vec![
                xs[0],
                xs[1] * cg as isize,
                xs[1],
                xs[2] * dilation[0] as isize,
                xs[3] * dilation[1] as isize,
                xs[2] * stride[0] as isize,
                xs[3] * stride[1] as isize,
            ],
            xl.offset(),
        );
        let cols_shape = [nc, groups, kk, oh * ow];
        let cols = match view.reshape(&cols_shape) {
            Some(l) => xp.with_layout(l),
            None => {
                let buf =
                    Tensor::empty_on(xp.dtype(), &[nc, groups, cg, kh, kw, oh, ow], xp.device())?;
                let src = xp.with_layout(view);
                locked(op, &[xp], &[&buf], || buf.backend().copy(&src, &buf))?;
                buf.with_layout(buf.layout().reshape(&cols_shape).expect("contiguous"))
            }
        };
        let wl = Layout::new(
            vec![nc, groups, og, kk],
            [&[0isize][..], wg.layout().strides()].concat(),
            wg.layout().offset(),
        );
        let wv = wg.with_layout(wl);
        let ol = out.layout().slice_axis(0, s0, nc, 1);
        let ov = out.with_layout(
            ol.reshape(&[nc, groups, og, oh * ow])
                .expect("contiguous output"),
        );
        locked(op, &[&cols, &wv], &[out], || {
            out.backend().matmul(&wv, &cols, &ov, accumulate)
        })?;
        s0 += nc;
    }
    Ok(())
}

fn check_ranks(op: &str, x: &Tensor, w: &Tensor, rank: usize) -> Result<()> {
    same_device(op, &[x, w])?;
    same_dtype(op, &[x, w])?;
    if x.ndim() != rank || w.ndim() != rank {
        return Err(Error::shapes(
            op,
            x.shape(),
            w.shape(),
            format!("must both have rank {rank} (input [batch, channels_in, ..], kernel [channels_out, channels_in / groups, ..])"),
        ));
    }
    Ok(())
}

fn conv1d(op: &str, x: &Tensor, w: &Tensor, o: &Conv1dOptions, flip: bool) -> Result<Tensor> {
    check_ranks(op, x, w, 3)?;
    if o.stride == 0 || o.dilation == 0 {
        return Err(Error::invalid(
            op,
            format!(
                "stride {} and dilation {} must be at least 1",
                o.stride, o.dilation
            ),
        ));
    }
    let x4 = x.with_layout(x.layout().unsqueeze(2));
    let w4 = w.with_layout(w.layout().unsqueeze(2));
    let r = conv2d(
        op,
        [x.shape(), w.shape()],
        &x4,
        &w4,
        o.groups,
        [1, o.stride],
        o.padding,
        [1, o.dilation],
        o.fillvalue,
        o.bias.as_ref(),
        flip,
    )?;
    Ok(r.with_layout(r.layout().squeeze(2)))
}

fn conv2d_api(op: &str, x: &Tensor, w: &Tensor, o: &Conv2dOptions, flip: bool) -> Result<Tensor> {
    check_ranks(op, x, w, 4)?;
    if o.stride.contains(&0) || o.dilation.contains(&0) {
        return Err(Error::invalid(
            op,
            format!(
                "stride {:?} and dilation {:?} must be at least 1",
                o.stride, o.dilation
            ),
        ));
    }
    conv2d(
        op,
        [x.shape(), w.shape()],
        x,
        w,
        o.groups,
        o.stride,
        o.padding,
        o.dilation,
        o.fillvalue,
        o.bias.as_ref(),
        flip,
    )
}

impl Tensor {
    /// 1-D cross-correlation (no kernel flip) of `self` `[batch, channels_in,
    /// width]` with `w` `[channels_out, channels_in / groups, kernel]`, giving
    /// `[batch, channels_out, out_width]`:
    /// `out[b, o, i] = bias[o] + sum_{c, t} x_pad[b, g*cg + c, i*stride + t*dilation] * w[o, c, t]`
    /// where `g` is the group of output channel `o`. See [`Padding`] for the
    /// output width. Every real, integer and complex dtype: integers wrap,
    /// f16/bf16 are computed in f32 and rounded once per result.
    /// Errors: ranks other than 3, channels not divisible by `groups`, a kernel
    /// channel count other than `channels_in / groups`, zero stride or dilation,
    /// a bias of the wrong shape, a `fillvalue` the dtype cannot hold.
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// use rnx::ops::conv::Conv1dOptions;
    /// let x = Tensor::create(DType::F32, &[1, 1, 5], &[1., 2., 3., 4., 5.]).unwrap();
    /// let w = Tensor::create(DType::F32, &[1, 1, 3], &[1., 0., -1.]).unwrap();
    /// let y = x.correlate1d(&w, &Conv1dOptions::default()).unwrap();
    /// assert_eq!(y.to_string(), "[[[-2, -2, -2]]]");
    /// ```
    pub fn correlate1d(&self, w: &Tensor, options: &Conv1dOptions) -> Result<Tensor> {
        conv1d("correlate1d", self, w, options, false)
    }

    /// 1-D convolution: [`Tensor::correlate1d`] with the kernel flipped.
    /// For [`Padding::Same`] with an odd total padding, pads one more at the
    /// start (NumPy).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// use rnx::ops::conv::Conv1dOptions;
    /// let x = Tensor::create(DType::F32, &[1, 1, 3], &[1., 2., 3.]).unwrap();
    /// let w = Tensor::create(DType::F32, &[1, 1, 2], &[4., 5.]).unwrap();
    /// assert_eq!(x.convolve1d(&w, &Conv1dOptions::default()).unwrap().to_string(), "[[[13, 22]]]");
    /// ```
    pub fn convolve1d(&self, w: &Tensor, options: &Conv1dOptions) -> Result<Tensor> {
        conv1d("convolve1d", self, w, options, true)
    }

    /// 2-D cross-correlation of `self` `[batch, channels_in, height, width]`
    /// with `w` `[channels_out, channels_in / groups, kh, kw]`, giving
    /// `[batch, channels_out, out_h, out_w]`; the rules of
    /// [`Tensor::correlate1d`] per axis. f32/f64 3x3 kernels with stride 1 and
    /// dilation 1 and enough channels and output tiles use Winograd F(4,3) (the rule and its
    /// error bound are at [`uses_winograd`]); everything else runs as im2col +
    /// matmul. For [`Padding::Same`] with an odd total padding, pads one more
    /// at the end (bottom/right).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// use rnx::ops::conv::Conv2dOptions;
    /// let image = Tensor::ones(DType::F32, &[1, 1, 5, 5]).unwrap();
    /// let sobel_x = Tensor::create(DType::F32, &[1, 1, 3, 3], &[1., 0., -1., 2., 0., -2., 1., 0., -1.]).unwrap();
    /// assert_eq!(image.correlate2d(&sobel_x, &Conv2dOptions::default()).unwrap().shape(), &[1, 1, 3, 3]);
    /// ```
    pub fn correlate2d(&self, w: &Tensor, options: &Conv2dOptions) -> Result<Tensor> {
        conv2d_api("correlate2d", self, w, options, false)
    }

    /// 2-D convolution: [`Tensor::correlate2d`] with the kernel flipped on both
    /// spatial axes. For [`Padding::Same`] with an odd total padding, pads one
    /// more at the start (top/left).
    ///
    /// ```
    /// use rnx::{Tensor, DType};
    /// use rnx::ops::conv::{Conv2dOptions, Padding};
    /// let x = Tensor::create(DType::F64, &[1, 1, 2, 2], &[1., 2., 3., 4.]).unwrap();
    /// let w = Tensor::create(DType::F64, &[1, 1, 2, 2], &[1., 0., 0., 10.]).unwrap();
    /// let o = Conv2dOptions { padding: Padding::Same, ..Default::default() };
    /// // Same pads top/left for a convolution: out[i, j] = x[i, j] + 10 * x[i-1, j-1].
    /// assert_eq!(x.convolve2d(&w, &o).unwrap().to_vec::<f64>().unwrap(), vec![1., 2., 3., 14.]);
    /// ```
    pub fn convolve2d(&self, w: &Tensor, options: &Conv2dOptions) -> Result<Tensor> {
        conv2d_api("convolve2d", self, w, options, true)
    }
}
