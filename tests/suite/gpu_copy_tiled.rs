//! The tiled transposed copy of the GPU (`src/backend/gpu/transpose.rs`:
//! 4-byte elements, source contiguous along the rows, destination along the
//! columns, optionally batched) against the CPU, bit for bit: sizes around
//! the 32x32 tiles, every 4-byte dtype with NaN payloads and -0.0, batches,
//! offsets, a strided destination; and copies of the other widths, which
//! take the general kernel, alongside.

use super::gpu::{assert_same, gpu, keys, sample};
use rnx::{s, DType, Tensor};

/// Transposed copies (`contiguous()` of a transposed view) of every size
/// around the tiles, for f32 (with special values), i32 and u32.
#[test]
fn transposed_copies_match_the_cpu() {
    let Some(d) = gpu() else { return };
    let sizes = [1usize, 2, 31, 32, 33, 65, 100];
    for dt in [DType::F32, DType::I32, DType::U32] {
        for &r in &sizes {
            for &c in &sizes {
                let mut base = sample(dt, &[r, c], (r * 131 + c) as u64, 1e3);
                if dt == DType::F32 {
                    let mut v = base.to_vec::<f32>().unwrap();
                    v[0] = -0.0;
                    if v.len() > 2 {
                        v[1] = f32::from_bits(0x7fc0_1234);
                        v[2] = f32::NEG_INFINITY;
                    }
                    base = Tensor::from_vec(v, &[r, c]).unwrap();
                }
                let g = base.to_device(d).unwrap();
                let (ct, gt) = (base.transpose(None).unwrap(), g.transpose(None).unwrap());
                let what = format!("{dt} [{r}, {c}]^T");
                let gc = gt.contiguous().unwrap();
                assert_same(&what, &gc, &ct.contiguous().unwrap());
                if dt == DType::F32 {
                    // Raw bits: the NaN payload and the zero's sign survive.
                    let bits = |t: &Tensor| -> Vec<u32> {
                        t.to_device(rnx::Device::Cpu)
                            .unwrap()
                            .to_vec::<f32>()
                            .unwrap()
                            .iter()
                            .map(|x| x.to_bits())
                            .collect()
                    };
                    assert_eq!(bits(&gc), bits(&ct.contiguous().unwrap()), "{what}: bits");
                }
            }
        }
    }
}

/// Batched transposes (the last two axes of a 3-D tensor), offsets, a
/// destination that is itself strided (`set_slice` into part of a larger
/// tensor), and the other element widths (general kernel).
#[test]
fn transposed_copies_batched_offset_and_strided() {
    let Some(d) = gpu() else { return };
    let base = sample(DType::F32, &[3, 45, 70], 1, 1e3);
    let g = base.to_device(d).unwrap();
    let perm = |t: &Tensor| t.transpose([0, 2, 1]).unwrap().contiguous().unwrap();
    assert_same("f32 batched transpose", &perm(&g), &perm(&base));
    let part = |t: &Tensor| {
        t.slice(s![1.., 3..40, 5..])
            .unwrap()
            .transpose([0, 2, 1])
            .unwrap()
            .contiguous()
            .unwrap()
    };
    assert_same("f32 batched transpose of a slice", &part(&g), &part(&base));
    // Into a strided destination: columns 2..47 of a [70, 50] tensor.
    let src = sample(DType::I32, &[45, 70], 2, 1e3);
    let gsrc = src.to_device(d).unwrap();
    let dst = Tensor::zeros(DType::I32, &[70, 50]).unwrap();
    let gdst = dst.to_device(d).unwrap();
    let idx = s![.., 2..47];
    dst.set_slice(&idx, &src.transpose(None).unwrap()).unwrap();
    gdst.set_slice(&idx, &gsrc.transpose(None).unwrap())
        .unwrap();
    assert_same("i32 transpose into a strided destination", &gdst, &dst);
    for dt in [DType::F16, DType::U8, DType::I16, DType::F64, DType::I64] {
        if (dt == DType::F64 && !rnx::gpu_devices()[0].f64)
            || (dt.itemsize() == 8 && !rnx::gpu_devices()[0].i64)
        {
            continue;
        }
        let base = sample(dt, &[33, 70], 3, 1e3);
        let g = base.to_device(d).unwrap();
        let t = |x: &Tensor| x.transpose(None).unwrap().contiguous().unwrap();
        assert_eq!(
            keys(&t(&g)),
            keys(&t(&base)),
            "{dt} transpose (general kernel)"
        );
    }
}
