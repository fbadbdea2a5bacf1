//! Images (`load_image`, `save_image`, `save_image_with`; feature `image`):
//! exact PNG round trips for every channel count and for views, JPEG within a
//! tolerance, PNG fixtures written by another encoder
//! (tests/fixtures/image/make_images.py: palette, 1-bit and 16-bit), corrupt
//! and missing files, and every invalid argument rejected before any file is
//! written. The file helpers are `io.rs`'s.

use crate::io::{check_err, TmpDir};
use rnx::{load_image, s, save_image, save_image_with, DType, ImageOptions, Tensor};
use std::io::ErrorKind;
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/image")
        .join(name)
}

/// A u8 image `[h, w, c]` with every byte value in use (a pseudo-random walk).
fn noise(h: usize, w: usize, c: usize) -> Tensor {
    let v: Vec<u8> = (0..h * w * c)
        .map(|i| ((i as u64).wrapping_mul(2654435761) >> 7) as u8)
        .collect();
    Tensor::from_vec(v, &[h, w, c]).unwrap()
}

/// A smooth u8 image `[h, w, c]` (what JPEG is made for; `h <= 32`).
fn gradient(h: usize, w: usize, c: usize) -> Tensor {
    let mut v = Vec::with_capacity(h * w * c);
    for y in 0..h {
        for x in 0..w {
            for k in 0..c {
                v.push((x * 120 / (w - 1) + y * 2 + k * 30) as u8);
            }
        }
    }
    Tensor::from_vec(v, &[h, w, c]).unwrap()
}

fn bytes(t: &Tensor) -> Vec<u8> {
    t.to_vec::<u8>().unwrap()
}

#[test]
fn png_round_trips_exactly() {
    let d = TmpDir::new("img-png");
    let p = d.path("a.png");
    for c in 1..=4 {
        for (h, w) in [(1, 1), (7, 5), (16, 33)] {
            let t = noise(h, w, c);
            save_image(&p, &t).unwrap();
            let u = load_image(&p).unwrap();
            assert_eq!(u.dtype(), DType::U8);
            assert_eq!(u.shape(), &[h, w, c]);
            assert_eq!(bytes(&u), bytes(&t), "channels {c}, {h}x{w}");
        }
    }
    // A 2-D tensor is one gray channel; the extension's case does not matter.
    let g = noise(4, 6, 1).reshape([4, 6]).unwrap();
    let q = d.path("G.PNG");
    save_image(&q, &g).unwrap();
    let u = load_image(&q).unwrap();
    assert_eq!(u.shape(), &[4, 6, 1]);
    assert_eq!(bytes(&u), bytes(&g));
    // Views are written in row-major order: transposed (W and H swapped),
    // flipped, channel-reversed (RGB -> BGR), stepped.
    let base = noise(6, 8, 3);
    for v in [
        base.transpose(Some(&[1, 0, 2][..])).unwrap(),
        base.flip(0).unwrap(),
        base.slice(s![.., .., ..;-1]).unwrap(),
        base.slice(s![0..6;2, 1..8;3]).unwrap(),
    ] {
        save_image(&p, &v).unwrap();
        let u = load_image(&p).unwrap();
        assert_eq!(u.shape(), v.shape());
        assert_eq!(bytes(&u), bytes(&v));
    }
    // Only the saved file is left (the temporary one was renamed).
    assert_eq!(d.files(), vec!["G.PNG".to_string(), "a.png".to_string()]);
}

#[test]
fn jpeg_round_trips_within_tolerance() {
    let d = TmpDir::new("img-jpg");
    for (c, name) in [(3, "rgb.jpg"), (1, "gray.jpeg")] {
        let t = gradient(32, 48, c);
        let p = d.path(name);
        let mut prev_size = u64::MAX;
        // Higher quality: closer to the input; lower: a smaller file.
        for (q, mean_tol, max_tol) in [(100u8, 1.5, 12), (90, 6.0, 64), (30, 12.0, 128)] {
            save_image_with(&p, &t, &ImageOptions { jpeg_quality: q }).unwrap();
            let u = load_image(&p).unwrap();
            assert_eq!((u.dtype(), u.shape()), (DType::U8, t.shape()));
            let (a, b) = (bytes(&t), bytes(&u));
            let diffs: Vec<u32> = a
                .iter()
                .zip(&b)
                .map(|(x, y)| x.abs_diff(*y) as u32)
                .collect();
            let mean = diffs.iter().sum::<u32>() as f64 / diffs.len() as f64;
            let max = *diffs.iter().max().unwrap();
            assert!(mean <= mean_tol, "{name} quality {q}: mean error {mean}");
            assert!(max <= max_tol, "{name} quality {q}: max error {max}");
            let size = std::fs::metadata(&p).unwrap().len();
            assert!(size < prev_size, "{name} quality {q}: {size} bytes");
            prev_size = size;
        }
        // The default quality (90) writes the same file as quality 90.
        save_image_with(&p, &t, &ImageOptions { jpeg_quality: 90 }).unwrap();
        let q90 = std::fs::read(&p).unwrap();
        save_image(&p, &t).unwrap();
        assert_eq!(std::fs::read(&p).unwrap(), q90);
    }
    assert_eq!(ImageOptions::default().jpeg_quality, 90);
}

#[test]
fn image_fixtures_from_another_encoder() {
    // Palette: expanded to RGB.
    let t = load_image(fixture("palette.png")).unwrap();
    assert_eq!(t.shape(), &[2, 2, 3]);
    assert_eq!(bytes(&t), vec![255, 0, 0, 0, 255, 0, 0, 0, 255, 255, 0, 0]);
    // 1-bit gray: expanded to 8 bits.
    let t = load_image(fixture("gray1.png")).unwrap();
    assert_eq!(t.shape(), &[1, 8, 1]);
    assert_eq!(bytes(&t), vec![255, 0, 255, 255, 0, 0, 255, 0]);
    // 16-bit: refused, naming the file.
    let f = fixture("gray16.png");
    check_err(
        load_image(&f).unwrap_err(),
        "load_image",
        &f,
        ErrorKind::InvalidData,
        "8-bit",
    );
}

#[test]
fn image_load_errors() {
    let d = TmpDir::new("img-bad");
    let missing = d.path("none.png");
    let e = load_image(&missing).unwrap_err();
    check_err(e, "load_image", &missing, ErrorKind::NotFound, "");
    // Garbage, a truncated PNG, a PNG under a .jpg name (the extension rules).
    let garbage = d.path("garbage.png");
    std::fs::write(&garbage, b"this is not a picture at all").unwrap();
    let e = load_image(&garbage).unwrap_err();
    check_err(e, "load_image", &garbage, ErrorKind::InvalidData, "corrupt");
    let good = d.path("good.png");
    save_image(&good, &noise(20, 20, 3)).unwrap();
    let full = std::fs::read(&good).unwrap();
    let cut = d.path("cut.png");
    std::fs::write(&cut, &full[..full.len() / 2]).unwrap();
    let e = load_image(&cut).unwrap_err();
    // Corrupt data or an early end of file, depending on where the cut falls.
    let kind = crate::io::io_kind(&e);
    assert!(
        matches!(kind, ErrorKind::InvalidData | ErrorKind::UnexpectedEof),
        "{e}"
    );
    assert!(e.to_string().starts_with("load_image: "), "{e}");
    assert!(e.to_string().contains(&cut.display().to_string()), "{e}");
    assert!(e.to_string().contains("truncated"), "{e}");
    let wrong = d.path("png.jpg");
    std::fs::write(&wrong, &full).unwrap();
    let e = load_image(&wrong).unwrap_err();
    check_err(e, "load_image", &wrong, ErrorKind::InvalidData, "JPEG");
    // An unknown extension: decoded by content when PNG or JPEG ...
    let odd = d.path("picture.bin");
    std::fs::write(&odd, &full).unwrap();
    assert_eq!(bytes(&load_image(&odd).unwrap()), bytes(&noise(20, 20, 3)));
    // ... else an error.
    let txt = d.path("notes.txt");
    std::fs::write(&txt, b"hello").unwrap();
    let e = load_image(&txt).unwrap_err();
    check_err(e, "load_image", &txt, ErrorKind::InvalidData, "neither");
}

#[test]
fn image_save_errors_write_nothing() {
    let d = TmpDir::new("img-save");
    let img = noise(4, 4, 3);
    let cases: Vec<(&str, Tensor, ImageOptions, &str)> = vec![
        (
            "a.png",
            img.cast(DType::F32).unwrap(),
            Default::default(),
            "cast",
        ),
        (
            "b.png",
            img.cast(DType::I32).unwrap(),
            Default::default(),
            "u8",
        ),
        (
            "c.png",
            img.reshape([48]).unwrap(),
            Default::default(),
            "shape [48]",
        ),
        (
            "d.png",
            noise(2, 2, 12).reshape([2, 2, 3, 4]).unwrap(),
            Default::default(),
            "shape",
        ),
        ("e.png", noise(2, 2, 5), Default::default(), "5 channels"),
        (
            "f.png",
            Tensor::zeros(DType::U8, &[0, 4, 3]).unwrap(),
            Default::default(),
            "empty",
        ),
        ("g.jpg", noise(4, 4, 4), Default::default(), "no alpha"),
        ("h.jpg", noise(4, 4, 2), Default::default(), "no alpha"),
        (
            "i.jpg",
            img.clone(),
            ImageOptions { jpeg_quality: 0 },
            "jpeg_quality 0",
        ),
        (
            "j.jpg",
            img.clone(),
            ImageOptions { jpeg_quality: 101 },
            "1..=100",
        ),
        ("k.bmp", img.clone(), Default::default(), "extension"),
        ("noext", img.clone(), Default::default(), "extension"),
        (
            "l.jpg",
            Tensor::zeros(DType::U8, &[1, 70_000, 1]).unwrap(),
            Default::default(),
            "65535",
        ),
    ];
    for (name, t, opts, words) in cases {
        let p = d.path(name);
        let e = save_image_with(&p, &t, &opts).unwrap_err();
        check_err(e, "save_image", &p, ErrorKind::InvalidInput, words);
    }
    assert!(d.files().is_empty(), "{:?}", d.files());
    // A failing save leaves an existing file untouched.
    let p = d.path("keep.png");
    save_image(&p, &img).unwrap();
    let before = std::fs::read(&p).unwrap();
    assert!(save_image(&p, &img.cast(DType::F32).unwrap()).is_err());
    assert_eq!(std::fs::read(&p).unwrap(), before);
    // A folder that does not exist: the OS's error, naming the file.
    let q = d.path("no/such/dir.png");
    let e = save_image(&q, &img).unwrap_err();
    check_err(e, "save_image", &q, ErrorKind::NotFound, "");
    assert_eq!(d.files(), vec!["keep.png".to_string()]);
}
