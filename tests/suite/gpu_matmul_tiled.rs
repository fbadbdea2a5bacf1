//! The tiled matmul kernel of the GPU (`src/backend/gpu/matmul_tiled.rs`:
//! f32, i32, u32 operands each contiguous along a matrix axis, offsets and
//! leading strides multiples of 4) against the CPU, with the checks of
//! `gpu_linalg.rs` (integers exact, floats within the kernel's bound against
//! an f64 reference): every combination of row- and column-major operands,
//! sizes around the 64 and 128 tiles and the 16-element K steps (a K that is
//! not a multiple of 4 masks the last `vec4`), batches large enough for the
//! 128 tiles, broadcast batch operands, K in several dispatches, an operand
//! read through the other's binding, offsets, strided outputs.

use super::gpu::gpu;
use super::gpu_linalg::{check_matmul, data, mm};
use rnx::{s, DType, Device, Tensor};

/// A `[rows, cols]` operand on `d`, contiguous along its columns (row-major)
/// or its rows, with a leading stride that is a multiple of 4 (the base is
/// padded) and an element offset of `off` (a multiple of 4 for the tiled
/// kernel).
fn operand(
    d: Device,
    dt: DType,
    rows: usize,
    cols: usize,
    row_major: bool,
    off: usize,
    seed: u64,
) -> Tensor {
    let pad = |x: usize| x.div_ceil(4) * 4 + 4;
    if row_major {
        let base = data(dt, &[rows + 1, pad(cols)], seed).to_device(d).unwrap();
        let flat = base.reshape([-1]).unwrap();
        let ld = pad(cols);
        flat.slice(s![off as isize..(off + rows * ld) as isize])
            .unwrap()
            .reshape([rows as isize, ld as isize])
            .unwrap()
            .slice(s![.., ..cols as isize])
            .unwrap()
    } else {
        operand(d, dt, cols, rows, true, off, seed)
            .transpose(None)
            .unwrap()
    }
}

/// Sizes around the tiles and K steps, every operand layout.
#[test]
fn tiled_tile_edges_and_layouts() {
    let Some(d) = gpu() else { return };
    let mns = [
        (1, 1),
        (3, 5),
        (63, 65),
        (64, 64),
        (65, 63),
        (127, 129),
        (129, 130),
    ];
    for dt in [DType::F32, DType::I32] {
        for (i, &(m, n)) in mns.iter().enumerate() {
            for &k in &[1usize, 3, 4, 17, 36] {
                for (ar, br) in [(true, true), (true, false), (false, true), (false, false)] {
                    let seed = (i * 100 + k) as u64;
                    let a = operand(d, dt, m, k, ar, 0, seed);
                    let b = operand(d, dt, k, n, br, 4, seed + 1);
                    let what =
                        format!("{dt} [{m}, {k}] @ [{k}, {n}] a row-major {ar} b row-major {br}");
                    check_matmul(&what, &a.matmul(&b).unwrap(), &a, &b, mm);
                }
            }
        }
    }
}

/// The 128 tiles (512 or more of them: batches), broadcast batch operands,
/// u32, K over one dispatch, a product of a tensor with its own transpose
/// (one binding), offsets, a transposed output.
#[test]
fn tiled_batches_chunks_and_outputs() {
    let Some(d) = gpu() else { return };
    let g = |dt, shape: &[usize], seed| data(dt, shape, seed).to_device(d).unwrap();
    // 512 tiles of 128: one per batch element; edges in every tile.
    let (a, b) = (
        g(DType::F32, &[512, 65, 8], 1),
        g(DType::F32, &[512, 8, 68], 2),
    );
    check_matmul(
        "f32 512 x [65, 8] @ [8, 68]",
        &a.matmul(&b).unwrap(),
        &a,
        &b,
        mm,
    );
    // A broadcast matrix b (batch stride 0), 128 tiles with edges. 240
    // batch elements keep the output (4.09 M elements) within one 16 MiB
    // binding window, which gpu_memory's tests set for the whole process:
    // the kernel with the output over three windows took lavapipe 4.6 s to
    // compile (issue 26); windows are gpu_memory's subject.
    let (a, b) = (
        g(DType::I32, &[240, 129, 4], 3),
        g(DType::I32, &[4, 132], 4),
    );
    check_matmul(
        "i32 240 x [129, 4] @ [4, 132]",
        &a.matmul(&b).unwrap(),
        &a,
        &b,
        mm,
    );
    // u32, b column-major in every batch element.
    let a = g(DType::U32, &[520, 33, 12], 5);
    let b = g(DType::U32, &[520, 72, 12], 6)
        .transpose([0, 2, 1])
        .unwrap();
    check_matmul(
        "u32 batched, b column-major",
        &a.matmul(&b).unwrap(),
        &a,
        &b,
        mm,
    );
    // K = 16388: two dispatches, the second adding to the first's result.
    for dt in [DType::F32, DType::I32] {
        let (a, b) = (g(dt, &[8, 16388], 7), g(dt, &[16388, 12], 8));
        check_matmul(&format!("{dt} K 16388"), &a.matmul(&b).unwrap(), &a, &b, mm);
        let at = g(dt, &[16388, 9], 9).transpose(None).unwrap();
        check_matmul(
            &format!("{dt} K 16388, a column-major"),
            &at.matmul(&b).unwrap(),
            &at,
            &b,
            mm,
        );
    }
    // x @ x^T: b is read through a's binding.
    let x = g(DType::F32, &[70, 36], 10);
    let xt = x.transpose(None).unwrap();
    check_matmul("f32 x @ x^T", &x.matmul(&xt).unwrap(), &x, &xt, mm);
    check_matmul("f32 x^T @ x", &xt.matmul(&x).unwrap(), &xt, &x, mm);
    // Offsets that are multiples of 4 (tiled) and not (general): same results.
    let big = g(DType::F32, &[80, 40], 11);
    for (r0, c0) in [(1isize, 4isize), (2, 8), (1, 1)] {
        let a = big.slice(s![r0..r0 + 70, c0..c0 + 20]).unwrap();
        let b = big.slice(s![r0 + 3..r0 + 23, c0..c0 + 28]).unwrap();
        check_matmul(
            &format!("f32 offsets {r0} {c0}"),
            &a.matmul(&b).unwrap(),
            &a,
            &b,
            mm,
        );
    }
    // A transposed (strided) output.
    let (a, b) = (g(DType::F32, &[66, 20], 12), g(DType::F32, &[20, 72], 13));
    let out = Tensor::zeros_on(DType::F32, &[72, 66], d).unwrap();
    let ov = out.transpose(None).unwrap();
    a.matmul_out(&b, &ov).unwrap();
    check_matmul("f32 out transposed", &ov, &a, &b, mm);
}
