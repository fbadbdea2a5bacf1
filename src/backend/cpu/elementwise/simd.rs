//! Runtime CPU-feature selection for the elementwise inner loops: the best
//! instruction set is detected once per process; each kernel is compiled
//! twice (portable baseline, and AVX2+FMA) from the same generic source and the
//! engine picks one per call. Set `RNX_SIMD=portable` to force the baseline.
//! Holds no kernels itself.

use std::sync::OnceLock;

/// The instruction-set level the elementwise kernels run at.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Isa {
    /// The compile target's baseline (SSE2 on x86-64, NEON on aarch64, ...).
    Portable,
    /// x86 AVX2 with FMA.
    Avx2,
}

fn detect() -> Isa {
    if std::env::var("RNX_SIMD").is_ok_and(|v| v.eq_ignore_ascii_case("portable")) {
        return Isa::Portable;
    }
    #[cfg(any(target_arch = "x86", target_arch = "x86_64"))]
    {
        if std::arch::is_x86_feature_detected!("avx2") && std::arch::is_x86_feature_detected!("fma")
        {
            return Isa::Avx2;
        }
    }
    Isa::Portable
}

/// The level chosen for this process (detected on first use).
pub fn isa() -> Isa {
    static ISA: OnceLock<Isa> = OnceLock::new();
    *ISA.get_or_init(detect)
}

/// Run `f`, compiled for AVX2+FMA when this process runs at [`Isa::Avx2`]
/// (else at the baseline). `f` must be `#[inline(always)]` (as must what it
/// calls and should vectorise wider) for LLVM to compile its body inside the
/// AVX2 function. Results do not change with the level: Rust never contracts
/// `a * b + c` into a fused multiply-add on its own, and loops with explicit
/// lanes keep their order of operations.
#[inline(always)]
pub fn with_best<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    {
        #[target_feature(enable = "avx2,fma")]
        unsafe fn avx2<R>(f: impl FnOnce() -> R) -> R {
            f()
        }
        if isa() == Isa::Avx2 {
            // SAFETY: the CPU has AVX2 and FMA (`detect`).
            return unsafe { avx2(f) };
        }
    }
    f()
}
