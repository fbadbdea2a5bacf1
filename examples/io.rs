//! Writes and reads each file format rnx knows: `cargo run --example io`.
//! `.npy` (plain and memory-mapped), `.npz` (stored and compressed),
//! `.safetensors` (zero-copy) and CSV text, in a temporary folder that it
//! removes at the end.

use rnx::prelude::*;
use rnx::{
    load_npy, load_npy_mmap, load_npz, load_npz_entry, load_safetensors, load_safetensors_metadata,
    load_safetensors_tensor, load_txt, save_npy, save_npz, save_npz_compressed, save_safetensors,
    save_txt, TxtOptions,
};
use std::collections::HashMap;

fn main() -> Result<()> {
    let dir = std::env::temp_dir().join(format!("rnx-example-io-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("create a temporary folder");

    let x = Tensor::arange(DType::F32, 0, 12, 1)?.reshape([3, 4])?;
    let xt = x.transpose(None)?; // a strided view: written in row-major order
    println!("x =\n{x}");

    // .npy
    let p = dir.join("x.npy");
    save_npy(&p, &xt)?;
    println!(
        "\n.npy: {} bytes",
        std::fs::metadata(&p).map(|m| m.len()).unwrap_or(0)
    );
    println!("load_npy(x.npy) =\n{}", load_npy(&p)?);
    let m = load_npy_mmap(&p)?;
    println!(
        "load_npy_mmap(x.npy): shape {:?}, sum {}",
        m.shape(),
        m.sum(None, false)?
    );

    // .npz
    let ids = Tensor::create(DType::I64, &[3], &[10, 20, 30])?;
    save_npz(dir.join("s.npz"), [("x", &x), ("ids", &ids)])?;
    save_npz_compressed(dir.join("c.npz"), [("x", &x), ("ids", &ids)])?;
    for (k, t) in load_npz(dir.join("c.npz"))? {
        println!("\n.npz entry {k}: {} {:?}", t.dtype(), t.shape());
    }
    println!(
        "load_npz_entry(s.npz, ids) = {}",
        load_npz_entry(dir.join("s.npz"), "ids")?
    );

    // .safetensors
    let p = dir.join("model.safetensors");
    let w = x.cast(DType::BF16)?;
    let meta = HashMap::from([("format".to_string(), "pt".to_string())]);
    save_safetensors(&p, [("w", &w), ("ids", &ids)], &meta)?;
    for (k, t) in load_safetensors(&p)? {
        println!(
            "\n.safetensors tensor {k}: {} {:?} (a view over the mapped file)",
            t.dtype(),
            t.shape()
        );
    }
    println!("metadata: {:?}", load_safetensors_metadata(&p)?);
    println!("w =\n{}", load_safetensors_tensor(&p, "w")?);

    // text
    let p = dir.join("x.csv");
    let csv = TxtOptions {
        delimiter: Some(','),
        header: "a,b,c,d".into(),
        dtype: DType::F32,
        ..Default::default()
    };
    save_txt(&p, &x.div(3)?, &csv)?;
    println!(
        "\nx.csv:\n{}",
        std::fs::read_to_string(&p).unwrap_or_default()
    );
    println!("load_txt(x.csv) =\n{}", load_txt(&p, &csv)?);

    // Errors name the function and the file.
    println!("\n{}", load_npy(dir.join("missing.npy")).unwrap_err());
    println!("{}", save_npy(dir.join("b.npy"), &w).unwrap_err());

    let _ = std::fs::remove_dir_all(&dir);
    Ok(())
}
