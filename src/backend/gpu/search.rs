//! The GPU `searchsorted` kernel: one invocation per value does a binary
//! search over the sorted 1-D tensor, comparing order keys (unsigned
//! integers in the order of the sort: floats with -0 as 0 and every NaN as
//! the largest key, signed integers with the sign bit flipped), so the
//! results are the CPU's exactly. The sorted tensor is read in place
//! through its stride (an operand of stride 0 gives each invocation its
//! first element; the search adds `mid * stride`).

use super::kernel::{Map, Operand};
use super::GpuBackend;
use crate::dtype::DType;
use crate::error::Result;
use crate::layout::Layout;
use crate::tensor::Tensor;

/// The WGSL order-key function `key(x)` of `d` and the key type.
fn key_fn(d: DType) -> Option<(String, &'static str)> {
    let f = match d {
        DType::F32 | DType::F16 | DType::BF16 => (
            "fn key(x: f32) -> u32 {\n  let b = bitcast<u32>(x);\n  let a = b & 0x7fffffffu;\n  if (a > 0x7f800000u) { return 0xffffffffu; }\n  if (a == 0u) { return 0x80000000u; }\n  if ((b >> 31u) == 1u) { return ~b; }\n  return b | 0x80000000u;\n}\n".to_string(),
            "u32",
        ),
        DType::F64 => (
            "fn key(x: f64) -> u64 {\n  let b = bitcast<u64>(x);\n  let a = b & 0x7ffffffffffffffflu;\n  if (a > 0x7ff0000000000000lu) { return 0xfffffffffffffffflu; }\n  if (a == 0lu) { return 0x8000000000000000lu; }\n  if ((b >> 63u) == 1lu) { return ~b; }\n  return b | 0x8000000000000000lu;\n}\n".to_string(),
            "u64",
        ),
        DType::I8 | DType::I16 | DType::I32 => (
            "fn key(x: i32) -> u32 {\n  return bitcast<u32>(x) ^ 0x80000000u;\n}\n".to_string(),
            "u32",
        ),
        DType::U8 | DType::U16 | DType::U32 => {
            ("fn key(x: u32) -> u32 {\n  return x;\n}\n".to_string(), "u32")
        }
        DType::I64 => (
            "fn key(x: i64) -> u64 {\n  return bitcast<u64>(x) ^ 0x8000000000000000lu;\n}\n".to_string(),
            "u64",
        ),
        DType::U64 => ("fn key(x: u64) -> u64 {\n  return x;\n}\n".to_string(), "u64"),
        _ => return None,
    };
    Some(f)
}

impl GpuBackend {
    /// See [`crate::backend::SortBackend::searchsorted`]; `false` for dtypes
    /// without a key function here and on adapters without 64-bit integers
    /// (the i64 result needs them).
    pub(super) fn searchsorted_kernel(
        &self,
        sorted: &Tensor,
        values: &Tensor,
        right: bool,
        out: &Tensor,
    ) -> Result<bool> {
        let ctx = self.ctx("searchsorted")?;
        let int64 = ctx.features.contains(wgpu::Features::SHADER_INT64);
        let Some((key, _)) = key_fn(sorted.dtype()) else {
            return Ok(false);
        };
        if !int64 || sorted.shape()[0] > i32::MAX as usize {
            return Ok(false);
        }
        // `sorted` seen from every value: its first element, stride 0.
        let base = sorted.with_layout(Layout::from_slices(
            values.shape(),
            &vec![0; values.ndim()],
            sorted.offset(),
        ));
        let n = sorted.shape()[0] as u32;
        let stride = sorted.layout().strides()[0] as i32;
        let below = if right { "km <= kv" } else { "km < kv" };
        let prm: Vec<u8> = [n as i32, stride]
            .iter()
            .flat_map(|v| v.to_ne_bytes())
            .collect();
        Map {
            op: "searchsorted",
            operands: vec![
                Operand::read(values),
                Operand::read(&base),
                Operand::write(out),
            ],
            helpers: key,
            body: format!(
                "    let kv = key(ld0(i0));\n    var lo = 0u;\n    var hi = u32(prm[0]);\n    loop {{\n      if (lo >= hi) {{ break; }}\n      let mid = (lo + hi) / 2u;\n      let km = key(ld1(u32(i32(i1) + i32(mid) * prm[1])));\n      if ({below}) {{ lo = mid + 1u; }} else {{ hi = mid; }}\n    }}\n    st2(i2, i64(lo));"
            ),
            params: Some(("i32", prm)),
            flag: false,
        }
        .run(&ctx)?;
        Ok(true)
    }
}
