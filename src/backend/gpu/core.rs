//! The GPU core primitives: allocation, upload, download, fill, strided copy
//! and cast. Copies move raw bits (an unsigned type of the element's width),
//! so NaN payloads and signed zeros survive; casts compute in WGSL with
//! explicit truncation and saturation; where WGSL's conversions do not
//! promise one correctly rounded result (f64 -> narrower floats, wide
//! integers -> floats) they round in integer arithmetic (`round.rs`), or,
//! on adapters without 64-bit integers, go through the CPU.

use super::buffer::{padded, read_back};
use super::kernel::{param_bytes, raw, Map, Operand};
use super::{new_storage, GpuBackend};
use crate::backend::CoreBackend;
use crate::device::Device;
use crate::dtype::{DType, Scalar};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::storage::Storage;
use crate::tensor::Tensor;
use std::sync::Arc;

/// The unsigned dtype of `d`'s width, used to move elements as bits.
pub(crate) fn bits_dtype(d: DType, has_int64: bool) -> DType {
    match d.itemsize() {
        1 => DType::U8,
        2 => DType::U16,
        4 => DType::U32,
        8 if has_int64 => DType::U64,
        // f64 and c32 without 64-bit integers, c64: moved as their own
        // `f64` / `vec2` (plain loads and stores keep every bit).
        _ => d,
    }
}

/// The value conversion from compute type of `s` to that of `d`, as a WGSL
/// expression over `x`, or `None` when WGSL cannot do it with one correct
/// rounding (then the CPU does it).
fn cast_expr(s: DType, d: DType, x: &str) -> Option<String> {
    use super::wgsl::{compute_ty, is_nan};
    if s.is_complex() || d.is_complex() {
        return complex_cast_expr(s, d, x);
    }
    let (ts, td) = (compute_ty(s), compute_ty(d));
    if s.is_float() && d.is_float() {
        // Halves come in as f32 exactly; f32 -> f16/bf16 rounds once in the store.
        return match (ts, td) {
            ("f32", "f32") => Some(x.to_string()),
            ("f32", "f64") => Some(format!("f64({x})")),
            ("f64", "f64") => Some(x.to_string()),
            _ => None, // f64 -> f32/f16/bf16: WGSL's rounding mode is not promised (round.rs)
        };
    }
    if s.is_int() && d.is_int() {
        // Same compute type or a WGSL conversion that keeps the low bits
        // (sign- or zero-extends when widening); narrow stores keep the low bits.
        return Some(if ts == td {
            x.to_string()
        } else if td.ends_with("64") && !ts.ends_with("64") {
            // Widen with the source's signedness first (sign- or zero-extend),
            // then reinterpret: a direct conversion follows the target's.
            let wide = if s.is_signed_int() { "i64" } else { "u64" };
            format!("{td}({wide}({x}))")
        } else {
            format!("{td}({x})")
        });
    }
    if s.is_int() && d.is_float() {
        // Exact when every value of the source is representable in the target.
        let exact = match d {
            DType::F64 => s.itemsize() <= 4,
            DType::F32 => s.itemsize() <= 2,
            DType::F16 => matches!(s, DType::I8 | DType::U8),
            DType::BF16 => matches!(s, DType::I8 | DType::U8),
            _ => false,
        };
        return exact.then(|| format!("{td}({x})"));
    }
    if s.is_float() && d.is_int() {
        // Truncate toward zero, saturate at the target's range, NaN -> 0.
        let (lo, hi) = int_range(d);
        let big = d.itemsize() == 8;
        if big && ts == "f32" {
            return None;
        }
        let nan = is_nan(s, x);
        let zero = super::wgsl::lit(d, 0.0);
        let lo_l = super::wgsl::lit(d, lo);
        let hi_l = super::wgsl::lit(d, hi);
        // Bounds in the source type: lo is exact (a power of two or 0);
        // values >= hi + 1 (a power of two) saturate to hi.
        let lo_f = super::wgsl::lit(s, lo);
        let hi1_f = super::wgsl::lit(s, hi + 1.0);
        return Some(format!(
            "select(select(select({td}(trunc({x})), {hi_l}, {x} >= {hi1_f}), {lo_l}, {x} <= {lo_f}), {zero}, {nan})"
        ));
    }
    None
}

/// [`cast_expr`] with a complex side (the CPU's rules): c32 -> c64 widens
/// each part; real -> complex casts into the real part, imaginary part 0;
/// complex -> real casts the real part (the imaginary part is dropped).
/// `None` where a part rounds (c64 -> c32, f64 or wide integers -> c32).
fn complex_cast_expr(s: DType, d: DType, x: &str) -> Option<String> {
    match (s.is_complex(), d.is_complex()) {
        (true, true) => (s == DType::C32 && d == DType::C64).then(|| format!("vec2<f64>({x})")),
        (false, true) => {
            let p = d.real();
            let e = cast_expr(s, p, x)?;
            Some(format!(
                "vec2<{}>({e}, {})",
                super::wgsl::compute_ty(p),
                super::wgsl::lit(p, 0.0)
            ))
        }
        _ => cast_expr(s.real(), d, &format!("{x}.x")),
    }
}

/// The range of an integer dtype as f64 (exact for the ends used above).
fn int_range(d: DType) -> (f64, f64) {
    match d {
        DType::I8 => (-128.0, 127.0),
        DType::I16 => (-32768.0, 32767.0),
        DType::I32 => (-2147483648.0, 2147483647.0),
        DType::I64 => (-9223372036854775808.0, 9223372036854775807.0),
        DType::U8 => (0.0, 255.0),
        DType::U16 => (0.0, 65535.0),
        DType::U32 => (0.0, 4294967295.0),
        _ => (0.0, 18446744073709551615.0),
    }
}

impl CoreBackend for GpuBackend {
    fn device(&self) -> Device {
        Device::Gpu(self.index)
    }

    fn alloc(&self, dtype: DType, len: usize) -> Result<Storage> {
        new_storage(&self.ctx("alloc")?, dtype, len, true, "alloc")
    }

    fn alloc_for_overwrite(&self, dtype: DType, len: usize) -> Result<Storage> {
        new_storage(&self.ctx("alloc")?, dtype, len, false, "alloc")
    }

    fn upload(&self, dtype: DType, bytes: &[u8]) -> Result<Storage> {
        let ctx = self.ctx("upload")?;
        ctx.check_dtype("upload", dtype)?;
        if !bytes.len().is_multiple_of(dtype.itemsize()) {
            return Err(Error::invalid(
                "upload",
                format!(
                    "{} bytes is not a whole number of {dtype} elements",
                    bytes.len()
                ),
            ));
        }
        let b = super::GpuBuffer::from_bytes(&ctx, bytes, "upload")?;
        Ok(Storage::gpu(dtype, bytes.len() / dtype.itemsize(), b))
    }

    fn download(&self, src: &Tensor, dst: &mut [u8]) -> Result<()> {
        if dst.len() != src.nbytes() {
            return Err(Error::invalid(
                "download",
                format!(
                    "destination has {} bytes, tensor has {}",
                    dst.len(),
                    src.nbytes()
                ),
            ));
        }
        if dst.is_empty() {
            return Ok(());
        }
        let ctx = self.ctx("download")?;
        let w = src.itemsize();
        let off = src.offset() * w;
        let len = (dst.len() as u64).div_ceil(4) * 4;
        let bytes = if src.is_c_contiguous() && off.is_multiple_of(4) {
            read_back(&ctx, raw(src), off as u64, len, "download")?
        } else {
            let s = new_storage(&ctx, src.dtype(), src.size(), false, "download")?;
            let tmp = Tensor::from_parts(Arc::new(s), Layout::contiguous(src.shape()))?;
            self.copy(src, &tmp)?;
            debug_assert!(len <= padded(tmp.nbytes()));
            read_back(&ctx, raw(&tmp), 0, len, "download")?
        };
        dst.copy_from_slice(&bytes[..dst.len()]);
        Ok(())
    }

    fn fill(&self, dst: &Tensor, value: Scalar) -> Result<()> {
        let ctx = self.ctx("fill")?;
        if dst.dtype().is_complex() {
            // The parts as parameters of the part type (exact: a c32's parts
            // are f32 values, carried through f64).
            let (re, im) = crate::dispatch!(@complex dst.dtype(), "fill", T => {
                let v = value.get::<T>();
                (crate::dtype::Element::to_f64(v), crate::dtype::Element::imag_f64(v))
            });
            let (ty, bytes) = param_bytes(dst.dtype().real(), &[re, im]);
            Map {
                op: "fill",
                operands: vec![Operand::write(dst)],
                helpers: String::new(),
                body: format!("    st0(i0, vec2<{ty}>(prm[0], prm[1]));"),
                params: Some((ty, bytes)),
                flag: false,
            }
            .run(&ctx)?;
            return Ok(());
        }
        let bd = bits_dtype(
            dst.dtype(),
            ctx.features.contains(wgpu::Features::SHADER_INT64),
        );
        let bits: Vec<u8> = crate::dispatch!(@bytes dst.dtype(), "fill", T => {
            bytemuck::bytes_of(&value.get::<T>()).to_vec()
        });
        let mut word = [0u8; 8];
        word[..bits.len()].copy_from_slice(&bits);
        let (ty, bytes) = if bd == DType::F64 {
            param_bytes(bd, &[f64::from_ne_bytes(word)])
        } else if bd.itemsize() == 8 {
            ("u64", word.to_vec())
        } else {
            ("u32", word[..4].to_vec())
        };
        Map {
            op: "fill",
            operands: vec![Operand::write(dst).with_dtype(bd)],
            helpers: String::new(),
            body: "    st0(i0, prm[0]);".into(),
            params: Some((ty, bytes)),
            flag: false,
        }
        .run(&ctx)?;
        Ok(())
    }

    fn copy(&self, src: &Tensor, dst: &Tensor) -> Result<()> {
        if self.copy_transposed(src, dst)? {
            return Ok(());
        }
        let ctx = self.ctx("copy")?;
        let bd = bits_dtype(
            src.dtype(),
            ctx.features.contains(wgpu::Features::SHADER_INT64),
        );
        Map {
            op: "copy",
            operands: vec![
                Operand::read(src).with_dtype(bd),
                Operand::write(dst).with_dtype(bd),
            ],
            helpers: String::new(),
            body: "    st1(i1, ld0(i0));".into(),
            params: None,
            flag: false,
        }
        .run(&ctx)?;
        Ok(())
    }

    fn cast(&self, src: &Tensor, dst: &Tensor) -> Result<()> {
        if src.dtype() == dst.dtype() {
            return self.copy(src, dst);
        }
        let ctx = self.ctx("cast")?;
        match cast_expr(src.dtype(), dst.dtype(), "ld0(i0)") {
            Some(e) => {
                Map {
                    op: "cast",
                    operands: vec![Operand::read(src), Operand::write(dst)],
                    helpers: String::new(),
                    body: format!("    st1(i1, {e});"),
                    params: None,
                    flag: false,
                }
                .run(&ctx)?;
                Ok(())
            }
            // A complex source to a real dtype rounds its real part.
            None => match if src.dtype().is_complex() && !dst.dtype().is_complex() {
                super::round::rounded_cast(src.dtype().real(), dst.dtype(), "ld0(i0).x")
            } else {
                super::round::rounded_cast(src.dtype(), dst.dtype(), "ld0(i0)")
            } {
                Some((helpers, e, bits)) if ctx.features.contains(wgpu::Features::SHADER_INT64) => {
                    Map {
                        op: "cast",
                        operands: vec![Operand::read(src), Operand::write(dst).with_dtype(bits)],
                        helpers,
                        body: format!("    st1(i1, {e});"),
                        params: None,
                        flag: false,
                    }
                    .run(&ctx)?;
                    Ok(())
                }
                _ => super::via_cpu(&[src], &[dst], |cpu, i, o| cpu.cast(&i[0], &o[0])),
            },
        }
    }
}
