//! A custom extension from scratch: saturating u8 addition for image work.
use rnx::backend::elementwise::BinaryOp;
use rnx::ext::{self, Extension, OpDesc, OpKind, Resolution};
use rnx::{DType, Tensor};

struct SaturatingAdd;

impl Extension for SaturatingAdd {
    fn name(&self) -> &str {
        "saturating-u8-add"
    }
    fn resolve(&self, op: &OpDesc<'_>) -> Option<Resolution> {
        let all_u8 = op
            .operands
            .iter()
            .all(|o| o.is_scalar() || o.dtype == DType::U8);
        if op.kind != OpKind::Binary(BinaryOp::Add) || !all_u8 {
            return None; // everything else: the next extension or the built-in
        }
        // Widen to i16, add, clamp, narrow (ops inside a kernel run built-in).
        Some(Resolution::kernel(
            DType::U8,
            vec![DType::U8; 2],
            |v, out| {
                let sum = v[0].cast(DType::I16)?.add(&v[1].cast(DType::I16)?)?;
                *out = sum.clamp(0, 255)?.cast(DType::U8)?;
                Ok(())
            },
        ))
    }
}

fn main() -> rnx::Result<()> {
    let pixels = Tensor::from_vec(vec![10u8, 128, 250], &[3])?;
    let brighter = ext::with_extensions(&[ext::arc(SaturatingAdd)], || pixels.add(20))?;
    assert_eq!(brighter.to_vec::<u8>()?, vec![30, 148, 255]);
    assert_eq!(pixels.add(20)?.to_vec::<u8>()?, vec![30, 148, 14]); // built-in wraps
    Ok(())
}
