//! Writes and reads PNG and JPEG images (feature `image`):
//! `cargo run --example image --features image`. Draws a color gradient with
//! tensor ops, saves it as PNG (lossless) and JPEG at two qualities, loads them
//! back and prints the sizes and the JPEG error, in a temporary folder that it
//! removes at the end.

use rnx::prelude::*;
use rnx::{load_image, save_image, save_image_with, ImageOptions};

fn main() -> Result<()> {
    let dir = std::env::temp_dir().join(format!("rnx-example-image-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create a temporary folder");

    // A 64x96 RGB gradient: red grows to the right, green downwards, blue is
    // constant. Computed in f32, then cast to u8 (images are u8, HWC).
    let (h, w) = (64usize, 96usize);
    let xs = Tensor::arange(DType::F32, 0, w as i64, 1)?.mul(255.0 / (w - 1) as f64)?;
    let ys = Tensor::arange(DType::F32, 0, h as i64, 1)?.mul(255.0 / (h - 1) as f64)?;
    let red = xs.reshape([1, w as isize, 1])?.broadcast_to(&[h, w, 1])?;
    let green = ys.reshape([h as isize, 1, 1])?.broadcast_to(&[h, w, 1])?;
    let blue = Tensor::full(DType::F32, &[h, w, 1], 128.0)?;
    let img = Tensor::concatenate(&[&red, &green, &blue], 2)?
        .round()?
        .cast(DType::U8)?;
    println!("image: {:?} {}", img.shape(), img.dtype());

    let png = dir.join("gradient.png");
    save_image(&png, &img)?;
    let back = load_image(&png)?;
    println!(
        "PNG: {} bytes, identical after loading: {}",
        std::fs::metadata(&png).map(|m| m.len()).unwrap_or(0),
        back.to_vec::<u8>()? == img.to_vec::<u8>()?
    );

    for q in [95u8, 40] {
        let jpg = dir.join(format!("gradient-q{q}.jpg"));
        save_image_with(&jpg, &img, &ImageOptions { jpeg_quality: q })?;
        let j = load_image(&jpg)?;
        let err = j
            .cast(DType::F32)?
            .sub(&img.cast(DType::F32)?)?
            .abs()?
            .max(None, false)?
            .item_f64()?;
        println!(
            "JPEG quality {q}: {} bytes, largest channel error {err}",
            std::fs::metadata(&jpg).map(|m| m.len()).unwrap_or(0)
        );
    }

    // A gray image may be 2-D; it loads back with one channel.
    let gray = img.slice(s![.., .., 1])?; // the green channel, a strided view
    save_image(dir.join("green.png"), &gray)?;
    println!(
        "gray: saved {:?}, loaded {:?}",
        gray.shape(),
        load_image(dir.join("green.png"))?.shape()
    );

    // Errors name the file and the problem.
    if let Err(e) = save_image(dir.join("bad.png"), &img.cast(DType::F32)?) {
        println!("error: {e}");
    }
    std::fs::remove_dir_all(&dir).ok();
    Ok(())
}
