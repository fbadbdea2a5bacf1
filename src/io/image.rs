//! PNG and JPEG images (`load_image`, `save_image`, `save_image_with` and their
//! `ImageOptions`) through the `image` crate (feature `image`, off by default;
//! only its png and jpeg codecs are compiled). Images are u8 tensors in HWC
//! layout: `[height, width, channels]`, channels 1 (gray), 2 (gray + alpha),
//! 3 (RGB) or 4 (RGBA).

use super::{bad, err, open, os, AtomicFile};
use crate::dtype::DType;
use crate::error::Result;
use crate::tensor::Tensor;
use image::{ExtendedColorType, ImageEncoder, ImageError, ImageFormat};
use std::io::{BufReader, ErrorKind};
use std::path::Path;

/// Options of [`save_image_with`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ImageOptions {
    /// JPEG quality, 1 (smallest file) to 100 (best); ignored for PNG.
    /// Default 90.
    pub jpeg_quality: u8,
}

impl Default for ImageOptions {
    fn default() -> Self {
        ImageOptions { jpeg_quality: 90 }
    }
}

/// The format named by the extension of `path` (`.png`, `.jpg`, `.jpeg`; any
/// case), or `None`.
fn format_of(path: &Path) -> Option<ImageFormat> {
    let ext = path.extension()?.to_str()?.to_ascii_lowercase();
    match ext.as_str() {
        "png" => Some(ImageFormat::Png),
        "jpg" | "jpeg" => Some(ImageFormat::Jpeg),
        _ => None,
    }
}

fn format_name(f: ImageFormat) -> &'static str {
    match f {
        ImageFormat::Png => "PNG",
        _ => "JPEG",
    }
}

/// An `image` crate error as an [`crate::Error::Io`] of `op` on `path`.
fn image_err(op: &str, path: &Path, fmt: ImageFormat, e: ImageError) -> crate::Error {
    match e {
        ImageError::IoError(e) => os(op, path, e),
        ImageError::Decoding(e) => bad(
            op,
            path,
            format!("corrupt or truncated {} file: {e}", format_name(fmt)),
        ),
        ImageError::Limits(e) => bad(op, path, format!("image too large: {e}")),
        ImageError::Unsupported(e) => bad(op, path, format!("unsupported image: {e}")),
        ImageError::Parameter(e) => err(op, path, ErrorKind::InvalidInput, e.to_string()),
        ImageError::Encoding(e) => err(op, path, ErrorKind::Other, e.to_string()),
    }
}

/// Load a PNG or JPEG file as a u8 tensor of shape `[height, width, channels]`
/// (HWC), on the CPU.
///
/// The format comes from the extension (`.png`, `.jpg`, `.jpeg`, any case);
/// a file with another extension is decoded as whichever of the two its first
/// bytes say. The channels are the file's: 1 (gray), 2 (gray + alpha, PNG), 3
/// (RGB) or 4 (RGBA, PNG); a gray image keeps its channel axis (`[h, w, 1]`).
/// Palette and 1/2/4-bit PNGs load expanded to 8 bits (RGB/RGBA or gray);
/// 16-bit PNGs are an error (rnx reads 8-bit images). Decoding uses
/// the `image` crate's default memory limit (512 MiB per image).
///
/// Errors ([`crate::Error::Io`], naming the file): a missing or unreadable
/// file keeps the OS's kind (`NotFound`, ...); a corrupt or truncated file, a
/// 16-bit image and an unknown format have kind `InvalidData`.
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("rnx-doc-img-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// use rnx::{Tensor, DType, load_image, save_image};
/// // A 2x3 RGB image: red, green, blue / black, gray, white.
/// let px: Vec<u8> = vec![255, 0, 0, 0, 255, 0, 0, 0, 255, 0, 0, 0, 128, 128, 128, 255, 255, 255];
/// let img = Tensor::from_vec(px.clone(), &[2, 3, 3])?;
/// let path = dir.join("tiny.png");
/// save_image(&path, &img)?;
/// let back = load_image(&path)?;
/// assert_eq!((back.dtype(), back.shape()), (DType::U8, &[2usize, 3, 3][..]));
/// assert_eq!(back.to_vec::<u8>()?, px); // PNG is lossless
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), rnx::Error>(())
/// ```
pub fn load_image(path: impl AsRef<Path>) -> Result<Tensor> {
    let (op, path) = ("load_image", path.as_ref());
    let f = open(op, path)?;
    let (reader, fmt) = match format_of(path) {
        Some(fmt) => (image::ImageReader::with_format(BufReader::new(f), fmt), fmt),
        None => {
            let r = image::ImageReader::new(BufReader::new(f))
                .with_guessed_format()
                .map_err(|e| os(op, path, e))?;
            match r.format() {
                Some(fmt @ (ImageFormat::Png | ImageFormat::Jpeg)) => (r, fmt),
                _ => {
                    return Err(bad(
                        op,
                        path,
                        "neither a PNG nor a JPEG file (unknown extension and contents)",
                    ))
                }
            }
        }
    };
    let img = reader.decode().map_err(|e| image_err(op, path, fmt, e))?;
    let (w, h) = (img.width() as usize, img.height() as usize);
    let (c, data) = match img {
        image::DynamicImage::ImageLuma8(b) => (1, b.into_raw()),
        image::DynamicImage::ImageLumaA8(b) => (2, b.into_raw()),
        image::DynamicImage::ImageRgb8(b) => (3, b.into_raw()),
        image::DynamicImage::ImageRgba8(b) => (4, b.into_raw()),
        other => {
            return Err(bad(
                op,
                path,
                format!(
                "{:?} pixels (16-bit or float channels) are not supported: rnx loads 8-bit images",
                other.color()
            ),
            ))
        }
    };
    Tensor::from_vec(data, &[h, w, c])
}

/// Save a u8 image tensor as PNG or JPEG with the default [`ImageOptions`]
/// (JPEG quality 90). See [`save_image_with`].
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("rnx-doc-imgs-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// use rnx::{Tensor, DType, save_image};
/// let gray = Tensor::full(DType::U8, &[8, 8], 200)?; // 2-D: one gray channel
/// save_image(dir.join("g.jpg"), &gray)?;
/// let e = save_image(dir.join("f.png"), &gray.cast(DType::F32)?).unwrap_err();
/// assert!(e.to_string().contains("cast"));
/// assert!(!dir.join("f.png").exists());
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), rnx::Error>(())
/// ```
pub fn save_image(path: impl AsRef<Path>, t: &Tensor) -> Result<()> {
    save_image_with(path, t, &ImageOptions::default())
}

/// Save `t` as a PNG or JPEG file, the format from the extension (`.png`,
/// `.jpg`, `.jpeg`, any case).
///
/// `t` is u8 of shape `[height, width, channels]` (HWC) with 1, 2, 3 or 4
/// channels (gray, gray + alpha, RGB, RGBA), or `[height, width]` (gray). Any
/// view is written in row-major order; a GPU tensor is downloaded. PNG is
/// lossless (8 bits per channel); JPEG is lossy at `opts.jpeg_quality`, and
/// holds gray or RGB only (no alpha: slice the color channels out first) of at
/// most 65535 pixels a side. The file is written under a temporary name and
/// renamed when complete: a failed save leaves no file.
///
/// Errors ([`crate::Error::Io`], naming the file; `InvalidInput`, checked
/// before anything is written): another extension, a dtype other than u8
/// (cast first), another rank or channel count, an empty image, a quality
/// outside 1..=100, alpha or oversize for JPEG. An OS failure keeps its kind.
///
/// ```
/// # let dir = std::env::temp_dir().join(format!("rnx-doc-imgw-{}", std::process::id()));
/// # std::fs::create_dir_all(&dir).unwrap();
/// use rnx::{Tensor, DType, ImageOptions, load_image, save_image_with};
/// let img = Tensor::arange(DType::U8, 0, 48, 1)?.reshape([4, 4, 3])?;
/// let path = dir.join("small.jpg");
/// save_image_with(&path, &img, &ImageOptions { jpeg_quality: 100 })?;
/// let back = load_image(&path)?;
/// assert_eq!(back.shape(), &[4, 4, 3]);
/// // Lossy, but close at quality 100.
/// let (a, b) = (img.to_vec::<u8>()?, back.to_vec::<u8>()?);
/// assert!(a.iter().zip(&b).all(|(x, y)| x.abs_diff(*y) <= 8));
/// # std::fs::remove_dir_all(&dir).unwrap();
/// # Ok::<(), rnx::Error>(())
/// ```
pub fn save_image_with(path: impl AsRef<Path>, t: &Tensor, opts: &ImageOptions) -> Result<()> {
    let (op, path) = ("save_image", path.as_ref());
    let invalid = |msg: String| err(op, path, ErrorKind::InvalidInput, msg);
    let fmt = format_of(path)
        .ok_or_else(|| invalid("unknown image extension: use .png, .jpg or .jpeg".to_string()))?;
    if t.dtype() != DType::U8 {
        return Err(invalid(format!(
            "dtype {} is not an image dtype: images are u8 (cast to u8, scaling first if the values are in [0, 1])",
            t.dtype()
        )));
    }
    let (h, w, c) = match *t.shape() {
        [h, w] => (h, w, 1),
        [h, w, c] => (h, w, c),
        ref s => {
            return Err(invalid(format!(
                "shape {s:?} is not an image: expected [height, width, channels] or [height, width]"
            )))
        }
    };
    let color = match c {
        1 => ExtendedColorType::L8,
        2 => ExtendedColorType::La8,
        3 => ExtendedColorType::Rgb8,
        4 => ExtendedColorType::Rgba8,
        _ => {
            return Err(invalid(format!(
                "{c} channels: an image has 1 (gray), 2 (gray + alpha), 3 (RGB) or 4 (RGBA)"
            )))
        }
    };
    if h == 0 || w == 0 {
        return Err(invalid(format!("empty image ({h}x{w} pixels)")));
    }
    let max = if fmt == ImageFormat::Jpeg {
        u16::MAX as usize
    } else {
        u32::MAX as usize
    };
    if h > max || w > max {
        return Err(invalid(format!(
            "{h}x{w} pixels: {} holds at most {max} a side",
            format_name(fmt)
        )));
    }
    if fmt == ImageFormat::Jpeg {
        if c == 2 || c == 4 {
            return Err(invalid(format!(
                "{c} channels: JPEG has no alpha channel (save the color channels, or use .png)"
            )));
        }
        if !(1..=100).contains(&opts.jpeg_quality) {
            return Err(invalid(format!(
                "jpeg_quality {} outside 1..=100",
                opts.jpeg_quality
            )));
        }
    }
    let t = super::host_contiguous(t)?;
    let bytes = t.as_bytes(op)?;
    let mut f = AtomicFile::create(op, path)?;
    let (w32, h32) = (w as u32, h as u32);
    let r = match fmt {
        ImageFormat::Png => {
            image::codecs::png::PngEncoder::new(f.writer()).write_image(&bytes, w32, h32, color)
        }
        _ => image::codecs::jpeg::JpegEncoder::new_with_quality(f.writer(), opts.jpeg_quality)
            .write_image(&bytes, w32, h32, color),
    };
    r.map_err(|e| image_err(op, path, fmt, e))?;
    f.commit(op)
}
