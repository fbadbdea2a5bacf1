//! f16 / bf16 runs widened to f32: for the reductions that compare values
//! (max/min runs in `reduce/reducers.rs`, argmax/argmin rows in
//! `reduce/arg.rs`) and contiguous casts to f32 (`copy.rs`): the
//! widening loop at AVX2 width where the CPU has it (the branch-free
//! conversions of `half_bits` vectorise; compiled for the baseline x86-64
//! they run 4 lanes of SSE2; f16 takes the F16C conversion instruction),
//! portable elsewhere and under `RNX_SIMD=portable`. 1M f16, best of 200,
//! two runs alternated with the SSE2 loop (2-core Zen 3 VM): max 0.20-0.21
//! -> 0.056-0.059 ms, max of 1024 rows 0.22 -> 0.074-0.080 ms (f32: 0.035-
//! 0.042, 0.044-0.052); bf16 unchanged (0.073, 0.09).

use crate::dtype::half_bits::Half;
use crate::dtype::{DType, Element};
use half::{bf16, f16};

/// `dst[i] = src[i]` as f32 (exact) for every element of `src`, which is an
/// f16 or bf16 run (any other dtype widens through
/// [`Element::exact_f32`], 0 where it has none); `dst` is at least as long.
pub(crate) fn widen_run<T: Element>(src: &[T], dst: &mut [f32]) {
    match T::DTYPE {
        DType::F16 => {
            let src: &[f16] = bytemuck::cast_slice(src);
            #[cfg(target_arch = "x86_64")]
            {
                use crate::backend::cpu::elementwise::simd::{isa, Isa};
                if isa() >= Isa::Avx2 && std::arch::is_x86_feature_detected!("f16c") {
                    // SAFETY: the CPU has AVX2 and F16C (checked).
                    return unsafe { widen_f16c(src, dst) };
                }
            }
            widen::<f16>(src, dst)
        }
        DType::BF16 => widen::<bf16>(bytemuck::cast_slice(src), dst),
        _ => {
            for (d, &s) in dst.iter_mut().zip(src) {
                *d = s.exact_f32().unwrap_or(0.0);
            }
        }
    }
}

fn widen<H: Half>(src: &[H], dst: &mut [f32]) {
    #[cfg(target_arch = "x86_64")]
    {
        use crate::backend::cpu::elementwise::simd::{isa, Isa};
        if isa() >= Isa::Avx2 {
            // SAFETY: the CPU has AVX2 (`isa`).
            return unsafe { widen_avx2(src, dst) };
        }
    }
    widen_loop(src, dst)
}

#[inline(always)]
fn widen_loop<H: Half>(src: &[H], dst: &mut [f32]) {
    for (d, &s) in dst.iter_mut().zip(src) {
        *d = s.widen();
    }
}

/// f16 to f32 by the F16C instruction, 8 at a time (exact, as `half_bits`).
///
/// # Safety
/// The CPU has AVX2 and F16C.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,f16c")]
unsafe fn widen_f16c(src: &[f16], dst: &mut [f32]) {
    use std::arch::x86_64::*;
    let n = src.len().min(dst.len());
    let mut i = 0;
    while i + 8 <= n {
        // SAFETY: elements i..i + 8 of both slices exist (n bounds both).
        unsafe {
            let h = _mm_loadu_si128(src.as_ptr().add(i) as *const __m128i);
            _mm256_storeu_ps(dst.as_mut_ptr().add(i), _mm256_cvtph_ps(h));
        }
        i += 8;
    }
    widen_loop(&src[i..n], &mut dst[i..n]);
}

/// [`widen_loop`] compiled for AVX2.
///
/// # Safety
/// The CPU has AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn widen_avx2<H: Half>(src: &[H], dst: &mut [f32]) {
    widen_loop(src, dst)
}
