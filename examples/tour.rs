//! A tour of rnx: run with `cargo run --release --example tour`.
//! Prints real tensors and results, section by section.

use rnx::prelude::*;

fn section(title: &str) {
    println!("\n== {title} ==");
}

fn main() -> Result<()> {
    section("creation");
    let a = Tensor::create(DType::F32, &[2, 3], &[1., 2., 3., 4., 5., 6.])?;
    println!("create f32 [2, 3]:\n{a}");
    println!(
        "init i32 [2, 3] (i + j):\n{}",
        Tensor::init(DType::I32, &[2, 3], |i| (i[0] + i[1]) as i32)?
    );
    println!("eye k=1:\n{}", Tensor::eye(DType::I32, 3, None, 1)?);
    println!(
        "arange 0..10 step 2: {}",
        Tensor::arange(DType::I32, 0, 10, 2)?
    );
    println!(
        "linspace 0..10, 5: {}",
        Tensor::linspace(DType::F32, 0., 10., 5, true)?
    );
    println!(
        "logspace base 2: {}",
        Tensor::logspace(DType::F32, 0., 3., 4, true, 2.)?
    );
    println!(
        "geomspace 1..1000: {}",
        Tensor::geomspace(DType::F64, 1., 1000., 4, true)?
    );
    let (xx, yy) = Tensor::meshgrid(
        &Tensor::linspace(DType::F32, 0., 2., 3, true)?,
        &Tensor::linspace(DType::F32, 0., 1., 2, true)?,
        Indexing::Xy,
    )?;
    println!("meshgrid:\n{xx}\n{yy}");

    section("random (Threefry-2x32, seeded)");
    println!(
        "rand f32 [2, 3] seed 42:\n{}",
        Tensor::rand(DType::F32, &[2, 3], 42)?
    );
    println!(
        "randn f64 [4] seed 42: {}",
        Tensor::randn(DType::F64, &[4], 42)?
    );
    println!(
        "randint i32 [8] in [0, 10): {}",
        Tensor::randint(DType::I32, &[8], 0, 10, 42)?
    );

    section("properties");
    println!(
        "shape {:?}, dtype {}, strides (bytes) {:?}, size {}, nbytes {}, contiguous {}",
        a.shape(),
        a.dtype(),
        a.strides(),
        a.size(),
        a.nbytes(),
        a.is_c_contiguous()
    );
    println!("Debug: {a:?}");

    section("dtypes and casts");
    let f = Tensor::create(DType::F64, &[4], &[1.5, -2.7, f64::NAN, 1e20])?;
    println!("f64 {f} -> i32 {}", f.cast(DType::I32)?);
    println!(
        "-> u8 {}   -> c32 {}",
        f.cast(DType::U8)?,
        f.cast(DType::C32)?
    );
    println!(
        "a value a dtype cannot hold is an error: {}",
        Tensor::full(DType::U8, &[2], 300).unwrap_err()
    );

    section("views and indexing (no copies)");
    let m = Tensor::arange(DType::I32, 0, 12, 1)?.reshape([3, -1])?;
    println!("arange(12).reshape([3, -1]) (the -1 is inferred):\n{m}");
    println!("transpose:\n{}", m.transpose(None)?);
    println!("flip rows: \n{}", m.flip([0])?);
    println!("slice s![1.., ..;2]:\n{}", m.slice(s![1.., ..;2])?);
    println!(
        "new axis s![.., NewAxis, 0]: shape {:?}",
        m.slice(s![.., NewAxis, 0])?.shape()
    );
    println!("transpose([-1, 0]):\n{}", m.transpose([-1, 0])?);
    println!(
        "shares storage with m: {}",
        m.transpose(None)?.same_storage(&m)
    );

    section("reductions and sorting");
    let r = Tensor::create(DType::F32, &[2, 3], &[3., 1., 2., 9., 7., 8.])?;
    println!("r =\n{r}");
    // Axes: `None` (the op's default), one axis, or a list (array, slice, Vec).
    println!("sum over axis 1: {}", r.sum(1, false)?);
    println!("sum over [0, 1]: {}", r.sum([0, 1], false)?);
    println!("mean (all): {}", r.mean(None, false)?);
    println!("argmax over axis 1: {}", r.argmax(1, false)?);
    println!("argmax of the flattened tensor: {}", r.argmax(None, false)?);
    println!("cumsum (flattened): {}", r.cumsum(None)?);
    println!("softmax (last axis):\n{}", r.softmax(None)?);
    println!(
        "softmax with scale 0.5:\n{}",
        r.softmax_with(None, SoftmaxOptions { scale: 0.5 })?
    );
    // Scalars and tensors are both operands; values come back without naming the type.
    println!("clamp(2, 8): {:?}", r.clamp(2, 8)?.to_vec_f64()?);
    println!("max as f64: {}", r.max(None, false)?.item_f64()?);
    // Every op allocates (`add`), works in place (`add_`) or writes an output (`add_out`).
    let y = r.add(1)?;
    y.mul_(2)?;
    let out = Tensor::zeros(DType::F32, &[2, 3])?;
    r.add_out(&y, &out)?;
    println!("(r + 1) * 2 in place, then r + that into out:\n{out}");
    let (sorted, idx) = r.sort(-1, false)?;
    println!("sort rows:\n{sorted}\nargsort:\n{idx}");

    section("matmul");
    let x = Tensor::create(DType::F64, &[2, 3], &[1., 2., 3., 4., 5., 6.])?;
    let w = Tensor::create(DType::F64, &[3, 2], &[1., 0., 0., 1., 1., 1.])?;
    println!("x @ w:\n{}", x.matmul(&w)?);
    println!(
        "an error names the op and shapes: {}",
        x.matmul(&x).unwrap_err()
    );

    section("printing");
    println!(
        "{}",
        Tensor::create(
            DType::F32,
            &[4],
            &[f32::NAN, f32::INFINITY, -0.0, 10.0 / 11.0]
        )?
    );
    println!(
        "large tensors are summarised:\n{}",
        Tensor::init(DType::I64, &[50, 50], |i| (i[0] * 50 + i[1]) as i64)?
    );

    section("GPU (build with --features gpu)");
    for info in rnx::gpu_devices() {
        println!("adapter {info:?}");
    }
    let gpu = rnx::Device::Gpu(0);
    if gpu.is_available() {
        let x = Tensor::rand_on(DType::F32, &[2, 3], 42, gpu)?;
        println!("rand_on gpu:0 (same values as the CPU's seed 42):\n{x}");
        let y = x
            .mul(2.0)?
            .exp()?
            .add(&Tensor::ones_on(DType::F32, &[3], gpu)?)?;
        println!("exp(2 x) + 1, computed on {}:\n{y}", y.device());
        println!(
            "mixing devices is an error: {}",
            y.add(&Tensor::ones(DType::F32, &[3])?).unwrap_err()
        );
        println!(
            "back on the CPU: {:?}",
            y.to_device(rnx::Device::Cpu)?.to_vec::<f32>()?
        );
    } else {
        println!("no GPU adapter here (or not built with --features gpu): section skipped");
    }
    Ok(())
}
