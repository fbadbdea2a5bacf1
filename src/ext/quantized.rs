//! Quantised-inference extensions: [`int8_matmul`] (`matmul`/`dot`/
//! `matmul_out` of i8 × i8 or u8 × i8 giving i32 with i32 accumulation).

use super::{Extension, OpDesc, OpKind, Resolution};
use crate::dtype::DType;
use std::sync::Arc;

struct Int8Matmul;

impl Extension for Int8Matmul {
    fn name(&self) -> &str {
        "int8-matmul"
    }
    fn resolve(&self, op: &OpDesc<'_>) -> Option<Resolution> {
        if op.kind != OpKind::Matmul || op.operands.len() != 2 {
            return None;
        }
        let (a, b) = (op.operands[0].dtype, op.operands[1].dtype);
        match (a, b) {
            (DType::I8, DType::I8) | (DType::U8, DType::I8) => {
                Some(Resolution::cast(DType::I32, vec![DType::I32, DType::I32]))
            }
            _ => None,
        }
    }
}

/// `matmul` (and `dot`, `matmul_out`) of i8 × i8 or u8 × i8 producing i32,
/// as used by quantised inference: products and sums are exact in i32 and
/// wrap only past i32's range (`k` up to 2^17 terms of ±2^14 cannot overflow).
///
/// Implementation: the operands are widened to i32 (one conversion pass each,
/// O(m·k + k·n)), then rnx's built-in i32 matrix product runs (the packed,
/// multi-threaded integer GEMM of the CPU backend; on a GPU the device's i32
/// matmul). rnx has no packed i8 kernel yet, so the widening costs memory
/// (4 bytes per input element), not a scalar loop. Other dtype pairs, u8 × u8
/// included, are declined and follow the built-in rules.
///
/// ```
/// use rnx::{ext, DType, Tensor};
/// let a = Tensor::create(DType::I8, &[1, 2], &[127, -128]).unwrap();
/// let b = Tensor::create(DType::I8, &[2, 1], &[127, -128]).unwrap();
/// let r = ext::with_extensions(&[ext::quantized::int8_matmul()], || a.matmul(&b)).unwrap();
/// assert_eq!((r.dtype(), r.to_vec::<i32>().unwrap()), (DType::I32, vec![127 * 127 + 128 * 128]));
/// ```
pub fn int8_matmul() -> Arc<dyn Extension> {
    Arc::new(Int8Matmul)
}
